//! Loop-invariant code motion (`spy_jit::opt::licm`) on hand-built IR: the
//! invariant conversion and broadcast leave the loop, a fallible operation
//! and everything that depends on the loop stay, and the module gives what
//! the original gives (results, the error and its operands) under
//! `ir::eval` and in machine code.

mod common;
use common::*;
use spy_jit::ir::{
    verify, BinOp, Block, CmpOp, FuncId, Lane, Module, ModuleBuilder, Op, Stmt, Ty, VOp, VecTy,
};
use spy_jit::opt::hoist_invariants;
use spy_jit::opt::licm::promote_single_assignments;

fn top_level_loop(b: &Block) -> &Block {
    b.0.iter()
        .find_map(|s| match s {
            Stmt::Loop { body } => Some(body),
            _ => None,
        })
        .expect("a loop")
}

/// `f(n, k, d)`: `acc = 0.0; i = 0; loop { if i >= n: break; c = k (a
/// local assigned once); x = f64(c); v = splat(x) * splat(2.0); acc +=
/// lane0(v) + f64(i); q = i // d; i += 1 + q - q }; return acc`.
fn module() -> (Module, FuncId) {
    let mut m = ModuleBuilder::new();
    let id = m.declare("f", &[Ty::I64, Ty::I32, Ty::I64], &[Ty::F64]);
    let mut f = m.function(id);
    let (n, k, d) = (f.param(0), f.param(1), f.param(2));
    let acc = f.local(Ty::F64);
    let i = f.local(Ty::I64);
    let zero = f.const_(Ty::F64, 0f64.to_bits());
    f.assign(acc, Op::Copy(zero));
    let izero = f.const_(Ty::I64, 0);
    f.assign(i, Op::Copy(izero));
    f.loop_(|f| {
        let done = f.cmp(CmpOp::Ge, i, n);
        f.if_(done, |f| f.break_(), |_| {});
        let c = f.local(Ty::I32);
        f.assign(c, Op::Copy(k));
        let x = f.convert(Ty::F64, c);
        let v4 = Ty::Vec(VecTy {
            lane: Lane::F64,
            n: 4,
        });
        let vx = f.op(v4, Op::Vector(VOp::Splat(x)));
        let two = f.const_(Ty::F64, 2f64.to_bits());
        let v2 = f.op(v4, Op::Vector(VOp::Splat(two)));
        let prod = f.op(v4, Op::Vector(VOp::Binary(BinOp::Mul, vx, v2)));
        let l0 = f.op(Ty::F64, Op::Vector(VOp::Lane(prod, 0)));
        let fi = f.convert(Ty::F64, i);
        let t = f.binary(BinOp::Add, l0, fi);
        let a1 = f.binary(BinOp::Add, acc, t);
        f.assign(acc, Op::Copy(a1));
        let q = f.floor_div(i, d, code(7));
        let one = f.const_(Ty::I64, 1);
        let i1 = f.binary(BinOp::Add, i, one);
        let i2 = f.binary(BinOp::Add, i1, q);
        let i3 = f.binary(BinOp::Sub, i2, q);
        f.assign(i, Op::Copy(i3));
    });
    f.ret(&[acc]);
    m.define(f);
    (m.finish().unwrap(), id)
}

#[test]
fn invariant_pure_operations_leave_the_loop_and_the_results_stay() {
    let (m, f) = module();
    let mut g = m.clone();
    let moved = hoist_invariants(&mut g);
    verify(&g).expect("verifies");
    let body = top_level_loop(&g.function(f).body);
    let has = |p: &dyn Fn(&Op) -> bool| {
        body.0
            .iter()
            .any(|s| matches!(s, Stmt::Assign { op, .. } if p(op)))
    };
    // c (promoted), f64(c), both splats, the product, its lane and the
    // constants 2.0 and 1 are invariant.
    assert!(moved >= 8, "{moved} hoisted");
    assert!(!has(&|op| matches!(op, Op::Vector(_))), "{body:#?}");
    assert!(has(&|op| matches!(op, Op::FloorDiv { .. })), "the division stays");
    assert!(has(&|op| matches!(op, Op::Convert(_))), "f64(i) stays");
    let reference = |args: &[u64]| Both::new(m.clone(), 4).eval(f, args, &mut spy_jit::ir::eval::NoHelpers);
    let mut b = Both::new(g.clone(), 4);
    for args in [[0u64, 3, 1], [5, 3, 1], [100, -2i32 as i64 as u64, 3]] {
        assert_eq!(b.both(f, &args), reference(&args), "{args:?}");
    }
    // The division by zero fails on the first iteration, as before.
    let e = b.both(f, &[5, 3, 0]).unwrap_err();
    assert_eq!(e, reference(&[5, 3, 0]).unwrap_err());
    assert_eq!((e.code.get(), e.operands), (7, [0, 0]));
    // A loop that does not run computes the hoisted values and nothing else.
    assert_eq!(b.both(f, &[0, 3, 0]).unwrap(), vec![0f64.to_bits()]);
}

/// Step 1 on each way a local assigned once can be read: it becomes a
/// temporary exactly when every read follows the assignment in the same
/// block (nested blocks of later statements included).
#[test]
fn a_local_assigned_once_is_promoted_only_when_every_read_follows_it_in_its_block() {
    let mut m = ModuleBuilder::new();
    let id = m.declare("g", &[Ty::I64], &[Ty::I64]);
    let mut f = m.function(id);
    let k = f.param(0);
    let one = f.const_(Ty::I64, 1);
    let (a, b, c, e, acc) = (
        f.local(Ty::I64),
        f.local(Ty::I64),
        f.local(Ty::I64),
        f.local(Ty::I64),
        f.local(Ty::I64),
    );
    // a: read by the next statement: promoted.
    f.assign(a, Op::Copy(k));
    let a1 = f.binary(BinOp::Add, a, one);
    f.assign(acc, Op::Copy(a1));
    // c: read only inside a later loop: promoted.
    f.assign(c, Op::Copy(k));
    // e: assigned twice: kept.
    f.assign(e, Op::Copy(one));
    f.assign(e, Op::Copy(k));
    let hundred = f.const_(Ty::I64, 100);
    f.loop_(|f| {
        // b: assigned in a branch, read after it: kept.
        let small = f.cmp(CmpOp::Lt, acc, hundred);
        f.if_(small, |f| f.assign(b, Op::Copy(acc)), |f| f.break_());
        let s0 = f.binary(BinOp::Add, b, e);
        let s1 = f.binary(BinOp::Add, s0, c);
        let s2 = f.binary(BinOp::Add, s1, one);
        f.assign(acc, Op::Copy(s2));
    });
    f.ret(&[acc]);
    m.define(f);
    let mut module = m.finish().expect("verifies");
    let before = module.clone();
    let g = &mut module.functions[id.0 as usize];
    promote_single_assignments(g);
    let temp = |v: spy_jit::ir::VReg| g.vregs[v.index()].kind == spy_jit::ir::VRegKind::Temp;
    assert_eq!([a, b, c, e, acc].map(temp), [true, false, true, false, false]);
    verify(&module).expect("still verifies");
    // The same results.
    let mut both = Both::new(module, 4);
    let mut reference = Both::new(before, 4);
    for k in [0u64, 2, 9] {
        assert_eq!(both.both(id, &[k]), reference.both(id, &[k]), "k = {k}");
    }
}
