//! Deterministic resource limits kept in interpreter state, never the host
//! stack: a call-depth limit (RecursionError) and optional step fuel
//! (`--max-steps`, StepLimitError).

use crate::error::{ExcKind, Failure, SpyError};
use crate::frames::Interp;

#[derive(Clone, Copy, Debug)]
pub struct Limits {
    /// Maximum number of nested function activations.
    pub max_depth: u32,
    /// Maximum number of steps (statements + calls); `None` = unbounded.
    pub max_steps: Option<u64>,
    /// Longest string a program may build, in bytes (a runaway `s = s + s`
    /// ends with an error instead of exhausting memory).
    pub max_str_bytes: usize,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            max_depth: 1000,
            max_steps: None,
            max_str_bytes: 1 << 28,
        }
    }
}

/// Native stack given to the thread that runs the interpreter: deep enough
/// for `max_depth` nested SPy calls of maximally nested expressions, in
/// debug builds too. It is virtual memory, committed only when touched.
pub const INTERP_STACK_BYTES: usize = 1 << 30;

impl Interp<'_> {
    /// Count one step; fails when the fuel is exhausted.
    pub(crate) fn tick(&mut self) -> Result<(), Failure> {
        self.steps += 1;
        match self.limits.max_steps {
            Some(max) if self.steps > max => Err(SpyError::new(
                ExcKind::StepLimitError,
                format!("execution exceeded the step limit ({max} steps)"),
            )
            .into()),
            _ => Ok(()),
        }
    }

    /// A string of `len` bytes may be built.
    pub(crate) fn check_str_len(
        &self,
        f: &crate::frames::Frame,
        len: usize,
        range: crate::source::TextRange,
    ) -> Result<(), Failure> {
        if len <= self.limits.max_str_bytes {
            return Ok(());
        }
        Err(SpyError::new(
            ExcKind::OverflowError,
            format!(
                "string too long (the limit is {} bytes)",
                self.limits.max_str_bytes
            ),
        )
        .with_error(&f.file, range, "")
        .into())
    }

    /// Enter a function activation; fails past the depth limit.
    pub(crate) fn enter_call(&mut self) -> Result<(), Failure> {
        if self.depth >= self.limits.max_depth {
            return Err(SpyError::new(ExcKind::RecursionError, "maximum recursion depth exceeded").into());
        }
        self.depth += 1;
        Ok(())
    }

    pub(crate) fn leave_call(&mut self) {
        self.depth -= 1;
    }
}
