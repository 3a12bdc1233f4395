//! Byte-based `str` operations (§3.10), as upstream's `stdlib/_str.spy`
//! and `spy/vm/str.py`: a str is UTF-8, and **length, indexing, slicing and
//! `find` positions count bytes**, not code points.
//!
//! Values are Rust `String`s. An index or slice that cuts a multi-byte
//! character would produce invalid UTF-8 upstream; here the cut bytes become
//! U+FFFD (lossy decoding). For ASCII text everything is exact.
//!
//! Deviations from upstream's code, where it contradicts its own stated
//! intent (CPython semantics) — see `spec/notes-ops-decisions.md`:
//! - `s[0:-1]` / `s[:-1]` drop the last byte (upstream's "trivial slice"
//!   fast path tests `stop == -1` and returns `s` unchanged);
//! - `"".split()` is `[]` (upstream `[""]`);
//! - whitespace for `split()`/`isspace()` is Python's ASCII whitespace
//!   (`\t\n\v\f\r`, `\x1c`-`\x1f`, space); upstream uses bytes 9..=32 plus
//!   the UTF-8 continuation bytes 0x85/0xA0;
//! - `s.split("")` raises `ValueError: empty separator` (upstream loops
//!   forever; its check is dead code) except that `"".split("")` is `[""]`
//!   as upstream;
//! - `"ab".replace("", "-")` inserts at character boundaries (upstream
//!   inserts between bytes, splitting multi-byte characters);
//! - `s * n` with `n <= 0` is `""`; a result over 2^31-1 bytes raises
//!   `OverflowError: repeated string is too long` (Python's wording).

use super::{convert::parse_int_str, OpError, PrimTy, Scalar};
use crate::vm::rt_error::RuntimeError;

/// Bytes → String, replacing invalid sequences (cut characters) by U+FFFD.
fn from_bytes(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

fn to_i32(n: usize) -> i32 {
    i32::try_from(n).unwrap_or(i32::MAX)
}

/// `len(s)`: the number of UTF-8 bytes.
pub fn len(s: &str) -> i32 {
    to_i32(s.len())
}

/// `s[i]`: the byte at `i` (negative counts from the end) as a 1-byte str.
pub fn index(s: &str, i: i64) -> Result<String, OpError> {
    let n = i64::try_from(s.len()).unwrap_or(i64::MAX);
    let j = if i < 0 { i.saturating_add(n) } else { i };
    if j < 0 || j >= n {
        return Err(RuntimeError::StrIndex.into());
    }
    let j = usize::try_from(j).unwrap_or(0);
    Ok(from_bytes(&s.as_bytes()[j..=j]))
}

/// Python's `slice(start, stop, step).indices(length)`.
/// Errors: `ValueError: slice step cannot be zero`.
pub fn slice_indices(
    length: i64,
    start: Option<i64>,
    stop: Option<i64>,
    step: Option<i64>,
) -> Result<(i64, i64, i64), OpError> {
    let step = step.unwrap_or(1);
    if step == 0 {
        return Err(RuntimeError::SliceStepZero.into());
    }
    let (lower, upper) = if step < 0 { (-1, length - 1) } else { (0, length) };
    let clamp = |v: Option<i64>, default: i64| match v {
        None => default,
        Some(v) if v < 0 => v.saturating_add(length).max(lower),
        Some(v) => v.min(upper),
    };
    let start = clamp(start, if step < 0 { upper } else { lower });
    let stop = clamp(stop, if step < 0 { lower } else { upper });
    Ok((start, stop, step))
}

/// `s[start:stop:step]` with Python slice semantics over the bytes of `s`.
pub fn slice(s: &str, start: Option<i64>, stop: Option<i64>, step: Option<i64>) -> Result<String, OpError> {
    let bytes = s.as_bytes();
    let n = i64::try_from(bytes.len()).unwrap_or(i64::MAX);
    let (start, stop, step) = slice_indices(n, start, stop, step)?;
    let mut out = Vec::new();
    let mut i = start;
    while (step > 0 && i < stop) || (step < 0 && i > stop) {
        // `slice_indices` keeps every visited index within 0..n.
        if let Some(&b) = usize::try_from(i).ok().and_then(|i| bytes.get(i)) {
            out.push(b);
        }
        i = i.saturating_add(step);
    }
    Ok(from_bytes(&out))
}

/// `a + b`.
pub fn concat(a: &str, b: &str) -> String {
    let mut out = String::with_capacity(a.len() + b.len());
    out.push_str(a);
    out.push_str(b);
    out
}

/// Upstream's str length field is an i32.
pub(crate) const MAX_STR_BYTES: u128 = i32::MAX as u128;

/// `s * n`: `n` copies of `s`; `""` when `n <= 0`.
pub fn repeat(s: &str, n: i64) -> Result<String, OpError> {
    let Ok(count) = usize::try_from(n) else {
        return Ok(String::new());
    };
    if s.len() as u128 * count as u128 > MAX_STR_BYTES {
        return Err(RuntimeError::RepeatedStrTooLong.into());
    }
    Ok(s.repeat(count))
}

/// `sub in s` (`""` is in every string).
pub fn contains(s: &str, sub: &str) -> bool {
    s.contains(sub)
}

/// `a == b` (byte equality).
pub fn eq(a: &str, b: &str) -> bool {
    a == b
}

/// `s.find(sub)`: byte index of the first occurrence, or -1.
pub fn find(s: &str, sub: &str) -> i32 {
    find_range(s, sub, 0, len(s))
}

/// Normalize `start`/`end` as upstream's `_str_find` (and CPython's
/// `ADJUST_INDICES`): negative values count from the end and clamp at 0,
/// `end` clamps at the length. `None` if the range is empty (`start > end`).
fn adjust(len: usize, start: i32, end: i32) -> Option<(usize, usize)> {
    let n = i64::try_from(len).unwrap_or(i64::MAX);
    let fix = |v: i32| {
        let v = i64::from(v);
        if v < 0 {
            (v + n).max(0)
        } else {
            v
        }
    };
    let (start, end) = (fix(start), fix(end).min(n));
    if start > end {
        return None;
    }
    Some((
        usize::try_from(start).unwrap_or(0),
        usize::try_from(end).unwrap_or(0),
    ))
}

fn find_bytes(hay: &[u8], needle: &[u8], start: usize, end: usize) -> Option<usize> {
    if needle.is_empty() {
        return Some(start);
    }
    let window = hay.get(start..end)?;
    window
        .windows(needle.len())
        .position(|w| w == needle)
        .map(|p| p + start)
}

/// `s.find(sub, start, end)`: byte index of the first occurrence of `sub`
/// entirely within `s[start:end]`, or -1. An empty `sub` is found at the
/// normalized `start` if `start <= end`.
pub fn find_range(s: &str, sub: &str, start: i32, end: i32) -> i32 {
    match adjust(s.len(), start, end) {
        Some((start, end)) => find_bytes(s.as_bytes(), sub.as_bytes(), start, end).map_or(-1, to_i32),
        None => -1,
    }
}

/// `s.count(sub)`: non-overlapping occurrences (`len(s) + 1` for `""`).
pub fn count(s: &str, sub: &str) -> i32 {
    count_range(s, sub, 0, len(s))
}

/// `s.count(sub, start, end)`, as upstream's `_str_count`: repeated `find`,
/// stepping past each match (by one byte for the empty `sub`).
pub fn count_range(s: &str, sub: &str, start: i32, end: i32) -> i32 {
    let Some((mut pos, end)) = adjust(s.len(), start, end) else {
        return 0;
    };
    let step = sub.len().max(1);
    let mut n = 0;
    while pos <= end {
        match find_bytes(s.as_bytes(), sub.as_bytes(), pos, end) {
            Some(i) => {
                n += 1;
                pos = i + step;
            }
            None => break,
        }
    }
    n
}

/// `s.replace(old, new)`: every non-overlapping occurrence, left to right.
/// An empty `old` inserts `new` before every character and at the end.
pub fn replace(s: &str, old: &str, new: &str) -> String {
    // `str::replace` with an empty pattern matches at every char boundary,
    // which is exactly Python's rule.
    s.replace(old, new)
}

/// `s.upper()`: ASCII letters only (upstream: "works only for ASCII").
pub fn upper(s: &str) -> String {
    s.to_ascii_uppercase()
}

/// Python's ASCII whitespace (`str.isspace` on code points below 128).
fn is_space_byte(b: u8) -> bool {
    matches!(b, 9..=13 | 28..=32)
}

/// `s.split()` (`sep` is `None`) or `s.split(sep)`.
///
/// - `None`: split on runs of ASCII whitespace, dropping empty pieces.
/// - `Some(sep)`: split on every occurrence, keeping empty pieces;
///   `"".split(sep)` is `[""]`; an empty `sep` raises
///   `ValueError: empty separator`.
pub fn split(s: &str, sep: Option<&str>) -> Result<Vec<String>, OpError> {
    match sep {
        None => Ok(s
            .as_bytes()
            .split(|&b| is_space_byte(b))
            .filter(|piece| !piece.is_empty())
            .map(from_bytes)
            .collect()),
        Some(_) if s.is_empty() => Ok(vec![String::new()]),
        Some("") => Err(RuntimeError::EmptySeparator.into()),
        Some(sep) => Ok(s.split(sep).map(str::to_string).collect()),
    }
}

/// `s.isascii()` (true for `""`).
pub fn isascii(s: &str) -> bool {
    s.is_ascii()
}

/// `s.isspace()`: non-empty and made of ASCII whitespace only.
pub fn isspace(s: &str) -> bool {
    !s.is_empty() && s.bytes().all(is_space_byte)
}

/// `s.startswith(prefix)`.
pub fn startswith(s: &str, prefix: &str) -> bool {
    s.as_bytes().starts_with(prefix.as_bytes())
}

/// `s.endswith(suffix)`.
pub fn endswith(s: &str, suffix: &str) -> bool {
    s.as_bytes().ends_with(suffix.as_bytes())
}

/// `T(s)` for an integer type `T` (see [`parse_int_str`]).
pub fn str_to_int(s: &str, to: PrimTy) -> Result<Scalar, OpError> {
    parse_int_str(s, to)
}

/// `ord(s)`: the first byte as an i32 (upstream: "only works for ASCII").
/// `ord("")` raises Python's
/// `TypeError: ord() expected a character, but string of length 0 found`
/// (our decision: upstream crashes with an interp-level IndexError).
pub fn ord(s: &str) -> Result<i32, OpError> {
    s.bytes()
        .next()
        .map(i32::from)
        .ok_or(RuntimeError::OrdEmptyStr.into())
}

#[cfg(test)]
#[path = "str_tests.rs"]
mod tests;
