//! Runtime values, colors, and `Typed` (upstream's MetaArg): the result of
//! evaluating any expression is a value together with its color and its
//! static type.

use std::cell::RefCell;
use std::fmt;
use std::rc::Rc;

use crate::error::{ExcKind, Failure};
use crate::syntax::ast::{FuncColor, FuncKind};
use crate::vm::builtins::Builtin;
use crate::vm::code::FuncCode;
use crate::vm::ops::Scalar;
use crate::vm::types::TypeId;

/// Blue = known at compile (redshift) time; red = known only at run time.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Color {
    Blue,
    Red,
}

impl Color {
    pub fn name(self) -> &'static str {
        match self {
            Color::Blue => "blue",
            Color::Red => "red",
        }
    }

    /// Blue iff both are blue.
    pub fn join(self, other: Color) -> Color {
        if self == Color::Blue && other == Color::Blue {
            Color::Blue
        } else {
            Color::Red
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct ModuleId(pub u32);

/// A SPy value.
#[derive(Clone)]
pub enum Value {
    Scalar(Scalar),
    /// A `str`: shared, and appended to in place when nothing else holds it
    /// (`s = s + t`, see `frames::stmt`).
    Str(Rc<crate::vm::memory::Text>),
    /// A `bytes`: immutable and shared.
    Bytes(Rc<crate::vm::memory::Blob>),
    None,
    Type(TypeId),
    Func(Rc<Function>),
    Builtin(Builtin),
    /// A tuple: a static tuple (`tuple[T0, ...]`) or an interp tuple.
    Tuple(Rc<TupleValue>),
    Struct(Rc<StructValue>),
    Range(RangeValue),
    /// A `file`: its entry in the run's file table (`host::Files`).
    File(FileId),
    Exception(Rc<ExceptionValue>),
    Module(ModuleId),
    /// What a metafunc sees of a call-site argument (`operator::MetaArg`).
    Meta(Rc<MetaArgValue>),
    /// What a metafunc returns (`operator::OpSpec`).
    OpSpec(Rc<OpSpecValue>),
    /// `gc_ptr[T]` / `raw_ptr[T]` (from the `unsafe` module).
    Ptr(PtrValue),
    /// `gc_ref[T]` / `raw_ref[T]`: a struct in pointer memory.
    Ref(Rc<RefValue>),
    /// `SIMD[T, N]` (from the `simd` module).
    Simd(Rc<SimdValue>),
    /// `list[T]`: shared and mutable (copies alias the same items).
    List(Rc<ListValue>),
    /// `list[T]::list_iterator` (`l.__fastiter__()`): immutable.
    ListIter(Rc<ListIterValue>),
    /// `dict[K, V]` / `interp_dict[K, V]`: shared and mutable.
    Dict(Rc<crate::vm::dict::DictValue>),
    /// `@struct class C[T]`: subscripting it makes the struct type `C[...]`.
    GenericStruct(Rc<GenericStructValue>),
    /// Only while redshifting: a red value, known by the residual expression
    /// that computes it at run time (an expression of the redshift's
    /// residual module, `DopplerState::residual`).
    Residual(ResidualExpr),
}

/// A residual expression as a red value holds it while redshifting: the
/// expression, and the window of the residual arena it was made in. A
/// streaming redshift prints each function once it is shifted and cuts the
/// arena back to where the function began (`redshift::stream`), so an id
/// made before a cut would name another node after it: the window tells
/// such a stale value from a live one, and reading it is an internal error
/// (`Shift::live`), never a wrong node.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct ResidualExpr {
    pub expr: crate::syntax::ast::ExprId,
    pub window: u32,
}

/// A file's entry in the run's file table (`host::Files`); entries are
/// never reused, so a closed file's id stays closed.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct FileId(pub u32);

/// A generic struct definition, specialized by `C[args]`.
pub struct GenericStructValue {
    pub fqn: Rc<str>,
    /// The tree the `class` is in, and the `class`.
    pub ast: Rc<crate::syntax::ast::Module>,
    pub class: crate::syntax::ast::ClassId,
    pub module: ModuleId,
    pub file: Rc<crate::source::SourceFile>,
    pub res: Rc<crate::resolve::Resolution>,
    pub closure: Closure,
}

impl GenericStructValue {
    /// The generic `class`.
    pub fn def(&self) -> crate::syntax::ast::ClassDef<'_> {
        self.ast.class(self.class)
    }
}

impl fmt::Debug for GenericStructValue {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "<generic struct {}>", self.fqn)
    }
}

/// A position in a list: `__item__` reads item `index` of the (shared,
/// live) list, `__next__` is the iterator at `index + 1`.
#[derive(Debug)]
pub struct ListIterValue {
    pub ty: TypeId,
    pub list: Rc<ListValue>,
    pub index: i32,
}

#[derive(Debug)]
pub struct ListValue {
    pub ty: TypeId,
    pub items: RefCell<Vec<Value>>,
    /// The items' bytes in the memory budget (`vm::memory`); kept in step
    /// by [`ListValue::recount`] after every change of length.
    counted: crate::vm::memory::HeapBytes,
}

impl ListValue {
    pub fn new(ty: TypeId, items: Vec<Value>) -> ListValue {
        let counted = crate::vm::memory::HeapBytes::new(Self::bytes_of(items.len()));
        ListValue {
            ty,
            items: RefCell::new(items),
            counted,
        }
    }

    /// What `len` items cost in the memory budget.
    pub fn bytes_of(len: usize) -> u64 {
        (len as u64).saturating_mul(std::mem::size_of::<Value>() as u64)
    }

    /// Count the items as they are now.
    pub fn recount(&self) {
        self.counted.set(Self::bytes_of(self.items.borrow().len()));
    }

    /// Remove the last item (recounted).
    pub fn popped(&self) -> Option<Value> {
        let v = self.items.borrow_mut().pop();
        self.recount();
        v
    }
}

/// A MetaArg. In the interp engine a red MetaArg still holds the argument's
/// value (for the call it describes) but does not expose it: `.blueval` of a
/// red MetaArg is an error.
#[derive(Debug)]
pub struct MetaArgValue {
    pub color: Color,
    pub ty: TypeId,
    pub value: Value,
}

impl MetaArgValue {
    pub fn key(&self) -> crate::vm::memo::ValueKey {
        let blue = match self.color {
            Color::Blue => Some(Box::new(crate::vm::memo::value_key(&self.value))),
            Color::Red => None,
        };
        crate::vm::memo::ValueKey::MetaArg(self.color, self.ty, blue)
    }
}

/// The forms of `OpSpec`.
#[derive(Debug)]
pub enum OpSpecValue {
    /// `OpSpec.NULL`: the operation is not supported.
    Null,
    /// `OpSpec.const(v)`: the result is `v`.
    Const(Typed),
    /// `OpSpec(f)`: call `f` with the operation's arguments.
    Simple(Typed),
    /// `OpSpec(f, [m_a, ...])`: call `f` with these MetaArgs.
    Complex(Typed, Vec<Rc<MetaArgValue>>),
}

/// A pointer into a gc-managed array of items (`vm::memory`), or NULL.
#[derive(Clone, Debug)]
pub struct PtrValue {
    pub ty: TypeId,
    pub mem: Option<Rc<RefCell<crate::vm::memory::PtrMem>>>,
}

impl PtrValue {
    /// Address-like identity (0 for NULL).
    pub fn identity(&self) -> usize {
        self.mem
            .as_ref()
            .map(|m| Rc::as_ptr(m) as *const () as usize)
            .unwrap_or(0)
    }
}

/// A reference into pointer memory (`gc_ref[T]` / `raw_ref[T]`): the
/// struct reached from item `index` of an allocation through the struct
/// fields `path` (field positions, outermost first). It is made only for
/// an item that exists, and allocations never shrink, so every access
/// through it is in bounds (spec §15.1, "References").
#[derive(Debug)]
pub struct RefValue {
    pub ty: TypeId,
    pub mem: Rc<RefCell<crate::vm::memory::PtrMem>>,
    pub index: usize,
    pub path: Box<[usize]>,
}

/// A SIMD vector value.
#[derive(Debug)]
pub struct SimdValue {
    pub ty: TypeId,
    pub lanes: Box<[Scalar]>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RangeValue {
    pub start: i32,
    pub stop: i32,
    pub step: i32,
}

/// A tuple value and its type (`tuple[i32, f64]`, or the interp tuple type
/// for tuples of types, functions, MetaArgs...).
#[derive(Debug)]
pub struct TupleValue {
    pub ty: TypeId,
    pub items: Box<[Value]>,
}

/// An immutable struct value (structs are passed by value).
#[derive(Debug)]
pub struct StructValue {
    pub ty: TypeId,
    pub fields: Box<[Value]>,
}

/// An exception instance, e.g. `ValueError("bad")`, ready to be raised.
#[derive(Debug)]
pub struct ExceptionValue {
    pub kind: ExcKind,
    pub message: String,
}

/// A local variable slot of a frame.
#[derive(Clone, Debug)]
pub struct Local {
    pub ty: TypeId,
    pub color: Color,
    /// `None` while declared but not yet assigned (`x: i32`).
    pub value: Option<Value>,
}

/// The locals of one function activation, shared with closures created in it
/// (inner functions read outer locals late-bound, as upstream).
pub type Env = Rc<RefCell<Vec<Option<Local>>>>;

/// The environments a function or class closes over, outermost first:
/// a thin pointer (8 bytes in every `Function`, issue 14 item 5).
pub type Closure = Rc<Vec<Env>>;

/// The slots a function binds before its body runs (`Function::presets`):
/// one pointer, null for the functions that have none (almost all).
#[derive(Clone, Debug, Default)]
pub struct Presets(Option<Rc<Vec<(u32, Local)>>>);

impl Presets {
    pub fn iter(&self) -> std::slice::Iter<'_, (u32, Local)> {
        self.0.as_deref().map_or([].iter(), |p| p.iter())
    }
}

impl From<Vec<(u32, Local)>> for Presets {
    fn from(presets: Vec<(u32, Local)>) -> Presets {
        Presets((!presets.is_empty()).then(|| Rc::new(presets)))
    }
}

/// The `presets` of a function that has none.
pub fn no_presets() -> Presets {
    Presets::default()
}

/// A parameter of a function after its `def` executed (its name is the
/// `def`'s). 16 bytes: one per parameter of every function of a program
/// (issue 14 item 5).
#[derive(Clone, Debug)]
pub struct ParamSpec {
    pub ty: TypeId,
    /// Boxed: most parameters have none.
    pub default: Option<Box<Typed>>,
}

/// The parameters of a function and its return type: a shared record
/// (it reads as a slice of the parameters; one pointer in the `Function`,
/// shared by the functions of one type, so the return type costs no bytes
/// of its own in each).
#[derive(Clone, Debug)]
pub struct ParamSpecs(Rc<Signature>);

#[derive(Debug)]
struct Signature {
    params: Vec<ParamSpec>,
    ret: TypeId,
}

impl ParamSpecs {
    pub fn new(params: Vec<ParamSpec>, ret: TypeId) -> ParamSpecs {
        ParamSpecs(Rc::new(Signature { params, ret }))
    }

    /// The declared return type.
    #[inline]
    pub fn ret(&self) -> TypeId {
        self.0.ret
    }
}

impl std::ops::Deref for ParamSpecs {
    type Target = [ParamSpec];
    fn deref(&self) -> &[ParamSpec] {
        &self.0.params
    }
}

impl<'a> IntoIterator for &'a ParamSpecs {
    type Item = &'a ParamSpec;
    type IntoIter = std::slice::Iter<'a, ParamSpec>;
    fn into_iter(self) -> Self::IntoIter {
        self.0.params.iter()
    }
}

/// A user function (red or blue), created when its `def` executes.
pub struct Function {
    pub fqn: Rc<str>,
    /// (Inline: the `def`'s id and its module's shared `CodeUnit`.)
    pub code: FuncCode,
    pub color: FuncColor,
    pub kind: FuncKind,
    /// The function's own type (`def(i32) -> i32`).
    pub ty: TypeId,
    /// (Shared by the functions of one type whose parameters have no
    /// default: the list is then the type's parameter types.)
    /// The parameters and the declared return type ([`Function::ret`]).
    pub params: ParamSpecs,
    /// Enclosing function activations, outermost first.
    pub closure: Closure,
    /// Presets, `*args` and an inferred return type, which almost no
    /// function has: boxed, `None` when it has none of them (a record 24
    /// bytes smaller for every `def` of a program, issue 14 item 5). Read
    /// through [`Function::presets`], [`Function::star`] and
    /// [`Function::inferred_ret`].
    pub extra: Option<Box<FuncExtra>>,
    /// Marked `@force_inline` (inlined by redshift; a call in ASTFrame).
    pub force_inline: bool,
    /// A PEP 695 generic: calling it (via `[...]`) builds the specialized
    /// red function instead of running the body.
    pub pep695: bool,
}

/// The rare parts of a [`Function`].
#[derive(Debug, Default)]
pub struct FuncExtra {
    /// Slots bound before the body runs: the type parameters of a PEP 695
    /// specialization (`def add[T]` called as `add[i32]` binds `T`).
    pub presets: Presets,
    /// How `*args` is declared, if the function has it.
    pub star: Option<StarParam>,
    /// `Some` for a red function defined in blue code without `-> T`: its
    /// return type is fixed by the first `return` executed.
    pub inferred_ret: Option<std::cell::Cell<Option<TypeId>>>,
}

impl FuncExtra {
    /// The boxed parts, `None` when there are none.
    pub fn boxed(self) -> Option<Box<FuncExtra>> {
        let none = self.presets.0.is_none() && self.star.is_none() && self.inferred_ret.is_none();
        (!none).then(|| Box::new(self))
    }
}

impl Clone for FuncExtra {
    fn clone(&self) -> FuncExtra {
        FuncExtra {
            presets: self.presets.clone(),
            star: self.star.clone(),
            inferred_ret: self.inferred_ret.as_ref().map(|c| std::cell::Cell::new(c.get())),
        }
    }
}

impl Function {
    /// The declared return type (`DYNAMIC` while an inferred one is
    /// unknown: [`Function::inferred_ret`]).
    #[inline]
    pub fn ret(&self) -> TypeId {
        self.params.ret()
    }

    /// The module whose code it runs (its `def`'s, kept by `code`).
    #[inline]
    pub fn module(&self) -> ModuleId {
        self.code.module
    }

    /// The slots bound before the body runs.
    pub fn presets(&self) -> std::slice::Iter<'_, (u32, Local)> {
        self.extra.as_deref().map_or([].iter(), |e| e.presets.iter())
    }

    /// How `*args` is declared, if the function has it.
    pub fn star(&self) -> Option<&StarParam> {
        self.extra.as_deref().and_then(|e| e.star.as_ref())
    }

    /// The return type fixed by the first `return`, for a red function
    /// defined in blue code without `-> T`.
    pub fn inferred_ret(&self) -> Option<&std::cell::Cell<Option<TypeId>>> {
        self.extra.as_deref().and_then(|e| e.inferred_ret.as_ref())
    }
}

/// The `*args` parameter of a function (at index `index` of the
/// positional parameters).
#[derive(Clone, Debug)]
pub struct StarParam {
    pub index: usize,
    pub kind: StarKind,
}

#[derive(Clone, Debug)]
pub enum StarKind {
    /// `*args` / `*args: T`: any number of extra arguments, converted to
    /// `T` (dynamic when unannotated), collected into an interp tuple.
    Variadic(TypeId),
    /// `*args: types` with a blue tuple of types: exactly `len(types)`
    /// positional parameters packed into a static `tuple[*types]`.
    Pack(TypeId, Vec<TypeId>),
}

impl fmt::Debug for Function {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "<function {}>", self.fqn)
    }
}

impl fmt::Debug for Value {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Value::Scalar(s) => write!(f, "{s:?}"),
            Value::Str(s) => write!(f, "{s:?}"),
            Value::Bytes(b) => write!(f, "{b:?}"),
            Value::None => write!(f, "None"),
            Value::Type(t) => write!(f, "type#{}", t.0),
            Value::Func(func) => write!(f, "{func:?}"),
            Value::Builtin(b) => write!(f, "<builtin {}>", b.name()),
            Value::Tuple(t) => f.debug_list().entries(t.items.iter()).finish(),
            Value::Struct(s) => write!(f, "struct#{}{:?}", s.ty.0, s.fields),
            Value::Range(r) => write!(f, "{r:?}"),
            Value::File(id) => write!(f, "<file #{}>", id.0),
            Value::Exception(e) => write!(f, "{}({:?})", e.kind, e.message),
            Value::Module(m) => write!(f, "module#{}", m.0),
            Value::Meta(m) => write!(f, "MetaArg({:?}, type#{}, {:?})", m.color, m.ty.0, m.value),
            Value::OpSpec(o) => write!(f, "{o:?}"),
            Value::Ptr(p) => write!(f, "ptr#{}@{:#x}", p.ty.0, p.identity()),
            Value::Ref(r) => write!(
                f,
                "ref#{}@{:#x}[{}]{:?}",
                r.ty.0,
                Rc::as_ptr(&r.mem) as *const () as usize,
                r.index,
                r.path
            ),
            Value::Simd(v) => write!(f, "simd{:?}", v.lanes),
            Value::List(l) => write!(f, "list{:?}", l.items.borrow()),
            Value::ListIter(it) => write!(f, "list_iterator@{}", it.index),
            Value::Dict(d) => write!(f, "dict{:?}", d.entries()),
            Value::GenericStruct(g) => write!(f, "{g:?}"),
            Value::Residual(e) => write!(f, "residual({:?} of window {})", e.expr, e.window),
        }
    }
}

impl Value {
    /// `clone()`, with the common case (a scalar: a plain copy) inline;
    /// for the hot paths that read locals.
    #[inline]
    pub fn clone_fast(&self) -> Value {
        match self {
            Value::Scalar(s) => Value::Scalar(*s),
            other => other.clone(),
        }
    }

    pub fn str(s: &str) -> Value {
        Value::Str(Rc::new(s.into()))
    }

    pub fn bytes(b: &[u8]) -> Value {
        Value::Bytes(Rc::new(crate::vm::memory::Blob::new(b.to_vec())))
    }

    pub fn i32(v: i32) -> Value {
        Value::Scalar(Scalar::I32(v))
    }

    pub fn bool(v: bool) -> Value {
        Value::Scalar(Scalar::Bool(v))
    }

    pub fn as_scalar(&self) -> Option<Scalar> {
        match self {
            Value::Scalar(s) => Some(*s),
            _ => None,
        }
    }

    pub fn as_str(&self) -> Option<&str> {
        match self {
            Value::Str(s) => Some(s),
            _ => None,
        }
    }

    pub fn as_bool(&self) -> Option<bool> {
        match self {
            Value::Scalar(Scalar::Bool(b)) => Some(*b),
            _ => None,
        }
    }

    pub fn as_i32(&self) -> Option<i32> {
        match self {
            Value::Scalar(Scalar::I32(v)) => Some(*v),
            _ => None,
        }
    }

    pub fn as_type(&self) -> Option<TypeId> {
        match self {
            Value::Type(t) => Some(*t),
            _ => None,
        }
    }
}

/// Accessors for a value whose static type was already checked (`str`,
/// `i32`, `bool`, a primitive). Another shape here is a broken invariant —
/// for example a residual value of DopplerFrame slipping into a concrete
/// path — so it is a [`crate::error::Bug`], never a default that would make
/// a wrong answer.
impl Value {
    pub fn checked_str(&self) -> Result<&str, Failure> {
        self.as_str()
            .ok_or_else(|| crate::bug!("a checked `str` holds {self:?}"))
    }

    pub fn checked_bytes(&self) -> Result<&[u8], Failure> {
        match self {
            Value::Bytes(b) => Ok(b),
            _ => Err(crate::bug!("a checked `bytes` holds {self:?}")),
        }
    }

    pub fn checked_i32(&self) -> Result<i32, Failure> {
        self.as_i32()
            .ok_or_else(|| crate::bug!("a checked `i32` holds {self:?}"))
    }

    pub fn checked_bool(&self) -> Result<bool, Failure> {
        self.as_bool()
            .ok_or_else(|| crate::bug!("a checked `bool` holds {self:?}"))
    }

    pub fn checked_scalar(&self) -> Result<Scalar, Failure> {
        self.as_scalar()
            .ok_or_else(|| crate::bug!("a checked primitive holds {self:?}"))
    }
}

/// An evaluated expression: value, color and static type (upstream's
/// `W_MetaArg`). In the interp engine red values still carry their value.
#[derive(Clone, Debug)]
pub struct Typed {
    pub color: Color,
    pub ty: TypeId,
    pub value: Value,
}

impl Typed {
    pub fn blue(ty: TypeId, value: Value) -> Typed {
        Typed {
            color: Color::Blue,
            ty,
            value,
        }
    }

    pub fn red(ty: TypeId, value: Value) -> Typed {
        Typed {
            color: Color::Red,
            ty,
            value,
        }
    }

    pub fn none() -> Typed {
        Typed::blue(TypeId::NONE, Value::None)
    }

    pub fn is_blue(&self) -> bool {
        self.color == Color::Blue
    }
}

#[cfg(test)]
mod tests {
    /// A `Function` is made for every `def` a program runs (issue 14 item
    /// 5): its size is pinned so that a new field is a choice.
    #[test]
    fn a_function_record_is_64_bytes() {
        assert_eq!(std::mem::size_of::<super::Function>(), 64);
    }
}
