//! Value-free signatures of builtins (`len abs min max range repr ord`),
//! explicit conversions `T(x)`, the methods of `str` and `list[T]` (arity,
//! parameters and result in one table) and subscripts (static tuples, SIMD
//! lanes, `str`, `list[T]`, pointers). Each answers, from static types (and
//! a blue index where the rule needs one) alone: is this allowed, what does
//! it return and which implementation runs, or which error — typed, with
//! its exact text and the operand it annotates.
//!
//! ASTFrame's concrete rules and DopplerFrame's shift builders both call
//! these (and the JIT lowering will), so a static check exists once; the
//! evaluator turns a [`SigError`] into a located error. Operators have
//! their tables in [`super::dispatch`].

use crate::error::ExcKind;
use crate::syntax::ast::CmpOp;
use crate::vm::builtins::Builtin;
use crate::vm::ops::{cmpop_signature, convert as opconv, PrimTy};
use crate::vm::rt_error::RuntimeError;
use crate::vm::types::{TypeId, TypeKind, TypeTable};

/// The part of an operation an error annotates.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum At {
    /// Argument (or index) `k`.
    Arg(usize),
    /// Arguments `0..k` together.
    ArgsBefore(usize),
    /// The callee: the builtin's name, the method's name.
    Callee,
    /// The object of a method call or a subscript.
    Receiver,
    /// The whole call or subscript.
    Whole,
}

/// A static error of a signature.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum SigError {
    /// The number of arguments is outside `min..=max` (the evaluator's
    /// arity error, which names the missing or extra arguments).
    Arity { min: usize, max: usize },
    /// `TypeError: mismatched types` at argument `arg`.
    Mismatched {
        arg: usize,
        expected: TypeId,
        got: TypeId,
    },
    /// An error that residual code raises at run time (a typed
    /// [`RuntimeError`]), with its labels.
    Runtime {
        error: RuntimeError,
        labels: Vec<(At, String)>,
    },
    /// Any other error: its kind and text, error labels and notes.
    Error {
        kind: ExcKind,
        message: String,
        labels: Vec<(At, String)>,
        notes: Vec<(At, String)>,
    },
}

fn error(kind: ExcKind, message: impl Into<String>, labels: Vec<(At, String)>) -> SigError {
    SigError::Error {
        kind,
        message: message.into(),
        labels,
        notes: Vec::new(),
    }
}

fn arity(n: usize, min: usize, max: usize) -> Result<(), SigError> {
    if n < min || n > max {
        return Err(SigError::Arity { min, max });
    }
    Ok(())
}

// ---------------------------------------------------------------- builtins

/// The implementation a builtin call selects.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BuiltinImpl {
    /// `len` of a static tuple: blue, the number of items (decision: it
    /// depends only on the type); the operand is still evaluated.
    LenOfTuple(usize),
    /// `len` of an interp tuple (blue when the tuple is).
    LenOfInterpTuple,
    LenOfStr,
    LenOfBytes,
    LenOfList,
    LenOfDict,
    /// `len` through the struct's `__len__` (a call of the dunder).
    LenDunder,
    /// `abs` of a number (wrapping for ints).
    Abs,
    /// `min` / `max`: pairwise, each step converting both operands to the
    /// type [`min_max_operand`] gives; `operand` is the last step's.
    MinMax {
        operand: PrimTy,
    },
    /// `range(stop)`, `range(start, stop[, step])`: every argument
    /// converted to `i32`.
    Range,
    Repr,
    /// `ord` of a one-character `str`.
    Ord,
    /// `ord` of a non-empty `bytes`: its first byte, a `u8` (upstream).
    OrdBytes,
    /// `time.time()`: reads the clock (an effect).
    Time,
    /// `time.sleep(secs)`, `secs` converted to `f64` (an effect).
    Sleep,
    /// `open(path, mode = "r")`, both `str` (an effect: spec §8.5).
    Open,
    /// `ptr_copy(dst, src, n)`... (`vm::ops::memops`): an effect.
    Mem(crate::vm::ops::memops::MemOp),
    /// `unsafe.unchecked_div(a, b)`... (`vm::ops::unchecked`), both
    /// arguments converted to `operand`; pure.
    Div {
        op: crate::vm::ops::unchecked::DivOp,
        operand: PrimTy,
    },
    /// `math.f(x[, y])`, every argument converted to `f64`; pure.
    Math(crate::vm::ops::math::MathFn),
    /// `gc_alloc[T](n)` / `raw_alloc[T](n)`, `n` converted to `i32`.
    Alloc {
        item: TypeId,
        gc: bool,
    },
    /// `ptr_simd_load[T, N](p, i)`: `p` a pointer to `T`, `i` converted
    /// to `i32`.
    SimdLoad {
        lane: PrimTy,
        lanes: u32,
    },
    /// `ptr_simd_store(p, i, v)`: `v` a SIMD vector, `p` a pointer to its
    /// lane type, `i` converted to `i32`.
    SimdStore,
    /// `rawbuffer.rb_alloc(n)`, `rb_set_i32(b, offset, v)`... (every
    /// argument converted to its parameter's type): effects.
    Rb(crate::vm::ops::rawbuffer::RbFn),
}

impl BuiltinImpl {
    /// Whether the call has an effect, so that residual code keeps it even
    /// when every argument is known.
    pub fn has_effects(self) -> bool {
        matches!(
            self,
            BuiltinImpl::Time
                | BuiltinImpl::Sleep
                | BuiltinImpl::Open
                | BuiltinImpl::Alloc { .. }
                | BuiltinImpl::SimdLoad { .. }
                | BuiltinImpl::SimdStore
                | BuiltinImpl::Mem(_)
                | BuiltinImpl::Rb(_)
        )
    }
}

/// A builtin call's signature: its implementation, result type (`None`:
/// the dunder's), and the type each argument is converted to (if any).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BuiltinSig {
    pub imp: BuiltinImpl,
    pub result: Option<TypeId>,
    pub params: Vec<Option<TypeId>>,
}

/// One step of `min`/`max`: the type both operands meet at (the `<` table).
pub fn min_max_operand(a: TypeId, b: TypeId) -> Option<PrimTy> {
    cmpop_signature(CmpOp::Lt, a.as_prim()?, b.as_prim()?).map(|s| s.operand)
}

/// The signature of calling builtin `b` with arguments of types `args`;
/// `has_len` says whether a type has a `__len__` method. `None`: `b` is
/// not one of the builtins this table covers (effects, modules, types...).
pub fn builtin_signature(
    types: &mut TypeTable,
    b: Builtin,
    args: &[TypeId],
    has_len: impl Fn(TypeId) -> bool,
) -> Option<Result<BuiltinSig, SigError>> {
    let unary = |imp, result| {
        arity(args.len(), 1, 1).map(|_| BuiltinSig {
            imp,
            result: Some(result),
            params: vec![None],
        })
    };
    Some(match b {
        Builtin::Len => arity(args.len(), 1, 1).and_then(|_| len_signature(types, args[0], has_len)),
        Builtin::Abs => arity(args.len(), 1, 1).and_then(|_| match args[0].as_prim() {
            Some(p) if p != PrimTy::Bool => unary(BuiltinImpl::Abs, args[0]),
            _ => Err(this_is(types, "cannot call abs", args[0])),
        }),
        Builtin::Min | Builtin::Max => min_max_signature(types, b, args),
        Builtin::Range => arity(args.len(), 1, 3).map(|_| BuiltinSig {
            imp: BuiltinImpl::Range,
            result: Some(TypeId::RANGE),
            params: vec![Some(TypeId::I32); args.len()],
        }),
        Builtin::Repr => unary(BuiltinImpl::Repr, TypeId::STR),
        Builtin::Ord => arity(args.len(), 1, 1).and_then(|_| {
            if args[0] == TypeId::BYTES {
                return unary(BuiltinImpl::OrdBytes, TypeId::U8);
            }
            if args[0] != TypeId::STR {
                let n = types.name(args[0]);
                return Err(error(
                    ExcKind::TypeError,
                    format!("ord: expected `str` or `bytes`, found `{n}`"),
                    vec![(At::Arg(0), format!("this is `{n}`"))],
                ));
            }
            unary(BuiltinImpl::Ord, TypeId::I32)
        }),
        Builtin::Time => arity(args.len(), 0, 0).map(|_| BuiltinSig {
            imp: BuiltinImpl::Time,
            result: Some(TypeId::F64),
            params: Vec::new(),
        }),
        Builtin::Mem(op) => crate::vm::ops::memops::signature(types, op, args),
        Builtin::Div(op) => arity(args.len(), 2, 2).and_then(|_| {
            let sig = match (args[0].as_prim(), args[1].as_prim()) {
                (Some(a), Some(b)) => op.signature(a, b),
                _ => None,
            };
            let Some(sig) = sig else {
                let (a, b) = (types.name(args[0]), types.name(args[1]));
                return Err(error(ExcKind::TypeError, op.unsupported(a, b), Vec::new()));
            };
            let operand = TypeId::prim(sig.operand);
            Ok(BuiltinSig {
                imp: BuiltinImpl::Div {
                    op,
                    operand: sig.operand,
                },
                result: Some(TypeId::prim(sig.result)),
                params: vec![Some(operand); 2],
            })
        }),
        Builtin::Rb(rb) => {
            use crate::vm::ops::rawbuffer::RbFn;
            let (params, result) = match rb {
                RbFn::Alloc => (vec![Some(TypeId::I32)], TypeId::RAW_BUFFER),
                RbFn::Set(t) => (
                    vec![Some(TypeId::RAW_BUFFER), Some(TypeId::I32), Some(TypeId::prim(t))],
                    TypeId::NONE,
                ),
                RbFn::Get(t) => (vec![Some(TypeId::RAW_BUFFER), Some(TypeId::I32)], TypeId::prim(t)),
            };
            arity(args.len(), params.len(), params.len()).map(|_| BuiltinSig {
                imp: BuiltinImpl::Rb(rb),
                result: Some(result),
                params,
            })
        }
        Builtin::Math(m) => arity(args.len(), m.arity(), m.arity()).map(|_| BuiltinSig {
            imp: BuiltinImpl::Math(m),
            result: Some(TypeId::F64),
            params: vec![Some(TypeId::F64); m.arity()],
        }),
        Builtin::Open => arity(args.len(), 1, 2).map(|_| BuiltinSig {
            imp: BuiltinImpl::Open,
            result: Some(TypeId::FILE),
            params: vec![Some(TypeId::STR); args.len()],
        }),
        Builtin::Sleep => arity(args.len(), 1, 1).map(|_| BuiltinSig {
            imp: BuiltinImpl::Sleep,
            result: Some(TypeId::NONE),
            params: vec![Some(TypeId::F64)],
        }),
        Builtin::AllocOf { item, gc } => arity(args.len(), 1, 1).map(|_| BuiltinSig {
            imp: BuiltinImpl::Alloc { item, gc },
            result: Some(types.ptr(item, gc)),
            params: vec![Some(TypeId::I32)],
        }),
        Builtin::PtrSimdLoadOf(simd) => arity(args.len(), 2, 2).and_then(|_| {
            let TypeKind::Simd { lane, lanes } = *types.kind(simd) else {
                return Err(error(
                    ExcKind::TypeError,
                    "ptr_simd_load of a non-SIMD type",
                    Vec::new(),
                ));
            };
            lane_ptr(types, args[0], lane, 0)?;
            Ok(BuiltinSig {
                imp: BuiltinImpl::SimdLoad { lane, lanes },
                result: Some(simd),
                params: vec![None, Some(TypeId::I32)],
            })
        }),
        Builtin::PtrSimdStore => arity(args.len(), 3, 3).and_then(|_| {
            let TypeKind::Simd { lane, .. } = *types.kind(args[2]) else {
                let got = types.name(args[2]);
                return Err(error(
                    ExcKind::TypeError,
                    "mismatched types",
                    vec![(At::Arg(2), format!("expected a SIMD vector, got `{got}`"))],
                ));
            };
            lane_ptr(types, args[0], lane, 0)?;
            Ok(BuiltinSig {
                imp: BuiltinImpl::SimdStore,
                result: Some(TypeId::NONE),
                params: vec![None, Some(TypeId::I32), None],
            })
        }),
        _ => return None,
    })
}

/// Argument `k` of type `t` must point to `lane` items.
fn lane_ptr(types: &TypeTable, t: TypeId, lane: PrimTy, k: usize) -> Result<(), SigError> {
    match types.kind(t) {
        TypeKind::Ptr { item, .. } if item.as_prim() == Some(lane) => Ok(()),
        _ => Err(error(
            ExcKind::TypeError,
            "mismatched types",
            vec![(
                At::Arg(k),
                format!("expected `gc_ptr[{}]`, got `{}`", lane.name(), types.name(t)),
            )],
        )),
    }
}

/// `` TypeError: cannot call what(`T`) `` annotated `this is `T`` at the argument.
fn this_is(types: &TypeTable, what: &str, t: TypeId) -> SigError {
    let n = types.name(t);
    error(
        ExcKind::TypeError,
        format!("{what}(`{n}`)"),
        vec![(At::Arg(0), format!("this is `{n}`"))],
    )
}

fn len_signature(
    types: &TypeTable,
    t: TypeId,
    has_len: impl Fn(TypeId) -> bool,
) -> Result<BuiltinSig, SigError> {
    let imp = if let Some(items) = types.tuple_items(t) {
        BuiltinImpl::LenOfTuple(items.len())
    } else if t == TypeId::EMPTY_LIST || types.list_item(t).is_some() {
        BuiltinImpl::LenOfList
    } else if t == TypeId::EMPTY_DICT || types.dict_types(t).is_some() {
        BuiltinImpl::LenOfDict
    } else if t == TypeId::INTERP_TUPLE {
        BuiltinImpl::LenOfInterpTuple
    } else if t == TypeId::STR {
        BuiltinImpl::LenOfStr
    } else if t == TypeId::BYTES {
        BuiltinImpl::LenOfBytes
    } else if has_len(t) {
        BuiltinImpl::LenDunder
    } else {
        return Err(this_is(types, "cannot call len", t));
    };
    let result = (imp != BuiltinImpl::LenDunder).then_some(TypeId::I32);
    Ok(BuiltinSig {
        imp,
        result,
        params: vec![None],
    })
}

fn min_max_signature(types: &TypeTable, b: Builtin, args: &[TypeId]) -> Result<BuiltinSig, SigError> {
    arity(args.len(), 2, usize::MAX)?;
    let mut ty = args[0];
    let mut operand = PrimTy::Bool;
    for (k, &t) in args.iter().enumerate().skip(1) {
        let Some(step) = min_max_operand(ty, t) else {
            let (ln, rn) = (types.name(ty), types.name(t));
            return Err(error(
                ExcKind::TypeError,
                format!("cannot do {}(`{ln}`, `{rn}`)", b.name()),
                vec![
                    (At::ArgsBefore(k), format!("this is `{ln}`")),
                    (At::Arg(k), format!("this is `{rn}`")),
                ],
            ));
        };
        operand = step;
        ty = TypeId::prim(step);
    }
    Ok(BuiltinSig {
        imp: BuiltinImpl::MinMax { operand },
        result: Some(ty),
        params: vec![None; args.len()],
    })
}

// ------------------------------------------------------------- conversions

/// The implementation of an explicit conversion `T(x)`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ConvImpl {
    /// `T(x)` with `x: T` (decision: the identity).
    Identity,
    /// `str(x)`: the text of `x` (red for non-str arguments).
    Str,
    /// `int(s)` for an integer type: parsing, with a range check.
    StrToInt(PrimTy),
    /// A primitive conversion of the explicit table.
    Prim { from: PrimTy, to: PrimTy },
}

/// `to(x)` for `x: from`, where `to` is a primitive type or `str`.
pub fn conversion_signature(types: &TypeTable, to: TypeId, from: TypeId) -> Result<ConvImpl, SigError> {
    if from == to {
        return Ok(ConvImpl::Identity);
    }
    if to == TypeId::STR {
        return Ok(ConvImpl::Str);
    }
    if let Some(to_p) = to.as_prim() {
        if from == TypeId::STR && opconv::explicit_convertible_from_str(to_p) {
            return Ok(ConvImpl::StrToInt(to_p));
        }
        if let Some(from_p) = from.as_prim() {
            if opconv::explicit_convertible(to_p, from_p) {
                return Ok(ConvImpl::Prim {
                    from: from_p,
                    to: to_p,
                });
            }
        }
        if to == TypeId::BOOL {
            return Err(error(
                ExcKind::TypeError,
                "cannot instantiate `bool`",
                vec![(At::Whole, String::new())],
            ));
        }
    }
    // upstream: `T.__new__` returns `OpSpec.NULL`, so the call of the
    // type value (static type `type`) has no implementation
    // (`callop.w_CALL`'s "cannot call objects of type `{0}`")
    let got = types.name(from);
    Err(error(
        ExcKind::TypeError,
        "cannot call objects of type `type`",
        vec![
            (At::Callee, "this is `type`".to_string()),
            (At::Arg(0), format!("this is `{got}`")),
        ],
    ))
}

// ----------------------------------------------------------------- methods

/// The methods of `str`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum StrMethod {
    Upper,
    IsAscii,
    IsSpace,
    StartsWith,
    EndsWith,
    Split,
    Find,
    Count,
    Replace,
    /// `s.encode(encoding)`: `bytes` (only `"utf-8"`).
    Encode,
}

/// The methods of `bytes` (upstream's `stdlib/_bytes.spy`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BytesMethod {
    /// `b.decode(encoding)`: `str` (only `"utf-8"`).
    Decode,
}

/// The methods of `file` (upstream's `stdlib/_file.spy`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FileMethod {
    Read,
    Readline,
    Write,
    Writelines,
    Tell,
    Seek,
    Flush,
    Close,
}

/// The methods of `list[T]`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ListMethod {
    Append,
    Insert,
    Pop,
    Clear,
    Copy,
    Count,
    Index,
    /// `l.extend(other)`: appends the items of another `list[T]`.
    Extend,
    /// `l.remove(x)`: removes the first item equal to `x`.
    Remove,
    /// `l.__fastiter__()`: the iterator at item 0 (the iteration protocol).
    FastIter,
}

/// The methods of `list[T]::list_iterator` (upstream's `stdlib/_list.spy`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ListIterMethod {
    /// `it.__continue_iteration__()`: whether the index is below the
    /// list's length now.
    Continue,
    /// `it.__item__()`: the item at the index.
    Item,
    /// `it.__next__()`: the iterator at the next index.
    Next,
}

impl ListMethod {
    /// Whether the method changes the list (not allowed on `[]`).
    pub fn mutates(self) -> bool {
        matches!(
            self,
            ListMethod::Append
                | ListMethod::Insert
                | ListMethod::Pop
                | ListMethod::Clear
                | ListMethod::Extend
                | ListMethod::Remove
        )
    }
}

/// The methods of `dict[K, V]` and `interp_dict[K, V]` (upstream
/// `stdlib/_dict.spy`: its dunders are callable as methods too).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DictMethod {
    /// `d.get(key, default)` (upstream requires the default).
    Get,
    /// `d.keys()`: the dict itself (upstream returns `self`; iterating it
    /// gives the keys).
    Keys,
    /// `d.__contains__(key)`.
    Contains,
    /// `d.__getitem__(key)`.
    GetItem,
    /// `d.__setitem__(key, value)`.
    SetItem,
    /// `d.__delitem__(key)`: `KeyError` when the key is not there.
    DelItem,
    /// `d.__len__()`.
    Len,
    /// `d._push(key, value)`: `d[key] = value`, then `d`.
    Push,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MethodImpl {
    Str(StrMethod),
    Bytes(BytesMethod),
    List(ListMethod),
    ListIter(ListIterMethod),
    Dict(DictMethod),
    File(FileMethod),
    /// A method of the untyped empty list `[]` that does not change it:
    /// the result is `[]` again.
    EmptyList,
}

/// What a method parameter accepts.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Param {
    /// Exactly this type (`str` arguments of `str` methods).
    Exact(TypeId),
    /// Converted to this type with the implicit rules.
    Convert(TypeId),
}

/// A method call's signature: implementation, one [`Param`] per argument
/// given, and the result type.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MethodSig {
    pub imp: MethodImpl,
    pub params: Vec<Param>,
    pub result: TypeId,
}

/// `recv.name(args)` for a `str` or `list[T]` receiver. `None`: the
/// receiver has no builtin methods.
pub fn method_signature(
    types: &mut TypeTable,
    recv: TypeId,
    name: &str,
    args: &[TypeId],
) -> Option<Result<MethodSig, SigError>> {
    if recv == TypeId::STR {
        return Some(str_method(types, name, args.len()));
    }
    if recv == TypeId::BYTES {
        return Some(bytes_method(name, args.len()));
    }
    if recv == TypeId::FILE {
        return Some(file_method(types, name, args.len()));
    }
    if recv == TypeId::EMPTY_LIST || types.list_item(recv).is_some() {
        return Some(list_method(types, recv, name, args.len()));
    }
    if let Some(list) = types.list_iter_list(recv) {
        return Some(list_iter_method(types, recv, list, name, args.len()));
    }
    if let Some((key, value)) = types.dict_types(recv) {
        return Some(dict_method(types, recv, key, value, name, args.len()));
    }
    if recv == TypeId::EMPTY_DICT {
        return Some(Err(error(
            ExcKind::TypeError,
            format!("method `{}::{name}` does not exist", types.name(recv)),
            vec![(
                At::Receiver,
                "this is untyped: use an explicit type: `d: dict[K, V] = {}`".into(),
            )],
        )));
    }
    None
}

fn dict_method(
    types: &TypeTable,
    recv: TypeId,
    key: TypeId,
    value: TypeId,
    name: &str,
    n: usize,
) -> Result<MethodSig, SigError> {
    use DictMethod::*;
    let k = Param::Convert(key);
    let v = Param::Convert(value);
    let (m, params, result) = match name {
        "get" => (Get, vec![k, v], value),
        "keys" => (Keys, vec![], recv),
        "__contains__" => (Contains, vec![k], TypeId::BOOL),
        "__getitem__" => (GetItem, vec![k], value),
        "__setitem__" => (SetItem, vec![k, v], TypeId::NONE),
        "__delitem__" => (DelItem, vec![k], TypeId::NONE),
        "__len__" => (Len, vec![], TypeId::I32),
        "_push" => (Push, vec![k, v], recv),
        _ => {
            let d = types.name(recv);
            return Err(error(
                ExcKind::TypeError,
                format!("method `{d}::{name}` does not exist"),
                vec![(At::Receiver, format!("this is `{d}`"))],
            ));
        }
    };
    arity(n, params.len(), params.len())?;
    Ok(MethodSig {
        imp: MethodImpl::Dict(m),
        params,
        result,
    })
}

fn bytes_method(name: &str, n: usize) -> Result<MethodSig, SigError> {
    let (m, params) = match name {
        "decode" => (BytesMethod::Decode, vec![Param::Exact(TypeId::STR)]),
        _ => {
            return Err(error(
                ExcKind::TypeError,
                format!("method `bytes::{name}` does not exist"),
                vec![(At::Callee, String::new())],
            ))
        }
    };
    arity(n, params.len(), params.len())?;
    Ok(MethodSig {
        imp: MethodImpl::Bytes(m),
        params,
        result: TypeId::STR,
    })
}

fn str_method(types: &mut TypeTable, name: &str, n: usize) -> Result<MethodSig, SigError> {
    use StrMethod::*;
    const S: Param = Param::Exact(TypeId::STR);
    const I: Param = Param::Convert(TypeId::I32);
    // (method, required, parameters, result)
    let (m, required, params, result): (StrMethod, usize, &[Param], TypeId) = match name {
        "upper" => (Upper, 0, &[], TypeId::STR),
        "isascii" => (IsAscii, 0, &[], TypeId::BOOL),
        "isspace" => (IsSpace, 0, &[], TypeId::BOOL),
        "startswith" => (StartsWith, 1, &[S], TypeId::BOOL),
        "endswith" => (EndsWith, 1, &[S], TypeId::BOOL),
        "split" => (Split, 0, &[S], types.list(TypeId::STR)),
        "find" => (Find, 1, &[S, I, I], TypeId::I32),
        "count" => (Count, 1, &[S, I, I], TypeId::I32),
        "replace" => (Replace, 2, &[S, S], TypeId::STR),
        "encode" => (Encode, 1, &[S], TypeId::BYTES),
        _ => {
            return Err(error(
                ExcKind::TypeError,
                format!("method `str::{name}` does not exist"),
                vec![(At::Callee, String::new())],
            ))
        }
    };
    arity(n, required, params.len())?;
    Ok(MethodSig {
        imp: MethodImpl::Str(m),
        params: params[..n].to_vec(),
        result,
    })
}

fn file_method(types: &mut TypeTable, name: &str, n: usize) -> Result<MethodSig, SigError> {
    use FileMethod::*;
    const S: Param = Param::Exact(TypeId::STR);
    const I: Param = Param::Convert(TypeId::I32);
    let lines = Param::Exact(types.list(TypeId::STR));
    // (method, required, parameters, result)
    let (m, required, params, result): (FileMethod, usize, &[Param], TypeId) = match name {
        "read" => (Read, 0, &[I], TypeId::STR),
        "readline" => (Readline, 0, &[], TypeId::STR),
        "write" => (Write, 1, &[S], TypeId::NONE),
        "writelines" => (Writelines, 1, std::slice::from_ref(&lines), TypeId::NONE),
        "tell" => (Tell, 0, &[], TypeId::I32),
        "seek" => (Seek, 1, &[I, I], TypeId::NONE),
        "flush" => (Flush, 0, &[], TypeId::NONE),
        "close" => (Close, 0, &[], TypeId::NONE),
        _ => {
            return Err(error(
                ExcKind::TypeError,
                format!("method `_file::file::{name}` does not exist"),
                vec![(At::Receiver, "this is `_file::file`".to_string())],
            ))
        }
    };
    arity(n, required, params.len())?;
    Ok(MethodSig {
        imp: MethodImpl::File(m),
        params: params[..n].to_vec(),
        result,
    })
}

fn list_iter_method(
    types: &TypeTable,
    recv: TypeId,
    list: TypeId,
    name: &str,
    n: usize,
) -> Result<MethodSig, SigError> {
    use ListIterMethod::*;
    let (m, result) = match name {
        "__continue_iteration__" => (Continue, TypeId::BOOL),
        "__item__" => (Item, types.list_item(list).unwrap_or(TypeId::DYNAMIC)),
        "__next__" => (Next, recv),
        _ => {
            let t = types.name(recv);
            return Err(error(
                ExcKind::TypeError,
                format!("method `{t}::{name}` does not exist"),
                vec![(At::Receiver, format!("this is `{t}`"))],
            ));
        }
    };
    arity(n, 0, 0)?;
    Ok(MethodSig {
        imp: MethodImpl::ListIter(m),
        params: Vec::new(),
        result,
    })
}

fn list_method(types: &mut TypeTable, recv: TypeId, name: &str, n: usize) -> Result<MethodSig, SigError> {
    use ListMethod::*;
    let m = match name {
        "append" => Append,
        "insert" => Insert,
        "pop" => Pop,
        "clear" => Clear,
        "copy" => Copy,
        "count" => Count,
        "index" => Index,
        "extend" => Extend,
        "remove" => Remove,
        "__fastiter__" => FastIter,
        _ => {
            let l = types.name(recv);
            return Err(error(
                ExcKind::TypeError,
                format!("method `{l}::{name}` does not exist"),
                vec![(At::Receiver, format!("this is `{l}`"))],
            ));
        }
    };
    let (min, max) = match m {
        Clear | Copy | FastIter => (0, 0),
        // `pop(i: i32 = -1)`
        Pop => (0, 1),
        Append | Count | Index | Extend | Remove => (1, 1),
        Insert => (2, 2),
    };
    arity(n, min, max)?;
    let Some(item) = types.list_item(recv) else {
        if m == FastIter {
            return Err(SigError::Error {
                kind: ExcKind::TypeError,
                message: "cannot iterate an untyped empty list".into(),
                labels: vec![(At::Receiver, "this is untyped".into())],
                notes: vec![(
                    At::Receiver,
                    "help: use an explicit type: `l: list[T] = []`".into(),
                )],
            });
        }
        if m.mutates() {
            return Err(SigError::Error {
                kind: ExcKind::TypeError,
                message: "cannot mutate an untyped empty list".into(),
                labels: vec![(At::Receiver, "this is untyped".into())],
                notes: vec![(
                    At::Receiver,
                    "help: use an explicit type: `l: list[T] = []`".into(),
                )],
            });
        }
        return Ok(MethodSig {
            imp: MethodImpl::EmptyList,
            params: vec![Param::Exact(TypeId::DYNAMIC); n],
            result: TypeId::EMPTY_LIST,
        });
    };
    let (params, result) = match m {
        Append => (vec![Param::Convert(item)], TypeId::NONE),
        Insert => (
            vec![Param::Convert(TypeId::I32), Param::Convert(item)],
            TypeId::NONE,
        ),
        Pop => (vec![Param::Convert(TypeId::I32); n], item),
        Extend => (vec![Param::Convert(recv)], TypeId::NONE),
        Remove => (vec![Param::Convert(item)], TypeId::NONE),
        Clear => (vec![], TypeId::NONE),
        Copy => (vec![], recv),
        FastIter => (vec![], types.list_iter(recv)),
        Count | Index => (vec![Param::Convert(item)], TypeId::I32),
    };
    Ok(MethodSig {
        imp: MethodImpl::List(m),
        params,
        result,
    })
}

// -------------------------------------------------------------- subscripts

/// One index of a subscript: its static type, and its value when it is
/// blue (`Some(None)`: blue but not an `i32`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Index {
    pub ty: TypeId,
    pub blue: Option<Option<i32>>,
}

/// The implementation a subscript selects.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SubscriptImpl {
    /// Item `k` of a static tuple (blue index, range-checked statically).
    TupleItem(usize),
    /// Lane `k` of a SIMD vector (blue index, range-checked statically).
    SimdLane(usize),
    /// One character of a `str` (the index converted to `i32`).
    StrChar,
    /// One byte of a `bytes`, a `u8` (the index converted to `i32`).
    BytesByte,
    /// An item of a `list[T]` (the index converted to `i32`).
    ListItem,
    /// The value of a key of a dict (the key converted to the key type).
    DictItem,
    /// An item a pointer points to (the index converted to `i32`).
    PtrItem,
}

/// A subscript's signature: implementation, result type, and the type the
/// index is converted to (if any).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SubscriptSig {
    pub imp: SubscriptImpl,
    pub result: TypeId,
    pub index: Option<TypeId>,
}

/// `obj[idx...]` for an object of type `obj`. `None`: not a subscript of
/// these types (generics, types, `__getitem__`, or a form that falls
/// through to those).
pub fn subscript_signature(
    types: &TypeTable,
    obj: TypeId,
    idx: &[Index],
) -> Option<Result<SubscriptSig, SigError>> {
    let sig = |imp, result, index| Ok(SubscriptSig { imp, result, index });
    let one = |what: &str| match idx {
        [i] => Ok(*i),
        _ => Err(error(
            ExcKind::TypeError,
            format!("{what} take one index"),
            vec![(At::Arg(0), String::new())],
        )),
    };
    // A blue `i32` index in `0..n`.
    let blue_index = |i: Index, what: &str, n: usize| -> Result<usize, SigError> {
        let out_of_range = if what == "tuple" {
            RuntimeError::TupleIndex
        } else {
            RuntimeError::SimdIndex
        };
        let Some(value) = i.blue else {
            return Err(error(
                ExcKind::TypeError,
                format!("{what} index must be blue"),
                vec![(At::Arg(0), "this is red".into())],
            ));
        };
        let Some(k) = value else {
            return Err(SigError::Mismatched {
                arg: 0,
                expected: TypeId::I32,
                got: i.ty,
            });
        };
        match usize::try_from(k).ok().filter(|&k| k < n) {
            Some(k) => Ok(k),
            None => Err(SigError::Runtime {
                error: out_of_range,
                labels: vec![(At::Arg(0), format!("this is {k}"))],
            }),
        }
    };
    Some(match types.kind(obj) {
        TypeKind::Tuple(items) => {
            let [i] = idx else { return None };
            blue_index(*i, "tuple", items.len())
                .and_then(|k| sig(SubscriptImpl::TupleItem(k), items[k], None))
        }
        TypeKind::Simd { lane, lanes } => one("SIMD vectors")
            .and_then(|i| blue_index(i, "SIMD", *lanes as usize))
            .and_then(|k| sig(SubscriptImpl::SimdLane(k), TypeId::prim(*lane), None)),
        TypeKind::Str => {
            let [i] = idx else { return None };
            let int =
                i.ty.as_prim()
                    .is_some_and(|p| opconv::implicit_convertible(p, PrimTy::I32));
            if !int {
                return None;
            }
            sig(SubscriptImpl::StrChar, TypeId::STR, Some(TypeId::I32))
        }
        TypeKind::Bytes => {
            let [i] = idx else { return None };
            let int =
                i.ty.as_prim()
                    .is_some_and(|p| opconv::implicit_convertible(p, PrimTy::I32));
            if !int {
                return None;
            }
            sig(SubscriptImpl::BytesByte, TypeId::U8, Some(TypeId::I32))
        }
        TypeKind::List(item) => {
            one("lists").and_then(|_| sig(SubscriptImpl::ListItem, *item, Some(TypeId::I32)))
        }
        TypeKind::Dict { key, value, .. } => {
            one("dicts").and_then(|_| sig(SubscriptImpl::DictItem, *value, Some(*key)))
        }
        // a struct item is reached by reference (`gc_ref[T]`/`raw_ref[T]`)
        TypeKind::Ptr { item, .. } => one("pointers").and_then(|_| {
            let result = types.ptr_item_result(obj).unwrap_or(*item);
            sig(SubscriptImpl::PtrItem, result, Some(TypeId::I32))
        }),
        _ if obj == TypeId::EMPTY_LIST => {
            // `[][i]` is always out of range; its item type is unknown.
            one("lists").and_then(|_| sig(SubscriptImpl::ListItem, TypeId::DYNAMIC, Some(TypeId::I32)))
        }
        _ => return None,
    })
}

/// `obj[idx...] = v` for an object of type `obj`: the subscripts that
/// store (lists and pointers); the result is the type `v` is converted to.
/// `None`: not a store of these types (`__setitem__`, or an error).
pub fn store_signature(
    types: &TypeTable,
    obj: TypeId,
    idx: &[Index],
) -> Option<Result<SubscriptSig, SigError>> {
    let stores = obj == TypeId::EMPTY_LIST
        || matches!(
            types.kind(obj),
            TypeKind::List(_) | TypeKind::Dict { .. } | TypeKind::Ptr { .. }
        );
    if !stores {
        return None;
    }
    let sig = subscript_signature(types, obj, idx)?;
    // a pointer stores its item type, whatever a read of an item gives
    Some(sig.map(|s| match types.kind(obj) {
        TypeKind::Ptr { item, .. } => SubscriptSig { result: *item, ..s },
        _ => s,
    }))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn types() -> TypeTable {
        TypeTable::new()
    }

    #[test]
    fn len_by_type() {
        let mut t = types();
        let tup = t.tuple(vec![TypeId::I32, TypeId::STR]);
        let len = |t: &mut TypeTable, a: TypeId| builtin_signature(t, Builtin::Len, &[a], |_| false).unwrap();
        assert_eq!(len(&mut t, tup).unwrap().imp, BuiltinImpl::LenOfTuple(2));
        assert_eq!(len(&mut t, TypeId::STR).unwrap().imp, BuiltinImpl::LenOfStr);
        let SigError::Error { message, labels, .. } = len(&mut t, TypeId::F64).unwrap_err() else {
            panic!("not a typed error")
        };
        assert_eq!(message, "cannot call len(`f64`)");
        assert_eq!(labels, vec![(At::Arg(0), "this is `f64`".to_string())]);
        assert_eq!(
            builtin_signature(&mut t, Builtin::Len, &[], |_| false).unwrap(),
            Err(SigError::Arity { min: 1, max: 1 })
        );
        assert!(builtin_signature(&mut t, Builtin::Print, &[], |_| false).is_none());
    }

    #[test]
    fn min_max_meets_pairwise() {
        let mut t = types();
        let sig = builtin_signature(
            &mut t,
            Builtin::Min,
            &[TypeId::I32, TypeId::F32, TypeId::F64],
            |_| false,
        );
        let sig = sig.unwrap().unwrap();
        assert_eq!(sig.imp, BuiltinImpl::MinMax { operand: PrimTy::F64 });
        assert_eq!(sig.result, Some(TypeId::F64));
        let err = builtin_signature(&mut t, Builtin::Max, &[TypeId::I32, TypeId::I64], |_| false);
        let Err(SigError::Error { message, labels, .. }) = err.unwrap() else {
            panic!("expected an error")
        };
        assert_eq!(message, "cannot do max(`i32`, `i64`)");
        assert_eq!(labels[0].0, At::ArgsBefore(1));
        assert_eq!(labels[1].0, At::Arg(1));
    }

    #[test]
    fn explicit_conversions() {
        let t = types();
        assert_eq!(
            conversion_signature(&t, TypeId::I32, TypeId::I32),
            Ok(ConvImpl::Identity)
        );
        assert_eq!(
            conversion_signature(&t, TypeId::I8, TypeId::STR),
            Ok(ConvImpl::StrToInt(PrimTy::I8))
        );
        assert_eq!(
            conversion_signature(&t, TypeId::I32, TypeId::F64),
            Ok(ConvImpl::Prim {
                from: PrimTy::F64,
                to: PrimTy::I32
            })
        );
        let bool_err = conversion_signature(&t, TypeId::BOOL, TypeId::I32).unwrap_err();
        assert!(
            matches!(bool_err, SigError::Error { message, .. } if message == "cannot instantiate `bool`")
        );
        let f64_str = conversion_signature(&t, TypeId::F64, TypeId::STR).unwrap_err();
        assert!(
            matches!(f64_str, SigError::Error { message, .. } if message == "cannot call objects of type `type`")
        );
    }

    #[test]
    fn method_table() {
        let mut t = types();
        let find = method_signature(&mut t, TypeId::STR, "find", &[TypeId::STR, TypeId::I8]);
        let find = find.unwrap().unwrap();
        assert_eq!(find.imp, MethodImpl::Str(StrMethod::Find));
        assert_eq!(
            find.params,
            vec![Param::Exact(TypeId::STR), Param::Convert(TypeId::I32)]
        );
        assert_eq!(find.result, TypeId::I32);
        assert_eq!(
            method_signature(&mut t, TypeId::STR, "upper", &[TypeId::STR]).unwrap(),
            Err(SigError::Arity { min: 0, max: 0 })
        );
        let l = t.list(TypeId::F64);
        let pop = method_signature(&mut t, l, "pop", &[]).unwrap().unwrap();
        assert_eq!(pop.result, TypeId::F64);
        let ins = method_signature(&mut t, l, "insert", &[TypeId::I32, TypeId::F64])
            .unwrap()
            .unwrap();
        assert_eq!(
            ins.params,
            vec![Param::Convert(TypeId::I32), Param::Convert(TypeId::F64)]
        );
        let append = method_signature(&mut t, TypeId::EMPTY_LIST, "append", &[TypeId::I32]).unwrap();
        assert!(
            matches!(append, Err(SigError::Error { message, .. }) if message == "cannot mutate an untyped empty list")
        );
        assert!(method_signature(&mut t, TypeId::I32, "upper", &[]).is_none());
    }

    #[test]
    fn subscripts_need_a_blue_index_in_range() {
        let mut t = types();
        let tup = t.tuple(vec![TypeId::I32, TypeId::STR]);
        let blue = |k| Index {
            ty: TypeId::I32,
            blue: Some(Some(k)),
        };
        let red = Index {
            ty: TypeId::I32,
            blue: None,
        };
        let s = subscript_signature(&t, tup, &[blue(1)]).unwrap().unwrap();
        assert_eq!((s.imp, s.result), (SubscriptImpl::TupleItem(1), TypeId::STR));
        let out = subscript_signature(&t, tup, &[blue(2)]).unwrap().unwrap_err();
        assert!(
            matches!(out, SigError::Runtime { error: RuntimeError::TupleIndex, labels } if labels[0].1 == "this is 2")
        );
        let red_err = subscript_signature(&t, tup, &[red]).unwrap().unwrap_err();
        assert!(matches!(red_err, SigError::Error { message, .. } if message == "tuple index must be blue"));
        let v = t.simd(PrimTy::F32, 4);
        let lane = subscript_signature(&t, v, &[blue(3)]).unwrap().unwrap();
        assert_eq!(lane.result, TypeId::F32);
        let out = subscript_signature(&t, v, &[blue(4)]).unwrap().unwrap_err();
        assert!(matches!(
            out,
            SigError::Runtime {
                error: RuntimeError::SimdIndex,
                ..
            }
        ));
        let s = subscript_signature(&t, TypeId::STR, &[red]).unwrap().unwrap();
        assert_eq!((s.result, s.index), (TypeId::STR, Some(TypeId::I32)));
        let f = Index {
            ty: TypeId::F64,
            blue: None,
        };
        assert!(subscript_signature(&t, TypeId::STR, &[f]).is_none());
    }
}
