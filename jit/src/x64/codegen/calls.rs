//! The call sequence: incoming parameters to their homes, outgoing
//! arguments (stack words, then registers by one parallel move through
//! r11 / xmm15 for cycles), results back to their homes, the status checks
//! after a helper call (the context's error slot) and after a JIT→JIT call
//! (the carry flag), and the frame's outgoing-argument needs.

use super::stubs::StubKind;
use super::FnGen;
use crate::ir::{Block, Module, SiteId, Stmt, Ty, VReg};
use crate::x64::abi::{self, ArgLoc, SCRATCH_XMM1 as X15};
use crate::x64::emit::{Cc, Inst, LoadKind, Mem, StoreKind, Target};
use crate::x64::emit::{R11, RAX, RSP};
use crate::x64::regalloc::Loc;

/// The register a result travels in (results never go on the stack).
pub(super) fn result_loc(l: ArgLoc) -> Loc {
    match l {
        ArgLoc::Gpr(r) => Loc::Gpr(r),
        ArgLoc::Xmm(x) => Loc::Xmm(x),
        ArgLoc::Stack(_) => unreachable!("results are in registers"),
    }
}

/// Largest number of argument words and outgoing stack words of any call in `b`.
pub(super) fn call_needs(m: &Module, b: &Block, acc: &mut (u32, u32)) {
    for s in &b.0 {
        match s {
            Stmt::Call { func, args, .. } => {
                let stack = abi::arg_locs_of(m.function(*func).param_tys_iter(), false)
                    .filter(|l| matches!(l, ArgLoc::Stack(_)))
                    .count();
                acc.0 = acc.0.max(args.len() as u32);
                acc.1 = acc.1.max(stack as u32);
            }
            Stmt::CallHelper { helper, args, .. } => {
                let h = m.helper(*helper);
                let stack = abi::arg_locs_of(h.params.iter().copied(), h.takes_ctx)
                    .filter(|l| matches!(l, ArgLoc::Stack(_)))
                    .count();
                acc.0 = acc.0.max(args.len() as u32);
                acc.1 = acc.1.max(stack as u32);
            }
            Stmt::If { then_, else_, .. } => {
                call_needs(m, then_, acc);
                call_needs(m, else_, acc);
            }
            Stmt::Loop { body } => call_needs(m, body, acc),
            _ => {}
        }
    }
}

impl<'a, A: Target> FnGen<'a, A> {
    pub(super) fn params(&mut self) {
        let f = self.f;
        let mut moves = self.move_list();
        let mut stack = vec![];
        for (&p, l) in f.params.iter().zip(abi::arg_locs_of(f.param_tys_iter(), false)) {
            let Some(home) = self.alloc.locs[p.index()] else {
                continue;
            };
            match l {
                ArgLoc::Gpr(r) => moves.push((home, Loc::Gpr(r))),
                ArgLoc::Xmm(x) => moves.push((home, Loc::Xmm(x))),
                ArgLoc::Stack(j) => stack.push((home, j)),
            }
        }
        self.parallel_move(moves);
        let above = self.frame + 8 * self.saved.len() as i32 + 8;
        for (home, j) in stack {
            let m = Mem::base(RSP, above + 8 * j as i32);
            match home {
                Loc::Gpr(r) => self.e(Inst::Load(LoadKind::Q, r, m)),
                Loc::Xmm(x) => self.e(Inst::MovsdLoad(x, m)),
                l => {
                    self.e(Inst::Load(LoadKind::Q, RAX, m));
                    self.store_bits(l, RAX);
                }
            }
        }
    }

    /// An empty list for [`FnGen::parallel_move`] (its buffer, reused).
    pub(super) fn move_list(&mut self) -> Vec<(Loc, Loc)> {
        let mut v = std::mem::take(&mut self.move_buf);
        v.clear();
        v
    }

    /// Move every `(dst, src)` at once: a move runs when no pending move
    /// still reads its destination; a cycle goes through r11 / xmm15.
    /// Immediates are written last (nothing reads them, and an immediate to
    /// an SSE register goes through r11).
    pub(super) fn parallel_move(&mut self, mut pend: Vec<(Loc, Loc)>) {
        let mut imms = std::mem::take(&mut self.move_imms);
        imms.clear();
        pend.retain(|&(d, s)| match s {
            _ if d == s => false,
            Loc::Imm(_) => {
                imms.push((d, s));
                false
            }
            _ => true,
        });
        while !pend.is_empty() {
            let ready = (0..pend.len()).find(|&i| {
                let d = pend[i].0;
                !pend.iter().enumerate().any(|(j, m)| j != i && m.1 == d)
            });
            match ready {
                Some(i) => {
                    let (d, s) = pend.remove(i);
                    self.mov_loc(d, s);
                }
                None => {
                    // A cycle: park the first destination's value in scratch.
                    let d = pend[0].0;
                    let tmp = match d {
                        Loc::Xmm(_) => Loc::Xmm(X15),
                        _ => Loc::Gpr(R11),
                    };
                    self.mov_loc(tmp, d);
                    for m in pend.iter_mut() {
                        if m.1 == d {
                            m.1 = tmp;
                        }
                    }
                }
            }
        }
        for &(d, s) in &imms {
            self.mov_loc(d, s);
        }
        self.move_imms = imms;
        self.move_buf = pend;
    }

    /// One move between locations of one value (r11 is the only scratch).
    pub(super) fn mov_loc(&mut self, d: Loc, s: Loc) {
        match (d, s) {
            _ if d == s => {}
            (Loc::Imm(_), _) => unreachable!("an immediate is never written"),
            (Loc::Gpr(r), _) => self.load_bits(s, r),
            (Loc::Xmm(x), _) => self.float_into_loc(s, x),
            (Loc::Slot(k), Loc::Gpr(r)) => self.e(Inst::Store(StoreKind::Q, self.slot(k), r)),
            (Loc::Slot(k), Loc::Xmm(x)) => self.e(Inst::MovsdStore(self.slot(k), x)),
            (Loc::Slot(k), _) => {
                self.load_bits(s, R11);
                self.e(Inst::Store(StoreKind::Q, self.slot(k), R11));
            }
        }
    }

    /// After a helper call: an error recorded in the context unwinds
    /// through `site`.
    pub(super) fn check_error(&mut self, site: SiteId) {
        let l = self.stub(StubKind::Site(site));
        self.e(Inst::CmpMemImm32(abi::err_code(), 0));
        self.e(Inst::Jcc(Cc::Ne, l));
    }

    /// After a JIT→JIT call: the callee's carry flag (see `epilogue_code`)
    /// says it failed; its error is recorded in the context, and unwinds
    /// through `site`.
    pub(super) fn check_call_status(&mut self, site: SiteId) {
        let l = self.stub(StubKind::Site(site));
        self.e(Inst::Jcc(Cc::B, l));
    }

    pub(super) fn call_args(&mut self, args: &[VReg], locs: impl Iterator<Item = ArgLoc>) {
        // Stack arguments first (through rax, which no argument lives in),
        // then the registers by one parallel move.
        let mut moves = self.move_list();
        for (&a, l) in args.iter().zip(locs) {
            let home = self.loc(a);
            match l {
                ArgLoc::Stack(j) => {
                    self.load_bits(home, RAX);
                    self.e(Inst::Store(StoreKind::Q, Mem::base(RSP, 8 * j as i32), RAX));
                }
                ArgLoc::Gpr(r) => moves.push((Loc::Gpr(r), home)),
                ArgLoc::Xmm(x) => moves.push((Loc::Xmm(x), home)),
            }
        }
        self.parallel_move(moves);
    }

    pub(super) fn call_results(&mut self, results: &[VReg], tys: &[Ty]) {
        match abi::result_regs(tys) {
            Some(locs) => {
                // A narrow integer result comes back loose (`crate::x64::loose`).
                for ((&d, l), &ty) in results.iter().zip(&locs).zip(tys) {
                    if let (ArgLoc::Gpr(r), false) = (*l, self.loose.loose(d)) {
                        self.canon(ty, r);
                    }
                }
                let mut moves = self.move_list();
                moves.extend(
                    results
                        .iter()
                        .zip(&locs)
                        .map(|(&d, l)| (self.loc(d), result_loc(*l)))
                        .filter(|(d, _)| !matches!(d, Loc::Imm(_))),
                );
                self.parallel_move(moves);
            }
            None => {
                for (i, &d) in results.iter().enumerate() {
                    self.e(Inst::Load(LoadKind::Q, RAX, abi::ret_slot(i)));
                    self.store_int(d, RAX);
                }
            }
        }
    }
}
