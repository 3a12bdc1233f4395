//! Parser fixtures, one insta snapshot each:
//! - `tests/parser/valid/*.spy` must parse; the snapshot is the AST dump.
//!   Every tree also passes the span validator (children inside their
//!   parent, siblings in source order, all within the file) and the name-id
//!   check (ids dense from 0, increasing in source order).
//! - `tests/parser/invalid/*.spy` must fail; the snapshot is the rendered
//!   error (`diag::render`).
//!
//! Bless with `INSTA_UPDATE=always cargo test --test parser_fixtures` or
//! `cargo insta accept`.

use std::path::Path;

use spy_interp::diag;
use spy_interp::source::TextRange;
use spy_interp::syntax::ast::Module;
use spy_interp::syntax::walk::{self, NodeRef};
use spy_interp::syntax::{dump, parse_bytes};

fn display_name(path: &Path) -> String {
    path.file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default()
}

#[test]
fn valid_fixtures_parse() {
    insta::glob!("parser/valid/*.spy", |path| {
        let bytes = std::fs::read(path).expect("fixture is readable");
        let name = display_name(path);
        match parse_bytes(&name, &bytes) {
            Ok((file, module)) => {
                check_spans(&module, file.text.len() as u32);
                check_name_ids(&module);
                insta::assert_snapshot!(dump::dump_module(&module));
            }
            Err(e) => panic!("{name} should parse, got:\n{}", diag::render(&e)),
        }
    });
}

#[test]
fn invalid_fixtures_fail() {
    insta::glob!("parser/invalid/*.spy", |path| {
        let bytes = std::fs::read(path).expect("fixture is readable");
        let name = display_name(path);
        match parse_bytes(&name, &bytes) {
            Ok(_) => panic!("{name} should be rejected"),
            Err(e) => {
                assert_eq!(e.annotations.len(), 1, "{name}: one annotation");
                let r = e.annotations[0].range;
                assert!(
                    r.end as usize <= e.annotations[0].file.text.len() && r.start <= r.end,
                    "{name}: error range {r:?} out of the file"
                );
                insta::assert_snapshot!(diag::render(&e));
            }
        }
    });
}

/// Every child inside its parent, siblings in order and disjoint.
fn check_spans(m: &Module, len: u32) {
    let whole = TextRange::new(0, len);
    let mut prev: Option<TextRange> = None;
    walk::module_children(m, &mut |n| {
        check_node(n, whole);
        check_order(&mut prev, n.range());
    });
}

fn check_order(prev: &mut Option<TextRange>, r: TextRange) {
    if let Some(p) = *prev {
        assert!(p.end <= r.start, "siblings out of order: {p:?} then {r:?}");
    }
    *prev = Some(r);
}

fn check_node(n: NodeRef<'_>, parent: TextRange) {
    let r = n.range();
    assert!(r.start <= r.end, "inverted range {r:?} in {n:?}");
    assert!(
        parent.contains_range(r),
        "child {r:?} escapes parent {parent:?}: {n:?}"
    );
    let mut prev: Option<TextRange> = None;
    walk::children(n, &mut |c| {
        check_node(c, r);
        check_order(&mut prev, c.range());
    });
}

/// Ids are 0..name_count, each used once, increasing in source order.
fn check_name_ids(m: &Module) {
    let mut ids = Vec::new();
    fn collect(n: NodeRef<'_>, ids: &mut Vec<u32>) {
        if let NodeRef::Ident(i) = n {
            ids.push(i.id.0);
        }
        walk::children(n, &mut |c| collect(c, ids));
    }
    walk::module_children(m, &mut |n| collect(n, &mut ids));
    let expected: Vec<u32> = (0..m.name_count).collect();
    assert_eq!(ids, expected, "name ids are not dense and in source order");
}
