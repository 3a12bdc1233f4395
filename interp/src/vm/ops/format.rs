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

/// A finite float as Rust's `{:e}` / `{:.N$e}` renders it (`-1.2345e-7`),
/// split into its sign, its significant digits without the point, and the
/// decimal exponent of the first digit. The rendering is kept on the stack:
/// floats print on every `print` of the three engines, and these strings
/// were most of that cost.
struct Scientific {
    negative: bool,
    digits: [u8; Self::CAPACITY],
    len: usize,
    exp: i32,
}

impl Scientific {
    /// The longest rendering needed: `-1.2345678901234567e-308` (the
    /// shortest round-trip digits of an f64, at most 17) and `{:.6e}`.
    const CAPACITY: usize = 40;

    fn render(args: std::fmt::Arguments<'_>) -> Self {
        struct Text<'a>(&'a mut [u8], usize);
        impl std::fmt::Write for Text<'_> {
            fn write_str(&mut self, s: &str) -> std::fmt::Result {
                let end = self.1 + s.len();
                self.0
                    .get_mut(self.1..end)
                    .ok_or(std::fmt::Error)?
                    .copy_from_slice(s.as_bytes());
                self.1 = end;
                Ok(())
            }
        }
        let mut text = [0u8; Self::CAPACITY];
        let mut w = Text(&mut text, 0);
        std::fmt::Write::write_fmt(&mut w, args).expect("a float's `{:e}` rendering fits 40 bytes");
        let end = w.1;
        let rendered = &text[..end];
        let (negative, body) = match rendered.split_first() {
            Some((b'-', rest)) => (true, rest),
            _ => (false, rendered),
        };
        let e = body.iter().position(|&b| b == b'e').unwrap_or(body.len());
        let mut digits = [0u8; Self::CAPACITY];
        let mut len = 0;
        for &b in body[..e].iter().filter(|b| b.is_ascii_digit()) {
            digits[len] = b;
            len += 1;
        }
        let exp = body
            .get(e + 1..)
            .and_then(|t| std::str::from_utf8(t).ok())
            .and_then(|t| t.parse().ok())
            .unwrap_or(0);
        Scientific {
            negative,
            digits,
            len,
            exp,
        }
    }

    fn digits(&self) -> &str {
        // ASCII digits only (filtered above).
        std::str::from_utf8(&self.digits[..self.len]).unwrap_or("0")
    }
}

/// Append `digits` (d1 d2 d3 ..., value d1.d2d3... × 10^exp) in positional
/// notation: the integer part, then `.` and the fraction, or `.0` when the
/// fraction is empty and `point_zero`, or nothing. `digits` is non-empty.
fn push_positional(out: &mut String, digits: &str, exp: i32, point_zero: bool) {
    let (int_part, frac) = if exp < 0 {
        ("0", digits)
    } else {
        let int_len = usize::try_from(exp).unwrap_or(0) + 1;
        if digits.len() <= int_len {
            out.push_str(digits);
            out.extend(std::iter::repeat_n('0', int_len - digits.len()));
            if point_zero {
                out.push_str(".0");
            }
            return;
        }
        digits.split_at(int_len)
    };
    out.push_str(int_part);
    out.push('.');
    if exp < 0 {
        out.extend(std::iter::repeat_n('0', usize::try_from(-exp - 1).unwrap_or(0)));
    }
    out.push_str(frac);
}

/// Append `d.ddde+XX`: the mantissa (no point for one digit) and the C/Python
/// exponent suffix with at least two digits (`e+16`, `e-05`).
fn push_exponential(out: &mut String, digits: &str, exp: i32) {
    let (first, rest) = digits.split_at(1);
    out.push_str(first);
    if !rest.is_empty() {
        out.push('.');
        out.push_str(rest);
    }
    out.push_str(if exp < 0 { "e-" } else { "e+" });
    let abs = exp.unsigned_abs();
    if abs < 10 {
        out.push('0');
    }
    let _ = std::fmt::Write::write_fmt(out, format_args!("{abs}"));
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
    let sci = Scientific::render(format_args!("{x:e}"));
    let mut out = String::with_capacity(sci.len + 8);
    if sci.negative {
        out.push('-');
    }
    if (-4..16).contains(&sci.exp) {
        push_positional(&mut out, sci.digits(), sci.exp, true);
    } else {
        push_exponential(&mut out, sci.digits(), sci.exp);
    }
    out
}

/// C `printf("%.7g")` / Python `f"{x:.7g}"` of an f32 (widened exactly to
/// f64 first, as upstream does). `-0.0` prints `-0`; NaN prints `nan`
/// whatever its sign bit (Python's spelling).
pub fn format_f32(x: f32) -> String {
    format_g(f64::from(x), 7)
}

/// `%.{precision}g` for `1 <= precision <= 17`.
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
    let sci = Scientific::render(format_args!("{x:.prec$e}", prec = precision - 1));
    let digits = sci.digits().trim_end_matches('0');
    let digits = if digits.is_empty() { "0" } else { digits };
    let mut out = String::with_capacity(sci.len + 8);
    if sci.negative {
        out.push('-');
    }
    let p = i32::try_from(precision).unwrap_or(i32::MAX);
    if (-4..p).contains(&sci.exp) {
        push_positional(&mut out, digits, sci.exp, false);
    } else {
        push_exponential(&mut out, digits, sci.exp);
    }
    out
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
