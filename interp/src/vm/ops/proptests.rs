//! Property tests of the ops layer against independent references: native
//! Rust wrapping arithmetic and exact `i128` math for the integer ops, and
//! round-tripping for the float formats.

use proptest::prelude::*;

use super::format::{format_f32, format_f64};
use super::{convert::parse_int_str, int, PrimTy, Scalar};
use crate::syntax::ast::{BinOp, CmpOp};

/// Python's floor division on exact values, written with `div_euclid`
/// (a different formulation from `int::floor_div`).
fn ref_floor_div(a: i128, b: i128) -> i128 {
    if b > 0 {
        a.div_euclid(b)
    } else {
        (-a).div_euclid(-b)
    }
}

macro_rules! int_props {
    ($name:ident, $t:ty, $variant:ident) => {
        #[allow(irrefutable_let_patterns)] // `try_from(u32)` is infallible for wide types
        mod $name {
            use super::*;

            fn s(v: $t) -> Scalar {
                Scalar::$variant(v)
            }

            fn run(op: BinOp, a: $t, b: $t) -> Result<Scalar, String> {
                int::binop(op, s(a), s(b)).map_err(|e| e.headline())
            }

            proptest! {
                #[test]
                fn ring_ops_wrap(a: $t, b: $t) {
                    prop_assert_eq!(run(BinOp::Add, a, b), Ok(s(a.wrapping_add(b))));
                    prop_assert_eq!(run(BinOp::Sub, a, b), Ok(s(a.wrapping_sub(b))));
                    prop_assert_eq!(run(BinOp::Mul, a, b), Ok(s(a.wrapping_mul(b))));
                    prop_assert_eq!(run(BinOp::BitAnd, a, b), Ok(s(a & b)));
                    prop_assert_eq!(run(BinOp::BitOr, a, b), Ok(s(a | b)));
                    prop_assert_eq!(run(BinOp::BitXor, a, b), Ok(s(a ^ b)));
                }

                #[test]
                fn floor_div_and_mod_match_exact_math(a: $t, b: $t) {
                    let (x, y) = (i128::from(a), i128::from(b));
                    if y == 0 {
                        prop_assert!(run(BinOp::FloorDiv, a, b).is_err());
                        prop_assert!(run(BinOp::Mod, a, b).is_err());
                        prop_assert!(run(BinOp::Div, a, b).is_err());
                    } else {
                        let q = ref_floor_div(x, y);
                        let r = x - y * q;
                        prop_assert_eq!(run(BinOp::FloorDiv, a, b), Ok(s(q as $t)));
                        prop_assert_eq!(run(BinOp::Mod, a, b), Ok(s(r as $t)));
                    }
                }

                #[test]
                fn true_div_is_nearest_double(a: $t, b: $t) {
                    prop_assume!(b != 0);
                    let Ok(Scalar::F64(q)) = run(BinOp::Div, a, b) else {
                        return Err(TestCaseError::fail("not an f64"));
                    };
                    let (x, y) = (i128::from(a), i128::from(b));
                    if x.unsigned_abs() < (1 << 53) && y.unsigned_abs() < (1 << 53) {
                        prop_assert_eq!(q, x as f64 / y as f64);
                    } else {
                        // Sanity only (exactness is checked by
                        // `true_div_exact_cases` below): within 2 ulps of
                        // the doubly-rounded quotient.
                        let approx = x as f64 / y as f64;
                        let ulp = f64::from_bits(approx.abs().to_bits() + 1) - approx.abs();
                        prop_assert!((q - approx).abs() <= 2.0 * ulp, "{} vs {}", q, approx);
                    }
                }

                #[test]
                fn true_div_exact_cases(q0: i32, y in 1i64..1_000_000, k in 0u32..64) {
                    // An exact integer quotient rounds once.
                    let x = i128::from(q0) * i128::from(y);
                    let (Ok(a), Ok(b)) = (<$t>::try_from(x), <$t>::try_from(y)) else {
                        return Ok(());
                    };
                    prop_assert_eq!(run(BinOp::Div, a, b), Ok(Scalar::F64(f64::from(q0))));
                    // Dividing by a power of two only rescales the rounded
                    // dividend.
                    if let Ok(p) = <$t>::try_from(1i128 << k) {
                        let a = <$t>::try_from(x).unwrap_or(<$t>::MAX);
                        let expected = (i128::from(a) as f64) / (i128::from(p) as f64);
                        prop_assert_eq!(run(BinOp::Div, a, p), Ok(Scalar::F64(expected)));
                    }
                }

                #[test]
                fn pow_matches_repeated_multiplication(
                    a: $t,
                    e in 0u32..u32::try_from(<$t>::MAX).unwrap_or(300).min(300),
                ) {
                    let mut expected: $t = 1;
                    for _ in 0..e {
                        expected = expected.wrapping_mul(a);
                    }
                    let Ok(b) = <$t>::try_from(e) else { return Ok(()) };
                    prop_assert_eq!(run(BinOp::Pow, a, b), Ok(s(expected)));
                }

                #[test]
                fn shifts_match_exact_math(a: $t, c in 0u32..200) {
                    let bits = <$t>::BITS;
                    let Ok(count) = <$t>::try_from(c) else { return Ok(()) };
                    let shl = if c >= bits { 0 } else { (i128::from(a) << c) as $t };
                    let shr = if c >= bits {
                        if i128::from(a) < 0 { !0 } else { 0 }
                    } else {
                        a >> c
                    };
                    prop_assert_eq!(run(BinOp::LShift, a, count), Ok(s(shl)));
                    prop_assert_eq!(run(BinOp::RShift, a, count), Ok(s(shr)));
                }

                #[test]
                fn comparisons_match_native(a: $t, b: $t) {
                    let c = |op| int::cmpop(op, s(a), s(b)).unwrap();
                    prop_assert_eq!(c(CmpOp::Lt), Scalar::Bool(a < b));
                    prop_assert_eq!(c(CmpOp::LtE), Scalar::Bool(a <= b));
                    prop_assert_eq!(c(CmpOp::Gt), Scalar::Bool(a > b));
                    prop_assert_eq!(c(CmpOp::GtE), Scalar::Bool(a >= b));
                    prop_assert_eq!(c(CmpOp::Eq), Scalar::Bool(a == b));
                    prop_assert_eq!(c(CmpOp::NotEq), Scalar::Bool(a != b));
                }

                #[test]
                fn decimal_text_round_trips(a: $t) {
                    let t = Scalar::$variant(a).ty();
                    prop_assert_eq!(parse_int_str(&a.to_string(), t), Ok(s(a)));
                    prop_assert_eq!(Scalar::$variant(a).to_string(), a.to_string());
                }
            }
        }
    };
}

int_props!(i8_props, i8, I8);
int_props!(u8_props, u8, U8);
int_props!(i32_props, i32, I32);
int_props!(u32_props, u32, U32);
int_props!(i64_props, i64, I64);
int_props!(u64_props, u64, U64);

proptest! {
    #[test]
    fn f64_repr_round_trips(bits: u64) {
        let x = f64::from_bits(bits);
        let s = format_f64(x);
        if x.is_nan() {
            prop_assert_eq!(s, "nan");
        } else if x.is_infinite() {
            prop_assert_eq!(s, if x > 0.0 { "inf" } else { "-inf" });
        } else {
            let back: f64 = s.parse().unwrap();
            prop_assert_eq!(back.to_bits(), x.to_bits(), "{}", s);
            prop_assert!(s.contains('.') || s.contains('e'), "{}", s);
        }
    }

    #[test]
    fn f64_repr_round_trips_human_scale(m in -1_000_000i64..1_000_000, e in -12i32..25) {
        let x = m as f64 * 10f64.powi(e);
        let back: f64 = format_f64(x).parse().unwrap();
        prop_assert_eq!(back, x);
    }

    #[test]
    fn f32_str_has_seven_significant_digits(bits: u32) {
        let x = f32::from_bits(bits);
        prop_assume!(x.is_finite());
        let s = format_f32(x);
        let back: f64 = s.parse().unwrap();
        let exact = f64::from(x);
        // %.7g keeps 7 significant digits: relative error at most 5e-7.
        prop_assert!((back - exact).abs() <= exact.abs() * 5.000001e-7, "{} vs {}", s, exact);
        let mantissa = s.split('e').next().unwrap_or("");
        let digits = mantissa.chars().filter(char::is_ascii_digit).count();
        prop_assert!(digits <= 7 || mantissa.starts_with("0.") || mantissa.starts_with("-0."), "{}", s);
    }

    #[test]
    fn int_str_accepts_underscores_between_digits(v in 0u64..u64::MAX) {
        let digits = v.to_string();
        let with_underscores: String = digits
            .chars()
            .enumerate()
            .flat_map(|(i, c)| (i > 0 && i % 3 == 0).then_some('_').into_iter().chain([c]))
            .collect();
        prop_assert_eq!(parse_int_str(&with_underscores, PrimTy::U64), Ok(Scalar::U64(v)));
        prop_assert_eq!(
            parse_int_str(&format!("  +{digits}\n"), PrimTy::U64),
            Ok(Scalar::U64(v))
        );
    }
}
