//! The `spy-interp` command line: `execute` (and the `spy-interp FILE`
//! shorthand), `parse`, `redshift`, `conformance`, and `fuzz`. Flags are
//! parsed here (clap) and handed to the libraries as plain values.

use std::io::Write;
use std::path::PathBuf;

use clap::{Parser, Subcommand, ValueEnum};
use indicatif::{ProgressBar, ProgressStyle};

use spy_conformance::{self as conformance, Target};
use spy_fuzz::campaign::FuzzOptions;
use spy_interp::engine::{Engine, Limits, Mutation};
use spy_interp::redshift::ErrorMode;
use spy_interp::redshift::{Format, RedshiftOptions};

/// `--engine`: an engine, or the reference engine in a mode.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
enum EngineArg {
    /// ASTFrame on the source (the reference).
    Interp,
    /// Redshift, then run the residual module.
    Doppler,
    /// ASTFrame with its shortcuts switched off (a mode, not an engine).
    InterpGeneral,
}

impl EngineArg {
    fn target(self) -> Target {
        match self {
            EngineArg::Interp => Target::engine(Engine::Interp),
            EngineArg::Doppler => Target::engine(Engine::Doppler),
            EngineArg::InterpGeneral => Target::INTERP_GENERAL,
        }
    }
}

/// `redshift -E`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
enum ErrorModeArg {
    /// The first static error aborts.
    Eager,
    /// A static error becomes a `raise` at that point of the residual code.
    Lazy,
}

/// `redshift -f`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
enum FormatArg {
    /// SPy source.
    Spy,
    /// The residual AST dump.
    Ast,
}

/// `fuzz --mutation`: a planted bug (test of the fuzzer), named as the
/// library names it (`Mutation::name`).
#[derive(Clone, Copy, Debug)]
struct MutationArg(Mutation);

impl ValueEnum for MutationArg {
    fn value_variants<'a>() -> &'a [Self] {
        static ALL: std::sync::LazyLock<Vec<MutationArg>> =
            std::sync::LazyLock::new(|| Mutation::ALL.iter().map(|m| MutationArg(*m)).collect());
        &ALL
    }

    fn to_possible_value(&self) -> Option<clap::builder::PossibleValue> {
        Some(clap::builder::PossibleValue::new(self.0.name()))
    }
}

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
        #[arg(long, value_enum, default_value_t = EngineArg::Interp)]
        engine: EngineArg,
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
        #[arg(short = 'E', long = "error-mode", value_enum, default_value_t = ErrorModeArg::Eager)]
        error_mode: ErrorModeArg,
        /// `spy` (source) or `ast` (the residual AST dump).
        #[arg(short = 'f', long = "format", value_enum, default_value_t = FormatArg::Spy)]
        format: FormatArg,
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
        /// Only this engine or mode (default: all).
        #[arg(long, value_enum)]
        engine: Option<EngineArg>,
        /// Print the diff of every failure.
        #[arg(long, short)]
        verbose: bool,
    },
    /// Differential fuzzing: generate programs, run them on every engine,
    /// minimize and write what disagrees (exit code 1 if anything did).
    Fuzz(FuzzArgs),
}

/// `spy-interp fuzz` flags (see `spy_fuzz::campaign::FuzzOptions`).
#[derive(clap::Args, Clone, Debug)]
struct FuzzArgs {
    /// Stop after N seconds (default 10 when --cases is not given).
    #[arg(long, value_name = "N")]
    seconds: Option<f64>,
    /// Stop after N cases.
    #[arg(long, value_name = "N")]
    cases: Option<u64>,
    /// Campaign seed: case i is generated from (seed, i) alone.
    #[arg(long, default_value_t = 0)]
    seed: u64,
    /// Run only case I of the seed (replay), print it and its outcomes.
    #[arg(long, value_name = "I")]
    case: Option<u64>,
    /// Where minimized findings are written.
    #[arg(long, default_value = "fuzz-findings")]
    out: PathBuf,
    /// Step fuel of the reference engine per program.
    #[arg(long, default_value_t = 20_000)]
    fuel: u64,
    /// Worker threads (default: one per core).
    #[arg(long)]
    jobs: Option<usize>,
    /// Only these features (comma-separated names).
    #[arg(long, value_name = "LIST")]
    features: Option<String>,
    /// Never these features (comma-separated names).
    #[arg(long, value_name = "LIST")]
    without: Option<String>,
    /// Switch off the features that provoke known, unfixed engine bugs
    /// (`spy_fuzz::campaign::KNOWN_BUGS`).
    #[arg(long)]
    avoid_known_bugs: bool,
    /// Planted bug for the non-reference engines (test of the fuzzer).
    #[arg(long, value_enum, value_name = "NAME")]
    mutation: Option<MutationArg>,
    /// Minimize the program in FILE (e.g. from a libFuzzer crash) instead
    /// of generating programs; the case goes to --out.
    #[arg(long, value_name = "FILE")]
    reduce: Option<PathBuf>,
    /// Do not minimize findings.
    #[arg(long)]
    no_reduce: bool,
    /// No progress line.
    #[arg(long, short)]
    quiet: bool,
}

impl FuzzArgs {
    fn options(self) -> FuzzOptions {
        FuzzOptions {
            seconds: self.seconds,
            cases: self.cases,
            seed: self.seed,
            case: self.case,
            out: self.out,
            fuel: self.fuel,
            jobs: self.jobs,
            features: self.features,
            without: self.without,
            avoid_known_bugs: self.avoid_known_bugs,
            mutation: self.mutation.map(|m| m.0),
            reduce: self.reduce,
            no_reduce: self.no_reduce,
            quiet: self.quiet,
        }
    }
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
        Some(Command::Execute { engine, limits, file }) => execute(engine, &file, limits.limits()),
        Some(Command::Parse { file }) => parse(&file),
        Some(Command::Redshift {
            error_mode,
            format,
            provenance,
            full_fqn,
            limits,
            file,
        }) => redshift(error_mode, format, (provenance, full_fqn), limits.limits(), &file),
        Some(Command::Conformance {
            dir,
            shard,
            engine,
            verbose,
        }) => run_conformance(dir, shard, engine, verbose),
        Some(Command::Fuzz(args)) => spy_fuzz::campaign::main(args.options()),
        None => match cli.file {
            Some(file) => execute(EngineArg::Interp, &file, cli.limits.limits()),
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

fn execute(engine: EngineArg, file: &PathBuf, limits: Limits) -> i32 {
    let source = match read(file) {
        Ok(s) => s,
        Err(code) => return code,
    };
    let outcome = engine.target().run(&file.to_string_lossy(), &source, limits);
    let mut stdout = std::io::stdout().lock();
    let _ = stdout.write_all(outcome.stdout.as_bytes());
    let _ = stdout.flush();
    if let Some(report) = &outcome.report {
        eprint!("{report}");
    }
    if let Some(bug) = &outcome.bug {
        eprintln!(
            "internal error (a bug in spy-interp, please report it): {}",
            bug.message
        );
    }
    outcome.exit
}

fn parse(file: &PathBuf) -> i32 {
    let source = match read(file) {
        Ok(s) => s,
        Err(code) => return code,
    };
    match spy_interp::syntax::parse_command_output(&file.to_string_lossy(), &source) {
        Ok(dump) => {
            print!("{dump}");
            0
        }
        Err(e) => {
            eprint!("{}", spy_interp::diag::render(&e));
            1
        }
    }
}

fn redshift(
    error_mode: ErrorModeArg,
    format: FormatArg,
    (provenance, full_fqn): (bool, bool),
    limits: Limits,
    file: &PathBuf,
) -> i32 {
    let error_mode = match error_mode {
        ErrorModeArg::Eager => ErrorMode::Eager,
        ErrorModeArg::Lazy => ErrorMode::Lazy,
    };
    let format = match format {
        FormatArg::Spy => Format::Spy,
        FormatArg::Ast => Format::Ast,
    };
    let source = match read(file) {
        Ok(s) => s,
        Err(code) => return code,
    };
    let options = RedshiftOptions {
        error_mode,
        provenance,
        full_fqn,
    };
    let out =
        spy_interp::redshift::redshift_source(&file.to_string_lossy(), &source, options, format, limits);
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
    engine: Option<EngineArg>,
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
    let targets: Vec<Target> = match engine {
        Some(e) => vec![e.target()],
        None => Target::ALL.to_vec(),
    };
    let bar = ProgressBar::new((cases.len() * targets.len()) as u64);
    bar.set_style(
        ProgressStyle::with_template("{bar:40} {pos}/{len} cases·engines {elapsed} {msg}")
            .unwrap_or_else(|_| ProgressStyle::default_bar()),
    );
    let verdicts = conformance::run_all(&cases, &targets, || bar.inc(1));
    bar.finish_and_clear();
    let mut failed = 0;
    for v in verdicts.iter().filter(|v| !v.passed) {
        failed += 1;
        println!("FAIL [{}] {}", v.target, v.case);
        if verbose {
            println!("{}", v.detail);
        }
    }
    println!();
    let width = targets.iter().map(|t| t.name().len()).max().unwrap_or(0).max(6);
    println!("{:<width$} {:>7} {:>7}", "engine", "passed", "failed");
    for target in &targets {
        let mine: Vec<_> = verdicts.iter().filter(|v| v.target == *target).collect();
        let passed = mine.iter().filter(|v| v.passed).count();
        println!(
            "{:<width$} {:>7} {:>7}",
            target.name(),
            passed,
            mine.len() - passed
        );
    }
    let modes = targets.iter().filter(|t| t.is_mode()).count();
    let plain = targets.len() - modes;
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
