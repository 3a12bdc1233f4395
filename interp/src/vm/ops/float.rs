//! Same-typed float operations.
//!
//! - `f64` follows upstream's `opimpl_f64.py`, i.e. Python floats: IEEE
//!   arithmetic, except that division by zero raises, `//` and `%` use
//!   CPython's `float_divmod` (floor; the sign of `%` follows the divisor),
//!   and `**` is CPython's `float_pow` behind upstream's two pre-checks.
//!   A finite `**` that overflows raises Python's
//!   `OverflowError: (34, 'Numerical result out of range')` (our decision:
//!   upstream lets the Python exception escape and crashes).
//! - `f32` follows libspy's C (`libspy/src/operator.c`), computed in
//!   `float`: `//` is `floorf(x / y)` and `%` is `fmodf` adjusted to the
//!   divisor's sign, so `-0.0` results differ from f64 in corner cases.
//!   Division by zero raises with the f64 messages; `**` overflows to `inf`.

use super::{cannot_do_binop, cannot_do_cmpop, cannot_do_unaryop, operator_not_implemented, OpError, Scalar};
use crate::syntax::ast::{BinOp, CmpOp, UnaryOp};
use crate::vm::rt_error::RuntimeError;

/// `a OP b` for two floats of the same type.
pub fn binop(op: BinOp, a: Scalar, b: Scalar) -> Result<Scalar, OpError> {
    match (a, b) {
        (Scalar::F64(x), Scalar::F64(y)) => f64_binop(op, x, y).map(Scalar::F64),
        (Scalar::F32(x), Scalar::F32(y)) => f32_binop(op, x, y).map(Scalar::F32),
        _ if op == BinOp::MatMul => Err(operator_not_implemented(op.symbol())),
        _ => Err(cannot_do_binop(op, a.ty(), b.ty())),
    }
}

/// `a OP b` for two floats of the same type; IEEE comparisons (NaN is
/// unequal to everything, itself included).
pub fn cmpop(op: CmpOp, a: Scalar, b: Scalar) -> Result<Scalar, OpError> {
    let (x, y) = match (a, b) {
        (Scalar::F64(x), Scalar::F64(y)) => (x, y),
        // Widening f32 to f64 is exact, so comparisons are unchanged.
        (Scalar::F32(x), Scalar::F32(y)) => (f64::from(x), f64::from(y)),
        _ => return Err(cannot_do_cmpop(op, a.ty(), b.ty())),
    };
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

/// `OP a` for a float: `-` flips the sign (also of `0.0` and NaN).
pub fn unaryop(op: UnaryOp, a: Scalar) -> Result<Scalar, OpError> {
    match (op, a) {
        (UnaryOp::Neg, Scalar::F64(x)) => Ok(Scalar::F64(-x)),
        (UnaryOp::Neg, Scalar::F32(x)) => Ok(Scalar::F32(-x)),
        (UnaryOp::Pos | UnaryOp::Invert, _) => Err(operator_not_implemented(op.symbol())),
        _ => Err(cannot_do_unaryop(op, a.ty())),
    }
}

// --------------------------------------------------------------------- f64

fn f64_binop(op: BinOp, x: f64, y: f64) -> Result<f64, OpError> {
    Ok(match op {
        BinOp::Add => x + y,
        BinOp::Sub => x - y,
        BinOp::Mul => x * y,
        BinOp::Div => {
            if y == 0.0 {
                return Err(RuntimeError::FloatDivByZero.into());
            }
            x / y
        }
        BinOp::FloorDiv => {
            if y == 0.0 {
                return Err(RuntimeError::FloatFloorDivByZero.into());
            }
            py_divmod(x, y).0
        }
        BinOp::Mod => {
            if y == 0.0 {
                return Err(RuntimeError::FloatModByZero.into());
            }
            py_mod(x, y)
        }
        BinOp::Pow => py_pow(x, y)?,
        BinOp::MatMul => return Err(operator_not_implemented(op.symbol())),
        BinOp::LShift | BinOp::RShift | BinOp::BitAnd | BinOp::BitOr | BinOp::BitXor => {
            return Err(cannot_do_binop(op, super::PrimTy::F64, super::PrimTy::F64))
        }
    })
}

/// CPython `float_rem`: `fmod`, moved to the divisor's sign; an exact zero
/// takes the divisor's sign. `y != 0`.
pub fn py_mod(x: f64, y: f64) -> f64 {
    let m = x % y; // Rust `%` on floats is C `fmod`.
    if m != 0.0 {
        if (y < 0.0) != (m < 0.0) {
            m + y
        } else {
            m
        }
    } else {
        0.0f64.copysign(y)
    }
}

/// CPython `_float_div_mod`: `(x // y, x % y)`. `y != 0`.
pub fn py_divmod(x: f64, y: f64) -> (f64, f64) {
    let mut m = x % y;
    let mut div = (x - m) / y;
    if m != 0.0 {
        if (y < 0.0) != (m < 0.0) {
            m += y;
            div -= 1.0;
        }
    } else {
        m = 0.0f64.copysign(y);
    }
    let floordiv = if div != 0.0 {
        let mut f = div.floor();
        if div - f > 0.5 {
            f += 1.0;
        }
        f
    } else {
        0.0f64.copysign(x / y)
    };
    (floordiv, m)
}

fn is_odd_integer(x: f64) -> bool {
    (x.abs() % 2.0) == 1.0
}

/// `x ** y` for f64: upstream's pre-checks, then CPython's `float_pow`.
pub fn py_pow(iv: f64, iw: f64) -> Result<f64, OpError> {
    // Upstream opimpl_f64.py checks these two first.
    if iv == 0.0 && iw < 0.0 {
        return Err(RuntimeError::FloatZeroToNegativePower.into());
    }
    if iv < 0.0 && iw.is_finite() && iw % 1.0 != 0.0 {
        return Err(RuntimeError::MathDomain.into());
    }
    // CPython Objects/floatobject.c float_pow.
    if iw == 0.0 {
        return Ok(1.0);
    }
    if iv.is_nan() {
        return Ok(iv);
    }
    if iw.is_nan() {
        return Ok(if iv == 1.0 { 1.0 } else { iw });
    }
    if iw.is_infinite() {
        let a = iv.abs();
        return Ok(if a == 1.0 {
            1.0
        } else if (iw > 0.0) == (a > 1.0) {
            iw.abs()
        } else {
            0.0
        });
    }
    if iv.is_infinite() {
        let odd = is_odd_integer(iw);
        return Ok(if iw > 0.0 {
            if odd {
                iv
            } else {
                iv.abs()
            }
        } else if odd {
            0.0f64.copysign(iv)
        } else {
            0.0
        });
    }
    if iv == 0.0 {
        // iw > 0 here (iw < 0 raised above).
        return Ok(if is_odd_integer(iw) { iv } else { 0.0 });
    }
    let (base, negate) = if iv < 0.0 {
        // iw is an integer here (the domain check above).
        (-iv, is_odd_integer(iw))
    } else {
        (iv, false)
    };
    if base == 1.0 {
        return Ok(if negate { -1.0 } else { 1.0 });
    }
    let r = base.powf(iw);
    if r.is_infinite() {
        return Err(RuntimeError::FloatPowOverflow.into());
    }
    Ok(if negate { -r } else { r })
}

// --------------------------------------------------------------------- f32

fn f32_binop(op: BinOp, x: f32, y: f32) -> Result<f32, OpError> {
    Ok(match op {
        BinOp::Add => x + y,
        BinOp::Sub => x - y,
        BinOp::Mul => x * y,
        BinOp::Div => {
            if y == 0.0 {
                return Err(RuntimeError::FloatDivByZero.into());
            }
            x / y
        }
        BinOp::FloorDiv => {
            if y == 0.0 {
                return Err(RuntimeError::FloatFloorDivByZero.into());
            }
            (x / y).floor()
        }
        BinOp::Mod => {
            if y == 0.0 {
                return Err(RuntimeError::FloatModByZero.into());
            }
            c_mod_f32(x, y)
        }
        BinOp::Pow => {
            if x == 0.0 && y < 0.0 {
                return Err(RuntimeError::FloatZeroToNegativePower.into());
            }
            if x < 0.0 && y.is_finite() && y != y.trunc() {
                return Err(RuntimeError::MathDomain.into());
            }
            x.powf(y)
        }
        BinOp::MatMul => return Err(operator_not_implemented(op.symbol())),
        BinOp::LShift | BinOp::RShift | BinOp::BitAnd | BinOp::BitOr | BinOp::BitXor => {
            return Err(cannot_do_binop(op, super::PrimTy::F32, super::PrimTy::F32))
        }
    })
}

/// libspy `spy_operator$f32_mod`: `fmodf`, then moved to the divisor's
/// sign. Unlike Python, an exact zero keeps the dividend's sign.
fn c_mod_f32(x: f32, y: f32) -> f32 {
    let r = x % y;
    if r != 0.0 && (y < 0.0) != (r < 0.0) {
        r + y
    } else {
        r
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn f(op: BinOp, a: f64, b: f64) -> Result<f64, OpError> {
        match binop(op, Scalar::F64(a), Scalar::F64(b))? {
            Scalar::F64(v) => Ok(v),
            other => panic!("{other:?}"),
        }
    }

    fn g(op: BinOp, a: f32, b: f32) -> Result<f32, OpError> {
        match binop(op, Scalar::F32(a), Scalar::F32(b))? {
            Scalar::F32(v) => Ok(v),
            other => panic!("{other:?}"),
        }
    }

    /// Same value, and the same sign for zeros; NaN equals NaN.
    fn same(a: f64, b: f64) -> bool {
        (a.is_nan() && b.is_nan()) || (a == b && a.is_sign_negative() == b.is_sign_negative())
    }

    fn err64(op: BinOp, a: f64, b: f64) -> String {
        f(op, a, b).unwrap_err().headline()
    }

    const INF: f64 = f64::INFINITY;
    const NAN: f64 = f64::NAN;

    #[test]
    fn every_float_zero_division_message() {
        for zero in [0.0, -0.0] {
            assert_eq!(
                err64(BinOp::Div, 1.0, zero),
                "ZeroDivisionError: float division by zero"
            );
            assert_eq!(
                err64(BinOp::FloorDiv, 1.0, zero),
                "ZeroDivisionError: float floor division by zero"
            );
            assert_eq!(
                err64(BinOp::Mod, 1.0, zero),
                "ZeroDivisionError: float modulo by zero"
            );
        }
        assert_eq!(
            err64(BinOp::Div, NAN, 0.0),
            "ZeroDivisionError: float division by zero"
        );
        let e = |op| g(op, 1.0, 0.0).unwrap_err().headline();
        assert_eq!(e(BinOp::Div), "ZeroDivisionError: float division by zero");
        assert_eq!(
            e(BinOp::FloorDiv),
            "ZeroDivisionError: float floor division by zero"
        );
        assert_eq!(e(BinOp::Mod), "ZeroDivisionError: float modulo by zero");
    }

    /// (a, b, a // b, a % b), ground truth from python3.
    const DIVMOD: &[(f64, f64, f64, f64)] = &[
        (7.0, 2.0, 3.0, 1.0),
        (-7.0, 2.0, -4.0, 1.0),
        (7.0, -2.0, -4.0, -1.0),
        (-7.0, -2.0, 3.0, -1.0),
        (5.0, INF, 0.0, 5.0),
        (-5.0, INF, -1.0, INF),
        (5.0, -INF, -1.0, -INF),
        (-5.0, -INF, 0.0, -5.0),
        (INF, 1.0, NAN, NAN),
        (-0.0, 1.0, -0.0, 0.0),
        (0.0, -1.0, -0.0, -0.0),
        (-4.0, 2.0, -2.0, 0.0),
        (4.0, -2.0, -2.0, -0.0),
        (1e308, 1e-308, INF, 3.498445546245627e-309),
        (7.5, 2.5, 3.0, 0.0),
        (-7.5, 2.0, -4.0, 0.5),
        (0.1, 0.01, 10.0, 3.469446951953614e-18),
        (NAN, 1.0, NAN, NAN),
        (1.0, NAN, NAN, NAN),
    ];

    #[test]
    fn floor_division_and_modulo_follow_python() {
        for &(a, b, q, r) in DIVMOD {
            let fq = f(BinOp::FloorDiv, a, b).unwrap();
            let fr = f(BinOp::Mod, a, b).unwrap();
            assert!(same(fq, q), "{a} // {b} = {fq}, expected {q}");
            assert!(same(fr, r), "{a} % {b} = {fr}, expected {r}");
        }
    }

    #[test]
    fn basic_arithmetic_is_ieee() {
        assert_eq!(f(BinOp::Add, 0.1, 0.2), Ok(0.30000000000000004));
        assert_eq!(f(BinOp::Sub, 1.0, 3.0), Ok(-2.0));
        assert_eq!(f(BinOp::Mul, 1e308, 10.0), Ok(INF));
        assert_eq!(f(BinOp::Div, 10.0, 0.5), Ok(20.0));
        assert!(f(BinOp::Sub, INF, INF).unwrap().is_nan());
    }

    /// (a, b, a ** b), ground truth from python3.
    const POW: &[(f64, f64, f64)] = &[
        (2.0, 10.0, 1024.0),
        (2.0, 0.5, std::f64::consts::SQRT_2),
        (-2.0, 3.0, -8.0),
        (-2.0, 2.0, 4.0),
        (-8.0, 3.0, -512.0),
        (0.0, 0.0, 1.0),
        (NAN, 0.0, 1.0),
        (1.0, NAN, 1.0),
        (NAN, 1.0, NAN),
        (2.0, NAN, NAN),
        (-1.0, INF, 1.0),
        (0.5, INF, 0.0),
        (2.0, INF, INF),
        (0.5, -INF, INF),
        (2.0, -INF, 0.0),
        (INF, 2.0, INF),
        (-INF, 3.0, -INF),
        (-INF, 2.0, INF),
        (-INF, -3.0, -0.0),
        (-INF, -2.0, 0.0),
        (INF, -1.0, 0.0),
        (0.0, 3.0, 0.0),
        (-0.0, 3.0, -0.0),
        (-0.0, 2.0, 0.0),
        (-1.0, 1e300, 1.0),
        (-2.0, -1075.0, -0.0),
        (2.0, -1074.0, 5e-324),
        (2.0, -1075.0, 0.0),
        (10.0, -310.0, 1e-310),
        (2.0, 1023.999, 1.796447500688184e308),
    ];

    #[test]
    fn power_follows_cpython() {
        for &(a, b, r) in POW {
            let got = f(BinOp::Pow, a, b).unwrap();
            assert!(same(got, r), "{a} ** {b} = {got}, expected {r}");
        }
    }

    #[test]
    fn power_errors() {
        assert_eq!(
            err64(BinOp::Pow, 0.0, -1.0),
            "ZeroDivisionError: 0.0 cannot be raised to a negative power"
        );
        assert_eq!(
            err64(BinOp::Pow, -0.0, -INF),
            "ZeroDivisionError: 0.0 cannot be raised to a negative power"
        );
        assert_eq!(
            err64(BinOp::Pow, -8.0, 1.0 / 3.0),
            "ValueError: math domain error"
        );
        assert_eq!(err64(BinOp::Pow, -INF, 0.5), "ValueError: math domain error");
        assert_eq!(
            err64(BinOp::Pow, 10.0, 400.0),
            "OverflowError: (34, 'Numerical result out of range')"
        );
        assert_eq!(
            err64(BinOp::Pow, -10.0, 401.0),
            "OverflowError: (34, 'Numerical result out of range')"
        );
        assert_eq!(
            err64(BinOp::Pow, 2.0, 1024.0),
            "OverflowError: (34, 'Numerical result out of range')"
        );
        // Negative base with an infinite exponent is fine.
        assert_eq!(f(BinOp::Pow, -2.0, INF), Ok(INF));
    }

    #[test]
    fn f32_is_computed_in_f32() {
        assert_eq!(g(BinOp::Add, 0.1, 0.2), Ok(0.3));
        assert_eq!(g(BinOp::Mul, 3.0e38, 10.0), Ok(f32::INFINITY));
        assert_eq!(g(BinOp::Add, 16777216.0, 1.0), Ok(16777216.0));
        assert_eq!(g(BinOp::Div, 1.0, 3.0), Ok(1.0 / 3.0f32));
        assert_eq!(g(BinOp::FloorDiv, -7.0, 2.0), Ok(-4.0));
        assert_eq!(g(BinOp::Mod, -7.0, 2.0), Ok(1.0));
        assert_eq!(g(BinOp::Mod, 7.0, -2.0), Ok(-1.0));
        assert_eq!(g(BinOp::Mod, -5.0, f32::INFINITY), Ok(f32::INFINITY));
        assert_eq!(g(BinOp::Mod, 5.0, f32::NEG_INFINITY), Ok(f32::NEG_INFINITY));
        // C semantics: an exact zero keeps the dividend's sign.
        assert!(g(BinOp::Mod, -4.0, 2.0).unwrap().is_sign_negative());
        // floorf(-5 / inf) = floorf(-0.0) = -0.0 (Python f64 gives -1.0).
        let q = g(BinOp::FloorDiv, -5.0, f32::INFINITY).unwrap();
        assert!(q == 0.0 && q.is_sign_negative());
        assert_eq!(g(BinOp::Pow, 2.0, 10.0), Ok(1024.0));
        assert_eq!(g(BinOp::Pow, 10.0, 39.0), Ok(f32::INFINITY));
        assert_eq!(
            g(BinOp::Pow, 0.0, -1.0).unwrap_err().headline(),
            "ZeroDivisionError: 0.0 cannot be raised to a negative power"
        );
        assert_eq!(
            g(BinOp::Pow, -2.0, 0.5).unwrap_err().headline(),
            "ValueError: math domain error"
        );
    }

    #[test]
    fn comparisons_and_negation() {
        let c = |op, a, b| cmpop(op, Scalar::F64(a), Scalar::F64(b)).unwrap();
        assert_eq!(c(CmpOp::Eq, NAN, NAN), Scalar::Bool(false));
        assert_eq!(c(CmpOp::NotEq, NAN, NAN), Scalar::Bool(true));
        assert_eq!(c(CmpOp::Eq, 0.0, -0.0), Scalar::Bool(true));
        assert_eq!(c(CmpOp::Lt, -INF, 0.0), Scalar::Bool(true));
        assert_eq!(c(CmpOp::GtE, NAN, 0.0), Scalar::Bool(false));
        assert_eq!(
            cmpop(CmpOp::LtE, Scalar::F32(1.0), Scalar::F32(1.0)),
            Ok(Scalar::Bool(true))
        );
        let Ok(Scalar::F64(z)) = unaryop(UnaryOp::Neg, Scalar::F64(0.0)) else {
            panic!()
        };
        assert!(z.is_sign_negative());
        assert_eq!(unaryop(UnaryOp::Neg, Scalar::F32(1.5)), Ok(Scalar::F32(-1.5)));
        assert_eq!(
            unaryop(UnaryOp::Pos, Scalar::F64(1.5)).unwrap_err().headline(),
            "WIP: Operator not implemented yet: +"
        );
    }

    #[test]
    fn bitwise_ops_do_not_exist_on_floats() {
        assert_eq!(
            err64(BinOp::BitAnd, 1.0, 1.0),
            "TypeError: cannot do `f64` & `f64`"
        );
        assert_eq!(
            g(BinOp::LShift, 1.0, 1.0).unwrap_err().headline(),
            "TypeError: cannot do `f32` << `f32`"
        );
        assert_eq!(
            binop(BinOp::Add, Scalar::F32(1.0), Scalar::F64(1.0))
                .unwrap_err()
                .headline(),
            "TypeError: cannot do `f32` + `f64`"
        );
    }
}
