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
use spy_interp::syntax::walk::{self, NodeMut};

// ------------------------------------------------------------ normalizing

/// What the parser would make of `m` if only its syntax mattered: no
/// ranges, no ids; with `drop_comments`, no `Comment` statements either
/// (and `pass` in a block they leave empty, as the printer writes it).
pub fn normalize(m: &Module, drop_comments: bool) -> Module {
    let mut m = m.clone();
    m.name_count = 0;
    let n = Norm { drop_comments };
    n.block(&mut m.body, false);
    m
}

struct Norm {
    drop_comments: bool,
}

impl Norm {
    /// `nested`: a nested block, which the printer fills with `pass`.
    fn block(&self, stmts: &mut Vec<Stmt>, nested: bool) {
        if self.drop_comments {
            stmts.retain(|s| !matches!(s.kind, StmtKind::Comment(_)));
        }
        if nested && stmts.is_empty() {
            stmts.push(Stmt::new(StmtKind::Pass, TextRange::default()));
        }
        walk::children_mut(NodeMut::Block(stmts), &mut |s| self.node(s));
    }

    fn node(&self, mut node: NodeMut<'_>) {
        let mut keeps_empty_else = false;
        match &mut node {
            NodeMut::Block(b) => {
                self.block(b, true);
                return;
            }
            NodeMut::Stmt(s) => {
                s.range = TextRange::default();
                if let StmtKind::FuncDef(f) = &mut s.kind {
                    Rc::make_mut(f).proto_range = TextRange::default();
                }
                // An empty `else` prints as nothing: it stays empty.
                keeps_empty_else = matches!(&s.kind, StmtKind::If { orelse, .. } if orelse.is_empty());
            }
            NodeMut::Expr(e) => e.range = TextRange::default(),
            NodeMut::Target(t) => match t {
                AssignTarget::Name(_) => {}
                AssignTarget::Attribute { range, .. }
                | AssignTarget::Subscript { range, .. }
                | AssignTarget::Unpack { range, .. } => *range = TextRange::default(),
            },
            NodeMut::Param(p) => p.range = TextRange::default(),
            NodeMut::ImportName(n) => n.range = TextRange::default(),
            NodeMut::Ident(i) => {
                i.range = TextRange::default();
                i.id = NameId(0);
            }
        }
        let mut blocks = 0;
        walk::children_mut(node, &mut |c| match c {
            NodeMut::Block(b) => {
                blocks += 1;
                if !(keeps_empty_else && blocks == 2) {
                    self.block(b, true);
                }
            }
            c => self.node(c),
        });
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
