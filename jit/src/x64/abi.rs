//! Register conventions and frame layout of the x86-64 backend (the README's
//! "Register conventions" section is the prose version of this file).
//!
//! - `r15`: pointer to the [`HelperCtx`] (pinned for the whole call);
//! - `r14`: remaining call depth as the caller passed it: an activation
//!   (a function's entry, an inlined call's enter) checks `r14 >= o`, `o`
//!   the activations its function holds then, and a call passes `r14 - o`
//!   (`sub` before, `add` after); nothing else writes it;
//! - `rax rcx rdx r11` and `xmm14 xmm15`: scratch, never allocated;
//! - allocatable: `rsi rdi r8 r9 r10` (caller-saved), `rbx r12 r13 rbp`
//!   (callee-saved, saved by the prologue when the function uses them),
//!   `xmm0`–`xmm13` (all caller-saved in SysV, so floats live across a call
//!   are spilled);
//! - frame (no frame pointer): `push` the used callee-saved registers;
//!   `sub rsp, S`; the outgoing stack arguments at `[rsp + 8j]`, spill slot
//!   `k` above them at `[rsp + 8·out + 8k]`; `rsp` is 16-aligned in the body
//!   and never moves there.

use super::emit::{Gpr, Mem, Xmm, R10, R12, R13, R15, R8, R9, RBP, RBX, RCX, RDI, RDX, RSI};
use crate::ir::{Class, Ty};
use crate::runtime::HelperCtx;
use std::mem::offset_of;

pub const CTX: Gpr = R15;
pub const DEPTH: Gpr = super::emit::R14;
pub const SCRATCH_XMM0: Xmm = Xmm(14);
pub const SCRATCH_XMM1: Xmm = Xmm(15);

/// Allocatable GPRs that survive calls.
pub const CALLEE_SAVED: [Gpr; 4] = [RBX, R12, R13, RBP];
/// Allocatable GPRs, caller-saved first (preferred for values not live across a call).
pub const ALLOC_GPRS: [Gpr; 9] = [RSI, RDI, R8, R9, R10, RBX, R12, R13, RBP];
/// Allocatable SSE registers.
pub const ALLOC_XMMS: u8 = 14;

/// SysV integer argument registers.
pub const INT_ARGS: [Gpr; 6] = [RDI, RSI, RDX, RCX, R8, R9];
/// SysV float argument registers: xmm0..xmm7.
pub const FLOAT_ARGS: u8 = 8;

pub fn ctx_field(off: usize) -> Mem {
    Mem::base(CTX, off as i32)
}
pub fn err_code() -> Mem {
    ctx_field(offset_of!(HelperCtx, err_code))
}
pub fn operand(i: usize) -> Mem {
    ctx_field(offset_of!(HelperCtx, operands) + 8 * i)
}
pub fn tb_len() -> Mem {
    ctx_field(offset_of!(HelperCtx, tb_len))
}
pub fn tb_offset() -> i32 {
    offset_of!(HelperCtx, tb) as i32
}
pub fn ret_slot(i: usize) -> Mem {
    ctx_field(offset_of!(HelperCtx, ret) + 8 * i)
}

/// Where one argument (or parameter) travels.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ArgLoc {
    Gpr(Gpr),
    Xmm(Xmm),
    /// `[rsp + 8j]` at the call, above the return address in the callee.
    Stack(u32),
}

/// SysV assignment of arguments; `ctx_first` reserves `rdi` for the context.
pub fn arg_locs(tys: &[Ty], ctx_first: bool) -> Vec<ArgLoc> {
    arg_locs_of(tys.iter().copied(), ctx_first).collect()
}

/// [`arg_locs`] one argument at a time (the call sequence and the
/// allocator's hints, without a list per call).
pub fn arg_locs_of(tys: impl IntoIterator<Item = Ty>, ctx_first: bool) -> impl Iterator<Item = ArgLoc> {
    let (mut ni, mut nf, mut ns) = (ctx_first as usize, 0u8, 0u32);
    tys.into_iter().map(move |t| match t.class() {
        Class::Int if ni < INT_ARGS.len() => {
            ni += 1;
            ArgLoc::Gpr(INT_ARGS[ni - 1])
        }
        Class::Float if nf < FLOAT_ARGS => {
            nf += 1;
            ArgLoc::Xmm(Xmm(nf - 1))
        }
        _ => {
            ns += 1;
            ArgLoc::Stack(ns - 1)
        }
    })
}

/// Where results travel: at most two of each class in registers
/// (`rax rdx`, `xmm0 xmm1`); otherwise every result goes through the
/// context's return area (`None`).
pub fn result_regs(tys: &[Ty]) -> Option<Vec<ArgLoc>> {
    let ints = tys.iter().filter(|t| t.class() == Class::Int).count();
    if ints > 2 || tys.len() - ints > 2 {
        return None;
    }
    let (mut ni, mut nf) = (0, 0u8);
    Some(
        tys.iter()
            .map(|t| match t.class() {
                Class::Int => {
                    ni += 1;
                    ArgLoc::Gpr([super::emit::RAX, RDX][ni - 1])
                }
                Class::Float => {
                    nf += 1;
                    ArgLoc::Xmm(Xmm(nf - 1))
                }
                Class::Vector => unreachable!("verified: a vector is never a result"),
            })
            .collect(),
    )
}

/// Whether a GPR is preserved across calls by the callee.
pub fn is_callee_saved(r: Gpr) -> bool {
    CALLEE_SAVED.contains(&r)
}

/// Scratch GPRs (documented; used by codegen by name).
pub const SCRATCH: [Gpr; 4] = [super::emit::RAX, RCX, RDX, super::emit::R11];
