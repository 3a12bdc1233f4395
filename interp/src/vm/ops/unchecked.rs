//! The division operations of the `unsafe` module (upstream
//! `vm/modules/unsafe/div.py`): `unchecked_div`, `unchecked_floordiv`,
//! `unchecked_mod` and `ieee754_div`. This module owns their dispatch table
//! (upstream's multimethod registrations, narrower than `/`'s), their
//! results, and the decision on a zero divisor (spec §15.1):
//!
//! - the `unchecked_*` operations compute what `/`, `//` and `%` compute
//!   (Python's floor rules, integers wrapping, so `MIN // -1` is `MIN` as
//!   for `//`), but a zero divisor raises `PanicError` with the
//!   ZeroDivisionError's text, as upstream's interpreter (and its C code
//!   built with `SPY_DEBUG`) does;
//! - `ieee754_div` never raises: `x / 0.0` is `±inf`, `0.0 / 0.0` is `nan`.

use crate::syntax::ast::BinOp;
use crate::vm::ops::convert::convert;
use crate::vm::ops::dispatch::run_binop;
use crate::vm::ops::{BinSig, OpError, PrimTy, Scalar};
use crate::vm::rt_error::RuntimeError;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum DivOp {
    UncheckedDiv,
    UncheckedFloorDiv,
    UncheckedMod,
    Ieee754Div,
}

impl DivOp {
    pub const ALL: [DivOp; 4] = [
        DivOp::UncheckedDiv,
        DivOp::UncheckedFloorDiv,
        DivOp::UncheckedMod,
        DivOp::Ieee754Div,
    ];

    pub fn name(self) -> &'static str {
        match self {
            DivOp::UncheckedDiv => "unchecked_div",
            DivOp::UncheckedFloorDiv => "unchecked_floordiv",
            DivOp::UncheckedMod => "unchecked_mod",
            DivOp::Ieee754Div => "ieee754_div",
        }
    }

    pub fn find(name: &str) -> Option<DivOp> {
        DivOp::ALL.into_iter().find(|m| m.name() == name)
    }

    /// The operator whose arithmetic it computes.
    pub fn binop(self) -> BinOp {
        match self {
            DivOp::UncheckedDiv | DivOp::Ieee754Div => BinOp::Div,
            DivOp::UncheckedFloorDiv => BinOp::FloorDiv,
            DivOp::UncheckedMod => BinOp::Mod,
        }
    }

    /// The operand type both arguments are converted to and the result
    /// type, for arguments of types `a` and `b` (upstream's registrations).
    pub fn signature(self, a: PrimTy, b: PrimTy) -> Option<BinSig> {
        use PrimTy::*;
        let operand = match self {
            DivOp::Ieee754Div => match (a, b) {
                (F32, F32) | (F32, I32) | (I32, F32) => F32,
                (F64 | I32, F64 | I32) | (F32, F64) | (F64, F32) => F64,
                _ => return None,
            },
            _ => match (a, b) {
                _ if a == b && matches!(a, I8 | U8 | I32 | U32 | F64 | F32) => a,
                (F64, I8 | U8 | I32 | F32) | (I8 | U8 | I32 | F32, F64) => F64,
                (F32, I32) | (I32, F32) => F32,
                _ => return None,
            },
        };
        let result = match self {
            DivOp::UncheckedDiv if operand.is_int() => F64,
            DivOp::Ieee754Div => operand,
            _ => operand,
        };
        Some(BinSig { operand, result })
    }

    /// The message of upstream's `TypeError` for arguments outside the table (`a`, `b`:
    /// the types' names).
    pub fn unsupported(self, a: &str, b: &str) -> String {
        match self {
            DivOp::UncheckedDiv => {
                format!("Unsupported types `{a}` / `{b}` for unchecked division operation")
            }
            DivOp::UncheckedFloorDiv => {
                format!("Unsupported types `{a}` // `{b}` for unchecked floordiv operation")
            }
            DivOp::UncheckedMod => format!("Unsupported types `{a}` % `{b}` for unchecked modulus operation"),
            DivOp::Ieee754Div => {
                format!("Unsupported types `{a}` / `{b}` for unchecked ieee754 division operation")
            }
        }
    }

    /// The `PanicError` a zero divisor raises for operands of type
    /// `operand` (`None` for `ieee754_div`, which never raises).
    pub fn zero_panic(self, operand: PrimTy) -> Option<RuntimeError> {
        use RuntimeError::*;
        let int = operand.is_int();
        Some(match self {
            DivOp::UncheckedDiv if int => UncheckedIntDivByZero,
            DivOp::UncheckedFloorDiv if int => UncheckedIntFloorDivByZero,
            DivOp::UncheckedMod if int => UncheckedIntModByZero,
            DivOp::UncheckedDiv => UncheckedFloatDivByZero,
            DivOp::UncheckedFloorDiv => UncheckedFloatFloorDivByZero,
            DivOp::UncheckedMod => UncheckedFloatModByZero,
            DivOp::Ieee754Div => return None,
        })
    }

    /// The result for `a` and `b`, both converted to `operand` (the
    /// signature's).
    pub fn apply(self, operand: PrimTy, a: Scalar, b: Scalar) -> Result<Scalar, OpError> {
        let (a, b) = (convert(a, operand), convert(b, operand));
        if self == DivOp::Ieee754Div {
            // the operand is a float type: an exact f64 view of each side
            let (x, y) = (a.as_f64().unwrap_or(0.0), b.as_f64().unwrap_or(0.0));
            return Ok(match operand {
                PrimTy::F32 => Scalar::F32(x as f32 / y as f32),
                _ => Scalar::F64(x / y),
            });
        }
        let zero = match b.as_i128() {
            Some(y) => y == 0,
            None => b.as_f64() == Some(0.0),
        };
        if zero {
            if let Some(e) = self.zero_panic(operand) {
                return Err(e.into());
            }
        }
        run_binop(self.binop(), operand, a, b)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn headline(r: Result<Scalar, OpError>) -> String {
        match r {
            Ok(s) => format!("{s}"),
            Err(e) => e.headline(),
        }
    }

    #[test]
    fn follows_the_operators_and_panics_on_zero() {
        use DivOp::*;
        use Scalar::*;
        assert_eq!(headline(UncheckedDiv.apply(PrimTy::I32, I32(7), I32(2))), "3.5");
        assert_eq!(
            headline(UncheckedFloorDiv.apply(PrimTy::I32, I32(-7), I32(2))),
            "-4"
        );
        assert_eq!(headline(UncheckedMod.apply(PrimTy::I32, I32(-7), I32(2))), "1");
        assert_eq!(
            headline(UncheckedFloorDiv.apply(PrimTy::I8, I8(-128), I8(-1))),
            "-128"
        );
        assert_eq!(
            headline(UncheckedMod.apply(PrimTy::U8, U8(5), U8(0))),
            "PanicError: integer modulo by zero"
        );
        assert_eq!(
            headline(UncheckedFloorDiv.apply(PrimTy::F64, F64(1.0), F64(-0.0))),
            "PanicError: float floor division by zero"
        );
        assert_eq!(
            headline(Ieee754Div.apply(PrimTy::F64, F64(-1.0), F64(0.0))),
            "-inf"
        );
        assert_eq!(headline(Ieee754Div.apply(PrimTy::F64, I32(0), I32(0))), "nan");
    }

    #[test]
    fn dispatch_table_is_upstreams() {
        use PrimTy::*;
        let sig = |op: DivOp, a, b| op.signature(a, b).map(|s| (s.operand, s.result));
        assert_eq!(sig(DivOp::UncheckedDiv, I8, I8), Some((I8, F64)));
        assert_eq!(sig(DivOp::UncheckedMod, U32, U32), Some((U32, U32)));
        assert_eq!(sig(DivOp::UncheckedMod, I32, F64), Some((F64, F64)));
        assert_eq!(sig(DivOp::UncheckedMod, U32, F64), None);
        assert_eq!(sig(DivOp::UncheckedDiv, I8, I32), None);
        assert_eq!(sig(DivOp::Ieee754Div, I32, I32), Some((F64, F64)));
        assert_eq!(sig(DivOp::Ieee754Div, I32, F32), Some((F32, F32)));
        assert_eq!(sig(DivOp::Ieee754Div, I8, I8), None);
    }
}
