//! Code generation for vector ops ([`crate::ir::vector`]). A vector lives
//! in its run of frame slots (the allocation's `Slot(k)` names the run's
//! lowest address); an op walks it in chunks of the widest register the
//! [`SimdLevel`] allows (32 bytes with AVX2, 16 with SSE2; a vector
//! narrower than that is one partial chunk of 4 or 8 bytes), in the scratch
//! registers `xmm14`/`xmm15`, and writes the result back. Where the level
//! has no instruction for an op (`i32` multiply and `i64` comparisons under
//! SSE2, `i64` multiply everywhere) the op is done lane by lane in GPRs: exact,
//! the scalar semantics. 256-bit sequences end with `vzeroupper`.

use super::{scale_of, Checks, FnGen, Opnd, StubKind};
use crate::ir::{BinOp, CmpOp, ErrCode, Lane, Ty, VOp, VReg, VecTy};
use crate::x64::abi::{SCRATCH_XMM0 as X14, SCRATCH_XMM1 as X15};
use crate::x64::emit::{Alu, Cc, Inst, LoadKind, Mem, Pk, Pred, Sh, StoreKind, Target, RAX, RCX, RDX, VW};
use crate::x64::regalloc::Loc;
use crate::SimdLevel;

fn vec_ty(t: Ty) -> VecTy {
    match t {
        Ty::Vec(v) => v,
        _ => unreachable!("verified: a vector"),
    }
}

/// The load/store width of a chunk of `bytes` bytes.
fn width(bytes: u32) -> VW {
    match bytes {
        4 => VW::D,
        8 => VW::Q,
        16 => VW::X,
        32 => VW::Y,
        _ => unreachable!("chunks are 4, 8, 16 or 32 bytes"),
    }
}

impl<A: Target> FnGen<'_, A> {
    /// Byte `off` of vector `v`'s memory.
    fn vmem(&self, v: VReg, off: u32) -> Mem {
        let Loc::Slot(k) = self.loc(v) else {
            unreachable!("a vector lives in frame slots")
        };
        let base = self.slot(k);
        Mem::base(base.base, base.disp + off as i32)
    }

    /// The chunks `(offset, bytes)` of a vector of `bytes` bytes, at most `max` each.
    fn chunks(bytes: u32, max: u32) -> Vec<(u32, u32)> {
        let c = bytes.min(max);
        (0..bytes / c).map(|i| (i * c, c)).collect()
    }

    fn max_chunk(&self) -> u32 {
        self.simd.vector_bytes()
    }

    fn end_avx(&mut self, used: bool) {
        if used {
            self.e(Inst::Vzeroupper);
        }
    }

    pub(super) fn vcopy(&mut self, d: VReg, a: VReg) {
        if self.loc(d) == self.loc(a) {
            // Coalesced (an inlined callee's parameter, for example).
            return;
        }
        let vt = vec_ty(self.f.ty(d));
        if vt.bytes() < 4 {
            // One or two `Bool` lanes: byte by byte.
            for i in 0..vt.bytes() {
                self.e(Inst::Load(LoadKind::Bzx, RAX, self.vmem(a, i)));
                self.e(Inst::Store(StoreKind::B, self.vmem(d, i), RAX));
            }
            return;
        }
        let mut avx = false;
        for (off, c) in Self::chunks(vt.bytes(), self.max_chunk()) {
            avx |= c == 32;
            self.e(Inst::VLoad(width(c), X15, self.vmem(a, off)));
            self.e(Inst::VStore(width(c), self.vmem(d, off), X15));
        }
        self.end_avx(avx);
    }

    pub(super) fn vop(&mut self, d: VReg, op: &VOp) {
        match *op {
            VOp::Splat(a) => {
                let vt = vec_ty(self.f.ty(d));
                let l = self.loc(a);
                self.load_bits(l, RAX);
                for i in 0..u32::from(vt.n) {
                    self.store_lane(vt.lane, d, i, RAX);
                }
            }
            VOp::Build(ref lanes) => {
                let vt = vec_ty(self.f.ty(d));
                for (i, &x) in lanes.iter().enumerate() {
                    let l = self.loc(x);
                    self.load_bits(l, RAX);
                    self.store_lane(vt.lane, d, i as u32, RAX);
                }
            }
            VOp::Lane(a, k) => {
                let vt = vec_ty(self.f.ty(a));
                let kind = match vt.lane {
                    Lane::I32 => LoadKind::Dsx,
                    Lane::F32 => LoadKind::D,
                    Lane::I64 | Lane::F64 => LoadKind::Q,
                    Lane::Bool => LoadKind::Bzx,
                };
                let m = self.vmem(a, u32::from(k) * vt.lane.size());
                self.e(Inst::Load(kind, RAX, m));
                let l = self.loc(d);
                self.store_bits(l, RAX);
            }
            VOp::Binary(b, x, y) => self.vbinary(d, b, x, y),
            VOp::FDiv { a, b, on_zero } => {
                self.vzero_check(b, on_zero);
                let pk = if vec_ty(self.f.ty(a)).lane == Lane::F64 {
                    Pk::Divpd
                } else {
                    Pk::Divps
                };
                self.vpacked(d, pk, a, b);
            }
            VOp::Cmp(c, a, b) => self.vcmp(d, c, a, b),
            VOp::Convert(a) => self.vconvert(d, a),
        }
    }

    /// The checks of a vector load or store of `vt` at element `index` of
    /// the buffer (`ptr`, `len`): null, then `index >= len || len - index <
    /// n` (unsigned; the whole lane run). Leaves the base in rax and the
    /// index in rcx.
    fn vchecked_address(&mut self, vt: VecTy, ptr: VReg, len: VReg, index: VReg, checks: Checks) {
        let (on_null, on_oob, checked) = checks;
        let (nl, il) = (self.loc(len), self.loc(index));
        self.int_into(ptr, RAX);
        if !checked {
            self.int_into(index, RCX);
            return;
        }
        self.e(Inst::Alu(Alu::Test, RAX, RAX));
        let null = self.stub(StubKind::Error {
            code: on_null,
            operands: [Opnd::Zero, Opnd::Of(il)],
        });
        self.e(Inst::Jcc(Cc::E, null));
        self.int_into(index, RCX);
        self.int_into(len, RDX);
        let oob = self.stub(StubKind::Error {
            code: on_oob,
            operands: [Opnd::Of(il), Opnd::Of(nl)],
        });
        self.e(Inst::Alu(Alu::Cmp, RCX, RDX));
        self.e(Inst::Jcc(Cc::Ae, oob));
        self.e(Inst::Alu(Alu::Sub, RDX, RCX));
        self.e(Inst::AluI(Alu::Cmp, RDX, i32::from(vt.n)));
        self.e(Inst::Jcc(Cc::B, oob));
    }

    /// `d = ptr[index .. index + n]` (`ptr_simd_load`): checks, then the
    /// lanes chunk by chunk; `Bool` lanes byte by byte, canonicalized as the
    /// scalar load does.
    pub(super) fn vload(&mut self, d: VReg, ptr: VReg, len: VReg, index: VReg, checks: Checks) {
        let vt = vec_ty(self.f.ty(d));
        self.vchecked_address(vt, ptr, len, index, checks);
        let scale = scale_of(vt.lane.ty());
        if vt.lane == Lane::Bool {
            for i in 0..u32::from(vt.n) {
                self.e(Inst::Load(
                    LoadKind::Bzx,
                    RDX,
                    Mem::indexed(RAX, RCX, scale, i as i32),
                ));
                self.e(Inst::Alu(Alu::Test, RDX, RDX));
                self.e(Inst::Setcc(Cc::Ne, RDX));
                self.e(Inst::Store(StoreKind::B, self.vmem(d, i), RDX));
            }
            return;
        }
        let mut avx = false;
        for (off, c) in Self::chunks(vt.bytes(), self.max_chunk()) {
            avx |= c == 32;
            self.e(Inst::VLoad(
                width(c),
                X15,
                Mem::indexed(RAX, RCX, scale, off as i32),
            ));
            self.e(Inst::VStore(width(c), self.vmem(d, off), X15));
        }
        self.end_avx(avx);
    }

    /// `ptr[index .. index + n] = value` (`ptr_simd_store`): checks, then
    /// the lanes chunk by chunk (vector memory is canonical already).
    pub(super) fn vstore(&mut self, value: VReg, ptr: VReg, len: VReg, index: VReg, checks: Checks) {
        let vt = vec_ty(self.f.ty(value));
        self.vchecked_address(vt, ptr, len, index, checks);
        let scale = scale_of(vt.lane.ty());
        if vt.bytes() < 4 {
            for i in 0..vt.bytes() {
                self.e(Inst::Load(LoadKind::Bzx, RDX, self.vmem(value, i)));
                self.e(Inst::Store(
                    StoreKind::B,
                    Mem::indexed(RAX, RCX, scale, i as i32),
                    RDX,
                ));
            }
            return;
        }
        let mut avx = false;
        for (off, c) in Self::chunks(vt.bytes(), self.max_chunk()) {
            avx |= c == 32;
            self.e(Inst::VLoad(width(c), X15, self.vmem(value, off)));
            self.e(Inst::VStore(
                width(c),
                Mem::indexed(RAX, RCX, scale, off as i32),
                X15,
            ));
        }
        self.end_avx(avx);
    }

    /// Store the canonical bits in `r` as lane `i` of `d`.
    fn store_lane(&mut self, lane: Lane, d: VReg, i: u32, r: crate::x64::emit::Gpr) {
        let m = self.vmem(d, i * lane.size());
        let kind = match lane.size() {
            8 => StoreKind::Q,
            4 => StoreKind::D,
            _ => StoreKind::B,
        };
        self.e(Inst::Store(kind, m, r));
    }

    /// `d = a op b` chunk by chunk with one packed instruction per chunk.
    fn vpacked(&mut self, d: VReg, pk: Pk, a: VReg, b: VReg) {
        let vt = vec_ty(self.f.ty(d));
        let mut avx = false;
        for (off, c) in Self::chunks(vt.bytes(), self.max_chunk()) {
            self.e(Inst::VLoad(width(c), X15, self.vmem(a, off)));
            self.e(Inst::VLoad(width(c), X14, self.vmem(b, off)));
            if c == 32 {
                avx = true;
                self.e(Inst::Vpk(pk, X15, X15, X14));
            } else {
                self.e(Inst::Pk(pk, X15, X14));
            }
            self.e(Inst::VStore(width(c), self.vmem(d, off), X15));
        }
        self.end_avx(avx);
    }

    fn vbinary(&mut self, d: VReg, b: BinOp, x: VReg, y: VReg) {
        let lane = vec_ty(self.f.ty(d)).lane;
        let pk = match (b, lane) {
            (BinOp::Add, Lane::F64) => Pk::Addpd,
            (BinOp::Sub, Lane::F64) => Pk::Subpd,
            (BinOp::Mul, Lane::F64) => Pk::Mulpd,
            (BinOp::Add, Lane::F32) => Pk::Addps,
            (BinOp::Sub, Lane::F32) => Pk::Subps,
            (BinOp::Mul, Lane::F32) => Pk::Mulps,
            (BinOp::Add, Lane::I32) => Pk::Paddd,
            (BinOp::Sub, Lane::I32) => Pk::Psubd,
            (BinOp::Add, Lane::I64) => Pk::Paddq,
            (BinOp::Sub, Lane::I64) => Pk::Psubq,
            (BinOp::Mul, Lane::I32) if self.simd == SimdLevel::Avx2 => Pk::Pmulld,
            (BinOp::Mul, Lane::I32 | Lane::I64) => return self.vmul_lanes(d, lane, x, y),
            _ => unreachable!("verified: {b:?} on {lane:?} lanes"),
        };
        self.vpacked(d, pk, x, y);
    }

    /// Integer lane multiply, one `imul` per lane (wrapping at the lane width).
    fn vmul_lanes(&mut self, d: VReg, lane: Lane, x: VReg, y: VReg) {
        let n = u32::from(vec_ty(self.f.ty(d)).n);
        let sz = lane.size();
        let kind = if sz == 8 { LoadKind::Q } else { LoadKind::Dsx };
        for i in 0..n {
            self.e(Inst::Load(kind, RAX, self.vmem(x, i * sz)));
            self.e(Inst::Load(kind, RCX, self.vmem(y, i * sz)));
            self.e(Inst::Imul(RAX, RCX));
            self.store_lane(lane, d, i, RAX);
        }
    }

    /// Raise `on_zero` if any float lane of `b` is ±0.0 (16-byte chunks).
    fn vzero_check(&mut self, b: VReg, on_zero: ErrCode) {
        let vt = vec_ty(self.f.ty(b));
        let dbl = vt.lane == Lane::F64;
        let stub = self.stub(StubKind::Error {
            code: on_zero,
            operands: [super::Opnd::Zero, super::Opnd::Zero],
        });
        for (off, c) in Self::chunks(vt.bytes(), 16) {
            let lanes = c / vt.lane.size();
            self.e(Inst::VLoad(width(c), X15, self.vmem(b, off)));
            self.e(Inst::Pk(Pk::Xorps, X14, X14));
            self.e(Inst::Cmpp(Pred::Eq, dbl, X15, X14));
            self.e(Inst::Movmsk(dbl, RAX, X15));
            self.e(Inst::AluI(Alu::And, RAX, (1 << lanes) - 1));
            self.e(Inst::Jcc(Cc::Ne, stub));
        }
    }

    /// Lane-wise comparison into `Bool` lanes (one byte each).
    fn vcmp(&mut self, d: VReg, c: CmpOp, a: VReg, b: VReg) {
        let vt = vec_ty(self.f.ty(a));
        // `pcmpeqq`/`pcmpgtq` are SSE4.1/4.2: the AVX2 level has them.
        if vt.lane == Lane::I64 && self.simd == SimdLevel::Sse2 {
            return self.vcmp_lanes(d, c, a, b);
        }
        let int = matches!(vt.lane, Lane::I32 | Lane::I64);
        let sz = vt.lane.size();
        for (off, bytes) in Self::chunks(vt.bytes(), 16) {
            let lanes = bytes / sz;
            let all = (1i32 << lanes) - 1;
            // (first operand, second operand, negate the mask)
            let (p, q, negate) = match c {
                CmpOp::Eq | CmpOp::Ne if int => (a, b, c == CmpOp::Ne),
                CmpOp::Gt | CmpOp::Le if int => (a, b, c == CmpOp::Le),
                CmpOp::Lt | CmpOp::Ge if int => (b, a, c == CmpOp::Ge),
                CmpOp::Gt | CmpOp::Ge => (b, a, false),
                _ => (a, b, false),
            };
            self.e(Inst::VLoad(width(bytes), X15, self.vmem(p, off)));
            self.e(Inst::VLoad(width(bytes), X14, self.vmem(q, off)));
            let dbl = sz == 8;
            match vt.lane {
                Lane::I32 | Lane::I64 => {
                    let eq = matches!(c, CmpOp::Eq | CmpOp::Ne);
                    let pk = match (eq, vt.lane) {
                        (true, Lane::I32) => Pk::Pcmpeqd,
                        (false, Lane::I32) => Pk::Pcmpgtd,
                        (true, _) => Pk::Pcmpeqq,
                        (false, _) => Pk::Pcmpgtq,
                    };
                    self.e(Inst::Pk(pk, X15, X14));
                }
                _ => {
                    let pred = match c {
                        CmpOp::Eq => Pred::Eq,
                        CmpOp::Ne => Pred::Neq,
                        CmpOp::Lt | CmpOp::Gt => Pred::Lt,
                        CmpOp::Le | CmpOp::Ge => Pred::Le,
                    };
                    self.e(Inst::Cmpp(pred, dbl, X15, X14));
                }
            }
            self.e(Inst::Movmsk(dbl, RAX, X15));
            if negate {
                self.e(Inst::AluI(Alu::Xor, RAX, all));
            }
            let first = off / sz;
            for j in 0..lanes {
                self.e(Inst::MovRR(RCX, RAX));
                if j > 0 {
                    self.e(Inst::ShiftI(Sh::Shr, RCX, j as u8));
                }
                self.e(Inst::AluI(Alu::And, RCX, 1));
                self.e(Inst::Store(StoreKind::B, self.vmem(d, first + j), RCX));
            }
        }
    }

    /// `i64` lane comparison under SSE2, one `cmp` + `setcc` per lane.
    fn vcmp_lanes(&mut self, d: VReg, c: CmpOp, a: VReg, b: VReg) {
        let n = u32::from(vec_ty(self.f.ty(a)).n);
        let cc = match c {
            CmpOp::Eq => Cc::E,
            CmpOp::Ne => Cc::Ne,
            CmpOp::Lt => Cc::L,
            CmpOp::Le => Cc::Le,
            CmpOp::Gt => Cc::G,
            CmpOp::Ge => Cc::Ge,
        };
        for i in 0..n {
            self.e(Inst::Load(LoadKind::Q, RAX, self.vmem(a, i * 8)));
            self.e(Inst::Load(LoadKind::Q, RCX, self.vmem(b, i * 8)));
            self.e(Inst::Alu(Alu::Cmp, RAX, RCX));
            self.e(Inst::Setcc(cc, RAX));
            self.e(Inst::Store(StoreKind::B, self.vmem(d, i), RAX));
        }
    }

    /// `i32` lanes to `f64` lanes (`cvtdq2pd`, exact).
    fn vconvert(&mut self, d: VReg, a: VReg) {
        let to = vec_ty(self.f.ty(d));
        let mut avx = false;
        for (off, c) in Self::chunks(to.bytes(), self.max_chunk()) {
            let src = self.vmem(a, off / 2);
            self.e(Inst::VLoad(width(c / 2), X15, src));
            if c == 32 {
                avx = true;
                self.e(Inst::Vcvtdq2pd(X15, X15));
            } else {
                self.e(Inst::Cvtdq2pd(X15, X15));
            }
            self.e(Inst::VStore(width(c), self.vmem(d, off), X15));
        }
        self.end_avx(avx);
    }
}
