//! The evaluator's native stack: how large the stack that runs a program
//! gets for a given call-depth limit (an evaluator thread's, or one mapped
//! and switched to on the calling thread by [`run_here`]), and the guard
//! that turns running short of it into a `RecursionError` instead of a
//! native stack overflow (which aborts the process).
//!
//! ASTFrame is a tree walker: each SPy call costs native stack (measured
//! with simple recursion `return f(n - 1) + 1`, 1 GiB holds about 42,000
//! calls in a debug build and 132,000 in a release build, about 40,000 and
//! 143,000 for blue recursion at redshift time; an expression nested deep
//! inside each call costs more). A thread started by [`spawn`] gets [`BASE_BYTES`]
//! (room for maximally nested expressions) plus [`PER_CALL_BYTES`] per
//! allowed call, and records where its stack ends; [`exhausted`] is true
//! when less than [`GUARD_BYTES`] are left, and the evaluator checks it on
//! every call (`frames::limits`). A program stays deterministic: below the
//! limit the stack suffices for ordinary calls, and only a program that
//! would otherwise crash gets its `RecursionError` earlier.
//!
//! The stack is virtual memory, committed only when touched.

use std::cell::Cell;
use std::sync::{Arc, Mutex};

/// Stack for the part of a run that does not grow with the call depth.
pub const BASE_BYTES: usize = 1 << 30;

/// Stack reserved per allowed SPy call (a debug build uses about 25 KiB
/// per simple call).
pub const PER_CALL_BYTES: usize = 32 << 10;

/// The largest call-depth limit a run accepts (`--max-depth`): the stack
/// it needs (4.2 GiB of address space) must be reservable, and a debug
/// build touches about 2.5 GB of it at that depth.
pub const MAX_DEPTH: u32 = 100_000;

/// Stack that must remain when a call starts: one call whose expressions
/// are nested as deep as the parser allows, plus unwinding and rendering
/// the error.
pub const GUARD_BYTES: usize = 128 << 20;

thread_local! {
    /// Lowest stack address a call may start below, or 0 (no guard: a
    /// thread not started by `spawn`).
    static FLOOR: Cell<usize> = const { Cell::new(0) };
}

/// Native stack for a run whose call depth is at most `max_depth`.
pub fn stack_bytes(max_depth: u32) -> usize {
    BASE_BYTES + (max_depth.min(MAX_DEPTH) as usize) * PER_CALL_BYTES
}

/// Why [`run`] did not return `f`'s result.
#[derive(Debug)]
pub enum RunError {
    /// The thread could not be started (even with `BASE_BYTES` of stack).
    Spawn(std::io::Error),
    /// `f` panicked; the panic's text.
    Panic(String),
}

impl std::fmt::Display for RunError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            RunError::Spawn(e) => write!(f, "cannot start the interpreter thread: {e}"),
            RunError::Panic(p) => write!(f, "panic: {p}"),
        }
    }
}

/// Run `f` on an evaluator thread whose stack fits `max_depth` calls, with
/// the guard armed, and wait for its result. If that much address space
/// cannot be reserved, the thread gets `BASE_BYTES` (the guard still ends a
/// deep recursion cleanly, only earlier).
///
/// The evaluator thread is kept for the calling thread's next `run` of the
/// same size (a harness runs thousands of programs a second: starting a
/// thread with a 1 GiB stack and tearing it down each time cost the
/// fuzzer a fifth of its time in `madvise` and TLB shootdowns). A thread
/// whose task panicked is not reused: the panic may have left its
/// thread-local state half-updated.
pub fn run<T, F>(max_depth: u32, f: F) -> Result<T, RunError>
where
    T: Send + 'static,
    F: FnOnce() -> T + Send + 'static,
{
    let wanted = stack_bytes(max_depth);
    if INLINE.with(|i| i.get() >= wanted) {
        // A serving loop on an evaluator thread big enough (`inline`):
        // no hand-off to another thread. Runs nested in `f` take the usual
        // path.
        let size = INLINE.with(|i| i.replace(0));
        let r = std::panic::catch_unwind(std::panic::AssertUnwindSafe(f));
        INLINE.with(|i| i.set(size));
        return r.map_err(|p| RunError::Panic(panic_text(&*p)));
    }
    start(max_depth, f)?.wait()
}

/// [`run`] without the wait: `f` is handed to the evaluator thread and the
/// calling thread is free until it calls [`Pending::wait`] (the command
/// line waits for signals meanwhile instead of keeping a thread for them).
pub fn start<T, F>(max_depth: u32, f: F) -> Result<Pending<T>, RunError>
where
    T: Send + 'static,
    F: FnOnce() -> T + Send + 'static,
{
    let wanted = stack_bytes(max_depth);
    let (tx, rx) = std::sync::mpsc::channel();
    let job: Job = Box::new(move || {
        let r = std::panic::catch_unwind(std::panic::AssertUnwindSafe(f));
        let panicked = r.is_err();
        let _ = tx.send(r.map_err(|p| panic_text(&*p)));
        panicked
    });
    EVALUATOR.with(|slot| -> Result<(), RunError> {
        let mut slot = slot.borrow_mut();
        if slot.as_ref().is_none_or(|e| e.wanted != wanted) {
            *slot = Some(Evaluator::start(wanted)?);
        }
        let e = slot.as_ref().expect("started above");
        match e.jobs.send(job) {
            Ok(()) => Ok(()),
            Err(std::sync::mpsc::SendError(job)) => {
                // The thread is gone (its last task panicked): a new one.
                let fresh = Evaluator::start(wanted)?;
                let r = fresh.jobs.send(job);
                *slot = Some(fresh);
                r.map_err(|_| RunError::Panic("the evaluator thread did not start".into()))
            }
        }
    })?;
    Ok(Pending { result: rx })
}

/// A task handed to the evaluator thread by [`start`].
pub struct Pending<T> {
    result: std::sync::mpsc::Receiver<Result<T, String>>,
}

impl<T> Pending<T> {
    /// Wait for the task's result. Call it on the thread that started the
    /// task: a task that panicked retires that thread's evaluator.
    pub fn wait(self) -> Result<T, RunError> {
        match self.result.recv() {
            Ok(Ok(t)) => Ok(t),
            Ok(Err(text)) => {
                EVALUATOR.with(|slot| slot.borrow_mut().take());
                Err(RunError::Panic(text))
            }
            Err(_) => {
                EVALUATOR.with(|slot| slot.borrow_mut().take());
                Err(RunError::Panic("the evaluator thread lost its task".into()))
            }
        }
    }
}

/// A task for an evaluator thread; returns whether it panicked.
type Job = Box<dyn FnOnce() -> bool + Send>;

/// A kept evaluator thread: its requested stack size and its task queue
/// (dropping it ends the thread, which is detached).
struct Evaluator {
    wanted: usize,
    jobs: std::sync::mpsc::Sender<Job>,
}

impl Evaluator {
    fn start(wanted: usize) -> Result<Evaluator, RunError> {
        let (jobs, queue) = std::sync::mpsc::channel::<Job>();
        let queue = Arc::new(Mutex::new(queue));
        let start = |size: usize| {
            let queue = queue.clone();
            std::thread::Builder::new()
                .name("spy-eval".into())
                .stack_size(size)
                .spawn(move || {
                    arm(size);
                    let Ok(queue) = queue.lock() else { return };
                    while let Ok(job) = queue.recv() {
                        if job() {
                            break;
                        }
                    }
                })
        };
        match start(wanted) {
            Ok(_) => {}
            Err(_) if wanted > BASE_BYTES => {
                start(BASE_BYTES).map_err(RunError::Spawn)?;
            }
            Err(e) => return Err(RunError::Spawn(e)),
        }
        Ok(Evaluator { wanted, jobs })
    }
}

/// Run `serve` on an evaluator thread (of `max_depth`'s size) on which
/// every [`run`] made directly by `serve` runs in place instead of being
/// handed to yet another thread: for a process whose only work is to run
/// programs one after the other (the fuzzer's worker processes).
pub fn inline<T, F>(max_depth: u32, serve: F) -> Result<T, RunError>
where
    T: Send + 'static,
    F: FnOnce() -> T + Send + 'static,
{
    start_inline(max_depth, serve)?.wait()
}

/// [`inline`] without the wait (see [`start`]).
pub fn start_inline<T, F>(max_depth: u32, serve: F) -> Result<Pending<T>, RunError>
where
    T: Send + 'static,
    F: FnOnce() -> T + Send + 'static,
{
    let size = stack_bytes(max_depth);
    start(max_depth, move || {
        INLINE.with(|i| i.set(size));
        let t = serve();
        INLINE.with(|i| i.set(0));
        t
    })
}

/// [`inline`] without another thread: `serve` runs on the calling thread,
/// on a stack of `max_depth`'s size mapped for it with guard pages and
/// switched to there (`stacker::grow`), with the guard armed, and every
/// [`run`] made directly by `serve` runs in place. For a process that runs
/// one program (`spy-interp execute`): no thread is started, handed the
/// work and woken back, and the allocator keeps one heap instead of a
/// second one for the evaluator thread (jit/BENCH-LOG.md "Start-up, third
/// pass"). If that much address space cannot be mapped, `serve` runs on
/// `BASE_BYTES` (as [`start`]'s fallback).
pub fn run_here<T, F>(max_depth: u32, serve: F) -> Result<T, RunError>
where
    F: FnOnce() -> T,
{
    let wanted = stack_bytes(max_depth);
    let saved = (FLOOR.with(Cell::get), INLINE.with(Cell::get));
    /// `serve` on a mapped stack of `size` bytes; `Err` if it could not be
    /// mapped (stacker panics then, before switching; `serve` is kept).
    fn on<T>(
        size: usize,
        serve: &mut Option<impl FnOnce() -> T>,
    ) -> std::thread::Result<std::thread::Result<T>> {
        std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            stacker::grow(size, || {
                arm(size);
                INLINE.with(|i| i.set(size));
                let serve = serve.take().expect("run once");
                std::panic::catch_unwind(std::panic::AssertUnwindSafe(serve))
            })
        }))
    }
    let mut serve = Some(serve);
    let r = match on(wanted, &mut serve) {
        Err(_) if wanted > BASE_BYTES && serve.is_some() => on(BASE_BYTES, &mut serve),
        r => r,
    };
    FLOOR.with(|f| f.set(saved.0));
    INLINE.with(|i| i.set(saved.1));
    match r {
        Ok(Ok(t)) => Ok(t),
        Ok(Err(p)) => Err(RunError::Panic(panic_text(&*p))),
        Err(p) => Err(RunError::Spawn(std::io::Error::other(panic_text(&*p)))),
    }
}

thread_local! {
    /// On an evaluator thread of this many bytes, `run` runs in place (see
    /// [`inline`]); 0 elsewhere.
    static INLINE: Cell<usize> = const { Cell::new(0) };
}

thread_local! {
    /// The calling thread's kept evaluator thread.
    static EVALUATOR: std::cell::RefCell<Option<Evaluator>> = const { std::cell::RefCell::new(None) };
}

/// The text of a panic payload.
pub fn panic_text(payload: &(dyn std::any::Any + Send)) -> String {
    payload
        .downcast_ref::<String>()
        .cloned()
        .or_else(|| payload.downcast_ref::<&str>().map(|s| s.to_string()))
        .unwrap_or_else(|| "panic".to_string())
}

/// Record the end of the current thread's stack of `size` bytes.
fn arm(size: usize) {
    let here = probe();
    let usable = size.saturating_sub(GUARD_BYTES);
    FLOOR.with(|floor| floor.set(here.saturating_sub(usable)));
}

/// The address of a local: where the stack currently is (it grows down
/// on every target we build for).
#[inline(never)]
fn probe() -> usize {
    let marker = 0u8;
    std::hint::black_box(&marker) as *const u8 as usize
}

/// Less than `GUARD_BYTES` of this thread's stack remain.
pub fn exhausted() -> bool {
    let floor = FLOOR.with(Cell::get);
    floor != 0 && probe() < floor
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Unbounded native recursion on a guarded thread stops at the guard.
    #[test]
    fn the_guard_trips_before_the_stack_ends() {
        fn dive(n: u64) -> u64 {
            if exhausted() {
                return n;
            }
            let pad = std::hint::black_box([0u8; 4096]);
            dive(n + 1) + u64::from(pad[0])
        }
        let reached = run(0, || dive(0)).expect("the thread runs");
        // 4 KiB frames: about (BASE_BYTES - GUARD_BYTES) / 4 KiB of them.
        assert!(reached > 100_000, "{reached}");
    }

    /// `run_here` stays on the calling thread, with the guard armed on the
    /// stack it switched to; a `run` inside it runs in place; afterwards
    /// the thread has no guard again.
    #[test]
    fn run_here_runs_on_this_thread_with_the_guard() {
        fn dive(n: u64) -> u64 {
            if exhausted() {
                return n;
            }
            let pad = std::hint::black_box([0u8; 4096]);
            dive(n + 1) + u64::from(pad[0])
        }
        let me = std::thread::current().id();
        let (here, nested, reached) = run_here(0, || {
            let nested = run(0, || std::thread::current().id()).expect("runs in place");
            (std::thread::current().id(), nested, dive(0))
        })
        .expect("the stack is mapped");
        assert_eq!(here, me);
        assert_eq!(nested, me);
        assert!(reached > 100_000, "{reached}");
        assert!(!exhausted());
    }

    #[test]
    fn a_thread_not_started_by_run_has_no_guard() {
        assert!(!exhausted());
    }

    #[test]
    fn the_stack_grows_with_the_depth_limit_up_to_the_cap() {
        assert!(stack_bytes(MAX_DEPTH) > stack_bytes(1000));
        assert_eq!(stack_bytes(u32::MAX), stack_bytes(MAX_DEPTH));
    }
}
