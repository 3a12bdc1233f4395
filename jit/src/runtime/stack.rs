//! The dedicated native stack the machine code runs on: an anonymous mapping
//! with a `PROT_NONE` guard page below it, sized from the depth limit and the
//! module's largest frame, so that recursion is stopped by the exact depth
//! counter before the stack can overflow (the guard page is a last line, not
//! a mechanism: there is no signal handler). A stack a [`super::Context`]
//! lets go of is kept as its thread's spare and taken by the next context
//! of the thread ([`NativeStack::take`]): a process that runs many small
//! programs (the fuzzer's worker) maps one stack, not one a program.

use std::cell::Cell;
use std::io;

/// The largest spare kept (usable bytes): a bigger stack (a deep depth
/// limit) is unmapped when its context is dropped, so that its touched
/// pages do not stay resident.
const MAX_SPARE: usize = 16 << 20;

thread_local! {
    /// The stack the last context of this thread let go of.
    static SPARE: Cell<Option<NativeStack>> = const { Cell::new(None) };
}

pub(crate) struct NativeStack {
    base: *mut u8,
    total: usize,
    guard: usize,
}

fn page_size() -> usize {
    // SAFETY: sysconf has no preconditions.
    let p = unsafe { libc::sysconf(libc::_SC_PAGESIZE) };
    if p <= 0 {
        4096
    } else {
        p as usize
    }
}

impl NativeStack {
    /// Map a stack with at least `usable` bytes above one guard page.
    pub(crate) fn new(usable: usize) -> io::Result<NativeStack> {
        let page = page_size();
        let usable = usable.div_ceil(page) * page;
        let total = usable + page;
        // SAFETY: an anonymous private mapping at an address of the kernel's
        // choice; no existing memory is affected.
        let base = unsafe {
            libc::mmap(
                std::ptr::null_mut(),
                total,
                libc::PROT_NONE,
                libc::MAP_PRIVATE | libc::MAP_ANONYMOUS | libc::MAP_NORESERVE,
                -1,
                0,
            )
        };
        if base == libc::MAP_FAILED {
            return Err(io::Error::last_os_error());
        }
        // SAFETY: [base + page, base + total) lies inside the mapping made above.
        let r = unsafe {
            libc::mprotect(
                (base as *mut u8).add(page).cast(),
                usable,
                libc::PROT_READ | libc::PROT_WRITE,
            )
        };
        if r != 0 {
            let e = io::Error::last_os_error();
            // SAFETY: unmapping the mapping made above, not used by anyone.
            unsafe { libc::munmap(base, total) };
            return Err(e);
        }
        Ok(NativeStack {
            base: base.cast(),
            total,
            guard: page,
        })
    }

    /// A stack with at least `usable` bytes: this thread's spare when it is
    /// large enough, else a new mapping. The machine code never reads a
    /// stack word it did not write (spill slots and frame memory are
    /// written before they are read: definite assignment), so what an
    /// earlier run left on the spare is never seen.
    pub(crate) fn take(usable: usize) -> io::Result<NativeStack> {
        // (No spare once the thread's locals are being destroyed.)
        match SPARE.try_with(Cell::take).ok().flatten() {
            Some(s) if s.usable() >= usable => Ok(s),
            // A spare too small is unmapped (dropped) here.
            _ => NativeStack::new(usable),
        }
    }

    /// Keep `self` as this thread's spare (replacing, and unmapping, a
    /// smaller one) unless it is larger than [`MAX_SPARE`].
    pub(crate) fn give_back(self) {
        if self.usable() > MAX_SPARE {
            return;
        }
        // A context dropped while the thread's locals are destroyed unmaps
        // its stack (`try_with` fails, and `self` is dropped).
        let _ = SPARE.try_with(|spare| {
            let keep = match spare.take() {
                Some(old) if old.usable() > self.usable() => old,
                _ => self,
            };
            spare.set(Some(keep));
        });
    }

    /// The initial stack pointer (16-byte aligned, one past the top).
    pub(crate) fn top(&self) -> usize {
        self.base as usize + self.total
    }

    pub(crate) fn usable(&self) -> usize {
        self.total - self.guard
    }
}

impl Drop for NativeStack {
    fn drop(&mut self) {
        // SAFETY: `base`/`total` describe the mapping made in `new`; no
        // machine code runs on it once the `Context` is being dropped.
        unsafe { libc::munmap(self.base.cast(), self.total) };
    }
}
