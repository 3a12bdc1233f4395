//! Robustness of the parser on arbitrary input: random bytes and random
//! "token soups" (SPy tokens, brackets, newlines, indentation) must never
//! panic and must terminate; a success must satisfy the tree invariants and
//! an error must render. Deep-nesting inputs must fail cleanly (no stack
//! overflow on a test thread's default stack).

mod support;

use proptest::prelude::*;
use spy_interp::diag;
use spy_interp::syntax::parse_bytes;

/// Parse, then check whatever came out.
fn parse_and_check(bytes: &[u8]) {
    match parse_bytes("prop.spy", bytes) {
        Ok((file, module)) => {
            support::check_spans(&module, file.len() as u32);
            support::check_name_ids(&module);
            let _ = spy_interp::syntax::dump::dump_module(&module);
        }
        Err(err) => {
            assert_eq!(err.annotations.len(), 1);
            let a = &err.annotations[0];
            assert!(a.range.start <= a.range.end);
            assert!(a.range.end as usize <= a.file.len());
            let text = diag::render(&err);
            assert!(text.contains(&err.headline()), "{text}");
        }
    }
}

const VOCABULARY: &[&str] = &[
    // layout
    "\n",
    "\n",
    "\n",
    "\n    ",
    "\n    ",
    "\n        ",
    "\n\t",
    "\n  ",
    "\\\n",
    "#c\n",
    ";",
    // brackets
    "(",
    ")",
    "[",
    "]",
    "{",
    "}",
    // keywords and soft keywords
    "def",
    "class",
    "if",
    "elif",
    "else",
    "while",
    "for",
    "in",
    "return",
    "pass",
    "break",
    "continue",
    "raise",
    "from",
    "assert",
    "import",
    "as",
    "not",
    "and",
    "or",
    "is",
    "lambda",
    "try",
    "except",
    "finally",
    "with",
    "del",
    "global",
    "nonlocal",
    "async",
    "await",
    "yield",
    "None",
    "True",
    "False",
    "var",
    "const",
    // names
    "x",
    "y",
    "f",
    "T",
    "i32",
    "blue",
    "generic",
    "metafunc",
    "struct",
    "UNROLL_RANGE",
    // literals
    "0",
    "1",
    "42",
    "0x1F",
    "1.5",
    "1e3",
    "18446744073709551616",
    "1j",
    "007",
    "'s'",
    "\"s\"",
    "b'b'",
    "r'\\n'",
    "'''t\n'''",
    "f'{x}'",
    "'open",
    "\"\"\"open",
    // operators
    "+",
    "-",
    "*",
    "**",
    "/",
    "//",
    "%",
    "@",
    "<<",
    ">>",
    "&",
    "|",
    "^",
    "~",
    "<",
    ">",
    "<=",
    ">=",
    "==",
    "!=",
    ",",
    ":",
    ".",
    "...",
    "=",
    "->",
    ":=",
    "+=",
    "-=",
    "**=",
    "//=",
    "<<=",
    "@=",
    // oddities
    "€",
    "$",
    "!",
    "\t",
    " ",
    "  ",
];

fn token_soup() -> impl Strategy<Value = String> {
    proptest::collection::vec(proptest::sample::select(VOCABULARY), 0..120).prop_map(|toks| {
        let mut s = String::new();
        for t in toks {
            s.push_str(t);
            s.push(' ');
        }
        s
    })
}

/// Mostly valid-looking statements, to reach deeper into the grammar.
fn statement_soup() -> impl Strategy<Value = String> {
    const LINES: &[&str] = &[
        "def f(x: i32, *args: T, y=1) -> i32:",
        "@blue.generic",
        "@struct",
        "class C[T]:",
        "x: i32",
        "x = (*a, *(e for i in UNROLL_RANGE(n)),)",
        "return x if c else y",
        "for i in range(3):",
        "while x < 3:",
        "if a: pass",
        "elif b:",
        "else:",
        "pass",
        "break",
        "var v: i32 = 1",
        "const k = tuple[*ts]",
        "a, b = b, a",
        "o.x += 1",
        "f(x=1)",
        "a < b < c",
        "import m",
        "from m import (a, b as c)",
        "raise E('x')",
        "assert x, 'm'",
        "y = a[1:2, ::3]",
        "lambda: 1",
        "try:",
    ];
    let line = (0usize..4, proptest::sample::select(LINES))
        .prop_map(|(indent, l)| format!("{}{}\n", "    ".repeat(indent), l));
    proptest::collection::vec(line, 0..30).prop_map(|v| v.concat())
}

/// 1024 cases per property unless `PROPTEST_CASES` says otherwise.
fn config() -> ProptestConfig {
    let mut c = ProptestConfig::default();
    if std::env::var_os("PROPTEST_CASES").is_none() {
        c.cases = 1024;
    }
    c
}

proptest! {
    #![proptest_config(config())]

    #[test]
    fn random_bytes_never_panic(bytes in proptest::collection::vec(any::<u8>(), 0..256)) {
        parse_and_check(&bytes);
    }

    #[test]
    fn random_ascii_never_panics(s in "[ -~\t\n\r]{0,200}") {
        parse_and_check(s.as_bytes());
    }

    #[test]
    fn token_soups_never_panic(s in token_soup()) {
        parse_and_check(s.as_bytes());
    }

    #[test]
    fn statement_soups_never_panic(s in statement_soup()) {
        parse_and_check(s.as_bytes());
    }
}

// -------------------------------------------------------------- deep input

fn must_fail(src: String) {
    match parse_bytes("deep.spy", src.as_bytes()) {
        Ok(_) => panic!("a deeply nested input was accepted"),
        Err(e) => {
            let _ = diag::render(&e);
        }
    }
}

#[test]
fn deep_parentheses() {
    must_fail("(".repeat(100_000));
    must_fail(format!("x = {}1{}\n", "(".repeat(100_000), ")".repeat(100_000)));
}

#[test]
fn deep_unary_minus() {
    must_fail(format!("{}1", "-".repeat(100_000)));
    must_fail(format!("def f() -> None:\n    x = {}1\n", "-".repeat(100_000)));
}

#[test]
fn long_left_associative_chain() {
    must_fail(format!("{}1", "1+".repeat(200_000)));
    must_fail(format!("def f() -> None:\n    x = {}1\n", "1+".repeat(200_000)));
}

#[test]
fn deep_right_associative_chains() {
    must_fail(format!("def f() -> None:\n    x = {}2\n", "2**".repeat(100_000)));
    must_fail(format!(
        "def f() -> None:\n    x = {}c\n",
        "a if b else ".repeat(100_000)
    ));
}

#[test]
fn deep_postfix_chains() {
    must_fail(format!("def f() -> None:\n    x = f{}\n", "()".repeat(100_000)));
    must_fail(format!("def f() -> None:\n    x = a{}\n", ".b".repeat(100_000)));
}

#[test]
fn deep_indentation() {
    let mut src = String::from("def f() -> None:\n");
    for i in 1..200 {
        src += &" ".repeat(i);
        src += "if x:\n";
    }
    src += &" ".repeat(200);
    src += "pass\n";
    must_fail(src);
}
