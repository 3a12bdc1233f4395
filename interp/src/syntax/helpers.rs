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
use crate::syntax::ast::{BoolOp, CmpOp, Expr, ExprKind, Identifier, NameId, UnaryOp};
use crate::syntax::error::{ParseError, ParseErrorKind};
use crate::syntax::token::Tok;

pub use stmt::*;

/// lalrpop's error type for this grammar.
pub type LpError = lalrpop_util::ParseError<usize, Tok, ParseError>;
pub type Res<T> = Result<T, LpError>;

/// Deepest expression nesting the parser builds (see `validate` for the
/// statement + expression limit of the finished tree).
pub const MAX_EXPR_DEPTH: u32 = 1000;

pub const BOOL_AND: BoolOp = BoolOp::And;
pub const BOOL_OR: BoolOp = BoolOp::Or;

/// State shared by all actions of one parse.
#[derive(Default)]
pub struct ParseCtx {
    next_id: Cell<u32>,
    /// Ids handed out and then dropped (special decorators): removed by a
    /// renumbering pass so ids stay dense.
    dropped: RefCell<Vec<u32>>,
    /// The earliest "not implemented yet"-style error seen so far.
    deferred: RefCell<Option<ParseError>>,
}

impl ParseCtx {
    pub fn new() -> ParseCtx {
        ParseCtx::default()
    }

    /// A name occurrence with a fresh id.
    pub fn ident(&self, name: String, l: usize, r: usize) -> Identifier {
        let id = self.next_id.get();
        self.next_id.set(id + 1);
        Identifier {
            name,
            range: TextRange::from_usize(l, r),
            id: NameId(id),
        }
    }

    pub fn ids_handed_out(&self) -> u32 {
        self.next_id.get()
    }

    /// Forget an identifier that will not be in the tree.
    pub fn drop_ident(&self, id: &Identifier) {
        self.dropped.borrow_mut().push(id.id.0);
    }

    pub fn take_dropped(&self) -> Vec<u32> {
        std::mem::take(&mut self.dropped.borrow_mut())
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

    pub fn take_deferred(&self) -> Option<ParseError> {
        self.deferred.borrow_mut().take()
    }
}

/// An expression under construction, with what its parents need to know.
#[derive(Debug)]
pub struct Node {
    pub expr: Expr,
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
pub fn node(kind: ExprKind, l: usize, r: usize, depth: u32) -> Res<Node> {
    if depth > MAX_EXPR_DEPTH {
        // Point at where the too-deep node starts (its range can be huge).
        return Err(fail(ParseErrorKind::TooDeeplyNested, range(l, l)));
    }
    Ok(Node {
        expr: Expr::new(kind, range(l, r)),
        depth,
        parens: false,
    })
}

pub fn leaf(kind: ExprKind, l: usize, r: usize) -> Node {
    Node {
        expr: Expr::new(kind, range(l, r)),
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

fn exprs(nodes: Vec<Node>) -> Vec<Expr> {
    nodes.into_iter().map(|n| n.expr).collect()
}

// ------------------------------------------------------------------ leaves

pub fn int(v: u64) -> ExprKind {
    ExprKind::Int(v)
}

pub fn float(v: f64) -> ExprKind {
    ExprKind::Float(v)
}

pub fn none() -> ExprKind {
    ExprKind::None
}

pub fn boolean(v: bool) -> ExprKind {
    ExprKind::Bool(v)
}

pub fn name(id: Identifier) -> Node {
    let r = id.range;
    Node {
        expr: Expr::new(ExprKind::Name(id), r),
        depth: 1,
        parens: false,
    }
}

/// A Python expression SPy does not support: deferred error + placeholder.
pub fn unsupported_expr(ctx: &ParseCtx, what: &str, l: usize, r: usize) -> Node {
    ctx.defer_at(not_implemented(what), range(l, r));
    leaf(ExprKind::None, l, r)
}

pub fn ellipsis(ctx: &ParseCtx, l: usize, r: usize) -> Node {
    ctx.defer_at(ParseErrorKind::EllipsisLiteral, range(l, r));
    leaf(ExprKind::None, l, r)
}

/// One string token of an implicitly concatenated group.
pub enum StrPart {
    Str(String),
    Bytes(Vec<u8>),
    FString,
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
        ExprKind::Bytes(out)
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
        ExprKind::Str(out)
    };
    Ok(leaf(kind, l, r))
}

// ------------------------------------------------------------- operators

pub fn unary(op: UnaryOp, e: Node, l: usize, r: usize) -> Res<Node> {
    let depth = e.depth + 1;
    node(
        ExprKind::UnaryOp {
            op,
            operand: Box::new(e.expr),
        },
        l,
        r,
        depth,
    )
}

pub fn binop(a: Node, op: crate::syntax::ast::BinOp, b: Node, l: usize, r: usize) -> Res<Node> {
    let depth = a.depth.max(b.depth) + 1;
    node(
        ExprKind::BinOp {
            left: Box::new(a.expr),
            op,
            right: Box::new(b.expr),
        },
        l,
        r,
        depth,
    )
}

pub fn bool_op(a: Node, op: BoolOp, b: Node, l: usize, r: usize) -> Res<Node> {
    let depth = a.depth.max(b.depth) + 1;
    node(
        ExprKind::BoolOp {
            op,
            left: Box::new(a.expr),
            right: Box::new(b.expr),
        },
        l,
        r,
        depth,
    )
}

/// Comparisons are binary in SPy: `a < b < c` is rejected at `c`.
pub fn compare(ctx: &ParseCtx, a: Node, op: CmpOp, b: Node, l: usize, r: usize) -> Res<Node> {
    if !a.parens && matches!(a.expr.kind, ExprKind::Compare { .. }) {
        ctx.defer_at(not_implemented("chained comparisons"), b.expr.range);
    }
    let depth = a.depth.max(b.depth) + 1;
    node(
        ExprKind::Compare {
            left: Box::new(a.expr),
            op,
            right: Box::new(b.expr),
        },
        l,
        r,
        depth,
    )
}

pub fn if_exp(body: Node, test: Node, orelse: Node, l: usize, r: usize) -> Res<Node> {
    let depth = deepest([&body, &test, &orelse]) + 1;
    node(
        ExprKind::IfExp {
            test: Box::new(test.expr),
            body: Box::new(body.expr),
            orelse: Box::new(orelse.expr),
        },
        l,
        r,
        depth,
    )
}

pub fn walrus(target: Identifier, value: Node, l: usize, r: usize) -> Res<Node> {
    let depth = value.depth + 1;
    node(
        ExprKind::Walrus {
            target,
            value: Box::new(value.expr),
        },
        l,
        r,
        depth,
    )
}

pub fn starred(e: Node, l: usize, r: usize) -> Res<Node> {
    let depth = e.depth + 1;
    node(ExprKind::Starred(Box::new(e.expr)), l, r, depth)
}

/// `(e)`: the node keeps its own range (as in Python's AST).
pub fn parenthesized(mut e: Node) -> Res<Node> {
    if matches!(e.expr.kind, ExprKind::Starred(_)) {
        return Err(syntax("cannot use starred expression here", e.expr.range));
    }
    e.parens = true;
    Ok(e)
}

// ------------------------------------------------------------- displays

pub fn tuple(items: Vec<Node>, l: usize, r: usize, parens: bool) -> Res<Node> {
    let depth = deepest(&items) + 1;
    let mut n = node(ExprKind::Tuple(exprs(items)), l, r, depth)?;
    n.parens = parens;
    Ok(n)
}

pub fn list(items: Vec<Node>, l: usize, r: usize) -> Res<Node> {
    let depth = deepest(&items) + 1;
    node(ExprKind::List(exprs(items)), l, r, depth)
}

pub enum DictItem {
    Pair(Node, Node),
    /// `**e`
    Unpack(Node),
}

pub fn dict(ctx: &ParseCtx, items: Vec<DictItem>, l: usize, r: usize) -> Res<Node> {
    let mut pairs = Vec::with_capacity(items.len());
    let mut depth = 0;
    for item in items {
        match item {
            DictItem::Pair(k, v) => {
                depth = depth.max(k.depth).max(v.depth);
                pairs.push((k.expr, v.expr));
            }
            DictItem::Unpack(e) => {
                ctx.defer_at(not_implemented("dict unpacking is unsupported."), e.expr.range);
            }
        }
    }
    node(ExprKind::Dict(pairs), l, r, depth + 1)
}

/// One `for ... in ...` or `if ...` clause of a comprehension.
pub enum CompClause {
    For {
        is_async: bool,
        target: Node,
        iter: Node,
    },
    If,
}

/// `(elt for x in it)`: one `for`, a plain name target, no `if`.
pub fn genexp(ctx: &ParseCtx, elt: Node, mut clauses: Vec<CompClause>, l: usize, r: usize) -> Res<Node> {
    let simple = clauses.len() == 1
        && matches!(
            &clauses[0],
            CompClause::For { is_async: false, target, .. }
                if matches!(target.expr.kind, ExprKind::Name(_))
        );
    if !simple {
        return Ok(unsupported_expr(ctx, "complex generator expressions", l, r));
    }
    let Some(CompClause::For { target, iter, .. }) = clauses.pop() else {
        return Ok(unsupported_expr(ctx, "complex generator expressions", l, r));
    };
    let ExprKind::Name(target) = target.expr.kind else {
        return Ok(unsupported_expr(ctx, "complex generator expressions", l, r));
    };
    let depth = elt.depth.max(iter.depth) + 1;
    node(
        ExprKind::GeneratorExp {
            elt: Box::new(elt.expr),
            target,
            iter: Box::new(iter.expr),
        },
        l,
        r,
        depth,
    )
}

// ------------------------------------------------------- calls, trailers

/// One call argument as written.
pub enum Arg {
    Positional(Node),
    /// `f(x for x in y)`: the element, the clauses, the range.
    Genexp(Node, Vec<CompClause>, usize, usize),
    Star(Node, usize, usize),
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
                        e.expr.range,
                    ));
                }
                if seen_keyword {
                    return Err(syntax(
                        "positional argument follows keyword argument",
                        e.expr.range,
                    ));
                }
                depth = depth.max(e.depth);
                out.push(e.expr);
            }
            Arg::Genexp(elt, clauses, gl, gr) => {
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
            Arg::Star(e, sl, sr) => {
                if seen_double_star {
                    return Err(syntax(
                        "iterable argument unpacking follows keyword argument unpacking",
                        range(sl, sr),
                    ));
                }
                let s = starred(e, sl, sr)?;
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
    node(
        ExprKind::Call {
            func: Box::new(func.expr),
            args: out,
        },
        l,
        r,
        depth + 1,
    )
}

/// `v[i]`, `v[i, j]`: a tuple index becomes several indices (as upstream).
pub fn subscript(value: Node, mut indices: Vec<Node>, l: usize, r: usize) -> Res<Node> {
    let mut depth = value.depth.max(deepest(&indices));
    let single_tuple = indices.len() == 1 && matches!(indices[0].expr.kind, ExprKind::Tuple(_));
    let indices = match indices.pop() {
        Some(Node {
            expr: Expr {
                kind: ExprKind::Tuple(items),
                ..
            },
            depth: d,
            ..
        }) if single_tuple => {
            // The tuple level disappears.
            depth = value.depth.max(d.saturating_sub(1));
            items
        }
        last => {
            indices.extend(last);
            exprs(indices)
        }
    };
    node(
        ExprKind::Subscript {
            value: Box::new(value.expr),
            indices,
        },
        l,
        r,
        depth + 1,
    )
}

pub fn slice(lo: Option<Node>, hi: Option<Node>, step: Option<Node>, l: usize, r: usize) -> Res<Node> {
    let depth = deepest(lo.iter().chain(hi.iter()).chain(step.iter())) + 1;
    let boxed = |n: Option<Node>| n.map(|n| Box::new(n.expr));
    node(
        ExprKind::Slice {
            lower: boxed(lo),
            upper: boxed(hi),
            step: boxed(step),
        },
        l,
        r,
        depth,
    )
}

pub fn attribute(value: Node, attr: Identifier, l: usize, r: usize) -> Res<Node> {
    let depth = value.depth + 1;
    node(
        ExprKind::Attribute {
            value: Box::new(value.expr),
            attr,
        },
        l,
        r,
        depth,
    )
}

/// CPython's name for an expression in "cannot assign to ..." messages.
pub fn expr_name(kind: &ExprKind) -> &'static str {
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
