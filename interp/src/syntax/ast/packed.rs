//! Expression nodes as a module stores them: 8 bytes each, not the 12 of
//! an [`ExprNode`] (issue 14 item 5: an expression is the most common node,
//! about one per five bytes of source). A stored node is a tag, three small
//! bytes and one 4-byte word: one child or list start in the word, and
//! what else the node has in the small bytes: an operator, a name's entry
//! in the name table, a list's length, or the distance back to a second
//! child (the parser makes a node after its children, so the right operand
//! of a binary operation is usually the node just before it). A node that
//! does not fit (a literal wider than 32 bits, a second child far away or
//! after it, a name table of 2^24 names) is kept whole in the module's far
//! table and stored as its index there.
//!
//! Statement nodes likewise: 12 bytes, not 16 (a tag, three small bytes
//! and two words), the rare one that does not fit in the far table of
//! statements.

use std::num::NonZeroU32;

use super::{
    BinOp, Block, BoolOp, CmpOp, ExprId, ExprList, ExprNode, IdentId, ImportNameList, Lit64, NameId, NameSym,
    Span, StmtNode, UnaryOp, VarKind,
};

/// An expression node as stored ([`PackedExpr::pack`], [`PackedExpr::unpack`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct PackedExpr {
    tag: u8,
    small: [u8; 3],
    word: u32,
}

// The tags: one per kind of node, and the far and narrowed literal forms.
const FAR: u8 = 0;
const INT: u8 = 1;
/// An integer whose high half is all ones (a negative i32 as redshift
/// folds it).
const INT_NEG: u8 = 2;
/// A float whose low half of bits is zero (`0.5`, `2.0`, `1e3`...): the
/// word is the high half.
const FLOAT_HIGH: u8 = 3;
const STR: u8 = 4;
const BYTES: u8 = 5;
const BOOL: u8 = 6;
const NONE: u8 = 7;
const NAME: u8 = 8;
const NAME_IN: u8 = 9;
const ATTRIBUTE: u8 = 10;
const CALL: u8 = 11;
const SUBSCRIPT: u8 = 12;
const SLICE: u8 = 13;
const UNARY: u8 = 14;
const BINARY: u8 = 15;
const COMPARE: u8 = 16;
const BOOLEAN: u8 = 17;
const IF_EXP: u8 = 18;
const TUPLE: u8 = 19;
const LIST: u8 = 20;
const DICT: u8 = 21;
const GENERATOR: u8 = 22;
const STARRED: u8 = 23;
const WALRUS: u8 = 24;

const UNARY_OPS: [UnaryOp; 4] = [UnaryOp::Neg, UnaryOp::Pos, UnaryOp::Invert, UnaryOp::Not];
const BOOL_OPS: [BoolOp; 2] = [BoolOp::And, BoolOp::Or];

impl PackedExpr {
    /// `node` stored at index `at` of its module's expressions, or `None`
    /// when it does not fit in 8 bytes (it goes to the far table).
    pub(super) fn pack(node: ExprNode, at: usize) -> Option<PackedExpr> {
        let word = |tag, word| {
            Some(PackedExpr {
                tag,
                small: [0; 3],
                word,
            })
        };
        let with = |tag, small, word| Some(PackedExpr { tag, small, word });
        match node {
            ExprNode::Int(v) => match v.u64() >> 32 {
                0 => word(INT, v.u64() as u32),
                0xffff_ffff => word(INT_NEG, v.u64() as u32),
                _ => None,
            },
            ExprNode::Float(v) if v.u64() as u32 == 0 => word(FLOAT_HIGH, (v.u64() >> 32) as u32),
            ExprNode::Float(_) => None,
            ExprNode::Str(s) => word(STR, s.0.get()),
            ExprNode::Bytes(b) => word(BYTES, b.0.get()),
            ExprNode::Bool(b) => with(BOOL, [u8::from(b), 0, 0], 0),
            ExprNode::None => word(NONE, 0),
            ExprNode::Name { sym, id } => with(NAME, u24(sym.0.get())?, id.0),
            ExprNode::NameIn(ident) => word(NAME_IN, ident.0.get()),
            ExprNode::Attribute { value, attr } => with(ATTRIBUTE, u24(back(at, value)?)?, attr.0.get()),
            ExprNode::Call(list) => list_node(CALL, list),
            ExprNode::Subscript(list) => list_node(SUBSCRIPT, list),
            ExprNode::Tuple(list) => list_node(TUPLE, list),
            ExprNode::List(list) => list_node(LIST, list),
            ExprNode::Dict(list) => list_node(DICT, list),
            ExprNode::Slice(s) => word(SLICE, s.0.get()),
            ExprNode::IfExp(i) => word(IF_EXP, i.0.get()),
            ExprNode::GeneratorExp(g) => word(GENERATOR, g.0.get()),
            ExprNode::UnaryOp { op, operand } => with(UNARY, [op as u8, 0, 0], operand.0.get()),
            ExprNode::BinOp { left, op, right } => pair(BINARY, op as u8, left, right, at),
            ExprNode::Compare { left, op, right } => pair(COMPARE, op as u8, left, right, at),
            ExprNode::BoolOp { op, left, right } => pair(BOOLEAN, op as u8, left, right, at),
            ExprNode::Starred(e) => word(STARRED, e.0.get()),
            ExprNode::Walrus { target, value } => with(WALRUS, u24(back(at, value)?)?, target.0.get()),
        }
    }

    /// A node kept in the far table at `index`.
    pub(super) fn far(index: usize) -> PackedExpr {
        let word = u32::try_from(index).expect("fewer than 2^32 far expressions in a module");
        PackedExpr {
            tag: FAR,
            small: [0; 3],
            word,
        }
    }

    /// The node stored at index `at`, its far table `far`.
    #[inline(always)]
    pub(super) fn unpack(self, at: usize, far: &[ExprNode]) -> ExprNode {
        let w = self.word;
        let [s0, s1, s2] = self.small;
        let near = |back: u32| ExprId::at(at - back as usize);
        let list = || {
            ExprList(Span {
                start: w,
                len: from_u24(self.small),
            })
        };
        match self.tag {
            FAR => far[w as usize],
            INT => ExprNode::Int(Lit64::from_u64(u64::from(w))),
            INT_NEG => ExprNode::Int(Lit64::from_u64(0xffff_ffff_0000_0000 | u64::from(w))),
            FLOAT_HIGH => ExprNode::Float(Lit64::from_u64(u64::from(w) << 32)),
            STR => ExprNode::Str(super::StrId(nonzero(w))),
            BYTES => ExprNode::Bytes(super::BytesId(nonzero(w))),
            BOOL => ExprNode::Bool(s0 != 0),
            NONE => ExprNode::None,
            NAME => ExprNode::Name {
                sym: NameSym(nonzero(from_u24(self.small))),
                id: NameId(w),
            },
            NAME_IN => ExprNode::NameIn(IdentId(nonzero(w))),
            ATTRIBUTE => ExprNode::Attribute {
                value: near(from_u24(self.small)),
                attr: IdentId(nonzero(w)),
            },
            CALL => ExprNode::Call(list()),
            SUBSCRIPT => ExprNode::Subscript(list()),
            TUPLE => ExprNode::Tuple(list()),
            LIST => ExprNode::List(list()),
            DICT => ExprNode::Dict(list()),
            SLICE => ExprNode::Slice(super::SliceId(nonzero(w))),
            IF_EXP => ExprNode::IfExp(super::IfExpId(nonzero(w))),
            GENERATOR => ExprNode::GeneratorExp(super::GeneratorExpId(nonzero(w))),
            UNARY => ExprNode::UnaryOp {
                op: UNARY_OPS[s0 as usize],
                operand: ExprId(nonzero(w)),
            },
            BINARY => ExprNode::BinOp {
                left: ExprId(nonzero(w)),
                op: BinOp::ALL[s0 as usize],
                right: near(u32::from(u16::from_le_bytes([s1, s2]))),
            },
            COMPARE => ExprNode::Compare {
                left: ExprId(nonzero(w)),
                op: CmpOp::ALL[s0 as usize],
                right: near(u32::from(u16::from_le_bytes([s1, s2]))),
            },
            BOOLEAN => ExprNode::BoolOp {
                op: BOOL_OPS[s0 as usize],
                left: ExprId(nonzero(w)),
                right: near(u32::from(u16::from_le_bytes([s1, s2]))),
            },
            STARRED => ExprNode::Starred(ExprId(nonzero(w))),
            WALRUS => ExprNode::Walrus {
                target: IdentId(nonzero(w)),
                value: near(from_u24(self.small)),
            },
            other => unreachable!("expression tag {other} is never stored"),
        }
    }
}

/// A statement node as stored ([`PackedStmt::pack`], [`PackedStmt::unpack`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct PackedStmt {
    tag: u8,
    small: [u8; 3],
    a: u32,
    b: u32,
}

// The statement tags (`FAR`, 0, as for expressions).
const FUNC_DEF: u8 = 1;
const CLASS_DEF: u8 = 2;
const IMPORT: u8 = 3;
const IMPORT_FROM: u8 = 4;
const ASSIGN: u8 = 5;
const AUG_ASSIGN: u8 = 6;
const VAR_DEF: u8 = 7;
const IF: u8 = 8;
const WHILE: u8 = 9;
const FOR: u8 = 10;
const BREAK: u8 = 11;
const CONTINUE: u8 = 12;
const PASS: u8 = 13;
const RETURN: u8 = 14;
const RAISE: u8 = 15;
const ASSERT: u8 = 16;
const EXPR: u8 = 17;
const COMMENT: u8 = 18;

// A `VarDef`'s flags, in its first small byte with its kind (0: none,
// 1: `var`, 2: `const`).
const HAS_ANNOTATION: u8 = 1 << 2;
const HAS_VALUE: u8 = 1 << 3;

impl PackedStmt {
    /// `node` as stored, or `None` when it does not fit in 12 bytes (it
    /// goes to the far table).
    pub(super) fn pack(node: StmtNode) -> Option<PackedStmt> {
        let with = |tag, small, a, b| Some(PackedStmt { tag, small, a, b });
        let one = |tag, a| with(tag, [0; 3], a, 0);
        let two = |tag, a, b| with(tag, [0; 3], a, b);
        let raw = |e: Option<ExprId>| e.map_or(0, |e| e.0.get());
        match node {
            StmtNode::FuncDef(f) => one(FUNC_DEF, f.0.get()),
            StmtNode::ClassDef(c) => one(CLASS_DEF, c.0.get()),
            StmtNode::Import { module, alias } => two(IMPORT, module.0.get(), alias.map_or(0, |a| a.0.get())),
            StmtNode::ImportFrom { module, names } => {
                with(IMPORT_FROM, u24(names.0.len)?, module.0.get(), names.0.start)
            }
            StmtNode::Assign { target, value } => two(ASSIGN, target.0.get(), value.0.get()),
            StmtNode::AugAssign { target, op, value } => {
                with(AUG_ASSIGN, [op as u8, 0, 0], target.0.get(), value.0.get())
            }
            StmtNode::VarDef {
                kind,
                name,
                annotation,
                value,
            } => {
                let kind = match kind {
                    None => 0,
                    Some(VarKind::Var) => 1,
                    Some(VarKind::Const) => 2,
                };
                match (annotation, value) {
                    (Some(t), Some(v)) => {
                        // (the value is read after its annotation)
                        let d = u16::try_from(v.index().checked_sub(t.index())?).ok()?;
                        let [d0, d1] = d.to_le_bytes();
                        let flags = kind | HAS_ANNOTATION | HAS_VALUE;
                        with(VAR_DEF, [flags, d0, d1], name.0.get(), t.0.get())
                    }
                    (Some(t), None) => with(VAR_DEF, [kind | HAS_ANNOTATION, 0, 0], name.0.get(), t.0.get()),
                    (None, Some(v)) => with(VAR_DEF, [kind | HAS_VALUE, 0, 0], name.0.get(), v.0.get()),
                    (None, None) => with(VAR_DEF, [kind, 0, 0], name.0.get(), 0),
                }
            }
            StmtNode::If { test, body, orelse } => with(IF, u24(orelse.0)?, test.0.get(), body.0),
            StmtNode::While { test, body } => two(WHILE, test.0.get(), body.0),
            StmtNode::For { target, iter, body } => with(FOR, u24(target.0.get())?, iter.0.get(), body.0),
            StmtNode::Break => one(BREAK, 0),
            StmtNode::Continue => one(CONTINUE, 0),
            StmtNode::Pass => one(PASS, 0),
            StmtNode::Return(e) => one(RETURN, raw(e)),
            StmtNode::Raise(e) => one(RAISE, e.0.get()),
            StmtNode::Assert { test, msg } => two(ASSERT, test.0.get(), raw(msg)),
            StmtNode::Expr(e) => one(EXPR, e.0.get()),
            StmtNode::Comment(c) => one(COMMENT, c.0.get()),
        }
    }

    /// A node kept in the far table of statements at `index`.
    pub(super) fn far(index: usize) -> PackedStmt {
        let a = u32::try_from(index).expect("fewer than 2^32 far statements in a module");
        PackedStmt {
            tag: FAR,
            small: [0; 3],
            a,
            b: 0,
        }
    }

    /// The node stored, its far table `far`.
    #[inline(always)]
    pub(super) fn unpack(self, far: &[StmtNode]) -> StmtNode {
        let (a, b) = (self.a, self.b);
        let expr = |w: u32| ExprId(nonzero(w));
        let maybe = |w: u32| NonZeroU32::new(w).map(ExprId);
        match self.tag {
            FAR => far[a as usize],
            FUNC_DEF => StmtNode::FuncDef(super::FuncId(nonzero(a))),
            CLASS_DEF => StmtNode::ClassDef(super::ClassId(nonzero(a))),
            IMPORT => StmtNode::Import {
                module: IdentId(nonzero(a)),
                alias: NonZeroU32::new(b).map(IdentId),
            },
            IMPORT_FROM => StmtNode::ImportFrom {
                module: IdentId(nonzero(a)),
                names: ImportNameList(Span {
                    start: b,
                    len: from_u24(self.small),
                }),
            },
            ASSIGN => StmtNode::Assign {
                target: expr(a),
                value: expr(b),
            },
            AUG_ASSIGN => StmtNode::AugAssign {
                target: IdentId(nonzero(a)),
                op: BinOp::ALL[self.small[0] as usize],
                value: expr(b),
            },
            VAR_DEF => {
                let [flags, d0, d1] = self.small;
                let kind = match flags & 3 {
                    1 => Some(VarKind::Var),
                    2 => Some(VarKind::Const),
                    _ => None,
                };
                let (annotation, value) = match (flags & HAS_ANNOTATION != 0, flags & HAS_VALUE != 0) {
                    (true, true) => {
                        let d = usize::from(u16::from_le_bytes([d0, d1]));
                        (Some(expr(b)), Some(ExprId::at(expr(b).index() + d)))
                    }
                    (true, false) => (Some(expr(b)), None),
                    (false, true) => (None, Some(expr(b))),
                    (false, false) => (None, None),
                };
                StmtNode::VarDef {
                    kind,
                    name: IdentId(nonzero(a)),
                    annotation,
                    value,
                }
            }
            IF => StmtNode::If {
                test: expr(a),
                body: Block(b),
                orelse: Block(from_u24(self.small)),
            },
            WHILE => StmtNode::While {
                test: expr(a),
                body: Block(b),
            },
            FOR => StmtNode::For {
                target: IdentId(nonzero(from_u24(self.small))),
                iter: expr(a),
                body: Block(b),
            },
            BREAK => StmtNode::Break,
            CONTINUE => StmtNode::Continue,
            PASS => StmtNode::Pass,
            RETURN => StmtNode::Return(maybe(a)),
            RAISE => StmtNode::Raise(expr(a)),
            ASSERT => StmtNode::Assert {
                test: expr(a),
                msg: maybe(b),
            },
            EXPR => StmtNode::Expr(expr(a)),
            COMMENT => StmtNode::Comment(super::StrId(nonzero(a))),
            other => unreachable!("statement tag {other} is never stored"),
        }
    }
}

/// How far back from `at` the child `e` is (`None` when it is not before
/// `at`).
fn back(at: usize, e: ExprId) -> Option<u32> {
    at.checked_sub(e.index())
        .filter(|&d| d > 0)
        .and_then(|d| u32::try_from(d).ok())
}

/// A binary node: its left child in the word, its operator and its right
/// child's distance back in the small bytes.
fn pair(tag: u8, op: u8, left: ExprId, right: ExprId, at: usize) -> Option<PackedExpr> {
    let d = u16::try_from(back(at, right)?).ok()?;
    let [d0, d1] = d.to_le_bytes();
    Some(PackedExpr {
        tag,
        small: [op, d0, d1],
        word: left.0.get(),
    })
}

/// A node of a list of expressions: its start in the word, its length in
/// the small bytes.
fn list_node(tag: u8, list: ExprList) -> Option<PackedExpr> {
    Some(PackedExpr {
        tag,
        small: u24(list.0.len)?,
        word: list.0.start,
    })
}

fn u24(v: u32) -> Option<[u8; 3]> {
    let [a, b, c, d] = v.to_le_bytes();
    (d == 0).then_some([a, b, c])
}

fn from_u24([a, b, c]: [u8; 3]) -> u32 {
    u32::from_le_bytes([a, b, c, 0])
}

/// An id's stored form back (ids are never zero: `NonZeroU32`).
fn nonzero(w: u32) -> NonZeroU32 {
    NonZeroU32::new(w).expect("a stored id is not zero")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::syntax::ast::Module;

    /// Every kind of node reads back as it was stored, packed or far
    /// (wide literals, children far away or after the node, long lists).
    #[test]
    fn every_node_reads_back_as_stored() {
        let mut m = Module::new();
        let r = crate::source::TextRange::new(0, 1);
        let a = m.add_expr(ExprNode::None, r);
        let sym = m.intern("x");
        let ident = m.add_ident(crate::syntax::ast::Identifier {
            name: m.name(sym).clone(),
            range: r,
            id: NameId(7),
        });
        let s = m.add_str("text");
        let items = m.add_exprs([a, a]);
        let mut nodes = vec![
            ExprNode::Int(Lit64::from_u64(0)),
            ExprNode::Int(Lit64::from_u64(u64::from(u32::MAX))),
            ExprNode::Int(Lit64::from_u64(1 << 32)),
            ExprNode::Int(Lit64::from_u64(-5i64 as u64)),
            ExprNode::Int(Lit64::from_u64(u64::MAX)),
            ExprNode::Float(Lit64::from_f64(0.5)),
            ExprNode::Float(Lit64::from_f64(0.1)),
            ExprNode::Str(s),
            ExprNode::Bool(true),
            ExprNode::Bool(false),
            ExprNode::Name {
                sym,
                id: NameId(u32::MAX),
            },
            ExprNode::NameIn(ident),
            ExprNode::Attribute {
                value: a,
                attr: ident,
            },
            ExprNode::Call(items),
            ExprNode::Dict(items),
            ExprNode::Tuple(ExprList::default()),
            ExprNode::Starred(a),
            ExprNode::Walrus {
                target: ident,
                value: a,
            },
        ];
        for op in UNARY_OPS {
            nodes.push(ExprNode::UnaryOp { op, operand: a });
        }
        for op in BinOp::ALL {
            nodes.push(ExprNode::BinOp {
                left: a,
                op,
                right: a,
            });
        }
        for op in CmpOp::ALL {
            nodes.push(ExprNode::Compare {
                left: a,
                op,
                right: a,
            });
        }
        for op in BOOL_OPS {
            nodes.push(ExprNode::BoolOp {
                op,
                left: a,
                right: a,
            });
        }
        for node in nodes {
            let e = m.add_expr(node, r);
            assert_eq!(m.expr_node(e).node, node);
        }
        // A right operand after the node, or 2^16 nodes back; an
        // attribute's value 2^24 nodes back: far.
        let later = ExprId::at(m.exprs_len() + 5);
        let at = m.exprs_len();
        for node in [
            ExprNode::BinOp {
                left: a,
                op: BinOp::Add,
                right: later,
            },
            ExprNode::Compare {
                left: a,
                op: CmpOp::Lt,
                right: ExprId::at(at),
            },
        ] {
            assert_eq!(PackedExpr::pack(node, at), None);
        }
        let far_back = ExprNode::BinOp {
            left: a,
            op: BinOp::Sub,
            right: ExprId::at(0),
        };
        assert!(PackedExpr::pack(far_back, 65_535).is_some());
        assert_eq!(PackedExpr::pack(far_back, 65_536), None);
        let attribute = ExprNode::Attribute {
            value: ExprId::at(0),
            attr: ident,
        };
        assert!(PackedExpr::pack(attribute, (1 << 24) - 1).is_some());
        assert_eq!(PackedExpr::pack(attribute, 1 << 24), None);
        for node in [
            ExprNode::BinOp {
                left: a,
                op: BinOp::Add,
                right: later,
            },
            ExprNode::Int(Lit64::from_u64(1 << 40)),
        ] {
            let e = m.add_expr(node, r);
            assert_eq!(m.expr_node(e).node, node);
        }
    }

    /// Every kind of statement reads back as it was stored, packed or far
    /// (a `var` value before its annotation or 2^16 nodes after it, an
    /// `else` block or loop target past 2^24).
    #[test]
    fn every_statement_reads_back_as_stored() {
        let mut m = Module::new();
        let r = crate::source::TextRange::new(0, 1);
        let e = m.add_expr(ExprNode::None, r);
        let e2 = m.add_expr(ExprNode::None, r);
        let sym = m.intern("x");
        let ident = m.add_ident(crate::syntax::ast::Identifier {
            name: m.name(sym).clone(),
            range: r,
            id: NameId(1),
        });
        let pass = m.add_stmt(StmtNode::Pass, r);
        let body = m.add_block([pass]);
        let names = m.add_import_names([]);
        let c = m.add_str("# note");
        let mut nodes = vec![
            StmtNode::Import {
                module: ident,
                alias: None,
            },
            StmtNode::Import {
                module: ident,
                alias: Some(ident),
            },
            StmtNode::ImportFrom { module: ident, names },
            StmtNode::Assign { target: e, value: e2 },
            StmtNode::If {
                test: e,
                body,
                orelse: Block::EMPTY,
            },
            StmtNode::If {
                test: e,
                body,
                orelse: body,
            },
            StmtNode::While { test: e, body },
            StmtNode::For {
                target: ident,
                iter: e,
                body,
            },
            StmtNode::Break,
            StmtNode::Continue,
            StmtNode::Pass,
            StmtNode::Return(None),
            StmtNode::Return(Some(e)),
            StmtNode::Raise(e),
            StmtNode::Assert { test: e, msg: None },
            StmtNode::Assert {
                test: e,
                msg: Some(e2),
            },
            StmtNode::Expr(e2),
            StmtNode::Comment(c),
        ];
        for op in BinOp::ALL {
            nodes.push(StmtNode::AugAssign {
                target: ident,
                op,
                value: e,
            });
        }
        for kind in [None, Some(VarKind::Var), Some(VarKind::Const)] {
            for (annotation, value) in [
                (None, None),
                (Some(e), None),
                (None, Some(e2)),
                (Some(e), Some(e2)),
            ] {
                nodes.push(StmtNode::VarDef {
                    kind,
                    name: ident,
                    annotation,
                    value,
                });
            }
        }
        for node in nodes {
            assert!(PackedStmt::pack(node).is_some(), "{node:?} packs");
            let s = m.add_stmt(node, r);
            assert_eq!(m.stmt_node(s).node, node);
        }
        let far = [
            StmtNode::VarDef {
                kind: None,
                name: ident,
                annotation: Some(e2),
                value: Some(e),
            },
            StmtNode::VarDef {
                kind: None,
                name: ident,
                annotation: Some(e),
                value: Some(ExprId::at(e.index() + 65_536)),
            },
            StmtNode::If {
                test: e,
                body,
                orelse: Block(1 << 24),
            },
            StmtNode::For {
                target: IdentId::at(1 << 24),
                iter: e,
                body,
            },
        ];
        for node in far {
            assert_eq!(PackedStmt::pack(node), None, "{node:?} is far");
            let s = m.add_stmt(node, r);
            assert_eq!(m.stmt_node(s).node, node);
        }
        let near = StmtNode::VarDef {
            kind: None,
            name: ident,
            annotation: Some(e),
            value: Some(ExprId::at(e.index() + 65_535)),
        };
        assert!(PackedStmt::pack(near).is_some());
    }
}
