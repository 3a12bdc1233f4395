//! Lexer unit tests: layout tokens, literals, soft keywords, errors.

use super::*;

fn toks(src: &str) -> Vec<Tok<'_>> {
    tokenize(src)
        .unwrap_or_else(|e| panic!("lex error {e} in {src:?}"))
        .into_iter()
        .map(|(_, t, _)| t)
        .collect()
}

fn err(src: &str) -> ParseErrorKind {
    match tokenize(src) {
        Ok(t) => panic!("expected an error for {src:?}, got {t:?}"),
        Err(e) => e.kind,
    }
}

fn name(s: &str) -> Tok<'_> {
    Tok::Name(s)
}

#[test]
fn empty_and_blank_sources_have_no_tokens() {
    assert!(toks("").is_empty());
    assert!(toks("\n\n  \n# comment\n   # another\n").is_empty());
}

#[test]
fn final_newline_is_added_only_when_missing() {
    assert_eq!(toks("x"), vec![name("x"), Tok::Newline]);
    assert_eq!(toks("x\n"), vec![name("x"), Tok::Newline]);
    assert_eq!(toks("x\r\n"), vec![name("x"), Tok::Newline]);
}

#[test]
fn indentation_produces_indent_and_dedents_at_eof() {
    let t = toks("if a:\n    if b:\n        c\n");
    assert_eq!(
        t,
        vec![
            Tok::If,
            name("a"),
            Tok::Colon,
            Tok::Newline,
            Tok::Indent,
            Tok::If,
            name("b"),
            Tok::Colon,
            Tok::Newline,
            Tok::Indent,
            name("c"),
            Tok::Newline,
            Tok::Dedent,
            Tok::Dedent,
        ]
    );
}

#[test]
fn dedent_several_levels_at_once() {
    let t = toks("a:\n  b:\n    c\nd\n");
    let dedents = t.iter().filter(|t| **t == Tok::Dedent).count();
    assert_eq!(dedents, 2);
    assert_eq!(t.last(), Some(&Tok::Newline));
}

#[test]
fn blank_and_comment_lines_do_not_change_indentation() {
    let t = toks("if a:\n    b\n\n  # odd comment\n    c\n");
    assert_eq!(t.iter().filter(|t| **t == Tok::Indent).count(), 1);
    assert_eq!(t.iter().filter(|t| **t == Tok::Dedent).count(), 1);
}

#[test]
fn indentation_errors() {
    assert_eq!(err("if a:\n    b\n  c\n"), ParseErrorKind::UnindentMismatch);
    assert_eq!(err("if a:\n\tb\n        c\n"), ParseErrorKind::InconsistentTabs);
}

#[test]
fn brackets_join_lines() {
    let t = toks("x = (1,\n  2)\ny\n");
    assert_eq!(t.iter().filter(|t| **t == Tok::Newline).count(), 2);
    assert!(!t.contains(&Tok::Indent));
}

#[test]
fn backslash_continuation() {
    let t = toks("x = 1 + \\\n    2\n");
    assert_eq!(
        t,
        vec![
            name("x"),
            Tok::Equal,
            Tok::Int(1),
            Tok::Plus,
            Tok::Int(2),
            Tok::Newline
        ]
    );
    assert_eq!(err("x = 1 \\ 2\n"), ParseErrorKind::LineContinuation);
    assert_eq!(err("x = 1 \\\n"), ParseErrorKind::UnexpectedEof);
}

#[test]
fn bracket_errors() {
    assert_eq!(err("x = (\n"), ParseErrorKind::UnclosedBracket('('));
    assert_eq!(err("x = )\n"), ParseErrorKind::UnmatchedBracket(')'));
    assert_eq!(
        err("x = (]\n"),
        ParseErrorKind::MismatchedBracket {
            open: '(',
            close: ']'
        }
    );
    let deep = "(".repeat(MAX_BRACKET_DEPTH);
    assert_eq!(err(&format!("{deep})")), ParseErrorKind::UnclosedBracket('('));
    let too_deep = "(".repeat(MAX_BRACKET_DEPTH + 1);
    assert_eq!(err(&too_deep), ParseErrorKind::TooManyNestedParens);
}

#[test]
fn numbers() {
    assert_eq!(toks("0 7 1_000")[..3], [Tok::Int(0), Tok::Int(7), Tok::Int(1000)]);
    assert_eq!(
        toks("0xFF 0o17 0b101 0x_1f")[..4],
        [Tok::Int(255), Tok::Int(15), Tok::Int(5), Tok::Int(31)]
    );
    assert_eq!(
        toks("1.5 .5 5. 1e5 1E-2 1_0.2_5 1.e3")[..7],
        [
            Tok::Float(1.5),
            Tok::Float(0.5),
            Tok::Float(5.0),
            Tok::Float(1e5),
            Tok::Float(0.01),
            Tok::Float(10.25),
            Tok::Float(1000.0)
        ]
    );
    assert_eq!(toks("18446744073709551615")[0], Tok::Int(u64::MAX));
    assert_eq!(toks("00")[0], Tok::Int(0));
    // CPython tolerates a keyword glued to a number.
    assert_eq!(toks("1if x else 2")[..3], [Tok::Int(1), Tok::If, name("x")]);
}

#[test]
fn number_errors() {
    assert_eq!(err("18446744073709551616"), ParseErrorKind::IntegerTooLarge);
    assert_eq!(err("0xFFFFFFFFFFFFFFFFF"), ParseErrorKind::IntegerTooLarge);
    assert_eq!(
        err("1j"),
        ParseErrorKind::NotImplemented("complex literals".into())
    );
    assert_eq!(
        err("1__0"),
        ParseErrorKind::InvalidNumber("invalid decimal literal")
    );
    assert_eq!(
        err("1_"),
        ParseErrorKind::InvalidNumber("invalid decimal literal")
    );
    assert_eq!(
        err("1e"),
        ParseErrorKind::InvalidNumber("invalid decimal literal")
    );
    assert_eq!(
        err("1abc"),
        ParseErrorKind::InvalidNumber("invalid decimal literal")
    );
    assert_eq!(
        err("0x"),
        ParseErrorKind::InvalidNumber("invalid hexadecimal literal")
    );
    assert_eq!(
        err("0o8"),
        ParseErrorKind::InvalidNumber("invalid digit '8' in octal literal")
    );
    assert_eq!(
        err("0b102"),
        ParseErrorKind::InvalidNumber("invalid digit '2' in binary literal")
    );
    assert_eq!(err("007"), ParseErrorKind::LeadingZeros);
}

#[test]
fn strings_and_escapes() {
    assert_eq!(
        toks(r#"'a' "b""#)[..2],
        [Tok::Str("a".into()), Tok::Str("b".into())]
    );
    assert_eq!(
        toks(r#""\n\t\\\'\"\x41\u00e9\U0001F600\101\0""#)[0],
        Tok::Str("\n\t\\'\"A\u{e9}\u{1F600}A\0".into())
    );
    assert_eq!(toks(r#""\d""#)[0], Tok::Str("\\d".into()));
    assert_eq!(toks(r#"r"\n\"""#)[0], Tok::Str("\\n\\\"".into()));
    assert_eq!(toks(r#"R'\x'"#)[0], Tok::Str("\\x".into()));
    assert_eq!(toks(r#"u"x""#)[0], Tok::Str("x".into()));
    assert_eq!(
        toks(r#"b"a\x00\xff\777""#)[0],
        Tok::Bytes(vec![b'a', 0, 0xff, 0xff])
    );
    assert_eq!(toks(r#"Rb"\x""#)[0], Tok::Bytes(b"\\x".to_vec()));
    assert_eq!(toks(r#"bR"\x""#)[0], Tok::Bytes(b"\\x".to_vec()));
    assert_eq!(
        toks("'''a\nb''' \"\"\"c\"d\"\"\"")[..2],
        [Tok::Str("a\nb".into()), Tok::Str("c\"d".into())]
    );
    assert_eq!(toks("'''a\r\nb'''")[0], Tok::Str("a\nb".into()));
    assert_eq!(toks("'a\\\nb'")[0], Tok::Str("ab".into()));
    assert_eq!(toks("'é'")[0], Tok::Str("é".into()));
    assert_eq!(toks("f'{x}'")[0], Tok::FString);
    assert_eq!(toks("f'{d[\"k\"]}' 1")[..2], [Tok::FString, Tok::Int(1)]);
}

#[test]
fn string_errors() {
    assert_eq!(err("x = 'abc\n"), ParseErrorKind::UnterminatedString { line: 1 });
    assert_eq!(
        err("x = '''abc\n"),
        ParseErrorKind::UnterminatedTripleQuotedString { line: 1 }
    );
    assert_eq!(
        err("\nx = '''abc\n\n"),
        ParseErrorKind::UnterminatedTripleQuotedString { line: 3 }
    );
    assert!(
        matches!(err(r#""\x4""#), ParseErrorKind::InvalidEscape(m) if m.contains("truncated \\xXX escape"))
    );
    assert!(matches!(err(r#"b"\x4""#), ParseErrorKind::InvalidEscape(m) if m.contains("invalid \\x escape")));
    assert!(
        matches!(err(r#""\U00110000""#), ParseErrorKind::InvalidEscape(m) if m.contains("illegal Unicode character"))
    );
    assert!(matches!(err(r#""\ud800""#), ParseErrorKind::NotImplemented(_)));
    assert_eq!(err("b'é'"), ParseErrorKind::BytesNonAscii);
}

#[test]
fn soft_keywords() {
    assert_eq!(toks("var x")[..2], [Tok::Var, name("x")]);
    assert_eq!(toks("const  x")[..2], [Tok::Const, name("x")]);
    assert_eq!(toks("var = 3")[..2], [name("var"), Tok::Equal]);
    assert_eq!(toks("for var in x")[..3], [Tok::For, name("var"), Tok::In]);
    assert_eq!(toks("var.x")[0], name("var"));
    assert_eq!(toks("var\nx")[0], name("var"));
    assert_eq!(toks("var 'x'")[0], name("var"));
    assert_eq!(toks("var r'x'")[0], name("var"));
    assert_eq!(toks("var var")[..2], [Tok::Var, name("var")]);
    assert_eq!(toks("var rx")[..2], [Tok::Var, name("rx")]);
}

#[test]
fn operators_longest_match() {
    assert_eq!(
        toks("** **= // //= << <<= >> >>= -> := ... . @ @= != == <= >= ~"),
        vec![
            Tok::DoubleStar,
            Tok::DoubleStarEqual,
            Tok::DoubleSlash,
            Tok::DoubleSlashEqual,
            Tok::LeftShift,
            Tok::LeftShiftEqual,
            Tok::RightShift,
            Tok::RightShiftEqual,
            Tok::Arrow,
            Tok::ColonEqual,
            Tok::Ellipsis,
            Tok::Dot,
            Tok::At,
            Tok::AtEqual,
            Tok::NotEqual,
            Tok::EqEqual,
            Tok::LessEqual,
            Tok::GreaterEqual,
            Tok::Tilde,
            Tok::Newline,
        ]
    );
}

#[test]
fn identifiers_are_unicode() {
    assert_eq!(toks("été _x1")[..2], [name("été"), name("_x1")]);
}

#[test]
fn invalid_characters() {
    assert_eq!(err("x = €"), ParseErrorKind::InvalidCharacter('€'));
    assert_eq!(err("x = \u{a0}"), ParseErrorKind::NonPrintableCharacter('\u{a0}'));
    assert_eq!(err("x = \u{1}"), ParseErrorKind::NonPrintableCharacter('\u{1}'));
    assert_eq!(err("x = \0"), ParseErrorKind::NullByte);
    assert_eq!(err("x = $"), ParseErrorKind::InvalidSyntax { expected: None });
    assert_eq!(err("x = !"), ParseErrorKind::InvalidSyntax { expected: None });
}

#[test]
fn ranges_are_byte_offsets() {
    let t = tokenize("ab = 'é'\n").unwrap();
    assert_eq!((t[0].0, t[0].2), (0, 2));
    assert_eq!((t[2].0, t[2].2), (5, 9));
    assert_eq!((t[3].0, t[3].2), (9, 10));
}

#[test]
fn byte_order_mark_is_skipped() {
    assert_eq!(toks("\u{feff}x"), vec![name("x"), Tok::Newline]);
}

#[test]
fn iterator_stops_after_an_error() {
    let mut lx = Lexer::new("x = $ y");
    assert!(matches!(lx.next(), Some(Ok(_))));
    assert!(matches!(lx.next(), Some(Ok(_))));
    assert!(matches!(lx.next(), Some(Err(_))));
    assert!(lx.next().is_none());
}

#[test]
fn backquoted_names_are_names() {
    assert_eq!(
        toks("`add[i32]`(1, `x$1`)"),
        vec![
            name("add[i32]"),
            Tok::Lpar,
            Tok::Int(1),
            Tok::Comma,
            name("x$1"),
            Tok::Rpar,
            Tok::Newline,
        ]
    );
    // Spaces, `#`, quotes, brackets and non-ASCII are plain text inside.
    assert_eq!(
        toks("`make_adder[i32, 4]::adder#1`")[0],
        name("make_adder[i32, 4]::adder#1")
    );
    assert_eq!(toks("`a 'b\" (é`")[0], name("a 'b\" (é"));
    // Keywords and soft keywords in backquotes are names.
    assert_eq!(toks("`if`")[0], name("if"));
    assert_eq!(toks("`None`")[0], name("None"));
    assert_eq!(toks("`var` = 1")[0], name("var"));
}

#[test]
fn backquoted_names_have_their_whole_range() {
    let t = tokenize("x = `é$1`\n").unwrap();
    assert_eq!(t[2].1, name("é$1"));
    assert_eq!((t[2].0, t[2].2), (4, 10));
}

#[test]
fn soft_keywords_before_backquoted_names() {
    assert_eq!(toks("var `x$1` = 1")[..2], [Tok::Var, name("x$1")]);
    assert_eq!(toks("const `if`: i32 = 1")[..2], [Tok::Const, name("if")]);
}

#[test]
fn backquoted_name_errors() {
    let unterminated = ParseErrorKind::Syntax("unterminated backquoted name".into());
    assert_eq!(err("x = `abc"), unterminated);
    assert_eq!(err("x = `abc\ny`"), unterminated);
    assert_eq!(err("x = `abc\r\n"), unterminated);
    assert_eq!(err("`"), unterminated);
    assert_eq!(
        err("x = ``"),
        ParseErrorKind::Syntax("empty backquoted name".into())
    );
    assert_eq!(err("x = `a\0`"), ParseErrorKind::NullByte);
    let e = tokenize("x = `abc\n").unwrap_err();
    assert_eq!((e.range.start, e.range.end), (4, 8));
    assert_eq!(e.to_string(), "unterminated backquoted name");
}

/// Python 3.12's hard keywords (`keyword.kwlist`).
const HARD_KEYWORDS: [&str; 35] = [
    "False", "None", "True", "and", "as", "assert", "async", "await", "break", "class", "continue", "def",
    "del", "elif", "else", "except", "finally", "for", "from", "global", "if", "import", "in", "is",
    "lambda", "nonlocal", "not", "or", "pass", "raise", "return", "try", "while", "with", "yield",
];

#[test]
fn every_hard_keyword_and_no_near_miss_is_a_keyword() {
    for kw in HARD_KEYWORDS {
        let tok = keyword(kw).unwrap_or_else(|| panic!("{kw} is a keyword"));
        assert_eq!(tok.text(), kw);
        assert_eq!(
            toks(&format!("{kw} x")),
            vec![tok.clone(), name("x"), Tok::Newline]
        );
        let misses = [
            kw[1..].to_string(),
            kw[..kw.len() - 1].to_string(),
            format!("{kw}_"),
            format!("_{kw}"),
            format!("{kw}s"),
            kw.to_uppercase(),
            kw.to_lowercase(),
        ];
        for miss in misses {
            if !HARD_KEYWORDS.contains(&miss.as_str()) {
                assert!(keyword(&miss).is_none(), "{miss} is not a keyword");
                assert_eq!(toks(&miss), vec![name(&miss), Tok::Newline]);
            }
        }
    }
    for word in [
        "",
        "a",
        "x",
        "var",
        "const",
        "print",
        "match",
        "case",
        "type",
        "continued",
        "nonlocals",
    ] {
        assert!(keyword(word).is_none(), "{word} is not a keyword");
    }
}

#[test]
fn the_name_byte_table_is_ascii_letters_digits_and_underscore() {
    for b in 0..=255u8 {
        assert_eq!(
            NAME_BYTE[b as usize],
            b.is_ascii_alphanumeric() || b == b'_',
            "byte {b}"
        );
    }
    assert_eq!(
        toks("a_1Z é9 _"),
        vec![name("a_1Z"), name("é9"), name("_"), Tok::Newline]
    );
}
