//! Raw loads and stores through IR pointers, for the evaluator (the machine
//! code does the same accesses itself). The IR's memory contract: a non-null
//! `Ptr` passed with length `len` points to `len` elements of the accessed
//! type, valid for reads and writes, for the whole call; the front end's
//! runtime guarantees it. Null and bounds checks happen before these run.

use crate::ir::{sem, Ty, Word};

/// Read element `index` of type `ty` at `ptr`, in canonical form.
pub(crate) fn load(ty: Ty, ptr: Word, index: Word) -> Word {
    let addr = ptr.wrapping_add(index.wrapping_mul(u64::from(ty.size()))) as usize;
    // SAFETY: the IR memory contract (module comment): the caller checked
    // `ptr != 0` and `index < len`, so `addr` is inside the buffer; reads are
    // unaligned-tolerant.
    let raw = unsafe {
        match ty.size() {
            1 => u64::from((addr as *const u8).read_unaligned()),
            4 => u64::from((addr as *const u32).read_unaligned()),
            _ => (addr as *const u64).read_unaligned(),
        }
    };
    match ty {
        Ty::Bool => (raw != 0) as u64,
        _ => sem::canon(ty, raw),
    }
}

/// Write `value` as element `index` of type `ty` at `ptr`.
pub(crate) fn store(ty: Ty, ptr: Word, index: Word, value: Word) {
    let addr = ptr.wrapping_add(index.wrapping_mul(u64::from(ty.size()))) as usize;
    // SAFETY: as for `load`.
    unsafe {
        match ty.size() {
            1 => (addr as *mut u8).write_unaligned(value as u8),
            4 => (addr as *mut u32).write_unaligned(value as u32),
            _ => (addr as *mut u64).write_unaligned(value),
        }
    }
}
