//! The fast path against C and CPython: each program of `bench/jit/` on the
//! jit, doppler and interp engines, its C twin compiled by `gcc -O2
//! -ffp-contract=off` (fib also with `-fno-inline
//! -fno-optimize-sibling-calls`, plain recursion) and its CPython twin,
//! timed as whole processes, alternating commands run by run so that the
//! machine's drift affects them alike; the median of the runs is reported.
//! A plain binary, not a timed test: `cargo bench -p spy-interp-cli --bench
//! jit_vs_gcc` (`JIT_BENCH_RUNS=N` for another number of runs,
//! `JIT_BENCH_ONLY=a,b` for some of the programs, `JIT_BENCH_BASELINE=PATH`
//! to time another `spy-interp` binary's jit in the same alternated runs,
//! e.g. a build of the tree before a change, `JIT_BENCH_FAST=1` to leave
//! out the slow engines).
//!
//! `startup` is a two-line program: its row is the cost of a whole
//! `execute` (process start, parse, redshift, lowering, compilation, exit)
//! next to a C process that prints a number.
//!
//! `vectorize_l1` also runs gcc and the jit at a second size (30,000
//! repetitions besides 3,000), and `fib` at fib(35) besides fib(32), and
//! reports the marginal time per unit, the difference of the two medians
//! over the difference of the sizes, and the same from the two minima
//! (steadier under load, since noise only adds time): what both processes
//! pay once (start-up, compilation, the set-up loop) is left out alike,
//! and the ratio is the kernel's throughput against gcc's.
//!
//! The slow engines run a smaller size of the same program and their time
//! is scaled by the work ratio (said in the table); every engine's output
//! is checked against the others' and against C's.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

/// One benchmark program of `bench/jit/`.
struct Program {
    name: &'static str,
    /// `SIZE` in the `.spy` source and argv[1] of the twins.
    size: u64,
    /// The size the slow engines (interp, doppler, CPython) run.
    slow_size: u64,
    /// How much more work `size` is than `slow_size`.
    scale: f64,
    /// The baseline's gcc flags (besides `-ffp-contract=off`).
    gcc_base: &'static [&'static str],
    /// Extra gcc variants: (label, flags).
    gcc_variants: &'static [(&'static str, &'static [&'static str])],
    /// A second, larger size, and what one unit of size is: gcc and the
    /// jit also run at it (alternated with the rest), and the table gets
    /// the marginal time per unit, `(t(marginal) - t(size)) / (marginal -
    /// size)`, which leaves out what both processes pay once (start-up,
    /// compilation, set-up loops) alike: the kernel's own throughput.
    marginal: Option<(u64, &'static str)>,
}

const O2: &[&str] = &["-O2"];

const PROGRAMS: &[Program] = &[
    Program {
        name: "fib",
        size: 32,
        slow_size: 32,
        scale: 1.0,
        gcc_base: O2,
        gcc_variants: &[(
            "gcc -O2 -fno-inline -fno-optimize-sibling-calls",
            &["-fno-inline", "-fno-optimize-sibling-calls"],
        )],
        // The recursion's own speed without what each process pays once
        // (the jit's parse, redshift and compilation, ~2 ms, a third of
        // fib(32) under gcc): fib(35) - fib(32) is 22.8 M more calls of
        // plain recursion; the "unit" is a third of that difference.
        marginal: Some((35, "third of fib(35) - fib(32)")),
    },
    Program {
        name: "nested_loops",
        size: 20_000,
        slow_size: 200,
        scale: 100.0,
        gcc_base: O2,
        // gcc -O2 replaces the inner loop by its closed form; without
        // final-value replacement it keeps the loop (strength-reducing
        // `i * j` to an addition).
        gcc_variants: &[(
            "gcc -O2 -fno-tree-scev-cprop (loop kept)",
            &["-fno-tree-scev-cprop"],
        )],
        marginal: None,
    },
    Program {
        name: "float_loop",
        size: 20_000_000,
        slow_size: 200_000,
        scale: 100.0,
        gcc_base: O2,
        gcc_variants: &[],
        marginal: None,
    },
    Program {
        name: "startup",
        size: 1,
        slow_size: 1,
        scale: 1.0,
        gcc_base: O2,
        gcc_variants: &[],
        marginal: None,
    },
    // The design's vectorize(kernel0, f64) against gcc's auto-vectorizer
    // at the host's best ISA (`objdump -d` of the twin says which).
    Program {
        name: "vectorize_big",
        size: 10_000_000,
        slow_size: 100_000,
        scale: 100.0,
        gcc_base: &["-O3", "-march=native"],
        // The twin's kernel is noinline (each pass runs, as the five
        // vectorize calls do); inlined, gcc keeps only the last pass.
        gcc_variants: &[(
            "gcc -O3 -march=native -DINLINE_PASSES (1 pass kept)",
            &["-DINLINE_PASSES"],
        )],
        marginal: None,
    },
    Program {
        name: "vectorize_l1",
        size: 3_000,
        slow_size: 3,
        scale: 1000.0,
        gcc_base: &["-O3", "-march=native"],
        gcc_variants: &[],
        // The goal is the kernel's throughput (it measured it with
        // in-process probes): 27,000 more repetitions of the 4096-f64 pass.
        marginal: Some((30_000, "pass over 4096 f64")),
    },
    Program {
        name: "stencil",
        size: 10_000_000,
        slow_size: 100_000,
        scale: 100.0,
        gcc_base: O2,
        gcc_variants: &[],
        marginal: None,
    },
];

fn main() {
    let runs: usize = std::env::var("JIT_BENCH_RUNS")
        .ok()
        .and_then(|s| s.parse().ok())
        .filter(|n| *n > 0)
        .unwrap_or(5);
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../bench/jit");
    let work = std::env::temp_dir().join(format!("spy-jit-bench-{}", std::process::id()));
    std::fs::create_dir_all(&work).expect("a scratch directory");
    let spy = PathBuf::from(env!("CARGO_BIN_EXE_spy-interp"));
    println!("jit_vs_gcc: median of {runs} runs, whole processes, wall seconds");
    println!(
        "{:<13} {:<52} {:>10} {:>9}",
        "program", "command", "seconds", "vs gcc"
    );
    // `JIT_BENCH_ONLY=fib,stencil` runs only those programs.
    let only: Option<Vec<String>> = std::env::var("JIT_BENCH_ONLY")
        .ok()
        .map(|s| s.split(',').map(str::to_string).collect());
    for p in PROGRAMS {
        if only.as_ref().is_some_and(|o| !o.iter().any(|n| n == p.name)) {
            continue;
        }
        let template = std::fs::read_to_string(root.join(format!("{}.spy", p.name)))
            .unwrap_or_else(|e| panic!("bench/jit/{}.spy: {e}", p.name));
        let write = |size: u64| {
            let path = work.join(format!("{}_{size}.spy", p.name));
            std::fs::write(&path, template.replace("SIZE", &size.to_string())).expect("write");
            path
        };
        let (big, small) = (write(p.size), write(p.slow_size));
        let c = root.join(format!("{}.c", p.name));
        let mut commands: Vec<(String, Vec<String>, f64)> = Vec::new();
        let exe = |tag: &str| work.join(format!("{}_{tag}", p.name));
        let gcc = |tag: &str, extra: &[&str]| -> Option<PathBuf> {
            let out = exe(tag);
            let status = Command::new("gcc")
                .args(p.gcc_base)
                .arg("-ffp-contract=off")
                .args(extra)
                .arg(&c)
                .arg("-o")
                .arg(&out)
                .status()
                .ok()?;
            status.success().then_some(out)
        };
        let arg = p.size.to_string();
        // gcc, this jit and the baseline jit at the marginal size: (label,
        // argv), run in the same alternation.
        let mut at_marginal: Vec<(String, Vec<String>)> = Vec::new();
        let gcc_label = format!("gcc {} -ffp-contract=off", p.gcc_base.join(" "));
        match gcc("o2", &[]) {
            Some(bin) => {
                if let Some((m, _)) = p.marginal {
                    at_marginal.push((gcc_label.clone(), vec![bin.display().to_string(), m.to_string()]));
                }
                commands.push((gcc_label, vec![bin.display().to_string(), arg.clone()], 1.0))
            }
            None => println!("{:<13} gcc not found or failed: no C baseline", p.name),
        }
        for (k, (label, flags)) in p.gcc_variants.iter().enumerate() {
            if let Some(bin) = gcc(&format!("v{k}"), flags) {
                commands.push(((*label).into(), vec![bin.display().to_string(), arg.clone()], 1.0));
            }
        }
        let s = spy.display().to_string();
        if let Some((m, _)) = p.marginal {
            let file = write(m).display().to_string();
            at_marginal.push(("spy-interp --engine jit".into(), jit_command(&s, &file)));
            if let Ok(base) = std::env::var("JIT_BENCH_BASELINE") {
                at_marginal.push((
                    "baseline spy-interp --engine jit".into(),
                    jit_command(&base, &file),
                ));
            }
        }
        let big_file = big.display().to_string();
        commands.push(("spy-interp --engine jit".into(), jit_command(&s, &big_file), 1.0));
        // Another build's jit, alternated with this one (a before/after
        // comparison under the same load).
        if let Ok(base) = std::env::var("JIT_BENCH_BASELINE") {
            commands.push((
                "baseline spy-interp --engine jit".into(),
                jit_command(&base, &big_file),
                1.0,
            ));
        }
        let fast = std::env::var("JIT_BENCH_FAST").is_ok_and(|v| v == "1");
        let scaled = |what: &str| {
            if p.scale == 1.0 {
                what.to_string()
            } else {
                format!("{what} (size /{}, time ×{})", p.scale, p.scale)
            }
        };
        for engine in ["doppler", "interp"].into_iter().filter(|_| !fast) {
            commands.push((
                scaled(&format!("spy-interp --engine {engine}")),
                vec![
                    s.clone(),
                    "execute".into(),
                    "--engine".into(),
                    engine.into(),
                    small.display().to_string(),
                ],
                p.scale,
            ));
        }
        commands.extend((!fast).then(|| {
            (
                scaled("python3"),
                vec![
                    "python3".into(),
                    root.join(format!("{}.py", p.name)).display().to_string(),
                    p.slow_size.to_string(),
                ],
                p.scale,
            )
        }));
        let mut times: Vec<Vec<Duration>> = vec![Vec::new(); commands.len() + at_marginal.len()];
        let mut outputs: Vec<Option<String>> = vec![None; commands.len() + at_marginal.len()];
        let argvs: Vec<&Vec<String>> = commands
            .iter()
            .map(|(_, argv, _)| argv)
            .chain(at_marginal.iter().map(|(_, argv)| argv))
            .collect();
        for _ in 0..runs {
            for (k, argv) in argvs.iter().enumerate() {
                let start = Instant::now();
                let out = Command::new(&argv[0]).args(&argv[1..]).output();
                let elapsed = start.elapsed();
                match out {
                    Ok(o) if o.status.success() => {
                        times[k].push(elapsed);
                        outputs[k] = Some(String::from_utf8_lossy(&o.stdout).trim().to_string());
                    }
                    Ok(o) => panic!(
                        "{} failed ({}): {}",
                        argv.join(" "),
                        o.status,
                        String::from_utf8_lossy(&o.stderr)
                    ),
                    Err(e) => panic!("cannot run {}: {e}", argv[0]),
                }
            }
        }
        check_outputs(p, &commands, &outputs[..commands.len()]);
        // At the marginal size, every command printed the same too.
        let marginal_outputs = &outputs[commands.len()..];
        for ((label, _), out) in at_marginal.iter().zip(marginal_outputs).skip(1) {
            let (first, out) = (marginal_outputs[0].as_deref(), out.as_deref());
            assert!(
                first.zip(out).is_some_and(|(a, b)| same_output(a, b)),
                "{}: at the marginal size `{}` printed {first:?} but `{label}` printed {out:?}",
                p.name,
                at_marginal[0].0
            );
        }
        // The jit at the slow size prints exactly what the interpreter does.
        if p.scale != 1.0 && !fast {
            let run = |engine: &str| {
                let o = Command::new(&s)
                    .args(["execute", "--engine", engine])
                    .arg(&small)
                    .output()
                    .expect("runs");
                String::from_utf8_lossy(&o.stdout).into_owned()
            };
            let (jit, interp) = (run("jit"), run("interp"));
            assert_eq!(
                jit, interp,
                "{}: the jit and the interpreter differ at the slow size",
                p.name
            );
        }
        let median = |v: &mut Vec<Duration>| {
            v.sort();
            v[v.len() / 2].as_secs_f64()
        };
        // The marginal-size commands come last, unscaled.
        let scales: Vec<f64> = commands
            .iter()
            .map(|(_, _, scale)| *scale)
            .chain(at_marginal.iter().map(|_| 1.0))
            .collect();
        let medians: Vec<f64> = times
            .iter_mut()
            .zip(&scales)
            .map(|(t, scale)| median(t) * scale)
            .collect();
        // `times` is sorted now: the first of each is its minimum.
        let minima: Vec<f64> = times
            .iter()
            .zip(&scales)
            .map(|(t, scale)| t[0].as_secs_f64() * scale)
            .collect();
        let gcc_time = medians[0];
        for ((label, _, _), t) in commands.iter().zip(&medians) {
            println!("{:<13} {:<52} {:>10.4} {:>8.2}×", p.name, label, t, t / gcc_time);
        }
        // The marginal time per unit: the same command's time at the two
        // sizes (this list holds gcc base, the jit and the baseline jit,
        // in that order, as `commands` does first), from the medians and
        // from the minima (noise on a loaded machine only adds time, so
        // the minima's difference is the steadier of the two).
        if let Some((m, unit)) = p.marginal {
            for (stat, times) in [("medians", &medians), ("minima", &minima)] {
                let at = |label: &str| {
                    commands
                        .iter()
                        .zip(times)
                        .find(|((l, _, _), _)| l == label)
                        .map(|(_, t)| *t)
                        .zip(
                            at_marginal
                                .iter()
                                .zip(&times[commands.len()..])
                                .find(|((l, _), _)| l == label)
                                .map(|(_, t)| *t),
                        )
                };
                let per_unit = |(small, big): (f64, f64)| (big - small) / (m - p.size) as f64;
                let gcc_unit = at(&at_marginal[0].0).map(per_unit);
                for (label, _) in &at_marginal {
                    if let Some(u) = at(label).map(per_unit) {
                        let ratio = gcc_unit
                            .map(|g| format!("{:>8.2}× of gcc's throughput", g / u))
                            .unwrap_or_default();
                        println!(
                            "{:<13} {:<52} {:>7.3} µs per {unit} (sizes {} and {m}){ratio}",
                            p.name,
                            format!("{label}, marginal ({stat})"),
                            u * 1e6,
                            p.size
                        );
                    }
                }
            }
        }
    }
    let _ = std::fs::remove_dir_all(&work);
}

/// Two printed results are the same (floats compared as numbers: C prints
/// `%.17g`, SPy and CPython the shortest repr).
fn same_output(a: &str, b: &str) -> bool {
    match (a.parse::<f64>(), b.parse::<f64>()) {
        (Ok(x), Ok(y)) => x == y || (x.is_nan() && y.is_nan()),
        _ => a == b,
    }
}

/// Every command of a program printed the same result (floats compared as
/// numbers: C prints `%.17g`, SPy and CPython the shortest repr). The
/// slow-size runs compute a different result, so they are compared among
/// themselves.
fn check_outputs(p: &Program, commands: &[(String, Vec<String>, f64)], outputs: &[Option<String>]) {
    let same = same_output;
    for full in [true, false] {
        let group: Vec<(&String, &String)> = commands
            .iter()
            .zip(outputs)
            .filter(|((_, _, scale), _)| (*scale == 1.0) == full || p.scale == 1.0)
            .filter_map(|((label, _, _), o)| o.as_ref().map(|o| (label, o)))
            .collect();
        if let Some((first_label, first)) = group.first() {
            for (label, out) in &group[1..] {
                assert!(
                    same(first, out),
                    "{}: `{first_label}` printed {first} but `{label}` printed {out}",
                    p.name
                );
            }
        }
    }
}

/// `BIN execute --engine jit FILE`.
fn jit_command(bin: &str, file: &str) -> Vec<String> {
    [bin, "execute", "--engine", "jit", file]
        .map(String::from)
        .to_vec()
}
