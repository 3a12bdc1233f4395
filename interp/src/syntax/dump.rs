//! A stable, readable dump of the AST: one node per line, children indented
//! by two spaces, in source order. Ranges print as `@start..end` (byte
//! offsets); identifiers as `name#id@start..end`. Used by `spy-interp parse`
//! and by the parser snapshots.
//!
//! The walk uses an explicit work stack, so dumping the deepest tree the
//! parser accepts needs no deep recursion.

use std::fmt::Write as _;

use crate::source::TextRange;
use crate::syntax::ast::{
    AssignTarget, ExprKind, ExprRef, FuncColor, FuncKind, Identifier, Module, ParamKind, StmtKind, StmtRef,
    Stmts, VarKind,
};

pub fn dump_module(m: &Module) -> String {
    dump_body(m.name_count, m.body())
}

/// [`dump_module`] of the statements `body` of a module with `name_count`
/// name ids (a residual module's: 0).
pub fn dump_body(name_count: u32, body: Stmts<'_>) -> String {
    let mut out = String::new();
    let _ = writeln!(out, "Module name_count={name_count}");
    let mut stack: Vec<Task<'_>> = body
        .iter()
        .rev()
        .map(|s| Task {
            indent: 1,
            label: "",
            item: Item::Stmt(s),
        })
        .collect();
    let mut kids = Kids::default();
    while let Some(task) = stack.pop() {
        for _ in 0..task.indent {
            out.push_str("  ");
        }
        out.push_str(task.label);
        kids.indent = task.indent + 1;
        let head = match task.item {
            Item::Stmt(s) => stmt(s, &mut kids),
            Item::Expr(e) => expr(e, &mut kids),
            Item::Target(t) => target(t, &mut kids),
            Item::Text(text) => text,
        };
        match (task.label.is_empty(), head.is_empty()) {
            (false, false) => {
                out.push_str(": ");
                out.push_str(&head);
            }
            (false, true) => out.push(':'),
            _ => out.push_str(&head),
        }
        out.push('\n');
        stack.extend(kids.tasks.drain(..).rev());
    }
    out
}

enum Item<'a> {
    Stmt(StmtRef<'a>),
    Expr(ExprRef<'a>),
    Target(AssignTarget<'a>),
    /// An already rendered line (empty: just `label:`).
    Text(String),
}

struct Task<'a> {
    indent: usize,
    label: &'static str,
    item: Item<'a>,
}

/// The children of the node being printed, in source order.
#[derive(Default)]
struct Kids<'a> {
    indent: usize,
    tasks: Vec<Task<'a>>,
}

impl<'a> Kids<'a> {
    fn push(&mut self, label: &'static str, item: Item<'a>) {
        self.tasks.push(Task {
            indent: self.indent,
            label,
            item,
        });
    }

    fn expr(&mut self, label: &'static str, e: ExprRef<'a>) {
        self.push(label, Item::Expr(e));
    }

    fn opt_expr(&mut self, label: &'static str, e: Option<ExprRef<'a>>) {
        if let Some(e) = e {
            self.expr(label, e);
        }
    }

    fn block(&mut self, label: &'static str, stmts: Stmts<'a>) {
        self.push(label, Item::Text(String::new()));
        self.indent += 1;
        for s in stmts {
            self.push("", Item::Stmt(s));
        }
        self.indent -= 1;
    }

    /// A line with its own children (a parameter, an imported name).
    fn text_with(&mut self, text: String, children: impl FnOnce(&mut Kids<'a>)) {
        self.push("", Item::Text(text));
        self.indent += 1;
        children(self);
        self.indent -= 1;
    }
}

fn stmt<'a>(s: StmtRef<'a>, k: &mut Kids<'a>) -> String {
    let r = R(s.range);
    match s.kind() {
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
            f.decorators.iter().for_each(|e| k.expr("decorator", e));
            if let Some(tps) = f.type_params {
                k.push("type_params", Item::Text(ident_list(tps.iter())));
            }
            for p in f.params {
                let pk = match p.kind {
                    ParamKind::Positional => "positional",
                    ParamKind::Star => "star",
                };
                k.text_with(format!("Param {} {pk} {}", I(p.name), R(p.range)), |k| {
                    k.opt_expr("annotation", p.annotation);
                    k.opt_expr("default", p.default);
                });
            }
            k.opt_expr("return_type", f.return_type);
            k.block("body", f.body);
            format!(
                "FuncDef {} color={color} kind={kind} proto={} {r}",
                I(f.name),
                R(f.proto_range)
            )
        }
        StmtKind::ClassDef(c) => {
            c.decorators.iter().for_each(|e| k.expr("decorator", e));
            if let Some(tps) = c.type_params {
                k.push("type_params", Item::Text(ident_list(tps.iter())));
            }
            k.block("body", c.body);
            format!("ClassDef {} struct={} {r}", I(c.name), c.is_struct)
        }
        StmtKind::Import { module, alias } => match alias {
            Some(a) => format!("Import {} as {} {r}", I(module), I(a)),
            None => format!("Import {} {r}", I(module)),
        },
        StmtKind::ImportFrom { module, names } => {
            for n in names {
                let text = match n.alias {
                    Some(a) => format!("ImportName {} as {} {}", I(n.name), I(a), R(n.range)),
                    None => format!("ImportName {} {}", I(n.name), R(n.range)),
                };
                k.push("", Item::Text(text));
            }
            format!("ImportFrom {} {r}", I(module))
        }
        StmtKind::Assign { target, value } => {
            k.push("target", Item::Target(target));
            k.expr("value", value);
            format!("Assign {r}")
        }
        StmtKind::AugAssign { target, op, value } => {
            k.expr("value", value);
            format!("AugAssign {} {}= {r}", I(target), op.symbol())
        }
        StmtKind::VarDef(v) => {
            let kind = match v.kind {
                None => "none",
                Some(VarKind::Var) => "var",
                Some(VarKind::Const) => "const",
            };
            k.opt_expr("annotation", v.annotation);
            k.opt_expr("value", v.value);
            format!("VarDef kind={kind} {} {r}", I(v.name))
        }
        StmtKind::If { test, body, orelse } => {
            k.expr("test", test);
            k.block("body", body);
            if !orelse.is_empty() {
                k.block("orelse", orelse);
            }
            format!("If {r}")
        }
        StmtKind::While { test, body } => {
            k.expr("test", test);
            k.block("body", body);
            format!("While {r}")
        }
        StmtKind::For { target, iter, body } => {
            k.expr("iter", iter);
            k.block("body", body);
            format!("For {} {r}", I(target))
        }
        StmtKind::Break => format!("Break {r}"),
        StmtKind::Continue => format!("Continue {r}"),
        StmtKind::Pass => format!("Pass {r}"),
        StmtKind::Return(value) => {
            k.opt_expr("", value);
            format!("Return {r}")
        }
        StmtKind::Raise(e) => {
            k.expr("", e);
            format!("Raise {r}")
        }
        StmtKind::Assert { test, msg } => {
            k.expr("test", test);
            k.opt_expr("msg", msg);
            format!("Assert {r}")
        }
        StmtKind::Expr(e) => {
            k.expr("", e);
            format!("Expr {r}")
        }
        StmtKind::Comment(text) => format!("Comment {text:?} {r}"),
    }
}

fn target<'a>(t: AssignTarget<'a>, k: &mut Kids<'a>) -> String {
    match t {
        AssignTarget::Name(id) => format!("Name {}", I(&id)),
        AssignTarget::Attribute { value, attr, range } => {
            k.expr("value", value);
            format!("Attribute .{} {}", I(attr), R(range))
        }
        AssignTarget::Subscript {
            value,
            indices,
            range,
        } => {
            k.expr("value", value);
            indices.iter().for_each(|i| k.expr("index", i));
            format!("Subscript {}", R(range))
        }
        AssignTarget::Unpack { names, range } => {
            let names: Vec<Identifier> = names.iter().collect();
            format!("Unpack {} {}", ident_list(names.iter()), R(range))
        }
    }
}

fn expr<'a>(e: ExprRef<'a>, k: &mut Kids<'a>) -> String {
    let r = R(e.range);
    match e.kind() {
        ExprKind::Int(v) => format!("Int {v} {r}"),
        ExprKind::Float(v) => format!("Float {v:?} {r}"),
        ExprKind::Str(s) => format!("Str {s:?} {r}"),
        ExprKind::Bytes(b) => format!("Bytes b\"{}\" {r}", b.escape_ascii()),
        ExprKind::Bool(true) => format!("Bool True {r}"),
        ExprKind::Bool(false) => format!("Bool False {r}"),
        ExprKind::None => format!("None {r}"),
        ExprKind::Name(id) => format!("Name {}#{} {r}", id.name, id.id.0),
        ExprKind::Attribute { value, attr } => {
            k.expr("", value);
            format!("Attribute .{} {r}", I(attr))
        }
        ExprKind::Call { func, args } => {
            k.expr("func", func);
            args.iter().for_each(|a| k.expr("arg", a));
            format!("Call {r}")
        }
        ExprKind::Subscript { value, indices } => {
            k.expr("value", value);
            indices.iter().for_each(|i| k.expr("index", i));
            format!("Subscript {r}")
        }
        ExprKind::Slice { lower, upper, step } => {
            for (name, part) in [("lower", lower), ("upper", upper), ("step", step)] {
                if let Some(p) = part {
                    k.expr(name, p);
                }
            }
            format!("Slice {r}")
        }
        ExprKind::UnaryOp { op, operand } => {
            k.expr("", operand);
            format!("UnaryOp {} {r}", op.symbol())
        }
        ExprKind::BinOp { left, op, right } => {
            k.expr("", left);
            k.expr("", right);
            format!("BinOp {} {r}", op.symbol())
        }
        ExprKind::Compare { left, op, right } => {
            k.expr("", left);
            k.expr("", right);
            format!("Compare {} {r}", op.symbol())
        }
        ExprKind::BoolOp { op, left, right } => {
            k.expr("", left);
            k.expr("", right);
            format!("BoolOp {} {r}", op.symbol())
        }
        ExprKind::IfExp { test, body, orelse } => {
            k.expr("body", body);
            k.expr("test", test);
            k.expr("orelse", orelse);
            format!("IfExp {r}")
        }
        ExprKind::Tuple(items) => {
            items.iter().for_each(|i| k.expr("", i));
            format!("Tuple {r}")
        }
        ExprKind::List(items) => {
            items.iter().for_each(|i| k.expr("", i));
            format!("List {r}")
        }
        ExprKind::Dict(pairs) => {
            for (key, value) in pairs.iter() {
                k.expr("key", key);
                k.expr("value", value);
            }
            format!("Dict {r}")
        }
        ExprKind::GeneratorExp { elt, target, iter } => {
            k.expr("elt", elt);
            k.expr("iter", iter);
            format!("GeneratorExp for {} {r}", I(target))
        }
        ExprKind::Starred(inner) => {
            k.expr("", inner);
            format!("Starred {r}")
        }
        ExprKind::Walrus { target, value } => {
            k.expr("", value);
            format!("Walrus {} {r}", I(target))
        }
    }
}

/// A range as `@start..end`.
struct R(TextRange);

impl std::fmt::Display for R {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "@{}..{}", self.0.start, self.0.end)
    }
}

/// An identifier as `name#id@start..end`.
struct I<'a>(&'a Identifier);

impl std::fmt::Display for I<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}#{}{}", self.0.name, self.0.id.0, R(self.0.range))
    }
}

fn ident_list<'i>(ids: impl Iterator<Item = &'i Identifier>) -> String {
    let parts: Vec<String> = ids.map(|i| I(i).to_string()).collect();
    format!("[{}]", parts.join(", "))
}

/// The same dump as JSON (`spy-interp parse -f json`): the module is a
/// node `{"kind", "attrs", "range", "label", "children"}`, and so is every
/// line of [`dump_module`] — `kind` its first word, `range` its trailing
/// `@start..end` as `[start, end]` (or `null`), `attrs` the rest of the
/// line, `label` the role in its parent (`func`, `arg`, `body`...; `null`
/// for a plain child). A container line such as `body:` has `kind` null.
/// Built from the text dump, so both always show the same tree.
pub fn dump_module_json(m: &Module) -> String {
    let text = dump_module(m);
    let mut out = String::with_capacity(text.len() * 2);
    // depths of the nodes whose `children` array is open
    let mut open: Vec<usize> = Vec::new();
    for line in text.lines() {
        let depth = (line.len() - line.trim_start_matches(' ').len()) / 2;
        let body = line.trim_start_matches(' ');
        while open.last().is_some_and(|&d| d >= depth) {
            out.push_str("]}");
            open.pop();
        }
        if !open.is_empty() && !out.ends_with('[') {
            out.push(',');
        }
        let (label, head) = split_label(body);
        let (head, range) = match head
            .rsplit_once(" @")
            .or_else(|| head.strip_prefix('@').map(|r| ("", r)))
        {
            Some((h, r)) if parse_range(r).is_some() => (h, parse_range(r)),
            _ => (head, None),
        };
        let (kind, attrs) = match head.split_once(' ') {
            Some((k, a)) => (k, a),
            None => (head, ""),
        };
        let json_opt = |s: Option<&str>| s.map_or("null".to_string(), json_string);
        let _ = write!(
            out,
            "{{\"label\":{},\"kind\":{},\"attrs\":{},\"range\":{},\"children\":[",
            json_opt(label),
            json_opt((!kind.is_empty()).then_some(kind)),
            json_string(attrs),
            range.map_or("null".to_string(), |(s, e)| format!("[{s},{e}]")),
        );
        open.push(depth);
    }
    while open.pop().is_some() {
        out.push_str("]}");
    }
    out.push('\n');
    out
}

/// `label: head` or `label:` (a lowercase role name), else no label.
fn split_label(line: &str) -> (Option<&str>, &str) {
    let end = line
        .find(|c: char| !(c.is_ascii_lowercase() || c == '_'))
        .unwrap_or(line.len());
    if end > 0 {
        if let Some(rest) = line[end..].strip_prefix(':') {
            return (Some(&line[..end]), rest.trim_start());
        }
    }
    (None, line)
}

fn parse_range(r: &str) -> Option<(u32, u32)> {
    let (s, e) = r.split_once("..")?;
    Some((s.parse().ok()?, e.parse().ok()?))
}

/// `s` as a JSON string literal (with its quotes); also the inspect
/// tools' JSON (`inspect::text`).
pub(crate) fn json_string(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if (c as u32) < 0x20 => {
                let _ = write!(out, "\\u{:04x}", c as u32);
            }
            c => out.push(c),
        }
    }
    out.push('"');
    out
}
