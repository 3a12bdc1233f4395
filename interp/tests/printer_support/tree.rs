//! Trees written by hand in the printer tests: an owned tree of boxes
//! (the shape of `syntax::ast`'s nodes, children inline), built into a
//! `syntax::ast::Module` arena by [`Tree::build`]. Ranges and name ids are
//! whatever the test writes (usually none).

use std::rc::Rc;

use spy_interp::source::TextRange;
use spy_interp::syntax::ast::{
    self, BinOp, BoolOp, CmpOp, FuncColor, FuncKind, Identifier, ParamKind, UnaryOp, VarKind,
};

#[derive(Clone, Debug, PartialEq)]
pub struct Tree {
    pub body: Vec<Stmt>,
}

// ---------------------------------------------------------------- statements

#[derive(Clone, Debug, PartialEq)]
pub struct Stmt {
    pub kind: StmtKind,
    pub range: TextRange,
}

#[derive(Clone, Debug, PartialEq)]
pub enum StmtKind {
    FuncDef(Rc<FuncDef>),
    ClassDef(Rc<ClassDef>),
    /// `import m` / `import m as a`
    Import {
        module: Identifier,
        alias: Option<Identifier>,
    },
    /// `from m import a, b as c`
    ImportFrom {
        module: Identifier,
        names: Vec<ImportName>,
    },
    /// `x = e`, `o.a = e`, `o[i] = e`, `a, b = e`
    Assign {
        target: Box<AssignTarget>,
        value: Expr,
    },
    /// `x += e` (name targets only; others are rejected by the parser)
    AugAssign {
        target: Identifier,
        op: BinOp,
        value: Box<Expr>,
    },
    /// `x: T`, `x: T = e`, `var x = e`, `var x: T = e`, `const x = e` ...
    VarDef(Box<VarDef>),
    If {
        test: Box<Expr>,
        body: Vec<Stmt>,
        /// `elif` becomes a nested `If` as the only statement of `orelse`.
        orelse: Vec<Stmt>,
    },
    While {
        test: Box<Expr>,
        body: Vec<Stmt>,
    },
    For {
        target: Identifier,
        iter: Box<Expr>,
        body: Vec<Stmt>,
    },
    Break,
    Continue,
    Pass,
    Return(Option<Expr>),
    Raise(Expr),
    Assert {
        test: Expr,
        msg: Option<Box<Expr>>,
    },
    Expr(Expr),
    /// A provenance comment inserted by redshift into a residual module; the
    /// SPy printer writes it as `# text` lines (one per `\n`-separated
    /// line). The parser never produces it (comments are not in the AST) and
    /// executing it does nothing.
    Comment(String),
}

#[derive(Clone, Debug, PartialEq)]
pub struct ImportName {
    pub name: Identifier,
    pub alias: Option<Identifier>,
    pub range: TextRange,
}

#[derive(Clone, Debug, PartialEq)]
pub enum AssignTarget {
    Name(Identifier),
    Attribute {
        value: Box<Expr>,
        attr: Identifier,
        range: TextRange,
    },
    Subscript {
        value: Box<Expr>,
        indices: Vec<Expr>,
        range: TextRange,
    },
    /// `a, b = e` / `(a, b) = e`: plain names only.
    Unpack {
        names: Vec<Identifier>,
        range: TextRange,
    },
}

#[derive(Clone, Debug, PartialEq)]
pub struct VarDef {
    /// `None` for `x: T = e` (no keyword).
    pub kind: Option<VarKind>,
    pub name: Identifier,
    pub annotation: Option<Expr>,
    pub value: Option<Expr>,
}

#[derive(Clone, Debug, PartialEq)]
pub struct FuncDef {
    pub name: Identifier,
    pub color: FuncColor,
    pub kind: FuncKind,
    /// Decorators other than `@blue`, `@blue.generic`, `@blue.metafunc`,
    /// outermost first (applied bottom-up).
    pub decorators: Vec<Expr>,
    /// PEP 695 type parameters: `def f[T, n](...)`. `None` when absent.
    pub type_params: Option<Vec<Identifier>>,
    pub params: Vec<Param>,
    pub return_type: Option<Expr>,
    pub body: Vec<Stmt>,
    /// The `def name(...) -> T` prototype, for "function defined here".
    pub proto_range: TextRange,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Param {
    pub name: Identifier,
    pub kind: ParamKind,
    pub annotation: Option<Expr>,
    pub default: Option<Box<Expr>>,
    pub range: TextRange,
}

#[derive(Clone, Debug, PartialEq)]
pub struct ClassDef {
    pub name: Identifier,
    /// `@struct` was present.
    pub is_struct: bool,
    /// Other decorators (rejected at execution, as upstream).
    pub decorators: Vec<Expr>,
    pub type_params: Option<Vec<Identifier>>,
    pub body: Vec<Stmt>,
}

// --------------------------------------------------------------- expressions

#[derive(Clone, Debug, PartialEq)]
pub struct Expr {
    pub kind: ExprKind,
    pub range: TextRange,
}

#[derive(Clone, Debug, PartialEq)]
pub enum ExprKind {
    /// Integer literal. Python ints are unbounded; SPy literals must fit in
    /// u64 at most (larger ones are a ParseError).
    Int(u64),
    Float(f64),
    Str(String),
    Bytes(Vec<u8>),
    Bool(bool),
    None,
    Name(Identifier),
    Attribute {
        value: Box<Expr>,
        attr: Box<Identifier>,
    },
    Call {
        func: Box<Expr>,
        /// May contain `Starred` items, anywhere, any number.
        args: Box<[Expr]>,
    },
    /// `v[i]`, `v[i, j]`, `v[a:b]`, `v[*ts]`: one entry per index.
    Subscript {
        value: Box<Expr>,
        indices: Box<[Expr]>,
    },
    /// `a:b:c`, only as a subscript index.
    Slice {
        lower: Option<Box<Expr>>,
        upper: Option<Box<Expr>>,
        step: Option<Box<Expr>>,
    },
    UnaryOp {
        op: UnaryOp,
        operand: Box<Expr>,
    },
    BinOp {
        left: Box<Expr>,
        op: BinOp,
        right: Box<Expr>,
    },
    /// A binary comparison (chains are rejected by the parser, as upstream).
    Compare {
        left: Box<Expr>,
        op: CmpOp,
        right: Box<Expr>,
    },
    /// `a and b` / `a or b`
    BoolOp {
        op: BoolOp,
        left: Box<Expr>,
        right: Box<Expr>,
    },
    /// `body if test else orelse`
    IfExp {
        test: Box<Expr>,
        body: Box<Expr>,
        orelse: Box<Expr>,
    },
    /// `(a, b)`, `a, b`, `(*t, 1)`
    Tuple(Vec<Expr>),
    List(Vec<Expr>),
    Dict(Vec<(Expr, Expr)>),
    /// `(elt for target in iter)`: exactly one `for`, no `if`.
    GeneratorExp {
        elt: Box<Expr>,
        target: Box<Identifier>,
        iter: Box<Expr>,
    },
    /// `*e` in call arguments, tuple displays and subscripts.
    Starred(Box<Expr>),
    /// `x := e`
    Walrus {
        target: Box<Identifier>,
        value: Box<Expr>,
    },
}

impl Expr {
    pub fn new(kind: ExprKind, range: TextRange) -> Expr {
        Expr { kind, range }
    }
}

impl Stmt {
    pub fn new(kind: StmtKind, range: TextRange) -> Stmt {
        Stmt { kind, range }
    }
}

impl Tree {
    /// The module `self` is.
    pub fn build(&self) -> ast::Module {
        let mut m = ast::Module::new();
        let body: Vec<ast::StmtId> = self.body.iter().map(|s| stmt(&mut m, s)).collect();
        m.body = m.add_block(body);
        m
    }
}

/// A module holding `e` (and nothing else), and its id there.
pub fn build_expr(e: &Expr) -> (ast::Module, ast::ExprId) {
    let mut m = ast::Module::new();
    let id = expr(&mut m, e);
    (m, id)
}

fn ident(m: &mut ast::Module, id: &Identifier) -> ast::IdentId {
    m.add_ident(id.clone())
}

fn block(m: &mut ast::Module, body: &[Stmt]) -> ast::Block {
    let items: Vec<ast::StmtId> = body.iter().map(|s| stmt(m, s)).collect();
    m.add_block(items)
}

fn exprs(m: &mut ast::Module, items: &[Expr]) -> ast::ExprList {
    let ids: Vec<ast::ExprId> = items.iter().map(|e| expr(m, e)).collect();
    m.add_exprs(ids)
}

fn opt(m: &mut ast::Module, e: Option<&Expr>) -> Option<ast::ExprId> {
    e.map(|e| expr(m, e))
}

fn stmt(m: &mut ast::Module, s: &Stmt) -> ast::StmtId {
    let node = match &s.kind {
        StmtKind::FuncDef(f) => {
            let name = ident(m, &f.name);
            let decorators = exprs(m, &f.decorators);
            let type_params = f.type_params.as_ref().map(|tps| {
                let ids: Vec<ast::IdentId> = tps.iter().map(|t| ident(m, t)).collect();
                m.add_idents(ids)
            });
            let params: Vec<ast::ParamNode> = f
                .params
                .iter()
                .map(|p| ast::ParamNode {
                    name: ident(m, &p.name),
                    kind: p.kind,
                    annotation: opt(m, p.annotation.as_ref()),
                    default: opt(m, p.default.as_deref()),
                    range: p.range,
                })
                .collect();
            let params = m.add_params(params);
            let return_type = opt(m, f.return_type.as_ref());
            let body = block(m, &f.body);
            ast::StmtNode::FuncDef(m.add_func(ast::FuncNode {
                name,
                color: f.color,
                kind: f.kind,
                decorators,
                type_params,
                params,
                return_type,
                body,
                proto_range: f.proto_range,
            }))
        }
        StmtKind::ClassDef(c) => {
            let name = ident(m, &c.name);
            let decorators = exprs(m, &c.decorators);
            let type_params = c.type_params.as_ref().map(|tps| {
                let ids: Vec<ast::IdentId> = tps.iter().map(|t| ident(m, t)).collect();
                m.add_idents(ids)
            });
            let body = block(m, &c.body);
            ast::StmtNode::ClassDef(m.add_class(ast::ClassNode {
                name,
                is_struct: c.is_struct,
                decorators,
                type_params,
                body,
            }))
        }
        StmtKind::Import { module, alias } => ast::StmtNode::Import {
            module: ident(m, module),
            alias: alias.as_ref().map(|a| ident(m, a)),
        },
        StmtKind::ImportFrom { module, names } => {
            let module = ident(m, module);
            let names: Vec<ast::ImportNameNode> = names
                .iter()
                .map(|n| ast::ImportNameNode {
                    name: ident(m, &n.name),
                    alias: n.alias.as_ref().map(|a| ident(m, a)),
                    range: n.range,
                })
                .collect();
            ast::StmtNode::ImportFrom {
                module,
                names: m.add_import_names(names),
            }
        }
        StmtKind::Assign { target, value } => {
            let target = target_expr(m, target);
            ast::StmtNode::Assign {
                target,
                value: expr(m, value),
            }
        }
        StmtKind::AugAssign { target, op, value } => ast::StmtNode::AugAssign {
            target: ident(m, target),
            op: *op,
            value: expr(m, value),
        },
        StmtKind::VarDef(v) => ast::StmtNode::VarDef {
            kind: v.kind,
            name: ident(m, &v.name),
            annotation: opt(m, v.annotation.as_ref()),
            value: opt(m, v.value.as_ref()),
        },
        StmtKind::If { test, body, orelse } => ast::StmtNode::If {
            test: expr(m, test),
            body: block(m, body),
            orelse: block(m, orelse),
        },
        StmtKind::While { test, body } => ast::StmtNode::While {
            test: expr(m, test),
            body: block(m, body),
        },
        StmtKind::For { target, iter, body } => ast::StmtNode::For {
            target: ident(m, target),
            iter: expr(m, iter),
            body: block(m, body),
        },
        StmtKind::Break => ast::StmtNode::Break,
        StmtKind::Continue => ast::StmtNode::Continue,
        StmtKind::Pass => ast::StmtNode::Pass,
        StmtKind::Return(e) => ast::StmtNode::Return(opt(m, e.as_ref())),
        StmtKind::Raise(e) => ast::StmtNode::Raise(expr(m, e)),
        StmtKind::Assert { test, msg } => ast::StmtNode::Assert {
            test: expr(m, test),
            msg: opt(m, msg.as_deref()),
        },
        StmtKind::Expr(e) => ast::StmtNode::Expr(expr(m, e)),
        StmtKind::Comment(text) => ast::StmtNode::Comment(m.add_str(text.as_str())),
    };
    m.add_stmt(node, s.range)
}

/// An assignment target as the expression it is written as.
fn target_expr(m: &mut ast::Module, t: &AssignTarget) -> ast::ExprId {
    match t {
        AssignTarget::Name(id) => name_expr(m, id),
        AssignTarget::Attribute { value, attr, range } => {
            let node = ast::ExprNode::Attribute {
                value: expr(m, value),
                attr: ident(m, attr),
            };
            m.add_expr(node, *range)
        }
        AssignTarget::Subscript {
            value,
            indices,
            range,
        } => {
            let value = expr(m, value);
            let indices: Vec<ast::ExprId> = indices.iter().map(|i| expr(m, i)).collect();
            m.add_subscript(value, indices, *range)
        }
        AssignTarget::Unpack { names, range } => {
            let items: Vec<ast::ExprId> = names.iter().map(|n| name_expr(m, n)).collect();
            let items = m.add_exprs(items);
            m.add_expr(ast::ExprNode::Tuple(items), *range)
        }
    }
}

fn name_expr(m: &mut ast::Module, id: &Identifier) -> ast::ExprId {
    m.add_name(id.name.clone(), id.id, id.range)
}

fn expr(m: &mut ast::Module, e: &Expr) -> ast::ExprId {
    use ast::ExprNode as N;
    let node = match &e.kind {
        ExprKind::Int(v) => N::Int(ast::Lit64::from_u64(*v)),
        ExprKind::Float(v) => N::Float(ast::Lit64::from_f64(*v)),
        ExprKind::Str(s) => N::Str(m.add_str(s.as_str())),
        ExprKind::Bytes(b) => N::Bytes(m.add_bytes(b.as_slice())),
        ExprKind::Bool(b) => N::Bool(*b),
        ExprKind::None => N::None,
        ExprKind::Name(id) if id.range == e.range => N::Name {
            sym: m.intern_name(id.name.clone()),
            id: id.id,
        },
        ExprKind::Name(id) => N::NameIn(ident(m, id)),
        ExprKind::Attribute { value, attr } => N::Attribute {
            value: expr(m, value),
            attr: ident(m, attr),
        },
        ExprKind::Call { func, args } => {
            let func = expr(m, func);
            let args: Vec<ast::ExprId> = args.iter().map(|a| expr(m, a)).collect();
            return m.add_call(func, args, e.range);
        }
        ExprKind::Subscript { value, indices } => {
            let value = expr(m, value);
            let indices: Vec<ast::ExprId> = indices.iter().map(|i| expr(m, i)).collect();
            return m.add_subscript(value, indices, e.range);
        }
        ExprKind::Slice { lower, upper, step } => {
            let slice = ast::SliceNode {
                lower: opt(m, lower.as_deref()),
                upper: opt(m, upper.as_deref()),
                step: opt(m, step.as_deref()),
            };
            return m.add_slice(slice, e.range);
        }
        ExprKind::UnaryOp { op, operand } => N::UnaryOp {
            op: *op,
            operand: expr(m, operand),
        },
        ExprKind::BinOp { left, op, right } => N::BinOp {
            left: expr(m, left),
            op: *op,
            right: expr(m, right),
        },
        ExprKind::Compare { left, op, right } => N::Compare {
            left: expr(m, left),
            op: *op,
            right: expr(m, right),
        },
        ExprKind::BoolOp { op, left, right } => N::BoolOp {
            op: *op,
            left: expr(m, left),
            right: expr(m, right),
        },
        ExprKind::IfExp { test, body, orelse } => {
            let if_exp = ast::IfExpNode {
                test: expr(m, test),
                body: expr(m, body),
                orelse: expr(m, orelse),
            };
            return m.add_if_exp(if_exp, e.range);
        }
        ExprKind::Tuple(items) => N::Tuple(exprs(m, items)),
        ExprKind::List(items) => N::List(exprs(m, items)),
        ExprKind::Dict(pairs) => {
            let mut ids = Vec::with_capacity(2 * pairs.len());
            for (k, v) in pairs {
                ids.push(expr(m, k));
                ids.push(expr(m, v));
            }
            N::Dict(m.add_exprs(ids))
        }
        ExprKind::GeneratorExp { elt, target, iter } => {
            let gen = ast::GeneratorExpNode {
                elt: expr(m, elt),
                target: ident(m, target),
                iter: expr(m, iter),
            };
            return m.add_generator_exp(gen, e.range);
        }
        ExprKind::Starred(inner) => N::Starred(expr(m, inner)),
        ExprKind::Walrus { target, value } => N::Walrus {
            target: ident(m, target),
            value: expr(m, value),
        },
    };
    m.add_expr(node, e.range)
}
