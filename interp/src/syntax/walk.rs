//! The one AST walker: the children of every node, in source order, for
//! reading (`children`, over [`NodeRef`]) and for rewriting (`children_mut`,
//! over [`NodeMut`]). Both are generated from one enumeration (`walker!`)
//! whose matches are exhaustive and whose structs are destructured field by
//! field, so a new node kind or node field does not compile until it is
//! walked. On top of them: `for_each_child_expr(_mut)`, `walk_expr`
//! (pre-order) and `for_each_ident_mut`. Used by the depth check, the span
//! validator of the parser tests, renumbering of name ids, the resolver, the
//! fuzz reducer and the printer tests' normalizer.

use std::rc::Rc;

use crate::source::TextRange;
use crate::syntax::ast::{
    AssignTarget, ClassDef, Expr, ExprKind, FuncDef, Identifier, ImportName, Module, Param, Stmt, StmtKind,
    VarDef,
};

/// Any node with a range.
#[derive(Clone, Copy, Debug)]
pub enum NodeRef<'a> {
    Stmt(&'a Stmt),
    Expr(&'a Expr),
    Target(&'a AssignTarget),
    Param(&'a Param),
    ImportName(&'a ImportName),
    Ident(&'a Identifier),
}

impl NodeRef<'_> {
    pub fn range(&self) -> TextRange {
        match self {
            NodeRef::Stmt(s) => s.range,
            NodeRef::Expr(e) => e.range,
            NodeRef::Target(t) => t.range(),
            NodeRef::Param(p) => p.range,
            NodeRef::ImportName(n) => n.range,
            NodeRef::Ident(i) => i.range,
        }
    }

    /// Statements and expressions are the levels the depth limit counts.
    pub fn is_level(&self) -> bool {
        matches!(self, NodeRef::Stmt(_) | NodeRef::Expr(_))
    }
}

/// A node to rewrite. Like [`NodeRef`], except that a statement's nested
/// statements come as their whole `Block`, so a rewrite may add or drop
/// statements; a block's children are its statements.
#[derive(Debug)]
pub enum NodeMut<'a> {
    Block(&'a mut Vec<Stmt>),
    Stmt(&'a mut Stmt),
    Expr(&'a mut Expr),
    Target(&'a mut AssignTarget),
    Param(&'a mut Param),
    ImportName(&'a mut ImportName),
    Ident(&'a mut Identifier),
}

/// The children of each node kind, once for `$Node` = `NodeRef` (shared
/// borrows) and once for `NodeMut` (`$m` = `mut`, `Block` an extra node
/// kind). The including module provides `open` (an `Rc`'d definition) and
/// `block` (a statement body).
macro_rules! walker {
    ($children:ident, $Node:ident, [$($Extra:ident => $extra_children:ident)?] $(, $m:tt)?) => {
        /// Call `f` on each child of `node`, in source order.
        pub fn $children<'a>(node: $Node<'a>, f: &mut dyn FnMut($Node<'a>)) {
            match node {
                $Node::Stmt(s) => stmt(s, f),
                $Node::Expr(e) => expr(e, f),
                $Node::Target(t) => target(t, f),
                $Node::Param(p) => param(p, f),
                $Node::ImportName(n) => import_name(n, f),
                $Node::Ident(_) => {}
                $($Node::$Extra(x) => $extra_children(x, f),)?
            }
        }

        fn target<'a>(t: &'a $($m)? AssignTarget, f: &mut dyn FnMut($Node<'a>)) {
            match t {
                AssignTarget::Name(id) => f($Node::Ident(id)),
                AssignTarget::Attribute { value, attr, range: _ } => {
                    f($Node::Expr(value));
                    f($Node::Ident(attr));
                }
                AssignTarget::Subscript { value, indices, range: _ } => {
                    f($Node::Expr(value));
                    for i in indices {
                        f($Node::Expr(i));
                    }
                }
                AssignTarget::Unpack { names, range: _ } => {
                    for n in names {
                        f($Node::Ident(n));
                    }
                }
            }
        }

        fn param<'a>(p: &'a $($m)? Param, f: &mut dyn FnMut($Node<'a>)) {
            let Param { name, kind: _, annotation, default, range: _ } = p;
            f($Node::Ident(name));
            if let Some(a) = annotation {
                f($Node::Expr(a));
            }
            if let Some(d) = default {
                f($Node::Expr(d));
            }
        }

        fn import_name<'a>(n: &'a $($m)? ImportName, f: &mut dyn FnMut($Node<'a>)) {
            let ImportName { name, alias, range: _ } = n;
            f($Node::Ident(name));
            if let Some(a) = alias {
                f($Node::Ident(a));
            }
        }

        fn type_params<'a>(tps: &'a $($m)? Option<Vec<Identifier>>, f: &mut dyn FnMut($Node<'a>)) {
            if let Some(tps) = tps {
                for t in tps {
                    f($Node::Ident(t));
                }
            }
        }

        fn stmt<'a>(s: &'a $($m)? Stmt, f: &mut dyn FnMut($Node<'a>)) {
            match &$($m)? s.kind {
                StmtKind::FuncDef(d) => {
                    let FuncDef {
                        name,
                        color: _,
                        kind: _,
                        decorators,
                        type_params: tps,
                        params,
                        return_type,
                        body,
                        proto_range: _,
                    } = open(d);
                    for e in decorators {
                        f($Node::Expr(e));
                    }
                    f($Node::Ident(name));
                    type_params(tps, f);
                    for p in params {
                        f($Node::Param(p));
                    }
                    if let Some(r) = return_type {
                        f($Node::Expr(r));
                    }
                    block(body, f);
                }
                StmtKind::ClassDef(c) => {
                    let ClassDef { name, is_struct: _, decorators, type_params: tps, body } = open(c);
                    for e in decorators {
                        f($Node::Expr(e));
                    }
                    f($Node::Ident(name));
                    type_params(tps, f);
                    block(body, f);
                }
                StmtKind::Import { module, alias } => {
                    f($Node::Ident(module));
                    if let Some(a) = alias {
                        f($Node::Ident(a));
                    }
                }
                StmtKind::ImportFrom { module, names } => {
                    f($Node::Ident(module));
                    for n in names {
                        f($Node::ImportName(n));
                    }
                }
                StmtKind::Assign { target, value } => {
                    f($Node::Target(target));
                    f($Node::Expr(value));
                }
                StmtKind::AugAssign { target, op: _, value } => {
                    f($Node::Ident(target));
                    f($Node::Expr(value));
                }
                StmtKind::VarDef(v) => {
                    let VarDef { kind: _, name, annotation, value } = &$($m)? **v;
                    f($Node::Ident(name));
                    if let Some(a) = annotation {
                        f($Node::Expr(a));
                    }
                    if let Some(e) = value {
                        f($Node::Expr(e));
                    }
                }
                StmtKind::If { test, body, orelse } => {
                    f($Node::Expr(test));
                    block(body, f);
                    block(orelse, f);
                }
                StmtKind::While { test, body } => {
                    f($Node::Expr(test));
                    block(body, f);
                }
                StmtKind::For { target, iter, body } => {
                    f($Node::Ident(target));
                    f($Node::Expr(iter));
                    block(body, f);
                }
                StmtKind::Break | StmtKind::Continue | StmtKind::Pass | StmtKind::Comment(_) => {}
                StmtKind::Return(e) => {
                    if let Some(e) = e {
                        f($Node::Expr(e));
                    }
                }
                StmtKind::Raise(e) | StmtKind::Expr(e) => f($Node::Expr(e)),
                StmtKind::Assert { test, msg } => {
                    f($Node::Expr(test));
                    if let Some(m) = msg {
                        f($Node::Expr(m));
                    }
                }
            }
        }

        fn expr<'a>(e: &'a $($m)? Expr, f: &mut dyn FnMut($Node<'a>)) {
            match &$($m)? e.kind {
                ExprKind::Int(_)
                | ExprKind::Float(_)
                | ExprKind::Str(_)
                | ExprKind::Bytes(_)
                | ExprKind::Bool(_)
                | ExprKind::None => {}
                ExprKind::Name(id) => f($Node::Ident(id)),
                ExprKind::Attribute { value, attr } => {
                    f($Node::Expr(value));
                    f($Node::Ident(attr));
                }
                ExprKind::Call { func, args } => {
                    f($Node::Expr(func));
                    for a in args {
                        f($Node::Expr(a));
                    }
                }
                ExprKind::Subscript { value, indices } => {
                    f($Node::Expr(value));
                    for i in indices {
                        f($Node::Expr(i));
                    }
                }
                ExprKind::Slice { lower, upper, step } => {
                    for part in [lower, upper, step].into_iter().flatten() {
                        f($Node::Expr(part));
                    }
                }
                ExprKind::UnaryOp { op: _, operand } => f($Node::Expr(operand)),
                ExprKind::BinOp { left, op: _, right }
                | ExprKind::Compare { left, op: _, right }
                | ExprKind::BoolOp { left, op: _, right } => {
                    f($Node::Expr(left));
                    f($Node::Expr(right));
                }
                ExprKind::IfExp { test, body, orelse } => {
                    // Source order: `body if test else orelse`.
                    f($Node::Expr(body));
                    f($Node::Expr(test));
                    f($Node::Expr(orelse));
                }
                ExprKind::Tuple(items) | ExprKind::List(items) => {
                    for i in items {
                        f($Node::Expr(i));
                    }
                }
                ExprKind::Dict(pairs) => {
                    for (k, v) in pairs {
                        f($Node::Expr(k));
                        f($Node::Expr(v));
                    }
                }
                ExprKind::GeneratorExp { elt, target, iter } => {
                    f($Node::Expr(elt));
                    f($Node::Ident(target));
                    f($Node::Expr(iter));
                }
                ExprKind::Starred(inner) => f($Node::Expr(inner)),
                ExprKind::Walrus { target, value } => {
                    f($Node::Ident(target));
                    f($Node::Expr(value));
                }
            }
        }
    };
}

/// The reading walker.
mod read {
    use super::*;

    fn open<T>(rc: &Rc<T>) -> &T {
        rc
    }

    fn block<'a>(stmts: &'a [Stmt], f: &mut dyn FnMut(NodeRef<'a>)) {
        stmts.iter().for_each(|s| f(NodeRef::Stmt(s)));
    }

    walker!(children, NodeRef, []);
}

/// The rewriting walker: definitions shared through an `Rc` are made unique
/// (`Rc::make_mut`) on the way down.
mod write {
    use super::*;

    fn open<T: Clone>(rc: &mut Rc<T>) -> &mut T {
        Rc::make_mut(rc)
    }

    fn block<'a>(stmts: &'a mut Vec<Stmt>, f: &mut dyn FnMut(NodeMut<'a>)) {
        f(NodeMut::Block(stmts));
    }

    /// A block's children: its statements.
    fn statements<'a>(stmts: &'a mut [Stmt], f: &mut dyn FnMut(NodeMut<'a>)) {
        stmts.iter_mut().for_each(|s| f(NodeMut::Stmt(s)));
    }

    walker!(children_mut, NodeMut, [Block => statements], mut);
}

pub use read::children;
pub use write::children_mut;

/// Top-level statements of a module.
pub fn module_children<'a>(m: &'a Module, f: &mut dyn FnMut(NodeRef<'a>)) {
    m.body.iter().for_each(|s| f(NodeRef::Stmt(s)));
}

/// Call `f` on each direct sub-expression of `e`, in source order.
pub fn for_each_child_expr<'a>(e: &'a Expr, f: &mut dyn FnMut(&'a Expr)) {
    children(NodeRef::Expr(e), &mut |c| {
        if let NodeRef::Expr(c) = c {
            f(c)
        }
    });
}

/// Call `f` on each direct sub-expression of `e`, in source order.
pub fn for_each_child_expr_mut<'a>(e: &'a mut Expr, f: &mut dyn FnMut(&'a mut Expr)) {
    children_mut(NodeMut::Expr(e), &mut |c| {
        if let NodeMut::Expr(c) = c {
            f(c)
        }
    });
}

/// Pre-order walk over an expression and its sub-expressions, in source
/// order (not into nested statements: expressions contain none).
pub fn walk_expr<'a>(e: &'a Expr, f: &mut dyn FnMut(&'a Expr)) {
    f(e);
    for_each_child_expr(e, &mut |c| walk_expr(c, f));
}

/// Call `f` on every identifier of the module, in source order.
pub fn for_each_ident_mut(m: &mut Module, f: &mut dyn FnMut(&mut Identifier)) {
    fn visit(node: NodeMut<'_>, f: &mut dyn FnMut(&mut Identifier)) {
        match node {
            NodeMut::Ident(id) => f(id),
            other => children_mut(other, &mut |c| visit(c, f)),
        }
    }
    visit(NodeMut::Block(&mut m.body), f);
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

    /// The ranges of every node with one, pre-order: the reading walker
    /// and the rewriting walker see the same nodes in the same order.
    #[test]
    fn both_walkers_visit_the_same_nodes_in_source_order() {
        let mut m = crate::syntax::parse_str(PROGRAM).expect("parses");
        let mut read = Vec::new();
        fn visit_read(n: NodeRef<'_>, out: &mut Vec<TextRange>) {
            out.push(n.range());
            children(n, &mut |c| visit_read(c, out));
        }
        module_children(&m, &mut |n| visit_read(n, &mut read));
        let mut written = Vec::new();
        fn visit_write(n: NodeMut<'_>, out: &mut Vec<TextRange>) {
            match &n {
                NodeMut::Block(_) => {}
                NodeMut::Stmt(s) => out.push(s.range),
                NodeMut::Expr(e) => out.push(e.range),
                NodeMut::Target(t) => out.push(t.range()),
                NodeMut::Param(p) => out.push(p.range),
                NodeMut::ImportName(i) => out.push(i.range),
                NodeMut::Ident(i) => out.push(i.range),
            }
            children_mut(n, &mut |c| visit_write(c, out));
        }
        visit_write(NodeMut::Block(&mut m.body), &mut written);
        assert!(read.len() > 80, "{} nodes", read.len());
        assert_eq!(read, written);
        let starts: Vec<u32> = read.iter().map(|r| r.start).collect();
        let mut sorted = starts.clone();
        sorted.sort();
        assert_eq!(starts, sorted, "pre-order is source order");
    }
}
