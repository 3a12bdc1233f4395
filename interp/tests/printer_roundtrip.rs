//! Round trips through the SPy printer (`backend::print_module`):
//! - corpus: every conformance case, parser fixture and spec example that
//!   parses satisfies `parse(print(parse(src))) == parse(src)` up to ranges,
//!   name ids and `name_count`, and `print` is a fixpoint;
//! - execution: a printed conformance case or spec example runs to the same
//!   exit code, error line and stdout as its source;
//! - properties: random expression trees (every operator, nesting, walrus,
//!   tuples, starred items, calls, subscripts, slices, attributes, awkward
//!   literals and names) print to source that parses back to the same tree;
//! - snapshots: the printed form of hand-built residual-style modules
//!   (backquoted names, decorators, classes, comments);
//! - wrapping: the corpus and the random trees printed with lines wrapped
//!   at a narrow width (`print_module_width`) parse to the same tree, and
//!   wrapping the unwrapped print of that tree gives the same text.

mod printer_support;

use proptest::prelude::*;
use spy_interp::backend::{print_expr, print_module, print_module_width};
use spy_interp::engine::{run_program, Engine, Outcome, RunConfig};

use spy_interp::syntax::ast::{
    BinOp, BoolOp, CmpOp, FuncColor, FuncKind, Module, ParamKind, UnaryOp, VarKind,
};
use spy_interp::syntax::dump::dump_module;
use spy_interp::syntax::parse_str;

use printer_support::*;

// ----------------------------------------------------------------- corpus

/// Check one parsed module; `Err` describes the first difference.
fn round_trip(m: &Module) -> Result<(), String> {
    let printed = print_module(m.body());
    let back = parse_str(&printed)
        .map_err(|e| format!("printed source does not parse: {e} at {:?}\n{printed}", e.range))?;
    if normalize(&back, false) != normalize(m, false) {
        return Err(format!(
            "tree changed\n--- printed\n{printed}--- before\n{}--- after\n{}",
            dump_module(m),
            dump_module(&back)
        ));
    }
    let again = print_module(back.body());
    if again != printed {
        return Err(format!("not a fixpoint\n--- first\n{printed}--- second\n{again}"));
    }
    for width in WRAP_WIDTHS {
        wrapped_round_trip(m, width)?;
    }
    Ok(())
}

/// Widths the wrapped round trips use: narrow, so that most lines wrap.
const WRAP_WIDTHS: [usize; 2] = [24, 60];

/// `m` printed with lines wrapped at `width` parses back to the same tree,
/// and so does it printed again from that tree.
fn wrapped_round_trip(m: &Module, width: usize) -> Result<(), String> {
    let wrapped = print_module_width(m.body(), width);
    let back = parse_str(&wrapped).map_err(|e| {
        format!(
            "wrapped at {width}, the printed source does not parse: {e} at {:?}\n{wrapped}",
            e.range
        )
    })?;
    if normalize(&back, false) != normalize(m, false) {
        return Err(format!(
            "wrapped at {width}, the tree changed\n--- printed\n{wrapped}--- before\n{}--- after\n{}",
            dump_module(m),
            dump_module(&back)
        ));
    }
    let again = print_module_width(back.body(), width);
    if again != wrapped {
        return Err(format!(
            "wrapped at {width}, not a fixpoint\n--- first\n{wrapped}--- second\n{again}"
        ));
    }
    Ok(())
}

/// Round-trip every source of `sources` that parses; the number checked.
fn check_corpus(sources: &[Source]) -> usize {
    let mut failures = Vec::new();
    let mut checked = 0;
    for s in sources {
        let Ok(m) = parse_str(&s.text) else {
            continue;
        };
        checked += 1;
        if let Err(why) = round_trip(&m) {
            failures.push(format!("{}: {why}", s.name));
        }
    }
    assert!(
        failures.is_empty(),
        "{} failures:\n{}",
        failures.len(),
        failures.join("\n")
    );
    eprintln!("{checked} of {} sources parse and round-trip", sources.len());
    checked
}

#[test]
fn conformance_cases_round_trip() {
    let checked = check_corpus(&spy_sources("conformance/cases"));
    assert!(checked >= 200, "only {checked} conformance cases parsed");
}

#[test]
fn parser_fixtures_round_trip() {
    let checked = check_corpus(&spy_sources("interp/tests/parser/valid"));
    assert!(checked >= 20, "only {checked} fixtures parsed");
}

#[test]
fn spec_examples_round_trip() {
    let checked = check_corpus(&spec_examples());
    assert!(checked >= 50, "only {checked} spec examples parsed");
}

// -------------------------------------------------------------- execution

/// An outcome as the suite's snapshots show it.
fn show(o: &Outcome) -> String {
    let error = o
        .error
        .as_ref()
        .map_or(String::new(), |e| format!("error: {e}\n"));
    format!("exit: {}\n{error}stdout:\n{}", o.exit, o.stdout)
}

fn same_outcome(a: &Outcome, b: &Outcome) -> bool {
    a.exit == b.exit && a.error == b.error && a.bug == b.bug && a.stdout == b.stdout
}

/// Run each source that parses, as is and printed, under the same path.
fn check_runs(sources: &[Source], path_of: impl Fn(&Source) -> String) -> usize {
    let mut failures = Vec::new();
    let mut checked = 0;
    for s in sources {
        let Ok(m) = parse_str(&s.text) else {
            continue;
        };
        checked += 1;
        let path = path_of(s);
        let printed = print_module(m.body());
        let before = run_program(Engine::Interp, &path, s.text.as_bytes(), RunConfig::default());
        let after = run_program(Engine::Interp, &path, printed.as_bytes(), RunConfig::default());
        if !same_outcome(&before, &after) {
            failures.push(format!(
                "{}:\n--- source\n{}\n--- printed\n{}\n--- printed source\n{printed}",
                s.name,
                show(&before),
                show(&after)
            ));
        }
    }
    assert!(
        failures.is_empty(),
        "{} failures:\n{}",
        failures.len(),
        failures.join("\n")
    );
    eprintln!(
        "{checked} of {} sources parse and run the same printed",
        sources.len()
    );
    checked
}

#[test]
fn printed_conformance_cases_run_the_same() {
    let checked = check_runs(&spy_sources("conformance/cases"), |s| s.name.clone());
    assert!(checked >= 200, "only {checked} cases ran");
}

#[test]
fn printed_spec_examples_run_the_same() {
    let checked = check_runs(&spec_examples(), |_| "example.spy".to_owned());
    assert!(checked >= 50, "only {checked} examples ran");
}

// ------------------------------------------------------------- properties

fn arb_name() -> impl Strategy<Value = String> {
    prop_oneof![
        4 => prop::sample::select(vec!["a", "b", "x", "i32", "_f", "été", "blue"]).prop_map(String::from),
        2 => prop::sample::select(vec![
            "x$1", "add[i32]", "make_adder[i32, 4]::adder#1", "if", "var", "const", "None", "a b", "1x",
            "é$", "#", "'q'",
        ])
        .prop_map(String::from),
        1 => "[^`\n\r\0]{1,6}",
    ]
}

fn arb_float() -> impl Strategy<Value = f64> {
    prop_oneof![
        Just(0.0),
        Just(f64::INFINITY),
        Just(1e16),
        Just(0.1),
        Just(5e-324),
        (0u32..10_000).prop_map(|n| f64::from(n) / 8.0),
        any::<f64>().prop_filter_map("NaN", |v| (!v.is_nan()).then_some(v.abs())),
    ]
}

fn arb_str() -> impl Strategy<Value = String> {
    let awkward = prop::sample::select(vec![
        '\\', '\'', '"', '\n', '\r', '\t', '\0', '\x01', '\x7f', 'a', 'é', '\u{85}', '\u{2028}', '{', '#',
        '`', '😀',
    ]);
    prop_oneof![
        prop::collection::vec(awkward, 0..8).prop_map(|v| v.into_iter().collect()),
        any::<String>(),
    ]
}

fn starred(e: Expr) -> Expr {
    ex(ExprKind::Starred(Box::new(e)))
}

fn leaf() -> impl Strategy<Value = Expr> {
    prop_oneof![
        4 => arb_name().prop_map(|n| name(&n)),
        2 => any::<u64>().prop_map(int),
        2 => arb_float().prop_map(|v| ex(ExprKind::Float(v))),
        2 => arb_str().prop_map(|s| string(&s)),
        1 => prop::collection::vec(any::<u8>(), 0..6).prop_map(|b| ex(ExprKind::Bytes(b))),
        1 => any::<bool>().prop_map(|b| ex(ExprKind::Bool(b))),
        1 => Just(ex(ExprKind::None)),
    ]
}

fn arb_unary() -> impl Strategy<Value = UnaryOp> {
    prop::sample::select(vec![UnaryOp::Neg, UnaryOp::Pos, UnaryOp::Invert, UnaryOp::Not])
}

fn arb_binop() -> impl Strategy<Value = BinOp> {
    prop::sample::select(BinOp::ALL.to_vec())
}

fn arb_cmpop() -> impl Strategy<Value = CmpOp> {
    prop::sample::select(CmpOp::ALL.to_vec())
}

fn boxed(e: Expr) -> Box<Expr> {
    Box::new(e)
}

/// Expression trees as the parser builds them: `Starred` only as an item,
/// `Slice` only as a subscript index, never one lone tuple index.
fn arb_expr() -> impl Strategy<Value = Expr> {
    leaf().prop_recursive(6, 96, 4, |inner| {
        let item = prop_oneof![3 => inner.clone(), 1 => inner.clone().prop_map(starred)];
        let items = prop::collection::vec(item.clone(), 0..4);
        let bound = prop::option::of(inner.clone().prop_map(boxed));
        let slice = (bound.clone(), bound.clone(), bound).prop_map(|(lower, upper, step)| {
            ex(ExprKind::Slice { lower, upper, step })
        });
        let index = prop_oneof![3 => item.clone(), 1 => slice];
        let genexp = (inner.clone(), arb_name(), inner.clone()).prop_map(|(elt, t, iter)| {
            ex(ExprKind::GeneratorExp {
                elt: boxed(elt),
                target: Box::new(id(&t)),
                iter: boxed(iter),
            })
        })
        .boxed();
        prop_oneof![
            1 => (arb_unary(), inner.clone()).prop_map(|(op, e)| ex(ExprKind::UnaryOp {
                op,
                operand: boxed(e)
            })),
            3 => (inner.clone(), arb_binop(), inner.clone()).prop_map(|(l, op, r)| binop(l, op, r)),
            1 => (inner.clone(), arb_cmpop(), inner.clone()).prop_map(|(l, op, r)| ex(ExprKind::Compare {
                left: boxed(l),
                op,
                right: boxed(r)
            })),
            1 => (prop::bool::ANY, inner.clone(), inner.clone()).prop_map(|(or, l, r)| ex(ExprKind::BoolOp {
                op: if or { BoolOp::Or } else { BoolOp::And },
                left: boxed(l),
                right: boxed(r)
            })),
            1 => (inner.clone(), inner.clone(), inner.clone()).prop_map(|(t, b, o)| ex(ExprKind::IfExp {
                test: boxed(t),
                body: boxed(b),
                orelse: boxed(o)
            })),
            1 => (arb_name(), inner.clone()).prop_map(|(t, v)| ex(ExprKind::Walrus {
                target: Box::new(id(&t)),
                value: boxed(v)
            })),
            1 => items.clone().prop_map(|v| ex(ExprKind::Tuple(v))),
            1 => items.clone().prop_map(|v| ex(ExprKind::List(v))),
            1 => prop::collection::vec((inner.clone(), inner.clone()), 0..3).prop_map(|v| ex(ExprKind::Dict(v))),
            2 => (inner.clone(), items).prop_map(|(f, args)| call(f, args)),
            1 => (inner.clone(), genexp.clone()).prop_map(|(f, g)| call(f, vec![g])),
            1 => genexp,
            2 => (inner.clone(), prop::collection::vec(index, 0..4)).prop_map(|(v, mut indices)| {
                if let [Expr {
                    kind: ExprKind::Tuple(_),
                    ..
                }] = indices.as_slice()
                {
                    indices.push(name("z"));
                }
                ex(ExprKind::Subscript {
                    value: boxed(v),
                    indices: indices.into(),
                })
            }),
            2 => (inner, arb_name()).prop_map(|(v, a)| attr(v, &a)),
        ]
    })
}

fn module_of(e: Expr) -> Module {
    let body = vec![expr_stmt(e.clone()), assign("x", e.clone()), ret(e)];
    Tree {
        body: vec![def(func("f", Vec::new(), None, body))],
    }
    .build()
}

/// 1024 cases unless `PROPTEST_CASES` says otherwise.
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
    fn random_expressions_round_trip(e in arb_expr()) {
        let m = module_of(e);
        let printed = print_module(m.body());
        let back = match parse_str(&printed) {
            Ok(back) => back,
            Err(err) => return Err(TestCaseError::fail(format!("{err} at {:?}:\n{printed}", err.range))),
        };
        prop_assert!(
            normalize(&back, false) == normalize(&m, false),
            "tree changed:\n{printed}--- before\n{}--- after\n{}",
            dump_module(&m),
            dump_module(&back)
        );
        prop_assert_eq!(print_module(back.body()), printed);
        for width in WRAP_WIDTHS {
            if let Err(why) = wrapped_round_trip(&m, width) {
                return Err(TestCaseError::fail(why));
            }
        }
    }
}

#[test]
fn wrapping_breaks_long_lines_inside_brackets() {
    let src = "def main() -> None:\n    print(`partial[partial::add3, 1]::meta::impl`(alpha + beta, gamma(delta, epsilon), 3))\n";
    let m = parse_str(src).unwrap();
    let wrapped = print_module_width(m.body(), 40);
    assert_eq!(
        wrapped,
        "def main() -> None:\n    print(\n        `partial[partial::add3, 1]::meta::impl`(\n            alpha + beta,\n            gamma(delta, epsilon),\n            3\n        )\n    )\n"
    );
    assert_eq!(
        print_module_width(m.body(), 100),
        print_module(m.body()),
        "a line within the width stays whole"
    );
}

#[test]
fn print_expr_stands_alone() {
    let w = ex(ExprKind::Walrus {
        target: Box::new(id("x$1")),
        value: Box::new(binop(int(1), BinOp::Add, int(2))),
    });
    let (m, w) = build_expr(&w);
    assert_eq!(print_expr(&m.expr(w)), "(`x$1` := 1 + 2)");
}

// -------------------------------------------------------------- snapshots

fn i32_() -> Expr {
    name("i32")
}

/// A residual module as redshift would emit it.
fn residual_module() -> Module {
    let pair = class(
        "Pair[i32]",
        true,
        vec![
            var_def(None, "a", Some(i32_()), None),
            var_def(None, "b", Some(i32_()), None),
        ],
    );
    let add = func(
        "add[i32]",
        vec![param("x", i32_()), param("y", i32_())],
        Some(i32_()),
        vec![ret(binop(name("x"), BinOp::Add, name("y")))],
    );
    let adder = func(
        "make_adder[i32, 4]::adder#1",
        vec![param("x$1", i32_())],
        Some(i32_()),
        vec![
            comment("blue: n = 4 folded"),
            ret(call(name("add[i32]"), vec![name("x$1"), int(4)])),
        ],
    );
    let main = func(
        "main",
        Vec::new(),
        Some(ex(ExprKind::None)),
        vec![
            var_def(Some(VarKind::Var), "total$1", Some(i32_()), Some(int(0))),
            assign("p", call(name("Pair[i32]"), vec![int(1), int(2)])),
            assign(
                "total$1",
                call(name("add[i32]"), vec![attr(name("p"), "a"), attr(name("p"), "b")]),
            ),
            expr_stmt(call(
                name("print"),
                vec![call(name("make_adder[i32, 4]::adder#1"), vec![name("total$1")])],
            )),
        ],
    );
    Tree {
        body: vec![
            comment("Residual module of `demo`, redshifted for main().\nDo not edit."),
            pair,
            comment("`add` specialized for T = i32"),
            def(add),
            def(adder),
            def(main),
        ],
    }
    .build()
}

/// Blue functions, generics, decorators, classes with methods.
fn decorated_module() -> Module {
    let mut generic = func(
        "box",
        vec![param("T", name("type"))],
        None,
        vec![
            comment("a nested class and a nested function"),
            class("Box", true, vec![var_def(None, "v", Some(name("T")), None)]),
            ret(name("Box")),
        ],
    );
    generic.color = FuncColor::Blue;
    generic.kind = FuncKind::Generic;
    let mut meta = func(
        "meta",
        vec![param("m_x", name("MetaArg"))],
        Some(name("OpSpec")),
        vec![],
    );
    meta.color = FuncColor::Blue;
    meta.kind = FuncKind::Metafunc;
    let mut tp = func(
        "first",
        vec![param("xs", name("T"))],
        Some(name("T")),
        vec![st(StmtKind::Pass)],
    );
    tp.type_params = Some(vec![id("T"), id("U$2")]);
    tp.color = FuncColor::Blue;
    let mut star = param("rest", ex(ExprKind::Starred(Box::new(name("Ts")))));
    star.kind = ParamKind::Star;
    let mut with_default = param("n", i32_());
    with_default.default = Some(Box::new(int(3)));
    let mut varargs = func(
        "varargs",
        vec![param("a", i32_()), with_default, star],
        None,
        vec![],
    );
    varargs.decorators = vec![
        call(attr(name("mod"), "deco"), vec![int(1), string("two")]),
        name("other$1"),
    ];
    let mut method = func("get", vec![param("self", name("Self"))], Some(i32_()), vec![]);
    method.decorators = vec![name("staticmethod")];
    method.body = vec![ret(attr(name("self"), "if"))];
    let cls = class(
        "Holder",
        true,
        vec![var_def(None, "if", Some(i32_()), None), def(method)],
    );
    Tree {
        body: vec![
            def(generic),
            def(meta),
            def(tp),
            def(varargs),
            cls,
            assign(
                "ALIAS",
                ex(ExprKind::Subscript {
                    value: Box::new(name("list")),
                    indices: Box::new([i32_()]),
                }),
            ),
            var_def(Some(VarKind::Const), "N", None, Some(int(10))),
        ],
    }
    .build()
}

/// Statements and a mix of expressions.
fn statements_module() -> Module {
    let lt = |l: Expr, r: Expr| {
        ex(ExprKind::Compare {
            left: Box::new(l),
            op: CmpOp::Lt,
            right: Box::new(r),
        })
    };
    let chain = st(StmtKind::If {
        test: Box::new(lt(name("x"), int(0))),
        body: vec![comment("negative"), ret(string("neg"))],
        orelse: vec![st(StmtKind::If {
            test: Box::new(ex(ExprKind::BoolOp {
                op: BoolOp::And,
                left: Box::new(lt(int(0), name("x"))),
                right: Box::new(ex(ExprKind::UnaryOp {
                    op: UnaryOp::Not,
                    operand: Box::new(name("flag")),
                })),
            })),
            body: vec![ret(string("it's \"pos\"\n"))],
            orelse: vec![comment("only a comment")],
        })],
    });
    let walrus = ex(ExprKind::Walrus {
        target: Box::new(id("n$1")),
        value: Box::new(call(name("next"), vec![])),
    });
    let body = vec![
        chain,
        st(StmtKind::While {
            test: Box::new(lt(walrus, int(10))),
            body: vec![
                st(StmtKind::AugAssign {
                    target: id("n$1"),
                    op: BinOp::Mul,
                    value: Box::new(binop(
                        binop(name("a"), BinOp::Add, name("b")),
                        BinOp::Mul,
                        name("c"),
                    )),
                }),
                st(StmtKind::Continue),
            ],
        }),
        st(StmtKind::For {
            target: id("i$0"),
            iter: Box::new(call(name("range"), vec![int(3)])),
            body: vec![st(StmtKind::Assign {
                target: Box::new(AssignTarget::Unpack {
                    names: vec![id("a"), id("b$2")],
                    range: Default::default(),
                }),
                value: ex(ExprKind::Tuple(vec![name("b$2"), name("a")])),
            })],
        }),
        st(StmtKind::Assign {
            target: Box::new(AssignTarget::Subscript {
                value: Box::new(attr(name("o"), "items")),
                indices: vec![int(0), ex(ExprKind::Bytes(b"\x00ab'".to_vec()))],
                range: Default::default(),
            }),
            value: binop(name("a"), BinOp::Sub, binop(name("b"), BinOp::Sub, name("c"))),
        }),
        st(StmtKind::Assert {
            test: name("ok"),
            msg: Some(Box::new(string("tab\there"))),
        }),
        st(StmtKind::Raise(call(name("ValueError"), vec![string("bad")]))),
    ];
    Tree {
        body: vec![def(func(
            "classify",
            vec![param("x", i32_())],
            Some(name("str")),
            body,
        ))],
    }
    .build()
}

/// Print `m`, snapshot it, and check it parses back to `m` minus comments.
fn snapshot_and_reparse(snapshot: &str, m: &Module) -> String {
    let printed = print_module(m.body());
    insta::assert_snapshot!(snapshot, printed);
    let back = parse_str(&printed).unwrap_or_else(|e| panic!("{e} at {:?}:\n{printed}", e.range));
    assert!(
        normalize(&back, true) == normalize(m, true),
        "tree changed\n--- before\n{}--- after\n{}",
        dump_module(m),
        dump_module(&back)
    );
    assert_eq!(
        print_module(back.body()),
        print_module(normalize(m, true).build().body())
    );
    printed
}

#[test]
fn snapshot_residual_module() {
    let printed = snapshot_and_reparse("residual_module", &residual_module());
    let outcome = run_program(
        Engine::Interp,
        "demo.spy",
        printed.as_bytes(),
        RunConfig::default(),
    );
    assert_eq!(show(&outcome), "exit: 0\nstdout:\n7\n");
}

#[test]
fn snapshot_decorated_module() {
    snapshot_and_reparse("decorated_module", &decorated_module());
}

#[test]
fn snapshot_statements_module() {
    snapshot_and_reparse("statements_module", &statements_module());
}
