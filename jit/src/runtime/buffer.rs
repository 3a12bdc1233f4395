//! The front end's zeroed buffers (pointer memory of `gc_alloc`): word
//! arrays at a fixed address for the run, zero when made, and never
//! written here before the program touches them (as C's `calloc`).
//!
//! A small buffer comes from the global allocator (`alloc_zeroed`). A large
//! one ([`HUGE_FROM`] bytes and up) is its own anonymous mapping, aligned
//! to 2 MiB, with `madvise(MADV_HUGEPAGE)`: the kernel then fills it with
//! transparent huge pages on first touch where it can, one page fault and
//! one zeroing per 2 MiB instead of 512 faults of 4 KiB. The hint changes
//! no value the program sees (fresh anonymous memory reads as zero either
//! way); where the kernel has no huge page at hand, or THP is off, the
//! mapping is filled with small pages as any other.

use std::ops::{Deref, DerefMut};
use std::ptr::NonNull;

/// The huge page size of x86-64.
const HUGE_PAGE: usize = 2 << 20;

/// Buffers of at least this many bytes are mapped with the huge-page hint
/// (a buffer at least two huge pages long: the unused tail of the last one,
/// which the kernel may fill too, is then at most a third of the buffer).
pub const HUGE_FROM: usize = 2 * HUGE_PAGE;

/// Where a buffer's memory comes from (and goes back to).
enum Source {
    /// The global allocator, with the layout of `[u64; len]`.
    Heap,
    /// An anonymous mapping of `total` bytes at `base`.
    #[cfg(unix)]
    Mapping { base: *mut libc::c_void, total: usize },
}

/// `len` words, zero when made, at a fixed address until dropped.
pub struct ZeroedWords {
    ptr: NonNull<u64>,
    len: usize,
    source: Source,
}

// SAFETY: the buffer owns its memory exclusively (as a `Vec<u64>` does);
// the raw pointers are only its address.
unsafe impl Send for ZeroedWords {}

impl ZeroedWords {
    /// `n` zero words (at least one), or `None` when the memory cannot be
    /// had.
    pub fn new(n: usize) -> Option<ZeroedWords> {
        let n = n.max(1);
        let bytes = n.checked_mul(8)?;
        #[cfg(unix)]
        if bytes >= HUGE_FROM {
            return Self::mapped(n, bytes);
        }
        Self::heap(n)
    }

    fn heap(n: usize) -> Option<ZeroedWords> {
        let layout = std::alloc::Layout::array::<u64>(n).ok()?;
        // SAFETY: `layout` has a non-zero size (n >= 1).
        let p = unsafe { std::alloc::alloc_zeroed(layout) } as *mut u64;
        Some(ZeroedWords {
            ptr: NonNull::new(p)?,
            len: n,
            source: Source::Heap,
        })
    }

    /// A mapping of `bytes` rounded up to huge pages, aligned to one.
    #[cfg(unix)]
    fn mapped(n: usize, bytes: usize) -> Option<ZeroedWords> {
        let len = bytes.checked_next_multiple_of(HUGE_PAGE)?;
        // One huge page more than needed, to cut an aligned run out of it.
        let total = len.checked_add(HUGE_PAGE)?;
        // SAFETY: an anonymous private mapping at an address of the
        // kernel's choice; no existing memory is affected.
        let base = unsafe {
            libc::mmap(
                std::ptr::null_mut(),
                total,
                libc::PROT_READ | libc::PROT_WRITE,
                libc::MAP_PRIVATE | libc::MAP_ANONYMOUS,
                -1,
                0,
            )
        };
        if base == libc::MAP_FAILED {
            return None;
        }
        let start = (base as usize).next_multiple_of(HUGE_PAGE);
        let (head, tail) = (start - base as usize, total - (start - base as usize) - len);
        // SAFETY: [base, start) and [start + len, base + total) lie inside
        // the mapping made above and hold nothing; what stays mapped is
        // [start, start + len).
        unsafe {
            if head > 0 {
                libc::munmap(base, head);
            }
            if tail > 0 {
                libc::munmap((start + len) as *mut libc::c_void, tail);
            }
        }
        // A hint: its failure (THP not built in) leaves small pages.
        // SAFETY: [start, start + len) is the mapping kept above.
        unsafe { libc::madvise(start as *mut libc::c_void, len, libc::MADV_HUGEPAGE) };
        Some(ZeroedWords {
            ptr: NonNull::new(start as *mut u64)?,
            len: n,
            source: Source::Mapping {
                base: start as *mut libc::c_void,
                total: len,
            },
        })
    }

    /// Whether the buffer is a mapping with the huge-page hint.
    pub fn is_mapped(&self) -> bool {
        !matches!(self.source, Source::Heap)
    }
}

impl Deref for ZeroedWords {
    type Target = [u64];
    fn deref(&self) -> &[u64] {
        // SAFETY: `ptr` points to `len` initialised words (zero bytes are
        // a valid `u64`) owned by `self` for its lifetime.
        unsafe { std::slice::from_raw_parts(self.ptr.as_ptr(), self.len) }
    }
}

impl DerefMut for ZeroedWords {
    fn deref_mut(&mut self) -> &mut [u64] {
        // SAFETY: as for `deref`, and `&mut self` is the only access.
        unsafe { std::slice::from_raw_parts_mut(self.ptr.as_ptr(), self.len) }
    }
}

impl Drop for ZeroedWords {
    fn drop(&mut self) {
        match self.source {
            Source::Heap => {
                let layout = std::alloc::Layout::array::<u64>(self.len).expect("made with this layout");
                // SAFETY: allocated by the global allocator with `layout`
                // in `heap`, not freed before.
                unsafe { std::alloc::dealloc(self.ptr.as_ptr().cast(), layout) };
            }
            #[cfg(unix)]
            Source::Mapping { base, total } => {
                // SAFETY: the mapping kept by `mapped`, unmapped only here.
                unsafe { libc::munmap(base, total) };
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn small_and_large_buffers_are_zero_and_writable() {
        for n in [
            0,
            1,
            3,
            4096,
            HUGE_FROM / 8 - 1,
            HUGE_FROM / 8,
            HUGE_FROM / 8 + 5,
            3 * HUGE_PAGE / 8 + 1,
        ] {
            let mut b = ZeroedWords::new(n).expect("memory");
            assert_eq!(b.len(), n.max(1));
            assert_eq!(b.is_mapped(), cfg!(unix) && n * 8 >= HUGE_FROM, "{n}");
            assert!(b.iter().all(|&w| w == 0));
            let last = b.len() - 1;
            b[last] = 9;
            b[0] = 7;
            assert_eq!((b[0], b[last]), (7, if last == 0 { 7 } else { 9 }));
            if b.is_mapped() {
                assert_eq!(b.as_ptr() as usize % HUGE_PAGE, 0);
            }
        }
    }
}
