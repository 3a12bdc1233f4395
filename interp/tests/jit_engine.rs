//! The jit engine end to end through the library: the same outcome as the
//! reference, from the in-memory residual module and from residual source
//! read back from `redshift` output; the exact recursion depth; a typed
//! "not native" outcome for what it cannot compile.

use spy_interp::engine::{run_jit, run_jit_residual, run_program, Engine, Limits, NotNative, RunConfig};
use spy_interp::redshift::{redshift_source, ErrorMode, Format, RedshiftOptions};

fn config(max_depth: u32) -> RunConfig {
    Limits {
        max_depth,
        ..Limits::default()
    }
    .into()
}

const PROGRAM: &str = "
@struct
class P:
    x: i32
    y: f64

def fib(n: i64) -> i64:
    if n < 2:
        return n
    return fib(n - 1) + fib(n - 2)

def pair(a: i32) -> tuple[i32, f64]:
    return (a * 2, f64(a) / 4.0)

def main() -> None:
    total: u8 = u8(250)
    i = 0
    while i < 10:
        i += 1
        if i % 3 == 0:
            continue
        total = total + u8(1)
    print(total, fib(20), -7 // 2, -7 % 2, 7 >> 1, 1 << 70 if False else 3)
    a, b = pair(5)
    print(a, b, 2 ** 10, 10 / 4, 5.0 // 2.0, 'ab' * 3, len('hello'), 'hello'[1])
    for k in range(3, 0, -1):
        print(k, k == 2, not (k == 2), 0.1 + 0.2)
    print(i8(-128) // i8(-1), u32(0) - u32(1), float_of(3))

def float_of(x: i32) -> f64:
    return x
";

#[test]
fn jit_matches_the_reference_from_memory_and_from_redshift_output() {
    let reference = run_program(
        Engine::Interp,
        "prog.spy",
        PROGRAM.as_bytes(),
        RunConfig::default(),
    );
    let jit = run_program(Engine::Jit, "prog.spy", PROGRAM.as_bytes(), RunConfig::default());
    assert_eq!(reference.bug, None);
    assert_eq!(jit.not_native, None, "{:?}", jit.report);
    assert_eq!(
        (jit.exit, &jit.stdout, &jit.error),
        (reference.exit, &reference.stdout, &reference.error)
    );

    let options = RedshiftOptions {
        error_mode: ErrorMode::Lazy,
        ..Default::default()
    };
    let residual = redshift_source(
        "prog.spy",
        PROGRAM.as_bytes(),
        options,
        Format::Spy,
        Limits::default(),
    )
    .result
    .expect("redshift");
    let mut from_memory = Vec::new();
    let a = run_jit(
        "prog.spy",
        PROGRAM.as_bytes(),
        &mut from_memory,
        RunConfig::default(),
    )
    .expect("native");
    let mut from_text = Vec::new();
    let b = run_jit_residual(
        "prog.spy",
        residual.as_bytes(),
        &mut from_text,
        RunConfig::default(),
    )
    .expect("native");
    assert_eq!(a.ok(), b.ok());
    assert_eq!(from_memory, from_text);
    assert_eq!(String::from_utf8(from_text).unwrap(), reference.stdout);
}

#[test]
fn recursion_error_at_exactly_the_reference_depth() {
    let src = "
def down(n: i32) -> i32:
    if n == 0:
        return 0
    return down(n - 1) + 1

def main() -> None:
    print(down(DEPTH))
";
    for depth in [10u32, 100, 1000] {
        for n in [depth - 3, depth - 2, depth - 1] {
            let src = src.replace("DEPTH", &n.to_string());
            let r = run_program(Engine::Interp, "rec.spy", src.as_bytes(), config(depth));
            let j = run_program(Engine::Jit, "rec.spy", src.as_bytes(), config(depth));
            assert_eq!(j.not_native, None);
            assert_eq!(
                (&j.stdout, &j.error, j.exit),
                (&r.stdout, &r.error, r.exit),
                "depth {depth}, n {n}"
            );
        }
        // main + down(depth - 2 .. 0) is exactly `depth` activations.
        let ok = src.replace("DEPTH", &(depth - 2).to_string());
        assert_eq!(
            run_program(Engine::Jit, "rec.spy", ok.as_bytes(), config(depth)).error,
            None
        );
        let over = src.replace("DEPTH", &(depth - 1).to_string());
        let e = run_program(Engine::Jit, "rec.spy", over.as_bytes(), config(depth))
            .error
            .unwrap();
        assert_eq!(e.to_string(), "RecursionError: maximum recursion depth exceeded");
    }
}

#[test]
fn what_the_jit_cannot_compile_is_a_typed_not_native_outcome() {
    let src = "def show(d: dynamic) -> None:\n    print(d)\n\ndef main() -> None:\n    show(1)\n";
    let o = run_program(Engine::Jit, "dyn.spy", src.as_bytes(), RunConfig::default());
    assert_eq!(o.bug, None);
    assert_eq!(o.error, None);
    let Some(NotNative::Lower(e)) = &o.not_native else {
        panic!("expected a lowering gap, got {o:?}");
    };
    assert!(
        e.to_string().starts_with("dyn.spy:1:") && !e.to_string().contains("residual code"),
        "{e}"
    );
    assert_eq!(e.what(), "a value of type `dynamic`");
    // In a specialized copy, the location is the user's line (5), not the
    // residual module's (where the copy is on another line).
    let generic = "@blue\ndef make(T):\n    def f(x: T) -> None:\n        y = x\n        d: dynamic = y\n        print(d)\n    return f\n\ndef main() -> None:\n    make(i32)(1)\n";
    let o = run_program(Engine::Jit, "gen.spy", generic.as_bytes(), RunConfig::default());
    let Some(NotNative::Lower(e)) = &o.not_native else {
        panic!("expected a lowering gap, got {o:?}");
    };
    assert!(
        e.to_string().starts_with("gen.spy:5:") && !e.to_string().contains("residual code"),
        "{e}"
    );
    let steps = RunConfig {
        limits: Limits {
            max_steps: Some(100),
            ..Limits::default()
        },
        ..RunConfig::default()
    };
    let o = run_program(
        Engine::Jit,
        "steps.spy",
        b"def main() -> None:\n    pass\n",
        steps,
    );
    assert!(matches!(o.not_native, Some(NotNative::Option(_))), "{o:?}");
}
