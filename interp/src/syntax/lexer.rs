//! The hand-written lexer, used as lalrpop's external lexer: an iterator of
//! `(start, Tok, end)` byte ranges. It owns Python's layout rules (NEWLINE,
//! INDENT/DEDENT from the indentation stack in `indent`, implicit joining
//! inside brackets, backslash continuations, comments, blank lines), the
//! `var`/`const` soft keywords, backquoted names (`` `add[i32]` ``, for the
//! names the SPy printer emits), and the literal forms (`number`, `string`).
//!
//! It stops at the first error: after an `Err` the iterator is exhausted.

mod indent;
mod number;
mod string;

use crate::syntax::error::{ParseError, ParseErrorKind};
use crate::syntax::token::{keyword, Tok};

use indent::{Change, Column, IndentStack};

/// Errors of the lexer are parse errors (they share one wording table).
pub type LexError = ParseError;

/// A token with its byte range, as lalrpop wants it.
pub type Spanned<'src> = (usize, Tok<'src>, usize);

/// At most as many open brackets as the parser builds expression levels
/// (`helpers::MAX_EXPR_DEPTH`), not CPython's MAXLEVEL of 200 (issue 15;
/// spec/differences-from-upstream.md §49): the bracket stack is on the heap,
/// and the depth of the tree brackets build is checked by the parser.
pub const MAX_BRACKET_DEPTH: usize = crate::syntax::helpers::MAX_EXPR_DEPTH as usize;

pub struct Lexer<'src> {
    src: &'src str,
    bytes: &'src [u8],
    pos: usize,
    indents: IndentStack,
    /// DEDENT tokens still to emit, all at `dedent_at`.
    pending_dedents: u32,
    dedent_at: usize,
    /// Open brackets (the byte and its offset), innermost last.
    brackets: Vec<(u8, usize)>,
    /// The next byte begins a physical line whose indentation is unread.
    at_line_start: bool,
    /// The current logical line produced a token (so it needs a NEWLINE).
    line_has_tokens: bool,
    /// A backslash continuation was just consumed.
    after_continuation: bool,
    finished: bool,
}

impl<'src> Lexer<'src> {
    pub fn new(src: &'src str) -> Lexer<'src> {
        // A UTF-8 byte order mark is skipped, as CPython does.
        let pos = if src.starts_with('\u{feff}') { 3 } else { 0 };
        Lexer {
            src,
            bytes: src.as_bytes(),
            pos,
            indents: IndentStack::default(),
            pending_dedents: 0,
            dedent_at: 0,
            brackets: Vec::new(),
            at_line_start: true,
            line_has_tokens: false,
            after_continuation: false,
            finished: false,
        }
    }

    fn error(&self, kind: ParseErrorKind, start: usize, end: usize) -> LexError {
        ParseError::at(kind, start, end)
    }

    /// 1-based line number of `offset` (only computed for error messages).
    fn line_of(&self, offset: usize) -> u32 {
        let end = offset.min(self.bytes.len());
        self.bytes[..end].iter().filter(|&&b| b == b'\n').count() as u32 + 1
    }

    fn char_at(&self, pos: usize) -> Option<char> {
        self.src.get(pos..).and_then(|s| s.chars().next())
    }

    fn next_token(&mut self) -> Result<Option<Spanned<'src>>, LexError> {
        loop {
            if self.pending_dedents > 0 {
                self.pending_dedents -= 1;
                return Ok(Some((self.dedent_at, Tok::Dedent, self.dedent_at)));
            }
            if self.at_line_start {
                self.at_line_start = false;
                if let Some(tok) = self.line_start()? {
                    return Ok(Some(tok));
                }
                continue;
            }
            let Some(&c) = self.bytes.get(self.pos) else {
                return self.end_of_file();
            };
            match c {
                b' ' | b'\t' | 0x0c => {
                    self.pos += 1;
                    while let Some(b' ' | b'\t' | 0x0c) = self.bytes.get(self.pos) {
                        self.pos += 1;
                    }
                }
                b'#' => self.skip_comment(),
                b'\\' => self.continuation()?,
                b'\n' | b'\r' => {
                    let start = self.pos;
                    self.pos += if c == b'\r' && self.bytes.get(start + 1) == Some(&b'\n') {
                        2
                    } else {
                        1
                    };
                    self.after_continuation = false;
                    if !self.brackets.is_empty() {
                        continue;
                    }
                    self.at_line_start = true;
                    if self.line_has_tokens {
                        self.line_has_tokens = false;
                        return Ok(Some((start, Tok::Newline, start + 1)));
                    }
                }
                _ => {
                    self.after_continuation = false;
                    let tok = self.token(c)?;
                    self.line_has_tokens = true;
                    return Ok(Some(tok));
                }
            }
        }
    }

    fn skip_comment(&mut self) {
        while let Some(&b) = self.bytes.get(self.pos) {
            if b == b'\n' || b == b'\r' {
                break;
            }
            self.pos += 1;
        }
    }

    /// A backslash outside a string: it must end the physical line.
    fn continuation(&mut self) -> Result<(), LexError> {
        let start = self.pos;
        match self.bytes.get(start + 1) {
            Some(b'\n') => self.pos += 2,
            Some(b'\r') => {
                self.pos += if self.bytes.get(start + 2) == Some(&b'\n') {
                    3
                } else {
                    2
                }
            }
            None => {
                return Err(self.error(ParseErrorKind::UnexpectedEof, start, start + 1));
            }
            Some(_) => {
                return Err(self.error(ParseErrorKind::LineContinuation, start, start + 1));
            }
        }
        self.after_continuation = true;
        Ok(())
    }

    /// Read the indentation of a new physical line. Blank and comment-only
    /// lines are left for the main loop (they produce no token).
    fn line_start(&mut self) -> Result<Option<Spanned<'src>>, LexError> {
        let line_start = self.pos;
        let mut column = Column::default();
        while let Some(&b) = self.bytes.get(self.pos) {
            if b == b' ' || b == b'\t' || b == 0x0c {
                column.advance(b);
                self.pos += 1;
            } else {
                break;
            }
        }
        match self.bytes.get(self.pos) {
            None | Some(b'#' | b'\n' | b'\r') => return Ok(None),
            Some(_) => {}
        }
        let at = self.pos;
        match self.indents.change(column) {
            Ok(Change::Same) => Ok(None),
            Ok(Change::Indent) => Ok(Some((line_start, Tok::Indent, at))),
            Ok(Change::Dedent(n)) => {
                self.pending_dedents = n;
                self.dedent_at = at;
                Ok(None)
            }
            // CPython points after the indentation.
            Err(kind) => Err(self.error(kind, at, at)),
        }
    }

    fn end_of_file(&mut self) -> Result<Option<Spanned<'src>>, LexError> {
        let end = self.bytes.len();
        if let Some(&(open, at)) = self.brackets.last() {
            return Err(self.error(ParseErrorKind::UnclosedBracket(open as char), at, at + 1));
        }
        if self.after_continuation {
            return Err(self.error(ParseErrorKind::UnexpectedEof, end, end));
        }
        if self.line_has_tokens {
            self.line_has_tokens = false;
            return Ok(Some((end, Tok::Newline, end)));
        }
        if self.indents.depth() > 0 {
            self.indents.pop();
            return Ok(Some((end, Tok::Dedent, end)));
        }
        Ok(None)
    }

    /// Lex one token starting with byte `c` at `self.pos`.
    fn token(&mut self, c: u8) -> Result<Spanned<'src>, LexError> {
        let start = self.pos;
        if c.is_ascii_alphabetic() || c == b'_' || c >= 0x80 {
            return self.name_or_keyword(start);
        }
        if c.is_ascii_digit() {
            return self.number(start);
        }
        if c == b'.' && self.bytes.get(start + 1).is_some_and(u8::is_ascii_digit) {
            return self.number(start);
        }
        if c == b'"' || c == b'\'' {
            return self.string(start, start, string::Prefix::default());
        }
        if c == b'`' {
            return self.backquoted_name(start);
        }
        self.operator(start, c)
    }

    /// `` `text` ``: a NAME whose text is anything but a backquote or a line
    /// break (at least one character), never a keyword. The SPy printer
    /// writes names that are not identifiers (`add[i32]`, `x$1`) this way.
    fn backquoted_name(&mut self, start: usize) -> Result<Spanned<'src>, LexError> {
        let body = start + 1;
        let mut p = body;
        loop {
            match self.bytes.get(p) {
                Some(b'`') => break,
                None | Some(b'\n' | b'\r') => {
                    let msg = "unterminated backquoted name";
                    return Err(self.error(ParseErrorKind::Syntax(msg.into()), start, p));
                }
                Some(0) => return Err(self.error(ParseErrorKind::NullByte, p, p + 1)),
                Some(_) => p += 1,
            }
        }
        if p == body {
            let msg = "empty backquoted name";
            return Err(self.error(ParseErrorKind::Syntax(msg.into()), start, p + 1));
        }
        self.pos = p + 1;
        Ok((start, Tok::Name(&self.src[body..p]), p + 1))
    }

    fn name_or_keyword(&mut self, start: usize) -> Result<Spanned<'src>, LexError> {
        let end = self.scan_identifier(start);
        if end == start {
            return Err(self.invalid_character(start));
        }
        self.pos = end;
        let word = &self.src[start..end];
        if let Some(&q) = self.bytes.get(end) {
            if q == b'"' || q == b'\'' {
                if let Some(prefix) = string::Prefix::parse(word) {
                    return self.string(start, end, prefix);
                }
            }
        }
        if let Some(kw) = keyword(word) {
            return Ok((start, kw, end));
        }
        if (word == "var" || word == "const") && self.name_follows(end) {
            let tok = if word == "var" { Tok::Var } else { Tok::Const };
            return Ok((start, tok, end));
        }
        Ok((start, Tok::Name(word), end))
    }

    /// End of the identifier starting at `start` (== `start` if none).
    fn scan_identifier(&self, start: usize) -> usize {
        let mut p = start;
        while let Some(&b) = self.bytes.get(p) {
            if NAME_BYTE[b as usize] {
                p += 1;
            } else if b >= 0x80 {
                let Some(ch) = self.char_at(p) else { break };
                let ok = if p == start {
                    unicode_ident::is_xid_start(ch)
                } else {
                    unicode_ident::is_xid_continue(ch)
                };
                if !ok {
                    break;
                }
                p += ch.len_utf8();
            } else {
                break;
            }
        }
        // An identifier cannot start with a digit (the caller never asks).
        p
    }

    /// `var`/`const` are keywords only when a non-keyword name follows on
    /// the same line.
    fn name_follows(&self, mut p: usize) -> bool {
        while let Some(&b) = self.bytes.get(p) {
            if b == b' ' || b == b'\t' || b == 0x0c {
                p += 1;
            } else {
                break;
            }
        }
        match self.bytes.get(p) {
            Some(b) if b.is_ascii_digit() => return false,
            Some(b'`') => return true,
            None => return false,
            _ => {}
        }
        let end = self.scan_identifier(p);
        if end == p {
            return false;
        }
        let word = &self.src[p..end];
        let is_string =
            matches!(self.bytes.get(end), Some(b'"' | b'\'')) && string::Prefix::parse(word).is_some();
        !is_string && keyword(word).is_none()
    }

    fn invalid_character(&self, start: usize) -> LexError {
        let ch = self.char_at(start).unwrap_or('\u{fffd}');
        let end = start + ch.len_utf8();
        let kind = if ch == '\0' {
            ParseErrorKind::NullByte
        } else if !is_printable(ch) {
            ParseErrorKind::NonPrintableCharacter(ch)
        } else if ch.is_ascii() {
            ParseErrorKind::InvalidSyntax { expected: None }
        } else {
            ParseErrorKind::InvalidCharacter(ch)
        };
        self.error(kind, start, end)
    }

    fn open_bracket(&mut self, start: usize, c: u8, tok: Tok<'src>) -> Result<Spanned<'src>, LexError> {
        if self.brackets.len() >= MAX_BRACKET_DEPTH {
            return Err(self.error(ParseErrorKind::TooManyNestedParens, start, start + 1));
        }
        self.brackets.push((c, start));
        self.pos = start + 1;
        Ok((start, tok, start + 1))
    }

    fn close_bracket(&mut self, start: usize, c: u8, tok: Tok<'src>) -> Result<Spanned<'src>, LexError> {
        let Some((open, _)) = self.brackets.pop() else {
            return Err(self.error(ParseErrorKind::UnmatchedBracket(c as char), start, start + 1));
        };
        let expected = match open {
            b'(' => b')',
            b'[' => b']',
            _ => b'}',
        };
        if c != expected {
            return Err(self.error(
                ParseErrorKind::MismatchedBracket {
                    open: open as char,
                    close: c as char,
                },
                start,
                start + 1,
            ));
        }
        self.pos = start + 1;
        Ok((start, tok, start + 1))
    }

    fn operator(&mut self, start: usize, c: u8) -> Result<Spanned<'src>, LexError> {
        let next = self.bytes.get(start + 1).copied().unwrap_or(0);
        let next2 = self.bytes.get(start + 2).copied().unwrap_or(0);
        let (tok, len) = match c {
            b'(' => return self.open_bracket(start, c, Tok::Lpar),
            b'[' => return self.open_bracket(start, c, Tok::Lsqb),
            b'{' => return self.open_bracket(start, c, Tok::Lbrace),
            b')' => return self.close_bracket(start, c, Tok::Rpar),
            b']' => return self.close_bracket(start, c, Tok::Rsqb),
            b'}' => return self.close_bracket(start, c, Tok::Rbrace),
            b'+' if next == b'=' => (Tok::PlusEqual, 2),
            b'+' => (Tok::Plus, 1),
            b'-' if next == b'=' => (Tok::MinusEqual, 2),
            b'-' if next == b'>' => (Tok::Arrow, 2),
            b'-' => (Tok::Minus, 1),
            b'*' if next == b'*' && next2 == b'=' => (Tok::DoubleStarEqual, 3),
            b'*' if next == b'*' => (Tok::DoubleStar, 2),
            b'*' if next == b'=' => (Tok::StarEqual, 2),
            b'*' => (Tok::Star, 1),
            b'/' if next == b'/' && next2 == b'=' => (Tok::DoubleSlashEqual, 3),
            b'/' if next == b'/' => (Tok::DoubleSlash, 2),
            b'/' if next == b'=' => (Tok::SlashEqual, 2),
            b'/' => (Tok::Slash, 1),
            b'%' if next == b'=' => (Tok::PercentEqual, 2),
            b'%' => (Tok::Percent, 1),
            b'@' if next == b'=' => (Tok::AtEqual, 2),
            b'@' => (Tok::At, 1),
            b'<' if next == b'<' && next2 == b'=' => (Tok::LeftShiftEqual, 3),
            b'<' if next == b'<' => (Tok::LeftShift, 2),
            b'<' if next == b'=' => (Tok::LessEqual, 2),
            b'<' => (Tok::Less, 1),
            b'>' if next == b'>' && next2 == b'=' => (Tok::RightShiftEqual, 3),
            b'>' if next == b'>' => (Tok::RightShift, 2),
            b'>' if next == b'=' => (Tok::GreaterEqual, 2),
            b'>' => (Tok::Greater, 1),
            b'&' if next == b'=' => (Tok::AmperEqual, 2),
            b'&' => (Tok::Amper, 1),
            b'|' if next == b'=' => (Tok::VbarEqual, 2),
            b'|' => (Tok::Vbar, 1),
            b'^' if next == b'=' => (Tok::CircumflexEqual, 2),
            b'^' => (Tok::Circumflex, 1),
            b'~' => (Tok::Tilde, 1),
            b'=' if next == b'=' => (Tok::EqEqual, 2),
            b'=' => (Tok::Equal, 1),
            b'!' if next == b'=' => (Tok::NotEqual, 2),
            b':' if next == b'=' => (Tok::ColonEqual, 2),
            b':' => (Tok::Colon, 1),
            b',' => (Tok::Comma, 1),
            b';' => (Tok::Semi, 1),
            b'.' if next == b'.' && next2 == b'.' => (Tok::Ellipsis, 3),
            b'.' => (Tok::Dot, 1),
            _ => return Err(self.invalid_character(start)),
        };
        self.pos = start + len;
        Ok((start, tok, start + len))
    }
}

/// The ASCII bytes of an identifier (letters, digits, `_`), by byte: one
/// load a byte where the scan of a name spends most of its time.
static NAME_BYTE: [bool; 256] = {
    let mut table = [false; 256];
    let mut b = 0;
    while b < 128 {
        table[b] = (b as u8).is_ascii_alphanumeric() || b == b'_' as usize;
        b += 1;
    }
    table
};

/// Python's `str.isprintable`, approximately: control characters, format
/// characters and non-ASCII spaces are not printable.
fn is_printable(ch: char) -> bool {
    if ch == ' ' {
        return true;
    }
    !(ch.is_control()
        || ch.is_whitespace()
        || matches!(ch, '\u{ad}' | '\u{200b}'..='\u{200f}' | '\u{2028}'..='\u{202e}' | '\u{2060}'..='\u{2064}' | '\u{feff}'))
}

impl<'src> Iterator for Lexer<'src> {
    type Item = Result<Spanned<'src>, LexError>;

    fn next(&mut self) -> Option<Self::Item> {
        if self.finished {
            return None;
        }
        match self.next_token() {
            Ok(Some(tok)) => Some(Ok(tok)),
            Ok(None) => {
                self.finished = true;
                None
            }
            Err(e) => {
                self.finished = true;
                Some(Err(e))
            }
        }
    }
}

/// Lex a whole source (tests and tools): the tokens, or the first error.
pub fn tokenize(src: &str) -> Result<Vec<Spanned<'_>>, LexError> {
    Lexer::new(src).collect()
}

#[cfg(test)]
mod tests;
