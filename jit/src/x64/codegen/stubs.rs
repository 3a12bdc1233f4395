//! Out-of-line error stubs and epilogues. A fallible operation branches to
//! a stub ([`FnGen::stub`]) that records the error code and its operand
//! words (or, for an error a callee or helper already recorded, only the
//! site), appends the sites of the inlined calls open at the branch, and
//! jumps to the function's one error epilogue. Every epilogue returns the
//! status in the carry flag ([`FnGen::epilogue_code`]).

use super::FnGen;
use crate::ir::{ErrCode, SiteId};
use crate::x64::abi::{self, CTX};
use crate::x64::emit::{Alu, Cc, Emitter, Inst, LoadKind, Mem, Scale, StoreKind, Target};
use crate::x64::emit::{RAX, RSP};
use crate::x64::regalloc::Loc;
use dynasmrt::x64::X64Relocation;
use dynasmrt::{DynamicLabel, VecAssembler};

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
    /// first): the error unwinds through their sites too. A range of
    /// `FnGen::inline_log`.
    pub(super) inline: (u32, u32),
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
        let inline = match self.inline_saved {
            Some(r) => r,
            None => {
                let start = self.inline_log.len() as u32;
                self.inline_log.extend_from_slice(&self.inline);
                let r = (start, self.inline_log.len() as u32);
                self.inline_saved = Some(r);
                r
            }
        };
        self.stubs.push(Stub { label, kind, inline });
        label
    }

    pub(super) fn emit_stubs(&mut self) {
        let mut stubs = std::mem::take(&mut self.stubs);
        for st in stubs.drain(..) {
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
            for k in (st.inline.0..st.inline.1).rev() {
                self.append_site(self.inline_log[k as usize]);
            }
            self.e(Inst::Jmp(self.epilogue));
        }
        self.stubs = stubs;
    }

    /// Append `site` to the context's traceback (counted past its capacity):
    /// [`append_site_code`]'s instructions, copied from their encoding for
    /// site 0 with the site written in ([`AppendSite`]).
    pub(super) fn append_site(&mut self, site: SiteId) {
        let t = AppendSite::get();
        let mut bytes = t.bytes;
        bytes[t.site_at..t.site_at + 4].copy_from_slice(&site.0.to_le_bytes());
        self.em.emit_encoded(&bytes[..t.len], t.insts);
    }
}

/// Append `site` to the context's traceback (counted past its capacity):
/// `tb[tb_len] = site` when `tb_len` is below the capacity, `tb_len += 1`
/// either way. Its code does not depend on where it is (the one jump stays
/// inside it), so stubs copy it ([`AppendSite`]).
pub(super) fn append_site_code<A: Target>(em: &mut Emitter<A>, site: SiteId) {
    let skip = em.new_label();
    em.emit(Inst::Load(LoadKind::D, RAX, abi::tb_len()));
    em.emit(Inst::AluI(Alu::Cmp, RAX, crate::ir::TRACEBACK_CAP as i32));
    em.emit(Inst::Jcc(Cc::Ae, skip));
    em.emit(Inst::StoreImm32(
        Mem::indexed(CTX, RAX, Scale::S4, abi::tb_offset()),
        site.0 as i32,
    ));
    em.bind(skip);
    em.emit(Inst::AluI(Alu::Add, RAX, 1));
    em.emit(Inst::Store(StoreKind::D, abi::tb_len(), RAX));
}

/// [`append_site_code`] encoded once (for site 0): an error stub appends
/// one site per open inlined call, about a third of a fuzzed program's
/// instructions, and copying these bytes with the site's four written in
/// costs a fraction of encoding them anew (a label, a relocation, six
/// encodings). The site is where the encodings for sites 0 and `u32::MAX`
/// differ (the store's imm32); `tests` compares the copy with the encoding
/// for every kind of site value.
struct AppendSite {
    bytes: [u8; AppendSite::CAP],
    len: usize,
    site_at: usize,
    insts: usize,
}

impl AppendSite {
    const CAP: usize = 64;

    fn get() -> &'static AppendSite {
        static ONCE: std::sync::OnceLock<AppendSite> = std::sync::OnceLock::new();
        ONCE.get_or_init(|| {
            let encode = |site| {
                let mut em = Emitter::new(VecAssembler::<X64Relocation>::new(0));
                append_site_code(&mut em, SiteId(site));
                (em.count, em.asm.finalize().expect("the one label is bound"))
            };
            let (insts, code) = encode(0);
            let (_, ones) = encode(u32::MAX);
            // The site's immediate: the only bytes the two encodings differ in.
            let differ: Vec<usize> = (0..code.len()).filter(|&i| code[i] != ones[i]).collect();
            let site_at = differ[0];
            assert!(
                ones.len() == code.len() && differ == (site_at..site_at + 4).collect::<Vec<_>>(),
                "the site is one imm32 of the traceback append"
            );
            let mut bytes = [0; AppendSite::CAP];
            bytes[..code.len()].copy_from_slice(&code);
            AppendSite {
                bytes,
                len: code.len(),
                site_at,
                insts,
            }
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The copied code is, byte for byte and instruction count, what the
    /// emitter encodes, at any offset and for any site.
    #[test]
    fn the_copied_traceback_append_is_the_encoded_one() {
        for site in [0, 1, 0x7f, 0x80, 0xffff, 0x7fff_ffff, 0x8000_0000, u32::MAX] {
            for pad in [0, 1, 7, 200] {
                let mut enc = Emitter::new(VecAssembler::<X64Relocation>::new(0));
                let mut cop = Emitter::new(VecAssembler::<X64Relocation>::new(0));
                for _ in 0..pad {
                    enc.emit(Inst::Ret);
                    cop.emit(Inst::Ret);
                }
                append_site_code(&mut enc, SiteId(site));
                let t = AppendSite::get();
                let mut bytes = t.bytes;
                bytes[t.site_at..t.site_at + 4].copy_from_slice(&site.to_le_bytes());
                cop.emit_encoded(&bytes[..t.len], t.insts);
                assert_eq!(enc.count, cop.count);
                assert_eq!(enc.flags_of(), cop.flags_of());
                let (a, b) = (enc.asm.finalize().unwrap(), cop.asm.finalize().unwrap());
                assert_eq!(a, b, "site {site:#x} after {pad} bytes");
            }
        }
    }
}
