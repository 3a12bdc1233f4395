//! Reusable activation storage: environments of finished calls, argument
//! and parameter vectors (so a call allocates nothing once warm), and the
//! registry of environments captured by closures, which the machine
//! empties when it is dropped (a closure stored in the environment it
//! captures is an `Rc` cycle).
//!
//! Nothing here changes what a program computes: a pooled value is reused
//! only when nothing else can observe it.

use std::cell::RefCell;
use std::rc::{Rc, Weak};

use crate::frames::call::Args;
use crate::vm::value::{Env, Typed};

/// At most this many of each kind of vector wait for reuse.
const POOL_SIZE: usize = 64;

#[derive(Default)]
pub(crate) struct Pools {
    envs: Vec<Env>,
    args: Vec<Args>,
    bound: Vec<Vec<Typed>>,
    /// Environments that closures captured (weakly: this registry does
    /// not keep anything alive).
    captured: Vec<Weak<RefCell<Vec<Option<crate::vm::value::Local>>>>>,
}

impl Pools {
    /// An environment of `slots` unassigned locals.
    pub(crate) fn fresh_env(&mut self, slots: usize) -> Env {
        match self.envs.pop() {
            Some(env) => {
                env.borrow_mut().resize(slots, None);
                env
            }
            None => Rc::new(RefCell::new(vec![None; slots])),
        }
    }

    /// Give back the environment of a finished activation. It is reused
    /// only if nothing else holds it (a closure made by the activation
    /// keeps its environment alive; a captured one is never reused).
    pub(crate) fn recycle_env(&mut self, env: Env) {
        if Rc::strong_count(&env) == 1 && Rc::weak_count(&env) == 0 && self.envs.len() < POOL_SIZE {
            env.borrow_mut().clear();
            self.envs.push(env);
        }
    }

    /// Remember that a closure captured `env`.
    pub(crate) fn note_captured(&mut self, env: &Env) {
        // A def in a loop captures the same environment again and again.
        if !self
            .captured
            .last()
            .is_some_and(|last| last.ptr_eq(&Rc::downgrade(env)))
        {
            self.captured.push(Rc::downgrade(env));
        }
    }

    /// Empty every captured environment still alive: this breaks the
    /// closure <-> environment cycles, so that every value is freed.
    pub(crate) fn release_captured(&mut self) {
        for env in self.captured.drain(..).filter_map(|weak| weak.upgrade()) {
            if let Ok(mut locals) = env.try_borrow_mut() {
                let values = std::mem::take(&mut *locals);
                drop(locals);
                drop(values);
            }
        }
    }

    /// An empty argument vector.
    pub(crate) fn args_vec(&mut self, capacity: usize) -> Args {
        self.args.pop().unwrap_or_else(|| Vec::with_capacity(capacity))
    }

    /// Give back an emptied argument vector.
    pub(crate) fn recycle_args(&mut self, args: Args) {
        if args.is_empty() && self.args.len() < POOL_SIZE {
            self.args.push(args);
        }
    }

    /// An empty vector of bound parameters.
    pub(crate) fn bound_vec(&mut self, capacity: usize) -> Vec<Typed> {
        self.bound.pop().unwrap_or_else(|| Vec::with_capacity(capacity))
    }

    /// Give back an emptied vector of bound parameters.
    pub(crate) fn recycle_bound(&mut self, bound: Vec<Typed>) {
        if bound.is_empty() && self.bound.len() < POOL_SIZE {
            self.bound.push(bound);
        }
    }

    #[cfg(test)]
    pub(crate) fn captured(&self) -> Vec<Weak<RefCell<Vec<Option<crate::vm::value::Local>>>>> {
        self.captured.clone()
    }
}
