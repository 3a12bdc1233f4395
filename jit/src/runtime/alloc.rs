//! A global allocator for the binaries (feature `mimalloc`): mimalloc
//! through its plain entry points.
//!
//! It lives in the jit crate's runtime because a `GlobalAlloc` can only be
//! written with `unsafe`, which the project keeps to this crate; the crate
//! itself does not install it (`spy-interp`'s binary does). The `mimalloc`
//! crate's own `MiMalloc` passes every
//! request to `mi_malloc_aligned`/`mi_realloc_aligned`, whose alignment
//! checks cost the fuzz worker 2.6 % of its instructions (callgrind,
//! `fuzz --cases 200 --seed 31 --jobs 1`; fuzz/README.md "Throughput").
//! Here a request whose alignment every mimalloc block already has goes
//! to `mi_malloc`/`mi_zalloc`/`mi_realloc`, as jemallocator does for its
//! allocator; any other takes the aligned entry point.
//!
//! Safety of the whole module: mimalloc's size classes are multiples of
//! the machine word and its blocks start at word-aligned addresses, so
//! every block `mi_malloc` returns is aligned to `PLAIN_ALIGN` (8 bytes);
//! `mi_free` frees blocks of either entry point; a null return is passed
//! on as the `GlobalAlloc` contract wants (the caller reports the
//! allocation failure).

use std::alloc::{GlobalAlloc, Layout};
use std::ffi::c_void;

use libmimalloc_sys::{
    mi_free, mi_malloc, mi_malloc_aligned, mi_realloc, mi_realloc_aligned, mi_zalloc, mi_zalloc_aligned,
};

/// The alignment every block of mimalloc has (one machine word).
const PLAIN_ALIGN: usize = std::mem::size_of::<usize>();

/// mimalloc, plain entry points where the alignment allows.
pub struct MiMallocPlain;

unsafe impl GlobalAlloc for MiMallocPlain {
    #[inline]
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        // SAFETY: mimalloc's allocation functions accept any size; the
        // alignment is a power of two (a `Layout` invariant).
        unsafe {
            if layout.align() <= PLAIN_ALIGN {
                mi_malloc(layout.size()) as *mut u8
            } else {
                mi_malloc_aligned(layout.size(), layout.align()) as *mut u8
            }
        }
    }

    #[inline]
    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        // SAFETY: as in `alloc`.
        unsafe {
            if layout.align() <= PLAIN_ALIGN {
                mi_zalloc(layout.size()) as *mut u8
            } else {
                mi_zalloc_aligned(layout.size(), layout.align()) as *mut u8
            }
        }
    }

    #[inline]
    unsafe fn dealloc(&self, ptr: *mut u8, _layout: Layout) {
        // SAFETY: `ptr` came from this allocator (the `GlobalAlloc`
        // contract), so from mimalloc.
        unsafe { mi_free(ptr as *mut c_void) }
    }

    #[inline]
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        // SAFETY: `ptr` came from this allocator with `layout`; the new
        // block keeps `layout.align()` (plain blocks are word-aligned).
        unsafe {
            if layout.align() <= PLAIN_ALIGN {
                mi_realloc(ptr as *mut c_void, new_size) as *mut u8
            } else {
                mi_realloc_aligned(ptr as *mut c_void, new_size, layout.align()) as *mut u8
            }
        }
    }
}

extern "C" {
    /// mimalloc's `mi_collect` and `mi_option_set` (its `extended` API,
    /// declared here rather than through the `-sys` crate's feature, which
    /// would add a dependency for two functions).
    fn mi_collect(force: bool);
    fn mi_option_set(option: std::ffi::c_int, value: std::ffi::c_long);
}

/// `mi_option_purge_delay` in mimalloc 2's `mi_option_t` (the `v2`
/// feature of the `-sys` crate: `mimalloc.h`, the 16th option).
const MI_OPTION_PURGE_DELAY: std::ffi::c_int = 15;

/// Purge freed pages at once from now on (mimalloc's purge delay 0, not
/// 10 ms): see [`super::return_freed_pages_at_once`].
pub fn purge_at_once() {
    // SAFETY: `mi_option_set` takes no pointer; a purge delay of 0 is one
    // of its documented values (immediate purging).
    unsafe { mi_option_set(MI_OPTION_PURGE_DELAY, 0) }
}

/// Give the pages of freed blocks back to the system now, not after
/// mimalloc's purge delay: see [`super::give_back_freed_memory`].
pub fn collect() {
    // SAFETY: `mi_collect` takes no pointer; it frees the calling thread's
    // empty pages and purges free ones, which no live block is in.
    unsafe { mi_collect(true) }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_alignment_is_kept_through_alloc_realloc_and_free() {
        let a = MiMallocPlain;
        for align in [1usize, 2, 4, 8, 16, 32, 64, 4096] {
            for size in [1usize, 7, 8, 24, 100, 4096, 1 << 20] {
                let layout = Layout::from_size_align(size.max(align), align).unwrap();
                // SAFETY: a non-zero size; each block is freed once, by
                // this allocator, with its layout.
                unsafe {
                    let p = a.alloc(layout);
                    assert!(!p.is_null());
                    assert_eq!(p as usize % align, 0, "alloc {size} aligned {align}");
                    p.write_bytes(0xA5, layout.size());
                    let q = a.realloc(p, layout, layout.size() * 3);
                    assert_eq!(q as usize % align, 0, "realloc {size} aligned {align}");
                    assert_eq!(*q.add(layout.size() - 1), 0xA5);
                    a.dealloc(q, Layout::from_size_align(layout.size() * 3, align).unwrap());
                    let z = a.alloc_zeroed(layout);
                    assert_eq!(z as usize % align, 0, "zalloc {size} aligned {align}");
                    assert!((0..layout.size()).all(|i| *z.add(i) == 0));
                    a.dealloc(z, layout);
                }
            }
        }
    }
}
