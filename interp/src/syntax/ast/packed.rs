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

use std::num::NonZeroU32;

use super::{
    BinOp, BoolOp, CmpOp, ExprId, ExprList, ExprNode, IdentId, Lit64, NameId, NameSym, Span, UnaryOp,
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
}
