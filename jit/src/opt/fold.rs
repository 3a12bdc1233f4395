//! Leaf folding: a self-recursive pure function of one integer argument
//! (`fib`) returns its value at a few small arguments as a constant,
//! computed at compile time by [`crate::ir::eval`], instead of running the
//! activations below them. gcc -O2 folds the last activations of `fib`'s
//! `n - 2` chains the same way (`fib(2) = fib(1) + fib(0) = 1`); this is
//! what closes most of the gap to it (jit/BENCH-LOG.md, "Leaf folding").
//!
//! Exactness. A folded value still counts its activations against the depth
//! limit: its constant sits behind the nested `InlineEnter(s1) ..
//! InlineEnter(sL)` of the first activation the evaluation reaches at each
//! level below (then as many `InlineExit`s), so with a remaining depth
//! budget of `j < L` levels the `j + 1`-th enter raises the recursion error
//! with the traceback `s(j+1) .. s1`, exactly what the unfolded activations
//! raise. That is checked, not assumed: for each budget `j < L` the
//! evaluation itself is run with that budget, and the value is folded only
//! if every such run raises the recursion error (operands 0, 0) at a site
//! path that extends the previous one (a chain: the first activation at
//! each level lies below the first one at the level above). Anything else a
//! folded activation could do is excluded by the function's shape: no
//! loop, no memory access, no helper, no call but to itself, so nothing is
//! observable but the result, an error (a value whose evaluation raises
//! anything but the depth error is not folded) and the depth.
//!
//! Which values: the evaluation of each integer in a small window around
//! every constant the body compares the parameter with (the base case's
//! bound, `n < 2`) that needs 1 to [`FoldOptions::max_levels`] levels of
//! activations below it; the longest run of consecutive such values is
//! folded, behind one unsigned range test at the function's entry (`(n -
//! lo) as unsigned <= hi - lo`), then one equality test per value but the
//! last. Values that need no call are cheap as written; deeper ones would
//! grow the table of constants without bound (a partial evaluation, not the
//! leaf fold). The pass runs before [`super::inline`], so every inlined
//! copy of the body carries the fold.

use crate::ir::eval::{self, EvalOptions, NoHelpers};
use crate::ir::{
    sem, BinOp, Block, CmpOp, ErrCode, FuncId, Function, Module, Op, SiteId, Stmt, Ty, VReg, VRegInfo,
    VRegKind, Word,
};
use std::collections::BTreeSet;

/// The options of [`fold_leaves`]: the error codes the evaluation uses (as
/// the machine code does) and how deep a folded value may reach.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FoldOptions {
    pub recursion_error: ErrCode,
    pub internal_error: ErrCode,
    /// Most levels of activations below a folded value (fib: `fib(2)`
    /// needs 1, `fib(3)` 2, `fib(4)` 3).
    pub max_levels: u32,
}

impl FoldOptions {
    /// The default depth: 2 levels (for fib, `fib(2)` and `fib(3)`).
    pub fn new(recursion_error: ErrCode, internal_error: ErrCode) -> FoldOptions {
        FoldOptions {
            recursion_error,
            internal_error,
            max_levels: 2,
        }
    }
}

/// How far on either side of a compared constant values are tried.
const WINDOW: i128 = 4;
/// Most calls and statements (nested ones counted) of an eligible body:
/// each evaluation then runs at most `1 + 4 + 4² + ..` activations of at
/// most 64 statements, whatever program the fuzzer or a user writes.
const MAX_CALLS: usize = 4;
const MAX_STMTS: usize = 64;

/// One folded value: the argument, the result word and the call sites of
/// the first activation at each level below it, outermost first.
#[derive(Clone, Debug, PartialEq, Eq)]
struct Folded {
    arg: i128,
    result: Word,
    chain: Vec<SiteId>,
}

/// Fold the small arguments of every eligible function of `m` (a verified
/// module; the result verifies too). Returns the number of values folded.
pub fn fold_leaves(m: &mut Module, opts: &FoldOptions) -> usize {
    let mut count = 0;
    for i in 0..m.functions.len() {
        let f = FuncId(i as u32);
        if !eligible(m.function(f), f) {
            continue;
        }
        let run = longest_run(m, f, opts);
        if run.is_empty() {
            continue;
        }
        count += run.len();
        let func = &mut m.functions[i];
        let mut body = fold_entry(func, &run);
        body.append(&mut func.body.0);
        func.body = Block(body);
    }
    count
}

/// One integer parameter, one result word, and a small body of pure
/// operations, `if`s, returns, raises and calls of itself only (at least
/// one, at most [`MAX_CALLS`]).
fn eligible(func: &Function, f: FuncId) -> bool {
    if func.params.len() != 1 || !func.ty(func.params[0]).is_int() || func.results.len() != 1 {
        return false;
    }
    if matches!(func.results[0], Ty::Vec(_)) {
        return false;
    }
    let (mut ok, mut calls, mut stmts) = (true, 0, 0);
    crate::ir::visit::walk(&func.body, &mut |s| {
        stmts += 1;
        match s {
            Stmt::Assign { op, .. } => ok &= !matches!(op, Op::Load { .. } | Op::Vector(_)),
            Stmt::Call { func: g, .. } => {
                ok &= *g == f;
                calls += 1;
            }
            Stmt::If { .. } | Stmt::Return(_) | Stmt::Raise { .. } | Stmt::Mark(_) => {}
            Stmt::Store { .. }
            | Stmt::CallHelper { .. }
            | Stmt::Loop { .. }
            | Stmt::Break
            | Stmt::Continue
            | Stmt::InlineEnter(_)
            | Stmt::InlineExit => ok = false,
        }
    });
    ok && (1..=MAX_CALLS).contains(&calls) && stmts <= MAX_STMTS
}

/// The range of an integer type's values.
fn bounds(ty: Ty) -> (i128, i128) {
    let bits = ty.bits();
    if ty.is_signed() {
        (-(1i128 << (bits - 1)), (1i128 << (bits - 1)) - 1)
    } else {
        (0, (1i128 << bits) - 1)
    }
}

/// A canonical word of an integer type as a number.
fn number(ty: Ty, w: Word) -> i128 {
    if ty.is_signed() {
        i128::from(w as i64)
    } else {
        i128::from(w)
    }
}

/// The values to try: a window around each constant the parameter is
/// compared with (directly, `Cmp(_, p, k)` or `Cmp(_, k, p)`).
fn candidates(func: &Function) -> BTreeSet<i128> {
    let p = func.params[0];
    let ty = func.ty(p);
    // Constants, and copies of the parameter (the lowering reads a local
    // through a copy). Only which values are tried depends on this: each is
    // checked by evaluation.
    let mut consts = std::collections::HashMap::new();
    let mut copies = std::collections::HashSet::from([p]);
    crate::ir::visit::walk(&func.body, &mut |s| match s {
        Stmt::Assign {
            dst,
            op: Op::Const(w),
        } if func.ty(*dst) == ty => {
            consts.insert(*dst, number(ty, *w));
        }
        Stmt::Assign { dst, op: Op::Copy(a) } if *a == p => {
            copies.insert(*dst);
        }
        _ => {}
    });
    let (min, max) = bounds(ty);
    let mut out = BTreeSet::new();
    crate::ir::visit::walk(&func.body, &mut |s| {
        if let Stmt::Assign {
            op: Op::Cmp(_, a, b), ..
        } = s
        {
            let k = match (copies.contains(a), copies.contains(b)) {
                (true, false) => consts.get(b),
                (false, true) => consts.get(a),
                _ => None,
            };
            if let Some(&k) = k {
                out.extend((k - WINDOW..=k + WINDOW).filter(|c| (min..=max).contains(c)));
            }
        }
    });
    out
}

/// `Some` when `f(arg)` can be folded: it needs 1 to `max_levels` levels
/// below it, and with every smaller budget raises the recursion error at a
/// chain of sites.
fn fold_value(m: &Module, f: FuncId, arg: i128, opts: &FoldOptions) -> Option<Folded> {
    let ty = m.function(f).ty(m.function(f).params[0]);
    let word = sem::canon(ty, arg as u64);
    let mut chain: Vec<SiteId> = vec![];
    for budget in 0..=opts.max_levels {
        let eo = EvalOptions {
            depth_limit: 1 + budget,
            recursion_error: opts.recursion_error,
            internal_error: opts.internal_error,
        };
        match eval::call(m, f, &[word], &eo, &mut NoHelpers) {
            // No call below: cheap as written.
            Ok(_) if budget == 0 => return None,
            Ok(r) => {
                return Some(Folded {
                    arg,
                    result: r[0],
                    chain,
                })
            }
            Err(e) => {
                let deepest = e.code == opts.recursion_error
                    && e.operands == [0, 0]
                    && e.dropped_sites == 0
                    && e.traceback.len() == budget as usize + 1;
                if !deepest {
                    return None;
                }
                let path: Vec<SiteId> = e.traceback.iter().rev().copied().collect();
                if path[..chain.len()] != chain[..] {
                    return None;
                }
                chain = path;
            }
        }
    }
    None
}

/// The longest run of consecutive foldable values (the lowest of equals).
fn longest_run(m: &Module, f: FuncId, opts: &FoldOptions) -> Vec<Folded> {
    let (mut best, mut cur): (Vec<Folded>, Vec<Folded>) = (vec![], vec![]);
    for c in candidates(m.function(f)) {
        match fold_value(m, f, c, opts) {
            Some(v) => {
                if cur.last().is_some_and(|l| l.arg + 1 != c) {
                    cur.clear();
                }
                cur.push(v);
                if cur.len() > best.len() {
                    best = cur.clone();
                }
            }
            None => cur.clear(),
        }
    }
    best
}

/// `if (p - lo) as unsigned <= hi - lo { if p == lo { fold lo } else { ..
/// fold hi } }` with fresh registers of `func`.
fn fold_entry(func: &mut Function, run: &[Folded]) -> Vec<Stmt> {
    let p = func.params[0];
    let ty = func.ty(p);
    let uty = match ty {
        Ty::I8 => Ty::U8,
        Ty::I32 => Ty::U32,
        Ty::I64 => Ty::U64,
        t => t,
    };
    let result_ty = func.results[0];
    let mut b = Regs { func, out: vec![] };
    let lo = b.konst(ty, run[0].arg as u64);
    let d = b.def(ty, Op::Binary(BinOp::Sub, p, lo));
    let du = if uty == ty { d } else { b.def(uty, Op::Convert(d)) };
    let span = b.konst(uty, (run.len() - 1) as u64);
    let inside = b.def(Ty::Bool, Op::Cmp(CmpOp::Le, du, span));
    let mut head = std::mem::take(&mut b.out);
    let chain = chain(&mut b, p, ty, result_ty, run);
    head.push(Stmt::If {
        cond: inside,
        then_: chain,
        else_: Block::default(),
    });
    head
}

/// The tests of `run` (the range test passed): an equality test per value
/// but the last.
fn chain(b: &mut Regs, p: VReg, ty: Ty, result_ty: Ty, run: &[Folded]) -> Block {
    let v = &run[0];
    let mut fold = vec![];
    fold.extend(v.chain.iter().map(|&s| Stmt::InlineEnter(s)));
    fold.extend(v.chain.iter().map(|_| Stmt::InlineExit));
    let r = b.def(result_ty, Op::Const(v.result));
    fold.append(&mut b.out);
    fold.push(Stmt::Return(vec![r]));
    if run.len() == 1 {
        return Block(fold);
    }
    let k = b.konst(ty, v.arg as u64);
    let eq = b.def(Ty::Bool, Op::Cmp(CmpOp::Eq, p, k));
    let mut out = std::mem::take(&mut b.out);
    let rest = chain(b, p, ty, result_ty, &run[1..]);
    out.push(Stmt::If {
        cond: eq,
        then_: Block(fold),
        else_: rest,
    });
    Block(out)
}

/// New temporaries of a function and the statements defining them.
struct Regs<'a> {
    func: &'a mut Function,
    out: Vec<Stmt>,
}

impl Regs<'_> {
    fn def(&mut self, ty: Ty, op: Op) -> VReg {
        let dst = VReg(self.func.vregs.len() as u32);
        self.func.vregs.push(VRegInfo {
            ty,
            kind: VRegKind::Temp,
        });
        self.out.push(Stmt::Assign { dst, op });
        dst
    }
    fn konst(&mut self, ty: Ty, n: u64) -> VReg {
        self.def(ty, Op::Const(sem::canon(ty, n)))
    }
}
