//! Operator dispatch on primitive types: the type-level tables of upstream's
//! `binop.py` / `unaryop.py` multimethods (which `(op, Ta, Tb)` exist, which
//! implementation they select, what they return), and value-level entry
//! points that look up the table, convert the operands and run the op.
//!
//! The tables are pure and value-free, so the type checker, redshift and the
//! JIT can ask "does `i8 + i32` exist?" without a value in hand.
//!
//! Same-type tables:
//! - integers (`i8 u8 i32 u32 i64 u64`): `+ - * / // % ** << >> & | ^` and
//!   the six comparisons; `/` returns `f64`, everything else the operand type.
//! - floats (`f32`, `f64`): `+ - * / // % **` and the six comparisons.
//! - `bool`: `& | ^` and the six comparisons.
//!
//! Mixed tables (§3.5): `f64` with any of `i8 u8 u32 i32 f32` (either side)
//! and `f32` with `i32` (either side), for `+ - * / **` and the comparisons;
//! both operands are converted to the float type. Nothing else mixes: no
//! mixed `//`/`%`, no `i64`/`u64` with floats, no mixed-width ints.
//!
//! `@` never dispatches (`WIP: Operator not implemented yet: @`); neither do
//! unary `+`/`~` nor `not in`. `is`/`is not` between value types and `in` on
//! primitives are type errors (the caller adds the upstream note).

use super::convert::{convert, implicit_convertible};
use super::{
    bool as bool_ops, cannot_do_binop, cannot_do_cmpop, cannot_do_unaryop, float, int,
    operator_not_implemented, OpError, PrimTy, Scalar,
};
use crate::error::ExcKind;
use crate::syntax::ast::{BinOp, CmpOp, UnaryOp};

/// The selected implementation of a binary operator: both operands are
/// converted to `operand`, and the op returns a `result`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct BinSig {
    pub operand: PrimTy,
    pub result: PrimTy,
}

/// The float type `a` and `b` meet at in the mixed int/float tables.
fn mixed_float(a: PrimTy, b: PrimTy) -> Option<PrimTy> {
    use PrimTy::*;
    let mixes_with_f64 = |t: PrimTy| matches!(t, I8 | U8 | U32 | I32 | F32);
    match (a, b) {
        (F64, t) | (t, F64) if mixes_with_f64(t) => Some(F64),
        (F32, I32) | (I32, F32) => Some(F32),
        _ => None,
    }
}

/// Which `a OP b` exists on primitives, and with which operand/result type.
pub fn binop_signature(op: BinOp, a: PrimTy, b: PrimTy) -> Option<BinSig> {
    use BinOp::*;
    let sig = |operand: PrimTy, result: PrimTy| Some(BinSig { operand, result });
    if a == b {
        let t = a;
        return match op {
            MatMul => None,
            Div if t.is_int() => sig(t, PrimTy::F64),
            Add | Sub | Mul | Div | FloorDiv | Mod | Pow if t.is_int() || t.is_float() => sig(t, t),
            LShift | RShift | BitAnd | BitOr | BitXor if t.is_int() => sig(t, t),
            BitAnd | BitOr | BitXor if t == PrimTy::Bool => sig(t, t),
            _ => None,
        };
    }
    match op {
        Add | Sub | Mul | Div | Pow => mixed_float(a, b).map(|f| BinSig {
            operand: f,
            result: f,
        }),
        _ => None,
    }
}

/// Which comparison `a OP b` exists on primitives. The result is `bool`.
/// `is`, `is not`, `in` and `not in` never dispatch on primitives.
pub fn cmpop_signature(op: CmpOp, a: PrimTy, b: PrimTy) -> Option<BinSig> {
    match op {
        CmpOp::Eq | CmpOp::NotEq | CmpOp::Lt | CmpOp::LtE | CmpOp::Gt | CmpOp::GtE => {}
        CmpOp::Is | CmpOp::IsNot | CmpOp::In | CmpOp::NotIn => return None,
    }
    let operand = if a == b { a } else { mixed_float(a, b)? };
    Some(BinSig {
        operand,
        result: PrimTy::Bool,
    })
}

/// Which `OP a` exists, and its result type.
///
/// - `-x` exists for `i8 i32 i64 f32 f64` only (not for unsigned types).
/// - `not x` converts `x` to `bool` with the standard implicit conversion
///   (so it exists for `bool` and `i32`) and returns `bool`. For any other
///   type the upstream error is the conversion's `TypeError: mismatched
///   types` (annotation `` expected `bool`, got `f64` ``, added by the
///   evaluator).
/// - `+x` and `~x` are not implemented upstream: `None`, and the caller
///   raises `WIP: Operator not implemented yet: +` (see [`unaryop`]).
pub fn unaryop_signature(op: UnaryOp, t: PrimTy) -> Option<PrimTy> {
    use PrimTy::*;
    match op {
        UnaryOp::Neg if matches!(t, I8 | I32 | I64 | F32 | F64) => Some(t),
        UnaryOp::Not if implicit_convertible(t, Bool) => Some(Bool),
        _ => None,
    }
}

/// Run one same-typed binary op on the family of `operand`.
/// `a op b` for operands already converted to `operand` (the signature's).
pub fn run_binop(op: BinOp, operand: PrimTy, a: Scalar, b: Scalar) -> Result<Scalar, OpError> {
    if operand.is_int() {
        int::binop(op, a, b)
    } else if operand.is_float() {
        float::binop(op, a, b)
    } else {
        bool_ops::binop(op, a, b)
    }
}

/// `a OP b` on primitive values with full dispatch: table lookup, operand
/// conversion, then the same-typed op. Errors are upstream's wording:
/// `` TypeError: cannot do `i8` + `i32` ``, the ZeroDivisionErrors, ...
pub fn binop(op: BinOp, a: Scalar, b: Scalar) -> Result<Scalar, OpError> {
    if op == BinOp::MatMul {
        return Err(operator_not_implemented(op.symbol()));
    }
    let sig = binop_signature(op, a.ty(), b.ty()).ok_or_else(|| cannot_do_binop(op, a.ty(), b.ty()))?;
    let (a, b) = (convert(a, sig.operand), convert(b, sig.operand));
    run_binop(op, sig.operand, a, b)
}

/// `a OP b` comparison on primitive values with full dispatch.
pub fn cmpop(op: CmpOp, a: Scalar, b: Scalar) -> Result<Scalar, OpError> {
    let sig = cmpop_signature(op, a.ty(), b.ty()).ok_or_else(|| cannot_do_cmpop(op, a.ty(), b.ty()))?;
    let (a, b) = (convert(a, sig.operand), convert(b, sig.operand));
    run_cmpop(op, sig.operand, a, b)
}

/// `OP a` on a primitive value. `not` converts its operand to `bool` first
/// (see [`unaryop_signature`]); unary `+`/`~` are `WIP`.
pub fn unaryop(op: UnaryOp, a: Scalar) -> Result<Scalar, OpError> {
    if matches!(op, UnaryOp::Pos | UnaryOp::Invert) {
        return Err(operator_not_implemented(op.symbol()));
    }
    let t = a.ty();
    if op == UnaryOp::Not {
        if !implicit_convertible(t, PrimTy::Bool) {
            return Err(OpError::new(ExcKind::TypeError, "mismatched types"));
        }
        return bool_ops::unaryop(op, convert(a, PrimTy::Bool));
    }
    unaryop_signature(op, t).ok_or_else(|| cannot_do_unaryop(op, t))?;
    if t.is_int() {
        int::unaryop(op, a)
    } else if t.is_float() {
        float::unaryop(op, a)
    } else {
        bool_ops::unaryop(op, a)
    }
}

/// `a op b` for operands already converted to `operand` (the signature's).
pub fn run_cmpop(op: CmpOp, operand: PrimTy, a: Scalar, b: Scalar) -> Result<Scalar, OpError> {
    if operand.is_int() {
        int::cmpop(op, a, b)
    } else if operand.is_float() {
        float::cmpop(op, a, b)
    } else {
        bool_ops::cmpop(op, a, b)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use PrimTy::*;

    fn sig(operand: PrimTy, result: PrimTy) -> Option<BinSig> {
        Some(BinSig { operand, result })
    }

    #[test]
    fn same_type_int_table() {
        for t in [I8, U8, I32, U32, I64, U64] {
            for op in BinOp::ALL {
                let expected = match op {
                    BinOp::MatMul => None,
                    BinOp::Div => sig(t, F64),
                    _ => sig(t, t),
                };
                assert_eq!(binop_signature(op, t, t), expected, "{op:?} {t}");
            }
        }
    }

    #[test]
    fn same_type_float_and_bool_tables() {
        for t in [F32, F64] {
            for op in BinOp::ALL {
                let has = matches!(
                    op,
                    BinOp::Add
                        | BinOp::Sub
                        | BinOp::Mul
                        | BinOp::Div
                        | BinOp::FloorDiv
                        | BinOp::Mod
                        | BinOp::Pow
                );
                assert_eq!(
                    binop_signature(op, t, t),
                    has.then_some(BinSig {
                        operand: t,
                        result: t
                    })
                );
            }
        }
        for op in BinOp::ALL {
            let has = matches!(op, BinOp::BitAnd | BinOp::BitOr | BinOp::BitXor);
            assert_eq!(
                binop_signature(op, Bool, Bool),
                has.then_some(BinSig {
                    operand: Bool,
                    result: Bool
                })
            );
        }
    }

    #[test]
    fn mixed_table_is_exactly_section_3_5() {
        let mixed_ops = [BinOp::Add, BinOp::Sub, BinOp::Mul, BinOp::Div, BinOp::Pow];
        let mut count = 0;
        for a in PrimTy::ALL {
            for b in PrimTy::ALL {
                if a == b {
                    continue;
                }
                let expected_float = match (a, b) {
                    (F64, I8 | U8 | U32 | I32 | F32) | (I8 | U8 | U32 | I32 | F32, F64) => Some(F64),
                    (F32, I32) | (I32, F32) => Some(F32),
                    _ => None,
                };
                for op in BinOp::ALL {
                    let got = binop_signature(op, a, b);
                    let expected = expected_float
                        .filter(|_| mixed_ops.contains(&op))
                        .map(|f| BinSig {
                            operand: f,
                            result: f,
                        });
                    assert_eq!(got, expected, "{a} {op:?} {b}");
                    count += usize::from(got.is_some());
                }
                for op in CmpOp::ALL {
                    let got = cmpop_signature(op, a, b);
                    let is_cmp = matches!(
                        op,
                        CmpOp::Eq | CmpOp::NotEq | CmpOp::Lt | CmpOp::LtE | CmpOp::Gt | CmpOp::GtE
                    );
                    let expected = expected_float.filter(|_| is_cmp).map(|f| BinSig {
                        operand: f,
                        result: Bool,
                    });
                    assert_eq!(got, expected, "{a} {op:?} {b}");
                }
            }
        }
        // 12 ordered pairs (5 partners of f64 and 1 of f32, both sides) × 5 ops.
        assert_eq!(count, 12 * 5);
    }

    #[test]
    fn comparisons_on_every_same_type() {
        for t in PrimTy::ALL {
            assert_eq!(cmpop_signature(CmpOp::Lt, t, t), sig(t, Bool));
            assert_eq!(cmpop_signature(CmpOp::Is, t, t), None);
            assert_eq!(cmpop_signature(CmpOp::In, t, t), None);
        }
    }

    #[test]
    fn unary_table() {
        for t in PrimTy::ALL {
            let neg = matches!(t, I8 | I32 | I64 | F32 | F64);
            assert_eq!(unaryop_signature(UnaryOp::Neg, t), neg.then_some(t));
            assert_eq!(unaryop_signature(UnaryOp::Pos, t), None);
            assert_eq!(unaryop_signature(UnaryOp::Invert, t), None);
            let not = matches!(t, Bool | I32);
            assert_eq!(unaryop_signature(UnaryOp::Not, t), not.then_some(Bool));
        }
    }

    #[test]
    fn value_dispatch_converts_operands() {
        assert_eq!(
            binop(BinOp::Add, Scalar::F64(1.5), Scalar::I32(2)),
            Ok(Scalar::F64(3.5))
        );
        assert_eq!(
            binop(BinOp::Div, Scalar::I32(10), Scalar::F64(0.5)),
            Ok(Scalar::F64(20.0))
        );
        assert_eq!(
            binop(BinOp::Pow, Scalar::U8(2), Scalar::F64(0.5)),
            Ok(Scalar::F64(std::f64::consts::SQRT_2))
        );
        assert_eq!(
            binop(BinOp::Mul, Scalar::I32(3), Scalar::F32(0.5)),
            Ok(Scalar::F32(1.5))
        );
        assert_eq!(
            binop(BinOp::Add, Scalar::F32(0.5), Scalar::F64(0.25)),
            Ok(Scalar::F64(0.75))
        );
        assert_eq!(
            cmpop(CmpOp::Eq, Scalar::I32(2), Scalar::F64(2.0)),
            Ok(Scalar::Bool(true))
        );
        assert_eq!(
            cmpop(CmpOp::Lt, Scalar::U32(u32::MAX), Scalar::F64(4294967296.0)),
            Ok(Scalar::Bool(true))
        );
        assert_eq!(
            binop(BinOp::Div, Scalar::I32(7), Scalar::I32(2)),
            Ok(Scalar::F64(3.5))
        );
        assert_eq!(
            binop(BinOp::Div, Scalar::F64(1.0), Scalar::I32(0))
                .unwrap_err()
                .headline(),
            "ZeroDivisionError: float division by zero"
        );
    }

    #[test]
    fn value_dispatch_errors() {
        let e = |r: Result<Scalar, OpError>| r.unwrap_err().headline();
        assert_eq!(
            e(binop(BinOp::FloorDiv, Scalar::I32(7), Scalar::F64(2.0))),
            "TypeError: cannot do `i32` // `f64`"
        );
        assert_eq!(
            e(binop(BinOp::Add, Scalar::I64(1), Scalar::I32(1))),
            "TypeError: cannot do `i64` + `i32`"
        );
        assert_eq!(
            e(binop(BinOp::Add, Scalar::I64(1), Scalar::F64(1.0))),
            "TypeError: cannot do `i64` + `f64`"
        );
        assert_eq!(
            e(binop(BinOp::Add, Scalar::F32(1.0), Scalar::U8(1))),
            "TypeError: cannot do `f32` + `u8`"
        );
        assert_eq!(
            e(binop(BinOp::Add, Scalar::Bool(true), Scalar::I32(1))),
            "TypeError: cannot do `bool` + `i32`"
        );
        assert_eq!(
            e(binop(BinOp::MatMul, Scalar::I32(1), Scalar::I32(1))),
            "WIP: Operator not implemented yet: @"
        );
        assert_eq!(
            e(cmpop(CmpOp::Eq, Scalar::U8(1), Scalar::I32(1))),
            "TypeError: cannot do `u8` == `i32`"
        );
        assert_eq!(
            e(cmpop(CmpOp::Is, Scalar::I32(1), Scalar::I32(1))),
            "TypeError: cannot do `i32` is `i32`"
        );
        // `not in` is `in`'s negation (spec §6): no primitive contains another
        assert_eq!(
            e(cmpop(CmpOp::NotIn, Scalar::I32(1), Scalar::I32(1))),
            "TypeError: cannot do `i32` not in `i32`"
        );
        assert_eq!(
            e(unaryop(UnaryOp::Neg, Scalar::U8(1))),
            "TypeError: cannot do -`u8`"
        );
        assert_eq!(
            e(unaryop(UnaryOp::Invert, Scalar::U8(1))),
            "WIP: Operator not implemented yet: ~"
        );
        assert_eq!(unaryop(UnaryOp::Not, Scalar::I32(5)), Ok(Scalar::Bool(false)));
        assert_eq!(unaryop(UnaryOp::Not, Scalar::I32(0)), Ok(Scalar::Bool(true)));
        assert_eq!(
            e(unaryop(UnaryOp::Not, Scalar::F64(1.5))),
            "TypeError: mismatched types"
        );
        assert_eq!(
            e(unaryop(UnaryOp::Not, Scalar::I8(1))),
            "TypeError: mismatched types"
        );
        assert_eq!(unaryop(UnaryOp::Not, Scalar::Bool(true)), Ok(Scalar::Bool(false)));
        assert_eq!(unaryop(UnaryOp::Neg, Scalar::F64(2.0)), Ok(Scalar::F64(-2.0)));
    }
}
