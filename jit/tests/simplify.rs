//! Local simplification (`x64::simplify`) on hand-built IR: sums and
//! differences with constants of values that are themselves such sums read
//! the first value (`n - 1 - 1` is `n - 2`), wrapping exactly as the chain
//! does, and the machine code and the simplified IR agree with `ir::eval`
//! of the original.

mod common;
use common::*;
use spy_jit::ir::eval::{self, NoHelpers};
use spy_jit::ir::{BinOp, Block, ModuleBuilder, Op, Stmt, Ty, Word};
use spy_jit::x64::simplify::simplify;

/// The operands of every `+`/`-` in `b`.
fn sums(b: &Block) -> Vec<(spy_jit::ir::VReg, spy_jit::ir::VReg)> {
    let mut out = vec![];
    spy_jit::ir::visit::walk(b, &mut |s| {
        if let Stmt::Assign {
            op: Op::Binary(BinOp::Add | BinOp::Sub, a, c),
            ..
        } = s
        {
            out.push((*a, *c));
        }
    });
    out
}

#[test]
fn offset_chains_read_their_base() {
    for ty in Ty::INTS {
        let mut m = ModuleBuilder::new();
        let id = m.declare("f", &[ty], &[ty, ty, ty, ty]);
        let mut f = m.function(id);
        let n = f.param(0);
        let t = f.op(ty, Op::Copy(n));
        let one = f.const_(ty, 1);
        let big = f.const_(ty, spy_jit::ir::sem::canon(ty, u64::MAX / 3));
        let a = f.binary(BinOp::Sub, t, one);
        let b = f.binary(BinOp::Sub, a, one);
        let c = f.binary(BinOp::Add, big, b);
        let d = f.binary(BinOp::Add, c, one);
        let e = f.binary(BinOp::Sub, d, big);
        // e = n - 1 - 1 + big + 1 - big = n - 1.
        f.ret(&[a, b, d, e]);
        m.define(f);
        let m = m.finish().unwrap();
        let g = simplify(&m.functions[0]);
        // Every sum reads the first value (no chain through a, b, c, d).
        for (x, _) in sums(&g.body) {
            assert_eq!(x, t, "{ty:?}: {}", spy_jit::ir::print::print_function(&m, &g));
        }
        let mut sm = m.clone();
        sm.functions[0] = g;
        let mut both = Both::new(m.clone(), 10);
        let edges: [Word; 8] = [0, 1, 2, 0x7f, 0x80, 0x7fff_ffff, 0x8000_0000, u64::MAX];
        for w in edges {
            let w = spy_jit::ir::sem::canon(ty, w);
            let want = eval::call(&m, id, &[w], &eval_opts(10), &mut NoHelpers);
            assert_eq!(
                eval::call(&sm, id, &[w], &eval_opts(10), &mut NoHelpers),
                want,
                "{ty:?} {w}"
            );
            assert_eq!(both.jit(id, &[w]), want, "{ty:?} {w}");
        }
    }
}
