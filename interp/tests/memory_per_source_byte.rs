//! Heap bytes per source byte of a large valid program (issue 14 item 5),
//! measured with a counting global allocator, phase by phase: the parsed
//! AST, the resolution, then the peak of a whole run in each engine. The
//! ceilings keep the figures from growing back; `bench/memory_per_source_byte.py`
//! reports the same thing as peak RSS of the binary.
//!
//! One test function: the allocator's counters are process-wide, so the
//! phases must not run concurrently with anything else.

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicUsize, Ordering::Relaxed};

use spy_interp::engine::{run_program_source_to, Engine, Limits, RunConfig};
use spy_interp::syntax::ast::{ExprKind, Module, StmtKind};
use spy_interp::syntax::walk::{children, module_children, NodeRef};

struct Counting;

static LIVE: AtomicUsize = AtomicUsize::new(0);
static PEAK: AtomicUsize = AtomicUsize::new(0);

unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        let p = unsafe { System.alloc(layout) };
        if !p.is_null() {
            let now = LIVE.fetch_add(layout.size(), Relaxed) + layout.size();
            PEAK.fetch_max(now, Relaxed);
        }
        p
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        unsafe { System.dealloc(ptr, layout) };
        LIVE.fetch_sub(layout.size(), Relaxed);
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        let p = unsafe { System.realloc(ptr, layout, new_size) };
        if !p.is_null() {
            if new_size >= layout.size() {
                let now = LIVE.fetch_add(new_size - layout.size(), Relaxed) + new_size - layout.size();
                PEAK.fetch_max(now, Relaxed);
            } else {
                LIVE.fetch_sub(layout.size() - new_size, Relaxed);
            }
        }
        p
    }
}

#[global_allocator]
static ALLOCATOR: Counting = Counting;

/// The program `bench/memory_per_source_byte.py` generates: functions of a
/// few statements each, every one calling the one before; `main` calls
/// `f5`. With `call_all` (the script's `--call-all`), the functions form
/// chains of [`CHAIN`] (the first of each returns `a + b`) and `main` calls
/// the last of every chain, so every function runs once: a cut that is
/// free only for code that never runs shows as such.
fn generate(size: usize, call_all: bool) -> String {
    let mut out = String::from("def f0(a: i32, b: i32) -> i32:\n    return a + b\n\n");
    let mut i = 1;
    while out.len() < size {
        if call_all && i % CHAIN == 0 {
            out.push_str(&format!("def f{i}(a: i32, b: i32) -> i32:\n    return a + b\n\n"));
        } else {
            out.push_str(&format!(
                "def f{i}(a: i32, b: i32) -> i32:\n    x = a * 3 + b\n    y = x - (a // 2)\n\
                 \x20   if y > 100:\n        y = y % 7\n    return f{}(y, b)\n\n",
                i - 1
            ));
        }
        i += 1;
    }
    out.push_str("def main() -> None:\n");
    if call_all {
        let last = i - 1;
        let mut end = CHAIN - 1;
        while end < last {
            out.push_str(&format!("    print(f{end}(1, 2))\n"));
            end += CHAIN;
        }
        out.push_str(&format!("    print(f{last}(1, 2))\n"));
    } else {
        out.push_str("    print(f5(1, 2))\n");
    }
    out
}

/// The calls of one chain of `generate(_, true)` (well under the recursion
/// limit).
const CHAIN: usize = 100;

/// Peak heap bytes above what was live before, while `run` runs.
fn peak_of<R>(run: impl FnOnce() -> R) -> (R, usize) {
    let before = LIVE.load(Relaxed);
    PEAK.store(before, Relaxed);
    let r = run();
    (r, PEAK.load(Relaxed) - before)
}

/// Where the AST's bytes are: (nodes, bytes of the nodes themselves) per
/// node kind, counted by walking the tree. A statement or expression is
/// counted at its stored size (packed: an expression 8 bytes, a statement
/// 12; one in a far table is not counted apart); a `def` adds its record, a parameter its
/// record, an identifier of the table its entry; list entries and vector
/// slack are not counted.
fn profile(module: &Module) -> Vec<(&'static str, usize, usize)> {
    use spy_interp::syntax::ast::{
        FuncRecord, Identifier, ParamRecord, STORED_EXPR_BYTES, STORED_STMT_BYTES,
    };
    use spy_interp::syntax::walk::IdentAt;
    use std::collections::BTreeMap;
    use std::mem::size_of;
    let mut by_kind: BTreeMap<&'static str, (usize, usize)> = BTreeMap::new();
    // (A node's range is stored beside it in 6 bytes.)
    const RANGE: usize = 6;
    fn visit<'a>(n: NodeRef<'a>, by_kind: &mut BTreeMap<&'static str, (usize, usize)>) {
        let (kind, bytes) = match &n {
            NodeRef::Stmt(s) => match s.kind() {
                StmtKind::FuncDef(_) => (
                    "Stmt::FuncDef (+ its FuncRecord)",
                    STORED_STMT_BYTES + RANGE + size_of::<FuncRecord>(),
                ),
                StmtKind::Assign { .. } => ("Stmt::Assign", STORED_STMT_BYTES + RANGE),
                StmtKind::If { .. } => ("Stmt::If", STORED_STMT_BYTES + RANGE),
                StmtKind::Return(_) => ("Stmt::Return", STORED_STMT_BYTES + RANGE),
                _ => ("Stmt (other)", STORED_STMT_BYTES + RANGE),
            },
            NodeRef::Expr(e) => match e.kind() {
                ExprKind::Name(_) => ("Expr::Name", STORED_EXPR_BYTES + RANGE),
                ExprKind::Int(_) => ("Expr::Int", STORED_EXPR_BYTES + RANGE),
                ExprKind::BinOp { .. } | ExprKind::Compare { .. } => {
                    ("Expr::BinOp/Compare", STORED_EXPR_BYTES + RANGE)
                }
                ExprKind::Call { .. } => ("Expr::Call", STORED_EXPR_BYTES + RANGE),
                _ => ("Expr (other)", STORED_EXPR_BYTES + RANGE),
            },
            NodeRef::Target(_) => ("Expr (assignment target)", STORED_EXPR_BYTES + RANGE),
            NodeRef::Param(..) => ("ParamNode", size_of::<ParamRecord>()),
            NodeRef::Ident(i) if matches!(i.at, IdentAt::Table(_)) => {
                ("Identifier (table)", size_of::<Identifier>())
            }
            NodeRef::ImportName(..) | NodeRef::Ident(_) => ("Identifier (in a name expression)", 0),
        };
        let e = by_kind.entry(kind).or_default();
        e.0 += 1;
        e.1 += bytes;
        children(n, &mut |c| visit(c, by_kind));
    }
    module_children(module, &mut |n| visit(n, &mut by_kind));
    by_kind.into_iter().map(|(k, (n, b))| (k, n, b)).collect()
}

fn config() -> RunConfig {
    Limits::default().into()
}

/// The peak heap of a whole run of `text` in each engine (interp,
/// doppler, jit), each run as the binary runs it: on the native stack the
/// depth limit asks for, the source text given away (held once, as the
/// module's `SourceFile`; `run_interp(path, &[u8], ..)` would hold a
/// second copy for the whole run).
fn engine_peaks(text: &str) -> (usize, usize, usize) {
    let mut peaks = [0; 3];
    for (k, engine) in [Engine::Interp, Engine::Doppler, Engine::Jit]
        .into_iter()
        .enumerate()
    {
        let (outcome, peak) = peak_of(|| {
            run_program_source_to(
                engine,
                "big.spy",
                text.as_bytes().to_vec(),
                config(),
                Box::new(std::io::sink()),
            )
        });
        assert!(
            outcome.exit == 0 && outcome.bug.is_none() && outcome.not_native.is_none(),
            "{}: exit {} {:?} {:?}",
            engine.name(),
            outcome.exit,
            outcome.error,
            outcome.not_native
        );
        peaks[k] = peak;
    }
    (peaks[0], peaks[1], peaks[2])
}

#[test]
fn heap_per_source_byte_stays_within_its_ceilings() {
    let text = generate(1_000_000, false);
    let n = text.len() as f64;
    let per = |bytes: usize| bytes as f64 / n;

    let before = LIVE.load(Relaxed);
    let ((file, module), parse_peak) =
        peak_of(|| spy_interp::syntax::parse_bytes("big.spy", text.as_bytes()).expect("parses"));
    let ast = LIVE.load(Relaxed) - before;
    for (kind, count, bytes) in profile(&module) {
        eprintln!("AST profile: {kind:40} {count:8} nodes {:6.2}x", bytes as f64 / n);
    }
    let before = LIVE.load(Relaxed);
    let (res, resolve_peak) =
        peak_of(|| spy_interp::resolve::resolve_module(&module, &file).expect("resolves"));
    let resolution = LIVE.load(Relaxed) - before;
    drop((res, module, file));

    // Interp's phases: the module parsed, resolved and initialized as the
    // interp engine does it (every `def` executed, the records of simple
    // ones deferred to their first use: the runtime records), before
    // `main` runs.
    let owned = text.clone();
    let (loaded, load_peak) = peak_of(|| {
        spy_interp::native_stack::run(config().limits.max_depth, {
            let text = owned;
            move || {
                let mut sink = std::io::sink();
                let before = LIVE.load(Relaxed);
                let mut interp = spy_interp::frames::Interp::new(&mut sink, config());
                interp.defer_defs = true;
                let (file, module) =
                    spy_interp::syntax::parse_bytes("big.spy", text.as_bytes()).expect("parses");
                let loaded = interp.load_parsed_module_as(file, module, "big");
                assert!(loaded.is_ok(), "loads");
                LIVE.load(Relaxed) - before
            }
        })
        .expect("runs")
    });
    let records = loaded - ast - resolution;

    let (interp, doppler, jit) = engine_peaks(&text);
    let all_text = generate(1_000_000, true);
    let (all_interp, all_doppler, all_jit) = engine_peaks(&all_text);
    let per_all = |bytes: usize| bytes as f64 / all_text.len() as f64;

    // Doppler's phases: the redshift (source module and residual module
    // alive), then printing and parsing the residual module back.
    let owned = text.clone();
    let (phases, _) = peak_of(|| {
        spy_interp::native_stack::run(config().limits.max_depth, {
            let text = owned;
            move || {
                let mut sink = std::io::sink();
                let base = LIVE.load(Relaxed);
                let (residual, redshift) = peak_of(|| {
                    let mut interp = spy_interp::frames::Interp::new(&mut sink, config());
                    // (as the engines redshift: each function printed once
                    // shifted, simple `def`s' records made when used)
                    interp.defer_defs = true;
                    let source = spy_interp::redshift::ProgramInput::Source(text.into_bytes());
                    let options = spy_interp::redshift::RedshiftOptions {
                        error_mode: spy_interp::redshift::ErrorMode::Lazy,
                        stream: true,
                        ..Default::default()
                    };
                    interp.redshift_program_with("big.spy", source, options).ok()
                });
                let residual = residual.expect("redshifts");
                let kept = LIVE.load(Relaxed) - base;
                let (printed, print) =
                    peak_of(|| spy_interp::redshift::print_checked(residual, "big.spy (residual code)").ok());
                let printed = printed.expect("prints and parses back");
                let parsed = LIVE.load(Relaxed) - base;
                let text_and_map = (printed.file.len(), printed.map.origins.byte_len());
                // The run phase: the residual module (text, map, tree)
                // resolved, initialized and run, the source module gone.
                let (code, run) = peak_of(|| {
                    let mut interp = spy_interp::frames::Interp::new(&mut sink, config());
                    // (as the doppler engine runs it, `def` records on first use)
                    interp.defer_defs = true;
                    let (file, module, modname, map) = printed.preload(&mut interp);
                    let code = interp.run_parsed_module_as(file, module, &modname).ok();
                    drop(map);
                    code
                });
                assert_eq!(code, Some(0));
                (redshift, kept, print, parsed + run, text_and_map)
            }
        })
        .expect("runs")
    });
    eprintln!(
        "the printed residual module: text {:.2}x, map back to the source {:.2}x",
        per(phases.4 .0),
        per(phases.4 .1)
    );
    eprintln!(
        "doppler phases: redshift peak {:.1}x, of which the residual module it returns {:.1}x \
         (with the source text its map points into); print+parse back peak {:.1}x above that; \
         run phase (the residual program alone) peak {:.1}x",
        per(phases.0),
        per(phases.1),
        per(phases.2),
        per(phases.3)
    );
    eprintln!(
        "interp phases: parse peak {:.2}x, resolve peak {:.2}x above the AST; module loaded (AST, resolution, runtime records) {:.2}x, load peak {:.2}x; \
         the runtime records made by module init {:.2}x",
        per(parse_peak),
        per(resolve_peak),
        per(loaded),
        per(load_peak),
        per(records)
    );
    eprintln!(
        "source {n} bytes: AST {:.2}x, resolution {:.2}x; peak heap: interp {:.1}x, doppler {:.1}x, jit {:.1}x",
        per(ast),
        per(resolution),
        per(interp),
        per(doppler),
        per(jit)
    );
    eprintln!(
        "every function called ({} bytes): peak heap: interp {:.1}x, doppler {:.1}x, jit {:.1}x",
        all_text.len(),
        per_all(all_interp),
        per_all(all_doppler),
        per_all(all_jit)
    );
    // Measured when a parsed file's text was kept LZ4-compressed (the
    // generated program packs to about a tenth), a streaming redshift
    // deferred simple `def`s' records and gave them back once shifted,
    // printed its residual text in compressed 1 MiB pieces, and the jit
    // engine deferred records too (release test build): AST 5.40x (with
    // the packed text; 6.33x), interp 8.3x, doppler 10.9x (12.9x; redshift
    // peak 9.9x, 11.9x; run phase 7.6x, 9.5x), jit 10.9x; with every
    // function called: interp 8.3x (9.1x), doppler 10.9x (13.0x), jit
    // 41.3x (43.2x).
    // Measured when a statement node was stored packed in 12 bytes (16
    // before) (release test build): AST 6.33x, parse peak 8.30x, interp
    // 8.3x, doppler 12.9x (redshift peak 11.9x, print+parse back 6.3x
    // above the residual module, run phase 9.5x), jit 12.9x; with every
    // function called: interp 9.1x, doppler 13.0x, jit 43.2x.
    // Measured when an expression node was stored packed in 8 bytes (12
    // before) and the map back to the source left out an origin whose
    // source range is that of the nearest printed node around it (release
    // test build): AST 6.52x (7.31x), parse peak 8.50x (9.50x), interp
    // 8.5x (9.5x), doppler 13.1x (13.9x; redshift peak 12.1x, print+parse
    // back 6.6x above the residual module it returns, run phase 9.7x,
    // 11.0x before), jit 13.1x; the map 0.59x (1.04x); with every
    // function called: interp 9.3x (10.1x), doppler 13.2x, jit 43.4x.
    // Measured when the map back to the source wrote an origin laid out
    // as in the source (the same start delta and length printed as in the
    // source) as two numbers, not four (map 2.1x -> 1.04x; release test
    // build): doppler 13.9x (redshift peak 12.9x, the residual module it
    // returns 3.0x, print+parse back 8.1x above that, run phase 11.0x),
    // jit 13.9x; with every function called: doppler 13.9x, jit 44.7x.
    // Also measured then: the printed residual text 1.06x.
    // Measured when redshift printed each residual function once shifted
    // and cut the residual tree back (release test build): doppler 15.0x
    // (19.2x before; redshift peak 14.0x as the engines redshift, 19.2x
    // building the whole tree; the residual module it returns, text and
    // map, 4.1x; print+parse back 7.2x above that; run phase 11.2x: the
    // 12.2x before counted a copy of the source text the phases no longer
    // make), jit 15.0x; with every function called: doppler 15.0x, jit
    // 44.9x.
    // Measured when a `Function` went from 80 to 64 bytes (its module read
    // from its code, its closure a thin pointer, its return type in the
    // parameter record its type shares) and module frames shared one empty
    // closure: with every function called, interp 10.3x -> 10.1x; doppler
    // 19.3x -> 19.2x.
    // Measured when the inliner gave back its blocks' spare room (jit with
    // every function called 59.6x -> 46.5x; 45.0x once the IR builder's
    // finished blocks and the error table gave back theirs), the printed
    // residual text its
    // own, and the doppler engine ran the residual program with `def`
    // records on first use (run phase alone 14.0x -> 12.2x) (release test
    // build): interp 9.5x, doppler 19.3x (the redshift peak), jit 19.3x.
    // Measured when the validator's stack held statement ids instead of
    // views (parse peak 10.18x -> 9.50x), a name's text became one
    // allocation behind a thin pointer (`arcstr`: AST 7.43x -> 7.31x) and
    // the interp engine deferred the records of simple module-level
    // `def`s to their first use (runtime records 1.24x -> 0.29x) (release
    // test build): interp 9.5x (10.3x), doppler 19.3x (19.6x; redshift
    // peak 19.3x, the residual module 8.2x of it, run phase alone 14.0x),
    // jit 19.3x. With every function called: interp 10.3x (every record
    // made), doppler 19.3x, jit 59.6x.
    // Measured when node ranges were packed beside the nodes (a 4-byte
    // start and a 2-byte length, 64 KiB and longer in a side table: an
    // expression 20 -> 18 bytes, a statement 24 -> 22, a parameter 24 ->
    // 20, a `def` record 36 -> 32), a function's presets, `*args` and
    // inferred return type were boxed together (`Function` 104 -> 80
    // bytes) and a module-level `def`'s FQN was marked on its global slot
    // instead of kept in the FQN set (debug test build: the figures are
    // the release build's): AST 7.43x (8.01x before), resolution 1.61x,
    // runtime records 1.24x (1.70x), parse peak 10.18x (10.65x), interp
    // 10.3x (11.4x), doppler 19.6x (21.3x; redshift peak 19.6x, the
    // residual module 8.4x of it, run phase alone 14.2x, 15.3x before),
    // jit 19.6x. With every function called: interp 10.3x, doppler 19.6x,
    // jit 59.7x (60.7x).
    // Measured when expression nodes went from 24 to 20 bytes (a name
    // expression names its text by its 4-byte entry in the module's name
    // table, 64-bit literals as two halves, a call's callee and a
    // subscript's value first in its item list, conditional expressions,
    // slices and generator expressions in side tables) and a `def`'s
    // decorators and type parameters went to a side table (its record 52
    // -> 36 bytes) (release test build, each engine run as the binary
    // runs it): AST 8.01x (8.84x before), resolution 1.61x, runtime
    // records 1.70x, parse peak 10.65x (11.58x), interp 11.4x (12.2x),
    // doppler 21.3x (23.2x; redshift peak 21.3x, the residual module 9.0x
    // of it, run phase alone 15.3x), jit 21.3x. With every function
    // called: interp 11.4x, doppler 21.3x, jit 60.3x.
    // Measured when the runtime records and the resolution were packed
    // (release test build, LTO off; each engine run as the binary runs
    // it, the source held once): AST 8.84x, resolution 1.61x (2.31x
    // before: scopes inline in the resolution, 16-byte symbols, a 4-byte
    // name index entry), runtime records 1.69x (2.42x: no FuncCode record
    // per `def`, parameter lists shared by type, presets and parameters one
    // pointer each), interp 12.2x (13.0x measured the same way before;
    // 14.6x when the test held a second copy of the source), doppler 23.2x
    // (24.1x; redshift peak 23.2x, run phase alone 16.2x, 17.0x before), jit 23.2x. With
    // every function called: interp 12.2x, doppler 23.2x, jit 59.8x.
    // Measured when scopes lost their qualified name and were kept by
    // `FuncId` (release test build, LTO off): AST 8.8x, resolution 2.3x
    // (3.0x before), interp 14.6x (15.2x), doppler 25.7x (26.3x; redshift
    // peak 24.7x, the residual module 9.9x of it; the run phase alone
    // 17.6x, 18.2x before), jit 25.7x. With every function called
    // (`generate(_, true)`): interp 14.6x, doppler 25.7x, jit 62.2x: the
    // JIT lowers and compiles only what `main` can reach, so here every
    // function, and the lowered IR with its error table is about 3.6 KB a
    // five-statement function before inlining, 2.7 KB more after it
    // (probed by RSS: 3 MB program, 77 -> 142 -> 197 MB).
    // Re-measured on 1c5dbdd (release test build): AST 8.8x, resolution
    // 3.0x, interp 15.2x, doppler 26.3x (redshift peak 25.3x, the residual
    // module 9.9x of it; the run phase alone 18.2x: residual tree 8.9x,
    // its text 1.1x, the map, then its resolution and runtime records
    // 5.5x), jit 26.3x. Printing each residual function as it is shifted
    // (not keeping the residual tree until the end) would leave doppler's
    // peak at the run phase's, about 18x.
    // Measured when the ceilings were last set (a read of a red local one
    // residual node, residual node vectors reserved from the source
    // length): AST 8.8x, resolution 3.0x, interp 15.2x, doppler 26.3x
    // (redshift peak 25.3x, the residual module 9.9x of it), jit 26.3x;
    // before: doppler 28.8x (redshift peak 27.8x, residual module 11.4x).
    // Before the arena AST (issue 14): AST 13.7x,
    // resolution 3.2x, interp 22.0x, doppler 37.4x (redshift peak 36.4x,
    // the residual module 15.9x of it), jit 37.4x. Before residual blocks
    // lost their spare capacity: doppler 39.1x (residual module 17.6x).
    // The AST by node kind (the profile printed above): name expressions
    // 3.7x, binary operations and comparisons 1.8x, integer literals 1.2x,
    // `def` statements with their records 2.0x, assignments 1.7x and
    // their boxed targets 1.1x, parameters 1.4x. Before names were thin
    // pointers, call arguments boxed slices and the tests of compound
    // statements boxed (Expr 48 -> 40 bytes, Stmt 112 -> 72): AST 16.6x,
    // resolution 3.6x, interp 25.3x, doppler 46.6x (redshift peak 45.6x),
    // jit 46.6x. Before the resolver's name table was packed (4 bytes a
    // name occurrence instead of 12) and redshift's table of shifted
    // functions kept each `def` in its `Rc` (not inline in a hash table):
    // resolution 4.6x, interp 26.2x, doppler 50.6x; before names were
    // interned and nodes shrunk: AST 25.0x, interp 34.7x, doppler 67.2x.
    assert!(per(ast) < 5.7, "AST {:.1}x", per(ast));
    assert!(per(parse_peak) < 8.6, "parse peak {:.1}x", per(parse_peak));
    assert!(per(resolution) < 1.8, "resolution {:.1}x", per(resolution));
    assert!(per(interp) < 8.6, "interp {:.1}x", per(interp));
    assert!(per(doppler) < 11.4, "doppler {:.1}x", per(doppler));
    assert!(per(jit) < 11.4, "jit {:.1}x", per(jit));
    assert!(
        per(phases.4 .1) < 0.7,
        "the map back to the source {:.2}x",
        per(phases.4 .1)
    );
    // (the redshift peak as the engines redshift: printed as it goes)
    assert!(
        per(phases.0) < 10.4,
        "doppler's redshift peak {:.1}x",
        per(phases.0)
    );
    assert!(
        per_all(all_interp) < 8.7,
        "interp, every function called {:.1}x",
        per_all(all_interp)
    );
    assert!(
        per_all(all_doppler) < 11.4,
        "doppler, every function called {:.1}x",
        per_all(all_doppler)
    );
    assert!(
        per_all(all_jit) < 43.0,
        "jit, every function called {:.1}x",
        per_all(all_jit)
    );
    assert!(per(phases.3) < 8.0, "doppler's run phase {:.1}x", per(phases.3));
    assert!(per(records) < 0.4, "runtime records {:.2}x", per(records));
}
