//! String and bytes literals: `'`/`"`, triple-quoted, the `r`/`b`/`rb`/`u`
//! prefixes (any case), Python's escapes, and f-strings (scanned only to be
//! rejected by the parser). Line endings inside literals become `\n`.

use super::{LexError, Lexer, Spanned};
use crate::syntax::error::ParseErrorKind;
use crate::syntax::token::Tok;

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Prefix {
    pub raw: bool,
    pub bytes: bool,
    pub fstring: bool,
}

impl Prefix {
    /// The prefix spelled by `word`, if it is one.
    pub fn parse(word: &str) -> Option<Prefix> {
        if word.len() > 2 {
            return None;
        }
        let mut p = Prefix::default();
        let mut unicode = false;
        for c in word.chars() {
            let flag = match c.to_ascii_lowercase() {
                'r' => &mut p.raw,
                'b' => &mut p.bytes,
                'f' => &mut p.fstring,
                'u' => &mut unicode,
                _ => return None,
            };
            if *flag {
                return None;
            }
            *flag = true;
        }
        // `u` stands alone; `b` and `f` do not combine.
        if (unicode && word.len() > 1) || (p.bytes && p.fstring) {
            return None;
        }
        Some(p)
    }
}

/// The decoded value being built.
enum Buf {
    Str(String),
    Bytes(Vec<u8>),
}

impl Buf {
    fn push_str(&mut self, s: &str) {
        match self {
            Buf::Str(v) => v.push_str(s),
            Buf::Bytes(v) => v.extend_from_slice(s.as_bytes()),
        }
    }

    fn push_char(&mut self, c: char) {
        match self {
            Buf::Str(v) => v.push(c),
            Buf::Bytes(v) => {
                let mut tmp = [0u8; 4];
                v.extend_from_slice(c.encode_utf8(&mut tmp).as_bytes());
            }
        }
    }

    fn push_byte_value(&mut self, value: u32) {
        match self {
            // Octal escapes above 0o377 stay code points in str ...
            Buf::Str(v) => v.push(char::from_u32(value).unwrap_or('\u{fffd}')),
            // ... and wrap in bytes, as CPython does.
            Buf::Bytes(v) => v.push((value & 0xff) as u8),
        }
    }
}

impl<'src> Lexer<'src> {
    /// Lex a string whose prefix spans `start..quote` and whose opening
    /// quote is at `quote`.
    pub(super) fn string(
        &mut self,
        start: usize,
        quote: usize,
        prefix: Prefix,
    ) -> Result<Spanned<'src>, LexError> {
        let b = self.bytes;
        let q = b[quote];
        let triple = b.get(quote + 1) == Some(&q) && b.get(quote + 2) == Some(&q);
        let body = quote + if triple { 3 } else { 1 };
        if prefix.fstring {
            let end = self.scan_fstring(start, body, q, triple)?;
            self.pos = end;
            return Ok((start, Tok::FString, end));
        }
        let mut buf = if prefix.bytes {
            Buf::Bytes(Vec::new())
        } else {
            Buf::Str(String::new())
        };
        // `seg` is the start of the body text not yet copied into `buf`.
        let mut seg = body;
        let mut p = body;
        let end = loop {
            let Some(&c) = b.get(p) else {
                return Err(self.unterminated(start, quote, triple, p));
            };
            match c {
                _ if c == q => {
                    if !triple {
                        break p + 1;
                    }
                    if b.get(p + 1) == Some(&q) && b.get(p + 2) == Some(&q) {
                        break p + 3;
                    }
                    p += 1;
                }
                b'\\' => {
                    if prefix.raw {
                        // The backslash stays, but protects the next char.
                        p += 1;
                        if let Some(ch) = self.char_at(p) {
                            if ch == '\r' || ch == '\n' {
                                buf.push_str(&self.src[seg..p]);
                                p = self.newline(p, &mut buf);
                                seg = p;
                            } else {
                                self.check_bytes_char(prefix, ch, p)?;
                                p += ch.len_utf8();
                            }
                        }
                    } else {
                        buf.push_str(&self.src[seg..p]);
                        p = self.escape(p, body, prefix, &mut buf)?;
                        seg = p;
                    }
                }
                b'\n' | b'\r' => {
                    if !triple {
                        return Err(self.unterminated(start, quote, triple, p));
                    }
                    buf.push_str(&self.src[seg..p]);
                    p = self.newline(p, &mut buf);
                    seg = p;
                }
                0 => return Err(self.error(ParseErrorKind::NullByte, p, p + 1)),
                _ if c >= 0x80 => {
                    let ch = self.char_at(p).unwrap_or('\u{fffd}');
                    self.check_bytes_char(prefix, ch, p)?;
                    p += ch.len_utf8();
                }
                _ => p += 1,
            }
        };
        let close = end - if triple { 3 } else { 1 };
        buf.push_str(&self.src[seg..close]);
        self.pos = end;
        let tok = match buf {
            Buf::Str(s) => Tok::Str(s),
            Buf::Bytes(v) => Tok::Bytes(v),
        };
        Ok((start, tok, end))
    }

    fn check_bytes_char(&self, prefix: Prefix, ch: char, p: usize) -> Result<(), LexError> {
        if prefix.bytes && !ch.is_ascii() {
            return Err(self.error(ParseErrorKind::BytesNonAscii, p, p + ch.len_utf8()));
        }
        Ok(())
    }

    /// Copy the line ending at `p` as `\n`; return the offset after it.
    fn newline(&self, p: usize, buf: &mut Buf) -> usize {
        buf.push_char('\n');
        if self.bytes[p] == b'\r' && self.bytes.get(p + 1) == Some(&b'\n') {
            p + 2
        } else {
            p + 1
        }
    }

    fn unterminated(&self, start: usize, quote: usize, triple: bool, at: usize) -> LexError {
        // At EOF, CPython reports the last line read, not the empty one after it.
        let line = if at >= self.bytes.len() {
            self.line_of(at.saturating_sub(1))
        } else {
            self.line_of(at)
        };
        if triple {
            self.error(
                ParseErrorKind::UnterminatedTripleQuotedString { line },
                start,
                quote + 3,
            )
        } else {
            self.error(ParseErrorKind::UnterminatedString { line }, start, at)
        }
    }

    /// Decode the escape whose backslash is at `p`; return the offset after
    /// it. `body` is where the literal's text starts (for error positions).
    fn escape(&self, p: usize, body: usize, prefix: Prefix, buf: &mut Buf) -> Result<usize, LexError> {
        let b = self.bytes;
        let Some(&e) = b.get(p + 1) else {
            // The caller reports the unterminated literal.
            return Ok(p + 1);
        };
        let simple = match e {
            b'\n' => return Ok(p + 2),
            b'\r' => {
                return Ok(if b.get(p + 2) == Some(&b'\n') {
                    p + 3
                } else {
                    p + 2
                });
            }
            b'\\' => Some('\\'),
            b'\'' => Some('\''),
            b'"' => Some('"'),
            b'a' => Some('\x07'),
            b'b' => Some('\x08'),
            b'f' => Some('\x0c'),
            b'n' => Some('\n'),
            b'r' => Some('\r'),
            b't' => Some('\t'),
            b'v' => Some('\x0b'),
            _ => None,
        };
        if let Some(c) = simple {
            buf.push_char(c);
            return Ok(p + 2);
        }
        match e {
            b'0'..=b'7' => {
                let mut value = 0u32;
                let mut q = p + 1;
                while q < p + 4 && matches!(b.get(q), Some(b'0'..=b'7')) {
                    value = value * 8 + u32::from(b[q] - b'0');
                    q += 1;
                }
                buf.push_byte_value(value);
                Ok(q)
            }
            b'x' => {
                let (value, q) = self.hex_digits(p + 2, 2);
                if q - (p + 2) < 2 {
                    let pos = p - body;
                    let msg = if prefix.bytes {
                        format!("(value error) invalid \\x escape at position {pos}")
                    } else {
                        format!(
                            "(unicode error) 'unicodeescape' codec can't decode bytes in \
                             position {pos}-{}: truncated \\xXX escape",
                            q - 1 - body
                        )
                    };
                    return Err(self.error(ParseErrorKind::InvalidEscape(msg), p, q));
                }
                buf.push_byte_value(value);
                Ok(q)
            }
            b'u' | b'U' if !prefix.bytes => {
                let n = if e == b'u' { 4 } else { 8 };
                let (value, q) = self.hex_digits(p + 2, n);
                let pos = p - body;
                let fail = |what: &str| {
                    let msg = format!(
                        "(unicode error) 'unicodeescape' codec can't decode bytes in \
                         position {pos}-{}: {what}",
                        q - 1 - body
                    );
                    self.error(ParseErrorKind::InvalidEscape(msg), p, q)
                };
                if q - (p + 2) < n {
                    let what = if n == 4 {
                        "truncated \\uXXXX escape"
                    } else {
                        "truncated \\UXXXXXXXX escape"
                    };
                    return Err(fail(what));
                }
                if value > 0x10ffff {
                    return Err(fail("illegal Unicode character"));
                }
                match char::from_u32(value) {
                    Some(c) => buf.push_char(c),
                    None => {
                        return Err(self.error(
                            ParseErrorKind::NotImplemented("surrogate code points in string literals".into()),
                            p,
                            q,
                        ))
                    }
                }
                Ok(q)
            }
            b'N' if !prefix.bytes => Err(self.error(
                ParseErrorKind::NotImplemented("\\N{...} escapes".into()),
                p,
                p + 2,
            )),
            _ => {
                // Unknown escapes keep their backslash (CPython warns).
                buf.push_char('\\');
                Ok(p + 1)
            }
        }
    }

    /// Read up to `n` hex digits from `p`: their value and the end offset.
    fn hex_digits(&self, p: usize, n: usize) -> (u32, usize) {
        let mut value = 0u32;
        let mut q = p;
        while q < p + n {
            match self.bytes.get(q).and_then(|c| (*c as char).to_digit(16)) {
                Some(d) => value = value.wrapping_mul(16).wrapping_add(d),
                None => break,
            }
            q += 1;
        }
        (value, q)
    }

    /// Find the end of an f-string. Replacement fields may hold strings in
    /// other quotes (PEP 701 nesting is not followed further).
    fn scan_fstring(&self, start: usize, body: usize, q: u8, triple: bool) -> Result<usize, LexError> {
        let b = self.bytes;
        let mut p = body;
        let mut depth = 0usize;
        loop {
            let Some(&c) = b.get(p) else {
                return Err(self.unterminated(start, body - if triple { 3 } else { 1 }, triple, p));
            };
            match c {
                _ if c == q && depth == 0 => {
                    if !triple {
                        return Ok(p + 1);
                    }
                    if b.get(p + 1) == Some(&q) && b.get(p + 2) == Some(&q) {
                        return Ok(p + 3);
                    }
                    p += 1;
                }
                b'\\' => p += 2,
                b'{' if depth == 0 && b.get(p + 1) == Some(&b'{') => p += 2,
                b'{' => {
                    depth += 1;
                    p += 1;
                }
                b'}' => {
                    depth = depth.saturating_sub(1);
                    p += 1;
                }
                b'\'' | b'"' => {
                    // A nested literal inside a replacement field.
                    p += 1;
                    while let Some(&d) = b.get(p) {
                        p += 1;
                        if d == c || d == b'\n' {
                            break;
                        }
                    }
                }
                b'\n' | b'\r' if !triple => {
                    return Err(self.unterminated(start, body - 1, triple, p));
                }
                0 => return Err(self.error(ParseErrorKind::NullByte, p, p + 1)),
                _ => p += 1,
            }
            // `p += 2` may land inside a multi-byte character.
            while p < b.len() && !self.src.is_char_boundary(p) {
                p += 1;
            }
        }
    }
}
