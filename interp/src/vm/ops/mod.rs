//! Pure, span-free operator semantics for SPy's primitive values: the
//! arithmetic, comparisons, conversions, str operations and print formats
//! that upstream implements in `spy/vm/modules/operator/opimpl_*.py`,
//! `convop.py`, `primitive.py`, `libspy` and `stdlib/_str.spy`.
//!
//! Nothing here knows about source locations, frames or colors. A failing
//! operation returns an [`OpError`] (a typed [`RuntimeError`], or a static
//! `Kind: message` when the types have no such operation), and the evaluator
//! attaches the annotations. Redshift constant folding, JIT constant folding
//! and the fuzz oracles call the same functions, so every engine agrees by
//! construction.
//!
//! | module       | owns                                                        |
//! |--------------|-------------------------------------------------------------|
//! | (this file)  | [`PrimTy`], [`Scalar`], [`OpError`], error wording helpers  |
//! | [`dispatch`] | type-level tables: which `(op, Ta, Tb)` exist, value dispatch |
//! | [`signatures`] | value-free signatures of builtins, `T(x)`, str/list methods, subscripts |
//! | [`int`]      | same-typed integer ops (wrapping, floor division, shifts)  |
//! | [`float`]    | same-typed f64 (Python) and f32 (libspy C) ops              |
//! | [`bool`]     | bool ops                                                    |
//! | [`convert`]  | implicit and explicit conversions, `int(str)` parsing       |
//! | [`format`]   | `str()`/`repr()` of primitives, `repr(str)`                 |
//! | [`quote`]    | the string-literal escaper and its policies (repr, source)  |
//! | [`str`]      | byte-based str operations                                   |
//! | [`rawbuffer`] | `rawbuffer.RawBuffer`: byte spans, little-endian scalars  |
//!
//! Decisions where upstream is silent or crashes are listed in
//! `spec/notes-ops-decisions.md`.

use std::fmt;

use crate::error::{ExcKind, SpyError};
use crate::syntax::ast::{BinOp, CmpOp, UnaryOp};
use crate::vm::rt_error::RuntimeError;

pub mod bool;
pub mod bytes;
pub mod convert;
pub mod dispatch;
pub mod float;
pub mod format;
pub mod int;
pub mod math;
pub mod memops;
pub mod quote;
pub mod rawbuffer;
pub mod seq;
pub mod signatures;
pub mod str;
pub mod unchecked;
mod unicode;

#[cfg(test)]
mod proptests;

pub use dispatch::{binop, binop_signature, cmpop, cmpop_signature, unaryop, unaryop_signature, BinSig};

/// A primitive type (the static type of a Scalar).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum PrimTy {
    I8,
    U8,
    I32,
    U32,
    I64,
    U64,
    F32,
    F64,
    Bool,
}

/// A primitive value.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Scalar {
    I8(i8),
    U8(u8),
    I32(i32),
    U32(u32),
    I64(i64),
    U64(u64),
    F32(f32),
    F64(f64),
    Bool(bool),
}

/// A SPy exception raised by a pure operation, without location.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum OpError {
    /// The operation exists for these types but fails for these values
    /// (division by zero, ...): residual code can raise it at run time.
    Runtime(RuntimeError),
    /// The operation does not exist for these types (`cannot do`, `WIP`):
    /// a static error, which typed residual code never raises.
    Static { kind: ExcKind, message: String },
}

impl PrimTy {
    /// Every primitive type, integers first (narrow to wide), then floats.
    pub const ALL: [PrimTy; 9] = [
        PrimTy::I8,
        PrimTy::U8,
        PrimTy::I32,
        PrimTy::U32,
        PrimTy::I64,
        PrimTy::U64,
        PrimTy::F32,
        PrimTy::F64,
        PrimTy::Bool,
    ];

    /// The SPy spelling: `i8`, ..., `f64`, `bool`.
    pub fn name(self) -> &'static str {
        match self {
            PrimTy::I8 => "i8",
            PrimTy::U8 => "u8",
            PrimTy::I32 => "i32",
            PrimTy::U32 => "u32",
            PrimTy::I64 => "i64",
            PrimTy::U64 => "u64",
            PrimTy::F32 => "f32",
            PrimTy::F64 => "f64",
            PrimTy::Bool => "bool",
        }
    }

    /// Inverse of [`PrimTy::name`]. The builtin aliases `int`/`float` are
    /// names bound in `builtins`, not type names, so they are not accepted.
    pub fn from_name(name: &str) -> Option<PrimTy> {
        PrimTy::ALL.iter().copied().find(|t| t.name() == name)
    }

    /// A stable number (the index in [`PrimTy::ALL`]), for operands of
    /// run-time errors raised by code ([`crate::vm::rt_error`]).
    pub fn code(self) -> u64 {
        PrimTy::ALL.iter().position(|t| *t == self).unwrap_or(usize::MAX) as u64
    }

    /// Inverse of [`PrimTy::code`].
    pub fn from_code(code: u64) -> Option<PrimTy> {
        PrimTy::ALL.get(usize::try_from(code).ok()?).copied()
    }

    pub fn is_int(self) -> bool {
        matches!(
            self,
            PrimTy::I8 | PrimTy::U8 | PrimTy::I32 | PrimTy::U32 | PrimTy::I64 | PrimTy::U64
        )
    }

    /// Signed integer or float. `bool` is not signed.
    pub fn is_signed(self) -> bool {
        matches!(
            self,
            PrimTy::I8 | PrimTy::I32 | PrimTy::I64 | PrimTy::F32 | PrimTy::F64
        )
    }

    pub fn is_float(self) -> bool {
        matches!(self, PrimTy::F32 | PrimTy::F64)
    }

    /// Width of the value in bits (`bool` is 1 bit of information).
    pub fn bits(self) -> u32 {
        match self {
            PrimTy::I8 | PrimTy::U8 => 8,
            PrimTy::I32 | PrimTy::U32 | PrimTy::F32 => 32,
            PrimTy::I64 | PrimTy::U64 | PrimTy::F64 => 64,
            PrimTy::Bool => 1,
        }
    }

    /// `(min, max)` of an integer type, `None` for floats and bool.
    pub fn int_bounds(self) -> Option<(i128, i128)> {
        Some(match self {
            PrimTy::I8 => (i8::MIN.into(), i8::MAX.into()),
            PrimTy::U8 => (0, u8::MAX.into()),
            PrimTy::I32 => (i32::MIN.into(), i32::MAX.into()),
            PrimTy::U32 => (0, u32::MAX.into()),
            PrimTy::I64 => (i64::MIN.into(), i64::MAX.into()),
            PrimTy::U64 => (0, u64::MAX.into()),
            PrimTy::F32 | PrimTy::F64 | PrimTy::Bool => return None,
        })
    }
}

impl fmt::Display for PrimTy {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl Scalar {
    pub fn ty(self) -> PrimTy {
        match self {
            Scalar::I8(_) => PrimTy::I8,
            Scalar::U8(_) => PrimTy::U8,
            Scalar::I32(_) => PrimTy::I32,
            Scalar::U32(_) => PrimTy::U32,
            Scalar::I64(_) => PrimTy::I64,
            Scalar::U64(_) => PrimTy::U64,
            Scalar::F32(_) => PrimTy::F32,
            Scalar::F64(_) => PrimTy::F64,
            Scalar::Bool(_) => PrimTy::Bool,
        }
    }

    /// The zero value of a type (`0`, `0.0`, `False`).
    pub fn zero(ty: PrimTy) -> Scalar {
        match ty {
            PrimTy::I8 => Scalar::I8(0),
            PrimTy::U8 => Scalar::U8(0),
            PrimTy::I32 => Scalar::I32(0),
            PrimTy::U32 => Scalar::U32(0),
            PrimTy::I64 => Scalar::I64(0),
            PrimTy::U64 => Scalar::U64(0),
            PrimTy::F32 => Scalar::F32(0.0),
            PrimTy::F64 => Scalar::F64(0.0),
            PrimTy::Bool => Scalar::Bool(false),
        }
    }

    /// The exact mathematical value of an integer scalar.
    pub fn as_i128(self) -> Option<i128> {
        Some(match self {
            Scalar::I8(v) => v.into(),
            Scalar::U8(v) => v.into(),
            Scalar::I32(v) => v.into(),
            Scalar::U32(v) => v.into(),
            Scalar::I64(v) => v.into(),
            Scalar::U64(v) => v.into(),
            Scalar::F32(_) | Scalar::F64(_) | Scalar::Bool(_) => return None,
        })
    }

    /// Reduce `v` modulo 2^N into integer type `ty` (two's complement
    /// wrapping, as upstream's `fixedint`). `None` if `ty` is not an integer.
    pub fn wrap_int(v: i128, ty: PrimTy) -> Option<Scalar> {
        // `as` between integer types truncates to the low bits: exactly the
        // reduction modulo 2^N.
        Some(match ty {
            PrimTy::I8 => Scalar::I8(v as i8),
            PrimTy::U8 => Scalar::U8(v as u8),
            PrimTy::I32 => Scalar::I32(v as i32),
            PrimTy::U32 => Scalar::U32(v as u32),
            PrimTy::I64 => Scalar::I64(v as i64),
            PrimTy::U64 => Scalar::U64(v as u64),
            PrimTy::F32 | PrimTy::F64 | PrimTy::Bool => return None,
        })
    }

    /// The value of a float scalar, widened to f64 (exact for f32).
    pub fn as_f64(self) -> Option<f64> {
        match self {
            Scalar::F32(v) => Some(v.into()),
            Scalar::F64(v) => Some(v),
            _ => None,
        }
    }
}

impl fmt::Display for Scalar {
    /// `str(x)` as SPy prints it (see [`format::format_scalar`]).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&format::format_scalar(*self))
    }
}

impl OpError {
    /// A static (type-level) error; run-time errors are [`OpError::Runtime`].
    pub fn new(kind: ExcKind, message: impl Into<String>) -> OpError {
        OpError::Static {
            kind,
            message: message.into(),
        }
    }

    pub fn kind(&self) -> ExcKind {
        match self {
            OpError::Runtime(e) => e.kind(),
            OpError::Static { kind, .. } => *kind,
        }
    }

    /// `Kind: message`, the line every engine must agree on.
    pub fn headline(&self) -> String {
        SpyError::from(self.clone()).headline()
    }
}

impl fmt::Display for OpError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.headline())
    }
}

impl From<RuntimeError> for OpError {
    fn from(e: RuntimeError) -> OpError {
        OpError::Runtime(e)
    }
}

impl From<OpError> for SpyError {
    /// The evaluator adds annotations and the traceback afterwards.
    fn from(e: OpError) -> SpyError {
        match e {
            OpError::Runtime(e) => e.into(),
            OpError::Static { kind, message } => SpyError::new(kind, message),
        }
    }
}

// ------------------------------------------------------------ error wording
// One place for the shapes shared by several modules.

/// `` cannot do `i8` + `i32` `` (upstream binop.py dispatch failure).
pub fn cannot_do_binop(op: BinOp, a: PrimTy, b: PrimTy) -> OpError {
    OpError::new(
        ExcKind::TypeError,
        format!("cannot do `{a}` {} `{b}`", op.symbol()),
    )
}

/// `` cannot do `i32` < `str` `` for comparisons.
pub fn cannot_do_cmpop(op: CmpOp, a: PrimTy, b: PrimTy) -> OpError {
    OpError::new(
        ExcKind::TypeError,
        format!("cannot do `{a}` {} `{b}`", op.symbol()),
    )
}

/// `` cannot do -`u8` `` (upstream unaryop.py), and
/// `` cannot do not `f64` `` for `not` (a word operator takes a space).
pub fn cannot_do_unaryop(op: UnaryOp, t: PrimTy) -> OpError {
    let sep = if op == UnaryOp::Not { " " } else { "" };
    OpError::new(ExcKind::TypeError, format!("cannot do {}{sep}`{t}`", op.symbol()))
}

/// `WIP: Operator not implemented yet: @` for operators that parse but
/// have no implementation upstream (`@`, unary `+`, `~`, `not in`).
pub fn operator_not_implemented(symbol: &str) -> OpError {
    OpError::new(ExcKind::Wip, format!("Operator not implemented yet: {symbol}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip() {
        for t in PrimTy::ALL {
            assert_eq!(PrimTy::from_name(t.name()), Some(t));
            assert_eq!(Scalar::zero(t).ty(), t);
        }
        assert_eq!(PrimTy::from_name("int"), None);
        assert_eq!(PrimTy::from_name("str"), None);
    }

    #[test]
    fn predicates() {
        let ints: Vec<_> = PrimTy::ALL.into_iter().filter(|t| t.is_int()).collect();
        assert_eq!(ints.len(), 6);
        assert!(PrimTy::I8.is_signed() && !PrimTy::U64.is_signed());
        assert!(PrimTy::F32.is_signed() && !PrimTy::Bool.is_signed());
        assert!(PrimTy::F32.is_float() && !PrimTy::I32.is_float());
        assert_eq!(PrimTy::U8.bits(), 8);
        assert_eq!(PrimTy::F32.bits(), 32);
        assert_eq!(PrimTy::U64.bits(), 64);
        assert_eq!(PrimTy::Bool.bits(), 1);
        assert_eq!(PrimTy::U8.int_bounds(), Some((0, 255)));
        assert_eq!(PrimTy::I64.int_bounds(), Some((-(1 << 63), (1 << 63) - 1)));
        assert_eq!(PrimTy::F64.int_bounds(), None);
    }

    #[test]
    fn wrap_int_reduces_modulo_width() {
        assert_eq!(Scalar::wrap_int(128, PrimTy::I8), Some(Scalar::I8(-128)));
        assert_eq!(Scalar::wrap_int(266, PrimTy::U8), Some(Scalar::U8(10)));
        assert_eq!(Scalar::wrap_int(-1, PrimTy::U64), Some(Scalar::U64(u64::MAX)));
        assert_eq!(
            Scalar::wrap_int(1 << 31, PrimTy::I32),
            Some(Scalar::I32(i32::MIN))
        );
        assert_eq!(Scalar::wrap_int(1, PrimTy::F64), None);
        assert_eq!(Scalar::I8(-3).as_i128(), Some(-3));
        assert_eq!(Scalar::Bool(true).as_i128(), None);
        assert_eq!(Scalar::F32(0.5).as_f64(), Some(0.5));
    }

    #[test]
    fn error_wording() {
        assert_eq!(
            cannot_do_binop(BinOp::Add, PrimTy::I8, PrimTy::I32).headline(),
            "TypeError: cannot do `i8` + `i32`"
        );
        assert_eq!(
            cannot_do_unaryop(UnaryOp::Neg, PrimTy::U8).headline(),
            "TypeError: cannot do -`u8`"
        );
        assert_eq!(
            operator_not_implemented("@").headline(),
            "WIP: Operator not implemented yet: @"
        );
        let e: SpyError = OpError::new(ExcKind::ValueError, "x").into();
        assert_eq!(e.headline(), "ValueError: x");
    }
}
