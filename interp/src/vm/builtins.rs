//! The `builtins` namespace: the names every module sees (types, builtin
//! functions, exception classes), as blue values.

use crate::error::ExcKind;
use crate::vm::types::TypeId;
use crate::vm::value::{Typed, Value};

/// A builtin function (or a builtin callable that is not a type).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Builtin {
    Print,
    Len,
    Abs,
    Min,
    Max,
    Range,
    Repr,
    Ord,
    /// `tuple`, subscripted as `tuple[T0, ...]` to build a tuple type.
    Tuple,
    /// `list`, subscripted as `list[T]` to build a list type.
    List,
    /// `dict`, subscripted as `dict[K, V]` to build a dict type.
    Dict,
    /// `__spy__.interp_dict`, subscripted as `interp_dict[K, V]`.
    InterpDict,
    /// `__spy__.interp_list`, subscripted as `interp_list[T]`.
    InterpList,
    /// An exception class such as `ValueError`: calling it builds an
    /// exception instance.
    ExcClass(ExcKind),
    /// `S.__make__`: the field-wise constructor of struct type `S`.
    StructMake(TypeId),
    /// A builtin module (`import time`).
    Module(crate::vm::modules::BuiltinModule),
    // ---- __spy__
    /// `UNROLL_RANGE(n)`: in a `for` header, unrolls the loop; called in
    /// blue code it behaves like `range(n)`.
    UnrollRange,
    /// `@force_inline`.
    ForceInline,
    /// `COLOR(e)`: `'blue'` or `'red'`.
    ColorOf,
    /// `STATIC_TYPE(e)`.
    StaticType,
    /// The `NotImplemented` singleton (a value, not a function: its type is
    /// `TypeId::NOT_IMPLEMENTED`).
    NotImplemented,
    /// `as_red(e)`: `e`'s value, red.
    AsRed,
    /// `lookup_fqn("mod::name")`: a module-level name by its FQN (blue).
    LookupFqn,
    // ---- operator
    /// `OpSpec(f)`, `OpSpec(f, [m...])`; `OpSpec.const(v)`, `OpSpec.NULL`.
    OpSpec,
    /// `OpSpec.const`.
    OpSpecConst,
    // ---- unsafe
    /// `gc_alloc` / `raw_alloc`, to be subscripted with the item type.
    Alloc {
        gc: bool,
    },
    /// `gc_alloc[T]` / `raw_alloc[T]`.
    AllocOf {
        item: TypeId,
        gc: bool,
    },
    /// `gc_ptr` (also `ptr`) / `raw_ptr`, subscripted to make a type.
    PtrType {
        gc: bool,
    },
    /// `gc_ref` / `raw_ref` (index with a struct type: `gc_ref[T]`).
    RefType {
        gc: bool,
    },
    // ---- simd
    /// `SIMD`, subscripted `SIMD[T, N]` to make a type.
    SimdType,
    /// `ptr_simd_load`, subscripted `[T, N]`.
    PtrSimdLoad,
    /// `ptr_simd_load[T, N]` (the SIMD type).
    PtrSimdLoadOf(TypeId),
    PtrSimdStore,
    /// `simd_width_of`, subscripted `[T]`.
    SimdWidthOf,
    // ---- time
    Time,
    Sleep,
    /// `ptr_copy`, `memset`... (`vm::ops::memops`).
    Mem(crate::vm::ops::memops::MemOp),
    /// `unchecked_div`, `ieee754_div`... (`vm::ops::unchecked`).
    Div(crate::vm::ops::unchecked::DivOp),
    // ---- math
    Math(crate::vm::ops::math::MathFn),
    /// `rawbuffer.rb_alloc`, `rb_get_i32`... (`vm::ops::rawbuffer`).
    Rb(crate::vm::ops::rawbuffer::RbFn),
    /// `open(path, mode)`: a `file` (spec §8.5).
    Open,
    // ---- attributes by (blue) name
    Getattr,
    Setattr,
    Hasattr,
}

impl Builtin {
    pub fn name(self) -> &'static str {
        match self {
            Builtin::Print => "print",
            Builtin::Len => "len",
            Builtin::Abs => "abs",
            Builtin::Min => "min",
            Builtin::Max => "max",
            Builtin::Range => "range",
            Builtin::Repr => "repr",
            Builtin::Ord => "ord",
            Builtin::Tuple => "tuple",
            Builtin::List => "list",
            Builtin::Dict => "dict",
            Builtin::InterpDict => "interp_dict",
            Builtin::InterpList => "interp_list",
            Builtin::ExcClass(k) => k.name(),
            Builtin::StructMake(_) => "__make__",
            Builtin::Module(m) => m.name(),
            Builtin::UnrollRange => "UNROLL_RANGE",
            Builtin::ForceInline => "force_inline",
            Builtin::ColorOf => "COLOR",
            Builtin::StaticType => "STATIC_TYPE",
            Builtin::NotImplemented => "NotImplemented",
            Builtin::AsRed => "as_red",
            Builtin::LookupFqn => "lookup_fqn",
            Builtin::OpSpec => "OpSpec",
            Builtin::OpSpecConst => "OpSpec.const",
            Builtin::Alloc { gc: true } | Builtin::AllocOf { gc: true, .. } => "gc_alloc",
            Builtin::Alloc { gc: false } | Builtin::AllocOf { gc: false, .. } => "raw_alloc",
            Builtin::PtrType { gc: true } => "gc_ptr",
            Builtin::PtrType { gc: false } => "raw_ptr",
            Builtin::RefType { gc: true } => "gc_ref",
            Builtin::RefType { gc: false } => "raw_ref",
            Builtin::SimdType => "SIMD",
            Builtin::PtrSimdLoad | Builtin::PtrSimdLoadOf(_) => "ptr_simd_load",
            Builtin::PtrSimdStore => "ptr_simd_store",
            Builtin::SimdWidthOf => "simd_width_of",
            Builtin::Time => "time",
            Builtin::Sleep => "sleep",
            Builtin::Math(m) => m.name(),
            Builtin::Rb(r) => r.name(),
            Builtin::Mem(m) => m.name(),
            Builtin::Div(d) => d.name(),
            Builtin::Open => "open",
            Builtin::Getattr => "getattr",
            Builtin::Setattr => "setattr",
            Builtin::Hasattr => "hasattr",
        }
    }
}

enum Entry {
    Type(TypeId),
    Func(Builtin),
}

/// The builtins in slot order: the same names as
/// `resolve::builtin_names::BUILTIN_NAMES` (checked by a unit test below).
const ENTRIES: &[(&str, Entry)] = &[
    ("i8", Entry::Type(TypeId::I8)),
    ("u8", Entry::Type(TypeId::U8)),
    ("i32", Entry::Type(TypeId::I32)),
    ("int", Entry::Type(TypeId::I32)),
    ("u32", Entry::Type(TypeId::U32)),
    ("i64", Entry::Type(TypeId::I64)),
    ("u64", Entry::Type(TypeId::U64)),
    ("f32", Entry::Type(TypeId::F32)),
    ("f64", Entry::Type(TypeId::F64)),
    ("float", Entry::Type(TypeId::F64)),
    ("bool", Entry::Type(TypeId::BOOL)),
    ("str", Entry::Type(TypeId::STR)),
    ("bytes", Entry::Type(TypeId::BYTES)),
    ("object", Entry::Type(TypeId::OBJECT)),
    ("dynamic", Entry::Type(TypeId::DYNAMIC)),
    ("type", Entry::Type(TypeId::TYPE)),
    ("NoneType", Entry::Type(TypeId::NONE)),
    ("print", Entry::Func(Builtin::Print)),
    ("len", Entry::Func(Builtin::Len)),
    ("abs", Entry::Func(Builtin::Abs)),
    ("min", Entry::Func(Builtin::Min)),
    ("max", Entry::Func(Builtin::Max)),
    ("range", Entry::Func(Builtin::Range)),
    ("repr", Entry::Func(Builtin::Repr)),
    ("ord", Entry::Func(Builtin::Ord)),
    ("tuple", Entry::Func(Builtin::Tuple)),
    ("list", Entry::Func(Builtin::List)),
    ("dict", Entry::Func(Builtin::Dict)),
    ("getattr", Entry::Func(Builtin::Getattr)),
    ("setattr", Entry::Func(Builtin::Setattr)),
    ("hasattr", Entry::Func(Builtin::Hasattr)),
    ("STATIC_TYPE", Entry::Func(Builtin::StaticType)),
    ("NotImplemented", Entry::Func(Builtin::NotImplemented)),
    ("Exception", Entry::Func(Builtin::ExcClass(ExcKind::Exception))),
    (
        "StaticError",
        Entry::Func(Builtin::ExcClass(ExcKind::StaticError)),
    ),
    ("TypeError", Entry::Func(Builtin::ExcClass(ExcKind::TypeError))),
    ("ValueError", Entry::Func(Builtin::ExcClass(ExcKind::ValueError))),
    (
        "OverflowError",
        Entry::Func(Builtin::ExcClass(ExcKind::OverflowError)),
    ),
    ("IndexError", Entry::Func(Builtin::ExcClass(ExcKind::IndexError))),
    ("KeyError", Entry::Func(Builtin::ExcClass(ExcKind::KeyError))),
    (
        "ZeroDivisionError",
        Entry::Func(Builtin::ExcClass(ExcKind::ZeroDivisionError)),
    ),
    (
        "AssertionError",
        Entry::Func(Builtin::ExcClass(ExcKind::AssertionError)),
    ),
    ("NameError", Entry::Func(Builtin::ExcClass(ExcKind::NameError))),
    ("ScopeError", Entry::Func(Builtin::ExcClass(ExcKind::ScopeError))),
    ("ParseError", Entry::Func(Builtin::ExcClass(ExcKind::ParseError))),
    (
        "ImportError",
        Entry::Func(Builtin::ExcClass(ExcKind::ImportError)),
    ),
    ("PanicError", Entry::Func(Builtin::ExcClass(ExcKind::PanicError))),
    (
        "RecursionError",
        Entry::Func(Builtin::ExcClass(ExcKind::RecursionError)),
    ),
    (
        "NotImplementedError",
        Entry::Func(Builtin::ExcClass(ExcKind::NotImplementedError)),
    ),
    ("WIP", Entry::Func(Builtin::ExcClass(ExcKind::Wip))),
    ("OSError", Entry::Func(Builtin::ExcClass(ExcKind::OSError))),
    ("open", Entry::Func(Builtin::Open)),
];

pub use crate::resolve::builtin_names::lookup;

pub fn name(index: u32) -> &'static str {
    ENTRIES[index as usize].0
}

/// The (blue) value of builtin number `index`.
pub fn value(index: u32) -> Typed {
    match &ENTRIES[index as usize].1 {
        Entry::Type(t) => Typed::blue(TypeId::TYPE, Value::Type(*t)),
        Entry::Func(Builtin::NotImplemented) => {
            Typed::blue(TypeId::NOT_IMPLEMENTED, Value::Builtin(Builtin::NotImplemented))
        }
        Entry::Func(Builtin::ExcClass(k)) => Typed::blue(TypeId::TYPE, Value::Builtin(Builtin::ExcClass(*k))),
        Entry::Func(b) => Typed::blue(TypeId::BUILTIN_FUNC, Value::Builtin(*b)),
    }
}

#[cfg(test)]
mod tests {
    use super::ENTRIES;
    use crate::resolve::builtin_names::BUILTIN_NAMES;

    #[test]
    fn the_value_table_has_the_resolvers_names_in_slot_order() {
        let names: Vec<&str> = ENTRIES.iter().map(|(n, _)| *n).collect();
        assert_eq!(names, BUILTIN_NAMES);
    }
}
