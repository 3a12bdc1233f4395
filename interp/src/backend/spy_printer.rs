//! The SPy source printer: `ast::Module` → SPy source text that our parser
//! reads back to the same tree (up to ranges, name ids and `name_count`).
//!
//! Layout: 4-space indentation, one blank line around `def`s and `class`es
//! at the top level and in class bodies, `# ...` lines for `StmtKind::Comment` (a comment block sticks
//! to the statement after it), `pass` in a block that holds no statement.
//! Special decorators come from the tree's flags: `@blue`,
//! `@blue.generic`, `@blue.metafunc` (`FuncDef.color/kind`), `@struct`
//! (`ClassDef.is_struct`), printed before the other decorators.
//! Expressions get the fewest parentheses Python's grammar needs (see
//! `expr`), plus one for readability: a unary operator applied to `**`
//! prints as `-(x ** 2)`. Names that are not plain identifiers, and the
//! keywords and soft keywords (`var`, `const`), print in backquotes:
//! `` `add[i32]`(1, 2) ``.
//!
//! Shapes the printer cannot represent faithfully (the parser never builds
//! them; the printed text either parses to another tree or not at all):
//! - a Float NaN prints as `1e999 - 1e999` (parenthesized where a
//!   subtraction would be) and parses back as that BinOp;
//!   a negative float (also `-0.0`, `-inf`) prints as `-<literal>` and parses
//!   back as `UnaryOp(Neg, Float)`; both evaluate to the same value;
//! - an empty block (printed `pass`) or one of comments only (comments, then
//!   `pass`) parses back as `[Pass]`; comments are never parsed back;
//! - a `Subscript` whose only index is a `Tuple` prints as `v[(a, b)]`, which
//!   parses as the indices `a, b`; `v[()]` parses as no index at all;
//! - `Starred` outside call arguments, tuple/list items, subscript indices
//!   and `*args` annotations; `Slice` outside subscript indices;
//! - a name that is empty or contains a backquote or a line break (no
//!   spelling exists); an import module whose name has an empty `.` part;
//! - a `Name`/`Attribute` decorator spelling `blue`, `blue.generic`,
//!   `blue.metafunc` on a function or `struct` on a class: it parses back as
//!   the flag; a red `FuncDef` with `kind != Plain` loses its kind;
//! - `type_params: Some([])` (prints nothing, parses back as `None`);
//! - a `VarDef` without keyword and without annotation (prints as an
//!   assignment), or with a keyword but neither annotation nor value;
//!   an `ImportFrom` with no names; a `*args` parameter with a default; a
//!   parameter without default after one with a default (before `*args`);
//! - trees whose printed form needs more than 1,000 nested brackets (`lexer::MAX_BRACKET_DEPTH`) or is
//!   deeper than the parser's nesting limits.

mod expr;
mod literal;
mod wrap;

use std::fmt::Write as _;

use crate::backend::origins::{Origin, Origins};
use crate::source::TextRange;
use crate::syntax::ast::{
    AssignTarget, ClassDef, FuncColor, FuncDef, FuncKind, Param, ParamKind, StmtKind, VarKind,
};
use crate::syntax::ast::{ExprRef, StmtRef, Stmts};

pub use literal::{format_name, is_plain_identifier};

use expr::{Prec, Writer};

const INDENT: &str = "    ";

/// Print a whole module (its top-level statements, `m.body()`) as SPy
/// source (empty for an empty module, else ending with a newline).
pub fn print_module(body: Stmts<'_>) -> String {
    let mut p = Printer::default();
    p.spaced(&body);
    p.out
}

/// Where a statement of interest starts in printed output (for tools that
/// link residual lines to their provenance: `explain`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Mark {
    /// 0-based line of the output.
    pub line: usize,
    pub what: Marked,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Marked {
    /// A `# ...` comment block; its statement's (source) range.
    Comment(crate::source::TextRange),
    /// A `def` (its first decorator line, if any), with the class it is a
    /// method of.
    Def { name: String, class: Option<String> },
}

/// [`print_module`] with lines longer than `width` columns wrapped inside
/// their brackets (`wrap`); 0: no wrapping. The text parses to the same
/// tree.
pub fn print_module_width(body: Stmts<'_>, width: usize) -> String {
    let mut p = Printer {
        width,
        ..Printer::default()
    };
    p.spaced(&body);
    p.out
}

/// [`print_module_width`], and where every comment and `def` starts.
pub fn print_module_marked(body: Stmts<'_>, width: usize) -> (String, Vec<Mark>) {
    let mut p = Printer {
        marks: Some(Vec::new()),
        width,
        ..Printer::default()
    };
    p.spaced(&body);
    (p.out, p.marks.unwrap_or_default())
}

/// [`print_module`], and where every printed node comes from (its range
/// next to where it was printed; see `backend::origins`).
pub fn print_module_with_origins(body: Stmts<'_>) -> (String, Origins) {
    print_module_with_origins_planted(body, None)
}

/// A planted printer bug, for the test that proves the fuzzer's sampled
/// print-and-reparse check of residual modules finds printer bugs
/// (`spy-fuzz`'s planted-bug tests); never set outside them.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PlantedPrinterBug {
    /// A binary operation's right operand is printed at the operation's
    /// own level: `a - (b - c)` comes out as `a - b - c`.
    RightOperandUnparenthesized,
}

/// [`print_module_with_origins`] with a planted bug (`None`: the printer).
pub fn print_module_with_origins_planted(
    body: Stmts<'_>,
    planted: Option<PlantedPrinterBug>,
) -> (String, Origins) {
    let mut p = Printer {
        origins: Some(Origins::default()),
        planted,
        ..Printer::default()
    };
    p.spaced(&body);
    let mut origins = p.origins.unwrap_or_default();
    origins.shrink_to_fit();
    // (The text is kept as long as the residual program runs: without the
    // room its doubling left, up to its own size again.)
    p.out.shrink_to_fit();
    (p.out, origins)
}

/// Top-level `def`s printed one by one, in the order of their module, as
/// [`print_module_with_origins`] prints them there (a streaming redshift
/// prints each residual function once it is shifted, then frees its tree:
/// `redshift::mod`).
///
/// The text is kept in pieces of about [`PIECE_BYTES`], each with the
/// origins of its `def`s (offsets into the piece), not in one string:
/// a string that grows doubles its room, and while it is copied into the
/// new room the old one is alive too, so that at its last growth it takes
/// up to three times its text (twice in resident pages), when the source
/// module is still alive beside it. A full piece is compressed. The
/// pieces are joined once the source module is gone
/// ([`print_module_with_defs`]; issue 14 item 5).
#[derive(Clone, Debug, Default)]
pub struct PrintedDefs {
    pieces: Vec<PrintedPiece>,
    /// The bytes of text in all the pieces.
    len: usize,
}

/// A piece of [`PrintedDefs`]: whole `def`s, each after a blank line but
/// the first of the module. A full piece's text is compressed (an LZ4
/// block) until the pieces are joined: the text of the `def`s printed so
/// far then takes a fraction of its size while redshift goes on.
#[derive(Clone, Debug, Default)]
struct PrintedPiece {
    text: String,
    /// The text, compressed, once the piece is full (`text` is then empty).
    packed: Option<Box<[u8]>>,
    origins: Origins,
}

impl PrintedPiece {
    /// Compress the text of this full piece.
    fn seal(&mut self) {
        self.origins.shrink_to_fit();
        let text = std::mem::take(&mut self.text);
        self.packed = Some(lz4_flex::block::compress_prepend_size(text.as_bytes()).into_boxed_slice());
    }

    /// Append the piece's text to `out`.
    fn unpack_into(&self, out: &mut String) {
        let Some(packed) = &self.packed else {
            out.push_str(&self.text);
            return;
        };
        match lz4_flex::block::decompress_size_prepended(packed) {
            Ok(bytes) => out.push_str(&String::from_utf8_lossy(&bytes)),
            // (only a bug could get here: the block is ours; the residual
            // text then fails to parse back, a located error)
            Err(e) => out.push_str(&format!("\n<residual text lost: {e}>\n")),
        }
    }
}

/// The room a piece of [`PrintedDefs`] is given (a `def` longer than this
/// gets a piece of its own size).
const PIECE_BYTES: usize = 1 << 20;

impl PrintedDefs {
    /// Print `def`, a top-level `def` statement, after those printed so
    /// far (planted bug: see [`PlantedPrinterBug`]).
    pub fn push(&mut self, def: &StmtRef<'_>, planted: Option<PlantedPrinterBug>) {
        debug_assert!(matches!(def.kind(), StmtKind::FuncDef(_)));
        let mut p = Printer {
            origins: Some(Origins::default()),
            planted,
            ..Printer::default()
        };
        // (a blank line between two `def`s: `Printer::spaced`)
        if self.len > 0 {
            p.out.push('\n');
        }
        p.stmt(def);
        p.settle_origins();
        let origins = p.origins.unwrap_or_default();
        let fits = self
            .pieces
            .last()
            .is_some_and(|piece| piece.text.capacity() - piece.text.len() >= p.out.len());
        if !fits {
            if let Some(full) = self.pieces.last_mut() {
                full.seal();
            }
            self.pieces.push(PrintedPiece {
                text: String::with_capacity(PIECE_BYTES.max(p.out.len())),
                ..PrintedPiece::default()
            });
        }
        let Some(piece) = self.pieces.last_mut() else {
            unreachable!("a piece was just made");
        };
        let base = u32::try_from(piece.text.len()).unwrap_or(u32::MAX);
        piece.origins.append_at(&origins, base);
        piece.text.push_str(&p.out);
        self.len += p.out.len();
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }
}

/// [`print_module_with_origins_planted`] of a module whose body is `body`
/// followed by the `def`s of `defs`: the same text and origins.
pub fn print_module_with_defs(
    body: Stmts<'_>,
    defs: PrintedDefs,
    planted: Option<PlantedPrinterBug>,
) -> (String, Origins) {
    let (mut text, mut origins) = print_module_with_origins_planted(body, planted);
    if defs.is_empty() {
        return (text, origins);
    }
    // (a blank line before a `def`, but at the top of the module)
    if !text.is_empty() {
        text.push('\n');
    }
    text.reserve_exact(defs.len);
    // (each piece freed once copied)
    for piece in defs.pieces {
        let base = u32::try_from(text.len()).unwrap_or(u32::MAX);
        origins.append_at(&piece.origins, base);
        piece.unpack_into(&mut text);
    }
    origins.shrink_to_fit();
    (text, origins)
}

/// Print one expression as it may stand on its own (e.g. after `return`):
/// parenthesized only if it must be (a walrus, a starred item).
pub fn print_expr(e: &ExprRef<'_>) -> String {
    let mut w = Writer::default();
    w.expr(e, Prec::TEST);
    w.out
}

#[derive(Default)]
struct Printer {
    out: String,
    indent: usize,
    /// Lines written so far, and the marks asked for (`print_module_marked`).
    lines: usize,
    marks: Option<Vec<Mark>>,
    class: Option<String>,
    /// Wrap lines longer than this (0: never).
    width: usize,
    /// Where each node was printed, when asked for.
    origins: Option<Origins>,
    /// The planted printer bug (test-only, see [`PlantedPrinterBug`]).
    planted: Option<PlantedPrinterBug>,
}

impl Printer {
    /// A writer for one line, carrying the planted bug if any.
    fn writer(&self) -> Writer {
        Writer {
            planted: self.planted,
            ..Writer::default()
        }
    }

    fn mark(&mut self, what: Marked) {
        let line = self.lines;
        if let Some(marks) = &mut self.marks {
            marks.push(Mark { line, what });
        }
    }

    fn line(&mut self, text: &str) {
        let indent = self.indent * INDENT.len();
        if self.width > 0 && indent + text.chars().count() > self.width && !text.starts_with('#') {
            for (level, part) in wrap::wrap(text, indent, self.width) {
                self.put(self.indent + level, &part);
            }
        } else {
            self.put(self.indent, text);
        }
    }

    fn put(&mut self, indent: usize, text: &str) {
        self.lines += 1;
        for _ in 0..indent {
            self.out.push_str(INDENT);
        }
        self.out.push_str(text);
        self.out.push('\n');
    }

    /// The line `w` built, with the origins it marked.
    fn emit(&mut self, w: Writer) {
        // Origins are offsets into unwrapped lines: the engines run the
        // unwrapped text (`print_module_with_origins` never sets a width).
        debug_assert!(self.width == 0 || self.origins.is_none());
        if let Some(origins) = &mut self.origins {
            let base = (self.out.len() + self.indent * INDENT.len()) as u32;
            for o in w.origins {
                origins.push(Origin {
                    printed: TextRange::new(o.printed.start + base, o.printed.end + base),
                    source: o.source,
                });
            }
        }
        self.line(&w.out);
    }

    /// Write out the origins recorded so far: a top-level statement is
    /// printed, no node around its nodes is coming (`Origins::settle`).
    fn settle_origins(&mut self) {
        if let Some(origins) = &mut self.origins {
            origins.settle();
        }
    }

    /// Record that the text printed since `start` (up to the last line's
    /// newline) is the node at `source`.
    fn mark_since(&mut self, start: usize, source: TextRange) {
        if let Some(origins) = &mut self.origins {
            let end = self.out.len().saturating_sub(1).max(start);
            origins.push(Origin {
                printed: TextRange::from_usize(start, end),
                source,
            });
        }
    }

    /// The top level and class bodies: a blank line between two statements
    /// when either is a definition; comments stay glued to the statement
    /// they precede.
    fn spaced(&mut self, body: &Stmts<'_>) {
        let mut prev_is_def: Option<bool> = None;
        let mut i = 0;
        while i < body.len() {
            // A chunk: comments, then the statement they annotate (if any).
            let mut j = i;
            while body
                .get(j)
                .is_some_and(|s| matches!(s.kind(), StmtKind::Comment(_)))
            {
                j += 1;
            }
            let end = (j + 1).min(body.len());
            let is_def = body
                .get(j)
                .is_some_and(|s| matches!(s.kind(), StmtKind::FuncDef(_) | StmtKind::ClassDef(_)));
            if let Some(prev) = prev_is_def {
                if prev || is_def {
                    self.out.push('\n');
                    self.lines += 1;
                }
            }
            for k in i..end {
                if let Some(s) = body.get(k) {
                    self.stmt(&s);
                }
            }
            if self.indent == 0 {
                self.settle_origins();
            }
            prev_is_def = Some(is_def);
            i = end;
        }
    }

    /// An indented block; `pass` when it holds no statement. Class bodies
    /// are `spaced` like the top level.
    fn block(&mut self, body: &Stmts<'_>, spaced: bool) {
        self.indent += 1;
        if spaced {
            self.spaced(body);
        } else {
            body.iter().for_each(|s| self.stmt(&s));
        }
        if body.iter().all(|s| matches!(s.kind(), StmtKind::Comment(_))) {
            self.line("pass");
        }
        self.indent -= 1;
    }

    fn stmt(&mut self, s: &StmtRef<'_>) {
        if self.marks.is_some() {
            match &s.kind() {
                StmtKind::Comment(_) => self.mark(Marked::Comment(s.range)),
                StmtKind::FuncDef(f) => self.mark(Marked::Def {
                    name: f.name.name.to_string(),
                    class: self.class.clone(),
                }),
                _ => {}
            }
        }
        let start = self.out.len() + self.indent * INDENT.len();
        self.stmt_lines(s);
        if !matches!(s.kind(), StmtKind::Comment(_)) {
            self.mark_since(start, s.range);
        }
    }

    fn stmt_lines(&mut self, s: &StmtRef<'_>) {
        match &s.kind() {
            StmtKind::FuncDef(f) => self.funcdef(f),
            StmtKind::ClassDef(c) => self.classdef(c),
            StmtKind::Import { module, alias } => {
                let mut text = format!("import {}", literal::dotted_name(&module.name));
                if let Some(a) = alias {
                    let _ = write!(text, " as {}", format_name(&a.name));
                }
                self.line(&text);
            }
            StmtKind::ImportFrom { module, names } => {
                let mut text = format!("from {} import ", literal::dotted_name(&module.name));
                for (k, n) in names.iter().enumerate() {
                    if k > 0 {
                        text.push_str(", ");
                    }
                    text.push_str(&format_name(&n.name.name));
                    if let Some(a) = n.alias {
                        let _ = write!(text, " as {}", format_name(&a.name));
                    }
                }
                self.line(&text);
            }
            StmtKind::Assign { target, value } => {
                let mut w = self.writer();
                w.target(target);
                w.out.push_str(" = ");
                w.expr(value, Prec::TEST);
                self.emit(w);
            }
            StmtKind::AugAssign { target, op, value } => {
                let mut w = self.writer();
                let _ = write!(w.out, "{} {}= ", format_name(&target.name), op.symbol());
                w.expr(value, Prec::TEST);
                self.emit(w);
            }
            StmtKind::VarDef(v) => {
                let mut w = self.writer();
                match v.kind {
                    Some(VarKind::Var) => w.out.push_str("var "),
                    Some(VarKind::Const) => w.out.push_str("const "),
                    None => {}
                }
                w.marked_name(v.name);
                if let Some(a) = &v.annotation {
                    w.out.push_str(": ");
                    w.expr(a, Prec::TEST);
                }
                if let Some(e) = &v.value {
                    w.out.push_str(" = ");
                    w.expr(e, Prec::TEST);
                }
                self.emit(w);
            }
            StmtKind::If { test, body, orelse } => self.if_chain(test, body, orelse),
            StmtKind::While { test, body } => {
                self.header("while ", test, Prec::NAMED);
                self.block(body, false);
            }
            StmtKind::For { target, iter, body } => {
                let mut w = self.writer();
                let _ = write!(w.out, "for {} in ", format_name(&target.name));
                w.expr(iter, Prec::TEST);
                w.out.push(':');
                self.emit(w);
                self.block(body, false);
            }
            StmtKind::Break => self.line("break"),
            StmtKind::Continue => self.line("continue"),
            StmtKind::Pass => self.line("pass"),
            StmtKind::Return(None) => self.line("return"),
            StmtKind::Return(Some(e)) => {
                let mut w = self.writer();
                w.out.push_str("return ");
                w.bare_tuple_or_expr(e);
                self.emit(w);
            }
            StmtKind::Raise(e) => self.simple("raise ", e),
            StmtKind::Assert { test, msg } => {
                let mut w = self.writer();
                w.out.push_str("assert ");
                w.expr(test, Prec::TEST);
                if let Some(m) = msg {
                    w.out.push_str(", ");
                    w.expr(m, Prec::TEST);
                }
                self.emit(w);
            }
            StmtKind::Expr(e) => self.simple("", e),
            StmtKind::Comment(text) => self.comment(text),
        }
    }

    /// `keyword expr` on one line.
    fn simple(&mut self, keyword: &str, e: &ExprRef<'_>) {
        let mut w = self.writer();
        w.out.push_str(keyword);
        w.expr(e, Prec::TEST);
        self.emit(w);
    }

    /// `keyword test:`
    fn header(&mut self, keyword: &str, test: &ExprRef<'_>, min: Prec) {
        let mut w = self.writer();
        w.out.push_str(keyword);
        w.expr(test, min);
        w.out.push(':');
        self.emit(w);
    }

    /// `if`/`elif`/`else`: an `If` alone in an `orelse` is an `elif`.
    fn if_chain(&mut self, test: &ExprRef<'_>, body: &Stmts<'_>, orelse: &Stmts<'_>) {
        self.header("if ", test, Prec::NAMED);
        self.block(body, false);
        let mut orelse = *orelse;
        loop {
            if orelse.is_empty() {
                break;
            }
            let elif = match (orelse.len(), orelse.first().map(|s| s.kind())) {
                (1, Some(StmtKind::If { test, body, orelse })) => Some((test, body, orelse)),
                _ => None,
            };
            match elif {
                Some((test, body, next)) => {
                    self.header("elif ", &test, Prec::NAMED);
                    self.block(&body, false);
                    orelse = next;
                }
                None => {
                    self.line("else:");
                    self.block(&orelse, false);
                    break;
                }
            }
        }
    }

    /// One `# ...` line per line of `text` (`\r` breaks a line too: it
    /// would end the comment for the lexer).
    fn comment(&mut self, text: &str) {
        let text = text.replace("\r\n", "\n");
        for line in text.split(['\n', '\r']) {
            if line.is_empty() {
                self.line("#");
            } else {
                self.line(&format!("# {line}"));
            }
        }
    }

    fn decorator(&mut self, e: &ExprRef<'_>) {
        let mut w = self.writer();
        w.out.push('@');
        w.expr(e, Prec::NAMED);
        self.emit(w);
    }

    fn funcdef(&mut self, f: &FuncDef) {
        match (f.color, f.kind) {
            (FuncColor::Red, _) => {}
            (FuncColor::Blue, FuncKind::Plain) => self.line("@blue"),
            (FuncColor::Blue, FuncKind::Generic) => self.line("@blue.generic"),
            (FuncColor::Blue, FuncKind::Metafunc) => self.line("@blue.metafunc"),
        }
        f.decorators.iter().for_each(|d| self.decorator(&d));
        let mut w = self.writer();
        w.out.push_str("def ");
        w.marked_name(f.name);
        type_params(&mut w, f.type_params);
        w.out.push('(');
        for (k, p) in f.params.iter().enumerate() {
            if k > 0 {
                w.out.push_str(", ");
            }
            param(&mut w, &p);
        }
        w.out.push(')');
        if let Some(r) = &f.return_type {
            w.out.push_str(" -> ");
            w.expr(r, Prec::TEST);
        }
        w.mark(0, f.proto_range);
        w.out.push(':');
        self.emit(w);
        self.block(&f.body, false);
    }

    fn classdef(&mut self, c: &ClassDef) {
        if c.is_struct {
            self.line("@struct");
        }
        c.decorators.iter().for_each(|d| self.decorator(&d));
        let mut w = self.writer();
        w.out.push_str("class ");
        w.out.push_str(&format_name(&c.name.name));
        type_params(&mut w, c.type_params);
        w.out.push(':');
        self.emit(w);
        let outer = self.class.replace(c.name.name.to_string());
        self.block(&c.body, true);
        self.class = outer;
    }
}

/// `[T, U]` (nothing for `None` or an empty list).
fn type_params(w: &mut Writer, tps: Option<crate::syntax::ast::Idents<'_>>) {
    let Some(tps) = tps.filter(|t| !t.is_empty()) else {
        return;
    };
    w.out.push('[');
    for (k, t) in tps.iter().enumerate() {
        if k > 0 {
            w.out.push_str(", ");
        }
        w.out.push_str(&format_name(&t.name));
    }
    w.out.push(']');
}

/// `x`, `x: T`, `x: T = d`, `x=d`, `*args`, `*args: T` (PEP 8 spacing).
fn param(w: &mut Writer, p: &Param) {
    let start = w.out.len();
    if p.kind == ParamKind::Star {
        w.out.push('*');
    }
    w.marked_name(p.name);
    if let Some(a) = &p.annotation {
        w.out.push_str(": ");
        // `*args: *Ts` is the one place an annotation may be starred.
        w.item(a, Prec::TEST);
    }
    if let Some(d) = &p.default {
        w.out.push_str(if p.annotation.is_some() { " = " } else { "=" });
        w.expr(d, Prec::TEST);
    }
    w.mark(start, p.range);
}

impl Writer {
    /// An assignment target.
    fn target(&mut self, t: &AssignTarget) {
        let start = self.out.len();
        self.target_text(t);
        self.mark(start, t.range());
    }

    fn target_text(&mut self, t: &AssignTarget) {
        match t {
            AssignTarget::Name(id) => self.out.push_str(&format_name(&id.name)),
            AssignTarget::Attribute { value, attr, .. } => self.attribute(value, attr),
            AssignTarget::Subscript { value, indices, .. } => self.subscript(value, indices),
            AssignTarget::Unpack { names, .. } => {
                let names: Vec<_> = names.iter().collect();
                match names.as_slice() {
                    [] => self.out.push_str("()"),
                    [one] => {
                        let _ = write!(self.out, "({},)", format_name(&one.name));
                    }
                    _ => {
                        for (k, n) in names.iter().enumerate() {
                            if k > 0 {
                                self.out.push_str(", ");
                            }
                            self.out.push_str(&format_name(&n.name));
                        }
                    }
                }
            }
        }
    }
}

#[cfg(test)]
mod tests;
