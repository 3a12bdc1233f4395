//! Expression evaluation: literals, names, operators, boolean operators,
//! conditional expressions, tuple displays and starred splicing. Every
//! expression yields a `Typed`: value, color and static type.

use crate::error::{ExcKind, SpyError};
use crate::frames::doppler::is_runtime;
use crate::frames::{Eval, Frame, Interp};
use crate::resolve::NameRef;
use crate::source::TextRange;
use crate::syntax::ast::{self, BoolOp, ExprKind, UnaryOp};
use crate::syntax::ast::{ExprRef, Exprs};
use crate::vm::builtins;
use crate::vm::ops::Scalar;
use crate::vm::types::TypeId;
use std::rc::Rc;

use crate::vm::value::{Color, Local, TupleValue, Typed, Value};

impl Interp<'_> {
    /// Evaluate `e`; while shifting, its color and type are recorded for
    /// tools when they asked (`doppler::record`).
    #[inline]
    pub(crate) fn eval_expr(&mut self, f: &mut Frame, e: &ExprRef<'_>) -> Eval<Typed> {
        let result = self.eval_expr_kind(f, e);
        if let (Some(sh), Ok(t)) = (&f.shift, &result) {
            sh.record_color(f, e.range, t);
        }
        result
    }

    /// The evaluation rule of each kind of expression. (It matches the
    /// stored node, not the `ExprKind` view: this is the interpreter's
    /// hottest dispatch, and it reads only the children it evaluates.)
    fn eval_expr_kind(&mut self, f: &mut Frame, e: &ExprRef<'_>) -> Eval<Typed> {
        use ast::ExprNode as N;
        let m = e.module;
        let x = |id: ast::ExprId| e.at(id);
        match &e.node().node {
            N::Int(v) if f.is_shifting() => {
                let lit = self.int_literal(f, v.u64(), false, e);
                self.lazy_raise_or(f, lit, TypeId::I32, e.range)
            }
            N::Int(v) => self.int_literal(f, v.u64(), false, e),
            N::Float(v) => Ok(Typed::blue(TypeId::F64, Value::Scalar(Scalar::F64(v.f64())))),
            N::Str(s) => Ok(Typed::blue(TypeId::STR, Value::str(m.str(*s)))),
            N::Bool(b) => Ok(Typed::blue(TypeId::BOOL, Value::bool(*b))),
            N::None => Ok(Typed::none()),
            N::Bytes(b) => Ok(Typed::blue(TypeId::BYTES, Value::bytes(m.bytes(*b)))),
            N::Name { sym, id } => self.eval_name_at(f, m.name(*sym), *id, e.range),
            N::NameIn(id) => self.eval_name(f, m.ident(*id)),
            N::Attribute { value, attr } => {
                let value = x(*value);
                let obj = self.eval_expr(f, &value)?;
                self.get_attr(f, obj, &value, m.ident(*attr))
            }
            N::Call(items) => {
                let (func, args) = m.first_and_rest(*items);
                self.eval_call(f, e, &x(func), &m.exprs(args))
            }
            N::Subscript(items) => {
                let (value, indices) = m.first_and_rest(*items);
                self.eval_subscript(f, e, &x(value), &m.exprs(indices))
            }
            N::Slice(_) => Err(self.error_at(
                f,
                ExcKind::ParseError,
                "slices are only allowed inside `[...]`",
                e.range,
                "this is a slice",
            )),
            N::UnaryOp { op, operand } => self.eval_unary(f, e, *op, &x(*operand)),
            N::BinOp { left, op, right } => {
                let (left, right) = (x(*left), x(*right));
                let l = self.eval_expr(f, &left)?;
                let r = self.eval_expr(f, &right)?;
                self.binop(f, *op, (l, left.range), (r, right.range), e.range)
            }
            N::Compare { left, op, right } => {
                let (left, right) = (x(*left), x(*right));
                let l = self.eval_expr(f, &left)?;
                let r = self.eval_expr(f, &right)?;
                self.cmpop(f, *op, (l, left.range), (r, right.range), e.range)
            }
            N::BoolOp { op, left, right } => self.eval_boolop(f, *op, &x(*left), &x(*right)),
            N::IfExp(i) => {
                let ast::IfExpNode { test, body, orelse } = *m.if_exp_node(*i);
                let (test, body, orelse) = (x(test), x(body), x(orelse));
                let cond = self.eval_condition(f, &test)?;
                if is_runtime(&cond) {
                    return self.shift_ifexp(f, cond, &body, &orelse, e.range);
                }
                // Interp mode evaluates only the taken branch; the result
                // is red when the condition is (as in redshift).
                let mut r = if cond.value.as_bool() == Some(true) {
                    self.eval_expr(f, &body)?
                } else {
                    self.eval_expr(f, &orelse)?
                };
                if cond.color == Color::Red {
                    r.color = Color::Red;
                }
                Ok(r)
            }
            N::Tuple(items) => {
                let items = self.eval_items(f, &m.exprs(*items))?;
                if items.iter().any(|(t, _)| is_runtime(t)) {
                    // (an interp tuple with red items is a display again in the
                    // residual code)
                    let types: Vec<TypeId> = items.iter().map(|(t, _)| t.ty).collect();
                    let ty = self.vm.types.tuple(types);
                    let t = Typed {
                        ty,
                        ..self.make_tuple(items.clone())
                    };
                    let elts = self.residuals(f, &items)?;
                    return Ok(Self::residual_value(f, t.ty, f.shift()?.tuple(elts, e.range)));
                }
                Ok(self.make_tuple(items))
            }
            N::List(items) => {
                // Lists of blue-time objects (`[m_a, m_b]` for OpSpec) are
                // interp lists; runtime lists are not supported yet.
                let items = self.eval_items(f, &m.exprs(*items))?;
                if !items.is_empty()
                    && items
                        .iter()
                        .all(|(t, _)| t.is_blue() && !self.storable_in_static_tuple(t.ty))
                {
                    return Ok(self.make_interp_tuple(items));
                }
                let list = self.make_list(f, items.clone())?;
                if f.is_shifting() {
                    // A list is a run-time object: allocate it at run time.
                    let mut elts = Vec::with_capacity(items.len());
                    for (t, r) in &items {
                        let item_ty = self.vm.types.checked_list_item(list.ty)?;
                        let t = self.convert_to(f, t.clone(), item_ty, *r, None)?;
                        elts.push(self.residual(f, &t, *r)?);
                    }
                    let sh = f.shift()?;
                    let elts = sh.exprs(elts);
                    return Ok(Self::residual_value(
                        f,
                        list.ty,
                        sh.expr(ast::ExprNode::List(elts), e.range),
                    ));
                }
                Ok(list)
            }
            N::Dict(pairs) => self.eval_dict(f, &m.pairs(*pairs), e.range),
            N::GeneratorExp { .. } => Err(self.error_at(
                f,
                ExcKind::Wip,
                "generator expressions are only supported as `*(... for i in UNROLL_RANGE(n))`",
                e.range,
                "this is a generator expression",
            )),
            N::Starred(_) => Err(self.error_at(
                f,
                ExcKind::ParseError,
                "can't use starred expression here",
                e.range,
                "this is starred",
            )),
            N::Walrus { target, value } => {
                let (target, value) = (m.ident(*target), x(*value));
                let v = self.eval_expr(f, &value)?;
                if f.is_shifting() {
                    if let Some(r) = self.shift_walrus(f, target, v.clone(), value.range) {
                        return r;
                    }
                }
                self.assign_name(f, target, v.clone(), value.range)?;
                // the value of `x := e` is x after the assignment (converted)
                self.eval_name(f, target)
            }
        }
    }

    /// An int literal is i32; out of range is a lazy ValueError, as upstream.
    #[inline]
    fn int_literal(&mut self, f: &Frame, v: u64, negated: bool, e: &ExprRef<'_>) -> Eval<Typed> {
        let signed: i128 = if negated { -(v as i128) } else { v as i128 };
        match i32::try_from(signed) {
            Ok(x) => Ok(Typed::blue(TypeId::I32, Value::i32(x))),
            Err(_) => Err(self.error_at(
                f,
                ExcKind::ValueError,
                format!(
                    "integer literal {signed} is out of range for i32; use i64({signed}) or u64({signed}) to get a 64-bit value"
                ),
                e.range,
                "integer literal out of range",
            )),
        }
    }

    pub(crate) fn eval_name(&mut self, f: &mut Frame, id: &ast::Identifier) -> Eval<Typed> {
        self.eval_name_at(f, &id.name, id.id, id.range)
    }

    /// [`Interp::eval_name`] of the parts of an identifier (a name
    /// expression has no `Identifier` stored: one is made only for an
    /// error).
    fn eval_name_at(
        &mut self,
        f: &mut Frame,
        name: &ast::Name,
        name_id: ast::NameId,
        range: TextRange,
    ) -> Eval<Typed> {
        let id = || ast::Identifier {
            name: name.clone(),
            range,
            id: name_id,
        };
        match f.res.name(name_id) {
            NameRef::Local(slot) => {
                let read = match f.locals.borrow().get(slot as usize) {
                    Some(Some(Local {
                        color,
                        ty,
                        value: Some(value),
                    })) => Some(Typed {
                        color: *color,
                        ty: *ty,
                        value: read_here(f.shift.as_ref(), value, range),
                    }),
                    _ => None,
                };
                read.ok_or_else(|| self.unassigned(f, &id(), "local"))
            }
            NameRef::Outer { depth, slot } => {
                let env = f
                    .closure
                    .len()
                    .checked_sub(depth as usize)
                    .and_then(|i| f.closure.get(i))
                    .cloned();
                let Some(env) = env else {
                    return Err(crate::bug!("closure of depth {depth} missing for `{}`", name));
                };
                let local = env.borrow().get(slot as usize).cloned().flatten();
                match local.and_then(|l| l.value.map(|v| (l.ty, v))) {
                    // Reads of outer values are blue and late-bound (upstream
                    // NameOuterDirect).
                    Some((ty, value)) => Ok(Typed::blue(ty, value)),
                    None => Err(self.unassigned(f, &id(), "local")),
                }
            }
            NameRef::Global(slot) => {
                if self.blue_depth > 0 && self.is_module_var(f, slot) {
                    return Err(self.module_var_in_blue_code(f, &id(), "read"));
                }
                let mut global = self
                    .vm
                    .module(f.module)
                    .globals
                    .get(slot as usize)
                    .cloned()
                    .flatten();
                if matches!(&global, Some(g) if g.value.is_none())
                    && self.vm.module(f.module).pending_def(slot as usize).is_some()
                {
                    self.make_pending_def(f.module, slot as usize)?;
                    global = self.vm.module(f.module).globals[slot as usize].clone();
                }
                match global.and_then(|g| g.value.map(|v| (g.color, g.ty, v))) {
                    // A module `var` changes at run time: while shifting it
                    // is read by name.
                    Some((Color::Red, ty, _)) if f.is_shifting() => {
                        Ok(Self::residual_value(f, ty, f.shift()?.name(name, range)))
                    }
                    Some((color, ty, value)) => Ok(Typed { color, ty, value }),
                    None => Err(self.unassigned(f, &id(), "global")),
                }
            }
            NameRef::Builtin(i) => Ok(builtins::value(i)),
            NameRef::Undefined => Err(self.error_at(
                f,
                ExcKind::NameError,
                format!("name `{name}` is not defined"),
                range,
                "not found in this scope",
            )),
        }
    }

    /// Whether global `slot` of the frame's module is a module `var`.
    pub(crate) fn is_module_var(&self, f: &Frame, slot: u32) -> bool {
        let scope = &self.vm.module(f.module).resolution.module_scope;
        scope.symbols[slot as usize].kind == crate::resolve::VarKind::Var
    }

    /// Blue code (a blue call, a metafunc, and the red functions they call)
    /// cannot use a module `var`: its value depends on when the code runs,
    /// which differs between interp and redshift (spec §9.6).
    pub(crate) fn module_var_in_blue_code(
        &self,
        f: &Frame,
        id: &ast::Identifier,
        what: &str,
    ) -> crate::error::Failure {
        self.error_at(
            f,
            ExcKind::TypeError,
            format!("blue code cannot {what} module variable `{}`", id.name),
            id.range,
            "this is a module `var`: its value is known only at run time",
        )
    }

    fn unassigned(&self, f: &Frame, id: &ast::Identifier, what: &str) -> crate::error::Failure {
        self.error_at(
            f,
            ExcKind::NameError,
            format!("{what} variable `{}` is read before being assigned", id.name),
            id.range,
            "read here",
        )
    }

    fn eval_unary(
        &mut self,
        f: &mut Frame,
        e: &ExprRef<'_>,
        op: UnaryOp,
        operand: &ExprRef<'_>,
    ) -> Eval<Typed> {
        // `-<int literal>` is one literal (so -2147483648 is valid).
        if op == UnaryOp::Neg {
            if let ExprKind::Int(v) = operand.kind() {
                let lit = self.int_literal(f, v, true, e);
                return if f.is_shifting() {
                    self.lazy_raise_or(f, lit, TypeId::I32, e.range)
                } else {
                    lit
                };
            }
        }
        if op == UnaryOp::Not {
            let b = self.eval_condition(f, operand)?;
            if is_runtime(&b) {
                return self.shift_unary(f, op, &b, TypeId::BOOL, e.range);
            }
            let v = !b.value.checked_bool()?;
            return Ok(Typed {
                color: b.color,
                ty: TypeId::BOOL,
                value: Value::bool(v),
            });
        }
        let v = self.eval_expr(f, operand)?;
        self.unaryop(f, op, v, operand, e.range)
    }

    /// `and`/`or`: short-circuit; each operand converted to bool; the result
    /// is a bool with the color of the operand that decided it.
    fn eval_boolop(
        &mut self,
        f: &mut Frame,
        op: BoolOp,
        left: &ExprRef<'_>,
        right: &ExprRef<'_>,
    ) -> Eval<Typed> {
        let l = self.eval_condition(f, left)?;
        if is_runtime(&l) {
            let r = self.eval_condition(f, right)?;
            return self.shift_boolop(f, op, &l, &r, left.range.cover(right.range));
        }
        let lv = l.value.checked_bool()?;
        let decided = match op {
            BoolOp::And => !lv,
            BoolOp::Or => lv,
        };
        if decided {
            return Ok(l);
        }
        // The result is red when the left operand is (as in redshift).
        let mut r = self.eval_condition(f, right)?;
        if l.color == Color::Red {
            r.color = Color::Red;
        }
        Ok(r)
    }

    /// Evaluate `e` and convert it to bool (conditions, `not`, `and`/`or`).
    pub(crate) fn eval_condition(&mut self, f: &mut Frame, e: &ExprRef<'_>) -> Eval<Typed> {
        let v = self.eval_expr(f, e)?;
        self.convert_to(f, v, TypeId::BOOL, e.range, None)
    }

    /// Evaluate a list of items where `*e` splices a tuple's items. Each
    /// starred operand is evaluated exactly once, left to right.
    pub(crate) fn eval_items(&mut self, f: &mut Frame, items: &Exprs<'_>) -> Eval<Vec<(Typed, TextRange)>> {
        let mut out = self.pools.args_vec(items.len());
        for item in items {
            // (a starred item is rare: read as a view only then)
            let starred = match item.node().node {
                ast::ExprNode::Starred(_) => Some(item.kind()),
                _ => None,
            };
            if let Some(ExprKind::Starred(inner)) = &starred {
                if let ExprKind::GeneratorExp { elt, target, iter } = &inner.kind() {
                    if let Some(n_expr) = self.unroll_range_arg(f, iter)? {
                        self.splice_unroll(f, elt, target, &n_expr, &mut out)?;
                        continue;
                    }
                }
                let t = self.eval_expr(f, inner)?;
                if let Value::Tuple(tuple) = &t.value {
                    if tuple.ty == TypeId::INTERP_TUPLE {
                        for v in tuple.items.iter() {
                            let ty = self.dynamic_type(v).unwrap_or(TypeId::DYNAMIC);
                            out.push((
                                Typed {
                                    color: t.color,
                                    ty,
                                    value: v.clone(),
                                },
                                inner.range,
                            ));
                        }
                        continue;
                    }
                }
                let Some(item_types) = self.vm.types.tuple_items(t.ty).map(|s| s.to_vec()) else {
                    return Err(SpyError::new(
                        ExcKind::TypeError,
                        format!("`{}` does not support unpacking", self.vm.types.name(t.ty)),
                    )
                    .with_error(
                        &f.file,
                        inner.range,
                        format!("this is `{}`", self.vm.types.name(t.ty)),
                    )
                    .into());
                };
                if is_runtime(&t) {
                    self.shift_splat(f, &t, &item_types, inner.range, &mut out)?;
                    continue;
                }
                let Value::Tuple(tuple) = &t.value else {
                    return Err(crate::bug!("tuple-typed value is not a tuple"));
                };
                for (ty, v) in item_types.iter().zip(tuple.items.iter()) {
                    out.push((
                        Typed {
                            color: t.color,
                            ty: *ty,
                            value: v.clone(),
                        },
                        inner.range,
                    ));
                }
            } else {
                let t = self.eval_expr(f, &item)?;
                out.push((t, item.range));
            }
        }
        Ok(out)
    }

    /// Types whose values a static (red, by-value) tuple can hold.
    pub(crate) fn storable_in_static_tuple(&self, ty: TypeId) -> bool {
        use crate::vm::types::TypeKind as K;
        matches!(
            self.vm.types.kind(ty),
            K::Prim(_)
                | K::Str
                | K::NoneType
                | K::Tuple(_)
                | K::Struct { .. }
                | K::Ptr { .. }
                | K::Ref { .. }
                | K::Simd { .. }
        )
    }

    /// An interp tuple: blue when all its items are.
    pub(crate) fn make_interp_tuple(&mut self, items: Vec<(Typed, TextRange)>) -> Typed {
        let color = items.iter().fold(Color::Blue, |c, (t, _)| c.join(t.color));
        let values: Vec<Value> = items.into_iter().map(|(t, _)| t.value).collect();
        Typed {
            color,
            ty: TypeId::INTERP_TUPLE,
            value: crate::frames::meta::interp_tuple(values),
        }
    }

    /// A tuple display: a static tuple (red even when all items are blue:
    /// upstream's `__make__` is not pure), or an interp tuple when an item
    /// cannot live in a static tuple (types, functions, MetaArgs...).
    pub(crate) fn make_tuple(&mut self, items: Vec<(Typed, TextRange)>) -> Typed {
        if !items.iter().all(|(t, _)| self.storable_in_static_tuple(t.ty)) {
            return self.make_interp_tuple(items);
        }
        let types: Vec<TypeId> = items.iter().map(|(t, _)| t.ty).collect();
        let ty = self.vm.types.tuple(types);
        let values: Vec<Value> = items.into_iter().map(|(t, _)| t.value).collect();
        Typed {
            color: Color::Red,
            ty,
            value: Value::Tuple(Rc::new(TupleValue {
                ty,
                items: values.into(),
            })),
        }
    }
}

/// A local's value as read at `range`: a red local of a shifting frame is
/// the residual name, located at the read (not at its declaration), so an
/// error there points where ASTFrame's would.
#[inline]
fn read_here(sh: Option<&crate::frames::doppler::Shift>, value: &Value, range: TextRange) -> Value {
    if let (Value::Residual(e), Some(sh)) = (value, sh) {
        // (a stale value, of a window cut since, is an error where it is
        // used: `Shift::live`)
        if let Ok(e) = sh.live(*e) {
            if sh.expr_node(e).range != range {
                if let Some(id) = sh.name_of(e) {
                    return sh.value(sh.name_at(&id, range));
                }
            }
        }
    }
    value.clone_fast()
}
