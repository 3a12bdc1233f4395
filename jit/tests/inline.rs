//! The inlining pass (`spy_jit::opt::inline`) on hand-built IR: the inlined
//! module verifies, has no call left where one was inlined, and gives what
//! the original gives under `ir::eval` (results, error code, operands,
//! traceback, the depth of the recursion error), in `ir::eval` and in the
//! machine code.

mod common;
use common::*;
use spy_jit::ir::{verify, BinOp, Block, CmpOp, FuncId, Module, ModuleBuilder, SiteId, Stmt, Ty, Word};
use spy_jit::opt::{inline_module, InlineOptions};

fn calls(b: &Block) -> usize {
    b.0.iter()
        .map(|s| match s {
            Stmt::Call { .. } => 1,
            Stmt::If { then_, else_, .. } => calls(then_) + calls(else_),
            Stmt::Loop { body } => calls(body),
            _ => 0,
        })
        .sum()
}

fn enters(b: &Block) -> usize {
    b.0.iter()
        .map(|s| match s {
            Stmt::InlineEnter(_) => 1,
            Stmt::If { then_, else_, .. } => enters(then_) + enters(else_),
            Stmt::Loop { body } => enters(body),
            _ => 0,
        })
        .sum()
}

fn inlined(m: &Module) -> Module {
    let mut g = m.clone();
    inline_module(&mut g, &InlineOptions::default());
    verify(&g).expect("the inlined module verifies");
    g
}

/// Run `f(args)` on the original (eval) and on the inlined module (eval and
/// machine code): all three agree; return the result.
fn same(m: &Module, f: FuncId, args: &[Word], depth: u32) -> Result<Vec<Word>, spy_jit::ir::RunError> {
    let reference = Both::new(m.clone(), depth).eval(f, args, &mut spy_jit::ir::eval::NoHelpers);
    let mut b = Both::new(inlined(m), depth);
    let got = b.both(f, args);
    assert_eq!(got, reference, "inlined vs original for {args:?}");
    got
}

/// `leaf(a, b) = a // b` (error 42 at zero), `mid(a, b) = leaf(a, b) + 1`
/// (multiple returns: `if a < 0: return 0`), `main` calls `mid` in a loop.
fn three_levels() -> (Module, FuncId) {
    let mut m = ModuleBuilder::new();
    let leaf = m.declare("leaf", &[Ty::I64, Ty::I64], &[Ty::I64]);
    let mid = m.declare("mid", &[Ty::I64, Ty::I64], &[Ty::I64]);
    let main = m.declare("main", &[Ty::I64, Ty::I64], &[Ty::I64]);
    let mut f = m.function(leaf);
    let (a, b) = (f.param(0), f.param(1));
    let q = f.floor_div(a, b, code(42));
    f.ret(&[q]);
    m.define(f);
    let mut f = m.function(mid);
    let (a, b) = (f.param(0), f.param(1));
    let zero = f.const_(Ty::I64, 0);
    let neg = f.cmp(CmpOp::Lt, a, zero);
    f.if_(neg, |f| f.ret(&[zero]), |_| {});
    let r = f.call_with(leaf, &[Ty::I64], &[a, b], SiteId(20))[0];
    let one = f.const_(Ty::I64, 1);
    let r1 = f.binary(BinOp::Add, r, one);
    f.ret(&[r1]);
    m.define(f);
    // main(n, d): s = 0; i = n; while i > -3: s += mid(i, d - i); i -= 1
    let mut f = m.function(main);
    let (n, d) = (f.param(0), f.param(1));
    let s = f.local(Ty::I64);
    let i = f.local(Ty::I64);
    let zero = f.const_(Ty::I64, 0);
    f.assign(s, spy_jit::ir::Op::Copy(zero));
    f.assign(i, spy_jit::ir::Op::Copy(n));
    f.loop_(|f| {
        let stop = f.const_(Ty::I64, -3i64 as u64);
        let more = f.cmp(CmpOp::Gt, i, stop);
        f.if_(more, |_| {}, |f| f.break_());
        let di = f.binary(BinOp::Sub, d, i);
        let r = f.call_with(mid, &[Ty::I64], &[i, di], SiteId(10))[0];
        let s1 = f.binary(BinOp::Add, s, r);
        f.assign(s, spy_jit::ir::Op::Copy(s1));
        let one = f.const_(Ty::I64, 1);
        let i1 = f.binary(BinOp::Sub, i, one);
        f.assign(i, spy_jit::ir::Op::Copy(i1));
    });
    f.ret(&[s]);
    m.define(f);
    (m.finish().unwrap(), main)
}

#[test]
fn small_callees_are_inlined_with_the_same_results_and_errors() {
    let (m, main) = three_levels();
    let g = inlined(&m);
    assert_eq!(
        calls(&g.function(main).body),
        0,
        "mid and leaf are inlined into main"
    );
    for args in [[5u64, 20], [3, 100], [0, 7]] {
        same(&m, main, &args, 10).unwrap();
    }
    // d - i == 0 at i == 4: the error inside the twice-inlined leaf unwinds
    // through both call sites, innermost first, as the calls would.
    let e = same(&m, main, &[6, 4], 10).unwrap_err();
    assert_eq!(e.code.get(), 42);
    assert_eq!(e.operands, [4, 0]);
    assert_eq!(e.traceback, vec![SiteId(20), SiteId(10)]);
}

#[test]
fn an_inlined_call_counts_against_the_depth_limit() {
    let (m, main) = three_levels();
    // main, mid and leaf are three activations: limit 3 passes, 2 fails in
    // `leaf`'s entry (unwinding through site 20, then 10), 1 in `mid`'s.
    same(&m, main, &[2, 20], 3).unwrap();
    let e = same(&m, main, &[2, 20], 2).unwrap_err();
    assert_eq!(
        (e.code.get(), e.traceback),
        (RECURSION, vec![SiteId(20), SiteId(10)])
    );
    let e = same(&m, main, &[2, 20], 1).unwrap_err();
    assert_eq!((e.code.get(), e.traceback), (RECURSION, vec![SiteId(10)]));
    // `mid` returns early for a negative argument: no `leaf` activation.
    same(&m, main, &[-1i64 as u64, 20], 2).unwrap();
}

fn fib_module() -> (Module, FuncId) {
    let mut m = ModuleBuilder::new();
    let fib = m.declare("fib", &[Ty::I64], &[Ty::I64]);
    let mut f = m.function(fib);
    let n = f.param(0);
    let two = f.const_(Ty::I64, 2);
    let lt = f.cmp(CmpOp::Lt, n, two);
    f.if_(lt, |f| f.ret(&[n]), |_| {});
    let one = f.const_(Ty::I64, 1);
    let a = f.binary(BinOp::Sub, n, one);
    let b = f.binary(BinOp::Sub, n, two);
    let ra = f.call_with(fib, &[Ty::I64], &[a], SiteId(1))[0];
    let rb = f.call_with(fib, &[Ty::I64], &[b], SiteId(2))[0];
    let s = f.binary(BinOp::Add, ra, rb);
    f.ret(&[s]);
    m.define(f);
    (m.finish().unwrap(), fib)
}

#[test]
fn a_recursive_function_is_unrolled_with_the_exact_depth_limit() {
    let (m, fib) = fib_module();
    for levels in 1..=4 {
        let opts = InlineOptions {
            recursion_levels: levels,
            max_recursion_stmts: 10_000,
            ..InlineOptions::default()
        };
        let mut g = m.clone();
        inline_module(&mut g, &opts);
        verify(&g).expect("the inlined module verifies");
        // `levels` levels of the recursion are inlined: 2^(levels + 1)
        // calls are left, each of the original body, each with its base
        // case (`n < 2: return n`) peeled in front of it.
        assert_eq!(calls(&g.function(fib).body), 1 << (levels + 1), "{levels} levels");
        assert_eq!(
            enters(&g.function(fib).body),
            (1 << (levels + 1)) - 2 + (1 << (levels + 1))
        );
        let same = |args: &[Word], depth: u32| {
            let reference = Both::new(m.clone(), depth).eval(fib, args, &mut spy_jit::ir::eval::NoHelpers);
            let got = Both::new(g.clone(), depth).both(fib, args);
            assert_eq!(got, reference, "{levels} levels, {args:?}, limit {depth}");
            got
        };
        for n in [0, 1, 2, 3, 4, 5, 10, 20] {
            same(&[n], 25).unwrap();
        }
        for limit in [1, 2, 3, 4, 5, 19, 20] {
            let e = same(&[21], limit).unwrap_err();
            assert_eq!(e.code.get(), RECURSION);
            assert_eq!(e.traceback, vec![SiteId(1); limit as usize], "limit {limit}");
        }
    }
    // The default unrolls three levels.
    assert_eq!(calls(&inlined(&m).function(fib).body), 16);
}

/// The budget of recursive statements stops the unrolling early.
#[test]
fn the_recursion_budget_bounds_the_copies() {
    let (m, fib) = fib_module();
    let mut g = m.clone();
    inline_module(
        &mut g,
        &InlineOptions {
            recursion_levels: 10,
            max_recursion_stmts: 40,
            ..InlineOptions::default()
        },
    );
    verify(&g).unwrap();
    let n = calls(&g.function(fib).body);
    assert!((4..=64).contains(&n), "{n} calls");
    let mut b = Both::new(g, 30);
    let reference = Both::new(m.clone(), 30).eval(fib, &[15], &mut spy_jit::ir::eval::NoHelpers);
    assert_eq!(b.both(fib, &[15]), reference);
}

#[test]
fn large_callees_stay_calls() {
    let (m, main) = three_levels();
    let mut g = m.clone();
    let n = inline_module(
        &mut g,
        &InlineOptions {
            max_callee_stmts: 2,
            ..InlineOptions::default()
        },
    );
    // Only leaf (one division and a return) is small enough, into mid.
    assert_eq!(n, 1);
    verify(&g).unwrap();
    assert_eq!(calls(&g.function(main).body), 1);
}

/// `f(p, len, n)`: `while i < n: p[i] = i; <two nested inlined calls>
/// s += 2i; i += 1`, the calls hand-bracketed (no `Call` in the loop, so
/// the loop's depth checks are versioned: `x64/codegen/depth.rs`). With the
/// limit at or above the nesting the copy without checks runs; below it the
/// recursion error comes in the first iteration after its store, at the
/// same enter, with the same traceback, as under `ir::eval`.
#[test]
fn depth_checks_in_loops_are_hoisted_exactly() {
    let mut m = ModuleBuilder::new();
    let id = m.declare("f", &[Ty::Ptr, Ty::I64, Ty::I64], &[Ty::I64]);
    let mut f = m.function(id);
    let (p, len, n) = (f.param(0), f.param(1), f.param(2));
    let i = f.local(Ty::I64);
    let s = f.local(Ty::I64);
    let zero = f.const_(Ty::I64, 0);
    f.assign(i, spy_jit::ir::Op::Copy(zero));
    f.assign(s, spy_jit::ir::Op::Copy(zero));
    f.loop_(|f| {
        let more = f.cmp(CmpOp::Lt, i, n);
        f.if_(more, |_| {}, |f| f.break_());
        f.store(p, len, i, i, code(50), code(51));
        f.push(Stmt::InlineEnter(SiteId(1)));
        f.push(Stmt::InlineEnter(SiteId(2)));
        let t = f.binary(BinOp::Add, i, i);
        f.push(Stmt::InlineExit);
        let s1 = f.binary(BinOp::Add, s, t);
        f.assign(s, spy_jit::ir::Op::Copy(s1));
        f.push(Stmt::InlineExit);
        let one = f.const_(Ty::I64, 1);
        let i1 = f.binary(BinOp::Add, i, one);
        f.assign(i, spy_jit::ir::Op::Copy(i1));
    });
    f.ret(&[s]);
    m.define(f);
    let m = m.finish().unwrap();
    // `f` is one activation, the loop nests two more.
    for (limit, want) in [
        (5, Ok(vec![90])),
        (3, Ok(vec![90])),
        (2, Err(vec![SiteId(2), SiteId(1)])),
        (1, Err(vec![SiteId(1)])),
    ] {
        let mut b = Both::new(m.clone(), limit);
        let (mut bj, mut be) = (vec![7i64; 10], vec![7i64; 10]);
        let args = |v: &mut Vec<i64>| [v.as_mut_ptr() as u64, 10, 10];
        let j = b.jit(id, &args(&mut bj));
        let e = b.eval(id, &args(&mut be), &mut spy_jit::ir::eval::NoHelpers);
        assert_eq!(j, e, "limit {limit}");
        assert_eq!(bj, be, "the stores before the error, limit {limit}");
        match want {
            Ok(r) => assert_eq!(j.unwrap(), r),
            Err(tb) => {
                let err = j.unwrap_err();
                assert_eq!((err.code.get(), err.traceback), (RECURSION, tb), "limit {limit}");
                assert_eq!(&bj[..2], &[0, 7], "the first iteration's store, limit {limit}");
            }
        }
    }
}

/// `f(n)`: `while i < n: <inlined call at site 1>; <inlined call at site
/// 2>; i += 1` — the first call's exit is followed at once by the second's
/// enter, at a depth the first enter checked, so the second enter emits no
/// check. The loop is versioned (`x64/codegen/depth.rs`): the copy without
/// checks is emitted first, and must not leave that pairing behind for the
/// checked copy (whose first enter would then skip its check). Below the
/// nesting the first enter of the first iteration raises, as in `ir::eval`.
#[test]
fn paired_inlined_calls_in_a_versioned_loop_keep_their_check() {
    let mut m = ModuleBuilder::new();
    let id = m.declare("f", &[Ty::I64], &[Ty::I64]);
    let mut f = m.function(id);
    let n = f.param(0);
    let i = f.local(Ty::I64);
    let s = f.local(Ty::I64);
    let zero = f.const_(Ty::I64, 0);
    f.assign(i, spy_jit::ir::Op::Copy(zero));
    f.assign(s, spy_jit::ir::Op::Copy(zero));
    f.loop_(|f| {
        let more = f.cmp(CmpOp::Lt, i, n);
        f.if_(more, |_| {}, |f| f.break_());
        f.push(Stmt::InlineEnter(SiteId(1)));
        let t = f.binary(BinOp::Add, s, i);
        f.assign(s, spy_jit::ir::Op::Copy(t));
        f.push(Stmt::InlineExit);
        f.push(Stmt::InlineEnter(SiteId(2)));
        let u = f.binary(BinOp::Add, s, i);
        f.assign(s, spy_jit::ir::Op::Copy(u));
        f.push(Stmt::InlineExit);
        let one = f.const_(Ty::I64, 1);
        let i1 = f.binary(BinOp::Add, i, one);
        f.assign(i, spy_jit::ir::Op::Copy(i1));
    });
    f.ret(&[s]);
    m.define(f);
    let m = m.finish().unwrap();
    for (limit, want) in [(3, Ok(vec![90])), (2, Ok(vec![90])), (1, Err(vec![SiteId(1)]))] {
        let mut b = Both::new(m.clone(), limit);
        let j = b.jit(id, &[10]);
        let e = b.eval(id, &[10], &mut spy_jit::ir::eval::NoHelpers);
        assert_eq!(j, e, "limit {limit}");
        match want {
            Ok(r) => assert_eq!(j.unwrap(), r),
            Err(tb) => {
                let err = j.unwrap_err();
                assert_eq!((err.code.get(), err.traceback), (RECURSION, tb), "limit {limit}");
            }
        }
        // Run twice in one context: the counter is the same afterwards.
        assert_eq!(b.jit(id, &[10]), e, "second run, limit {limit}");
    }
}

/// `main(a)` calls a two-statement `inc` ten times in a row: every call is
/// inlined under the default limits, and once the caller has grown past
/// `max_caller_stmts` (its own statements plus the copies spliced so far)
/// the remaining calls stay calls; the result is the same either way.
#[test]
fn a_grown_caller_stops_inlining() {
    let mut m = ModuleBuilder::new();
    let inc = m.declare("inc", &[Ty::I64], &[Ty::I64]);
    let main = m.declare("main", &[Ty::I64], &[Ty::I64]);
    let mut f = m.function(inc);
    let a = f.param(0);
    let one = f.const_(Ty::I64, 1);
    let s = f.binary(BinOp::Add, a, one);
    f.ret(&[s]);
    m.define(f);
    let mut f = m.function(main);
    let mut v = f.param(0);
    for i in 0..10 {
        v = f.call_with(inc, &[Ty::I64], &[v], SiteId(i + 1))[0];
    }
    f.ret(&[v]);
    m.define(f);
    let m = m.finish().unwrap();
    let own = spy_jit::opt::inline::size(&m.function(main).body);
    let callee = spy_jit::opt::inline::size(&m.function(inc).body);

    let mut all = m.clone();
    assert_eq!(inline_module(&mut all, &InlineOptions::default()), 10);
    assert_eq!(calls(&all.function(main).body), 0);

    let mut bounded = m.clone();
    let opts = InlineOptions {
        max_caller_stmts: own + 3 * callee,
        ..InlineOptions::default()
    };
    // The caller is checked before each copy: copies are spliced while it
    // has at most `own + 3 * callee` statements, that is four of them.
    assert_eq!(inline_module(&mut bounded, &opts), 4);
    verify(&bounded).unwrap();
    assert_eq!(calls(&bounded.function(main).body), 6);
    for g in [all, bounded] {
        let got = Both::new(g, 20).both(main, &[5]);
        assert_eq!(got, Ok(vec![15]));
    }
}
