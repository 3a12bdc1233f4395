//! Quoting text as a string literal: the one escaper, with a policy for each
//! place that quotes. SPy's `repr` follows upstream, CPython's `repr` is for
//! messages that upstream builds with Python's `{s!r}`, and the SPy printer's
//! literals must lex back to the same text; their differences are the
//! fields of [`Escapes`].

use std::fmt::Write as _;

use super::unicode;

/// What a policy escapes beyond what every policy escapes: `\\`, the
/// quote, `\n`, `\r`, `\t`, and `\xNN` for the other C0 controls.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Escapes {
    /// DEL (0x7f) as `\x7f`.
    pub del: bool,
    /// Non-ASCII characters that are not printable as `\xNN`, `\uNNNN` or
    /// `\UNNNNNNNN` (by code point width, as CPython).
    pub unprintable: bool,
}

impl Escapes {
    /// SPy's `repr(s)` (upstream `_str.spy` `__repr__`): unlike Python, DEL
    /// and non-printable characters are kept as they are.
    pub const SPY_REPR: Escapes = Escapes {
        del: false,
        unprintable: false,
    };
    /// CPython's `repr(s)`.
    pub const PYTHON_REPR: Escapes = Escapes {
        del: true,
        unprintable: true,
    };
    /// A literal in printed SPy source: the lexer rejects a raw DEL, and
    /// reads any other character raw.
    pub const SOURCE: Escapes = Escapes {
        del: true,
        unprintable: false,
    };
}

/// The quote Python (and SPy) wraps a repr in: `'` unless the text has `'`
/// and no `"`.
pub fn choose_quote(has_single: bool, has_double: bool) -> char {
    if has_single && !has_double {
        '"'
    } else {
        '\''
    }
}

/// Append `s` to `out` quoted and escaped as `escapes` says.
pub fn push_quoted(out: &mut String, s: &str, escapes: Escapes) {
    let quote = choose_quote(s.contains('\''), s.contains('"'));
    out.push(quote);
    for c in s.chars() {
        let code = u32::from(c);
        match c {
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if c == quote => {
                out.push('\\');
                out.push(c);
            }
            '\0'..='\x1f' => {
                let _ = write!(out, "\\x{code:02x}");
            }
            '\x7f' if escapes.del => out.push_str("\\x7f"),
            c if escapes.unprintable && !c.is_ascii() && !unicode::is_printable(c) => {
                let _ = match code {
                    ..=0xff => write!(out, "\\x{code:02x}"),
                    0x100..=0xffff => write!(out, "\\u{code:04x}"),
                    _ => write!(out, "\\U{code:08x}"),
                };
            }
            c => out.push(c),
        }
    }
    out.push(quote);
}

/// `s` quoted and escaped as `escapes` says.
pub fn quoted(s: &str, escapes: Escapes) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    push_quoted(&mut out, s, escapes);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    const ALL: [Escapes; 3] = [Escapes::SPY_REPR, Escapes::PYTHON_REPR, Escapes::SOURCE];

    #[test]
    fn every_policy_escapes_backslash_quote_and_c0_controls() {
        for escapes in ALL {
            assert_eq!(quoted("a\\b\n\r\t\0\x1b", escapes), "'a\\\\b\\n\\r\\t\\x00\\x1b'");
            assert_eq!(quoted("it's", escapes), "\"it's\"");
            assert_eq!(quoted("'\"", escapes), "'\\'\"'");
            assert_eq!(quoted("é€😀", escapes), "'é€😀'");
        }
    }

    #[test]
    fn del_is_raw_only_in_spy_repr() {
        assert_eq!(quoted("\x7f", Escapes::SPY_REPR), "'\x7f'");
        assert_eq!(quoted("\x7f", Escapes::PYTHON_REPR), "'\\x7f'");
        assert_eq!(quoted("\x7f", Escapes::SOURCE), "'\\x7f'");
    }

    #[test]
    fn unprintable_characters_are_escaped_only_in_python_repr() {
        let s = "\u{85}\u{200b}\u{e0001}";
        assert_eq!(quoted(s, Escapes::SPY_REPR), format!("'{s}'"));
        assert_eq!(quoted(s, Escapes::SOURCE), format!("'{s}'"));
        assert_eq!(quoted(s, Escapes::PYTHON_REPR), "'\\x85\\u200b\\U000e0001'");
    }
}
