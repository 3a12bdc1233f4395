//! A generic, read-only view of the AST's shape: every node kind that
//! carries a range, and its children in source order. Used by the depth
//! check, the span validator of the parser tests, and renumbering of name
//! ids (the one mutable walk, `for_each_ident_mut`).

use crate::source::TextRange;
use crate::syntax::ast::{
    AssignTarget, Expr, ExprKind, Identifier, ImportName, Module, Param, Stmt, StmtKind,
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

/// Call `f` on each child of `node`, in source order.
pub fn children<'a>(node: NodeRef<'a>, f: &mut dyn FnMut(NodeRef<'a>)) {
    match node {
        NodeRef::Stmt(s) => stmt_children(s, f),
        NodeRef::Expr(e) => expr_children(e, f),
        NodeRef::Target(t) => match t {
            AssignTarget::Name(id) => f(NodeRef::Ident(id)),
            AssignTarget::Attribute { value, attr, .. } => {
                f(NodeRef::Expr(value));
                f(NodeRef::Ident(attr));
            }
            AssignTarget::Subscript { value, indices, .. } => {
                f(NodeRef::Expr(value));
                indices.iter().for_each(|i| f(NodeRef::Expr(i)));
            }
            AssignTarget::Unpack { names, .. } => names.iter().for_each(|n| f(NodeRef::Ident(n))),
        },
        NodeRef::Param(p) => {
            f(NodeRef::Ident(&p.name));
            if let Some(a) = &p.annotation {
                f(NodeRef::Expr(a));
            }
            if let Some(d) = &p.default {
                f(NodeRef::Expr(d));
            }
        }
        NodeRef::ImportName(n) => {
            f(NodeRef::Ident(&n.name));
            if let Some(a) = &n.alias {
                f(NodeRef::Ident(a));
            }
        }
        NodeRef::Ident(_) => {}
    }
}

fn body<'a>(stmts: &'a [Stmt], f: &mut dyn FnMut(NodeRef<'a>)) {
    stmts.iter().for_each(|s| f(NodeRef::Stmt(s)));
}

fn stmt_children<'a>(s: &'a Stmt, f: &mut dyn FnMut(NodeRef<'a>)) {
    match &s.kind {
        StmtKind::FuncDef(d) => {
            d.decorators.iter().for_each(|e| f(NodeRef::Expr(e)));
            f(NodeRef::Ident(&d.name));
            d.type_params.iter().flatten().for_each(|t| f(NodeRef::Ident(t)));
            d.params.iter().for_each(|p| f(NodeRef::Param(p)));
            if let Some(r) = &d.return_type {
                f(NodeRef::Expr(r));
            }
            body(&d.body, f);
        }
        StmtKind::ClassDef(c) => {
            c.decorators.iter().for_each(|e| f(NodeRef::Expr(e)));
            f(NodeRef::Ident(&c.name));
            c.type_params.iter().flatten().for_each(|t| f(NodeRef::Ident(t)));
            body(&c.body, f);
        }
        StmtKind::Import { module, alias } => {
            f(NodeRef::Ident(module));
            if let Some(a) = alias {
                f(NodeRef::Ident(a));
            }
        }
        StmtKind::ImportFrom { module, names } => {
            f(NodeRef::Ident(module));
            names.iter().for_each(|n| f(NodeRef::ImportName(n)));
        }
        StmtKind::Assign { target, value } => {
            f(NodeRef::Target(target));
            f(NodeRef::Expr(value));
        }
        StmtKind::AugAssign { target, value, .. } => {
            f(NodeRef::Ident(target));
            f(NodeRef::Expr(value));
        }
        StmtKind::VarDef(v) => {
            f(NodeRef::Ident(&v.name));
            if let Some(a) = &v.annotation {
                f(NodeRef::Expr(a));
            }
            if let Some(e) = &v.value {
                f(NodeRef::Expr(e));
            }
        }
        StmtKind::If {
            test,
            body: b,
            orelse,
        } => {
            f(NodeRef::Expr(test));
            body(b, f);
            body(orelse, f);
        }
        StmtKind::While { test, body: b } => {
            f(NodeRef::Expr(test));
            body(b, f);
        }
        StmtKind::For {
            target,
            iter,
            body: b,
        } => {
            f(NodeRef::Ident(target));
            f(NodeRef::Expr(iter));
            body(b, f);
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
            if let Some(m) = msg {
                f(NodeRef::Expr(m));
            }
        }
    }
}

fn expr_children<'a>(e: &'a Expr, f: &mut dyn FnMut(NodeRef<'a>)) {
    match &e.kind {
        ExprKind::Int(_)
        | ExprKind::Float(_)
        | ExprKind::Str(_)
        | ExprKind::Bytes(_)
        | ExprKind::Bool(_)
        | ExprKind::None => {}
        ExprKind::Name(id) => f(NodeRef::Ident(id)),
        ExprKind::Attribute { value, attr } => {
            f(NodeRef::Expr(value));
            f(NodeRef::Ident(attr));
        }
        ExprKind::Call { func, args } => {
            f(NodeRef::Expr(func));
            args.iter().for_each(|a| f(NodeRef::Expr(a)));
        }
        ExprKind::Subscript { value, indices } => {
            f(NodeRef::Expr(value));
            indices.iter().for_each(|i| f(NodeRef::Expr(i)));
        }
        ExprKind::Slice { lower, upper, step } => {
            for part in [lower, upper, step].into_iter().flatten() {
                f(NodeRef::Expr(part));
            }
        }
        ExprKind::UnaryOp { operand, .. } => f(NodeRef::Expr(operand)),
        ExprKind::BinOp { left, right, .. }
        | ExprKind::Compare { left, right, .. }
        | ExprKind::BoolOp { left, right, .. } => {
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
            items.iter().for_each(|i| f(NodeRef::Expr(i)));
        }
        ExprKind::Dict(pairs) => {
            for (k, v) in pairs {
                f(NodeRef::Expr(k));
                f(NodeRef::Expr(v));
            }
        }
        ExprKind::GeneratorExp { elt, target, iter } => {
            f(NodeRef::Expr(elt));
            f(NodeRef::Ident(target));
            f(NodeRef::Expr(iter));
        }
        ExprKind::Starred(inner) => f(NodeRef::Expr(inner)),
        ExprKind::Walrus { target, value } => {
            f(NodeRef::Ident(target));
            f(NodeRef::Expr(value));
        }
    }
}

/// Top-level statements of a module.
pub fn module_children<'a>(m: &'a Module, f: &mut dyn FnMut(NodeRef<'a>)) {
    body(&m.body, f);
}

// ------------------------------------------------------ mutable identifiers

/// Call `f` on every identifier of the module, in source order.
pub fn for_each_ident_mut(m: &mut Module, f: &mut dyn FnMut(&mut Identifier)) {
    for s in &mut m.body {
        stmt_idents(s, f);
    }
}

fn stmts_idents(stmts: &mut [Stmt], f: &mut dyn FnMut(&mut Identifier)) {
    for s in stmts {
        stmt_idents(s, f);
    }
}

fn opt_expr_idents(e: &mut Option<Expr>, f: &mut dyn FnMut(&mut Identifier)) {
    if let Some(e) = e {
        expr_idents(e, f);
    }
}

fn stmt_idents(s: &mut Stmt, f: &mut dyn FnMut(&mut Identifier)) {
    match &mut s.kind {
        StmtKind::FuncDef(d) => {
            let d = std::rc::Rc::make_mut(d);
            d.decorators.iter_mut().for_each(|e| expr_idents(e, f));
            f(&mut d.name);
            for t in d.type_params.iter_mut().flatten() {
                f(t);
            }
            for p in &mut d.params {
                f(&mut p.name);
                opt_expr_idents(&mut p.annotation, f);
                opt_expr_idents(&mut p.default, f);
            }
            opt_expr_idents(&mut d.return_type, f);
            stmts_idents(&mut d.body, f);
        }
        StmtKind::ClassDef(c) => {
            let c = std::rc::Rc::make_mut(c);
            c.decorators.iter_mut().for_each(|e| expr_idents(e, f));
            f(&mut c.name);
            for t in c.type_params.iter_mut().flatten() {
                f(t);
            }
            stmts_idents(&mut c.body, f);
        }
        StmtKind::Import { module, alias } => {
            f(module);
            if let Some(a) = alias {
                f(a);
            }
        }
        StmtKind::ImportFrom { module, names } => {
            f(module);
            for n in names {
                f(&mut n.name);
                if let Some(a) = &mut n.alias {
                    f(a);
                }
            }
        }
        StmtKind::Assign { target, value } => {
            match &mut **target {
                AssignTarget::Name(id) => f(id),
                AssignTarget::Attribute { value, attr, .. } => {
                    expr_idents(value, f);
                    f(attr);
                }
                AssignTarget::Subscript { value, indices, .. } => {
                    expr_idents(value, f);
                    indices.iter_mut().for_each(|i| expr_idents(i, f));
                }
                AssignTarget::Unpack { names, .. } => {
                    for n in names {
                        f(n);
                    }
                }
            }
            expr_idents(value, f);
        }
        StmtKind::AugAssign { target, value, .. } => {
            f(target);
            expr_idents(value, f);
        }
        StmtKind::VarDef(v) => {
            f(&mut v.name);
            opt_expr_idents(&mut v.annotation, f);
            opt_expr_idents(&mut v.value, f);
        }
        StmtKind::If { test, body, orelse } => {
            expr_idents(test, f);
            stmts_idents(body, f);
            stmts_idents(orelse, f);
        }
        StmtKind::While { test, body } => {
            expr_idents(test, f);
            stmts_idents(body, f);
        }
        StmtKind::For { target, iter, body } => {
            f(target);
            expr_idents(iter, f);
            stmts_idents(body, f);
        }
        StmtKind::Break | StmtKind::Continue | StmtKind::Pass | StmtKind::Comment(_) => {}
        StmtKind::Return(e) => opt_expr_idents(e, f),
        StmtKind::Raise(e) | StmtKind::Expr(e) => expr_idents(e, f),
        StmtKind::Assert { test, msg } => {
            expr_idents(test, f);
            opt_expr_idents(msg, f);
        }
    }
}

fn expr_idents(e: &mut Expr, f: &mut dyn FnMut(&mut Identifier)) {
    match &mut e.kind {
        ExprKind::Int(_)
        | ExprKind::Float(_)
        | ExprKind::Str(_)
        | ExprKind::Bytes(_)
        | ExprKind::Bool(_)
        | ExprKind::None => {}
        ExprKind::Name(id) => f(id),
        ExprKind::Attribute { value, attr } => {
            expr_idents(value, f);
            f(attr);
        }
        ExprKind::Call { func, args } => {
            expr_idents(func, f);
            args.iter_mut().for_each(|a| expr_idents(a, f));
        }
        ExprKind::Subscript { value, indices } => {
            expr_idents(value, f);
            indices.iter_mut().for_each(|i| expr_idents(i, f));
        }
        ExprKind::Slice { lower, upper, step } => {
            for part in [lower, upper, step].into_iter().flatten() {
                expr_idents(part, f);
            }
        }
        ExprKind::UnaryOp { operand, .. } => expr_idents(operand, f),
        ExprKind::BinOp { left, right, .. }
        | ExprKind::Compare { left, right, .. }
        | ExprKind::BoolOp { left, right, .. } => {
            expr_idents(left, f);
            expr_idents(right, f);
        }
        ExprKind::IfExp { test, body, orelse } => {
            expr_idents(body, f);
            expr_idents(test, f);
            expr_idents(orelse, f);
        }
        ExprKind::Tuple(items) | ExprKind::List(items) => {
            items.iter_mut().for_each(|i| expr_idents(i, f));
        }
        ExprKind::Dict(pairs) => {
            for (k, v) in pairs {
                expr_idents(k, f);
                expr_idents(v, f);
            }
        }
        ExprKind::GeneratorExp { elt, target, iter } => {
            expr_idents(elt, f);
            f(target);
            expr_idents(iter, f);
        }
        ExprKind::Starred(inner) => expr_idents(inner, f),
        ExprKind::Walrus { target, value } => {
            f(target);
            expr_idents(value, f);
        }
    }
}
