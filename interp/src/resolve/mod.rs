//! Name resolution: decides, before anything runs, the scope of every name
//! occurrence (local slot, enclosing function slot, module global, builtin or
//! undefined), the `var`/`const` kind of every declaration, and raises the
//! static `ScopeError`s (redeclaration, shadowing) as upstream's
//! `spy/analyze/scope.py` does.
//!
//! Two passes per body, as upstream: `declare` (collect the body's symbols,
//! in source order) then `resolve` (bind every occurrence). Nested function
//! and class bodies are processed after their enclosing body is fully
//! declared, so they see every name of the enclosing scopes.

pub mod builtin_names;
pub mod name_refs;
pub mod scope;

use foldhash::{HashMap, HashMapExt};
use std::rc::Rc;

use crate::error::{ExcKind, SpyError};
use crate::source::{SourceFile, TextRange};
use crate::syntax::ast::{self, AssignTarget, ExprKind, ExprRef, NameId, StmtKind, StmtRef, Stmts};
use crate::syntax::walk;

pub use scope::{NameRef, Origin, Scope, ScopeKind, Symbol, VarKind};

/// The result of resolving one module.
#[derive(Debug)]
pub struct Resolution {
    /// Where every name occurrence points, indexed by `NameId`.
    pub names: name_refs::NameRefs,
    pub module_scope: Rc<Scope>,
    /// The scope of every `def` body by `FuncId`, then of every `class`
    /// body by `ClassId` (after the first `func_count`): kept inline, one
    /// record a body (not an `Rc`'d one and a pointer to it; frames read
    /// them through a [`ScopeRef`], issue 14 item 5). A resolution that
    /// succeeded has resolved every body.
    bodies: Vec<Scope>,
    func_count: usize,
}

impl Resolution {
    pub fn name(&self, id: NameId) -> NameRef {
        self.names.get(id.0 as usize)
    }

    /// The scope of the body of `def` `id`.
    pub fn func_scope(&self, id: ast::FuncId) -> Option<&Scope> {
        if id.index() >= self.func_count {
            return None;
        }
        self.bodies.get(id.index())
    }

    /// The scope of the body of `class` `id`.
    pub fn class_scope(&self, id: ast::ClassId) -> Option<&Scope> {
        self.bodies.get(self.func_count + id.index())
    }
}

/// One scope of a shared resolution (what a frame executes): reads as the
/// [`Scope`].
#[derive(Clone, Debug)]
pub struct ScopeRef {
    res: Rc<Resolution>,
    /// An index of `res.bodies`, or [`ScopeRef::MODULE`].
    body: usize,
}

impl ScopeRef {
    const MODULE: usize = usize::MAX;

    /// The module scope of `res`.
    pub fn module(res: &Rc<Resolution>) -> ScopeRef {
        ScopeRef {
            res: res.clone(),
            body: Self::MODULE,
        }
    }

    /// The scope of the body of `def` `id`, if `res` has it.
    pub fn func(res: &Rc<Resolution>, id: ast::FuncId) -> Option<ScopeRef> {
        res.func_scope(id)?;
        Some(ScopeRef {
            res: res.clone(),
            body: id.index(),
        })
    }

    /// The scope of the body of `class` `id`, if `res` has it.
    pub fn class(res: &Rc<Resolution>, id: ast::ClassId) -> Option<ScopeRef> {
        res.class_scope(id)?;
        Some(ScopeRef {
            res: res.clone(),
            body: res.func_count + id.index(),
        })
    }
}

impl std::ops::Deref for ScopeRef {
    type Target = Scope;
    fn deref(&self) -> &Scope {
        if self.body == Self::MODULE {
            return &self.res.module_scope;
        }
        // (Made only for a body the resolution has, see the constructors.)
        &self.res.bodies[self.body]
    }
}

/// Resolve every name of `module` (loaded from `file`).
pub fn resolve_module(module: &ast::Module, file: &Rc<SourceFile>) -> Result<Resolution, SpyError> {
    let mut r = Resolver {
        file: file.clone(),
        names: name_refs::NameRefs::new(module.name_count as usize),
        bodies: std::iter::repeat_with(|| Scope::new(ScopeKind::Function))
            .take(module.func_count() + module.class_count())
            .collect(),
        func_count: module.func_count(),
        stack: vec![Scope::new(ScopeKind::Module)],
        loop_depth: 0,
        error: None,
        generator_targets: Vec::new(),
        visible_at_def: HashMap::new(),
        limits: vec![usize::MAX],
    };
    r.declare_module(&module.body())?;
    r.resolve_block(&module.body())?;
    if let Some(e) = r.error {
        return Err(e);
    }
    let module_scope = Rc::new(r.stack.pop().expect("module scope").finished());
    Ok(Resolution {
        names: r.names,
        module_scope,
        bodies: r.bodies,
        func_count: r.func_count,
    })
}

struct Resolver {
    file: Rc<SourceFile>,
    names: name_refs::NameRefs,
    /// `Resolution::bodies`, each set as its body is resolved (every one
    /// is, or the resolution fails).
    bodies: Vec<Scope>,
    func_count: usize,
    /// The scopes being resolved, module first, innermost last.
    stack: Vec<Scope>,
    loop_depth: u32,
    /// The first static error found while resolving expressions.
    error: Option<SpyError>,
    /// Targets of the generator expressions being resolved, innermost last.
    generator_targets: Vec<(String, NameRef)>,
    /// For each `def`/`class` (by the `NameId` of its name): how many
    /// symbols its enclosing scope had declared when the definition was
    /// declared. Upstream declares nested bodies in the same pass as the
    /// enclosing one, so a name of the enclosing scope declared later does
    /// not count for the nested body's declarations (shadowing, implicit
    /// locals); it is still visible to its name lookups.
    visible_at_def: HashMap<NameId, usize>,
    /// Parallel to `stack`: how many of each scope's symbols the nested
    /// body being declared sees (`usize::MAX` for the innermost).
    limits: Vec<usize>,
}

impl Resolver {
    fn current(&mut self) -> &mut Scope {
        self.stack.last_mut().expect("scope stack is never empty")
    }

    fn set(&mut self, id: &ast::Identifier, r: NameRef) {
        self.names.set(id.id.0 as usize, r);
    }

    // ------------------------------------------------------------ declare

    fn declare_module(&mut self, body: &Stmts<'_>) -> Result<(), SpyError> {
        for stmt in body {
            match &stmt.kind() {
                StmtKind::FuncDef(f) => {
                    self.declare_new(f.name, VarKind::Const, Origin::FuncDef)?;
                    self.note_def(f.name);
                }
                StmtKind::ClassDef(c) => {
                    self.declare_new(c.name, VarKind::Const, Origin::ClassDef)?;
                    self.note_def(c.name);
                }
                StmtKind::Import { module, alias } => {
                    let id = alias.unwrap_or(*module);
                    self.declare_new(id, VarKind::Const, Origin::Import)?;
                }
                StmtKind::ImportFrom { names, .. } => {
                    for n in names {
                        let id = n.alias.unwrap_or(n.name);
                        self.declare_new(id, VarKind::Const, Origin::Import)?;
                    }
                }
                StmtKind::Assign { target, .. } => match target {
                    AssignTarget::Name(id) => self.declare_new(id, VarKind::Const, Origin::GlobalConst)?,
                    AssignTarget::Unpack { names, .. } => {
                        for id in names {
                            self.declare_new(&id, VarKind::Const, Origin::GlobalConst)?;
                        }
                    }
                    _ => {}
                },
                StmtKind::VarDef(v) => {
                    let (kind, origin) = match v.kind {
                        Some(ast::VarKind::Var) => (VarKind::Var, Origin::Explicit),
                        Some(ast::VarKind::Const) => (VarKind::Const, Origin::Explicit),
                        None => (VarKind::Const, Origin::GlobalConst),
                    };
                    self.declare_new(v.name, kind, origin)?;
                }
                _ => {}
            }
        }
        Ok(())
    }

    /// Declare a brand-new symbol in the current scope: redeclaration and
    /// shadowing are ScopeErrors.
    fn declare_new(&mut self, id: &ast::Identifier, kind: VarKind, origin: Origin) -> Result<(), SpyError> {
        if let Some(prev) = self.current().find(&id.name) {
            if self.current().blue {
                // Upstream's `define_name`: the same name defined in two
                // places of a blue body (e.g. both branches of a blue `if`)
                // is checked when a second declaration executes.
                self.current().mark_redeclared(prev);
                return Ok(());
            }
            let prev_range = self.current().decl_range(prev);
            return Err(SpyError::new(
                ExcKind::ScopeError,
                format!("variable `{}` already declared", id.name),
            )
            .with_error(&self.file, id.range, "this is the new declaration")
            .with_note(&self.file, prev_range, "this is the previous declaration"));
        }
        if let Some(prev_range) = self.find_in_outer_scopes(&id.name) {
            return Err(SpyError::new(
                ExcKind::ScopeError,
                format!("variable `{}` shadows a name declared in an outer scope", id.name),
            )
            .with_error(&self.file, id.range, "this is the new declaration")
            .with_note(&self.file, prev_range, "this is the previous declaration"));
        }
        self.current()
            .declare(id.name.clone(), kind, origin, id.range, false);
        Ok(())
    }

    /// The declaration range of `name` in an enclosing (non-builtin) scope.
    /// Only the symbols each enclosing scope had declared when the nested
    /// definition was declared count (see `visible_at_def`).
    fn find_in_outer_scopes(&self, name: &str) -> Option<TextRange> {
        let n = self.stack.len();
        self.stack[..n - 1]
            .iter()
            .zip(&self.limits)
            .rev()
            .filter(|(s, _)| s.kind != ScopeKind::Class)
            .find_map(|(s, &limit)| s.find(name).filter(|&i| i < limit).map(|i| s.decl_range(i)))
    }

    /// Record how many symbols the current scope has when definition
    /// `name` is declared.
    fn note_def(&mut self, name: &ast::Identifier) {
        let count = self.current().symbols.len();
        self.visible_at_def.insert(name.id, count);
    }

    /// Enter the body of definition `def_name` (a new innermost scope).
    fn push_body(&mut self, def_name: NameId, scope: Scope) {
        let limit = self.visible_at_def.get(&def_name).copied().unwrap_or(usize::MAX);
        *self.limits.last_mut().expect("limits follow the stack") = limit;
        self.stack.push(scope);
        self.limits.push(usize::MAX);
    }

    fn pop_body(&mut self) -> Scope {
        self.limits.pop();
        *self.limits.last_mut().expect("limits follow the stack") = usize::MAX;
        self.stack.pop().expect("a body scope")
    }

    /// `x = e` (and walrus, unpack targets): declares `x` only if it is not
    /// visible from an enclosing scope (builtins included).
    fn declare_assign(&mut self, id: &ast::Identifier) {
        let in_loop = self.loop_depth > 0;
        if let Some(i) = self.current().find(&id.name) {
            let sym = &mut self.current().symbols[i];
            let second = sym.is_assigned();
            sym.set_assigned();
            if sym.origin == Origin::Auto && (second || in_loop) {
                sym.kind = VarKind::Var;
            }
            return;
        }
        if self.find_in_outer_scopes(&id.name).is_some() || builtin_names::lookup(&id.name).is_some() {
            return;
        }
        let kind = if in_loop { VarKind::Var } else { VarKind::Const };
        self.current()
            .declare(id.name.clone(), kind, Origin::Auto, id.range, true);
    }

    fn declare_block(&mut self, body: &Stmts<'_>) -> Result<(), SpyError> {
        for stmt in body {
            self.declare_stmt(&stmt)?;
        }
        Ok(())
    }

    fn declare_stmt(&mut self, stmt: &StmtRef<'_>) -> Result<(), SpyError> {
        let in_loop = self.loop_depth > 0;
        match &stmt.kind() {
            StmtKind::FuncDef(f) => {
                self.declare_new(f.name, VarKind::Const, Origin::FuncDef)?;
                self.note_def(f.name);
            }
            StmtKind::ClassDef(c) => {
                self.declare_new(c.name, VarKind::Const, Origin::ClassDef)?;
                self.note_def(c.name);
            }
            StmtKind::Import { .. } | StmtKind::ImportFrom { .. } => {}
            StmtKind::Assign { target, value } => {
                self.declare_expr(value);
                match target {
                    AssignTarget::Name(id) => self.declare_assign(id),
                    AssignTarget::Unpack { names, .. } => {
                        for id in names {
                            self.declare_assign(&id);
                        }
                    }
                    AssignTarget::Attribute { value, .. } => self.declare_expr(value),
                    AssignTarget::Subscript { value, indices, .. } => {
                        self.declare_expr(value);
                        indices.iter().for_each(|e| self.declare_expr(&e));
                    }
                }
            }
            StmtKind::AugAssign { target, value, .. } => {
                self.declare_expr(value);
                self.declare_assign(target);
                let name = target.name.clone();
                if let Some(i) = self.current().find(&name) {
                    let sym = &mut self.current().symbols[i];
                    if sym.origin == Origin::Auto {
                        sym.kind = VarKind::Var;
                    }
                }
            }
            StmtKind::VarDef(v) => {
                if let Some(value) = &v.value {
                    self.declare_expr(value);
                }
                let field = self.current().kind == ScopeKind::Class && v.value.is_none();
                let (kind, origin) = match v.kind {
                    Some(ast::VarKind::Var) => (VarKind::Var, Origin::Explicit),
                    Some(ast::VarKind::Const) => (VarKind::Const, Origin::Explicit),
                    None if field => (VarKind::Const, Origin::ClassField),
                    None if in_loop => (VarKind::Var, Origin::Auto),
                    None => (VarKind::Const, Origin::Auto),
                };
                self.declare_new(v.name, kind, origin)?;
                if v.value.is_some() {
                    // `x: T = v` is the first assignment: a second one
                    // promotes an auto const to var.
                    if let Some(sym) = self.current().symbols.last_mut() {
                        sym.set_assigned();
                    }
                }
            }
            StmtKind::If { test, body, orelse } => {
                self.declare_expr(test);
                self.declare_block(body)?;
                self.declare_block(orelse)?;
            }
            StmtKind::While { test, body } => {
                self.loop_depth += 1;
                self.declare_expr(test);
                let r = self.declare_block(body);
                self.loop_depth -= 1;
                r?;
            }
            StmtKind::For { target, iter, body } => {
                self.declare_expr(iter);
                self.declare_new(target, VarKind::Var, Origin::ForTarget)?;
                self.loop_depth += 1;
                let r = self.declare_block(body);
                self.loop_depth -= 1;
                r?;
            }
            StmtKind::Return(Some(e)) | StmtKind::Raise(e) | StmtKind::Expr(e) => self.declare_expr(e),
            StmtKind::Assert { test, msg } => {
                self.declare_expr(test);
                if let Some(m) = msg {
                    self.declare_expr(m);
                }
            }
            StmtKind::Return(None)
            | StmtKind::Break
            | StmtKind::Continue
            | StmtKind::Pass
            | StmtKind::Comment(_) => {}
        }
        Ok(())
    }

    /// Expressions only declare through walrus targets. (A generator's
    /// target lives in a hidden slot of its own, see `resolve_genexp`.)
    fn declare_expr(&mut self, e: &ExprRef<'_>) {
        walk_in_evaluation_order(*e, &mut |e| {
            if let ExprKind::Walrus { target, .. } = &e.kind() {
                self.declare_assign(target)
            }
        });
    }

    // ------------------------------------------------------------ resolve

    /// Bind `id` to its declaration as seen from the current scope.
    fn bind(&mut self, id: &ast::Identifier) {
        let r = self.lookup(&id.name);
        self.set(id, r);
    }

    fn lookup(&self, name: &str) -> NameRef {
        if let Some((_, r)) = self.generator_targets.iter().rev().find(|(n, _)| n == name) {
            return *r;
        }
        let n = self.stack.len();
        let current = &self.stack[n - 1];
        if let Some(i) = current.find(name) {
            return if current.kind == ScopeKind::Module {
                NameRef::Global(i as u32)
            } else {
                NameRef::Local(i as u32)
            };
        }
        let mut depth = 0;
        for scope in self.stack[..n - 1].iter().rev() {
            match scope.kind {
                ScopeKind::Class => continue,
                ScopeKind::Function => {
                    depth += 1;
                    if let Some(i) = scope.find(name) {
                        return NameRef::Outer {
                            depth,
                            slot: i as u32,
                        };
                    }
                }
                ScopeKind::Module => {
                    if let Some(i) = scope.find(name) {
                        return NameRef::Global(i as u32);
                    }
                }
            }
        }
        match builtin_names::lookup(name) {
            Some(i) => NameRef::Builtin(i),
            None => NameRef::Undefined,
        }
    }

    fn resolve_block(&mut self, body: &Stmts<'_>) -> Result<(), SpyError> {
        for stmt in body {
            self.resolve_stmt(&stmt)?;
        }
        Ok(())
    }

    fn resolve_stmt(&mut self, stmt: &StmtRef<'_>) -> Result<(), SpyError> {
        match &stmt.kind() {
            StmtKind::FuncDef(f) => self.resolve_funcdef(f)?,
            StmtKind::ClassDef(c) => self.resolve_classdef(c)?,
            StmtKind::Import { module, alias } => {
                self.bind(alias.unwrap_or(*module));
            }
            StmtKind::ImportFrom { names, .. } => {
                for n in names {
                    self.bind(n.alias.unwrap_or(n.name));
                }
            }
            StmtKind::Assign { target, value } => {
                self.resolve_expr(value);
                match target {
                    AssignTarget::Name(id) => self.bind(id),
                    AssignTarget::Unpack { names, .. } => names.iter().for_each(|id| self.bind(&id)),
                    AssignTarget::Attribute { value, .. } => self.resolve_expr(value),
                    AssignTarget::Subscript { value, indices, .. } => {
                        self.resolve_expr(value);
                        indices.iter().for_each(|e| self.resolve_expr(&e));
                    }
                }
            }
            StmtKind::AugAssign { target, value, .. } => {
                self.bind(target);
                self.resolve_expr(value);
            }
            StmtKind::VarDef(v) => {
                if let Some(t) = &v.annotation {
                    self.resolve_expr(t);
                }
                if let Some(e) = &v.value {
                    self.resolve_expr(e);
                }
                self.bind(v.name);
            }
            StmtKind::If { test, body, orelse } => {
                self.resolve_expr(test);
                self.resolve_block(body)?;
                self.resolve_block(orelse)?;
            }
            StmtKind::While { test, body } => {
                self.resolve_expr(test);
                self.resolve_block(body)?;
            }
            StmtKind::For { target, iter, body } => {
                self.resolve_expr(iter);
                self.bind(target);
                self.resolve_block(body)?;
            }
            StmtKind::Return(Some(e)) | StmtKind::Raise(e) | StmtKind::Expr(e) => self.resolve_expr(e),
            StmtKind::Assert { test, msg } => {
                self.resolve_expr(test);
                if let Some(m) = msg {
                    self.resolve_expr(m);
                }
            }
            StmtKind::Return(None)
            | StmtKind::Break
            | StmtKind::Continue
            | StmtKind::Pass
            | StmtKind::Comment(_) => {}
        }
        Ok(())
    }

    fn resolve_expr(&mut self, e: &ExprRef<'_>) {
        match &e.kind() {
            ExprKind::Name(id) => self.bind(id),
            ExprKind::Walrus { target, value } => {
                self.resolve_expr(value);
                self.bind(target);
            }
            ExprKind::GeneratorExp { elt, target, iter } => self.resolve_genexp(elt, target, iter),
            _ => {
                if let (ExprKind::Call { .. }, None) = (&e.kind(), &self.error) {
                    if let Err((msg, range)) = check_prefixed_literal(e) {
                        self.error = Some(SpyError::new(ExcKind::ParseError, msg).with_error(
                            &self.file,
                            range,
                            "integer literal out of range",
                        ));
                    }
                }
                for_each_child_in_evaluation_order(*e, &mut |c| self.resolve_expr(&c));
            }
        }
    }

    /// `(elt for target in iter)`: the target gets a hidden slot of the
    /// enclosing body (as if the generator had its own scope), visible only
    /// in `elt`; it neither shadows nor is shadowed by other names.
    fn resolve_genexp(&mut self, elt: &ExprRef<'_>, target: &ast::Identifier, iter: &ExprRef<'_>) {
        self.resolve_expr(iter);
        let hidden = format!("{}@gen{}", target.name, target.id.0);
        let scope = self.current();
        let slot = scope.declare(
            hidden.as_str().into(),
            VarKind::Const,
            Origin::ForTarget,
            target.range,
            true,
        ) as u32;
        let r = if scope.kind == ScopeKind::Module {
            NameRef::Global(slot)
        } else {
            NameRef::Local(slot)
        };
        self.set(target, r);
        self.generator_targets.push((target.name.to_string(), r));
        self.resolve_expr(elt);
        self.generator_targets.pop();
    }

    fn resolve_funcdef(&mut self, f: &ast::FuncDef<'_>) -> Result<(), SpyError> {
        // Decorators, defaults and annotations are evaluated in the
        // enclosing scope when the `def` executes.
        for d in &f.decorators {
            self.resolve_expr(&d);
        }
        let generic = f.type_params.is_some();
        if !generic {
            for p in &f.params {
                if let Some(t) = &p.annotation {
                    self.resolve_expr(t);
                }
            }
            if let Some(t) = &f.return_type {
                self.resolve_expr(t);
            }
        }
        for p in &f.params {
            if let Some(d) = &p.default {
                self.resolve_expr(d);
            }
        }
        self.bind(f.name);
        let outer_loop = std::mem::replace(&mut self.loop_depth, 0);
        let mut scope = Scope::new(ScopeKind::Function);
        scope.blue = f.color == ast::FuncColor::Blue;
        self.push_body(f.name.id, scope);
        let result = self.resolve_function_body(f, generic);
        let scope = self.pop_body();
        self.loop_depth = outer_loop;
        result?;
        self.bodies[f.id.index()] = scope.finished();
        Ok(())
    }

    fn resolve_function_body(&mut self, f: &ast::FuncDef<'_>, generic: bool) -> Result<(), SpyError> {
        let param_origin = if f.color == ast::FuncColor::Blue {
            (VarKind::Const, Origin::BlueParam)
        } else {
            (VarKind::Var, Origin::RedParam)
        };
        // PEP 695 type parameters are blue parameters of the implicit
        // generic wrapper; they live in the function's own scope here, and
        // the annotations that use them are resolved inside it.
        if let Some(tps) = &f.type_params {
            for tp in tps {
                self.declare_new(tp, VarKind::Const, Origin::BlueParam)?;
                self.bind(tp);
            }
        }
        for p in &f.params {
            self.declare_new(p.name, param_origin.0, param_origin.1)?;
            self.bind(p.name);
        }
        if generic {
            for p in &f.params {
                if let Some(t) = &p.annotation {
                    self.resolve_expr(t);
                }
            }
            if let Some(t) = &f.return_type {
                self.resolve_expr(t);
            }
        }
        self.declare_block(&f.body)?;
        self.resolve_block(&f.body)
    }

    fn resolve_classdef(&mut self, c: &ast::ClassDef<'_>) -> Result<(), SpyError> {
        for d in &c.decorators {
            self.resolve_expr(&d);
        }
        self.bind(c.name);
        let outer_loop = std::mem::replace(&mut self.loop_depth, 0);
        // The type parameters of a generic struct live in a scope of their
        // own around the class body, so that methods see them too (class
        // scopes are invisible to nested functions). At run time it is the
        // innermost environment of the class body's closure.
        let generic = c.type_params.is_some();
        if let Some(tps) = &c.type_params {
            self.push_body(c.name.id, Scope::new(ScopeKind::Function));
            for tp in tps {
                self.declare_new(tp, VarKind::Const, Origin::BlueParam)?;
                self.bind(tp);
            }
            // `Self`: the specialized struct type (the last slot).
            self.current().declare(
                "Self".into(),
                VarKind::Const,
                Origin::ClassDef,
                c.name.range,
                true,
            );
        }
        if generic {
            // The type-parameter scope is complete: the body sees all of it.
            self.stack.push(Scope::new(ScopeKind::Class));
            self.limits.push(usize::MAX);
        } else {
            self.push_body(c.name.id, Scope::new(ScopeKind::Class));
        }
        let result = self
            .declare_block(&c.body)
            .and_then(|_| self.resolve_block(&c.body));
        let scope = self.pop_body();
        if generic {
            self.pop_body();
        }
        self.loop_depth = outer_loop;
        result?;
        self.bodies[self.func_count + c.id.index()] = scope.finished();
        Ok(())
    }
}

/// Pre-order walk over an expression and its sub-expressions, in
/// evaluation order (not into nested statements: expressions contain none).
fn walk_in_evaluation_order<'a>(e: ExprRef<'a>, f: &mut impl FnMut(ExprRef<'a>)) {
    f(e);
    for_each_child_in_evaluation_order(e, &mut |c| walk_in_evaluation_order(c, f));
}

/// Call `f` on each direct sub-expression of `e`, in evaluation order: the
/// walker's source order, except that a conditional evaluates its test
/// first and a generator its iterable.
fn for_each_child_in_evaluation_order<'a>(e: ExprRef<'a>, f: &mut impl FnMut(ExprRef<'a>)) {
    match e.kind() {
        ExprKind::IfExp { test, body, orelse } => {
            f(test);
            f(body);
            f(orelse);
        }
        ExprKind::GeneratorExp { elt, iter, .. } => {
            f(iter);
            f(elt);
        }
        _ => walk::for_each_child_expr(e, &mut |c| f(c)),
    }
}

/// The literal of a prefixed-literal call such as `u8(255)` or `i64(-5)`:
/// (type name, value, range of the literal).
pub fn prefixed_int_literal(e: &ExprRef<'_>) -> Option<(ast::Name, i128, crate::source::TextRange)> {
    let ExprKind::Call { func, args } = e.kind() else {
        return None;
    };
    let ExprKind::Name(id) = func.kind() else {
        return None;
    };
    if !matches!(id.name.as_str(), "i8" | "u8" | "i32" | "u32" | "i64" | "u64") {
        return None;
    }
    let [arg] = args.as_array()?;
    let value = match arg.kind() {
        ExprKind::Int(v) => v as i128,
        ExprKind::UnaryOp {
            op: ast::UnaryOp::Neg,
            operand,
        } => match operand.kind() {
            ExprKind::Int(v) => -(v as i128),
            _ => return None,
        },
        _ => return None,
    };
    Some((id.name, value, arg.range))
}

/// Upstream turns `u8(256)`-style calls into typed literals at parse time, so
/// an out-of-range one is a ParseError before anything runs.
fn check_prefixed_literal(e: &ExprRef<'_>) -> Result<(), (String, crate::source::TextRange)> {
    let Some((ty, value, range)) = prefixed_int_literal(e) else {
        return Ok(());
    };
    let (min, max): (i128, i128) = match ty.as_str() {
        "i8" => (i8::MIN.into(), i8::MAX.into()),
        "u8" => (0, u8::MAX.into()),
        "i32" => (i32::MIN.into(), i32::MAX.into()),
        "u32" => (0, u32::MAX.into()),
        "i64" => (i64::MIN.into(), i64::MAX.into()),
        _ => (0, u64::MAX.into()),
    };
    if value < min || value > max {
        return Err((
            format!("{ty} literal {value} is out of range [{min}, {max}]"),
            range,
        ));
    }
    Ok(())
}
