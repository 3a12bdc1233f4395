//! Memoized bounds checks (`spy_jit::opt::memo`) on hand-built IR: repeated
//! accesses to the same (pointer, length, index) registers lose their
//! checks, a write of the index keeps the next access checked, and the
//! memoized module gives the original's results, errors and stores (under
//! `ir::eval` of the original, `ir::eval` of the memoized module — which
//! still checks — and its machine code).

mod common;
use common::*;
use spy_jit::ir::eval::{self, NoHelpers};
use spy_jit::ir::visit::walk;
use spy_jit::ir::{verify, BinOp, CmpOp, FuncId, Module, ModuleBuilder, Op, Stmt, Ty};
use spy_jit::opt::memoize_checks;

/// `f(p, len, i, c) -> i64`: `x = p[i]; p[i] = x + 1; if c: y = p[i] else y = 0;
/// i = i + 1; z = p[i]; loop { w = p[i - 1] ...}` — written out below.
fn module() -> (Module, FuncId) {
    let mut m = ModuleBuilder::new();
    let id = m.declare("f", &[Ty::Ptr, Ty::I64, Ty::I64, Ty::Bool], &[Ty::I64]);
    let mut f = m.function(id);
    let (p, len, i0, c) = (f.param(0), f.param(1), f.param(2), f.param(3));
    let i = f.local(Ty::I64);
    f.assign(i, Op::Copy(i0));
    let x = f.load(Ty::I64, p, len, i, code(60), code(61)); // checked
    let one = f.const_(Ty::I64, 1);
    let x1 = f.binary(BinOp::Add, x, one);
    f.store(p, len, i, x1, code(62), code(63)); // memoized
    let y = f.local(Ty::I64);
    f.if_(
        c,
        |f| {
            let t = f.load(Ty::I64, p, len, i, code(64), code(65)); // memoized (in the arm)
            f.assign(y, Op::Copy(t));
        },
        |f| {
            let z = f.const_(Ty::I64, 0);
            f.assign(y, Op::Copy(z));
        },
    );
    let i1 = f.binary(BinOp::Add, i, one);
    f.assign(i, Op::Copy(i1));
    let z = f.load(Ty::I64, p, len, i, code(66), code(67)); // checked: i was written
    let s = f.local(Ty::I64);
    f.assign(s, Op::Copy(z));
    let k = f.local(Ty::I64);
    let zero = f.const_(Ty::I64, 0);
    f.assign(k, Op::Copy(zero));
    f.loop_(|f| {
        let three = f.const_(Ty::I64, 3);
        let more = f.cmp(CmpOp::Lt, k, three);
        f.if_(more, |_| {}, |f| f.break_());
        let w = f.load(Ty::I64, p, len, i, code(68), code(69)); // memoized: i not written in the loop
        let s1 = f.binary(BinOp::Add, s, w);
        f.assign(s, Op::Copy(s1));
        let k1 = f.binary(BinOp::Add, k, one);
        f.assign(k, Op::Copy(k1));
    });
    let r = f.binary(BinOp::Add, s, y);
    let r1 = f.binary(BinOp::Add, r, x);
    f.ret(&[r1]);
    m.define(f);
    (m.finish().unwrap(), id)
}

fn unchecked(m: &Module) -> usize {
    let mut n = 0;
    walk(&m.functions[0].body, &mut |s| match s {
        Stmt::Assign {
            op: Op::Load { checked: false, .. },
            ..
        }
        | Stmt::Store { checked: false, .. } => n += 1,
        _ => {}
    });
    n
}

#[test]
fn repeated_checks_are_memoized_exactly() {
    let (m, f) = module();
    let mut g = m.clone();
    assert_eq!(
        memoize_checks(&mut g),
        3,
        "the store, the load in the arm, the load in the loop"
    );
    verify(&g).expect("verifies");
    assert_eq!(unchecked(&g), 3);
    // In bounds, at the end (i + 1 == len fails the second checked load
    // after the first store), out of bounds at once, null.
    for (i, c, null) in [
        (0u64, true, false),
        (2, false, false),
        (4, true, false),
        (5, true, false),
        (1, true, true),
    ] {
        let mut buf_o = vec![10i64, 20, 30, 40, 50];
        let mut buf_e = buf_o.clone();
        let mut buf_j = buf_o.clone();
        let args = |b: &mut Vec<i64>| [if null { 0 } else { b.as_mut_ptr() as u64 }, 5, i, c as u64];
        let want = eval::call(&m, f, &args(&mut buf_o), &eval_opts(10), &mut NoHelpers);
        let e = eval::call(&g, f, &args(&mut buf_e), &eval_opts(10), &mut NoHelpers);
        let mut b = Both::new(g.clone(), 10);
        let j = b.jit(f, &args(&mut buf_j));
        assert_eq!(e, want, "eval of the memoized module, i={i} c={c} null={null}");
        assert_eq!(j, want, "machine code, i={i} c={c} null={null}");
        assert_eq!((&buf_e, &buf_j), (&buf_o, &buf_o), "stores, i={i}");
        if i == 4 {
            let err = want.unwrap_err();
            assert_eq!(
                (err.code.get(), err.operands),
                (67, [5, 5]),
                "the load after `i += 1`"
            );
            assert_eq!(buf_o[4], 51, "the store before it");
        }
    }
}
