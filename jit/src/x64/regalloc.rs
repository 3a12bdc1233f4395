//! Register allocation: linear scan over whole-lifetime intervals.
//!
//! Statements are numbered in program order (uses of a statement at an even
//! position `p`, its definitions at `p + 1`). A value's interval runs from
//! its first to its last occurrence. An interval that is live at a loop
//! header (it starts before the loop and reaches into it, or it is a mutable
//! local touching the loop) is extended over the whole loop, so loop-carried
//! values keep one location for the whole loop. An interval that contains a
//! call gets a callee-saved GPR or a stack slot (SysV has no callee-saved
//! SSE registers, so floats and vectors live across a call are spilled);
//! "contains" is decided by liveness, not by the interval's hull, so a
//! value assigned in both arms of an `if` is not taken to live across the
//! calls of the arm that assigns it last.
//! A vector that fits one register of the [`SimdLevel`] (4 to 16 bytes, 32
//! with AVX2; not `Bool` lanes, which are bytes) is allocated like a float,
//! in `xmm0`–`xmm13` (`ymm` with AVX2); a spilled one, and every other
//! vector, is a run of slots (its location names the run's lowest slot). When registers
//! run out, the interval with the lowest weight (sum of `8^loop depth` over
//! its occurrences) is spilled. Every value keeps one location for its whole
//! life; [`super::check`] verifies the result in debug builds.
//!
//! Before the scan, three rules remove moves:
//! - a temporary defined by `Const` has no location at all: it is an
//!   immediate ([`Loc::Imm`]), folded into its uses or rematerialized;
//! - *chains*: a single-use temporary consumed by the very next statement of
//!   the same block as its first operand (a `Copy`, a `Binary` — for an
//!   integer op either operand —, a `Unary`) shares the location of that
//!   statement's destination, so `x = x * c + d` is computed in `x`'s register;
//! - *copies*: `t = Copy(a)` shares `a`'s location when no value sharing that
//!   location is defined while `t` is live (another copy of the same value
//!   joined before does not count: it writes what the location holds).
//!
//! Values sharing a location form a group; the group is allocated as one
//! interval (the hull of its members'). Hints (an argument's ABI register, a
//! float call result's) pick among free registers.

use super::abi::{arg_locs, arg_locs_of, ArgLoc, ALLOC_GPRS, ALLOC_XMMS, CALLEE_SAVED};
use super::emit::{Gpr, Xmm};
pub use crate::ir::visit::{each_def, each_use};
use crate::ir::{BinOp, Block, Class, Function, Lane, Module, Op, Stmt, Ty, VOp, VReg, VRegKind, VecTy};
use crate::SimdLevel;

/// The home of a value for its whole life.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Loc {
    Gpr(Gpr),
    Xmm(Xmm),
    /// Frame slot `k` (see `FnGen::slot`).
    Slot(u32),
    /// A constant temporary: no location, the canonical word itself.
    Imm(u64),
}

impl Loc {
    /// Intel syntax: the register, or the slot's memory operand (a vector's
    /// slot is its lowest address).
    pub fn render(self) -> String {
        match self {
            Loc::Gpr(r) => r.name64().to_string(),
            Loc::Xmm(x) => x.name(),
            // Slot k is at [rsp + 8 × (outgoing argument words + k)].
            Loc::Slot(k) => format!("slot {k}"),
            Loc::Imm(w) => format!("imm {w:#x}"),
        }
    }
}

/// The result of allocation for one function.
#[derive(Clone, Debug)]
pub struct Allocation {
    /// Location of each virtual register (`None`: never occurs).
    pub locs: Vec<Option<Loc>>,
    /// When some vector lives in a register: the first of
    /// [`VECTOR_STAGE_SLOTS`] slots where vector code stages register
    /// operands of lane-by-lane forms (see `codegen/simd.rs`).
    pub vector_stage: Option<u32>,
    /// Frame slots used for spills (slots `0..spill_slots`).
    pub spill_slots: u32,
    /// Number of intervals that did not get a register.
    pub spilled: u32,
}

impl Allocation {
    #[inline]
    pub fn loc(&self, v: VReg) -> Loc {
        self.locs[v.index()].expect("allocated")
    }

    /// Callee-saved registers the function uses (the prologue saves these).
    pub fn callee_saved_used(&self) -> Vec<Gpr> {
        CALLEE_SAVED
            .iter()
            .copied()
            .filter(|r| self.locs.contains(&Some(Loc::Gpr(*r))))
            .collect()
    }
}

/// The positions of a register's definitions (one or two for almost all).
type Defs = smallvec::SmallVec<[u32; 2]>;

/// Occurrences of each register, loops and call positions of a function.
struct Numbering {
    pos: u32,
    depth: u32,
    first: Vec<u32>,
    last: Vec<u32>,
    weight: Vec<f64>,
    count: Vec<u32>,
    defs: Vec<Defs>,
    loops: Vec<(u32, u32)>,
    /// Position of every `Copy` into a temporary: (p, dst, src).
    copies: Vec<(u32, VReg, VReg)>,
}

/// The weight of an occurrence at loop depth `d` (capped at 8): `8^d`, exact.
const OCC_WEIGHT: [f64; 9] = [
    1.0, 8.0, 64.0, 512.0, 4096.0, 32768.0, 262144.0, 2097152.0, 16777216.0,
];

impl Numbering {
    #[inline]
    fn occ(&mut self, v: VReg, p: u32) {
        let i = v.index();
        self.first[i] = self.first[i].min(p);
        self.last[i] = self.last[i].max(p);
        self.weight[i] += OCC_WEIGHT[self.depth.min(8) as usize];
        self.count[i] += 1;
    }

    fn block(&mut self, b: &Block) {
        for s in &b.0 {
            self.stmt(s);
        }
    }

    fn stmt(&mut self, s: &Stmt) {
        let p = self.pos;
        self.pos += 2;
        each_use(s, |v| self.occ(v, p));
        each_def(s, |v| {
            self.occ(v, p + 1);
            self.defs[v.index()].push(p + 1);
        });
        match s {
            Stmt::Assign {
                dst,
                op: Op::Copy(a) | Op::Convert(a),
            } => self.copies.push((p, *dst, *a)),
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
        Stmt::Loop { .. }
        | Stmt::Break
        | Stmt::Continue
        | Stmt::Mark(_)
        | Stmt::InlineEnter(_)
        | Stmt::InlineExit => vec![],
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
        Op::Vector(ref v) => vop_uses(v),
    }
}

/// Registers a vector op reads.
pub fn vop_uses(op: &VOp) -> Vec<VReg> {
    match *op {
        VOp::Splat(a) | VOp::Lane(a, _) | VOp::Convert(a) => vec![a],
        VOp::Build(ref lanes) => lanes.clone(),
        VOp::Binary(_, a, b) | VOp::FDiv { a, b, .. } | VOp::Cmp(_, a, b) => vec![a, b],
    }
}

/// Whether converting `from` to `to` leaves every canonical word as it is
/// (a widening or a 64-bit reinterpretation): the conversion is a copy.
pub fn noop_convert(from: Ty, to: Ty) -> bool {
    let word = |t: Ty| t.is_int() || matches!(t, Ty::Bool | Ty::Ptr | Ty::Handle);
    if !word(from) || !word(to) || to == Ty::Bool {
        return from == to;
    }
    if to.bits() == 64 || from == Ty::Bool {
        return true;
    }
    if to.is_signed() {
        (from.is_signed() && from.bits() <= to.bits()) || (!from.is_signed() && from.bits() < to.bits())
    } else {
        !from.is_signed() && from.bits() <= to.bits()
    }
}

/// Whether an integer binary op may take its operands in either order.
pub fn commutes(b: BinOp) -> bool {
    matches!(b, BinOp::Add | BinOp::Mul | BinOp::And | BinOp::Or | BinOp::Xor)
}

/// Union-find over values sharing a location.
struct Groups {
    parent: Vec<usize>,
    defs: Vec<Defs>,
}

impl Groups {
    fn rep(&mut self, v: usize) -> usize {
        let mut r = v;
        while self.parent[r] != r {
            r = self.parent[r];
        }
        self.parent[v] = r;
        r
    }
    /// Put `v` (a group of its own, a copy of `g`'s value) into `g`'s
    /// group, without its definitions.
    fn join_copy(&mut self, v: usize, g: usize) {
        let g = self.rep(g);
        self.defs[v].clear();
        self.parent[v] = g;
    }

    /// Put `v` (a group of its own) into `g`'s group.
    fn join(&mut self, v: usize, g: usize) {
        let g = self.rep(g);
        let d = std::mem::take(&mut self.defs[v]);
        self.defs[g].extend(d);
        self.parent[v] = g;
    }
}

/// Chain rule over every block: see the module comment.
fn chains(
    f: &Function,
    b: &Block,
    imm: &[Option<u64>],
    count: &[u32],
    copy_src: &[Option<usize>],
    g: &mut Groups,
) {
    for s in &b.0 {
        match s {
            Stmt::If { then_, else_, .. } => {
                chains(f, then_, imm, count, copy_src, g);
                chains(f, else_, imm, count, copy_src, g);
            }
            Stmt::Loop { body } => chains(f, body, imm, count, copy_src, g),
            _ => {}
        }
    }
    // Statements that emit code (constant temporaries do not).
    let st: Vec<&Stmt> =
        b.0.iter()
            .filter(|s| !matches!(s, Stmt::Assign { dst, op: Op::Const(_) } if imm[dst.index()].is_some()))
            .collect();
    for i in (0..st.len()).rev() {
        let Stmt::Assign { dst: t, .. } = st[i] else {
            continue;
        };
        let t = t.index();
        if f.vregs[t].kind != VRegKind::Temp || imm[t].is_some() || count[t] != 2 || g.rep(t) != t {
            continue;
        }
        // The one use, a few plain statements later in this block.
        let Some(j) = (i + 1..st.len().min(i + 1 + CHAIN_REACH)).find(|&j| {
            let mut hit = false;
            each_use(st[j], |v| hit |= v.index() == t);
            hit
        }) else {
            continue;
        };
        let Stmt::Assign { dst: u, op } = st[j] else {
            continue;
        };
        let u = u.index();
        if imm[u].is_some() || f.vregs[t].ty.class() != f.vregs[u].ty.class() {
            continue;
        }
        let gu = g.rep(u);
        let ok = match *op {
            // A copy of a copy: both go to the copy rule (they share the
            // original's location when nothing overwrites it).
            Op::Copy(_) | Op::Convert(_) if copy_src[t].is_some() => false,
            Op::Copy(a) | Op::Unary(_, a) => a.index() == t,
            Op::Convert(a) => a.index() == t && noop_convert(f.vregs[t].ty, f.vregs[u].ty),
            Op::Binary(bop, x, y) => {
                let (x, y) = (x.index(), y.index());
                let other = if x == t {
                    Some(y)
                } else if y == t && commutes(bop) && !f.vregs[u].ty.is_float() {
                    Some(x)
                } else {
                    None
                };
                // Not when the other operand is a copy of the group: that
                // copy costs nothing if the group keeps its value until here.
                other.is_some_and(|o| o != t && g.rep(o) != gu && copy_src[o].is_none_or(|a| g.rep(a) != gu))
            }
            _ => false,
        };
        // In between, nothing may touch the group (its location holds t).
        let quiet = st[i + 1..j].iter().all(|s| {
            if !matches!(s, Stmt::Assign { .. }) {
                return false;
            }
            let mut touches = false;
            each_use(s, |v| touches |= g.rep(v.index()) == gu);
            each_def(s, |v| touches |= g.rep(v.index()) == gu);
            !touches
        });
        if ok && quiet {
            g.join(t, gu);
        }
    }
}

/// How far ahead (statements) the chain rule looks for a temporary's use.
const CHAIN_REACH: usize = 8;

/// Slots of the vector staging area: three 32-byte areas (two operands and a result).
pub const VECTOR_STAGE_SLOTS: u32 = 12;

/// Whether a vector of type `vt` is allocated to a register at `simd`.
pub fn vector_in_register(vt: VecTy, simd: SimdLevel) -> bool {
    vt.lane != Lane::Bool && vt.bytes() >= 4 && vt.bytes() <= simd.vector_bytes()
}

/// Allocate locations for every register of `f` (a function of `m`).
pub fn allocate(m: &Module, f: &Function) -> Allocation {
    allocate_with(m, f, crate::Mutations::NONE, SimdLevel::host())
}

/// [`allocate`] with planted bugs (test-only, `CompileOptions::mutations`)
/// at the given SIMD level.
pub fn allocate_with(m: &Module, f: &Function, mutations: crate::Mutations, simd: SimdLevel) -> Allocation {
    let n = f.vregs.len();
    let mut num = Numbering {
        pos: 2,
        depth: 0,
        first: vec![u32::MAX; n],
        last: vec![0; n],
        weight: vec![0.0; n],
        count: vec![0; n],
        defs: vec![Defs::new(); n],
        loops: vec![],
        copies: vec![],
    };
    for &p in &f.params {
        num.occ(p, 1);
        num.defs[p.index()].push(1);
    }
    num.block(&f.body);
    let Numbering {
        mut first,
        mut last,
        weight,
        count,
        defs,
        loops,
        copies,
        ..
    } = num;

    // Constant temporaries are immediates.
    let mut imm: Vec<Option<u64>> = vec![None; n];
    consts(f, &f.body, &mut imm);

    // Extend intervals live at a loop header over the whole loop, to a fixpoint
    // (an extension over an outer loop can reach further inner loops).
    let mut changed = true;
    while changed {
        changed = false;
        for &(s, e) in &loops {
            for v in 0..n {
                if first[v] == u32::MAX || first[v] > e || last[v] < s || imm[v].is_some() {
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

    // Groups: chains first (their definitions then guard the copy rule).
    let mut g = Groups {
        parent: (0..n).collect(),
        defs,
    };
    let mut copy_src: Vec<Option<usize>> = vec![None; n];
    for &(_, t, a) in &copies {
        if noop_convert(f.vregs[a.index()].ty, f.vregs[t.index()].ty) {
            copy_src[t.index()] = Some(a.index());
        }
    }
    chains(f, &f.body, &imm, &count, &copy_src, &mut g);
    for &(p, t, a) in &copies {
        let (t, a) = (t.index(), a.index());
        if f.vregs[t].kind != VRegKind::Temp
            || imm[a].is_some()
            || g.rep(t) != t
            || g.rep(a) == t
            || !noop_convert(f.vregs[a].ty, f.vregs[t].ty)
        {
            continue;
        }
        let ga = g.rep(a);
        let (lo, hi) = (p + 1, last[t]);
        if g.defs[ga].iter().all(|&d| d <= lo || d > hi) {
            // t's definition writes the value the location already holds:
            // not a definition that could overwrite another copy's value.
            g.join_copy(t, ga);
        }
    }
    // The hull and weight of each group, on its representative.
    let mut gfirst = vec![u32::MAX; n];
    let mut glast = vec![0u32; n];
    let mut gweight = vec![0f64; n];
    let mut rep = vec![0usize; n];
    for v in 0..n {
        rep[v] = g.rep(v);
        if first[v] == u32::MAX || imm[v].is_some() {
            continue;
        }
        let r = rep[v];
        gfirst[r] = gfirst[r].min(first[v]);
        glast[r] = glast[r].max(last[v]);
        gweight[r] += weight[v];
    }

    // Hints: argument registers, float results of calls.
    let mut hint: Vec<Option<Loc>> = vec![None; n];
    let params = arg_locs(&f.param_tys(), false);
    for (p, l) in f.params.iter().zip(&params) {
        set_hint(&mut hint, rep[p.index()], *l);
    }
    hints(m, &f.body, &rep, &mut hint);

    // A group is live across a call when one of its members is.
    let across = live_across_calls(f);
    let mut group_across = vec![false; n];
    for v in 0..n {
        if across.has(v) {
            group_across[rep[v]] = true;
        }
    }
    let crosses_call = |v: usize| group_across[v];

    let mut order: Vec<usize> = (0..n).filter(|&v| rep[v] == v && gfirst[v] != u32::MAX).collect();
    order.sort_by_key(|&v| (gfirst[v], v));
    let mut locs: Vec<Option<Loc>> = vec![None; n];
    let mut active: Vec<usize> = vec![];
    let mut spill_slots = 0u32;
    let mut spilled = 0u32;
    // A vector that does not fit a register is a run of slots for the whole
    // function; its location names the run's lowest-addressed slot.
    let in_reg = |v: usize| matches!(f.vregs[v].ty, Ty::Vec(vt) if vector_in_register(vt, simd));
    for &v in &order {
        if let Ty::Vec(vt) = f.vregs[v].ty {
            if !in_reg(v) {
                // Slots grow upwards from rsp (`FnGen::slot`): the run's first.
                locs[v] = Some(Loc::Slot(spill_slots));
                spill_slots += vt.slots();
            }
        }
    }
    let order: Vec<usize> = order.into_iter().filter(|&v| locs[v].is_none()).collect();
    let vector_stage = order.iter().any(|&v| in_reg(v)).then(|| {
        spill_slots += VECTOR_STAGE_SLOTS;
        spill_slots - VECTOR_STAGE_SLOTS
    });
    let shared = mutations.has(crate::Mutation::SpillSlotShared);
    let mut first_spill = None;
    let mut spill = |locs: &mut Vec<Option<Loc>>, v: usize| {
        let slot = match first_spill {
            Some(s0) if shared && spilled == 1 => s0,
            _ => spill_slots,
        };
        first_spill.get_or_insert(spill_slots);
        locs[v] = Some(Loc::Slot(slot));
        // A spilled vector takes its run of slots.
        spill_slots += match f.vregs[v].ty {
            Ty::Vec(vt) => vt.slots(),
            _ => 1,
        };
        spilled += 1;
    };
    for v in order {
        active.retain(|&a| glast[a] >= gfirst[v]);
        let class = f.vregs[v].ty.class();
        let crossing = crosses_call(v) && !mutations.has(crate::Mutation::CallerSavedKept);
        // Candidate registers, preferred first (no allocation per interval).
        let gprs: &[Gpr] = if crossing { &CALLEE_SAVED } else { &ALLOC_GPRS };
        // Floats and vectors share the xmm registers (a location holds one
        // value at a time, so the classes need not be told apart here).
        let allowed = |l: &Loc| match (*l, class) {
            (Loc::Gpr(r), Class::Int) => gprs.contains(&r),
            (Loc::Xmm(x), Class::Float | Class::Vector) => !crossing && x.0 < ALLOC_XMMS,
            _ => false,
        };
        if matches!(class, Class::Float | Class::Vector) && crossing {
            spill(&mut locs, v);
            continue;
        }
        let taken = |l: &Loc| active.iter().any(|&a| locs[a] == Some(*l));
        let hinted = hint[v].filter(|h| allowed(h) && !taken(h));
        let free = hinted.or_else(|| match class {
            Class::Int => gprs.iter().map(|&r| Loc::Gpr(r)).find(|l| !taken(l)),
            Class::Float | Class::Vector => (0..ALLOC_XMMS).map(|x| Loc::Xmm(Xmm(x))).find(|l| !taken(l)),
        });
        if let Some(free) = free {
            locs[v] = Some(free);
            active.push(v);
            continue;
        }
        // No free register: evict the lightest active holder of an allowed one.
        let victim = active
            .iter()
            .copied()
            .filter(|&a| locs[a].is_some_and(|l| allowed(&l)))
            .min_by(|&a, &b| gweight[a].total_cmp(&gweight[b]));
        match victim {
            Some(a) if gweight[a] < gweight[v] => {
                locs[v] = locs[a];
                spill(&mut locs, a);
                active.retain(|&x| x != a);
                active.push(v);
            }
            _ => spill(&mut locs, v),
        }
    }
    for v in 0..n {
        if let Some(w) = imm[v] {
            if first[v] != u32::MAX {
                locs[v] = Some(Loc::Imm(w));
            }
        } else if rep[v] != v {
            locs[v] = locs[rep[v]];
        }
    }
    Allocation {
        locs,
        vector_stage,
        spill_slots,
        spilled,
    }
}

/// A set of virtual registers (one bit each).
#[derive(Clone, PartialEq, Eq)]
struct Bits(Vec<u64>);

impl Bits {
    fn empty(n: usize) -> Bits {
        Bits(vec![0; n.div_ceil(64)])
    }
    fn has(&self, v: usize) -> bool {
        self.0[v / 64] >> (v % 64) & 1 != 0
    }
    fn insert(&mut self, v: VReg) {
        self.0[v.index() / 64] |= 1 << (v.index() % 64);
    }
    fn remove(&mut self, v: VReg) {
        self.0[v.index() / 64] &= !(1 << (v.index() % 64));
    }
    fn union(&mut self, o: &Bits) {
        self.0.iter_mut().zip(&o.0).for_each(|(a, b)| *a |= b);
    }
}

/// The values live across some call of `f` (live after a `Call` or
/// `CallHelper`, its results excepted): the ones that need a callee-saved
/// register or a slot. Unlike an interval's hull this sees the holes of
/// control flow: a local assigned in both arms of an `if` (an inlined
/// body's result) is not live across a call in one arm before the other
/// arm's definition, nor across a call in its own arm before the arm's
/// definition.
fn live_across_calls(f: &Function) -> Bits {
    let n = f.vregs.len();
    let mut lv = Liveness {
        n,
        across: Bits::empty(n),
        marking: true,
    };
    lv.block(&f.body.0, Bits::empty(n), None);
    lv.across
}

/// Backward liveness over the structured IR (see [`live_across_calls`]).
struct Liveness {
    n: usize,
    across: Bits,
    /// Whether values live after a call are recorded in `across` (off while
    /// a loop's head set is being found, see [`Stmt::Loop`] below).
    marking: bool,
}

impl Liveness {
    /// The values live before `b`, given those live after it and, inside a
    /// loop, those live at its exit and at its head (`Break`, `Continue`).
    fn block(&mut self, b: &[Stmt], mut live: Bits, lp: Option<(&Bits, &Bits)>) -> Bits {
        for s in b.iter().rev() {
            live = self.stmt(s, live, lp);
        }
        live
    }

    fn stmt(&mut self, s: &Stmt, mut live: Bits, lp: Option<(&Bits, &Bits)>) -> Bits {
        match s {
            Stmt::Return(_) | Stmt::Raise { .. } => live = Bits::empty(self.n),
            Stmt::Break => return lp.expect("break in a loop").0.clone(),
            Stmt::Continue => return lp.expect("continue in a loop").1.clone(),
            Stmt::If { then_, else_, .. } => {
                let mut t = self.block(&then_.0, live.clone(), lp);
                let e = self.block(&else_.0, live, lp);
                t.union(&e);
                live = t;
            }
            Stmt::Loop { body } => {
                // The head's live set is the fixpoint of H -> live-in of the
                // body given H at `continue` and `live` at `break`. Every
                // statement's transfer is a gen/kill function x -> A | (x & B)
                // (and so are their unions and compositions, nested loops
                // included), so f(empty) = A is already the fixpoint:
                // f(A) = A | (A & B) = A. One unmarked pass finds it; a
                // second, marking pass records the values live across the
                // body's calls with the true head set. Nested loops thus
                // cost passes linear in their depth, not 2^depth.
                let empty = Bits::empty(self.n);
                let marking = std::mem::replace(&mut self.marking, false);
                let head = self.block(&body.0, empty.clone(), Some((&live, &empty)));
                self.marking = marking;
                if marking {
                    let again = self.block(&body.0, head.clone(), Some((&live, &head)));
                    debug_assert!(again == head, "loop liveness is not a fixpoint after one pass");
                }
                return head;
            }
            Stmt::Call { results, .. } | Stmt::CallHelper { results, .. } => {
                results.iter().for_each(|&r| live.remove(r));
                if self.marking {
                    self.across.union(&live);
                }
            }
            _ => each_def(s, |d| live.remove(d)),
        }
        each_use(s, |u| live.insert(u));
        live
    }
}

fn consts(f: &Function, b: &Block, imm: &mut [Option<u64>]) {
    for s in &b.0 {
        match s {
            Stmt::Assign {
                dst,
                op: Op::Const(w),
            } if f.vregs[dst.index()].kind == VRegKind::Temp => {
                imm[dst.index()] = Some(*w);
            }
            Stmt::If { then_, else_, .. } => {
                consts(f, then_, imm);
                consts(f, else_, imm);
            }
            Stmt::Loop { body } => consts(f, body, imm),
            _ => {}
        }
    }
}

fn set_hint(hint: &mut [Option<Loc>], v: usize, l: ArgLoc) {
    if hint[v].is_none() {
        hint[v] = match l {
            ArgLoc::Gpr(r) => Some(Loc::Gpr(r)),
            ArgLoc::Xmm(x) => Some(Loc::Xmm(x)),
            ArgLoc::Stack(_) => None,
        };
    }
}

fn hints(m: &Module, b: &Block, rep: &[usize], hint: &mut [Option<Loc>]) {
    for s in &b.0 {
        match s {
            Stmt::Call {
                func, args, results, ..
            } => {
                let callee = m.function(*func);
                for (a, l) in args.iter().zip(arg_locs_of(callee.param_tys_iter(), false)) {
                    set_hint(hint, rep[a.index()], l);
                }
                if let Some(locs) = super::abi::result_regs(&callee.results) {
                    for (r, l) in results.iter().zip(locs) {
                        if matches!(l, ArgLoc::Xmm(_)) {
                            set_hint(hint, rep[r.index()], l);
                        }
                    }
                }
            }
            Stmt::CallHelper {
                helper,
                args,
                results,
                ..
            } => {
                let h = m.helper(*helper);
                for (a, l) in args
                    .iter()
                    .zip(arg_locs_of(h.params.iter().copied(), h.takes_ctx))
                {
                    set_hint(hint, rep[a.index()], l);
                }
                if let (Some(r), Some(ty)) = (results.first(), h.result) {
                    if ty.is_float() {
                        set_hint(hint, rep[r.index()], ArgLoc::Xmm(Xmm(0)));
                    }
                }
            }
            Stmt::If { then_, else_, .. } => {
                hints(m, then_, rep, hint);
                hints(m, else_, rep, hint);
            }
            Stmt::Loop { body } => hints(m, body, rep, hint),
            _ => {}
        }
    }
}

#[cfg(all(test, debug_assertions))]
mod tests {
    use super::*;
    use crate::ir::{BinOp, CmpOp, ModuleBuilder, SiteId, Ty};
    use crate::x64::{abi, check::check};

    /// `g(p) = p`, the callee of the tests' calls.
    fn identity_callee(m: &mut ModuleBuilder) -> crate::ir::FuncId {
        let g = m.declare("g", &[Ty::I64], &[Ty::I64]);
        let mut b = m.function(g);
        let p = b.param(0);
        b.ret(&[p]);
        m.define(b);
        g
    }

    /// `f(n)`: a loop carrying an int and a float local, a temporary defined
    /// before the loop and used inside, and a call in the loop body.
    fn sample() -> crate::ir::Module {
        let mut m = ModuleBuilder::new();
        let g = identity_callee(&mut m);
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
    fn occurrence_weights_are_the_powers_of_eight() {
        for (d, w) in OCC_WEIGHT.iter().enumerate() {
            assert_eq!(w.to_bits(), 8f64.powi(d as i32).to_bits());
        }
    }

    #[test]
    fn values_live_across_calls_avoid_caller_saved_registers() {
        let m = sample();
        let f = &m.functions[1];
        let a = allocate(&m, f);
        check(f, &a).unwrap();
        // i and n live across the call: callee-saved GPRs; x: a slot; the
        // constant `one` is an immediate.
        for v in [f.params[0], VReg(1)] {
            match a.loc(v) {
                Loc::Gpr(r) => assert!(abi::is_callee_saved(r), "{v} in {r:?}"),
                Loc::Slot(_) => {}
                l => panic!("{v} in {l:?}"),
            }
        }
        assert_eq!(a.loc(VReg(3)), Loc::Imm(1));
        assert!(
            matches!(a.loc(VReg(2)), Loc::Slot(_)),
            "a float live across a call is spilled"
        );
    }

    #[test]
    fn a_value_assigned_after_the_call_of_its_arm_takes_a_caller_saved_register() {
        // r = n in one arm, r = g(n) in the other: r's interval (first
        // definition to last use) contains the call, but r is not live
        // across it, so it needs neither a callee-saved register nor a
        // slot; n is live across the call.
        let mut m = ModuleBuilder::new();
        let g = identity_callee(&mut m);
        let f = m.declare("f", &[Ty::I64], &[Ty::I64]);
        let mut b = m.function(f);
        let n = b.param(0);
        let r = b.local(Ty::I64);
        let two = b.const_(Ty::I64, 2);
        let c = b.cmp(CmpOp::Lt, n, two);
        b.if_(
            c,
            |b| b.assign(r, Op::Copy(n)),
            |b| {
                let t = b.call_with(g, &[Ty::I64], &[n], SiteId(0))[0];
                b.assign(r, Op::Copy(t));
            },
        );
        let s = b.binary(BinOp::Add, r, n);
        b.ret(&[s]);
        m.define(b);
        let m = m.finish().unwrap();
        let f = &m.functions[1];
        let a = allocate(&m, f);
        check(f, &a).unwrap();
        assert_eq!(a.spilled, 0);
        match a.loc(n) {
            Loc::Gpr(x) => assert!(abi::is_callee_saved(x), "n in {x:?}"),
            l => panic!("n in {l:?}"),
        }
        match a.loc(r) {
            Loc::Gpr(x) => assert!(!abi::is_callee_saved(x), "r in {x:?}"),
            l => panic!("r in {l:?}"),
        }
        // Mutated to keep caller-saved registers across calls, the
        // allocator gives n one, and the checker sees the clobber.
        let bad = allocate_with(
            &m,
            f,
            crate::Mutations::NONE.with(crate::Mutation::CallerSavedKept),
            SimdLevel::host(),
        );
        assert!(check(f, &bad).is_err());
    }

    #[test]
    fn deeply_nested_loops_are_allocated_with_exact_call_crossings() {
        // 40 nested loops around a call: the loop-head liveness takes two
        // passes per level (not 2^40), and n, read after the call in the
        // innermost loop, is live across it, while the call's result is not.
        fn nest(b: &mut crate::ir::FunctionBuilder, depth: u32, g: crate::ir::FuncId, n: VReg, acc: VReg) {
            if depth == 0 {
                let t = b.call_with(g, &[Ty::I64], &[n], SiteId(0))[0];
                let s = b.binary(BinOp::Add, t, n);
                b.assign(acc, Op::Copy(s));
                b.break_();
            } else {
                b.loop_(|b| {
                    nest(b, depth - 1, g, n, acc);
                    b.break_();
                });
            }
        }
        let mut m = ModuleBuilder::new();
        let g = identity_callee(&mut m);
        let f = m.declare("f", &[Ty::I64], &[Ty::I64]);
        let mut b = m.function(f);
        let n = b.param(0);
        let acc = b.local(Ty::I64);
        b.assign(acc, Op::Copy(n));
        nest(&mut b, 40, g, n, acc);
        b.ret(&[acc]);
        m.define(b);
        let m = m.finish().unwrap();
        let f = &m.functions[1];
        let a = allocate(&m, f);
        check(f, &a).unwrap();
        match a.loc(n) {
            Loc::Gpr(x) => assert!(abi::is_callee_saved(x), "n in {x:?}"),
            l => panic!("n in {l:?}"),
        }
    }

    #[test]
    fn the_checker_catches_a_conflicting_allocation() {
        let m = sample();
        let f = &m.functions[1];
        let mut a = allocate(&m, f);
        check(f, &a).unwrap();
        // `one` (defined before the loop, used in it) and `n` are live at the
        // same time: giving them one location must be caught.
        a.locs[3] = a.locs[0];
        assert!(check(f, &a).is_err());
        // A caller-saved register for a value live across the call, too.
        let mut a = allocate(&m, f);
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
        let a = allocate(&m, f);
        check(f, &a).unwrap();
        // `s` (v3) is consumed by the copy into acc right after it: it shares
        // acc's register (the chain rule); no other temporary may.
        assert_eq!(a.loc(VReg(3)), a.loc(VReg(1)));
        let temps: Vec<Loc> = (4..f.vregs.len()).map(|v| a.loc(VReg(v as u32))).collect();
        for l in [a.loc(VReg(1)), a.loc(VReg(2)), a.loc(n)] {
            assert!(
                !temps.contains(&l),
                "a loop temporary shares {l:?} with a loop-carried value"
            );
        }
    }

    #[test]
    fn a_copy_of_a_copy_shares_the_original_location() {
        // t1 = p; t2 = i64(t1); p stays live: both copies are p's register
        // (not a chain of their own into a second register).
        let mut m = ModuleBuilder::new();
        let f = m.declare("f", &[Ty::I32], &[Ty::I64, Ty::I32]);
        let mut b = m.function(f);
        let p = b.param(0);
        let t1 = b.op(Ty::I32, Op::Copy(p));
        let t2 = b.convert(Ty::I64, t1);
        b.ret(&[t2, p]);
        m.define(b);
        let m = m.finish().unwrap();
        let f = &m.functions[0];
        let a = allocate(&m, f);
        check(f, &a).unwrap();
        assert_eq!(a.loc(t1), a.loc(p));
        assert_eq!(a.loc(t2), a.loc(p));
    }

    #[test]
    fn a_widening_conversion_shares_the_location_and_checks() {
        // t = i64(p) while p stays live: a value-preserving conversion is a
        // copy, so t shares p's register and the checker accepts both reads.
        let mut m = ModuleBuilder::new();
        let f = m.declare("f", &[Ty::I32], &[Ty::I64, Ty::I32]);
        let mut b = m.function(f);
        let p = b.param(0);
        let t = b.convert(Ty::I64, p);
        b.ret(&[t, p]);
        m.define(b);
        let m = m.finish().unwrap();
        let f = &m.functions[0];
        let a = allocate(&m, f);
        check(f, &a).unwrap();
        assert_eq!(a.loc(t), a.loc(p));
    }
}
