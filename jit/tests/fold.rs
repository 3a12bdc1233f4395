//! Leaf folding (`spy_jit::opt::fold`) on hand-built IR: which values are
//! folded, and that the folded module (alone and then inlined) gives what
//! the original gives under `ir::eval` — result, error code, operands,
//! traceback and the depth of the recursion error — at every depth limit
//! around the folded activations, in `ir::eval` and in machine code.

mod common;
use common::*;
use spy_jit::ir::{verify, BinOp, CmpOp, FuncId, Module, ModuleBuilder, SiteId, Stmt, Ty, Word};
use spy_jit::opt::{fold_leaves, inline_module, FoldOptions, InlineOptions};

fn fold_opts() -> FoldOptions {
    FoldOptions::new(code(RECURSION), code(INTERNAL))
}

/// `f(n) = n < 2 ? n : f(n - first) + f(n - second)`, the calls at sites
/// 1 and 2, of type `ty`.
fn fib_like(ty: Ty, first: u64, second: u64) -> (Module, FuncId) {
    let mut m = ModuleBuilder::new();
    let fib = m.declare("fib", &[ty], &[ty]);
    let mut f = m.function(fib);
    let p = f.param(0);
    let c2 = f.const_(ty, 2);
    let lt = f.cmp(CmpOp::Lt, p, c2);
    f.if_(lt, |f| f.ret(&[p]), |_| {});
    let ca = f.const_(ty, first);
    let a = f.binary(BinOp::Sub, p, ca);
    let ra = f.call_with(fib, &[ty], &[a], SiteId(1))[0];
    let cb = f.const_(ty, second);
    let b = f.binary(BinOp::Sub, p, cb);
    let rb = f.call_with(fib, &[ty], &[b], SiteId(2))[0];
    let s = f.binary(BinOp::Add, ra, rb);
    f.ret(&[s]);
    m.define(f);
    (m.finish().unwrap(), fib)
}

fn folded(m: &Module) -> (Module, usize) {
    let mut g = m.clone();
    let n = fold_leaves(&mut g, &fold_opts());
    verify(&g).expect("the folded module verifies");
    (g, n)
}

/// The original under `ir::eval` against the folded module and the folded
/// and inlined module, each in `ir::eval` and machine code, for every
/// argument and depth limit given.
fn same_everywhere(m: &Module, f: FuncId, args: &[Word], depths: std::ops::RangeInclusive<u32>) {
    let (g, _) = folded(m);
    let mut gi = g.clone();
    inline_module(&mut gi, &InlineOptions::default());
    verify(&gi).expect("the folded, inlined module verifies");
    for depth in depths {
        let reference = Both::new(m.clone(), depth);
        let mut fold = Both::new(g.clone(), depth);
        let mut fold_inl = Both::new(gi.clone(), depth);
        for &a in args {
            let want = reference.eval(f, &[a], &mut spy_jit::ir::eval::NoHelpers);
            assert_eq!(fold.both(f, &[a]), want, "folded, arg {a:#x}, depth {depth}");
            assert_eq!(
                fold_inl.both(f, &[a]),
                want,
                "folded and inlined, arg {a:#x}, depth {depth}"
            );
        }
    }
}

fn words(ty: Ty, r: std::ops::RangeInclusive<i64>) -> Vec<Word> {
    r.map(|n| spy_jit::ir::sem::canon(ty, n as u64)).collect()
}

#[test]
fn fib_folds_two_and_three_and_stays_exact_at_every_depth() {
    for ty in [Ty::I32, Ty::I64, Ty::I8] {
        let (m, fib) = fib_like(ty, 1, 2);
        let (g, n) = folded(&m);
        assert_eq!(n, 2, "{ty}: fib(2) and fib(3)");
        // The fold is the entry's range test; the original body follows.
        assert_eq!(g.function(fib).body.0[6..], m.function(fib).body.0[..]);
        same_everywhere(&m, fib, &words(ty, -3..=11), 1..=9);
    }
}

#[test]
fn an_unsigned_parameter_is_range_tested_without_a_conversion() {
    let (m, fib) = fib_like(Ty::U8, 1, 2);
    let (g, n) = folded(&m);
    assert_eq!(n, 2);
    assert_eq!(g.function(fib).body.0[5..], m.function(fib).body.0[..]);
    same_everywhere(&m, fib, &words(Ty::U8, 0..=12), 1..=9);
}

/// `g(n) = g(n - 2) + g(n - 1)`: the first activation at level 2 below
/// `g(3)` is under the second call, so the sites of its depth errors are
/// no chain (`[A]` then `[B, A]`): only `g(2)` folds.
#[test]
fn a_value_whose_depth_errors_are_no_chain_is_not_folded() {
    let (m, g) = fib_like(Ty::I32, 2, 1);
    same_everywhere(&m, g, &words(Ty::I32, -2..=10), 1..=8);
    let (_, n) = folded(&m);
    assert_eq!(n, 1);
}

/// With three levels allowed, `fib(4)` folds too; still exact.
#[test]
fn deeper_folds_stay_exact() {
    let (m, fib) = fib_like(Ty::I32, 1, 2);
    let mut g = m.clone();
    let o = FoldOptions {
        max_levels: 3,
        ..fold_opts()
    };
    assert_eq!(fold_leaves(&mut g, &o), 3);
    verify(&g).unwrap();
    for depth in 1..=8 {
        let reference = Both::new(m.clone(), depth);
        let mut got = Both::new(g.clone(), depth);
        for a in words(Ty::I32, -1..=10) {
            let want = reference.eval(fib, &[a], &mut spy_jit::ir::eval::NoHelpers);
            assert_eq!(got.both(fib, &[a]), want, "arg {a}, depth {depth}");
        }
    }
}

/// A value whose evaluation raises (here `r(2)`, and so `r(3)`, `r(4)`
/// below it) is not folded; a loop, a call of another function or a
/// second parameter make a function ineligible.
#[test]
fn raising_values_and_other_shapes_are_left_alone() {
    let mut m = ModuleBuilder::new();
    let r = m.declare("r", &[Ty::I32], &[Ty::I32]);
    let looped = m.declare("looped", &[Ty::I32], &[Ty::I32]);
    let two = m.declare("two", &[Ty::I32, Ty::I32], &[Ty::I32]);
    let other = m.declare("other", &[Ty::I32], &[Ty::I32]);
    let mut f = m.function(r);
    let p = f.param(0);
    let c2 = f.const_(Ty::I32, 2);
    let lt = f.cmp(CmpOp::Lt, p, c2);
    f.if_(lt, |f| f.ret(&[p]), |_| {});
    let eq = f.cmp(CmpOp::Eq, p, c2);
    f.if_(eq, |f| f.raise(code(7), [Some(p), None]), |_| {});
    let c1 = f.const_(Ty::I32, 1);
    let a = f.binary(BinOp::Sub, p, c1);
    let ra = f.call_with(r, &[Ty::I32], &[a], SiteId(1))[0];
    f.ret(&[ra]);
    m.define(f);
    let mut f = m.function(looped);
    let p = f.param(0);
    let c2 = f.const_(Ty::I32, 2);
    let lt = f.cmp(CmpOp::Lt, p, c2);
    f.if_(lt, |f| f.ret(&[p]), |_| {});
    f.loop_(|f| f.break_());
    let c1 = f.const_(Ty::I32, 1);
    let a = f.binary(BinOp::Sub, p, c1);
    let ra = f.call_with(looped, &[Ty::I32], &[a], SiteId(1))[0];
    f.ret(&[ra]);
    m.define(f);
    let mut f = m.function(two);
    let (p, q) = (f.param(0), f.param(1));
    let c2 = f.const_(Ty::I32, 2);
    let lt = f.cmp(CmpOp::Lt, p, c2);
    f.if_(lt, |f| f.ret(&[q]), |_| {});
    let c1 = f.const_(Ty::I32, 1);
    let a = f.binary(BinOp::Sub, p, c1);
    let ra = f.call_with(two, &[Ty::I32], &[a, q], SiteId(1))[0];
    f.ret(&[ra]);
    m.define(f);
    let mut f = m.function(other);
    let p = f.param(0);
    let c2 = f.const_(Ty::I32, 2);
    let lt = f.cmp(CmpOp::Lt, p, c2);
    f.if_(lt, |f| f.ret(&[p]), |_| {});
    let c1 = f.const_(Ty::I32, 1);
    let a = f.binary(BinOp::Sub, p, c1);
    let ra = f.call_with(r, &[Ty::I32], &[a], SiteId(1))[0];
    let rb = f.call_with(other, &[Ty::I32], &[a], SiteId(2))[0];
    let s = f.binary(BinOp::Add, ra, rb);
    f.ret(&[s]);
    m.define(f);
    let m = m.finish().unwrap();
    let (g, n) = folded(&m);
    assert_eq!(n, 0);
    assert_eq!(g, m);
    assert!(matches!(m.function(r).body.0[0], Stmt::Assign { .. }));
}

/// The evaluation's work is bounded by the body's size: at most 4 calls.
#[test]
fn a_body_with_more_than_four_calls_is_left_alone() {
    for (calls, want) in [(4, 2), (5, 0)] {
        let mut m = ModuleBuilder::new();
        let f_id = m.declare("wide", &[Ty::I32], &[Ty::I32]);
        let mut f = m.function(f_id);
        let p = f.param(0);
        let c2 = f.const_(Ty::I32, 2);
        let lt = f.cmp(CmpOp::Lt, p, c2);
        f.if_(lt, |f| f.ret(&[p]), |_| {});
        let c1 = f.const_(Ty::I32, 1);
        let a = f.binary(BinOp::Sub, p, c1);
        let mut s = f.const_(Ty::I32, 0);
        for k in 0..calls {
            let r = f.call_with(f_id, &[Ty::I32], &[a], SiteId(k + 1))[0];
            s = f.binary(BinOp::Add, s, r);
        }
        f.ret(&[s]);
        m.define(f);
        let m = m.finish().unwrap();
        assert_eq!(folded(&m).1, want, "{calls} calls");
        same_everywhere(&m, f_id, &words(Ty::I32, -1..=6), 1..=6);
    }
}
