//! The `spy-interp` command line: `execute` (and the `spy-interp FILE`
//! shorthand), `parse`, `conformance`, and `fuzz`.

use std::io::Write;
use std::path::PathBuf;

use clap::{Parser, Subcommand};
use indicatif::{ProgressBar, ProgressStyle};
use rayon::prelude::*;

use crate::conformance::{self, Engine};
use crate::frames::Limits;

#[derive(Parser)]
#[command(
    name = "spy-interp",
    version,
    about = "Reference interpreter and differential harness for SPy"
)]
#[command(args_conflicts_with_subcommands = true)]
struct Cli {
    #[command(subcommand)]
    command: Option<Command>,
    /// Shorthand for `spy-interp execute FILE`.
    file: Option<PathBuf>,
    #[command(flatten)]
    limits: LimitArgs,
}

#[derive(clap::Args, Clone, Copy)]
struct LimitArgs {
    /// Stop with StepLimitError after N steps (statements and calls).
    #[arg(long, value_name = "N")]
    max_steps: Option<u64>,
    /// Maximum call depth before RecursionError.
    #[arg(long, value_name = "N", default_value_t = 1000)]
    max_depth: u32,
}

impl LimitArgs {
    fn limits(self) -> Limits {
        Limits {
            max_depth: self.max_depth,
            max_steps: self.max_steps,
            ..Limits::default()
        }
    }
}

#[derive(Subcommand)]
enum Command {
    /// Run `main()` of FILE. stdout is the program's output; errors go to
    /// stderr; the exit code is main's i32 result (0 for None, 1 on error).
    Execute {
        /// The engine that runs the program.
        #[arg(long, default_value = "interp")]
        engine: String,
        #[command(flatten)]
        limits: LimitArgs,
        file: PathBuf,
    },
    /// Print the AST of FILE.
    Parse { file: PathBuf },
    /// Redshift FILE: run its blue code and print the typed residual module
    /// (output printed by blue code goes to stderr).
    Redshift {
        /// `eager`: the first static error aborts; `lazy`: it becomes a
        /// `raise` at that point of the residual code.
        #[arg(short = 'E', long = "error-mode", default_value = "eager")]
        error_mode: String,
        /// `spy` (source) or `ast` (the residual AST dump).
        #[arg(short = 'f', long = "format", default_value = "spy")]
        format: String,
        /// Annotate every specialized function and every inlined, unrolled
        /// or spliced region with where it comes from.
        #[arg(long)]
        provenance: bool,
        /// Print names with their module prefix (for reading: the output
        /// then runs under other FQNs).
        #[arg(long)]
        full_fqn: bool,
        #[command(flatten)]
        limits: LimitArgs,
        file: PathBuf,
    },
    /// Run the conformance suite through every engine, in parallel.
    Conformance {
        /// Directory of cases (default: the bundled suite).
        dir: Option<PathBuf>,
        /// Run only shard I of N (`--shard 0/4`), split deterministically.
        #[arg(long, value_name = "I/N")]
        shard: Option<String>,
        /// Only this engine (default: all).
        #[arg(long)]
        engine: Option<String>,
        /// Print the diff of every failure.
        #[arg(long, short)]
        verbose: bool,
    },
    /// Differential fuzzing: generate programs, run them on every engine,
    /// minimize and write what disagrees (exit code 1 if anything did).
    Fuzz(crate::fuzz::campaign::FuzzArgs),
}

/// Entry point; returns the process exit code.
pub fn main() -> i32 {
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(e) => {
            let _ = e.print();
            return if e.use_stderr() { 2 } else { 0 };
        }
    };
    match cli.command {
        Some(Command::Execute { engine, limits, file }) => execute(&engine, &file, limits.limits()),
        Some(Command::Parse { file }) => parse(&file),
        Some(Command::Redshift {
            error_mode,
            format,
            provenance,
            full_fqn,
            limits,
            file,
        }) => redshift(
            &error_mode,
            &format,
            (provenance, full_fqn),
            limits.limits(),
            &file,
        ),
        Some(Command::Conformance {
            dir,
            shard,
            engine,
            verbose,
        }) => run_conformance(dir, shard, engine, verbose),
        Some(Command::Fuzz(args)) => fuzz(args),
        None => match cli.file {
            Some(file) => execute("interp", &file, cli.limits.limits()),
            None => {
                eprintln!("usage: spy-interp [execute|parse|conformance] FILE (see --help)");
                2
            }
        },
    }
}

fn read(path: &PathBuf) -> Result<Vec<u8>, i32> {
    std::fs::read(path).map_err(|e| {
        eprintln!("error: cannot read {}: {e}", path.display());
        2
    })
}

fn execute(engine: &str, file: &PathBuf, limits: Limits) -> i32 {
    let Some(engine) = Engine::from_name(engine) else {
        let names: Vec<_> = Engine::ALL
            .iter()
            .chain(Engine::MODES)
            .map(|e| e.name())
            .collect();
        eprintln!(
            "error: unknown engine `{engine}` (available: {})",
            names.join(", ")
        );
        return 2;
    };
    let source = match read(file) {
        Ok(s) => s,
        Err(code) => return code,
    };
    let outcome = conformance::run_program(engine, &file.to_string_lossy(), &source, limits);
    let mut stdout = std::io::stdout().lock();
    let _ = stdout.write_all(outcome.stdout.as_bytes());
    let _ = stdout.flush();
    if let Some(report) = &outcome.report {
        eprint!("{report}");
    }
    if let Some(bug) = &outcome.bug {
        eprintln!("internal error (a bug in spy-interp, please report it): {bug}");
    }
    outcome.exit
}

fn parse(file: &PathBuf) -> i32 {
    let source = match read(file) {
        Ok(s) => s,
        Err(code) => return code,
    };
    match crate::syntax::parse_command_output(&file.to_string_lossy(), &source) {
        Ok(dump) => {
            print!("{dump}");
            0
        }
        Err(e) => {
            eprint!("{}", crate::diag::render(&e));
            1
        }
    }
}

fn redshift(
    error_mode: &str,
    format: &str,
    (provenance, full_fqn): (bool, bool),
    limits: Limits,
    file: &PathBuf,
) -> i32 {
    let mode = match error_mode {
        "eager" => crate::frames::doppler::ErrorMode::Eager,
        "lazy" => crate::frames::doppler::ErrorMode::Lazy,
        other => {
            eprintln!("error: unknown error mode `{other}` (eager, lazy)");
            return 2;
        }
    };
    if !matches!(format, "spy" | "ast") {
        eprintln!("error: unknown format `{format}` (spy, ast)");
        return 2;
    }
    let source = match read(file) {
        Ok(s) => s,
        Err(code) => return code,
    };
    let options = crate::redshift::RedshiftOptions {
        error_mode: mode,
        provenance,
        full_fqn,
    };
    let format = if format == "ast" {
        crate::redshift::Format::Ast
    } else {
        crate::redshift::Format::Spy
    };
    let out = crate::redshift::redshift_source(&file.to_string_lossy(), &source, options, format, limits);
    eprint!("{}", out.blue_stdout);
    match out.result {
        Ok(text) => {
            print!("{text}");
            0
        }
        Err(report) => {
            eprint!("{report}");
            1
        }
    }
}

fn run_conformance(
    dir: Option<PathBuf>,
    shard: Option<String>,
    engine: Option<String>,
    verbose: bool,
) -> i32 {
    let dir = dir.unwrap_or_else(conformance::bundled_suite_dir);
    let mut cases = match conformance::discover(&dir) {
        Ok(c) => c,
        Err(e) => {
            eprintln!("error: cannot read conformance suite {}: {e}", dir.display());
            return 2;
        }
    };
    if let Some(spec) = shard {
        let parsed = spec
            .split_once('/')
            .and_then(|(i, n)| Some((i.parse::<usize>().ok()?, n.parse::<usize>().ok()?)))
            .filter(|(i, n)| *n > 0 && i < n);
        let Some((i, n)) = parsed else {
            eprintln!("error: --shard takes I/N with 0 <= I < N, got `{spec}`");
            return 2;
        };
        cases = conformance::shard(cases, i, n);
    }
    let engines: Vec<Engine> = match engine {
        Some(name) => match Engine::from_name(&name) {
            Some(e) => vec![e],
            None => {
                eprintln!("error: unknown engine `{name}`");
                return 2;
            }
        },
        None => Engine::ALL.iter().chain(Engine::MODES).copied().collect(),
    };
    let jobs: Vec<_> = cases
        .iter()
        .flat_map(|c| engines.iter().map(move |e| (c, *e)))
        .collect();
    let bar = ProgressBar::new(jobs.len() as u64);
    bar.set_style(
        ProgressStyle::with_template("{bar:40} {pos}/{len} cases·engines {elapsed} {msg}")
            .unwrap_or_else(|_| ProgressStyle::default_bar()),
    );
    let verdicts: Vec<_> = jobs
        .par_iter()
        .map(|(case, engine)| {
            let v = conformance::check(case, *engine);
            bar.inc(1);
            v
        })
        .collect();
    bar.finish_and_clear();
    let mut failed = 0;
    for v in verdicts.iter().filter(|v| !v.passed) {
        failed += 1;
        println!("FAIL [{}] {}", v.engine.name(), v.case);
        if verbose {
            println!("{}", v.detail);
        }
    }
    println!();
    let width = engines.iter().map(|e| e.name().len()).max().unwrap_or(0).max(6);
    println!("{:<width$} {:>7} {:>7}", "engine", "passed", "failed");
    for engine in &engines {
        let mine: Vec<_> = verdicts.iter().filter(|v| v.engine == *engine).collect();
        let passed = mine.iter().filter(|v| v.passed).count();
        println!(
            "{:<width$} {:>7} {:>7}",
            engine.name(),
            passed,
            mine.len() - passed
        );
    }
    let modes = engines.iter().filter(|e| Engine::MODES.contains(e)).count();
    let plain = engines.len() - modes;
    println!(
        "{} cases, {} engine{}{}: {}",
        cases.len(),
        plain,
        if plain == 1 { "" } else { "s" },
        match modes {
            0 => String::new(),
            n => format!(" + {n} mode{}", if n == 1 { "" } else { "s" }),
        },
        if failed == 0 { "all passed" } else { "FAILURES" }
    );
    i32::from(failed != 0)
}

fn fuzz(args: crate::fuzz::campaign::FuzzArgs) -> i32 {
    crate::fuzz::campaign::main(args)
}
