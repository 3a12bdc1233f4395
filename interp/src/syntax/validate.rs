//! Checks on a module that parsed, which need context the grammar lacks:
//! what may stand at module level, imports inside functions and classes,
//! `break`/`continue` outside loops, the total nesting depth; and the
//! renumbering that keeps name ids dense after special decorators dropped
//! theirs.

use crate::source::TextRange;
use crate::syntax::ast::{AssignTarget, ExprKind, Module, NameId, Stmt, StmtKind};
use crate::syntax::error::{ParseError, ParseErrorKind};
use crate::syntax::walk::{self, NodeRef};

/// Deepest statement + expression nesting a module may have.
pub const MAX_TOTAL_DEPTH: u32 = 1000;

/// The first rule violation, in source order (statements before what they
/// contain, as upstream's converter walks).
pub fn check_module(m: &Module) -> Option<ParseError> {
    m.body.iter().find_map(check_top)
}

fn err(kind: ParseErrorKind, range: TextRange) -> Option<ParseError> {
    Some(ParseError::new(kind, range))
}

fn check_top(s: &Stmt) -> Option<ParseError> {
    match &s.kind {
        StmtKind::FuncDef(f) => check_body(&f.body, false),
        StmtKind::ClassDef(c) => check_body(&c.body, false),
        StmtKind::Import { .. } | StmtKind::ImportFrom { .. } => None,
        StmtKind::Assign { target, .. } if matches!(**target, AssignTarget::Name(_)) => None,
        StmtKind::VarDef(v) if v.value.is_none() => err(ParseErrorKind::GlobalWithoutValue, s.range),
        StmtKind::VarDef(_) => None,
        StmtKind::Expr(e) if matches!(e.kind, ExprKind::Str(_)) => None,
        StmtKind::Comment(_) => None,
        _ => err(ParseErrorKind::NotAllowedAtGlobalScope, s.range),
    }
}

fn check_body(stmts: &[Stmt], in_loop: bool) -> Option<ParseError> {
    stmts.iter().find_map(|s| check_stmt(s, in_loop))
}

fn check_stmt(s: &Stmt, in_loop: bool) -> Option<ParseError> {
    match &s.kind {
        StmtKind::Break if !in_loop => err(ParseErrorKind::BreakOutsideLoop, s.range),
        StmtKind::Continue if !in_loop => err(ParseErrorKind::ContinueOutsideLoop, s.range),
        StmtKind::Import { .. } => err(ParseErrorKind::NotImplemented("Import".into()), s.range),
        StmtKind::ImportFrom { .. } => err(ParseErrorKind::NotImplemented("ImportFrom".into()), s.range),
        StmtKind::FuncDef(f) => check_body(&f.body, false),
        StmtKind::ClassDef(c) => check_body(&c.body, false),
        StmtKind::If { body, orelse, .. } => {
            check_body(body, in_loop).or_else(|| check_body(orelse, in_loop))
        }
        StmtKind::While { body, .. } | StmtKind::For { body, .. } => check_body(body, true),
        _ => None,
    }
}

/// Refuse trees deeper than `MAX_TOTAL_DEPTH` statement/expression levels
/// (later phases recurse over the tree). Iterative: an explicit stack.
pub fn check_depth(m: &Module) -> Result<(), ParseError> {
    let mut stack: Vec<(NodeRef<'_>, u32)> = Vec::new();
    walk::module_children(m, &mut |n| stack.push((n, 1)));
    while let Some((n, level)) = stack.pop() {
        if level > MAX_TOTAL_DEPTH {
            let start = n.range().start;
            return Err(ParseError::new(
                ParseErrorKind::TooDeeplyNested,
                TextRange::new(start, start),
            ));
        }
        walk::children(n, &mut |child| {
            let next = if child.is_level() { level + 1 } else { level };
            stack.push((child, next));
        });
    }
    Ok(())
}

/// Close the gaps left by `dropped` ids, keeping the order of the others.
pub fn renumber(m: &mut Module, mut dropped: Vec<u32>) {
    if dropped.is_empty() {
        return;
    }
    dropped.sort_unstable();
    walk::for_each_ident_mut(m, &mut |id| {
        let below = dropped.partition_point(|&d| d < id.id.0) as u32;
        id.id = NameId(id.id.0 - below);
    });
}
