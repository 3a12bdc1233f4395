//! Attributes, subscripts and methods: struct fields and methods, module
//! attributes, `str` methods, indexing and slicing of `str`, static-tuple
//! indexing, `tuple[...]` type construction, and item/attribute assignment.

use crate::error::{ExcKind, SpyError};
use crate::frames::call::Args;
use crate::frames::doppler::is_runtime;
use crate::frames::meta::{ArgSpec, ResolvedOp};
use crate::frames::signatures::Site;
use crate::frames::{Eval, Frame, Interp};
use crate::source::TextRange;
use crate::syntax::ast::{self, ExprKind, FuncKind};
use crate::syntax::ast::{ExprRef, Exprs};
use crate::vm::builtins::Builtin;
use crate::vm::ops;
use crate::vm::ops::signatures::{
    self as sig, BytesMethod, MethodImpl, StrMethod, SubscriptImpl, SubscriptSig,
};
use crate::vm::types::{TypeId, TypeKind};
use crate::vm::value::{Color, Function, Typed, Value};
use std::rc::Rc;

impl Interp<'_> {
    fn no_attribute(
        &self,
        f: &Frame,
        ty: TypeId,
        attr: &ast::Identifier,
        obj: &ExprRef<'_>,
    ) -> crate::error::Failure {
        let name = self.vm.types.name(ty).to_string();
        SpyError::new(
            ExcKind::TypeError,
            format!("type `{name}` has no attribute '{}'", attr.name),
        )
        .with_error(&f.file, obj.range, format!("this is `{name}`"))
        .into()
    }

    pub(crate) fn get_attr(
        &mut self,
        f: &mut Frame,
        obj: Typed,
        obj_expr: &ExprRef<'_>,
        attr: &ast::Identifier,
    ) -> Eval<Typed> {
        if let Some(result) = self.meta_attr(f, &obj, obj_expr.range, attr) {
            return result;
        }
        // a field of a struct in pointer memory, before a struct's own
        // `__getattribute__` (upstream: the pointer or reference type's
        // field descriptors are found first)
        if self.vm.types.mem_field(obj.ty, &attr.name).is_some() {
            let whole = obj_expr.range.cover(attr.range);
            if let Some(result) = self.shift_get_attr(f, &obj, attr, whole) {
                return result;
            }
            if let Some(result) = self.mem_get_field(f, &obj, &attr.name, obj_expr.range) {
                return result;
            }
        }
        if let Some(m) = self.vm.struct_method(obj.ty, "__getattribute__") {
            return self.custom_getattribute(f, &m, obj, obj_expr, attr);
        }
        if self.vm.is_property(obj.ty, &attr.name) {
            // `o.name` of a `@property` is the call `o.name()`
            let range = obj_expr.range.cover(attr.range);
            return self.call_method_itself(f, obj, obj_expr, attr, Vec::new(), range);
        }
        if let Some(result) = self.shift_get_attr(f, &obj, attr, obj_expr.range.cover(attr.range)) {
            return result;
        }
        match &obj.value {
            Value::Builtin(Builtin::Module(m)) => match m.member(&attr.name) {
                Some(v) => Ok(v),
                None => Err(self.no_attribute(f, obj.ty, attr, obj_expr)),
            },
            Value::Ptr(p) if attr.name == "itemtype" => match self.vm.types.kind(p.ty) {
                TypeKind::Ptr { item, .. } => Ok(Typed::blue(TypeId::TYPE, Value::Type(*item))),
                _ => Err(self.no_attribute(f, obj.ty, attr, obj_expr)),
            },
            Value::Ptr(_) | Value::Ref(_) => Err(self.no_attribute(f, obj.ty, attr, obj_expr)),
            Value::Type(t)
                if attr.name == "NULL" && matches!(self.vm.types.kind(*t), TypeKind::Ptr { .. }) =>
            {
                Ok(Typed::blue(
                    *t,
                    Value::Ptr(crate::vm::value::PtrValue { ty: *t, mem: None }),
                ))
            }
            Value::Module(m) => {
                let slot = self.make_pending_global(*m, &attr.name)?;
                let module = self.vm.module(*m);
                match slot.and_then(|i| module.globals[i].clone()) {
                    // A `var` of another module read by code being shifted:
                    // read at run time (`m.x` in the residual module).
                    Some(g)
                        if g.color == crate::vm::value::Color::Red
                            && f.is_shifting()
                            && g.value.is_some() =>
                    {
                        let owner = module.name.clone();
                        let here = self.vm.module(f.module).name.clone();
                        let sh = f.shift()?;
                        if owner != here {
                            sh.state().user_imports.insert((here, owner.clone()));
                        }
                        let r = obj_expr.range.cover(attr.range);
                        let e = sh.attribute(sh.name(&owner, obj_expr.range), &attr.name, r);
                        Ok(Self::residual_value(f, g.ty, e))
                    }
                    Some(g) => match g.value {
                        Some(value) => Ok(Typed {
                            color: g.color,
                            ty: g.ty,
                            value,
                        }),
                        None => Err(self.no_attribute(f, obj.ty, attr, obj_expr)),
                    },
                    None => Err(self.no_attribute(f, obj.ty, attr, obj_expr)),
                }
            }
            Value::Type(t) if attr.name == "__make__" && self.vm.types.is_struct(*t) => Ok(Typed::blue(
                TypeId::BUILTIN_FUNC,
                Value::Builtin(Builtin::StructMake(*t)),
            )),
            Value::Type(t) => {
                let member = self
                    .vm
                    .structs
                    .get(t)
                    .and_then(|s| s.members.get(attr.name.as_str()).cloned());
                match member {
                    Some(Value::Func(func)) => Ok(Typed::blue(func.ty, Value::Func(func))),
                    Some(other) => {
                        // class members are made at class-definition time,
                        // never residual values
                        let ty = self
                            .dynamic_type(&other)
                            .ok_or_else(|| crate::bug!("class member `{}` is a residual value", attr.name))?;
                        Ok(Typed::blue(ty, other))
                    }
                    None => Err(self.no_attribute(f, obj.ty, attr, obj_expr)),
                }
            }
            Value::Struct(s) => {
                let fields = self.vm.types.checked_struct_fields(s.ty)?;
                match fields.iter().position(|fd| fd.name == attr.name) {
                    Some(i) => Ok(Typed::red(fields[i].ty, s.fields[i].clone())),
                    None => Err(self.no_attribute(f, obj.ty, attr, obj_expr)),
                }
            }
            _ => Err(self.no_attribute(f, obj.ty, attr, obj_expr)),
        }
    }

    pub(crate) fn set_attr(
        &mut self,
        f: &mut Frame,
        obj: Typed,
        obj_expr: &ExprRef<'_>,
        attr: &ast::Identifier,
        value: Typed,
        value_range: TextRange,
    ) -> Eval<()> {
        if f.is_shifting() && (is_runtime(&obj) || is_runtime(&value)) {
            if let Some(r) = self.shift_set_attr(f, &obj, attr, value.clone(), value_range) {
                return r;
            }
        }
        if let Value::Ptr(_) | Value::Ref(_) = &obj.value {
            if let Some(r) = self.mem_set_field(f, &obj, &attr.name, value, value_range) {
                return r;
            }
        }
        // Structs are immutable values; only the structs in pointer memory
        // (through pointers and references) have settable fields.
        let name = self.vm.types.name(obj.ty).to_string();
        Err(SpyError::new(
            ExcKind::TypeError,
            format!(
                "type `{name}` does not support assignment to attribute '{}'",
                attr.name
            ),
        )
        .with_error(&f.file, obj_expr.range, format!("this is `{name}`"))
        .into())
    }

    /// The operation `__getattribute__` (a metafunc on the MetaArgs of `o`
    /// and of the blue name) chooses for `o.NAME` (upstream's `w_GETATTR`);
    /// `None` when it returns `OpSpec.NULL`. A plain method is called with
    /// both.
    pub(crate) fn getattribute_op(
        &mut self,
        f: &Frame,
        m: &Rc<Function>,
        args: &Args,
        whole: TextRange,
    ) -> Eval<Option<ResolvedOp>> {
        if m.kind != FuncKind::Metafunc {
            return Ok(Some(ResolvedOp::Call {
                callee: Typed::blue(m.ty, Value::Func(m.clone())),
                args: vec![ArgSpec::Arg(0), ArgSpec::Arg(1)],
            }));
        }
        let op = self.metafunc_op(f, m, args, whole, whole, &[0, 1])?;
        Ok(match op {
            ResolvedOp::Null => None,
            op => Some(op),
        })
    }

    /// `o.NAME` on a type with `__getattribute__`.
    fn custom_getattribute(
        &mut self,
        f: &mut Frame,
        m: &Rc<Function>,
        obj: Typed,
        obj_expr: &ExprRef<'_>,
        attr: &ast::Identifier,
    ) -> Eval<Typed> {
        let ty = obj.ty;
        let whole = obj_expr.range.cover(attr.range);
        let args = vec![
            (obj, obj_expr.range),
            (Typed::blue(TypeId::STR, Value::str(&attr.name)), attr.range),
        ];
        match self.getattribute_op(f, m, &args, whole)? {
            Some(op) => self.apply_op(f, op, m, args, attr.range, whole),
            None => Err(self.no_attribute(f, ty, attr, obj_expr)),
        }
    }

    /// `o.m(args)`. For a `@property` `m` it is `(o.m)(args)`: the
    /// property's value is called.
    pub(crate) fn call_method(
        &mut self,
        f: &mut Frame,
        obj: Typed,
        obj_expr: &ExprRef<'_>,
        attr: &ast::Identifier,
        args: Args,
        call_range: TextRange,
    ) -> Eval<Typed> {
        if self.vm.is_property(obj.ty, &attr.name) {
            let value = self.get_attr(f, obj, obj_expr, attr)?;
            let callee_range = obj_expr.range.cover(attr.range);
            return self.call_value(f, value, callee_range, args, call_range);
        }
        self.call_method_itself(f, obj, obj_expr, attr, args, call_range)
    }

    /// `o.m(args)` calling the method `m` (also the getter of a property).
    fn call_method_itself(
        &mut self,
        f: &mut Frame,
        obj: Typed,
        obj_expr: &ExprRef<'_>,
        attr: &ast::Identifier,
        args: Args,
        call_range: TextRange,
    ) -> Eval<Typed> {
        let site = Site {
            callee: attr.range,
            receiver: obj_expr.range,
            whole: call_range,
        };
        if let Some(sig) = self.method_sig(f, &obj, &attr.name, &args, site) {
            let sig = sig?;
            // Lists are red: every method of a typed list is residual.
            let residual = self.vm.types.list_item(obj.ty).is_some()
                || self.vm.types.list_iter_list(obj.ty).is_some()
                || self.vm.types.dict_types(obj.ty).is_some()
                || obj.ty == TypeId::FILE
                || is_runtime(&obj)
                || args.iter().any(|(a, _)| is_runtime(a));
            if f.is_shifting() && residual {
                return self.shift_builtin_method(f, &obj, attr, &sig, &args, call_range);
            }
            let args = self.method_args(f, &sig, &args)?;
            return match sig.imp {
                // str and bytes method errors are located at the whole call: the
                // residual origin map knows it (not the method name), so every
                // engine shows the same place
                MethodImpl::Str(m) => self.call_str_method(f, obj, m, call_range, args),
                MethodImpl::Bytes(m) => self.call_bytes_method(f, obj, m, call_range, args),
                MethodImpl::List(m) => self.call_list_method(f, obj, obj_expr.range, m, args),
                MethodImpl::ListIter(m) => self.call_list_iter_method(f, obj, obj_expr.range, m),
                MethodImpl::Dict(m) => self.call_dict_method(f, obj, obj_expr.range, m, args),
                MethodImpl::File(m) => self.call_file_method(f, obj, m, attr.range, args),
                MethodImpl::EmptyList => Ok(Typed::red(
                    TypeId::EMPTY_LIST,
                    self.new_list(TypeId::EMPTY_LIST, Vec::new()),
                )),
            };
        }
        if let Some(m) = self.vm.struct_method(obj.ty, &attr.name) {
            let is_static = self
                .vm
                .struct_info(obj.ty)
                .is_some_and(|s| s.static_methods.iter().any(|m| *m == attr.name));
            let mut full = Vec::with_capacity(args.len() + 1);
            if self.vm.is_class_method(obj.ty, &attr.name) {
                // `o.m(args)` of a `@classmethod` passes o's type, as Python
                // (a reference's struct type)
                let owner = self.vm.types.method_owner(obj.ty);
                full.push((Typed::blue(TypeId::TYPE, Value::Type(owner)), obj_expr.range));
            } else if !is_static {
                full.push((obj, obj_expr.range));
            }
            full.extend(args);
            return self.call_dunder(f, &m, full, call_range);
        }
        // `o.f(args)` where `f` is a field: read it, then call it (a struct
        // with `__call__`). While shifting, a red struct is a residual.
        if let Value::Struct(_) | Value::Residual(_) = obj.value {
            if self.vm.types.field_type(obj.ty, &attr.name).is_some() {
                let callee = self.get_attr(f, obj, obj_expr, attr)?;
                return self.call_value(f, callee, attr.range, args, call_range);
            }
        }
        let name = self.vm.types.name(obj.ty).to_string();
        Err(SpyError::new(
            ExcKind::TypeError,
            format!("method `{name}::{}` does not exist", attr.name),
        )
        .with_error(&f.file, obj_expr.range, format!("this is `{name}`"))
        .into())
    }

    /// `s.m(args)`, the arguments checked by the method's signature.
    fn call_str_method(
        &mut self,
        f: &mut Frame,
        obj: Typed,
        m: StrMethod,
        call_range: TextRange,
        args: Args,
    ) -> Eval<Typed> {
        let text = |v: &Value| v.checked_str().map(str::to_string);
        let s = text(&obj.value)?;
        let mut color = obj.color;
        let mut strs = Vec::with_capacity(2);
        let mut ints = Vec::with_capacity(2);
        for (a, _) in &args {
            color = color.join(a.color);
            if a.ty == TypeId::STR {
                strs.push(text(&a.value)?);
            } else {
                ints.push(a.value.checked_i32()?);
            }
        }
        let start = ints.first().copied().unwrap_or(0);
        let end = ints.get(1).copied().unwrap_or_else(|| ops::str::len(&s));
        let arg = |k: usize| {
            strs.get(k)
                .map(String::as_str)
                .ok_or_else(|| crate::bug!("str method arity"))
        };
        let located = |e: ops::OpError| -> crate::error::Failure {
            SpyError::from(e).with_error(&f.file, call_range, "").into()
        };
        let (ty, value) = match m {
            StrMethod::Split => {
                let parts = ops::str::split(&s, strs.first().map(String::as_str)).map_err(located)?;
                let ty = self.vm.types.list(TypeId::STR);
                let items = parts.iter().map(|p| Value::str(p)).collect();
                return Ok(Typed::red(ty, self.new_list(ty, items)));
            }
            StrMethod::Upper => (TypeId::STR, Value::str(&ops::str::upper(&s))),
            StrMethod::IsAscii => (TypeId::BOOL, Value::bool(ops::str::isascii(&s))),
            StrMethod::IsSpace => (TypeId::BOOL, Value::bool(ops::str::isspace(&s))),
            StrMethod::Find => (
                TypeId::I32,
                Value::i32(ops::str::find_range(&s, arg(0)?, start, end)),
            ),
            StrMethod::Count => (
                TypeId::I32,
                Value::i32(ops::str::count_range(&s, arg(0)?, start, end)),
            ),
            StrMethod::StartsWith => (TypeId::BOOL, Value::bool(ops::str::startswith(&s, arg(0)?))),
            StrMethod::EndsWith => (TypeId::BOOL, Value::bool(ops::str::endswith(&s, arg(0)?))),
            StrMethod::Encode => {
                ops::bytes::check_encoding(arg(0)?).map_err(located)?;
                (TypeId::BYTES, Value::bytes(s.as_bytes()))
            }
            StrMethod::Replace => {
                let (old, new) = (arg(0)?, arg(1)?);
                let hits = ops::str::count(&s, old).max(0) as usize;
                self.check_str_len(
                    f,
                    s.len().saturating_add(hits.saturating_mul(new.len())),
                    call_range,
                )?;
                (TypeId::STR, Value::str(&ops::str::replace(&s, old, new)))
            }
        };
        // Upstream: only `replace` (and operators) are pure among str methods.
        let color = if m == StrMethod::Replace {
            color
        } else {
            Color::Red
        };
        Ok(Typed { color, ty, value })
    }

    /// `b.decode(encoding)`: red, like the str methods other than `replace`.
    fn call_bytes_method(
        &mut self,
        f: &mut Frame,
        obj: Typed,
        m: BytesMethod,
        call_range: TextRange,
        args: Args,
    ) -> Eval<Typed> {
        let located = |e: ops::OpError| -> crate::error::Failure {
            SpyError::from(e).with_error(&f.file, call_range, "").into()
        };
        match m {
            BytesMethod::Decode => {
                let enc = args
                    .first()
                    .ok_or_else(|| crate::bug!("bytes.decode arity"))?
                    .0
                    .value
                    .checked_str()?;
                ops::bytes::check_encoding(enc).map_err(located)?;
                let text = ops::bytes::decode_utf8(obj.value.checked_bytes()?).map_err(located)?;
                Ok(Typed::red(TypeId::STR, Value::str(&text)))
            }
        }
    }

    pub(crate) fn eval_subscript(
        &mut self,
        f: &mut Frame,
        e: &ExprRef<'_>,
        value: &ExprRef<'_>,
        indices: &Exprs<'_>,
    ) -> Eval<Typed> {
        let obj = self.eval_expr(f, value)?;
        if let Some([index]) = indices.as_array() {
            if let ExprKind::Slice { lower, upper, step } = index.kind() {
                return self.eval_slice(f, obj, value, [lower, upper, step]);
            }
        }
        let idx = self.eval_items(f, indices)?;
        self.get_item(f, obj, value, idx, e.range)
    }

    pub(crate) fn get_item(
        &mut self,
        f: &mut Frame,
        obj: Typed,
        obj_expr: &ExprRef<'_>,
        idx: Args,
        whole: TextRange,
    ) -> Eval<Typed> {
        let site = Site::at(obj_expr.range, whole);
        if let Some(sig) = self.subscript_sig(f, sig::subscript_signature, &obj, &idx, site) {
            let sig = sig?;
            if f.is_shifting() && (is_runtime(&obj) || idx.iter().any(|(i, _)| is_runtime(i))) {
                return self.shift_get_item(f, &obj, &sig, &idx, whole);
            }
            return self.exec_subscript(f, obj, &sig, idx, whole);
        }
        match &obj.value {
            Value::Func(func) if func.kind == crate::syntax::ast::FuncKind::Generic => {
                let func = func.clone();
                return self.call_generic(f, &func, obj_expr.range, idx, whole);
            }
            Value::Builtin(b @ (Builtin::Dict | Builtin::InterpDict)) => {
                let interp = *b == Builtin::InterpDict;
                return self.dict_type(f, interp, &idx, whole);
            }
            Value::Builtin(b) if !matches!(b, Builtin::Tuple | Builtin::List | Builtin::InterpList) => {
                if let Some(r) = self.subscript_builtin(f, *b, obj_expr.range, &idx) {
                    return r;
                }
            }
            Value::GenericStruct(g) => {
                let g = g.clone();
                return self.specialize_struct(f, &g, idx, whole);
            }
            Value::Builtin(b @ (Builtin::List | Builtin::InterpList)) => {
                let interp = *b == Builtin::InterpList;
                let [(
                    Typed {
                        value: Value::Type(item),
                        ..
                    },
                    _,
                )] = idx.as_slice()
                else {
                    let name = b.name();
                    return Err(
                        SpyError::new(ExcKind::TypeError, format!("`{name}[...]` takes one type"))
                            .with_error(&f.file, whole, "")
                            .into(),
                    );
                };
                self.check_storable(f, *item, whole)?;
                let ty = if interp {
                    self.vm.types.interp_list(*item)
                } else {
                    self.vm.types.list(*item)
                };
                return Ok(Typed::blue(TypeId::TYPE, Value::Type(ty)));
            }
            Value::Tuple(t) if t.ty == TypeId::INTERP_TUPLE => {
                let [(i, r)] = idx.as_slice() else {
                    return Err(SpyError::new(ExcKind::TypeError, "tuples take one index")
                        .with_error(&f.file, whole, "")
                        .into());
                };
                if !i.is_blue() {
                    return self.interp_tuple_red_item(f, &obj, t, i.clone(), *r, whole);
                }
                // a blue index of another type is the program's error, as
                // for typed tuples below (not "out of range" at -1)
                let Some(k) = i.value.as_i32() else {
                    return Err(self.mismatched(f, i.ty, TypeId::I32, *r, None));
                };
                return match usize::try_from(k).ok().and_then(|k| t.items.get(k)) {
                    // Decision: a blue tuple indexed by a blue index is blue,
                    // typed by that item.
                    Some(item) => {
                        // an interp tuple value holds concrete items (a
                        // residual tuple is a `Value::Residual`)
                        let ty = self
                            .dynamic_type(item)
                            .ok_or_else(|| crate::bug!("an interp tuple holds a residual value"))?;
                        Ok(Typed {
                            color: obj.color,
                            ty,
                            value: item.clone(),
                        })
                    }
                    None => Err(SpyError::from(crate::vm::rt_error::RuntimeError::TupleIndex)
                        .with_error(&f.file, *r, format!("this is {k}"))
                        .into()),
                };
            }
            _ => {}
        }
        if let Value::Builtin(Builtin::Tuple) = obj.value {
            let mut items = Vec::with_capacity(idx.len());
            for (t, r) in &idx {
                match t.value {
                    Value::Type(ty) => items.push(ty),
                    Value::None => items.push(TypeId::NONE),
                    _ => {
                        return Err(SpyError::new(
                            ExcKind::TypeError,
                            format!("expected `type`, got `{}`", self.vm.types.name(t.ty)),
                        )
                        .with_error(&f.file, *r, "expected `type`")
                        .into())
                    }
                }
            }
            let ty = self.vm.types.tuple(items);
            return Ok(Typed::blue(TypeId::TYPE, Value::Type(ty)));
        }
        if let Some(m) = self.vm.struct_method(obj.ty, "__getitem__") {
            let mut full = vec![(obj, obj_expr.range)];
            full.extend(idx);
            return self.call_dunder(f, &m, full, whole);
        }
        let name = self.vm.types.name(obj.ty).to_string();
        let mut e = SpyError::new(ExcKind::TypeError, format!("cannot do `{name}`[...]")).with_error(
            &f.file,
            obj_expr.range,
            format!("this is `{name}`"),
        );
        for (i, r) in &idx {
            e = e.with_error(&f.file, *r, format!("this is `{}`", self.vm.types.name(i.ty)));
        }
        Err(e.into())
    }

    /// `obj[idx]` on values, as the subscript's signature says.
    fn exec_subscript(
        &mut self,
        f: &mut Frame,
        obj: Typed,
        sig: &SubscriptSig,
        idx: Args,
        whole: TextRange,
    ) -> Eval<Typed> {
        let item = |value: Value| Typed {
            color: obj.color,
            ty: sig.result,
            value,
        };
        match (sig.imp, &obj.value) {
            (SubscriptImpl::TupleItem(k), Value::Tuple(t)) => {
                let v = t
                    .items
                    .get(k)
                    .ok_or_else(|| crate::bug!("tuple item {k} missing"))?;
                Ok(item(v.clone()))
            }
            (SubscriptImpl::SimdLane(k), Value::Simd(v)) => {
                let lane = v
                    .lanes
                    .get(k)
                    .ok_or_else(|| crate::bug!("SIMD lane {k} missing"))?;
                Ok(item(Value::Scalar(*lane)))
            }
            (SubscriptImpl::StrChar, Value::Str(s)) => {
                let (i, r) = idx
                    .into_iter()
                    .next()
                    .ok_or_else(|| crate::bug!("str index missing"))?;
                let i = self.convert_to(f, i, TypeId::I32, r, None)?;
                let k = i.value.checked_i32()?;
                match ops::str::index(s, k as i64) {
                    Ok(c) => Ok(Typed {
                        color: obj.color.join(i.color),
                        ty: TypeId::STR,
                        value: Value::str(&c),
                    }),
                    Err(e) => Err(SpyError::from(e).with_error(&f.file, whole, "").into()),
                }
            }
            (SubscriptImpl::BytesByte, Value::Bytes(b)) => {
                let (i, r) = idx
                    .into_iter()
                    .next()
                    .ok_or_else(|| crate::bug!("bytes index missing"))?;
                let i = self.convert_to(f, i, TypeId::I32, r, None)?;
                let k = i.value.checked_i32()? as i64;
                match ops::bytes::index(b, k) {
                    Ok(byte) => Ok(Typed {
                        color: obj.color.join(i.color),
                        ty: TypeId::U8,
                        value: Value::Scalar(crate::vm::ops::Scalar::U8(byte)),
                    }),
                    Err(e) => Err(SpyError::from(e).with_error(&f.file, whole, "").into()),
                }
            }
            (SubscriptImpl::ListItem, Value::List(l)) => {
                let l = l.clone();
                self.list_getitem(f, &obj, &l, &idx)
            }
            (SubscriptImpl::PtrItem, Value::Ptr(p)) => {
                let p = p.clone();
                self.ptr_getitem(f, &p, &idx, whole)
            }
            (SubscriptImpl::DictItem, Value::Dict(d)) => {
                let d = d.clone();
                self.dict_getitem(f, &obj, &d, &idx)
            }
            (imp, v) => Err(crate::bug!("subscript {imp:?} of {v:?}")),
        }
    }

    fn eval_slice(
        &mut self,
        f: &mut Frame,
        obj: Typed,
        obj_expr: &ExprRef<'_>,
        parts: [Option<ExprRef<'_>>; 3],
    ) -> Eval<Typed> {
        let mut bounds: [Option<i64>; 3] = [None; 3];
        let mut typed: [Option<Typed>; 3] = [None, None, None];
        let mut color = obj.color;
        for ((slot, t), part) in bounds.iter_mut().zip(typed.iter_mut()).zip(parts) {
            if let Some(p) = &part {
                let v = self.eval_expr(f, p)?;
                if matches!(v.value, Value::None) {
                    continue;
                }
                let v = self.convert_to(f, v, TypeId::I32, p.range, None)?;
                color = color.join(v.color);
                *slot = v.value.as_i32().map(i64::from);
                *t = Some(v);
            }
        }
        let is_list = self.vm.types.list_item(obj.ty).is_some();
        let is_text = obj.ty == TypeId::STR || obj.ty == TypeId::BYTES;
        if (is_text || is_list) && (is_runtime(&obj) || typed.iter().flatten().any(is_runtime)) {
            return self.shift_slice(f, &obj, &typed, obj_expr.range);
        }
        if let (true, Value::List(l)) = (is_list, &obj.value) {
            // `l[start:stop:step]`: a new list (upstream `_list.spy`
            // `_getitem_slice`, Python's slice rules)
            let out = ops::seq::slice(&l.items.borrow(), bounds[0], bounds[1], bounds[2]).map_err(
                |e| -> crate::error::Failure {
                    SpyError::from(e).with_error(&f.file, obj_expr.range, "").into()
                },
            )?;
            return Ok(Typed::red(obj.ty, self.new_list(obj.ty, out)));
        }
        if obj.ty == TypeId::BYTES {
            // `b[start:stop:step]`: Python's slice rules over the bytes
            let out = ops::seq::slice(obj.value.checked_bytes()?, bounds[0], bounds[1], bounds[2]).map_err(
                |e| -> crate::error::Failure {
                    SpyError::from(e).with_error(&f.file, obj_expr.range, "").into()
                },
            )?;
            return Ok(Typed {
                color,
                ty: TypeId::BYTES,
                value: Value::bytes(&out),
            });
        }
        if obj.ty != TypeId::STR {
            let name = self.vm.types.name(obj.ty).to_string();
            return Err(
                SpyError::new(ExcKind::TypeError, format!("cannot do `{name}`[...]"))
                    .with_error(&f.file, obj_expr.range, format!("this is `{name}`"))
                    .into(),
            );
        }
        let s = obj.value.checked_str()?;
        match ops::str::slice(s, bounds[0], bounds[1], bounds[2]) {
            Ok(out) => Ok(Typed {
                color,
                ty: TypeId::STR,
                value: Value::str(&out),
            }),
            Err(e) => Err(SpyError::from(e).with_error(&f.file, obj_expr.range, "").into()),
        }
    }

    pub(crate) fn set_item(
        &mut self,
        f: &mut Frame,
        obj: Typed,
        obj_expr: &ExprRef<'_>,
        idx: Args,
        v: Typed,
        whole: TextRange,
    ) -> Eval<()> {
        let site = Site::at(obj_expr.range, whole);
        if let Some(sig) = self.subscript_sig(f, sig::store_signature, &obj, &idx, site) {
            let sig = sig?;
            if f.is_shifting() {
                return self.shift_set_item(f, &obj, &sig, &idx, v, whole);
            }
            return match &obj.value {
                Value::Ptr(p) => {
                    let p = p.clone();
                    self.ptr_setitem(f, &p, &idx, v, whole)
                }
                Value::List(l) => {
                    let l = l.clone();
                    self.list_setitem(f, &obj, &l, &idx, v, whole)
                }
                Value::Dict(d) => {
                    let d = d.clone();
                    self.dict_setitem(f, &obj, &d, &idx, v, whole)
                }
                other => Err(crate::bug!("store {:?} into {other:?}", sig.imp)),
            };
        }
        if let Some(m) = self.vm.struct_method(obj.ty, "__setitem__") {
            let mut full = vec![(obj, obj_expr.range)];
            full.extend(idx);
            full.push((v, whole));
            let r = self.call_dunder(f, &m, full, whole)?;
            if f.is_shifting() {
                self.emit_effect(f, &r, whole)?;
            }
            return Ok(());
        }
        let name = self.vm.types.name(obj.ty).to_string();
        let index = idx
            .first()
            .map(|(i, _)| self.vm.types.name(i.ty).to_string())
            .unwrap_or_default();
        // (sic) upstream's message has unbalanced backticks (itemop.py:48).
        Err(
            SpyError::new(ExcKind::TypeError, format!("cannot do `{name}[`{index}`] = ..."))
                .with_error(&f.file, obj_expr.range, format!("this is `{name}`"))
                .into(),
        )
    }

    /// `t[i]` on an interp tuple with a red index: upstream's
    /// `interp_tuple.__getitem__(i32) -> dynamic` (`spy/vm/modules/__spy__/
    /// interp_tuple.py`), so a `for i in range(len(items))` variable (red,
    /// as every `for` target is) indexes a blue `*args` tuple in a `@blue`
    /// body. Decision (spec §12.3): the item is red and `dynamic`; an index
    /// outside `0..len` is `IndexError: tuple index out of range` (upstream
    /// does not check: Python's list indexing leaks through).
    fn interp_tuple_red_item(
        &mut self,
        f: &mut Frame,
        obj: &Typed,
        t: &crate::vm::value::TupleValue,
        i: Typed,
        r: TextRange,
        whole: TextRange,
    ) -> Eval<Typed> {
        let i = self.convert_to(f, i, TypeId::I32, r, None)?;
        if f.is_shifting() && is_runtime(&i) {
            return self.shift_subscript(f, obj, &vec![(i, r)], TypeId::DYNAMIC, whole);
        }
        let k = i
            .value
            .as_i32()
            .ok_or_else(|| crate::bug!("a converted i32 index is not an i32"))?;
        match usize::try_from(k).ok().and_then(|k| t.items.get(k)) {
            Some(item) => Ok(Typed::red(TypeId::DYNAMIC, item.clone())),
            None => Err(SpyError::from(crate::vm::rt_error::RuntimeError::TupleIndex)
                .with_error(&f.file, r, format!("this is {k}"))
                .into()),
        }
    }
}
