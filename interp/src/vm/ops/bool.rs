//! `bool` operations, as upstream's `opimpl_bool.py`: `& | ^` and the six
//! comparisons between two bools (with `False < True`), plus `not`. There is
//! no arithmetic on bools and no bool→int conversion.

use super::{cannot_do_binop, cannot_do_cmpop, cannot_do_unaryop, operator_not_implemented, OpError, Scalar};
use crate::syntax::ast::{BinOp, CmpOp, UnaryOp};

/// `a & b`, `a | b`, `a ^ b` for two bools.
pub fn binop(op: BinOp, a: Scalar, b: Scalar) -> Result<Scalar, OpError> {
    let (Scalar::Bool(x), Scalar::Bool(y)) = (a, b) else {
        return Err(cannot_do_binop(op, a.ty(), b.ty()));
    };
    match op {
        BinOp::BitAnd => Ok(Scalar::Bool(x && y)),
        BinOp::BitOr => Ok(Scalar::Bool(x || y)),
        BinOp::BitXor => Ok(Scalar::Bool(x != y)),
        BinOp::MatMul => Err(operator_not_implemented(op.symbol())),
        _ => Err(cannot_do_binop(op, a.ty(), b.ty())),
    }
}

/// Comparisons of two bools.
pub fn cmpop(op: CmpOp, a: Scalar, b: Scalar) -> Result<Scalar, OpError> {
    let (Scalar::Bool(x), Scalar::Bool(y)) = (a, b) else {
        return Err(cannot_do_cmpop(op, a.ty(), b.ty()));
    };
    let r = match op {
        CmpOp::Eq => x == y,
        CmpOp::NotEq => x != y,
        CmpOp::Lt => !x && y,
        CmpOp::LtE => !x || y,
        CmpOp::Gt => x && !y,
        CmpOp::GtE => x || !y,
        CmpOp::Is | CmpOp::IsNot | CmpOp::In | CmpOp::NotIn => {
            return Err(cannot_do_cmpop(op, a.ty(), b.ty()))
        }
    };
    Ok(Scalar::Bool(r))
}

/// `not a` for a bool (the caller converts other operands to bool first).
pub fn unaryop(op: UnaryOp, a: Scalar) -> Result<Scalar, OpError> {
    match (op, a) {
        (UnaryOp::Not, Scalar::Bool(x)) => Ok(Scalar::Bool(!x)),
        (UnaryOp::Pos | UnaryOp::Invert, _) => Err(operator_not_implemented(op.symbol())),
        _ => Err(cannot_do_unaryop(op, a.ty())),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const T: Scalar = Scalar::Bool(true);
    const F: Scalar = Scalar::Bool(false);

    #[test]
    fn truth_tables() {
        let b = |op, x, y| binop(op, x, y).unwrap();
        assert_eq!(b(BinOp::BitAnd, T, F), F);
        assert_eq!(b(BinOp::BitAnd, T, T), T);
        assert_eq!(b(BinOp::BitOr, F, F), F);
        assert_eq!(b(BinOp::BitOr, F, T), T);
        assert_eq!(b(BinOp::BitXor, T, T), F);
        assert_eq!(b(BinOp::BitXor, T, F), T);
    }

    #[test]
    fn ordering_has_false_below_true() {
        let c = |op, x, y| cmpop(op, x, y).unwrap();
        // Reference: the order of bools as integers (False = 0, True = 1).
        for (x, y) in [(F, F), (F, T), (T, F), (T, T)] {
            let (Scalar::Bool(bx), Scalar::Bool(by)) = (x, y) else {
                unreachable!()
            };
            let (bx, by) = (u8::from(bx), u8::from(by));
            assert_eq!(c(CmpOp::Lt, x, y), Scalar::Bool(bx < by));
            assert_eq!(c(CmpOp::LtE, x, y), Scalar::Bool(bx <= by));
            assert_eq!(c(CmpOp::Gt, x, y), Scalar::Bool(bx > by));
            assert_eq!(c(CmpOp::GtE, x, y), Scalar::Bool(bx >= by));
            assert_eq!(c(CmpOp::Eq, x, y), Scalar::Bool(bx == by));
            assert_eq!(c(CmpOp::NotEq, x, y), Scalar::Bool(bx != by));
        }
    }

    #[test]
    fn no_arithmetic() {
        assert_eq!(
            binop(BinOp::Add, T, T).unwrap_err().headline(),
            "TypeError: cannot do `bool` + `bool`"
        );
        assert_eq!(
            binop(BinOp::BitAnd, T, Scalar::I32(1)).unwrap_err().headline(),
            "TypeError: cannot do `bool` & `i32`"
        );
        assert_eq!(
            unaryop(UnaryOp::Neg, T).unwrap_err().headline(),
            "TypeError: cannot do -`bool`"
        );
        assert_eq!(
            unaryop(UnaryOp::Not, Scalar::F64(1.0)).unwrap_err().headline(),
            "TypeError: cannot do not `f64`"
        );
    }

    #[test]
    fn not() {
        assert_eq!(unaryop(UnaryOp::Not, T), Ok(F));
        assert_eq!(unaryop(UnaryOp::Not, F), Ok(T));
    }
}
