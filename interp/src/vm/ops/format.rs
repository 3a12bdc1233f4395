//! How primitive values and strings print (§6): `str(x)` and `repr(x)`.
//!
//! - ints: decimal; bool: `True`/`False`.
//! - f64: Python `repr(float)` = `str(float)`: the shortest digit string
//!   that round-trips, always with `.0` or an exponent, exponent form when
//!   the decimal exponent is < -4 or >= 16 (`1e+16`, `1e-05`), and `inf`,
//!   `-inf`, `nan`.
//! - f32: upstream's `f"{x:.7g}"` (C `%.7g`): 7 significant digits,
//!   trailing zeros dropped, so `f32(1.0)` prints `1`.
//! - str: [`repr_str`] is SPy's `str.__repr__` (`stdlib/_str.spy`);
//!   [`python_repr_str`] is CPython's, for messages that upstream builds with
//!   Python's `{s!r}`; both are policies of the one escaper in `quote`.

use super::quote::{quoted, Escapes};
use super::Scalar;

/// `str(x)` (= `repr(x)`) of a primitive value.
pub fn format_scalar(value: Scalar) -> String {
    match value {
        Scalar::I8(v) => v.to_string(),
        Scalar::U8(v) => v.to_string(),
        Scalar::I32(v) => v.to_string(),
        Scalar::U32(v) => v.to_string(),
        Scalar::I64(v) => v.to_string(),
        Scalar::U64(v) => v.to_string(),
        Scalar::F32(v) => format_f32(v),
        Scalar::F64(v) => format_f64(v),
        Scalar::Bool(true) => "True".to_string(),
        Scalar::Bool(false) => "False".to_string(),
    }
}

/// Split Rust's `{:e}` rendering (`-1.2345e-7`) into sign, significant
/// digits without the point, and the decimal exponent of the first digit.
fn split_exp(rendered: &str) -> (bool, String, i32) {
    let (negative, body) = match rendered.strip_prefix('-') {
        Some(rest) => (true, rest),
        None => (false, rendered),
    };
    let (mantissa, exp) = body.split_once('e').unwrap_or((body, "0"));
    let digits: String = mantissa.chars().filter(char::is_ascii_digit).collect();
    (negative, digits, exp.parse().unwrap_or(0))
}

/// Lay out `digits` (d1 d2 d3 ..., value d1.d2d3... × 10^exp) in positional
/// notation. `digits` is non-empty; an empty fraction stays empty.
fn positional(digits: &str, exp: i32) -> (String, String) {
    if exp < 0 {
        let zeros = "0".repeat(usize::try_from(-exp - 1).unwrap_or(0));
        ("0".to_string(), format!("{zeros}{digits}"))
    } else {
        let int_len = usize::try_from(exp).unwrap_or(0) + 1;
        if digits.len() <= int_len {
            let pad = "0".repeat(int_len - digits.len());
            (format!("{digits}{pad}"), String::new())
        } else {
            (digits[..int_len].to_string(), digits[int_len..].to_string())
        }
    }
}

/// `e+16`, `e-05`: C/Python exponent suffix with at least two digits.
fn exp_suffix(exp: i32) -> String {
    let sign = if exp < 0 { '-' } else { '+' };
    format!("e{sign}{:02}", exp.unsigned_abs())
}

/// Python `repr(x)` / `str(x)` of a float.
pub fn format_f64(x: f64) -> String {
    if x.is_nan() {
        return "nan".to_string();
    }
    if x.is_infinite() {
        return if x > 0.0 { "inf" } else { "-inf" }.to_string();
    }
    // Rust's `{:e}` without a precision prints the shortest digit string
    // that round-trips (ties broken toward the exact value), as CPython's
    // `repr` does with `dtoa` mode 0.
    let (negative, digits, exp) = split_exp(&format!("{x:e}"));
    let sign = if negative { "-" } else { "" };
    if (-4..16).contains(&exp) {
        let (int_part, frac) = positional(&digits, exp);
        let frac = if frac.is_empty() { "0".to_string() } else { frac };
        format!("{sign}{int_part}.{frac}")
    } else {
        let mantissa = if digits.len() == 1 {
            digits
        } else {
            format!("{}.{}", &digits[..1], &digits[1..])
        };
        format!("{sign}{mantissa}{}", exp_suffix(exp))
    }
}

/// C `printf("%.7g")` / Python `f"{x:.7g}"` of an f32 (widened exactly to
/// f64 first, as upstream does). `-0.0` prints `-0`; NaN prints `nan`
/// whatever its sign bit (Python's spelling).
pub fn format_f32(x: f32) -> String {
    format_g(f64::from(x), 7)
}

/// `%.{precision}g` for `precision >= 1`.
fn format_g(x: f64, precision: usize) -> String {
    if x.is_nan() {
        return "nan".to_string();
    }
    if x.is_infinite() {
        return if x > 0.0 { "inf" } else { "-inf" }.to_string();
    }
    // Round once to `precision` significant digits (Rust's exact formatting
    // rounds half to even on the exact binary value, like glibc and
    // CPython), then choose the layout from the rounded exponent.
    let (negative, digits, exp) = split_exp(&format!("{x:.prec$e}", prec = precision - 1));
    let sign = if negative { "-" } else { "" };
    let digits = digits.trim_end_matches('0');
    let digits = if digits.is_empty() { "0" } else { digits };
    let p = i32::try_from(precision).unwrap_or(i32::MAX);
    if (-4..p).contains(&exp) {
        let (int_part, frac) = positional(digits, exp);
        if frac.is_empty() {
            format!("{sign}{int_part}")
        } else {
            format!("{sign}{int_part}.{frac}")
        }
    } else {
        let mantissa = if digits.len() == 1 {
            digits.to_string()
        } else {
            format!("{}.{}", &digits[..1], &digits[1..])
        };
        format!("{sign}{mantissa}{}", exp_suffix(exp))
    }
}

/// SPy's `repr(s)` for `s: str` (upstream `_str.spy` `__repr__`): quotes as
/// Python, escapes `\\`, the quote, `\n`, `\r`, `\t`, and `\xNN` for the
/// other bytes below 0x20. Unlike Python, DEL (0x7f) and non-printable
/// characters ≥ 0x7f are kept as they are.
pub fn repr_str(s: &str) -> String {
    quoted(s, Escapes::SPY_REPR)
}

/// CPython's `repr(s)`: as [`repr_str`], plus escapes for DEL and every
/// character that is not printable (`\xNN`, `\uNNNN`, `\UNNNNNNNN`).
pub fn python_repr_str(s: &str) -> String {
    quoted(s, Escapes::PYTHON_REPR)
}

#[cfg(test)]
#[path = "format_tests.rs"]
mod tests;
