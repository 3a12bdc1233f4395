mod common;
use common::*;
use spy_jit::ir::{BinOp, CmpOp, ModuleBuilder, SiteId, Ty};

#[test]
fn fib() {
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
    let mut b = Both::new(m.finish().unwrap(), 100);
    assert_eq!(b.both(fib, &[20]).unwrap(), vec![6765]);
}
