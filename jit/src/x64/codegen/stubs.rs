//! Out-of-line error stubs and epilogues. A fallible operation branches to
//! a stub ([`FnGen::stub`]) that records the error code and its operand
//! words (or, for an error a callee or helper already recorded, only the
//! site), appends the sites of the inlined calls open at the branch, and
//! jumps to the function's one error epilogue. Every epilogue returns the
//! status in the carry flag ([`FnGen::epilogue_code`]).

use super::FnGen;
use crate::ir::{ErrCode, SiteId};
use crate::x64::abi::{self, CTX};
use crate::x64::emit::{Alu, Cc, Inst, LoadKind, Mem, Scale, StoreKind, Target};
use crate::x64::emit::{RAX, RSP};
use crate::x64::regalloc::Loc;
use dynasmrt::DynamicLabel;

/// An operand word recorded by an error stub.
#[derive(Clone, Copy)]
pub(super) enum Opnd {
    Zero,
    Of(Loc),
}

/// What an out-of-line stub does before jumping to the epilogue.
pub(super) enum StubKind {
    Error {
        code: ErrCode,
        operands: [Opnd; 2],
    },
    /// An error is already recorded (by a callee or a helper): append the site.
    Site(SiteId),
}

pub(super) struct Stub {
    pub(super) label: DynamicLabel,
    pub(super) kind: StubKind,
    /// The inlined calls open where the stub is branched to (outermost
    /// first): the error unwinds through their sites too.
    pub(super) inline: Vec<SiteId>,
}

impl<'a, A: Target> FnGen<'a, A> {
    /// Free the frame, restore and return, with the status in CF (the
    /// activation needs no giving back: the body never wrote `r14`, see
    /// `depth.rs`): a normal return's last flag-writing instruction is `add
    /// rsp, S` (a stack address plus a frame size does not wrap) or, with no
    /// frame, `test rsp, rsp`, so CF = 0; the error epilogue (`failed`) does
    /// `cmp rsp, -1`, which borrows (rsp is never all ones), so CF = 1.
    /// `pop` and `ret` keep the flags.
    pub(super) fn epilogue_code(&mut self, failed: bool) {
        self.leave_avx();
        let freed = if self.mutate(crate::Mutation::EpilogueOffByEight) {
            self.frame + 8
        } else {
            self.frame
        };
        if freed != 0 {
            self.e(Inst::AluI(Alu::Add, RSP, freed));
        }
        if failed {
            self.e(Inst::AluI(Alu::Cmp, RSP, -1));
        } else if freed == 0 {
            self.e(Inst::Alu(Alu::Test, RSP, RSP));
        }
        for r in self.saved.clone().into_iter().rev() {
            self.e(Inst::Pop(r));
        }
        self.e(Inst::Ret);
    }

    pub(super) fn stub(&mut self, kind: StubKind) -> DynamicLabel {
        let label = self.label();
        let inline = self.inline.clone();
        self.stubs.push(Stub { label, kind, inline });
        label
    }

    pub(super) fn emit_stubs(&mut self) {
        for st in std::mem::take(&mut self.stubs) {
            self.em.bind(st.label);
            match st.kind {
                StubKind::Error { code, operands } => {
                    self.e(Inst::StoreImm32(abi::err_code(), code.get() as i32));
                    for (i, o) in operands.iter().enumerate() {
                        match *o {
                            Opnd::Zero => self.e(Inst::Alu(Alu::Xor, RAX, RAX)),
                            Opnd::Of(l) => self.load_bits(l, RAX),
                        }
                        self.e(Inst::Store(StoreKind::Q, abi::operand(i), RAX));
                    }
                }
                StubKind::Site(site) => self.append_site(site),
            }
            for &site in st.inline.iter().rev() {
                self.append_site(site);
            }
            self.e(Inst::Jmp(self.epilogue));
        }
    }

    /// Append `site` to the context's traceback (counted past its capacity).
    pub(super) fn append_site(&mut self, site: SiteId) {
        let skip = self.label();
        self.e(Inst::Load(LoadKind::D, RAX, abi::tb_len()));
        self.e(Inst::AluI(Alu::Cmp, RAX, crate::ir::TRACEBACK_CAP as i32));
        self.e(Inst::Jcc(Cc::Ae, skip));
        self.e(Inst::StoreImm32(
            Mem::indexed(CTX, RAX, Scale::S4, abi::tb_offset()),
            site.0 as i32,
        ));
        self.em.bind(skip);
        self.e(Inst::AluI(Alu::Add, RAX, 1));
        self.e(Inst::Store(StoreKind::D, abi::tb_len(), RAX));
    }
}
