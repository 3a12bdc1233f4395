//! Helpers of the printer round-trip tests: a normalizing copy of a module
//! (ranges, name ids and `name_count` zeroed, optionally comments dropped as
//! the parser drops them), builders for hand-made trees, and the corpus of
//! SPy sources (conformance cases, parser fixtures, spec examples).

use std::path::{Path, PathBuf};
use std::rc::Rc;

use spy_interp::source::TextRange;
use spy_interp::syntax::ast::{
    AssignTarget, BinOp, ClassDef, Expr, ExprKind, FuncColor, FuncDef, FuncKind, Identifier, Module, NameId,
    Param, ParamKind, Stmt, StmtKind, VarDef, VarKind,
};

// ------------------------------------------------------------ normalizing

/// What the parser would make of `m` if only its syntax mattered: no
/// ranges, no ids; with `drop_comments`, no `Comment` statements either
/// (and `pass` in a block they leave empty, as the printer writes it).
pub fn normalize(m: &Module, drop_comments: bool) -> Module {
    let mut m = m.clone();
    m.name_count = 0;
    let n = Norm { drop_comments };
    n.body(&mut m.body, false);
    m
}

struct Norm {
    drop_comments: bool,
}

fn ident(i: &mut Identifier) {
    i.range = TextRange::default();
    i.id = NameId(0);
}

impl Norm {
    /// `block`: a nested block, which the printer fills with `pass`.
    fn body(&self, stmts: &mut Vec<Stmt>, block: bool) {
        if self.drop_comments {
            stmts.retain(|s| !matches!(s.kind, StmtKind::Comment(_)));
        }
        if block && stmts.is_empty() {
            stmts.push(Stmt::new(StmtKind::Pass, TextRange::default()));
        }
        stmts.iter_mut().for_each(|s| self.stmt(s));
    }

    fn stmt(&self, s: &mut Stmt) {
        s.range = TextRange::default();
        match &mut s.kind {
            StmtKind::FuncDef(f) => {
                let f = Rc::make_mut(f);
                ident(&mut f.name);
                f.proto_range = TextRange::default();
                f.decorators.iter_mut().for_each(expr);
                f.type_params.iter_mut().flatten().for_each(ident);
                for p in &mut f.params {
                    p.range = TextRange::default();
                    ident(&mut p.name);
                    p.annotation.iter_mut().for_each(expr);
                    p.default.iter_mut().for_each(expr);
                }
                f.return_type.iter_mut().for_each(expr);
                self.body(&mut f.body, true);
            }
            StmtKind::ClassDef(c) => {
                let c = Rc::make_mut(c);
                ident(&mut c.name);
                c.decorators.iter_mut().for_each(expr);
                c.type_params.iter_mut().flatten().for_each(ident);
                self.body(&mut c.body, true);
            }
            StmtKind::Import { module, alias } => {
                ident(module);
                alias.iter_mut().for_each(ident);
            }
            StmtKind::ImportFrom { module, names } => {
                ident(module);
                for n in names {
                    n.range = TextRange::default();
                    ident(&mut n.name);
                    n.alias.iter_mut().for_each(ident);
                }
            }
            StmtKind::Assign { target, value } => {
                match target.as_mut() {
                    AssignTarget::Name(id) => ident(id),
                    AssignTarget::Attribute { value, attr, range } => {
                        expr(value);
                        ident(attr);
                        *range = TextRange::default();
                    }
                    AssignTarget::Subscript {
                        value,
                        indices,
                        range,
                    } => {
                        expr(value);
                        indices.iter_mut().for_each(expr);
                        *range = TextRange::default();
                    }
                    AssignTarget::Unpack { names, range } => {
                        names.iter_mut().for_each(ident);
                        *range = TextRange::default();
                    }
                }
                expr(value);
            }
            StmtKind::AugAssign { target, value, .. } => {
                ident(target);
                expr(value);
            }
            StmtKind::VarDef(v) => {
                ident(&mut v.name);
                v.annotation.iter_mut().for_each(expr);
                v.value.iter_mut().for_each(expr);
            }
            StmtKind::If { test, body, orelse } => {
                expr(test);
                self.body(body, true);
                // An empty `else` prints as nothing.
                if !orelse.is_empty() {
                    self.body(orelse, true);
                }
            }
            StmtKind::While { test, body } => {
                expr(test);
                self.body(body, true);
            }
            StmtKind::For { target, iter, body } => {
                ident(target);
                expr(iter);
                self.body(body, true);
            }
            StmtKind::Return(e) => e.iter_mut().for_each(expr),
            StmtKind::Raise(e) | StmtKind::Expr(e) => expr(e),
            StmtKind::Assert { test, msg } => {
                expr(test);
                msg.iter_mut().for_each(expr);
            }
            StmtKind::Break | StmtKind::Continue | StmtKind::Pass | StmtKind::Comment(_) => {}
        }
    }
}

fn expr(e: &mut Expr) {
    e.range = TextRange::default();
    match &mut e.kind {
        ExprKind::Int(_)
        | ExprKind::Float(_)
        | ExprKind::Str(_)
        | ExprKind::Bytes(_)
        | ExprKind::Bool(_)
        | ExprKind::None => {}
        ExprKind::Name(id) => ident(id),
        ExprKind::Attribute { value, attr } => {
            expr(value);
            ident(attr);
        }
        ExprKind::Call { func, args } => {
            expr(func);
            args.iter_mut().for_each(expr);
        }
        ExprKind::Subscript { value, indices } => {
            expr(value);
            indices.iter_mut().for_each(expr);
        }
        ExprKind::Slice { lower, upper, step } => {
            for part in [lower, upper, step] {
                part.iter_mut().for_each(|b| expr(b));
            }
        }
        ExprKind::UnaryOp { operand, .. } => expr(operand),
        ExprKind::BinOp { left, right, .. }
        | ExprKind::Compare { left, right, .. }
        | ExprKind::BoolOp { left, right, .. } => {
            expr(left);
            expr(right);
        }
        ExprKind::IfExp { test, body, orelse } => {
            expr(test);
            expr(body);
            expr(orelse);
        }
        ExprKind::Tuple(items) | ExprKind::List(items) => items.iter_mut().for_each(expr),
        ExprKind::Dict(pairs) => {
            for (k, v) in pairs {
                expr(k);
                expr(v);
            }
        }
        ExprKind::GeneratorExp { elt, target, iter } => {
            expr(elt);
            ident(target);
            expr(iter);
        }
        ExprKind::Starred(inner) => expr(inner),
        ExprKind::Walrus { target, value } => {
            ident(target);
            expr(value);
        }
    }
}

// --------------------------------------------------------------- builders

pub fn id(name: &str) -> Identifier {
    Identifier {
        name: name.to_owned(),
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
        args,
    })
}

pub fn attr(value: Expr, a: &str) -> Expr {
    ex(ExprKind::Attribute {
        value: Box::new(value),
        attr: id(a),
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
