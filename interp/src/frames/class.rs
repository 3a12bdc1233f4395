//! Class bodies: `@struct` definitions (fields, methods, other members,
//! static methods), forward-declared struct types, and generic structs
//! `@struct class C[T]` whose `C[args]` builds (once per key) the struct
//! `C[args]` with `T` bound in its body.

use foldhash::HashMap;
use std::cell::RefCell;
use std::rc::Rc;

use crate::error::ExcKind;
use crate::frames::call::Args;
use crate::frames::{add_trace, Eval, Frame, FrameKind, Interp};
use crate::resolve::{NameRef, Origin};
use crate::source::TextRange;
use crate::syntax::ast;
use crate::vm::memo::value_key;
use crate::vm::types::{Field, TypeId};
use crate::vm::value::{Color, Env, GenericStructValue, Local, Typed, Value};
use crate::vm::StructInfo;

impl Interp<'_> {
    pub(crate) fn exec_classdef(&mut self, f: &mut Frame, c: &ast::ClassDef<'_>) -> Eval<()> {
        if !c.is_struct {
            return Err(self.error_at(
                f,
                ExcKind::Wip,
                "only @struct classes are supported for now",
                c.name.range,
                "class defined here",
            ));
        }
        if let Some(d) = c.decorators.first() {
            return Err(self.error_at(
                f,
                ExcKind::TypeError,
                "class decorators not supported yet",
                d.range,
                "this is not supported",
            ));
        }
        for stmt in &c.body {
            check_class_stmt(self, f, &stmt)?;
        }
        if c.type_params.is_some() {
            let generic = GenericStructValue {
                fqn: self.unique_fqn_in(&f.ns, &c.name.name),
                ast: f.ast.clone(),
                class: c.id,
                module: f.module,
                file: f.file.clone(),
                res: f.res.clone(),
                closure: self.closure_of(f),
            };
            let v = Typed::blue(TypeId::TYPE, Value::GenericStruct(Rc::new(generic)));
            return self.declare_slot(f, c.name, v);
        }
        // Module-level structs were forward-declared by module init.
        let mut bind = true;
        let ty = match (f.kind, f.res.name(c.name.id)) {
            (FrameKind::Module, NameRef::Global(slot)) => {
                self.make_pending_def(f.module, slot as usize)?;
                match self.vm.module(f.module).globals[slot as usize]
                    .as_ref()
                    .and_then(|g| g.value.clone())
                {
                    Some(Value::Type(t)) => t,
                    _ => return Err(crate::bug!("struct `{}` was not forward-declared", c.name.name)),
                }
            }
            (_, NameRef::Local(slot)) if self.forward_declared(f, slot).is_some() => {
                // declared when the call started: already bound
                bind = false;
                self.forward_declared(f, slot).expect("checked")
            }
            _ => {
                let fqn = self.unique_fqn_in(&f.ns, &c.name.name);
                self.vm.types.new_struct(fqn.to_string())
            }
        };
        // Bind the name first so methods can mention the struct type.
        if bind {
            self.declare_slot(f, c.name, Typed::blue(TypeId::TYPE, Value::Type(ty)))?;
        }
        let site = StructSite {
            module: f.module,
            ast: f.ast.clone(),
            file: f.file.clone(),
            res: f.res.clone(),
            closure: self.closure_of(f),
        };
        self.run_struct_body(&site, c, ty)
    }

    /// Upstream's `fwdecl_ClassDef` for a function body: every struct
    /// defined at the outermost level of the body is declared (an
    /// incomplete type) when the call starts, so annotations above the
    /// `class` can name it.
    pub(crate) fn forward_declare_structs(&mut self, f: &mut Frame, body: &ast::Stmts<'_>) -> Eval<()> {
        for stmt in body {
            // (a call asks this of every statement of its body)
            if !matches!(stmt.node().node, ast::StmtNode::ClassDef(_)) {
                continue;
            }
            let ast::StmtKind::ClassDef(c) = &stmt.kind() else {
                continue;
            };
            if !c.is_struct || c.type_params.is_some() || !c.decorators.is_empty() {
                continue;
            }
            let fqn = self.unique_fqn_in(&f.ns, &c.name.name);
            let ty = self.vm.types.new_struct(fqn.to_string());
            self.declare_slot(f, c.name, Typed::blue(TypeId::TYPE, Value::Type(ty)))?;
        }
        Ok(())
    }

    /// The struct type forward-declared in local `slot` and not defined yet.
    fn forward_declared(&self, f: &Frame, slot: u32) -> Option<TypeId> {
        match f.locals.borrow().get(slot as usize)? {
            Some(Local {
                value: Some(Value::Type(t)),
                ..
            }) if !self.vm.structs.contains_key(t) && self.vm.types.is_struct(*t) => Some(*t),
            _ => None,
        }
    }

    /// Execute the body of struct `c` as type `ty` and complete the type.
    /// `__extra_fields__` (an `interp_dict[str, type]`, checked when it was
    /// assigned): each entry is a field after the declared ones, as
    /// upstream's `lazy_define_from_classbody` (`spy/vm/struct.py`) adds them
    /// to the body's field dict — a name already declared keeps its place
    /// and takes the entry's type.
    fn add_extra_fields(&self, extra: &Value, fields: &mut Vec<Field>) -> Eval<()> {
        let Value::Dict(d) = extra else {
            return Err(crate::bug!("`__extra_fields__` holds a non-dict"));
        };
        for (k, v) in d.entries() {
            let (Value::Str(name), Value::Type(ty)) = (&k, &v) else {
                return Err(crate::bug!("`__extra_fields__` entry is not (str, type)"));
            };
            match fields.iter_mut().find(|fl| *fl.name == ***name) {
                Some(fl) => fl.ty = *ty,
                None => fields.push(Field {
                    name: name.to_string(),
                    ty: *ty,
                }),
            }
        }
        Ok(())
    }

    fn run_struct_body(&mut self, site: &StructSite, c: &ast::ClassDef<'_>, ty: TypeId) -> Eval<()> {
        let Some(scope) = crate::resolve::ScopeRef::class(&site.res, c.id) else {
            return Err(crate::bug!("no scope for class `{}`", c.name.name));
        };
        let locals = Rc::new(RefCell::new(vec![None; scope.slot_count()]));
        let mut frame = Frame {
            kind: FrameKind::Class,
            module: site.module,
            file: site.file.clone(),
            ast: site.ast.clone(),
            res: site.res.clone(),
            scope: scope.clone(),
            locals,
            closure: site.closure.clone(),
            func: None,
            class_type: Some(ty),
            name: format!("[classdef] {}", self.vm.types.name(ty)).into(),
            ns: self.vm.types.name(ty).into(),
            current: c.name.range,
            shift: None,
        };
        self.exec_block(&mut frame, &c.body)
            .map_err(|e| add_trace(e, &frame))?;
        let mut fields = Vec::new();
        let mut members = HashMap::default();
        let mut extra = None;
        for (sym, slot) in scope.symbols.iter().zip(frame.locals.borrow().iter()) {
            let Some(Local { ty: fty, value, .. }) = slot else {
                continue;
            };
            if &*sym.name == "__extra_fields__" {
                extra = value.clone();
            } else if sym.origin == Origin::ClassField {
                fields.push(Field {
                    name: sym.name.to_string(),
                    ty: *fty,
                });
            } else if let Some(v) = value {
                members.insert(sym.name.to_string(), v.clone());
            }
        }
        // The body's `def`s by decorator, in source order, in one pass that
        // reads a `def`'s view only when it has decorators (most have none).
        let (mut static_methods, mut properties, mut class_methods) = (Vec::new(), Vec::new(), Vec::new());
        for s in c.body.iter() {
            let ast::StmtNode::FuncDef(id) = s.node else {
                continue;
            };
            if c.module.expr_items(c.module.func_node(id).decorators).is_empty() {
                continue;
            }
            let d = c.module.func(id);
            let has = |name: &str| {
                d.decorators
                    .iter()
                    .any(|e| crate::frames::call::is_name(&e, name))
            };
            for (name, list) in [
                ("staticmethod", &mut static_methods),
                ("property", &mut properties),
                ("classmethod", &mut class_methods),
            ] {
                if has(name) {
                    list.push(d.name.name.to_string());
                }
            }
        }
        if let Some(extra) = extra {
            self.add_extra_fields(&extra, &mut fields)?;
        }
        for fd in &fields {
            self.check_storable(&frame, fd.ty, c.name.range)?;
        }
        for (member, v) in &members {
            if let Value::Func(func) = v {
                self.vm
                    .method_owner
                    .insert(Rc::as_ptr(func) as *const () as usize, (ty, member.clone()));
                self.vm.method_fqns.insert(func.fqn.clone());
            }
        }
        self.vm.types.complete_struct(ty, fields);
        self.vm.structs.insert(
            ty,
            StructInfo {
                members,
                static_methods,
                class_methods,
                properties,
                file: site.file.clone(),
                def_range: c.name.range,
            },
        );
        Ok(())
    }

    /// `C[args]` on a generic struct: the struct type `C[args]`, built once
    /// per distinct (blue) arguments.
    pub(crate) fn specialize_struct(
        &mut self,
        f: &Frame,
        g: &Rc<GenericStructValue>,
        idx: Args,
        range: TextRange,
    ) -> Eval<Typed> {
        let def = g.def();
        let params: Vec<&ast::Identifier> = def.type_params.iter().flatten().collect();
        self.check_arity(f, params.len(), params.len(), &idx, range, None)?;
        if let Some((_, r)) = idx.iter().find(|(a, _)| !a.is_blue()) {
            return Err(crate::error::SpyError::new(
                ExcKind::TypeError,
                "cannot call blue function with red arguments",
            )
            .with_error(&f.file, range, "this is blue")
            .with_error(&f.file, *r, "this is red")
            .into());
        }
        let key = (
            Rc::as_ptr(g) as *const () as usize,
            idx.iter().map(|(a, _)| value_key(&a.value)).collect::<Vec<_>>(),
        );
        if let Some((_, ty)) = self.generic_structs.get(&key) {
            return Ok(Typed::blue(TypeId::TYPE, Value::Type(*ty)));
        }
        let args: Vec<String> = idx.iter().map(|(a, _)| self.ns_repr(&a.value)).collect();
        let fqn = self.unique_fqn(format!("{}[{}]", g.fqn, args.join(", ")));
        let ty = self.vm.types.new_struct(fqn.to_string());
        self.generic_structs.insert(key, (g.clone(), ty));
        self.type_origins.insert(ty, Value::GenericStruct(g.clone()));
        // The type parameters' environment (see the resolver): the type
        // parameters, then `Self`.
        let mut type_params = vec![None; params.len() + 1];
        type_params[params.len()] = Some(Local {
            ty: TypeId::TYPE,
            color: Color::Blue,
            value: Some(Value::Type(ty)),
        });
        for (tp, (a, _)) in params.iter().zip(idx) {
            let NameRef::Local(slot) = g.res.name(tp.id) else {
                return Err(crate::bug!("type parameter `{}` is not a local", tp.name));
            };
            let ty = self.blue_static_type(&a);
            type_params[slot as usize] = Some(Local {
                ty,
                color: Color::Blue,
                value: Some(a.value),
            });
        }
        let env: Env = Rc::new(RefCell::new(type_params));
        self.pools.note_captured(&env);
        let closure = Rc::new(g.closure.iter().cloned().chain(std::iter::once(env)).collect());
        let site = StructSite {
            module: g.module,
            ast: g.ast.clone(),
            file: g.file.clone(),
            res: g.res.clone(),
            closure,
        };
        self.run_struct_body(&site, &def, ty)?;
        Ok(Typed::blue(TypeId::TYPE, Value::Type(ty)))
    }
}

/// Where a struct body runs: its module and the environments it closes over.
struct StructSite {
    module: crate::vm::value::ModuleId,
    ast: Rc<ast::Module>,
    file: Rc<crate::source::SourceFile>,
    res: Rc<crate::resolve::Resolution>,
    closure: crate::vm::value::Closure,
}

/// Statements allowed in a class body: fields, assignments, `def`, `if`,
/// `pass` (and docstrings).
fn check_class_stmt(interp: &Interp, f: &Frame, stmt: &ast::StmtRef<'_>) -> Eval<()> {
    use ast::StmtKind as S;
    match &stmt.kind() {
        S::VarDef(v) if v.kind.is_none() && v.value.is_some() && v.annotation.is_some() => Err(interp
            .error_at(
                f,
                ExcKind::TypeError,
                "default values in fields not supported yet",
                stmt.range,
                "this is not supported",
            )),
        S::VarDef(_) | S::Assign { .. } | S::FuncDef(_) | S::Pass | S::Expr(_) => Ok(()),
        S::If { body, orelse, .. } => {
            for s in body.iter().chain(orelse.iter()) {
                check_class_stmt(interp, f, &s)?;
            }
            Ok(())
        }
        other => {
            let what = match other {
                S::For { .. } => "For",
                S::While { .. } => "While",
                S::Return(_) => "Return",
                S::ClassDef(_) => "ClassDef",
                S::AugAssign { .. } => "AugAssign",
                S::Raise(_) => "Raise",
                S::Assert { .. } => "Assert",
                S::Break => "Break",
                S::Continue => "Continue",
                _ => "statement",
            };
            Err(interp.error_at(
                f,
                ExcKind::TypeError,
                format!("`{what}` not supported inside a classdef"),
                stmt.range,
                "this is not supported",
            ))
        }
    }
}
