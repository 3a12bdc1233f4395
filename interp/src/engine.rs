//! The engines that run a SPy program, and the one outcome every harness
//! compares them on.
//!
//! An [`Engine`] is a way of running a whole program: `Interp` (ASTFrame on
//! the source: the reference), `Doppler` (redshift, print the residual
//! module, parse it back and run it in ASTFrame) and `Jit` (the same
//! residual module, lowered to spy-jit's IR and run as x86-64 code). A [`RunConfig`] says how:
//! limits, planted bugs, and whether ASTFrame's shortcuts are switched off
//! (the `interp-general` mode, a configuration of the reference engine, not
//! an engine). [`run_program`] runs one program on a deep-stack thread
//! behind a panic net and returns its [`Outcome`]: exit code, stdout, and
//! the uncaught SPy exception as a typed `(ExcKind, message)`; an internal
//! error of spy-interp is kept apart as a `bug` (a finding, never an
//! outcome; a program the jit engine cannot compile is `not_native`), and a failure of the host to take the program's output as
//! `host`. [`run_program`] captures stdout in memory (for the harnesses);
//! [`run_program_to`] streams it to a writer as the program runs (for the
//! command line). [`run_every_engine`] runs all three on one parse of the
//! program and one of its residual module (the fuzzer's worker), each
//! outcome the one [`run_program`] gives.

use std::fmt;
use std::io::Write;

use crate::backend::origins::ResidualMap;
use crate::error::{Bug, ExcKind, Failure, HostError, SpyError};
use crate::frames::{Interp, ParsedModule};
pub use crate::lower::run::NotNative;
use crate::native_stack;
use crate::redshift::PrintedResidual;
pub use crate::redshift::ResidualRoute;
use crate::redshift::{ErrorMode, ProgramInput};
use crate::vm::value::ModuleId;

pub use crate::frames::{Limits, Mutation, Mutations, RunConfig};

/// An engine that can run a SPy program.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Engine {
    /// ASTFrame on the source: the reference.
    Interp,
    /// Redshift (lazy errors), print the residual module, run it in ASTFrame.
    Doppler,
    /// The doppler engine's residual module, lowered and run natively.
    Jit,
}

impl Engine {
    /// Every engine that exists, reference first.
    pub const ALL: &'static [Engine] = &[Engine::Interp, Engine::Doppler, Engine::Jit];

    pub fn name(self) -> &'static str {
        match self {
            Engine::Interp => "interp",
            Engine::Doppler => "doppler",
            Engine::Jit => "jit",
        }
    }

    /// The engine whose allowed divergences (spec §16.6) this one shares:
    /// the jit engine runs doppler's residual module.
    pub fn divergence_engine(self) -> Engine {
        match self {
            Engine::Jit => Engine::Doppler,
            e => e,
        }
    }

    pub fn from_name(name: &str) -> Option<Engine> {
        Engine::ALL.iter().copied().find(|e| e.name() == name)
    }

    /// The reference engine never carries planted bugs: they exist to be
    /// found by comparing another engine with it.
    pub fn is_reference(self) -> bool {
        self == Engine::Interp
    }
}

impl fmt::Display for Engine {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// An uncaught SPy exception as engines are compared on it: its kind and
/// message (the stable `Kind: message` line), not its rendering.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct ErrorLine {
    pub kind: ExcKind,
    pub message: String,
}

impl ErrorLine {
    pub fn of(e: &SpyError) -> ErrorLine {
        ErrorLine {
            kind: e.kind,
            message: e.message.clone(),
        }
    }
}

impl fmt::Display for ErrorLine {
    /// `Kind: message` (`Kind` alone when the message is empty), as the
    /// stable line of the report on stderr.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.message.is_empty() {
            write!(f, "{}", self.kind)
        } else {
            write!(f, "{}: {}", self.kind, self.message)
        }
    }
}

/// What running a program produced, in the form every engine is compared on.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Outcome {
    pub exit: i32,
    /// The uncaught SPy exception, if any.
    pub error: Option<ErrorLine>,
    /// The full rendered error report (stderr), not compared across engines.
    pub report: Option<String>,
    /// An internal error of spy-interp: always a failure.
    pub bug: Option<Bug>,
    /// The program's output could not be written (only when it streams to
    /// a writer that can fail, see `run_program_to`).
    pub host: Option<HostError>,
    /// The jit engine could not run the program natively, and why (a gap
    /// the harnesses count, never a silent fallback).
    pub not_native: Option<NotNative>,
    /// What the program printed (empty when it was streamed).
    pub stdout: String,
}

impl Outcome {
    /// Exit code of an internal error (as a Rust panic's).
    pub const BUG_EXIT: i32 = 101;
    /// Exit code when the jit engine cannot run the program natively.
    pub const NOT_NATIVE_EXIT: i32 = 3;

    fn not_native(why: NotNative) -> Outcome {
        Outcome {
            exit: Outcome::NOT_NATIVE_EXIT,
            error: None,
            report: Some(format!("{why}\n")),
            bug: None,
            host: None,
            not_native: Some(why),
            stdout: String::new(),
        }
    }

    /// Exit code when the host failed the program (sysexits' `EX_IOERR`).
    pub const HOST_EXIT: i32 = 74;

    fn bug(message: String, stdout: String) -> Outcome {
        Outcome {
            exit: Outcome::BUG_EXIT,
            error: None,
            report: None,
            bug: Some(Bug::new(message)),
            host: None,
            not_native: None,
            stdout,
        }
    }

    fn of(result: Result<i32, Failure>, stdout: String) -> Outcome {
        let clean = Outcome {
            exit: 0,
            error: None,
            report: None,
            bug: None,
            host: None,
            not_native: None,
            stdout,
        };
        match result {
            Ok(exit) => Outcome { exit, ..clean },
            Err(Failure::Raise(e)) => Outcome {
                exit: 1,
                error: Some(ErrorLine::of(&e)),
                report: Some(crate::diag::render(&e)),
                ..clean
            },
            Err(Failure::Bug(b)) => Outcome::bug(b.message, clean.stdout),
            Err(Failure::Host(h)) => Outcome {
                exit: Outcome::HOST_EXIT,
                host: Some(h),
                ..clean
            },
        }
    }
}

/// Run `source` (named `path`) with `engine` on a thread with a deep stack
/// (sized for `config.limits.max_depth`), capturing its output in memory.
/// A panic anywhere in the engine becomes an `Outcome` with a `bug`.
pub fn run_program(engine: Engine, path: &str, source: &[u8], config: RunConfig) -> Outcome {
    match run_on_eval_thread(engine, path, source.to_vec(), config, Vec::new()) {
        Ok((outcome, out)) => Outcome {
            stdout: output_text(out),
            ..outcome
        },
        Err(e) => Outcome::bug(e.to_string(), String::new()),
    }
}

/// Like [`run_program`], but the program's output goes to `out` as it is
/// printed (the outcome's `stdout` is empty). `out` is flushed when the
/// program ends, however it ends; a write or flush that fails ends the run
/// with `host` set. Buffering is `out`'s business.
pub fn run_program_to(
    engine: Engine,
    path: &str,
    source: &[u8],
    config: RunConfig,
    out: Box<dyn Write + Send>,
) -> Outcome {
    run_program_source_to(engine, path, source.to_vec(), config, out)
}

/// [`run_program_to`] of source the caller gives away: a large program's
/// text is then held once during the run (as its `SourceFile`), not three
/// times (the caller's copy, the evaluator thread's, the file's; issue 14
/// item 5).
pub fn run_program_source_to(
    engine: Engine,
    path: &str,
    source: Vec<u8>,
    config: RunConfig,
    out: Box<dyn Write + Send>,
) -> Outcome {
    match run_on_eval_thread(engine, path, source, config, out) {
        Ok((outcome, _)) => outcome,
        Err(e) => Outcome::bug(e.to_string(), String::new()),
    }
}

/// Run the program on an evaluator thread (`native_stack::run`) writing to
/// `out`; returns its outcome (with an empty `stdout`) and the writer.
fn run_on_eval_thread<W: Write + Send + 'static>(
    engine: Engine,
    path: &str,
    source: Vec<u8>,
    config: RunConfig,
    mut out: W,
) -> Result<(Outcome, W), native_stack::RunError> {
    let path = path.to_string();
    let config = if engine.is_reference() {
        RunConfig {
            mutations: Mutations::NONE,
            ..config
        }
    } else {
        config
    };
    // A large program's run is about memory: freed pages go back at once
    // (`spy_jit::runtime::return_freed_pages_at_once`; for the rest of the
    // process: a large program is run once, by the command line).
    if source.len() >= GIVE_BACK_SOURCE_BYTES {
        spy_jit::runtime::return_freed_pages_at_once();
    }
    native_stack::run(config.limits.max_depth, move || {
        let result = match engine {
            Engine::Interp => interp_source(&path, source, &mut out, config),
            Engine::Doppler => doppler_source(&path, source, &mut out, config),
            Engine::Jit => match jit_source(&path, source, &mut out, config) {
                Ok(r) => r,
                Err(why) => return (Outcome::not_native(why), out),
            },
        };
        (Outcome::of(result, String::new()), out)
    })
}

/// A run's captured output as text: valid UTF-8 (what every program
/// prints) is taken as it is, without a copy; anything else lossily.
fn output_text(bytes: Vec<u8>) -> String {
    String::from_utf8(bytes).unwrap_or_else(|e| String::from_utf8_lossy(e.as_bytes()).into_owned())
}

/// Flush `out` after a run: a flush that fails is the run's failure unless
/// the run already failed the same way or found a bug.
fn flushed<T>(result: Result<T, Failure>, out: &mut dyn Write) -> Result<T, Failure> {
    match (out.flush(), result) {
        (Err(e), Ok(_) | Err(Failure::Raise(_))) => Err(HostError::output(&e).into()),
        (_, result) => result,
    }
}

/// The interp engine: parse, resolve and run the program in ASTFrame,
/// writing its output to `out` (flushed at the end); `Ok` is the exit
/// code. Runs on the calling thread: callers that accept arbitrary
/// programs should run it on a `native_stack::run` thread (as
/// `run_program` does).
pub fn run_interp(path: &str, source: &[u8], out: &mut dyn Write, config: RunConfig) -> Result<i32, Failure> {
    interp_source(path, source.to_vec(), out, config)
}

/// [`run_interp`] of source the caller gives away.
fn interp_source(
    path: &str,
    source: Vec<u8>,
    out: &mut dyn Write,
    config: RunConfig,
) -> Result<i32, Failure> {
    let mut interp = Interp::new(out, config);
    interp.defer_defs = true;
    let result = interp.run_main_source(path, source);
    flushed(result, interp.out)
}

/// The doppler engine: redshift `source` (lazy errors), print the residual
/// module, and run that source in ASTFrame under the same module name.
/// Output printed by blue code at redshift time comes first.
pub fn run_doppler(
    path: &str,
    source: &[u8],
    out: &mut dyn std::io::Write,
    config: RunConfig,
) -> Result<i32, Failure> {
    doppler_source(path, source.to_vec(), out, config)
}

/// [`run_doppler`] of source the caller gives away.
fn doppler_source(
    path: &str,
    source: Vec<u8>,
    out: &mut dyn Write,
    config: RunConfig,
) -> Result<i32, Failure> {
    let printed = redshift_for_run(path, ProgramInput::Source(source), out, config, ErrorMode::Lazy)?;
    let mut interp = Interp::new(out, config);
    interp.defer_defs = true;
    let (file, module, modname, map) = printed.preload(&mut interp);
    let result = interp.run_parsed_module_as(file, module, &modname);
    flushed(mapped(&map, result), interp.out)
}

/// What `spy-interp redshift -x` does: redshift `source` in `mode` (eager:
/// the first static error aborts; lazy/warn: it is raised if reached),
/// then run the residual module like the doppler engine, on an evaluator
/// thread, the program's output going to `out`. Also returns the static
/// errors deferred to run time, rendered, in `ErrorMode::Warn`.
pub fn run_redshifted_to(
    path: &str,
    source: &[u8],
    mode: ErrorMode,
    config: RunConfig,
    out: Box<dyn Write + Send>,
) -> (Outcome, Vec<String>) {
    let (path, source) = (path.to_string(), source.to_vec());
    let mut out = out;
    let run = native_stack::run(config.limits.max_depth, move || {
        let mut warnings = Vec::new();
        let source = ProgramInput::Source(source);
        let result = redshift_for_run_reporting(
            &path,
            source,
            &mut out,
            config,
            mode,
            &mut warnings,
            ResidualRoute::Printed,
        )
        .and_then(|residual| {
            let mut interp = Interp::new(&mut out, config);
            interp.defer_defs = true;
            let (file, module, modname, map) = residual.preload(&mut interp);
            let r = interp.run_parsed_module_as(file, module, &modname);
            flushed(mapped(&map, r), interp.out)
        });
        (Outcome::of(result, String::new()), warnings)
    });
    match run {
        Ok(r) => r,
        Err(e) => (Outcome::bug(e.to_string(), String::new()), Vec::new()),
    }
}

/// `result` with its error's locations mapped to the user's source.
fn mapped<T>(map: &ResidualMap, result: Result<T, Failure>) -> Result<T, Failure> {
    result.map_err(|f| match f {
        Failure::Raise(mut e) => {
            map.map_error(&mut e);
            Failure::Raise(e)
        }
        other => other,
    })
}

/// Redshift `source` (lazy errors; `main` checked first), print the
/// residual module and parse it back (`redshift::print_checked`), to be
/// run under the original module name. Output printed by blue code goes to
/// `out`. The residual module's own locations are shown as
/// `FILE.spy (residual code)`: an error located in residual code that has
/// no origin in the user's file says that it points into redshift's output
/// (spec §16.7).
fn redshift_for_run(
    path: &str,
    source: ProgramInput,
    out: &mut dyn std::io::Write,
    config: RunConfig,
    mode: ErrorMode,
) -> Result<PrintedResidual, Failure> {
    redshift_for_run_reporting(
        path,
        source,
        out,
        config,
        mode,
        &mut Vec::new(),
        ResidualRoute::Printed,
    )
}

/// [`redshift_for_run`], also collecting the rendered warnings of
/// `ErrorMode::Warn`, the residual module taking `route`.
fn redshift_for_run_reporting(
    path: &str,
    source: ProgramInput,
    out: &mut dyn std::io::Write,
    config: RunConfig,
    mode: ErrorMode,
    warnings: &mut Vec<String>,
    route: ResidualRoute,
) -> Result<PrintedResidual, Failure> {
    let planted = config
        .mutations
        .has(Mutation::PrinterRightOperandUnparenthesized)
        .then_some(crate::backend::PlantedPrinterBug::RightOperandUnparenthesized);
    let residual = {
        // The planted SIMD bug affects only the residual run, not redshift.
        let redshift_config = RunConfig {
            mutations: config.mutations.without(Mutation::SimdLaneOrder),
            ..config
        };
        let mut interp = Interp::new(out, redshift_config);
        // (a streaming redshift defers simple `def`s as the interp engine
        // does, `frames::pending_def`)
        interp.defer_defs = true;
        // A residual module that is only printed is printed function by
        // function as redshift goes (its tree never whole: issue 14 item
        // 5); the planted printer bug prints the whole tree.
        let options = crate::redshift::RedshiftOptions {
            error_mode: mode,
            stream: route == ResidualRoute::Printed && planted.is_none(),
            ..Default::default()
        };
        let r = interp.redshift_program_with(path, source, options);
        flushed(r, interp.out)?
    };
    warnings.extend(residual.warnings.iter().map(crate::diag::render));
    // The source module is gone: its pages go back before the residual
    // module is parsed, when there were many (a large program).
    if residual.file.len() >= GIVE_BACK_SOURCE_BYTES {
        spy_jit::runtime::give_back_freed_memory();
    }
    crate::redshift::residual_for_run(residual, &residual_display_path(path), route, planted)
}

pub use crate::redshift::residual_display_path;

/// The source size from which a run returns freed pages at once
/// (`spy_jit::runtime::return_freed_pages_at_once`) and the doppler and
/// jit engines give the pages of the freed source module back before
/// parsing the residual module (`spy_jit::runtime::give_back_freed_memory`):
/// below it the memory is small, and the heap walk would be paid by every
/// small program (the fuzzer runs thousands a second).
const GIVE_BACK_SOURCE_BYTES: usize = 1 << 20;

/// The jit engine: the doppler engine's residual module (redshifted with
/// lazy errors, printed, parsed back and initialized in ASTFrame: the
/// in-memory AST carries placeholder name ids), lowered to spy-jit's IR,
/// compiled and run, its output written to `out` as it prints. `Err` when
/// it cannot run natively: an unsupported construct (with its location,
/// mapped to the user's source where it has an origin there), the host, or
/// `--max-steps` (refused:
/// machine code counts no steps, see spec/17-jit.md).
pub fn run_jit(
    path: &str,
    source: &[u8],
    out: &mut dyn std::io::Write,
    config: RunConfig,
) -> Result<Result<i32, Failure>, NotNative> {
    jit_source(path, source.to_vec(), out, config)
}

/// [`run_jit`] of source the caller gives away.
fn jit_source(
    path: &str,
    source: Vec<u8>,
    out: &mut dyn Write,
    config: RunConfig,
) -> Result<Result<i32, Failure>, NotNative> {
    if config.limits.max_steps.is_some() {
        return Err(NotNative::Option("--max-steps (step fuel)".to_string()));
    }
    let residual = match redshift_for_run(path, ProgramInput::Source(source), out, config, ErrorMode::Lazy) {
        Ok(r) => r,
        Err(e) => return Ok(Err(e)),
    };
    let mut interp = Interp::new(out, config);
    // (the lowering makes the records of the `def`s it reaches)
    interp.defer_defs = true;
    let (file, module, modname, map) = residual.preload(&mut interp);
    let module = interp.load_parsed_module_as(file, module, &modname);
    run_jit_module(&mut interp, module)
        .map(|r| mapped(&map, r))
        .map_err(|why| why.mapped(&map))
}

/// The doppler and jit engines on one redshift of `source` (what the
/// fuzzer's worker process runs: redshift, print and parse once, not once
/// per engine). Runs on the calling thread, like [`run_interp`]: the caller
/// gives it a deep stack and catches panics. Redshift and the doppler run
/// use `config`; the jit run the same without step fuel (machine code
/// counts none, spec/17-jit.md), so it runs the module redshift produced
/// within doppler's fuel: where that fuel ran out, both outcomes are the
/// `StepLimitError` (a timeout to every harness). Doppler's outcome goes
/// to `on_doppler` before the jit runs (a crash of native code must not
/// lose it); the jit's is returned. Output printed by blue code at
/// redshift time starts both outcomes' stdout.
pub fn run_doppler_and_jit(
    path: &str,
    source: &[u8],
    config: RunConfig,
    on_doppler: &mut dyn FnMut(Outcome),
) -> Outcome {
    doppler_and_jit(
        path,
        ProgramInput::Source(source.to_vec()),
        config,
        ResidualRoute::Printed,
        on_doppler,
    )
}

/// Every engine of [`Engine::ALL`] on one parse of `source` (what the
/// fuzzer's worker runs for a three-engine comparison): the interp engine
/// runs a copy of the parsed module with `reference` (its planted bugs
/// dropped, as for every reference run), then redshift starts from the same
/// parsed module and doppler and the jit run as in [`run_doppler_and_jit`]
/// with `config`. Each outcome goes to `on_outcome` as soon as it is known,
/// in `Engine::ALL` order (a crash of native code must not lose the
/// others). The same outcomes as [`run_program`] per engine: the AST is
/// immutable once parsed (resolution and every engine's state live beside
/// it), so the copy is shared where it is reference-counted. Runs on the
/// calling thread, like [`run_interp`]. Doppler and the jit run the
/// residual module as `route` says: on `ResidualRoute::Built` their
/// outcomes are [`run_program`]'s but for the report (its locations are
/// the user's source, where the printed module's unmapped ones would be
/// `(residual code)`).
pub fn run_every_engine(
    path: &str,
    source: &[u8],
    reference: RunConfig,
    config: RunConfig,
    route: ResidualRoute,
    on_outcome: &mut dyn FnMut(Engine, Outcome),
) {
    let modname = crate::frames::module_name(path);
    let parsed = match crate::syntax::parse_bytes(path, source) {
        Ok((file, module)) => ParsedModule::resolved(file, module),
        Err(e) => {
            // Every engine starts by parsing the same bytes.
            let outcome = Outcome::of(Err(e.into()), String::new());
            for &engine in Engine::ALL {
                on_outcome(engine, outcome.clone());
            }
            return;
        }
    };
    let reference = RunConfig {
        mutations: Mutations::NONE,
        ..reference
    };
    let mut out = Vec::new();
    let result = {
        let mut interp = Interp::new(&mut out, reference);
        interp.defer_defs = true;
        let result = interp.run_shared_module_as(parsed.clone(), &modname);
        flushed(result, interp.out)
    };
    on_outcome(Engine::Interp, Outcome::of(result, output_text(out)));
    let input = ProgramInput::Parsed(parsed);
    let jit = doppler_and_jit(path, input, config, route, &mut |o| {
        on_outcome(Engine::Doppler, o)
    });
    on_outcome(Engine::Jit, jit);
}

/// [`run_doppler_and_jit`] from source bytes or a parsed module.
fn doppler_and_jit(
    path: &str,
    source: ProgramInput,
    config: RunConfig,
    route: ResidualRoute,
    on_doppler: &mut dyn FnMut(Outcome),
) -> Outcome {
    let mut blue = Vec::new();
    let redshifted = redshift_for_run_reporting(
        path,
        source,
        &mut blue,
        config,
        ErrorMode::Lazy,
        &mut Vec::new(),
        route,
    );
    let printed = match redshifted {
        Ok(p) => p,
        Err(e) => {
            let outcome = Outcome::of(Err(e), output_text(blue));
            on_doppler(outcome.clone());
            return outcome;
        }
    };
    // One tree and one resolution of the residual module for both runs.
    let PrintedResidual {
        modname,
        file,
        module,
        map,
        deps,
    } = printed;
    let residual = ParsedModule::resolved(file, module);
    let preload_deps = |interp: &mut Interp<'_>| {
        for d in &deps {
            interp.preload_module(d.modname.clone(), d.file.clone(), d.module.clone());
        }
    };
    let mut out = blue.clone();
    let result = {
        let mut interp = Interp::new(&mut out, config);
        interp.defer_defs = true;
        preload_deps(&mut interp);
        let result = interp.run_shared_module_as(residual.clone(), &modname);
        flushed(mapped(&map, result), interp.out)
    };
    on_doppler(Outcome::of(result, output_text(out)));
    let jit_config = RunConfig {
        limits: Limits {
            max_steps: None,
            ..config.limits
        },
        ..config
    };
    let mut out = blue;
    let run = {
        let mut interp = Interp::new(&mut out, jit_config);
        interp.defer_defs = true;
        preload_deps(&mut interp);
        let module = interp.load_shared_module_as(residual, &modname);
        run_jit_module(&mut interp, module)
            .map(|r| mapped(&map, r))
            .map_err(|why| why.mapped(&map))
    };
    match run {
        Ok(result) => Outcome::of(result, output_text(out)),
        Err(why) => Outcome::not_native(why),
    }
}

/// The `spy-interp jit FILE` view: redshift FILE, lower and compile the
/// residual module, and list every function (IR, register homes, machine
/// code with source lines; see `lower::run::listing`). `Err` is what to
/// report instead: a SPy error (rendered), or why it is not native.
pub fn jit_listing(path: &str, source: &[u8], config: RunConfig) -> Result<String, String> {
    let (path, source) = (path.to_string(), source.to_vec());
    let run = native_stack::run(config.limits.max_depth, move || {
        let mut blue_out = Vec::new();
        let source = ProgramInput::Source(source);
        let residual = match redshift_for_run(&path, source, &mut blue_out, config, ErrorMode::Lazy) {
            Ok(r) => r,
            Err(Failure::Raise(e)) => return Err(crate::diag::render(&e)),
            Err(e) => return Err(format!("{e:?}\n")),
        };
        let mut sink = Vec::new();
        let mut interp = Interp::new(&mut sink, config);
        let (file, module, modname, _) = residual.preload(&mut interp);
        let module = interp.load_parsed_module_as(file, module, &modname);
        let module = module.and_then(|m| {
            interp.make_pending_global(m, "main")?;
            interp.program_main(m).map(|_| m)
        });
        let module = match module {
            Ok(m) => m,
            Err(Failure::Raise(e)) => return Err(crate::diag::render(&e)),
            Err(e) => return Err(format!("{e:?}\n")),
        };
        crate::lower::run::listing(&mut interp, module).map_err(|why| format!("{why}\n"))
    });
    run.unwrap_or_else(|e| Err(format!("{e}\n")))
}

/// The jit engine on residual source (what `spy-interp redshift -E lazy`
/// prints), named `path`.
pub fn run_jit_residual(
    path: &str,
    source: &[u8],
    out: &mut dyn std::io::Write,
    config: RunConfig,
) -> Result<Result<i32, Failure>, NotNative> {
    let mut interp = Interp::new(out, config);
    let module = interp.load_residual_module(path, source);
    run_jit_module(&mut interp, module)
}

/// Check `main` of the loaded residual module (the same located errors as
/// ASTFrame) and run it natively.
fn run_jit_module(
    interp: &mut Interp<'_>,
    module: Result<ModuleId, Failure>,
) -> Result<Result<i32, Failure>, NotNative> {
    let module = module.and_then(|m| {
        interp.make_pending_global(m, "main")?;
        interp.program_main(m).map(|_| m)
    });
    let module = match module {
        Ok(m) => m,
        Err(e) => return Ok(flushed(Err(e), interp.out)),
    };
    let r = crate::lower::run::run_module(interp, module);
    r.map(|result| flushed(result, interp.out))
}
