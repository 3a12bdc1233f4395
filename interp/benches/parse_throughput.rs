//! Parser throughput (a benchmark, not a test): generates about 1 MB of
//! realistic SPy (structs, methods, loops, calls, arithmetic, strings,
//! blue generics) and reports the MB/s of `syntax::parse_module` (the drop
//! of the returned tree is not timed), and of the lexer alone for comparison.
//! Median and best of at least 10 runs are printed: the best is the least
//! disturbed by other load on the machine.
//!
//! Run: `cargo bench --bench parse_throughput` (release profile). With
//! `PARSE_BENCH_ONCE=1` the binary parses once and exits, for profilers
//! (`valgrind --tool=callgrind target/release/deps/parse_throughput-*`).

use std::fmt::Write as _;
use std::hint::black_box;
use std::time::{Duration, Instant};

use spy_interp::source::SourceFile;
use spy_interp::syntax::{lexer, parse_module};

/// A small deterministic generator (no dependency, same text every run).
struct Lcg(u64);

impl Lcg {
    fn next(&mut self, n: u64) -> u64 {
        self.0 = self
            .0
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        (self.0 >> 33) % n
    }
}

fn generate(target_bytes: usize) -> String {
    let mut rng = Lcg(42);
    let mut out = String::from(
        "\"\"\"Generated benchmark module.\"\"\"\n\nfrom operator import OpSpec\nimport math\n\n",
    );
    let mut n = 0;
    while out.len() < target_bytes {
        let k = rng.next(1000);
        let m = if n == 0 { 0 } else { rng.next(n) };
        let op = ["+", "-", "*", "//", "%", "<<", "&", "|"][rng.next(8) as usize];
        let _ = write!(
            out,
            r#"@struct
class Point{n}:
    x: i32
    y: i32

    def norm2(self) -> i32:
        return self.x * self.x + self.y * self.y

    def shifted(self, dx: i32, dy: i32) -> Point{n}:
        return Point{n}(self.x + dx, self.y + dy)

def helper_{n}(a: i32, b: i32) -> i32:
    return (a {op} b) * {k} - (a // (b + 1))

def compute_{n}(a: i32, b: i32, values: list[i32]) -> i32:
    """Compute something for case {n}."""
    total: i32 = 0
    var i = 0
    const limit: i32 = a * 2 + {k}
    while i < limit:
        if i % 3 == 0 and b > {k}:
            total += values[i] * {k} - (b // 2)
        elif i % 5 == 1 or not (b < 0):
            total = total - helper_{m}(i, b + {k})
        else:
            print("iteration", i, 'value: {n}\n')
        i += 1
    for j in range(b):
        total = total + j ** 2 - abs(-j) + values[j:j + 2][0]
    p = Point{n}(a, b).shifted(1, -1)
    name = "compute" + '_' + str({n})
    pair = (total, name)
    total, name = pair
    return total + p.norm2() if total > 0 else -total

@blue.generic
def make_{n}(T):
    def impl(x: T, y: T) -> T:
        return x + y * T(2)
    return impl

"#
        );
        n += 1;
    }
    out
}

/// Time `f` (not the drop of what it returns) until both 10 runs and 2
/// seconds are reached, after one warm-up run.
fn measure<T>(bytes: usize, runs: &mut Vec<Duration>, mut f: impl FnMut() -> T) -> (f64, f64) {
    drop(f());
    let started = Instant::now();
    while runs.len() < 10 || started.elapsed() < Duration::from_secs(2) {
        let t = Instant::now();
        let out = f();
        runs.push(t.elapsed());
        drop(black_box(out));
    }
    runs.sort();
    let mb = bytes as f64 / 1e6;
    let median = mb / runs[runs.len() / 2].as_secs_f64();
    let best = mb / runs[0].as_secs_f64();
    (median, best)
}

fn main() {
    let src = generate(1 << 20);
    let bytes = src.len();
    let file = SourceFile::new("bench.spy", src);
    let module = match parse_module(&file) {
        Ok(m) => m,
        Err(e) => panic!("the generated source must parse: {}", e.headline()),
    };
    if std::env::var_os("PARSE_BENCH_ONCE").is_some() {
        return;
    }
    println!(
        "input: {bytes} bytes, {} lines, {} top-level statements, {} names",
        file.text().lines().count(),
        module.body().len(),
        module.name_count
    );

    let mut runs = Vec::new();
    let (median, best) = measure(bytes, &mut runs, || parse_module(black_box(&file)).ok());
    println!(
        "parse_module: {median:.1} MB/s median, {best:.1} MB/s best ({} runs)",
        runs.len()
    );

    let mut runs = Vec::new();
    let (median, best) = measure(bytes, &mut runs, || {
        lexer::Lexer::new(black_box(file.text())).count()
    });
    println!(
        "lexer only:   {median:.1} MB/s median, {best:.1} MB/s best ({} runs)",
        runs.len()
    );
}
