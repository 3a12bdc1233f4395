//! Statement execution: blocks, control flow, declarations, assignments
//! (names, attributes, subscripts, unpacking), `raise` and `assert`.

use crate::error::{ExcKind, SpyError};
use crate::frames::doppler::residual_local;
use crate::frames::{Eval, Flow, Frame, FrameKind, Interp};
use crate::resolve::{NameRef, Origin, VarKind};
use crate::source::TextRange;
use crate::syntax::ast::{self, AssignTarget, StmtKind, StmtNode};
use crate::syntax::ast::{ExprRef, StmtRef, Stmts};
use crate::vm::builtins::Builtin;
use crate::vm::rt_error::RuntimeError;
use crate::vm::types::TypeId;
use crate::vm::value::{Color, Local, Typed, Value};
use std::rc::Rc;

/// Extra explanation attached to a conversion error: where the expected
/// type came from.
#[derive(Clone, Copy)]
pub(crate) struct Because<'a> {
    pub range: TextRange,
    pub message: &'a str,
}

impl Interp<'_> {
    pub(crate) fn exec_block(&mut self, f: &mut Frame, body: &Stmts<'_>) -> Eval<Flow> {
        let lazy = f.shift.as_ref().is_some_and(|sh| sh.error_mode().is_lazy());
        for stmt in body {
            let flow = if lazy {
                self.shift_stmt_lazily(f, &stmt)?
            } else {
                self.exec_stmt(f, &stmt)?
            };
            match flow {
                Flow::Normal => {}
                other => return Ok(other),
            }
        }
        Ok(Flow::Normal)
    }

    pub(crate) fn exec_stmt(&mut self, f: &mut Frame, s: &StmtRef<'_>) -> Eval<Flow> {
        self.tick()?;
        f.current = s.range;
        if f.is_shifting() {
            let whole = match &s.kind() {
                StmtKind::Expr(e) | StmtKind::Return(Some(e)) => Some(e.range),
                StmtKind::Assign {
                    target: AssignTarget::Name(_),
                    value,
                } => Some(value.range),
                StmtKind::VarDef(v) => v.value.as_ref().map(|e| e.range),
                _ => None,
            };
            f.shift()?.state().splice_at = whole.map(|r| (Rc::as_ptr(&f.file) as usize, r));
            if let Some(flow) = self.shift_stmt(f, s) {
                return flow;
            }
        }
        // (The stored node, not the `StmtKind` view: the interpreter's
        // hottest dispatch reads only the parts it runs.)
        use ast::StmtNode as N;
        let m = s.module;
        let x = |id: ast::ExprId| m.expr(id);
        match &s.node().node {
            N::FuncDef(def) => {
                let def = m.func(*def);
                let is_static = def
                    .decorators
                    .iter()
                    .any(|d| crate::frames::call::is_name(&d, "staticmethod"));
                if !self.try_defer_def(f, &def)? {
                    let self_type = f.class_type.filter(|_| !is_static);
                    let func = self.make_function_in(f, &def, self_type)?;
                    self.declare_slot(f, def.name, func)?;
                }
            }
            N::ClassDef(c) => self.exec_classdef(f, &m.class(*c))?,
            N::Import { module, alias } => {
                self.exec_import(f, m.ident(*module), alias.map(|a| m.ident(a)))?
            }
            N::ImportFrom { module, names } => {
                self.exec_import_from(f, m.ident(*module), &m.import_names(*names))?
            }
            N::Assign { target, value } => self.exec_assign(f, &x(*target).as_target(), &x(*value))?,
            N::AugAssign { target, op, value } => {
                let (target, value) = (m.ident(*target), x(*value));
                let l = self.eval_name(f, target)?;
                let r = self.eval_expr(f, &value)?;
                let l = match *op {
                    ast::BinOp::Add => match self.append_to_local_str(f, target, l, &r, target.range)? {
                        Some(l) => l,
                        None => return Ok(Flow::Normal),
                    },
                    _ => l,
                };
                let result = self.binop(f, *op, (l, target.range), (r, value.range), target.range)?;
                self.assign_name(f, target, result, s.range)?;
            }
            N::VarDef {
                kind,
                name,
                annotation,
                value,
            } => {
                let v = ast::VarDef {
                    kind: *kind,
                    name: m.ident(*name),
                    annotation: annotation.map(x),
                    value: value.map(x),
                };
                self.exec_vardef(f, &v)?
            }
            N::If { test, body, orelse } => {
                let cond = self.eval_condition(f, &x(*test))?;
                let branch = if cond.value.as_bool() == Some(true) {
                    body
                } else {
                    orelse
                };
                return self.exec_block(f, &m.block(*branch));
            }
            N::While { test, body } => {
                let (test, body) = (x(*test), m.block(*body));
                loop {
                    f.current = test.range;
                    let cond = self.eval_condition(f, &test)?;
                    if cond.value.as_bool() != Some(true) {
                        break;
                    }
                    match self.exec_block(f, &body)? {
                        Flow::Break => break,
                        Flow::Normal | Flow::Continue => {}
                        ret @ Flow::Return(_) => return Ok(ret),
                    }
                }
            }
            N::For { target, iter, body } => {
                return self.exec_for(f, m.ident(*target), &x(*iter), &m.block(*body))
            }
            N::Break => return Ok(Flow::Break),
            N::Continue => return Ok(Flow::Continue),
            N::Pass | N::Comment(_) => {}
            N::Return(value) => return self.exec_return(f, s, value.map(x).as_ref()),
            N::Raise(e) => return Err(self.exec_raise(f, s, &x(*e))),
            N::Assert { test, msg } => self.exec_assert(f, s, &x(*test), msg.map(x).as_ref())?,
            N::Expr(e) => {
                self.eval_expr(f, &x(*e))?;
            }
        }
        Ok(Flow::Normal)
    }

    /// `for x in e` where `e`'s type has no iteration (upstream's wording).
    pub(crate) fn not_iterable(&self, f: &Frame, ty: TypeId, range: TextRange) -> crate::error::Failure {
        let ty = self.vm.types.name(ty).to_string();
        SpyError::new(
            ExcKind::TypeError,
            format!("method `{ty}::__fastiter__` does not exist"),
        )
        .with_error(&f.file, range, format!("this is `{ty}`"))
        .into()
    }

    fn exec_for(
        &mut self,
        f: &mut Frame,
        target: &ast::Identifier,
        iter: &ExprRef<'_>,
        body: &Stmts<'_>,
    ) -> Eval<Flow> {
        if let Some(n_expr) = self.unroll_range_arg(f, iter)? {
            return self.exec_unrolled_for(f, target, &n_expr, body);
        }
        let it = self.eval_expr(f, iter)?;
        if let Value::Tuple(t) = &it.value {
            if t.ty == TypeId::INTERP_TUPLE {
                let types = self.tuple_item_types(t);
                for (item, ty) in t.items.iter().zip(types) {
                    self.store_slot(f, target, ty, Color::Red, item.clone())?;
                    match self.exec_block(f, body)? {
                        Flow::Break => break,
                        Flow::Normal | Flow::Continue => {}
                        ret @ Flow::Return(_) => return Ok(ret),
                    }
                }
                return Ok(Flow::Normal);
            }
        }
        if let Value::List(l) = &it.value {
            let item_ty = self.vm.types.checked_list_item(l.ty)?;
            let mut k = 0;
            loop {
                let item = l.items.borrow().get(k).cloned();
                let Some(item) = item else { break };
                self.store_slot(f, target, item_ty, Color::Red, item)?;
                match self.exec_block(f, body)? {
                    Flow::Break => break,
                    Flow::Normal | Flow::Continue => {}
                    ret @ Flow::Return(_) => return Ok(ret),
                }
                k += 1;
            }
            return Ok(Flow::Normal);
        }
        if self.has_iteration_protocol(it.ty) {
            return self.exec_protocol_for(f, target, iter, it, body);
        }
        if let (Value::Dict(d), false) = (&it.value, it.ty == TypeId::EMPTY_DICT) {
            // the keys by position, as upstream's `dict_iterator`: a key
            // added or deleted by the body is seen as the entries are then
            let (key_ty, _) = self.vm.types.checked_dict_types(d.ty)?;
            let mut k = 0;
            while let Some(key) = d.key_at(k) {
                self.store_slot(f, target, key_ty, Color::Red, key)?;
                match self.exec_block(f, body)? {
                    Flow::Break => break,
                    Flow::Normal | Flow::Continue => {}
                    ret @ Flow::Return(_) => return Ok(ret),
                }
                k += 1;
            }
            return Ok(Flow::Normal);
        }
        if let Value::File(id) = it.value {
            // upstream's `file_iterator`: lines until `readline()` is `""`
            loop {
                let line = self.readline(f, id, iter.range)?;
                if line.is_empty() {
                    break;
                }
                self.store_slot(f, target, TypeId::STR, Color::Red, Value::str(&line))?;
                match self.exec_block(f, body)? {
                    Flow::Break => break,
                    Flow::Normal | Flow::Continue => {}
                    ret @ Flow::Return(_) => return Ok(ret),
                }
            }
            return Ok(Flow::Normal);
        }
        let Value::Range(r) = it.value else {
            return Err(self.not_iterable(f, it.ty, iter.range));
        };
        let (mut i, stop, step) = (r.start as i64, r.stop as i64, r.step as i64);
        while (step > 0 && i < stop) || (step < 0 && i > stop) {
            let value = Typed::red(TypeId::I32, Value::i32(i as i32));
            self.store_slot(f, target, value.ty, Color::Red, value.value)?;
            match self.exec_block(f, body)? {
                Flow::Break => break,
                Flow::Normal | Flow::Continue => {}
                ret @ Flow::Return(_) => return Ok(ret),
            }
            i += step;
        }
        Ok(Flow::Normal)
    }

    pub(crate) fn exec_return(
        &mut self,
        f: &mut Frame,
        s: &StmtRef<'_>,
        value: Option<&ExprRef<'_>>,
    ) -> Eval<Flow> {
        let (v, range) = match value {
            Some(e) => (self.eval_expr(f, e)?, e.range),
            None => (Typed::none(), s.range),
        };
        let Some(func) = f.func.clone() else {
            return Err(self.error_at(
                f,
                ExcKind::ParseError,
                "'return' outside function",
                s.range,
                "this is not in a function",
            ));
        };
        if let Some(inferred) = func.inferred_ret() {
            // A red function defined in blue code without `-> T`: the first
            // `return` executed fixes the return type.
            return match inferred.get() {
                None => {
                    inferred.set(Some(v.ty));
                    Ok(Flow::Return(v))
                }
                Some(ty) => Ok(Flow::Return(self.convert_to(f, v, ty, range, None)?)),
            };
        }
        let because = func.code.return_type().as_ref().map(|t| Because {
            range: t.range,
            message: "because of return type",
        });
        let v = self.convert_to(f, v, func.ret(), range, because)?;
        Ok(Flow::Return(v))
    }

    fn exec_raise(&mut self, f: &mut Frame, s: &StmtRef<'_>, e: &ExprRef<'_>) -> crate::error::Failure {
        let raised = self.eval_expr(f, e).and_then(|v| self.raised_exception(f, &v, e));
        match raised {
            Ok((kind, message)) => SpyError::new(kind, message)
                .with_error(&f.file, s.range, "raised here")
                .into(),
            Err(err) => err,
        }
    }

    /// What `raise e` raises: `e` must be a blue exception or class.
    pub(crate) fn raised_exception(&self, f: &Frame, v: &Typed, e: &ExprRef<'_>) -> Eval<(ExcKind, String)> {
        if !v.is_blue() {
            return Err(
                SpyError::new(ExcKind::TypeError, "`raise` only accepts blue values for now")
                    .with_error(&f.file, e.range, "this is red")
                    .into(),
            );
        }
        match &v.value {
            Value::Exception(exc) => Ok((exc.kind, exc.message.clone())),
            Value::Builtin(Builtin::ExcClass(k)) => Ok((*k, String::new())),
            _ => {
                let ty = self.vm.types.name(v.ty).to_string();
                Err(
                    SpyError::new(ExcKind::TypeError, "exceptions must derive from `Exception`")
                        .with_error(&f.file, e.range, format!("this is `{ty}`"))
                        .into(),
                )
            }
        }
    }

    pub(crate) fn exec_assert(
        &mut self,
        f: &mut Frame,
        s: &StmtRef<'_>,
        test: &ExprRef<'_>,
        msg: Option<&ExprRef<'_>>,
    ) -> Eval<()> {
        let cond = self.eval_condition(f, test)?;
        if cond.value.as_bool() == Some(true) {
            return Ok(());
        }
        let error = match msg {
            None => RuntimeError::AssertionFailed,
            Some(m) => {
                let mv = self.eval_expr(f, m)?;
                match mv.value {
                    Value::Str(text) if mv.ty == TypeId::STR => RuntimeError::AssertionMessage {
                        message: text.to_string(),
                    },
                    _ => {
                        let got = self.vm.types.name(mv.ty).to_string();
                        return Err(SpyError::new(ExcKind::TypeError, "mismatched types")
                            .with_error(&f.file, m.range, format!("expected `str`, got `{got}`"))
                            .into());
                    }
                }
            }
        };
        Err(SpyError::from(error)
            .with_error(&f.file, s.range, "assertion failed")
            .into())
    }

    fn exec_vardef(&mut self, f: &mut Frame, v: &ast::VarDef) -> Eval<()> {
        let declared = match &v.annotation {
            Some(t) => Some((self.eval_type_expr(f, t)?, t.range)),
            None => None,
        };
        let Some(value_expr) = &v.value else {
            let Some((ty, _)) = declared else {
                return Err(crate::bug!("VarDef without type and value"));
            };
            return self.declare_unassigned(f, v.name, ty);
        };
        let value = self.eval_expr(f, value_expr)?;
        let value = match declared {
            Some((ty, range)) => self.convert_to(
                f,
                value,
                ty,
                value_expr.range,
                Some(Because {
                    range,
                    message: "because of type declaration",
                }),
            )?,
            None => value,
        };
        self.declare_slot(f, v.name, value)
    }

    fn exec_assign(&mut self, f: &mut Frame, target: &AssignTarget, value: &ExprRef<'_>) -> Eval<()> {
        match target {
            AssignTarget::Name(id) if f.kind == FrameKind::Class && id.name == "__extra_fields__" => {
                let v = self.eval_expr(f, value)?;
                let want = self.vm.types.dict(TypeId::STR, TypeId::TYPE, true);
                if v.ty != want && v.ty != TypeId::EMPTY_DICT {
                    return Err(self.extra_fields_mismatch(f, v.ty, value.range));
                }
                let v = self.convert_to(f, v, want, value.range, None)?;
                // upstream declares the local red (`classframe.py`)
                self.store_slot(f, id, want, Color::Red, v.value)
            }
            AssignTarget::Name(id) => {
                // `x = x + e`: the same steps as the general path, but the
                // concatenation may append to x's text in place.
                if let ast::ExprKind::BinOp {
                    left,
                    op: ast::BinOp::Add,
                    right,
                } = &value.kind()
                {
                    if let ast::ExprKind::Name(left_id) = &left.kind() {
                        if f.res.name(left_id.id) == f.res.name(id.id) {
                            let l = self.eval_name(f, left_id)?;
                            let r = self.eval_expr(f, right)?;
                            let Some(l) = self.append_to_local_str(f, id, l, &r, value.range)? else {
                                return Ok(());
                            };
                            let v = self.binop(
                                f,
                                ast::BinOp::Add,
                                (l, left.range),
                                (r, right.range),
                                value.range,
                            )?;
                            return self.assign_name(f, id, v, value.range);
                        }
                    }
                }
                let v = self.eval_expr(f, value)?;
                self.assign_name(f, id, v, value.range)
            }
            AssignTarget::Attribute { value: obj, attr, .. } => {
                // the object first (`p[i]` of a struct pointer: a
                // reference, bounds-checked now), then the value (upstream)
                let o = self.eval_expr(f, obj)?;
                let v = self.eval_expr(f, value)?;
                self.set_attr(f, o, obj, attr, v, value.range)
            }
            AssignTarget::Subscript {
                value: obj,
                indices,
                range,
            } => {
                let o = self.eval_expr(f, obj)?;
                let idx = self.eval_items(f, indices)?;
                let v = self.eval_expr(f, value)?;
                self.set_item(f, o, obj, idx, v, *range)
            }
            AssignTarget::Unpack { names, range } => {
                // Deliberate fix of upstream: the right-hand side is
                // evaluated exactly once.
                let v = self.eval_expr(f, value)?;
                let interp_items = match &v.value {
                    Value::Tuple(t) if t.ty == TypeId::INTERP_TUPLE => Some(self.tuple_item_types(t)),
                    _ => None,
                };
                let Some(item_types) =
                    interp_items.or_else(|| self.vm.types.tuple_items(v.ty).map(|s| s.to_vec()))
                else {
                    let ty = self.vm.types.name(v.ty).to_string();
                    return Err(SpyError::new(
                        ExcKind::TypeError,
                        format!("`{ty}` does not support unpacking"),
                    )
                    .with_error(&f.file, value.range, format!("this is `{ty}`"))
                    .into());
                };
                if item_types.len() != names.len() {
                    return Err(
                        SpyError::new(ExcKind::TypeError, "Wrong number of values to unpack")
                            .with_error(&f.file, *range, format!("expected {} values", names.len()))
                            .with_note(&f.file, value.range, format!("got {} values", item_types.len()))
                            .into(),
                    );
                }
                if crate::frames::doppler::is_runtime(&v) {
                    // Shifting: evaluate the tuple once (into a temporary
                    // unless it is a name), then assign its items.
                    let mut items = Vec::with_capacity(item_types.len());
                    self.shift_splat(f, &v, &item_types, value.range, &mut items)?;
                    for (id, (t, _)) in names.iter().zip(items) {
                        self.assign_name(f, &id, t, value.range)?;
                    }
                    return Ok(());
                }
                let Value::Tuple(tuple) = &v.value else {
                    return Err(crate::bug!("tuple-typed value is not a tuple"));
                };
                for ((id, ty), item) in names.iter().zip(item_types).zip(tuple.items.iter()) {
                    let t = Typed {
                        color: v.color,
                        ty,
                        value: item.clone(),
                    };
                    self.assign_name(f, &id, t, value.range)?;
                }
                Ok(())
            }
        }
    }

    /// `x = v`: the first assignment of an undeclared local declares it
    /// with `v`'s static type; later ones convert to that type. Outer
    /// consts are invalid targets; module `var`s are assigned in place.
    pub(crate) fn assign_name(
        &mut self,
        f: &mut Frame,
        id: &ast::Identifier,
        v: Typed,
        value_range: TextRange,
    ) -> Eval<()> {
        match f.res.name(id.id) {
            NameRef::Local(slot) => {
                // (type, color, assigned?) of the local, if declared
                let existing = match f.locals.borrow().get(slot as usize) {
                    Some(Some(l)) => Some((l.ty, l.color, l.value.is_some())),
                    _ => None,
                };
                let sym = &f.scope.symbols[slot as usize];
                match existing {
                    None => {
                        let color = if sym.kind == VarKind::Const {
                            v.color
                        } else {
                            Color::Red
                        };
                        if f.is_shifting() && color == Color::Red {
                            return self.shift_declare(f, slot, id, v, value_range);
                        }
                        self.write_slot(f, slot, v.ty, color, v.value);
                        Ok(())
                    }
                    Some((local_ty, local_color, assigned)) => {
                        let first_assignment = f.is_shifting() && f.shift()?.take_unassigned(slot);
                        if sym.kind == VarKind::Const && assigned && !first_assignment {
                            let (origin, decl) = (sym.origin, f.scope.decl_range(slot as usize));
                            return Err(self.invalid_target(f, id, origin, Some(decl)));
                        }
                        let v = self.convert_to(f, v, local_ty, value_range, None)?;
                        if f.is_shifting() && local_color == Color::Red {
                            let residual_name = match f.locals.borrow().get(slot as usize) {
                                Some(Some(Local {
                                    value: Some(Value::Residual(e)),
                                    ..
                                })) => Some(*e),
                                _ => None,
                            };
                            let target = match residual_name {
                                Some(e) => e,
                                _ => {
                                    return Err(crate::bug!(
                                        "red local `{}` without a residual name",
                                        id.name
                                    ))
                                }
                            };
                            let value = self.residual(f, &v, value_range)?;
                            let sh = f.shift()?;
                            let target = sh.live(target)?;
                            // the residual name (`x` or `x$1`), where it was declared
                            let name = sh.name_of(target).unwrap_or_else(|| id.clone());
                            let target = sh.name_at(&name, name.range);
                            sh.emit(StmtNode::Assign { target, value }, id.range.cover(value_range));
                            return Ok(());
                        }
                        self.write_slot(f, slot, local_ty, local_color, v.value);
                        Ok(())
                    }
                }
            }
            NameRef::Global(slot) => {
                let module = f.module;
                let sym = self.vm.module(module).resolution.module_scope.symbols[slot as usize].clone();
                self.make_pending_def(module, slot as usize)?;
                let existing = self.vm.module(module).globals[slot as usize].clone();
                match existing {
                    None if f.kind == FrameKind::Module => {
                        self.declare_slot(f, id, v)?;
                        Ok(())
                    }
                    Some(_) if sym.kind == VarKind::Var && self.blue_depth > 0 => {
                        Err(self.module_var_in_blue_code(f, id, "assign"))
                    }
                    Some(g) if sym.kind == VarKind::Var => {
                        let v = self.convert_to(f, v, g.ty, value_range, None)?;
                        if f.is_shifting() {
                            let value = self.residual(f, &v, value_range)?;
                            let sh = f.shift()?;
                            let target = sh.name(&id.name, id.range);
                            sh.emit(StmtNode::Assign { target, value }, id.range.cover(value_range));
                            return Ok(());
                        }
                        self.vm.module_mut(module).set_global(
                            slot as usize,
                            Some(Local {
                                ty: g.ty,
                                color: Color::Red,
                                value: Some(v.value),
                            }),
                        );
                        Ok(())
                    }
                    _ => {
                        let decl = self
                            .vm
                            .module(module)
                            .resolution
                            .module_scope
                            .decl_range(slot as usize);
                        Err(self.invalid_target(f, id, sym.origin, Some(decl)))
                    }
                }
            }
            // Names of enclosing functions are read-only from inner
            // functions (upstream crashes on writing them), builtins too.
            NameRef::Outer { .. } | NameRef::Builtin(_) => {
                Err(self.invalid_target(f, id, Origin::Auto, None))
            }
            NameRef::Undefined => Err(crate::bug!("assignment to unresolved name `{}`", id.name)),
        }
    }

    fn invalid_target(
        &self,
        f: &Frame,
        id: &ast::Identifier,
        origin: Origin,
        decl: Option<TextRange>,
    ) -> crate::error::Failure {
        let mut err = SpyError::new(ExcKind::TypeError, "invalid assignment target").with_error(
            &f.file,
            id.range,
            format!("{} is const", id.name),
        );
        if let Some(decl) = decl {
            err = err.with_note(&f.file, decl, format!("const declared here ({})", origin.name()));
            match origin {
                Origin::GlobalConst => {
                    err = err.with_note(
                        &f.file,
                        decl,
                        format!("help: declare it as variable: `var {} ...`", id.name),
                    )
                }
                Origin::BlueParam => {
                    err = err.with_note(&f.file, decl, "blue function arguments are const by default")
                }
                _ => {}
            }
        }
        err.into()
    }

    /// Bind a declaration (`def`, `class`, VarDef): (re)initializes the slot
    /// unconditionally, so a declaration inside a loop body is not a
    /// redeclaration on the next iteration (a deliberate fix of upstream).
    pub(crate) fn declare_slot(&mut self, f: &mut Frame, id: &ast::Identifier, v: Typed) -> Eval<()> {
        self.check_redeclaration(f, id)?;
        let kind = self.symbol_kind(f, id)?;
        if f.is_shifting() && (kind == VarKind::Var || v.color == Color::Red) {
            if let NameRef::Local(slot) = f.res.name(id.id) {
                return self.shift_declare(f, slot, id, v, id.range);
            }
        }
        // Module-level consts are blue: module init ran them eagerly, so
        // their value is known before any red code runs.
        let global = matches!(f.res.name(id.id), NameRef::Global(_));
        let color = match kind {
            VarKind::Const if global => Color::Blue,
            VarKind::Const => v.color,
            VarKind::Var => Color::Red,
        };
        self.store_slot(f, id, v.ty, color, v.value)
    }

    /// `__extra_fields__ = e` in a class body: upstream declares the name
    /// as an `interp_dict[str, type]` local, so another value is a
    /// conversion error (spec §3.9, "Computed fields"; the entries become
    /// fields in `run_struct_body`).
    fn extra_fields_mismatch(&self, f: &Frame, got: TypeId, range: TextRange) -> crate::error::Failure {
        let got = self.vm.types.name(got).to_string();
        SpyError::new(ExcKind::TypeError, "mismatched types")
            .with_error(
                &f.file,
                range,
                format!("expected `__spy__::interp_dict[str, type]`, got `{got}`"),
            )
            .into()
    }

    /// A name declared in several places of a blue body (resolver, upstream's
    /// `declare_local`): executing a second declaration is the ScopeError
    /// that a red body gets before it runs.
    pub(crate) fn check_redeclaration(&self, f: &Frame, id: &ast::Identifier) -> Eval<()> {
        let NameRef::Local(slot) = f.res.name(id.id) else {
            return Ok(());
        };
        let slot = slot as usize;
        if !f.scope.is_redeclared(slot) || f.locals.borrow()[slot].is_none() {
            return Ok(());
        }
        let prev = f.scope.decl_range(slot);
        Err(SpyError::new(
            ExcKind::ScopeError,
            format!("variable `{}` already declared", id.name),
        )
        .with_error(&f.file, id.range, "this is the new declaration")
        .with_note(&f.file, prev, "this is the previous declaration")
        .into())
    }

    fn declare_unassigned(&mut self, f: &mut Frame, id: &ast::Identifier, ty: TypeId) -> Eval<()> {
        self.check_redeclaration(f, id)?;
        match f.res.name(id.id) {
            NameRef::Local(slot) if f.is_shifting() => {
                let sh = f.shift()?;
                let name = sh.declare_residual_name(slot, &id.name)?;
                self.emit_declaration(f, &name, ty, None, id.range)?;
                f.locals.borrow_mut()[slot as usize] = Some(residual_local(&sh, ty, &name, id.range));
                sh.mark_unassigned(slot);
                Ok(())
            }
            NameRef::Local(slot) => {
                f.locals.borrow_mut()[slot as usize] = Some(Local {
                    ty,
                    color: Color::Red,
                    value: None,
                });
                Ok(())
            }
            NameRef::Global(slot) => {
                self.vm.module_mut(f.module).set_global(
                    slot as usize,
                    Some(Local {
                        ty,
                        color: Color::Red,
                        value: None,
                    }),
                );
                Ok(())
            }
            other => Err(crate::bug!("declaration `{}` resolved to {other:?}", id.name)),
        }
    }

    fn symbol_kind(&self, f: &Frame, id: &ast::Identifier) -> Eval<VarKind> {
        match f.res.name(id.id) {
            NameRef::Local(slot) => Ok(f.scope.symbols[slot as usize].kind),
            NameRef::Global(slot) => {
                Ok(self.vm.module(f.module).resolution.module_scope.symbols[slot as usize].kind)
            }
            other => Err(crate::bug!("declaration `{}` resolved to {other:?}", id.name)),
        }
    }

    /// Write a declared name's slot (local or global).
    pub(crate) fn store_slot(
        &mut self,
        f: &mut Frame,
        id: &ast::Identifier,
        ty: TypeId,
        color: Color,
        value: Value,
    ) -> Eval<()> {
        match f.res.name(id.id) {
            NameRef::Local(slot) => {
                self.write_slot(f, slot, ty, color, value);
                Ok(())
            }
            NameRef::Global(slot) => {
                self.vm.module_mut(f.module).set_global(
                    slot as usize,
                    Some(Local {
                        ty,
                        color,
                        value: Some(value),
                    }),
                );
                Ok(())
            }
            other => Err(crate::bug!("declaration `{}` resolved to {other:?}", id.name)),
        }
    }

    /// Shifting: the declaration of a red local becomes a typed residual
    /// declaration under a fresh residual name.
    fn shift_declare(
        &mut self,
        f: &mut Frame,
        slot: u32,
        id: &ast::Identifier,
        v: Typed,
        range: TextRange,
    ) -> Eval<()> {
        let sh = f.shift()?;
        let name = sh.declare_residual_name(slot, &id.name)?;
        let value = self.residual(f, &v, range)?;
        self.emit_declaration(f, &name, v.ty, Some(value), id.range.cover(range))?;
        f.locals.borrow_mut()[slot as usize] = Some(residual_local(&sh, v.ty, &name, id.range));
        Ok(())
    }

    /// `x = x + t` or `x += t` where `x` is a `var` local of type `str` and
    /// `t` a `str`: the result (and every error) is the general path's,
    /// but x's text grows in place when x's local held the only other
    /// reference to it, so building a string in a loop is linear, not
    /// quadratic. Done: `None`; any other case hands `l` back untouched.
    fn append_to_local_str(
        &mut self,
        f: &mut Frame,
        id: &ast::Identifier,
        l: Typed,
        r: &Typed,
        whole: TextRange,
    ) -> Eval<Option<Typed>> {
        let NameRef::Local(slot) = f.res.name(id.id) else {
            return Ok(Some(l));
        };
        let applies = !f.is_shifting()
            && !self.general_paths_only
            && l.ty == TypeId::STR
            && r.ty == TypeId::STR
            && f.scope.symbols[slot as usize].kind != VarKind::Const;
        let color = match f.locals.borrow().get(slot as usize) {
            Some(Some(local)) if applies && local.ty == TypeId::STR && local.value.is_some() => local.color,
            _ => return Ok(Some(l)),
        };
        let (Value::Str(mut text), Value::Str(suffix)) = (l.value, &r.value) else {
            return Err(crate::bug!("a `str` value that is not a string"));
        };
        self.check_str_growth(f, text.len() + suffix.len(), suffix.len(), whole)?;
        // Drop the local's reference first: then `text` is usually unique
        // and `make_mut` appends without copying.
        if let Some(Some(local)) = f.locals.borrow_mut().get_mut(slot as usize) {
            local.value = None;
        }
        Rc::make_mut(&mut text).push_str(suffix);
        self.write_slot(f, slot, TypeId::STR, color, Value::Str(text));
        Ok(None)
    }

    fn write_slot(&mut self, f: &mut Frame, slot: u32, ty: TypeId, color: Color, value: Value) {
        f.locals.borrow_mut()[slot as usize] = Some(Local {
            ty,
            color,
            value: Some(value),
        });
    }
}
