//! Number literals: decimal, hexadecimal, octal and binary integers with `_`
//! separators, and floats (`1.5`, `.5`, `5.`, `1e5`). Integers must fit in
//! u64; imaginary literals are rejected (`not implemented yet`).

use super::{LexError, Lexer, Spanned};
use crate::syntax::error::ParseErrorKind;
use crate::syntax::token::Tok;

/// Keywords CPython lets follow a number without a space (`1if x else 2`).
const KEYWORDS_AFTER_NUMBER: [&str; 8] = ["and", "else", "for", "if", "in", "is", "not", "or"];

impl<'src> Lexer<'src> {
    pub(super) fn number(&mut self, start: usize) -> Result<Spanned<'src>, LexError> {
        let b = self.bytes;
        if b[start] == b'0' {
            let radix = match b.get(start + 1).map(|c| c | 0x20) {
                Some(b'x') => Some((16, "hexadecimal")),
                Some(b'o') => Some((8, "octal")),
                Some(b'b') => Some((2, "binary")),
                _ => None,
            };
            if let Some((radix, name)) = radix {
                return self.radix_int(start, radix, name);
            }
        }
        self.decimal(start)
    }

    /// Scan `digit (_? digit)*` from `p`; return the end (== p if none).
    /// A `_` not followed by a digit is an error.
    fn decimal_digits(&self, start: usize, mut p: usize) -> Result<usize, LexError> {
        let b = self.bytes;
        let begin = p;
        while p < b.len() {
            if b[p].is_ascii_digit() {
                p += 1;
            } else if b[p] == b'_' && p > begin {
                if !b.get(p + 1).is_some_and(u8::is_ascii_digit) {
                    return Err(self.bad_number(start, p + 1, "invalid decimal literal"));
                }
                p += 1;
            } else {
                break;
            }
        }
        Ok(p)
    }

    fn bad_number(&self, start: usize, end: usize, what: &'static str) -> LexError {
        let end = end.min(self.bytes.len()).max(start);
        let mut end = end;
        while !self.src.is_char_boundary(end) {
            end += 1;
        }
        self.error(ParseErrorKind::InvalidNumber(what), start, end)
    }

    fn radix_int(&mut self, start: usize, radix: u32, name: &'static str) -> Result<Spanned<'src>, LexError> {
        let b = self.bytes;
        let invalid = match radix {
            16 => "invalid hexadecimal literal",
            8 => "invalid octal literal",
            _ => "invalid binary literal",
        };
        let mut p = start + 2;
        let mut value: u64 = 0;
        let mut digits = 0usize;
        let mut overflow = false;
        while let Some(&c) = b.get(p) {
            if c == b'_' {
                if !b.get(p + 1).is_some_and(|d| (*d as char).is_digit(radix)) {
                    return Err(self.bad_number(start, p + 1, invalid));
                }
                p += 1;
                continue;
            }
            match (c as char).to_digit(radix) {
                Some(d) => {
                    match value
                        .checked_mul(u64::from(radix))
                        .and_then(|v| v.checked_add(u64::from(d)))
                    {
                        Some(v) => value = v,
                        None => overflow = true,
                    }
                    digits += 1;
                    p += 1;
                }
                None => {
                    if c.is_ascii_digit() {
                        let what: &'static str = if radix == 8 {
                            DIGIT_OCTAL[(c - b'0') as usize]
                        } else {
                            DIGIT_BINARY[(c - b'0') as usize]
                        };
                        return Err(self.bad_number(p, p + 1, what));
                    }
                    break;
                }
            }
        }
        if digits == 0 {
            return Err(self.bad_number(start, p, invalid));
        }
        self.check_number_end(start, p, name)?;
        if overflow {
            return Err(self.error(ParseErrorKind::IntegerTooLarge, start, p));
        }
        self.pos = p;
        Ok((start, Tok::Int(value), p))
    }

    fn decimal(&mut self, start: usize) -> Result<Spanned<'src>, LexError> {
        let b = self.bytes;
        let int_end = self.decimal_digits(start, start)?;
        let mut p = int_end;
        let mut is_float = false;
        if b.get(p) == Some(&b'.') {
            is_float = true;
            p = self.decimal_digits(start, p + 1)?;
        }
        if matches!(b.get(p), Some(b'e' | b'E')) {
            let mut q = p + 1;
            if matches!(b.get(q), Some(b'+' | b'-')) {
                q += 1;
            }
            if b.get(q).is_some_and(u8::is_ascii_digit) {
                p = self.decimal_digits(start, q)?;
                is_float = true;
            } else if !self.keyword_follows(p) {
                return Err(self.bad_number(start, p + 1, "invalid decimal literal"));
            }
        }
        if matches!(b.get(p), Some(b'j' | b'J')) {
            return Err(self.error(
                ParseErrorKind::NotImplemented("complex literals".into()),
                start,
                p + 1,
            ));
        }
        self.check_number_end(start, p, "decimal")?;
        self.pos = p;
        let text = &self.src[start..p];
        if is_float {
            let cleaned: String = text.chars().filter(|&c| c != '_').collect();
            return match cleaned.parse::<f64>() {
                Ok(v) => Ok((start, Tok::Float(v), p)),
                Err(_) => Err(self.bad_number(start, p, "invalid decimal literal")),
            };
        }
        let mut value: u64 = 0;
        let mut overflow = false;
        for c in text.bytes().filter(|&c| c != b'_') {
            match value
                .checked_mul(10)
                .and_then(|v| v.checked_add(u64::from(c - b'0')))
            {
                Some(v) => value = v,
                None => overflow = true,
            }
        }
        if text.len() > 1 && text.starts_with('0') && value != 0 {
            return Err(self.error(ParseErrorKind::LeadingZeros, start, p));
        }
        if overflow {
            return Err(self.error(ParseErrorKind::IntegerTooLarge, start, p));
        }
        Ok((start, Tok::Int(value), p))
    }

    /// Whether one of the keywords CPython tolerates starts at `p`.
    fn keyword_follows(&self, p: usize) -> bool {
        let rest = &self.bytes[p.min(self.bytes.len())..];
        KEYWORDS_AFTER_NUMBER
            .iter()
            .any(|kw| rest.starts_with(kw.as_bytes()))
    }

    /// A number must not run into an identifier (`1abc`), except for the
    /// few keywords CPython tolerates.
    fn check_number_end(&self, start: usize, p: usize, name: &'static str) -> Result<(), LexError> {
        let Some(&c) = self.bytes.get(p) else {
            return Ok(());
        };
        let ident_char = c.is_ascii_alphanumeric()
            || c == b'_'
            || (c >= 0x80 && self.char_at(p).is_some_and(unicode_ident::is_xid_continue));
        if !ident_char || self.keyword_follows(p) {
            return Ok(());
        }
        let what = match name {
            "hexadecimal" => "invalid hexadecimal literal",
            "octal" => "invalid octal literal",
            "binary" => "invalid binary literal",
            _ => "invalid decimal literal",
        };
        Err(self.bad_number(start, p + 1, what))
    }
}

const DIGIT_OCTAL: [&str; 10] = [
    "invalid octal literal",
    "invalid octal literal",
    "invalid octal literal",
    "invalid octal literal",
    "invalid octal literal",
    "invalid octal literal",
    "invalid octal literal",
    "invalid octal literal",
    "invalid digit '8' in octal literal",
    "invalid digit '9' in octal literal",
];

const DIGIT_BINARY: [&str; 10] = [
    "invalid binary literal",
    "invalid binary literal",
    "invalid digit '2' in binary literal",
    "invalid digit '3' in binary literal",
    "invalid digit '4' in binary literal",
    "invalid digit '5' in binary literal",
    "invalid digit '6' in binary literal",
    "invalid digit '7' in binary literal",
    "invalid digit '8' in binary literal",
    "invalid digit '9' in binary literal",
];
