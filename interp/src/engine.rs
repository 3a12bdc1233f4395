//! The engines that run a SPy program, and the one outcome every harness
//! compares them on.
//!
//! An [`Engine`] is a way of running a whole program: `Interp` (ASTFrame on
//! the source: the reference) and `Doppler` (redshift, print the residual
//! module, parse it back and run it in ASTFrame). A [`RunConfig`] says how:
//! limits, planted bugs, and whether ASTFrame's shortcuts are switched off
//! (the `interp-general` mode, a configuration of the reference engine, not
//! an engine). [`run_program`] runs one program on a deep-stack thread
//! behind a panic net and returns its [`Outcome`]: exit code, stdout, and
//! the uncaught SPy exception as a typed `(ExcKind, message)`; an internal
//! error of spy-interp is kept apart as a `bug` (a finding, never an
//! outcome).

use std::fmt;

use crate::error::{Bug, ExcKind, Failure, SpyError};
use crate::frames::{limits, Interp};
use crate::redshift::ErrorMode;

pub use crate::frames::{Limits, Mutation, Mutations, RunConfig};

/// An engine that can run a SPy program.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Engine {
    /// ASTFrame on the source: the reference.
    Interp,
    /// Redshift (lazy errors), print the residual module, run it in ASTFrame.
    Doppler,
}

impl Engine {
    /// Every engine that exists, reference first.
    pub const ALL: &'static [Engine] = &[Engine::Interp, Engine::Doppler];

    pub fn name(self) -> &'static str {
        match self {
            Engine::Interp => "interp",
            Engine::Doppler => "doppler",
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
    /// `Kind: message` (`Kind:` when the message is empty), as the last
    /// line of the report on stderr.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.message.is_empty() {
            write!(f, "{}:", self.kind)
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
    pub stdout: String,
}

impl Outcome {
    /// Exit code of an internal error (as a Rust panic's).
    pub const BUG_EXIT: i32 = 101;

    fn bug(message: String, stdout: String) -> Outcome {
        Outcome {
            exit: Outcome::BUG_EXIT,
            error: None,
            report: None,
            bug: Some(Bug::new(message)),
            stdout,
        }
    }

    fn of(result: Result<i32, Failure>, out: Vec<u8>) -> Outcome {
        let stdout = String::from_utf8_lossy(&out).into_owned();
        match result {
            Ok(exit) => Outcome {
                exit,
                error: None,
                report: None,
                bug: None,
                stdout,
            },
            Err(Failure::Raise(e)) => Outcome {
                exit: 1,
                error: Some(ErrorLine::of(&e)),
                report: Some(crate::diag::render(&e)),
                bug: None,
                stdout,
            },
            Err(Failure::Bug(b)) => Outcome::bug(b.message, stdout),
        }
    }
}

/// Run `source` (named `path`) with `engine` on a thread with a deep stack.
/// A panic anywhere in the engine becomes an `Outcome` with a `bug`.
pub fn run_program(engine: Engine, path: &str, source: &[u8], config: RunConfig) -> Outcome {
    let path = path.to_string();
    let source = source.to_vec();
    let config = if engine.is_reference() {
        RunConfig {
            mutations: Mutations::NONE,
            ..config
        }
    } else {
        config
    };
    let handle = std::thread::Builder::new()
        .stack_size(limits::INTERP_STACK_BYTES)
        .spawn(move || {
            let mut out = Vec::new();
            let result = match engine {
                Engine::Interp => run_interp(&path, &source, &mut out, config),
                Engine::Doppler => run_doppler(&path, &source, &mut out, config),
            };
            Outcome::of(result, out)
        });
    let joined = handle
        .map_err(|e| format!("cannot start the interpreter thread: {e}"))
        .and_then(|h| h.join().map_err(|p| format!("panic: {}", panic_text(&*p))));
    joined.unwrap_or_else(|message| Outcome::bug(message, String::new()))
}

/// The text of a panic payload.
pub fn panic_text(payload: &(dyn std::any::Any + Send)) -> String {
    payload
        .downcast_ref::<String>()
        .cloned()
        .or_else(|| payload.downcast_ref::<&str>().map(|s| s.to_string()))
        .unwrap_or_else(|| "panic".to_string())
}

/// The interp engine: parse, resolve and run the program in ASTFrame,
/// writing its output to `out`; `Ok` is the exit code. Runs on the calling
/// thread: callers that accept arbitrary programs should use a thread with
/// `limits::INTERP_STACK_BYTES` of stack (as `run_program` does).
pub fn run_interp(
    path: &str,
    source: &[u8],
    out: &mut dyn std::io::Write,
    config: RunConfig,
) -> Result<i32, Failure> {
    let mut interp = Interp::new(out, config);
    let result = interp.run_main_file(path, source);
    let _ = interp.out.flush();
    result
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
    let residual = {
        // The planted SIMD bug affects only the residual run, not redshift.
        let redshift_config = RunConfig {
            mutations: config.mutations.without(Mutation::SimdLaneOrder),
            ..config
        };
        let mut interp = Interp::new(out, redshift_config);
        let r = interp.redshift_file(path, source, ErrorMode::Lazy);
        let _ = interp.out.flush();
        r?
    };
    let text = crate::backend::spy_printer::print_module(&residual.module);
    let residual_path = format!("{path}.redshift/{}.spy", residual.modname);
    run_interp(&residual_path, text.as_bytes(), out, config)
}
