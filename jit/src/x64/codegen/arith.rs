//! The operations with more than one instruction sequence: integer
//! division and remainder (zero-divisor stub, floor semantics), shifts
//! (negative-count stub), comparisons into flags or a `Bool`, and
//! conversions between the integer and float types.

use super::control::{swap_cc, Cond};
use super::stubs::{Opnd, StubKind};
use super::FnGen;
use crate::ir::{sem, CmpOp, ErrCode, ShiftOp, Ty, VReg};
use crate::x64::abi::{SCRATCH_XMM0 as X14, SCRATCH_XMM1 as X15};
use crate::x64::divconst::{self, UDiv};
use crate::x64::emit::{Alu, Cc, Gpr, Inst, Sh, Sse, Target, Xmm};
use crate::x64::emit::{R11, RAX, RCX, RDX};
use crate::x64::regalloc::Loc;

impl<'a, A: Target> FnGen<'a, A> {
    pub(super) fn divmod(&mut self, d: VReg, ty: Ty, a: VReg, b: VReg, on_zero: ErrCode, div: bool) {
        // The planted division bugs live in the `idiv` sequence only.
        let planted =
            self.mutate(crate::Mutation::FloorDivNoFixup) || self.mutate(crate::Mutation::DivMinTraps);
        if let (Loc::Imm(c), false) = (self.loc(b), planted && ty.is_signed()) {
            if c != 0 {
                self.divmod_const(d, ty, a, c, div);
                return;
            }
        }
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

    /// `a // c` or `a % c` for a non-zero constant `c` (canonical word of
    /// `ty`), exact on every `a`, without a division instruction. Narrow
    /// operands are canonical 64-bit words, so the 64-bit sequences below
    /// serve every width (only the dividend range given to
    /// [`divconst::plan`] differs). Signed floor division reduces to an
    /// unsigned quotient `u` of a non-negative `t` (a mask `s` of all ones or
    /// zero, `q = u ^ s`, which is `-1 - u` when `s` is set):
    /// - `c > 0`: `s = a >> 63` (arithmetic), `t = a ^ s`, `u = t / c`:
    ///   for `a < 0`, `floor(a / c) = -1 - floor((-1 - a) / c)`;
    /// - `c < 0`, `d = -c` (`2^63` for `MIN`): `s` is all ones when `a > 0`,
    ///   `t = -a ^ s` (`a - 1` when `a > 0`, else `-a`, `2^63` for `MIN`),
    ///   `u = t / d`: `floor(a / c) = floor(-a / d)`, which for `a > 0` is
    ///   `-ceil(a / d) = -1 - floor((a - 1) / d)`.
    ///
    /// The remainder is `a - q * c` (wrapping; exact since `q` is the floor
    /// quotient), or a mask for a positive power of two. A signed dividend
    /// the value ranges prove non-negative takes the unsigned sequence, and
    /// every plan is made for the largest dividend the range allows.
    fn divmod_const(&mut self, d: VReg, ty: Ty, a: VReg, c: u64, div: bool) {
        let bits = ty.bits();
        let range = self.ranges.get(a);
        let ci = c as i64;
        // A signed dividend known non-negative, by a positive constant: the
        // unsigned sequence (floor and truncation agree there).
        let as_unsigned = !ty.is_signed() || (ci > 0 && range.is_some_and(|r| r.lo >= 0));
        if as_unsigned {
            // The largest dividend: the range's, else the type's.
            let top = if bits == 64 { u64::MAX } else { (1u64 << bits) - 1 };
            let n_max = range.map_or(top, |r| u64::try_from(r.hi).unwrap_or(top).min(top));
            self.int_into(a, RAX);
            if let (false, UDiv::Shift(k)) = (div, divconst::plan(c, n_max)) {
                // a % 2^k: the low k bits (k = 0: zero).
                self.and_imm(RAX, (1u64 << k) - 1);
                self.store_int(d, RAX);
                return;
            }
            self.udiv_const(c, n_max);
            if div {
                self.store_int(d, RDX);
            } else {
                self.rem_from_quotient(a, c);
                self.store_int(d, RAX);
            }
            return;
        }
        let top = 1u64 << (bits - 1);
        self.int_into(a, RAX);
        if ci == 1 || ci == -1 {
            // x // 1 = x, x // -1 = -x (wrapping: MIN // -1 is MIN); x % ±1 = 0.
            if !div {
                self.e(Inst::Alu(Alu::Xor, RAX, RAX));
            } else if ci == -1 {
                self.e(Inst::Neg(RAX));
                self.canon(ty, RAX);
            }
            self.store_int(d, RAX);
            return;
        }
        if ci > 0 && c.is_power_of_two() {
            // Floor semantics are the arithmetic shift and the low bits.
            if div {
                self.e(Inst::ShiftI(Sh::Sar, RAX, c.trailing_zeros() as u8));
            } else {
                self.and_imm(RAX, c - 1);
            }
            self.store_int(d, RAX);
            return;
        }
        let (dv, n_max) = if ci > 0 {
            self.e(Inst::MovRR(RCX, RAX));
            self.e(Inst::ShiftI(Sh::Sar, RCX, 63));
            self.e(Inst::Alu(Alu::Xor, RAX, RCX));
            (c, top - 1)
        } else {
            // s = (-a & !a) >> 63: the sign of -a, except for MIN (whose
            // negation is itself), where !a is non-negative.
            self.e(Inst::MovRR(RCX, RAX));
            self.e(Inst::Not(RCX));
            self.e(Inst::Neg(RAX));
            self.e(Inst::Alu(Alu::And, RCX, RAX));
            self.e(Inst::ShiftI(Sh::Sar, RCX, 63));
            self.e(Inst::Alu(Alu::Xor, RAX, RCX));
            (ci.unsigned_abs(), top)
        };
        self.udiv_const(dv, n_max);
        self.e(Inst::Alu(Alu::Xor, RDX, RCX));
        // Both results are exact 64-bit values in the type's range (only
        // MIN // -1 leaves it, handled above): canonical as they are.
        if div {
            self.store_int(d, RDX);
        } else {
            self.rem_from_quotient(a, c);
            self.store_int(d, RAX);
        }
    }

    /// `rdx = rax / d` on dividends `0..=n_max` (clobbers `rax`, `r11`).
    fn udiv_const(&mut self, d: u64, n_max: u64) {
        match divconst::plan(d, n_max) {
            UDiv::Identity => self.e(Inst::MovRR(RDX, RAX)),
            UDiv::Shift(k) => {
                self.e(Inst::MovRR(RDX, RAX));
                self.e(Inst::ShiftI(Sh::Shr, RDX, k));
            }
            UDiv::MulHi { m, s } => {
                self.mov_imm(RDX, m);
                self.e(Inst::Mul(RDX));
                if s > 0 {
                    self.e(Inst::ShiftI(Sh::Shr, RDX, s));
                }
            }
            UDiv::MulHiAdd { m, s } => {
                self.e(Inst::MovRR(R11, RAX));
                self.mov_imm(RDX, m);
                self.e(Inst::Mul(RDX));
                self.e(Inst::Alu(Alu::Sub, R11, RDX));
                self.e(Inst::ShiftI(Sh::Shr, R11, 1));
                self.e(Inst::Alu(Alu::Add, RDX, R11));
                self.e(Inst::ShiftI(Sh::Shr, RDX, s));
            }
        }
    }

    /// `rax = a - rdx * c` (wrapping; clobbers `rdx`, `r11`).
    fn rem_from_quotient(&mut self, a: VReg, c: u64) {
        match i32::try_from(c as i64) {
            Ok(i) => self.e(Inst::ImulI(RDX, RDX, i)),
            Err(_) => {
                self.mov_imm(R11, c);
                self.e(Inst::Imul(RDX, R11));
            }
        }
        self.int_into(a, RAX);
        self.e(Inst::Alu(Alu::Sub, RAX, RDX));
    }

    /// `r &= mask` (through `r11` when the mask is not a sign-extended imm32).
    fn and_imm(&mut self, r: Gpr, mask: u64) {
        match i32::try_from(mask as i64) {
            Ok(i) => self.e(Inst::AluI(Alu::And, r, i)),
            Err(_) => {
                self.mov_imm(R11, mask);
                self.e(Inst::Alu(Alu::And, r, R11));
            }
        }
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
            // The last instruction computed `a` (`sub; jne`): its flags.
            Some(0) if matches!(cc, Cc::E | Cc::Ne) && self.em.flags_of() == Some(ra) => {}
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
            let f32 = to == Ty::F32;
            let cvt = |x: Xmm, r: Gpr| {
                if f32 {
                    Inst::Cvtsi2ss(x, r)
                } else {
                    Inst::Cvtsi2sd(x, r)
                }
            };
            // Straight from the source register into the destination's.
            let x = self.work_xmm(d, None);
            // cvtsi2sd/ss write only the low lane: zeroing the register
            // first breaks the dependency on its last writer (otherwise a
            // chain through every conversion of a loop).
            if from != Ty::U64 {
                let r = self.int_in(a, RAX);
                self.e(Inst::Sse(Sse::Xorpd, x, x));
                self.e(cvt(x, r));
                self.store_float(d, x);
                return;
            }
            self.int_into(a, RAX);
            self.e(Inst::Sse(Sse::Xorpd, x, x));
            // >= 2^63: halve with round-to-odd, convert, double (exact rounding).
            let (big, done) = (self.label(), self.label());
            self.e(Inst::Alu(Alu::Test, RAX, RAX));
            self.e(Inst::Jcc(Cc::S, big));
            self.e(cvt(x, RAX));
            self.e(Inst::Jmp(done));
            self.em.bind(big);
            self.e(Inst::MovRR(RCX, RAX));
            self.e(Inst::ShiftI(Sh::Shr, RCX, 1));
            self.e(Inst::AluI(Alu::And, RAX, 1));
            self.e(Inst::Alu(Alu::Or, RCX, RAX));
            self.e(cvt(x, RCX));
            self.e(Inst::Sse(if f32 { Sse::Addss } else { Sse::Addsd }, x, x));
            self.em.bind(done);
            self.store_float(d, x);
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
