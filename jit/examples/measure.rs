//! Quick measurements: compile time per function and ns per executed IR
//! statement, machine code vs the reference evaluator.
//! Run: `cargo run --release -p spy-jit --example measure`.

use spy_jit::ir::eval::{self, EvalOptions, NoHelpers};
use spy_jit::ir::{BinOp, CmpOp, ErrCode, ModuleBuilder, Op, Ty};
use spy_jit::runtime::{Context, ContextOptions};
use spy_jit::{compile, CompileOptions};
use std::time::Instant;

fn main() {
    let code = |c| ErrCode::new(c).unwrap();
    let opts = CompileOptions {
        recursion_error: code(1),
        internal_error: code(2),
        simd: spy_jit::SimdLevel::host(),
        mutations: spy_jit::Mutations::NONE,
    };
    // A module of many small functions with a loop each.
    let nfuncs = 500;
    let mut m = ModuleBuilder::new();
    let mut ids = vec![];
    for k in 0..nfuncs {
        let f = m.declare(&format!("f{k}"), &[Ty::I64], &[Ty::I64]);
        let mut b = m.function(f);
        let n = b.param(0);
        let (i, s) = (b.local(Ty::I64), b.local(Ty::I64));
        b.assign(i, Op::Const(0));
        b.assign(s, Op::Const(k as u64));
        let k3 = b.const_(Ty::I64, 3);
        let one = b.const_(Ty::I64, 1);
        // 6 statements per iteration: cmp, if, mul, xor, add, add.
        b.loop_(|b| {
            let c = b.cmp(CmpOp::Ge, i, n);
            b.if_(c, |b| b.break_(), |_| {});
            let t = b.binary(BinOp::Mul, i, k3);
            let u = b.binary(BinOp::Xor, t, i);
            b.assign(s, Op::Binary(BinOp::Add, s, u));
            b.assign(i, Op::Binary(BinOp::Add, i, one));
        });
        b.ret(&[s]);
        m.define(b);
        ids.push(f);
    }
    let module = m.finish().unwrap();
    let t = Instant::now();
    let reps = 20;
    let mut compiled = None;
    for _ in 0..reps {
        compiled = Some(compile(&module, &opts).unwrap());
    }
    let compile_ns = t.elapsed().as_nanos() as f64 / reps as f64;
    let compiled = compiled.unwrap();
    let st = compiled.stats();
    let stmts_per_fn = 10.0; // 4 before the loop + loop + 4 in it + return (static count)
    println!(
        "compile: {nfuncs} functions in {:.2} ms = {:.1} us/function, {:.0} ns per static IR statement; \
         {} instructions, {} bytes ({:.1} bytes/function)",
        compile_ns / 1e6,
        compile_ns / nfuncs as f64 / 1e3,
        compile_ns / (nfuncs as f64 * stmts_per_fn),
        st.instructions,
        st.code_bytes,
        st.code_bytes as f64 / nfuncs as f64
    );
    let mut ctx = Context::new(ContextOptions::default());
    let n = 10_000_000u64;
    let t = Instant::now();
    let r = compiled.call(&mut ctx, ids[7], &[n]).unwrap();
    let jit_ns = t.elapsed().as_nanos() as f64 / (n as f64 * 6.0);
    let eopts = EvalOptions {
        depth_limit: 100,
        recursion_error: code(1),
        internal_error: code(2),
    };
    let ne = 1_000_000u64;
    let t = Instant::now();
    let re = eval::call(&module, ids[7], &[ne], &eopts, &mut NoHelpers).unwrap();
    let eval_ns = t.elapsed().as_nanos() as f64 / (ne as f64 * 6.0);
    assert_eq!(compiled.call(&mut ctx, ids[7], &[ne]).unwrap(), re);
    println!("run: machine code {jit_ns:.2} ns per executed IR statement, ir::eval {eval_ns:.1} ns ({:.0}x) [{r:?}]", eval_ns / jit_ns);
    let t = Instant::now();
    let calls = 100_000;
    for _ in 0..calls {
        compiled.call(&mut ctx, ids[0], &[0]).unwrap();
    }
    println!(
        "call overhead (Rust -> JIT and back): {:.0} ns",
        t.elapsed().as_nanos() as f64 / calls as f64
    );
}
