//! Structured control flow: statement sequences (a comparison used only by
//! the next `if` becomes compare-and-branch), `if` (an arm that is a lone
//! `break`/`continue` becomes one conditional jump, the else arm keeps the
//! lower bound the test proved), branching on a condition left in the
//! flags, and loop rotation (the exit test moved to the bottom of the
//! loop, whose top is aligned).

use super::FnGen;
use crate::ir::{Block, Class, Op, Stmt};
use crate::x64::emit::{Cc, Inst, Target, RAX};
use crate::x64::regalloc::{commutes, each_use, Loc};
use dynasmrt::DynamicLabel;

/// A condition left in the flags by a comparison.
#[derive(Clone, Copy)]
pub(super) enum Cond {
    /// An integer condition code (also float `<`-like forms, false on NaN).
    Cc(Cc),
    /// Float `==`: ZF=1 and PF=0.
    FEq,
    /// Float `!=`: ZF=0 or PF=1.
    FNe,
}

pub(super) fn negate(c: Cc) -> Cc {
    match c {
        Cc::E => Cc::Ne,
        Cc::Ne => Cc::E,
        Cc::L => Cc::Ge,
        Cc::Ge => Cc::L,
        Cc::Le => Cc::G,
        Cc::G => Cc::Le,
        Cc::B => Cc::Ae,
        Cc::Ae => Cc::B,
        Cc::Be => Cc::A,
        Cc::A => Cc::Be,
        Cc::S => Cc::Ns,
        Cc::Ns => Cc::S,
        Cc::P => Cc::Np,
        Cc::Np => Cc::P,
    }
}

/// The condition with its operands swapped (`a < b` is `b > a`).
pub(super) fn swap_cc(c: Cc) -> Cc {
    match c {
        Cc::L => Cc::G,
        Cc::G => Cc::L,
        Cc::Le => Cc::Ge,
        Cc::Ge => Cc::Le,
        Cc::B => Cc::A,
        Cc::A => Cc::B,
        Cc::Be => Cc::Ae,
        Cc::Ae => Cc::Be,
        c => c,
    }
}

/// Whether some statement of `st` continues the loop they are in (not
/// loops nested in them).
fn continues(st: &[Stmt]) -> bool {
    st.iter().any(|s| match s {
        Stmt::Continue => true,
        Stmt::If { then_, else_, .. } => continues(&then_.0) || continues(&else_.0),
        _ => false,
    })
}

/// Whether `st` starts with straight-line statements that neither call a
/// JIT function nor leave (assignments, stores, markers) and then an
/// `InlineEnter`.
fn enter_follows(st: &[Stmt]) -> bool {
    for s in st {
        match s {
            Stmt::InlineEnter(_) => return true,
            Stmt::Assign { .. } | Stmt::Store { .. } | Stmt::Mark(_) => {}
            _ => return false,
        }
    }
    false
}

/// Whether control never falls out of the end of `b`.
pub(crate) fn ends_in_jump(b: &Block) -> bool {
    match b.0.last() {
        Some(Stmt::Return(_) | Stmt::Break | Stmt::Continue | Stmt::Raise { .. }) => true,
        Some(Stmt::If { then_, else_, .. }) => ends_in_jump(then_) && ends_in_jump(else_),
        _ => false,
    }
}

impl<'a, A: Target> FnGen<'a, A> {
    pub(super) fn block(&mut self, b: &Block) {
        self.stmts(&b.0);
    }

    pub(super) fn stmts(&mut self, st: &[Stmt]) {
        let mut i = 0;
        while i < st.len() {
            // A comparison used only by the next `if`: compare and branch.
            if let (
                Stmt::Assign {
                    dst,
                    op: Op::Cmp(c, x, y),
                },
                Some(Stmt::If { cond, then_, else_ }),
            ) = (&st[i], st.get(i + 1))
            {
                if cond == dst && self.uses[dst.index()] == 1 {
                    let cond = self.compare(*c, *x, *y);
                    self.if_(cond, then_, else_);
                    i += 2;
                    continue;
                }
            }
            // `t = Copy(a)` read only by the next assignment (constants
            // without code in between): that reads `a`.
            let mut j = i + 1;
            while let Some(Stmt::Assign {
                dst,
                op: Op::Const(_),
            }) = st.get(j)
            {
                if !matches!(self.loc(*dst), Loc::Imm(_)) {
                    break;
                }
                j += 1;
            }
            if let (
                Stmt::Assign {
                    dst: t,
                    op: Op::Copy(a),
                },
                Some(Stmt::Assign {
                    op: Op::Binary(..) | Op::Cmp(..) | Op::Unary(..),
                    ..
                }),
            ) = (&st[i], st.get(j))
            {
                let mut reads_t = false;
                each_use(&st[j], |v| reads_t |= v == *t);
                if reads_t
                    && self.uses[t.index()] == 1
                    && self.f.vregs[t.index()].kind == crate::ir::VRegKind::Temp
                    && self.f.ty(*t).class() == Class::Int
                    && self.in_rax.is_none()
                    && matches!(self.loc(*a), Loc::Gpr(_))
                    && !matches!(st.get(j + 1), Some(Stmt::If { .. } | Stmt::Return(_)))
                {
                    for s in &st[i + 1..j] {
                        self.stmt(s);
                    }
                    self.copy_of = Some((*t, *a));
                    self.stmt(&st[j]);
                    self.copy_of = None;
                    i = j + 1;
                    continue;
                }
            }
            // `r = call; d = x op r; return d` (commutative op): r is used
            // where the call leaves it, d computed there.
            if let (
                Stmt::Call { results, .. },
                Some(Stmt::Assign {
                    dst: d,
                    op: Op::Binary(b, x, y),
                }),
                Some(Stmt::Return(vals)),
            ) = (&st[i], st.get(i + 1), st.get(i + 2))
            {
                if let [r] = results.as_slice() {
                    if commutes(*b)
                        && (x == r) != (y == r)
                        && self.uses[r.index()] == 1
                        && self.f.vregs[r.index()].kind == crate::ir::VRegKind::Temp
                        && self.rax_eligible(*d, vals)
                        && self.f.ty(*r).class() == Class::Int
                    {
                        self.in_rax = Some(*d);
                        self.rax_val = Some(*r);
                        for s in &st[i..i + 3] {
                            self.stmt(s);
                        }
                        self.in_rax = None;
                        self.rax_val = None;
                        i += 3;
                        continue;
                    }
                }
            }
            // `r = call; d = x op r` (`+ - & | ^`, d in a register) or
            // `r = call; d = r`: r is read where the call leaves it, in rax.
            if let (Stmt::Call { results, .. }, Some(Stmt::Assign { dst: d, op })) = (&st[i], st.get(i + 1)) {
                if let [r] = results.as_slice() {
                    let consumer = match *op {
                        Op::Binary(b, x, y) => {
                            let other = if x == *r { y } else { x };
                            (x == *r) != (y == *r)
                                && !matches!(b, crate::ir::BinOp::Mul)
                                && self.f.ty(other).class() == Class::Int
                                && matches!(self.loc(*d), Loc::Gpr(w) if w != RAX)
                        }
                        Op::Copy(a) => a == *r,
                        _ => false,
                    };
                    if consumer
                        && self.uses[r.index()] == 1
                        && self.f.vregs[r.index()].kind == crate::ir::VRegKind::Temp
                        && self.f.ty(*r).class() == Class::Int
                        && self.f.ty(*d).class() == Class::Int
                        && self.in_rax.is_none()
                    {
                        self.rax_val = Some(*r);
                        self.stmt(&st[i]);
                        self.stmt(&st[i + 1]);
                        self.rax_val = None;
                        i += 2;
                        continue;
                    }
                }
            }
            // An inlined call's exit followed, with nothing that calls or
            // leaves in between, by the next one's enter: the activation
            // given back is taken again at once, at a depth already checked.
            if matches!(st[i], Stmt::InlineExit) && enter_follows(&st[i + 1..]) {
                self.depth_pair = true;
            }
            // `d = x op y; return d`: compute d in the result register.
            if let (
                Stmt::Assign {
                    dst,
                    op: Op::Binary(..),
                },
                Some(Stmt::Return(vals)),
            ) = (&st[i], st.get(i + 1))
            {
                if self.rax_eligible(*dst, vals) {
                    self.in_rax = Some(*dst);
                    self.stmt(&st[i]);
                    self.stmt(&st[i + 1]);
                    self.in_rax = None;
                    i += 2;
                    continue;
                }
            }
            self.stmt(&st[i]);
            i += 1;
        }
    }

    /// A loop whose body starts with plain assignments and then `if a <cmp>
    /// b: break` (either arm, the other empty): the index of the comparison
    /// and whether the loop exits when it is true.
    pub(super) fn rotatable(&self, body: &Block) -> Option<(usize, bool)> {
        let st = &body.0;
        let k = st
            .iter()
            .take(8)
            .position(|s| !matches!(s, Stmt::Assign { op, .. } if !matches!(op, Op::Cmp(..))))?;
        let (Stmt::Assign { dst, op: Op::Cmp(..) }, Some(Stmt::If { cond, then_, else_ })) =
            (&st[k], st.get(k + 1))
        else {
            return None;
        };
        if cond != dst || self.uses[dst.index()] != 1 {
            return None;
        }
        match (then_.0.as_slice(), else_.0.as_slice()) {
            ([Stmt::Break], []) => Some((k, true)),
            ([], [Stmt::Break]) => Some((k, false)),
            _ => None,
        }
    }

    /// The test at the bottom: `jmp test; top: rest; test: prefix; cmp;
    /// j<stay> top` (the same statements in the same order, one jump less
    /// per iteration). When nothing continues the loop and the prefix is
    /// copies and constants, the test is made at the entry instead of
    /// jumping to it (`prefix; cmp; j<exit> exit; jmp top; top: rest;
    /// prefix; cmp; j<stay> top`): the bottom test is then reached only
    /// from the end of the body, so a test of the value the body computed
    /// last needs no `test` instruction (`sub r, 1; jne top`).
    pub(super) fn rotated_loop(&mut self, body: &Block) {
        let (k, exit_when) = self.rotatable(body).expect("checked");
        let Stmt::Assign {
            op: Op::Cmp(c, x, y), ..
        } = body.0[k]
        else {
            unreachable!("checked")
        };
        let guarded = !continues(&body.0[k + 2..])
            && body.0[..k].iter().all(|s| {
                matches!(
                    s,
                    Stmt::Assign {
                        op: Op::Copy(_) | Op::Const(_),
                        ..
                    }
                )
            });
        let (top, test, exit) = (self.label(), self.label(), self.label());
        if guarded {
            self.stmts(&body.0[..k]);
            let cond = self.compare(c, x, y);
            self.branch(cond, exit_when, exit);
            self.e(Inst::Jmp(top));
        } else {
            self.e(Inst::Jmp(test));
        }
        // An innermost loop's head starts a 64-byte line, so that a body of
        // up to 64 bytes is one line of the uop cache and of the L1i
        // (vectorize_l1's 49-byte loop straddled one); an outer loop's head
        // is aligned to 16 bytes, a fetch block.
        let mut innermost = true;
        crate::ir::visit::walk(body, &mut |s| innermost &= !matches!(s, Stmt::Loop { .. }));
        self.em.align_jump_target(if innermost { 64 } else { 16 });
        self.em.bind(top);
        self.loops.push((test, exit));
        self.stmts(&body.0[k + 2..]);
        self.loops.pop();
        if !guarded {
            self.em.bind(test);
        }
        self.stmts(&body.0[..k]);
        let cond = self.compare(c, x, y);
        self.branch(cond, !exit_when, top);
        self.em.bind(exit);
    }

    /// The label a block consisting of one `break`/`continue` jumps to.
    pub(super) fn lone_jump(&self, b: &Block) -> Option<DynamicLabel> {
        match b.0.as_slice() {
            [Stmt::Break] => self.loops.last().map(|l| l.1),
            [Stmt::Continue] => self.loops.last().map(|l| l.0),
            _ => None,
        }
    }

    /// Jump to `target` when `cond` is `when`.
    pub(super) fn branch(&mut self, cond: Cond, when: bool, target: DynamicLabel) {
        match (cond, when) {
            (Cond::Cc(cc), true) => self.e(Inst::Jcc(cc, target)),
            (Cond::Cc(cc), false) => self.e(Inst::Jcc(negate(cc), target)),
            // Equal and ordered / not equal or unordered.
            (Cond::FEq, true) | (Cond::FNe, false) => {
                let skip = self.label();
                self.e(Inst::Jcc(Cc::P, skip));
                self.e(Inst::Jcc(Cc::E, target));
                self.em.bind(skip);
            }
            (Cond::FEq, false) | (Cond::FNe, true) => {
                self.e(Inst::Jcc(Cc::Ne, target));
                self.e(Inst::Jcc(Cc::P, target));
            }
        }
    }

    /// `if cond: then_ else: else_`.
    pub(super) fn if_(&mut self, cond: Cond, then_: &Block, else_: &Block) {
        if let Some(t) = self.lone_jump(then_) {
            self.branch(cond, true, t);
            self.block(else_);
            return;
        }
        if let Some(t) = self.lone_jump(else_) {
            self.branch(cond, false, t);
            self.block(then_);
            return;
        }
        let l_else = self.label();
        self.branch(cond, false, l_else);
        self.block(then_);
        if else_.0.is_empty() {
            self.em.bind(l_else);
            return;
        }
        let l_end = self.label();
        if !ends_in_jump(then_) {
            self.e(Inst::Jmp(l_end));
        }
        self.em.bind(l_else);
        self.block(else_);
        self.em.bind(l_end);
    }
}
