//! What each shape of fib costs in this crate's machine code, to decide what
//! a transformation of the recursion would buy (BENCH-LOG "fib: which shape
//! closes the gap"). Three hand-built i32 functions, each inlined into itself
//! `levels` deep by `inline_module` and compiled, run alternately:
//!
//! - `R`: the source's recursion, `n < 2 ? n : fib(n - 1) + fib(n - 2)`
//!   (what the lowering gives; `R3` is the engine's default);
//! - `L`: the accumulation loop, `acc = 0; while n >= 2 { acc += fib(n -
//!   1); n -= 2 }; acc + n`;
//! - `G`: gcc -O2's shape, the loop with the chain's leaves folded: `n < 2 ?
//!   n : { acc = 0; while n > 2 { acc += fib(n - 1); n -= 2 }; acc + 1 }`.
//!
//! `L` and `G` are NOT exact: their loop iterations do not count as
//! activations (no depth check, no traceback entries) and `G` runs no
//! activation for the leaves it folds. They bound what an exact
//! transformation could gain; they are not a compilation strategy.
//!
//! Run: `cargo run --release -p spy-jit --example fib_shapes -- R3 L2 G1 G3`
//! (`FIBN`, default 35; `ROUNDS`, default 31). Prints code size, best and
//! median wall time per shape.

use spy_jit::ir::{BinOp, CmpOp, ErrCode, FuncId, ModuleBuilder, Op, SiteId, Ty};
use spy_jit::opt::{fold_leaves, inline_module, FoldOptions, InlineOptions};
use spy_jit::runtime::{Context, ContextOptions};
use spy_jit::{compile_reachable, CompileOptions};
use std::time::Instant;

fn main() {
    let code = |c| ErrCode::new(c).unwrap();
    let opts = CompileOptions {
        recursion_error: code(1),
        internal_error: code(2),
        simd: spy_jit::SimdLevel::host(),
        mutations: spy_jit::Mutations::NONE,
    };
    let env = |k: &str, d: u64| std::env::var(k).map_or(d, |v| v.parse().expect("a number"));
    let (n, rounds) = (env("FIBN", 35), env("ROUNDS", 31) as usize);
    let mut m = ModuleBuilder::new();
    let (two, one) = (2, 1);

    let rec = m.declare("fib", &[Ty::I32], &[Ty::I32]);
    let mut f = m.function(rec);
    let p = f.param(0);
    let c2 = f.const_(Ty::I32, two);
    let lt = f.cmp(CmpOp::Lt, p, c2);
    f.if_(lt, |f| f.ret(&[p]), |_| {});
    recurse(&mut f, rec, p, c2);
    m.define(f);

    // `fold`: G (leaves of the `n -= 2` chain folded) rather than L.
    let mut looped = |name: &str, fold: bool| -> FuncId {
        let id = m.declare(name, &[Ty::I32], &[Ty::I32]);
        let mut f = m.function(id);
        let p = f.param(0);
        let c2 = f.const_(Ty::I32, two);
        let c1 = f.const_(Ty::I32, one);
        if fold {
            let lt = f.cmp(CmpOp::Lt, p, c2);
            f.if_(lt, |f| f.ret(&[p]), |_| {});
        }
        let (k, acc) = (f.local(Ty::I32), f.local(Ty::I32));
        f.assign(k, Op::Copy(p));
        f.assign(acc, Op::Const(0));
        f.loop_(|f| {
            let done = if fold {
                f.cmp(CmpOp::Le, k, c2)
            } else {
                f.cmp(CmpOp::Lt, k, c2)
            };
            f.if_(done, |f| f.break_(), |_| {});
            let a = f.binary(BinOp::Sub, k, c1);
            let r = f.call_with(id, &[Ty::I32], &[a], SiteId(1))[0];
            f.assign(acc, Op::Binary(BinOp::Add, acc, r));
            f.assign(k, Op::Binary(BinOp::Sub, k, c2));
        });
        let s = f.binary(BinOp::Add, acc, if fold { c1 } else { k });
        f.ret(&[s]);
        m.define(f);
        id
    };
    let (acc_loop, gcc_loop) = (looped("fib_loop", false), looped("fib_gcc", true));
    // `F`/`E`: R with fib(2) folded to 1 behind the enter of its first
    // child (exact: the enter raises where fib(1)'s entry would); `F`
    // tests `n == 2` before the base case, `E` after it.
    let mut folded = |name: &str, first: bool| -> FuncId {
        let id = m.declare(name, &[Ty::I32], &[Ty::I32]);
        let mut f = m.function(id);
        let p = f.param(0);
        let c2 = f.const_(Ty::I32, two);
        let fold = |f: &mut spy_jit::ir::FunctionBuilder| {
            let eq = f.cmp(CmpOp::Eq, p, c2);
            f.if_(
                eq,
                |f| {
                    f.push(spy_jit::ir::Stmt::InlineEnter(SiteId(1)));
                    f.push(spy_jit::ir::Stmt::InlineExit);
                    let one = f.const_(Ty::I32, 1);
                    f.ret(&[one]);
                },
                |_| {},
            );
        };
        if first {
            fold(&mut f);
        }
        let lt = f.cmp(CmpOp::Lt, p, c2);
        f.if_(lt, |f| f.ret(&[p]), |_| {});
        if !first {
            fold(&mut f);
        }
        recurse(&mut f, id, p, c2);
        m.define(f);
        id
    };
    let (fold_first, fold_after) = (folded("fib_f", true), folded("fib_e", false));
    fn chain(f: &mut spy_jit::ir::FunctionBuilder, p: spy_jit::ir::VReg, c: u64, k: u64, val: u64) {
        let fold = |f: &mut spy_jit::ir::FunctionBuilder| {
            for _ in 1..c {
                f.push(spy_jit::ir::Stmt::InlineEnter(SiteId(1)));
            }
            for _ in 1..c {
                f.push(spy_jit::ir::Stmt::InlineExit);
            }
            let v = f.const_(Ty::I32, val);
            f.ret(&[v]);
        };
        if c == k {
            return fold(f);
        }
        let fibs = |c: u64| (0..c).fold((0u64, 1u64), |(a, b), _| (b, a + b)).0;
        let cc = f.const_(Ty::I32, c);
        let eq = f.cmp(CmpOp::Eq, p, cc);
        f.if_(eq, fold, |f| chain(f, p, c + 1, k, fibs(c + 1)));
    }
    // `U<k>`: `n < k + 1 ? (n < 2 ? n : fib(n) folded behind n - 1 enters) : body`.
    let mut ranged = |name: &str, k: u64| -> FuncId {
        let id = m.declare(name, &[Ty::I32], &[Ty::I32]);
        let mut f = m.function(id);
        let p = f.param(0);
        let c2 = f.const_(Ty::I32, two);
        let ck = f.const_(Ty::I32, k + 1);
        let small = f.cmp(CmpOp::Lt, p, ck);
        f.if_(
            small,
            |f| {
                let lt = f.cmp(CmpOp::Lt, p, c2);
                f.if_(lt, |f| f.ret(&[p]), |f| chain(f, p, 2, k, 1));
            },
            |_| {},
        );
        recurse(&mut f, id, p, c2);
        m.define(f);
        id
    };
    let ranged: Vec<FuncId> = (0..6).map(|k| ranged(&format!("fib_u{k}"), k + 2)).collect();
    // `Y`: the fold of 2 and 3 first, behind one unsigned range test,
    // then the base case and the body.
    let yshape = {
        let id = m.declare("fib_y", &[Ty::I32], &[Ty::I32]);
        let mut f = m.function(id);
        let p = f.param(0);
        let c2 = f.const_(Ty::I32, two);
        let d = f.binary(BinOp::Sub, p, c2);
        let du = f.convert(Ty::U32, d);
        let c1u = f.const_(Ty::U32, 1);
        let small = f.cmp(CmpOp::Le, du, c1u);
        f.if_(small, |f| chain(f, p, 2, 3, 1), |_| {});
        let lt = f.cmp(CmpOp::Lt, p, c2);
        f.if_(lt, |f| f.ret(&[p]), |_| {});
        recurse(&mut f, id, p, c2);
        m.define(f);
        id
    };
    let base = m.finish().unwrap();

    let shapes: Vec<String> = std::env::args().skip(1).collect();
    let mut runs = vec![];
    for shape in &shapes {
        let (kind, levels) = shape.split_at(1);
        // `P`/`Q`: R through `opt::fold` (2 and 3 levels), then inlined with
        // the engine's statement budget; `Z`: P without that budget.
        let fold_levels = match kind {
            "P" | "Z" => 2,
            "Q" => 3,
            _ => 0,
        };
        let func = match kind {
            "R" | "P" | "Q" | "Z" => rec,
            "L" => acc_loop,
            "G" => gcc_loop,
            "F" => fold_first,
            "E" => fold_after,
            "Y" => yshape,
            "U" | "V" | "W" | "X" => ranged[(kind.as_bytes()[0] - b'U') as usize],
            _ => panic!("a shape is R, L or G and a number of levels: {shape}"),
        };
        let levels: u32 = levels.parse().expect("levels");
        let mut g = base.clone();
        if fold_levels > 0 {
            let fo = FoldOptions {
                max_levels: fold_levels,
                ..FoldOptions::new(code(1), code(2))
            };
            fold_leaves(&mut g, &fo);
        }
        if levels > 0 {
            let o = InlineOptions {
                recursion_levels: levels,
                max_recursion_stmts: if fold_levels > 0 && kind != "Z" {
                    InlineOptions::default().max_recursion_stmts
                } else {
                    usize::MAX
                },
                ..Default::default()
            };
            inline_module(&mut g, &o);
        }
        let c = compile_reachable(&g, &opts, func).unwrap();
        println!("{shape}: {} bytes of machine code", c.stats().code_bytes);
        runs.push((shape, func, c, vec![]));
    }
    let mut ctx = Context::new(ContextOptions::default());
    let mut expect = None;
    for _ in 0..rounds {
        for (shape, func, c, times) in &mut runs {
            let t = Instant::now();
            let r = c.call(&mut ctx, *func, &[n]).unwrap();
            times.push(t.elapsed().as_secs_f64());
            assert_eq!(*expect.get_or_insert(r[0]), r[0], "{shape}");
        }
    }
    for (shape, _, _, times) in &mut runs {
        times.sort_by(f64::total_cmp);
        println!(
            "fib({n}) {shape}: best {:.1} ms, median {:.1} ms ({rounds} rounds)",
            times[0] * 1e3,
            times[rounds / 2] * 1e3
        );
    }
}

/// `return fib(p - 1) + fib(p - 2)` (call sites 1 and 2), `c2` the
/// constant 2: the recursive step every shape ends with.
fn recurse(f: &mut spy_jit::ir::FunctionBuilder, id: FuncId, p: spy_jit::ir::VReg, c2: spy_jit::ir::VReg) {
    let c1 = f.const_(Ty::I32, 1);
    let a = f.binary(BinOp::Sub, p, c1);
    let ra = f.call_with(id, &[Ty::I32], &[a], SiteId(1))[0];
    let b = f.binary(BinOp::Sub, p, c2);
    let rb = f.call_with(id, &[Ty::I32], &[b], SiteId(2))[0];
    let s = f.binary(BinOp::Add, ra, rb);
    f.ret(&[s]);
}
