//! Code generation for vector ops ([`crate::ir::vector`]). A vector that
//! fits one register of the [`SimdLevel`] lives in an xmm/ymm register
//! ([`crate::x64::regalloc::vector_in_register`]) unless spilled; any other
//! lives in its run of frame slots (the allocation's `Slot(k)` names the
//! run's lowest address). Loads, stores, copies, packed arithmetic and the
//! `i32` → `f64` conversion work on the registers directly (a memory operand
//! goes through the scratch registers `xmm14`/`xmm15`); an op on a vector
//! in slots walks it in chunks of the widest register the level allows (32
//! bytes with AVX2, 16 with SSE2; a vector narrower than that is one
//! partial chunk of 4 or 8 bytes). Where the level has no instruction for
//! an op (`i32` multiply and `i64` comparisons under SSE2, `i64` multiply
//! everywhere), and for the lane-by-lane forms (splat, build, lane reads,
//! comparisons into `Bool` lanes, the zero-divisor test), register operands
//! are *staged*: stored to the function's staging area
//! (`Allocation::vector_stage`), the memory form runs on them, and a
//! register result is loaded back. Lane-by-lane is exact: the scalar
//! semantics. The lanes of a register beyond the vector's bytes are
//! unspecified and never observed (stores, staging and masks use the
//! vector's own width). A function whose vectors use 256-bit registers
//! runs `vzeroupper` before every call and return ([`FnGen::leave_avx`]),
//! not after each op: no vector lives in a register across a call.

use super::{scale_of, Checks, FnGen, Opnd, StubKind};
use crate::ir::{BinOp, CmpOp, ErrCode, Lane, Ty, VOp, VReg, VecTy};
use crate::x64::abi::{SCRATCH_XMM0 as X14, SCRATCH_XMM1 as X15};
use crate::x64::emit::{Alu, Cc, Inst, LoadKind, Mem, Pk, Pred, Sh, StoreKind, Target, RAX, RCX, RDX, VW};
use crate::x64::emit::{Gpr, Xmm};
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
    /// Byte `off` of vector `v`'s memory: its slots, or its staging area
    /// when it lives in a register ([`Self::stage`] put it there).
    fn vmem(&self, v: VReg, off: u32) -> Mem {
        let base = match self.loc(v) {
            Loc::Slot(k) => self.slot(k),
            Loc::Xmm(x) => {
                let area = self
                    .staged
                    .iter()
                    .position(|&y| y == x)
                    .expect("a register vector is staged");
                let first = self
                    .alloc
                    .vector_stage
                    .expect("a staging area when vectors live in registers");
                self.slot(first + 4 * area as u32)
            }
            l => unreachable!("a vector in {l:?}"),
        };
        Mem::base(base.base, base.disp + off as i32)
    }

    /// The register of `v` when it lives in one.
    fn vreg(&self, v: VReg) -> Option<Xmm> {
        match self.loc(v) {
            Loc::Xmm(x) => Some(x),
            _ => None,
        }
    }

    /// Store the register operands among `vs` to the staging area (each
    /// register once), so that [`Self::vmem`] reaches them.
    fn stage(&mut self, vs: &[VReg]) {
        for &v in vs {
            let Some(x) = self.vreg(v).filter(|_| matches!(self.f.ty(v), Ty::Vec(_))) else {
                continue;
            };
            if self.staged.contains(&x) {
                continue;
            }
            self.staged.push(x);
            let bytes = vec_ty(self.f.ty(v)).bytes();
            let m = self.vmem(v, 0);
            self.e(Inst::VStore(width(bytes), m, x));
        }
    }

    /// Give the register result `d` an area of the staging area (written by
    /// the memory form; a source in the same register shares it: every
    /// lane-by-lane form reads a lane before writing it).
    fn stage_result(&mut self, d: VReg) {
        if let Some(x) = self.vreg(d) {
            if !self.staged.contains(&x) {
                self.staged.push(x);
            }
        }
    }

    /// Load a staged register result back and forget the staging.
    fn unstage(&mut self, d: Option<VReg>) {
        if let Some(d) = d {
            if let (Some(x), Ty::Vec(vt)) = (self.vreg(d), self.f.ty(d)) {
                let m = self.vmem(d, 0);
                self.e(Inst::VLoad(width(vt.bytes()), x, m));
            }
        }
        self.staged.clear();
    }

    /// The whole of a one-chunk vector `v` in a register: its own, or
    /// `scratch` loaded from its slots.
    fn vin(&mut self, v: VReg, scratch: Xmm) -> Xmm {
        if let Some(x) = self.vreg(v) {
            return x;
        }
        let bytes = vec_ty(self.f.ty(v)).bytes();
        let m = self.vmem(v, 0);
        self.e(Inst::VLoad(width(bytes), scratch, m));
        scratch
    }

    /// The register a one-chunk result `d` is computed in: its own, or
    /// `xmm15` (then [`Self::vout`] stores it).
    fn vwork(&self, d: VReg) -> Xmm {
        self.vreg(d).unwrap_or(X15)
    }

    /// Store a one-chunk result computed in `x` to `d`'s slots (nothing when
    /// `d` lives in `x`).
    fn vout(&mut self, d: VReg, x: Xmm) {
        if self.vreg(d) == Some(x) {
            return;
        }
        let bytes = vec_ty(self.f.ty(d)).bytes();
        match self.vreg(d) {
            Some(r) => self.vmov(bytes, r, x),
            None => {
                let m = self.vmem(d, 0);
                self.e(Inst::VStore(width(bytes), m, x));
            }
        }
    }

    /// Register-to-register copy of a vector of `bytes` bytes.
    fn vmov(&mut self, bytes: u32, d: Xmm, s: Xmm) {
        if d != s {
            self.e(if bytes == 32 {
                Inst::Vmovaps(d, s)
            } else {
                Inst::Movaps(d, s)
            });
        }
    }

    /// Whether vector `v` is one chunk at this level (a register vector is).
    fn one_chunk(&self, v: VReg) -> bool {
        vec_ty(self.f.ty(v)).bytes() <= self.max_chunk()
    }

    /// The chunks `(offset, bytes)` of a vector of `bytes` bytes, at most `max` each.
    fn chunks(bytes: u32, max: u32) -> Vec<(u32, u32)> {
        let c = bytes.min(max);
        (0..bytes / c).map(|i| (i * c, c)).collect()
    }

    fn max_chunk(&self) -> u32 {
        self.simd.vector_bytes()
    }

    /// Before a call or a return: clear the upper halves of the ymm
    /// registers when the function uses them (legacy-SSE code in the
    /// callee or in Rust would otherwise pay a transition on some cores).
    /// No vector lives in a register across a call, so nothing is lost.
    pub(super) fn leave_avx(&mut self) {
        if self.uses_ymm {
            self.e(Inst::Vzeroupper);
        }
    }

    pub(super) fn vcopy(&mut self, d: VReg, a: VReg) {
        if self.loc(d) == self.loc(a) {
            // Coalesced (an inlined callee's parameter, for example).
            return;
        }
        let vt = vec_ty(self.f.ty(d));
        if self.one_chunk(d) && vt.bytes() >= 4 {
            let w = self.vwork(d);
            let x = self.vin(a, w);
            if self.vreg(d).is_some() {
                self.vmov(vt.bytes(), w, x);
            } else {
                self.vout(d, x);
            }
            return;
        }
        if vt.bytes() < 4 {
            // One or two `Bool` lanes: byte by byte.
            for i in 0..vt.bytes() {
                self.e(Inst::Load(LoadKind::Bzx, RAX, self.vmem(a, i)));
                self.e(Inst::Store(StoreKind::B, self.vmem(d, i), RAX));
            }
            return;
        }
        for (off, c) in Self::chunks(vt.bytes(), self.max_chunk()) {
            self.e(Inst::VLoad(width(c), X15, self.vmem(a, off)));
            self.e(Inst::VStore(width(c), self.vmem(d, off), X15));
        }
    }

    pub(super) fn vop(&mut self, d: VReg, op: &VOp) {
        match *op {
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
            VOp::Convert(a) => self.vconvert(d, a),
            _ => {
                // The lane-by-lane forms, on staged register operands.
                self.stage(&crate::x64::regalloc::vop_uses(op));
                let result = matches!(self.f.ty(d), Ty::Vec(_)).then_some(d);
                if let Some(d) = result {
                    self.stage_result(d);
                }
                self.vop_in_memory(d, op);
                self.unstage(result);
            }
        }
    }

    /// Splat, build, lane reads and comparisons, over vector memory.
    fn vop_in_memory(&mut self, d: VReg, op: &VOp) {
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
            VOp::Cmp(c, a, b) => self.vcmp(d, c, a, b),
            VOp::Binary(..) | VOp::FDiv { .. } | VOp::Convert(_) => unreachable!("register forms"),
        }
    }

    /// The checks of a vector load or store of `vt` at element `index` of
    /// the buffer (`ptr`, `len`): null, then `index >= len || len - index <
    /// n` (unsigned; the whole lane run). Returns the registers of the base
    /// and the index: rax and rcx, or for an unchecked access the value's
    /// own registers when both are in GPRs.
    fn vchecked_address(
        &mut self,
        vt: VecTy,
        ptr: VReg,
        len: VReg,
        index: VReg,
        checks: Checks,
    ) -> (Gpr, Gpr) {
        let (on_null, on_oob, checked) = checks;
        let (nl, il) = (self.loc(len), self.loc(index));
        if !checked {
            if let (Loc::Gpr(p), Loc::Gpr(i)) = (self.loc(ptr), il) {
                return (p, i);
            }
            self.int_into(ptr, RAX);
            self.int_into(index, RCX);
            return (RAX, RCX);
        }
        self.int_into(ptr, RAX);
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
        (RAX, RCX)
    }

    /// `d = ptr[index .. index + n]` (`ptr_simd_load`): checks, then the
    /// lanes chunk by chunk; `Bool` lanes byte by byte, canonicalized as the
    /// scalar load does.
    pub(super) fn vload(&mut self, d: VReg, ptr: VReg, len: VReg, index: VReg, checks: Checks) {
        let vt = vec_ty(self.f.ty(d));
        let (base, ix) = self.vchecked_address(vt, ptr, len, index, checks);
        let scale = scale_of(vt.lane.ty());
        if vt.lane == Lane::Bool {
            for i in 0..u32::from(vt.n) {
                self.e(Inst::Load(
                    LoadKind::Bzx,
                    RDX,
                    Mem::indexed(base, ix, scale, i as i32),
                ));
                self.e(Inst::Alu(Alu::Test, RDX, RDX));
                self.e(Inst::Setcc(Cc::Ne, RDX));
                self.e(Inst::Store(StoreKind::B, self.vmem(d, i), RDX));
            }
            return;
        }
        if let Some(x) = self.vreg(d) {
            self.e(Inst::VLoad(
                width(vt.bytes()),
                x,
                Mem::indexed(base, ix, scale, 0),
            ));
            return;
        }
        for (off, c) in Self::chunks(vt.bytes(), self.max_chunk()) {
            self.e(Inst::VLoad(
                width(c),
                X15,
                Mem::indexed(base, ix, scale, off as i32),
            ));
            self.e(Inst::VStore(width(c), self.vmem(d, off), X15));
        }
    }

    /// `ptr[index .. index + n] = value` (`ptr_simd_store`): checks, then
    /// the lanes chunk by chunk (vector memory is canonical already).
    pub(super) fn vstore(&mut self, value: VReg, ptr: VReg, len: VReg, index: VReg, checks: Checks) {
        let vt = vec_ty(self.f.ty(value));
        let (base, ix) = self.vchecked_address(vt, ptr, len, index, checks);
        let scale = scale_of(vt.lane.ty());
        if vt.bytes() < 4 {
            for i in 0..vt.bytes() {
                self.e(Inst::Load(LoadKind::Bzx, RDX, self.vmem(value, i)));
                self.e(Inst::Store(
                    StoreKind::B,
                    Mem::indexed(base, ix, scale, i as i32),
                    RDX,
                ));
            }
            return;
        }
        if let Some(x) = self.vreg(value) {
            self.e(Inst::VStore(
                width(vt.bytes()),
                Mem::indexed(base, ix, scale, 0),
                x,
            ));
            return;
        }
        for (off, c) in Self::chunks(vt.bytes(), self.max_chunk()) {
            self.e(Inst::VLoad(width(c), X15, self.vmem(value, off)));
            self.e(Inst::VStore(
                width(c),
                Mem::indexed(base, ix, scale, off as i32),
                X15,
            ));
        }
    }

    /// Store the canonical bits in `r` as lane `i` of `d`.
    fn store_lane(&mut self, lane: Lane, d: VReg, i: u32, r: Gpr) {
        let m = self.vmem(d, i * lane.size());
        let kind = match lane.size() {
            8 => StoreKind::Q,
            4 => StoreKind::D,
            _ => StoreKind::B,
        };
        self.e(Inst::Store(kind, m, r));
    }

    /// `d = a op b` with one packed instruction per chunk (the operands in
    /// their registers when one chunk; never swapped, so NaN payloads are
    /// the instruction's for `a op b`).
    fn vpacked(&mut self, d: VReg, pk: Pk, a: VReg, b: VReg) {
        let vt = vec_ty(self.f.ty(d));
        if self.one_chunk(d) {
            let ra = self.vin(a, X15);
            let rb = self.vin(b, X14);
            if vt.bytes() == 32 {
                let w = self.vwork(d);
                self.e(Inst::Vpk(pk, w, ra, rb));
                self.vout(d, w);
                return;
            }
            // Two-operand form: compute in d's register unless it is b's.
            let w = match self.vreg(d) {
                Some(x) if x == ra || x != rb => x,
                _ => X15,
            };
            self.vmov(vt.bytes(), w, ra);
            self.e(Inst::Pk(pk, w, rb));
            self.vout(d, w);
            return;
        }
        for (off, c) in Self::chunks(vt.bytes(), self.max_chunk()) {
            self.e(Inst::VLoad(width(c), X15, self.vmem(a, off)));
            self.e(Inst::VLoad(width(c), X14, self.vmem(b, off)));
            if c == 32 {
                self.e(Inst::Vpk(pk, X15, X15, X14));
            } else {
                self.e(Inst::Pk(pk, X15, X14));
            }
            self.e(Inst::VStore(width(c), self.vmem(d, off), X15));
        }
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

    /// Integer lane multiply, one `imul` per lane (wrapping at the lane
    /// width), on staged operands.
    fn vmul_lanes(&mut self, d: VReg, lane: Lane, x: VReg, y: VReg) {
        self.stage(&[x, y]);
        self.stage_result(d);
        self.vmul_lanes_in_memory(d, lane, x, y);
        self.unstage(Some(d));
    }

    fn vmul_lanes_in_memory(&mut self, d: VReg, lane: Lane, x: VReg, y: VReg) {
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

    /// Raise `on_zero` if any float lane of `b` is ±0.0 (16-byte chunks, on
    /// `b` staged).
    fn vzero_check(&mut self, b: VReg, on_zero: ErrCode) {
        self.stage(&[b]);
        self.vzero_check_in_memory(b, on_zero);
        self.unstage(None);
    }

    fn vzero_check_in_memory(&mut self, b: VReg, on_zero: ErrCode) {
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
        if self.one_chunk(d) {
            // The source (half the bytes) is one chunk too.
            let src = self.vin(a, X15);
            let w = self.vwork(d);
            if to.bytes() == 32 {
                self.e(Inst::Vcvtdq2pd(w, src));
            } else {
                self.e(Inst::Cvtdq2pd(w, src));
            }
            self.vout(d, w);
            return;
        }
        // `d` is in slots. A register source is parked in d's upper half:
        // chunk k reads source bytes at `half + off / 2` before writing
        // `off .. off + c`, and earlier chunks wrote only below `off <=
        // half + off / 2`, so no source byte is overwritten before it is read.
        let parked = self.vreg(a).map(|x| {
            let half = to.bytes() / 2;
            self.e(Inst::VStore(width(half), self.vmem(d, half), x));
            half
        });
        for (off, c) in Self::chunks(to.bytes(), self.max_chunk()) {
            let src = match parked {
                Some(half) => self.vmem(d, half + off / 2),
                None => self.vmem(a, off / 2),
            };
            self.e(Inst::VLoad(width(c / 2), X15, src));
            if c == 32 {
                self.e(Inst::Vcvtdq2pd(X15, X15));
            } else {
                self.e(Inst::Cvtdq2pd(X15, X15));
            }
            self.e(Inst::VStore(width(c), self.vmem(d, off), X15));
        }
    }
}
