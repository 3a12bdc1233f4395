//! Register allocation: linear scan over whole-lifetime intervals.
//!
//! Statements are numbered in program order (uses of a statement at an even
//! position `p`, its definitions at `p + 1`). A value's interval runs from
//! its first to its last occurrence. An interval that is live at a loop
//! header (it starts before the loop and reaches into it, or it is a mutable
//! local touching the loop) is extended over the whole loop, so loop-carried
//! values keep one location for the whole loop. An interval that contains a
//! call gets a callee-saved GPR or a stack slot (SysV has no callee-saved
//! SSE registers, so floats live across a call are spilled). When registers
//! run out, the interval with the lowest weight (sum of `8^loop depth` over
//! its occurrences) is spilled. Every value keeps one location for its whole
//! life; [`super::check`] verifies the result in debug builds.

use super::abi::{ALLOC_GPRS, ALLOC_XMMS, CALLEE_SAVED};
use super::emit::{Gpr, Xmm};
use crate::ir::{Block, Class, Function, Op, Stmt, VReg, VRegKind};

/// The home of a value for its whole life.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Loc {
    Gpr(Gpr),
    Xmm(Xmm),
    /// Frame slot `k` (see `abi::slot`).
    Slot(u32),
}

/// The result of allocation for one function.
#[derive(Clone, Debug)]
pub struct Allocation {
    /// Location of each virtual register (`None`: never occurs).
    pub locs: Vec<Option<Loc>>,
    /// Frame slots used for spills (slots `0..spill_slots`).
    pub spill_slots: u32,
    /// Number of intervals that did not get a register.
    pub spilled: u32,
}

impl Allocation {
    pub fn loc(&self, v: VReg) -> Loc {
        self.locs[v.index()].expect("allocated")
    }
}

/// Occurrences of each register, loops and call positions of a function.
struct Numbering {
    pos: u32,
    depth: u32,
    first: Vec<u32>,
    last: Vec<u32>,
    weight: Vec<f64>,
    loops: Vec<(u32, u32)>,
    calls: Vec<u32>,
}

impl Numbering {
    fn occ(&mut self, v: VReg, p: u32) {
        let i = v.index();
        self.first[i] = self.first[i].min(p);
        self.last[i] = self.last[i].max(p);
        self.weight[i] += 8f64.powi(self.depth.min(8) as i32);
    }

    fn block(&mut self, b: &Block) {
        for s in &b.0 {
            self.stmt(s);
        }
    }

    fn stmt(&mut self, s: &Stmt) {
        let p = self.pos;
        self.pos += 2;
        for v in stmt_uses(s) {
            self.occ(v, p);
        }
        for v in stmt_defs(s) {
            self.occ(v, p + 1);
        }
        match s {
            Stmt::If { then_, else_, .. } => {
                self.block(then_);
                self.block(else_);
            }
            Stmt::Loop { body } => {
                self.depth += 1;
                self.block(body);
                self.depth -= 1;
                let end = self.pos;
                self.pos += 2;
                self.loops.push((p, end));
            }
            Stmt::Call { .. } | Stmt::CallHelper { .. } => self.calls.push(p),
            _ => {}
        }
    }
}

/// Registers a statement reads (not those of nested blocks).
pub fn stmt_uses(s: &Stmt) -> Vec<VReg> {
    match s {
        Stmt::Assign { op, .. } => op_uses(op),
        Stmt::Store {
            ptr,
            len,
            index,
            value,
            ..
        } => vec![*ptr, *len, *index, *value],
        Stmt::Call { args, .. } | Stmt::CallHelper { args, .. } => args.clone(),
        Stmt::Raise { operands, .. } => operands.iter().flatten().copied().collect(),
        Stmt::If { cond, .. } => vec![*cond],
        Stmt::Return(v) => v.clone(),
        Stmt::Loop { .. } | Stmt::Break | Stmt::Continue => vec![],
    }
}

/// Registers a statement writes.
pub fn stmt_defs(s: &Stmt) -> Vec<VReg> {
    match s {
        Stmt::Assign { dst, .. } => vec![*dst],
        Stmt::Call { results, .. } | Stmt::CallHelper { results, .. } => results.clone(),
        _ => vec![],
    }
}

pub fn op_uses(op: &Op) -> Vec<VReg> {
    match *op {
        Op::Const(_) => vec![],
        Op::Copy(a) | Op::Unary(_, a) | Op::Convert(a) => vec![a],
        Op::Binary(_, a, b) | Op::Cmp(_, a, b) => vec![a, b],
        Op::FloorDiv { a, b, .. }
        | Op::FloorMod { a, b, .. }
        | Op::FDiv { a, b, .. }
        | Op::Shift { a, b, .. } => {
            vec![a, b]
        }
        Op::Load { ptr, len, index, .. } => vec![ptr, len, index],
    }
}

/// Allocate locations for every register of `f`.
pub fn allocate(f: &Function) -> Allocation {
    allocate_with(f, crate::Mutations::NONE)
}

/// [`allocate`] with planted bugs (test-only, `CompileOptions::mutations`).
pub fn allocate_with(f: &Function, mutations: crate::Mutations) -> Allocation {
    let n = f.vregs.len();
    let mut num = Numbering {
        pos: 2,
        depth: 0,
        first: vec![u32::MAX; n],
        last: vec![0; n],
        weight: vec![0.0; n],
        loops: vec![],
        calls: vec![],
    };
    for &p in &f.params {
        num.occ(p, 1);
    }
    num.block(&f.body);
    let Numbering {
        mut first,
        mut last,
        weight,
        loops,
        calls,
        ..
    } = num;

    // Extend intervals live at a loop header over the whole loop, to a fixpoint
    // (an extension over an outer loop can reach further inner loops).
    let mut changed = true;
    while changed {
        changed = false;
        for &(s, e) in &loops {
            for v in 0..n {
                if first[v] == u32::MAX || first[v] > e || last[v] < s {
                    continue;
                }
                let carried = first[v] < s || f.vregs[v].kind == VRegKind::Local;
                if carried && (first[v] > s || last[v] < e) {
                    first[v] = first[v].min(s);
                    last[v] = last[v].max(e);
                    changed = true;
                }
            }
        }
    }

    let crosses_call = |v: usize| {
        let i = calls.partition_point(|&c| c <= first[v]);
        i < calls.len() && calls[i] < last[v]
    };

    let mut order: Vec<usize> = (0..n).filter(|&v| first[v] != u32::MAX).collect();
    order.sort_by_key(|&v| (first[v], v));
    let mut locs: Vec<Option<Loc>> = vec![None; n];
    let mut active: Vec<usize> = vec![];
    let mut spill_slots = 0u32;
    let mut spilled = 0u32;
    let shared = mutations.has(crate::Mutation::SpillSlotShared);
    let mut spill = |locs: &mut Vec<Option<Loc>>, v: usize| {
        locs[v] = Some(Loc::Slot(if shared && spill_slots == 1 {
            0
        } else {
            spill_slots
        }));
        spill_slots += 1;
        spilled += 1;
    };
    for v in order {
        active.retain(|&a| last[a] >= first[v]);
        let class = f.vregs[v].ty.class();
        let crossing = crosses_call(v) && !mutations.has(crate::Mutation::CallerSavedKept);
        let allowed: Vec<Loc> = match (class, crossing) {
            (Class::Int, false) => ALLOC_GPRS.iter().map(|&r| Loc::Gpr(r)).collect(),
            (Class::Int, true) => CALLEE_SAVED.iter().map(|&r| Loc::Gpr(r)).collect(),
            (Class::Float, false) => (0..ALLOC_XMMS).map(|x| Loc::Xmm(Xmm(x))).collect(),
            (Class::Float, true) => vec![],
        };
        if allowed.is_empty() {
            spill(&mut locs, v);
            continue;
        }
        let taken: Vec<Loc> = active.iter().filter_map(|&a| locs[a]).collect();
        if let Some(&free) = allowed.iter().find(|l| !taken.contains(l)) {
            locs[v] = Some(free);
            active.push(v);
            continue;
        }
        // No free register: evict the lightest active holder of an allowed one.
        let victim = active
            .iter()
            .copied()
            .filter(|&a| locs[a].is_some_and(|l| allowed.contains(&l)))
            .min_by(|&a, &b| weight[a].total_cmp(&weight[b]));
        match victim {
            Some(a) if weight[a] < weight[v] => {
                locs[v] = locs[a];
                spill(&mut locs, a);
                active.retain(|&x| x != a);
                active.push(v);
            }
            _ => spill(&mut locs, v),
        }
    }
    Allocation {
        locs,
        spill_slots,
        spilled,
    }
}

#[cfg(all(test, debug_assertions))]
mod tests {
    use super::*;
    use crate::ir::{BinOp, CmpOp, ModuleBuilder, SiteId, Ty};
    use crate::x64::{abi, check::check};

    /// `f(n)`: a loop carrying an int and a float local, a temporary defined
    /// before the loop and used inside, and a call in the loop body.
    fn sample() -> crate::ir::Module {
        let mut m = ModuleBuilder::new();
        let g = m.declare("g", &[Ty::I64], &[Ty::I64]);
        let mut b = m.function(g);
        let p = b.param(0);
        b.ret(&[p]);
        m.define(b);
        let f = m.declare("f", &[Ty::I64], &[Ty::I64, Ty::F64]);
        let mut b = m.function(f);
        let n = b.param(0);
        let (i, x) = (b.local(Ty::I64), b.local(Ty::F64));
        b.assign(i, Op::Const(0));
        b.assign(x, Op::Const(0));
        let one = b.const_(Ty::I64, 1);
        b.loop_(|b| {
            let c = b.cmp(CmpOp::Ge, i, n);
            b.if_(c, |b| b.break_(), |_| {});
            let r = b.call_with(g, &[Ty::I64], &[i], SiteId(0))[0];
            let rf = b.convert(Ty::F64, r);
            b.assign(x, Op::Binary(BinOp::Add, x, rf));
            b.assign(i, Op::Binary(BinOp::Add, i, one));
        });
        b.ret(&[i, x]);
        m.define(b);
        m.finish().unwrap()
    }

    #[test]
    fn values_live_across_calls_avoid_caller_saved_registers() {
        let m = sample();
        let f = &m.functions[1];
        let a = allocate(f);
        check(f, &a).unwrap();
        // i, n and `one` live across the call: callee-saved GPRs; x: a slot.
        for v in [f.params[0], VReg(1), VReg(3)] {
            match a.loc(v) {
                Loc::Gpr(r) => assert!(abi::is_callee_saved(r), "{v} in {r:?}"),
                Loc::Slot(_) => {}
                Loc::Xmm(_) => panic!("{v} in an xmm"),
            }
        }
        assert!(
            matches!(a.loc(VReg(2)), Loc::Slot(_)),
            "a float live across a call is spilled"
        );
    }

    #[test]
    fn the_checker_catches_a_conflicting_allocation() {
        let m = sample();
        let f = &m.functions[1];
        let mut a = allocate(f);
        check(f, &a).unwrap();
        // `one` (defined before the loop, used in it) and `n` are live at the
        // same time: giving them one location must be caught.
        a.locs[3] = a.locs[0];
        assert!(check(f, &a).is_err());
        // A caller-saved register for a value live across the call, too.
        let mut a = allocate(f);
        a.locs[1] = Some(Loc::Gpr(crate::x64::emit::RSI));
        assert!(check(f, &a).unwrap_err().contains("v1"));
    }

    #[test]
    fn loop_carried_local_is_extended_over_the_loop() {
        // t is defined in the loop after its last use (a carried value read at
        // the top of the next iteration): it must not share a register with
        // anything live in the loop.
        let mut m = ModuleBuilder::new();
        let f = m.declare("f", &[Ty::I64], &[Ty::I64]);
        let mut b = m.function(f);
        let n = b.param(0);
        let (acc, prev) = (b.local(Ty::I64), b.local(Ty::I64));
        b.assign(acc, Op::Const(0));
        b.assign(prev, Op::Const(0));
        b.loop_(|b| {
            let s = b.binary(BinOp::Add, acc, prev);
            b.assign(acc, Op::Copy(s));
            let c = b.cmp(CmpOp::Ge, acc, n);
            b.if_(c, |b| b.break_(), |_| {});
            let one = b.const_(Ty::I64, 1);
            b.assign(prev, Op::Binary(BinOp::Add, prev, one));
        });
        b.ret(&[acc]);
        m.define(b);
        let m = m.finish().unwrap();
        let f = &m.functions[0];
        let a = allocate(f);
        check(f, &a).unwrap();
        let temps: Vec<Loc> = (3..f.vregs.len()).map(|v| a.loc(VReg(v as u32))).collect();
        for l in [a.loc(VReg(1)), a.loc(VReg(2)), a.loc(n)] {
            assert!(
                !temps.contains(&l),
                "a loop temporary shares {l:?} with a loop-carried value"
            );
        }
    }
}
