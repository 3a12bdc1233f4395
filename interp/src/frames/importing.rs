//! User modules (spec §8.6, upstream's `ImportAnalyzer`): the set of
//! modules a program needs is found statically before any of them runs.
//! From the root module, every `import m` / `from m import ...` names a
//! module; each is looked for as `m.spy` beside the main file
//! (`host::ModuleSources`), parsed and resolved, breadth first. Then the
//! modules are loaded (module-level code run once) in depth-first
//! post-order of the import tree, each once: a module's imports are loaded
//! before it. A module that is missing (or only exists as `m.py`) is an
//! `ImportError` at the first import statement naming it, raised when the
//! load order reaches it; a cycle is not supported: the module whose import
//! statement finds its target not loaded yet fails with upstream's
//! "likely a circular import (WIP)" error.

use std::collections::{HashMap, VecDeque};
use std::rc::Rc;

use crate::error::{ExcKind, SpyError};
use crate::frames::module::ParsedModule;
use crate::frames::{Eval, Interp};
use crate::host::ModuleFile;
use crate::resolve;
use crate::source::{SourceFile, TextRange};
use crate::syntax::{self, ast};
use crate::vm::modules::BuiltinModule;
use crate::vm::value::ModuleId;

/// A module of the program, as the analysis found it.
enum Found {
    Parsed {
        file: Rc<SourceFile>,
        ast: Rc<ast::Module>,
        resolution: Rc<resolve::Resolution>,
    },
    /// Not found (`py`: only `NAME.py` exists).
    Missing { py: bool },
    /// Already loaded in this interpreter.
    Loaded,
}

/// The first import statement that named a module: where its
/// `ImportError` points.
struct Importer {
    file: Rc<SourceFile>,
    range: TextRange,
    /// `m` for `import m`, `m.f` for `from m import f` (upstream's
    /// `ImportRef.spy_name()`).
    spy_name: String,
}

/// The user modules a module imports, in the order of its statements (the
/// builtin modules, `builtins` included, are not files).
fn imports_of(m: &ast::Module) -> Vec<(String, TextRange, String)> {
    let mut out = Vec::new();
    for stmt in &m.body() {
        // (only an import's view is read: a `def`'s is not small)
        if !matches!(
            stmt.node,
            ast::StmtNode::Import { .. } | ast::StmtNode::ImportFrom { .. }
        ) {
            continue;
        }
        match &stmt.kind() {
            ast::StmtKind::Import { module, .. } => {
                out.push((module.name.to_string(), stmt.range, module.name.to_string()));
            }
            ast::StmtKind::ImportFrom { module, names } => {
                let spy_name = match names.first() {
                    Some(n) => format!("{}.{}", module.name, n.name.name),
                    None => module.name.to_string(),
                };
                out.push((module.name.to_string(), stmt.range, spy_name));
            }
            _ => {}
        }
    }
    out.retain(|(m, _, _)| !is_builtin_module(m));
    out
}

/// A module that is part of the interpreter, not a file.
pub(crate) fn is_builtin_module(name: &str) -> bool {
    name == "builtins" || BuiltinModule::find(name).is_some()
}

impl Interp<'_> {
    /// Load the program whose root module `module` (parsed from `file`) is
    /// named `rootname`: every user module it needs and that is not loaded
    /// yet, in dependency order, then the root; the root's id.
    pub(crate) fn load_program(&mut self, root: ParsedModule, rootname: &str) -> Eval<ModuleId> {
        let main_path = root.file.path.clone();
        let mut root = Some((root.file, root.ast, root.resolution));
        // modules by name, in the order they were found (breadth first)
        let mut found: Vec<(String, Found)> = Vec::new();
        let mut deps: HashMap<String, Vec<String>> = HashMap::new();
        let mut importers: HashMap<String, Importer> = HashMap::new();
        let mut queue = VecDeque::from([rootname.to_string()]);
        while let Some(name) = queue.pop_front() {
            if found.iter().any(|(n, _)| *n == name) {
                continue;
            }
            let parsed = match root.take() {
                Some(r) => Some(r),
                None if self.vm.module_named(&name).is_some() => {
                    found.push((name, Found::Loaded));
                    continue;
                }
                None => match self.preloaded.remove(&name) {
                    Some((file, ast)) => Some((file, Rc::new(ast), None)),
                    None => match self.module_sources.find(&main_path, &name) {
                        ModuleFile::Spy { path, source } => {
                            let (file, ast) = syntax::parse_bytes(&path, &source)?;
                            Some((file, Rc::new(ast), None))
                        }
                        ModuleFile::Py => {
                            found.push((name.clone(), Found::Missing { py: true }));
                            None
                        }
                        ModuleFile::Missing => {
                            found.push((name.clone(), Found::Missing { py: false }));
                            None
                        }
                    },
                },
            };
            let Some((file, ast, resolved)) = parsed else {
                continue;
            };
            let resolution = match resolved {
                Some(r) => r,
                None => Rc::new(resolve::resolve_module(&ast, &file)?),
            };
            let mut mine = Vec::new();
            for (dep, range, spy_name) in imports_of(&ast) {
                importers.entry(dep.clone()).or_insert_with(|| Importer {
                    file: file.clone(),
                    range,
                    spy_name,
                });
                if !mine.contains(&dep) {
                    mine.push(dep.clone());
                }
                queue.push_back(dep);
            }
            deps.insert(name.clone(), mine);
            found.push((
                name,
                Found::Parsed {
                    file,
                    ast,
                    resolution,
                },
            ));
        }
        let order = post_order(&found, &deps);
        let mut by_name: HashMap<String, Found> = found.into_iter().collect();
        let mut root_id = None;
        for name in order {
            match by_name.remove(&name) {
                Some(Found::Parsed {
                    file,
                    ast,
                    resolution,
                }) => {
                    let id = self.add_and_init_module(&name, file, ast, resolution)?;
                    if name == rootname {
                        root_id = Some(id);
                    }
                }
                Some(Found::Missing { py }) => {
                    let msg = if py {
                        format!("file `{name}.py` exists, but py files cannot be imported")
                    } else {
                        format!("module `{name}` does not exist")
                    };
                    let e = match importers.get(&name) {
                        Some(imp) => {
                            SpyError::new(ExcKind::ImportError, format!("cannot import `{}`", imp.spy_name))
                                .with_error(&imp.file, imp.range, msg)
                        }
                        None => SpyError::new(ExcKind::ImportError, msg),
                    };
                    return Err(e.into());
                }
                Some(Found::Loaded) | None => {}
            }
        }
        root_id.ok_or_else(|| crate::bug!("the root module `{rootname}` was not loaded"))
    }

    /// The error of an import statement whose module is a file of the
    /// program but not loaded yet: a cycle (upstream's text).
    pub(crate) fn circular_import(
        &self,
        file: &Rc<SourceFile>,
        range: TextRange,
        spy_name: &str,
        module: &str,
    ) -> SpyError {
        SpyError::new(ExcKind::ImportError, format!("cannot import `{spy_name}`"))
            .with_error(file, range, format!("module `{module}` does not exist"))
            .with_note(file, range, "this is likely a circular import (WIP)")
    }
}

/// Depth-first post-order of the import tree from every module in the
/// order found, each module once (upstream's `get_import_list`).
fn post_order(found: &[(String, Found)], deps: &HashMap<String, Vec<String>>) -> Vec<String> {
    fn visit(name: &str, deps: &HashMap<String, Vec<String>>, seen: &mut Vec<String>, out: &mut Vec<String>) {
        if seen.iter().any(|s| s == name) {
            return;
        }
        seen.push(name.to_string());
        for d in deps.get(name).map(Vec::as_slice).unwrap_or(&[]) {
            visit(d, deps, seen, out);
        }
        out.push(name.to_string());
    }
    let (mut seen, mut out) = (Vec::new(), Vec::new());
    for (name, _) in found {
        visit(name, deps, &mut seen, &mut out);
    }
    out
}
