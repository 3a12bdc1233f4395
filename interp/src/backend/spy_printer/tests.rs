//! Printer unit tests: canonical lines print back unchanged, parentheses
//! are minimal, literals and names are spelled so the lexer reads them back.

use super::*;
use crate::source::TextRange;
use crate::syntax::ast::{
    BinOp, ExprId, ExprKind, ExprNode, FuncNode, Identifier, Lit64, Module, NameId, StmtNode, UnaryOp,
};
use crate::syntax::parse_str;

fn parse(src: &str) -> Module {
    parse_str(src).unwrap_or_else(|e| panic!("{e} at {:?} in:\n{src}", e.range))
}

const R0: TextRange = TextRange { start: 0, end: 0 };

/// The expression `build` makes in a fresh module, printed on its own.
fn printed(build: impl FnOnce(&mut Module) -> ExprId) -> String {
    let mut m = Module::new();
    let e = build(&mut m);
    print_expr(&m.expr(e))
}

fn lit(m: &mut Module, node: ExprNode) -> ExprId {
    m.add_expr(node, R0)
}

fn name(m: &mut Module, n: &str) -> ExprId {
    m.add_name(n.into(), NameId(0), R0)
}

fn id(m: &mut Module, n: &str) -> crate::syntax::ast::IdentId {
    m.add_ident(Identifier {
        name: n.into(),
        range: R0,
        id: NameId(0),
    })
}

/// The value of the first statement of `m`, an assignment (or `x = e`).
fn assigned(m: &Module) -> ExprKind<'_> {
    match m.body().first().map(|s| s.kind()) {
        Some(StmtKind::Assign { value, .. }) => value.kind(),
        other => panic!("{other:?}"),
    }
}

/// `line` inside a function body prints back exactly.
fn canonical(line: &str) {
    let src = format!("def f():\n    {line}\n");
    assert_eq!(print_module(parse(&src).body()), src, "not canonical: {line}");
}

/// `line` inside a function body prints as `expected`.
fn prints_as(line: &str, expected: &str) {
    let src = format!("def f():\n    {line}\n");
    let want = format!("def f():\n    {expected}\n");
    assert_eq!(print_module(parse(&src).body()), want, "for {line}");
}

#[test]
fn binary_operators_get_minimal_parentheses() {
    for line in [
        "(a + b) * c",
        "a + b * c",
        "a - (b - c)",
        "a - b - c",
        "a ** b ** c",
        "(a ** b) ** c",
        "(-a) ** b",
        "a ** -b",
        "-(a ** b)",
        "a | b ^ c & d << e + f * g",
        "((a | b) ^ c) & d",
        "a @ b // c % d / e",
        "a // (b * c)",
        "~a + -b - +c",
        "--a",
        "f(a)(b)[c].d",
        "(a + b).c",
        "(1).real",
        "(1.5).real",
        "(-1)[0]",
        "a[b + c, d:e, ::f]",
    ] {
        canonical(line);
    }
    prints_as("-a ** b", "-(a ** b)");
    prints_as("((a + b))", "a + b");
}

#[test]
fn boolean_and_comparison_operators() {
    for line in [
        "not (a and b)",
        "not a and b",
        "not a == b",
        "a or b and c",
        "(a or b) and c",
        "a and (b or c)",
        "a or (b or c)",
        "a or b or c",
        "(a < b) < c",
        "a < (b < c)",
        "a is not b",
        "a not in b",
        "(not a) + b",
        "a == (not b)",
        "a < b + c",
        "(a < b) + c",
    ] {
        canonical(line);
    }
}

#[test]
fn conditional_expressions_and_walrus() {
    for line in [
        "a if b else c",
        "a if b else c if d else e",
        "(a if b else c) if d else e",
        "a if (b if c else d) else e",
        "(a if b else c) + d",
        "f(x := 1)",
        "(x := 1)",
        "y = (x := 1)",
        "[x := 1, y]",
        "(x := 1, 2)",
        "a[x := 1]",
        "(x := 1) + 2",
    ] {
        canonical(line);
    }
    let src = "def f():\n    if x := g():\n        pass\n    while (y := h()) > 0:\n        pass\n";
    assert_eq!(print_module(parse(src).body()), src);
}

#[test]
fn tuples_starred_and_displays() {
    for line in [
        "x = ()",
        "x = (1,)",
        "x = (1, 2)",
        "x = (*a, 1)",
        "f(*a, b, *c)",
        "x = [*a, (b, c)]",
        "x = {}",
        "x = {a: b, (c, d): e}",
        "x = {a: b if c else d}",
        "return a, b",
        "return (a,)",
        "return ()",
        "a, b = f()",
        "(a,) = f()",
        "() = f()",
        "x = a[()]",
        "x = a[*b]",
        "x = a[*b, c]",
        "x = f(y for y in z)",
        "x = f((y for y in z), 1)",
        "x = (y for y in (a if b else c))",
        "x = ((y, z) for y in w)",
        "x = a[(b, c), d]",
        "for i in (a, b):",
    ] {
        if line.starts_with("for") {
            let src = format!("def f():\n    {line}\n        pass\n");
            assert_eq!(print_module(parse(&src).body()), src);
            continue;
        }
        canonical(line);
    }
    prints_as("x = 1, 2", "x = (1, 2)");
    prints_as("return (a, b)", "return a, b");
    prints_as("(a, b) = c", "a, b = c");
}

#[test]
fn statements() {
    let src = "\
from a.b import c, d as e
import m
import m.n as o
x: i32 = 1
var y = (1, 2)
const z: str = 'z'

@blue
def f[T](a: T, b=1, c: i32 = 2, *args: *Ts) -> T:
    var w: i32
    w = a
    w += 1
    o.attr = 1
    o[1, 2] = 3
    while True:
        if a:
            pass
        elif b:
            return
        elif c:
            break
        else:
            continue
        raise E('x')
    for i in range(3):
        assert i, 'msg'
        assert i
    print(w)

@struct
class P[T]:
    a: T
    b: i32

    def m(self) -> None:
        pass

@deco(1)
@blue.generic
class Q:
    pass
";
    assert_eq!(print_module(parse(src).body()), src);
}

#[test]
fn else_with_more_than_an_if_is_not_an_elif() {
    let src =
        "def f():\n    if a:\n        pass\n    else:\n        if b:\n            pass\n        x = 1\n";
    assert_eq!(print_module(parse(src).body()), src);
}

#[test]
fn special_decorators_come_first() {
    let src = "@other\n@blue.metafunc\ndef f(m):\n    pass\n";
    let want = "@blue.metafunc\n@other\ndef f(m):\n    pass\n";
    assert_eq!(print_module(parse(src).body()), want);
}

#[test]
fn names_are_backquoted_when_they_must_be() {
    assert!(is_plain_identifier("x"));
    assert!(is_plain_identifier("_x1"));
    assert!(is_plain_identifier("été"));
    for n in [
        "", "1x", "x$1", "add[i32]", "a b", "if", "None", "True", "var", "const", "€",
    ] {
        assert!(!is_plain_identifier(n), "{n}");
    }
    assert_eq!(format_name("x"), "x");
    assert_eq!(format_name("add[i32]"), "`add[i32]`");
    assert_eq!(format_name("var"), "`var`");
    canonical("`var` = `x$1`.`if` + `add[i32]`(1)");
    canonical("var `x$1`: `Pair[i32]` = `None`");
    canonical("const `if` = 1");
    canonical("for `i$0` in x:\n        pass");
    let src = "import `a b`.c as `d$1`\nfrom `m[1]` import `x y` as `if`\n";
    assert_eq!(print_module(parse(src).body()), src);
}

#[test]
fn string_literals_read_back() {
    for s in [
        "",
        "plain",
        "it's",
        "say \"hi\"",
        "both ' and \"",
        "back\\slash",
        "nl\ncr\rtab\t",
        "\0\x01\x1f\x7f",
        "é€😀",
        "\u{85}\u{2028}",
        "\\x41",
        "'''",
        "a\\",
    ] {
        let mut module = Module::new();
        let lit = module.add_str(s);
        let e = module.add_expr(ExprNode::Str(lit), R0);
        let stmt = module.add_stmt(StmtNode::Expr(e), R0);
        module.body = module.add_block([stmt]);
        let text = print_module(module.body());
        let back = parse(&text);
        match back.body().first().map(|s| s.kind()) {
            Some(StmtKind::Expr(e)) => assert_eq!(e.kind(), ExprKind::Str(s), "{text}"),
            other => panic!("{other:?}"),
        }
    }
    canonical("x = 'it\\'s \"q\"'");
    canonical("x = \"it's\"");
    canonical("x = 'a\\nb\\x00\\x7f\\\\'");
}

#[test]
fn bytes_literals_read_back() {
    let all: Vec<u8> = (0..=255).collect();
    for b in [all.as_slice(), b"", b"it's", b"\"'"] {
        let x = printed(|m| {
            let b = m.add_bytes(b);
            lit(m, ExprNode::Bytes(b))
        });
        let back = parse(&format!("x = {x}\n"));
        assert_eq!(assigned(&back), ExprKind::Bytes(b));
    }
    canonical("x = b\"a\\x00\\xff'\"");
}

#[test]
fn float_literals() {
    for (v, text) in [
        (1.5, "1.5"),
        (0.0, "0.0"),
        (1e16, "1e+16"),
        (1e-5, "1e-05"),
        (0.1, "0.1"),
        (f64::INFINITY, "1e999"),
        (f64::MAX, "1.7976931348623157e+308"),
        (5e-324, "5e-324"),
    ] {
        assert_eq!(printed(|m| lit(m, ExprNode::Float(Lit64::from_f64(v)))), text);
        let back = parse(&format!("x = {text}\n"));
        assert_eq!(assigned(&back), ExprKind::Float(v));
    }
    assert_eq!(
        printed(|m| lit(m, ExprNode::Float(Lit64::from_f64(-1.5)))),
        "-1.5"
    );
    assert_eq!(
        printed(|m| lit(m, ExprNode::Float(Lit64::from_f64(f64::NEG_INFINITY)))),
        "-1e999"
    );
    assert_eq!(
        printed(|m| lit(m, ExprNode::Float(Lit64::from_f64(f64::NAN)))),
        "1e999 - 1e999"
    );
    // A negative literal is a unary minus for the parser: parenthesize it.
    let pow = |m: &mut Module, left: ExprId, right: ExprId| {
        lit(
            m,
            ExprNode::BinOp {
                left,
                op: BinOp::Pow,
                right,
            },
        )
    };
    assert_eq!(
        printed(|m| {
            let (l, r) = (lit(m, ExprNode::Float(Lit64::from_f64(-2.0))), name(m, "x"));
            pow(m, l, r)
        }),
        "(-2.0) ** x"
    );
    assert_eq!(
        printed(|m| {
            let (l, r) = (name(m, "x"), lit(m, ExprNode::Float(Lit64::from_f64(-2.0))));
            pow(m, l, r)
        }),
        "x ** -2.0"
    );
    let attr = printed(|m| {
        let value = lit(m, ExprNode::Float(Lit64::from_f64(-2.0)));
        let attr = id(m, "a");
        lit(m, ExprNode::Attribute { value, attr })
    });
    assert_eq!(attr, "(-2.0).a");
    let neg = printed(|m| {
        let operand = lit(m, ExprNode::Float(Lit64::from_f64(-2.0)));
        lit(
            m,
            ExprNode::UnaryOp {
                op: UnaryOp::Neg,
                operand,
            },
        )
    });
    assert_eq!(neg, "--2.0");
    // NaN is a subtraction for the parser: parenthesized only where one is.
    assert_eq!(
        printed(|m| {
            let (l, r) = (lit(m, ExprNode::Float(Lit64::from_f64(f64::NAN))), name(m, "x"));
            pow(m, l, r)
        }),
        "(1e999 - 1e999) ** x"
    );
    let call = printed(|m| {
        let func = name(m, "f");
        let arg = lit(m, ExprNode::Float(Lit64::from_f64(f64::NAN)));
        m.add_call(func, [arg], R0)
    });
    assert_eq!(call, "f(1e999 - 1e999)");
    canonical("x = 1e+16 + 1.0 + 123456789.0");
}

#[test]
fn walrus_and_starred_standing_alone() {
    let walrus = printed(|m| {
        let target = id(m, "x");
        let value = name(m, "y");
        lit(m, ExprNode::Walrus { target, value })
    });
    assert_eq!(walrus, "(x := y)");
    canonical("(x := y)");
}

#[test]
fn comments_and_empty_blocks() {
    let mut m = Module::new();
    let comment = |m: &mut Module, text: &str| {
        let text = m.add_str(text);
        m.add_stmt(StmtNode::Comment(text), R0)
    };
    let def = |m: &mut Module, n: &str, body: Vec<crate::syntax::ast::StmtId>| {
        let name = id(m, n);
        let decorators = m.add_exprs([]);
        let type_params = Some(m.add_idents([]));
        let params = m.add_params([]);
        let body = m.add_block(body);
        let f = m.add_func(FuncNode {
            name,
            color: FuncColor::Red,
            kind: FuncKind::Plain,
            decorators,
            type_params,
            params,
            return_type: None,
            body,
            proto_range: R0,
        });
        m.add_stmt(StmtNode::FuncDef(f), R0)
    };
    let only = comment(&mut m, "only\n\ncomments\r\nhere\rtoo");
    let body = vec![
        comment(&mut m, "from f"),
        def(&mut m, "f", vec![only]),
        comment(&mut m, "from g"),
        comment(&mut m, ""),
        def(&mut m, "g", Vec::new()),
        comment(&mut m, "the end"),
    ];
    m.body = m.add_block(body);
    let text = print_module(m.body());
    assert_eq!(
        text,
        "# from f\ndef f():\n    # only\n    #\n    # comments\n    # here\n    # too\n    pass\n\n\
         # from g\n#\ndef g():\n    pass\n\n# the end\n"
    );
    parse(&text);
}

#[test]
fn empty_module_prints_nothing() {
    assert_eq!(print_module(parse("").body()), "");
    assert_eq!(print_module(parse("x = 1\ny = 2\n").body()), "x = 1\ny = 2\n");
}

#[test]
fn deep_expressions_do_not_overflow() {
    // The deepest unary chain the parser accepts, on a test thread's stack.
    let src = format!("def f():\n    x = {}1\n", "-".repeat(990));
    let m = parse(&src);
    assert_eq!(print_module(m.body()), src);
}

/// A streaming redshift prints its residual `def`s one by one into pieces
/// of `PIECE_BYTES`, the full ones compressed, and joins them at the end:
/// the text and the origins are those of the module printed whole.
#[test]
fn defs_printed_one_by_one_in_packed_pieces_are_the_module_printed_whole() {
    let mut src = String::new();
    let mut i = 0;
    while src.len() < 2 * PIECE_BYTES + PIECE_BYTES / 2 {
        src.push_str(&format!(
            "def f{i}(a: i32) -> i32:\n    x = a * {i} + 1\n    return x\n\n"
        ));
        i += 1;
    }
    let m = parse(&src);
    let (whole_text, whole_origins) = print_module_with_origins(m.body());
    let mut defs = PrintedDefs::default();
    for def in m.body().iter() {
        defs.push(&def, None);
    }
    assert!(defs.pieces.len() >= 3, "{} pieces", defs.pieces.len());
    assert!(defs.pieces[..defs.pieces.len() - 1]
        .iter()
        .all(|p| p.packed.is_some() && p.text.is_empty()));
    let empty = parse("");
    let (text, origins) = print_module_with_defs(empty.body(), defs, None);
    assert!(
        text == whole_text,
        "the joined text differs from the whole module's"
    );
    assert!(
        origins == whole_origins,
        "the joined origins differ from the whole module's"
    );
    assert!(!origins.is_empty());
}
