//! Run-time state shared by the machine code, the evaluator and helpers:
//! the `#[repr(C)]` [`HelperCtx`] (error slot, traceback, return area), the
//! user-facing [`Context`] (depth limit and the native stack), the helper
//! panic guard, the output writer a call lends its helpers, and raw memory
//! access for the evaluator's loads and stores.
//!
//! Unsafe code here: [`guard`] turns the context pointer a helper receives
//! into a reference; [`HelperCtx::output`] lends the writer of the running
//! call; [`mem`] reads and writes through IR pointers; the native stack
//! lives in [`stack`]; the front end's zeroed buffers (a mapping with the
//! huge-page hint when large) in [`buffer`]; the binaries' global allocator
//! (mimalloc's plain entry points, feature `mimalloc`) in [`alloc`].

#[cfg(feature = "mimalloc")]
pub mod alloc;

/// Give the memory of freed blocks back to the system at once, where a
/// phase of a large run has just freed much of it and the next one is
/// about to take as much again (the doppler engine once the source module
/// is gone, before the residual module is parsed: issue 14 item 5). With
/// mimalloc (feature `mimalloc`) its freed pages otherwise stay resident
/// for its purge delay, while the next phase faults in new ones; without
/// it, nothing is done. It costs a walk of the thread's heap: for large
/// runs only.
pub fn give_back_freed_memory() {
    #[cfg(feature = "mimalloc")]
    alloc::collect();
}

/// From now on, for the whole process, give the pages of freed blocks
/// back to the system when they are freed rather than after mimalloc's
/// purge delay (10 ms): a run of a large program trades a few page faults
/// for its peak memory. On a 20 MB program the doppler engine's peak RSS
/// was 172 MiB instead of 190, the interp engine's 144 instead of 166, at
/// 0.94x and 1.03x the CPU time (`farm-bench -n 3`, issue 14 item 5).
/// Without mimalloc (feature `mimalloc`), nothing is done.
pub fn return_freed_pages_at_once() {
    #[cfg(feature = "mimalloc")]
    alloc::purge_at_once();
}
pub mod buffer;
pub mod mem;
#[cfg(unix)]
pub(crate) mod stack;

use crate::ir::{ErrCode, RunError, SiteId, Word, MAX_RESULTS, TRACEBACK_CAP};
use std::io::Write;
use std::marker::PhantomData;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::ptr::NonNull;

/// The context the machine code keeps in `r15`. Helpers declared with
/// `takes_ctx` receive a pointer to it as their first argument.
///
/// Field offsets are part of the machine-code ABI (see `x64::abi`).
#[repr(C)]
pub struct HelperCtx {
    /// 0 when no error is pending, else the error code.
    pub err_code: u32,
    /// The code a panicking helper raises (from `CompileOptions`).
    pub internal_error: u32,
    /// Operand words of the pending error.
    pub operands: [Word; 2],
    /// Number of call sites appended to the traceback (may exceed the capacity).
    pub tb_len: u32,
    pad: u32,
    /// Results beyond the registers (see the README's calling convention).
    pub ret: [Word; MAX_RESULTS],
    /// Traceback sites, innermost first.
    pub tb: [u32; TRACEBACK_CAP],
    /// The writer lent by `CompiledModule::call_writing` for the duration of
    /// the call (its lifetime erased; `None` outside such a call). Not read
    /// by the machine code: it comes after every ABI field.
    out: Option<NonNull<dyn Write>>,
}

impl HelperCtx {
    pub(crate) fn new(internal_error: ErrCode) -> Box<HelperCtx> {
        Box::new(HelperCtx {
            err_code: 0,
            internal_error: internal_error.get(),
            operands: [0; 2],
            tb_len: 0,
            pad: 0,
            ret: [0; MAX_RESULTS],
            tb: [0; TRACEBACK_CAP],
            out: None,
        })
    }

    /// Record an error; the machine code (or evaluator) propagates it when
    /// the helper returns.
    pub fn raise(&mut self, code: ErrCode, operands: [Word; 2]) {
        self.err_code = code.get();
        self.operands = operands;
    }

    /// The output writer of the running call (`CompiledModule::call_writing`),
    /// for helpers that print; `None` when the call lent none.
    pub fn output(&mut self) -> Option<&mut dyn Write> {
        // SAFETY: `out` is only set by `lend_output`, for the duration of a
        // call that holds the writer's unique `&mut` borrow (see there), and
        // cleared before that call returns; the returned reference is tied
        // to the `&mut self` borrow, which a helper holds only while it runs,
        // inside that call.
        self.out.map(|p| unsafe { &mut *p.as_ptr() })
    }

    /// Lend `out` to the helpers of the call about to run (`None`: lend
    /// nothing). The caller must hold the borrow of `out` until it has
    /// called `lend_output(None)` after the call, and must not return
    /// before that (the call's `&mut` borrow covers it).
    pub(crate) fn lend_output(&mut self, out: Option<&mut dyn Write>) {
        self.out = out.map(|w| {
            let p: NonNull<dyn Write + '_> = NonNull::from(w);
            // SAFETY: only the lifetime bound of the trait object changes
            // (same layout); `output` never hands the pointer out beyond a
            // borrow of `self`, and the caller clears it before the writer's
            // borrow ends.
            unsafe { std::mem::transmute::<NonNull<dyn Write + '_>, NonNull<dyn Write + 'static>>(p) }
        });
    }

    /// Whether an error is pending.
    pub fn failed(&self) -> bool {
        self.err_code != 0
    }

    /// Clear the error state before a call.
    pub(crate) fn reset(&mut self, internal_error: ErrCode) {
        self.err_code = 0;
        self.internal_error = internal_error.get();
        self.operands = [0; 2];
        self.tb_len = 0;
    }

    pub(crate) fn push_site(&mut self, site: SiteId) {
        if (self.tb_len as usize) < TRACEBACK_CAP {
            self.tb[self.tb_len as usize] = site.0;
        }
        self.tb_len += 1;
    }

    /// The pending error, if any, as a [`RunError`].
    pub(crate) fn error(&self) -> Option<RunError> {
        let code = ErrCode::new(self.err_code)?;
        let kept = (self.tb_len as usize).min(TRACEBACK_CAP);
        Some(RunError {
            code,
            operands: self.operands,
            traceback: self.tb[..kept].iter().map(|&s| SiteId(s)).collect(),
            dropped_sites: self.tb_len - kept as u32,
        })
    }
}

/// The context pointer a `takes_ctx` helper receives as its first argument
/// (ABI: one pointer word in `rdi`). Only this crate creates one: the
/// machine code passes its pinned context, [`HelperCtx::ptr`] lends one to
/// a Rust mirror for the lifetime of a `&mut` borrow.
#[repr(transparent)]
#[derive(Clone, Copy)]
pub struct CtxPtr<'a>(*mut HelperCtx, PhantomData<&'a mut HelperCtx>);

impl HelperCtx {
    /// Lend this context as a helper's first argument (for calling a helper's
    /// `extern "C"` body directly, e.g. from an `ir::eval` mirror).
    pub fn ptr(&mut self) -> CtxPtr<'_> {
        CtxPtr(self, PhantomData)
    }
}

/// The documented pattern for a helper body: run `body` on the context and
/// turn a panic into the internal error (`CompileOptions::internal_error`),
/// returning `R::default()` then. A panic must never unwind into machine code.
///
/// ```
/// use spy_jit::runtime::{guard, CtxPtr};
/// extern "C" fn checked_inc(ctx: CtxPtr<'_>, x: u64) -> u64 {
///     guard(ctx, |_ctx| x.checked_add(1).expect("overflow"))
/// }
/// ```
pub fn guard<R: Default>(ctx: CtxPtr<'_>, body: impl FnOnce(&mut HelperCtx) -> R) -> R {
    // SAFETY: a `CtxPtr` is only made by the machine code (its pinned
    // pointer to the live, boxed `HelperCtx` of the running call, which
    // nothing else touches while the helper runs: the caller is suspended in
    // the call) or by `HelperCtx::ptr`, which holds the unique `&mut` borrow
    // for the pointer's lifetime.
    let ctx = unsafe { &mut *ctx.0 };
    match catch_unwind(AssertUnwindSafe(|| body(&mut *ctx))) {
        Ok(r) => r,
        Err(_) => {
            let code = ctx.internal_error;
            ctx.err_code = code;
            ctx.operands = [0; 2];
            R::default()
        }
    }
}

/// Options of a [`Context`].
#[derive(Clone, Copy, Debug)]
pub struct ContextOptions {
    /// Most nested JIT calls (the entry function counts as one).
    pub depth_limit: u32,
    /// Extra native stack for runtime helpers (which run on the JIT stack).
    pub helper_stack: usize,
}

impl Default for ContextOptions {
    fn default() -> Self {
        ContextOptions {
            depth_limit: 1000,
            helper_stack: 256 * 1024,
        }
    }
}

/// Per-caller run-time state: depth limit, the dedicated native stack
/// (taken on first use, this thread's spare or a new mapping, replaced by
/// a larger one when a module needs more; kept as the thread's spare when
/// the context is dropped, `stack.rs`) and the context the machine code
/// writes errors into. One `Context` runs one call at a time.
pub struct Context {
    pub(crate) opts: ContextOptions,
    /// The context block the machine code writes into, reused across calls.
    pub(crate) raw: Option<Box<HelperCtx>>,
    #[cfg(unix)]
    pub(crate) stack: Option<stack::NativeStack>,
}

impl Context {
    pub fn new(opts: ContextOptions) -> Context {
        Context {
            opts,
            raw: None,
            #[cfg(unix)]
            stack: None,
        }
    }
    pub fn depth_limit(&self) -> u32 {
        self.opts.depth_limit
    }
    /// Size in bytes of the native stack mapped so far (0 before the first call).
    pub fn stack_size(&self) -> usize {
        #[cfg(unix)]
        {
            self.stack.as_ref().map_or(0, |s| s.usable())
        }
        #[cfg(not(unix))]
        {
            0
        }
    }
}

#[cfg(unix)]
impl Drop for Context {
    fn drop(&mut self) {
        if let Some(s) = self.stack.take() {
            s.give_back();
        }
    }
}
