//! Hand-built IR programs: register pressure in loops, recursion against the
//! depth limit, many mixed parameters, multiple results, error propagation
//! with tracebacks, helpers (errors and panics), memory checks.

mod common;
use common::*;
use spy_jit::ir::eval::HelperEval;
use spy_jit::ir::{
    BinOp, CmpOp, FuncId, Helper, HelperId, ModuleBuilder, Op, SiteId, Ty, VReg, Word, TRACEBACK_CAP,
};
use spy_jit::runtime::{guard, CtxPtr, HelperCtx};

fn fib_module() -> (spy_jit::ir::Module, FuncId) {
    let mut m = ModuleBuilder::new();
    let fib = define_fib(&mut m);
    (m.finish().unwrap(), fib)
}

/// `fib(n: i64) -> i64`, recursive, in `m`.
fn define_fib(m: &mut ModuleBuilder) -> FuncId {
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
    fib
}

#[test]
fn fib_and_the_exact_depth_limit() {
    let (m, fib) = fib_module();
    // fib(n) nests n activations (fib(n) -> fib(n-1) -> ... -> fib(1)).
    let mut b = Both::new(m.clone(), 25);
    assert_eq!(b.both(fib, &[20]).unwrap(), vec![6765]);
    assert_eq!(b.both(fib, &[25]).unwrap(), vec![75025]);
    let e = b.both(fib, &[26]).unwrap_err();
    assert_eq!(e.code.get(), RECURSION);
    // The error unwinds through 25 frames, each via site 1 (the first call).
    assert_eq!(e.traceback, vec![SiteId(1); 25]);
    // Deep recursion: the dedicated stack is sized for the limit.
    let mut deep = Both::new(m, 100_000);
    let countdown_ok = deep.jit(fib, &[30]).unwrap();
    assert_eq!(countdown_ok, vec![832040]);
}

#[test]
fn deep_recursion_hits_the_limit_without_overflowing_the_stack() {
    let mut m = ModuleBuilder::new();
    let down = m.declare("down", &[Ty::I64], &[Ty::I64]);
    let mut f = m.function(down);
    let n = f.param(0);
    let zero = f.const_(Ty::I64, 0);
    let done = f.cmp(CmpOp::Eq, n, zero);
    f.if_(done, |f| f.ret(&[zero]), |_| {});
    let one = f.const_(Ty::I64, 1);
    let n1 = f.binary(BinOp::Sub, n, one);
    let r = f.call_with(down, &[Ty::I64], &[n1], SiteId(7))[0];
    let r1 = f.binary(BinOp::Add, r, one);
    f.ret(&[r1]);
    m.define(f);
    let mut b = Both::new(m.finish().unwrap(), 200_000);
    assert_eq!(b.jit(down, &[199_999]).unwrap(), vec![199_999]);
    let e = b.jit(down, &[200_000]).unwrap_err();
    assert_eq!(e.code.get(), RECURSION);
    assert_eq!(e.traceback.len(), TRACEBACK_CAP);
    assert_eq!(e.dropped_sites as usize, 200_000 - TRACEBACK_CAP);
    // The evaluator recurses on the host stack: give it a big one.
    let module = b.module.clone();
    let ev = std::thread::Builder::new()
        .stack_size(2 << 30)
        .spawn(move || {
            spy_jit::ir::eval::call(
                &module,
                down,
                &[200_000],
                &eval_opts(200_000),
                &mut spy_jit::ir::eval::NoHelpers,
            )
        })
        .unwrap()
        .join()
        .unwrap();
    assert_eq!(ev.unwrap_err(), e);
}

/// A loop carrying 12 integer and 10 float values (more than the registers)
/// plus a call in the loop body, so values must live in callee-saved
/// registers or spill slots across it.
#[test]
fn loop_with_many_loop_carried_mixed_values() {
    for with_call in [false, true] {
        let mut m = ModuleBuilder::new();
        let mix = m.declare("mix", &[Ty::I64, Ty::F64], &[Ty::I64, Ty::F64]);
        let mut g = m.function(mix);
        let (a, x) = (g.param(0), g.param(1));
        let three = g.const_(Ty::I64, 3);
        let a3 = g.binary(BinOp::Mul, a, three);
        let half = g.const_(Ty::F64, 0.5f64.to_bits());
        let xh = g.binary(BinOp::Mul, x, half);
        g.ret(&[a3, xh]);
        m.define(g);
        let main = m.declare("main", &[Ty::I64], &[Ty::I64, Ty::F64]);
        let mut f = m.function(main);
        let n = f.param(0);
        let ints: Vec<VReg> = (0..12).map(|_| f.local(Ty::I64)).collect();
        let floats: Vec<VReg> = (0..10).map(|_| f.local(Ty::F64)).collect();
        for (k, &v) in ints.iter().enumerate() {
            f.assign(v, Op::Const(k as u64 + 1));
        }
        for (k, &v) in floats.iter().enumerate() {
            f.assign(v, Op::Const((k as f64 * 0.25 + 1.0).to_bits()));
        }
        let i = f.local(Ty::I64);
        f.assign(i, Op::Const(0));
        f.loop_(|f| {
            let done = f.cmp(CmpOp::Ge, i, n);
            f.if_(done, |f| f.break_(), |_| {});
            for k in 0..12 {
                let t = f.binary(BinOp::Mul, ints[k], ints[(k + 1) % 12]);
                let u = f.binary(BinOp::Add, t, i);
                f.assign(ints[k], Op::Binary(BinOp::Xor, u, ints[(k + 5) % 12]));
            }
            for k in 0..10 {
                let t = f.binary(BinOp::Mul, floats[k], floats[(k + 3) % 10]);
                let c = f.const_(Ty::F64, 1.0001f64.to_bits());
                let u = f.fdiv(t, c, code(5));
                f.assign(floats[k], Op::Binary(BinOp::Sub, u, floats[(k + 1) % 10]));
            }
            if with_call {
                let r = f.call_with(mix, &[Ty::I64, Ty::F64], &[ints[0], floats[0]], SiteId(3));
                f.assign(ints[1], Op::Binary(BinOp::Add, ints[1], r[0]));
                f.assign(floats[1], Op::Binary(BinOp::Add, floats[1], r[1]));
            }
            let one = f.const_(Ty::I64, 1);
            f.assign(i, Op::Binary(BinOp::Add, i, one));
        });
        let mut acc = ints[0];
        for &v in &ints[1..] {
            acc = f.binary(BinOp::Add, acc, v);
        }
        let mut facc = floats[0];
        for &v in &floats[1..] {
            facc = f.binary(BinOp::Add, facc, v);
        }
        f.ret(&[acc, facc]);
        m.define(f);
        let mut b = Both::new(m.finish().unwrap(), 10);
        assert!(
            b.compiled.stats().spilled_values > 0,
            "the test must exercise spills"
        );
        for n in [0, 1, 2, 7, 100] {
            b.both(main, &[n]).unwrap();
        }
    }
}

/// 12 parameters of mixed classes (stack arguments for both), 3+ results
/// (through the context's return area), called from another function.
#[test]
fn calls_with_many_mixed_params_and_results() {
    let tys = [
        Ty::I64,
        Ty::F64,
        Ty::I32,
        Ty::F32,
        Ty::U8,
        Ty::F64,
        Ty::I64,
        Ty::F64,
        Ty::U64,
        Ty::F64,
        Ty::I8,
        Ty::F64,
        Ty::I64,
        Ty::F64,
        Ty::Bool,
        Ty::F32,
    ];
    for n in [8, 10, 12, 16] {
        let ptys = &tys[..n];
        let mut m = ModuleBuilder::new();
        let callee = m.declare("callee", ptys, &[Ty::I64, Ty::F64, Ty::I64, Ty::F64, Ty::I32]);
        let mut f = m.function(callee);
        // Weighted sums so a swapped argument changes the result.
        let mut isum = f.const_(Ty::I64, 0);
        let mut fsum = f.const_(Ty::F64, 0f64.to_bits());
        for (k, &t) in ptys.iter().enumerate() {
            let p = f.param(k);
            if t.is_float() {
                let p64 = if t == Ty::F32 { f.convert(Ty::F64, p) } else { p };
                let w = f.const_(Ty::F64, ((k + 1) as f64).to_bits());
                let pw = f.binary(BinOp::Mul, p64, w);
                fsum = f.binary(BinOp::Add, fsum, pw);
            } else {
                let p64 = f.convert(Ty::I64, p);
                let w = f.const_(Ty::I64, (k as u64 + 1) * 1000);
                let pw = f.binary(BinOp::Mul, p64, w);
                isum = f.binary(BinOp::Add, isum, pw);
            }
        }
        let first = f.param(0);
        let last = f.param(n - 1);
        let lastf = if ptys[n - 1].is_float() {
            f.convert(Ty::F64, last)
        } else {
            f.const_(Ty::F64, 0)
        };
        let k32 = f.const_(Ty::I32, n as u64);
        f.ret(&[isum, fsum, first, lastf, k32]);
        m.define(f);
        let caller = m.declare("caller", ptys, &[Ty::I64, Ty::F64, Ty::I64, Ty::F64, Ty::I32]);
        let mut g = m.function(caller);
        let args: Vec<VReg> = (0..n).map(|k| g.param(k)).collect();
        let r = g.call_with(
            callee,
            &[Ty::I64, Ty::F64, Ty::I64, Ty::F64, Ty::I32],
            &args,
            SiteId(1),
        );
        g.ret(&r);
        m.define(g);
        let mut b = Both::new(m.finish().unwrap(), 10);
        let args: Vec<Word> = ptys
            .iter()
            .enumerate()
            .map(|(k, t)| match t {
                Ty::F64 => (k as f64 * 1.5 - 3.0).to_bits(),
                Ty::F32 => ((k as f32 * 0.75 - 1.0).to_bits()) as u64,
                Ty::Bool => 1,
                _ => spy_jit::ir::sem::canon(*t, (k as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15)),
            })
            .collect();
        let direct = b.both(callee, &args).unwrap();
        assert_eq!(b.both(caller, &args).unwrap(), direct);
        assert_eq!(direct[2], args[0]);
        assert_eq!(direct[4], n as u64);
    }
}

/// main -> mid (site 10) -> leaf (site 20) -> floordiv by zero: the error
/// carries its code and operands and the sites innermost first.
#[test]
fn errors_propagate_through_three_levels_with_traceback() {
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
    let r = f.call_with(leaf, &[Ty::I64], &[a, b], SiteId(20))[0];
    let one = f.const_(Ty::I64, 1);
    let r1 = f.binary(BinOp::Add, r, one);
    f.ret(&[r1]);
    m.define(f);
    let mut f = m.function(main);
    let (a, b) = (f.param(0), f.param(1));
    let r = f.call_with(mid, &[Ty::I64], &[a, b], SiteId(10))[0];
    f.ret(&[r]);
    m.define(f);
    let mut b = Both::new(m.finish().unwrap(), 10);
    assert_eq!(b.both(main, &[7, 2]).unwrap(), vec![4]);
    let e = b.both(main, &[7, 0]).unwrap_err();
    assert_eq!(e.code.get(), 42);
    assert_eq!(e.operands, [7, 0]);
    assert_eq!(e.traceback, vec![SiteId(20), SiteId(10)]);
    // The context is clean for the next call.
    assert_eq!(b.both(main, &[-9i64 as u64, 2]).unwrap(), vec![-4i64 as u64]);
}

extern "C" fn h_add3(a: u64, x: f64, b: u64) -> u64 {
    a.wrapping_add(b).wrapping_add(x as u64)
}

extern "C" fn h_sqrt(x: f64) -> f64 {
    x.sqrt()
}

extern "C" fn h_checked(ctx: CtxPtr<'_>, a: u64) -> u64 {
    guard(ctx, |ctx| {
        if a > 100 {
            ctx.raise(code(77), [a, 100]);
            0
        } else {
            a * 2
        }
    })
}

extern "C" fn h_panics(ctx: CtxPtr<'_>, a: u64) -> u64 {
    guard(ctx, |_| {
        if a == 13 {
            panic!("unlucky");
        }
        a
    })
}

/// The Rust mirror of the helpers above, for `ir::eval`.
struct Mirror;

impl HelperEval for Mirror {
    fn call(&mut self, id: HelperId, _: &Helper, args: &[Word], ctx: &mut HelperCtx) -> Option<Word> {
        Some(match id.0 {
            0 => h_add3(args[0], f64::from_bits(args[1]), args[2]),
            1 => h_sqrt(f64::from_bits(args[0])).to_bits(),
            2 => h_checked(ctx.ptr(), args[0]),
            _ => h_panics(ctx.ptr(), args[0]),
        })
    }
}

#[test]
fn helpers_results_errors_and_panics() {
    let mut m = ModuleBuilder::new();
    let helper = |name: &str, params: &[Ty], result, addr: usize, takes_ctx| Helper {
        name: name.into(),
        params: params.to_vec(),
        result: Some(result),
        addr,
        takes_ctx,
    };
    let add3 = m.helper(helper(
        "add3",
        &[Ty::U64, Ty::F64, Ty::U64],
        Ty::U64,
        h_add3 as *const () as usize,
        false,
    ));
    let sqrt = m.helper(helper(
        "sqrt",
        &[Ty::F64],
        Ty::F64,
        h_sqrt as *const () as usize,
        false,
    ));
    let checked = m.helper(helper(
        "checked",
        &[Ty::U64],
        Ty::U64,
        h_checked as *const () as usize,
        true,
    ));
    let panics = m.helper(helper(
        "panics",
        &[Ty::U64],
        Ty::U64,
        h_panics as *const () as usize,
        true,
    ));
    let inner = m.declare("inner", &[Ty::U64, Ty::F64], &[Ty::U64, Ty::F64]);
    let outer = m.declare("outer", &[Ty::U64, Ty::F64], &[Ty::U64, Ty::F64]);
    let mut f = m.function(inner);
    let (a, x) = (f.param(0), f.param(1));
    let s = f.call_helper(add3, Some(Ty::U64), &[a, x, a], SiteId(1)).unwrap();
    let c = f.call_helper(checked, Some(Ty::U64), &[s], SiteId(2)).unwrap();
    let p = f.call_helper(panics, Some(Ty::U64), &[a], SiteId(3)).unwrap();
    let cp = f.binary(BinOp::Add, c, p);
    let r = f.call_helper(sqrt, Some(Ty::F64), &[x], SiteId(4)).unwrap();
    f.ret(&[cp, r]);
    m.define(f);
    let mut f = m.function(outer);
    let (a, x) = (f.param(0), f.param(1));
    let r = f.call_with(inner, &[Ty::U64, Ty::F64], &[a, x], SiteId(9));
    f.ret(&r);
    m.define(f);
    let mut b = Both::new(m.finish().unwrap(), 10);
    let ok = b.both_with(outer, &[5, 16f64.to_bits()], &mut Mirror).unwrap();
    assert_eq!(ok, vec![(5 + 5 + 16) * 2 + 5, 4f64.to_bits()]);
    let e = b
        .both_with(outer, &[50, 16f64.to_bits()], &mut Mirror)
        .unwrap_err();
    assert_eq!(
        (e.code.get(), e.operands, e.traceback.clone()),
        (77, [116, 100], vec![SiteId(2), SiteId(9)])
    );
    let e = b
        .both_with(outer, &[13, 1f64.to_bits()], &mut Mirror)
        .unwrap_err();
    assert_eq!(
        (e.code.get(), e.traceback.clone()),
        (INTERNAL, vec![SiteId(3), SiteId(9)])
    );
}

/// Loads and stores with null and bounds checks, over every element type.
#[test]
fn memory_loads_stores_and_checks() {
    for ty in [
        Ty::I8,
        Ty::U8,
        Ty::I32,
        Ty::U32,
        Ty::I64,
        Ty::U64,
        Ty::F32,
        Ty::F64,
        Ty::Bool,
    ] {
        let mut m = ModuleBuilder::new();
        // swap(buf, len, i, j): buf[i], buf[j] = buf[j], buf[i]; returns old buf[i].
        let swap = m.declare("swap", &[Ty::Ptr, Ty::I64, Ty::I64, Ty::I64], &[ty]);
        let mut f = m.function(swap);
        let (p, n, i, j) = (f.param(0), f.param(1), f.param(2), f.param(3));
        let a = f.load(ty, p, n, i, code(30), code(31));
        let bv = f.load(ty, p, n, j, code(30), code(31));
        f.store(p, n, i, bv, code(32), code(33));
        f.store(p, n, j, a, code(32), code(33));
        f.ret(&[a]);
        m.define(f);
        let mut b = Both::new(m.finish().unwrap(), 10);
        let mut jb: Vec<u64> = (0..8u64).map(|k| k.wrapping_mul(0x8081_8283_8485_8687)).collect();
        let mut eb = jb.clone();
        if ty == Ty::Bool {
            jb = vec![0x0100_0100_0100_0100; 8];
            eb = jb.clone();
        }
        let len = (64 / ty.size()) as u64;
        for (i, j) in [(0, 1), (2, len - 1), (5, 5)] {
            let r1 = b.jit(swap, &[jb.as_mut_ptr() as u64, len, i, j]);
            let r2 = b.eval(
                swap,
                &[eb.as_mut_ptr() as u64, len, i, j],
                &mut spy_jit::ir::eval::NoHelpers,
            );
            assert_eq!(r1, r2, "{ty}");
            assert_eq!(jb, eb, "{ty}");
        }
        let e = b.both(swap, &[0, len, 1, 2]).unwrap_err();
        assert_eq!((e.code.get(), e.operands), (30, [0, 1]));
        let e = b.both(swap, &[jb.as_mut_ptr() as u64, len, 1, len]).unwrap_err();
        assert_eq!((e.code.get(), e.operands), (31, [len, len]));
        let e = b
            .both(swap, &[jb.as_mut_ptr() as u64, len, -1i64 as u64, 0])
            .unwrap_err();
        assert_eq!((e.code.get(), e.operands), (31, [u64::MAX, len]));
    }
}

#[test]
fn invalid_ir_is_rejected() {
    let mut m = ModuleBuilder::new();
    let f = m.declare("f", &[Ty::I64], &[Ty::I64]);
    let mut b = m.function(f);
    let x = b.param(0);
    let y = b.local(Ty::I64);
    b.ret(&[y]);
    let _ = x;
    m.define(b);
    let e = m.finish().unwrap_err();
    assert!(e.message.contains("read before it is assigned"), "{e}");

    let mut m = ModuleBuilder::new();
    let f = m.declare("f", &[Ty::I64], &[Ty::I64]);
    let mut b = m.function(f);
    let x = b.param(0);
    let c = b.const_(Ty::F64, 0);
    let s = b.op(Ty::I64, Op::Binary(BinOp::Add, x, c));
    b.ret(&[s]);
    m.define(b);
    assert!(m.finish().unwrap_err().message.contains("differ in type"));

    let mut m = ModuleBuilder::new();
    let f = m.declare("f", &[], &[]);
    let b = m.function(f);
    m.define(b);
    assert!(m.finish().unwrap_err().message.contains("without a Return"));
}

/// Writes its argument's decimal digits and a newline to the writer the
/// call lent; raises 55 when the call lent none.
extern "C" fn h_prints(ctx: CtxPtr<'_>, a: u64) {
    guard(ctx, |ctx| {
        let written = match ctx.output() {
            Some(out) => writeln!(out, "{a}").is_ok(),
            None => false,
        };
        if !written {
            ctx.raise(code(55), [a, 0]);
        }
    })
}

#[test]
fn call_writing_lends_the_writer_to_helpers_for_the_call_only() {
    let mut m = ModuleBuilder::new();
    let prints = m.helper(Helper {
        name: "prints".into(),
        params: vec![Ty::U64],
        result: None,
        addr: h_prints as *const () as usize,
        takes_ctx: true,
    });
    let main = m.declare("main", &[Ty::U64], &[]);
    let mut f = m.function(main);
    let a = f.param(0);
    f.call_helper(prints, None, &[a], SiteId(1));
    let one = f.const_(Ty::U64, 1);
    let b = f.binary(BinOp::Add, a, one);
    f.call_helper(prints, None, &[b], SiteId(2));
    f.ret(&[]);
    m.define(f);
    let compiled = spy_jit::compile(&m.finish().unwrap(), &opts()).unwrap();
    let mut ctx = spy_jit::runtime::Context::new(Default::default());
    let mut out = Vec::new();
    compiled.call_writing(&mut ctx, main, &[41], &mut out).unwrap();
    assert_eq!(out, b"41\n42\n");
    // The same context afterwards, without a writer: the helper sees none.
    let e = compiled.call(&mut ctx, main, &[7]).unwrap_err();
    assert_eq!((e.code.get(), e.operands), (55, [7, 0]));
    // A writer that fails: the helper sees the error.
    let mut full = [0u8; 3];
    let e = compiled
        .call_writing(&mut ctx, main, &[1000], &mut &mut full[..])
        .unwrap_err();
    assert_eq!(e.code.get(), 55);
}

/// Five integer arguments after the context (every SysV integer argument
/// register): a positional checksum; raises 56 when the last is 0.
extern "C" fn h_five(ctx: CtxPtr<'_>, a: u64, b: u64, c: u64, d: u64, e: u64) -> u64 {
    guard(ctx, |ctx| {
        if e == 0 {
            ctx.raise(code(56), [a, d]);
            return 0;
        }
        a + 10 * b + 100 * c + 1000 * d + 10000 * e
    })
}

/// An integer then two floats after the context (the runtime helpers'
/// `math_call` shape): `k == 0` → a - b, else a * b + k.
extern "C" fn h_int_floats(ctx: CtxPtr<'_>, k: u64, a: f64, b: f64) -> f64 {
    guard(ctx, |_| if k == 0 { a - b } else { a * b + k as f64 })
}

#[test]
fn context_helpers_take_five_integer_or_mixed_arguments_in_order() {
    let mut m = ModuleBuilder::new();
    let five = m.helper(Helper {
        name: "five".into(),
        params: vec![Ty::U64, Ty::I64, Ty::Handle, Ty::Ptr, Ty::U64],
        result: Some(Ty::U64),
        addr: h_five as *const () as usize,
        takes_ctx: true,
    });
    let mixed = m.helper(Helper {
        name: "int_floats".into(),
        params: vec![Ty::U64, Ty::F64, Ty::F64],
        result: Some(Ty::F64),
        addr: h_int_floats as *const () as usize,
        takes_ctx: true,
    });
    let main = m.declare("main", &[Ty::U64], &[Ty::U64]);
    let mut f = m.function(main);
    let e = f.param(0);
    let args: Vec<_> = [1u64, 2, 3, 4].iter().map(|&v| f.const_(Ty::U64, v)).collect();
    let (a, b, c, d) = (
        args[0],
        f.convert(Ty::I64, args[1]),
        f.convert(Ty::Handle, args[2]),
        f.convert(Ty::Ptr, args[3]),
    );
    let r = f
        .call_helper(five, Some(Ty::U64), &[a, b, c, d, e], SiteId(1))
        .unwrap();
    // a float result from the mixed helper, truncated back into the sum
    let k = f.const_(Ty::U64, 2);
    let x = f.const_(Ty::F64, 1.5f64.to_bits());
    let y = f.const_(Ty::F64, 4.0f64.to_bits());
    let z = f
        .call_helper(mixed, Some(Ty::F64), &[k, x, y], SiteId(2))
        .unwrap();
    let z = f.convert(Ty::U64, z);
    let sum = f.binary(BinOp::Add, r, z);
    f.ret(&[sum]);
    m.define(f);
    let compiled = spy_jit::compile(&m.finish().unwrap(), &opts()).unwrap();
    let mut ctx = spy_jit::runtime::Context::new(Default::default());
    // 1 + 20 + 300 + 4000 + 50000, plus 1.5 * 4.0 + 2
    assert_eq!(compiled.call(&mut ctx, main, &[5]).unwrap(), vec![54321 + 8]);
    let err = compiled.call(&mut ctx, main, &[0]).unwrap_err();
    assert_eq!((err.code.get(), err.operands), (56, [1, 4]));
    assert_eq!(err.traceback, vec![SiteId(1)]);
}

/// Narrow integer results come back from a JIT call with unspecified upper
/// bits (`x64::loose`): sums that wrap, passed on through further sums and
/// a call, then compared, converted and returned, agree with the evaluator.
#[test]
fn narrow_results_that_wrap_cross_calls_and_are_read_canonically() {
    for ty in [Ty::I8, Ty::U8, Ty::I32, Ty::U32] {
        let mut m = ModuleBuilder::new();
        let add = m.declare("add", &[ty, ty], &[ty]);
        let top = m.declare("top", &[ty, ty], &[ty, Ty::I64, Ty::Bool]);
        let mut f = m.function(add);
        let (a, b) = (f.param(0), f.param(1));
        let s = f.binary(BinOp::Add, a, b);
        f.ret(&[s]);
        m.define(f);
        let mut f = m.function(top);
        let (a, b) = (f.param(0), f.param(1));
        let s = f.call_with(add, &[ty], &[a, b], SiteId(1))[0];
        let t = f.call_with(add, &[ty], &[s, s], SiteId(2))[0];
        let u = f.binary(BinOp::Mul, t, s);
        let wide = f.convert(Ty::I64, s);
        let zero = f.const_(ty, 0);
        let neg = f.cmp(CmpOp::Lt, t, zero);
        f.ret(&[u, wide, neg]);
        m.define(f);
        let mut both = Both::new(m.finish().unwrap(), 10);
        let edges: Vec<Word> = match ty {
            Ty::I8 => vec![0, 1, 0x7f, (-128i64) as u64, u64::MAX, 100],
            Ty::U8 => vec![0, 1, 0x7f, 0x80, 0xff, 200],
            Ty::I32 => vec![0, 1, 0x7fff_ffff, i64::from(i32::MIN) as u64, u64::MAX, 1 << 30],
            _ => vec![0, 1, 0x7fff_ffff, 0x8000_0000, 0xffff_ffff, 3 << 30],
        };
        for &x in &edges {
            for &y in &edges {
                both.both(top, &[x, y]).unwrap();
            }
        }
    }
}

/// `compile_reachable` compiles what the root reaches through calls (a
/// recursive callee, and a function reached only through it), with the
/// code `compile` gives each; a function nothing reaches gets no code, and
/// calling it is a panic, not a jump into nothing. `compile_reachable_owned`
/// (the module moved in, its bodies optimized in place) gives the same.
#[test]
fn only_the_functions_a_root_reaches_are_compiled() {
    let mut m = ModuleBuilder::new();
    let fib = define_fib(&mut m);
    let dead = m.declare("dead", &[Ty::I64], &[Ty::I64]);
    let main = m.declare("main", &[Ty::I64], &[Ty::I64]);
    let mut f = m.function(dead);
    let x = f.param(0);
    let r = f.call_with(fib, &[Ty::I64], &[x], SiteId(3))[0];
    f.ret(&[r]);
    m.define(f);
    let mut f = m.function(main);
    let x = f.param(0);
    let r = f.call_with(fib, &[Ty::I64], &[x], SiteId(4))[0];
    f.ret(&[r]);
    m.define(f);
    let module = m.finish().unwrap();
    assert_eq!(module.reachable_from(main), vec![true, false, true]);
    assert_eq!(module.reachable_from(dead), vec![true, true, false]);
    assert_eq!(module.reachable_from(fib), vec![true, false, false]);

    let all = spy_jit::compile(&module, &opts()).unwrap();
    let some = spy_jit::compile_reachable(&module, &opts(), main).unwrap();
    assert_eq!(some.stats().functions, 2);
    assert_eq!(some.code_bytes(dead), 0);
    assert!(all.code_bytes(dead) > 0);
    let owned = spy_jit::compile_reachable_owned(module.clone(), &opts(), main).unwrap();
    assert_eq!(owned.stats().functions, 2);
    assert_eq!(owned.code_bytes(dead), 0);
    for f in [fib, main] {
        assert_eq!(some.code_bytes(f), all.code_bytes(f));
        assert_eq!(owned.code_bytes(f), all.code_bytes(f));
        #[cfg(feature = "disasm")]
        assert_eq!(owned.disassemble_function(f), some.disassemble_function(f));
    }
    let mut ctx = spy_jit::runtime::Context::new(Default::default());
    assert_eq!(some.call(&mut ctx, main, &[20]).unwrap(), vec![6765]);
    assert_eq!(some.call(&mut ctx, fib, &[10]).unwrap(), vec![55]);
    assert_eq!(owned.call(&mut ctx, main, &[20]).unwrap(), vec![6765]);
    let e = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        let mut ctx = spy_jit::runtime::Context::new(Default::default());
        let _ = some.call(&mut ctx, dead, &[3]);
    }))
    .unwrap_err();
    let msg = e.downcast_ref::<String>().cloned().unwrap_or_default();
    assert!(msg.contains("`dead` was not compiled"), "{msg}");
}
