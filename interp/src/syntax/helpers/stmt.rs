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
    AssignTarget, BinOp, ClassDef, Expr, ExprKind, FuncColor, FuncDef, FuncKind, Identifier, ImportName,
    Module, Param, ParamKind, Stmt, StmtKind, VarDef, VarKind,
};
use crate::syntax::error::ParseErrorKind;

const COMPLEX_TARGET: &str = "assign to complex expressions";

/// What one small statement produced (`import a, b` makes several). Boxed:
/// values on the parser stack must stay small.
pub enum Small {
    One(Box<Stmt>),
    Many(Vec<Stmt>),
}

pub fn one(s: Stmt) -> Small {
    Small::One(Box::new(s))
}

pub fn push_small(mut v: Vec<Stmt>, s: Small) -> Vec<Stmt> {
    match s {
        Small::One(s) => v.push(*s),
        Small::Many(many) => v.extend(many),
    }
    v
}

/// End offset of a (non-empty) suite, or `fallback`.
pub fn end_of(stmts: &[Stmt], fallback: usize) -> usize {
    stmts.last().map_or(fallback, |s| s.range.end as usize)
}

/// An indented block, without the spare capacity its vector grew with
/// (a body is kept as long as its function: issue 14, memory per byte).
pub fn block(mut body: Vec<Stmt>) -> Vec<Stmt> {
    body.shrink_to_fit();
    body
}

pub fn module(_ctx: &ParseCtx, mut body: Vec<Stmt>) -> Module {
    body.shrink_to_fit();
    Module { body, name_count: 0 }
}

// ---------------------------------------------------------- simple ones

pub enum SimpleKind {
    Pass,
    Break,
    Continue,
}

pub fn simple(kind: SimpleKind, l: usize, r: usize) -> Stmt {
    let kind = match kind {
        SimpleKind::Pass => StmtKind::Pass,
        SimpleKind::Break => StmtKind::Break,
        SimpleKind::Continue => StmtKind::Continue,
    };
    Stmt::new(kind, range(l, r))
}

/// A Python statement SPy does not support: deferred error + placeholder.
pub fn unsupported_stmt(ctx: &ParseCtx, what: &str, l: usize, r: usize) -> Stmt {
    ctx.defer_at(not_implemented(what), range(l, r));
    Stmt::new(StmtKind::Pass, range(l, r))
}

/// An unsupported block statement ending with the suite `body`.
pub fn unsupported_block(ctx: &ParseCtx, what: &str, l: usize, body: &[Stmt]) -> Stmt {
    unsupported_stmt(ctx, what, l, end_of(body, l))
}

/// `async for` / `async with` around an already built statement.
pub fn unsupported_compound(ctx: &ParseCtx, what: &str, l: usize, inner: &Stmt) -> Stmt {
    unsupported_stmt(ctx, what, l, inner.range.end as usize)
}

/// `*a` alone where only an expression may stand.
fn no_lone_star(e: &Node) -> Res<()> {
    if matches!(e.expr.kind, ExprKind::Starred(_)) {
        return Err(syntax("can't use starred expression here", e.expr.range));
    }
    Ok(())
}

pub fn expr_stmt(e: Node, l: usize, r: usize) -> Res<Stmt> {
    no_lone_star(&e)?;
    Ok(Stmt::new(StmtKind::Expr(*e.expr), range(l, r)))
}

pub fn return_stmt(value: Option<Node>, l: usize, r: usize) -> Res<Stmt> {
    if let Some(v) = &value {
        no_lone_star(v)?;
    }
    Ok(Stmt::new(StmtKind::Return(value.map(|v| *v.expr)), range(l, r)))
}

pub fn raise_stmt(ctx: &ParseCtx, exc: Option<Node>, cause: Option<Node>, l: usize, r: usize) -> Stmt {
    match (exc, cause) {
        (_, Some(_)) => unsupported_stmt(ctx, "raise ... from ...", l, r),
        (None, None) => unsupported_stmt(ctx, "bare raise", l, r),
        (Some(e), None) => Stmt::new(StmtKind::Raise(*e.expr), range(l, r)),
    }
}

pub fn assert_stmt(test: Node, msg: Option<Node>, l: usize, r: usize) -> Stmt {
    Stmt::new(
        StmtKind::Assert {
            test: *test.expr,
            msg: msg.map(|m| m.expr),
        },
        range(l, r),
    )
}

// ------------------------------------------------------------ assignment

/// Python's rule for what may be assigned to (else a syntax error).
fn check_target(e: &Expr) -> Res<()> {
    match &e.kind {
        ExprKind::Name(_) | ExprKind::Attribute { .. } | ExprKind::Subscript { .. } => Ok(()),
        ExprKind::Tuple(items) | ExprKind::List(items) => items.iter().try_for_each(check_target),
        ExprKind::Starred(inner) => check_target(inner),
        other => Err(syntax(
            format!("cannot assign to {}", super::expr_name(other)),
            e.range,
        )),
    }
}

/// Turn a parsed expression into an assignment target. Python accepts more
/// than SPy: those cases are deferred errors with a placeholder target.
fn assign_target(ctx: &ParseCtx, t: Node) -> Res<AssignTarget> {
    check_target(&t.expr)?;
    let r = t.expr.range;
    match t.expr.kind {
        ExprKind::Name(id) => Ok(AssignTarget::Name(id)),
        ExprKind::Attribute { value, attr } => Ok(AssignTarget::Attribute {
            value,
            attr: *attr,
            range: r,
        }),
        ExprKind::Subscript { value, indices } => Ok(AssignTarget::Subscript {
            value,
            indices: indices.into_vec(),
            range: r,
        }),
        ExprKind::Tuple(items) => {
            let mut names = Vec::with_capacity(items.len());
            for item in items {
                match item.kind {
                    ExprKind::Name(id) => names.push(id),
                    _ => ctx.defer_at(not_implemented(COMPLEX_TARGET), item.range),
                }
            }
            Ok(AssignTarget::Unpack { names, range: r })
        }
        ExprKind::Starred(_) => Err(syntax("starred assignment target must be in a list or tuple", r)),
        _ => {
            ctx.defer_at(not_implemented(COMPLEX_TARGET), r);
            Ok(AssignTarget::Unpack {
                names: Vec::new(),
                range: r,
            })
        }
    }
}

pub fn assign(ctx: &ParseCtx, first: Node, mut rest: Vec<Node>, l: usize, r: usize) -> Res<Stmt> {
    let Some(value) = rest.pop() else {
        return expr_stmt(first, l, r);
    };
    no_lone_star(&value)?;
    check_target(&first.expr)?;
    for t in &rest {
        check_target(&t.expr)?;
    }
    if !rest.is_empty() {
        ctx.defer_at(not_implemented("assign to multiple targets"), range(l, r));
    }
    let target = assign_target(ctx, first)?;
    Ok(Stmt::new(
        StmtKind::Assign {
            target: Box::new(target),
            value: *value.expr,
        },
        range(l, r),
    ))
}

pub fn aug_assign(ctx: &ParseCtx, t: Node, op: BinOp, value: Node, l: usize, r: usize) -> Res<Stmt> {
    no_lone_star(&value)?;
    let tr = t.expr.range;
    let target = match t.expr.kind {
        ExprKind::Name(id) => id,
        ExprKind::Attribute { .. } | ExprKind::Subscript { .. } => {
            ctx.defer_at(not_implemented(COMPLEX_TARGET), tr);
            return Ok(Stmt::new(StmtKind::Pass, range(l, r)));
        }
        other => {
            return Err(syntax(
                format!(
                    "'{}' is an illegal expression for augmented assignment",
                    super::expr_name(&other)
                ),
                tr,
            ))
        }
    };
    Ok(Stmt::new(
        StmtKind::AugAssign {
            target,
            op,
            value: value.expr,
        },
        range(l, r),
    ))
}

pub fn ann_assign(
    ctx: &ParseCtx,
    t: Node,
    annotation: Node,
    value: Option<Node>,
    l: usize,
    r: usize,
) -> Res<Stmt> {
    if let Some(v) = &value {
        no_lone_star(v)?;
    }
    let tr = t.expr.range;
    let name = match t.expr.kind {
        ExprKind::Name(id) => {
            if t.parens {
                ctx.defer_at(ParseErrorKind::ParenthesizedAnnTarget, tr);
            }
            id
        }
        ExprKind::Attribute { .. } | ExprKind::Subscript { .. } => {
            ctx.defer_at(not_implemented(COMPLEX_TARGET), tr);
            return Ok(Stmt::new(StmtKind::Pass, range(l, r)));
        }
        ExprKind::Tuple(_) => return Err(syntax("only single target (not tuple) can be annotated", tr)),
        ExprKind::List(_) => return Err(syntax("only single target (not list) can be annotated", tr)),
        _ => return Err(syntax("illegal target for annotation", tr)),
    };
    Ok(Stmt::new(
        StmtKind::VarDef(Box::new(VarDef {
            kind: None,
            name,
            annotation: Some(*annotation.expr),
            value: value.map(|v| *v.expr),
        })),
        range(l, r),
    ))
}

pub fn var_decl(
    kind: VarKind,
    name: Identifier,
    annotation: Option<Node>,
    value: Option<Node>,
    l: usize,
    r: usize,
) -> Res<Stmt> {
    if let Some(v) = &value {
        no_lone_star(v)?;
    }
    Ok(Stmt::new(
        StmtKind::VarDef(Box::new(VarDef {
            kind: Some(kind),
            name,
            annotation: annotation.map(|a| *a.expr),
            value: value.map(|v| *v.expr),
        })),
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

pub fn import(names: Vec<Box<(Identifier, Option<Identifier>)>>, l: usize, r: usize) -> Vec<Stmt> {
    names
        .into_iter()
        .map(|b| {
            let (module, alias) = *b;
            Stmt::new(StmtKind::Import { module, alias }, range(l, r))
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
) -> Res<Vec<Stmt>> {
    // Placeholders are `ImportFrom`s with no names, so that the module-level
    // check accepts them and the deferred error is the one reported.
    let placeholder = |module: Identifier| {
        vec![Stmt::new(
            StmtKind::ImportFrom {
                module,
                names: Vec::new(),
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
        ImportTargets::Names(names) => names
            .into_iter()
            .map(|b| {
                let (name, alias) = *b;
                let end = alias.as_ref().unwrap_or(&name).range;
                ImportName {
                    range: name.range.cover(end),
                    name,
                    alias,
                }
            })
            .collect(),
    };
    Ok(vec![Stmt::new(
        StmtKind::ImportFrom { module, names },
        range(l, r),
    )])
}

// ---------------------------------------------------- compound statements

pub fn if_stmt(
    l: usize,
    test: Node,
    body: Vec<Stmt>,
    elifs: Vec<Box<(usize, Node, Vec<Stmt>)>>,
    orelse: Option<Vec<Stmt>>,
) -> Res<Stmt> {
    // Each `elif` nests one level deeper: bound the chain like expressions.
    if let Some(elif) = elifs.get(MAX_EXPR_DEPTH as usize) {
        return Err(fail(ParseErrorKind::TooDeeplyNested, range(elif.0, elif.0)));
    }
    // Fold `elif`s from the last one: each becomes the `orelse` of the
    // previous test.
    let mut tail = orelse.unwrap_or_default();
    for elif in elifs.into_iter().rev() {
        let (el, t, b) = *elif;
        let end = end_of(&tail, end_of(&b, el));
        let s = Stmt::new(
            StmtKind::If {
                test: t.expr,
                body: b,
                orelse: tail,
            },
            range(el, end),
        );
        tail = vec![s];
    }
    let end = end_of(&tail, end_of(&body, l));
    Ok(Stmt::new(
        StmtKind::If {
            test: test.expr,
            body,
            orelse: tail,
        },
        range(l, end),
    ))
}

pub fn while_stmt(ctx: &ParseCtx, l: usize, test: Node, body: Vec<Stmt>, orelse: Option<Vec<Stmt>>) -> Stmt {
    let end = match &orelse {
        Some(e) => end_of(e, l),
        None => end_of(&body, l),
    };
    if orelse.is_some() {
        ctx.defer_at(not_implemented("`else` clause in `while` loops"), range(l, end));
    }
    Stmt::new(
        StmtKind::While {
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
    body: Vec<Stmt>,
    orelse: Option<Vec<Stmt>>,
) -> Res<Stmt> {
    check_target(&target.expr)?;
    no_lone_star(&iter)?;
    let end = match &orelse {
        Some(e) => end_of(e, l),
        None => end_of(&body, l),
    };
    if orelse.is_some() {
        // Upstream points at the `for` keyword.
        ctx.defer_at(not_implemented("`else` clause in `for` loops"), range(l, l + 3));
    }
    let tr = target.expr.range;
    let target = match target.expr.kind {
        ExprKind::Name(id) => id,
        _ => {
            ctx.defer_at(not_implemented("complex for loop targets"), tr);
            return Ok(Stmt::new(StmtKind::Pass, range(l, end)));
        }
    };
    Ok(Stmt::new(
        StmtKind::For {
            target,
            iter: iter.expr,
            body,
        },
        range(l, end),
    ))
}

pub fn try_stmt(
    ctx: &ParseCtx,
    l: usize,
    body: Vec<Stmt>,
    handlers: Vec<Vec<Stmt>>,
    orelse: Option<Vec<Stmt>>,
    finally: Option<Vec<Stmt>>,
) -> Stmt {
    let last = finally
        .as_deref()
        .or(orelse.as_deref())
        .or(handlers.last().map(Vec::as_slice))
        .unwrap_or(&body);
    let end = end_of(last, end_of(&body, l));
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
    let special = match decorator_path(&expr.expr) {
        Some(("blue", None)) => Some(Special::Blue(FuncKind::Plain)),
        Some(("blue", Some("generic"))) => Some(Special::Blue(FuncKind::Generic)),
        Some(("blue", Some("metafunc"))) => Some(Special::Blue(FuncKind::Metafunc)),
        Some(("struct", None)) => Some(Special::Struct),
        _ => None,
    };
    if special.is_some() {
        let mut ids = Vec::with_capacity(2);
        if let ExprKind::Attribute { value, attr } = &expr.expr.kind {
            if let ExprKind::Name(id) = &value.kind {
                ids.push(id.id);
            }
            ids.push(attr.id);
        } else if let ExprKind::Name(id) = &expr.expr.kind {
            ids.push(id.id);
        }
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
    pub body: Vec<Stmt>,
}

pub struct ClassCore {
    pub start: usize,
    pub name: Identifier,
    pub type_params: Option<Vec<Box<TypeParam>>>,
    pub args: Option<Vec<Arg>>,
    pub body: Vec<Stmt>,
}

/// `name` or `name.attr` of a decorator expression.
fn decorator_path(e: &Expr) -> Option<(&str, Option<&str>)> {
    match &e.kind {
        ExprKind::Name(id) => Some((&id.name, None)),
        ExprKind::Attribute { value, attr } => match &value.kind {
            ExprKind::Name(id) => Some((&id.name, Some(&attr.name))),
            _ => None,
        },
        _ => None,
    }
}

fn type_params(ctx: &ParseCtx, tps: Option<Vec<Box<TypeParam>>>) -> Option<Vec<Identifier>> {
    let tps = tps?;
    let mut out = Vec::with_capacity(tps.len());
    for tp in tps {
        let tp = *tp;
        if tp.star {
            ctx.defer_at(ParseErrorKind::NonPlainTypeParam, range(tp.start, tp.end));
        } else if tp.bound.is_some() {
            ctx.defer_at(ParseErrorKind::BoundedTypeVar, range(tp.start, tp.end));
        }
        out.push(tp.name);
    }
    Some(out)
}

/// Check Python's parameter rules and SPy's restrictions.
fn params(ctx: &ParseCtx, raw: Vec<Box<RawParam>>) -> Res<Vec<Param>> {
    let mut out: Vec<Param> = Vec::with_capacity(raw.len());
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
                out.push(Param {
                    name,
                    kind: ParamKind::Positional,
                    annotation: annotation.map(|a| *a.expr),
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
                out.push(Param {
                    name,
                    kind: ParamKind::Star,
                    annotation: annotation.map(|a| *a.expr),
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
    Ok(out)
}

pub fn func_def(ctx: &ParseCtx, l: usize, decos: Vec<Decorator>, f: FuncCore) -> Res<Stmt> {
    let end = end_of(&f.body, f.proto_end);
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
                decorators.push(*d.expr.expr);
            }
            None => decorators.push(*d.expr.expr),
        }
    }
    if f.type_params.is_some() && !decorators.is_empty() {
        ctx.defer_at(ParseErrorKind::TypeParamsWithDecorators, proto_range);
    }
    let type_params = type_params(ctx, f.type_params);
    let params = params(ctx, f.params)?;
    Ok(Stmt::new(
        StmtKind::FuncDef(std::rc::Rc::new(FuncDef {
            name: f.name,
            color,
            kind,
            decorators,
            type_params,
            params,
            return_type: f.returns.map(|n| *n.expr),
            body: f.body,
            proto_range,
        })),
        range(l, end),
    ))
}

pub fn class_def(ctx: &ParseCtx, l: usize, decos: Vec<Decorator>, c: ClassCore) -> Stmt {
    let end = end_of(&c.body, c.start);
    let mut is_struct = false;
    let mut decorators = Vec::new();
    for d in decos {
        match d.special {
            Some(Special::Struct) => is_struct = true,
            Some(Special::Blue(_)) => {
                // An ordinary decorator on a class: keep it after all.
                ctx.mark_needs_renumber();
                decorators.push(*d.expr.expr);
            }
            None => decorators.push(*d.expr.expr),
        }
    }
    for arg in c.args.iter().flatten() {
        match arg {
            Arg::Positional(e) => ctx.defer_at(ParseErrorKind::BaseClasses, e.expr.range),
            Arg::Genexp(_, s, e) => ctx.defer_at(ParseErrorKind::BaseClasses, range(*s, *e)),
            Arg::Star(e) => ctx.defer_at(ParseErrorKind::BaseClasses, e.expr.range),
            Arg::Keyword(s, e) | Arg::DoubleStar(s, e) => {
                ctx.defer_at(ParseErrorKind::ClassKeywords, range(*s, *e))
            }
        }
    }
    let type_params = type_params(ctx, c.type_params);
    Stmt::new(
        StmtKind::ClassDef(std::rc::Rc::new(ClassDef {
            name: c.name,
            is_struct,
            decorators,
            type_params,
            body: c.body,
        })),
        range(l, end),
    )
}
