//! Values in their locations: where a value is read from (its allocated
//! home, `rax` for a value returned next, the source of an elided copy),
//! moving bits and floats between registers, spill slots, immediates and
//! the constant pool, canonical narrow integers (and when a result is one
//! without an extension), and the choice of the register an operation
//! computes in.

use super::FnGen;
use crate::ir::{Class, Ty, VReg};
use crate::x64::abi::{SCRATCH_XMM0 as X14, SCRATCH_XMM1 as X15};
use crate::x64::emit::{Alu, Gpr, Inst, LoadKind, Mem, Sse, StoreKind, Target, Xmm};
use crate::x64::emit::{RAX, RSP};
use crate::x64::regalloc::Loc;
use dynasmrt::DynamicLabel;

impl<'a, A: Target> FnGen<'a, A> {
    /// The pool label of a constant word.
    pub(super) fn constant(&mut self, w: u64) -> DynamicLabel {
        if let Some(&(_, l)) = self.pool.iter().find(|(c, _)| *c == w) {
            return l;
        }
        let l = self.label();
        self.pool.push((w, l));
        l
    }

    /// `op x, v` for a float `v`: a pool operand for a constant.
    pub(super) fn sse_op(&mut self, op: Sse, x: Xmm, v: VReg) {
        match self.loc(v) {
            Loc::Imm(w) => {
                let l = self.constant(w);
                self.e(Inst::SseRip(op, x, l));
            }
            _ => {
                let r = self.float_in(v, X15);
                self.e(Inst::Sse(op, x, r));
            }
        }
    }

    /// Spill slot `k`.
    pub(super) fn slot(&self, k: u32) -> Mem {
        Mem::base(RSP, 8 * (self.out_words + k) as i32)
    }

    #[inline]
    pub(super) fn loc(&self, v: VReg) -> Loc {
        if self.in_rax == Some(v) || self.rax_val == Some(v) {
            return Loc::Gpr(RAX);
        }
        if let Some((t, a)) = self.copy_of {
            if t == v {
                return self.alloc.loc(a);
            }
        }
        self.alloc.loc(v)
    }

    /// Whether `d`, returned alone by `return vals` right after its
    /// definition, can be computed in `rax` (the result register).
    pub(super) fn rax_eligible(&self, d: VReg, vals: &[VReg]) -> bool {
        vals == [d]
            && self.uses[d.index()] == 1
            && self.f.ty(d).class() == Class::Int
            && self.f.vregs[d.index()].kind == crate::ir::VRegKind::Temp
    }

    /// Whether the 64-bit result of `d = op(operands)` (wrapping
    /// arithmetic) is canonical without an extension: no definition of `d`
    /// wraps (`x64::range`) and the operands are canonical.
    pub(super) fn exact(&self, d: VReg, operands: &[VReg]) -> bool {
        self.ranges.exact(d) && operands.iter().all(|&v| !self.loose.dirty(v))
    }

    /// The value's bits into GPR `r` (any class).
    pub(super) fn load_bits(&mut self, l: Loc, r: Gpr) {
        match l {
            Loc::Gpr(s) if s == r => {}
            Loc::Gpr(s) => self.e(Inst::MovRR(r, s)),
            Loc::Xmm(x) => self.e(Inst::MovqRX(r, x)),
            Loc::Slot(k) => self.e(Inst::Load(LoadKind::Q, r, self.slot(k))),
            Loc::Imm(w) => self.mov_imm(r, w),
        }
    }

    /// Write GPR `r`'s bits to the home `l` (any class).
    pub(super) fn store_bits(&mut self, l: Loc, r: Gpr) {
        match l {
            Loc::Gpr(d) if d == r => {}
            Loc::Gpr(d) => self.e(Inst::MovRR(d, r)),
            Loc::Xmm(x) => self.e(Inst::MovqXR(x, r)),
            Loc::Slot(k) => self.e(Inst::Store(StoreKind::Q, self.slot(k), r)),
            Loc::Imm(_) => unreachable!("an immediate is never written"),
        }
    }

    /// A GPR holding the integer value: its home if a register, else `scratch`.
    pub(super) fn int_in(&mut self, v: VReg, scratch: Gpr) -> Gpr {
        match self.loc(v) {
            Loc::Gpr(r) => r,
            l => {
                self.load_bits(l, scratch);
                scratch
            }
        }
    }

    pub(super) fn int_into(&mut self, v: VReg, r: Gpr) {
        let l = self.loc(v);
        self.load_bits(l, r);
    }

    /// An SSE register holding the float value: its home, or `scratch`.
    pub(super) fn float_in(&mut self, v: VReg, scratch: Xmm) -> Xmm {
        match self.loc(v) {
            Loc::Xmm(x) => x,
            l => {
                self.float_into_loc(l, scratch);
                scratch
            }
        }
    }

    pub(super) fn float_into_loc(&mut self, l: Loc, x: Xmm) {
        match l {
            Loc::Xmm(s) if s == x => {}
            Loc::Xmm(s) => self.e(Inst::Movaps(x, s)),
            Loc::Slot(k) => self.e(Inst::MovsdLoad(x, self.slot(k))),
            Loc::Gpr(r) => self.e(Inst::MovqXR(x, r)),
            Loc::Imm(0) => self.e(Inst::Sse(Sse::Xorpd, x, x)),
            Loc::Imm(w) => {
                let l = self.constant(w);
                self.e(Inst::MovsdRip(x, l));
            }
        }
    }

    pub(super) fn float_into(&mut self, v: VReg, x: Xmm) {
        let l = self.loc(v);
        self.float_into_loc(l, x);
    }

    pub(super) fn store_float(&mut self, v: VReg, x: Xmm) {
        match self.loc(v) {
            Loc::Xmm(d) if d == x => {}
            Loc::Xmm(d) => self.e(Inst::Movaps(d, x)),
            Loc::Slot(k) => self.e(Inst::MovsdStore(self.slot(k), x)),
            Loc::Gpr(r) => self.e(Inst::MovqRX(r, x)),
            Loc::Imm(_) => unreachable!("an immediate is never written"),
        }
    }

    pub(super) fn store_int(&mut self, v: VReg, r: Gpr) {
        let l = self.loc(v);
        self.store_bits(l, r);
    }

    /// Put `r` in canonical form for `ty`.
    pub(super) fn canon(&mut self, ty: Ty, r: Gpr) {
        match ty {
            Ty::I8 if !self.mutate(crate::Mutation::I8NoSignExtend) => self.e(Inst::Movsx8(r, r)),
            Ty::U8 => self.e(Inst::Movzx8(r, r)),
            Ty::I32 => self.e(Inst::Movsxd(r, r)),
            Ty::U32 => self.e(Inst::MovRR32(r, r)),
            _ => {}
        }
    }

    pub(super) fn mov_imm(&mut self, r: Gpr, w: u64) {
        if w == 0 {
            self.e(Inst::Alu(Alu::Xor, r, r));
        } else if w <= u64::from(u32::MAX) {
            self.e(Inst::MovRI32(r, w as u32));
        } else {
            self.e(Inst::MovRI64(r, w));
        }
    }

    /// An immediate operand for a 64-bit ALU form (sign-extended imm32).
    pub(super) fn imm32(&self, v: VReg) -> Option<i32> {
        match self.loc(v) {
            Loc::Imm(w) => i32::try_from(w as i64).ok(),
            _ => None,
        }
    }

    /// The GPR an integer result is computed in: the destination's register
    /// unless an operand still to be read lives there.
    pub(super) fn work_gpr(&self, d: VReg, later: Option<VReg>) -> Gpr {
        match self.loc(d) {
            Loc::Gpr(r) if later.is_none_or(|y| self.loc(y) != Loc::Gpr(r)) => r,
            _ => RAX,
        }
    }

    pub(super) fn work_xmm(&self, d: VReg, later: Option<VReg>) -> Xmm {
        match self.loc(d) {
            Loc::Xmm(x) if later.is_none_or(|y| self.loc(y) != Loc::Xmm(x)) => x,
            _ => X14,
        }
    }

    /// Write the result computed in `w` from `operands` to `d`'s home
    /// (canonical unless `d` is loose or the result is [`Self::exact`]).
    pub(super) fn finish_int(&mut self, d: VReg, ty: Ty, w: Gpr, operands: &[VReg]) {
        if !self.loose.loose(d) && !self.exact(d, operands) {
            self.canon(ty, w);
        }
        self.store_int(d, w);
    }
}
