//! The runtime helpers of the `unsafe` memory operations (`ptr_copy`,
//! `ptr_setbytes`, `ptr_cmp`, their `_slice` forms, the byte shims). The
//! machine code passes the integer arguments one by one (`mem_arg`), then
//! `mem_check` applies upstream's checks through the interpreter's own
//! `memops::plan` (same panic texts, same order) and keeps the plan; then
//! one call per part buffer of the items copies, fills or compares bytes
//! (`memops::filled_scalar`, `memops::compare_bytes`). Buffers are found by
//! their address among the run's buffers and read as little-endian bytes of
//! their words: no raw memory access here.

use spy_jit::ir::{ErrCode, Word};
use spy_jit::runtime::{CtxPtr, HelperCtx};

use super::helpers::{with, RunState};
use crate::error::ExcKind;
use crate::lower::layout::{prim_of_code, word_of_scalar};
use crate::vm::ops::memops::{self, MemOp, MemPlan};
use crate::vm::ops::OpError;

/// The fill code of a part that only byte 0 can fill (a pointer's parts).
pub const FILL_ZERO: Word = u64::MAX;

pub(super) fn buffer(st: &mut RunState, addr: u64) -> &mut [u64] {
    st.buffers
        .iter_mut()
        .find(|b| b.as_ptr() as u64 == addr)
        .expect("a pointer's buffer is one of the run's")
}

pub(super) fn byte_at(buf: &[u64], k: usize) -> u8 {
    buf[k / 8].to_le_bytes()[k % 8]
}

pub(super) fn set_byte(buf: &mut [u64], k: usize, b: u8) {
    let mut w = buf[k / 8].to_le_bytes();
    w[k % 8] = b;
    buf[k / 8] = u64::from_le_bytes(w);
}

/// The bytes of items `start..start + n` of a part of `size` bytes.
fn read(st: &mut RunState, addr: u64, start: i64, n: i64, size: u64) -> Vec<u8> {
    let from = start as usize * size as usize;
    let len = n as usize * size as usize;
    let buf = buffer(st, addr);
    (from..from + len).map(|k| byte_at(buf, k)).collect()
}

fn write(st: &mut RunState, addr: u64, start: i64, size: u64, bytes: &[u8]) {
    let from = start as usize * size as usize;
    let buf = buffer(st, addr);
    for (k, &b) in bytes.iter().enumerate() {
        set_byte(buf, from + k, b);
    }
}

fn plan(st: &RunState) -> MemPlan {
    st.mem_plan.expect("mem_check ran before the part operations")
}

/// The buffer of part `j` of the items of the allocation whose table is at
/// `table` (`layout`: a pointer to items stored by parts), or 0 for NULL.
pub(super) extern "C" fn mem_part(ctx: CtxPtr<'_>, table: u64, j: u64) -> u64 {
    with(ctx, |st, _| {
        if table == 0 {
            return 0;
        }
        buffer(st, table)[j as usize]
    })
}

/// One integer argument of the memory operation being called.
pub(super) extern "C" fn mem_arg(ctx: CtxPtr<'_>, x: u64) {
    with(ctx, |st, _| st.mem_args.push(x as i64))
}

/// Upstream's checks of operation `op` (its place in `MemOp::ALL`) on the
/// arguments passed so far: `PanicError: <op> out of bounds` and the
/// others, as ASTFrame raises them. Then `wip` (an error code, 0 for
/// none) is raised when the operation has no implementation for these
/// items: `ptr_cmp` of items that are not primitive, `ptr_setbytes` of a
/// byte other than 0 into items with parts only 0 fills.
pub(super) extern "C" fn mem_check(
    ctx: CtxPtr<'_>,
    op: u64,
    dst_len: u64,
    src_len: u64,
    same: u64,
    wip: u64,
) {
    with(ctx, |st, c| {
        let op = MemOp::ALL[op as usize];
        let mut ints = std::mem::take(&mut st.mem_args);
        // the pointer positions are not passed: put placeholders back
        for &k in op.pointer_args() {
            ints.insert(k.min(ints.len()), 0);
        }
        match memops::plan(op, &ints, dst_len as i64, src_len as i64, same != 0) {
            Ok(p) => {
                st.mem_plan = Some(p);
                let needs_wip = match op.kind() {
                    memops::MemKind::Setbytes => p.byte != 0,
                    memops::MemKind::Cmp => true,
                    memops::MemKind::Copy { .. } => false,
                };
                if needs_wip {
                    if let Some(code) = ErrCode::new(wip as u32) {
                        c.raise(code, [0, 0]);
                    }
                }
            }
            Err(what) => {
                let message = format!("{} {what}", op.forwarded().name());
                let e = OpError::Static {
                    kind: ExcKind::PanicError,
                    message,
                };
                st.raise(c, e);
            }
        }
    })
}

/// Copy the planned items of one part (`size` bytes each) from `src` to
/// `dst` (as `memmove`: the source is read first).
pub(super) extern "C" fn mem_copy(ctx: CtxPtr<'_>, dst: u64, src: u64, size: u64) {
    with(ctx, |st, _| {
        let p = plan(st);
        if p.n == 0 {
            return;
        }
        let bytes = read(st, src, p.src_start, p.n, size);
        write(st, dst, p.dst_start, size, &bytes);
    })
}

/// Fill the planned items of one part with the plan's byte: a primitive
/// part (`fill` its code) as `memops::filled_scalar` (a `bool` is 0 or 1),
/// a [`FILL_ZERO`] part with zeros (`mem_check` raised for another byte).
pub(super) extern "C" fn mem_fill(ctx: CtxPtr<'_>, dst: u64, size: u64, fill: u64) {
    with(ctx, |st, _| {
        let p = plan(st);
        if p.n == 0 {
            return;
        }
        let one: Vec<u8> = match prim_of_code(fill) {
            Some(t) => {
                word_of_scalar(memops::filled_scalar(t, p.byte)).to_le_bytes()[..size as usize].to_vec()
            }
            None => vec![0; size as usize],
        };
        let bytes = one.repeat(p.n as usize);
        write(st, dst, p.dst_start, size, &bytes);
    })
}

/// Compare the planned items of a primitive part (`size` bytes each) of
/// `a` and `b` as C's `memcmp`.
pub(super) extern "C" fn mem_cmp(ctx: CtxPtr<'_>, a: u64, b: u64, size: u64) -> u64 {
    with(ctx, |st, _: &mut HelperCtx| {
        let p = plan(st);
        if p.n == 0 {
            return 0;
        }
        let xs = read(st, a, p.dst_start, p.n, size);
        let ys = read(st, b, p.src_start, p.n, size);
        memops::compare_bytes(xs, ys) as i64 as u64
    })
}
