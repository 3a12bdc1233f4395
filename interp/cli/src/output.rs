//! Where the command line's output goes: stdout, written as it is produced
//! (a program's `print`s appear while it runs), buffered — per line on a
//! terminal, in 64 KiB blocks otherwise — and flushed at exit, on error
//! and on SIGINT/SIGTERM/SIGHUP. A write that fails (a closed pipe, a full
//! disk) is reported on stderr with [`HOST_EXIT`], never a panic and never
//! silently dropped.
//!
//! Who flushes on a signal: for most commands a ctrlc thread; for a run on
//! the main thread ([`Stdout::while_running`], `execute`) a small thread
//! that waits for the signals itself (no signal handler, no pipe, no
//! allocation: start-up matters for `execute`).

use std::io::{IsTerminal, Write};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::{Duration, Instant};

use spy_interp::engine::Outcome;
use spy_interp::error::HostError;
use spy_interp::native_stack::{self, RunError};

/// Exit code when output could not be written (sysexits' `EX_IOERR`).
pub const HOST_EXIT: i32 = Outcome::HOST_EXIT;

/// Exit code after SIGINT/SIGTERM/SIGHUP (128 + SIGINT, as shells report
/// an interrupted command).
const SIGNAL_EXIT: i32 = 130;

/// The process's stdout, shared between the thread that writes it and the
/// signal handler that flushes it. Clones write to the same buffer.
#[derive(Clone)]
pub struct Stdout(Arc<Mutex<Box<dyn Write + Send>>>);

impl Stdout {
    /// Buffered stdout; the buffer is flushed when the process is
    /// interrupted (a ctrlc thread, installed once per process).
    pub fn new() -> Stdout {
        let out = Stdout::unwatched();
        out.flush_on_signals();
        out
    }

    /// Buffered stdout nobody flushes on a signal yet: the caller waits
    /// for the signals itself ([`Stdout::while_running`]).
    pub fn unwatched() -> Stdout {
        let stdout = std::io::stdout();
        // std's stdout is line-buffered already; elsewhere block-buffer it.
        let inner: Box<dyn Write + Send> = if stdout.is_terminal() {
            Box::new(stdout)
        } else {
            Box::new(std::io::BufWriter::with_capacity(64 << 10, stdout))
        };
        Stdout(Arc::new(Mutex::new(inner)))
    }

    /// Flush the buffer and exit on SIGINT/SIGTERM/SIGHUP, from a ctrlc
    /// thread. Only one handler per process may be set: a second call
    /// (none is made today) would leave the first one's in place.
    fn flush_on_signals(&self) {
        let on_signal = self.clone();
        let _ = ctrlc::set_handler(move || {
            on_signal.flush_within(Duration::from_millis(500));
            std::process::exit(SIGNAL_EXIT);
        });
    }

    /// Run `task` on this thread, on a stack of `max_depth`'s size
    /// (`native_stack::run_here`: runs it makes run in place there), while
    /// a small thread waits for SIGINT/SIGTERM/SIGHUP, flushing and exiting
    /// on one. The signals are blocked first, so that thread inherits the
    /// mask and the process-directed signal waits for its `sigwait`. The
    /// thread allocates nothing and is never woken otherwise: the process
    /// ends with it still waiting. Call it before any other thread is
    /// started, on a `Stdout` made by [`Stdout::unwatched`].
    #[cfg(unix)]
    pub fn while_running<T, F>(&self, max_depth: u32, task: F) -> Result<T, RunError>
    where
        F: FnOnce() -> T,
    {
        use nix::sys::signal::{SigSet, Signal};
        let mut waited = SigSet::empty();
        for s in [Signal::SIGINT, Signal::SIGTERM, Signal::SIGHUP] {
            waited.add(s);
        }
        let on_signal = self.clone();
        let watching = waited.thread_block().is_ok()
            && std::thread::Builder::new()
                .name("spy-signals".into())
                .stack_size(64 << 10)
                .spawn(move || loop {
                    // EINTR and the like: wait again.
                    if waited.wait().is_ok() {
                        on_signal.flush_within(Duration::from_millis(500));
                        std::process::exit(SIGNAL_EXIT);
                    }
                })
                .is_ok();
        if !watching {
            // Cannot happen short of running out of threads; keep the
            // ctrlc route then (the signals unblocked again for it).
            let _ = waited.thread_unblock();
            self.flush_on_signals();
        }
        native_stack::run_here(max_depth, task)
    }

    /// Without unix signals: the ctrlc route.
    #[cfg(not(unix))]
    pub fn while_running<T, F>(&self, max_depth: u32, task: F) -> Result<T, RunError>
    where
        F: FnOnce() -> T,
    {
        self.flush_on_signals();
        native_stack::run_here(max_depth, task)
    }

    fn lock(&self) -> MutexGuard<'_, Box<dyn Write + Send>> {
        self.0.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Flush unless the writer stays busy (blocked on a full pipe) for
    /// longer than `limit`: an interrupted process must still end.
    fn flush_within(&self, limit: Duration) {
        let start = Instant::now();
        while start.elapsed() < limit {
            if let Ok(mut w) = self.0.try_lock() {
                let _ = w.flush();
                return;
            }
            std::thread::sleep(Duration::from_millis(5));
        }
    }

    /// Write all of `text` and flush; a failure is reported on stderr and
    /// gives the exit code.
    pub fn emit(&self, text: &str) -> Result<(), i32> {
        let mut w = self.lock();
        w.write_all(text.as_bytes())
            .and_then(|_| w.flush())
            .map_err(|e| failed(&HostError::output(&e)))
    }

    /// Flush what is buffered (the end of a command).
    pub fn finish(&self) -> Result<(), i32> {
        self.lock().flush().map_err(|e| failed(&HostError::output(&e)))
    }
}

impl Write for Stdout {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.lock().write(buf)
    }

    fn write_all(&mut self, buf: &[u8]) -> std::io::Result<()> {
        self.lock().write_all(buf)
    }

    fn flush(&mut self) -> std::io::Result<()> {
        self.lock().flush()
    }
}

/// Report a failed write of the output on stderr; the exit code.
pub fn failed(e: &HostError) -> i32 {
    // Not `eprintln!`: it panics when stderr is closed too.
    let _ = writeln!(std::io::stderr(), "{e}");
    HOST_EXIT
}
