//! Lowering: the typed residual module (spec §16.5), loaded and initialized
//! in an `Interp` like any module, into `spy_jit::ir` — and running it.
//!
//! | file         | owns                                                         |
//! |--------------|--------------------------------------------------------------|
//! | `mod.rs`     | the program: which functions, their IR signatures, `LowerError` |
//! | `layout.rs`  | static type → flattened IR registers; IR words ↔ `Scalar`    |
//! | `func.rs`    | one function body: locals, statements, control flow          |
//! | `expr.rs`    | expressions, calls, builtins, conversions                    |
//! | `ptr.rs`     | pointers: allocation, item loads and stores, display         |
//! | `memref.rs`  | references (`gc_ref[T]`) and struct fields through pointers and references |
//! | `interp_list.rs` | the `interp_list[T](a, b, ...)` constructor (a `list[T]`) |
//! | `interp_tuple.rs` | red interp tuple locals of a known shape               |
//! | `bytes.rs`   | `bytes` values: str-like handles, literals, operators, `b[i]`, methods |
//! | `exception.rs` | `Exception` values: kind and message, made by ASTFrame, their text |
//! | `dict.rs`    | `dict[K, V]`: handles; display, `[]`, methods, `in`, `for`, `==`, text |
//! | `list.rs`    | `list[T]`: display, index, len, methods, text                |
//! | `wide_list.rs` | `list[T]` of items of several registers (structs, tuples): items by parts |
//! | `globals.rs` | module `var` globals: slots in an area owned by the run |
//! | `errors.rs`  | error codes and call sites → the `SpyError` ASTFrame raises  |
//! | `simd.rs`    | `SIMD[T, N]`: vector registers, lane-wise operators, lanes, printing |
//! | `helpers.rs` | the runtime helpers (`extern "C"`, the interpreter's functions) |
//! | `bytes_rt.rs` | the runtime helpers of `bytes` (`vm::ops::bytes`)          |
//! | `dict_rt.rs` | the runtime helpers of dicts (entries of words, `vm::dict`'s order) |
//! | `file.rs`    | `_file::file`: handles; `open`, the methods, `for line in f`, text |
//! | `file_rt.rs` | the runtime helpers of files (the interpreter's `host::Files`, lent to the run) |
//! | `rawbuffer.rs` | `rawbuffer.RawBuffer`: a pointer to bytes; `rb_alloc`, `rb_get_*`, `rb_set_*` |
//! | `rawbuffer_rt.rs` | the runtime helpers of `rawbuffer` (scalars at byte offsets, `vm::ops::rawbuffer`) |
//! | `str_rt.rs`  | the runtime helpers of `str` methods (`vm::ops::str`)        |
//! | `run.rs`     | compile, run `main`, rebuild the outcome                     |
//!
//! No typing rule is written here: every operator's implementation and
//! result type come from `vm::ops` (`binop_signature`, `cmpop_signature`,
//! `unaryop_signature`, `implicit_convertible`, `conversion_signature`, `builtin_signature`,
//! `resolve::prefixed_int_literal`), the functions ASTFrame and DopplerFrame
//! use. Types of locals, parameters and results are the values module init
//! computed (`Function::params`, annotations evaluated by ASTFrame).
//! Anything else is a [`LowerError::Unsupported`] naming what and where:
//! there is no fallback to the interpreter.

mod bytes;
pub mod bytes_rt;
mod dict;
pub mod dict_rt;
pub mod errors;
mod exception;
mod expr;
mod file;
pub mod file_rt;
mod func;
pub mod globals;
pub mod helpers;
mod interp_list;
mod interp_tuple;
pub mod layout;
mod list;
pub mod list_rt;
pub mod mem_rt;
mod memref;
mod minmax;
mod ptr;
mod rawbuffer;
pub mod rawbuffer_rt;
pub mod run;
mod simd;
pub mod str_rt;
mod unchecked;
mod wide_list;

use foldhash::{HashMap, HashMapExt};
use std::fmt;
use std::rc::Rc;

use spy_jit::ir::{self, FuncId, ModuleBuilder, Ty};

use crate::backend::origins::ResidualMap;
use crate::frames::Interp;
use crate::source::{SourceFile, TextRange};
use crate::syntax::ast::FuncColor;
use crate::vm::types::TypeId;
use crate::vm::value::{Function, ModuleId, StarKind, Value};
use errors::ErrorTable;
use globals::GlobalArea;
use helpers::Helpers;

/// Why a residual module cannot be compiled natively (yet).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum LowerError {
    /// A construct the lowering does not handle: what, and `file:line:col`
    /// (`path` and `range` are where, in the residual module it was found
    /// in, for [`LowerError::mapped`]).
    Unsupported {
        what: String,
        at: String,
        path: String,
        range: TextRange,
    },
    /// A broken invariant of the lowering (an internal error of
    /// spy-interp, not a gap of the JIT).
    Bug(String),
}

impl LowerError {
    pub(crate) fn unsupported(what: impl Into<String>, file: &SourceFile, range: TextRange) -> LowerError {
        LowerError::Unsupported {
            what: what.into(),
            at: file.location(range.start),
            path: file.path.to_string(),
            range,
        }
    }

    /// The error located in the user's source where the residual code it
    /// was found in has an origin there (as `ResidualMap::map_error` maps a
    /// SPy error); where it has none (code redshift made up, or no
    /// particular place) it stays in the residual module, whose path says
    /// so (`FILE.spy (residual code)`).
    pub fn mapped(self, map: &ResidualMap) -> LowerError {
        match self {
            LowerError::Unsupported {
                what,
                at,
                path,
                range,
            } => {
                let source = (path == map.printed_path && range != TextRange::default())
                    .then(|| map.origins.source_of(range))
                    .flatten();
                match source {
                    Some(r) => LowerError::Unsupported {
                        what,
                        at: map.source.location(r.start),
                        path: map.source.path.to_string(),
                        range: r,
                    },
                    None => LowerError::Unsupported {
                        what,
                        at,
                        path,
                        range,
                    },
                }
            }
            bug @ LowerError::Bug(_) => bug,
        }
    }

    pub(crate) fn bug(what: impl Into<String>) -> LowerError {
        LowerError::Bug(what.into())
    }

    /// What is not supported (without the location): the category the
    /// conformance suite's "not yet native" list records.
    pub fn what(&self) -> &str {
        match self {
            LowerError::Unsupported { what, .. } | LowerError::Bug(what) => what,
        }
    }
}

impl fmt::Display for LowerError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            LowerError::Unsupported { what, at, .. } => {
                write!(f, "{at}: the JIT cannot compile {what} (yet)")
            }
            LowerError::Bug(what) => write!(f, "internal error of the JIT lowering: {what}"),
        }
    }
}

impl std::error::Error for LowerError {}

pub(crate) type Lowered<T> = Result<T, LowerError>;

/// A lowered residual module, ready to compile.
pub struct Program {
    pub module: ir::Module,
    pub main: FuncId,
    /// `main`'s return type (`None` or `i32`).
    pub main_ret: TypeId,
    pub errors: ErrorTable,
    /// The str constants: handles `0..strings.len()`.
    pub strings: Vec<Rc<str>>,
    /// The bytes constants: bytes handles `0..bytes.len()` (0 is `b""`).
    pub bytes: Vec<Rc<[u8]>>,
    /// The slots of module globals; the machine code holds their
    /// addresses, so this lives until the run ends.
    pub globals: GlobalArea,
    /// Where each `Stmt::Mark` is (for listings).
    pub marks: Vec<MarkAt>,
}

/// The statement a `Stmt::Mark` stands before: its start in its file. The
/// listing shows that source line; the text is made only for a listing.
#[derive(Clone)]
pub struct MarkAt {
    pub file: Rc<SourceFile>,
    pub offset: u32,
}

impl MarkAt {
    /// `line N: <the source line>`.
    pub fn text(&self) -> String {
        let line = self.file.line_index(self.offset);
        format!("line {}: {}", line + 1, self.file.line_text(line).trim())
    }
}

/// A function of the program and its IR signature.
#[derive(Clone)]
struct Declared {
    id: FuncId,
    func: Rc<Function>,
    results: Vec<Ty>,
}

/// State shared by the functions being lowered.
pub(crate) struct LowerCx<'a, 'out> {
    interp: &'a mut Interp<'out>,
    builder: ModuleBuilder,
    helpers: Helpers,
    errors: ErrorTable,
    strings: Vec<Rc<str>>,
    string_ids: HashMap<Rc<str>, u64>,
    /// The bytes constants, as `strings`.
    bytes: Vec<Rc<[u8]>>,
    bytes_ids: HashMap<Rc<[u8]>, u64>,
    /// Functions by identity (`Rc` address), declared when first called.
    declared: HashMap<usize, Declared>,
    /// Declared but not yet lowered.
    queue: Vec<Declared>,
    globals: GlobalArea,
    /// The address of `globals.words[0]` (its capacity is reserved).
    global_base: u64,
    /// The text of every `Stmt::Mark` (the source line of a statement).
    marks: Vec<MarkAt>,
    /// The type whose repr each type value's handle is (`type_handle`).
    type_handles: HashMap<u64, TypeId>,
}

impl LowerCx<'_, '_> {
    /// The handle of a str constant.
    fn string(&mut self, s: &str) -> u64 {
        if let Some(&h) = self.string_ids.get(s) {
            return h;
        }
        let s: Rc<str> = s.into();
        let h = self.strings.len() as u64;
        self.strings.push(s.clone());
        self.string_ids.insert(s, h);
        h
    }

    /// The handle of a bytes constant.
    fn bytes_const(&mut self, b: &[u8]) -> u64 {
        if let Some(&h) = self.bytes_ids.get(b) {
            return h;
        }
        let b: Rc<[u8]> = b.into();
        let h = self.bytes.len() as u64;
        self.bytes.push(b.clone());
        self.bytes_ids.insert(b, h);
        h
    }

    /// The register of the red `type` value `t`: the handle of its repr
    /// (ASTFrame's `repr_type`), so `str()` is the handle itself and two
    /// type values are the same type exactly when their handles are equal
    /// — unless two types print alike, which is refused.
    fn type_handle(&mut self, t: TypeId) -> Option<u64> {
        let h = self.string(&self.interp.vm.types.repr_type(t));
        match self.type_handles.insert(h, t) {
            Some(other) if other != t => None,
            _ => Some(h),
        }
    }

    /// The IR registers of a value of `ty`, or what cannot be lowered.
    fn flatten(&self, ty: TypeId, file: &SourceFile, range: TextRange) -> Lowered<Vec<Ty>> {
        layout::flatten(&self.interp.vm.types, ty).ok_or_else(|| {
            LowerError::unsupported(
                format!("a value of type `{}`", self.interp.vm.types.name(ty)),
                file,
                range,
            )
        })
    }

    /// The IR function of a red function, declared on first use.
    fn declare(&mut self, func: &Rc<Function>, file: &SourceFile, range: TextRange) -> Lowered<Declared> {
        let key = Rc::as_ptr(func) as *const () as usize;
        if let Some(d) = self.declared.get(&key) {
            return Ok(d.clone());
        }
        let def_file = func.code.file.clone();
        let proto = func.code.proto_range();
        if func.color != FuncColor::Red {
            return Err(LowerError::unsupported(
                format!("a call of `{}` (not a red function of the module)", func.fqn),
                file,
                range,
            ));
        }
        // A pack `*args: (A, B)` is a static tuple parameter (flattened);
        // a variadic `*args` (an interp tuple) has no native layout.
        if matches!(func.star(), Some(st) if matches!(st.kind, StarKind::Variadic(_))) {
            return Err(LowerError::unsupported(
                format!("`{}`: a variadic `*args` parameter", func.fqn),
                &def_file,
                proto,
            ));
        }
        if func.inferred_ret().is_some() {
            return Err(LowerError::unsupported(
                format!("`{}`: an inferred return type", func.fqn),
                &def_file,
                proto,
            ));
        }
        let mut params = Vec::new();
        for p in &func.params {
            params.extend(simd::abi_tys(&self.flatten(p.ty, &def_file, proto)?));
        }
        let results = simd::abi_tys(&self.flatten(func.ret(), &def_file, proto)?);
        if results.len() > ir::MAX_RESULTS {
            return Err(LowerError::unsupported(
                format!(
                    "`{}`: a result of more than {} scalars",
                    func.fqn,
                    ir::MAX_RESULTS
                ),
                &def_file,
                proto,
            ));
        }
        let id = self.builder.declare(&func.fqn, &params, &results);
        let d = Declared {
            id,
            func: func.clone(),
            results,
        };
        self.declared.insert(key, d.clone());
        self.queue.push(d.clone());
        Ok(d)
    }
}

/// What `main` is, or why the program is not run at all.
pub enum MainOf {
    Main(Rc<Function>),
    /// No `main`: ASTFrame prints `Cannot find function main()`.
    Missing,
}

/// The program's `main`, as ASTFrame's `call_main` finds it.
pub fn find_main(interp: &Interp<'_>, module: ModuleId) -> Option<MainOf> {
    let m = interp.vm.module(module);
    let slot = m.resolution.module_scope.find("main");
    let main = slot.and_then(|i| m.globals[i].clone()).and_then(|g| g.value);
    match main {
        None => Some(MainOf::Missing),
        Some(Value::Func(f))
            if (f.params.is_empty() || takes_argv(interp, &f))
                && (f.ret() == TypeId::NONE || f.ret() == TypeId::I32) =>
        {
            Some(MainOf::Main(f))
        }
        Some(_) => None,
    }
}

/// Whether `main` is `main(argv: list[str])`.
pub fn takes_argv(interp: &Interp<'_>, main: &Function) -> bool {
    matches!(&main.params[..], [p] if interp.vm.types.list_item(p.ty) == Some(TypeId::STR))
}

/// Lower `main` of the initialized residual module `module` and every
/// function it reaches.
pub fn lower_program(interp: &mut Interp<'_>, _module: ModuleId, main: &Rc<Function>) -> Lowered<Program> {
    let mut builder = ModuleBuilder::new();
    let helpers = Helpers::declare(&mut builder);
    let mut globals = GlobalArea::default();
    globals.words.reserve_exact(globals::MAX_GLOBAL_SLOTS);
    let global_base = globals.words.as_mut_ptr() as u64;
    let mut cx = LowerCx {
        globals,
        global_base,
        interp,
        builder,
        helpers,
        errors: ErrorTable::new(),
        strings: Vec::new(),
        string_ids: HashMap::new(),
        bytes: Vec::new(),
        bytes_ids: HashMap::new(),
        declared: HashMap::new(),
        queue: Vec::new(),
        marks: Vec::new(),
        type_handles: HashMap::new(),
    };
    // Handle 0 is `""`: zeroed pointer memory holds empty strs.
    cx.string("");
    cx.bytes_const(b"");
    let file = main.code.file.clone();
    let main_decl = cx.declare(main, &file, main.code.proto_range())?;
    while let Some(d) = cx.queue.pop() {
        let body = func::lower_function(&mut cx, &d)?;
        cx.builder.define(body);
    }
    let mut module_ir = cx.builder.finish().map_err(|e| LowerError::Unsupported {
        what: format!("this program: the lowered IR is invalid ({e})"),
        at: file.path.clone(),
        path: file.path.clone(),
        range: TextRange::default(),
    })?;
    // A self-recursive pure function of one integer (fib) returns its value
    // at the few small arguments just past its base case as a constant,
    // behind the depth checks of the activations it stands for (spec §17.2
    // item 24); before inlining, so every inlined copy carries it.
    let code = |c| ir::ErrCode::new(c).expect("non-zero");
    spy_jit::opt::fold_leaves(
        &mut module_ir,
        &spy_jit::opt::FoldOptions::new(code(errors::RECURSION), code(errors::INTERNAL)),
    );
    // Small callees (load helpers, kernels, conversions, methods) are
    // inlined with their depth count and traceback entry (spec §17.2).
    spy_jit::opt::inline_module(&mut module_ir, &Default::default());
    // Then pure loop-invariant operations (conversions, broadcasts) move out of loops.
    spy_jit::opt::hoist_invariants(&mut module_ir);
    // Then `i % k` of a counted loop's index is a local stepped with it
    // (spec §17.2 item 20).
    spy_jit::opt::reduce_modulos(&mut module_ir);
    // Then counted loops whose accesses an entry test proves in bounds get
    // an unchecked copy, counting in i64 (spec §17.2 item 17).
    spy_jit::opt::version_loops(&mut module_ir);
    // Then an access an earlier check of the same pointer, length and index
    // covers is not checked again (spec §17.2 item 19).
    spy_jit::opt::memoize_checks(&mut module_ir);
    // (These live as long as the program runs; lowering grew them.)
    cx.errors.shrink_to_fit();
    cx.marks.shrink_to_fit();
    Ok(Program {
        module: module_ir,
        main: main_decl.id,
        main_ret: main.ret(),
        errors: cx.errors,
        strings: cx.strings,
        bytes: cx.bytes,
        globals: cx.globals,
        marks: cx.marks,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::vm::rt_error::RuntimeError;
    use spy_jit::ir::{Op, Stmt};

    /// Lower residual source `src` (as `redshift -E lazy` prints it).
    fn lower(src: &str) -> Lowered<Program> {
        let mut out = Vec::new();
        let mut interp = Interp::new(&mut out, Default::default());
        let id = interp
            .load_residual_module("m.spy", src.as_bytes())
            .expect("valid residual");
        let Some(MainOf::Main(main)) = find_main(&interp, id) else {
            panic!("no main");
        };
        lower_program(&mut interp, id, &main)
    }

    fn stmts(b: &spy_jit::ir::Block, out: &mut Vec<Stmt>) {
        for s in &b.0 {
            out.push(s.clone());
            match s {
                Stmt::If { then_, else_, .. } => {
                    stmts(then_, out);
                    stmts(else_, out);
                }
                Stmt::Loop { body } => stmts(body, out),
                _ => {}
            }
        }
    }

    #[test]
    fn only_reachable_functions_are_lowered_and_tuples_are_flattened() {
        let p = lower(
            "def pair(a: i32) -> tuple[i32, f64]:\n    return a, 0.5\n\ndef unused() -> None:\n    xs: list[i32] = [1]\n\ndef main() -> None:\n    t: tuple[i32, f64] = pair(1)\n    print(t[1] // 2.0)\n",
        )
        .expect("lowers");
        let names: Vec<_> = p.module.functions.iter().map(|f| f.name.as_str()).collect();
        assert_eq!(names, ["m::main", "m::pair"]);
        let pair = &p.module.functions[1];
        assert_eq!(pair.results, vec![Ty::I32, Ty::F64]);
        let mut body = Vec::new();
        stmts(&p.module.functions[0].body, &mut body);
        let helpers: Vec<_> = body
            .iter()
            .filter_map(|s| match s {
                Stmt::CallHelper { helper, .. } => Some(p.module.helper(*helper).name.as_str()),
                _ => None,
            })
            .collect();
        // f64 `//` and the formatting are the interpreter's functions.
        assert_eq!(helpers, ["f64_binop", "fmt_f64", "print_part", "print_end"]);
    }

    #[test]
    fn integer_floor_division_is_one_op_with_its_own_error_code() {
        let p = lower("def main() -> None:\n    x: i8 = i8(-7)\n    print(x // i8(2), x % i8(2))\n")
            .expect("lowers");
        let mut body = Vec::new();
        stmts(&p.module.functions[0].body, &mut body);
        let codes: Vec<_> = body
            .iter()
            .filter_map(|s| match s {
                Stmt::Assign {
                    op: Op::FloorDiv { on_zero, .. } | Op::FloorMod { on_zero, .. },
                    ..
                } => Some(*on_zero),
                _ => None,
            })
            .collect();
        assert_eq!(codes.len(), 2);
        assert_ne!(codes[0], codes[1]);
        // Each code is the typed run-time error (low bits) at its own site.
        let rts: Vec<_> = codes.iter().map(|c| p.errors.info(*c).unwrap().1).collect();
        assert_eq!(
            rts,
            [
                RuntimeError::IntFloorDivByZero.code(),
                RuntimeError::IntModByZero.code()
            ]
        );
    }

    #[test]
    fn an_unsupported_construct_names_what_and_where() {
        let Err(e) = lower("def main() -> None:\n    print(1)\n    d: dynamic = 1\n") else {
            panic!("a `dynamic` local has no native layout");
        };
        assert_eq!(
            e.to_string(),
            "m.spy:3:5: the JIT cannot compile a value of type `dynamic` (yet)"
        );
        assert_eq!(e.what(), "a value of type `dynamic`");
    }

    #[test]
    fn structs_are_flattened_and_their_methods_take_the_fields() {
        let p = lower(
            "@struct\nclass P:\n    x: f64\n    y: i32\n\n    def scaled(self: P, k: f64) -> P:\n        return P.__make__(self.x * k, self.y)\n\ndef main() -> None:\n    p: P = P.__make__(1.5, 2)\n    q: P = P.scaled(p, 2.0)\n    print(q.x, q == p, p)\n",
        )
        .expect("lowers");
        let scaled = p
            .module
            .functions
            .iter()
            .find(|f| f.name == "m::P::scaled")
            .expect("lowered");
        let params: Vec<Ty> = scaled.params.iter().map(|&v| scaled.ty(v)).collect();
        assert_eq!(params, vec![Ty::F64, Ty::I32, Ty::F64]);
        assert_eq!(scaled.results, vec![Ty::F64, Ty::I32]);
        // `print(p)` of a struct without `__str__`: the display rule's text.
        assert!(p.strings.iter().any(|s| &**s == "<spy `m::P` object>"));
    }

    #[test]
    fn simd_values_are_vector_registers_and_cross_calls_as_lanes() {
        let p = lower(
            "from simd import SIMD\n\ndef f(x: SIMD[f64, 4], k: i32) -> SIMD[f64, 4]:\n    return x * k\n\ndef main() -> None:\n    v: SIMD[f64, 4] = SIMD[f64, 4](1.0, 2.0, 3.0, 4.0)\n    w: SIMD[f64, 4] = f(v, 2)\n    print(w[3], w / v, SIMD[i32, 2](1, 3) / SIMD[i32, 2](2, 0) > 0.5)\n",
        )
        .expect("lowers");
        let f = p
            .module
            .functions
            .iter()
            .find(|f| f.name == "m::f")
            .expect("lowered");
        assert_eq!(f.param_tys(), vec![Ty::F64, Ty::F64, Ty::F64, Ty::F64, Ty::I32]);
        assert_eq!(f.results, vec![Ty::F64; 4]);
        let mut body = Vec::new();
        stmts(&p.module.functions[0].body, &mut body);
        let vops: Vec<String> = body
            .iter()
            .filter_map(|s| match s {
                Stmt::Assign {
                    op: Op::Vector(v), ..
                } => Some(format!("{v:?}").split('(').next().unwrap_or("").to_string()),
                _ => None,
            })
            .collect();
        for want in ["Build", "Lane", "FDiv", "Convert", "Cmp", "Splat"] {
            assert!(vops.iter().any(|v| v.starts_with(want)), "{want} in {vops:?}");
        }
        // `i32` lanes `/` raises the integer division error, float lanes the float one.
        let codes: Vec<u32> = body
            .iter()
            .filter_map(|s| match s {
                Stmt::Assign {
                    op: Op::Vector(spy_jit::ir::VOp::FDiv { on_zero, .. }),
                    ..
                } => p.errors.info(*on_zero).map(|i| i.1),
                _ => None,
            })
            .collect();
        assert_eq!(
            codes,
            [
                RuntimeError::FloatDivByZero.code(),
                RuntimeError::IntDivByZero.code()
            ]
        );
    }

    #[test]
    fn a_module_var_is_a_slot_with_its_initial_value() {
        let p = lower(
            "var counter: i32 = 41\n\ndef main() -> None:\n    counter = counter + 1\n    print(counter)\n",
        )
        .expect("lowers");
        assert_eq!(p.globals.words, vec![41]);
        let mut body = Vec::new();
        stmts(&p.module.functions[0].body, &mut body);
        let loads = body
            .iter()
            .filter(|s| {
                matches!(
                    s,
                    Stmt::Assign {
                        op: Op::Load { .. },
                        ..
                    }
                )
            })
            .count();
        let stores = body.iter().filter(|s| matches!(s, Stmt::Store { .. })).count();
        assert_eq!((loads, stores), (2, 1));
    }

    #[test]
    fn a_null_pointer_var_is_zeroed_slots_and_a_walrus_stores_a_var() {
        let p = lower(
            "from unsafe import gc_ptr\n\nvar p: gc_ptr[i32] = gc_ptr[i32].NULL\nvar c: i32 = 5\n\ndef main() -> None:\n    print(p, (c := c + 1))\n",
        )
        .expect("lowers");
        // the pointer's table and length, then `c`
        assert_eq!(p.globals.words, vec![0, 0, 5]);
        let mut body = Vec::new();
        stmts(&p.module.functions[0].body, &mut body);
        let stores = body.iter().filter(|s| matches!(s, Stmt::Store { .. })).count();
        assert_eq!(stores, 1);
    }

    #[test]
    fn a_list_of_structs_is_items_of_words_read_and_written_by_parts() {
        let p = lower(
            "@struct\nclass P:\n    x: i32\n    y: f64\n\ndef main() -> None:\n    l: list[P] = [P.__make__(1, 2.5)]\n    l[0] = P.__make__(3, 0.5)\n    print(l[0].y)\n",
        )
        .expect("lowers");
        let mut body = Vec::new();
        stmts(&p.module.functions[0].body, &mut body);
        let helpers: Vec<_> = body
            .iter()
            .filter_map(|s| match s {
                Stmt::CallHelper { helper, .. } => Some(p.module.helper(*helper).name.as_str()),
                _ => None,
            })
            .collect();
        assert_eq!(
            &helpers[..4],
            ["list_new", "wlist_append", "wlist_item", "wlist_item"]
        );
        // each item written (display, assignment) and read by its two parts
        let stores = body.iter().filter(|s| matches!(s, Stmt::Store { .. })).count();
        let loads: Vec<Ty> = body
            .iter()
            .filter_map(|s| match s {
                Stmt::Assign {
                    dst,
                    op: Op::Load { .. },
                } => Some(p.module.functions[0].ty(*dst)),
                _ => None,
            })
            .collect();
        assert_eq!((stores, loads), (4, vec![Ty::I32, Ty::F64]));
    }

    #[test]
    fn a_type_value_is_the_handle_of_its_repr() {
        let p = lower(
            "from __spy__ import interp_dict\n\ndef main() -> None:\n    d: interp_dict[type, i32] = interp_dict[type, i32]()\n    d[i32] = 1\n    print(d[i32], f64 in d)\n",
        )
        .expect("lowers");
        let reprs = ["<spy type 'i32'>", "<spy type 'f64'>"];
        for r in reprs {
            assert_eq!(p.strings.iter().filter(|s| &***s == r).count(), 1, "{r}");
        }
    }

    #[test]
    fn a_helper_error_is_rebuilt_from_its_runtime_code() {
        let e = RuntimeError::IntOutOfRange {
            ty: crate::vm::ops::PrimTy::I8,
            digits: "300".into(),
        };
        let mut t = ErrorTable::new();
        let code = ErrorTable::helper_runtime(&e);
        assert_eq!(code.get(), e.code());
        let site = t.site(errors::Site {
            frame: errors::FrameAt {
                name: "m::main".into(),
                file: SourceFile::new("m.spy", "x"),
                range: Default::default(),
            },
            label: None,
        });
        let run = spy_jit::ir::RunError {
            code,
            operands: [crate::vm::ops::PrimTy::I8.code(), 7],
            traceback: vec![site],
            dropped_sites: 0,
        };
        let rebuilt = t
            .rebuild(&run, &|h| if h == 7 { "300".into() } else { String::new() }, None)
            .expect("known");
        assert_eq!(rebuilt.headline(), e.headline());
        assert_eq!(rebuilt.traceback.len(), 1);
    }
}
