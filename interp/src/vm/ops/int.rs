//! Same-typed integer operations on `i8 u8 i32 u32 i64 u64`, as upstream's
//! `opimpl_int.py`: compute on the exact mathematical value (Python ints),
//! then re-wrap to the width (`fixedint`).
//!
//! - `+ - * **` wrap modulo 2^N (signed and unsigned alike).
//! - `/` is true division and returns `f64`, correctly rounded like Python's
//!   `int / int`.
//! - `//` and `%` follow Python floor semantics; `INT_MIN // -1` wraps.
//! - `<< >> & | ^` are Python ops re-wrapped; `>>` is arithmetic on signed
//!   and logical on unsigned values. A count ≥ the width gives 0 (or -1 for
//!   `>>` of a negative value); a negative count raises
//!   `ValueError: negative shift count` (our decision: Python's message;
//!   upstream crashes with an interp-level ValueError).
//! - Unary `-` exists for signed types only.
//!
//! Values travel as `i128`, which holds every operand of every width exactly.

use super::{
    cannot_do_binop, cannot_do_cmpop, cannot_do_unaryop, operator_not_implemented, OpError, PrimTy, Scalar,
};
use crate::syntax::ast::{BinOp, CmpOp, UnaryOp};
use crate::vm::rt_error::RuntimeError;

/// `a OP b` for two integers of the same type.
pub fn binop(op: BinOp, a: Scalar, b: Scalar) -> Result<Scalar, OpError> {
    if op == BinOp::MatMul {
        return Err(operator_not_implemented(op.symbol()));
    }
    let (x, y, ty) = same_int(a, b).ok_or_else(|| cannot_do_binop(op, a.ty(), b.ty()))?;
    let v = match op {
        BinOp::Add => x.wrapping_add(y),
        BinOp::Sub => x.wrapping_sub(y),
        BinOp::Mul => x.wrapping_mul(y),
        BinOp::Div => {
            if y == 0 {
                return Err(RuntimeError::IntDivByZero.into());
            }
            return Ok(Scalar::F64(true_div(x, y)));
        }
        BinOp::FloorDiv => {
            if y == 0 {
                return Err(RuntimeError::IntFloorDivByZero.into());
            }
            floor_div(x, y)
        }
        BinOp::Mod => {
            if y == 0 {
                return Err(RuntimeError::IntModByZero.into());
            }
            floor_mod(x, y)
        }
        BinOp::Pow => {
            if y < 0 {
                if x == 0 {
                    return Err(RuntimeError::IntZeroToNegativePower.into());
                }
                return Err(RuntimeError::IntNegativeExponent.into());
            }
            pow_wrapping(x, y.unsigned_abs())
        }
        BinOp::LShift => {
            let n = shift_count(y)?;
            if n >= ty.bits() {
                0
            } else {
                x.wrapping_shl(n)
            }
        }
        BinOp::RShift => {
            let n = shift_count(y)?;
            // Arithmetic shift of the exact value: unsigned operands are
            // non-negative here, so this is a logical shift for them.
            x >> n.min(127)
        }
        BinOp::BitAnd => x & y,
        BinOp::BitOr => x | y,
        BinOp::BitXor => x ^ y,
        BinOp::MatMul => return Err(operator_not_implemented(op.symbol())),
    };
    Ok(wrap(v, ty))
}

/// `a OP b` for two integers of the same type; the result is a `bool`.
pub fn cmpop(op: CmpOp, a: Scalar, b: Scalar) -> Result<Scalar, OpError> {
    let (x, y, _) = same_int(a, b).ok_or_else(|| cannot_do_cmpop(op, a.ty(), b.ty()))?;
    let r = match op {
        CmpOp::Eq => x == y,
        CmpOp::NotEq => x != y,
        CmpOp::Lt => x < y,
        CmpOp::LtE => x <= y,
        CmpOp::Gt => x > y,
        CmpOp::GtE => x >= y,
        CmpOp::Is | CmpOp::IsNot | CmpOp::In | CmpOp::NotIn => {
            return Err(cannot_do_cmpop(op, a.ty(), b.ty()))
        }
    };
    Ok(Scalar::Bool(r))
}

/// `OP a` for an integer. Only `-` on signed types exists upstream; unary
/// `+` and `~` are `WIP`, and `not` is the caller's job (bool conversion).
pub fn unaryop(op: UnaryOp, a: Scalar) -> Result<Scalar, OpError> {
    let ty = a.ty();
    let x = a.as_i128().ok_or_else(|| cannot_do_unaryop(op, ty))?;
    match op {
        UnaryOp::Neg if ty.is_signed() => Ok(wrap(x.wrapping_neg(), ty)),
        UnaryOp::Pos | UnaryOp::Invert => Err(operator_not_implemented(op.symbol())),
        UnaryOp::Neg | UnaryOp::Not => Err(cannot_do_unaryop(op, ty)),
    }
}

// ---------------------------------------------------------------- helpers

fn same_int(a: Scalar, b: Scalar) -> Option<(i128, i128, PrimTy)> {
    if a.ty() != b.ty() {
        return None;
    }
    Some((a.as_i128()?, b.as_i128()?, a.ty()))
}

fn wrap(v: i128, ty: PrimTy) -> Scalar {
    // `same_int` only lets integer types through.
    Scalar::wrap_int(v, ty).unwrap_or(Scalar::I32(0))
}

fn shift_count(y: i128) -> Result<u32, OpError> {
    if y < 0 {
        return Err(RuntimeError::NegativeShiftCount.into());
    }
    Ok(u32::try_from(y).unwrap_or(u32::MAX))
}

/// Python `a // b` (rounds toward negative infinity). `b != 0`.
pub fn floor_div(a: i128, b: i128) -> i128 {
    let q = a / b;
    if (a % b != 0) && ((a < 0) != (b < 0)) {
        q - 1
    } else {
        q
    }
}

/// Python `a % b` (the result has the sign of `b`). `b != 0`.
pub fn floor_mod(a: i128, b: i128) -> i128 {
    let r = a % b;
    if r != 0 && ((r < 0) != (b < 0)) {
        r + b
    } else {
        r
    }
}

/// `base ** exp` modulo 2^128 (square and multiply). Reducing this to N
/// bits gives the same value as reducing Python's exact power, because
/// 2^N divides 2^128. `0 ** 0 == 1`.
pub fn pow_wrapping(base: i128, mut exp: u128) -> i128 {
    let mut result: i128 = 1;
    let mut b = base;
    while exp > 0 {
        if exp & 1 == 1 {
            result = result.wrapping_mul(b);
        }
        b = b.wrapping_mul(b);
        exp >>= 1;
    }
    result
}

/// Python's `int / int` for operands of at most 65 bits: the correctly
/// rounded (round-half-even) quotient. `b != 0`. `0 / negative` is `-0.0`,
/// as in CPython.
pub fn true_div(a: i128, b: i128) -> f64 {
    let negative = (a < 0) != (b < 0);
    let (n, d) = (a.unsigned_abs(), b.unsigned_abs());
    const SMALL: u128 = 1 << 53;
    let magnitude = if n == 0 {
        0.0
    } else if n < SMALL && d < SMALL {
        // Both operands are exact doubles: one IEEE division rounds once.
        // (u128 → f64 is exact below 2^53.)
        n as f64 / d as f64
    } else {
        // Scale so that the integer quotient has 55 or 56 bits: 53 for the
        // mantissa, one rounding bit, and a sticky bit below it.
        let ln = 128 - n.leading_zeros();
        let ld = 128 - d.leading_zeros();
        let shift = 55 - (i64::from(ln) - i64::from(ld));
        let (num, den) = if shift >= 0 {
            (n << shift, d)
        } else {
            (n, d << -shift)
        };
        let q = num / den;
        let sticky = u128::from(num % den != 0);
        // u128 → f64 rounds to nearest, ties to even; the sticky bit makes
        // an inexact quotient never look like a tie.
        let rounded = (q | sticky) as f64;
        // Scaling by a power of two is exact: the result lies in
        // [2^-66, 2^67], far from overflow and subnormals.
        rounded * pow2(-shift)
    };
    if negative {
        -magnitude
    } else {
        magnitude
    }
}

/// 2^e as an f64, for `e` in the normal range.
fn pow2(e: i64) -> f64 {
    let biased = u64::try_from(e + 1023).unwrap_or(0);
    f64::from_bits(biased << 52)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn i32s(op: BinOp, a: i32, b: i32) -> Result<Scalar, OpError> {
        binop(op, Scalar::I32(a), Scalar::I32(b))
    }

    fn err(r: Result<Scalar, OpError>) -> String {
        r.unwrap_err().headline()
    }

    #[test]
    fn add_sub_mul_wrap_at_every_width() {
        assert_eq!(i32s(BinOp::Add, i32::MAX, 1), Ok(Scalar::I32(i32::MIN)));
        assert_eq!(i32s(BinOp::Sub, i32::MIN, 1), Ok(Scalar::I32(i32::MAX)));
        assert_eq!(i32s(BinOp::Mul, 65536, 65536), Ok(Scalar::I32(0)));
        assert_eq!(
            binop(BinOp::Add, Scalar::I8(127), Scalar::I8(1)),
            Ok(Scalar::I8(-128))
        );
        assert_eq!(
            binop(BinOp::Sub, Scalar::U8(0), Scalar::U8(1)),
            Ok(Scalar::U8(255))
        );
        assert_eq!(
            binop(BinOp::Mul, Scalar::U8(16), Scalar::U8(17)),
            Ok(Scalar::U8(16))
        );
        assert_eq!(
            binop(BinOp::Add, Scalar::U32(u32::MAX), Scalar::U32(2)),
            Ok(Scalar::U32(1))
        );
        assert_eq!(
            binop(BinOp::Mul, Scalar::I64(i64::MAX), Scalar::I64(2)),
            Ok(Scalar::I64(-2))
        );
        assert_eq!(
            binop(BinOp::Mul, Scalar::U64(u64::MAX), Scalar::U64(u64::MAX)),
            Ok(Scalar::U64(1))
        );
        assert_eq!(
            binop(BinOp::Sub, Scalar::U64(0), Scalar::U64(1)),
            Ok(Scalar::U64(u64::MAX))
        );
    }

    #[test]
    fn true_division_returns_f64() {
        assert_eq!(i32s(BinOp::Div, 11, 2), Ok(Scalar::F64(5.5)));
        assert_eq!(i32s(BinOp::Div, -7, 2), Ok(Scalar::F64(-3.5)));
        assert_eq!(i32s(BinOp::Div, 1, 3), Ok(Scalar::F64(1.0 / 3.0)));
        let Ok(Scalar::F64(z)) = i32s(BinOp::Div, 0, -5) else {
            panic!()
        };
        assert!(z == 0.0 && z.is_sign_negative());
        assert_eq!(
            binop(BinOp::Div, Scalar::U8(255), Scalar::U8(5)),
            Ok(Scalar::F64(51.0))
        );
    }

    #[test]
    fn true_division_is_correctly_rounded_for_wide_operands() {
        // Ground truth from python3.
        assert_eq!(true_div((1 << 63) - 1, 3), 3.0744573456182584e18);
        assert_eq!(true_div((1 << 64) - 1, (1 << 63) + 5), 2.0);
        assert_eq!(true_div(i128::from(i64::MIN), -1), 9.223372036854776e18);
        assert_eq!(true_div(1, (1 << 64) - 1), 5.421010862427522e-20);
        assert_eq!(true_div(9007199254740993, 1), 9007199254740992.0);
        assert_eq!(true_div(9007199254740995, 1), 9007199254740996.0);
        assert_eq!(true_div(-9007199254740993, 3), -3002399751580331.0);
        assert_eq!(true_div(18014398509481985, 2), 9007199254740992.0);
        assert_eq!(true_div(18014398509481987, 2), 9007199254740994.0);
    }

    #[test]
    fn floor_division_and_modulo_sign_tables() {
        assert_eq!(i32s(BinOp::FloorDiv, -7, 3), Ok(Scalar::I32(-3)));
        assert_eq!(i32s(BinOp::FloorDiv, 7, -3), Ok(Scalar::I32(-3)));
        assert_eq!(i32s(BinOp::FloorDiv, -7, -3), Ok(Scalar::I32(2)));
        assert_eq!(i32s(BinOp::FloorDiv, 7, 3), Ok(Scalar::I32(2)));
        assert_eq!(i32s(BinOp::Mod, -7, 3), Ok(Scalar::I32(2)));
        assert_eq!(i32s(BinOp::Mod, 7, -3), Ok(Scalar::I32(-2)));
        assert_eq!(i32s(BinOp::Mod, -7, -3), Ok(Scalar::I32(-1)));
        assert_eq!(i32s(BinOp::Mod, 7, 3), Ok(Scalar::I32(1)));
        assert_eq!(i32s(BinOp::Mod, -6, 3), Ok(Scalar::I32(0)));
        assert_eq!(i32s(BinOp::FloorDiv, -6, 3), Ok(Scalar::I32(-2)));
        assert_eq!(
            binop(BinOp::FloorDiv, Scalar::U8(200), Scalar::U8(7)),
            Ok(Scalar::U8(28))
        );
        assert_eq!(
            binop(BinOp::Mod, Scalar::I8(-128), Scalar::I8(7)),
            Ok(Scalar::I8(5))
        );
    }

    #[test]
    fn int_min_floordiv_minus_one_wraps() {
        assert_eq!(i32s(BinOp::FloorDiv, i32::MIN, -1), Ok(Scalar::I32(i32::MIN)));
        assert_eq!(i32s(BinOp::Mod, i32::MIN, -1), Ok(Scalar::I32(0)));
        assert_eq!(
            binop(BinOp::FloorDiv, Scalar::I8(-128), Scalar::I8(-1)),
            Ok(Scalar::I8(-128))
        );
        assert_eq!(
            binop(BinOp::FloorDiv, Scalar::I64(i64::MIN), Scalar::I64(-1)),
            Ok(Scalar::I64(i64::MIN))
        );
    }

    #[test]
    fn every_zero_division_message() {
        assert_eq!(
            err(i32s(BinOp::Mod, 1, 0)),
            "ZeroDivisionError: integer modulo by zero"
        );
        assert_eq!(err(i32s(BinOp::Div, 1, 0)), "ZeroDivisionError: division by zero");
        assert_eq!(
            err(i32s(BinOp::FloorDiv, 1, 0)),
            "ZeroDivisionError: integer division or modulo by zero"
        );
        assert_eq!(
            err(binop(BinOp::Div, Scalar::U64(0), Scalar::U64(0))),
            "ZeroDivisionError: division by zero"
        );
        assert_eq!(
            err(i32s(BinOp::Pow, 0, -1)),
            "ZeroDivisionError: 0 cannot be raised to a negative power"
        );
    }

    #[test]
    fn power() {
        assert_eq!(i32s(BinOp::Pow, 2, 31), Ok(Scalar::I32(i32::MIN)));
        assert_eq!(i32s(BinOp::Pow, 2, 32), Ok(Scalar::I32(0)));
        assert_eq!(i32s(BinOp::Pow, 0, 0), Ok(Scalar::I32(1)));
        assert_eq!(i32s(BinOp::Pow, 3, 4), Ok(Scalar::I32(81)));
        assert_eq!(i32s(BinOp::Pow, -2, 3), Ok(Scalar::I32(-8)));
        assert_eq!(i32s(BinOp::Pow, -1, i32::MAX), Ok(Scalar::I32(-1)));
        // python3: (3**40) % 2**32 == 689956897
        assert_eq!(i32s(BinOp::Pow, 3, 40), Ok(Scalar::I32(689956897)));
        assert_eq!(
            binop(BinOp::Pow, Scalar::U8(3), Scalar::U8(5)),
            Ok(Scalar::U8(243))
        );
        assert_eq!(
            binop(BinOp::Pow, Scalar::U64(3), Scalar::U64(u64::MAX)),
            // pow(3, 2**64-1, 2**64) from python3
            Ok(Scalar::U64(12297829382473034411))
        );
        assert_eq!(
            err(i32s(BinOp::Pow, 2, -1)),
            "ValueError: integer ** negative exponent"
        );
        assert_eq!(
            err(i32s(BinOp::Pow, -3, -2)),
            "ValueError: integer ** negative exponent"
        );
    }

    #[test]
    fn shifts() {
        assert_eq!(i32s(BinOp::LShift, 1, 31), Ok(Scalar::I32(i32::MIN)));
        assert_eq!(i32s(BinOp::LShift, 3, 31), Ok(Scalar::I32(i32::MIN)));
        assert_eq!(i32s(BinOp::LShift, 1, 32), Ok(Scalar::I32(0)));
        assert_eq!(i32s(BinOp::LShift, 1, i32::MAX), Ok(Scalar::I32(0)));
        assert_eq!(i32s(BinOp::RShift, -8, 1), Ok(Scalar::I32(-4)));
        assert_eq!(i32s(BinOp::RShift, -1, 40), Ok(Scalar::I32(-1)));
        assert_eq!(i32s(BinOp::RShift, i32::MIN, 31), Ok(Scalar::I32(-1)));
        assert_eq!(i32s(BinOp::RShift, 5, 40), Ok(Scalar::I32(0)));
        assert_eq!(
            binop(BinOp::RShift, Scalar::U8(0x80), Scalar::U8(7)),
            Ok(Scalar::U8(1))
        );
        assert_eq!(
            binop(BinOp::RShift, Scalar::U32(0x8000_0000), Scalar::U32(31)),
            Ok(Scalar::U32(1))
        );
        assert_eq!(
            binop(BinOp::LShift, Scalar::U8(0xff), Scalar::U8(4)),
            Ok(Scalar::U8(0xf0))
        );
        assert_eq!(
            binop(BinOp::LShift, Scalar::I8(1), Scalar::I8(7)),
            Ok(Scalar::I8(-128))
        );
        assert_eq!(
            binop(BinOp::RShift, Scalar::I8(-128), Scalar::I8(100)),
            Ok(Scalar::I8(-1))
        );
        assert_eq!(
            binop(BinOp::RShift, Scalar::U64(u64::MAX), Scalar::U64(63)),
            Ok(Scalar::U64(1))
        );
        assert_eq!(
            binop(BinOp::LShift, Scalar::U64(1), Scalar::U64(u64::MAX)),
            Ok(Scalar::U64(0))
        );
        assert_eq!(
            binop(BinOp::LShift, Scalar::I64(-1), Scalar::I64(63)),
            Ok(Scalar::I64(i64::MIN))
        );
        assert_eq!(
            err(i32s(BinOp::LShift, 1, -1)),
            "ValueError: negative shift count"
        );
        assert_eq!(
            err(i32s(BinOp::RShift, 1, -1)),
            "ValueError: negative shift count"
        );
    }

    #[test]
    fn bitwise() {
        assert_eq!(i32s(BinOp::BitAnd, 0b1100, 0b1010), Ok(Scalar::I32(0b1000)));
        assert_eq!(i32s(BinOp::BitOr, 0b1100, 0b1010), Ok(Scalar::I32(0b1110)));
        assert_eq!(i32s(BinOp::BitXor, 0b1100, 0b1010), Ok(Scalar::I32(0b0110)));
        assert_eq!(i32s(BinOp::BitAnd, -1, 7), Ok(Scalar::I32(7)));
        assert_eq!(i32s(BinOp::BitXor, -1, 0), Ok(Scalar::I32(-1)));
        assert_eq!(
            binop(BinOp::BitXor, Scalar::U8(0xff), Scalar::U8(0x0f)),
            Ok(Scalar::U8(0xf0))
        );
        assert_eq!(
            binop(BinOp::BitOr, Scalar::I8(-128), Scalar::I8(1)),
            Ok(Scalar::I8(-127))
        );
    }

    #[test]
    fn comparisons_return_bool() {
        let c = |op, a, b| cmpop(op, Scalar::I32(a), Scalar::I32(b));
        assert_eq!(c(CmpOp::Lt, -1, 0), Ok(Scalar::Bool(true)));
        assert_eq!(c(CmpOp::LtE, 0, 0), Ok(Scalar::Bool(true)));
        assert_eq!(c(CmpOp::Gt, 0, 0), Ok(Scalar::Bool(false)));
        assert_eq!(c(CmpOp::GtE, 1, 0), Ok(Scalar::Bool(true)));
        assert_eq!(c(CmpOp::Eq, 5, 5), Ok(Scalar::Bool(true)));
        assert_eq!(c(CmpOp::NotEq, 5, 5), Ok(Scalar::Bool(false)));
        assert_eq!(
            cmpop(CmpOp::Lt, Scalar::U64(u64::MAX), Scalar::U64(0)),
            Ok(Scalar::Bool(false))
        );
        assert_eq!(err(c(CmpOp::Is, 1, 1)), "TypeError: cannot do `i32` is `i32`");
        assert_eq!(
            err(c(CmpOp::NotIn, 1, 1)),
            "TypeError: cannot do `i32` not in `i32`"
        );
    }

    #[test]
    fn negation() {
        assert_eq!(unaryop(UnaryOp::Neg, Scalar::I32(5)), Ok(Scalar::I32(-5)));
        assert_eq!(
            unaryop(UnaryOp::Neg, Scalar::I32(i32::MIN)),
            Ok(Scalar::I32(i32::MIN))
        );
        assert_eq!(unaryop(UnaryOp::Neg, Scalar::I8(-128)), Ok(Scalar::I8(-128)));
        assert_eq!(
            unaryop(UnaryOp::Neg, Scalar::I64(i64::MIN)),
            Ok(Scalar::I64(i64::MIN))
        );
        assert_eq!(
            err(unaryop(UnaryOp::Neg, Scalar::U8(1))),
            "TypeError: cannot do -`u8`"
        );
        assert_eq!(
            err(unaryop(UnaryOp::Neg, Scalar::U32(1))),
            "TypeError: cannot do -`u32`"
        );
        assert_eq!(
            err(unaryop(UnaryOp::Neg, Scalar::U64(1))),
            "TypeError: cannot do -`u64`"
        );
        assert_eq!(
            err(unaryop(UnaryOp::Pos, Scalar::I32(1))),
            "WIP: Operator not implemented yet: +"
        );
        assert_eq!(
            err(unaryop(UnaryOp::Invert, Scalar::I32(1))),
            "WIP: Operator not implemented yet: ~"
        );
    }

    #[test]
    fn mismatched_operands_are_type_errors() {
        assert_eq!(
            err(binop(BinOp::Add, Scalar::I8(1), Scalar::I32(1))),
            "TypeError: cannot do `i8` + `i32`"
        );
        assert_eq!(
            err(binop(BinOp::Add, Scalar::F64(1.0), Scalar::F64(1.0))),
            "TypeError: cannot do `f64` + `f64`"
        );
        assert_eq!(
            err(i32s(BinOp::MatMul, 1, 1)),
            "WIP: Operator not implemented yet: @"
        );
    }

    #[test]
    fn floor_helpers_match_python_on_small_grid() {
        for a in -20i128..=20 {
            for b in (-6i128..=6).filter(|&b| b != 0) {
                let q = floor_div(a, b);
                let r = floor_mod(a, b);
                assert_eq!(q * b + r, a);
                assert!(r == 0 || (r < 0) == (b < 0));
                assert!(r.abs() < b.abs());
            }
        }
    }
}
