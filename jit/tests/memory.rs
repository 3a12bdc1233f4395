//! Compiling and running many small modules does not grow the resident set:
//! each module's executable buffer is freed when it is dropped.

mod common;
use common::*;
use spy_jit::ir::{BinOp, ModuleBuilder, Ty};
use spy_jit::runtime::{Context, ContextOptions};

#[cfg(target_os = "linux")]
fn rss_pages() -> u64 {
    let s = std::fs::read_to_string("/proc/self/statm").expect("/proc/self/statm");
    s.split_whitespace()
        .nth(1)
        .expect("resident field")
        .parse()
        .expect("a number")
}

fn small_module(k: u64) -> spy_jit::ir::Module {
    let mut m = ModuleBuilder::new();
    let f = m.declare("f", &[Ty::I64], &[Ty::I64]);
    let mut b = m.function(f);
    let x = b.param(0);
    let c = b.const_(Ty::I64, k);
    let s = b.binary(BinOp::Add, x, c);
    b.ret(&[s]);
    m.define(b);
    m.finish().unwrap()
}

#[cfg(target_os = "linux")]
#[test]
fn ten_thousand_modules_do_not_grow_rss() {
    let mut ctx = Context::new(ContextOptions {
        depth_limit: 100,
        ..Default::default()
    });
    let run = |ctx: &mut Context, n: u64| {
        for k in 0..n {
            let m = small_module(k);
            let c = spy_jit::compile(&m, &opts()).unwrap();
            assert_eq!(c.call(ctx, m.find("f").unwrap(), &[1]).unwrap(), vec![k + 1]);
        }
    };
    run(&mut ctx, 500); // warm up allocator and stack
    let before = rss_pages();
    run(&mut ctx, 10_000);
    let after = rss_pages();
    // A leaked buffer is at least one 4 KiB page each: 10,000 pages = 40 MB.
    // Allow 2,000 pages (8 MB) of allocator noise.
    assert!(after < before + 2_000, "RSS grew from {before} to {after} pages");
}
