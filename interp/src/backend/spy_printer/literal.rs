//! Leaves: names (plain or backquoted), string and bytes literals that the
//! lexer reads back to the same value, and float literals.

use std::borrow::Cow;
use std::fmt::Write as _;

use crate::syntax::token::is_keyword;
use crate::vm::ops::format::format_f64;
use crate::vm::ops::quote::{choose_quote, push_quoted, Escapes};

/// Whether `name` can be written as is: a Python identifier (as our lexer
/// scans it: XID_Start/`_`, then XID_Continue) that is neither a keyword
/// nor a soft keyword (`var`, `const`).
pub fn is_plain_identifier(name: &str) -> bool {
    let mut chars = name.chars();
    let Some(first) = chars.next() else {
        return false;
    };
    let start_ok = if first.is_ascii() {
        first.is_ascii_alphabetic() || first == '_'
    } else {
        unicode_ident::is_xid_start(first)
    };
    let rest_ok = chars.all(|c| {
        if c.is_ascii() {
            c.is_ascii_alphanumeric() || c == '_'
        } else {
            unicode_ident::is_xid_continue(c)
        }
    });
    start_ok && rest_ok && !is_keyword(name) && name != "var" && name != "const"
}

/// `name` as source: as is when it is a plain identifier, else backquoted
/// (`` `add[i32]` ``). A name that is empty or holds a backquote or a line
/// break has no spelling; it is backquoted anyway (and will not parse).
pub fn format_name(name: &str) -> Cow<'_, str> {
    if is_plain_identifier(name) {
        Cow::Borrowed(name)
    } else {
        Cow::Owned(format!("`{name}`"))
    }
}

/// A dotted module name (`a.b.c`), each part formatted on its own.
pub fn dotted_name(name: &str) -> String {
    let parts: Vec<Cow<'_, str>> = name.split('.').map(format_name).collect();
    parts.join(".")
}

/// A float literal: Python's `repr` for finite values; infinities are
/// `1e999`/`-1e999` (they overflow to inf) and NaN is `1e999 - 1e999`
/// (a subtraction for the parser, so it has that precedence: see `prec`).
pub fn float(v: f64) -> String {
    if v.is_nan() {
        "1e999 - 1e999".to_owned()
    } else if v.is_infinite() {
        if v > 0.0 { "1e999" } else { "-1e999" }.to_owned()
    } else {
        format_f64(v)
    }
}

/// A `str` literal: `\\`, the quote, `\n`, `\r`, `\t` escaped, other ASCII
/// control characters and DEL as `\xNN`, everything else raw.
pub fn push_str_literal(out: &mut String, s: &str) {
    push_quoted(out, s, Escapes::SOURCE);
}

/// A `bytes` literal: printable ASCII raw, the rest escaped.
pub fn push_bytes_literal(out: &mut String, b: &[u8]) {
    let q = choose_quote(b.contains(&b'\''), b.contains(&b'"'));
    out.push('b');
    out.push(q);
    for &c in b {
        match c {
            b'\\' => out.push_str("\\\\"),
            b'\n' => out.push_str("\\n"),
            b'\r' => out.push_str("\\r"),
            b'\t' => out.push_str("\\t"),
            _ if c == q as u8 => {
                out.push('\\');
                out.push(q);
            }
            0x20..=0x7e => out.push(c as char),
            _ => {
                let _ = write!(out, "\\x{c:02x}");
            }
        }
    }
    out.push(q);
}
