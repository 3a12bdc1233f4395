//! The one AST walker: the children of every node, in source order, as
//! views (`children`, over [`NodeRef`]). One exhaustive match per node
//! kind, so a new node kind or field does not compile until it is walked.
//! On top of it: `for_each_child_expr`, `walk_expr` (pre-order) and
//! `for_each_ident` (every name occurrence and where it is stored, for
//! renumbering). Used by the depth check, the span validator of the parser
//! tests, renumbering of name ids, the resolver, the tools, the fuzz
//! reducer and the printer tests' normalizer.

use crate::source::TextRange;
use crate::syntax::ast::{
    AssignTarget, ClassDef, ExprId, ExprKind, ExprNode, ExprRef, FuncDef, IdentId, Identifier, Idents,
    ImportName, Module, Param, StmtKind, StmtRef, VarDef,
};

/// Any node with a range.
#[derive(Clone, Debug)]
pub enum NodeRef<'a> {
    Stmt(StmtRef<'a>),
    Expr(ExprRef<'a>),
    /// The target of an assignment (the expression it is written as, read
    /// with [`ExprRef::as_target`]).
    Target(ExprRef<'a>),
    /// (with the module it belongs to: its identifiers are in the table)
    Param(&'a Module, Param<'a>),
    ImportName(&'a Module, ImportName<'a>),
    Ident(Ident),
}

/// A name occurrence met by the walker, and where it is stored.
#[derive(Clone, Debug)]
pub struct Ident {
    pub ident: Identifier,
    pub at: IdentAt,
}

/// Where a name occurrence is stored.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum IdentAt {
    /// A name expression.
    Expr(ExprId),
    /// The module's identifier table.
    Table(IdentId),
}

impl NodeRef<'_> {
    pub fn range(&self) -> TextRange {
        match self {
            NodeRef::Stmt(s) => s.range,
            NodeRef::Expr(e) => e.range,
            NodeRef::Target(t) => t.as_target().range(),
            NodeRef::Param(_, p) => p.range,
            NodeRef::ImportName(_, n) => n.range,
            NodeRef::Ident(i) => i.ident.range,
        }
    }

    /// Statements and expressions are the levels the depth limit counts.
    pub fn is_level(&self) -> bool {
        matches!(self, NodeRef::Stmt(_) | NodeRef::Expr(_))
    }
}

/// An identifier of the table, as met by the walker.
fn table<'a>(m: &Module, i: &Identifier) -> NodeRef<'a> {
    NodeRef::Ident(Ident {
        ident: i.clone(),
        at: IdentAt::Table(m.ident_id_of(i)),
    })
}

/// Call `f` on each child of `node`, in source order.
pub fn children<'a>(node: NodeRef<'a>, f: &mut dyn FnMut(NodeRef<'a>)) {
    match node {
        NodeRef::Stmt(s) => stmt(s, f),
        NodeRef::Expr(e) => expr(e, f),
        NodeRef::Target(t) => target(t, f),
        NodeRef::Param(m, p) => param(m, p, f),
        NodeRef::ImportName(m, n) => import_name(m, n, f),
        NodeRef::Ident(_) => {}
    }
}

fn target<'a>(e: ExprRef<'a>, f: &mut dyn FnMut(NodeRef<'a>)) {
    match e.as_target() {
        AssignTarget::Name(_) => f(name_ident(e)),
        AssignTarget::Attribute {
            value,
            attr,
            range: _,
        } => {
            f(NodeRef::Expr(value));
            f(table(value.module, attr));
        }
        AssignTarget::Subscript {
            value,
            indices,
            range: _,
        } => {
            f(NodeRef::Expr(value));
            for i in indices {
                f(NodeRef::Expr(i));
            }
        }
        AssignTarget::Unpack { .. } => {
            if let ExprKind::Tuple(items) = e.kind() {
                for item in items.iter().filter(|i| i.is_name()) {
                    f(name_ident(item));
                }
            }
        }
    }
}

/// The identifier of name expression `e`, and where it is stored.
fn name_ident<'a>(e: ExprRef<'a>) -> NodeRef<'a> {
    NodeRef::Ident(Ident {
        ident: e.name_ident().expect("a name expression"),
        at: match e.node().node {
            ExprNode::NameIn(i) => IdentAt::Table(i),
            _ => IdentAt::Expr(e.id),
        },
    })
}

fn param<'a>(m: &'a Module, p: Param<'a>, f: &mut dyn FnMut(NodeRef<'a>)) {
    let Param {
        name,
        kind: _,
        annotation,
        default,
        range: _,
    } = p;
    f(table(m, name));
    if let Some(a) = annotation {
        f(NodeRef::Expr(a));
    }
    if let Some(d) = default {
        f(NodeRef::Expr(d));
    }
}

fn import_name<'a>(m: &'a Module, n: ImportName<'a>, f: &mut dyn FnMut(NodeRef<'a>)) {
    let ImportName {
        name,
        alias,
        range: _,
    } = n;
    f(table(m, name));
    if let Some(a) = alias {
        f(table(m, a));
    }
}

fn type_params<'a>(m: &'a Module, tps: Option<Idents<'a>>, f: &mut dyn FnMut(NodeRef<'a>)) {
    for t in tps.iter().flatten() {
        f(table(m, t));
    }
}

fn stmt<'a>(s: StmtRef<'a>, f: &mut dyn FnMut(NodeRef<'a>)) {
    let m = s.module;
    match s.kind() {
        StmtKind::FuncDef(d) => {
            let FuncDef {
                module: _,
                id: _,
                name,
                color: _,
                kind: _,
                decorators,
                type_params: tps,
                params,
                return_type,
                body,
                proto_range: _,
            } = d;
            for e in decorators {
                f(NodeRef::Expr(e));
            }
            f(table(m, name));
            type_params(m, tps, f);
            for p in params {
                f(NodeRef::Param(m, p));
            }
            if let Some(r) = return_type {
                f(NodeRef::Expr(r));
            }
            body.iter().for_each(|s| f(NodeRef::Stmt(s)));
        }
        StmtKind::ClassDef(c) => {
            let ClassDef {
                module: _,
                id: _,
                name,
                is_struct: _,
                decorators,
                type_params: tps,
                body,
            } = c;
            for e in decorators {
                f(NodeRef::Expr(e));
            }
            f(table(m, name));
            type_params(m, tps, f);
            body.iter().for_each(|s| f(NodeRef::Stmt(s)));
        }
        StmtKind::Import { module, alias } => {
            f(table(m, module));
            if let Some(a) = alias {
                f(table(m, a));
            }
        }
        StmtKind::ImportFrom { module, names } => {
            f(table(m, module));
            for n in names {
                f(NodeRef::ImportName(m, n));
            }
        }
        StmtKind::Assign { target: _, value } => {
            if let crate::syntax::ast::StmtNode::Assign { target, .. } = s.node().node {
                f(NodeRef::Target(s.module.expr(target)));
            }
            f(NodeRef::Expr(value));
        }
        StmtKind::AugAssign { target, op: _, value } => {
            f(table(m, target));
            f(NodeRef::Expr(value));
        }
        StmtKind::VarDef(v) => {
            let VarDef {
                kind: _,
                name,
                annotation,
                value,
            } = v;
            f(table(m, name));
            if let Some(a) = annotation {
                f(NodeRef::Expr(a));
            }
            if let Some(e) = value {
                f(NodeRef::Expr(e));
            }
        }
        StmtKind::If { test, body, orelse } => {
            f(NodeRef::Expr(test));
            body.iter().for_each(|s| f(NodeRef::Stmt(s)));
            orelse.iter().for_each(|s| f(NodeRef::Stmt(s)));
        }
        StmtKind::While { test, body } => {
            f(NodeRef::Expr(test));
            body.iter().for_each(|s| f(NodeRef::Stmt(s)));
        }
        StmtKind::For { target, iter, body } => {
            f(table(m, target));
            f(NodeRef::Expr(iter));
            body.iter().for_each(|s| f(NodeRef::Stmt(s)));
        }
        StmtKind::Break | StmtKind::Continue | StmtKind::Pass | StmtKind::Comment(_) => {}
        StmtKind::Return(e) => {
            if let Some(e) = e {
                f(NodeRef::Expr(e));
            }
        }
        StmtKind::Raise(e) | StmtKind::Expr(e) => f(NodeRef::Expr(e)),
        StmtKind::Assert { test, msg } => {
            f(NodeRef::Expr(test));
            if let Some(msg) = msg {
                f(NodeRef::Expr(msg));
            }
        }
    }
}

fn expr<'a>(e: ExprRef<'a>, f: &mut dyn FnMut(NodeRef<'a>)) {
    let m = e.module;
    match e.kind() {
        ExprKind::Int(_)
        | ExprKind::Float(_)
        | ExprKind::Str(_)
        | ExprKind::Bytes(_)
        | ExprKind::Bool(_)
        | ExprKind::None => {}
        ExprKind::Name(_) => f(name_ident(e)),
        ExprKind::Attribute { value, attr } => {
            f(NodeRef::Expr(value));
            f(table(m, attr));
        }
        ExprKind::Call { func, args } => {
            f(NodeRef::Expr(func));
            for a in args {
                f(NodeRef::Expr(a));
            }
        }
        ExprKind::Subscript { value, indices } => {
            f(NodeRef::Expr(value));
            for i in indices {
                f(NodeRef::Expr(i));
            }
        }
        ExprKind::Slice { lower, upper, step } => {
            for part in [lower, upper, step].into_iter().flatten() {
                f(NodeRef::Expr(part));
            }
        }
        ExprKind::UnaryOp { op: _, operand } => f(NodeRef::Expr(operand)),
        ExprKind::BinOp { left, op: _, right }
        | ExprKind::Compare { left, op: _, right }
        | ExprKind::BoolOp { left, op: _, right } => {
            f(NodeRef::Expr(left));
            f(NodeRef::Expr(right));
        }
        ExprKind::IfExp { test, body, orelse } => {
            // Source order: `body if test else orelse`.
            f(NodeRef::Expr(body));
            f(NodeRef::Expr(test));
            f(NodeRef::Expr(orelse));
        }
        ExprKind::Tuple(items) | ExprKind::List(items) => {
            for i in items {
                f(NodeRef::Expr(i));
            }
        }
        ExprKind::Dict(pairs) => {
            for (k, v) in pairs.iter() {
                f(NodeRef::Expr(k));
                f(NodeRef::Expr(v));
            }
        }
        ExprKind::GeneratorExp { elt, target, iter } => {
            f(NodeRef::Expr(elt));
            f(table(m, target));
            f(NodeRef::Expr(iter));
        }
        ExprKind::Starred(inner) => f(NodeRef::Expr(inner)),
        ExprKind::Walrus { target, value } => {
            f(table(m, target));
            f(NodeRef::Expr(value));
        }
    }
}

/// Top-level statements of a module.
pub fn module_children<'a>(m: &'a Module, f: &mut dyn FnMut(NodeRef<'a>)) {
    m.body().iter().for_each(|s| f(NodeRef::Stmt(s)));
}

/// Call `f` on each direct sub-expression of `e`, in source order: the
/// expressions [`children`] gives, read from the stored node (the resolver
/// walks every expression this way: no view of the whole kind, no copy of
/// the name occurrences it skips).
pub fn for_each_child_expr<'a>(e: ExprRef<'a>, f: &mut dyn FnMut(ExprRef<'a>)) {
    let m = e.module;
    let mut x = |id: ExprId| f(m.expr(id));
    match e.node().node {
        ExprNode::Int(_)
        | ExprNode::Float(_)
        | ExprNode::Str(_)
        | ExprNode::Bytes(_)
        | ExprNode::Bool(_)
        | ExprNode::None
        | ExprNode::Name { .. }
        | ExprNode::NameIn(_) => {}
        ExprNode::Attribute { value, attr: _ } => x(value),
        ExprNode::Call {
            func: first,
            args: rest,
        }
        | ExprNode::Subscript {
            value: first,
            indices: rest,
        } => {
            x(first);
            m.expr_items(rest).iter().for_each(|&i| x(i));
        }
        ExprNode::Slice { lower, upper, step } => {
            [lower, upper, step].into_iter().flatten().for_each(x);
        }
        ExprNode::UnaryOp { op: _, operand } => x(operand),
        ExprNode::BinOp { left, op: _, right }
        | ExprNode::Compare { left, op: _, right }
        | ExprNode::BoolOp { op: _, left, right } => {
            x(left);
            x(right);
        }
        ExprNode::IfExp { test, body, orelse } => {
            // Source order: `body if test else orelse`.
            x(body);
            x(test);
            x(orelse);
        }
        // (a dict's items are its keys and values alternating)
        ExprNode::Tuple(items) | ExprNode::List(items) | ExprNode::Dict(items) => {
            m.expr_items(items).iter().for_each(|&i| x(i));
        }
        ExprNode::GeneratorExp { elt, target: _, iter } => {
            x(elt);
            x(iter);
        }
        ExprNode::Starred(inner) => x(inner),
        ExprNode::Walrus { target: _, value } => x(value),
    }
}

/// Pre-order walk over an expression and its sub-expressions, in source
/// order (not into nested statements: expressions contain none).
pub fn walk_expr<'a>(e: ExprRef<'a>, f: &mut dyn FnMut(ExprRef<'a>)) {
    f(e);
    for_each_child_expr(e, &mut |c| walk_expr(c, f));
}

/// Every name occurrence of the module, in source order, with where it is
/// stored. (Iterative: trees nest deeply.)
pub fn for_each_ident(m: &Module, f: &mut dyn FnMut(&Ident)) {
    let mut stack: Vec<NodeRef<'_>> = Vec::new();
    module_children(m, &mut |n| stack.push(n));
    stack.reverse();
    let mut kids = Vec::new();
    while let Some(n) = stack.pop() {
        if let NodeRef::Ident(i) = &n {
            f(i);
        }
        children(n, &mut |c| kids.push(c));
        stack.extend(kids.drain(..).rev());
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const PROGRAM: &str = "\
from unsafe import gc_alloc as ga, ptr
import time as t

@blue.generic
def f[T](a: T, c: i32 = 1, *b: i32) -> T:
    x: i32 = 1
    var y = [a, (b, 2)] + {1: 2}
    z, w = 1, 2
    y.q = y[1:2:3] if not x else -1
    y += (u := 3)
    for i in range(3):
        while x < 2 and True:
            break
    assert x, 'm'
    return (e for e in y)

@struct
class C[T]:
    a: T
";

    /// The ranges of every node with one, pre-order, are in source order,
    /// and every name occurrence is met once, with its own id.
    #[test]
    fn the_walker_visits_every_node_in_source_order() {
        let m = crate::syntax::parse_str(PROGRAM).expect("parses");
        let mut read = Vec::new();
        fn visit_read(n: NodeRef<'_>, out: &mut Vec<TextRange>) {
            out.push(n.range());
            children(n, &mut |c| visit_read(c, out));
        }
        module_children(&m, &mut |n| visit_read(n, &mut read));
        assert!(read.len() > 80, "{} nodes", read.len());
        let starts: Vec<u32> = read.iter().map(|r| r.start).collect();
        let mut sorted = starts.clone();
        sorted.sort();
        assert_eq!(starts, sorted, "pre-order is source order");
        let mut ids = Vec::new();
        for_each_ident(&m, &mut |i| ids.push(i.ident.id.0));
        assert_eq!(ids, (0..m.name_count).collect::<Vec<_>>());
    }

    /// `for_each_child_expr` (read from the stored nodes) gives exactly
    /// the expressions `children` gives, in the same order.
    #[test]
    fn child_expressions_are_the_walkers() {
        let m = crate::syntax::parse_str(PROGRAM).expect("parses");
        let mut checked = 0;
        let mut stack: Vec<NodeRef<'_>> = Vec::new();
        module_children(&m, &mut |n| stack.push(n));
        while let Some(n) = stack.pop() {
            if let NodeRef::Expr(e) = &n {
                let (mut walked, mut direct) = (Vec::new(), Vec::new());
                children(n.clone(), &mut |c| {
                    if let NodeRef::Expr(c) = c {
                        walked.push(c.id)
                    }
                });
                for_each_child_expr(*e, &mut |c| direct.push(c.id));
                assert_eq!(walked, direct, "children of the expression at {:?}", e.range);
                checked += 1;
            }
            children(n, &mut |c| stack.push(c));
        }
        assert!(checked > 40, "{checked} expressions");
    }
}
