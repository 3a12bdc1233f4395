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
///
/// A line without ` ≠ ` (an internal error's message, `Bug`) is classed
/// by its template (`message_template`): program names in backquotes
/// abstracted (`function \`fuzz::rp_18\`` and `function \`fuzz::main\``
/// are one class) and the message cut before its first debug-printed
/// value (`Gpr(Rcx)`, `Some([v7])`), so the registers, virtual registers
/// and statements an allocation error names do not make classes of their
/// own.
///
/// A native crash is classed by its kind of fault, not by its signal:
/// SIGSEGV, SIGBUS, SIGILL, SIGABRT and SIGTRAP are one class (a wild
/// access or jump, whose signal depends on what it hits: memory an earlier
/// program of the worker left, so the same bug can end with either
/// signal from one run to the next, and a reduction that wanted the first
/// signal could not reproduce it); SIGFPE (a division's trap, raised by
/// the instruction itself) and any other signal stay classes of their own.
pub fn line_class(line: &str) -> String {
    let line = quoted_names_abstracted(line);
    let core = if line.contains(" ≠ ") {
        line_core(&line)
    } else {
        message_template(&line)
    };
    wild_faults_as_one(&numbers_as_n(&core))
}

/// The signals a wild access or jump may end with, as `line_class` names
/// them together.
const WILD_FAULT_SIGNALS: [&str; 5] = ["(SIGSEGV)", "(SIGBUS)", "(SIGILL)", "(SIGABRT)", "(SIGTRAP)"];

/// `line` with a wild-fault signal name as the class of them all.
fn wild_faults_as_one(line: &str) -> String {
    match WILD_FAULT_SIGNALS.iter().find(|s| line.ends_with(*s)) {
        Some(signal) => format!("{}(a wild access or jump)", &line[..line.len() - signal.len()]),
        None => line.to_string(),
    }
}

/// `line` with each backquoted name's identifiers as `v` (keywords, types
/// and builtins kept, as in `shape`) and its type arguments (`[...]`)
/// dropped, a qualified name as one: `\`fuzz::ga_3[f64]\`` → `\`v\``,
/// `\`len\`` stays.
fn quoted_names_abstracted(line: &str) -> String {
    let quotes = line.matches('`').count();
    let mut out = String::new();
    for (k, part) in line.split('`').enumerate() {
        if k > 0 {
            out.push('`');
        }
        // Odd parts are inside backquotes (an unpaired last quote leaves
        // the rest as it is).
        if k % 2 == 0 || k >= quotes {
            out.push_str(part);
        } else {
            out.push_str(&name_abstracted(part));
        }
    }
    out
}

/// One backquoted name of [`quoted_names_abstracted`].
fn name_abstracted(name: &str) -> String {
    let mut out = String::new();
    let mut depth = 0usize;
    let mut word = String::new();
    let flush = |word: &mut String, out: &mut String| {
        if !word.is_empty() {
            let keep = KEPT.contains(&word.as_str()) || word.chars().all(|c| !c.is_alphabetic());
            out.push_str(if keep { word } else { "v" });
            word.clear();
        }
    };
    for c in name.chars() {
        match c {
            '[' => {
                flush(&mut word, &mut out);
                depth += 1;
            }
            ']' => depth = depth.saturating_sub(1),
            _ if depth > 0 => {}
            c if c.is_alphanumeric() || c == '_' => word.push(c),
            c => {
                flush(&mut word, &mut out);
                out.push(c);
            }
        }
    }
    flush(&mut word, &mut out);
    // A qualified name is one name (`fuzz::mp_16::impl` like `fuzz::main`).
    while out.contains("v::v") {
        out = out.replace("v::v", "v");
    }
    out
}

/// A message cut before its first debug-printed value: a word directly
/// followed by `(` or `{` outside backquotes (`read from Gpr(Rcx), ...` →
/// `read from …`); a message cut for length (`…`) loses its last,
/// partial word.
fn message_template(line: &str) -> String {
    let chars: Vec<char> = line.chars().collect();
    let mut quoted = false;
    let mut word_start = None;
    for (i, &c) in chars.iter().enumerate() {
        if c == '`' {
            quoted = !quoted;
            word_start = None;
            continue;
        }
        if quoted {
            continue;
        }
        if c.is_alphanumeric() || c == '_' {
            word_start.get_or_insert(i);
            continue;
        }
        if let (Some(w), '(' | '{') = (word_start, c) {
            return chars[..w].iter().collect::<String>() + "…";
        }
        word_start = None;
    }
    match line.strip_suffix('…') {
        Some(head) => {
            head.trim_end_matches(|c: char| c.is_alphanumeric() || c == '_')
                .to_string()
                + "…"
        }
        None => line.to_string(),
    }
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
    fn internal_errors_are_classed_by_their_template() {
        let jit = |f: &str, loc: &str| {
            line_class(&format!(
                "JIT compilation failed: internal JIT error: function `{f}`: vN read from {loc}, which holds Some([vN]) (Assign {{ dst: vN }})"
            ))
        };
        let class = jit("fuzz::main", "Gpr(Rcx)");
        assert_eq!(
            class,
            "JIT compilation failed: internal JIT error: function `v`: vN read from …"
        );
        assert_eq!(class, jit("fuzz::rp_N", "Xmm(XmmN)"));
        assert_eq!(class, jit("fuzz::ga_N[fN]", "Slot(N)"));
        assert_eq!(class, jit("fuzz::mp_N::impl", "Slot(N)"));
        // Cut for length at different places: the partial word goes.
        assert_eq!(
            line_class("internal error: at `fuzz::f` read fr…"),
            line_class("internal error: at `fuzz::main` read from…")
        );
        // Builtins in quotes and different templates stay apart.
        assert_ne!(
            line_class("panic: `len` failed"),
            line_class("panic: `range` failed")
        );
        assert_ne!(
            jit("fuzz::main", "Gpr(Rcx)"),
            line_class("native crash: the jit worker was killed by signal N (SIGSEGV)")
        );
        assert_eq!(
            line_class("native crash: the jit worker was killed by signal N (SIGSEGV)"),
            "native crash: the jit worker was killed by signal N (a wild access or jump)"
        );
        // One wild jump may end with any of these (jit-epilogue-off-by-eight
        // gave SIGSEGV and SIGABRT in one campaign); a division trap stays apart.
        assert_eq!(
            line_class("native crash: the jit worker was killed by signal N (SIGABRT)"),
            line_class("native crash: the jit worker was killed by signal N (SIGSEGV)")
        );
        assert_ne!(
            line_class("native crash: the jit worker was killed by signal N (SIGFPE)"),
            line_class("native crash: the jit worker was killed by signal N (SIGSEGV)")
        );
        // Lines with `≠` are classed as before, with quoted names abstracted.
        assert_eq!(
            line_class("lines missing (error: <none> ≠ TypeError: method `SN::aN` does not exist)"),
            "lines missing (error: <none> ≠ TypeError: method `v` does not exist)"
        );
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
