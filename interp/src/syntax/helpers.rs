//! What the grammar's actions call: the parse context (fresh `NameId`s, the
//! first deferred "not implemented yet" error), the `Node` wrapper that
//! carries an expression's depth, and the builders for expressions.
//! Statement and definition builders live in `helpers/stmt.rs`.
//!
//! Two kinds of errors leave these helpers:
//! - Python syntax errors (and the depth limit) abort the parse at once
//!   (`Err(LpError::User)`), like CPython's parser would;
//! - constructs Python accepts but SPy rejects are *deferred*: the helper
//!   records the error in `ParseCtx` and returns a placeholder, so a later
//!   plain syntax error still wins, as upstream (which converts a Python
//!   AST that parsed completely).

mod stmt;

use std::cell::{Cell, RefCell};

use crate::source::TextRange;
use crate::syntax::ast::{
    BinOp, BoolOp, CmpOp, ExprId, ExprKind, ExprNode, ExprRef, GeneratorExpNode, IdentId, Identifier,
    IfExpNode, Lit64, Module, Name, NameId, SliceNode, StmtId, StmtNode, UnaryOp,
};
use crate::syntax::error::{ParseError, ParseErrorKind};
use crate::syntax::token::Tok;

pub use stmt::*;

/// lalrpop's error type for this grammar.
/// (Actions never report a token, so theirs is `Tok<'static>`; the
/// parser's own errors borrow the source, see `syntax::from_lalrpop`.)
pub type LpError = lalrpop_util::ParseError<usize, Tok<'static>, ParseError>;
pub type Res<T> = Result<T, LpError>;

/// Deepest expression nesting the parser builds (see `validate` for the
/// statement + expression limit of the finished tree).
pub const MAX_EXPR_DEPTH: u32 = 1000;

/// State shared by all actions of one parse, and the tree being built.
#[derive(Default)]
pub struct ParseCtx {
    module: RefCell<Module>,
    next_id: Cell<u32>,
    /// Some ids were handed out twice or dropped (a special decorator in an
    /// unusual place): ids must be reassigned after parsing.
    needs_renumber: Cell<bool>,
    /// The earliest "not implemented yet"-style error seen so far.
    deferred: RefCell<Option<ParseError>>,
    /// The deepest expression built.
    max_expr_depth: Cell<u32>,
}

impl ParseCtx {
    /// A parse of `source_len` bytes (the tree's vectors sized for it).
    pub fn for_source(source_len: usize) -> ParseCtx {
        // About one distinct name per 40 source bytes (the set does not
        // grow by doubling and rehashing while a program is parsed).
        let names = (source_len / 40).min(4096);
        let mut module = Module::with_capacity_for(source_len);
        module.reserve_names(names);
        ParseCtx {
            module: RefCell::new(module),
            ..ParseCtx::default()
        }
    }

    /// The tree built, once the parse is over.
    pub fn into_module(self) -> Module {
        self.module.into_inner()
    }

    /// Read the tree built so far.
    pub fn read<R>(&self, f: impl FnOnce(&Module) -> R) -> R {
        f(&self.module.borrow())
    }

    /// Change the tree built so far.
    pub fn build<R>(&self, f: impl FnOnce(&mut Module) -> R) -> R {
        f(&mut self.module.borrow_mut())
    }

    pub fn add_expr(&self, node: ExprNode, range: TextRange) -> ExprId {
        self.module.borrow_mut().add_expr(node, range)
    }

    pub fn add_stmt(&self, node: StmtNode, range: TextRange) -> StmtId {
        self.module.borrow_mut().add_stmt(node, range)
    }

    pub fn add_ident(&self, ident: Identifier) -> IdentId {
        self.module.borrow_mut().add_ident(ident)
    }

    pub fn expr_range(&self, id: ExprId) -> TextRange {
        self.module.borrow().expr_node(id).range
    }

    pub fn stmt_range(&self, id: StmtId) -> TextRange {
        self.module.borrow().stmt_node(id).range
    }

    /// Whether expression `id` is stored as `matches`.
    pub fn expr_is(&self, id: ExprId, matches: impl FnOnce(&ExprNode) -> bool) -> bool {
        matches(&self.module.borrow().expr_node(id).node)
    }

    /// A name occurrence with a fresh id.
    pub fn ident(&self, name: &str, l: usize, r: usize) -> Identifier {
        let id = self.next_id.get();
        self.next_id.set(id + 1);
        Identifier {
            name: self.intern(name),
            range: TextRange::from_usize(l, r),
            id: NameId(id),
        }
    }

    /// The one `Name` of this parse spelled `name` (every name seen is
    /// in the module's name table, once: occurrences share it).
    pub fn intern(&self, name: &str) -> Name {
        let mut m = self.module.borrow_mut();
        let sym = m.intern(name);
        m.name(sym).clone()
    }

    /// A name expression with a fresh id.
    pub fn name_expr(&self, name: &str, l: usize, r: usize) -> ExprId {
        let id = self.next_id.get();
        self.next_id.set(id + 1);
        let mut m = self.module.borrow_mut();
        let sym = m.intern(name);
        m.add_expr(
            ExprNode::Name { sym, id: NameId(id) },
            TextRange::from_usize(l, r),
        )
    }

    pub fn ids_handed_out(&self) -> u32 {
        self.next_id.get()
    }

    /// Take back the ids of identifiers that will not be in the tree. Only
    /// the most recently handed-out ids can be reused; otherwise the ids are
    /// reassigned after parsing.
    pub fn release_idents(&self, ids: &[NameId]) {
        let next = self.next_id.get();
        let count = ids.len() as u32;
        let newest = ids
            .iter()
            .enumerate()
            .all(|(i, id)| id.0 + count == next + i as u32);
        if newest && count <= next {
            self.next_id.set(next - count);
        } else {
            self.needs_renumber.set(true);
        }
    }

    /// Identifiers with released ids were kept after all.
    pub fn mark_needs_renumber(&self) {
        self.needs_renumber.set(true);
    }

    pub fn needs_renumber(&self) -> bool {
        self.needs_renumber.get()
    }

    /// Record an error that is reported only if the whole file parses. The
    /// earliest one in the source wins; at the same start, the outer one.
    pub fn defer(&self, err: ParseError) {
        let mut slot = self.deferred.borrow_mut();
        let better = match &*slot {
            None => true,
            Some(old) => {
                err.range.start < old.range.start
                    || (err.range.start == old.range.start && err.range.end > old.range.end)
            }
        };
        if better {
            *slot = Some(err);
        }
    }

    pub fn defer_at(&self, kind: ParseErrorKind, range: TextRange) {
        self.defer(ParseError::new(kind, range));
    }

    pub fn saw_depth(&self, depth: u32) {
        if depth > self.max_expr_depth.get() {
            self.max_expr_depth.set(depth);
        }
    }

    pub fn max_expr_depth(&self) -> u32 {
        self.max_expr_depth.get()
    }

    pub fn take_deferred(&self) -> Option<ParseError> {
        self.deferred.borrow_mut().take()
    }
}

/// An expression under construction, with what its parents need to know.
#[derive(Debug)]
pub struct Node {
    pub expr: ExprId,
    /// 1 for a leaf; 1 + the deepest child otherwise.
    pub depth: u32,
    /// Written in parentheses (`(a < b) < c` is not a chain).
    pub parens: bool,
}

pub fn range(l: usize, r: usize) -> TextRange {
    TextRange::from_usize(l, r)
}

/// An error that aborts the parse.
pub fn fail(kind: ParseErrorKind, range: TextRange) -> LpError {
    LpError::User {
        error: ParseError::new(kind, range),
    }
}

pub fn syntax(msg: impl Into<String>, range: TextRange) -> LpError {
    fail(ParseErrorKind::Syntax(msg.into()), range)
}

pub fn not_implemented(what: &str) -> ParseErrorKind {
    ParseErrorKind::NotImplemented(what.to_owned())
}

/// Build a node `depth` deep, refusing trees deeper than the limit.
pub fn node(ctx: &ParseCtx, kind: ExprNode, l: usize, r: usize, depth: u32) -> Res<Node> {
    node_built(ctx, l, r, depth, |m, range| m.add_expr(kind, range))
}

/// [`node`] for the nodes the module builds from their parts
/// (`Module::add_call`, `add_if_exp`...).
fn node_built(
    ctx: &ParseCtx,
    l: usize,
    r: usize,
    depth: u32,
    build: impl FnOnce(&mut Module, TextRange) -> ExprId,
) -> Res<Node> {
    if depth > MAX_EXPR_DEPTH {
        // Point at where the too-deep node starts (its range can be huge).
        return Err(fail(ParseErrorKind::TooDeeplyNested, range(l, l)));
    }
    ctx.saw_depth(depth);
    Ok(Node {
        expr: ctx.build(|m| build(m, range(l, r))),
        depth,
        parens: false,
    })
}

pub fn leaf(ctx: &ParseCtx, kind: ExprNode, l: usize, r: usize) -> Node {
    Node {
        expr: ctx.add_expr(kind, range(l, r)),
        depth: 1,
        parens: false,
    }
}

fn deepest<'a>(nodes: impl IntoIterator<Item = &'a Node>) -> u32 {
    nodes.into_iter().map(|n| n.depth).max().unwrap_or(0)
}

pub fn prepend(first: Node, rest: Vec<Node>) -> Vec<Node> {
    let mut v = Vec::with_capacity(rest.len() + 1);
    v.push(first);
    v.extend(rest);
    v
}

fn exprs(ctx: &ParseCtx, nodes: Vec<Node>) -> crate::syntax::ast::ExprList {
    ctx.build(|m| m.add_exprs(nodes.into_iter().map(|n| n.expr)))
}

// ------------------------------------------------------------------ leaves

pub fn int(v: u64) -> ExprNode {
    ExprNode::Int(Lit64::from_u64(v))
}

pub fn float(v: f64) -> ExprNode {
    ExprNode::Float(Lit64::from_f64(v))
}

pub fn none() -> ExprNode {
    ExprNode::None
}

pub fn boolean(v: bool) -> ExprNode {
    ExprNode::Bool(v)
}

pub fn name(ctx: &ParseCtx, name: &str, l: usize, r: usize) -> Node {
    Node {
        expr: ctx.name_expr(name, l, r),
        depth: 1,
        parens: false,
    }
}

/// A Python expression SPy does not support: deferred error + placeholder.
pub fn unsupported_expr(ctx: &ParseCtx, what: &str, l: usize, r: usize) -> Node {
    ctx.defer_at(not_implemented(what), range(l, r));
    leaf(ctx, ExprNode::None, l, r)
}

pub fn ellipsis(ctx: &ParseCtx, l: usize, r: usize) -> Node {
    ctx.defer_at(ParseErrorKind::EllipsisLiteral, range(l, r));
    leaf(ctx, ExprNode::None, l, r)
}

/// One string token of an implicitly concatenated group.
pub enum StrPart {
    Str(String),
    Bytes(Vec<u8>),
    FString,
}

/// A single string literal (no concatenation).
pub fn string(ctx: &ParseCtx, part: StrPart, l: usize, r: usize) -> Node {
    match part {
        StrPart::Str(s) => {
            let s = ctx.build(|m| m.add_str(s));
            leaf(ctx, ExprNode::Str(s), l, r)
        }
        StrPart::Bytes(b) => {
            let b = ctx.build(|m| m.add_bytes(b));
            leaf(ctx, ExprNode::Bytes(b), l, r)
        }
        StrPart::FString => unsupported_expr(ctx, "JoinedStr", l, r),
    }
}

pub fn prepend_part(first: StrPart, mut more: Vec<StrPart>) -> Vec<StrPart> {
    more.insert(0, first);
    more
}

/// Adjacent literals concatenate; str and bytes do not mix; any f-string
/// makes the whole group a `JoinedStr`.
pub fn strings(ctx: &ParseCtx, parts: Vec<StrPart>, l: usize, r: usize) -> Res<Node> {
    let is_bytes = |p: &StrPart| matches!(p, StrPart::Bytes(..));
    let first_bytes = parts.first().is_some_and(is_bytes);
    if parts.iter().any(|p| is_bytes(p) != first_bytes) {
        return Err(fail(ParseErrorKind::MixedBytesAndStr, range(l, r)));
    }
    if parts.iter().any(|p| matches!(p, StrPart::FString)) {
        return Ok(unsupported_expr(ctx, "JoinedStr", l, r));
    }
    let kind = if first_bytes {
        let mut out = Vec::new();
        for p in parts {
            if let StrPart::Bytes(b) = p {
                if out.is_empty() {
                    out = b;
                } else {
                    out.extend_from_slice(&b);
                }
            }
        }
        ExprNode::Bytes(ctx.build(|m| m.add_bytes(out)))
    } else {
        let mut out = String::new();
        for p in parts {
            if let StrPart::Str(s) = p {
                if out.is_empty() {
                    out = s;
                } else {
                    out.push_str(&s);
                }
            }
        }
        ExprNode::Str(ctx.build(|m| m.add_str(out)))
    };
    Ok(leaf(ctx, kind, l, r))
}

// ------------------------------------------------------------- operators

pub fn unary(ctx: &ParseCtx, op: UnaryOp, e: Node, l: usize, r: usize) -> Res<Node> {
    let depth = e.depth + 1;
    node(ctx, ExprNode::UnaryOp { op, operand: e.expr }, l, r, depth)
}

pub fn binop(ctx: &ParseCtx, a: Node, op: BinOp, b: Node, l: usize, r: usize) -> Res<Node> {
    let depth = a.depth.max(b.depth) + 1;
    node(
        ctx,
        ExprNode::BinOp {
            left: a.expr,
            op,
            right: b.expr,
        },
        l,
        r,
        depth,
    )
}

pub fn bool_op(ctx: &ParseCtx, a: Node, op: BoolOp, b: Node, l: usize, r: usize) -> Res<Node> {
    let depth = a.depth.max(b.depth) + 1;
    node(
        ctx,
        ExprNode::BoolOp {
            op,
            left: a.expr,
            right: b.expr,
        },
        l,
        r,
        depth,
    )
}

/// Comparisons are binary in SPy: `a < b < c` is rejected at `c`.
pub fn compare(ctx: &ParseCtx, a: Node, op: CmpOp, b: Node, l: usize, r: usize) -> Res<Node> {
    if !a.parens && ctx.expr_is(a.expr, |e| matches!(e, ExprNode::Compare { .. })) {
        ctx.defer_at(not_implemented("chained comparisons"), ctx.expr_range(b.expr));
    }
    let depth = a.depth.max(b.depth) + 1;
    node(
        ctx,
        ExprNode::Compare {
            left: a.expr,
            op,
            right: b.expr,
        },
        l,
        r,
        depth,
    )
}

pub fn if_exp(ctx: &ParseCtx, body: Node, test: Node, orelse: Node, l: usize, r: usize) -> Res<Node> {
    let depth = deepest([&body, &test, &orelse]) + 1;
    let if_exp = IfExpNode {
        test: test.expr,
        body: body.expr,
        orelse: orelse.expr,
    };
    node_built(ctx, l, r, depth, |m, range| m.add_if_exp(if_exp, range))
}

pub fn walrus(ctx: &ParseCtx, target: Identifier, value: Node, l: usize, r: usize) -> Res<Node> {
    let depth = value.depth + 1;
    node(
        ctx,
        ExprNode::Walrus {
            target: ctx.add_ident(target),
            value: value.expr,
        },
        l,
        r,
        depth,
    )
}

pub fn starred(ctx: &ParseCtx, e: Node, l: usize, r: usize) -> Res<Node> {
    let depth = e.depth + 1;
    node(ctx, ExprNode::Starred(e.expr), l, r, depth)
}

/// `(e)`: the node's range grows to include the parentheses (unlike
/// Python's AST), so a parent's range is always the cover of its children.
pub fn parenthesized(ctx: &ParseCtx, mut e: Node, l: usize, r: usize) -> Res<Node> {
    if ctx.expr_is(e.expr, |e| matches!(e, ExprNode::Starred(_))) {
        return Err(syntax(
            "cannot use starred expression here",
            ctx.expr_range(e.expr),
        ));
    }
    e.parens = true;
    ctx.build(|m| {
        let expr = m.expr_node(e.expr);
        // a name keeps its own range as its identifier's
        if let ExprNode::Name { sym, id } = expr.node {
            let ident = Identifier {
                name: m.name(sym).clone(),
                range: expr.range,
                id,
            };
            let ident = m.add_ident(ident);
            m.set_expr_node(e.expr, ExprNode::NameIn(ident));
        }
        m.set_expr_range(e.expr, range(l, r));
    });
    Ok(e)
}

/// Binding power of the operators of the flat `Expr` chain (all left
/// associative; `**` is handled by the grammar).
fn precedence(op: BinOp) -> u8 {
    match op {
        BinOp::BitOr => 1,
        BinOp::BitXor => 2,
        BinOp::BitAnd => 3,
        BinOp::LShift | BinOp::RShift => 4,
        BinOp::Add | BinOp::Sub => 5,
        BinOp::Mul | BinOp::Div | BinOp::FloorDiv | BinOp::Mod | BinOp::MatMul => 6,
        BinOp::Pow => 7,
    }
}

/// Fold `first (op operand)*` into a tree by precedence (shunting-yard).
/// A node's range covers its operands, parentheses included.
pub fn fold_arith(ctx: &ParseCtx, first: Node, mut rest: Vec<(BinOp, Node)>) -> Res<Node> {
    if rest.len() == 1 {
        // The common `a + b`: no operator stack needed.
        if let Some((op, b)) = rest.pop() {
            let (l, r) = (
                ctx.expr_range(first.expr).start as usize,
                ctx.expr_range(b.expr).end as usize,
            );
            return binop(ctx, first, op, b, l, r);
        }
    }
    let mut operands: Vec<Node> = Vec::with_capacity(rest.len() + 1);
    let mut ops: Vec<BinOp> = Vec::with_capacity(rest.len());
    operands.push(first);
    for (op, rhs) in rest {
        while let Some(&top) = ops.last() {
            if precedence(top) < precedence(op) {
                break;
            }
            reduce_top(ctx, &mut operands, &mut ops)?;
        }
        ops.push(op);
        operands.push(rhs);
    }
    while !ops.is_empty() {
        reduce_top(ctx, &mut operands, &mut ops)?;
    }
    match operands.pop() {
        Some(n) => Ok(n),
        None => Err(fail(
            ParseErrorKind::InvalidSyntax { expected: None },
            range(0, 0),
        )),
    }
}

fn reduce_top(ctx: &ParseCtx, operands: &mut Vec<Node>, ops: &mut Vec<BinOp>) -> Res<()> {
    let (Some(op), Some(b), Some(a)) = (ops.pop(), operands.pop(), operands.pop()) else {
        return Err(fail(
            ParseErrorKind::InvalidSyntax { expected: None },
            range(0, 0),
        ));
    };
    let (l, r) = (
        ctx.expr_range(a.expr).start as usize,
        ctx.expr_range(b.expr).end as usize,
    );
    operands.push(binop(ctx, a, op, b, l, r)?);
    Ok(())
}

/// An operand of the flat logical chain, with the `not`s written before it.
pub struct Operand {
    /// Start of each `not`, innermost first (the grammar adds outer ones).
    nots: Vec<u32>,
    node: Node,
}

impl Operand {
    pub fn plain(node: Node) -> Operand {
        Operand {
            nots: Vec::new(),
            node,
        }
    }

    pub fn negated(not_at: usize, node: Node) -> Operand {
        Operand {
            nots: vec![not_at as u32],
            node,
        }
    }

    /// One more `not` in front (outermost).
    pub fn with_not(mut self, not_at: usize) -> Operand {
        self.nots.push(not_at as u32);
        self
    }
}

#[derive(Clone, Copy)]
pub enum LogicOp {
    Or,
    And,
    Cmp(CmpOp),
}

/// One entry of the operator stack of `fold_logic`.
#[derive(Clone, Copy)]
enum Pending {
    Infix(LogicOp),
    /// A prefix `not` starting at this offset.
    Not(u32),
}

fn logic_precedence(p: Pending) -> u8 {
    match p {
        Pending::Infix(LogicOp::Or) => 1,
        Pending::Infix(LogicOp::And) => 2,
        Pending::Not(_) => 3,
        Pending::Infix(LogicOp::Cmp(_)) => 4,
    }
}

/// Fold `operand (op operand)*` where operands may carry `not`s: `or` <
/// `and` < `not` < comparisons, all left associative (a comparison whose
/// left side is an unparenthesized comparison is the rejected chain).
pub fn fold_logic(ctx: &ParseCtx, first: Operand, mut rest: Vec<(LogicOp, Operand)>) -> Res<Node> {
    if rest.len() == 1 && first.nots.is_empty() && rest[0].1.nots.is_empty() {
        // The common `a < b`: no operator stack needed.
        if let Some((op, b)) = rest.pop() {
            return logic_infix(ctx, first.node, op, b.node);
        }
    }
    let mut operands: Vec<Node> = Vec::with_capacity(rest.len() + 1);
    let mut ops: Vec<Pending> = Vec::new();
    // Outermost first: the innermost `not` ends on top and applies first.
    ops.extend(first.nots.iter().rev().map(|&at| Pending::Not(at)));
    operands.push(first.node);
    for (op, rhs) in rest {
        let p = logic_precedence(Pending::Infix(op));
        while let Some(&top) = ops.last() {
            if logic_precedence(top) < p {
                break;
            }
            apply_logic(ctx, &mut operands, &mut ops)?;
        }
        ops.push(Pending::Infix(op));
        ops.extend(rhs.nots.iter().rev().map(|&at| Pending::Not(at)));
        operands.push(rhs.node);
    }
    while !ops.is_empty() {
        apply_logic(ctx, &mut operands, &mut ops)?;
    }
    match operands.pop() {
        Some(n) => Ok(n),
        None => Err(fail(
            ParseErrorKind::InvalidSyntax { expected: None },
            range(0, 0),
        )),
    }
}

fn apply_logic(ctx: &ParseCtx, operands: &mut Vec<Node>, ops: &mut Vec<Pending>) -> Res<()> {
    let broken = || fail(ParseErrorKind::InvalidSyntax { expected: None }, range(0, 0));
    let op = ops.pop().ok_or_else(broken)?;
    let b = operands.pop().ok_or_else(broken)?;
    let n = match op {
        Pending::Not(at) => {
            let r = ctx.expr_range(b.expr).end as usize;
            unary(ctx, UnaryOp::Not, b, at as usize, r)?
        }
        Pending::Infix(op) => {
            let a = operands.pop().ok_or_else(broken)?;
            logic_infix(ctx, a, op, b)?
        }
    };
    operands.push(n);
    Ok(())
}

fn logic_infix(ctx: &ParseCtx, a: Node, op: LogicOp, b: Node) -> Res<Node> {
    let (l, r) = (
        ctx.expr_range(a.expr).start as usize,
        ctx.expr_range(b.expr).end as usize,
    );
    match op {
        LogicOp::Or => bool_op(ctx, a, BoolOp::Or, b, l, r),
        LogicOp::And => bool_op(ctx, a, BoolOp::And, b, l, r),
        LogicOp::Cmp(c) => compare(ctx, a, c, b, l, r),
    }
}

// ------------------------------------------------------------- displays

pub fn tuple(ctx: &ParseCtx, items: Vec<Node>, l: usize, r: usize, parens: bool) -> Res<Node> {
    let depth = deepest(&items) + 1;
    let items = exprs(ctx, items);
    let mut n = node(ctx, ExprNode::Tuple(items), l, r, depth)?;
    n.parens = parens;
    Ok(n)
}

pub fn list(ctx: &ParseCtx, items: Vec<Node>, l: usize, r: usize) -> Res<Node> {
    let depth = deepest(&items) + 1;
    let items = exprs(ctx, items);
    node(ctx, ExprNode::List(items), l, r, depth)
}

pub enum DictItem {
    Pair(Box<(Node, Node)>),
    /// `**e`
    Unpack(Node),
}

pub fn dict(ctx: &ParseCtx, items: Vec<DictItem>, l: usize, r: usize) -> Res<Node> {
    let mut pairs = Vec::with_capacity(items.len());
    let mut depth = 0;
    for item in items {
        match item {
            DictItem::Pair(kv) => {
                let (k, v) = *kv;
                depth = depth.max(k.depth).max(v.depth);
                pairs.push(k.expr);
                pairs.push(v.expr);
            }
            DictItem::Unpack(e) => {
                ctx.defer_at(
                    not_implemented("dict unpacking is unsupported."),
                    ctx.expr_range(e.expr),
                );
            }
        }
    }
    let pairs = ctx.build(|m| m.add_exprs(pairs));
    node(ctx, ExprNode::Dict(pairs), l, r, depth + 1)
}

/// One `for ... in ...` or `if ...` clause of a comprehension.
pub enum CompClause {
    For(Box<CompFor>),
    If,
}

pub struct CompFor {
    pub is_async: bool,
    pub target: Node,
    pub iter: Node,
}

/// `(elt for x in it)`: one `for`, a plain name target, no `if`.
pub fn genexp(ctx: &ParseCtx, elt: Node, mut clauses: Vec<CompClause>, l: usize, r: usize) -> Res<Node> {
    let simple = clauses.len() == 1
        && matches!(
            &clauses[0],
            CompClause::For(f) if !f.is_async && ctx.read(|m| m.expr(f.target.expr).is_name())
        );
    let complex = |ctx| Ok(unsupported_expr(ctx, "complex generator expressions", l, r));
    if !simple {
        return complex(ctx);
    }
    let Some(CompClause::For(f)) = clauses.pop() else {
        return complex(ctx);
    };
    let CompFor { target, iter, .. } = *f;
    let Some(target) = ctx.read(|m| m.expr(target.expr).name_ident()) else {
        return complex(ctx);
    };
    let depth = elt.depth.max(iter.depth) + 1;
    let gen = GeneratorExpNode {
        elt: elt.expr,
        target: ctx.add_ident(target),
        iter: iter.expr,
    };
    node_built(ctx, l, r, depth, |m, range| m.add_generator_exp(gen, range))
}

// ------------------------------------------------------- calls, trailers

/// One call argument as written (kept small: it sits on the parser stack).
pub enum Arg {
    Positional(Node),
    /// `f(x for x in y)`: the element and the clauses; the range.
    Genexp(Box<(Node, Vec<CompClause>)>, usize, usize),
    /// `*e`, already a `Starred` node.
    Star(Node),
    DoubleStar(usize, usize),
    Keyword(usize, usize),
}

pub fn call(ctx: &ParseCtx, func: Node, args: Vec<Arg>, l: usize, lpar: usize, r: usize) -> Res<Node> {
    let sole = args.len() == 1;
    let mut out = Vec::with_capacity(args.len());
    let mut depth = func.depth;
    let mut seen_keyword = false;
    let mut seen_double_star = false;
    for arg in args {
        match arg {
            Arg::Positional(e) => {
                if seen_double_star {
                    return Err(syntax(
                        "positional argument follows keyword argument unpacking",
                        ctx.expr_range(e.expr),
                    ));
                }
                if seen_keyword {
                    return Err(syntax(
                        "positional argument follows keyword argument",
                        ctx.expr_range(e.expr),
                    ));
                }
                depth = depth.max(e.depth);
                out.push(e.expr);
            }
            Arg::Genexp(g, gl, gr) => {
                let (elt, clauses) = *g;
                if !sole {
                    return Err(syntax(
                        "Generator expression must be parenthesized",
                        range(gl, gr),
                    ));
                }
                // Python gives the genexp the call's parentheses.
                let g = genexp(ctx, elt, clauses, lpar, r)?;
                depth = depth.max(g.depth);
                out.push(g.expr);
            }
            Arg::Star(s) => {
                if seen_double_star {
                    return Err(syntax(
                        "iterable argument unpacking follows keyword argument unpacking",
                        ctx.expr_range(s.expr),
                    ));
                }
                depth = depth.max(s.depth);
                out.push(s.expr);
            }
            Arg::DoubleStar(kl, kr) => {
                seen_double_star = true;
                ctx.defer_at(not_implemented("keyword arguments"), range(kl, kr));
            }
            Arg::Keyword(kl, kr) => {
                seen_keyword = true;
                ctx.defer_at(not_implemented("keyword arguments"), range(kl, kr));
            }
        }
    }
    node_built(ctx, l, r, depth + 1, |m, range| m.add_call(func.expr, out, range))
}

/// `v[i]`, `v[i, j]`: a tuple index becomes several indices (as upstream).
pub fn subscript(ctx: &ParseCtx, value: Node, mut indices: Vec<Node>, l: usize, r: usize) -> Res<Node> {
    let mut depth = value.depth.max(deepest(&indices));
    let single_tuple =
        indices.len() == 1 && ctx.expr_is(indices[0].expr, |e| matches!(e, ExprNode::Tuple(_)));
    let indices: Vec<ExprId> = match indices.pop() {
        Some(last) if single_tuple => {
            // The tuple level disappears (its node stays unused).
            depth = value.depth.max(last.depth.saturating_sub(1));
            ctx.read(|m| match &m.expr_node(last.expr).node {
                ExprNode::Tuple(items) => m.expr_items(*items).to_vec(),
                _ => unreachable!("checked: a tuple"),
            })
        }
        last => {
            indices.extend(last);
            indices.into_iter().map(|n| n.expr).collect()
        }
    };
    node_built(ctx, l, r, depth + 1, |m, range| {
        m.add_subscript(value.expr, indices, range)
    })
}

pub fn slice(
    ctx: &ParseCtx,
    lo: Option<Node>,
    hi: Option<Node>,
    step: Option<Node>,
    l: usize,
    r: usize,
) -> Res<Node> {
    let depth = deepest(lo.iter().chain(hi.iter()).chain(step.iter())) + 1;
    let boxed = |n: Option<Node>| n.map(|n| n.expr);
    let slice = SliceNode {
        lower: boxed(lo),
        upper: boxed(hi),
        step: boxed(step),
    };
    node_built(ctx, l, r, depth, |m, range| m.add_slice(slice, range))
}

pub fn attribute(ctx: &ParseCtx, value: Node, attr: Identifier, l: usize, r: usize) -> Res<Node> {
    let depth = value.depth + 1;
    node(
        ctx,
        ExprNode::Attribute {
            value: value.expr,
            attr: ctx.add_ident(attr),
        },
        l,
        r,
        depth,
    )
}

/// CPython's name for an expression in "cannot assign to ..." messages.
pub fn expr_name(e: ExprRef<'_>) -> &'static str {
    expr_kind_name(&e.kind())
}

fn expr_kind_name(kind: &ExprKind<'_>) -> &'static str {
    match kind {
        ExprKind::Int(_) | ExprKind::Float(_) | ExprKind::Str(_) | ExprKind::Bytes(_) => "literal",
        ExprKind::Bool(true) => "True",
        ExprKind::Bool(false) => "False",
        ExprKind::None => "None",
        ExprKind::Name(_) => "name",
        ExprKind::Attribute { .. } => "attribute",
        ExprKind::Call { .. } => "function call",
        ExprKind::Subscript { .. } => "subscript",
        ExprKind::Slice { .. } => "slice",
        ExprKind::UnaryOp { .. } | ExprKind::BinOp { .. } | ExprKind::BoolOp { .. } => "expression",
        ExprKind::Compare { .. } => "comparison",
        ExprKind::IfExp { .. } => "conditional expression",
        ExprKind::Tuple(_) => "tuple",
        ExprKind::List(_) => "list",
        ExprKind::Dict(_) => "dict literal",
        ExprKind::GeneratorExp { .. } => "generator expression",
        ExprKind::Starred(_) => "starred",
        ExprKind::Walrus { .. } => "named expression",
    }
}
