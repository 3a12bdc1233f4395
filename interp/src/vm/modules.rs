//! Builtin modules implemented in Rust: `__spy__`, `operator`, `unsafe`,
//! `simd`, `time`, `math`, `rawbuffer`, and of upstream's `posix` its
//! `SEEK_*` constants. Their members are blue values (builtins or types).
//! Also `_list`, `_range`, `_tuple` and `_dict`: upstream implements `list`,
//! `range`, `tuple` and `dict` in SPy in these stdlib modules (`builtins`
//! re-exports them); here they are builtin, and the modules name the same
//! values. So is `_file` (`open`, `file`: spec §8.5).

use crate::vm::builtins::Builtin;
use crate::vm::types::TypeId;
use crate::vm::value::{Typed, Value};

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum BuiltinModule {
    Spy,
    Operator,
    Unsafe,
    Simd,
    Time,
    StdList,
    StdRange,
    StdTuple,
    StdDict,
    Math,
    StdFile,
    Posix,
    /// upstream's `rawbuffer` (spec §15.6).
    RawBuffer,
    /// `import builtins`: the names every module sees, as attributes.
    Builtins,
}

impl BuiltinModule {
    pub const ALL: [BuiltinModule; 14] = [
        BuiltinModule::Spy,
        BuiltinModule::Operator,
        BuiltinModule::Unsafe,
        BuiltinModule::Simd,
        BuiltinModule::Time,
        BuiltinModule::StdList,
        BuiltinModule::StdRange,
        BuiltinModule::StdTuple,
        BuiltinModule::StdDict,
        BuiltinModule::Math,
        BuiltinModule::StdFile,
        BuiltinModule::Posix,
        BuiltinModule::RawBuffer,
        BuiltinModule::Builtins,
    ];

    pub fn name(self) -> &'static str {
        match self {
            BuiltinModule::Spy => "__spy__",
            BuiltinModule::Operator => "operator",
            BuiltinModule::Unsafe => "unsafe",
            BuiltinModule::Simd => "simd",
            BuiltinModule::Time => "time",
            BuiltinModule::StdList => "_list",
            BuiltinModule::StdRange => "_range",
            BuiltinModule::StdTuple => "_tuple",
            BuiltinModule::StdDict => "_dict",
            BuiltinModule::Math => "math",
            BuiltinModule::StdFile => "_file",
            BuiltinModule::Posix => "posix",
            BuiltinModule::RawBuffer => "rawbuffer",
            BuiltinModule::Builtins => "builtins",
        }
    }

    pub fn find(name: &str) -> Option<BuiltinModule> {
        BuiltinModule::ALL.into_iter().find(|m| m.name() == name)
    }

    /// The module's attribute `attr`, if it exists.
    pub fn member(self, attr: &str) -> Option<Typed> {
        let func = |b: Builtin| Some(Typed::blue(TypeId::BUILTIN_FUNC, Value::Builtin(b)));
        let ty = |t: TypeId| Some(Typed::blue(TypeId::TYPE, Value::Type(t)));
        match (self, attr) {
            (BuiltinModule::Spy, "UNROLL_RANGE") => func(Builtin::UnrollRange),
            (BuiltinModule::Spy, "force_inline") => func(Builtin::ForceInline),
            (BuiltinModule::Spy, "COLOR") => func(Builtin::ColorOf),
            (BuiltinModule::Spy, "STATIC_TYPE") => func(Builtin::StaticType),
            (BuiltinModule::Spy, "as_red") => func(Builtin::AsRed),
            (BuiltinModule::Spy, "lookup_fqn") => func(Builtin::LookupFqn),
            (BuiltinModule::Builtins, name) => {
                crate::vm::builtins::lookup(name).map(crate::vm::builtins::value)
            }
            (BuiltinModule::Spy, "interp_tuple") => ty(TypeId::INTERP_TUPLE),
            (BuiltinModule::Spy, "interp_dict") => func(Builtin::InterpDict),
            (BuiltinModule::Spy, "interp_list") => func(Builtin::InterpList),
            (BuiltinModule::Spy, "EmptyDictType") => ty(TypeId::EMPTY_DICT),
            (BuiltinModule::Operator, "OpSpec") => func(Builtin::OpSpec),
            (BuiltinModule::Operator, "MetaArg") => ty(TypeId::METAARG),
            (BuiltinModule::Unsafe, "gc_alloc") => func(Builtin::Alloc { gc: true }),
            (BuiltinModule::Unsafe, "raw_alloc") => func(Builtin::Alloc { gc: false }),
            (BuiltinModule::Unsafe, "gc_ptr" | "ptr") => func(Builtin::PtrType { gc: true }),
            (BuiltinModule::Unsafe, "raw_ptr") => func(Builtin::PtrType { gc: false }),
            (BuiltinModule::Unsafe, "gc_ref") => func(Builtin::RefType { gc: true }),
            (BuiltinModule::Unsafe, "raw_ref") => func(Builtin::RefType { gc: false }),
            (BuiltinModule::Unsafe, name) if crate::vm::ops::memops::MemOp::find(name).is_some() => {
                func(Builtin::Mem(crate::vm::ops::memops::MemOp::find(name)?))
            }
            (BuiltinModule::Unsafe, name) if crate::vm::ops::unchecked::DivOp::find(name).is_some() => {
                func(Builtin::Div(crate::vm::ops::unchecked::DivOp::find(name)?))
            }
            (BuiltinModule::Simd, "SIMD") => func(Builtin::SimdType),
            (BuiltinModule::Simd, "ptr_simd_load") => func(Builtin::PtrSimdLoad),
            (BuiltinModule::Simd, "ptr_simd_store") => func(Builtin::PtrSimdStore),
            (BuiltinModule::Simd, "simd_width_of") => func(Builtin::SimdWidthOf),
            (BuiltinModule::Time, "time") => func(Builtin::Time),
            (BuiltinModule::Time, "sleep") => func(Builtin::Sleep),
            (BuiltinModule::StdList, "list") => func(Builtin::List),
            (BuiltinModule::StdRange, "range") => func(Builtin::Range),
            (BuiltinModule::StdTuple, "tuple") => func(Builtin::Tuple),
            (BuiltinModule::StdDict, "dict") => func(Builtin::Dict),
            (BuiltinModule::StdFile, "open") => func(Builtin::Open),
            (BuiltinModule::StdFile, "file") => ty(TypeId::FILE),
            (BuiltinModule::RawBuffer, "RawBuffer") => ty(TypeId::RAW_BUFFER),
            (BuiltinModule::RawBuffer, name) => {
                func(Builtin::Rb(crate::vm::ops::rawbuffer::RbFn::find(name)?))
            }
            (BuiltinModule::Posix, "SEEK_SET") => Some(Typed::blue(TypeId::I32, Value::i32(0))),
            (BuiltinModule::Posix, "SEEK_CUR") => Some(Typed::blue(TypeId::I32, Value::i32(1))),
            (BuiltinModule::Posix, "SEEK_END") => Some(Typed::blue(TypeId::I32, Value::i32(2))),
            (BuiltinModule::Math, name) => match crate::vm::ops::math::constant(name) {
                Some(x) => Some(Typed::blue(
                    TypeId::F64,
                    Value::Scalar(crate::vm::ops::Scalar::F64(x)),
                )),
                None => func(Builtin::Math(crate::vm::ops::math::MathFn::find(name)?)),
            },
            _ => None,
        }
    }
}
