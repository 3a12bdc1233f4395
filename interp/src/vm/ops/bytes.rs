//! The pure operations of `bytes` (upstream `stdlib/_bytes.spy` and the
//! `encode` of `_str.spy`): repetition, `repr`, utf-8 encode/decode.

use super::str::MAX_STR_BYTES;
use super::OpError;
use crate::vm::rt_error::RuntimeError;

/// `b * n`: empty for `n <= 0`.
pub fn repeat(b: &[u8], n: i64) -> Result<Vec<u8>, OpError> {
    let Ok(count) = usize::try_from(n) else {
        return Ok(Vec::new());
    };
    if b.len() as u128 * count as u128 > MAX_STR_BYTES {
        return Err(RuntimeError::RepeatedStrTooLong.into());
    }
    Ok(b.repeat(count))
}

/// `b[k]` (`k` an `i32`, negative from the end) or `IndexError`.
pub fn index(b: &[u8], k: i64) -> Result<u8, OpError> {
    let at = if k < 0 { k + b.len() as i64 } else { k };
    match usize::try_from(at).ok().and_then(|at| b.get(at)) {
        Some(&byte) => Ok(byte),
        None => Err(RuntimeError::BytesIndex.into()),
    }
}

/// `ord(b)`: the first byte, `TypeError` for `b""`.
pub fn ord(b: &[u8]) -> Result<u8, OpError> {
    b.first().copied().ok_or(RuntimeError::OrdEmptyBytes.into())
}

/// `repr(b)` (and `str(b)`): `b'...'` with upstream's escapes — `\\`,
/// `\'`, `\n`, `\r`, `\t`, `\xNN` below space and above `~`.
pub fn repr(b: &[u8]) -> String {
    let mut out = String::with_capacity(b.len() + 3);
    out.push_str("b'");
    for &c in b {
        match c {
            b'\\' => out.push_str("\\\\"),
            b'\'' => out.push_str("\\'"),
            b'\n' => out.push_str("\\n"),
            b'\r' => out.push_str("\\r"),
            b'\t' => out.push_str("\\t"),
            b' '..=b'~' => out.push(c as char),
            _ => out.push_str(&format!("\\x{c:02x}")),
        }
    }
    out.push('\'');
    out
}

/// The only encoding `str.encode` and `bytes.decode` accept (upstream).
pub fn check_encoding(encoding: &str) -> Result<(), OpError> {
    if encoding == "utf-8" {
        Ok(())
    } else {
        Err(RuntimeError::UnsupportedEncoding.into())
    }
}

/// `b.decode("utf-8")`. Decision: invalid utf-8 is a `ValueError`
/// (upstream copies the bytes into a `str` unchecked).
pub fn decode_utf8(b: &[u8]) -> Result<String, OpError> {
    match std::str::from_utf8(b) {
        Ok(s) => Ok(s.to_string()),
        Err(e) => Err(RuntimeError::InvalidUtf8 {
            position: e.valid_up_to() as u64,
        }
        .into()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn repr_matches_upstream() {
        assert_eq!(repr(b"abc"), "b'abc'");
        assert_eq!(repr(b"a\\b"), "b'a\\\\b'");
        assert_eq!(repr(b"a'b"), "b'a\\'b'");
        assert_eq!(repr(b"\n\r\t"), "b'\\n\\r\\t'");
        assert_eq!(repr(b"\x00\x1f\x7f\xff\xa0"), "b'\\x00\\x1f\\x7f\\xff\\xa0'");
        assert_eq!(repr(b""), "b''");
        assert_eq!(repr(b"a\"b"), "b'a\"b'");
    }

    #[test]
    fn repeat_and_decode() {
        assert_eq!(repeat(b"ab", 3).unwrap(), b"ababab");
        assert_eq!(repeat(b"ab", -1).unwrap(), b"");
        assert!(repeat(b"ab", i64::MAX).is_err());
        assert_eq!(decode_utf8("àè".as_bytes()).unwrap(), "àè");
        assert!(decode_utf8(b"a\xffb").is_err());
        assert!(check_encoding("ascii").is_err());
        assert!(check_encoding("utf-8").is_ok());
        assert_eq!(index(b"abc", -1).unwrap(), b'c');
        assert!(index(b"abc", 3).is_err());
        assert!(index(b"abc", -4).is_err());
        assert_eq!(ord(b"A").unwrap(), 65);
        assert!(ord(b"").is_err());
    }
}
