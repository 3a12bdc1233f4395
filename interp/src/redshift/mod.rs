//! Redshift: partial evaluation of a module into typed residual code
//! (upstream's DopplerFrame + `vm.redshift`).
//!
//! After module initialization (which runs in ASTFrame, as always), every
//! red function of the module — those defined at module level and those
//! created while blue code ran (generic and metafunc specializations) — is
//! shifted once by a frame in shifting mode, repeated until no new one
//! appears. Shifting uses the ordinary evaluation rules (see
//! `frames/doppler/`): blue code runs, red code is rebuilt with every
//! name resolved, every blue value a constant, every `UNROLL_RANGE` loop
//! and splat expanded, blue branches pruned.
//!
//! A residual module that is only printed (the engines') is printed
//! function by function as the functions are shifted, its tree cut back
//! after each (`Interp::stream_shifted`, spec §16.5), so redshift never
//! holds the whole residual tree beside the source module.
//!
//! The residual module is SPy source again (struct definitions with their
//! red methods, `var` globals with their values after initialization, and
//! one `def` per red function named by its FQN without the module prefix),
//! so it can be printed, parsed and run by ASTFrame under the same module
//! name to the same result.

mod printed;

use foldhash::{HashMap, HashMapExt};
use std::rc::Rc;

pub use printed::{
    print_checked, residual_for_run, split_files, PrintedResidual, ResidualRoute, FILE_SEPARATOR,
};

use crate::error::{ExcKind, SpyError};
pub use crate::frames::doppler::record::{BlueCall, ExprColor, Record};
pub use crate::frames::doppler::ErrorMode;
use crate::frames::doppler::{DopplerState, RedFunction, Shift, ShiftedDef};
use crate::frames::{add_trace, Eval, Frame, Interp};
use crate::resolve::VarKind;
use crate::source::TextRange;
use crate::syntax::ast::{self, FuncColor, FuncKind, StmtId, StmtKind, StmtNode};
use crate::vm::types::{TypeId, TypeKind};
use crate::vm::value::{Color, Function, Local, ModuleId, StarKind, Value};

/// How to redshift.
#[derive(Clone, Copy, Debug)]
pub struct RedshiftOptions {
    pub error_mode: ErrorMode,
    /// Annotate specialized functions and expanded regions with where they
    /// come from (`--provenance`).
    pub provenance: bool,
    /// Keep module prefixes in names (`--full-fqn`).
    pub full_fqn: bool,
    /// Record every expression's color and type, and where blue calls
    /// are (for `colorize` and `explain`: [`Residual::record`]).
    pub record: bool,
    /// Wrap printed residual lines longer than this many columns (0: no
    /// wrapping; `spy-interp redshift --width`, default 100 there).
    pub width: usize,
    /// Print each red function's residual `def` as soon as it is shifted
    /// and free its tree (spec §16.5): the residual
    /// module is then only printable ([`print_checked`]), not a tree to
    /// show, wrap, record or run as built. What the engines that print
    /// the residual module use.
    pub stream: bool,
}

impl Default for RedshiftOptions {
    fn default() -> Self {
        RedshiftOptions {
            error_mode: ErrorMode::Eager,
            provenance: false,
            full_fqn: false,
            record: false,
            width: 0,
            stream: false,
        }
    }
}

/// How to show a residual module.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Format {
    /// SPy source.
    Spy,
    /// The AST dump.
    Ast,
}

/// The result of `redshift_source`.
pub struct RedshiftOutput {
    /// What blue code printed while the module was imported and redshifted.
    pub blue_stdout: String,
    /// The residual module as text, or the rendered error report.
    pub result: Result<String, String>,
    /// The static errors deferred to run time, rendered (`ErrorMode::Warn`).
    pub warnings: Vec<String>,
}

/// Redshift `source` on a thread with a deep stack and show the residual
/// module (what `spy-interp redshift` prints).
pub fn redshift_source(
    path: &str,
    source: &[u8],
    options: RedshiftOptions,
    format: Format,
    limits: crate::frames::Limits,
) -> RedshiftOutput {
    redshift_source_in(
        path,
        source,
        options,
        format,
        limits,
        crate::host::ModuleSources::Disk,
    )
}

/// [`redshift_source`] with the program's other modules found in `modules`.
pub fn redshift_source_in(
    path: &str,
    source: &[u8],
    options: RedshiftOptions,
    format: Format,
    limits: crate::frames::Limits,
    modules: crate::host::ModuleSources,
) -> RedshiftOutput {
    let (path, source) = (path.to_string(), source.to_vec());
    let run = move || {
        let mut blue_output = Vec::new();
        let config = crate::frames::RunConfig {
            modules,
            ..limits.into()
        };
        let mut interp = Interp::new(&mut blue_output, config);
        let result = interp.redshift_with(&path, &source, options);
        drop(interp);
        let warnings = match &result {
            Ok(residual) => residual.warnings.iter().map(crate::diag::render).collect(),
            Err(_) => Vec::new(),
        };
        let printed_path = crate::redshift::residual_display_path(&path);
        // Shown only once it is known to parse back (the wrapped form parses
        // to the same module: `backend::spy_printer::wrap`).
        let shown = result.and_then(|r| {
            let show = |r: &Residual| match format {
                Format::Ast => Some(crate::syntax::dump::dump_body(0, r.body())),
                _ if options.width > 0 => Some(crate::backend::print_module_width(r.body(), options.width)),
                _ => None,
            };
            let main_shown = show(&r);
            let deps_shown: Vec<Option<String>> = r.deps.iter().map(show).collect();
            let printed = print_checked(r, &printed_path)?;
            // the main module's, then each other module's after its
            // `# file: NAME.spy` line (spec §16.8)
            let mut text = main_shown.unwrap_or_else(|| printed.file.text().to_string());
            for (d, shown) in printed.deps.iter().zip(deps_shown) {
                text.push_str(&format!("{FILE_SEPARATOR}{}.spy\n", d.modname));
                text.push_str(&shown.unwrap_or_else(|| d.file.text().to_string()));
            }
            Ok(text)
        });
        let result = match shown {
            Ok(text) => Ok(text),
            Err(crate::error::Failure::Raise(e)) => Err(crate::diag::render(&e)),
            Err(crate::error::Failure::Bug(b)) => Err(format!("{b}\n")),
            Err(crate::error::Failure::Host(h)) => Err(format!("{h}\n")),
        };
        RedshiftOutput {
            blue_stdout: String::from_utf8_lossy(&blue_output).into_owned(),
            result,
            warnings,
        }
    };
    match crate::native_stack::run(limits.max_depth, run) {
        Ok(out) => out,
        Err(_) => RedshiftOutput {
            blue_stdout: String::new(),
            result: Err("internal error (a bug in spy-interp): redshift panicked\n".to_string()),
            warnings: Vec::new(),
        },
    }
}

/// How the locations of `path`'s residual module are shown.
pub fn residual_display_path(path: &str) -> String {
    format!("{path}{}", crate::frames::module::RESIDUAL_SUFFIX)
}

/// What redshift produced.
pub struct Residual {
    pub modname: String,
    /// The user's source file the residual nodes' ranges point into.
    pub file: Rc<crate::source::SourceFile>,
    /// The residual code of the whole program (every module's is built in
    /// one tree); this module's statements are `body`.
    pub module: Rc<ast::Module>,
    pub body: ast::Block,
    /// Where each residual `def` comes from, in the order of the module;
    /// only when `RedshiftOptions::record` asked (the tools show it; a run
    /// does not keep a record per residual function, issue 14 item 5).
    pub functions: Vec<ResidualFunc>,
    /// The colors and note sites, when `RedshiftOptions::record` asked.
    pub record: Option<Record>,
    /// The static types' names (for `record`'s `TypeId`s).
    pub type_names: HashMap<TypeId, String>,
    /// The static errors deferred to run time (`ErrorMode::Warn`).
    pub warnings: Vec<SpyError>,
    /// The errors folded into residual `raise`s (lazy mode), as ASTFrame
    /// would report them.
    pub folded: Vec<crate::backend::origins::FoldedError>,
    /// The user modules this residual module imports (`import m`).
    pub user_imports: Vec<String>,
    /// The residual modules of the other modules of the program, in load
    /// order (empty for a one-module program; spec §16.8).
    pub deps: Vec<Residual>,
    /// The module's red functions' `def`s, printed as they were shifted (a
    /// streaming redshift, [`RedshiftOptions::stream`]): they follow
    /// `body` in the module.
    pub printed: crate::backend::PrintedDefs,
}

impl Residual {
    /// This module's statements.
    pub fn body(&self) -> ast::Stmts<'_> {
        self.module.block(self.body)
    }
}

/// The residual modules import each other only along the source modules'
/// import order: one that would import a module loaded after it (a generic
/// of `m` specialized with a type of the module importing `m`) cannot be
/// read back yet, a located `WIP` rather than an unreadable residual
/// program.
fn check_residual_imports(main: &Residual) -> Option<(String, String)> {
    let names: Vec<&str> = main
        .deps
        .iter()
        .map(|d| d.modname.as_str())
        .chain([main.modname.as_str()])
        .collect();
    for (k, r) in main.deps.iter().chain([main]).enumerate() {
        for m in &r.user_imports {
            if !names[..k].contains(&m.as_str()) {
                return Some((r.modname.clone(), m.clone()));
            }
        }
    }
    None
}

/// The provenance of one residual function.
#[derive(Clone, Debug)]
pub struct ResidualFunc {
    /// The function's FQN (`mod::add[i32]`).
    pub fqn: String,
    /// Its name in the residual module, and the struct it is a method of.
    pub name: String,
    pub class: Option<String>,
    /// The `def` it was shifted from (file path, prototype range).
    pub def_path: String,
    pub def_range: TextRange,
    /// The blue calls that made it, innermost first (empty for a function
    /// written in the module).
    pub made_by: Vec<BlueCall>,
    pub force_inline: bool,
}

/// What a redshift starts from: the program's source bytes, or the module
/// already parsed (and resolved) from them (the fuzzer's worker parses a
/// program once for the interp run and the redshift;
/// `engine::run_every_engine`).
pub enum ProgramInput {
    Source(Vec<u8>),
    Parsed(crate::frames::ParsedModule),
}

impl Interp<'_> {
    /// Load and initialize `path`, then redshift its red functions.
    pub fn redshift_file(&mut self, path: &str, source: &[u8], mode: ErrorMode) -> Eval<Residual> {
        self.redshift_with(
            path,
            source,
            RedshiftOptions {
                error_mode: mode,
                ..Default::default()
            },
        )
    }

    /// Like [`Interp::redshift_file`] for a program that is about to run:
    /// its `main` is checked on the source module first (spec §8.2), so a
    /// missing, blue or ill-typed `main` is the same error as in ASTFrame.
    pub fn redshift_program(&mut self, path: &str, source: &[u8], mode: ErrorMode) -> Eval<Residual> {
        self.redshift_program_source(path, ProgramInput::Source(source.to_vec()), mode)
    }

    /// [`Interp::redshift_program`] of source the caller gives away (held
    /// once, as the module's `SourceFile`), or of a module already parsed
    /// from it.
    pub fn redshift_program_source(
        &mut self,
        path: &str,
        source: ProgramInput,
        mode: ErrorMode,
    ) -> Eval<Residual> {
        let options = RedshiftOptions {
            error_mode: mode,
            ..Default::default()
        };
        self.redshift_program_with(path, source, options)
    }

    /// [`Interp::redshift_program_source`] with `options` (the engines'
    /// stream: [`RedshiftOptions::stream`]).
    pub fn redshift_program_with(
        &mut self,
        path: &str,
        source: ProgramInput,
        options: RedshiftOptions,
    ) -> Eval<Residual> {
        self.redshift_checked(path, source, options, true)
    }

    pub fn redshift_with(&mut self, path: &str, source: &[u8], options: RedshiftOptions) -> Eval<Residual> {
        self.redshift_checked(path, ProgramInput::Source(source.to_vec()), options, false)
    }

    fn redshift_checked(
        &mut self,
        path: &str,
        source: ProgramInput,
        options: RedshiftOptions,
        check_main: bool,
    ) -> Eval<Residual> {
        let mut state = DopplerState::new(options.error_mode);
        state.provenance = options.provenance;
        state.full_fqn = options.full_fqn;
        // (a tool's view of the tree, or its record, needs the tree)
        state.stream = options.stream && !options.record && options.width == 0 && !options.provenance;
        if options.record {
            state.record = Some(Record::new(path));
        }
        // The handle exists from module init on: blue code run there makes
        // red functions, and the redshift records where they come from.
        let sh = Shift::new(state);
        self.redshift = Some(sh.clone());
        let loaded = match source {
            ProgramInput::Source(bytes) => self.load_main_source(path, bytes),
            ProgramInput::Parsed(module) => {
                self.load_shared_module_as(module, &crate::frames::module_name(path))
            }
        };
        let result = loaded.and_then(|id| {
            if check_main {
                self.make_pending_global(id, "main")?;
                self.program_main(id)?;
            }
            self.redshift_module(&sh, id)
        });
        self.redshift = None;
        result
    }

    /// Shift every red function of every module of the program, then
    /// assemble one residual module per module (spec §16.8): `id`'s, with
    /// the others (in load order) as its `deps`.
    fn redshift_module(&mut self, sh: &Shift, id: ModuleId) -> Eval<Residual> {
        let stream = sh.read().stream;
        if !stream {
            let source_len = self.vm.modules.iter().map(|m| m.file.len()).sum();
            sh.state().residual.reserve_for(source_len);
        }
        let mut i = 0;
        loop {
            let entry = {
                let mut state = sh.state();
                match state.red_functions.get_mut(i) {
                    None => break,
                    // (streaming, a record is held no longer than it is
                    // used: `release_made_defs` below)
                    Some(entry) if stream => std::mem::replace(entry, RedFunction::Taken),
                    Some(RedFunction::Made(func)) => RedFunction::Made(func.clone()),
                    Some(RedFunction::Pending(module, slot)) => RedFunction::Pending(*module, *slot),
                    Some(RedFunction::Taken) => RedFunction::Taken,
                }
            };
            i += 1;
            let func = match entry {
                RedFunction::Made(func) => func,
                RedFunction::Pending(module, slot) => match self.pending_record(module, slot)? {
                    Some(func) => func,
                    None => continue,
                },
                RedFunction::Taken => continue,
            };
            if !stream {
                self.ensure_shifted(sh, &func)?;
                continue;
            }
            let before = {
                let state = sh.read();
                StreamMark {
                    arena: state.residual.mark(),
                    shifted: state.order.len(),
                    eq_methods: state.eq_methods.len(),
                }
            };
            self.ensure_shifted(sh, &func)?;
            self.stream_shifted(sh, before)?;
            drop(func);
            self.release_made_defs();
        }
        // Each residual `def` moves out of `shifted` into its module (one
        // copy alive, not two).
        let (mut shifted, order) = {
            let mut state = sh.state();
            (
                std::mem::take(&mut state.shifted),
                std::mem::take(&mut state.order),
            )
        };
        let mut deps = Vec::new();
        for k in 0..self.vm.modules.len() {
            let mid = ModuleId(k as u32);
            if mid != id {
                deps.push(self.assemble(sh, mid, &mut shifted, &order, false)?);
            }
        }
        let mut main = self.assemble(sh, id, &mut shifted, &order, true)?;
        // The residual code is complete: every module shares its tree.
        let mut module = std::mem::take(&mut sh.state().residual);
        module.shrink_to_fit();
        let module = Rc::new(module);
        for d in &mut deps {
            d.module = module.clone();
        }
        main.module = module;
        main.deps = deps;
        if let Some((from, to)) = check_residual_imports(&main) {
            return Err(self.residual_cycle(&from, &to));
        }
        Ok(main)
    }

    /// The record of the `def` pending in global `slot` of `module` (made
    /// now if no read made it before); `None` if the slot holds no
    /// function.
    fn pending_record(&mut self, module: ModuleId, slot: u32) -> Eval<Option<Rc<Function>>> {
        self.make_pending_def(module, slot as usize)?;
        Ok(match self.vm.module(module).globals.get(slot as usize) {
            Some(Some(Local {
                value: Some(Value::Func(func)),
                ..
            })) => Some(func.clone()),
            _ => None,
        })
    }

    /// The error of [`check_residual_imports`]: the residual code of
    /// module `from` names module `to`, loaded after it; located at the
    /// import statement of `to` that imports `from`.
    fn residual_cycle(&self, from: &str, to: &str) -> crate::error::Failure {
        let e = SpyError::new(
            ExcKind::Wip,
            format!(
                "the residual code of module `{from}` refers to module `{to}`, which is loaded after it: a residual program whose modules import each other cannot be read back (yet)"
            ),
        );
        let Some(id) = self.vm.module_named(to) else {
            return e.into();
        };
        let m = self.vm.module(id);
        let stmt = m.ast.body().iter().find(|s| match &s.kind() {
            StmtKind::Import { module, .. } | StmtKind::ImportFrom { module, .. } => module.name == from,
            _ => false,
        });
        match stmt {
            Some(s) => e
                .with_error(
                    &m.file,
                    s.range,
                    format!("`{from}` is imported here, and its residual code needs `{to}`"),
                )
                .into(),
            None => e.into(),
        }
    }

    /// Shift `func` unless it already was (functions are identified by FQN:
    /// a decorated copy shares its original's code).
    fn ensure_shifted(&mut self, sh: &Shift, func: &Rc<Function>) -> Eval<()> {
        {
            let mut state = sh.state();
            if state.shifted.contains_key(&*func.fqn) || state.in_progress.contains(&*func.fqn) {
                return Ok(());
            }
            state.in_progress.insert(func.fqn.to_string());
        }
        let def = self.shift_function(sh, func);
        let mut state = sh.state();
        state.in_progress.remove(&*func.fqn);
        let def = def?;
        state.order.push(func.clone());
        state.shifted.insert(func.fqn.clone(), ShiftedDef::Tree(def));
        Ok(())
    }

    /// Streaming: print the residual `def`s of the functions shifted since
    /// `before` (the top-level shift of one function, and those it shifted
    /// on demand) after those printed so far in their modules, then cut the
    /// residual arena back to `before` and start a new window, so the tree
    /// holds no more than one function's code at a time. Printing follows
    /// the order of shifting, which is the order `assemble` gives a
    /// module's functions. Not cut when something made since is still
    /// needed: a struct method's `def` (its class body takes it at
    /// assembly; it stays a tree) or a struct's `__eq__` body.
    fn stream_shifted(&mut self, sh: &Shift, before: StreamMark) -> Eval<()> {
        let new: Vec<Rc<Function>> = sh.read().order[before.shifted..].to_vec();
        let mut cut = true;
        for func in &new {
            let module = func.fqn.split_once("::").map(|(m, _)| m);
            let (Some(module), false) = (module, self.vm.method_fqns.contains(&func.fqn)) else {
                cut = false;
                continue;
            };
            let mut state = sh.state();
            let Some(ShiftedDef::Tree(def)) = state.shifted.get(&func.fqn).copied() else {
                return Err(crate::bug!(
                    "`{}` was shifted but has no residual `def`",
                    func.fqn
                ));
            };
            let state = &mut *state;
            let stmt = state
                .residual
                .add_stmt(StmtNode::FuncDef(def), TextRange::default());
            let printed = match state.printed.get_mut(module) {
                Some(p) => p,
                None => state.printed.entry(module.to_string()).or_default(),
            };
            printed.push(&state.residual.stmt(stmt), None);
            state.shifted.insert(func.fqn.clone(), ShiftedDef::Printed);
        }
        let mut state = sh.state();
        if cut && state.eq_methods.len() == before.eq_methods {
            state.residual.truncate_to(&before.arena);
            state.window += 1;
            // Printed, they are in `printed` in order: `assemble` has
            // nothing to place, and their records need not stay alive.
            state.order.truncate(before.shifted);
        }
        Ok(())
    }

    /// The static return type of a call of `func` while shifting. A
    /// function whose return type is inferred is shifted first.
    pub(crate) fn return_type_for_call(
        &mut self,
        f: &Frame,
        func: &Rc<Function>,
        range: TextRange,
    ) -> Eval<TypeId> {
        let Some(cell) = func.inferred_ret() else {
            return Ok(func.ret());
        };
        if cell.get().is_none() {
            let sh = f.shift()?;
            if sh.read().in_progress.contains(&*func.fqn) {
                return Err(SpyError::new(
                    ExcKind::TypeError,
                    format!(
                        "cannot infer the return type of `{}` from a recursive call",
                        func.fqn
                    ),
                )
                .with_error(&f.file, range, "recursive call")
                .with_note(
                    &func.code.file,
                    func.code.proto_range(),
                    "help: declare the return type with `-> T`",
                )
                .into());
            }
            self.ensure_shifted(&sh, func)?;
        }
        // shifted and still unset: no `return` with a value, so `None`
        Ok(cell.get().unwrap_or(TypeId::NONE))
    }

    /// Shift one red function into its residual `def`.
    fn shift_function(&mut self, sh: &Shift, func: &Rc<Function>) -> Eval<ast::FuncId> {
        let code = func.code.clone();
        let def = code.def();
        sh.push_names(Vec::new());
        let mut params = Vec::with_capacity(def.params.len());
        let name: Rc<str> = format!("[redshift] {}", func.fqn).into();
        let mut frame = self.activation(
            func,
            name,
            func.fqn.clone(),
            Some(sh.clone()),
            &func.params,
            |_, p, slot, spec| {
                let name = sh.declare_residual_name(slot, &p.name.name)?;
                let value = sh.value(sh.name(&name, p.name.range));
                params.push((name, spec.ty));
                Ok(Local {
                    ty: spec.ty,
                    color: Color::Red,
                    value: Some(value),
                })
            },
        )?;
        sh.push_block();
        let result = self
            .exec_block(&mut frame, &def.body)
            .map_err(|e| add_trace(self.noted_specialization(e, &frame), &frame));
        let mut body = sh.pop_block()?;
        sh.pop_names();
        result?;
        if body.is_empty() {
            body.push(sh.stmt(StmtNode::Pass, def.proto_range));
        }
        let mut residual_params = Vec::with_capacity(params.len());
        for ((name, ty), p) in params.into_iter().zip(def.params.iter()) {
            let annotation = match (&p.kind, func.star()) {
                (ast::ParamKind::Star, Some(star)) => match &star.kind {
                    StarKind::Pack(_, types) => {
                        let mut items = Vec::with_capacity(types.len());
                        for t in types {
                            items.push(self.type_expr(&frame, *t, p.range)?);
                        }
                        sh.tuple(items, p.range)
                    }
                    StarKind::Variadic(t) => self.type_expr(&frame, *t, p.range)?,
                },
                _ => self.type_expr(&frame, ty, p.range)?,
            };
            residual_params.push(ast::ParamNode {
                name: sh.ident(&name, p.name.range),
                kind: p.kind,
                annotation: Some(annotation),
                default: None,
                range: p.range,
            });
        }
        let ret = match func.inferred_ret() {
            // unset after shifting: no `return` with a value, so `None`
            Some(cell) => cell.get().unwrap_or(TypeId::NONE),
            None => func.ret(),
        };
        let return_type = Some(self.type_expr(&frame, ret, def.proto_range)?);
        let modname = self.vm.module(code.module).name.clone();
        let name = sh.ident(&sh.global_name(&modname, &func.fqn), def.name.range);
        Ok(residual_def(
            sh,
            name,
            residual_params,
            return_type,
            body,
            def.proto_range,
        ))
    }

    /// `def __eq__(self: T, other: T) -> bool: return body`: the red method
    /// that stands for a metafunc `__eq__` in residual code.
    fn residual_eq_method(
        &mut self,
        frame: &crate::frames::Frame,
        t: TypeId,
        body: ast::ExprId,
    ) -> Eval<StmtId> {
        let range = TextRange::default();
        let sh = frame.shift()?;
        let mut params = Vec::with_capacity(2);
        for name in ["self", "other"] {
            params.push(ast::ParamNode {
                name: sh.ident(name, range),
                kind: ast::ParamKind::Positional,
                annotation: Some(self.type_expr(frame, t, range)?),
                default: None,
                range,
            });
        }
        let return_type = Some(self.type_expr(frame, TypeId::BOOL, range)?);
        let ret = sh.stmt(StmtNode::Return(Some(body)), range);
        let name = sh.ident("__eq__", range);
        let def = residual_def(&sh, name, params, return_type, vec![ret], range);
        Ok(sh.stmt(StmtNode::FuncDef(def), range))
    }

    /// The residual module: imports, `var` globals of scalar types, structs
    /// (fields and red methods), the other `var` globals, then the red
    /// functions in the order they were made. (Its tree is the redshift's
    /// residual code, set in `module` once every module is assembled.)
    fn assemble(
        &mut self,
        sh: &Shift,
        id: ModuleId,
        shifted: &mut HashMap<Rc<str>, ShiftedDef>,
        order: &[Rc<Function>],
        is_main: bool,
    ) -> Eval<Residual> {
        let modname = self.vm.module(id).name.clone();
        let file = self.vm.module(id).file.clone();
        // this module's functions: those its FQN prefix names
        let order: Vec<Rc<Function>> = order
            .iter()
            .filter(|f| f.fqn.split_once("::").map(|(m, _)| m) == Some(modname.as_str()))
            .cloned()
            .collect();
        // Which shifted functions are methods of which struct.
        let mut methods: HashMap<String, (TypeId, String, bool)> = HashMap::new();
        let mut struct_types: Vec<TypeId> = self.vm.structs.keys().copied().collect();
        struct_types.sort();
        for t in &struct_types {
            let info = &self.vm.structs[t];
            for (member, v) in &info.members {
                if let Value::Func(func) = v {
                    let is_static = info.static_methods.contains(member);
                    methods.insert(func.fqn.to_string(), (*t, member.clone(), is_static));
                }
            }
        }
        let prefix = format!("{modname}::");
        let range = TextRange::default();
        // A module frame that spells constants for this redshift.
        let frame = Frame {
            shift: Some(sh.clone()),
            ..self.module_frame(id)
        };
        let mut body = Vec::new();
        let mut functions = Vec::new();
        let keep_functions = sh.read().record.is_some();
        // Struct definitions, with their red methods.
        let mut class_defs = Vec::new();
        let own_structs: Vec<TypeId> = struct_types
            .iter()
            .copied()
            .filter(|t| self.vm.types.name(*t).starts_with(&prefix))
            .collect();
        for t in &own_structs {
            let fields = self.vm.types.checked_struct_fields(*t)?.to_vec();
            let mut class_body = Vec::new();
            for fd in fields {
                let annotation = self.type_expr(&frame, fd.ty, range)?;
                let name = sh.ident(&fd.name, range);
                let v = StmtNode::VarDef {
                    kind: None,
                    name,
                    annotation: Some(annotation),
                    value: None,
                };
                class_body.push(sh.stmt(v, range));
            }
            for func in &order {
                if let Some((owner, member, is_static)) = methods.get(&*func.fqn) {
                    if owner != t {
                        continue;
                    }
                    if let Some(def) = shifted.remove(&*func.fqn) {
                        let ShiftedDef::Tree(def) = def else {
                            return Err(crate::bug!(
                                "`{}` became a struct method after its residual `def` was printed",
                                func.fqn
                            ));
                        };
                        let def_range = sh.with_residual(|m| m.ident(m.func_node(def).name).range);
                        let name = sh.ident(member, def_range);
                        let staticmethod = is_static.then(|| sh.name("staticmethod", range));
                        {
                            let mut state = sh.state();
                            let mut node = state.residual.func_node(def);
                            node.name = name;
                            if let Some(d) = staticmethod {
                                node.decorators = state.residual.add_exprs([d]);
                            }
                            state.residual.set_func(def, node);
                        }
                        let class = sh.global_name(&modname, self.vm.types.name(*t));
                        if keep_functions {
                            functions.push(self.residual_func(sh, func, member, Some(class)));
                        }
                        class_body.extend(self.provenance_comments(sh, func));
                        class_body.push(sh.stmt(StmtNode::FuncDef(def), range));
                    }
                }
            }
            let eq_body = sh.read().eq_methods.get(t).cloned().flatten();
            if let Some(body) = eq_body {
                class_body.push(self.residual_eq_method(&frame, *t, body)?);
            }
            if class_body.is_empty() {
                class_body.push(sh.stmt(StmtNode::Pass, range));
            }
            let name = sh.ident(&sh.global_name(&modname, self.vm.types.name(*t)), range);
            let class_body = sh.block(class_body);
            let class = {
                let mut state = sh.state();
                let decorators = state.residual.add_exprs([]);
                state.residual.add_class(ast::ClassNode {
                    name,
                    is_struct: true,
                    decorators,
                    type_params: None,
                    body: class_body,
                })
            };
            class_defs.push(sh.stmt(StmtNode::ClassDef(class), range));
        }
        // `var` globals keep their value after module initialization.
        // Those of a scalar, `str`, `bytes` or SIMD type come before the
        // structs: a method assigning one must see it declared (an
        // assignment in a class body declares a local when the module
        // declares the name only further down, spec §2.6). The others may
        // name a struct of the module in their type or value: after them.
        let mut early_globals = Vec::new();
        let mut globals = Vec::new();
        let scope = self.vm.module(id).resolution.module_scope.clone();
        // (a slot at a time: a copy of every global would be alive at the
        // redshift's peak, issue 14 item 5)
        for (k, sym) in scope.symbols.iter().enumerate() {
            if sym.kind != VarKind::Var {
                continue;
            }
            let Some(Some(g)) = self.vm.module(id).globals.get(k).cloned() else {
                continue;
            };
            let Some(v) = g.value else { continue };
            let annotation = self.type_expr(&frame, g.ty, range)?;
            let value = self.const_expr(&frame, &v, g.ty, scope.decl_range(k))?;
            let name = sh.ident(&sym.name, range);
            let def = StmtNode::VarDef {
                kind: Some(ast::VarKind::Var),
                name,
                annotation: Some(annotation),
                value: Some(value),
            };
            let early = matches!(
                self.vm.types.kind(g.ty),
                TypeKind::Prim(_) | TypeKind::Str | TypeKind::Bytes | TypeKind::Simd { .. }
            );
            let stmt = sh.stmt(def, range);
            if early {
                early_globals.push(stmt);
            } else {
                globals.push(stmt);
            }
        }
        // (made before the imports are read: their parameter types may
        // need one, `gc_ref` for a reference's conversion)
        let helpers = self.residual_helpers(sh, &frame)?;
        let user_imports: Vec<String> = sh
            .read()
            .user_imports
            .iter()
            .filter(|(importer, _)| *importer == modname)
            .map(|(_, m)| m.clone())
            .collect();
        let imports: Vec<(&str, &str)> = sh
            .read()
            .imports
            .iter()
            .filter(|(importer, _, _)| *importer == modname)
            .map(|(_, m, n)| (*m, *n))
            .collect();
        for m in &user_imports {
            let module = sh.ident(m, range);
            body.push(sh.stmt(StmtNode::Import { module, alias: None }, range));
        }
        let mut by_module: Vec<(&str, Vec<&str>)> = Vec::new();
        for (m, n) in imports {
            match by_module.iter_mut().find(|(x, _)| *x == m) {
                Some((_, names)) => names.push(n),
                None => by_module.push((m, vec![n])),
            }
        }
        for (m, names) in by_module {
            let names: Vec<ast::ImportNameNode> = names
                .into_iter()
                .map(|n| ast::ImportNameNode {
                    name: sh.ident(n, range),
                    alias: None,
                    range,
                })
                .collect();
            let names = sh.state().residual.add_import_names(names);
            let module = sh.ident(m, range);
            body.push(sh.stmt(StmtNode::ImportFrom { module, names }, range));
        }
        body.extend(early_globals);
        body.extend(class_defs);
        body.extend(globals);
        body.extend(helpers);
        for func in &order {
            if methods.contains_key(&*func.fqn) {
                continue;
            }
            if let Some(def) = shifted.remove(&*func.fqn) {
                let ShiftedDef::Tree(def) = def else {
                    // printed when it was shifted: in `printed`, in order
                    continue;
                };
                if sh.read().stream {
                    return Err(crate::bug!(
                        "`{}`'s residual `def` was not printed when it was shifted",
                        func.fqn
                    ));
                }
                if keep_functions {
                    let name = sh.with_residual(|m| m.ident(m.func_node(def).name).name.to_string());
                    functions.push(self.residual_func(sh, func, &name, None));
                }
                body.extend(self.provenance_comments(sh, func));
                body.push(sh.stmt(StmtNode::FuncDef(def), range));
            }
        }
        let (record, warnings) = if is_main {
            let mut state = sh.state();
            (state.record.take(), std::mem::take(&mut state.warnings))
        } else {
            (None, Vec::new())
        };
        let mut type_names = HashMap::new();
        if let Some(rec) = &record {
            for c in &rec.colors {
                type_names
                    .entry(c.ty)
                    .or_insert_with(|| self.vm.types.name(c.ty).to_string());
            }
        }
        // (every residual module defines the helpers, so every one maps
        // their errors back)
        let folded = sh.read().folded.clone();
        let body = sh.block(body);
        let printed = sh.state().printed.remove(&modname).unwrap_or_default();
        Ok(Residual {
            printed,
            modname,
            file,
            folded,
            user_imports,
            deps: Vec::new(),
            module: Rc::new(ast::Module::new()),
            body,
            functions,
            record,
            type_names,
            warnings,
        })
    }

    /// Where residual function `func` (named `name`, a method of `class`)
    /// comes from.
    fn residual_func(
        &self,
        sh: &Shift,
        func: &Rc<Function>,
        name: &str,
        class: Option<String>,
    ) -> ResidualFunc {
        ResidualFunc {
            fqn: func.fqn.to_string(),
            name: name.to_string(),
            class,
            def_path: func.code.file.path.clone(),
            def_range: func.code.proto_range(),
            made_by: sh.read().made_by.get(&*func.fqn).cloned().unwrap_or_default(),
            force_inline: func.force_inline,
        }
    }

    /// The helper functions residual code calls: implicit conversions with
    /// no explicit spelling, and errors found while folding blue operations.
    fn residual_helpers(&mut self, sh: &Shift, frame: &Frame) -> Eval<Vec<StmtId>> {
        let range = TextRange::default();
        let (conversions, raisers) = {
            // (every residual module of the program gets them)
            let state = sh.read();
            (state.conversions.clone(), state.raisers.clone())
        };
        let mut defs = Vec::new();
        let helper = |this: &mut Self,
                      name: &str,
                      params: Vec<ast::ParamNode>,
                      ret: TypeId,
                      body: StmtId|
         -> Eval<StmtId> {
            let return_type = Some(this.type_expr(frame, ret, range)?);
            let name = sh.ident(name, range);
            let def = residual_def(sh, name, params, return_type, vec![body], range);
            Ok(sh.stmt(StmtNode::FuncDef(def), range))
        };
        let module_scope = self.vm.module(frame.module).resolution.module_scope.clone();
        for (name, (from, to)) in conversions {
            if module_scope.find(&name).is_some() {
                // the module is already residual and defines the helper
                continue;
            }
            let param = ast::ParamNode {
                name: sh.ident("x", range),
                kind: ast::ParamKind::Positional,
                annotation: Some(self.type_expr(frame, from, range)?),
                default: None,
                range,
            };
            let x = sh.name("x", range);
            let body = sh.stmt(StmtNode::Return(Some(x)), range);
            defs.push(helper(self, &name, vec![param], to, body)?);
        }
        for (name, (raised, ty)) in raisers {
            let msg = sh.str(raised.message(), range);
            let callee = sh.name(raised.kind().name(), range);
            let exc = sh.call(callee, vec![msg], range);
            let body = sh.stmt(StmtNode::Raise(exc), range);
            defs.push(helper(self, &name, Vec::new(), ty, body)?);
        }
        Ok(defs)
    }

    /// `--provenance`: where a residual function comes from.
    fn provenance_comments(&self, sh: &Shift, func: &Rc<Function>) -> Vec<StmtId> {
        if !sh.read().provenance {
            return Vec::new();
        }
        let code = &func.code;
        let mut text = format!(
            "`{}`: from `def {}` at {}",
            func.fqn,
            code.def().name.name,
            code.file.location(code.proto_range().start)
        );
        if let Some(sites) = sh.read().made_by.get(&*func.fqn) {
            text.push_str(", made by blue code:");
            for site in sites {
                text.push_str(&format!("\n  {}", site.text()));
            }
        }
        if func.force_inline {
            text.push_str("\n(@force_inline: its calls are inlined)");
        }
        vec![sh.comment(text, TextRange::default())]
    }
}

/// Where a streaming redshift's arena and worklist were before a
/// top-level shift (`Interp::stream_shifted`).
struct StreamMark {
    arena: ast::ArenaMark,
    /// The length of `DopplerState::order`.
    shifted: usize,
    eq_methods: usize,
}

/// A red residual `def` (no decorators, no type parameters).
fn residual_def(
    sh: &Shift,
    name: ast::IdentId,
    params: Vec<ast::ParamNode>,
    return_type: Option<ast::ExprId>,
    body: Vec<StmtId>,
    proto_range: TextRange,
) -> ast::FuncId {
    let body = sh.block(body);
    let mut state = sh.state();
    let params = state.residual.add_params(params);
    let decorators = state.residual.add_exprs([]);
    state.residual.add_func(ast::FuncNode {
        name,
        color: FuncColor::Red,
        kind: FuncKind::Plain,
        decorators,
        type_params: None,
        params,
        return_type,
        body,
        proto_range,
    })
}
