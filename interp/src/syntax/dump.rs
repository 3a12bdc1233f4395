//! A stable, readable dump of the AST: one node per line, children indented
//! by two spaces, in source order. Ranges print as `@start..end` (byte
//! offsets); identifiers as `name#id@start..end`. Used by `spy-interp parse`
//! and by the parser snapshots.

use std::fmt::Write as _;

use crate::source::TextRange;
use crate::syntax::ast::{
    AssignTarget, Expr, ExprKind, FuncColor, FuncKind, Identifier, Module, ParamKind, Stmt,
    StmtKind, VarKind,
};

pub fn dump_module(m: &Module) -> String {
    let mut d = Dumper {
        out: String::new(),
        indent: 0,
    };
    let _ = writeln!(d.out, "Module name_count={}", m.name_count);
    d.indent = 1;
    for s in &m.body {
        d.stmt("", s);
    }
    d.out
}

struct Dumper {
    out: String,
    indent: usize,
}

struct R(TextRange);

impl std::fmt::Display for R {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "@{}..{}", self.0.start, self.0.end)
    }
}

struct I<'a>(&'a Identifier);

impl std::fmt::Display for I<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}#{}{}", self.0.name, self.0.id.0, R(self.0.range))
    }
}

fn ident_list(ids: &[Identifier]) -> String {
    let parts: Vec<String> = ids.iter().map(|i| I(i).to_string()).collect();
    format!("[{}]", parts.join(", "))
}

impl Dumper {
    fn line(&mut self, label: &str, text: std::fmt::Arguments<'_>) {
        for _ in 0..self.indent {
            self.out.push_str("  ");
        }
        if !label.is_empty() {
            self.out.push_str(label);
            self.out.push_str(": ");
        }
        let _ = self.out.write_fmt(text);
        self.out.push('\n');
    }

    fn nested(&mut self, f: impl FnOnce(&mut Dumper)) {
        self.indent += 1;
        f(self);
        self.indent -= 1;
    }

    fn block(&mut self, label: &str, stmts: &[Stmt]) {
        for _ in 0..self.indent {
            self.out.push_str("  ");
        }
        self.out.push_str(label);
        self.out.push_str(":\n");
        self.nested(|d| stmts.iter().for_each(|s| d.stmt("", s)));
    }

    fn opt_expr(&mut self, label: &str, e: &Option<Expr>) {
        if let Some(e) = e {
            self.expr(label, e);
        }
    }

    fn stmt(&mut self, label: &str, s: &Stmt) {
        let r = R(s.range);
        match &s.kind {
            StmtKind::FuncDef(f) => {
                let color = match f.color {
                    FuncColor::Red => "red",
                    FuncColor::Blue => "blue",
                };
                let kind = match f.kind {
                    FuncKind::Plain => "plain",
                    FuncKind::Generic => "generic",
                    FuncKind::Metafunc => "metafunc",
                };
                self.line(
                    label,
                    format_args!(
                        "FuncDef {} color={color} kind={kind} proto={} {r}",
                        I(&f.name),
                        R(f.proto_range)
                    ),
                );
                self.nested(|d| {
                    f.decorators.iter().for_each(|e| d.expr("decorator", e));
                    if let Some(tps) = &f.type_params {
                        d.line("type_params", format_args!("{}", ident_list(tps)));
                    }
                    for p in &f.params {
                        let kind = match p.kind {
                            ParamKind::Positional => "positional",
                            ParamKind::Star => "star",
                        };
                        d.line(
                            "",
                            format_args!("Param {} {kind} {}", I(&p.name), R(p.range)),
                        );
                        d.nested(|d| {
                            d.opt_expr("annotation", &p.annotation);
                            d.opt_expr("default", &p.default);
                        });
                    }
                    d.opt_expr("return_type", &f.return_type);
                    d.block("body", &f.body);
                });
            }
            StmtKind::ClassDef(c) => {
                self.line(
                    label,
                    format_args!("ClassDef {} struct={} {r}", I(&c.name), c.is_struct),
                );
                self.nested(|d| {
                    c.decorators.iter().for_each(|e| d.expr("decorator", e));
                    if let Some(tps) = &c.type_params {
                        d.line("type_params", format_args!("{}", ident_list(tps)));
                    }
                    d.block("body", &c.body);
                });
            }
            StmtKind::Import { module, alias } => match alias {
                Some(a) => self.line(label, format_args!("Import {} as {} {r}", I(module), I(a))),
                None => self.line(label, format_args!("Import {} {r}", I(module))),
            },
            StmtKind::ImportFrom { module, names } => {
                self.line(label, format_args!("ImportFrom {} {r}", I(module)));
                self.nested(|d| {
                    for n in names {
                        match &n.alias {
                            Some(a) => d.line(
                                "",
                                format_args!(
                                    "ImportName {} as {} {}",
                                    I(&n.name),
                                    I(a),
                                    R(n.range)
                                ),
                            ),
                            None => {
                                d.line("", format_args!("ImportName {} {}", I(&n.name), R(n.range)))
                            }
                        }
                    }
                });
            }
            StmtKind::Assign { target, value } => {
                self.line(label, format_args!("Assign {r}"));
                self.nested(|d| {
                    d.target(target);
                    d.expr("value", value);
                });
            }
            StmtKind::AugAssign { target, op, value } => {
                self.line(
                    label,
                    format_args!("AugAssign {} {}= {r}", I(target), op.symbol()),
                );
                self.nested(|d| d.expr("value", value));
            }
            StmtKind::VarDef(v) => {
                let kind = match v.kind {
                    None => "none",
                    Some(VarKind::Var) => "var",
                    Some(VarKind::Const) => "const",
                };
                self.line(label, format_args!("VarDef kind={kind} {} {r}", I(&v.name)));
                self.nested(|d| {
                    d.opt_expr("annotation", &v.annotation);
                    d.opt_expr("value", &v.value);
                });
            }
            StmtKind::If { test, body, orelse } => {
                self.line(label, format_args!("If {r}"));
                self.nested(|d| {
                    d.expr("test", test);
                    d.block("body", body);
                    if !orelse.is_empty() {
                        d.block("orelse", orelse);
                    }
                });
            }
            StmtKind::While { test, body } => {
                self.line(label, format_args!("While {r}"));
                self.nested(|d| {
                    d.expr("test", test);
                    d.block("body", body);
                });
            }
            StmtKind::For { target, iter, body } => {
                self.line(label, format_args!("For {} {r}", I(target)));
                self.nested(|d| {
                    d.expr("iter", iter);
                    d.block("body", body);
                });
            }
            StmtKind::Break => self.line(label, format_args!("Break {r}")),
            StmtKind::Continue => self.line(label, format_args!("Continue {r}")),
            StmtKind::Pass => self.line(label, format_args!("Pass {r}")),
            StmtKind::Return(value) => {
                self.line(label, format_args!("Return {r}"));
                self.nested(|d| d.opt_expr("", value));
            }
            StmtKind::Raise(e) => {
                self.line(label, format_args!("Raise {r}"));
                self.nested(|d| d.expr("", e));
            }
            StmtKind::Assert { test, msg } => {
                self.line(label, format_args!("Assert {r}"));
                self.nested(|d| {
                    d.expr("test", test);
                    d.opt_expr("msg", msg);
                });
            }
            StmtKind::Expr(e) => {
                self.line(label, format_args!("Expr {r}"));
                self.nested(|d| d.expr("", e));
            }
        }
    }

    fn target(&mut self, t: &AssignTarget) {
        match t {
            AssignTarget::Name(id) => self.line("target", format_args!("Name {}", I(id))),
            AssignTarget::Attribute { value, attr, range } => {
                self.line(
                    "target",
                    format_args!("Attribute .{} {}", I(attr), R(*range)),
                );
                self.nested(|d| d.expr("value", value));
            }
            AssignTarget::Subscript {
                value,
                indices,
                range,
            } => {
                self.line("target", format_args!("Subscript {}", R(*range)));
                self.nested(|d| {
                    d.expr("value", value);
                    indices.iter().for_each(|i| d.expr("index", i));
                });
            }
            AssignTarget::Unpack { names, range } => self.line(
                "target",
                format_args!("Unpack {} {}", ident_list(names), R(*range)),
            ),
        }
    }

    fn expr(&mut self, label: &str, e: &Expr) {
        let r = R(e.range);
        match &e.kind {
            ExprKind::Int(v) => self.line(label, format_args!("Int {v} {r}")),
            ExprKind::Float(v) => self.line(label, format_args!("Float {v:?} {r}")),
            ExprKind::Str(s) => self.line(label, format_args!("Str {s:?} {r}")),
            ExprKind::Bytes(b) => {
                self.line(label, format_args!("Bytes b\"{}\" {r}", b.escape_ascii()))
            }
            ExprKind::Bool(true) => self.line(label, format_args!("Bool True {r}")),
            ExprKind::Bool(false) => self.line(label, format_args!("Bool False {r}")),
            ExprKind::None => self.line(label, format_args!("None {r}")),
            ExprKind::Name(id) => {
                self.line(label, format_args!("Name {}#{} {r}", id.name, id.id.0))
            }
            ExprKind::Attribute { value, attr } => {
                self.line(label, format_args!("Attribute .{} {r}", I(attr)));
                self.nested(|d| d.expr("", value));
            }
            ExprKind::Call { func, args } => {
                self.line(label, format_args!("Call {r}"));
                self.nested(|d| {
                    d.expr("func", func);
                    args.iter().for_each(|a| d.expr("arg", a));
                });
            }
            ExprKind::Subscript { value, indices } => {
                self.line(label, format_args!("Subscript {r}"));
                self.nested(|d| {
                    d.expr("value", value);
                    indices.iter().for_each(|i| d.expr("index", i));
                });
            }
            ExprKind::Slice { lower, upper, step } => {
                self.line(label, format_args!("Slice {r}"));
                self.nested(|d| {
                    for (name, part) in [("lower", lower), ("upper", upper), ("step", step)] {
                        if let Some(p) = part {
                            d.expr(name, p);
                        }
                    }
                });
            }
            ExprKind::UnaryOp { op, operand } => {
                self.line(label, format_args!("UnaryOp {} {r}", op.symbol()));
                self.nested(|d| d.expr("", operand));
            }
            ExprKind::BinOp { left, op, right } => {
                self.line(label, format_args!("BinOp {} {r}", op.symbol()));
                self.nested(|d| {
                    d.expr("", left);
                    d.expr("", right);
                });
            }
            ExprKind::Compare { left, op, right } => {
                self.line(label, format_args!("Compare {} {r}", op.symbol()));
                self.nested(|d| {
                    d.expr("", left);
                    d.expr("", right);
                });
            }
            ExprKind::BoolOp { op, left, right } => {
                self.line(label, format_args!("BoolOp {} {r}", op.symbol()));
                self.nested(|d| {
                    d.expr("", left);
                    d.expr("", right);
                });
            }
            ExprKind::IfExp { test, body, orelse } => {
                self.line(label, format_args!("IfExp {r}"));
                self.nested(|d| {
                    d.expr("body", body);
                    d.expr("test", test);
                    d.expr("orelse", orelse);
                });
            }
            ExprKind::Tuple(items) => {
                self.line(label, format_args!("Tuple {r}"));
                self.nested(|d| items.iter().for_each(|i| d.expr("", i)));
            }
            ExprKind::List(items) => {
                self.line(label, format_args!("List {r}"));
                self.nested(|d| items.iter().for_each(|i| d.expr("", i)));
            }
            ExprKind::Dict(pairs) => {
                self.line(label, format_args!("Dict {r}"));
                self.nested(|d| {
                    for (k, v) in pairs {
                        d.expr("key", k);
                        d.expr("value", v);
                    }
                });
            }
            ExprKind::GeneratorExp { elt, target, iter } => {
                self.line(label, format_args!("GeneratorExp for {} {r}", I(target)));
                self.nested(|d| {
                    d.expr("elt", elt);
                    d.expr("iter", iter);
                });
            }
            ExprKind::Starred(inner) => {
                self.line(label, format_args!("Starred {r}"));
                self.nested(|d| d.expr("", inner));
            }
            ExprKind::Walrus { target, value } => {
                self.line(label, format_args!("Walrus {} {r}", I(target)));
                self.nested(|d| d.expr("", value));
            }
        }
    }
}
