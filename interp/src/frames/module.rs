//! Running a program: parse, resolve, module initialization (module-level
//! declarations in source order, struct types forward-declared), class
//! bodies, imports, then `main()` and its exit code.

use std::cell::RefCell;
use std::rc::Rc;

use crate::error::{ExcKind, SpyError};
use crate::frames::{add_trace, Eval, Frame, FrameKind, Interp};
use crate::resolve;
use crate::syntax::{self, ast};
use crate::vm::types::TypeId;
use crate::vm::value::{ModuleId, Typed, Value};
use crate::vm::ModuleData;

/// A parsed module several interpreters load (the fuzzer's worker runs
/// the interp engine and redshift from one parse of a program, doppler and
/// the jit from one parse of its residual module): the tree is immutable
/// once parsed, and its resolution under the name it is loaded as, if
/// already computed, is shared too.
#[derive(Clone)]
pub struct ParsedModule {
    pub file: Rc<crate::source::SourceFile>,
    pub ast: Rc<ast::Module>,
    /// `ast` resolved under the module name it is loaded as (`None`: the
    /// load resolves it).
    pub resolution: Option<Rc<resolve::Resolution>>,
}

impl ParsedModule {
    /// `ast` parsed from `file`, resolved now (so that every load, under
    /// any module name, shares the result); left to each load if that
    /// fails (the load reports the error).
    pub fn resolved(file: Rc<crate::source::SourceFile>, ast: ast::Module) -> ParsedModule {
        let resolution = resolve::resolve_module(&ast, &file).ok().map(Rc::new);
        ParsedModule {
            file,
            ast: Rc::new(ast),
            resolution,
        }
    }
}

/// How the path of a residual module is shown: `FILE.spy (residual code)`.
pub const RESIDUAL_SUFFIX: &str = " (residual code)";

/// The module name of a file: its stem.
pub fn module_name(path: &str) -> String {
    std::path::Path::new(path)
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_else(|| "main".to_string())
}

impl Interp<'_> {
    pub fn run_main_file(&mut self, path: &str, source: &[u8]) -> Eval<i32> {
        self.run_main_source(path, source.to_vec())
    }

    /// [`Interp::run_main_file`] of source the caller gives away (held once,
    /// as the module's `SourceFile`).
    pub fn run_main_source(&mut self, path: &str, source: Vec<u8>) -> Eval<i32> {
        let id = self.load_main_source(path, source)?;
        self.call_main(id)
    }

    /// Run a residual module shown as `path` under the module name
    /// `modname` (its original module's).
    pub fn run_residual_file(&mut self, path: &str, modname: &str, source: &[u8]) -> Eval<i32> {
        self.program_path = Some(path.strip_suffix(RESIDUAL_SUFFIX).unwrap_or(path).to_string());
        let id = self.load_module_as(path, modname, source)?;
        self.call_main(id)
    }

    /// Run a module already parsed from `file` (a residual module redshift
    /// printed and parsed back) under the module name `modname`.
    pub fn run_parsed_module_as(
        &mut self,
        file: Rc<crate::source::SourceFile>,
        module: ast::Module,
        modname: &str,
    ) -> Eval<i32> {
        self.run_shared_module_as(
            ParsedModule {
                file,
                ast: Rc::new(module),
                resolution: None,
            },
            modname,
        )
    }

    /// [`Interp::run_parsed_module_as`] of a module other interpreters load
    /// too.
    pub fn run_shared_module_as(&mut self, module: ParsedModule, modname: &str) -> Eval<i32> {
        let path = &module.file.path;
        self.program_path = Some(path.strip_suffix(RESIDUAL_SUFFIX).unwrap_or(path).to_string());
        let id = self.load_shared_module_as(module, modname)?;
        self.call_main(id)
    }

    /// Make `module` (parsed from `file`) what `import modname` loads: a
    /// residual module of the program (the doppler and jit engines).
    pub fn preload_module(
        &mut self,
        modname: String,
        file: Rc<crate::source::SourceFile>,
        module: ast::Module,
    ) {
        self.preloaded.insert(modname, (file, module));
    }

    /// Parse, resolve and initialize a residual module (the jit engine's
    /// input); its id.
    pub fn load_residual_module(&mut self, path: &str, source: &[u8]) -> Eval<ModuleId> {
        self.load_main_module(path, source)
    }

    /// [`Interp::load_residual_module`] shown as `path` under the module
    /// name `modname` (its original module's).
    pub fn load_residual_module_as(&mut self, path: &str, modname: &str, source: &[u8]) -> Eval<ModuleId> {
        self.load_module_as(path, modname, source)
    }

    /// Parse, resolve and initialize the program's module.
    pub(crate) fn load_main_module(&mut self, path: &str, source: &[u8]) -> Eval<ModuleId> {
        self.load_main_source(path, source.to_vec())
    }

    /// [`Interp::load_main_module`] of source the caller gives away.
    pub(crate) fn load_main_source(&mut self, path: &str, source: Vec<u8>) -> Eval<ModuleId> {
        let (file, module) = syntax::parse_owned(path, source)?;
        self.load_parsed_module_as(file, module, &module_name(path))
    }

    fn load_module_as(&mut self, path: &str, modname: &str, source: &[u8]) -> Eval<ModuleId> {
        let (file, module) = syntax::parse_bytes(path, source)?;
        self.load_parsed_module_as(file, module, modname)
    }

    /// Resolve and initialize a module already parsed from `file` (a
    /// residual module redshift printed and parsed back) under `modname`.
    pub fn load_parsed_module_as(
        &mut self,
        file: Rc<crate::source::SourceFile>,
        module: ast::Module,
        modname: &str,
    ) -> Eval<ModuleId> {
        let module = ParsedModule {
            file,
            ast: Rc::new(module),
            resolution: None,
        };
        self.load_program(module, modname)
    }

    /// [`Interp::load_parsed_module_as`] of a module other interpreters
    /// load too.
    pub fn load_shared_module_as(&mut self, module: ParsedModule, modname: &str) -> Eval<ModuleId> {
        self.load_program(module, modname)
    }

    /// Register a parsed and resolved module under `modname` and run its
    /// module-level code (`frames::importing` calls it in load order).
    pub(crate) fn add_and_init_module(
        &mut self,
        modname: &str,
        file: Rc<crate::source::SourceFile>,
        module: Rc<ast::Module>,
        resolution: Rc<resolve::Resolution>,
    ) -> Eval<ModuleId> {
        let n = resolution.module_scope.slot_count();
        let id = self.vm.add_module(ModuleData {
            name: modname.to_string(),
            file,
            ast: module,
            resolution,
            globals: vec![None; n],
            pending_defs: Vec::new(),
        });
        self.init_module(id)?;
        Ok(id)
    }

    pub(crate) fn module_frame(&self, id: ModuleId) -> Frame {
        let m = self.vm.module(id);
        Frame {
            kind: FrameKind::Module,
            module: id,
            file: m.file.clone(),
            ast: m.ast.clone(),
            res: m.resolution.clone(),
            scope: resolve::ScopeRef::module(&m.resolution),
            locals: Rc::new(RefCell::new(Vec::new())),
            closure: self.records.no_closure(),
            func: None,
            class_type: None,
            name: format!("[module] {}", m.name).into(),
            ns: m.name.as_str().into(),
            current: Default::default(),
            shift: None,
        }
    }

    /// Module init: forward-declare struct types, then execute every
    /// module-level statement in source order.
    fn init_module(&mut self, id: ModuleId) -> Eval<()> {
        let ast = self.vm.module(id).ast.clone();
        let mut frame = self.module_frame(id);
        for stmt in &ast.body() {
            if let ast::StmtKind::ClassDef(c) = &stmt.kind() {
                if c.is_struct && c.type_params.is_none() {
                    let fqn = format!("{}::{}", self.vm.module(id).name, c.name.name);
                    let ty = self.vm.types.new_struct(fqn);
                    self.store_slot(
                        &mut frame,
                        c.name,
                        TypeId::TYPE,
                        crate::vm::value::Color::Blue,
                        Value::Type(ty),
                    )?;
                }
            }
        }
        for stmt in &ast.body() {
            self.exec_stmt(&mut frame, &stmt)
                .map_err(|e| add_trace(e, &frame))?;
        }
        Ok(())
    }

    /// The program's `main`, checked (spec §7.4): a module without one, a
    /// `main` that is not a function, a `@blue` one or one with the wrong
    /// signature is a located error in every engine (doppler checks the
    /// source module before it redshifts).
    pub fn program_main(&self, id: ModuleId) -> Eval<Rc<crate::vm::value::Function>> {
        let m = self.vm.module(id);
        let file = m.file.clone();
        let scope = &m.resolution.module_scope;
        let slot = scope.find("main");
        let main = slot
            .and_then(|i| m.globals[i].clone())
            .and_then(|g| g.value.map(|v| (g.ty, v)));
        let Some((ty, main)) = main else {
            let range = slot.map(|i| scope.decl_range(i)).unwrap_or_default();
            return Err(SpyError::new(ExcKind::NameError, "cannot find function `main`")
                .with_error(&file, range, format!("module `{}` defines no `main`", m.name))
                .into());
        };
        let Value::Func(func) = main else {
            let range = slot.map(|i| scope.decl_range(i)).unwrap_or_default();
            return Err(SpyError::new(ExcKind::TypeError, "`main` is not a function")
                .with_error(&file, range, format!("this is `{}`", self.vm.types.name(ty)))
                .into());
        };
        let def = func.code.def();
        if func.color == crate::syntax::ast::FuncColor::Blue {
            return Err(SpyError::new(ExcKind::TypeError, "`main` must be a red function")
                .with_error(&file, def.proto_range, "this function is `@blue`")
                .into());
        }
        let argv_ok = match &func.params[..] {
            [] => true,
            [p] => matches!(
                self.vm.types.kind(p.ty),
                crate::vm::types::TypeKind::List(TypeId::STR)
            ),
            _ => false,
        };
        if !argv_ok || func.star().is_some() {
            return Err(
                SpyError::new(ExcKind::TypeError, "`main` has the wrong signature")
                    .with_error(
                        &file,
                        def.proto_range,
                        "parameters must be `main(argv: list[str])`",
                    )
                    .with_note(
                        &file,
                        def.proto_range,
                        "help: the accepted signatures are `def main()` and `def main(argv: list[str])`, returning `None` or `i32`",
                    )
                    .into(),
            );
        }
        if func.ret() != TypeId::NONE && func.ret() != TypeId::I32 {
            return Err(
                SpyError::new(ExcKind::TypeError, "`main` has the wrong signature")
                    .with_error(
                        &file,
                        def.proto_range,
                        "the only valid return types are `None`, `int` and `i32`",
                    )
                    .into(),
            );
        }
        Ok(func)
    }

    /// The items of `main(argv: list[str])`'s argument: `argv[0]` is the
    /// program's path as given (upstream's `execute`:
    /// `[str(args.filename)] + args.argv`).
    pub(crate) fn main_argv(&self, id: ModuleId) -> Vec<String> {
        match self.argv {
            Some(argv) => argv.to_vec(),
            None => vec![match &self.program_path {
                Some(p) => p.clone(),
                // (the jit engine runs the residual module it loaded)
                None => {
                    let path = &self.vm.module(id).file.path;
                    path.strip_suffix(RESIDUAL_SUFFIX).unwrap_or(path).to_string()
                }
            }],
        }
    }

    fn call_main(&mut self, id: ModuleId) -> Eval<i32> {
        // (its record, if its `def` is pending: `frames::pending_def`)
        self.make_pending_global(id, "main")?;
        let func = self.program_main(id)?;
        let args = match func.params.first() {
            Some(p) => {
                let items = self.main_argv(id).iter().map(|a| Value::str(a)).collect();
                vec![Typed::red(p.ty, self.new_list(p.ty, items))]
            }
            None => Vec::new(),
        };
        let result = self.invoke(&func, args, None)?;
        // `-> None` exits with 0; the OS keeps the low 8 bits of an `i32`.
        if func.ret() == TypeId::NONE {
            return Ok(0);
        }
        Ok(result.value.checked_i32()? & 0xff)
    }

    pub(crate) fn exec_import(
        &mut self,
        f: &mut Frame,
        module: &ast::Identifier,
        alias: Option<&ast::Identifier>,
    ) -> Eval<()> {
        if let Some(m) = crate::vm::modules::BuiltinModule::find(&module.name) {
            let v = Typed::blue(
                TypeId::MODULE,
                Value::Builtin(crate::vm::builtins::Builtin::Module(m)),
            );
            return self.declare_slot(f, alias.unwrap_or(module), v);
        }
        match self.user_module(f, module, &module.name)? {
            Some(id) => self.declare_slot(
                f,
                alias.unwrap_or(module),
                Typed::blue(TypeId::MODULE, Value::Module(id)),
            ),
            None => Err(
                SpyError::new(ExcKind::ImportError, format!("cannot import `{}`", module.name))
                    .with_error(
                        &f.file,
                        module.range,
                        format!("module `{}` does not exist", module.name),
                    )
                    .into(),
            ),
        }
    }

    /// The loaded user module `name` an import statement of `f` names
    /// (`spy_name` as its error says it); not loaded yet is a cycle
    /// (`frames::importing`).
    fn user_module(&self, f: &Frame, module: &ast::Identifier, spy_name: &str) -> Eval<Option<ModuleId>> {
        if crate::frames::importing::is_builtin_module(&module.name) {
            return Ok(None);
        }
        match self.vm.module_named(&module.name) {
            Some(id) => Ok(Some(id)),
            None => {
                let range = if f.current.is_empty() {
                    module.range
                } else {
                    f.current
                };
                Err(self
                    .circular_import(&f.file, range, spy_name, &module.name)
                    .into())
            }
        }
    }

    pub(crate) fn exec_import_from(
        &mut self,
        f: &mut Frame,
        module: &ast::Identifier,
        names: &ast::ImportNames<'_>,
    ) -> Eval<()> {
        let builtin_module = crate::vm::modules::BuiltinModule::find(&module.name);
        let first = names.first().map(|n| n.name.name.as_str()).unwrap_or("");
        let user = match builtin_module {
            Some(_) => None,
            None if module.name == "builtins" => None,
            None => self.user_module(f, module, &format!("{}.{first}", module.name))?,
        };
        if builtin_module.is_none() && user.is_none() && module.name != "builtins" {
            return Err(SpyError::new(
                ExcKind::ImportError,
                format!("cannot import `{}.{first}`", module.name),
            )
            .with_error(
                &f.file,
                module.range,
                format!("module `{}` does not exist", module.name),
            )
            .into());
        }
        for n in names {
            let member = match (builtin_module, user) {
                (Some(m), _) => m.member(&n.name.name),
                (None, Some(id)) => self.module_member(id, &n.name.name)?,
                (None, None) => crate::vm::builtins::lookup(&n.name.name).map(crate::vm::builtins::value),
            };
            let Some(v) = member else {
                return Err(SpyError::new(
                    ExcKind::ImportError,
                    format!("cannot import `{}.{}`", module.name, n.name.name),
                )
                .with_error(
                    &f.file,
                    n.name.range,
                    format!(
                        "attribute `{}` does not exist in module `{}`",
                        n.name.name, module.name
                    ),
                )
                .into());
            };
            self.declare_slot(f, n.alias.as_ref().unwrap_or(&n.name), v)?;
        }
        Ok(())
    }

    /// `from m import name` of user module `m`: the value `name` has now,
    /// bound as a blue constant (upstream's `exec_Import` declares every
    /// import blue; a `var` is imported with its value at import time,
    /// spec §8.6).
    fn module_member(&mut self, id: ModuleId, name: &str) -> Eval<Option<Typed>> {
        let Some(slot) = self.make_pending_global(id, name)? else {
            return Ok(None);
        };
        let g = self.vm.module(id).globals[slot].clone();
        Ok(g.and_then(|g| Some(Typed::blue(g.ty, g.value?))))
    }
}
