//! Unit tests of the parser entry points: error priorities, name ids, and
//! the nesting limits (deep inputs must fail cleanly, never overflow the
//! stack). The fixture snapshots live in `interp/tests/parser_fixtures.rs`.

use super::*;
use crate::error::ExcKind;
use crate::syntax::ast::StmtKind;

fn kind_of(src: &str) -> ParseErrorKind {
    match parse_str(src) {
        Ok(m) => panic!("expected an error, got {}", dump::dump_module(&m)),
        Err(e) => e.kind,
    }
}

fn func(body: &str) -> String {
    format!("def f() -> None:\n    {body}\n")
}

#[test]
fn empty_module() {
    let m = parse_str("").unwrap();
    assert!(m.body().is_empty());
    assert_eq!(m.name_count, 0);
}

#[test]
fn name_ids_are_dense_after_special_decorators() {
    let m = parse_str("@blue.generic\ndef f(x):\n    return x\n").unwrap();
    // `blue` and `generic` were handed ids 0 and 1, then dropped.
    assert_eq!(m.name_count, 3);
    let StmtKind::FuncDef(f) = &m.body().get(0).expect("a statement").kind() else {
        panic!("not a def")
    };
    assert_eq!(f.name.id, ast::NameId(0));
    assert_eq!(f.params.first().expect("a param").name.id, ast::NameId(1));
}

#[test]
fn struct_decorator_is_not_kept() {
    let m = parse_str("@struct\nclass C:\n    x: i32\n").unwrap();
    let StmtKind::ClassDef(c) = &m.body().get(0).expect("a statement").kind() else {
        panic!("not a class")
    };
    assert!(c.is_struct);
    assert!(c.decorators.is_empty());
    assert_eq!(c.name.id, ast::NameId(0));
}

#[test]
fn decorators_that_are_not_special_stay() {
    let m = parse_str("@struct\ndef f() -> None:\n    pass\n@blue\nclass C:\n    pass\n").unwrap();
    let StmtKind::FuncDef(f) = &m.body().get(0).expect("a statement").kind() else {
        panic!()
    };
    assert_eq!(f.decorators.len(), 1);
    assert_eq!(f.color, ast::FuncColor::Red);
    let StmtKind::ClassDef(c) = &m.body().get(1).expect("a statement").kind() else {
        panic!()
    };
    assert_eq!(c.decorators.len(), 1);
    assert!(!c.is_struct);
}

#[test]
fn last_special_decorator_wins() {
    let m = parse_str("@blue\n@blue.metafunc\ndef f(x):\n    return x\n").unwrap();
    let StmtKind::FuncDef(f) = &m.body().get(0).expect("a statement").kind() else {
        panic!()
    };
    assert_eq!(f.kind, ast::FuncKind::Metafunc);
    assert_eq!(f.color, ast::FuncColor::Blue);
}

#[test]
fn syntax_errors_beat_unsupported_constructs() {
    let src = "def f() -> None:\n    g = lambda: 1\n    x = = 2\n";
    assert_eq!(kind_of(src), ParseErrorKind::InvalidSyntax { expected: None });
}

#[test]
fn earliest_unsupported_construct_wins() {
    let src = "def f() -> None:\n    a = b = 1\n    g = lambda: 1\n";
    assert_eq!(
        kind_of(src),
        ParseErrorKind::NotImplemented("assign to multiple targets".into())
    );
}

#[test]
fn module_level_check_comes_before_contents() {
    assert_eq!(
        kind_of("try:\n    pass\nfinally:\n    pass\n"),
        ParseErrorKind::NotAllowedAtGlobalScope
    );
    assert_eq!(
        kind_of("print(lambda: 1)\n"),
        ParseErrorKind::NotAllowedAtGlobalScope
    );
}

#[test]
fn break_inside_loops_is_fine() {
    parse_str(&func(
        "while x:\n        if y:\n            break\n        continue",
    ))
    .unwrap();
    parse_str(&func(
        "for i in x:\n        while y:\n            break\n        break",
    ))
    .unwrap();
}

#[test]
fn type_params_with_blue_decorator_are_kept() {
    // Upstream rejects type parameters only with non-special decorators.
    let m = parse_str("@blue\ndef f[T](x: T) -> T:\n    return x\n").unwrap();
    let StmtKind::FuncDef(f) = &m.body().get(0).expect("a statement").kind() else {
        panic!()
    };
    assert_eq!(f.type_params.map(|t| t.len()), Some(1));
}

#[test]
fn error_classes() {
    let file = SourceFile::new("t.spy", "def f():\n\tif x:\n        pass\n");
    assert_eq!(parse_module(&file).unwrap_err().kind, ExcKind::TabError);
    let file = SourceFile::new("t.spy", "def f():\nreturn\n");
    assert_eq!(parse_module(&file).unwrap_err().kind, ExcKind::IndentationError);
    let file = SourceFile::new("t.spy", "x = = 1\n");
    let err = parse_module(&file).unwrap_err();
    assert_eq!(err.headline(), "ParseError: invalid syntax");
}

#[test]
fn parse_bytes_rejects_invalid_utf8_at_the_first_bad_byte() {
    let err = parse_bytes("t.spy", b"x = 1\ny = \xff\xfe\n").unwrap_err();
    assert_eq!(err.headline(), "ParseError: invalid utf-8 in source");
    assert_eq!(err.annotations[0].range.start, 10);
    let (file, m) = parse_bytes("t.spy", b"x = 1\n").unwrap();
    assert_eq!(file.path, "t.spy");
    assert_eq!(m.body().len(), 1);
}

#[test]
fn parse_command_output_is_the_dump() {
    let out = parse_command_output("t.spy", b"x = 1\n").unwrap();
    assert!(out.starts_with("Module name_count=1\n  Assign @0..5\n"), "{out}");
}

// ----------------------------------------------------------- deep inputs

/// Deep inputs fail with an error (not a stack overflow) on a test thread's
/// default 2 MiB stack.
#[test]
fn deep_inputs_are_rejected_without_overflow() {
    let cases: Vec<(String, ParseErrorKind)> = vec![
        ("(".repeat(100_000), ParseErrorKind::TooManyNestedParens),
        ("[".repeat(100_000), ParseErrorKind::TooManyNestedParens),
        (
            format!("x = {}1\n", "-".repeat(100_000)),
            ParseErrorKind::TooDeeplyNested,
        ),
        (
            format!("x = {}1\n", "1+".repeat(200_000)),
            ParseErrorKind::TooDeeplyNested,
        ),
        (
            format!("x = {}x\n", "not ".repeat(100_000)),
            ParseErrorKind::TooDeeplyNested,
        ),
        (
            format!("x = {}2\n", "2**".repeat(100_000)),
            ParseErrorKind::TooDeeplyNested,
        ),
        (
            format!("x = a{}\n", ".b".repeat(100_000)),
            ParseErrorKind::TooDeeplyNested,
        ),
        (
            format!("x = f{}\n", "()".repeat(100_000)),
            ParseErrorKind::TooDeeplyNested,
        ),
        (
            format!("x = a{}\n", "[0]".repeat(100_000)),
            ParseErrorKind::TooDeeplyNested,
        ),
        (
            format!("x = {}c\n", "a if b else ".repeat(100_000)),
            ParseErrorKind::TooDeeplyNested,
        ),
        (
            format!("x = {}\n", "a < ".repeat(100_000) + "b"),
            ParseErrorKind::TooDeeplyNested,
        ),
        (
            func(&format!(
                "if x:\n        pass\n{}",
                "    elif x:\n        pass\n".repeat(5_000)
            )),
            ParseErrorKind::TooDeeplyNested,
        ),
    ];
    for (src, expected) in cases {
        let got = parse_str(&src).map(|_| ()).map_err(|e| e.kind);
        assert_eq!(got, Err(expected), "input starting {:?}", &src[..20]);
    }
}

#[test]
fn lambda_chains_do_not_build_deep_trees() {
    let src = func(&format!("g = {}1", "lambda: ".repeat(100_000)));
    assert_eq!(kind_of(&src), ParseErrorKind::NotImplemented("Lambda".into()));
}

#[test]
fn nesting_up_to_the_limit_is_accepted() {
    // 997 unary minus + the literal + Assign + FuncDef = 1000 levels.
    let src = func(&format!("x = {}1", "-".repeat(997)));
    let m = parse_str(&src).unwrap();
    let dumped = dump::dump_module(&m);
    assert!(dumped.lines().count() > 997);
    let one_more = func(&format!("x = {}1", "-".repeat(998)));
    assert_eq!(kind_of(&one_more), ParseErrorKind::TooDeeplyNested);
}

#[test]
fn statements_and_expressions_add_up_to_the_limit() {
    // 90 nested blocks + a 950-deep expression exceed 1000 levels together.
    let mut src = String::from("def f() -> None:\n");
    for i in 1..=90 {
        src += &"    ".repeat(i);
        src += "if x:\n";
    }
    src += &"    ".repeat(91);
    src += &format!("y = {}1\n", "-".repeat(950));
    assert_eq!(kind_of(&src), ParseErrorKind::TooDeeplyNested);
}
