//! Expressions while redshifting: operations that have a run-time input (a
//! `Value::Residual`) or a run-time effect (printing, allocating, reading
//! the clock, calling a red function) build residual code. Their static
//! checks and result types are the same as in ASTFrame: each helper here is
//! called by the ordinary rule once it has checked its operands.

use std::rc::Rc;

use crate::error::{ExcKind, SpyError};
use crate::frames::call::Args;
use crate::frames::dispatch::OpImpl;
use crate::frames::doppler::Shift;
use crate::frames::doppler::{is_runtime, residual_local};
use crate::frames::{Eval, Frame, Interp, Mutation};
use crate::resolve::NameRef;
use crate::source::TextRange;
use crate::syntax::ast::ExprRef;
use crate::syntax::ast::{self, BinOp, CmpOp, ExprId, ExprNode, StmtId, StmtNode};
use crate::vm::builtins::Builtin;
use crate::vm::ops;
use crate::vm::ops::signatures::{
    BuiltinImpl, BuiltinSig, ConvImpl, ListMethod, MethodImpl, MethodSig, SubscriptSig,
};
use crate::vm::types::{TypeId, TypeKind};
use crate::vm::value::{Function, Typed, Value};

/// The operator of a residual binary node.
#[derive(Clone, Copy, Debug)]
pub(crate) enum BinSym {
    Bin(BinOp),
    Cmp(CmpOp),
}

impl BinSym {
    pub(crate) fn node(self, sh: &Shift, left: ExprId, right: ExprId, range: TextRange) -> ExprId {
        match self {
            BinSym::Bin(op) => sh.expr(ExprNode::BinOp { left, op, right }, range),
            BinSym::Cmp(op) => sh.expr(ExprNode::Compare { left, op, right }, range),
        }
    }
}

impl Interp<'_> {
    /// `l OP r` with a run-time operand, as the resolved implementation
    /// `imp` (never re-dispatched from the source operator): a residual
    /// node that selects `imp` again from the same static types. Equality
    /// of value types compares at run time through the `__eq__` of each
    /// struct it reaches; a metafunc `__eq__` (blue, so absent from the
    /// residual module) is resolved now into a red residual method.
    pub(crate) fn shift_binary(
        &mut self,
        f: &mut Frame,
        imp: &OpImpl,
        l: &Typed,
        r: &Typed,
        range: TextRange,
    ) -> Eval<Typed> {
        let (Some(sym), Some(ty)) = (imp.spelling(), imp.result_type()) else {
            return Err(crate::bug!("shift_binary of a dunder call"));
        };
        if matches!(
            imp,
            OpImpl::ValueEq { .. } | OpImpl::TupleContains | OpImpl::ListContains
        ) {
            self.residual_eq_methods(f, l.ty, range)?;
        }
        self.shift_node(f, sym, l, r, ty, range)
    }

    /// Before residual code compares values of type `ty` at run time: every
    /// struct it reaches (through fields, tuple and list items) whose
    /// `__eq__` is a metafunc gets a residual red `__eq__(self, other)`
    /// that calls what the metafunc resolves to for two red operands — what
    /// ASTFrame's field-wise equality calls.
    pub(crate) fn residual_eq_methods(&mut self, f: &mut Frame, ty: TypeId, range: TextRange) -> Eval<()> {
        match self.vm.types.kind(ty).clone() {
            TypeKind::Struct { .. } => {
                if let Some(eq) = self.vm.struct_method(ty, "__eq__") {
                    let sh = f.shift()?;
                    let pending = !sh.read().eq_methods.contains_key(&ty);
                    if eq.kind != crate::syntax::ast::FuncKind::Metafunc || !pending {
                        return Ok(());
                    }
                    sh.state().eq_methods.insert(ty, None);
                    let operand = |name: &str| (Self::residual_value(f, ty, sh.name(name, range)), range);
                    let result = self.call_dunder(f, &eq, vec![operand("self"), operand("other")], range)?;
                    if result.ty != TypeId::BOOL {
                        let name = self.vm.types.name(result.ty).to_string();
                        return Err(SpyError::new(
                            ExcKind::Wip,
                            format!("a metafunc `__eq__` returning `{name}` cannot be redshifted yet"),
                        )
                        .with_error(&f.file, range, "")
                        .into());
                    }
                    let body = self.residual(f, &result, range)?;
                    sh.state().eq_methods.insert(ty, Some(body));
                    return Ok(());
                }
                let fields = self
                    .vm
                    .types
                    .struct_fields(ty)
                    .map(<[_]>::to_vec)
                    .unwrap_or_default();
                for fd in fields {
                    self.residual_eq_methods(f, fd.ty, range)?;
                }
                Ok(())
            }
            TypeKind::Tuple(items) => {
                for t in items {
                    self.residual_eq_methods(f, t, range)?;
                }
                Ok(())
            }
            TypeKind::List(item) | TypeKind::Ref { item, .. } => self.residual_eq_methods(f, item, range),
            _ => Ok(()),
        }
    }

    /// The residual binary node `l op r` of type `ty`.
    pub(crate) fn shift_node(
        &mut self,
        f: &Frame,
        sym: BinSym,
        l: &Typed,
        r: &Typed,
        ty: TypeId,
        range: TextRange,
    ) -> Eval<Typed> {
        let (le, re) = (self.residual(f, l, range)?, self.residual(f, r, range)?);
        Ok(Self::residual_value(f, ty, sym.node(&f.shift()?, le, re, range)))
    }

    /// A residual call `callee(args...)` of type `ty`.
    pub(crate) fn shift_call(
        &mut self,
        f: &Frame,
        callee: ExprId,
        args: &[(Typed, TextRange)],
        ty: TypeId,
        range: TextRange,
    ) -> Eval<Typed> {
        let args = self.residuals(f, args)?;
        Ok(Self::residual_value(f, ty, f.shift()?.call(callee, args, range)))
    }

    /// A call of red function `func` with arguments already bound to its
    /// parameters: a residual call (red functions never run while shifting).
    pub(crate) fn shift_function_call(
        &mut self,
        f: &Frame,
        func: &Rc<Function>,
        bound: Vec<Typed>,
        range: TextRange,
    ) -> Eval<Typed> {
        if let Some(star) = func.star() {
            if matches!(star.kind, crate::vm::value::StarKind::Variadic(_)) {
                return Err(SpyError::new(
                    ExcKind::Wip,
                    "calls of red `*args` functions cannot be redshifted yet",
                )
                .with_error(&f.file, range, "")
                .into());
            }
        }
        let mut args = Vec::with_capacity(bound.len());
        for (k, v) in bound.iter().enumerate() {
            // A parameter pack is passed as separate arguments.
            let packed = func.star().is_some_and(|s| s.index == k);
            match (&v.value, packed) {
                (Value::Tuple(t), true) => {
                    let types = self
                        .vm
                        .types
                        .tuple_items(v.ty)
                        .map(|s| s.to_vec())
                        .unwrap_or_default();
                    for (item, ty) in t.items.iter().zip(types) {
                        let item = Typed {
                            color: v.color,
                            ty,
                            value: item.clone(),
                        };
                        args.push(self.residual(f, &item, range)?);
                    }
                }
                _ => args.push(self.residual(f, v, range)?),
            }
        }
        let ret = self.return_type_for_call(f, func, range)?;
        let callee = self.const_expr(f, &Value::Func(func.clone()), func.ty, range)?;
        Ok(Self::residual_value(f, ret, f.shift()?.call(callee, args, range)))
    }

    /// `print` and struct constructors while shifting (the builtins of the
    /// signature table go through `shift_builtin_call`). `None`: evaluate
    /// as usual.
    pub(crate) fn shift_builtin(
        &mut self,
        f: &mut Frame,
        b: Builtin,
        callee_range: TextRange,
        args: &Args,
        range: TextRange,
    ) -> Option<Eval<Typed>> {
        let runtime = args.iter().any(|(a, _)| is_runtime(a));
        let callee =
            |this: &mut Self| this.const_expr(f, &Value::Builtin(b), TypeId::BUILTIN_FUNC, callee_range);
        Some(match b {
            Builtin::Print => {
                // Blue functions, modules, MetaArgs... have no spelling in
                // residual code: print their text (computed now).
                let mut printed = Vec::with_capacity(args.len());
                for (a, r) in args {
                    let spelled = matches!(
                        a.value,
                        Value::Func(_)
                            | Value::Builtin(_)
                            | Value::GenericStruct(_)
                            | Value::Meta(_)
                            | Value::OpSpec(_)
                            | Value::Module(_)
                            | Value::Exception(_)
                    );
                    if spelled && !is_runtime(a) {
                        let text = match self.repr_of(f, a, *r) {
                            Ok(t) => t,
                            Err(e) => return Some(Err(e)),
                        };
                        printed.push((Typed::blue(TypeId::STR, Value::str(&text)), *r));
                    } else {
                        printed.push((a.clone(), *r));
                    }
                }
                let c = match callee(self) {
                    Ok(c) => c,
                    Err(e) => return Some(Err(e)),
                };
                self.shift_call(f, c, &printed, TypeId::NONE, range)
            }
            Builtin::StructMake(t) if runtime => self.shift_struct_make(f, t, callee_range, args, range),
            // `as_red(e)`: the residual code computes `e` (a known value
            // becomes its constant expression, red from here on)
            Builtin::AsRed => self.check_arity(f, 1, 1, args, callee_range, None).and_then(|_| {
                let (a, r) = &args[0];
                if is_runtime(a) {
                    return Ok(a.clone());
                }
                let e = self.residual(f, a, *r)?;
                Ok(Self::residual_value(f, a.ty, e))
            }),
            _ => return None,
        })
    }

    /// A builtin of the signature table with a run-time argument: a
    /// residual call of the type its signature gives (`len` of a static
    /// tuple is blue, keeping its operand's effects).
    pub(crate) fn shift_builtin_call(
        &mut self,
        f: &Frame,
        b: Builtin,
        sig: &BuiltinSig,
        callee_range: TextRange,
        args: &Args,
        range: TextRange,
    ) -> Eval<Typed> {
        if let BuiltinImpl::LenOfTuple(n) = sig.imp {
            let (a, r) = args.first().ok_or_else(|| crate::bug!("len arity"))?;
            self.emit_effect(f, a, *r)?;
            return Ok(Typed::blue(TypeId::I32, Value::i32(n as i32)));
        }
        // Check the conversions now; the residual call converts again.
        for ((a, r), to) in args.iter().zip(&sig.params) {
            if let Some(to) = to {
                self.convert_to(f, a.clone(), *to, *r, None)?;
            }
        }
        let ty = sig
            .result
            .ok_or_else(|| crate::bug!("builtin `{}` has no result type", b.name()))?;
        let callee = self.const_expr(f, &Value::Builtin(b), TypeId::BUILTIN_FUNC, callee_range)?;
        self.shift_call(f, callee, args, ty, range)
    }

    fn shift_struct_make(
        &mut self,
        f: &Frame,
        t: TypeId,
        callee_range: TextRange,
        args: &Args,
        range: TextRange,
    ) -> Eval<Typed> {
        let fields = self.struct_make_fields(f, t, callee_range, args)?;
        let mut args = args.clone();
        let bindings = self.bind_before_hooks(f, &mut args, |k| fields.get(k).map(|fd| fd.ty))?;
        let mut converted = Vec::with_capacity(args.len());
        for ((a, r), fd) in args.iter().zip(&fields) {
            converted.push((self.convert_to(f, a.clone(), fd.ty, *r, None)?, *r));
        }
        let ty_expr = self.type_expr(f, t, callee_range)?;
        let callee = f.shift()?.attribute(ty_expr, "__make__", callee_range);
        let made = self.shift_call(f, callee, &converted, t, range);
        self.after_bindings_if_any(f, bindings, made, range)
    }

    /// Calling a type with a run-time argument: conversions, constructors.
    pub(crate) fn shift_type_call(
        &mut self,
        f: &mut Frame,
        t: TypeId,
        callee_range: TextRange,
        args: &Args,
        range: TextRange,
    ) -> Option<Eval<Typed>> {
        let kind = self.vm.types.kind(t).clone();
        // A SIMD lane may convert through a struct's conversion hook,
        // whose result is run-time even when the argument is known: the
        // SIMD branch decides after converting.
        let always = matches!(
            kind,
            TypeKind::List(_) | TypeKind::Dict { .. } | TypeKind::Simd { .. }
        );
        // `str(s)` of a known struct runs its `__str__` (red code).
        let user_display = matches!(kind, TypeKind::Str)
            && args
                .iter()
                .any(|(a, _)| crate::vm::op_select::display_runs_user_code(&self.vm, a.ty));
        if !always && !user_display && !args.iter().any(|(a, _)| is_runtime(a)) {
            return None;
        }
        Some(match kind {
            TypeKind::Prim(_) | TypeKind::Str => {
                self.check_arity(f, 1, 1, args, callee_range, None).and_then(|_| {
                    let site = crate::frames::signatures::Site::at(range, range);
                    if self.conversion_sig(f, t, &args[0], site)? == ConvImpl::Identity {
                        return Ok(args[0].0.clone());
                    }
                    let callee = self.type_expr(f, t, callee_range)?;
                    self.shift_call(f, callee, args, t, range)
                })
            }
            TypeKind::Struct { .. } => {
                if self.vm.struct_method(t, "__new__").is_some() {
                    return None;
                }
                self.shift_struct_make(f, t, callee_range, args, range)
            }
            TypeKind::Tuple(items) => self
                .check_arity(f, items.len(), items.len(), args, callee_range, None)
                .and_then(|_| {
                    let mut args = args.clone();
                    let bindings = self.bind_before_hooks(f, &mut args, |k| items.get(k).copied())?;
                    let mut converted = Vec::with_capacity(args.len());
                    for ((a, r), ty) in args.iter().zip(&items) {
                        converted.push((self.convert_to(f, a.clone(), *ty, *r, None)?, *r));
                    }
                    let callee = self.type_expr(f, t, callee_range)?;
                    let made = self.shift_call(f, callee, &converted, t, range);
                    self.after_bindings_if_any(f, bindings, made, range)
                }),
            TypeKind::Simd { lane, lanes } => {
                if args.len() != 1 {
                    if let Err(e) =
                        self.check_arity(f, lanes as usize, lanes as usize, args, callee_range, None)
                    {
                        return Some(Err(e));
                    }
                }
                let mut args = args.clone();
                let bindings = match self.bind_before_hooks(f, &mut args, |_| Some(TypeId::prim(lane))) {
                    Ok(b) => b,
                    Err(e) => return Some(Err(e)),
                };
                let mut converted = Vec::with_capacity(args.len());
                for (a, r) in &args {
                    match self.convert_to(f, a.clone(), TypeId::prim(lane), *r, None) {
                        Ok(v) => converted.push((v, *r)),
                        Err(e) => return Some(Err(e)),
                    }
                }
                if !converted.iter().any(|(a, _)| is_runtime(a)) {
                    // Known lanes: `make_simd` folds the vector.
                    return None;
                }
                let made = self
                    .type_expr(f, t, callee_range)
                    .and_then(|callee| self.shift_call(f, callee, &converted, t, range));
                self.after_bindings_if_any(f, bindings, made, range)
            }
            // `interp_list[T](a, ...)`: the items converted to `T`
            TypeKind::List(item) if self.vm.types.is_interp_list(t) => (|| {
                let mut converted = Vec::with_capacity(args.len());
                for (a, r) in args {
                    converted.push((self.convert_to(f, a.clone(), item, *r, None)?, *r));
                }
                let callee = self.type_expr(f, t, callee_range)?;
                self.shift_call(f, callee, &converted, t, range)
            })(),
            TypeKind::List(_) | TypeKind::Dict { .. } => {
                self.check_arity(f, 0, 0, args, callee_range, None).and_then(|_| {
                    let callee = self.type_expr(f, t, callee_range)?;
                    self.shift_call(f, callee, args, t, range)
                })
            }
            _ => return None,
        })
    }

    /// `x := v` while shifting: a red target is declared (without a value)
    /// before the statement, and the walrus stays in the residual code.
    pub(crate) fn shift_walrus(
        &mut self,
        f: &mut Frame,
        target: &ast::Identifier,
        v: Typed,
        range: TextRange,
    ) -> Option<Eval<Typed>> {
        let NameRef::Local(slot) = f.res.name(target.id) else {
            return None;
        };
        let existing = f.locals.borrow().get(slot as usize).cloned().flatten();
        let kind = f.scope.symbols[slot as usize].kind;
        let (name, ty) = match existing {
            None if kind == crate::resolve::VarKind::Const && !is_runtime(&v) && v.is_blue() => return None,
            None => {
                let name = match f
                    .shift()
                    .and_then(|sh| sh.declare_residual_name(slot, &target.name))
                {
                    Ok(name) => name,
                    Err(e) => return Some(Err(e)),
                };
                if let Err(e) = self.emit_declaration(f, &name, v.ty, None, target.range) {
                    return Some(Err(e));
                }
                let local = match f.shift() {
                    Ok(sh) => residual_local(&sh, v.ty, &name, target.range),
                    Err(e) => return Some(Err(e)),
                };
                f.locals.borrow_mut()[slot as usize] = Some(local);
                (name, v.ty)
            }
            Some(local) => match &local.value {
                Some(Value::Residual(e)) => match f.shift().and_then(|sh| Ok(sh.name_of(sh.live(*e)?))) {
                    Err(e) => return Some(Err(e)),
                    Ok(Some(id)) => (id.name.to_string(), local.ty),
                    Ok(None) => return None,
                },
                _ => return None,
            },
        };
        Some((|| {
            let v = self.convert_to(f, v, ty, range, None)?;
            let value = self.residual(f, &v, range)?;
            let sh = f.shift()?;
            let walrus = sh.walrus(sh.ident(&name, target.range), value, range);
            Ok(Self::residual_value(f, ty, walrus))
        })())
    }

    /// `*t` of a run-time static tuple: its items, with `t` evaluated once
    /// (bound to a temporary unless it is a plain name).
    pub(crate) fn shift_splat(
        &mut self,
        f: &Frame,
        t: &Typed,
        item_types: &[TypeId],
        range: TextRange,
        out: &mut Vec<(Typed, TextRange)>,
    ) -> Eval<()> {
        let res = self.residual(f, t, range)?;
        if item_types.is_empty() {
            return self.emit_effect(f, t, range);
        }
        let sh = f.shift()?;
        let (first_base, base) = match sh.name_of(res) {
            Some(_) => (res, res),
            None => {
                // Planted bug (test-only): the operand is evaluated once more.
                if self.mutations.has(Mutation::SplatTwice) {
                    self.emit_effect(f, t, range)?;
                }
                let tmp = sh.temp_name("splat");
                self.emit_declaration(f, &tmp, t.ty, None, range)?;
                (sh.walrus(sh.ident(&tmp, range), res, range), sh.name(&tmp, range))
            }
        };
        for (k, ty) in item_types.iter().enumerate() {
            let base = if k == 0 { first_base } else { base };
            let index = sh.int(k as i64, range);
            let item = sh.subscript(base, vec![index], range);
            out.push((Self::residual_value(f, *ty, item), range));
        }
        Ok(())
    }

    /// `a if c else b` with a run-time condition: both branches are shifted
    /// and must have the same type.
    pub(crate) fn shift_ifexp(
        &mut self,
        f: &mut Frame,
        cond: Typed,
        body: &ExprRef<'_>,
        orelse: &ExprRef<'_>,
        range: TextRange,
    ) -> Eval<Typed> {
        let b = self.eval_expr(f, body)?;
        let o = self.eval_expr(f, orelse)?;
        if b.ty != o.ty {
            return Err(self.mismatched(f, o.ty, b.ty, orelse.range, None));
        }
        let (test, be, oe) = (
            self.residual(f, &cond, range)?,
            self.residual(f, &b, body.range)?,
            self.residual(f, &o, orelse.range)?,
        );
        let node = ast::IfExpNode {
            test,
            body: be,
            orelse: oe,
        };
        Ok(Self::residual_value(f, b.ty, f.shift()?.if_exp(node, range)))
    }

    pub(crate) fn shift_boolop(
        &mut self,
        f: &Frame,
        op: ast::BoolOp,
        l: &Typed,
        r: &Typed,
        range: TextRange,
    ) -> Eval<Typed> {
        let (left, right) = (self.residual(f, l, range)?, self.residual(f, r, range)?);
        let node = ExprNode::BoolOp { op, left, right };
        Ok(Self::residual_value(
            f,
            TypeId::BOOL,
            f.shift()?.expr(node, range),
        ))
    }

    pub(crate) fn shift_unary(
        &mut self,
        f: &Frame,
        op: ast::UnaryOp,
        v: &Typed,
        ty: TypeId,
        range: TextRange,
    ) -> Eval<Typed> {
        let operand = self.residual(f, v, range)?;
        Ok(Self::residual_value(
            f,
            ty,
            f.shift()?.expr(ExprNode::UnaryOp { op, operand }, range),
        ))
    }

    /// `obj.attr` / `obj[idx]` / `obj.m(args)` residual nodes.
    pub(crate) fn shift_attribute(
        &mut self,
        f: &Frame,
        obj: &Typed,
        attr: &str,
        ty: TypeId,
        range: TextRange,
    ) -> Eval<Typed> {
        let o = self.residual(f, obj, range)?;
        Ok(Self::residual_value(f, ty, f.shift()?.attribute(o, attr, range)))
    }

    pub(crate) fn shift_subscript(
        &mut self,
        f: &Frame,
        obj: &Typed,
        idx: &Args,
        ty: TypeId,
        range: TextRange,
    ) -> Eval<Typed> {
        let o = self.residual(f, obj, range)?;
        let i = self.residuals(f, idx)?;
        Ok(Self::residual_value(f, ty, f.shift()?.subscript(o, i, range)))
    }

    pub(crate) fn shift_method_call(
        &mut self,
        f: &Frame,
        obj: &Typed,
        method: &str,
        args: &Args,
        ty: TypeId,
        range: TextRange,
    ) -> Eval<Typed> {
        let o = self.residual(f, obj, range)?;
        let callee = f.shift()?.attribute(o, method, range);
        self.shift_call(f, callee, args, ty, range)
    }

    /// Emit `target = value` for an attribute or item assignment (`target`
    /// a residual attribute or subscript).
    pub(crate) fn shift_store(&mut self, f: &Frame, target: ExprId, v: &Typed, range: TextRange) -> Eval<()> {
        let value = self.residual(f, v, range)?;
        let sh = f.shift()?;
        if !matches!(
            sh.expr_node(target).node,
            ExprNode::Attribute { .. } | ExprNode::Subscript(_)
        ) {
            return Err(crate::bug!("shift_store on a non-target"));
        }
        // The statement keeps the source statement's range (`f.current`),
        // where ASTFrame's traceback points for an error in it.
        sh.emit(StmtNode::Assign { target, value }, f.current);
        Ok(())
    }
}

/// Attributes, items and methods of run-time values.
impl Interp<'_> {
    /// `obj.attr` where `obj` is a run-time struct (or pointer to one).
    pub(crate) fn shift_get_attr(
        &mut self,
        f: &Frame,
        obj: &Typed,
        attr: &ast::Identifier,
        range: TextRange,
    ) -> Option<Eval<Typed>> {
        if !is_runtime(obj) {
            return None;
        }
        let field = match self.vm.types.kind(obj.ty) {
            TypeKind::Ptr { item, .. } if attr.name == "itemtype" => {
                return Some(Ok(Typed::blue(TypeId::TYPE, Value::Type(*item))));
            }
            // through a pointer or reference: a struct field by reference
            TypeKind::Ptr { .. } | TypeKind::Ref { .. } => self.vm.types.mem_field(obj.ty, &attr.name)?.ty,
            _ => self.vm.types.field_type(obj.ty, &attr.name)?,
        };
        Some(self.shift_attribute(f, obj, &attr.name, field, range))
    }

    /// `s.m(...)` on a run-time str, or any method of a typed list: a
    /// residual call of the type the method's signature gives, with the
    /// arguments checked and converted by it.
    pub(crate) fn shift_builtin_method(
        &mut self,
        f: &mut Frame,
        obj: &Typed,
        attr: &ast::Identifier,
        sig: &MethodSig,
        args: &Args,
        range: TextRange,
    ) -> Eval<Typed> {
        let args = self.method_args(f, sig, args)?;
        if matches!(
            sig.imp,
            MethodImpl::List(ListMethod::Count | ListMethod::Index | ListMethod::Remove)
        ) {
            self.residual_eq_methods(f, obj.ty, range)?;
        }
        self.shift_method_call(f, obj, &attr.name, &args, sig.result, range)
    }

    /// `obj[idx]` with a run-time object or index: a residual subscript of
    /// the type the subscript's signature gives (its index converted).
    pub(crate) fn shift_get_item(
        &mut self,
        f: &Frame,
        obj: &Typed,
        sig: &SubscriptSig,
        idx: &Args,
        range: TextRange,
    ) -> Eval<Typed> {
        if let (Some(to), [(i, r)]) = (sig.index, idx.as_slice()) {
            self.convert_to(f, i.clone(), to, *r, None)?;
        }
        self.shift_subscript(f, obj, idx, sig.result, range)
    }

    /// `s[a:b:c]` with a run-time string or bound.
    pub(crate) fn shift_slice(
        &mut self,
        f: &Frame,
        obj: &Typed,
        bounds: &[Option<Typed>; 3],
        range: TextRange,
    ) -> Eval<Typed> {
        // a slice of a `str` is a `str`, of a `list[T]` a `list[T]`
        let ty = obj.ty;
        let o = self.residual(f, obj, range)?;
        let mut parts: [Option<ExprId>; 3] = [None, None, None];
        for (slot, b) in parts.iter_mut().zip(bounds) {
            if let Some(b) = b {
                *slot = Some(self.residual(f, b, range)?);
            }
        }
        let [lower, upper, step] = parts;
        let sh = f.shift()?;
        let slice = sh.slice(ast::SliceNode { lower, upper, step }, range);
        Ok(Self::residual_value(f, ty, sh.subscript(o, vec![slice], range)))
    }

    /// `obj.attr = v` while shifting (pointers and references to structs).
    pub(crate) fn shift_set_attr(
        &mut self,
        f: &Frame,
        obj: &Typed,
        attr: &ast::Identifier,
        v: Typed,
        range: TextRange,
    ) -> Option<Eval<()>> {
        let field = self.vm.types.mem_field(obj.ty, &attr.name)?.field;
        Some((|| {
            let v = self.convert_to(f, v, field, range, None)?;
            let o = self.residual(f, obj, range)?;
            let target = f.shift()?.attribute(o, &attr.name, range);
            self.shift_store(f, target, &v, range)
        })())
    }

    /// `obj[idx] = v` while shifting (pointers, lists): the index and the
    /// value converted as the store's signature says.
    pub(crate) fn shift_set_item(
        &mut self,
        f: &Frame,
        obj: &Typed,
        sig: &SubscriptSig,
        idx: &Args,
        v: Typed,
        range: TextRange,
    ) -> Eval<()> {
        if let (Some(to), [(i, r)]) = (sig.index, idx.as_slice()) {
            self.convert_to(f, i.clone(), to, *r, None)?;
        }
        let v = self.convert_to(f, v, sig.result, range, None)?;
        let (o, i) = (self.residual(f, obj, range)?, self.residuals(f, idx)?);
        let target = f.shift()?.subscript(o, i, range);
        self.shift_store(f, target, &v, range)
    }
}

/// `@force_inline` calls while shifting.
impl Interp<'_> {
    /// Inline a call of `func` (arguments already bound): its body is
    /// shifted in place with alpha-renamed locals, and the call becomes the
    /// single expression `(p := a, ..., x := e, ..., result)[n]`, which
    /// evaluates each argument once, in order.
    pub(crate) fn shift_inline_call(
        &mut self,
        f: &Frame,
        func: &Rc<Function>,
        bound: Vec<Typed>,
        range: TextRange,
    ) -> Eval<Typed> {
        let key = format!("inline:{}", func.fqn);
        let sh = f.shift()?;
        if !sh.state().in_progress.insert(key.clone()) {
            return Err(SpyError::new(
                ExcKind::TypeError,
                format!(
                    "cannot inline a recursive call to @force_inline function `{}`",
                    func.fqn
                ),
            )
            .with_error(&f.file, range, "")
            .into());
        }
        let mark = sh.block_len();
        // taken now: only this call (the statement's whole expression) may
        // splice, not the calls its body makes
        let splice = sh.state().splice_at.take() == Some((Rc::as_ptr(&f.file) as usize, range));
        let call = if sh.provenance() {
            Some(self.shift_function_call(f, func, bound.clone(), range)?)
        } else {
            None
        };
        if let Some(Value::Residual(resolved)) = call.as_ref().map(|c| &c.value) {
            let text = crate::frames::meta::call_text(f, range);
            let resolved = sh.live(*resolved)?;
            let resolved = sh.with_residual(|m| crate::backend::print_expr(&m.expr(resolved)));
            let at = f.file.location(range.start);
            self.note(
                f,
                || format!("inlined `{text}` at {at}; resolved call: {resolved}"),
                range,
            )?;
        }
        let result = self.shift_inline_body(f, func, bound.clone(), range, splice);
        sh.state().in_progress.remove(&key);
        match result? {
            Ok(inlined) => Ok(inlined),
            // A body that is not an expression sequence (a red loop or
            // `if`...) has no residual spelling as one expression; upstream
            // splices a statement block (`BlockExpr`), which residual SPy
            // source cannot hold. Never a silent call: the promised WIP.
            Err((what, at)) => {
                sh.truncate_block(mark);
                Err(SpyError::new(
                    ExcKind::Wip,
                    format!(
                        "cannot inline `{}`: its body has {what}, which cannot be inlined as an expression yet",
                        func.fqn
                    ),
                )
                .with_error(&f.file, range, "inlined here")
                .with_note(&func.code.file, at, "this statement")
                .into())
            }
        }
    }

    fn shift_inline_body(
        &mut self,
        f: &Frame,
        func: &Rc<Function>,
        bound: Vec<Typed>,
        range: TextRange,
        splice: bool,
    ) -> Eval<Result<Typed, (&'static str, TextRange)>> {
        let code = func.code.clone();
        let sh = f.shift()?;
        sh.push_inline_names();
        let mut elems = Vec::new();
        let name: Rc<str> = format!("[inline] {}", func.fqn).into();
        let args = func.params.iter().zip(&bound);
        let mut frame = self.activation(
            func,
            name,
            func.fqn.clone(),
            Some(sh.clone()),
            args,
            |interp, p, slot, (spec, arg)| {
                let name = sh.declare_residual_name(slot, &format!("{}$inl", p.name.name))?;
                interp.emit_declaration(f, &name, spec.ty, None, range)?;
                let value = interp.residual(f, arg, range)?;
                elems.push(sh.walrus(sh.ident(&name, range), value, range));
                Ok(residual_local(&sh, spec.ty, &name, range))
            },
        )?;
        sh.push_block();
        let shifted = self
            .exec_block(&mut frame, &code.body())
            .map_err(|e| crate::frames::add_trace(e, &frame));
        let body = sh.pop_block()?;
        sh.pop_inline_names();
        shifted?;
        if splice && !is_expression_sequence(&sh, &body) {
            return self.splice_inline_body(f, func, elems, body, range).map(Ok);
        }
        let mut result = None;
        for id in body {
            let s = sh.stmt_node(id);
            if result.is_some() {
                return Ok(Err(("a statement after its `return`", s.range)));
            }
            match s.node {
                StmtNode::VarDef {
                    kind,
                    name,
                    annotation,
                    value,
                } => {
                    let Some(value) = value else {
                        // a declaration the shifted body assigns later
                        // (`x: bool` before the `if` of a red `or`):
                        // declared in the caller, nothing to evaluate
                        sh.emit_id(id);
                        continue;
                    };
                    let decl = StmtNode::VarDef {
                        kind,
                        name,
                        annotation,
                        value: None,
                    };
                    sh.emit(decl, s.range);
                    elems.push(sh.walrus(name, value, s.range));
                }
                StmtNode::Assign { target, value } => match sh.name_of(target) {
                    Some(target) => {
                        let target = sh.with_ident(target);
                        elems.push(sh.walrus(target, value, s.range));
                    }
                    None => return Ok(Err(("an assignment to an item or attribute", s.range))),
                },
                StmtNode::Expr(e) => elems.push(e),
                StmtNode::Return(Some(e)) => result = Some(e),
                StmtNode::Return(None) => result = Some(sh.expr(ExprNode::None, s.range)),
                other => return Ok(Err((stmt_what(&other), s.range))),
            }
        }
        // A `-> None` body without `return` gives None.
        let result = result.unwrap_or_else(|| sh.expr(ExprNode::None, range));
        let ret = self.return_type_for_call(f, func, range)?;
        if elems.is_empty() {
            return Ok(Ok(Self::residual_value(f, ret, result)));
        }
        let n = elems.len() as i64;
        elems.push(result);
        let tuple = sh.tuple(elems, range);
        let index = sh.int(n, range);
        Ok(Ok(Self::residual_value(
            f,
            ret,
            sh.subscript(tuple, vec![index], range),
        )))
    }
}

impl Interp<'_> {
    /// Upstream's `BlockExpr` for a call that is a statement's whole
    /// expression: the parameters' bindings and the body's statements are
    /// emitted before the statement (locals already renamed), and the call
    /// is the value of the tail `return`.
    fn splice_inline_body(
        &mut self,
        f: &Frame,
        func: &Rc<Function>,
        params: Vec<ExprId>,
        body: Vec<StmtId>,
        range: TextRange,
    ) -> Eval<Typed> {
        let sh = f.shift()?;
        for p in params {
            let p = sh.expr_node(p);
            if let ExprNode::Walrus { target, value } = p.node {
                let ident = sh.with_residual(|m| m.ident(target).clone());
                let target = sh.name_at(&ident, ident.range);
                sh.emit(StmtNode::Assign { target, value }, p.range);
            }
        }
        let mut result = None;
        for id in body {
            if result.is_some() {
                return Err(SpyError::new(
                    ExcKind::Wip,
                    format!("cannot inline `{}`: a statement after its `return`", func.fqn),
                )
                .with_error(&f.file, range, "inlined here")
                .into());
            }
            let s = sh.stmt_node(id);
            match s.node {
                StmtNode::Return(Some(e)) => result = Some(e),
                StmtNode::Return(None) => result = Some(sh.expr(ExprNode::None, s.range)),
                _ => sh.emit_id(id),
            }
        }
        let ret = self.return_type_for_call(f, func, range)?;
        Ok(match result {
            Some(e) if !matches!(sh.expr_node(e).node, ExprNode::None) => Self::residual_value(f, ret, e),
            // `return None` / no `return`: the plain None (no residual
            // statement for it)
            _ => Typed::none(),
        })
    }
}

/// Whether a shifted inlined body fits one expression (declarations,
/// assignments to names and expressions, then its `return`).
fn is_expression_sequence(sh: &Shift, body: &[StmtId]) -> bool {
    body.iter().all(|s| match sh.stmt_node(*s).node {
        StmtNode::VarDef { value, .. } => value.is_some(),
        StmtNode::Assign { target, .. } => sh.name_of(target).is_some(),
        StmtNode::Expr(_) | StmtNode::Return(_) => true,
        _ => false,
    })
}

/// What a residual statement of an inlined body is, for the WIP message.
fn stmt_what(k: &StmtNode) -> &'static str {
    match k {
        StmtNode::If { .. } => "a red `if`",
        StmtNode::While { .. } => "a `while` loop",
        StmtNode::For { .. } => "a `for` loop",
        StmtNode::Raise(_) => "a `raise`",
        StmtNode::Assert { .. } => "an `assert`",
        StmtNode::Break | StmtNode::Continue => "a `break` or `continue`",
        _ => "a statement",
    }
}

/// Conversions of run-time values.
impl Interp<'_> {
    /// An implicit conversion of a run-time value is explicit in residual
    /// code (`f64(x)`), so the residual has the converted type wherever it is
    /// used; a conversion that has no explicit spelling (`i8` to `f64`, `i32`
    /// to `u32` or `bool`, a pointer to `bool`) calls a residual helper
    /// `` `$convert[A, B]`(x) `` whose body `return x` converts implicitly.
    pub(crate) fn shift_conversion(
        &mut self,
        f: &Frame,
        v: Typed,
        to: TypeId,
        range: TextRange,
    ) -> Eval<Typed> {
        let e = self.residual(f, &v, range)?;
        if self.vm.types.list_item(to).is_some() || self.vm.types.dict_types(to).is_some() {
            // the empty list `[]` becomes a fresh `list[T]`, `{}` a fresh
            // dict
            let callee = self.type_expr(f, to, range)?;
            return Ok(Self::residual_value(
                f,
                to,
                f.shift()?.call(callee, Vec::new(), range),
            ));
        }
        let explicit = match (v.ty.as_prim(), to.as_prim()) {
            (Some(from), Some(into)) => ops::convert::explicit_convertible(into, from),
            _ => false,
        };
        let callee = if explicit {
            self.type_expr(f, to, range)?
        } else {
            let name = format!(
                "$convert[{}, {}]",
                self.vm.types.name(v.ty),
                self.vm.types.name(to)
            );
            // Redshifting a residual module again shifts the helper
            // itself: its `return x` stays the implicit conversion.
            if f.func
                .as_ref()
                .is_some_and(|func| *func.code.def().name.name == *name)
            {
                return Ok(Self::residual_value(f, to, e));
            }
            f.shift()?.state().conversions.insert(name.clone(), (v.ty, to));
            f.shift()?.name(&name, range)
        };
        Ok(Self::residual_value(
            f,
            to,
            f.shift()?.call(callee, vec![e], range),
        ))
    }
}

/// Errors found while folding blue operations.
impl Interp<'_> {
    /// In lazy mode, an error raised while folding a blue operation of type
    /// `ty` becomes a call of a residual helper that raises it, so it
    /// happens at run time exactly where ASTFrame raises it (after the
    /// effects of the operands evaluated before, and only if reached).
    pub(crate) fn lazy_raise_or(
        &mut self,
        f: &Frame,
        result: Eval<Typed>,
        ty: TypeId,
        range: TextRange,
    ) -> Eval<Typed> {
        // Only a shifting frame folds lazily; elsewhere the error is raised.
        let lazy = f.shift.clone().filter(|sh| sh.error_mode().is_lazy());
        match (result, lazy) {
            (Err(crate::error::Failure::Raise(e)), Some(sh))
                if crate::vm::builtins::lookup(e.kind.name()).is_some() =>
            {
                sh.deferred(&e);
                let mut d = sh.state();
                // numbered past the helpers of an already-residual module
                let scope = &self.vm.module(f.module).resolution.module_scope;
                let name = (d.raisers.len() + 1..)
                    .map(|k| format!("$raise[{k}]"))
                    .find(|n| scope.find(n).is_none() && !d.raisers.contains_key(n))
                    .expect("an unused helper name");
                d.raisers
                    .insert(name.clone(), (crate::frames::doppler::Raised::of(&e), ty));
                d.folded.push(self.folded_error(&e, f, Some(name.clone()), range));
                drop(d);
                let callee = sh.name(&name, range);
                Ok(Self::residual_value(f, ty, sh.call(callee, Vec::new(), range)))
            }
            (other, _) => other,
        }
    }
}
