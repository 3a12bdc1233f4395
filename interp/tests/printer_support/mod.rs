//! Helpers of the printer round-trip tests: a normalized copy of a module
//! as an owned tree (ranges and name ids zeroed, optionally comments
//! dropped as the parser drops them), builders for hand-made trees
//! (`tree.rs`, built into a module with `Tree::build`), and the corpus of
//! SPy sources (conformance cases, parser fixtures, spec examples).

mod tree;

use std::path::{Path, PathBuf};
use std::rc::Rc;

use spy_interp::source::TextRange;
use spy_interp::syntax::ast::{self, BinOp, FuncColor, FuncKind, Identifier, NameId, ParamKind, VarKind};

pub use tree::*;

// ------------------------------------------------------------ normalizing

/// What the parser would make of `m` if only its syntax mattered, as an
/// owned tree: no ranges, no ids; with `drop_comments`, no `Comment`
/// statements either (and `pass` in a block they leave empty, as the
/// printer writes it).
pub fn normalize(m: &ast::Module, drop_comments: bool) -> Tree {
    let n = Norm { drop_comments };
    Tree {
        body: n.block(m.body(), false),
    }
}

struct Norm {
    drop_comments: bool,
}

const NO_RANGE: TextRange = TextRange { start: 0, end: 0 };

impl Norm {
    /// `nested`: a nested block, which the printer fills with `pass`.
    fn block(&self, stmts: ast::Stmts<'_>, nested: bool) -> Vec<Stmt> {
        let mut out: Vec<Stmt> = stmts
            .iter()
            .filter(|s| !(self.drop_comments && matches!(s.kind(), ast::StmtKind::Comment(_))))
            .map(|s| self.stmt(s))
            .collect();
        if nested && out.is_empty() {
            out.push(Stmt::new(StmtKind::Pass, NO_RANGE));
        }
        out
    }

    fn ident(&self, id: &Identifier) -> Identifier {
        Identifier {
            name: id.name.clone(),
            range: NO_RANGE,
            id: NameId(0),
        }
    }

    fn exprs(&self, items: ast::Exprs<'_>) -> Vec<Expr> {
        items.iter().map(|e| self.expr(e)).collect()
    }

    fn opt(&self, e: Option<ast::ExprRef<'_>>) -> Option<Expr> {
        e.map(|e| self.expr(e))
    }

    fn stmt(&self, s: ast::StmtRef<'_>) -> Stmt {
        let kind = match s.kind() {
            ast::StmtKind::FuncDef(f) => StmtKind::FuncDef(Rc::new(FuncDef {
                name: self.ident(f.name),
                color: f.color,
                kind: f.kind,
                decorators: self.exprs(f.decorators),
                type_params: f.type_params.map(|t| t.iter().map(|i| self.ident(i)).collect()),
                params: f
                    .params
                    .iter()
                    .map(|p| Param {
                        name: self.ident(p.name),
                        kind: p.kind,
                        annotation: self.opt(p.annotation),
                        default: self.opt(p.default).map(Box::new),
                        range: NO_RANGE,
                    })
                    .collect(),
                return_type: self.opt(f.return_type),
                body: self.block(f.body, true),
                proto_range: NO_RANGE,
            })),
            ast::StmtKind::ClassDef(c) => StmtKind::ClassDef(Rc::new(ClassDef {
                name: self.ident(c.name),
                is_struct: c.is_struct,
                decorators: self.exprs(c.decorators),
                type_params: c.type_params.map(|t| t.iter().map(|i| self.ident(i)).collect()),
                body: self.block(c.body, true),
            })),
            ast::StmtKind::Import { module, alias } => StmtKind::Import {
                module: self.ident(module),
                alias: alias.map(|a| self.ident(a)),
            },
            ast::StmtKind::ImportFrom { module, names } => StmtKind::ImportFrom {
                module: self.ident(module),
                names: names
                    .iter()
                    .map(|n| ImportName {
                        name: self.ident(n.name),
                        alias: n.alias.map(|a| self.ident(a)),
                        range: NO_RANGE,
                    })
                    .collect(),
            },
            ast::StmtKind::Assign { target, value } => StmtKind::Assign {
                target: Box::new(match target {
                    ast::AssignTarget::Name(id) => AssignTarget::Name(self.ident(&id)),
                    ast::AssignTarget::Attribute { value, attr, .. } => AssignTarget::Attribute {
                        value: Box::new(self.expr(value)),
                        attr: self.ident(attr),
                        range: NO_RANGE,
                    },
                    ast::AssignTarget::Subscript { value, indices, .. } => AssignTarget::Subscript {
                        value: Box::new(self.expr(value)),
                        indices: self.exprs(indices),
                        range: NO_RANGE,
                    },
                    ast::AssignTarget::Unpack { names, .. } => AssignTarget::Unpack {
                        names: names.iter().map(|n| self.ident(&n)).collect(),
                        range: NO_RANGE,
                    },
                }),
                value: self.expr(value),
            },
            ast::StmtKind::AugAssign { target, op, value } => StmtKind::AugAssign {
                target: self.ident(target),
                op,
                value: Box::new(self.expr(value)),
            },
            ast::StmtKind::VarDef(v) => StmtKind::VarDef(Box::new(VarDef {
                kind: v.kind,
                name: self.ident(v.name),
                annotation: self.opt(v.annotation),
                value: self.opt(v.value),
            })),
            ast::StmtKind::If { test, body, orelse } => StmtKind::If {
                test: Box::new(self.expr(test)),
                body: self.block(body, true),
                // An empty `else` prints as nothing: it stays empty.
                orelse: if orelse.is_empty() {
                    Vec::new()
                } else {
                    self.block(orelse, true)
                },
            },
            ast::StmtKind::While { test, body } => StmtKind::While {
                test: Box::new(self.expr(test)),
                body: self.block(body, true),
            },
            ast::StmtKind::For { target, iter, body } => StmtKind::For {
                target: self.ident(target),
                iter: Box::new(self.expr(iter)),
                body: self.block(body, true),
            },
            ast::StmtKind::Break => StmtKind::Break,
            ast::StmtKind::Continue => StmtKind::Continue,
            ast::StmtKind::Pass => StmtKind::Pass,
            ast::StmtKind::Return(e) => StmtKind::Return(self.opt(e)),
            ast::StmtKind::Raise(e) => StmtKind::Raise(self.expr(e)),
            ast::StmtKind::Assert { test, msg } => StmtKind::Assert {
                test: self.expr(test),
                msg: self.opt(msg).map(Box::new),
            },
            ast::StmtKind::Expr(e) => StmtKind::Expr(self.expr(e)),
            ast::StmtKind::Comment(text) => StmtKind::Comment(text.to_string()),
        };
        Stmt::new(kind, NO_RANGE)
    }

    fn expr(&self, e: ast::ExprRef<'_>) -> Expr {
        let b = |e: ast::ExprRef<'_>| Box::new(self.expr(e));
        let kind = match e.kind() {
            ast::ExprKind::Int(v) => ExprKind::Int(v),
            ast::ExprKind::Float(v) => ExprKind::Float(v),
            ast::ExprKind::Str(s) => ExprKind::Str(s.to_string()),
            ast::ExprKind::Bytes(v) => ExprKind::Bytes(v.to_vec()),
            ast::ExprKind::Bool(v) => ExprKind::Bool(v),
            ast::ExprKind::None => ExprKind::None,
            ast::ExprKind::Name(id) => ExprKind::Name(self.ident(&id)),
            ast::ExprKind::Attribute { value, attr } => ExprKind::Attribute {
                value: b(value),
                attr: Box::new(self.ident(attr)),
            },
            ast::ExprKind::Call { func, args } => ExprKind::Call {
                func: b(func),
                args: self.exprs(args).into(),
            },
            ast::ExprKind::Subscript { value, indices } => ExprKind::Subscript {
                value: b(value),
                indices: self.exprs(indices).into(),
            },
            ast::ExprKind::Slice { lower, upper, step } => ExprKind::Slice {
                lower: lower.map(b),
                upper: upper.map(b),
                step: step.map(b),
            },
            ast::ExprKind::UnaryOp { op, operand } => ExprKind::UnaryOp {
                op,
                operand: b(operand),
            },
            ast::ExprKind::BinOp { left, op, right } => ExprKind::BinOp {
                left: b(left),
                op,
                right: b(right),
            },
            ast::ExprKind::Compare { left, op, right } => ExprKind::Compare {
                left: b(left),
                op,
                right: b(right),
            },
            ast::ExprKind::BoolOp { op, left, right } => ExprKind::BoolOp {
                op,
                left: b(left),
                right: b(right),
            },
            ast::ExprKind::IfExp { test, body, orelse } => ExprKind::IfExp {
                test: b(test),
                body: b(body),
                orelse: b(orelse),
            },
            ast::ExprKind::Tuple(items) => ExprKind::Tuple(self.exprs(items)),
            ast::ExprKind::List(items) => ExprKind::List(self.exprs(items)),
            ast::ExprKind::Dict(pairs) => {
                ExprKind::Dict(pairs.iter().map(|(k, v)| (self.expr(k), self.expr(v))).collect())
            }
            ast::ExprKind::GeneratorExp { elt, target, iter } => ExprKind::GeneratorExp {
                elt: b(elt),
                target: Box::new(self.ident(target)),
                iter: b(iter),
            },
            ast::ExprKind::Starred(inner) => ExprKind::Starred(b(inner)),
            ast::ExprKind::Walrus { target, value } => ExprKind::Walrus {
                target: Box::new(self.ident(target)),
                value: b(value),
            },
        };
        Expr::new(kind, NO_RANGE)
    }
}

// --------------------------------------------------------------- builders

pub fn id(name: &str) -> Identifier {
    Identifier {
        name: name.into(),
        range: TextRange::default(),
        id: NameId(0),
    }
}

pub fn ex(kind: ExprKind) -> Expr {
    Expr::new(kind, TextRange::default())
}

pub fn name(n: &str) -> Expr {
    ex(ExprKind::Name(id(n)))
}

pub fn int(v: u64) -> Expr {
    ex(ExprKind::Int(v))
}

pub fn string(s: &str) -> Expr {
    ex(ExprKind::Str(s.to_owned()))
}

pub fn call(func: Expr, args: Vec<Expr>) -> Expr {
    ex(ExprKind::Call {
        func: Box::new(func),
        args: args.into(),
    })
}

pub fn attr(value: Expr, a: &str) -> Expr {
    ex(ExprKind::Attribute {
        value: Box::new(value),
        attr: Box::new(id(a)),
    })
}

pub fn binop(left: Expr, op: BinOp, right: Expr) -> Expr {
    ex(ExprKind::BinOp {
        left: Box::new(left),
        op,
        right: Box::new(right),
    })
}

pub fn st(kind: StmtKind) -> Stmt {
    Stmt::new(kind, TextRange::default())
}

pub fn comment(text: &str) -> Stmt {
    st(StmtKind::Comment(text.to_owned()))
}

pub fn ret(e: Expr) -> Stmt {
    st(StmtKind::Return(Some(e)))
}

pub fn expr_stmt(e: Expr) -> Stmt {
    st(StmtKind::Expr(e))
}

pub fn assign(target: &str, value: Expr) -> Stmt {
    st(StmtKind::Assign {
        target: Box::new(AssignTarget::Name(id(target))),
        value,
    })
}

pub fn var_def(kind: Option<VarKind>, n: &str, annotation: Option<Expr>, value: Option<Expr>) -> Stmt {
    st(StmtKind::VarDef(Box::new(VarDef {
        kind,
        name: id(n),
        annotation,
        value,
    })))
}

pub fn param(n: &str, annotation: Expr) -> Param {
    Param {
        name: id(n),
        kind: ParamKind::Positional,
        annotation: Some(annotation),
        default: None,
        range: TextRange::default(),
    }
}

/// A red, undecorated function.
pub fn func(n: &str, params: Vec<Param>, return_type: Option<Expr>, body: Vec<Stmt>) -> FuncDef {
    FuncDef {
        name: id(n),
        color: FuncColor::Red,
        kind: FuncKind::Plain,
        decorators: Vec::new(),
        type_params: None,
        params,
        return_type,
        body,
        proto_range: TextRange::default(),
    }
}

pub fn def(f: FuncDef) -> Stmt {
    st(StmtKind::FuncDef(Rc::new(f)))
}

pub fn class(n: &str, is_struct: bool, body: Vec<Stmt>) -> Stmt {
    st(StmtKind::ClassDef(Rc::new(ClassDef {
        name: id(n),
        is_struct,
        decorators: Vec::new(),
        type_params: None,
        body,
    })))
}

// ----------------------------------------------------------------- corpus

/// One source of the corpus: a display name and the text.
pub struct Source {
    pub name: String,
    pub text: String,
}

fn repo_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

fn spy_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    let mut paths: Vec<PathBuf> = entries.filter_map(|e| e.ok().map(|e| e.path())).collect();
    paths.sort();
    for p in paths {
        if p.is_dir() {
            spy_files(&p, out);
        } else if p.extension().is_some_and(|e| e == "spy") {
            out.push(p);
        }
    }
}

/// Every `.spy` file under `dir` (relative to the repository), recursively.
pub fn spy_sources(dir: &str) -> Vec<Source> {
    let root = repo_dir();
    let mut paths = Vec::new();
    spy_files(&root.join(dir), &mut paths);
    paths
        .into_iter()
        .filter_map(|p| {
            let bytes = std::fs::read(&p).ok()?;
            let text = String::from_utf8(bytes).ok()?;
            let name = p.strip_prefix(&root).unwrap_or(&p).to_string_lossy().into_owned();
            Some(Source { name, text })
        })
        .collect()
}

/// The ```spy blocks of `spec/*.md`.
pub fn spec_examples() -> Vec<Source> {
    let dir = repo_dir().join("spec");
    let mut chapters: Vec<PathBuf> = std::fs::read_dir(&dir)
        .expect("spec/ directory")
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|e| e == "md"))
        .collect();
    chapters.sort();
    let mut out = Vec::new();
    for chapter in chapters {
        let text = std::fs::read_to_string(&chapter).expect("spec chapter");
        let stem = chapter
            .file_stem()
            .unwrap_or_default()
            .to_string_lossy()
            .into_owned();
        let mut lines = text.lines().enumerate();
        while let Some((i, line)) = lines.next() {
            let Some(lang) = line.trim_start().strip_prefix("```") else {
                continue;
            };
            let mut body = String::new();
            for (_, l) in lines.by_ref() {
                if l.trim_start().starts_with("```") {
                    break;
                }
                body.push_str(l);
                body.push('\n');
            }
            if lang.trim() == "spy" {
                out.push(Source {
                    name: format!("spec/{stem}.md:{}", i + 1),
                    text: body,
                });
            }
        }
    }
    out
}
