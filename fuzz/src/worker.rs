//! Running an engine in a worker process, so that a crash of native code
//! (a signal: SIGSEGV, SIGILL, SIGFPE, an abort) or a hang is a finding of
//! the campaign instead of its end.
//!
//! The campaign re-executes its own binary in worker mode (`spy-interp
//! fuzz-worker`, see [`serve`]): requests and outcomes travel as
//! length-prefixed frames over the child's stdin and stdout. Each campaign
//! thread keeps one worker (thread-local), submits the jit run *before* it
//! runs the other engines in process (the worker computes meanwhile) and
//! collects the outcome afterwards. A worker that dies is reaped, its
//! signal becomes an `Outcome` with a `bug` (`native crash: ... signal N
//! (SIGSEGV)`), and the next request starts a new one; a worker that does
//! not answer within [`Isolation::timeout`] is killed and reported as a
//! hang.

use std::cell::RefCell;
use std::io::{self, BufReader, BufWriter, Read, Write};
use std::path::PathBuf;
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};
use std::time::{Duration, Instant};

use spy_interp::engine::{run_program, Engine, ErrorLine, Mutations, NotNative, Outcome, RunConfig};
use spy_interp::error::{Bug, ExcKind};

/// How engines run out of process.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Isolation {
    /// The binary that serves `fuzz-worker` (normally the running one).
    pub exe: PathBuf,
    /// Arguments before the protocol starts (normally `["fuzz-worker"]`).
    pub args: Vec<String>,
    /// How long one run may take before the worker is killed as hung.
    pub timeout: Duration,
}

impl Isolation {
    /// The running binary in worker mode (`current_exe fuzz-worker`).
    pub fn this_binary() -> io::Result<Isolation> {
        Ok(Isolation {
            exe: std::env::current_exe()?,
            args: vec!["fuzz-worker".into()],
            // The reference finished the program within its fuel, so
            // native code needs milliseconds; seconds are for a loaded
            // machine.
            timeout: Duration::from_secs(2),
        })
    }
}

/// One run asked of a worker.
#[derive(Clone, Debug)]
pub struct Request {
    pub engine: Engine,
    pub path: String,
    pub source: String,
    pub config: RunConfig,
}

// ---- framing ----

fn put_u64(out: &mut Vec<u8>, v: u64) {
    out.extend_from_slice(&v.to_le_bytes());
}

fn put_str(out: &mut Vec<u8>, s: &str) {
    put_u64(out, s.len() as u64);
    out.extend_from_slice(s.as_bytes());
}

fn put_opt(out: &mut Vec<u8>, s: Option<&str>) {
    match s {
        Some(s) => {
            out.push(1);
            put_str(out, s);
        }
        None => out.push(0),
    }
}

/// A cursor over one received frame; every read is checked.
struct Frame<'a>(&'a [u8]);

fn bad(what: &str) -> io::Error {
    io::Error::new(io::ErrorKind::InvalidData, format!("bad worker frame: {what}"))
}

impl Frame<'_> {
    fn take(&mut self, n: usize) -> io::Result<&[u8]> {
        if self.0.len() < n {
            return Err(bad("truncated"));
        }
        let (head, rest) = self.0.split_at(n);
        self.0 = rest;
        Ok(head)
    }

    fn u8(&mut self) -> io::Result<u8> {
        Ok(self.take(1)?[0])
    }

    fn u64(&mut self) -> io::Result<u64> {
        let b = self.take(8)?;
        Ok(u64::from_le_bytes(b.try_into().map_err(|_| bad("u64"))?))
    }

    fn str(&mut self) -> io::Result<String> {
        let n = usize::try_from(self.u64()?).map_err(|_| bad("length"))?;
        String::from_utf8(self.take(n)?.to_vec()).map_err(|_| bad("utf-8"))
    }

    fn opt(&mut self) -> io::Result<Option<String>> {
        match self.u8()? {
            0 => Ok(None),
            _ => self.str().map(Some),
        }
    }
}

/// Frames larger than this are refused (a program's output is bounded by
/// the memory budget; this only guards against a corrupt stream).
const MAX_FRAME: u64 = 1 << 31;

fn write_frame(w: &mut dyn Write, body: &[u8]) -> io::Result<()> {
    w.write_all(&(body.len() as u64).to_le_bytes())?;
    w.write_all(body)?;
    w.flush()
}

/// `Ok(None)` at a clean end of stream.
fn read_frame(r: &mut dyn Read) -> io::Result<Option<Vec<u8>>> {
    let mut len = [0u8; 8];
    match r.read_exact(&mut len) {
        Ok(()) => {}
        Err(e) if e.kind() == io::ErrorKind::UnexpectedEof => return Ok(None),
        Err(e) => return Err(e),
    }
    let n = u64::from_le_bytes(len);
    if n > MAX_FRAME {
        return Err(bad("too long"));
    }
    let mut body = vec![0u8; n as usize];
    r.read_exact(&mut body)?;
    Ok(Some(body))
}

fn encode_request(q: &Request) -> Vec<u8> {
    let mut b = vec![];
    let engine = Engine::ALL.iter().position(|e| *e == q.engine).unwrap_or(0);
    b.push(engine as u8);
    let l = &q.config.limits;
    put_u64(&mut b, l.max_steps.map_or(u64::MAX, |s| s.min(u64::MAX - 1)));
    put_u64(&mut b, u64::from(l.max_depth));
    put_u64(&mut b, l.max_str_bytes as u64);
    put_u64(&mut b, l.max_memory);
    put_u64(&mut b, u64::from(q.config.mutations.bits()));
    b.push(u8::from(q.config.general_paths_only));
    put_str(&mut b, &q.path);
    put_str(&mut b, &q.source);
    b
}

fn decode_request(body: &[u8]) -> io::Result<Request> {
    let mut f = Frame(body);
    let engine = *Engine::ALL
        .get(usize::from(f.u8()?))
        .ok_or_else(|| bad("engine"))?;
    let steps = f.u64()?;
    let mut config = RunConfig::default();
    config.limits.max_steps = (steps != u64::MAX).then_some(steps);
    config.limits.max_depth = u32::try_from(f.u64()?).map_err(|_| bad("depth"))?;
    config.limits.max_str_bytes = usize::try_from(f.u64()?).map_err(|_| bad("str bytes"))?;
    config.limits.max_memory = f.u64()?;
    config.mutations = Mutations::from_bits(u32::try_from(f.u64()?).map_err(|_| bad("mutations"))?);
    config.general_paths_only = f.u8()? != 0;
    Ok(Request {
        engine,
        path: f.str()?,
        source: f.str()?,
        config,
    })
}

fn encode_outcome(o: &Outcome) -> Vec<u8> {
    let mut b = vec![];
    put_u64(&mut b, o.exit as u32 as u64);
    match &o.error {
        Some(e) => {
            b.push(1);
            put_str(&mut b, e.kind.name());
            put_str(&mut b, &e.message);
        }
        None => b.push(0),
    }
    put_opt(&mut b, o.report.as_deref());
    put_opt(&mut b, o.bug.as_ref().map(|b| b.message.as_str()));
    put_opt(&mut b, o.host.as_ref().map(|h| h.to_string()).as_deref());
    put_opt(&mut b, o.not_native.as_ref().map(|n| n.to_string()).as_deref());
    put_str(&mut b, &o.stdout);
    b
}

fn decode_outcome(body: &[u8]) -> io::Result<Outcome> {
    let mut f = Frame(body);
    let exit = f.u64()? as u32 as i32;
    let error = match f.u8()? {
        0 => None,
        _ => {
            let kind = ExcKind::from_name(&f.str()?).ok_or_else(|| bad("exception kind"))?;
            Some(ErrorLine {
                kind,
                message: f.str()?,
            })
        }
    };
    let report = f.opt()?;
    let bug = f.opt()?.map(Bug::new);
    // The host error's text is kept as a bug of the run: a worker's output
    // goes to memory, so it cannot fail to be written.
    let host = f.opt()?;
    let not_native = f.opt()?.map(NotNative::Remote);
    let stdout = f.str()?;
    Ok(Outcome {
        exit,
        error,
        report,
        bug: bug.or(host.map(|h| Bug::new(format!("worker host error: {h}")))),
        host: None,
        not_native,
        stdout,
    })
}

// ---- the worker side ----

/// `spy-interp fuzz-worker`: [`serve`] on stdin and stdout, on one
/// evaluator thread that runs the programs in place (no hand-off to a
/// thread per run: each hop costs a wake-up on a loaded machine).
pub fn serve_stdio() -> i32 {
    guard_worker();
    let depth = RunConfig::default().limits.max_depth;
    spy_interp::native_stack::inline(depth, || serve(&mut io::stdin().lock(), &mut io::stdout().lock()))
        .unwrap_or_else(|e| {
            eprintln!("fuzz-worker: {e}");
            2
        })
}

/// Address space a worker may map: the evaluator's stack (about 1 GiB of
/// reservation), the jit's code and stack, and the programs' memory budget
/// (`Limits::max_memory`, 4 GiB). Native code gone wild (a planted or real
/// bug) hits this instead of the machine's memory.
pub const WORKER_ADDRESS_SPACE: u64 = 12 << 30;

/// A worker never outlives its campaign (a campaign killed by a signal
/// cannot kill its workers, and one busy in a runaway loop would never
/// read the end of its input): a thread checks the parent every half
/// second. And its address space is bounded (`WORKER_ADDRESS_SPACE`).
fn guard_worker() {
    let parent = std::os::unix::process::parent_id();
    let _ = std::thread::Builder::new()
        .name("spy-fuzz-worker-orphan-check".into())
        .spawn(move || loop {
            std::thread::sleep(Duration::from_millis(500));
            if std::os::unix::process::parent_id() != parent {
                std::process::exit(3);
            }
        });
    let _ = rustix::process::setrlimit(
        rustix::process::Resource::As,
        rustix::process::Rlimit {
            current: Some(WORKER_ADDRESS_SPACE),
            maximum: None,
        },
    );
}

/// Answer requests on `input` with outcomes on `output` until the input
/// ends. Returns the process exit code.
pub fn serve(input: &mut dyn Read, output: &mut dyn Write) -> i32 {
    let mut input = BufReader::new(input);
    let mut output = BufWriter::new(output);
    loop {
        let body = match read_frame(&mut input) {
            Ok(Some(b)) => b,
            Ok(None) => return 0,
            Err(e) => {
                eprintln!("fuzz-worker: {e}");
                return 2;
            }
        };
        let outcome = match decode_request(&body) {
            Ok(q) => run_program(q.engine, &q.path, q.source.as_bytes(), q.config),
            Err(e) => {
                eprintln!("fuzz-worker: {e}");
                return 2;
            }
        };
        if write_frame(&mut output, &encode_outcome(&outcome)).is_err() {
            return 2;
        }
    }
}

// ---- the campaign side ----

struct Worker {
    child: Child,
    stdin: BufWriter<ChildStdin>,
    stdout: ChildStdout,
    /// Bytes read from `stdout` and not yet consumed as a frame.
    buf: Vec<u8>,
    /// A request was written and its answer not read yet.
    pending: bool,
}

/// How reading an answer ended.
enum Answer {
    Frame(Vec<u8>),
    /// The worker's stdout ended (it died) or could not be read.
    Closed,
    TimedOut,
}

impl Worker {
    fn start(iso: &Isolation) -> io::Result<Worker> {
        let mut child = Command::new(&iso.exe)
            .args(&iso.args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()?;
        let stdin = BufWriter::new(child.stdin.take().ok_or_else(|| bad("no stdin"))?);
        let stdout = child.stdout.take().ok_or_else(|| bad("no stdout"))?;
        Ok(Worker {
            child,
            stdin,
            stdout,
            buf: vec![],
            pending: false,
        })
    }

    /// The next frame, waiting at most `timeout` (poll(2) on the pipe: no
    /// reader thread, so an answer costs no extra wake-up).
    fn answer(&mut self, timeout: Duration) -> Answer {
        use rustix::event::{PollFd, PollFlags, Timespec};
        let deadline = Instant::now() + timeout;
        let mut chunk = vec![0u8; 1 << 16];
        loop {
            if self.buf.len() >= 8 {
                let n = u64::from_le_bytes(self.buf[..8].try_into().expect("8 bytes"));
                if n > MAX_FRAME {
                    return Answer::Closed;
                }
                let n = n as usize;
                if self.buf.len() >= 8 + n {
                    let body = self.buf[8..8 + n].to_vec();
                    self.buf.drain(..8 + n);
                    return Answer::Frame(body);
                }
            }
            let left = deadline.saturating_duration_since(Instant::now());
            if left.is_zero() {
                return Answer::TimedOut;
            }
            let mut fds = [PollFd::new(&self.stdout, PollFlags::IN)];
            let wait = Timespec {
                tv_sec: left.as_secs() as i64,
                tv_nsec: i64::from(left.subsec_nanos()),
            };
            match rustix::event::poll(&mut fds, Some(&wait)) {
                Ok(0) => continue,
                Ok(_) => {}
                Err(rustix::io::Errno::INTR) => continue,
                Err(_) => return Answer::Closed,
            }
            match self.stdout.read(&mut chunk) {
                Ok(0) => return Answer::Closed,
                Ok(k) => self.buf.extend_from_slice(&chunk[..k]),
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(_) => return Answer::Closed,
            }
        }
    }

    /// Kill and reap the child; how it ended.
    fn finish(mut self, kill: bool) -> String {
        if kill {
            let _ = self.child.kill();
        }
        match self.child.wait() {
            Ok(status) => describe_exit(status),
            Err(e) => format!("could not be reaped: {e}"),
        }
    }
}

impl Drop for Worker {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn describe_exit(status: std::process::ExitStatus) -> String {
    use std::os::unix::process::ExitStatusExt;
    match (status.signal(), status.code()) {
        (Some(sig), _) => format!("was killed by signal {sig} ({})", signal_name(sig)),
        (None, Some(code)) => format!("exited with code {code}"),
        (None, None) => "ended".to_string(),
    }
}

fn signal_name(sig: i32) -> &'static str {
    match sig {
        4 => "SIGILL",
        5 => "SIGTRAP",
        6 => "SIGABRT",
        7 => "SIGBUS",
        8 => "SIGFPE",
        9 => "SIGKILL",
        11 => "SIGSEGV",
        _ => "signal",
    }
}

/// How a panic of the run starts its `Bug` message
/// (`native_stack::RunError::Panic`).
const PANIC_PREFIX: &str = "panic: ";

thread_local! {
    static WORKER: RefCell<Option<Worker>> = const { RefCell::new(None) };
}

/// A run submitted to this thread's worker, to be collected with [`collect`].
#[must_use]
pub struct Ticket {
    iso: Isolation,
    /// The request's frame, sent again to a fresh worker when the first
    /// one does not answer in time (`HANG_CONFIRM`).
    frame: Vec<u8>,
    /// Why the request could not be sent (the outcome is then a bug).
    failed: Option<String>,
}

/// Send `q` to this thread's worker (started if there is none).
pub fn submit(iso: &Isolation, q: &Request) -> Ticket {
    let frame = encode_request(q);
    let failed = WORKER.with(|w| {
        let mut slot = w.borrow_mut();
        if slot.as_ref().is_some_and(|w| w.pending) {
            // A ticket was dropped uncollected: its answer would be read
            // as this one's. Start afresh.
            *slot = None;
        }
        if slot.is_none() {
            match Worker::start(iso) {
                Ok(w) => *slot = Some(w),
                Err(e) => return Some(format!("cannot start the worker {}: {e}", iso.exe.display())),
            }
        }
        let w = slot.as_mut().expect("started above");
        match write_frame(&mut w.stdin, &frame) {
            Ok(()) => {
                w.pending = true;
                None
            }
            Err(e) => {
                let how = slot.take().map_or(String::new(), |w| w.finish(false));
                Some(format!("worker {how} (write failed: {e})"))
            }
        }
    });
    Ticket {
        iso: iso.clone(),
        frame,
        failed,
    }
}

/// A worker that does not answer within `Isolation::timeout` is killed and
/// the request sent again to a fresh one, which gets this many times as
/// long before the run counts as a hang: on a loaded machine a run can
/// miss the first timeout without hanging, and a hang "found" that way is
/// a finding no reduction can reproduce.
pub const HANG_CONFIRM: u32 = 5;

/// The outcome of a submitted run. A crash or hang of the worker is an
/// outcome with a `bug` that names the signal (and the worker restarts on
/// the next submit).
pub fn collect(t: Ticket, engine: Engine) -> Outcome {
    let crash = |msg: String| Outcome {
        exit: Outcome::BUG_EXIT,
        error: None,
        report: None,
        bug: Some(Bug::new(msg)),
        host: None,
        not_native: None,
        stdout: String::new(),
    };
    if let Some(why) = t.failed {
        return crash(why);
    }
    WORKER.with(|w| {
        let mut slot = w.borrow_mut();
        let Some(worker) = slot.as_mut() else {
            return crash("the worker is gone".into());
        };
        worker.pending = false;
        match worker.answer(t.iso.timeout) {
            Answer::Frame(body) => {
                let o = decode_outcome(&body).unwrap_or_else(|e| crash(e.to_string()));
                if o.bug
                    .as_ref()
                    .is_some_and(|b| b.message.starts_with(PANIC_PREFIX))
                {
                    // A panic may leave thread-local state half-updated,
                    // so the next run gets a fresh worker. An internal
                    // error returned as a value (`Bug`, say a failed
                    // allocation check of the jit) leaves nothing behind:
                    // restarting for it made reducing such a finding spend
                    // most of its time starting workers.
                    slot.take();
                }
                o
            }
            Answer::Closed => {
                let how = slot.take().map_or(String::new(), |w| w.finish(false));
                crash(format!("native crash: the {engine} worker {how}"))
            }
            Answer::TimedOut => {
                slot.take().map(|w| w.finish(true));
                // Once more, on a fresh worker, with more time.
                let mut fresh = match Worker::start(&t.iso) {
                    Ok(w) => w,
                    Err(e) => {
                        return crash(format!("cannot restart the worker {}: {e}", t.iso.exe.display()))
                    }
                };
                let long = t.iso.timeout * HANG_CONFIRM;
                if write_frame(&mut fresh.stdin, &t.frame).is_ok() {
                    match fresh.answer(long) {
                        Answer::Frame(body) => {
                            let o = decode_outcome(&body).unwrap_or_else(|e| crash(e.to_string()));
                            if o.bug.is_none() {
                                *slot = Some(fresh);
                            }
                            return o;
                        }
                        Answer::Closed => {
                            let how = fresh.finish(false);
                            return crash(format!("native crash: the {engine} worker {how}"));
                        }
                        Answer::TimedOut => {}
                    }
                }
                fresh.finish(true);
                crash(format!(
                    "hang: the {engine} worker did not answer within {} s",
                    long.as_secs()
                ))
            }
        }
    })
}

/// Run `q` in this thread's worker and wait for its outcome.
pub fn run(iso: &Isolation, q: &Request) -> Outcome {
    let t = submit(iso, q);
    collect(t, q.engine)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn requests_and_outcomes_round_trip() {
        let mut config = RunConfig::default();
        config.limits.max_steps = Some(77);
        let q = Request {
            engine: Engine::Jit,
            path: "a.spy".into(),
            source: "def main() -> None:\n    pass\n".into(),
            config,
        };
        let back = decode_request(&encode_request(&q)).unwrap();
        assert_eq!(back.engine, Engine::Jit);
        assert_eq!(back.config.limits.max_steps, Some(77));
        assert_eq!(back.source, q.source);
        let o = run_program(
            Engine::Interp,
            "a.spy",
            b"def main() -> None:\n    print(1 // 0)\n",
            config,
        );
        let back = decode_outcome(&encode_outcome(&o)).unwrap();
        assert_eq!(
            (back.exit, &back.error, &back.stdout),
            (o.exit, &o.error, &o.stdout)
        );
        assert!(decode_outcome(&[1, 2, 3]).is_err());
    }

    #[test]
    fn serve_answers_until_the_input_ends() {
        let q = Request {
            engine: Engine::Interp,
            path: "a.spy".into(),
            source: "def main() -> None:\n    print(6 * 7)\n".into(),
            config: RunConfig::default(),
        };
        let mut input = vec![];
        for _ in 0..2 {
            write_frame(&mut input, &encode_request(&q)).unwrap();
        }
        let mut output = vec![];
        assert_eq!(serve(&mut input.as_slice(), &mut output), 0);
        let mut r = output.as_slice();
        for _ in 0..2 {
            let o = decode_outcome(&read_frame(&mut r).unwrap().unwrap()).unwrap();
            assert_eq!(o.stdout, "42\n");
        }
        assert!(read_frame(&mut r).unwrap().is_none());
    }

    #[test]
    fn a_dead_worker_is_a_crash_finding_and_restarts() {
        // `sh -c 'kill -SEGV $$'` dies like a crashing jit worker would.
        let iso = Isolation {
            exe: "/bin/sh".into(),
            args: vec!["-c".into(), "kill -SEGV $$".into()],
            timeout: Duration::from_secs(5),
        };
        let q = Request {
            engine: Engine::Jit,
            path: "a.spy".into(),
            source: String::new(),
            config: RunConfig::default(),
        };
        for _ in 0..2 {
            let o = run(&iso, &q);
            let msg = o.bug.expect("a crash is a bug").message;
            assert!(msg.contains("signal 11 (SIGSEGV)"), "{msg}");
        }
        let hang = Isolation {
            args: vec!["-c".into(), "sleep 30".into()],
            timeout: Duration::from_millis(200),
            ..iso
        };
        let msg = run(&hang, &q).bug.expect("a hang is a bug").message;
        assert!(msg.starts_with("hang:"), "{msg}");
    }
}
