//! Expressions with the fewest parentheses the grammar needs.
//!
//! Every expression has a precedence level (`prec`), one per rule of the
//! grammar's expression ladder, and every child position has the least
//! level it accepts without parentheses; a child below it is wrapped in
//! `(...)`, which only groups (parentheses make no node). The positions
//! follow `grammar.lalrpop`:
//!
//! | position                                         | least level |
//! |--------------------------------------------------|-------------|
//! | `if`/`while` test, decorator, call argument, list/tuple item, subscript index, genexp element | `NAMED` |
//! | statement expressions, walrus value, slice bound, dict key/value, `else` branch, annotation, default | `TEST` |
//! | `body if test`, genexp iterable                   | `OR` |
//! | `a or b`: left `OR`, right `AND`; `a and b`: left `AND`, right `NOT`; `not e`: `NOT` | |
//! | comparison operands (so `(a < b) < c` keeps its parentheses), `*e` | `BOR` |
//! | binary operators: left at their level, right one above | |
//! | unary `-`/`+`/`~` operand                         | `FACTOR` |
//! | `a ** b`: left `PRIMARY`, right `FACTOR`          | |
//! | call, subscript, attribute value                  | `PRIMARY` |
//!
//! Tuples and generator expressions always carry their own parentheses
//! (except `return a, b` and a call's only argument `f(x for x in y)`).

use crate::backend::origins::Origin;
use crate::source::TextRange;
use crate::syntax::ast::{BinOp, BoolOp, ExprKind, Identifier, UnaryOp};
use crate::syntax::ast::{ExprRef, Exprs};

use super::literal;

/// A level of the expression grammar, lowest first.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct Prec(u8);

impl Prec {
    pub const NAMED: Prec = Prec(1);
    pub const TEST: Prec = Prec(2);
    pub const OR: Prec = Prec(3);
    pub const AND: Prec = Prec(4);
    pub const NOT: Prec = Prec(5);
    pub const CMP: Prec = Prec(6);
    pub const BOR: Prec = Prec(7);
    pub const BXOR: Prec = Prec(8);
    pub const BAND: Prec = Prec(9);
    pub const SHIFT: Prec = Prec(10);
    pub const ARITH: Prec = Prec(11);
    pub const TERM: Prec = Prec(12);
    pub const FACTOR: Prec = Prec(13);
    pub const POWER: Prec = Prec(14);
    pub const PRIMARY: Prec = Prec(15);
    pub const ATOM: Prec = Prec(16);

    fn above(self) -> Prec {
        Prec(self.0 + 1)
    }
}

pub fn binop_prec(op: BinOp) -> Prec {
    match op {
        BinOp::BitOr => Prec::BOR,
        BinOp::BitXor => Prec::BXOR,
        BinOp::BitAnd => Prec::BAND,
        BinOp::LShift | BinOp::RShift => Prec::SHIFT,
        BinOp::Add | BinOp::Sub => Prec::ARITH,
        BinOp::Mul | BinOp::Div | BinOp::FloorDiv | BinOp::Mod | BinOp::MatMul => Prec::TERM,
        BinOp::Pow => Prec::POWER,
    }
}

/// The level of `e` as printed without extra parentheses.
pub fn prec(e: &ExprRef<'_>) -> Prec {
    match &e.kind() {
        ExprKind::Int(_)
        | ExprKind::Str(_)
        | ExprKind::Bytes(_)
        | ExprKind::Bool(_)
        | ExprKind::None
        | ExprKind::Name(_)
        | ExprKind::Tuple(_)
        | ExprKind::List(_)
        | ExprKind::Dict(_)
        | ExprKind::GeneratorExp { .. } => Prec::ATOM,
        // `-1.5` and `-1e999` are a unary minus for the parser.
        ExprKind::Float(v) if v.is_nan() => Prec::ARITH,
        ExprKind::Float(v) if v.is_sign_negative() => Prec::FACTOR,
        ExprKind::Float(_) => Prec::ATOM,
        ExprKind::Attribute { .. } | ExprKind::Call { .. } | ExprKind::Subscript { .. } => Prec::PRIMARY,
        ExprKind::UnaryOp { op: UnaryOp::Not, .. } => Prec::NOT,
        ExprKind::UnaryOp { .. } => Prec::FACTOR,
        ExprKind::BinOp { op, .. } => binop_prec(*op),
        ExprKind::Compare { .. } => Prec::CMP,
        ExprKind::BoolOp { op: BoolOp::Or, .. } => Prec::OR,
        ExprKind::BoolOp { op: BoolOp::And, .. } => Prec::AND,
        ExprKind::IfExp { .. } => Prec::TEST,
        // Only valid in their own positions (see `item` and `index`).
        ExprKind::Walrus { .. } | ExprKind::Starred(_) | ExprKind::Slice { .. } => Prec::NAMED,
    }
}

/// Builds one line of source, and where each node in it is (`origins`,
/// ranges into `out`).
#[derive(Default)]
pub struct Writer {
    pub out: String,
    pub origins: Vec<Origin>,
    /// The planted printer bug (test-only, `PlantedPrinterBug`).
    pub planted: Option<super::PlantedPrinterBug>,
}

impl Writer {
    /// Record that what was written since `start` is the node at `source`.
    pub fn mark(&mut self, start: usize, source: TextRange) {
        self.origins.push(Origin {
            printed: TextRange::from_usize(start, self.out.len()),
            source,
        });
    }

    fn name(&mut self, id: &Identifier) {
        self.out.push_str(&literal::format_name(&id.name));
    }

    /// A name that stands for itself (a definition's, a parameter's, an
    /// attribute's), marked.
    pub fn marked_name(&mut self, id: &Identifier) {
        let start = self.out.len();
        self.name(id);
        self.mark(start, id.range);
    }

    /// `e`, parenthesized if its level is below `min` (the parentheses are
    /// part of the node's range, as the parser sees it).
    pub fn expr(&mut self, e: &ExprRef<'_>, min: Prec) {
        let start = self.out.len();
        if prec(e) < min {
            self.out.push('(');
            self.bare(e);
            self.out.push(')');
        } else {
            self.bare(e);
        }
        self.mark(start, e.range);
    }

    /// A call argument, tuple/list item or `*args` annotation: `*e` allowed.
    pub fn item(&mut self, e: &ExprRef<'_>, min: Prec) {
        match &e.kind() {
            ExprKind::Starred(inner) => {
                let start = self.out.len();
                self.out.push('*');
                self.expr(inner, Prec::BOR);
                self.mark(start, e.range);
            }
            _ => self.expr(e, min),
        }
    }

    /// A subscript index: a slice, a starred item or a named expression.
    fn index(&mut self, e: &ExprRef<'_>) {
        match &e.kind() {
            ExprKind::Slice { lower, upper, step } => {
                let start = self.out.len();
                let bound = |w: &mut Writer, b: &Option<ExprRef<'_>>| {
                    if let Some(b) = b {
                        w.expr(b, Prec::TEST);
                    }
                };
                bound(self, lower);
                self.out.push(':');
                bound(self, upper);
                if step.is_some() {
                    self.out.push(':');
                    bound(self, step);
                }
                self.mark(start, e.range);
            }
            _ => self.item(e, Prec::NAMED),
        }
    }

    /// `return a, b`: a tuple of two or more items needs no parentheses.
    pub fn bare_tuple_or_expr(&mut self, e: &ExprRef<'_>) {
        match &e.kind() {
            ExprKind::Tuple(items) if items.len() >= 2 => {
                let start = self.out.len();
                self.items(items, Prec::TEST);
                self.mark(start, e.range);
            }
            _ => self.expr(e, Prec::TEST),
        }
    }

    fn items(&mut self, items: &Exprs<'_>, min: Prec) {
        for (k, i) in items.iter().enumerate() {
            if k > 0 {
                self.out.push_str(", ");
            }
            self.item(&i, min);
        }
    }

    pub fn attribute(&mut self, value: &ExprRef<'_>, attr: &Identifier) {
        // `1.x` would lex as the float `1.` then a name.
        let literal = match value.kind() {
            ExprKind::Int(_) => true,
            ExprKind::Float(v) => !v.is_nan() && !v.is_sign_negative(),
            _ => false,
        };
        if literal {
            let start = self.out.len();
            self.out.push('(');
            self.bare(value);
            self.out.push(')');
            self.mark(start, value.range);
        } else {
            self.expr(value, Prec::PRIMARY);
        }
        self.out.push('.');
        self.marked_name(attr);
    }

    pub fn subscript(&mut self, value: &ExprRef<'_>, indices: &Exprs<'_>) {
        self.expr(value, Prec::PRIMARY);
        self.out.push('[');
        if indices.is_empty() {
            // The parser reads `v[()]` as no index at all.
            self.out.push_str("()");
        }
        for (k, i) in indices.iter().enumerate() {
            if k > 0 {
                self.out.push_str(", ");
            }
            self.index(&i);
        }
        self.out.push(']');
    }

    /// `e` without parentheses around itself.
    fn bare(&mut self, e: &ExprRef<'_>) {
        match &e.kind() {
            ExprKind::Int(v) => self.out.push_str(&v.to_string()),
            ExprKind::Float(v) => self.out.push_str(&literal::float(*v)),
            ExprKind::Str(s) => literal::push_str_literal(&mut self.out, s),
            ExprKind::Bytes(b) => literal::push_bytes_literal(&mut self.out, b),
            ExprKind::Bool(true) => self.out.push_str("True"),
            ExprKind::Bool(false) => self.out.push_str("False"),
            ExprKind::None => self.out.push_str("None"),
            ExprKind::Name(id) => self.name(id),
            ExprKind::Attribute { value, attr } => self.attribute(value, attr),
            ExprKind::Call { func, args } => self.call(func, args),
            ExprKind::Subscript { value, indices } => self.subscript(value, indices),
            ExprKind::Slice { .. } => self.index(e),
            ExprKind::UnaryOp { op, operand } => self.unary(*op, operand),
            ExprKind::BinOp { left, op, right } => {
                let p = binop_prec(*op);
                let (lmin, rmin) = if *op == BinOp::Pow {
                    (Prec::PRIMARY, Prec::FACTOR)
                } else if self.planted == Some(super::PlantedPrinterBug::RightOperandUnparenthesized) {
                    (p, p)
                } else {
                    (p, p.above())
                };
                self.binary(left, op.symbol(), right, lmin, rmin);
            }
            ExprKind::Compare { left, op, right } => {
                self.binary(left, op.symbol(), right, Prec::BOR, Prec::BOR);
            }
            ExprKind::BoolOp { op, left, right } => {
                let (lmin, rmin) = match op {
                    BoolOp::Or => (Prec::OR, Prec::AND),
                    BoolOp::And => (Prec::AND, Prec::NOT),
                };
                self.binary(left, op.symbol(), right, lmin, rmin);
            }
            ExprKind::IfExp { test, body, orelse } => {
                self.expr(body, Prec::OR);
                self.out.push_str(" if ");
                self.expr(test, Prec::OR);
                self.out.push_str(" else ");
                self.expr(orelse, Prec::TEST);
            }
            ExprKind::Tuple(items) => {
                self.out.push('(');
                self.items(items, Prec::NAMED);
                if items.len() == 1 {
                    self.out.push(',');
                }
                self.out.push(')');
            }
            ExprKind::List(items) => {
                self.out.push('[');
                self.items(items, Prec::NAMED);
                self.out.push(']');
            }
            ExprKind::Dict(pairs) => {
                self.out.push('{');
                for (k, (key, value)) in pairs.iter().enumerate() {
                    if k > 0 {
                        self.out.push_str(", ");
                    }
                    self.expr(&key, Prec::TEST);
                    self.out.push_str(": ");
                    self.expr(&value, Prec::TEST);
                }
                self.out.push('}');
            }
            ExprKind::GeneratorExp { .. } => {
                self.out.push('(');
                self.genexp_body(e);
                self.out.push(')');
            }
            ExprKind::Starred(_) => self.item(e, Prec::NAMED),
            ExprKind::Walrus { target, value } => {
                self.marked_name(target);
                self.out.push_str(" := ");
                self.expr(value, Prec::TEST);
            }
        }
    }

    fn binary(&mut self, left: &ExprRef<'_>, symbol: &str, right: &ExprRef<'_>, lmin: Prec, rmin: Prec) {
        self.expr(left, lmin);
        self.out.push(' ');
        self.out.push_str(symbol);
        self.out.push(' ');
        self.expr(right, rmin);
    }

    fn unary(&mut self, op: UnaryOp, operand: &ExprRef<'_>) {
        match op {
            UnaryOp::Not => {
                self.out.push_str("not ");
                self.expr(operand, Prec::NOT);
            }
            _ => {
                self.out.push_str(op.symbol());
                // `-x ** 2` is `-(x ** 2)`: say so.
                let pow = matches!(operand.kind(), ExprKind::BinOp { op: BinOp::Pow, .. });
                self.expr(operand, if pow { Prec::ATOM } else { Prec::FACTOR });
            }
        }
    }

    fn call(&mut self, func: &ExprRef<'_>, args: &Exprs<'_>) {
        self.expr(func, Prec::PRIMARY);
        self.out.push('(');
        match args.as_array() {
            // `f(x for x in y)`: the call's parentheses are the genexp's.
            Some([g]) if matches!(g.kind(), ExprKind::GeneratorExp { .. }) => self.genexp_body(&g),
            _ => self.items(args, Prec::NAMED),
        }
        self.out.push(')');
    }

    /// `elt for target in iter` (the caller adds the parentheses).
    fn genexp_body(&mut self, e: &ExprRef<'_>) {
        if let ExprKind::GeneratorExp { elt, target, iter } = &e.kind() {
            self.expr(elt, Prec::NAMED);
            self.out.push_str(" for ");
            self.name(target);
            self.out.push_str(" in ");
            self.expr(iter, Prec::OR);
        }
    }
}
