//! The dedicated native stack the machine code runs on: an anonymous mapping
//! with a `PROT_NONE` guard page below it, sized from the depth limit and the
//! module's largest frame, so that recursion is stopped by the exact depth
//! counter before the stack can overflow (the guard page is a last line, not
//! a mechanism: there is no signal handler).

use std::io;

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
