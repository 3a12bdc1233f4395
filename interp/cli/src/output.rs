//! Where the command line's output goes: stdout, written as it is produced
//! (a program's `print`s appear while it runs), buffered — per line on a
//! terminal, in 64 KiB blocks otherwise — and flushed at exit, on error
//! and on SIGINT/SIGTERM/SIGHUP. A write that fails (a closed pipe, a full
//! disk) is reported on stderr with [`HOST_EXIT`], never a panic and never
//! silently dropped.
//!
//! Who flushes on a signal: for most commands a ctrlc thread; for a run on
//! the evaluator thread ([`Stdout::while_running`], `execute`) the main
//! thread, which is idle meanwhile and waits for the signals itself (one
//! thread less to start: start-up matters for `execute`).

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

    /// Run `task` on the evaluator thread (`native_stack::start_inline`:
    /// runs it makes run in place there) while this thread waits for
    /// SIGINT/SIGTERM/SIGHUP, flushing and exiting on one. The signals are
    /// blocked first, so every thread started afterwards (the evaluator)
    /// inherits the mask and the process-directed signal waits for this
    /// thread's `sigwait`; the evaluator thread ends the wait with SIGUSR1
    /// to this thread when `task` ends, even by a panic. Call it before any
    /// other thread is started, on a `Stdout` made by [`Stdout::unwatched`].
    #[cfg(unix)]
    pub fn while_running<T, F>(&self, max_depth: u32, task: F) -> Result<T, RunError>
    where
        T: Send + 'static,
        F: FnOnce() -> T + Send + 'static,
    {
        use nix::sys::pthread::{pthread_kill, pthread_self, Pthread};
        use nix::sys::signal::{SigSet, Signal};
        let mut waited = SigSet::empty();
        for s in [Signal::SIGINT, Signal::SIGTERM, Signal::SIGHUP, Signal::SIGUSR1] {
            waited.add(s);
        }
        if waited.thread_block().is_err() {
            // Cannot happen with valid signals; keep the ctrlc route then.
            self.flush_on_signals();
            return native_stack::start_inline(max_depth, task)?.wait();
        }
        /// Wakes the waiting thread when dropped: at the end of the task or
        /// while a panic unwinds out of it.
        struct Wake(Pthread);
        impl Drop for Wake {
            fn drop(&mut self) {
                let _ = pthread_kill(self.0, Signal::SIGUSR1);
            }
        }
        let wake = Wake(pthread_self());
        // On an error the task was dropped and its `Wake` sent SIGUSR1:
        // the signals stay blocked (unblocked, it would end the process).
        let pending = native_stack::start_inline(max_depth, move || {
            let _wake = wake;
            task()
        })?;
        loop {
            match waited.wait() {
                Ok(Signal::SIGUSR1) => break,
                Ok(_) => {
                    self.flush_within(Duration::from_millis(500));
                    std::process::exit(SIGNAL_EXIT);
                }
                // EINTR and the like: wait again.
                Err(_) => continue,
            }
        }
        pending.wait()
    }

    /// Without unix signals: the ctrlc route.
    #[cfg(not(unix))]
    pub fn while_running<T, F>(&self, max_depth: u32, task: F) -> Result<T, RunError>
    where
        T: Send + 'static,
        F: FnOnce() -> T + Send + 'static,
    {
        self.flush_on_signals();
        native_stack::start_inline(max_depth, task)?.wait()
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
