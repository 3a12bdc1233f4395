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

/// `source` with identifiers as `v`, integer literals as `N`, float
/// literals as `F` (a `-` before a literal kept: the sign of a zero
/// matters), strings as `S`, comments dropped and spaces squeezed.
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

/// The class of a first differing line: every number (with its sign and
/// decimals, `inf`, `nan`) as `N`, so a wrong constant printed as several
/// values is one class; the rest of the text (an error kind, a message)
/// is kept.
pub fn line_class(line: &str) -> String {
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
    format!(
        "{}|{}|{}\n{}",
        sig.engines,
        sig.kind.name(),
        line_class(&sig.line),
        shape(minimized)
    )
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
        assert_eq!(shape("x = 1.5e3\ny = 'a'\n"), "v = F\nv = S\n");
    }

    #[test]
    fn numbers_of_a_line_are_one_class() {
        assert_eq!(line_class("-N.N ≠ N"), line_class("N ≠ inf"));
        assert_eq!(line_class("x N ≠ x -N"), "x N ≠ x N");
        assert_ne!(line_class("True ≠ False"), line_class("N ≠ N"));
    }
}
