//! One root cause, one finding: the class of a *minimized* finding is the
//! engines that disagree, the kind of divergence, the class of the first
//! differing line, and the reproducer's shape with names and constants
//! abstracted. Raw signatures (`oracle::Signature`) still keep the cheap
//! first-level dedup during generation; findings whose minimized programs
//! fall into one class are merged (a wrong constant folded by redshift
//! shows up on many lines of many programs, but minimizes to one shape).

use crate::oracle::Signature;

/// Words kept as they are in a shape: keywords, types and builtins (what
/// a reproducer is about); every other identifier becomes `v`.
const KEPT: &[&str] = &[
    "def",
    "return",
    "if",
    "elif",
    "else",
    "while",
    "for",
    "in",
    "break",
    "continue",
    "pass",
    "and",
    "or",
    "not",
    "is",
    "import",
    "from",
    "as",
    "class",
    "var",
    "const",
    "None",
    "True",
    "False",
    "i8",
    "u8",
    "i32",
    "u32",
    "i64",
    "u64",
    "f32",
    "f64",
    "bool",
    "str",
    "print",
    "len",
    "range",
    "blue",
    "struct",
    "red",
    "force_inline",
    "unsafe",
    "gc_alloc",
    "gc_ptr",
    "raw_alloc",
    "raw_ptr",
    "simd",
    "UNROLL_RANGE",
    "OpSpec",
    "Self",
    "self",
    "assert",
    "raise",
];

/// `source` with identifiers as `v`, integer literals (with their sign)
/// as `N`, float literals as `F` (a `-` before a float kept: the sign of a
/// zero matters), strings as `S`, comments dropped and spaces squeezed.
pub fn shape(source: &str) -> String {
    let mut out = String::new();
    for line in source.lines() {
        let code = line.split('#').next().unwrap_or("").trim_end();
        if code.trim().is_empty() {
            continue;
        }
        let indent = code.len() - code.trim_start().len();
        out.push_str(&" ".repeat(indent));
        let chars: Vec<char> = code.trim_start().chars().collect();
        let mut i = 0;
        while i < chars.len() {
            let c = chars[i];
            if c.is_alphabetic() || c == '_' {
                let start = i;
                while i < chars.len() && (chars[i].is_alphanumeric() || chars[i] == '_') {
                    i += 1;
                }
                let word: String = chars[start..i].iter().collect();
                out.push_str(if KEPT.contains(&word.as_str()) { &word } else { "v" });
                continue;
            }
            if c.is_ascii_digit() {
                let mut float = false;
                while i < chars.len()
                    && (chars[i].is_ascii_alphanumeric() || chars[i] == '.' || chars[i] == '_')
                {
                    float |=
                        chars[i] == '.' || ((chars[i] == 'e' || chars[i] == 'E') && !out.ends_with("0x"));
                    i += 1;
                }
                // The sign of an integer literal is a constant like its
                // digits (`-7 // 2` and `7 // -2` are one shape); a float's
                // is kept (`-0.0` is not `0.0`). The printer writes a
                // binary minus with spaces, so `-` right before a digit is
                // a sign.
                if !float && out.ends_with('-') {
                    out.pop();
                }
                out.push(if float { 'F' } else { 'N' });
                continue;
            }
            if c == '"' || c == '\'' {
                i += 1;
                while i < chars.len() && chars[i] != c {
                    i += if chars[i] == '\\' { 2 } else { 1 };
                }
                i += 1;
                out.push('S');
                continue;
            }
            if c != ' ' {
                out.push(c);
            } else if !out.ends_with(' ') {
                out.push(' ');
            }
            i += 1;
        }
        out.push('\n');
    }
    out
}

/// The class of a first differing line `A ≠ B`: its core (`line_core`:
/// the tokens where A and B differ) with every number (with its sign and
/// decimals, `inf`, `nan`) as `N`, so a wrong constant printed as several
/// values, inside different surroundings (a tuple, a SIMD vector, a
/// struct), is one class; the rest of the text (an error kind, a message)
/// is kept.
pub fn line_class(line: &str) -> String {
    numbers_as_n(&line_core(line))
}

/// The tokens of a printed value: words and numbers, each delimiter
/// (`( ) [ ] , :`) its own token, spaces dropped.
fn tokens(text: &str) -> Vec<&str> {
    let mut out = vec![];
    let mut start = None;
    for (i, c) in text.char_indices() {
        let delim = matches!(c, '(' | ')' | '[' | ']' | ',' | ':');
        if delim || c == ' ' {
            if let Some(s) = start.take() {
                out.push(&text[s..i]);
            }
            if delim {
                out.push(&text[i..i + 1]);
            }
        } else if start.is_none() {
            start = Some(i);
        }
    }
    if let Some(s) = start {
        out.push(&text[s..]);
    }
    out
}

/// `A ≠ B` cut to the first token where A and B differ
/// (`(False, N, -N.N, N) ≠ (False, N, N.N, N.N)` → `-N.N ≠ N.N`; a side
/// that ends first gives the empty token). A line whose sides have the
/// same tokens (`N ≠ N`: digits differ) and an error suffix (`(error: X ≠
/// Y)`) are kept as they are.
pub fn line_core(line: &str) -> String {
    let (main, err) = match line.find(" (error: ") {
        Some(i) => line.split_at(i),
        None => (line, ""),
    };
    let Some((a, b)) = main.split_once(" ≠ ") else {
        return line.to_string();
    };
    let (ta, tb) = (tokens(a), tokens(b));
    let Some(i) = (0..ta.len().max(tb.len())).find(|&i| ta.get(i) != tb.get(i)) else {
        return line.to_string();
    };
    format!(
        "{} ≠ {}{err}",
        ta.get(i).copied().unwrap_or(""),
        tb.get(i).copied().unwrap_or("")
    )
}

/// Every number of `line` (with its sign and decimals, `inf`, `nan`) as `N`.
fn numbers_as_n(line: &str) -> String {
    let mut out = String::new();
    let chars: Vec<char> = line.chars().collect();
    let mut i = 0;
    while i < chars.len() {
        let rest: String = chars[i..].iter().take(4).collect();
        let num_start = chars[i] == 'N'
            || (chars[i] == '-' && chars.get(i + 1).is_some_and(|c| *c == 'N' || *c == 'i'))
            || rest.starts_with("inf")
            || rest.starts_with("nan");
        if num_start {
            while i < chars.len() && matches!(chars[i], 'N' | '-' | '.' | 'e' | '+' | 'i' | 'n' | 'f' | 'a') {
                i += 1;
            }
            out.push('N');
            continue;
        }
        out.push(chars[i]);
        i += 1;
    }
    out
}

/// The class of a finding: engines, kind, line class, minimized shape.
pub fn class_key(sig: &Signature, minimized: &str) -> String {
    class_key_of(&sig.engines, sig.kind.name(), &sig.line, minimized)
}

/// [`class_key`] from the parts of a signature (as a finding file's header
/// spells them, `merge`).
pub fn class_key_of(engines: &str, kind: &str, line: &str, minimized: &str) -> String {
    format!("{engines}|{kind}|{}\n{}", line_class(line), shape(minimized))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_and_constants_are_abstracted() {
        let a = "def f_1(p_2: i32) -> i32:\n    return p_2 // 3  # c\n\ndef main() -> None:\n    print(f_1(-7))\n";
        let b = "def f_9(p_4: i32) -> i32:\n    return p_4 // 5\ndef main() -> None:\n    print(f_9(-2))\n";
        assert_eq!(shape(a), shape(b));
        assert_ne!(shape(a), shape(&a.replace("i32", "i64")));
        assert_ne!(shape("x = -0.0\n"), shape("x = 0.0\n"));
        assert_eq!(shape("print(-7 // 2)\n"), shape("print(7 // -2)\n"));
        assert_eq!(shape("print(a - 7)\n"), "print(v - N)\n");
        assert_eq!(shape("x = 1.5e3\ny = 'a'\n"), "v = F\nv = S\n");
    }

    #[test]
    fn numbers_of_a_line_are_one_class() {
        assert_eq!(line_class("-N.N ≠ N"), line_class("N ≠ inf"));
        assert_eq!(line_class("x N ≠ x -N"), "N ≠ N");
        assert_ne!(line_class("True ≠ False"), line_class("N ≠ N"));
    }

    #[test]
    fn a_line_is_classed_by_where_its_sides_differ() {
        assert_eq!(line_core("(False, N, -N.N) ≠ (False, N, N.N)"), "-N.N ≠ N.N");
        assert_eq!(
            line_class("SIMD[fN, N](N.N, -N.N, N.N) ≠ SIMD[fN, N](N.N, N.N, N.N)"),
            line_class("-N.N ≠ N.N")
        );
        // Same tokens (the digits differ): the whole line.
        assert_eq!(line_core("x = N ≠ x = N"), "x = N ≠ x = N");
        // One side longer; an error suffix kept.
        assert_eq!(line_core("a b ≠ a"), "b ≠ ");
        assert_eq!(line_core("-N.N -N.N ≠ N.N N.N"), "-N.N ≠ N.N");
        assert_eq!(
            line_core("a N ≠ a <end> (error: <none> ≠ IndexError: x)"),
            "N ≠ <end> (error: <none> ≠ IndexError: x)"
        );
        assert_ne!(line_class("True ≠ False"), line_class("False ≠ True"));
    }
}
