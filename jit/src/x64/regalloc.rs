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
    let mut spill = |locs: &mut Vec<Option<Loc>>, v: usize| {
        locs[v] = Some(Loc::Slot(spill_slots));
        spill_slots += 1;
        spilled += 1;
    };
    for v in order {
        active.retain(|&a| last[a] >= first[v]);
        let class = f.vregs[v].ty.class();
        let crossing = crosses_call(v);
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
