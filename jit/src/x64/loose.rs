//! Which narrow integer values (`i8 u8 i32 u32`) may be kept in a register
//! with their upper bits unspecified (*loose*), so that their definitions
//! skip the sign or zero extension to canonical form.
//!
//! The low `8 × size` bits of a wrapping `+ - * & | ^`, of `-x` and of `~x`
//! depend only on the low bits of the operands, so those operations accept
//! loose operands. A value is loose when every read of it is such an
//! operand, a copy into a loose value, or a `return` in registers (the JIT's
//! calling convention: a narrow integer result in `rax`/`rdx` has
//! unspecified upper bits; the caller extends it unless the result is loose
//! itself, and the entry thunk always does). Every other read (comparison,
//! conversion, shift, division, memory access, call or helper argument,
//! result through the context) needs the canonical word, so its value is not
//! loose and every definition of it extends as before.
//!
//! A loose value is *dirty* when one of its definitions may actually leave
//! upper bits set (anything but a constant, a load-free copy of a clean
//! value or the parameter itself); code that relies on a canonical operand
//! (the `lea` that skips the extension when a bound proves the sum stays in
//! range) checks [`Loose::dirty`].

use super::abi;
use crate::ir::visit::{each_def, each_use, walk};
use crate::ir::{BinOp, Function, Op, Stmt, Ty, UnOp, VReg};

/// The result of the analysis for one function, per virtual register.
pub struct Loose {
    loose: Vec<bool>,
    dirty: Vec<bool>,
}

fn narrow(t: Ty) -> bool {
    matches!(t, Ty::I8 | Ty::U8 | Ty::I32 | Ty::U32)
}

impl Loose {
    pub fn analyse(f: &Function) -> Loose {
        let n = f.vregs.len();
        let mut loose: Vec<bool> = (0..n).map(|i| narrow(f.vregs[i].ty)).collect();
        // `a -> t` for every `t = Copy(a)`: a stays loose only if t does.
        let mut copies: Vec<(VReg, VReg)> = vec![];
        let strict = |v: VReg, loose: &mut Vec<bool>| loose[v.index()] = false;
        walk(&f.body, &mut |s| match s {
            Stmt::Assign { dst, op } => match *op {
                Op::Binary(
                    BinOp::Add | BinOp::Sub | BinOp::Mul | BinOp::And | BinOp::Or | BinOp::Xor,
                    ..,
                )
                | Op::Unary(UnOp::Neg | UnOp::Not, _)
                    if narrow(f.ty(*dst)) => {}
                Op::Copy(a) => copies.push((a, *dst)),
                _ => each_use(s, |v| strict(v, &mut loose)),
            },
            Stmt::Return(vals) => {
                let tys: Vec<Ty> = vals.iter().map(|&v| f.ty(v)).collect();
                if abi::result_regs(&tys).is_none() {
                    vals.iter().for_each(|&v| strict(v, &mut loose));
                }
            }
            _ => each_use(s, |v| strict(v, &mut loose)),
        });
        // Greatest fixpoint over the copies.
        let mut changed = true;
        while changed {
            changed = false;
            for &(a, t) in &copies {
                if loose[a.index()] && !loose[t.index()] {
                    loose[a.index()] = false;
                    changed = true;
                }
            }
        }
        // Least fixpoint: a loose value is dirty if a definition other than a
        // constant or a copy of a clean value writes it.
        let mut dirty = vec![false; n];
        let mut copy_defs: Vec<(VReg, VReg)> = vec![];
        walk(&f.body, &mut |s| match s {
            Stmt::Assign { op: Op::Const(_), .. } => {}
            Stmt::Assign { dst, op: Op::Copy(a) } => copy_defs.push((*a, *dst)),
            _ => each_def(s, |v| {
                if loose[v.index()] {
                    dirty[v.index()] = true;
                }
            }),
        });
        let mut changed = true;
        while changed {
            changed = false;
            for &(a, t) in &copy_defs {
                if dirty[a.index()] && !dirty[t.index()] {
                    dirty[t.index()] = true;
                    changed = true;
                }
            }
        }
        Loose { loose, dirty }
    }

    /// `v`'s definitions may leave its upper bits unspecified.
    pub fn loose(&self, v: VReg) -> bool {
        self.loose[v.index()]
    }

    /// `v` may hold a word that is not canonical.
    pub fn dirty(&self, v: VReg) -> bool {
        self.dirty[v.index()]
    }
}
