//! The call-depth counter's code. `r14` holds the remaining depth as the
//! caller passed it and the body never writes it except around a call: the
//! generator counts statically the activations its function holds
//! (`depth_off`: 1 after the prologue, +1 per open `InlineEnter`), an
//! activation checks `cmp r14, o; jl recursion` (remaining `r14 - o` must
//! not be negative, exactly the old `sub r14, 1; js` at that point), and a
//! JIT→JIT call is `sub r14, o; call; jc; add r14, o`. (The old `sub`/`add`
//! per activation made one serial dependency chain through the whole run:
//! fib's unrolled recursion paid a cycle per counter update.)
//!
//! Depth-check versioning of loops with inlined calls: when a loop body
//! makes no JIT→JIT call, every enter sees the same `r14` in every
//! iteration (the argument is in `spec/17-jit.md` §17.6), so one test at
//! the loop's entry, `r14 >= o + k` with `k` the deepest nesting of inlined
//! calls in the body, decides whether any enter of any iteration can fail:
//! if it holds, a copy of the loop runs with no depth code at all; if not,
//! the loop runs as written (and raises on exactly the enter the
//! interpreter does).

use super::{FnGen, Inst};
use crate::ir::{Block, Stmt};
use crate::x64::abi::DEPTH;
use crate::x64::emit::{Alu, Cc, Target};

#[derive(Default)]
pub(super) struct DepthState {
    /// Emitting one of the two copies of a versioned loop (its inner loops
    /// are not versioned again).
    pub versioning: bool,
    /// Emitting the copy proved not to reach the depth limit: inlined
    /// enters and exits emit nothing.
    pub unchecked: bool,
}

/// `Some(k)` when the loop `body` inlines calls nested at most `k` deep
/// (`k >= 1`) and makes no JIT→JIT call (a helper is Rust: it neither
/// reads nor changes the depth counter, a callee-saved register).
pub(super) fn hoistable(body: &Block) -> Option<u32> {
    fn deepest(b: &Block, open: u32, best: &mut u32) -> bool {
        let mut open = open;
        for s in &b.0 {
            match s {
                Stmt::Call { .. } => return false,
                Stmt::InlineEnter(_) => {
                    open += 1;
                    *best = (*best).max(open);
                }
                Stmt::InlineExit => open -= 1,
                Stmt::If { then_, else_, .. }
                    if !deepest(then_, open, best) || !deepest(else_, open, best) =>
                {
                    return false
                }
                Stmt::Loop { body } if !deepest(body, open, best) => return false,
                _ => {}
            }
        }
        true
    }
    let mut k = 0;
    (deepest(body, 0, &mut k) && k > 0).then_some(k)
}

impl<A: Target> FnGen<'_, A> {
    /// One activation more (a function's entry or an inlined call's
    /// `InlineEnter`): `cmp r14, o; jl recursion` with `o` the activations
    /// held afterwards, unless the copy being emitted is proved not to
    /// reach the limit. `r14` itself is not written (a `sub`/`add` pair per
    /// activation made one serial chain through the whole run).
    pub(super) fn take_activation(&mut self) {
        self.depth_off += 1;
        if self.depth.unchecked {
            return;
        }
        self.e(Inst::AluI(Alu::Cmp, DEPTH, self.depth_off));
        let rec = self.stub(super::StubKind::Error {
            code: self.recursion_error,
            operands: [super::Opnd::Zero, super::Opnd::Zero],
        });
        self.e(Inst::Jcc(Cc::L, rec));
    }

    /// `cmp r14, o + k; jl checked; <loop without depth code>; jmp done;
    /// checked: <loop as written>; done:`.
    pub(super) fn depth_versioned_loop(&mut self, s: &Stmt) {
        let Stmt::Loop { body } = s else {
            unreachable!("a loop")
        };
        let k = hoistable(body).expect("checked");
        let (checked, done) = (self.label(), self.label());
        self.e(Inst::AluI(Alu::Cmp, DEPTH, self.depth_off + k as i32));
        self.e(Inst::Jcc(Cc::L, checked));
        self.depth.versioning = true;
        self.depth.unchecked = true;
        self.stmt(s);
        self.depth.unchecked = false;
        self.e(Inst::Jmp(done));
        self.em.bind(checked);
        self.stmt(s);
        self.depth.versioning = false;
        self.em.bind(done);
    }
}
