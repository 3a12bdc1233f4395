//! ASTFrame: the slow, clear tree-walking interpreter that *is* the
//! executable specification of SPy.
//!
//! The machine ([`Interp`]) owns the VM, the output sink and the limits; a
//! [`Frame`] is one activation (a module body, a class body or a function
//! call). Evaluation rules are split by topic, each an `impl Interp` block:
//!
//! | file          | owns                                                     |
//! |---------------|----------------------------------------------------------|
//! | `module.rs`   | loading a module, module init, `main()` and exit codes   |
//! | `stmt.rs`     | statements, declarations and assignments                 |
//! | `expr.rs`     | expressions, names, colors                               |
//! | `class.rs`    | `@struct` bodies, generic structs `C[T]`                 |
//! | `call.rs`     | calls: arity, argument binding, function activation (`activation`, shared with DopplerFrame) |
//! | `function.rs` | executing `def`: annotations, `*args`, PEP 695 generics  |
//! | `meta.rs`     | memoized blue calls, metafuncs, OpSpec, MetaArg          |
//! | `iteration.rs` | `for` over user types: the `__fastiter__` protocol, run and shifted |
//! | `unroll.rs`   | `UNROLL_RANGE` loops and `*(e for i in UNROLL_RANGE(n))` |
//! | `list.rs`     | `list[T]`: displays, `[]`, indexing, methods             |
//! | `dict.rs`     | `dict[K, V]` / `interp_dict[K, V]`: types, displays, `{}`, items, methods |
//! | `lowlevel.rs` | `unsafe` pointers, `simd` vectors, `time`, `__spy__`     |
//! | `rawbuffer.rs` | the `rawbuffer` module: `RawBuffer` bytes, scalars at byte offsets |
//! | `memref.rs`   | `gc_ref[T]`/`raw_ref[T]`: references into pointer memory; struct fields through pointers and references |
//! | `dispatch.rs` | operator dispatch on static types (`OpImpl`) and its execution |
//! | `dynamic.rs`  | operators and calls on `dynamic` operands: dispatched on the values at run time |
//! | `convert.rs`  | implicit and explicit conversions                        |
//! | `attr.rs`     | attributes, subscripts, methods of builtin types         |
//! | `builtin_calls.rs` | builtin functions (`print`, `len`, `range`...)     |
//! | `signatures.rs` | asking `vm::ops::signatures` with operands; locating its errors |
//! | `display.rs`  | `str()` / `repr()` of every value                        |
//! | `doppler/`    | DopplerFrame: the shifting mode's handle and state (`mod.rs`), expressions (`expr.rs`) and statements (`stmt.rs`) while redshifting, blue values as residual constants (`consts.rs`) |
//! | `limits.rs`   | call depth and step fuel                                 |
//! | `pools.rs`    | reused activation storage; closure-cycle release         |
//!
//! A function's code (`FuncCode`) lives in `vm::code`; the AST walker the
//! DopplerFrame hooks use is `syntax::walk`.
//!
//! SPy exceptions travel as `Err(Failure::Raise)`, bugs as `Err(Failure::Bug)`.

mod attr;
mod attr_builtins;
mod builtin_calls;
mod call;
mod class;
mod convert;
pub(crate) mod dict;
mod dispatch;
mod display;
pub(crate) mod doppler;
mod dynamic;
mod expr;
mod files;
mod function;
pub(crate) mod importing;
mod iteration;
pub mod limits;
pub(crate) mod list;
pub(crate) mod lowlevel;
mod memops;
pub(crate) mod memref;
mod meta;
pub mod module;
mod pending_def;
mod pools;
mod rawbuffer;
mod signatures;
mod stmt;
mod unroll;

use foldhash::{HashMap, HashSet, HashSetExt};
use std::io::Write;
use std::rc::Rc;

use crate::error::{ExcKind, Failure, SpyError, TraceEntry};
use crate::resolve::{Resolution, ScopeRef};
use crate::source::{SourceFile, TextRange};
use crate::vm::value::{Env, Function, ModuleId};
use crate::vm::Vm;

pub use limits::{Limits, Mutation, Mutations, RunConfig};
pub use module::{module_name, ParsedModule};

/// The result type of evaluation steps.
pub type Eval<T> = Result<T, Failure>;

/// What kind of body a frame executes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FrameKind {
    Module,
    Class,
    Function,
}

/// One activation: a module body, a class body or a function call.
pub struct Frame {
    pub kind: FrameKind,
    pub module: ModuleId,
    pub file: Rc<SourceFile>,
    /// The tree of the code this frame runs (its module's).
    pub ast: Rc<crate::syntax::ast::Module>,
    pub res: Rc<Resolution>,
    /// The symbols of the body being executed (slots of `locals`).
    pub scope: ScopeRef,
    pub locals: Env,
    /// Enclosing function activations, outermost first.
    pub closure: crate::vm::value::Closure,
    /// The function being executed, for function frames.
    pub func: Option<Rc<Function>>,
    /// The struct whose body a class frame executes (methods' `self` type).
    pub class_type: Option<crate::vm::types::TypeId>,
    /// Traceback name: `mod::f`, `[module] mod`, `[classdef] mod::C`.
    pub name: Rc<str>,
    /// Namespace of definitions made in this frame (`mod`, `mod::f`,
    /// `mod::g[i32]` for a blue call).
    pub ns: Rc<str>,
    /// The innermost node being evaluated (for tracebacks).
    pub current: TextRange,
    /// For a frame of a red function being redshifted (DopplerFrame): the
    /// redshift it shifts for; its red values are residual code. Blue code
    /// always runs concretely (`None`).
    pub shift: Option<doppler::Shift>,
}

impl Frame {
    /// A frame that runs (or shifts) the body of `func` with `locals`.
    /// (Built in place in the caller's activation: a frame is large.)
    #[inline(always)]
    pub(crate) fn function(
        func: &Rc<Function>,
        locals: Env,
        name: Rc<str>,
        ns: Rc<str>,
        shift: Option<doppler::Shift>,
    ) -> Frame {
        let code = &func.code;
        Frame {
            kind: FrameKind::Function,
            module: code.module,
            file: code.file.clone(),
            ast: code.ast.clone(),
            res: code.res.clone(),
            scope: code.scope_ref(),
            locals,
            closure: func.closure.clone(),
            func: Some(func.clone()),
            class_type: None,
            name,
            ns,
            current: code.proto_range(),
            shift,
        }
    }
}

/// Control flow out of a statement.
#[derive(Debug)]
pub enum Flow {
    Normal,
    Break,
    Continue,
    Return(crate::vm::value::Typed),
}

/// The interpreter: VM state, output, limits.
pub struct Interp<'out> {
    pub vm: Vm,
    pub out: &'out mut dyn Write,
    pub limits: Limits,
    /// Live pointer memory, counted against `limits.max_memory`.
    pub meter: Rc<crate::vm::memory::Meter>,
    /// Planted bugs (test-only; see `limits::Mutation`).
    pub mutations: Mutations,
    /// Take only the general evaluation rules (`RunConfig::general_paths_only`).
    pub general_paths_only: bool,
    /// Make the records of simple module-level `def`s on first use
    /// (`frames::pending_def`): the interp engine's runs only, never an
    /// interpreter that redshifts, lowers or inspects a module.
    pub defer_defs: bool,
    /// `main(argv: list[str])`'s arguments (`RunConfig::argv`).
    pub(crate) argv: Option<&'static [String]>,
    /// The files the program opened (`host`).
    pub(crate) files: crate::host::Files,
    /// Where user modules are found (`RunConfig::modules`).
    pub(crate) module_sources: crate::host::ModuleSources,
    /// Residual modules printed and parsed back, by module name: what
    /// `import m` of a residual program loads (the doppler and jit engines).
    pub(crate) preloaded: HashMap<String, (Rc<crate::source::SourceFile>, crate::syntax::ast::Module)>,
    /// The user's program path when the module run is its residual code
    /// (`argv[0]` without `RunConfig::argv`).
    pub(crate) program_path: Option<String>,
    /// Current call depth (function activations).
    pub depth: u32,
    /// Steps executed so far (statements and calls).
    pub steps: u64,
    /// Memoized blue calls and metafunc resolutions.
    pub cache: meta::BlueCache,
    /// FQNs handed out so far (each one is unique; the text the function
    /// or type keeps, not a copy), but for those of module-level `def`s,
    /// which are in `module_fqns`.
    pub fqns: HashSet<Rc<str>>,
    /// The FQNs handed out to module-level `def`s, as a mark on their
    /// global slot (`function::ModuleFqns`).
    pub(crate) module_fqns: HashMap<Rc<str>, function::ModuleFqns>,
    /// The last `#n` suffix given to each FQN base.
    pub(crate) fqn_suffixes: HashMap<String, u32>,
    /// What the functions made share (`function::Records`).
    pub(crate) records: function::Records,
    /// The redshift in progress, if any, from its module init on: it
    /// records where red functions come from (`DopplerState::made_by`...).
    /// Frames that shift hold the same handle (`Frame::shift`).
    pub(crate) redshift: Option<doppler::Shift>,
    /// Blue calls (and metafuncs) being evaluated: blue code is running.
    pub(crate) blue_depth: u32,
    /// The blue calls being evaluated, described, innermost last.
    pub(crate) blue_sites: Vec<meta::BlueSite>,
    /// The blue calls (innermost first) that made each red function made
    /// by blue code, by FQN: the notes of a static error in its body.
    pub(crate) made_by: HashMap<Rc<str>, Rc<[meta::BlueSite]>>,
    /// Reusable activation storage and the closure-capture registry.
    pub(crate) pools: pools::Pools,
    /// Specializations of generic structs, by (generic, argument keys).
    pub(crate) generic_structs: HashMap<
        (usize, Vec<crate::vm::memo::ValueKey>),
        (Rc<crate::vm::value::GenericStructValue>, crate::vm::types::TypeId),
    >,
    /// `T.__origin__`: the generic (a generic struct, or the
    /// `@blue.generic` function) that made type `T`, as upstream's
    /// `W_Type.w_origin` (`vm.py` `fast_call`).
    pub(crate) type_origins: HashMap<crate::vm::types::TypeId, crate::vm::value::Value>,
}

impl<'out> Interp<'out> {
    pub fn new(out: &'out mut dyn Write, config: RunConfig) -> Interp<'out> {
        Interp {
            vm: Vm::new(),
            out,
            limits: config.limits,
            meter: Rc::default(),
            mutations: config.mutations,
            general_paths_only: config.general_paths_only,
            defer_defs: false,
            argv: config.argv,
            files: crate::host::Files::new(config.files),
            module_sources: config.modules,
            preloaded: Default::default(),
            program_path: None,
            depth: 0,
            steps: 0,
            cache: meta::BlueCache::default(),
            fqns: HashSet::new(),
            module_fqns: HashMap::default(),
            fqn_suffixes: HashMap::default(),
            records: Default::default(),
            generic_structs: Default::default(),
            type_origins: Default::default(),
            pools: pools::Pools::default(),
            redshift: None,
            blue_depth: 0,
            blue_sites: Vec::new(),
            made_by: Default::default(),
        }
    }

    /// A SPy error of `kind` annotated at `range` of the frame's file.
    pub fn error_at(
        &self,
        frame: &Frame,
        kind: ExcKind,
        message: impl Into<String>,
        range: TextRange,
        label: impl Into<String>,
    ) -> Failure {
        SpyError::new(kind, message)
            .with_error(&frame.file, range, label)
            .into()
    }
}

impl Drop for Interp<'_> {
    fn drop(&mut self) {
        self.pools.release_captured();
    }
}

impl Interp<'_> {
    /// A static error leaving `frame`: when it is the first red function
    /// frame the error leaves and that function was made by blue code, the
    /// error says which specialization and which blue calls made it.
    pub(crate) fn noted_specialization(&self, err: Failure, frame: &Frame) -> Failure {
        let Failure::Raise(mut e) = err else {
            return err;
        };
        let Some(func) = frame
            .func
            .as_ref()
            .filter(|g| g.color == crate::syntax::ast::FuncColor::Red)
        else {
            return Failure::Raise(e);
        };
        if !e.kind.is_static() || e.left_red_frame {
            return Failure::Raise(e);
        }
        e.left_red_frame = true;
        if let Some(sites) = self.made_by.get(&func.fqn) {
            for (k, site) in sites.iter().enumerate() {
                e.notes.push(if k == 0 {
                    format!(
                        "in the specialization `{}` made by the blue call {site}",
                        func.fqn
                    )
                } else {
                    format!("in the blue call {site}")
                });
            }
        }
        Failure::Raise(e)
    }
}

/// Add `frame` to the traceback of an error passing through it.
pub(crate) fn add_trace(err: Failure, frame: &Frame) -> Failure {
    match err {
        Failure::Raise(mut e) => {
            e.traceback.push(TraceEntry {
                name: frame.name.to_string(),
                file: frame.file.clone(),
                range: frame.current,
            });
            Failure::Raise(e)
        }
        bug => bug,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A closure stored in the environment it captures is a reference
    /// cycle; dropping the machine must free it anyway (a fuzzing campaign
    /// runs hundreds of thousands of programs in one process).
    #[test]
    fn dropping_the_machine_frees_closure_cycles() {
        let source = b"
@blue
def make(n):
    def add(x: i32) -> i32:
        return x + n
    return add

def main() -> None:
    print(make(1)(2))
";
        let mut out = Vec::new();
        let mut interp = Interp::new(&mut out, RunConfig::default());
        assert_eq!(interp.run_main_file("cycle.spy", source).ok(), Some(0));
        let captured = interp.pools.captured();
        assert!(!captured.is_empty(), "the blue call's environment was captured");
        drop(interp);
        assert_eq!(String::from_utf8(out).unwrap(), "3\n");
        assert!(
            captured.iter().all(|env| env.upgrade().is_none()),
            "a captured environment outlived the machine"
        );
    }
}
