//! Running a lowered program: compile it with spy-jit, call `main` on a
//! context whose depth limit is ASTFrame's, with the run state installed
//! for the helpers, then turn the result into what ASTFrame returns: the
//! exit code, or the `SpyError` rebuilt from the error code and its sites.
//! A program that cannot run natively says why ([`NotNative`]).

use std::fmt;
use std::rc::Rc;

use spy_jit::ir::ErrCode;
use spy_jit::runtime::{Context, ContextOptions};
use spy_jit::{CompileOptions, JitError};

use super::errors::{ErrorTable, INTERNAL, RECURSION};
use super::helpers::{self, RunState};
use super::{find_main, lower_program, LowerError, MainOf, MarkAt};
use crate::backend::origins::ResidualMap;
use crate::error::{Bug, Failure, HostError};
use crate::frames::{Interp, Limits};
use crate::vm::types::TypeId;
use crate::vm::value::Function;
use crate::vm::value::ModuleId;

/// Why the jit engine did not run a program natively: not a SPy error and
/// not a bug, a gap of the JIT (counted by the harnesses).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum NotNative {
    /// The lowering does not handle a construct of the residual module.
    Lower(LowerError),
    /// The host has no backend (not x86-64 System V).
    Host(String),
    /// A run option the engine does not implement (`--max-steps`).
    Option(String),
    /// Reported by a worker process that ran the engine (the fuzzer's
    /// isolation): the reason as it was printed there.
    Remote(String),
}

impl NotNative {
    /// Located in the user's source where the residual code has an origin
    /// there (`LowerError::mapped`).
    pub fn mapped(self, map: &ResidualMap) -> NotNative {
        match self {
            NotNative::Lower(e) => NotNative::Lower(e.mapped(map)),
            other => other,
        }
    }

    /// The category, without the location.
    pub fn what(&self) -> &str {
        match self {
            NotNative::Lower(e) => e.what(),
            NotNative::Host(s) | NotNative::Option(s) | NotNative::Remote(s) => s,
        }
    }
}

impl fmt::Display for NotNative {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            NotNative::Lower(e) => write!(f, "{e}"),
            NotNative::Host(s) => write!(f, "the jit engine cannot run on this host: {s}"),
            NotNative::Option(s) => write!(f, "the jit engine does not support {s}"),
            NotNative::Remote(s) => f.write_str(s),
        }
    }
}

/// The options of every compile of a lowered program: the run-time error
/// codes of the depth limit and of a panicking helper, the vector level,
/// the planted bugs.
fn compile_options(interp: &Interp<'_>, simd: spy_jit::SimdLevel) -> CompileOptions {
    let code = |c| ErrCode::new(c).expect("non-zero");
    CompileOptions {
        recursion_error: code(RECURSION),
        internal_error: code(INTERNAL),
        simd,
        mutations: interp.mutations.jit(),
    }
}

/// `main` of `module` for a listing that runs nothing (`what` names what
/// is not native when there is no such `main`).
fn listed_main(interp: &Interp<'_>, module: ModuleId, what: &str) -> Result<Rc<Function>, NotNative> {
    match find_main(interp, module) {
        Some(MainOf::Main(main)) => Ok(main),
        _ => {
            let file = interp.vm.module(module).file.clone();
            Err(NotNative::Lower(LowerError::unsupported(
                what,
                &file,
                Default::default(),
            )))
        }
    }
}

/// Lower, compile and run `main` of the initialized residual module.
pub fn run_module(interp: &mut Interp<'_>, module: ModuleId) -> Result<Result<i32, Failure>, NotNative> {
    let main = match find_main(interp, module) {
        Some(MainOf::Main(f)) => f,
        Some(MainOf::Missing) => {
            let r = interp.out.write_all(b"Cannot find function main()\n");
            return Ok(r.map(|_| 0).map_err(|e| Failure::Bug(Bug::new(e.to_string()))));
        }
        None => {
            let file = interp.vm.module(module).file.clone();
            return Err(NotNative::Lower(LowerError::unsupported(
                "a `main` that is not `def main() -> None` or `-> i32`",
                &file,
                Default::default(),
            )));
        }
    };
    let mut program = match lower_program(interp, module, &main) {
        Ok(p) => p,
        Err(LowerError::Bug(what)) => {
            return Ok(Err(Failure::Bug(Bug::new(format!(
                "internal error of the JIT lowering: {what}"
            )))))
        }
        Err(e) => return Err(NotNative::Lower(e)),
    };
    let opts = compile_options(interp, spy_jit::SimdLevel::host());
    // Only what `main` can call: functions inlined into every caller are
    // not compiled again (about a tenth of the fuzzer's code). The IR is
    // not needed once compiled: its functions are optimized in place.
    let ir = std::mem::take(&mut program.module);
    let compiled = match spy_jit::compile_reachable_owned(ir, &opts, program.main) {
        Ok(c) => c,
        Err(JitError::UnsupportedHost) => return Err(NotNative::Host(JitError::UnsupportedHost.to_string())),
        Err(e) => {
            return Ok(Err(Failure::Bug(Bug::new(format!(
                "JIT compilation failed: {e}"
            )))))
        }
    };
    let mut ctx = Context::new(ContextOptions {
        depth_limit: depth_limit(interp.limits),
        ..ContextOptions::default()
    });
    let mut state = RunState::new(
        program.strings,
        program.errors,
        interp.limits.max_str_bytes,
        helpers::Budget {
            meter: interp.meter.clone(),
            max_memory: interp.limits.max_memory,
        },
    );
    state.set_bytes_consts(program.bytes);
    // `main(argv: list[str])`: the list ASTFrame's `call_main` passes
    let args = if super::takes_argv(interp, &main) {
        vec![state.str_list(interp.main_argv(module))]
    } else {
        Vec::new()
    };
    // The files the program opens are the interpreter's (lent for the run).
    state.files = std::mem::take(&mut interp.files);
    helpers::install(state);
    // The output streams to the engine's writer as the program prints.
    let result = compiled.call_writing(&mut ctx, program.main, &args, &mut *interp.out);
    let mut state = helpers::take().expect("the run state is still installed");
    interp.files = std::mem::take(&mut state.files);
    if let Some(e) = &state.output_failed {
        return Ok(Err(HostError::output(e).into()));
    }
    Ok(match result {
        Ok(words) if program.main_ret == TypeId::I32 => Ok((words[0] as i32) & 0xff),
        Ok(_) => Ok(0),
        Err(e) if ErrorTable::is_internal(e.code) => Err(Failure::Bug(Bug::new("a JIT helper panicked"))),
        Err(e) => match state
            .errors
            .rebuild(&e, &|h| state.text(h), state.label.as_deref())
        {
            Some(err) => Err(err.into()),
            None => Err(Failure::Bug(Bug::new(format!("unknown JIT error: {e}")))),
        },
    })
}

/// The listing of the lowered and compiled residual module (the
/// `spy-interp jit FILE` view): for every function, its IR with the source
/// line of each statement, the home of every virtual register and the
/// machine code (iced-x86, Intel syntax) with those source lines.
pub fn listing(interp: &mut Interp<'_>, module: ModuleId) -> Result<String, NotNative> {
    let main = listed_main(
        interp,
        module,
        "a program without `def main() -> None` or `-> i32`",
    )?;
    let program = lower_program(interp, module, &main).map_err(NotNative::Lower)?;
    let level = spy_jit::SimdLevel::host();
    let opts = compile_options(interp, level);
    let compiled = spy_jit::compile(&program.module, &opts).map_err(|e| NotNative::Host(e.to_string()))?;
    let mark = |k: u32| {
        program
            .marks
            .get(k as usize)
            .map(MarkAt::text)
            .unwrap_or_default()
    };
    let mut out = format!("; SIMD level: {level:?}\n");
    for i in 0..program.module.functions.len() {
        out.push('\n');
        out.push_str(&function_listing(
            &compiled,
            &program.module,
            spy_jit::ir::FuncId(i as u32),
            &mark,
        ));
    }
    Ok(out)
}

#[cfg(all(target_arch = "x86_64", unix))]
fn function_listing(
    c: &spy_jit::CompiledModule,
    m: &spy_jit::ir::Module,
    f: spy_jit::ir::FuncId,
    mark: &dyn Fn(u32) -> String,
) -> String {
    c.listing(m, f, mark)
}

#[cfg(not(all(target_arch = "x86_64", unix)))]
fn function_listing(
    _: &spy_jit::CompiledModule,
    _: &spy_jit::ir::Module,
    _: spy_jit::ir::FuncId,
    _: &dyn Fn(u32) -> String,
) -> String {
    String::new()
}

/// The JIT's depth limit: ASTFrame counts every activation, `main`
/// included, against `max_depth`, and so does the JIT (its entry function
/// counts as one), so the limits are equal.
pub fn depth_limit(limits: Limits) -> u32 {
    limits.max_depth
}

/// What the JIT makes of one function: its typed IR and, where the host
/// has the backend, its x86-64 machine code (Intel syntax).
#[derive(Clone, Debug)]
pub struct FunctionDump {
    pub name: String,
    pub ir: String,
    pub machine_code: Option<String>,
}

/// Lower and compile (without running) the initialized residual module:
/// every function's IR and machine code, for `spy-interp explain`.
pub fn dump_module(interp: &mut Interp<'_>, module: ModuleId) -> Result<Vec<FunctionDump>, NotNative> {
    let main = listed_main(
        interp,
        module,
        "a module without `def main() -> None` or `-> i32`",
    )?;
    let program = lower_program(interp, module, &main).map_err(NotNative::Lower)?;
    let opts = compile_options(interp, spy_jit::SimdLevel::host());
    let compiled = match spy_jit::compile(&program.module, &opts) {
        Ok(c) => Some(c),
        Err(JitError::UnsupportedHost) => None,
        Err(e) => return Err(NotNative::Host(format!("JIT compilation failed: {e}"))),
    };
    let mut dumps = Vec::with_capacity(program.module.functions.len());
    for (i, f) in program.module.functions.iter().enumerate() {
        let id = spy_jit::ir::FuncId(i as u32);
        dumps.push(FunctionDump {
            name: f.name.clone(),
            ir: spy_jit::ir::print::print_function_marked(&program.module, f, &|k| {
                program
                    .marks
                    .get(k as usize)
                    .map(MarkAt::text)
                    .unwrap_or_default()
            }),
            machine_code: compiled.as_ref().map(|c| machine_code(c, id)),
        });
    }
    Ok(dumps)
}

#[cfg(all(target_arch = "x86_64", unix))]
fn machine_code(c: &spy_jit::CompiledModule, f: spy_jit::ir::FuncId) -> String {
    c.disassemble_function(f)
}

#[cfg(not(all(target_arch = "x86_64", unix)))]
fn machine_code(_: &spy_jit::CompiledModule, _: spy_jit::ir::FuncId) -> String {
    String::new()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::backend::origins::{Origin, Origins};
    use crate::source::{SourceFile, TextRange};

    /// A residual module of two lines whose second comes from line 3 of the
    /// user's file; its first line is code redshift made up.
    fn map() -> (std::rc::Rc<SourceFile>, ResidualMap) {
        let residual = SourceFile::new("u.spy (residual code)", "made_up()\nuser()\n");
        let source = SourceFile::new("u.spy", "#\n#\n  user()\n");
        let mut origins = Origins::default();
        origins.push(Origin {
            printed: TextRange::new(10, 16),
            source: TextRange::new(6, 12),
        });
        origins.push(Origin {
            printed: TextRange::new(0, 9),
            source: TextRange::default(),
        });
        let map = ResidualMap {
            printed_path: residual.path.clone(),
            source,
            origins,
            folded: Vec::new(),
            others: Vec::new(),
        };
        (residual, map)
    }

    #[test]
    fn a_not_native_location_with_an_origin_moves_to_the_users_source() {
        let (residual, map) = map();
        let e = LowerError::unsupported("a thing", &residual, TextRange::new(10, 14));
        assert_eq!(
            e.to_string(),
            "u.spy (residual code):2:1: the JIT cannot compile a thing (yet)"
        );
        let mapped = NotNative::Lower(e).mapped(&map);
        assert_eq!(
            mapped.to_string(),
            "u.spy:3:3: the JIT cannot compile a thing (yet)"
        );
        assert_eq!(mapped.what(), "a thing");
    }

    #[test]
    fn a_not_native_location_in_made_up_code_keeps_the_residual_label() {
        let (residual, map) = map();
        for range in [TextRange::new(2, 5), TextRange::default()] {
            let e = LowerError::unsupported("a thing", &residual, range);
            let before = e.to_string();
            let mapped = NotNative::Lower(e).mapped(&map);
            assert_eq!(mapped.to_string(), before);
            assert!(before.starts_with("u.spy (residual code):1:"), "{before}");
        }
        // Not from this residual module (e.g. another file): unchanged.
        let other = SourceFile::new("lib.spy", "user()\n");
        let e = LowerError::unsupported("a thing", &other, TextRange::new(0, 4));
        assert_eq!(
            NotNative::Lower(e).mapped(&map).to_string(),
            "lib.spy:1:1: the JIT cannot compile a thing (yet)"
        );
    }
}
