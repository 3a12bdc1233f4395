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
    AssignTarget, Block, ClassDef, ExprId, ExprKind, ExprList, ExprNode, ExprRef, FuncDef, GeneratorExpNode,
    IdentId, IdentList, Identifier, Idents, IfExpNode, ImportName, Module, Param, SliceNode, StmtId,
    StmtKind, StmtNode, StmtRef, VarDef,
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
        ExprNode::Slice(s) => {
            let SliceNode { lower, upper, step } = *m.slice_node(s);
            [lower, upper, step].into_iter().flatten().for_each(x);
        }
        ExprNode::UnaryOp { op: _, operand } => x(operand),
        ExprNode::BinOp { left, op: _, right }
        | ExprNode::Compare { left, op: _, right }
        | ExprNode::BoolOp { op: _, left, right } => {
            x(left);
            x(right);
        }
        ExprNode::IfExp(i) => {
            let IfExpNode { test, body, orelse } = *m.if_exp_node(i);
            // Source order: `body if test else orelse`.
            x(body);
            x(test);
            x(orelse);
        }
        // (a dict's items are its keys and values alternating; a call's
        // are its callee and arguments, a subscript's its value and indices)
        ExprNode::Tuple(items)
        | ExprNode::List(items)
        | ExprNode::Dict(items)
        | ExprNode::Call(items)
        | ExprNode::Subscript(items) => {
            m.expr_items(items).iter().for_each(|&i| x(i));
        }
        ExprNode::GeneratorExp(g) => {
            let GeneratorExpNode { elt, target: _, iter } = *m.generator_exp_node(g);
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

/// An item of [`walk_levels`]' stack: a statement or expression with its
/// level, or a name occurrence.
#[derive(Clone, Copy)]
enum Item {
    Stmt(StmtId, u32),
    Expr(ExprId, u32),
    Ident(IdentAt),
}

/// In which order [`walk_levels`] visits a node's children.
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum Order {
    /// Source order: pre-order, each node's children first to last.
    Source,
    /// Each node's children last to first (the module's statements too).
    Reversed,
}

/// The walk of [`children`] from the module's top-level statements (level
/// 1; a statement or expression is one level deeper than its parent, the
/// other nodes at their parent's level), depth first in `order`, read from
/// the stored nodes: no views, no copies of identifiers. Calls `ident` on
/// every name occurrence (in source order, [`for_each_ident`]'s); `Err`
/// with the range of the first statement or expression deeper than
/// `limit`. It runs on every residual tree redshift builds
/// (`renumber_within`) and on parsed trees whose depth bound is not
/// enough (`check_depth`).
pub fn walk_levels(
    m: &Module,
    limit: u32,
    order: Order,
    ident: &mut dyn FnMut(IdentAt),
) -> Result<(), TextRange> {
    let top = m.block_items(m.body).iter().map(|&s| Item::Stmt(s, 1));
    let mut stack: Vec<Item> = match order {
        Order::Source => top.rev().collect(),
        Order::Reversed => top.collect(),
    };
    let mut kids: Vec<Item> = Vec::new();
    while let Some(item) = stack.pop() {
        match item {
            Item::Ident(at) => ident(at),
            Item::Stmt(s, level) => {
                let s = m.stmt_node(s);
                if level > limit {
                    return Err(s.range);
                }
                stmt_items(m, &s.node, level, &mut kids);
            }
            Item::Expr(e, level) => {
                let e_node = m.expr_node(e);
                if level > limit {
                    return Err(e_node.range);
                }
                expr_items(m, e, &e_node.node, level + 1, &mut kids);
            }
        }
        match order {
            Order::Source => stack.extend(kids.drain(..).rev()),
            Order::Reversed => stack.append(&mut kids),
        }
    }
    Ok(())
}

/// Where the name occurrence of name expression `e` is stored.
fn name_at(e: ExprId, node: &ExprNode) -> IdentAt {
    match node {
        ExprNode::NameIn(i) => IdentAt::Table(*i),
        _ => IdentAt::Expr(e),
    }
}

/// The children of a statement at `level`, as [`stmt`] gives them.
fn stmt_items(m: &Module, node: &StmtNode, level: u32, out: &mut Vec<Item>) {
    let inner = level + 1;
    let exprs = |out: &mut Vec<Item>, list: ExprList| {
        out.extend(m.expr_items(list).iter().map(|&e| Item::Expr(e, inner)))
    };
    let expr = |out: &mut Vec<Item>, e: Option<ExprId>| out.extend(e.map(|e| Item::Expr(e, inner)));
    let table = |out: &mut Vec<Item>, i: IdentId| out.push(Item::Ident(IdentAt::Table(i)));
    let idents = |out: &mut Vec<Item>, l: Option<IdentList>| {
        if let Some(l) = l {
            out.extend(m.ident_items(l).iter().map(|&i| Item::Ident(IdentAt::Table(i))));
        }
    };
    let block =
        |out: &mut Vec<Item>, b: Block| out.extend(m.block_items(b).iter().map(|&s| Item::Stmt(s, inner)));
    match *node {
        StmtNode::FuncDef(f) => {
            let f = m.func_node(f);
            exprs(out, f.decorators);
            table(out, f.name);
            idents(out, f.type_params);
            for p in m.param_nodes(f.params) {
                table(out, p.name);
                expr(out, p.annotation);
                expr(out, p.default);
            }
            expr(out, f.return_type);
            block(out, f.body);
        }
        StmtNode::ClassDef(c) => {
            let c = m.class_node(c);
            exprs(out, c.decorators);
            table(out, c.name);
            idents(out, c.type_params);
            block(out, c.body);
        }
        StmtNode::Import { module, alias } => {
            table(out, module);
            if let Some(a) = alias {
                table(out, a);
            }
        }
        StmtNode::ImportFrom { module, names } => {
            table(out, module);
            for n in m.import_name_nodes(names) {
                table(out, n.name);
                if let Some(a) = n.alias {
                    table(out, a);
                }
            }
        }
        StmtNode::Assign { target, value } => {
            target_items(m, target, level, out);
            expr(out, Some(value));
        }
        StmtNode::AugAssign { target, op: _, value } => {
            table(out, target);
            expr(out, Some(value));
        }
        StmtNode::VarDef {
            kind: _,
            name,
            annotation,
            value,
        } => {
            table(out, name);
            expr(out, annotation);
            expr(out, value);
        }
        StmtNode::If { test, body, orelse } => {
            expr(out, Some(test));
            block(out, body);
            block(out, orelse);
        }
        StmtNode::While { test, body } => {
            expr(out, Some(test));
            block(out, body);
        }
        StmtNode::For { target, iter, body } => {
            table(out, target);
            expr(out, Some(iter));
            block(out, body);
        }
        StmtNode::Break | StmtNode::Continue | StmtNode::Pass | StmtNode::Comment(_) => {}
        StmtNode::Return(e) => expr(out, e),
        StmtNode::Raise(e) | StmtNode::Expr(e) => expr(out, Some(e)),
        StmtNode::Assert { test, msg } => {
            expr(out, Some(test));
            expr(out, msg);
        }
    }
}

/// The children of an assignment's target (at its statement's `level`),
/// as [`target`] gives them.
fn target_items(m: &Module, t: ExprId, level: u32, out: &mut Vec<Item>) {
    let inner = level + 1;
    match &m.expr_node(t).node {
        node @ (ExprNode::Name { .. } | ExprNode::NameIn(_)) => out.push(Item::Ident(name_at(t, node))),
        ExprNode::Attribute { value, attr } => {
            out.push(Item::Expr(*value, inner));
            out.push(Item::Ident(IdentAt::Table(*attr)));
        }
        ExprNode::Subscript(items) => {
            // (the value, then the indices)
            out.extend(m.expr_items(*items).iter().map(|&e| Item::Expr(e, inner)));
        }
        ExprNode::Tuple(items) => {
            for &i in m.expr_items(*items) {
                let node = &m.expr_node(i).node;
                if matches!(node, ExprNode::Name { .. } | ExprNode::NameIn(_)) {
                    out.push(Item::Ident(name_at(i, node)));
                }
            }
        }
        // (anything else is a deferred parse error: nothing is walked)
        _ => {}
    }
}

/// The children of expression `e`, its sub-expressions at `inner`, as
/// [`expr`] gives them.
fn expr_items(m: &Module, e: ExprId, node: &ExprNode, inner: u32, out: &mut Vec<Item>) {
    let mut x = |id: ExprId| out.push(Item::Expr(id, inner));
    match *node {
        ExprNode::Int(_)
        | ExprNode::Float(_)
        | ExprNode::Str(_)
        | ExprNode::Bytes(_)
        | ExprNode::Bool(_)
        | ExprNode::None => {}
        ExprNode::Name { .. } | ExprNode::NameIn(_) => out.push(Item::Ident(name_at(e, node))),
        ExprNode::Attribute { value, attr } => {
            x(value);
            out.push(Item::Ident(IdentAt::Table(attr)));
        }
        ExprNode::GeneratorExp(g) => {
            let GeneratorExpNode { elt, target, iter } = *m.generator_exp_node(g);
            x(elt);
            out.push(Item::Ident(IdentAt::Table(target)));
            out.push(Item::Expr(iter, inner));
        }
        ExprNode::Walrus { target, value } => {
            out.push(Item::Ident(IdentAt::Table(target)));
            out.push(Item::Expr(value, inner));
        }
        // Every other kind has only sub-expressions: the resolver's walk
        // gives them in the same order.
        _ => for_each_child_expr(m.expr(e), &mut |c| x(c.id)),
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

    /// The first node deeper than `limit` that the walk of [`children`]
    /// meets in `order`, and the name occurrences in source order: what
    /// `walk_levels` must give.
    fn generic_levels(m: &Module, limit: u32, order: Order) -> (Result<(), TextRange>, Vec<IdentAt>) {
        let mut places = Vec::new();
        for_each_ident(m, &mut |i| places.push(i.at));
        let mut stack: Vec<(NodeRef<'_>, u32)> = Vec::new();
        module_children(m, &mut |n| stack.push((n, 1)));
        if order == Order::Source {
            stack.reverse();
        }
        let mut kids = Vec::new();
        while let Some((n, level)) = stack.pop() {
            if level > limit {
                return (Err(n.range()), places);
            }
            children(n, &mut |c| {
                let next = if c.is_level() { level + 1 } else { level };
                kids.push((c, next));
            });
            match order {
                Order::Source => stack.extend(kids.drain(..).rev()),
                Order::Reversed => stack.append(&mut kids),
            }
        }
        (Ok(()), places)
    }

    /// The deepest level of a module (statements and expressions).
    fn deepest(m: &Module) -> u32 {
        let mut deepest = 0;
        let mut stack: Vec<(NodeRef<'_>, u32)> = Vec::new();
        module_children(m, &mut |n| stack.push((n, 1)));
        while let Some((n, level)) = stack.pop() {
            deepest = deepest.max(level);
            children(n, &mut |c| {
                let next = if c.is_level() { level + 1 } else { level };
                stack.push((c, next));
            });
        }
        deepest
    }

    /// `walk_levels` (read from the stored nodes) meets the name
    /// occurrences of [`for_each_ident`] in its order, and the same first
    /// too-deep node as the walk of [`children`] in either order, at every
    /// limit around each module's depth: on this module, the parser's valid
    /// fixtures and the conformance cases.
    #[test]
    fn walk_levels_is_the_walk_of_children() {
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
        let mut sources = vec![PROGRAM.to_string()];
        for dir in ["tests/parser/valid", "../conformance/cases"] {
            let mut dirs = vec![root.join(dir)];
            while let Some(d) = dirs.pop() {
                for entry in std::fs::read_dir(&d).expect("a test directory").flatten() {
                    let p = entry.path();
                    if p.is_dir() {
                        dirs.push(p);
                    } else if p.extension().is_some_and(|x| x == "spy") {
                        sources.push(std::fs::read_to_string(&p).unwrap_or_default());
                    }
                }
            }
        }
        let mut walked = 0;
        for src in &sources {
            let Ok(m) = crate::syntax::parse_str(src) else {
                continue;
            };
            let depth = deepest(&m);
            for limit in [depth.saturating_sub(2), depth.saturating_sub(1), depth, depth + 1] {
                for order in [Order::Source, Order::Reversed] {
                    let (want, names) = generic_levels(&m, limit, order);
                    let mut got = Vec::new();
                    let r = walk_levels(&m, limit, order, &mut |at| got.push(at));
                    assert_eq!(r, want, "limit {limit} in\n{src}");
                    if r.is_ok() && order == Order::Source {
                        assert_eq!(got, names, "names in\n{src}");
                    }
                }
            }
            walked += 1;
        }
        assert!(walked > 300, "{walked} modules");
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
