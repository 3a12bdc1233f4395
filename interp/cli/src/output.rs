//! Where the command line's output goes: stdout, written as it is produced
//! (a program's `print`s appear while it runs), buffered — per line on a
//! terminal, in 64 KiB blocks otherwise — and flushed at exit, on error
//! and on SIGINT/SIGTERM/SIGHUP. A write that fails (a closed pipe, a full
//! disk) is reported on stderr with [`HOST_EXIT`], never a panic and never
//! silently dropped.

use std::io::{IsTerminal, Write};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::{Duration, Instant};

use spy_interp::engine::Outcome;
use spy_interp::error::HostError;

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
    /// interrupted (installed once per process).
    pub fn new() -> Stdout {
        let stdout = std::io::stdout();
        // std's stdout is line-buffered already; elsewhere block-buffer it.
        let inner: Box<dyn Write + Send> = if stdout.is_terminal() {
            Box::new(stdout)
        } else {
            Box::new(std::io::BufWriter::with_capacity(64 << 10, stdout))
        };
        let out = Stdout(Arc::new(Mutex::new(inner)));
        let on_signal = out.clone();
        // Only one handler per process may be set: a second `Stdout` (none
        // is made today) would leave the first one's in place.
        let _ = ctrlc::set_handler(move || {
            on_signal.flush_within(Duration::from_millis(500));
            std::process::exit(SIGNAL_EXIT);
        });
        out
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
