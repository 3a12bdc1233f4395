//! Invariants every successfully parsed module must satisfy (shared by the
//! fixture and property tests).

use spy_interp::source::TextRange;
use spy_interp::syntax::ast::Module;
use spy_interp::syntax::walk::{self, NodeRef};

/// Every range inside the file and inside its parent; siblings in source
/// order and disjoint. Iterative, so deep trees are fine.
pub fn check_spans(m: &Module, len: u32) {
    let mut stack: Vec<(NodeRef<'_>, TextRange)> = Vec::new();
    let mut prev: Option<TextRange> = None;
    walk::module_children(m, &mut |n| {
        check_order(&mut prev, n.range());
        stack.push((n, TextRange::new(0, len)));
    });
    while let Some((n, parent)) = stack.pop() {
        let r = n.range();
        assert!(r.start <= r.end, "inverted range {r:?} in {n:?}");
        assert!(
            parent.contains_range(r),
            "child {r:?} escapes parent {parent:?}: {n:?}"
        );
        let mut prev: Option<TextRange> = None;
        walk::children(n, &mut |c| {
            check_order(&mut prev, c.range());
            stack.push((c, r));
        });
    }
}

fn check_order(prev: &mut Option<TextRange>, r: TextRange) {
    if let Some(p) = *prev {
        assert!(p.end <= r.start, "siblings out of order: {p:?} then {r:?}");
    }
    *prev = Some(r);
}

/// Name ids are `0..name_count`, each used once, increasing in source order.
pub fn check_name_ids(m: &Module) {
    let mut ids = Vec::new();
    let mut stack: Vec<NodeRef<'_>> = Vec::new();
    walk::module_children(m, &mut |n| stack.push(n));
    stack.reverse();
    while let Some(n) = stack.pop() {
        if let NodeRef::Ident(i) = &n {
            ids.push(i.ident.id.0);
        }
        let mut kids = Vec::new();
        walk::children(n, &mut |c| kids.push(c));
        stack.extend(kids.into_iter().rev());
    }
    let expected: Vec<u32> = (0..m.name_count).collect();
    assert_eq!(ids, expected, "name ids are not dense and in source order");
}
