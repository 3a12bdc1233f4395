//! Value ranges of integer registers: for every integer and `Bool` register
//! of a function, an interval holding every value it takes in any run, and
//! whether every definition of it is *exact*: its 64-bit two's-complement
//! result on canonical operands is its mathematical value (a `+ - *`,
//! negation or left shift whose result stays in the type, a `~` of a
//! signed or 64-bit value, any operation that is not arithmetic). Then that
//! result is already the canonical word, so code generation skips the sign
//! or zero extension of narrow results, and passes may rewrite a comparison
//! of `x + c`.
//!
//! An abstract interpretation over the structured IR, in mathematical
//! values (signed types signed, unsigned ones unsigned, `Bool` 0 or 1):
//! - constants, copies and value-preserving conversions keep their
//!   interval; `+ - *`, negation, `&`, `|`, `^` on non-negative operands,
//!   shifts, `//` and `%` by constants compute theirs; anything else (loads,
//!   call results, parameters) is the whole type;
//! - an `if` refines the operands of the comparison it tests (through `and`
//!   / `or` / `not` of comparisons) in each arm, and a temporary known to
//!   equal `x + c` (a copy of a local not written since, or an exact sum
//!   with a constant) passes the refinement on to `x`; an empty interval
//!   marks an arm that never runs;
//! - a loop iterates its body from the entry state until the locals it
//!   writes stop growing. A local that grows is first widened to a guess —
//!   the bound an exit test of the last pass put on it, plus what one
//!   iteration added (`while k + 2 < n: k = k + 1` gives `k <= n - 2`) —
//!   and, if the next pass outgrows the guess, to its whole type, so the
//!   iteration ends after a few passes with an interval that holds on entry
//!   and is kept by the body. The definitions of that last pass are the
//!   ones recorded.
//!
//! Every interval is a superset of the values the registers take, which
//! `ir::eval` defines; the tests in `tests/range.rs` check the intervals
//! against runs, and the machine code that relies on them against
//! `ir::eval`.

use std::rc::Rc;

use crate::ir::{BinOp, Block, CmpOp, Function, Op, ShiftOp, Stmt, Ty, UnOp, VReg, VRegKind, Word};

/// A closed interval of mathematical values, `lo <= hi`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Interval {
    pub lo: i128,
    pub hi: i128,
}

impl Interval {
    pub fn new(lo: i128, hi: i128) -> Interval {
        debug_assert!(lo <= hi);
        Interval { lo, hi }
    }

    pub fn point(v: i128) -> Interval {
        Interval { lo: v, hi: v }
    }

    /// Every value of `ty`, or `None` for a type without ranges (floats,
    /// pointers, handles, vectors).
    pub fn of_type(ty: Ty) -> Option<Interval> {
        let i = |lo: i128, hi: i128| Some(Interval::new(lo, hi));
        match ty {
            Ty::Bool => i(0, 1),
            Ty::I8 => i(i8::MIN.into(), i8::MAX.into()),
            Ty::U8 => i(0, u8::MAX.into()),
            Ty::I32 => i(i32::MIN.into(), i32::MAX.into()),
            Ty::U32 => i(0, u32::MAX.into()),
            Ty::I64 => i(i64::MIN.into(), i64::MAX.into()),
            Ty::U64 => i(0, u64::MAX.into()),
            _ => None,
        }
    }

    pub fn contains(self, o: Interval) -> bool {
        self.lo <= o.lo && o.hi <= self.hi
    }

    fn hull(self, o: Interval) -> Interval {
        Interval::new(self.lo.min(o.lo), self.hi.max(o.hi))
    }

    /// The common part, or `None` when there is none.
    fn meet(self, o: Interval) -> Option<Interval> {
        let (lo, hi) = (self.lo.max(o.lo), self.hi.min(o.hi));
        (lo <= hi).then_some(Interval { lo, hi })
    }

    fn shift(self, d: i128) -> Interval {
        Interval::new(self.lo + d, self.hi + d)
    }

    /// The constant, when the interval has one value.
    pub fn single(self) -> Option<i128> {
        (self.lo == self.hi).then_some(self.lo)
    }
}

/// The mathematical value of a canonical word of the integer or `Bool` type `ty`.
pub fn value_of(ty: Ty, w: Word) -> i128 {
    match ty {
        Ty::I8 => i128::from(w as i8),
        Ty::I32 => i128::from(w as i32),
        Ty::I64 => i128::from(w as i64),
        Ty::U8 => i128::from(w as u8),
        Ty::U32 => i128::from(w as u32),
        Ty::Bool => i128::from(w & 1),
        _ => i128::from(w),
    }
}

/// The canonical word of `ty` holding the value `v` (which is in its range).
pub fn word_of(ty: Ty, v: i128) -> Word {
    crate::ir::sem::canon(ty, v as u64)
}

/// The result of the analysis for one function.
pub struct Ranges {
    range: Vec<Option<Interval>>,
    inexact: Vec<bool>,
}

impl Ranges {
    pub fn analyse(f: &Function) -> Ranges {
        let n = f.vregs.len();
        if !worth_analysing(f) {
            return Ranges {
                range: vec![None; n],
                inexact: vec![false; n],
            };
        }
        let mut cx = Cx {
            f,
            full: f.vregs.iter().map(|r| Interval::of_type(r.ty)).collect(),
            defs: vec![None; n],
            cmp_gens: vec![[0; 2]; n],
            loops: vec![],
            recording: true,
            log: Vec::with_capacity(2 * n),
            bounds: vec![],
            next_gen: 1,
        };
        index_defs(&f.body, &mut cx.defs);
        let mut st = State::new(cx.full.iter().map(|r| Slot {
            val: r.unwrap_or(Interval::point(0)),
            lin: None,
            gen: 0,
        }));
        for &p in &f.params {
            if let Some(full) = cx.full[p.index()] {
                cx.record(p, full, true);
            }
            st.get_mut(p).gen = cx.fresh_gen();
        }
        cx.block(Some(st), &f.body);
        let mut range: Vec<Option<Interval>> = vec![None; n];
        let mut inexact = vec![false; n];
        for (v, r, exact) in cx.log {
            let i = v.index();
            range[i] = Some(range[i].map_or(r, |o| o.hull(r)));
            inexact[i] |= !exact;
        }
        Ranges { range, inexact }
    }

    /// An interval holding every value `v` takes (`None`: not an integer
    /// or `Bool`, or never defined on a path that runs).
    pub fn get(&self, v: VReg) -> Option<Interval> {
        self.range.get(v.index()).copied().flatten()
    }

    /// Whether every definition of `v` is exact (see the module comment):
    /// the 64-bit result of canonical operands is canonical.
    pub fn exact(&self, v: VReg) -> bool {
        self.range[v.index()].is_some() && !self.inexact[v.index()]
    }

    /// Whether every value of `v` is at least 0 (and `v` has a range).
    pub fn non_negative(&self, v: VReg) -> bool {
        self.get(v).is_some_and(|r| r.lo >= 0)
    }
}

/// Whether some operation of `f` has a use for ranges: narrow `+ - *`,
/// negation or `~` (their extensions), `//` or `%` (a constant divisor's
/// plan), a comparison of a temporary sum or difference (`x64::exits`).
fn worth_analysing(f: &Function) -> bool {
    let narrow = |v: VReg| matches!(f.ty(v), Ty::I8 | Ty::U8 | Ty::I32 | Ty::U32);
    let mut sums = vec![false; f.vregs.len()];
    let mut worth = false;
    crate::ir::visit::walk(&f.body, &mut |s| {
        if let Stmt::Assign { dst, op } = s {
            match *op {
                Op::Binary(BinOp::Add | BinOp::Sub, ..) => {
                    sums[dst.index()] = f.vregs[dst.index()].kind == VRegKind::Temp;
                    worth |= narrow(*dst);
                }
                Op::Binary(BinOp::Mul, ..) | Op::Unary(..) => worth |= narrow(*dst),
                Op::FloorDiv { .. } | Op::FloorMod { .. } => worth = true,
                Op::Cmp(_, a, b) => worth |= sums[a.index()] || sums[b.index()],
                _ => {}
            }
        }
    });
    worth
}

fn index_defs<'f>(b: &'f Block, defs: &mut [Option<&'f Op>]) {
    for s in &b.0 {
        match s {
            Stmt::Assign { dst, op } => defs[dst.index()] = Some(op),
            Stmt::If { then_, else_, .. } => {
                index_defs(then_, defs);
                index_defs(else_, defs);
            }
            Stmt::Loop { body } => index_defs(body, defs),
            _ => {}
        }
    }
}

/// A temporary known to equal `base + off` while `base` (a local with
/// generation `gen`, or a temporary) is not written.
#[derive(Clone, Copy, PartialEq, Eq)]
struct Lin {
    base: VReg,
    gen: u32,
    off: i64,
}

/// What is known of one register at one program point.
#[derive(Clone, Copy)]
struct Slot {
    /// Its interval (meaningless for types without ranges).
    val: Interval,
    /// A temporary: the register plus a constant it equals.
    lin: Option<Lin>,
    /// A local: changes at every assignment (links to an older one are stale).
    gen: u32,
}

/// Registers a chunk of [`State`] holds.
const CHUNK: usize = 32;

/// What is known at one program point, per register, in chunks shared
/// between the states of the two arms of an `if` and of a loop's passes
/// until one writes them: a branch copies the few chunks it writes, not
/// the whole state, and a join skips the chunks both sides share.
#[derive(Clone)]
struct State(Vec<Rc<[Slot; CHUNK]>>);

impl State {
    fn new(slots: impl Iterator<Item = Slot>) -> State {
        let filler = Slot {
            val: Interval::point(0),
            lin: None,
            gen: 0,
        };
        let mut chunks = vec![];
        let mut chunk = [filler; CHUNK];
        let mut k = 0;
        for slot in slots {
            chunk[k] = slot;
            k += 1;
            if k == CHUNK {
                chunks.push(Rc::new(chunk));
                chunk = [filler; CHUNK];
                k = 0;
            }
        }
        if k > 0 {
            chunks.push(Rc::new(chunk));
        }
        State(chunks)
    }

    fn get(&self, v: VReg) -> &Slot {
        let i = v.index();
        &self.0[i / CHUNK][i % CHUNK]
    }

    fn get_mut(&mut self, v: VReg) -> &mut Slot {
        let i = v.index();
        &mut Rc::make_mut(&mut self.0[i / CHUNK])[i % CHUNK]
    }
}

/// One loop being analysed: the states reaching its exit and its next
/// iteration, and where the bounds its tests put on locals in the current
/// pass start in [`Cx::bounds`].
struct LoopCx {
    breaks: Option<State>,
    conts: Option<State>,
    bounds_from: usize,
}

struct Cx<'f> {
    f: &'f Function,
    /// Every value of each register's type (`None`: no ranges).
    full: Vec<Option<Interval>>,
    defs: Vec<Option<&'f Op>>,
    /// The generations of a comparison's local operands when it ran.
    cmp_gens: Vec<[u32; 2]>,
    loops: Vec<LoopCx>,
    /// Whether definitions are logged: not in the passes over a loop that
    /// are only looking for its head's state (the log of the pass that
    /// finds it stays).
    recording: bool,
    /// (register, interval, exact) of every definition run while recording.
    log: Vec<(VReg, Interval, bool)>,
    /// (local, bound, upper?) a test put on a local in a loop's pass: its
    /// widening's guesses.
    bounds: Vec<(VReg, i128, bool)>,
    next_gen: u32,
}

/// Passes over a loop before every growing local is widened to its type.
const MAX_PASSES: usize = 6;

fn join(a: Option<State>, b: Option<State>, cx: &mut Cx) -> Option<State> {
    match (a, b) {
        (None, s) | (s, None) => s,
        (Some(mut a), Some(b)) => {
            for (ca, cb) in a.0.iter_mut().zip(&b.0) {
                // A shared chunk is the same on both sides: its join is itself.
                if Rc::ptr_eq(ca, cb) {
                    continue;
                }
                for (x, y) in Rc::make_mut(ca).iter_mut().zip(cb.iter()) {
                    x.val = x.val.hull(y.val);
                    if x.lin != y.lin {
                        x.lin = None;
                    }
                    if x.gen != y.gen {
                        x.gen = cx.fresh_gen();
                    }
                }
            }
            Some(a)
        }
    }
}

impl<'f> Cx<'f> {
    fn fresh_gen(&mut self) -> u32 {
        self.next_gen += 1;
        self.next_gen
    }

    fn is_local(&self, v: VReg) -> bool {
        self.f.vregs[v.index()].kind == VRegKind::Local
    }

    fn record(&mut self, v: VReg, r: Interval, exact: bool) {
        if self.recording && self.full[v.index()].is_some() {
            self.log.push((v, r, exact));
        }
    }

    /// `v`'s interval in `st`, narrowed by what its link's base is known
    /// to be now.
    fn value(&self, st: &State, v: VReg) -> Interval {
        let s = st.get(v);
        match s.lin {
            Some(l) if l.base != v && self.valid(st, &l) => {
                let b = st.get(l.base).val.shift(l.off.into());
                s.val.meet(b).unwrap_or(s.val)
            }
            _ => s.val,
        }
    }

    fn block(&mut self, mut st: Option<State>, b: &Block) -> Option<State> {
        for s in &b.0 {
            st = self.stmt(st?, s);
        }
        st
    }

    fn stmt(&mut self, mut st: State, s: &Stmt) -> Option<State> {
        match s {
            Stmt::Assign { dst, op } => {
                self.assign(&mut st, *dst, op);
                Some(st)
            }
            Stmt::Call { results, .. } | Stmt::CallHelper { results, .. } => {
                for &r in results {
                    self.set(&mut st, r, None, true, None);
                }
                Some(st)
            }
            Stmt::If { cond, then_, else_ } => {
                let t = self.refine_cond(st.clone(), *cond, true);
                let e = self.refine_cond(st, *cond, false);
                let t = t.and_then(|t| self.block(Some(t), then_));
                let e = e.and_then(|e| self.block(Some(e), else_));
                join(t, e, self)
            }
            Stmt::Loop { body } => self.loop_(st, body),
            Stmt::Break => {
                let l = self.loops.len() - 1;
                let b = self.loops[l].breaks.take();
                self.loops[l].breaks = join(b, Some(st), self);
                None
            }
            Stmt::Continue => {
                let l = self.loops.len() - 1;
                let c = self.loops[l].conts.take();
                self.loops[l].conts = join(c, Some(st), self);
                None
            }
            Stmt::Return(_) | Stmt::Raise { .. } => None,
            Stmt::Store { .. } | Stmt::Mark(_) | Stmt::InlineEnter(_) | Stmt::InlineExit => Some(st),
        }
    }

    /// Write `v`: its interval (`None`: the whole type), whether the
    /// definition is exact, and what it equals.
    fn set(&mut self, st: &mut State, v: VReg, r: Option<Interval>, exact: bool, lin: Option<Lin>) {
        let i = v.index();
        let Some(full) = self.full[i] else {
            return;
        };
        let r = r.and_then(|r| full.contains(r).then_some(r));
        let exact = exact && r.is_some();
        let r = r.unwrap_or(full);
        let gen = if self.is_local(v) {
            Some(self.fresh_gen())
        } else {
            None
        };
        let slot = st.get_mut(v);
        slot.val = r;
        match gen {
            Some(gen) => {
                slot.gen = gen;
                slot.lin = None;
            }
            None => slot.lin = lin,
        }
        self.record(v, r, exact);
    }

    /// What `v` equals now: a register plus a constant.
    fn link(&self, st: &State, v: VReg) -> Lin {
        if self.is_local(v) {
            return Lin {
                base: v,
                off: 0,
                gen: st.get(v).gen,
            };
        }
        st.get(v).lin.unwrap_or(Lin {
            base: v,
            off: 0,
            gen: 0,
        })
    }

    fn assign(&mut self, st: &mut State, d: VReg, op: &Op) {
        let ty = self.f.ty(d);
        let Some(full) = self.full[d.index()] else {
            return;
        };
        let val = |v: VReg| self.value(st, v);
        let known = |v: VReg| self.full[v.index()].is_some();
        let konst = |v: VReg| known(v).then(|| val(v).single()).flatten();
        let bits = ty.bits();
        let (r, exact, lin) = match *op {
            Op::Const(w) => (Some(Interval::point(value_of(ty, w))), true, None),
            Op::Copy(a) => (Some(val(a)), true, Some(self.link(st, a))),
            Op::Convert(a) if known(a) => {
                let ra = val(a);
                if full.contains(ra) && ty != Ty::Bool {
                    (Some(ra), true, Some(self.link(st, a)))
                } else if ty == Ty::Bool {
                    let z = Interval::point(0);
                    let r = if ra == z {
                        z
                    } else if ra.lo > 0 || ra.hi < 0 {
                        Interval::point(1)
                    } else {
                        full
                    };
                    (Some(r), true, None)
                } else {
                    (None, true, None)
                }
            }
            Op::Convert(_) | Op::Load { .. } => (None, true, None),
            Op::Unary(u, a) => {
                let ra = val(a);
                match (u, ty) {
                    (UnOp::Neg, _) => {
                        let r = Interval::new(-ra.hi, -ra.lo);
                        (Some(r), full.contains(r), None)
                    }
                    (UnOp::Not, Ty::Bool) => (Some(Interval::new(1 - ra.hi, 1 - ra.lo)), true, None),
                    (UnOp::Not, _) if ty.is_signed() => {
                        (Some(Interval::new(-ra.hi - 1, -ra.lo - 1)), true, None)
                    }
                    // The machine's `not` sets the upper bits of a narrow
                    // unsigned word: not its canonical form.
                    (UnOp::Not, _) => (
                        Some(Interval::new(full.hi - ra.hi, full.hi - ra.lo)),
                        bits == 64,
                        None,
                    ),
                }
            }
            Op::Binary(b, x, y) => {
                let (rx, ry) = (val(x), val(y));
                match b {
                    BinOp::Add | BinOp::Sub | BinOp::Mul => {
                        let r = match b {
                            BinOp::Add => Some(Interval::new(rx.lo + ry.lo, rx.hi + ry.hi)),
                            BinOp::Sub => Some(Interval::new(rx.lo - ry.hi, rx.hi - ry.lo)),
                            _ => mul(rx, ry),
                        };
                        let exact = r.is_some_and(|r| full.contains(r));
                        // Offsets past i64 (u64 constants) are not linked.
                        let shifted = |l: Lin, c: i128| {
                            i64::try_from(i128::from(l.off) + c)
                                .ok()
                                .map(|off| Lin { off, ..l })
                        };
                        let lin = match (b, konst(x), konst(y)) {
                            _ if !exact => None,
                            (BinOp::Add, _, Some(c)) => shifted(self.link(st, x), c),
                            (BinOp::Add, Some(c), _) => shifted(self.link(st, y), c),
                            (BinOp::Sub, _, Some(c)) => shifted(self.link(st, x), -c),
                            _ => None,
                        };
                        (r, exact, lin)
                    }
                    BinOp::And if rx.lo >= 0 || ry.lo >= 0 => {
                        let hi = match (rx.lo >= 0, ry.lo >= 0) {
                            (true, true) => rx.hi.min(ry.hi),
                            (true, false) => rx.hi,
                            _ => ry.hi,
                        };
                        (Some(Interval::new(0, hi)), true, None)
                    }
                    BinOp::Or | BinOp::Xor if rx.lo >= 0 && ry.lo >= 0 => {
                        let m = rx.hi.max(ry.hi);
                        let top = if m == 0 {
                            0
                        } else {
                            (1i128 << (128 - m.leading_zeros())) - 1
                        };
                        (Some(Interval::new(0, top)), true, None)
                    }
                    _ => (None, true, None),
                }
            }
            Op::Shift { op, a, b, .. } => {
                let ra = val(a);
                match (op, konst(b)) {
                    (ShiftOp::Shl, Some(k)) if (0..i128::from(bits)).contains(&k) => {
                        let r = mul(ra, Interval::point(1 << k));
                        (r, r.is_some_and(|r| full.contains(r)), None)
                    }
                    (ShiftOp::Shr, Some(k))
                        if (0..i128::from(bits)).contains(&k) && (ty.is_signed() || ra.lo >= 0) =>
                    {
                        (Some(Interval::new(ra.lo >> k, ra.hi >> k)), true, None)
                    }
                    _ => (None, true, None),
                }
            }
            Op::FloorDiv { a, b, .. } => match konst(b) {
                Some(c) if c != 0 => {
                    let ra = val(a);
                    let (p, q) = (floor_div(ra.lo, c), floor_div(ra.hi, c));
                    (Some(Interval::new(p.min(q), p.max(q))), true, None)
                }
                _ => (None, true, None),
            },
            Op::FloorMod { a, b, .. } => {
                let (ra, rb) = (val(a), val(b));
                let r = if rb.lo > 0 {
                    if ra.lo >= 0 && ra.hi < rb.lo {
                        Some(ra)
                    } else {
                        Some(Interval::new(0, rb.hi - 1))
                    }
                } else if rb.hi < 0 {
                    Some(Interval::new(rb.lo + 1, 0))
                } else {
                    None
                };
                (r, true, None)
            }
            Op::Cmp(_, a, b) => {
                let g = |v: VReg| if self.is_local(v) { st.get(v).gen } else { 0 };
                self.cmp_gens[d.index()] = [g(a), g(b)];
                (Some(full), true, None)
            }
            Op::FDiv { .. } | Op::Vector(_) => (None, true, None),
        };
        self.set(st, d, r, exact, lin);
    }

    /// `st` where the Bool `cond` is `truth` (`None`: that never happens).
    fn refine_cond(&mut self, st: State, cond: VReg, truth: bool) -> Option<State> {
        let mut st = self.narrow(st, cond, Interval::point(i128::from(truth)))?;
        if self.is_local(cond) {
            return Some(st);
        }
        match self.defs[cond.index()] {
            Some(&Op::Copy(a)) | Some(&Op::Convert(a)) if self.f.ty(a) == Ty::Bool && !self.is_local(a) => {
                self.refine_cond(st, a, truth)
            }
            Some(&Op::Unary(UnOp::Not, a)) if !self.is_local(a) => self.refine_cond(st, a, !truth),
            Some(&Op::Binary(BinOp::And, a, b)) if truth && !self.is_local(a) && !self.is_local(b) => {
                let st = self.refine_cond(st, a, true)?;
                self.refine_cond(st, b, true)
            }
            Some(&Op::Binary(BinOp::Or, a, b)) if !truth && !self.is_local(a) && !self.is_local(b) => {
                let st = self.refine_cond(st, a, false)?;
                self.refine_cond(st, b, false)
            }
            Some(&Op::Cmp(c, a, b)) if self.full[a.index()].is_some() => {
                // A local operand written since the comparison ran: its
                // interval now says nothing about the one compared.
                let [ga, gb] = self.cmp_gens[cond.index()];
                let fresh = |v: VReg, g: u32| !self.is_local(v) || st.get(v).gen == g;
                if !fresh(a, ga) || !fresh(b, gb) {
                    return Some(st);
                }
                let c = if truth { c } else { negate(c) };
                let (ra, rb) = (self.value(&st, a), self.value(&st, b));
                // a `c` b: bounds on each from the other.
                let (na, nb) = match c {
                    CmpOp::Eq => (rb, ra),
                    CmpOp::Ne => (cut(ra, rb)?, cut(rb, ra)?),
                    CmpOp::Lt => (below(rb.hi - 1), above(ra.lo + 1)),
                    CmpOp::Le => (below(rb.hi), above(ra.lo)),
                    CmpOp::Gt => (above(rb.lo + 1), below(ra.hi - 1)),
                    CmpOp::Ge => (above(rb.lo), below(ra.hi)),
                };
                st = self.narrow(st, a, na)?;
                self.narrow(st, b, nb)
            }
            _ => Some(st),
        }
    }

    /// `st` with `v` (and what it is linked to) known to lie in `r`.
    /// Temporaries linked to the same base read the base's new interval
    /// through [`Cx::value`].
    fn narrow(&mut self, mut st: State, v: VReg, r: Interval) -> Option<State> {
        let i = v.index();
        let full = self.full[i]?;
        let met = st.get(v).val.meet(r)?;
        st.get_mut(v).val = met;
        if !self.is_local(v) {
            if let Some(l) = st.get(v).lin.filter(|l| l.base != v && self.valid(&st, l)) {
                return self.narrow(st, l.base, r.shift(-i128::from(l.off)));
            }
        } else if !self.loops.is_empty() {
            // The bound a test puts on a local: a guess for its loop's widening.
            if r.hi < full.hi {
                self.bounds.push((v, r.hi, true));
            }
            if r.lo > full.lo {
                self.bounds.push((v, r.lo, false));
            }
        }
        Some(st)
    }

    /// Whether a link still holds (its local base not written since).
    fn valid(&self, st: &State, l: &Lin) -> bool {
        !self.is_local(l.base) || st.get(l.base).gen == l.gen
    }

    fn loop_(&mut self, entry: State, body: &Block) -> Option<State> {
        let mut written = vec![];
        crate::ir::visit::walk(body, &mut |s| {
            crate::ir::visit::each_def(s, |v| {
                if self.is_local(v) && self.full[v.index()].is_some() && !written.contains(&v) {
                    written.push(v);
                }
            })
        });
        // 0: not widened yet, 1: widened to a guess, 2: to the whole type.
        let mut widened = vec![0u8; written.len()];
        let mut head = entry;
        // At the head a written local may differ from every value linked to
        // it before (in the first iteration it does not, in later ones it may).
        for &v in &written {
            head.get_mut(v).gen = self.fresh_gen();
        }
        let mark = self.log.len();
        let mut pass = 0;
        loop {
            self.loops.push(LoopCx {
                breaks: None,
                conts: None,
                bounds_from: self.bounds.len(),
            });
            let end = self.block(Some(head.clone()), body);
            let l = self.loops.pop().expect("pushed");
            let Some(back) = join(end, l.conts, self) else {
                self.bounds.truncate(l.bounds_from);
                return l.breaks;
            };
            let bounds = &self.bounds[l.bounds_from..];
            let mut grew = false;
            for (k, &v) in written.iter().enumerate() {
                let (h, b) = (head.get(v).val, back.get(v).val);
                if h.contains(b) {
                    continue;
                }
                grew = true;
                let full = self.full[v.index()].expect("tracked");
                let mut n = h.hull(b);
                if widened[k] == 0 && pass + 1 < MAX_PASSES {
                    widened[k] = 1;
                    // The tightest exit-test bound plus one iteration's growth.
                    if b.hi > h.hi {
                        let guess = bounds.iter().filter(|b| b.0 == v && b.2).map(|b| b.1).min();
                        n.hi = guess.map_or(full.hi, |u| (u + (b.hi - h.hi)).max(n.hi).min(full.hi));
                    }
                    if b.lo < h.lo {
                        let guess = bounds.iter().filter(|b| b.0 == v && !b.2).map(|b| b.1).max();
                        n.lo = guess.map_or(full.lo, |u| (u - (h.lo - b.lo)).min(n.lo).max(full.lo));
                    }
                } else {
                    widened[k] = 2;
                    n = full;
                }
                head.get_mut(v).val = n;
            }
            self.bounds.truncate(l.bounds_from);
            if !grew {
                // The head holds on entry and after every iteration: this
                // pass's definitions and exits are the loop's.
                return l.breaks;
            }
            self.log.truncate(mark);
            pass += 1;
        }
    }
}

/// Far below / above every value of every type.
const NEG_INF: i128 = -(1 << 100);
const POS_INF: i128 = 1 << 100;

fn below(hi: i128) -> Interval {
    Interval::new(NEG_INF, hi)
}

fn above(lo: i128) -> Interval {
    Interval::new(lo, POS_INF)
}

/// `r` without the value of `o` when `o` is one value at an end of `r`
/// (`None`: `r` is that value, so `!=` cannot hold).
fn cut(r: Interval, o: Interval) -> Option<Interval> {
    match o.single() {
        Some(v) if r == Interval::point(v) => None,
        Some(v) if r.lo == v => Some(Interval::new(v + 1, r.hi)),
        Some(v) if r.hi == v => Some(Interval::new(r.lo, v - 1)),
        _ => Some(r),
    }
}

/// Every product of a value of `a` and one of `b` (`None` past `i128`).
fn mul(a: Interval, b: Interval) -> Option<Interval> {
    let ps = [
        a.lo.checked_mul(b.lo)?,
        a.lo.checked_mul(b.hi)?,
        a.hi.checked_mul(b.lo)?,
        a.hi.checked_mul(b.hi)?,
    ];
    Some(Interval::new(*ps.iter().min()?, *ps.iter().max()?))
}

/// Python's `a // c` (`c != 0`).
fn floor_div(a: i128, c: i128) -> i128 {
    let q = a / c;
    if a % c != 0 && ((a < 0) != (c < 0)) {
        q - 1
    } else {
        q
    }
}

/// The comparison that holds when `c` does not.
fn negate(c: CmpOp) -> CmpOp {
    match c {
        CmpOp::Eq => CmpOp::Ne,
        CmpOp::Ne => CmpOp::Eq,
        CmpOp::Lt => CmpOp::Ge,
        CmpOp::Ge => CmpOp::Lt,
        CmpOp::Le => CmpOp::Gt,
        CmpOp::Gt => CmpOp::Le,
    }
}
