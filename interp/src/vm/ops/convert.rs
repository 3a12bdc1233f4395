//! Conversions between primitive values.
//!
//! - Implicit conversions (§3.6 rule 3, upstream `convop.py` `MM.register
//!   ("convert", ...)`): applied when a value meets an expected type
//!   (assignment, argument, return, condition). Int narrowings wrap silently,
//!   `f64 → f32` rounds, `i32 → bool` is `!= 0`.
//! - Explicit conversions `T(x)` (§3.7, upstream `primitive.py` `w_NEW`):
//!   float → int truncates toward zero and saturates (NaN → 0); str → int is
//!   Python's `int(s)` ([`parse_int_str`]).
//!
//! Our decisions (see `spec/notes-ops-decisions.md`): `T(x)` with `x: T` is
//! the identity for every primitive `T` (upstream returns NULL from
//! `__new__`), and float → i32 saturates at the true bounds (upstream's
//! `w_f64_to_i32` uses `-(2**31) - 1` and so wraps `i32(-1e10)` to
//! `2147483647`).

use super::{unicode, OpError, PrimTy, Scalar};
use crate::error::ExcKind;
use crate::vm::rt_error::RuntimeError;

/// Whether a value of type `from` is implicitly converted where `to` is
/// expected. `from == to` is `true` (rule 1: nothing to do).
pub fn implicit_convertible(from: PrimTy, to: PrimTy) -> bool {
    use PrimTy::*;
    from == to
        || matches!(
            (from, to),
            (I8 | U8 | I32 | U32 | F32 | I64 | U64, F64)
                | (F64 | I32, F32)
                | (I32, Bool)
                | (I32, I8 | U8 | U32 | I64)
                | (I8 | U8 | U32, I32)
                | (I8 | U8 | U32, I64)
                | (I64, U64)
                | (U64, I64)
        )
}

/// Convert `value` to `to` with C-cast semantics: integers wrap to the
/// width, int → float rounds to nearest, float → int truncates and
/// saturates (NaN → 0), float → float rounds, anything → bool is `!= 0`,
/// bool → number is 0/1.
///
/// Total, so it never fails: it implements every implicit conversion
/// ([`implicit_convertible`]) and every allowed explicit numeric one
/// ([`explicit_convertible`]). Callers check the table first; for pairs
/// outside both tables the result is well defined but not SPy semantics.
pub fn convert(value: Scalar, to: PrimTy) -> Scalar {
    if value.ty() == to {
        return value;
    }
    if let (Scalar::I32(x), PrimTy::F64) = (value, to) {
        // exact, and the commonest case (no i128 detour)
        return Scalar::F64(f64::from(x));
    }
    if let Some(v) = value.as_i128() {
        return match to {
            PrimTy::F64 => Scalar::F64(int_to_f64(v)),
            PrimTy::F32 => Scalar::F32(int_to_f32(v)),
            PrimTy::Bool => Scalar::Bool(v != 0),
            // `to` is an integer type here, so `wrap_int` is `Some`.
            _ => Scalar::wrap_int(v, to).unwrap_or(value),
        };
    }
    match value {
        Scalar::F64(x) => float_to(x, to),
        // f32 → f64 is exact; then the f64 path rounds/saturates once.
        Scalar::F32(x) => float_to(f64::from(x), to),
        Scalar::Bool(b) => match to {
            PrimTy::F64 => Scalar::F64(if b { 1.0 } else { 0.0 }),
            PrimTy::F32 => Scalar::F32(if b { 1.0 } else { 0.0 }),
            // `to` is an integer type here, so `wrap_int` is `Some`.
            _ => Scalar::wrap_int(i128::from(b), to).unwrap_or(value),
        },
        _ => value,
    }
}

/// i128 → f64, round to nearest (ties to even), like Python's `float(int)`.
fn int_to_f64(v: i128) -> f64 {
    v as f64
}

/// i128 → f32, rounded once (not via f64), like C's `(float)` of an int.
fn int_to_f32(v: i128) -> f32 {
    v as f32
}

fn float_to(x: f64, to: PrimTy) -> Scalar {
    // `as` from float to int truncates toward zero, saturates at the
    // bounds and maps NaN to 0.
    match to {
        PrimTy::I8 => Scalar::I8(x as i8),
        PrimTy::U8 => Scalar::U8(x as u8),
        PrimTy::I32 => Scalar::I32(x as i32),
        PrimTy::U32 => Scalar::U32(x as u32),
        PrimTy::I64 => Scalar::I64(x as i64),
        PrimTy::U64 => Scalar::U64(x as u64),
        PrimTy::F32 => Scalar::F32(x as f32),
        PrimTy::F64 => Scalar::F64(x),
        PrimTy::Bool => Scalar::Bool(x != 0.0),
    }
}

/// Whether `to(x)` is accepted for `x` of primitive type `from` (argument
/// order as in the call: target first). Upstream's table plus the identity
/// `T(x: T)` (our decision). `bool(...)` accepts only a bool (upstream:
/// `bool` has no `__new__` at all).
pub fn explicit_convertible(to: PrimTy, from: PrimTy) -> bool {
    use PrimTy::*;
    to == from
        || match to {
            I32 => matches!(from, F64 | F32 | I8 | U8 | U32),
            I64 => matches!(from, F64 | F32 | I8 | U8 | I32 | U32 | U64),
            U64 => from == I64,
            I8 | U8 => from == I32,
            F64 => matches!(from, I32 | F32),
            F32 => matches!(from, I32 | F64),
            U32 | Bool => false,
        }
}

/// Whether `to(s)` is accepted for `s: str`: every integer type (Python
/// `int(s)` plus a range check). There is no `f64(str)` upstream.
pub fn explicit_convertible_from_str(to: PrimTy) -> bool {
    to.is_int()
}

/// `to(value)` for a primitive `value`.
///
/// Errors (for pairs outside [`explicit_convertible`]):
/// `` TypeError: cannot instantiate `bool` `` and otherwise
/// `` TypeError: cannot call objects of type `type` `` (upstream's message
/// when `__new__` returns NULL; the caller adds annotations).
pub fn explicit_convert(value: Scalar, to: PrimTy) -> Result<Scalar, OpError> {
    if explicit_convertible(to, value.ty()) {
        Ok(convert(value, to))
    } else if to == PrimTy::Bool {
        Err(OpError::new(ExcKind::TypeError, "cannot instantiate `bool`"))
    } else {
        Err(OpError::new(
            ExcKind::TypeError,
            "cannot call objects of type `type`",
        ))
    }
}

/// CPython's cap on the number of digits `int(str)` converts.
const MAX_STR_DIGITS: usize = crate::vm::rt_error::MAX_STR_DIGITS as usize;

/// `to(s)` for `s: str` and an integer type `to`: Python's `int(s)`, then a
/// range check (upstream `opimpl_str.py`).
///
/// Accepted like Python: surrounding whitespace (ASCII `" \t\n\v\f\r"` and
/// the Unicode spaces CPython maps to `' '`), one `+`/`-`, single `_`
/// between digits, any Unicode decimal digit (`"١٢"` is 12).
///
/// Errors:
/// - `ValueError: invalid literal for int() with base 10: 'hello'` (Python
///   `repr` of the string);
/// - `OverflowError: i32 value 2147483648 out of range [-2147483648, 2147483647]`;
/// - Python's `ValueError: Exceeds the limit (4300 digits) ...` past 4300 digits.
pub fn parse_int_str(s: &str, to: PrimTy) -> Result<Scalar, OpError> {
    let Some((lo, hi)) = to.int_bounds() else {
        return Err(OpError::new(
            ExcKind::TypeError,
            "cannot call objects of type `type`",
        ));
    };
    let (negative, digits) = parse_python_int(s)?;
    // `digits` has no leading zeros; "" is zero.
    let value = if digits.is_empty() {
        Some(0)
    } else if digits.len() <= 38 {
        digits.parse::<i128>().ok().map(|m| if negative { -m } else { m })
    } else {
        None
    };
    match value {
        // `to` has integer bounds, so `wrap_int` is `Some`.
        Some(v) if lo <= v && v <= hi => Ok(Scalar::wrap_int(v, to).unwrap_or(Scalar::I32(0))),
        _ => {
            let shown = match (negative, digits.is_empty()) {
                (_, true) => "0".to_string(),
                (true, false) => format!("-{digits}"),
                (false, false) => digits,
            };
            Err(RuntimeError::IntOutOfRange {
                ty: to,
                digits: shown,
            }
            .into())
        }
    }
}

/// Python `int(s)` in base 10 as `(negative, digits without leading zeros)`.
fn parse_python_int(s: &str) -> Result<(bool, String), OpError> {
    let invalid = || -> OpError {
        RuntimeError::InvalidIntLiteral {
            literal: s.to_string(),
        }
        .into()
    };
    // CPython first maps Unicode spaces to ' ' and Unicode decimal digits to
    // ASCII digits; any other non-ASCII char makes the literal invalid.
    let mut ascii = Vec::with_capacity(s.len());
    for c in s.chars() {
        if c.is_ascii() {
            ascii.push(c as u8);
        } else if unicode::is_python_space(c) {
            ascii.push(b' ');
        } else if let Some(d) = unicode::decimal_value(c) {
            ascii.push(b'0' + d);
        } else {
            return Err(invalid());
        }
    }
    let is_space = |b: u8| matches!(b, b' ' | b'\t' | b'\n' | 0x0b | 0x0c | b'\r');
    let mut i = 0;
    while i < ascii.len() && is_space(ascii[i]) {
        i += 1;
    }
    let mut negative = false;
    if i < ascii.len() && (ascii[i] == b'+' || ascii[i] == b'-') {
        negative = ascii[i] == b'-';
        i += 1;
    }
    let mut digits = String::new();
    let mut count = 0usize;
    if i >= ascii.len() || !ascii[i].is_ascii_digit() {
        return Err(invalid());
    }
    while i < ascii.len() {
        let b = ascii[i];
        if b.is_ascii_digit() {
            count += 1;
            if !(digits.is_empty() && b == b'0') {
                digits.push(char::from(b));
            }
            i += 1;
        } else if b == b'_' && i + 1 < ascii.len() && ascii[i + 1].is_ascii_digit() {
            i += 1;
        } else {
            break;
        }
    }
    if count > MAX_STR_DIGITS {
        return Err(RuntimeError::IntStrDigitsLimit { digits: count as u64 }.into());
    }
    while i < ascii.len() && is_space(ascii[i]) {
        i += 1;
    }
    if i != ascii.len() {
        return Err(invalid());
    }
    Ok((negative, digits))
}

#[cfg(test)]
mod tests {
    use super::*;
    use PrimTy::*;

    /// The 22 primitive entries of §3.6 rule 3.
    const IMPLICIT: [(PrimTy, PrimTy); 22] = [
        (I8, F64),
        (U8, F64),
        (I32, F64),
        (U32, F64),
        (F32, F64),
        (F64, F32),
        (I32, F32),
        (I32, Bool),
        (I32, I8),
        (I8, I32),
        (I32, U8),
        (U8, I32),
        (I32, U32),
        (U32, I32),
        (I8, I64),
        (U8, I64),
        (I32, I64),
        (U32, I64),
        (I64, F64),
        (U64, F64),
        (I64, U64),
        (U64, I64),
    ];

    #[test]
    fn implicit_table_is_exactly_the_upstream_list() {
        for from in PrimTy::ALL {
            for to in PrimTy::ALL {
                let expected = from == to || IMPLICIT.contains(&(from, to));
                assert_eq!(implicit_convertible(from, to), expected, "{from} -> {to}");
            }
        }
        // Notable absences.
        assert!(!implicit_convertible(F64, I32));
        assert!(!implicit_convertible(Bool, I32));
        assert!(!implicit_convertible(I32, U64));
        assert!(!implicit_convertible(I64, I32));
        assert!(!implicit_convertible(I8, U8));
        assert!(!implicit_convertible(I8, U32));
    }

    #[test]
    fn implicit_conversions_wrap_and_round() {
        assert_eq!(convert(Scalar::I32(128), I8), Scalar::I8(-128));
        assert_eq!(convert(Scalar::I32(266), U8), Scalar::U8(10));
        assert_eq!(convert(Scalar::I32(300), U8), Scalar::U8(44));
        assert_eq!(convert(Scalar::U8(255), I32), Scalar::I32(255));
        assert_eq!(convert(Scalar::U32(u32::MAX), I32), Scalar::I32(-1));
        assert_eq!(convert(Scalar::I32(-1), U32), Scalar::U32(u32::MAX));
        assert_eq!(convert(Scalar::I64(-1), U64), Scalar::U64(u64::MAX));
        assert_eq!(convert(Scalar::U64(u64::MAX), I64), Scalar::I64(-1));
        assert_eq!(convert(Scalar::I8(-5), I64), Scalar::I64(-5));
        assert_eq!(convert(Scalar::U32(u32::MAX), I64), Scalar::I64(4294967295));
        assert_eq!(convert(Scalar::I32(7), Bool), Scalar::Bool(true));
        assert_eq!(convert(Scalar::I32(0), Bool), Scalar::Bool(false));
        assert_eq!(convert(Scalar::I32(-3), F64), Scalar::F64(-3.0));
        assert_eq!(convert(Scalar::F64(0.1), F32), Scalar::F32(0.1));
        assert_eq!(convert(Scalar::F64(1e300), F32), Scalar::F32(f32::INFINITY));
        assert_eq!(convert(Scalar::F32(0.1), F64), Scalar::F64(f64::from(0.1f32)));
        assert_eq!(convert(Scalar::I32(16777217), F32), Scalar::F32(16777216.0));
        // Python float(2**63 - 1) and float(2**64 - 1): round to 2^63, 2^64.
        assert_eq!(
            convert(Scalar::I64(i64::MAX), F64),
            Scalar::F64(9.223372036854776e18)
        );
        assert_eq!(
            convert(Scalar::U64(u64::MAX), F64),
            Scalar::F64(1.8446744073709552e19)
        );
        // python3: float(2**53 + 1) == 9007199254740992.0 (ties to even)
        assert_eq!(
            convert(Scalar::I64((1 << 53) + 1), F64),
            Scalar::F64(9007199254740992.0)
        );
        assert_eq!(
            convert(Scalar::I64((1 << 53) + 3), F64),
            Scalar::F64(9007199254740996.0)
        );
    }

    #[test]
    fn explicit_table() {
        let allowed: &[(PrimTy, &[PrimTy])] = &[
            (I32, &[F64, F32, I8, U8, U32]),
            (I64, &[F64, F32, I8, U8, I32, U32, U64]),
            (U64, &[I64]),
            (I8, &[I32]),
            (U8, &[I32]),
            (U32, &[]),
            (F64, &[I32, F32]),
            (F32, &[I32, F64]),
            (Bool, &[]),
        ];
        for &(to, froms) in allowed {
            for from in PrimTy::ALL {
                let expected = from == to || froms.contains(&from);
                assert_eq!(explicit_convertible(to, from), expected, "{to}({from})");
            }
        }
        for t in PrimTy::ALL {
            assert_eq!(explicit_convertible_from_str(t), t.is_int());
        }
    }

    #[test]
    fn explicit_float_to_int_truncates_and_saturates() {
        let i32_of = |x: f64| explicit_convert(Scalar::F64(x), I32).unwrap();
        assert_eq!(i32_of(3.9), Scalar::I32(3));
        assert_eq!(i32_of(-3.9), Scalar::I32(-3));
        assert_eq!(i32_of(-0.5), Scalar::I32(0));
        assert_eq!(i32_of(1e10), Scalar::I32(i32::MAX));
        assert_eq!(i32_of(-1e10), Scalar::I32(i32::MIN));
        assert_eq!(i32_of(-2147483649.0), Scalar::I32(i32::MIN));
        assert_eq!(i32_of(-2147483648.9), Scalar::I32(i32::MIN));
        assert_eq!(i32_of(2147483647.9), Scalar::I32(i32::MAX));
        assert_eq!(i32_of(f64::INFINITY), Scalar::I32(i32::MAX));
        assert_eq!(i32_of(f64::NEG_INFINITY), Scalar::I32(i32::MIN));
        assert_eq!(i32_of(f64::NAN), Scalar::I32(0));
        assert_eq!(
            explicit_convert(Scalar::F32(-1e10), I32),
            Ok(Scalar::I32(i32::MIN))
        );
        assert_eq!(explicit_convert(Scalar::F32(f32::NAN), I32), Ok(Scalar::I32(0)));
        let i64_of = |x: f64| explicit_convert(Scalar::F64(x), I64).unwrap();
        assert_eq!(i64_of(9.3e18), Scalar::I64(i64::MAX));
        assert_eq!(i64_of(9223372036854775808.0), Scalar::I64(i64::MAX));
        assert_eq!(i64_of(-9223372036854775808.0), Scalar::I64(i64::MIN));
        assert_eq!(i64_of(-1e19), Scalar::I64(i64::MIN));
        assert_eq!(i64_of(f64::NAN), Scalar::I64(0));
        assert_eq!(i64_of(-123.75), Scalar::I64(-123));
        assert_eq!(
            explicit_convert(Scalar::F32(1e19), I64),
            Ok(Scalar::I64(i64::MAX))
        );
    }

    #[test]
    fn explicit_int_conversions_wrap() {
        assert_eq!(explicit_convert(Scalar::I32(128), I8), Ok(Scalar::I8(-128)));
        assert_eq!(explicit_convert(Scalar::I32(266), U8), Ok(Scalar::U8(10)));
        assert_eq!(explicit_convert(Scalar::I32(-1), U8), Ok(Scalar::U8(255)));
        assert_eq!(
            explicit_convert(Scalar::U32(4294967295), I32),
            Ok(Scalar::I32(-1))
        );
        assert_eq!(explicit_convert(Scalar::U64(u64::MAX), I64), Ok(Scalar::I64(-1)));
        assert_eq!(
            explicit_convert(Scalar::I64(-2), U64),
            Ok(Scalar::U64(u64::MAX - 1))
        );
        assert_eq!(explicit_convert(Scalar::I32(5), F32), Ok(Scalar::F32(5.0)));
        assert_eq!(explicit_convert(Scalar::F32(0.5), F64), Ok(Scalar::F64(0.5)));
    }

    #[test]
    fn same_type_is_identity_and_errors_are_worded() {
        for t in PrimTy::ALL {
            let v = Scalar::zero(t);
            assert_eq!(explicit_convert(v, t), Ok(v));
        }
        assert_eq!(explicit_convert(Scalar::F64(1.5), F64), Ok(Scalar::F64(1.5)));
        assert_eq!(
            explicit_convert(Scalar::I32(1), Bool).unwrap_err().headline(),
            "TypeError: cannot instantiate `bool`"
        );
        assert_eq!(
            explicit_convert(Scalar::I32(1), U32).unwrap_err().headline(),
            "TypeError: cannot call objects of type `type`"
        );
        assert_eq!(
            explicit_convert(Scalar::I32(1), U64).unwrap_err().headline(),
            "TypeError: cannot call objects of type `type`"
        );
        assert_eq!(
            explicit_convert(Scalar::Bool(true), I32).unwrap_err().headline(),
            "TypeError: cannot call objects of type `type`"
        );
    }

    fn parse(s: &str, t: PrimTy) -> Result<Scalar, String> {
        parse_int_str(s, t).map_err(|e| e.headline())
    }

    #[test]
    fn int_of_str_accepts_python_syntax() {
        assert_eq!(parse("42", I32), Ok(Scalar::I32(42)));
        assert_eq!(parse(" +1_000\n", I32), Ok(Scalar::I32(1000)));
        assert_eq!(parse("-0", I32), Ok(Scalar::I32(0)));
        assert_eq!(parse("007", I32), Ok(Scalar::I32(7)));
        assert_eq!(parse("0_0", I32), Ok(Scalar::I32(0)));
        assert_eq!(parse("\t\x0b12\x0c\r", I32), Ok(Scalar::I32(12)));
        assert_eq!(parse("\u{a0}12\u{3000}", I32), Ok(Scalar::I32(12)));
        assert_eq!(parse("\u{85}12", I32), Ok(Scalar::I32(12)));
        assert_eq!(parse("\u{2003} 12", I32), Ok(Scalar::I32(12)));
        assert_eq!(parse("\u{661}\u{662}", I32), Ok(Scalar::I32(12)));
        assert_eq!(parse("1\u{662}", I32), Ok(Scalar::I32(12)));
        assert_eq!(parse("\u{ff11}\u{ff12}", I32), Ok(Scalar::I32(12)));
        assert_eq!(parse("-128", I8), Ok(Scalar::I8(-128)));
        assert_eq!(parse("255", U8), Ok(Scalar::U8(255)));
        assert_eq!(parse("4294967295", U32), Ok(Scalar::U32(u32::MAX)));
        assert_eq!(parse("-9223372036854775808", I64), Ok(Scalar::I64(i64::MIN)));
        assert_eq!(parse("18446744073709551615", U64), Ok(Scalar::U64(u64::MAX)));
        assert_eq!(
            parse("-00000000000000000000000000000000000000000000001", I32),
            Ok(Scalar::I32(-1))
        );
    }

    #[test]
    fn int_of_str_rejects_like_python() {
        // Ground truth from python3 `int(s)`.
        let cases: &[(&str, &str)] = &[
            ("hello", "'hello'"),
            ("", "''"),
            (" ", "' '"),
            ("1__0", "'1__0'"),
            ("_10", "'_10'"),
            ("10_", "'10_'"),
            ("+-1", "'+-1'"),
            ("- 1", "'- 1'"),
            ("12 \x1c", "'12 \\x1c'"),
            ("\x1c12", "'\\x1c12'"),
            ("1.5", "'1.5'"),
            ("0x10", "'0x10'"),
            ("1e3", "'1e3'"),
            ("it's", "\"it's\""),
            ("hello\x7f\u{85}\u{a0}é", "'hello\\x7f\\x85\\xa0é'"),
            ("1\u{a0}2", "'1\\xa02'"),
        ];
        for &(s, shown) in cases {
            assert_eq!(
                parse(s, I32),
                Err(format!(
                    "ValueError: invalid literal for int() with base 10: {shown}"
                )),
                "{s:?}"
            );
        }
    }

    #[test]
    fn int_of_str_range_errors() {
        assert_eq!(
            parse("2147483648", I32),
            Err("OverflowError: i32 value 2147483648 out of range [-2147483648, 2147483647]".into())
        );
        assert_eq!(
            parse("-2147483649", I32),
            Err("OverflowError: i32 value -2147483649 out of range [-2147483648, 2147483647]".into())
        );
        assert_eq!(
            parse("-1", U8),
            Err("OverflowError: u8 value -1 out of range [0, 255]".into())
        );
        assert_eq!(
            parse("128", I8),
            Err("OverflowError: i8 value 128 out of range [-128, 127]".into())
        );
        assert_eq!(
            parse("-1", U32),
            Err("OverflowError: u32 value -1 out of range [0, 4294967295]".into())
        );
        assert_eq!(
            parse("18446744073709551616", U64),
            Err(
                "OverflowError: u64 value 18446744073709551616 out of range [0, 18446744073709551615]".into()
            )
        );
        assert_eq!(
            parse("9223372036854775808", I64),
            Err("OverflowError: i64 value 9223372036854775808 out of range [-9223372036854775808, 9223372036854775807]".into())
        );
        let big = format!("-000{}", "9".repeat(50));
        assert_eq!(
            parse(&big, I32),
            Err(format!(
                "OverflowError: i32 value -{} out of range [-2147483648, 2147483647]",
                "9".repeat(50)
            ))
        );
    }

    #[test]
    fn int_of_str_digit_limit() {
        let msg = "ValueError: Exceeds the limit (4300 digits) for integer string conversion: \
                   value has 5000 digits; use sys.set_int_max_str_digits() to increase the limit";
        assert_eq!(parse(&"1".repeat(5000), I32), Err(msg.to_string()));
        assert_eq!(parse(&"0".repeat(5000), I32), Err(msg.to_string()));
        assert_eq!(parse(&"0".repeat(4300), I32), Ok(Scalar::I32(0)));
        assert_eq!(
            parse("1", F64),
            Err("TypeError: cannot call objects of type `type`".into())
        );
    }
}
