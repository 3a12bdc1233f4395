//! Loop versioning of bounds checks (`spy_jit::opt::versioning`) on
//! hand-built IR: a counted loop over `ptr_simd_load`/`ptr_simd_store` and
//! a scalar load gets an entry test and an unchecked copy; in bounds it
//! gives the original's results, and when a check fails mid-way it fails
//! with the same error, operands and partial stores (under `ir::eval` of
//! the original, `ir::eval` of the versioned module and its machine code).
//! Loops the proof does not cover are left alone.

mod common;
use common::*;
use spy_jit::ir::eval::{self, NoHelpers};
use spy_jit::ir::{
    print, verify, BinOp, CmpOp, FuncId, Lane, Module, ModuleBuilder, Op, Stmt, Ty, VecTy, Word,
};
use spy_jit::opt::version_loops;

#[derive(Clone, Copy, PartialEq)]
enum Shape {
    /// `while i + 4 <= n` stepping by 4: versioned.
    Counted,
    /// `while i < n` stepping by 1 with scalar accesses: versioned.
    CountedLt,
    /// `while i + 2 < n` stepping by 1 with scalar accesses: versioned.
    CountedLt2,
    /// The index is a local that is not the induction variable.
    IndexNotIv,
    /// `n` is written in the loop.
    BoundWritten,
    /// The step is negative.
    NegativeStep,
}

const V4: Ty = Ty::Vec(VecTy {
    lane: Lane::F64,
    n: 4,
});

/// `f(p, plen, q, qlen, n: i32, start: i32) -> (iterations, sum)`: per
/// iteration `v = p[i .. i+4]; q[i .. i+4] = v; sum += p[i + 5]`.
fn module(shape: Shape) -> (Module, FuncId) {
    let mut m = ModuleBuilder::new();
    let id = m.declare(
        "f",
        &[Ty::Ptr, Ty::I64, Ty::Ptr, Ty::I64, Ty::I32, Ty::I32],
        &[Ty::I64, Ty::F64],
    );
    let mut f = m.function(id);
    let (p, plen, q, qlen, n0, start) = (
        f.param(0),
        f.param(1),
        f.param(2),
        f.param(3),
        f.param(4),
        f.param(5),
    );
    let i = f.local(Ty::I32);
    f.assign(i, Op::Copy(start));
    let n = f.local(Ty::I32);
    f.assign(n, Op::Copy(n0));
    let j = f.local(Ty::I32);
    let z = f.const_(Ty::I32, 0);
    f.assign(j, Op::Copy(z));
    let iters = f.local(Ty::I64);
    let zi = f.const_(Ty::I64, 0);
    f.assign(iters, Op::Copy(zi));
    let sum = f.local(Ty::F64);
    let zf = f.const_(Ty::F64, 0f64.to_bits());
    f.assign(sum, Op::Copy(zf));
    let lt = matches!(shape, Shape::CountedLt | Shape::CountedLt2);
    f.loop_(|f| {
        let ci = f.op(Ty::I32, Op::Copy(i));
        let cond = if shape == Shape::CountedLt2 {
            let two = f.const_(Ty::I32, 2);
            let i2 = f.binary(BinOp::Add, ci, two);
            f.cmp(CmpOp::Lt, i2, n)
        } else if lt {
            f.cmp(CmpOp::Lt, ci, n)
        } else {
            let w = f.const_(Ty::I32, 4);
            let iw = f.binary(BinOp::Add, ci, w);
            f.cmp(CmpOp::Le, iw, n)
        };
        f.if_(cond, |_| {}, |f| f.break_());
        let base = if shape == Shape::IndexNotIv { j } else { i };
        let cb = f.op(Ty::I32, Op::Copy(base));
        let ix = f.convert(Ty::I64, cb);
        if lt {
            let x = f.load(Ty::F64, p, plen, ix, code(11), code(12));
            f.store(q, qlen, ix, x, code(13), code(14));
        } else {
            let v = f.load(V4, p, plen, ix, code(11), code(12));
            f.store(q, qlen, ix, v, code(13), code(14));
        }
        let five = f.const_(Ty::I64, 5);
        let ix5 = f.binary(BinOp::Add, ix, five);
        let x = f.load(Ty::F64, p, plen, ix5, code(15), code(16));
        let s1 = f.binary(BinOp::Add, sum, x);
        f.assign(sum, Op::Copy(s1));
        let one = f.const_(Ty::I64, 1);
        let it1 = f.binary(BinOp::Add, iters, one);
        f.assign(iters, Op::Copy(it1));
        let step: i32 = match shape {
            Shape::NegativeStep => -4,
            Shape::CountedLt | Shape::CountedLt2 => 1,
            _ => 4,
        };
        let s = f.const_(Ty::I32, step as i64 as u64);
        let ci2 = f.op(Ty::I32, Op::Copy(i));
        let i2 = f.binary(BinOp::Add, ci2, s);
        f.assign(i, Op::Copy(i2));
        if shape == Shape::IndexNotIv {
            let j2 = f.binary(BinOp::Add, j, i2);
            f.assign(j, Op::Copy(j2));
        }
        if shape == Shape::BoundWritten {
            let zero = f.const_(Ty::I32, 0);
            let n2 = f.binary(BinOp::Add, n, zero);
            f.assign(n, Op::Copy(n2));
        }
    });
    f.ret(&[iters, sum]);
    m.define(f);
    (m.finish().unwrap(), id)
}

type Outcome = (Result<Vec<Word>, spy_jit::ir::RunError>, Vec<f64>);

/// Run `f` on fresh buffers: `p[k] = k`, `q` zeros; returns the result and `q`.
/// (p's length, q's length, n, start, whether q is null).
type Case = (usize, usize, i32, i32, bool);

fn run(m: &Module, f: FuncId, case: Case, machine: bool) -> Outcome {
    let (plen, qlen, n, start, null_q) = case;
    let p: Vec<f64> = (0..plen).map(|k| k as f64).collect();
    let mut q = vec![0f64; qlen.max(1)];
    let qaddr = if null_q { 0 } else { q.as_mut_ptr() as u64 };
    let args = [
        p.as_ptr() as u64,
        plen as u64,
        qaddr,
        qlen as u64,
        n as i64 as u64,
        start as i64 as u64,
    ];
    let r = if machine {
        Both::new(m.clone(), 8).jit(f, &args)
    } else {
        eval::call(m, f, &args, &eval_opts(8), &mut NoHelpers)
    };
    q.truncate(qlen);
    (r, q)
}

fn unchecked_accesses(m: &Module) -> usize {
    let mut n = 0;
    fn count(b: &spy_jit::ir::Block, n: &mut usize) {
        for s in &b.0 {
            match s {
                Stmt::Assign {
                    op: Op::Load { checked: false, .. },
                    ..
                }
                | Stmt::Store { checked: false, .. } => *n += 1,
                Stmt::If { then_, else_, .. } => {
                    count(then_, n);
                    count(else_, n);
                }
                Stmt::Loop { body } => count(body, n),
                _ => {}
            }
        }
    }
    for f in &m.functions {
        count(&f.body, &mut n);
    }
    n
}

#[test]
fn a_counted_loop_is_versioned_and_behaves_as_the_original() {
    for shape in [Shape::Counted, Shape::CountedLt, Shape::CountedLt2] {
        let (m, f) = module(shape);
        let mut g = m.clone();
        assert_eq!(version_loops(&mut g), 1);
        verify(&g).expect("verifies");
        assert_eq!(
            unchecked_accesses(&g),
            3,
            "{}",
            print::print_function(&g, &g.functions[0])
        );
        assert!(print::print_function(&g, &g.functions[0]).contains("unchecked: proved in bounds"));
        // (plen, qlen, n, start, null q): in bounds, not a multiple of the
        // width, empty, a start past n, a negative start, and failures
        // mid-way (q too short; p too short for the scalar load of the
        // last iteration; q null).
        let cases = [
            (22, 16, 16, 0, false),
            (22, 20, 18, 0, false),
            (8, 8, 0, 0, false),
            (30, 24, 16, 20, false),
            (30, 24, 16, -3, false),
            (22, 8, 16, 0, false),
            (20, 16, 16, 0, false),
            (17, 16, 16, 0, false),
            (22, 16, 16, 0, true),
            (22, 16, 16, 2, false),
        ];
        for case in cases {
            let want = run(&m, f, case, false);
            let evaluated = run(&g, f, case, false);
            let machine = run(&g, f, case, true);
            assert_eq!(evaluated, want, "eval of the versioned module, {case:?}");
            assert_eq!(machine, want, "machine code of the versioned module, {case:?}");
            if let Err(e) = &want.0 {
                assert_ne!(e.code.get(), INTERNAL, "{case:?}");
            }
        }
        // The failures are the checked loop's own: the store of q at index 8
        // (len 8), and the scalar load of p at 12 + 5 (len 17) in the last
        // iteration, after that iteration's store.
        if shape == Shape::Counted {
            let e = run(&g, f, (22, 8, 16, 0, false), true).0.unwrap_err();
            assert_eq!((e.code.get(), e.operands), (14, [8, 8]));
            let (r, q) = run(&g, f, (17, 16, 16, 0, false), true);
            let e = r.unwrap_err();
            assert_eq!((e.code.get(), e.operands), (16, [17, 17]));
            assert_eq!(q[15], 15.0, "the last iteration's store happened");
        }
    }
}

#[test]
fn a_wrong_proof_shows_as_the_internal_error_in_eval() {
    // Mark every access unchecked without a test: eval reports the
    // out-of-bounds access as the internal error instead of touching memory.
    let (mut m, f) = module(Shape::Counted);
    fn uncheck(b: &mut spy_jit::ir::Block) {
        for s in &mut b.0 {
            match s {
                Stmt::Assign {
                    op: Op::Load { checked, .. },
                    ..
                }
                | Stmt::Store { checked, .. } => *checked = false,
                Stmt::Loop { body } => uncheck(body),
                _ => {}
            }
        }
    }
    uncheck(&mut m.functions[0].body);
    let e = run(&m, f, (22, 8, 16, 0, false), false).0.unwrap_err();
    assert_eq!(e.code.get(), INTERNAL);
}

#[test]
fn loops_outside_the_proof_are_left_alone() {
    for shape in [Shape::IndexNotIv, Shape::BoundWritten, Shape::NegativeStep] {
        let (m, _) = module(shape);
        let mut g = m.clone();
        assert_eq!(version_loops(&mut g), 0);
        assert_eq!(g, m);
    }
}

/// `g(p, plen, n, start, stop) -> (i, acc)`: per iteration `x = p[i]`,
/// sums of `i - 1000000` (tracked in `i64`), `i + 2000000000` (beyond the
/// tracked offsets: stays `i32`) and `x`, a `break` when `i + 3 > stop`,
/// the step, and `2 * i` of the new `i`; returns the final `i`.
fn widened_module() -> (Module, FuncId) {
    let mut m = ModuleBuilder::new();
    let id = m.declare(
        "g",
        &[Ty::Ptr, Ty::I64, Ty::I32, Ty::I32, Ty::I32],
        &[Ty::I32, Ty::I64],
    );
    let mut f = m.function(id);
    let (p, plen, n, start, stop) = (f.param(0), f.param(1), f.param(2), f.param(3), f.param(4));
    let i = f.local(Ty::I32);
    f.assign(i, Op::Copy(start));
    let acc = f.local(Ty::I64);
    let z = f.const_(Ty::I64, 0);
    f.assign(acc, Op::Copy(z));
    let add_acc = |f: &mut spy_jit::ir::FunctionBuilder, v| {
        let three = f.const_(Ty::I64, 3);
        let a3 = f.binary(BinOp::Mul, acc, three);
        let s = f.binary(BinOp::Add, a3, v);
        f.assign(acc, Op::Copy(s));
    };
    f.loop_(|f| {
        let ci = f.op(Ty::I32, Op::Copy(i));
        let cond = f.cmp(CmpOp::Lt, ci, n);
        f.if_(cond, |_| {}, |f| f.break_());
        let ix = f.convert(Ty::I64, ci);
        let x = f.load(Ty::F64, p, plen, ix, code(11), code(12));
        let xi = f.convert(Ty::I64, x);
        add_acc(f, xi);
        let million = f.const_(Ty::I32, 1_000_000);
        let a = f.binary(BinOp::Sub, ci, million);
        let a64 = f.convert(Ty::I64, a);
        add_acc(f, a64);
        let big = f.const_(Ty::I32, 2_000_000_000);
        let b = f.binary(BinOp::Add, ci, big);
        let b64 = f.convert(Ty::I64, b);
        add_acc(f, b64);
        let three = f.const_(Ty::I32, 3);
        let e = f.binary(BinOp::Add, ci, three);
        let past = f.cmp(CmpOp::Gt, e, stop);
        f.if_(past, |f| f.break_(), |_| {});
        let one = f.const_(Ty::I32, 1);
        let c2 = f.op(Ty::I32, Op::Copy(i));
        let next = f.binary(BinOp::Add, c2, one);
        f.assign(i, Op::Copy(next));
        let c3 = f.op(Ty::I32, Op::Copy(i));
        let two = f.const_(Ty::I32, 2);
        let g = f.binary(BinOp::Mul, c3, two);
        let g64 = f.convert(Ty::I64, g);
        add_acc(f, g64);
    });
    f.ret(&[i, acc]);
    m.define(f);
    (m.finish().unwrap(), id)
}

#[test]
fn the_unchecked_copy_computes_i_plus_c_in_i64_exactly() {
    let (m, f) = widened_module();
    let mut g = m.clone();
    assert_eq!(version_loops(&mut g), 1);
    verify(&g).expect("verifies");
    let listing = print::print_function(&g, &g.functions[0]);
    // In the unchecked copy the load's index is the `i64` twin of `i`
    // (a copy of `i64(i)`), not a conversion of an `i32` copy of `i`.
    let mut defs = std::collections::HashMap::new();
    let mut unchecked_index = None;
    spy_jit::ir::visit::walk(&g.functions[0].body, &mut |s| {
        if let Stmt::Assign { dst, op } = s {
            defs.insert(*dst, op.clone());
            if let Op::Load {
                index,
                checked: false,
                ..
            } = op
            {
                unchecked_index = Some(*index);
            }
        }
    });
    let index = unchecked_index.expect("an unchecked load");
    let Some(Op::Copy(twin)) = defs.get(&index) else {
        panic!("index {index:?} is not a copy\n{listing}")
    };
    assert!(
        matches!(defs.get(twin), Some(Op::Convert(_))) && g.functions[0].ty(*twin) == Ty::I64,
        "{listing}"
    );
    let p: Vec<f64> = (0..64).map(|k| (k * 7) as f64).collect();
    // (n, start, stop): a full run, a `break`, no iteration, a negative
    // start (the checked loop), n past the buffer (the checked loop fails).
    for (n, start, stop) in [
        (50, 0, 1000),
        (50, 0, 20),
        (3, 5, 1000),
        (10, -3, 1000),
        (70, 0, 1000),
        (64, 60, 1000),
    ] {
        let args = [p.as_ptr() as u64, 64, n as u64, start as i64 as u64, stop as u64];
        let want = eval::call(&m, f, &args, &eval_opts(8), &mut NoHelpers);
        let evaluated = eval::call(&g, f, &args, &eval_opts(8), &mut NoHelpers);
        let machine = Both::new(g.clone(), 8).jit(f, &args);
        assert_eq!(evaluated, want, "eval, {n} {start} {stop}\n{listing}");
        assert_eq!(machine, want, "machine code, {n} {start} {stop}\n{listing}");
    }
}
