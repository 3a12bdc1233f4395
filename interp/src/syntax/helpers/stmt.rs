//! Grammar helpers for statements and definitions: assignment targets,
//! compound statements (with `elif` chains folded into nested `If`s),
//! imports, function and class definitions (decorators, parameters, PEP 695
//! type parameters).
//!
//! Large grammar values are boxed so that the parser stack's entries stay
//! small; lists of them arrive as `Vec<Box<_>>` straight from the stack.
#![allow(clippy::vec_box)]

use super::{fail, not_implemented, range, syntax, Arg, LpError, Node, ParseCtx, Res, MAX_EXPR_DEPTH};
use crate::syntax::ast::{
    BinOp, Block, ClassNode, ExprId, ExprKind, ExprNode, FuncColor, FuncKind, FuncNode, Identifier,
    ImportNameNode, ParamKind, ParamNode, StmtId, StmtNode, VarKind,
};
use crate::syntax::error::ParseErrorKind;

const COMPLEX_TARGET: &str = "assign to complex expressions";

/// What one small statement produced (`import a, b` makes several).
pub enum Small {
    One(StmtId),
    Many(Vec<StmtId>),
}

pub fn one(s: StmtId) -> Small {
    Small::One(s)
}

pub fn push_small(mut v: Vec<StmtId>, s: Small) -> Vec<StmtId> {
    match s {
        Small::One(s) => v.push(s),
        Small::Many(many) => v.extend(many),
    }
    v
}

/// End offset of a (non-empty) suite, or `fallback`.
pub fn end_of(ctx: &ParseCtx, stmts: &[StmtId], fallback: usize) -> usize {
    stmts.last().map_or(fallback, |s| ctx.stmt_range(*s).end as usize)
}

/// A suite as a body of the tree.
fn body(ctx: &ParseCtx, stmts: Vec<StmtId>) -> Block {
    ctx.build(|m| m.add_block(stmts))
}

/// The module's top-level statements.
pub fn module(ctx: &ParseCtx, body: Vec<StmtId>) {
    ctx.build(|m| m.body = m.add_block(body));
}

// ---------------------------------------------------------- simple ones

pub enum SimpleKind {
    Pass,
    Break,
    Continue,
}

pub fn simple(ctx: &ParseCtx, kind: SimpleKind, l: usize, r: usize) -> StmtId {
    let kind = match kind {
        SimpleKind::Pass => StmtNode::Pass,
        SimpleKind::Break => StmtNode::Break,
        SimpleKind::Continue => StmtNode::Continue,
    };
    ctx.add_stmt(kind, range(l, r))
}

/// A Python statement SPy does not support: deferred error + placeholder.
pub fn unsupported_stmt(ctx: &ParseCtx, what: &str, l: usize, r: usize) -> StmtId {
    ctx.defer_at(not_implemented(what), range(l, r));
    ctx.add_stmt(StmtNode::Pass, range(l, r))
}

/// An unsupported block statement ending with the suite `body`.
pub fn unsupported_block(ctx: &ParseCtx, what: &str, l: usize, body: &[StmtId]) -> StmtId {
    unsupported_stmt(ctx, what, l, end_of(ctx, body, l))
}

/// `async for` / `async with` around an already built statement.
pub fn unsupported_compound(ctx: &ParseCtx, what: &str, l: usize, inner: StmtId) -> StmtId {
    unsupported_stmt(ctx, what, l, ctx.stmt_range(inner).end as usize)
}

/// `*a` alone where only an expression may stand.
fn no_lone_star(ctx: &ParseCtx, e: &Node) -> Res<()> {
    if ctx.expr_is(e.expr, |e| matches!(e, ExprNode::Starred(_))) {
        return Err(syntax(
            "can't use starred expression here",
            ctx.expr_range(e.expr),
        ));
    }
    Ok(())
}

pub fn expr_stmt(ctx: &ParseCtx, e: Node, l: usize, r: usize) -> Res<StmtId> {
    no_lone_star(ctx, &e)?;
    Ok(ctx.add_stmt(StmtNode::Expr(e.expr), range(l, r)))
}

pub fn return_stmt(ctx: &ParseCtx, value: Option<Node>, l: usize, r: usize) -> Res<StmtId> {
    if let Some(v) = &value {
        no_lone_star(ctx, v)?;
    }
    Ok(ctx.add_stmt(StmtNode::Return(value.map(|v| v.expr)), range(l, r)))
}

pub fn raise_stmt(ctx: &ParseCtx, exc: Option<Node>, cause: Option<Node>, l: usize, r: usize) -> StmtId {
    match (exc, cause) {
        (_, Some(_)) => unsupported_stmt(ctx, "raise ... from ...", l, r),
        (None, None) => unsupported_stmt(ctx, "bare raise", l, r),
        (Some(e), None) => ctx.add_stmt(StmtNode::Raise(e.expr), range(l, r)),
    }
}

pub fn assert_stmt(ctx: &ParseCtx, test: Node, msg: Option<Node>, l: usize, r: usize) -> StmtId {
    ctx.add_stmt(
        StmtNode::Assert {
            test: test.expr,
            msg: msg.map(|m| m.expr),
        },
        range(l, r),
    )
}

// ------------------------------------------------------------ assignment

/// Python's rule for what may be assigned to (else a syntax error).
fn check_target(ctx: &ParseCtx, e: ExprId) -> Res<()> {
    ctx.read(|m| check_target_in(m.expr(e)))
}

fn check_target_in(e: crate::syntax::ast::ExprRef<'_>) -> Res<()> {
    match e.kind() {
        ExprKind::Name(_) | ExprKind::Attribute { .. } | ExprKind::Subscript { .. } => Ok(()),
        ExprKind::Tuple(items) | ExprKind::List(items) => items.iter().try_for_each(check_target_in),
        ExprKind::Starred(inner) => check_target_in(inner),
        _ => Err(syntax(
            format!("cannot assign to {}", super::expr_name(e)),
            e.range,
        )),
    }
}

/// Check a parsed expression as an assignment target (it stays the
/// target: `AssignTarget` reads it). Python accepts more than SPy: those
/// cases are deferred errors.
fn assign_target(ctx: &ParseCtx, t: &Node) -> Res<()> {
    check_target(ctx, t.expr)?;
    ctx.read(|m| {
        let t = m.expr(t.expr);
        let r = t.range;
        match t.kind() {
            ExprKind::Name(_) | ExprKind::Attribute { .. } | ExprKind::Subscript { .. } => Ok(()),
            ExprKind::Tuple(items) => {
                for item in items.iter() {
                    if !item.is_name() {
                        ctx.defer_at(not_implemented(COMPLEX_TARGET), item.range);
                    }
                }
                Ok(())
            }
            ExprKind::Starred(_) => Err(syntax("starred assignment target must be in a list or tuple", r)),
            _ => {
                ctx.defer_at(not_implemented(COMPLEX_TARGET), r);
                Ok(())
            }
        }
    })
}

pub fn assign(ctx: &ParseCtx, first: Node, mut rest: Vec<Node>, l: usize, r: usize) -> Res<StmtId> {
    let Some(value) = rest.pop() else {
        return expr_stmt(ctx, first, l, r);
    };
    no_lone_star(ctx, &value)?;
    check_target(ctx, first.expr)?;
    for t in &rest {
        check_target(ctx, t.expr)?;
    }
    if !rest.is_empty() {
        ctx.defer_at(not_implemented("assign to multiple targets"), range(l, r));
    }
    assign_target(ctx, &first)?;
    Ok(ctx.add_stmt(
        StmtNode::Assign {
            target: first.expr,
            value: value.expr,
        },
        range(l, r),
    ))
}

/// What kind of target a parsed expression is, for the statements that
/// take a plain name.
enum NameTarget {
    Name(Identifier),
    /// An attribute or subscript: a deferred "not implemented".
    Complex,
    /// Anything else.
    Other,
    Tuple,
    List,
}

fn name_target(ctx: &ParseCtx, t: &Node) -> NameTarget {
    ctx.read(|m| {
        let e = m.expr(t.expr);
        match e.kind() {
            ExprKind::Name(id) => NameTarget::Name(id),
            ExprKind::Attribute { .. } | ExprKind::Subscript { .. } => NameTarget::Complex,
            ExprKind::Tuple(_) => NameTarget::Tuple,
            ExprKind::List(_) => NameTarget::List,
            _ => NameTarget::Other,
        }
    })
}

pub fn aug_assign(ctx: &ParseCtx, t: Node, op: BinOp, value: Node, l: usize, r: usize) -> Res<StmtId> {
    no_lone_star(ctx, &value)?;
    let tr = ctx.expr_range(t.expr);
    let target = match name_target(ctx, &t) {
        NameTarget::Name(id) => id,
        NameTarget::Complex => {
            ctx.defer_at(not_implemented(COMPLEX_TARGET), tr);
            return Ok(ctx.add_stmt(StmtNode::Pass, range(l, r)));
        }
        NameTarget::Tuple | NameTarget::List | NameTarget::Other => return Err(illegal_aug_target(ctx, &t)),
    };
    Ok(ctx.add_stmt(
        StmtNode::AugAssign {
            target: ctx.add_ident(target),
            op,
            value: value.expr,
        },
        range(l, r),
    ))
}

fn illegal_aug_target(ctx: &ParseCtx, t: &Node) -> LpError {
    let (name, tr) = ctx.read(|m| (super::expr_name(m.expr(t.expr)), m.expr_node(t.expr).range));
    syntax(
        format!("'{name}' is an illegal expression for augmented assignment"),
        tr,
    )
}

pub fn ann_assign(
    ctx: &ParseCtx,
    t: Node,
    annotation: Node,
    value: Option<Node>,
    l: usize,
    r: usize,
) -> Res<StmtId> {
    if let Some(v) = &value {
        no_lone_star(ctx, v)?;
    }
    let tr = ctx.expr_range(t.expr);
    let name = match name_target(ctx, &t) {
        NameTarget::Name(id) => {
            if t.parens {
                ctx.defer_at(ParseErrorKind::ParenthesizedAnnTarget, tr);
            }
            id
        }
        NameTarget::Complex => {
            ctx.defer_at(not_implemented(COMPLEX_TARGET), tr);
            return Ok(ctx.add_stmt(StmtNode::Pass, range(l, r)));
        }
        NameTarget::Tuple => return Err(syntax("only single target (not tuple) can be annotated", tr)),
        NameTarget::List => return Err(syntax("only single target (not list) can be annotated", tr)),
        NameTarget::Other => return Err(syntax("illegal target for annotation", tr)),
    };
    Ok(ctx.add_stmt(
        StmtNode::VarDef {
            kind: None,
            name: ctx.add_ident(name),
            annotation: Some(annotation.expr),
            value: value.map(|v| v.expr),
        },
        range(l, r),
    ))
}

pub fn var_decl(
    ctx: &ParseCtx,
    kind: VarKind,
    name: Identifier,
    annotation: Option<Node>,
    value: Option<Node>,
    l: usize,
    r: usize,
) -> Res<StmtId> {
    if let Some(v) = &value {
        no_lone_star(ctx, v)?;
    }
    Ok(ctx.add_stmt(
        StmtNode::VarDef {
            kind: Some(kind),
            name: ctx.add_ident(name),
            annotation: annotation.map(|a| a.expr),
            value: value.map(|v| v.expr),
        },
        range(l, r),
    ))
}

// ---------------------------------------------------------------- imports

pub fn dotted_name(ctx: &ParseCtx, first: &str, rest: Vec<&str>, l: usize, r: usize) -> Identifier {
    let mut name = first.to_string();
    for part in rest {
        name.push('.');
        name.push_str(part);
    }
    ctx.ident(&name, l, r)
}

pub fn import(
    ctx: &ParseCtx,
    names: Vec<Box<(Identifier, Option<Identifier>)>>,
    l: usize,
    r: usize,
) -> Vec<StmtId> {
    names
        .into_iter()
        .map(|b| {
            let (module, alias) = *b;
            let module = ctx.add_ident(module);
            let alias = alias.map(|a| ctx.add_ident(a));
            ctx.add_stmt(StmtNode::Import { module, alias }, range(l, r))
        })
        .collect()
}

pub enum ImportTargets {
    Star(usize, usize),
    Names(Vec<Box<(Identifier, Option<Identifier>)>>),
}

pub fn import_from(
    ctx: &ParseCtx,
    dots: Vec<(usize, usize)>,
    module: Option<Identifier>,
    targets: ImportTargets,
    l: usize,
    r: usize,
) -> Res<Vec<StmtId>> {
    // Placeholders are `ImportFrom`s with no names, so that the module-level
    // check accepts them and the deferred error is the one reported.
    let placeholder = |module: Identifier| {
        vec![ctx.add_stmt(
            StmtNode::ImportFrom {
                module: ctx.add_ident(module),
                names: Default::default(),
            },
            range(l, r),
        )]
    };
    let module = match module {
        Some(m) if dots.is_empty() => m,
        Some(m) => {
            ctx.defer_at(not_implemented("relative imports"), range(l, r));
            return Ok(placeholder(m));
        }
        None if dots.is_empty() => {
            return Err(fail(
                ParseErrorKind::InvalidSyntax { expected: None },
                range(l, r),
            ))
        }
        None => {
            ctx.defer_at(not_implemented("relative imports"), range(l, r));
            let (dl, dr) = dots[0];
            return Ok(placeholder(ctx.ident("", dl, dr)));
        }
    };
    let names = match targets {
        ImportTargets::Star(sl, sr) => {
            ctx.defer_at(not_implemented("import *"), range(sl, sr));
            return Ok(placeholder(module));
        }
        ImportTargets::Names(names) => {
            let names: Vec<ImportNameNode> = names
                .into_iter()
                .map(|b| {
                    let (name, alias) = *b;
                    let end = alias.as_ref().unwrap_or(&name).range;
                    ImportNameNode {
                        range: name.range.cover(end),
                        name: ctx.add_ident(name),
                        alias: alias.map(|a| ctx.add_ident(a)),
                    }
                })
                .collect();
            ctx.build(|m| m.add_import_names(names))
        }
    };
    let module = ctx.add_ident(module);
    Ok(vec![
        ctx.add_stmt(StmtNode::ImportFrom { module, names }, range(l, r))
    ])
}

// ---------------------------------------------------- compound statements

pub fn if_stmt(
    ctx: &ParseCtx,
    l: usize,
    test: Node,
    body: Vec<StmtId>,
    elifs: Vec<Box<(usize, Node, Vec<StmtId>)>>,
    orelse: Option<Vec<StmtId>>,
) -> Res<StmtId> {
    // Each `elif` nests one level deeper: bound the chain like expressions.
    if let Some(elif) = elifs.get(MAX_EXPR_DEPTH as usize) {
        return Err(fail(ParseErrorKind::TooDeeplyNested, range(elif.0, elif.0)));
    }
    // Fold `elif`s from the last one: each becomes the `orelse` of the
    // previous test.
    let mut tail = orelse.unwrap_or_default();
    for elif in elifs.into_iter().rev() {
        let (el, t, b) = *elif;
        let end = end_of(ctx, &tail, end_of(ctx, &b, el));
        let (b, orelse) = (self::body(ctx, b), self::body(ctx, tail));
        let s = ctx.add_stmt(
            StmtNode::If {
                test: t.expr,
                body: b,
                orelse,
            },
            range(el, end),
        );
        tail = vec![s];
    }
    let end = end_of(ctx, &tail, end_of(ctx, &body, l));
    let (body, orelse) = (self::body(ctx, body), self::body(ctx, tail));
    Ok(ctx.add_stmt(
        StmtNode::If {
            test: test.expr,
            body,
            orelse,
        },
        range(l, end),
    ))
}

pub fn while_stmt(
    ctx: &ParseCtx,
    l: usize,
    test: Node,
    body: Vec<StmtId>,
    orelse: Option<Vec<StmtId>>,
) -> StmtId {
    let end = match &orelse {
        Some(e) => end_of(ctx, e, l),
        None => end_of(ctx, &body, l),
    };
    if orelse.is_some() {
        ctx.defer_at(not_implemented("`else` clause in `while` loops"), range(l, end));
    }
    let body = self::body(ctx, body);
    ctx.add_stmt(
        StmtNode::While {
            test: test.expr,
            body,
        },
        range(l, end),
    )
}

pub fn for_stmt(
    ctx: &ParseCtx,
    l: usize,
    target: Node,
    iter: Node,
    body: Vec<StmtId>,
    orelse: Option<Vec<StmtId>>,
) -> Res<StmtId> {
    check_target(ctx, target.expr)?;
    no_lone_star(ctx, &iter)?;
    let end = match &orelse {
        Some(e) => end_of(ctx, e, l),
        None => end_of(ctx, &body, l),
    };
    if orelse.is_some() {
        // Upstream points at the `for` keyword.
        ctx.defer_at(not_implemented("`else` clause in `for` loops"), range(l, l + 3));
    }
    let tr = ctx.expr_range(target.expr);
    let target = match name_target(ctx, &target) {
        NameTarget::Name(id) => id,
        _ => {
            ctx.defer_at(not_implemented("complex for loop targets"), tr);
            return Ok(ctx.add_stmt(StmtNode::Pass, range(l, end)));
        }
    };
    let body = self::body(ctx, body);
    Ok(ctx.add_stmt(
        StmtNode::For {
            target: ctx.add_ident(target),
            iter: iter.expr,
            body,
        },
        range(l, end),
    ))
}

pub fn try_stmt(
    ctx: &ParseCtx,
    l: usize,
    body: Vec<StmtId>,
    handlers: Vec<Vec<StmtId>>,
    orelse: Option<Vec<StmtId>>,
    finally: Option<Vec<StmtId>>,
) -> StmtId {
    let last = finally
        .as_deref()
        .or(orelse.as_deref())
        .or(handlers.last().map(Vec::as_slice))
        .unwrap_or(&body);
    let end = end_of(ctx, last, end_of(ctx, &body, l));
    unsupported_stmt(ctx, "Try", l, end)
}

// ------------------------------------------------------------ definitions

/// `@blue`, `@blue.generic`, `@blue.metafunc` (functions), `@struct` (classes).
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum Special {
    Blue(FuncKind),
    Struct,
}

pub struct Decorator {
    pub expr: Node,
    /// A special decorator: its identifiers' ids were released.
    pub special: Option<Special>,
}

/// Classify a decorator. The identifiers of a special one are not kept in
/// the tree in the usual case, so their ids (the newest ones: nothing after
/// the decorator's newline has been reduced yet) are released at once.
pub fn decorator(ctx: &ParseCtx, expr: Node) -> Decorator {
    let (special, ids) = ctx.read(|m| {
        let e = m.expr(expr.expr);
        let special = match decorator_path(e) {
            Some(("blue", None)) => Some(Special::Blue(FuncKind::Plain)),
            Some(("blue", Some("generic"))) => Some(Special::Blue(FuncKind::Generic)),
            Some(("blue", Some("metafunc"))) => Some(Special::Blue(FuncKind::Metafunc)),
            Some(("struct", None)) => Some(Special::Struct),
            _ => None,
        };
        let mut ids = Vec::with_capacity(2);
        if special.is_some() {
            if let ExprKind::Attribute { value, attr } = e.kind() {
                if let Some(id) = value.name_ident() {
                    ids.push(id.id);
                }
                ids.push(attr.id);
            } else if let Some(id) = e.name_ident() {
                ids.push(id.id);
            }
        }
        (special, ids)
    });
    if special.is_some() {
        ctx.release_idents(&ids);
    }
    Decorator { expr, special }
}

pub struct TypeParam {
    pub name: Identifier,
    pub bound: Option<Node>,
    /// `*Ts` or `**P`
    pub star: bool,
    pub start: usize,
    pub end: usize,
}

/// A parameter as written, before Python's ordering rules are checked.
pub enum RawParam {
    Plain {
        name: Identifier,
        annotation: Option<Node>,
        default: Option<Node>,
        start: usize,
        end: usize,
    },
    Star {
        name: Identifier,
        annotation: Option<Node>,
        start: usize,
        end: usize,
    },
    /// A lone `*` (keyword-only marker).
    BareStar { start: usize, end: usize },
    /// `**kwargs`; `name_start` is where the name begins.
    DoubleStar {
        start: usize,
        name_start: usize,
        end: usize,
    },
    /// `/` (positional-only marker).
    Slash { start: usize, end: usize },
}

pub struct FuncCore {
    pub is_async: bool,
    pub start: usize,
    pub name: Identifier,
    pub type_params: Option<Vec<Box<TypeParam>>>,
    pub params: Vec<Box<RawParam>>,
    pub returns: Option<Node>,
    /// End of the prototype (`def f(...) -> T`).
    pub proto_end: usize,
    pub body: Vec<StmtId>,
}

pub struct ClassCore {
    pub start: usize,
    pub name: Identifier,
    pub type_params: Option<Vec<Box<TypeParam>>>,
    pub args: Option<Vec<Arg>>,
    pub body: Vec<StmtId>,
}

/// `name` or `name.attr` of a decorator expression.
fn decorator_path(e: crate::syntax::ast::ExprRef<'_>) -> Option<(&str, Option<&str>)> {
    let m = e.module;
    match &e.node().node {
        ExprNode::Name { sym, .. } => Some((m.name(*sym), None)),
        ExprNode::NameIn(id) => Some((&m.ident(*id).name, None)),
        ExprNode::Attribute { value, attr } => match &m.expr_node(*value).node {
            ExprNode::Name { sym, .. } => Some((m.name(*sym), Some(&m.ident(*attr).name))),
            ExprNode::NameIn(id) => Some((&m.ident(*id).name, Some(&m.ident(*attr).name))),
            _ => None,
        },
        _ => None,
    }
}

fn type_params(ctx: &ParseCtx, tps: Option<Vec<Box<TypeParam>>>) -> Option<crate::syntax::ast::IdentList> {
    let tps = tps?;
    let mut out = Vec::with_capacity(tps.len());
    for tp in tps {
        let tp = *tp;
        if tp.star {
            ctx.defer_at(ParseErrorKind::NonPlainTypeParam, range(tp.start, tp.end));
        } else if tp.bound.is_some() {
            ctx.defer_at(ParseErrorKind::BoundedTypeVar, range(tp.start, tp.end));
        }
        out.push(ctx.add_ident(tp.name));
    }
    Some(ctx.build(|m| m.add_idents(out)))
}

/// Check Python's parameter rules and SPy's restrictions.
fn params(ctx: &ParseCtx, raw: Vec<Box<RawParam>>) -> Res<crate::syntax::ast::ParamList> {
    let mut out: Vec<ParamNode> = Vec::with_capacity(raw.len());
    let mut star_at: Option<(usize, usize)> = None;
    let mut bare_star = false;
    let mut kwargs_seen = false;
    let mut slash_seen = false;
    let mut default_seen = false;
    let mut kwonly_reported = false;
    let after_kwargs = |s: usize, e: usize| -> LpError {
        syntax("arguments cannot follow var-keyword argument", range(s, e))
    };
    for p in raw {
        match *p {
            RawParam::Plain {
                name,
                annotation,
                default,
                start,
                end,
            } => {
                if kwargs_seen {
                    return Err(after_kwargs(start, end));
                }
                if star_at.is_none() {
                    if default.is_some() {
                        default_seen = true;
                    } else if default_seen {
                        return Err(syntax(
                            "parameter without a default follows parameter with a default",
                            range(start, end),
                        ));
                    }
                } else if bare_star && !kwonly_reported {
                    kwonly_reported = true;
                    ctx.defer_at(ParseErrorKind::KeywordOnlyParams, range(start, end));
                }
                out.push(ParamNode {
                    name: ctx.add_ident(name),
                    kind: ParamKind::Positional,
                    annotation: annotation.map(|a| a.expr),
                    default: default.map(|d| d.expr),
                    range: range(start, end),
                });
            }
            RawParam::Star {
                name,
                annotation,
                start,
                end,
            } => {
                if kwargs_seen {
                    return Err(after_kwargs(start, end));
                }
                if star_at.is_some() {
                    return Err(syntax("* argument may appear only once", range(start, end)));
                }
                star_at = Some((start, end));
                out.push(ParamNode {
                    name: ctx.add_ident(name),
                    kind: ParamKind::Star,
                    annotation: annotation.map(|a| a.expr),
                    default: None,
                    range: range(start, end),
                });
            }
            RawParam::BareStar { start, end } => {
                if kwargs_seen {
                    return Err(after_kwargs(start, end));
                }
                if star_at.is_some() {
                    return Err(syntax("* argument may appear only once", range(start, end)));
                }
                star_at = Some((start, end));
                bare_star = true;
            }
            RawParam::DoubleStar {
                start,
                name_start,
                end,
            } => {
                if kwargs_seen {
                    return Err(after_kwargs(start, end));
                }
                kwargs_seen = true;
                ctx.defer_at(ParseErrorKind::KwargsParam, range(name_start, end));
            }
            RawParam::Slash { start, end } => {
                if star_at.is_some() || kwargs_seen {
                    return Err(syntax("/ must be ahead of *", range(start, end)));
                }
                if slash_seen {
                    return Err(syntax("/ may appear only once", range(start, end)));
                }
                slash_seen = true;
                match out.first() {
                    None => return Err(syntax("at least one argument must precede /", range(start, end))),
                    Some(first) => ctx.defer_at(ParseErrorKind::PositionalOnlyParams, first.range),
                }
            }
        }
    }
    if bare_star && !kwonly_reported {
        let (s, e) = star_at.unwrap_or((0, 0));
        return Err(syntax("named arguments must follow bare *", range(s, e)));
    }
    Ok(ctx.build(|m| m.add_params(out)))
}

pub fn func_def(ctx: &ParseCtx, l: usize, decos: Vec<Decorator>, f: FuncCore) -> Res<StmtId> {
    let end = end_of(ctx, &f.body, f.proto_end);
    let proto_range = range(f.start, f.proto_end);
    if f.is_async {
        ctx.defer_at(not_implemented("AsyncFunctionDef"), range(f.start, end));
    }
    let mut color = FuncColor::Red;
    let mut kind = FuncKind::Plain;
    let mut decorators = Vec::new();
    for d in decos {
        match d.special {
            Some(Special::Blue(k)) => {
                color = FuncColor::Blue;
                kind = k;
            }
            Some(Special::Struct) => {
                // An ordinary decorator on a function: keep it after all.
                ctx.mark_needs_renumber();
                decorators.push(d.expr.expr);
            }
            None => decorators.push(d.expr.expr),
        }
    }
    if f.type_params.is_some() && !decorators.is_empty() {
        ctx.defer_at(ParseErrorKind::TypeParamsWithDecorators, proto_range);
    }
    let type_params = type_params(ctx, f.type_params);
    let params = params(ctx, f.params)?;
    let name = ctx.add_ident(f.name);
    let body = self::body(ctx, f.body);
    let func = ctx.build(|m| {
        let decorators = m.add_exprs(decorators);
        m.add_func(FuncNode {
            name,
            color,
            kind,
            decorators,
            type_params,
            params,
            return_type: f.returns.map(|n| n.expr),
            body,
            proto_range,
        })
    });
    Ok(ctx.add_stmt(StmtNode::FuncDef(func), range(l, end)))
}

pub fn class_def(ctx: &ParseCtx, l: usize, decos: Vec<Decorator>, c: ClassCore) -> StmtId {
    let end = end_of(ctx, &c.body, c.start);
    let mut is_struct = false;
    let mut decorators = Vec::new();
    for d in decos {
        match d.special {
            Some(Special::Struct) => is_struct = true,
            Some(Special::Blue(_)) => {
                // An ordinary decorator on a class: keep it after all.
                ctx.mark_needs_renumber();
                decorators.push(d.expr.expr);
            }
            None => decorators.push(d.expr.expr),
        }
    }
    for arg in c.args.iter().flatten() {
        match arg {
            Arg::Positional(e) => ctx.defer_at(ParseErrorKind::BaseClasses, ctx.expr_range(e.expr)),
            Arg::Genexp(_, s, e) => ctx.defer_at(ParseErrorKind::BaseClasses, range(*s, *e)),
            Arg::Star(e) => ctx.defer_at(ParseErrorKind::BaseClasses, ctx.expr_range(e.expr)),
            Arg::Keyword(s, e) | Arg::DoubleStar(s, e) => {
                ctx.defer_at(ParseErrorKind::ClassKeywords, range(*s, *e))
            }
        }
    }
    let type_params = type_params(ctx, c.type_params);
    let name = ctx.add_ident(c.name);
    let body = self::body(ctx, c.body);
    let class = ctx.build(|m| {
        let decorators = m.add_exprs(decorators);
        m.add_class(ClassNode {
            name,
            is_struct,
            decorators,
            type_params,
            body,
        })
    });
    ctx.add_stmt(StmtNode::ClassDef(class), range(l, end))
}
