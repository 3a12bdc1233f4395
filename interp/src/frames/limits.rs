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
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            max_depth: 1000,
            max_steps: None,
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
