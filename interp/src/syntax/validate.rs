//! Checks on a module that parsed, which need context the grammar lacks:
//! what may stand at module level, imports inside functions and classes,
//! `break`/`continue` outside loops, the total nesting depth; and the
//! renumbering that keeps name ids dense after special decorators dropped
//! theirs.

use crate::source::TextRange;
use crate::syntax::ast::{
    AssignTarget, ExprKind, ExprNode, Module, NameId, StmtId, StmtKind, StmtRef, Stmts,
};
use crate::syntax::error::{ParseError, ParseErrorKind};
use crate::syntax::walk::{self, IdentAt};

/// Deepest statement + expression nesting a module may have.
pub const MAX_TOTAL_DEPTH: u32 = 1000;

/// What `check_module` found.
pub struct Checked {
    /// The first rule violation, in source order (statements before what
    /// they contain, as upstream's converter walks).
    pub violation: Option<ParseError>,
    /// The deepest statement nesting (a top-level statement is 1).
    pub stmt_depth: u32,
}

/// Where a statement stands.
#[derive(Clone, Copy)]
struct Place {
    top_level: bool,
    in_loop: bool,
    depth: u32,
}

/// Check the statement rules. Iterative (elif chains nest deeply). The
/// stack holds statement ids (4 bytes), not views (40): a module's whole
/// body is on it at once, and with views it was most of the parse's peak
/// above the finished tree (issue 14 item 5).
pub fn check_module(m: &Module) -> Checked {
    let mut stack: Vec<(StmtId, Place)> = Vec::new();
    let top = Place {
        top_level: true,
        in_loop: false,
        depth: 1,
    };
    push_body(&mut stack, m.body(), top);
    let mut stmt_depth = 0;
    let mut violation = None;
    while let Some((id, place)) = stack.pop() {
        let s = m.stmt(id);
        stmt_depth = stmt_depth.max(place.depth);
        // Read once: a `def`'s view is not small.
        let kind = s.kind();
        if violation.is_none() {
            violation = if place.top_level {
                check_top(s, &kind)
            } else {
                check_stmt(s, &kind, place.in_loop)
            };
        }
        let inner = |in_loop: bool| Place {
            top_level: false,
            in_loop,
            depth: place.depth + 1,
        };
        match kind {
            StmtKind::FuncDef(f) => push_body(&mut stack, f.body, inner(false)),
            StmtKind::ClassDef(c) => push_body(&mut stack, c.body, inner(false)),
            StmtKind::If { body, orelse, .. } => {
                let p = inner(place.in_loop);
                // `orelse` follows `body` in source order: push it first.
                push_body(&mut stack, orelse, p);
                push_body(&mut stack, body, p);
            }
            StmtKind::While { body, .. } | StmtKind::For { body, .. } => {
                push_body(&mut stack, body, inner(true));
            }
            _ => {}
        }
    }
    Checked {
        violation,
        stmt_depth,
    }
}

/// Push a body so that its first statement is popped first.
fn push_body(stack: &mut Vec<(StmtId, Place)>, body: Stmts<'_>, p: Place) {
    stack.extend(body.ids().iter().rev().map(|&s| (s, p)));
}

fn err(kind: ParseErrorKind, range: TextRange) -> Option<ParseError> {
    Some(ParseError::new(kind, range))
}

/// A module-level statement: only definitions.
fn check_top(s: StmtRef<'_>, kind: &StmtKind<'_>) -> Option<ParseError> {
    match kind {
        StmtKind::FuncDef(_)
        | StmtKind::ClassDef(_)
        | StmtKind::Import { .. }
        | StmtKind::ImportFrom { .. } => None,
        StmtKind::Assign {
            target: AssignTarget::Name(_),
            ..
        } => None,
        StmtKind::VarDef(v) if v.value.is_none() => err(ParseErrorKind::GlobalWithoutValue, s.range),
        StmtKind::VarDef(_) => None,
        StmtKind::Expr(e) if matches!(e.kind(), ExprKind::Str(_)) => None,
        StmtKind::Comment(_) => None,
        _ => err(ParseErrorKind::NotAllowedAtGlobalScope, s.range),
    }
}

/// A statement inside a function or class body.
fn check_stmt(s: StmtRef<'_>, kind: &StmtKind<'_>, in_loop: bool) -> Option<ParseError> {
    match kind {
        StmtKind::Break if !in_loop => err(ParseErrorKind::BreakOutsideLoop, s.range),
        StmtKind::Continue if !in_loop => err(ParseErrorKind::ContinueOutsideLoop, s.range),
        StmtKind::Import { .. } => err(ParseErrorKind::NotImplemented("Import".into()), s.range),
        StmtKind::ImportFrom { .. } => err(ParseErrorKind::NotImplemented("ImportFrom".into()), s.range),
        _ => None,
    }
}

/// Refuse trees deeper than `MAX_TOTAL_DEPTH` statement/expression levels
/// (later phases recurse over the tree). Iterative: an explicit stack.
pub fn check_depth(m: &Module) -> Result<(), ParseError> {
    // (deepest-last first, as this check has always reported)
    walk::walk_levels(m, MAX_TOTAL_DEPTH, walk::Order::Reversed, &mut |_| {}).map_err(|at| {
        ParseError::new(
            ParseErrorKind::TooDeeplyNested,
            TextRange::new(at.start, at.start),
        )
    })
}

/// Give every identifier a fresh id, in source order; return the count.
pub fn renumber(m: &mut Module) -> u32 {
    let mut places = Vec::new();
    walk::for_each_ident(m, &mut |i| places.push(i.at));
    number(m, &places)
}

/// [`renumber`] a tree no deeper than `limit` statement/expression levels,
/// in one walk that also checks the depth (a residual tree redshift built,
/// run without a print and a parse: `redshift::ResidualRoute`); `None`,
/// the tree untouched, when it is deeper.
pub fn renumber_within(m: &mut Module, limit: u32) -> Option<u32> {
    let mut places = Vec::new();
    walk::walk_levels(m, limit, walk::Order::Source, &mut |at| places.push(at)).ok()?;
    Some(number(m, &places))
}

/// Number the identifiers at `places` 0, 1, ...; return the count.
fn number(m: &mut Module, places: &[IdentAt]) -> u32 {
    for (next, at) in places.iter().enumerate() {
        let fresh = NameId(next as u32);
        match *at {
            IdentAt::Table(i) => m.ident_mut(i).id = fresh,
            IdentAt::Expr(e) => {
                if let ExprNode::Name { sym, .. } = m.expr_node(e).node {
                    m.set_expr_node(e, ExprNode::Name { sym, id: fresh });
                }
            }
        }
    }
    places.len() as u32
}
