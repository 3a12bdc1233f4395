//! The operations with more than one instruction sequence: integer
//! division and remainder (zero-divisor stub, floor semantics), shifts
//! (negative-count stub), comparisons into flags or a `Bool`, and
//! conversions between the integer and float types.

use super::control::{swap_cc, Cond};
use super::stubs::{Opnd, StubKind};
use super::FnGen;
use crate::ir::{sem, CmpOp, ErrCode, ShiftOp, Ty, VReg};
use crate::x64::abi::{SCRATCH_XMM0 as X14, SCRATCH_XMM1 as X15};
use crate::x64::emit::{Alu, Cc, Gpr, Inst, Sh, Sse, Target, Xmm};
use crate::x64::emit::{R11, RAX, RCX, RDX};

impl<'a, A: Target> FnGen<'a, A> {
    pub(super) fn divmod(&mut self, d: VReg, ty: Ty, a: VReg, b: VReg, on_zero: ErrCode, div: bool) {
        self.int_into(b, RCX);
        self.e(Inst::Alu(Alu::Test, RCX, RCX));
        let z = self.stub(StubKind::Error {
            code: on_zero,
            operands: [Opnd::Of(self.loc(a)), Opnd::Of(self.loc(b))],
        });
        self.e(Inst::Jcc(Cc::E, z));
        self.int_into(a, RAX);
        let done = self.label();
        if ty.is_signed() {
            let l_div = self.label();
            if ty == Ty::I64 && !self.mutate(crate::Mutation::DivMinTraps) {
                // idiv traps on MIN / -1: x // -1 is -x (wrapping), x % -1 is 0.
                self.e(Inst::AluI(Alu::Cmp, RCX, -1));
                self.e(Inst::Jcc(Cc::Ne, l_div));
                if div {
                    self.e(Inst::Neg(RAX));
                } else {
                    self.e(Inst::Alu(Alu::Xor, RDX, RDX));
                }
                self.e(Inst::Jmp(done));
            }
            self.em.bind(l_div);
            self.e(Inst::Cqo);
            self.e(Inst::Idiv(RCX));
            // Python sign fix-up: a non-zero remainder whose sign differs from b's.
            if !self.mutate(crate::Mutation::FloorDivNoFixup) {
                self.e(Inst::Alu(Alu::Test, RDX, RDX));
                self.e(Inst::Jcc(Cc::E, done));
                self.e(Inst::MovRR(R11, RDX));
                self.e(Inst::Alu(Alu::Xor, R11, RCX));
                self.e(Inst::Jcc(Cc::Ns, done));
                if div {
                    self.e(Inst::AluI(Alu::Sub, RAX, 1));
                } else {
                    self.e(Inst::Alu(Alu::Add, RDX, RCX));
                }
            }
        } else {
            self.e(Inst::Alu(Alu::Xor, RDX, RDX));
            self.e(Inst::Div(RCX));
        }
        self.em.bind(done);
        let r = if div { RAX } else { RDX };
        self.canon(ty, r);
        self.store_int(d, r);
    }

    pub(super) fn shift(&mut self, d: VReg, ty: Ty, op: ShiftOp, a: VReg, b: VReg, on_negative: ErrCode) {
        self.int_into(b, RCX);
        if ty.is_signed() {
            self.e(Inst::Alu(Alu::Test, RCX, RCX));
            let neg = self.stub(StubKind::Error {
                code: on_negative,
                operands: [Opnd::Of(self.loc(a)), Opnd::Of(self.loc(b))],
            });
            self.e(Inst::Jcc(Cc::S, neg));
        }
        self.int_into(a, RAX);
        let (ok, done) = (self.label(), self.label());
        let width = if self.mutate(crate::Mutation::ShiftCountMasked) {
            i32::MAX
        } else {
            ty.bits() as i32
        };
        self.e(Inst::AluI(Alu::Cmp, RCX, width));
        self.e(Inst::Jcc(Cc::B, ok));
        // Count >= width: the policy of `sem::OVER_SHIFT`.
        let sem::OverShift::ZeroOrSignFill = sem::OVER_SHIFT;
        let arith = op == ShiftOp::Shr && ty.is_signed();
        if arith {
            self.e(Inst::MovRI32(RCX, 63));
        } else {
            self.e(Inst::Alu(Alu::Xor, RAX, RAX));
            self.e(Inst::Jmp(done));
        }
        self.em.bind(ok);
        let sh = match op {
            ShiftOp::Shl => Sh::Shl,
            ShiftOp::Shr if arith => Sh::Sar,
            ShiftOp::Shr => Sh::Shr,
        };
        self.e(Inst::ShiftCl(sh, RAX));
        self.em.bind(done);
        self.canon(ty, RAX);
        self.store_int(d, RAX);
    }

    /// Emit the comparison of `a` and `b`; the flags then hold the result.
    pub(super) fn compare(&mut self, c: CmpOp, a: VReg, b: VReg) -> Cond {
        let t = self.f.ty(a);
        if t.is_float() {
            let ucom = if t == Ty::F32 { Sse::Ucomiss } else { Sse::Ucomisd };
            // Unordered sets ZF=PF=CF=1: "above" forms are false on NaN.
            let parity = !self.mutate(crate::Mutation::NanIgnoresParity);
            let (l, r, cond) = match c {
                CmpOp::Eq if !parity => (a, b, Cond::Cc(Cc::E)),
                CmpOp::Ne if !parity => (a, b, Cond::Cc(Cc::Ne)),
                CmpOp::Eq => (a, b, Cond::FEq),
                CmpOp::Ne => (a, b, Cond::FNe),
                CmpOp::Lt => (b, a, Cond::Cc(Cc::A)),
                CmpOp::Le => (b, a, Cond::Cc(Cc::Ae)),
                CmpOp::Gt => (a, b, Cond::Cc(Cc::A)),
                CmpOp::Ge => (a, b, Cond::Cc(Cc::Ae)),
            };
            let xl = self.float_in(l, X14);
            self.sse_op(ucom, xl, r);
            return cond;
        }
        let s = t.is_signed() || self.mutate(crate::Mutation::UnsignedCmpSigned);
        let mut cc = match c {
            CmpOp::Eq => Cc::E,
            CmpOp::Ne => Cc::Ne,
            CmpOp::Lt if s => Cc::L,
            CmpOp::Le if s => Cc::Le,
            CmpOp::Gt if s => Cc::G,
            CmpOp::Ge if s => Cc::Ge,
            CmpOp::Lt => Cc::B,
            CmpOp::Le => Cc::Be,
            CmpOp::Gt => Cc::A,
            CmpOp::Ge => Cc::Ae,
        };
        let (mut a, mut b) = (a, b);
        if self.imm32(a).is_some() && self.imm32(b).is_none() {
            (a, b) = (b, a);
            cc = swap_cc(cc);
        }
        let ra = self.int_in(a, RAX);
        match self.imm32(b) {
            Some(0) if matches!(cc, Cc::E | Cc::Ne) => self.e(Inst::Alu(Alu::Test, ra, ra)),
            Some(i) => self.e(Inst::AluI(Alu::Cmp, ra, i)),
            None => {
                let rb = self.int_in(b, RCX);
                self.e(Inst::Alu(Alu::Cmp, ra, rb));
            }
        }
        Cond::Cc(cc)
    }

    pub(super) fn cmp(&mut self, d: VReg, c: CmpOp, a: VReg, b: VReg) {
        let w = self.work_gpr(d, None);
        match self.compare(c, a, b) {
            Cond::Cc(cc) => {
                self.e(Inst::Setcc(cc, w));
                self.e(Inst::Movzx8(w, w));
            }
            Cond::FEq => {
                self.e(Inst::Setcc(Cc::E, RAX));
                self.e(Inst::Setcc(Cc::Np, RCX));
                self.e(Inst::Alu(Alu::And, RAX, RCX));
                self.e(Inst::Movzx8(w, RAX));
            }
            Cond::FNe => {
                self.e(Inst::Setcc(Cc::Ne, RAX));
                self.e(Inst::Setcc(Cc::P, RCX));
                self.e(Inst::Alu(Alu::Or, RAX, RCX));
                self.e(Inst::Movzx8(w, RAX));
            }
        }
        self.store_int(d, w);
    }

    pub(super) fn convert(&mut self, d: VReg, from: Ty, to: Ty, a: VReg) {
        if crate::x64::regalloc::noop_convert(from, to) {
            let (dl, al) = (self.loc(d), self.loc(a));
            self.mov_loc(dl, al);
            return;
        }
        if !from.is_float() && !to.is_float() {
            let w = self.work_gpr(d, None);
            self.int_into(a, w);
            if to == Ty::Bool {
                self.e(Inst::Alu(Alu::Test, w, w));
                self.e(Inst::Setcc(Cc::Ne, w));
                self.e(Inst::Movzx8(w, w));
            } else {
                self.canon(to, w);
            }
            self.store_int(d, w);
            return;
        }
        if !from.is_float() {
            self.int_into(a, RAX);
            let f32 = to == Ty::F32;
            let cvt = |x: Xmm, r: Gpr| {
                if f32 {
                    Inst::Cvtsi2ss(x, r)
                } else {
                    Inst::Cvtsi2sd(x, r)
                }
            };
            if from == Ty::U64 {
                // >= 2^63: halve with round-to-odd, convert, double (exact rounding).
                let (big, done) = (self.label(), self.label());
                self.e(Inst::Alu(Alu::Test, RAX, RAX));
                self.e(Inst::Jcc(Cc::S, big));
                self.e(cvt(X14, RAX));
                self.e(Inst::Jmp(done));
                self.em.bind(big);
                self.e(Inst::MovRR(RCX, RAX));
                self.e(Inst::ShiftI(Sh::Shr, RCX, 1));
                self.e(Inst::AluI(Alu::And, RAX, 1));
                self.e(Inst::Alu(Alu::Or, RCX, RAX));
                self.e(cvt(X14, RCX));
                self.e(Inst::Sse(if f32 { Sse::Addss } else { Sse::Addsd }, X14, X14));
                self.em.bind(done);
            } else {
                self.e(cvt(X14, RAX));
            }
            self.store_float(d, X14);
            return;
        }
        // From a float: widen F32 to F64 first (exact), then work in F64.
        let xa = self.float_in(a, X14);
        if from == Ty::F32 {
            match to {
                Ty::F32 => {
                    self.store_float(d, xa);
                    return;
                }
                _ => self.e(Inst::Sse(Sse::Cvtss2sd, X14, xa)),
            }
        } else if xa != X14 {
            self.e(Inst::Movaps(X14, xa));
        }
        match to {
            Ty::F64 => self.store_float(d, X14),
            Ty::F32 => {
                self.e(Inst::Sse(Sse::Cvtsd2ss, X14, X14));
                self.store_float(d, X14);
            }
            Ty::I64 => {
                let (nan, done) = (self.label(), self.label());
                self.e(Inst::Cvttsd2si(RAX, X14));
                self.e(Inst::MovRI64(RCX, 1 << 63));
                self.e(Inst::Alu(Alu::Cmp, RAX, RCX));
                self.e(Inst::Jcc(Cc::Ne, done));
                self.e(Inst::Sse(Sse::Ucomisd, X14, X14));
                self.e(Inst::Jcc(Cc::P, nan));
                self.e(Inst::Sse(Sse::Xorpd, X15, X15));
                self.e(Inst::Sse(Sse::Ucomisd, X14, X15));
                self.e(Inst::Jcc(Cc::Be, done));
                self.e(Inst::MovRI64(RAX, i64::MAX as u64));
                self.e(Inst::Jmp(done));
                self.em.bind(nan);
                self.e(Inst::Alu(Alu::Xor, RAX, RAX));
                self.em.bind(done);
                self.store_int(d, RAX);
            }
            Ty::U64 => {
                let (zero, big, max, done) = (self.label(), self.label(), self.label(), self.label());
                self.e(Inst::Sse(Sse::Ucomisd, X14, X14));
                self.e(Inst::Jcc(Cc::P, zero));
                self.e(Inst::MovRI64(RAX, (9_223_372_036_854_775_808.0f64).to_bits()));
                self.e(Inst::MovqXR(X15, RAX));
                self.e(Inst::Sse(Sse::Ucomisd, X14, X15));
                self.e(Inst::Jcc(Cc::Ae, big));
                self.e(Inst::Cvttsd2si(RAX, X14));
                self.e(Inst::Alu(Alu::Test, RAX, RAX));
                self.e(Inst::Jcc(Cc::Ns, done));
                self.em.bind(zero);
                self.e(Inst::Alu(Alu::Xor, RAX, RAX));
                self.e(Inst::Jmp(done));
                self.em.bind(big);
                self.e(Inst::Sse(Sse::Subsd, X14, X15));
                self.e(Inst::Cvttsd2si(RAX, X14));
                self.e(Inst::Alu(Alu::Test, RAX, RAX));
                self.e(Inst::Jcc(Cc::S, max));
                self.e(Inst::MovRI64(RCX, 1 << 63));
                self.e(Inst::Alu(Alu::Xor, RAX, RCX));
                self.e(Inst::Jmp(done));
                self.em.bind(max);
                self.e(Inst::MovRI64(RAX, u64::MAX));
                self.em.bind(done);
                self.store_int(d, RAX);
            }
            _ => {
                // I8 U8 I32 U32: clamp in f64 (bounds are exact), then truncate.
                let (lo, hi) = match to {
                    Ty::I8 => (i8::MIN as f64, i8::MAX as f64),
                    Ty::U8 => (0.0, u8::MAX as f64),
                    Ty::I32 => (i32::MIN as f64, i32::MAX as f64),
                    Ty::U32 => (0.0, u32::MAX as f64),
                    _ => unreachable!("verified: no float to {to}"),
                };
                let (nan, done) = (self.label(), self.label());
                self.e(Inst::Sse(Sse::Ucomisd, X14, X14));
                self.e(Inst::Jcc(Cc::P, nan));
                self.e(Inst::MovRI64(RAX, lo.to_bits()));
                self.e(Inst::MovqXR(X15, RAX));
                self.e(Inst::Sse(Sse::Maxsd, X14, X15));
                self.e(Inst::MovRI64(RAX, hi.to_bits()));
                self.e(Inst::MovqXR(X15, RAX));
                self.e(Inst::Sse(Sse::Minsd, X14, X15));
                self.e(Inst::Cvttsd2si(RAX, X14));
                self.e(Inst::Jmp(done));
                self.em.bind(nan);
                self.e(Inst::Alu(Alu::Xor, RAX, RAX));
                self.em.bind(done);
                self.store_int(d, RAX);
            }
        }
    }
}
