//! The two error channels.
//!
//! - [`SpyError`]: a SPy exception, i.e. a *program outcome* (a ParseError, a
//!   TypeError raised when a node executes, a ZeroDivisionError...). It has a
//!   kind, a message worded as upstream SPy words it, annotated source ranges
//!   and a traceback. Every engine must produce the same `Kind: message`.
//! - [`Bug`]: an internal invariant of this implementation broke. It is never
//!   a legitimate outcome of a program; the fuzzer reports it as a finding.
//! - [`HostError`]: the host failed the program (its output could not be
//!   written: a closed pipe, a full disk). Not a SPy exception (no program
//!   can raise or observe it, redshift never turns it into a residual
//!   `raise`) and not a bug: the run ends and the user is told.
//!
//! Evaluation functions return `Result<T, Outcome>`-like types whose error is
//! [`Failure`], which is either of the two.

use std::fmt;
use std::rc::Rc;

use crate::source::{SourceFile, TextRange};

/// The class of a SPy exception. `Display` gives the name printed before
/// the message (`TypeError: ...`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ExcKind {
    Exception,
    StaticError,
    TypeError,
    ValueError,
    OverflowError,
    IndexError,
    KeyError,
    ZeroDivisionError,
    AssertionError,
    NameError,
    ScopeError,
    ParseError,
    IndentationError,
    TabError,
    ImportError,
    PanicError,
    RecursionError,
    NotImplementedError,
    /// Upstream's "work in progress" error for known-unsupported features.
    Wip,
    /// `--max-steps` ran out (ours; upstream has no fuel).
    StepLimitError,
    /// Past the memory budget (`--max-memory`).
    MemoryError,
    /// A file operation the host failed (`open`, `read`...: spec §8.5).
    OSError,
}

impl ExcKind {
    pub const ALL: [ExcKind; 22] = [
        ExcKind::Exception,
        ExcKind::StaticError,
        ExcKind::TypeError,
        ExcKind::ValueError,
        ExcKind::OverflowError,
        ExcKind::IndexError,
        ExcKind::KeyError,
        ExcKind::ZeroDivisionError,
        ExcKind::AssertionError,
        ExcKind::NameError,
        ExcKind::ScopeError,
        ExcKind::ParseError,
        ExcKind::IndentationError,
        ExcKind::TabError,
        ExcKind::ImportError,
        ExcKind::PanicError,
        ExcKind::RecursionError,
        ExcKind::NotImplementedError,
        ExcKind::Wip,
        ExcKind::StepLimitError,
        ExcKind::MemoryError,
        ExcKind::OSError,
    ];

    pub fn name(self) -> &'static str {
        match self {
            ExcKind::Exception => "Exception",
            ExcKind::StaticError => "StaticError",
            ExcKind::TypeError => "TypeError",
            ExcKind::ValueError => "ValueError",
            ExcKind::OverflowError => "OverflowError",
            ExcKind::IndexError => "IndexError",
            ExcKind::KeyError => "KeyError",
            ExcKind::ZeroDivisionError => "ZeroDivisionError",
            ExcKind::AssertionError => "AssertionError",
            ExcKind::NameError => "NameError",
            ExcKind::ScopeError => "ScopeError",
            ExcKind::ParseError => "ParseError",
            ExcKind::IndentationError => "IndentationError",
            ExcKind::TabError => "TabError",
            ExcKind::ImportError => "ImportError",
            ExcKind::PanicError => "PanicError",
            ExcKind::RecursionError => "RecursionError",
            ExcKind::NotImplementedError => "NotImplementedError",
            ExcKind::Wip => "WIP",
            ExcKind::StepLimitError => "StepLimitError",
            ExcKind::MemoryError => "MemoryError",
            ExcKind::OSError => "OSError",
        }
    }

    pub fn from_name(name: &str) -> Option<ExcKind> {
        ExcKind::ALL.iter().copied().find(|k| k.name() == name)
    }

    /// TypeError is a StaticError (matters for lazy redshift).
    pub fn is_static(self) -> bool {
        matches!(self, ExcKind::StaticError | ExcKind::TypeError)
    }
}

impl fmt::Display for ExcKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// How an annotation is drawn: the primary one is the error site.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Level {
    Error,
    Note,
}

/// A message attached to a source range ("this is `i32`").
#[derive(Clone, Debug)]
pub struct Annotation {
    pub level: Level,
    pub file: Rc<SourceFile>,
    pub range: TextRange,
    pub message: String,
}

/// One entry of a SPy traceback: the function and the location being
/// evaluated in it.
#[derive(Clone, Debug)]
pub struct TraceEntry {
    /// `mod::func`, `[module] mod`, `[classdef] mod::C`
    pub name: String,
    pub file: Rc<SourceFile>,
    pub range: TextRange,
}

/// A SPy exception: a program outcome, not a bug.
#[derive(Clone, Debug)]
pub struct SpyError {
    pub kind: ExcKind,
    pub message: String,
    pub annotations: Vec<Annotation>,
    /// Innermost frame first: each frame the error passes through on its
    /// way out appends itself (a traceback is printed outermost first).
    pub traceback: Vec<TraceEntry>,
    /// When this exception is a run-time error (`vm::rt_error`), its stable
    /// code and operands: a `$raise[N]` helper is built from them, as the
    /// JIT raises by code. Kind and message then follow from the code.
    pub runtime: Option<Box<RuntimeCode>>,
    /// Notes printed after the report, innermost first: the chain of blue
    /// calls the error came out of (`in the blue call ...`), as provenance
    /// shows it (spec §7.3).
    pub notes: Vec<String>,
    /// The error has left (or was folded in) a red function's frame: only
    /// the innermost one says which specialization it is.
    pub left_red_frame: bool,
}

impl SpyError {
    pub fn new(kind: ExcKind, message: impl Into<String>) -> SpyError {
        SpyError {
            kind,
            message: message.into(),
            annotations: Vec::new(),
            traceback: Vec::new(),
            runtime: None,
            notes: Vec::new(),
            left_red_frame: false,
        }
    }

    /// Add an annotation at the error site (`Level::Error`).
    pub fn with_error(
        mut self,
        file: &Rc<SourceFile>,
        range: TextRange,
        message: impl Into<String>,
    ) -> SpyError {
        self.annotations.push(Annotation {
            level: Level::Error,
            file: file.clone(),
            range,
            message: message.into(),
        });
        self
    }

    /// Add a note annotation ("function defined here").
    pub fn with_note(
        mut self,
        file: &Rc<SourceFile>,
        range: TextRange,
        message: impl Into<String>,
    ) -> SpyError {
        self.annotations.push(Annotation {
            level: Level::Note,
            file: file.clone(),
            range,
            message: message.into(),
        });
        self
    }

    /// The stable line every engine must agree on: `Kind: message`, or
    /// `Kind` alone when the message is empty (`raise ValueError`), as
    /// CPython prints it.
    pub fn headline(&self) -> String {
        if self.message.is_empty() {
            self.kind.to_string()
        } else {
            format!("{}: {}", self.kind, self.message)
        }
    }
}

impl fmt::Display for SpyError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.headline())
    }
}

/// A run-time error as the JIT raises it: a stable code and its operands
/// (two words, and the text of a variant that carries one). Value-free, so
/// this layer can carry it; `vm::rt_error::RuntimeError` encodes and
/// decodes it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RuntimeCode {
    pub code: u32,
    pub words: [u64; 2],
    pub text: String,
}

/// An internal invariant broke: a bug in spy-interp, never a program outcome.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Bug {
    pub message: String,
}

impl Bug {
    pub fn new(message: impl Into<String>) -> Bug {
        Bug {
            message: message.into(),
        }
    }
}

impl fmt::Display for Bug {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "internal error (a bug in spy-interp): {}", self.message)
    }
}

/// The host could not do what the program asked of it: writing the
/// program's output failed. The message says what and why.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct HostError {
    pub message: String,
}

impl HostError {
    /// Writing the program's output (stdout) failed with `e`.
    pub fn output(e: &std::io::Error) -> HostError {
        HostError {
            message: format!("cannot write the program's output: {e}"),
        }
    }
}

impl fmt::Display for HostError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "OSError: {}", self.message)
    }
}

/// Why an evaluation did not produce a value.
#[derive(Clone, Debug)]
pub enum Failure {
    /// A SPy exception: the program's outcome.
    Raise(Box<SpyError>),
    /// A bug in the implementation.
    Bug(Bug),
    /// The host failed the program (its output could not be written).
    Host(HostError),
}

impl From<SpyError> for Failure {
    fn from(e: SpyError) -> Failure {
        Failure::Raise(Box::new(e))
    }
}

impl From<HostError> for Failure {
    fn from(h: HostError) -> Failure {
        Failure::Host(h)
    }
}

impl From<Bug> for Failure {
    fn from(b: Bug) -> Failure {
        Failure::Bug(b)
    }
}

/// Build a `Bug` failure with `format!` syntax.
#[macro_export]
macro_rules! bug {
    ($($arg:tt)*) => {
        $crate::error::Failure::Bug($crate::error::Bug::new(format!($($arg)*)))
    };
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn failure_stays_small() {
        assert!(std::mem::size_of::<Failure>() <= 32);
    }

    #[test]
    fn kind_names_round_trip() {
        for k in ExcKind::ALL {
            assert_eq!(ExcKind::from_name(k.name()), Some(k));
        }
    }
}
