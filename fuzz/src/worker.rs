//! Running an engine in a worker process, so that a crash of native code
//! (a signal: SIGSEGV, SIGILL, SIGFPE, an abort) or a hang is a finding of
//! the campaign instead of its end.
//!
//! The campaign re-executes its own binary in worker mode (`spy-interp
//! fuzz-worker`, see [`serve`]): requests and outcomes travel as
//! length-prefixed frames over the child's stdin and stdout. Each campaign
//! thread keeps one worker (thread-local), submits the doppler and jit
//! runs *before* it runs the reference in process (the worker computes
//! meanwhile; it redshifts once for both, `Runs::DopplerThenJit`) and
//! collects the outcomes afterwards. A worker that dies is reaped, its
//! signal becomes an `Outcome` with a `bug` (`native crash: ... signal N
//! (SIGSEGV)`), and the next request starts a new one; a worker that uses
//! [`Isolation::cpu_limit`] of CPU time without answering (or does not
//! answer within [`Isolation::wall_limit`]) is killed and reported as a
//! hang.

use std::cell::RefCell;
use std::io::{self, BufReader, BufWriter, Read, Write};
use std::path::PathBuf;
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};
use std::time::{Duration, Instant};

use spy_interp::engine::{
    run_program, Engine, ErrorLine, Mutations, NotNative, Outcome, ResidualRoute, RunConfig,
};
use spy_interp::error::{Bug, ExcKind};

/// How engines run out of process.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Isolation {
    /// The binary that serves `fuzz-worker` (normally the running one).
    pub exe: PathBuf,
    /// Arguments before the protocol starts (normally `["fuzz-worker"]`).
    pub args: Vec<String>,
    /// CPU time a worker may spend on one answer before it is killed as
    /// hung: measured on the worker (`/proc/PID/stat`), not as wall time,
    /// so that a loaded machine does not make a slow run a hang. (The jit
    /// runs without fuel, and a step counter in native loops would slow
    /// what is fuzzed; see [`Worker::answer`].)
    pub cpu_limit: Duration,
    /// Wall time after which a worker that has not answered is killed as
    /// hung anyway (a worker blocked without using CPU; a backstop).
    pub wall_limit: Duration,
}

impl Isolation {
    /// The running binary in worker mode (`current_exe fuzz-worker`).
    pub fn this_binary() -> io::Result<Isolation> {
        Ok(Isolation {
            exe: std::env::current_exe()?,
            args: vec!["fuzz-worker".into()],
            // The reference finished the program within its fuel, so
            // native code needs milliseconds of CPU.
            cpu_limit: Duration::from_secs(2),
            wall_limit: Duration::from_secs(60),
        })
    }
}

/// What a worker runs for one request.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Runs {
    /// One engine: one answer.
    One(Engine),
    /// The doppler and jit engines on one redshift
    /// (`engine::run_doppler_and_jit`): two answers, doppler's first (sent
    /// before the jit runs, so a crash of native code keeps it), then the
    /// jit's. The request's config is doppler's; the jit runs it without
    /// step fuel.
    DopplerThenJit,
    /// Every engine of `Engine::ALL` on one parse of the program
    /// (`engine::run_every_engine`): three answers in that order, each sent
    /// as soon as it is known. The request's config is doppler's (the jit
    /// runs it without step fuel); the reference runs with
    /// `reference_steps` of fuel and no planted bug; doppler and the jit
    /// get the residual module by `residual`'s route.
    Every {
        reference_steps: Option<u64>,
        residual: ResidualRoute,
    },
}

impl Runs {
    /// The engines that answer, in the order of their answers.
    pub fn engines(self) -> Vec<Engine> {
        match self {
            Runs::One(engine) => vec![engine],
            Runs::DopplerThenJit => vec![Engine::Doppler, Engine::Jit],
            Runs::Every { .. } => Engine::ALL.to_vec(),
        }
    }
}

/// The engine byte of a `Runs::DopplerThenJit` request.
const DOPPLER_THEN_JIT: u8 = 0xff;
/// The engine byte of a `Runs::Every` request (the reference's step fuel
/// follows it).
const EVERY: u8 = 0xfe;

/// One run asked of a worker.
#[derive(Clone, Debug)]
pub struct Request {
    pub runs: Runs,
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

    /// Step fuel written by [`put_steps`].
    fn steps(&mut self) -> io::Result<Option<u64>> {
        let steps = self.u64()?;
        Ok((steps != u64::MAX).then_some(steps))
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

/// Step fuel on the wire: `u64::MAX` is none.
fn put_steps(out: &mut Vec<u8>, steps: Option<u64>) {
    put_u64(out, steps.map_or(u64::MAX, |s| s.min(u64::MAX - 1)));
}

fn encode_request(q: &Request) -> Vec<u8> {
    let mut b = vec![];
    match q.runs {
        Runs::One(engine) => b.push(Engine::ALL.iter().position(|e| *e == engine).unwrap_or(0) as u8),
        Runs::DopplerThenJit => b.push(DOPPLER_THEN_JIT),
        Runs::Every {
            reference_steps,
            residual,
        } => {
            b.push(EVERY);
            put_steps(&mut b, reference_steps);
            b.push(u8::from(residual == ResidualRoute::Built));
        }
    }
    let l = &q.config.limits;
    put_steps(&mut b, l.max_steps);
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
    let runs = match f.u8()? {
        DOPPLER_THEN_JIT => Runs::DopplerThenJit,
        EVERY => Runs::Every {
            reference_steps: f.steps()?,
            residual: match f.u8()? {
                0 => ResidualRoute::Printed,
                _ => ResidualRoute::Built,
            },
        },
        k => Runs::One(*Engine::ALL.get(usize::from(k)).ok_or_else(|| bad("engine"))?),
    };
    // As the oracle runs programs (`oracle::config`): a fuzzed program
    // opens no file (`RunConfig`'s default) and finds no module file.
    let mut config = RunConfig {
        modules: spy_interp::host::ModuleSources::Memory(&[]),
        ..RunConfig::default()
    };
    config.limits.max_steps = f.steps()?;
    config.limits.max_depth = u32::try_from(f.u64()?).map_err(|_| bad("depth"))?;
    config.limits.max_str_bytes = usize::try_from(f.u64()?).map_err(|_| bad("str bytes"))?;
    config.limits.max_memory = f.u64()?;
    config.mutations = Mutations::from_bits(u32::try_from(f.u64()?).map_err(|_| bad("mutations"))?);
    config.general_paths_only = f.u8()? != 0;
    Ok(Request {
        runs,
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
        let q = match decode_request(&body) {
            Ok(q) => q,
            Err(e) => {
                eprintln!("fuzz-worker: {e}");
                return 2;
            }
        };
        let answers = q.runs.engines().len();
        let mut reply = Reply {
            output: &mut output,
            sent: 0,
            failed: false,
        };
        let source = q.source.as_bytes();
        // On this thread (the evaluator of `serve_stdio`), behind the same
        // panic net as `run_program`'s.
        let run = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| match q.runs {
            Runs::One(engine) => reply.send(&run_program(engine, &q.path, source, q.config)),
            Runs::DopplerThenJit => {
                let jit = spy_interp::engine::run_doppler_and_jit(&q.path, source, q.config, &mut |o| {
                    reply.send(&o)
                });
                reply.send(&jit);
            }
            Runs::Every {
                reference_steps,
                residual,
            } => {
                let mut reference = q.config;
                reference.limits.max_steps = reference_steps;
                spy_interp::engine::run_every_engine(
                    &q.path,
                    source,
                    reference,
                    q.config,
                    residual,
                    &mut |_, o| reply.send(&o),
                );
            }
        }));
        if let Err(p) = run {
            // A panic: it is the outcome of the run it happened in and of
            // every later one.
            let outcome = panic_outcome(&spy_interp::native_stack::panic_text(&*p));
            while reply.sent < answers {
                reply.send(&outcome);
            }
        }
        if reply.failed {
            return 2;
        }
    }
}

/// Where a worker's answers to one request go.
struct Reply<'a, W: Write> {
    output: &'a mut W,
    /// Answers sent so far.
    sent: usize,
    /// A write failed (the campaign is gone).
    failed: bool,
}

impl<W: Write> Reply<'_, W> {
    fn send(&mut self, o: &Outcome) {
        self.sent += 1;
        if !self.failed {
            self.failed = write_frame(self.output, &encode_outcome(o)).is_err();
        }
    }
}

// ---- the campaign side ----

struct Worker {
    child: Child,
    /// Requests go here (`None` once closed, when the worker is dropped).
    stdin: Option<BufWriter<ChildStdin>>,
    stdout: ChildStdout,
    /// Bytes read from `stdout` and not yet consumed as a frame.
    buf: Vec<u8>,
    /// Answers to the written requests not read yet.
    pending: u8,
    /// What one read(2) of `stdout` fills (kept: two answers a program).
    chunk: Box<[u8]>,
}

/// How reading an answer ended.
enum Answer {
    Frame(Vec<u8>),
    /// The worker's stdout ended (it died) or could not be read.
    Closed,
    TimedOut(Hang),
}

/// Which limit a worker that did not answer ran into.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Hang {
    Cpu,
    Wall,
}

/// User plus system CPU time of process `pid`, all its threads
/// (`/proc/PID/stat` fields 14 and 15, in clock ticks); `None` if it
/// cannot be read (the process is gone).
fn process_cpu_time(pid: u32) -> Option<Duration> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    // The command name (field 2) is in parentheses and may hold spaces.
    let after_name = &stat[stat.rfind(')')? + 1..];
    let mut fields = after_name.split_whitespace().skip(11);
    let utime: u64 = fields.next()?.parse().ok()?;
    let stime: u64 = fields.next()?.parse().ok()?;
    let ticks = rustix::param::clock_ticks_per_second().max(1);
    Some(Duration::from_micros(
        (utime + stime).saturating_mul(1_000_000) / ticks,
    ))
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
            stdin: Some(stdin),
            stdout,
            buf: vec![],
            pending: 0,
            chunk: vec![0u8; 1 << 16].into_boxed_slice(),
        })
    }

    /// The next frame (poll(2) on the pipe: no reader thread, so an
    /// answer costs no extra wake-up). Hang detection without wall-clock
    /// dependence: once `cpu_limit` of wall time has passed (CPU time is
    /// at most wall time), the worker's CPU time is sampled; when it has
    /// used `cpu_limit` more since that sample, it is hung. A run that needs
    /// less than `cpu_limit` of CPU in all is never taken for a hang,
    /// however loaded the machine; a hung one is found after about twice
    /// `cpu_limit` of wall time on an idle machine. `wall_limit` bounds a
    /// worker that neither answers nor computes.
    fn answer(&mut self, iso: &Isolation) -> Answer {
        use rustix::event::{PollFd, PollFlags, Timespec};
        let start = Instant::now();
        let mut cpu_mark: Option<Duration> = None;
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
            let waited = start.elapsed();
            if waited >= iso.wall_limit {
                return Answer::TimedOut(Hang::Wall);
            }
            if waited >= iso.cpu_limit {
                match (cpu_mark, process_cpu_time(self.child.id())) {
                    (None, Some(now)) => cpu_mark = Some(now),
                    (Some(mark), Some(now)) if now.saturating_sub(mark) >= iso.cpu_limit => {
                        return Answer::TimedOut(Hang::Cpu)
                    }
                    _ => {}
                }
            }
            let wait = if waited < iso.cpu_limit {
                iso.cpu_limit - waited
            } else {
                (iso.cpu_limit / 8).max(Duration::from_millis(10))
            }
            .min(iso.wall_limit - waited);
            let mut fds = [PollFd::new(&self.stdout, PollFlags::IN)];
            let wait = Timespec {
                tv_sec: wait.as_secs() as i64,
                tv_nsec: i64::from(wait.subsec_nanos()),
            };
            match rustix::event::poll(&mut fds, Some(&wait)) {
                Ok(0) => continue,
                Ok(_) => {}
                Err(rustix::io::Errno::INTR) => continue,
                Err(_) => return Answer::Closed,
            }
            match self.stdout.read(&mut self.chunk) {
                Ok(0) => return Answer::Closed,
                Ok(k) => self.buf.extend_from_slice(&self.chunk[..k]),
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

/// How long a dropped idle worker may take to exit after its input ends.
const EXIT_GRACE: Duration = Duration::from_secs(5);

impl Drop for Worker {
    /// An idle worker is told to stop by the end of its input and exits
    /// normally (so a profiler or sanitizer running it can write its
    /// report); one still computing, or slower than [`EXIT_GRACE`], is
    /// killed.
    fn drop(&mut self) {
        self.stdin.take();
        if self.pending == 0 {
            let deadline = Instant::now() + EXIT_GRACE;
            while Instant::now() < deadline {
                match self.child.try_wait() {
                    Ok(Some(_)) | Err(_) => return,
                    Ok(None) => std::thread::sleep(Duration::from_millis(2)),
                }
            }
        }
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

/// A run submitted to this thread's worker, to be collected with
/// [`collect`].
#[must_use]
pub struct Ticket {
    iso: Isolation,
    runs: Runs,
    /// Why the request could not be sent (the outcome is then a bug).
    failed: Option<String>,
}

/// Send `q` to this thread's worker (started if there is none).
pub fn submit(iso: &Isolation, q: &Request) -> Ticket {
    let frame = encode_request(q);
    let failed = WORKER.with(|w| {
        let mut slot = w.borrow_mut();
        if slot.as_ref().is_some_and(|w| w.pending > 0) {
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
        let written = match w.stdin.as_mut() {
            Some(stdin) => write_frame(stdin, &frame),
            None => Err(io::Error::new(io::ErrorKind::BrokenPipe, "closed")),
        };
        match written {
            Ok(()) => {
                w.pending = q.runs.engines().len() as u8;
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
        runs: q.runs,
        failed,
    }
}

/// An outcome that is an internal error with message `msg`.
fn crash(msg: String) -> Outcome {
    Outcome {
        exit: Outcome::BUG_EXIT,
        error: None,
        report: None,
        bug: Some(Bug::new(msg)),
        host: None,
        not_native: None,
        stdout: String::new(),
    }
}

/// The outcome of a panic in the worker (as `native_stack::run` reports it).
fn panic_outcome(text: &str) -> Outcome {
    crash(format!("{PANIC_PREFIX}{text}"))
}

/// The next answer of this thread's worker, as `engine`'s outcome. A
/// crash or hang of the worker is an outcome with a `bug` that names the
/// signal or the limit, and the worker is dropped (the next submit starts
/// a new one).
fn next_answer(iso: &Isolation, engine: Engine) -> Outcome {
    WORKER.with(|w| {
        let mut slot = w.borrow_mut();
        let Some(worker) = slot.as_mut() else {
            return crash("the worker is gone".into());
        };
        worker.pending = worker.pending.saturating_sub(1);
        match worker.answer(iso) {
            Answer::Frame(body) => {
                let o = decode_outcome(&body).unwrap_or_else(|e| crash(e.to_string()));
                if worker.pending == 0
                    && o.bug
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
            Answer::TimedOut(hang) => {
                let cpu = slot
                    .as_ref()
                    .and_then(|w| process_cpu_time(w.child.id()))
                    .unwrap_or_default();
                slot.take().map(|w| w.finish(true));
                crash(match hang {
                    Hang::Cpu => format!(
                        "hang: the {engine} worker did not answer within {} ms of CPU time",
                        iso.cpu_limit.as_millis()
                    ),
                    Hang::Wall => format!(
                        "hang: the {engine} worker did not answer within {} s (wall clock; it used {} ms of CPU time)",
                        iso.wall_limit.as_secs(),
                        cpu.as_millis()
                    ),
                })
            }
        }
    })
}

/// The outcomes of a submitted request, one per engine of its
/// `Runs::engines`, in that order. When the worker dies or hangs before
/// an answer, that answer and every later one are that crash (the runs
/// before it are kept: for `Runs::Every` and `Runs::DopplerThenJit` no
/// native code runs before the jit's turn).
pub fn collect(t: Ticket) -> Vec<Outcome> {
    let engines = t.runs.engines();
    if let Some(why) = t.failed {
        return engines.iter().map(|_| crash(why.clone())).collect();
    }
    let mut outcomes: Vec<Outcome> = Vec::with_capacity(engines.len());
    for &engine in &engines {
        let alive = WORKER.with(|w| w.borrow().as_ref().is_some_and(|w| w.pending > 0));
        let outcome = match outcomes.last() {
            Some(last) if !alive => last.clone(),
            _ => next_answer(&t.iso, engine),
        };
        outcomes.push(outcome);
    }
    outcomes
}

/// Run `q` in this thread's worker and wait for its last outcome.
pub fn run(iso: &Isolation, q: &Request) -> Outcome {
    collect(submit(iso, q))
        .pop()
        .expect("every request has an answer")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn requests_and_outcomes_round_trip() {
        let mut config = RunConfig::default();
        config.limits.max_steps = Some(77);
        let q = Request {
            runs: Runs::One(Engine::Jit),
            path: "a.spy".into(),
            source: "def main() -> None:\n    pass\n".into(),
            config,
        };
        let back = decode_request(&encode_request(&q)).unwrap();
        assert_eq!(back.runs, Runs::One(Engine::Jit));
        let pair = Request {
            runs: Runs::DopplerThenJit,
            ..q.clone()
        };
        assert_eq!(
            decode_request(&encode_request(&pair)).unwrap().runs,
            Runs::DopplerThenJit
        );
        for (reference_steps, residual) in [(Some(5), ResidualRoute::Printed), (None, ResidualRoute::Built)] {
            let runs = Runs::Every {
                reference_steps,
                residual,
            };
            let every = Request { runs, ..q.clone() };
            let back = decode_request(&encode_request(&every)).unwrap();
            assert_eq!(back.runs, runs);
            assert_eq!(back.config.limits.max_steps, Some(77));
        }
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
            runs: Runs::One(Engine::Interp),
            path: "a.spy".into(),
            source: "def main() -> None:\n    print(6 * 7)\n".into(),
            config: RunConfig::default(),
        };
        let mut input = vec![];
        for _ in 0..2 {
            write_frame(&mut input, &encode_request(&q)).unwrap();
        }
        // Doppler with fuel and the jit without, from one redshift: two
        // answers.
        let mut fueled = RunConfig::default();
        fueled.limits.max_steps = Some(10_000);
        let pair = Request {
            runs: Runs::DopplerThenJit,
            config: fueled,
            ..q.clone()
        };
        write_frame(&mut input, &encode_request(&pair)).unwrap();
        // Every engine on one parse: three answers.
        let every = Request {
            runs: Runs::Every {
                reference_steps: Some(2_500),
                residual: ResidualRoute::Built,
            },
            ..pair.clone()
        };
        write_frame(&mut input, &encode_request(&every)).unwrap();
        let mut output = vec![];
        assert_eq!(serve(&mut input.as_slice(), &mut output), 0);
        let mut r = output.as_slice();
        for _ in 0..7 {
            let o = decode_outcome(&read_frame(&mut r).unwrap().unwrap()).unwrap();
            assert_eq!((o.stdout.as_str(), o.exit, &o.bug), ("42\n", 0, &None));
        }
        assert!(read_frame(&mut r).unwrap().is_none());
    }

    /// What an outcome is compared on by the oracle, and whether the jit
    /// ran natively: all but the report (and the `not_native` reason's
    /// location), which `ResidualRoute::Built` may show elsewhere.
    fn compared(o: &Outcome) -> (i32, Option<ErrorLine>, Option<Bug>, bool, String) {
        (
            o.exit,
            o.error.clone(),
            o.bug.clone(),
            o.not_native.is_some(),
            o.stdout.clone(),
        )
    }

    /// `Runs::Every` parses a program once for all three engines: each
    /// outcome must be the one that engine gives alone (`run_program`),
    /// reports included, with planted bugs (never in the reference) and for
    /// a program that does not parse; and the same but for the report
    /// when doppler and the jit run redshift's own tree
    /// (`ResidualRoute::Built`).
    #[test]
    fn every_engine_on_one_parse_is_each_engine_alone() {
        let mut sources: Vec<String> = (0..24)
            .map(|i| crate::generate(&crate::campaign::case_bytes(13, i)).source)
            .collect();
        sources.push("def main() -> None:\n    print(1 +)\n".into());
        sources.push("def main() -> None:\n    print(-7 // 2, 1.0 / 0.0)\n".into());
        every_engine_together_and_alone(sources);
    }

    /// The built route on many generated programs (every swarm feature):
    /// the oracle's view of each engine's outcome is the printed route's.
    #[test]
    fn the_built_residual_runs_as_the_printed_one() {
        let sources: Vec<String> = (0..3)
            .flat_map(|seed| (0..80).map(move |i| (seed, i)))
            .map(|(seed, i)| crate::generate(&crate::campaign::case_bytes(seed, i)).source)
            .collect();
        every_engine_together_and_alone(sources);
    }

    fn every_engine_together_and_alone(sources: Vec<String>) {
        for (k, source) in sources.into_iter().enumerate() {
            let mut reference = RunConfig::default();
            reference.limits.max_steps = Some(20_000);
            let mut config = reference;
            config.limits.max_steps = Some(80_000);
            if k % 2 == 1 {
                config.mutations = Mutations::NONE
                    .with(spy_interp::engine::Mutation::FloorDivRoundsTowardZero)
                    .with(spy_interp::engine::Mutation::Jit(
                        spy_jit::Mutation::FloorDivNoFixup,
                    ));
                reference.mutations = config.mutations;
            }
            let together = |route| {
                let src = source.clone();
                spy_interp::native_stack::run(reference.limits.max_depth, move || {
                    let mut got = vec![];
                    spy_interp::engine::run_every_engine(
                        "fuzz.spy",
                        src.as_bytes(),
                        reference,
                        config,
                        route,
                        &mut |e, o| got.push((e, o)),
                    );
                    got
                })
                .expect("no panic")
            };
            let mut jit = config;
            jit.limits.max_steps = None;
            let alone = [
                (Engine::Interp, reference),
                (Engine::Doppler, config),
                (Engine::Jit, jit),
            ]
            .map(|(e, c)| (e, run_program(e, "fuzz.spy", source.as_bytes(), c)));
            assert_eq!(
                together(ResidualRoute::Printed),
                alone.to_vec(),
                "program {k}:\n{source}"
            );
            let view = |runs: &[(Engine, Outcome)]| -> Vec<_> {
                runs.iter().map(|(e, o)| (*e, compared(o))).collect()
            };
            assert_eq!(
                view(&together(ResidualRoute::Built)),
                view(&alone),
                "program {k} (built residual):\n{source}"
            );
        }
    }

    #[test]
    fn a_dead_worker_is_a_crash_finding_and_restarts() {
        // `sh -c 'kill -SEGV $$'` dies like a crashing jit worker would.
        let iso = Isolation {
            exe: "/bin/sh".into(),
            args: vec!["-c".into(), "kill -SEGV $$".into()],
            cpu_limit: Duration::from_secs(5),
            wall_limit: Duration::from_secs(30),
        };
        let q = Request {
            runs: Runs::One(Engine::Jit),
            path: "a.spy".into(),
            source: String::new(),
            config: RunConfig::default(),
        };
        for _ in 0..2 {
            let o = run(&iso, &q);
            let msg = o.bug.expect("a crash is a bug").message;
            assert!(msg.contains("signal 11 (SIGSEGV)"), "{msg}");
        }
        for runs in [
            Runs::DopplerThenJit,
            Runs::Every {
                reference_steps: None,
                residual: ResidualRoute::Printed,
            },
        ] {
            let outcomes = collect(submit(&iso, &Request { runs, ..q.clone() }));
            assert_eq!(outcomes.len(), runs.engines().len());
            assert!(outcomes[0].bug.is_some(), "{outcomes:?}");
            assert!(outcomes.iter().all(|o| *o == outcomes[0]), "{outcomes:?}");
        }
        // A busy worker is hung once it has used `cpu_limit` of CPU time
        // after `cpu_limit` of wall time.
        let spin = Isolation {
            args: vec!["-c".into(), "while :; do :; done".into()],
            cpu_limit: Duration::from_millis(200),
            ..iso.clone()
        };
        let msg = run(&spin, &q).bug.expect("a hang is a bug").message;
        assert!(msg.starts_with("hang:") && msg.contains("of CPU time"), "{msg}");
        // One that sleeps uses no CPU time: `wall_limit` ends it.
        let sleep = Isolation {
            args: vec!["-c".into(), "sleep 30".into()],
            cpu_limit: Duration::from_millis(200),
            wall_limit: Duration::from_secs(1),
            ..iso
        };
        let msg = run(&sleep, &q).bug.expect("a hang is a bug").message;
        assert!(msg.starts_with("hang:") && msg.contains("wall clock"), "{msg}");
    }
}
