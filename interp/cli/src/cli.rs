//! The `spy-interp` command line: `execute` (and the `spy-interp FILE`
//! shorthand), `parse`, `redshift`, `conformance`, and `fuzz`. Flags are
//! parsed here (clap, with value parsers that reject what the libraries
//! cannot take) and handed to the libraries as plain values; every command
//! writes its output through `output::Stdout`.

use std::fmt::Write as _;
use std::path::PathBuf;

use clap::{Parser, Subcommand, ValueEnum};
use indicatif::{ProgressBar, ProgressStyle};

use spy_conformance::{self as conformance, Target};
use spy_fuzz::campaign::FuzzOptions;
use spy_interp::engine::{Engine, Limits, Mutation};
use spy_interp::native_stack::MAX_DEPTH;
use spy_interp::redshift::ErrorMode;
use spy_interp::redshift::{Format, RedshiftOptions};
use spy_interp::syntax::input::{read_source, ReadSourceError};

use crate::output::{self, Stdout};

/// `--engine`: an engine, or the reference engine in a mode.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
enum EngineArg {
    /// ASTFrame on the source (the reference).
    Interp,
    /// Redshift, then run the residual module.
    Doppler,
    /// Redshift, lower the residual module to spy-jit's IR, run it as x86-64 code.
    Jit,
    /// ASTFrame with its shortcuts switched off (a mode, not an engine).
    InterpGeneral,
}

impl EngineArg {
    fn target(self) -> Target {
        match self {
            EngineArg::Interp => Target::engine(Engine::Interp),
            EngineArg::Doppler => Target::engine(Engine::Doppler),
            EngineArg::Jit => Target::engine(Engine::Jit),
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
    /// Lazy, and every static error is also reported as a warning on stderr.
    Warn,
}

impl ErrorModeArg {
    fn mode(self) -> ErrorMode {
        match self {
            ErrorModeArg::Eager => ErrorMode::Eager,
            ErrorModeArg::Lazy => ErrorMode::Lazy,
            ErrorModeArg::Warn => ErrorMode::Warn,
        }
    }
}

/// `parse -f`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
enum ParseFormat {
    /// The AST dump, one node a line.
    Ast,
    /// The same tree as JSON.
    Json,
}

/// `redshift -f`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
enum FormatArg {
    /// SPy source.
    Spy,
    /// The residual AST dump.
    Ast,
}

/// `colorize -f`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
enum ColorFormat {
    /// The source with colors (or markers).
    Spy,
    /// One JSON record per expression.
    Json,
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
    about = "Reference interpreter and differential harness for SPy",
    after_help = "Example: spy-interp hello.spy    (runs main() of hello.spy; see each command's --help)"
)]
#[command(args_conflicts_with_subcommands = true)]
struct Cli {
    #[command(subcommand)]
    command: Option<Command>,
    /// Shorthand for `spy-interp execute FILE ARGS...`.
    file: Option<PathBuf>,
    /// `argv[1..]` of `main(argv: list[str])` (everything after FILE).
    #[arg(trailing_var_arg = true, allow_hyphen_values = true, requires = "file")]
    args: Vec<String>,
    #[command(flatten)]
    limits: LimitArgs,
}

#[derive(clap::Args, Clone, Copy)]
struct LimitArgs {
    /// Stop with StepLimitError after N steps (statements and calls).
    #[arg(long, value_name = "N")]
    max_steps: Option<u64>,
    /// Maximum call depth before RecursionError (1 to 100000: the
    /// evaluator's native stack is sized for it).
    #[arg(long, value_name = "N", default_value_t = 1000,
          value_parser = clap::value_parser!(u32).range(1..=i64::from(MAX_DEPTH)))]
    max_depth: u32,
    /// Memory budget: the live pointer memory, strings and list items (a
    /// running total), and the most a residual module may take, before
    /// MemoryError (bytes, or with a K/M/G suffix; default 4G).
    #[arg(long, value_name = "SIZE", default_value = "4G", value_parser = parse_memory)]
    max_memory: u64,
}

impl LimitArgs {
    fn limits(self) -> Limits {
        Limits {
            max_depth: self.max_depth,
            max_steps: self.max_steps,
            max_memory: self.max_memory,
            ..Limits::default()
        }
    }
}

/// `--max-memory`: bytes, or a number with a `K`, `M` or `G` suffix
/// (powers of 1024); at least 1 MiB, at most 1 TiB.
fn parse_memory(text: &str) -> Result<u64, String> {
    let bad = || format!("`{text}` is not a memory size from 1M to 1024G (bytes, or with K, M or G)");
    let (digits, unit) = match text.char_indices().last() {
        Some((i, 'K' | 'k')) => (&text[..i], 1u64 << 10),
        Some((i, 'M' | 'm')) => (&text[..i], 1 << 20),
        Some((i, 'G' | 'g')) => (&text[..i], 1 << 30),
        _ => (text, 1),
    };
    let n: u64 = digits.parse().map_err(|_| bad())?;
    match n.checked_mul(unit) {
        Some(b) if ((1 << 20)..=(1 << 40)).contains(&b) => Ok(b),
        _ => Err(bad()),
    }
}

// `defer`: a subcommand's arguments are built only when it is the one
// invoked (or its help is shown): clap otherwise builds every
// subcommand's arguments at each start, ~40 % of the allocations of a
// two-line `execute` (jit/BENCH-LOG.md "Start-up, third pass").
#[derive(Subcommand)]
#[command(defer = true)]
enum Command {
    /// Run `main()` of FILE. stdout is the program's output; errors go to
    /// stderr; the exit code is main's i32 result (0 for None, 1 on error).
    #[command(after_help = "Example: spy-interp execute --engine jit --timeit prog.spy")]
    Execute {
        /// The engine that runs the program.
        #[arg(long, value_enum, default_value_t = EngineArg::Interp)]
        engine: EngineArg,
        /// Print the run's wall-clock time on stderr (the whole engine run:
        /// parsing, redshift and compilation included).
        #[arg(long)]
        timeit: bool,
        #[command(flatten)]
        limits: LimitArgs,
        file: PathBuf,
        /// `argv[1..]` of `main(argv: list[str])` (everything after FILE,
        /// flags included; `argv[0]` is FILE as given).
        #[arg(trailing_var_arg = true, allow_hyphen_values = true)]
        args: Vec<String>,
    },
    /// Show the machine code the jit engine runs for FILE: per function,
    /// the IR after lowering (with the source line of each statement), the
    /// register assignment and the disassembly (Intel syntax) annotated
    /// with those source lines. Nothing is run.
    #[command(after_help = "Example: spy-interp jit prog.spy")]
    Jit {
        #[command(flatten)]
        limits: LimitArgs,
        file: PathBuf,
    },
    /// Print the AST of FILE.
    #[command(after_help = "Example: spy-interp parse -f json prog.spy")]
    Parse {
        /// `ast` (one node a line) or `json`.
        #[arg(short = 'f', long = "format", value_enum, default_value_t = ParseFormat::Ast)]
        format: ParseFormat,
        file: PathBuf,
    },
    /// Print each scope's names with their kind (var/const), color and
    /// static type, as redshift evaluated them.
    #[command(after_help = "Example: spy-interp symtable prog.spy")]
    Symtable {
        #[command(flatten)]
        limits: LimitArgs,
        file: PathBuf,
    },
    /// Redshift FILE: run its blue code and print the typed residual module
    /// (output printed by blue code goes to stderr).
    #[command(
        visible_alias = "rs",
        after_help = "Example: spy-interp rs --provenance prog.spy    (or: spy-interp redshift -x prog.spy to run the residual module)"
    )]
    Redshift {
        /// `eager`: the first static error aborts; `lazy`: it becomes a
        /// `raise` at that point of the residual code; `warn`: lazy, and
        /// each such error is reported as a warning on stderr.
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
        /// Wrap residual lines longer than N columns (at least 20).
        #[arg(long, value_name = "N", default_value_t = 100,
              value_parser = clap::value_parser!(u32).range(20..=100_000))]
        width: u32,
        /// Execute the residual module instead of printing it (like
        /// `execute --engine doppler`, in the given error mode).
        #[arg(short = 'x', long = "execute")]
        execute: bool,
        /// With -x: print the run's wall-clock time on stderr.
        #[arg(long, requires = "execute")]
        timeit: bool,
        #[command(flatten)]
        limits: LimitArgs,
        file: PathBuf,
        /// With -x: arguments for the program. `main` takes no parameters in
        /// this version (spec §8.2), so any argument is refused.
        #[arg(trailing_var_arg = true, allow_hyphen_values = true, requires = "execute")]
        args: Vec<String>,
    },
    /// Show the source with every expression's color after redshift
    /// (blue: computed while redshifting; red: at run time).
    ///
    #[command(after_help = "Example: spy-interp colorize -f json prog.spy")]
    Colorize {
        /// `spy` (the source, in ANSI colors on a terminal, with marker
        /// lines otherwise or under NO_COLOR) or `json` (one record per
        /// expression: span, color, static type).
        #[arg(short = 'f', long = "format", value_enum, default_value_t = ColorFormat::Spy)]
        format: ColorFormat,
        #[command(flatten)]
        limits: LimitArgs,
        file: PathBuf,
    },
    /// Write one self-contained HTML page showing what FILE means: the
    /// source colored blue/red, the residual module beside it, the
    /// provenance links between them, and the JIT's IR and machine code.
    #[command(
        after_help = "Example: spy-interp explain prog.spy -o prog.html    (then open prog.html in a browser)"
    )]
    Explain {
        /// The page to write.
        #[arg(short = 'o', long = "output", value_name = "PAGE.html")]
        output: PathBuf,
        #[command(flatten)]
        limits: LimitArgs,
        file: PathBuf,
    },
    /// Run the conformance suite through every engine, in parallel.
    #[command(after_help = "Example: spy-interp conformance --engine jit -v")]
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
        /// Memory budget of each case on each engine (bytes, or with a
        /// K/M/G suffix; default 4G).
        #[arg(long, value_name = "SIZE", default_value = "4G", value_parser = parse_memory)]
        max_memory: u64,
    },
    /// Differential fuzzing: generate programs, run them on every engine,
    /// minimize and write what disagrees (exit code 1 if anything did).
    #[command(after_help = "Example: spy-interp fuzz --seconds 60 --engines interp,jit")]
    Fuzz(FuzzArgs),
    /// Merge the findings directories of several campaigns (e.g. the
    /// shards of one, `fuzz --shard i/n`) into one, one file per finding
    /// class (the campaign's own deduplication).
    #[command(after_help = "Example: spy-interp fuzz-merge shard0/ shard1/ --out fuzz-findings/")]
    FuzzMerge {
        /// Findings directories (`fuzz --out`), in priority order.
        #[arg(required = true)]
        dirs: Vec<PathBuf>,
        /// The merged directory (created if needed; its findings count as
        /// already kept).
        #[arg(long, value_name = "DIR")]
        out: PathBuf,
    },
    /// Internal: serve `spy-interp fuzz`'s engine runs over stdin/stdout
    /// (`spy_fuzz::worker`).
    #[command(hide = true)]
    FuzzWorker,
}

// `spy-interp fuzz` flags (see `spy_fuzz::campaign::FuzzOptions`). Not a
// doc comment: clap would take it for the subcommand's about text, which
// the deferred `Fuzz` variant's own must stay.
#[derive(clap::Args, Clone, Debug)]
struct FuzzArgs {
    /// Stop after N seconds (default 10 when --cases is not given); a
    /// number above 0 and at most a year.
    #[arg(long, value_name = "N", value_parser = parse_seconds)]
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
    /// Step fuel of the reference engine per program (at least 1).
    #[arg(long, default_value_t = 20_000, value_parser = clap::value_parser!(u64).range(1..))]
    fuel: u64,
    /// Memory budget of every run of a program (bytes, or with a K/M/G
    /// suffix; default 256M: a generated program needs a few MB, and a
    /// string doubled in a loop must end with MemoryError, not seconds of
    /// copying).
    #[arg(long, value_name = "SIZE", default_value = "256M", value_parser = parse_memory)]
    max_memory: u64,
    /// Worker threads (default: one per core; at least 1).
    #[arg(long, value_parser = parse_jobs)]
    jobs: Option<usize>,
    /// Only these features (comma-separated names).
    #[arg(long, value_name = "LIST")]
    features: Option<String>,
    /// Never these features (comma-separated names).
    #[arg(long, value_name = "LIST")]
    without: Option<String>,
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
    /// The engines compared, reference first (default: every engine), e.g.
    /// `--engines interp,doppler`.
    #[arg(long, value_name = "LIST", value_delimiter = ',', value_parser = parse_engine)]
    engines: Option<Vec<Engine>>,
    /// Run the jit engine in this process, not in worker processes (a
    /// crash of native code then ends the campaign).
    #[arg(long)]
    in_process: bool,
    /// Run only the case numbers ≡ I (mod N): N machines split one
    /// campaign deterministically (`--shard 0/4` ... `--shard 3/4`).
    #[arg(long, value_name = "I/N")]
    shard: Option<String>,
}

fn parse_engine(name: &str) -> Result<Engine, String> {
    Engine::from_name(name).ok_or_else(|| {
        let names: Vec<_> = Engine::ALL.iter().map(|e| e.name()).collect();
        format!("unknown engine `{name}` (engines: {})", names.join(", "))
    })
}

/// `--seconds`: a finite duration above 0, at most a year (what
/// `Duration::from_secs_f64` takes without panicking, and a sane bound).
fn parse_seconds(text: &str) -> Result<f64, String> {
    const YEAR: f64 = 365.0 * 24.0 * 3600.0;
    let s: f64 = text
        .parse()
        .map_err(|_| format!("`{text}` is not a number of seconds"))?;
    if s.is_finite() && s > 0.0 && s <= YEAR {
        Ok(s)
    } else {
        Err(format!(
            "`{text}` is not a duration above 0 and at most {YEAR} seconds (a year)"
        ))
    }
}

/// `--jobs`: at least one worker, at most 1024.
fn parse_jobs(text: &str) -> Result<usize, String> {
    match text.parse::<usize>() {
        Ok(n) if (1..=1024).contains(&n) => Ok(n),
        _ => Err(format!("`{text}` is not a number of workers from 1 to 1024")),
    }
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
            max_memory: self.max_memory,
            jobs: self.jobs,
            features: self.features,
            without: self.without,
            mutation: self.mutation.map(|m| m.0),
            reduce: self.reduce,
            no_reduce: self.no_reduce,
            quiet: self.quiet,
            engines: self.engines,
            in_process: self.in_process,
            shard: self.shard,
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
    // `execute` (and a bare FILE) runs the program on this thread while a
    // small thread of its own waits for the flushing signals
    // (`Stdout::while_running`); the other commands get a ctrlc thread.
    let out = match cli.command {
        Some(Command::Execute { .. }) | None => Stdout::unwatched(),
        _ => Stdout::new(),
    };
    let code = match cli.command {
        Some(Command::Execute {
            engine,
            timeit,
            limits,
            file,
            args,
        }) => timed(timeit, || execute(&out, engine, &file, &args, limits.limits())),
        Some(Command::Parse { format, file }) => parse(&out, format, &file),
        Some(Command::Symtable { limits, file }) => symtable(&out, limits.limits(), &file),
        Some(Command::Redshift {
            error_mode,
            execute: true,
            timeit,
            limits,
            file,
            args,
            ..
        }) => redshift_execute(&out, error_mode.mode(), timeit, limits.limits(), &file, &args),
        Some(Command::Jit { limits, file }) => jit_listing(&out, &file, limits.limits()),
        Some(Command::Redshift {
            error_mode,
            format,
            provenance,
            full_fqn,
            width,
            limits,
            file,
            ..
        }) => redshift(
            &out,
            error_mode,
            format,
            (provenance, full_fqn, width),
            limits.limits(),
            &file,
        ),
        Some(Command::Colorize { format, limits, file }) => colorize(&out, format, limits.limits(), &file),
        Some(Command::Explain { output, limits, file }) => explain(&output, limits.limits(), &file),
        Some(Command::Conformance {
            dir,
            shard,
            engine,
            verbose,
            max_memory,
        }) => run_conformance(&out, dir, shard, engine, verbose, max_memory),
        Some(Command::FuzzWorker) => spy_fuzz::worker::serve_stdio(),
        Some(Command::FuzzMerge { dirs, out: dir }) => {
            let mut w = out.clone();
            spy_fuzz::merge::main(&dirs, &dir, &mut w)
                .unwrap_or_else(|e| output::failed(&spy_interp::error::HostError::output(&e)))
        }
        Some(Command::Fuzz(args)) => {
            let mut w = out.clone();
            spy_fuzz::campaign::main(args.options(), &mut w)
                .unwrap_or_else(|e| output::failed(&spy_interp::error::HostError::output(&e)))
        }
        None => match cli.file {
            Some(file) => execute(&out, EngineArg::Interp, &file, &cli.args, cli.limits.limits()),
            None => {
                eprintln!("usage: spy-interp [execute|redshift|colorize|explain|symtable|parse|jit|conformance|fuzz] FILE (see --help)");
                2
            }
        },
    };
    if code == output::HOST_EXIT {
        // Already reported; flushing again would fail (and say so) again.
        return code;
    }
    match out.finish() {
        Ok(()) => code,
        Err(host) => host,
    }
}

/// Read a source file within the size limit; the exit code on failure
/// (2: it cannot be read; 1: it is too large, a ParseError).
fn read(path: &std::path::Path) -> Result<Vec<u8>, i32> {
    read_source(path).map_err(|e| match e {
        ReadSourceError::Io(e) => {
            eprintln!("error: cannot read {}: {e}", path.display());
            2
        }
        ReadSourceError::TooLarge(e) => {
            eprint!("{}", spy_interp::diag::render(&e));
            1
        }
    })
}

/// `spy-interp jit FILE`: the listing of what the jit engine compiles.
fn jit_listing(out: &Stdout, file: &std::path::Path, limits: Limits) -> i32 {
    let source = match read(file) {
        Ok(s) => s,
        Err(code) => return code,
    };
    let config = spy_interp::engine::RunConfig {
        limits,
        ..Default::default()
    };
    match spy_interp::engine::jit_listing(&file.to_string_lossy(), &source, config) {
        Ok(text) => out.emit(&text).err().unwrap_or(0),
        Err(why) => {
            eprint!("{why}");
            1
        }
    }
}

fn execute(out: &Stdout, engine: EngineArg, file: &std::path::Path, args: &[String], limits: Limits) -> i32 {
    let source = match read(file) {
        Ok(s) => s,
        Err(code) => return code,
    };
    if engine == EngineArg::Jit && limits.max_steps.is_some() {
        eprintln!("error: --max-steps is not supported by --engine jit (machine code counts no steps; see spec/17-jit.md)");
        return 2;
    }
    let target = engine.target();
    let config = spy_interp::engine::RunConfig {
        argv: Some(program_argv(file, args)),
        files: spy_interp::host::FileAccess::Host,
        // `import m` reads `m.spy` beside FILE
        modules: spy_interp::host::ModuleSources::Disk,
        ..target.config(limits)
    };
    // The program's output streams to stdout as it runs, on this thread, on
    // a stack of the depth limit's size (the engine's own hand-off to an
    // evaluator thread then runs in place), while a small thread waits for
    // the signals that flush it.
    let (path, writer, engine) = (file.to_string_lossy().into_owned(), out.clone(), target.engine);
    let run = out.while_running(config.limits.max_depth, move || {
        spy_interp::engine::run_program_source_to(engine, &path, source, config, Box::new(writer))
    });
    match run {
        Ok(outcome) => reported(&outcome),
        Err(e) => {
            eprintln!("internal error (a bug in spy-interp, please report it): {e}");
            spy_interp::engine::Outcome::BUG_EXIT
        }
    }
}

/// Print a run's report (or its host failure or internal error) on stderr;
/// the process's exit code.
fn reported(outcome: &spy_interp::engine::Outcome) -> i32 {
    if let Some(report) = &outcome.report {
        eprint!("{report}");
    }
    if let Some(host) = &outcome.host {
        return output::failed(host);
    }
    if let Some(bug) = &outcome.bug {
        eprintln!(
            "internal error (a bug in spy-interp, please report it): {}",
            bug.message
        );
    }
    outcome.exit
}

/// Run `f`; with `timeit`, print its wall-clock time on stderr.
fn timed(timeit: bool, f: impl FnOnce() -> i32) -> i32 {
    let start = std::time::Instant::now();
    let code = f();
    if timeit {
        eprintln!("timeit: {:.6} s", start.elapsed().as_secs_f64());
    }
    code
}

/// `redshift -x`: redshift in `mode`, then run the residual module.
/// `main(argv: list[str])`'s argv: FILE as given, then ARGS. It lives as
/// long as the process (one run per process; a `RunConfig` is `Copy`).
fn program_argv(file: &std::path::Path, args: &[String]) -> &'static [String] {
    let argv: Vec<String> = std::iter::once(file.to_string_lossy().into_owned())
        .chain(args.iter().cloned())
        .collect();
    Box::leak(argv.into_boxed_slice())
}

fn redshift_execute(
    out: &Stdout,
    mode: ErrorMode,
    timeit: bool,
    limits: Limits,
    file: &std::path::Path,
    args: &[String],
) -> i32 {
    let source = match read(file) {
        Ok(s) => s,
        Err(code) => return code,
    };
    let config = spy_interp::engine::RunConfig {
        argv: Some(program_argv(file, args)),
        files: spy_interp::host::FileAccess::Host,
        ..limits.into()
    };
    timed(timeit, || {
        let (outcome, warnings) = spy_interp::engine::run_redshifted_to(
            &file.to_string_lossy(),
            &source,
            mode,
            config,
            Box::new(out.clone()),
        );
        for w in &warnings {
            eprint!("warning: {w}");
        }
        reported(&outcome)
    })
}

fn symtable(out: &Stdout, limits: Limits, file: &std::path::Path) -> i32 {
    let source = match read(file) {
        Ok(s) => s,
        Err(code) => return code,
    };
    match spy_interp::inspect::symtable::symtable(&file.to_string_lossy(), &source, limits) {
        Ok(text) => out.emit(&text).err().unwrap_or(0),
        Err(report) => {
            eprint!("{report}");
            1
        }
    }
}

fn parse(out: &Stdout, format: ParseFormat, file: &std::path::Path) -> i32 {
    let source = match read(file) {
        Ok(s) => s,
        Err(code) => return code,
    };
    let path = file.to_string_lossy();
    let dumped = match format {
        ParseFormat::Ast => spy_interp::syntax::parse_command_output(&path, &source),
        ParseFormat::Json => spy_interp::syntax::parse_command_json(&path, &source),
    };
    match dumped {
        Ok(dump) => out.emit(&dump).err().unwrap_or(0),
        Err(e) => {
            eprint!("{}", spy_interp::diag::render(&e));
            1
        }
    }
}

fn redshift(
    out: &Stdout,
    error_mode: ErrorModeArg,
    format: FormatArg,
    (provenance, full_fqn, width): (bool, bool, u32),
    limits: Limits,
    file: &std::path::Path,
) -> i32 {
    let error_mode = error_mode.mode();
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
        record: false,
        width: width as usize,
        // (the text only: printed as redshift goes, unless a width, the
        // provenance or the AST asks for the whole tree)
        stream: matches!(format, Format::Spy),
    };
    let result =
        spy_interp::redshift::redshift_source(&file.to_string_lossy(), &source, options, format, limits);
    eprint!("{}", result.blue_stdout);
    for w in &result.warnings {
        eprint!("warning: {w}");
    }
    match result.result {
        Ok(text) => out.emit(&text).err().unwrap_or(0),
        Err(report) => {
            eprint!("{report}");
            1
        }
    }
}

fn colorize(out: &Stdout, format: ColorFormat, limits: Limits, file: &std::path::Path) -> i32 {
    let source = match read(file) {
        Ok(s) => s,
        Err(code) => return code,
    };
    let ins = match spy_interp::inspect::inspect(&file.to_string_lossy(), &source, limits, false) {
        Ok(ins) => ins,
        Err(report) => {
            eprint!("{report}");
            return 1;
        }
    };
    eprint!("{}", ins.blue_stdout);
    let text = match format {
        ColorFormat::Json => spy_interp::inspect::colorize::render_json(&ins),
        ColorFormat::Spy => {
            use std::io::IsTerminal as _;
            let plain = std::env::var_os("NO_COLOR").is_some_and(|v| !v.is_empty())
                || !std::io::stdout().is_terminal();
            let style = if plain {
                spy_interp::inspect::colorize::Style::Plain
            } else {
                spy_interp::inspect::colorize::Style::Ansi
            };
            spy_interp::inspect::colorize::render_text(&ins, style)
        }
    };
    out.emit(&text).err().unwrap_or(0)
}

fn explain(output: &std::path::Path, limits: Limits, file: &std::path::Path) -> i32 {
    let source = match read(file) {
        Ok(s) => s,
        Err(code) => return code,
    };
    let ins = match spy_interp::inspect::inspect(&file.to_string_lossy(), &source, limits, true) {
        Ok(ins) => ins,
        Err(report) => {
            eprint!("{report}");
            return 1;
        }
    };
    let page = spy_interp::inspect::explain::render_page(&ins);
    match std::fs::write(output, page) {
        Ok(()) => {
            eprintln!("wrote {}", output.display());
            0
        }
        Err(e) => {
            eprintln!("error: cannot write {}: {e}", output.display());
            2
        }
    }
}

fn run_conformance(
    out: &Stdout,
    dir: Option<PathBuf>,
    shard: Option<String>,
    engine: Option<EngineArg>,
    verbose: bool,
    max_memory: u64,
) -> i32 {
    let found = match &dir {
        Some(dir) => conformance::discover(dir).map_err(|e| (dir.display().to_string(), e)),
        None => Ok(conformance::bundled_suite()),
    };
    let mut cases = match found {
        Ok(c) => c,
        Err((dir, e)) => {
            eprintln!("error: cannot read conformance suite {dir}: {e}");
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
    let bounds = conformance::CaseBounds {
        max_memory,
        ..conformance::CaseBounds::default()
    };
    let verdicts = conformance::run_all_with(&cases, &targets, bounds, || bar.inc(1));
    bar.finish_and_clear();
    let mut text = String::new();
    let mut failed = 0;
    for v in verdicts.iter().filter(|v| !v.passed) {
        failed += 1;
        let _ = writeln!(text, "FAIL [{}] {}", v.target, v.case);
        if verbose {
            let _ = writeln!(text, "{}", v.detail);
        }
    }
    text.push('\n');
    let width = targets.iter().map(|t| t.name().len()).max().unwrap_or(0).max(6);
    let _ = writeln!(text, "{:<width$} {:>7} {:>7}", "engine", "passed", "failed");
    for target in &targets {
        let mine: Vec<_> = verdicts.iter().filter(|v| v.target == *target).collect();
        let passed = mine.iter().filter(|v| v.passed).count();
        let _ = writeln!(
            text,
            "{:<width$} {:>7} {:>7}",
            target.name(),
            passed,
            mine.len() - passed
        );
    }
    let jit: Vec<_> = verdicts
        .iter()
        .filter(|v| v.target.engine == Engine::Jit)
        .collect();
    if !jit.is_empty() {
        let native = jit.iter().filter(|v| v.native == Some(true)).count();
        println!(
            "jit coverage: {native}/{} cases run natively ({:.1}%); the rest are listed in spec/17-jit.md",
            jit.len(),
            100.0 * native as f64 / jit.len() as f64
        );
    }
    let modes = targets.iter().filter(|t| t.is_mode()).count();
    let plain = targets.len() - modes;
    let _ = writeln!(
        text,
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
    if let Err(code) = out.emit(&text) {
        return code;
    }
    i32::from(failed != 0)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `fuzz --max-memory`'s default, written as `256M` for `--help`, is
    /// the campaign budget the fuzz crate documents and tests.
    #[test]
    fn fuzz_memory_default_is_the_campaign_budget() {
        let cli = Cli::try_parse_from(["spy-interp", "fuzz"]).expect("`fuzz` alone parses");
        let Some(Command::Fuzz(args)) = cli.command else {
            panic!("`fuzz` is the fuzz command");
        };
        assert_eq!(args.options().max_memory, spy_fuzz::oracle::FUZZ_MAX_MEMORY);
    }
}
