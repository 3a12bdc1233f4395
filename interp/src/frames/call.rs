//! Calls: evaluating call expressions, choosing what is called (user
//! function, metafunc, builtin, type, struct with `__call__`), checking
//! arity and colors, binding arguments to parameters (defaults, `*args`,
//! parameter packs), and running a function activation.

use std::rc::Rc;

use crate::error::{ExcKind, Failure, SpyError};
use crate::frames::{add_trace, Eval, Flow, Frame, Interp};
use crate::resolve::NameRef;
use crate::source::TextRange;
use crate::syntax::ast::{self, ExprKind, FuncColor, FuncKind};
use crate::syntax::ast::{ExprRef, Exprs};
use crate::vm::types::TypeId;
use crate::vm::value::{Color, Function, Local, StarKind, TupleValue, Typed, Value};

/// Arguments as evaluated: each with the range of its expression.
pub(crate) type Args = Vec<(Typed, TextRange)>;

fn plural(n: usize, what: &str) -> String {
    if n == 1 {
        format!("1 {what}")
    } else {
        format!("{n} {what}s")
    }
}

impl Interp<'_> {
    pub(crate) fn eval_call(
        &mut self,
        f: &mut Frame,
        e: &ExprRef<'_>,
        func: &ExprRef<'_>,
        args: &Exprs<'_>,
    ) -> Eval<Typed> {
        if let Some(lit) = self.prefixed_literal(f, e) {
            return Ok(lit);
        }
        // (read as a view only when it is an attribute: every call asks)
        let kind = match func.node().node {
            ast::ExprNode::Attribute { .. } => Some(func.kind()),
            _ => None,
        };
        let method_call = match &kind {
            Some(ExprKind::Attribute { value, attr }) => {
                let obj = self.eval_expr(f, value)?;
                if self.is_method_receiver(&obj) {
                    Some((obj, value, attr))
                } else {
                    let class_method = match obj.value {
                        Value::Type(t) if self.vm.is_class_method(t, &attr.name) => Some(obj.clone()),
                        _ => None,
                    };
                    let callee = self.get_attr(f, obj, value, attr)?;
                    let mut argv = self.eval_items(f, args)?;
                    // `T.m(args)` of a `@classmethod` is `m(T, args)`
                    if let Some(t) = class_method {
                        argv.insert(0, (t, value.range));
                    }
                    return self.call_at(f, e.range, |this, f| {
                        this.call_value(f, callee, func.range, argv, e.range)
                    });
                }
            }
            _ => None,
        };
        if let Some((obj, value, attr)) = method_call {
            let argv = self.eval_items(f, args)?;
            return self.call_at(f, e.range, |this, f| {
                this.call_method(f, obj, value, attr, argv, e.range)
            });
        }
        let callee = self.eval_expr(f, func)?;
        if let Value::Builtin(b) = callee.value {
            if let Some(result) = self.eval_attr_builtin(f, b, func, args) {
                return result;
            }
        }
        let argv = self.eval_items(f, args)?;
        self.call_at(f, e.range, |this, f| {
            this.call_value(f, callee, func.range, argv, e.range)
        })
    }

    /// Run `call` with the frame's current location set to the call (for
    /// tracebacks); the location stays on the call if it fails.
    pub(crate) fn call_at(
        &mut self,
        f: &mut Frame,
        range: TextRange,
        call: impl FnOnce(&mut Self, &mut Frame) -> Eval<Typed>,
    ) -> Eval<Typed> {
        let saved = std::mem::replace(&mut f.current, range);
        let result = call(self, f);
        if result.is_ok() {
            f.current = saved;
        }
        result
    }

    /// `o.m(...)` is a method call unless `o` is a namespace-like value
    /// (module, type) whose attribute is called.
    fn is_method_receiver(&self, obj: &Typed) -> bool {
        !matches!(
            obj.value,
            Value::Module(_)
                | Value::Type(_)
                | Value::Builtin(crate::vm::builtins::Builtin::Module(_))
                | Value::Builtin(crate::vm::builtins::Builtin::OpSpec)
        )
    }

    /// `i8(3)`, `u64(18446744073709551615)`, `f64(1)`, `f32(0.5)`: typed
    /// literals, as upstream's parser makes them (range checked statically).
    fn prefixed_literal(&self, f: &Frame, e: &ExprRef<'_>) -> Option<Typed> {
        // (read as stored first: every call asks; a literal is one
        // argument, a number or a negated one, and a builtin callee)
        let ast::ExprNode::Call(items) = e.node().node else {
            return None;
        };
        let (func, args) = e.module.first_and_rest(items);
        let literal =
            |e: ExprRef<'_>| matches!(e.node().node, ast::ExprNode::Int(_) | ast::ExprNode::Float(_));
        match e.module.expr_items(args) {
            [arg] => match e.at(*arg).node().node {
                ast::ExprNode::UnaryOp {
                    op: ast::UnaryOp::Neg,
                    operand,
                } if literal(e.at(operand)) => {}
                _ if literal(e.at(*arg)) => {}
                _ => return None,
            },
            _ => return None,
        }
        let callee = e.at(func).name_id()?;
        if !matches!(f.res.name(callee), NameRef::Builtin(_)) {
            return None;
        }
        let ExprKind::Call { func, args } = &e.kind() else {
            return None;
        };
        let ExprKind::Name(id) = &func.kind() else {
            return None;
        };
        let NameRef::Builtin(b) = f.res.name(id.id) else {
            return None;
        };
        let Value::Type(ty) = crate::vm::builtins::value(b).value else {
            return None;
        };
        if let Some((_, v, _)) = crate::resolve::prefixed_int_literal(e) {
            let s = crate::vm::ops::Scalar::wrap_int(v, ty.as_prim()?)?;
            return Some(Typed::blue(ty, Value::Scalar(s)));
        }
        let [arg] = args.as_array()?;
        let (neg, lit) = match arg.kind() {
            ExprKind::UnaryOp {
                op: ast::UnaryOp::Neg,
                operand,
            } => (true, operand.kind()),
            other => (false, other),
        };
        let x = match lit {
            ExprKind::Int(v) => v as f64,
            ExprKind::Float(x) => x,
            _ => return None,
        };
        let x = if neg { -x } else { x };
        let s = match ty {
            TypeId::F64 => crate::vm::ops::Scalar::F64(x),
            TypeId::F32 => crate::vm::ops::Scalar::F32(x as f32),
            _ => return None,
        };
        Some(Typed::blue(ty, Value::Scalar(s)))
    }

    pub(crate) fn call_value(
        &mut self,
        f: &mut Frame,
        callee: Typed,
        callee_range: TextRange,
        args: Args,
        call_range: TextRange,
    ) -> Eval<Typed> {
        if callee.ty == TypeId::TYPE && !callee.is_blue() {
            // upstream `W_Type.w_CALL`: a type known only at run time
            return Err(SpyError::new(
                ExcKind::TypeError,
                "instantiation of red types is not yet supported",
            )
            .with_error(&f.file, callee_range, "this is red")
            .into());
        }
        if callee.ty == TypeId::DYNAMIC
            && (crate::frames::doppler::is_runtime(&callee) || self.dynamic_type(&callee.value).is_some())
        {
            return self.dynamic_call(f, callee, callee_range, args, call_range);
        }
        match &callee.value {
            Value::Func(func) => {
                let func = func.clone();
                match func.kind {
                    FuncKind::Generic => {
                        let ty = self.vm.types.name(callee.ty).to_string();
                        Err(
                            SpyError::new(ExcKind::TypeError, "generic functions must be called via `[...]`")
                                .with_error(&f.file, callee_range, format!("this is `{ty}`"))
                                .with_note(
                                    &func.code.file,
                                    func.code.def().name.range,
                                    format!("`{}` defined here", func.code.def().name.name),
                                )
                                .into(),
                        )
                    }
                    FuncKind::Metafunc => self.call_metafunc(f, &func, callee_range, args, call_range),
                    FuncKind::Plain if func.color == FuncColor::Blue => {
                        self.check_blue_args(f, &func, callee_range, &args)?;
                        self.call_blue(f, &func, args, call_range)
                    }
                    FuncKind::Plain => self.call_function(f, &func, args, call_range),
                }
            }
            Value::Builtin(b) => self.call_builtin(f, *b, callee_range, args, call_range),
            Value::Type(t) => self.call_type(f, *t, callee_range, args, call_range),
            Value::Struct(_) | Value::Residual(_)
                if self.vm.struct_method(callee.ty, "__call__").is_some() =>
            {
                let method = self.vm.struct_method(callee.ty, "__call__").expect("checked");
                let mut full = vec![(callee, callee_range)];
                full.extend(args);
                self.call_dunder(f, &method, full, call_range)
            }
            _ => {
                let ty = self.vm.types.name(callee.ty).to_string();
                Err(
                    SpyError::new(ExcKind::TypeError, format!("cannot call objects of type `{ty}`"))
                        .with_error(&f.file, callee_range, format!("this is `{ty}`"))
                        .into(),
                )
            }
        }
    }

    /// Blue functions accept only blue arguments.
    pub(crate) fn check_blue_args(
        &self,
        f: &Frame,
        func: &Function,
        callee_range: TextRange,
        args: &Args,
    ) -> Eval<()> {
        match args.iter().find(|(a, _)| !a.is_blue()) {
            None => Ok(()),
            Some((_, range)) => Err(SpyError::new(
                ExcKind::TypeError,
                "cannot call blue function with red arguments",
            )
            .with_error(&f.file, callee_range, "this is blue")
            .with_error(&f.file, *range, "this is red")
            .with_note(&func.code.file, func.code.proto_range(), "function defined here")
            .into()),
        }
    }

    /// Check the number of arguments against `min..=max` parameters
    /// (`max == usize::MAX` for variadic functions).
    pub(crate) fn check_arity(
        &self,
        f: &Frame,
        min: usize,
        max: usize,
        args: &Args,
        callee_range: TextRange,
        def: Option<(&Rc<crate::source::SourceFile>, TextRange)>,
    ) -> Eval<()> {
        let n = args.len();
        if (min..=max).contains(&n) {
            return Ok(());
        }
        let takes = if min == max {
            plural(max, "argument")
        } else if max == usize::MAX {
            format!("at least {}", plural(min, "argument"))
        } else {
            format!("from {min} to {max} arguments")
        };
        let supplied = if n == 1 {
            "1 argument was supplied".to_string()
        } else {
            format!("{n} arguments were supplied")
        };
        let mut err = SpyError::new(
            ExcKind::TypeError,
            format!("this function takes {takes} but {supplied}"),
        );
        if n < min {
            err = err.with_error(
                &f.file,
                callee_range,
                format!("{} missing", plural(min - n, "argument")),
            );
        } else {
            let range = args[max].1.cover(args[n - 1].1);
            let extra = n - max;
            err = err.with_error(
                &f.file,
                range,
                format!(
                    "{extra} extra {}",
                    if extra == 1 { "argument" } else { "arguments" }
                ),
            );
        }
        if let Some((file, range)) = def {
            err = err.with_note(file, range, "function defined here");
        }
        Err(err.into())
    }

    /// Call a user function: arity, argument conversion and packing, then
    /// the activation.
    pub(crate) fn call_function(
        &mut self,
        f: &Frame,
        func: &Rc<Function>,
        args: Args,
        call_range: TextRange,
    ) -> Eval<Typed> {
        if f.is_shifting() && func.color == FuncColor::Red {
            // Red functions do not run while shifting: a residual call, or
            // the inlined body of a `@force_inline` function.
            let mut args = args;
            let given = args.len();
            let param = |k: usize| param_type_of_argument(func, given, k);
            let bindings = self.bind_before_hooks(f, &mut args, param)?;
            let bound = self.bind_args(f, func, args, call_range)?;
            let call = if func.force_inline {
                self.shift_inline_call(f, func, bound, call_range)
            } else {
                self.shift_function_call(f, func, bound, call_range)
            };
            return self.after_bindings_if_any(f, bindings, call, call_range);
        }
        let bound = self.bind_args(f, func, args, call_range)?;
        self.invoke(func, bound, None)
    }

    /// Match arguments to parameters. Returns one value per parameter of the
    /// `def` (the `*args` parameter gets its tuple).
    pub(crate) fn bind_args(
        &mut self,
        f: &Frame,
        func: &Rc<Function>,
        mut args: Args,
        call_range: TextRange,
    ) -> Eval<Vec<Typed>> {
        // The common case: one argument per parameter, each already of the
        // parameter's type (what the general path below does, minus the
        // identity conversions).
        if func.star().is_none()
            && !self.general_paths_only
            && args.len() == func.params.len()
            && args.iter().zip(&func.params).all(|((a, _), p)| a.ty == p.ty)
        {
            let mut bound = self.pools.bound_vec(args.len());
            bound.extend(args.drain(..).map(|(a, _)| a));
            self.pools.recycle_args(args);
            return Ok(bound);
        }
        let def_loc = Some((&func.code.file, func.code.proto_range()));
        let convert = |this: &mut Self, v: Typed, ty: TypeId, range: TextRange| {
            this.convert_to(f, v, ty, range, None).map_err(|e| {
                add_note(
                    e,
                    &func.code.file,
                    func.code.proto_range(),
                    "function defined here",
                )
            })
        };
        let Some(star) = func.star().cloned() else {
            let required = func.params.iter().filter(|p| p.default.is_none()).count();
            self.check_arity(f, required, func.params.len(), &args, call_range, def_loc)?;
            let mut bound = self.pools.bound_vec(func.params.len());
            let mut given = args.drain(..);
            for p in &func.params {
                let (arg, range) = match given.next() {
                    Some(a) => a,
                    None => match &p.default {
                        Some(d) => ((**d).clone(), call_range),
                        None => return Err(crate::bug!("missing argument after arity check")),
                    },
                };
                bound.push(convert(self, arg, p.ty, range)?);
            }
            drop(given);
            self.pools.recycle_args(args);
            return Ok(bound);
        };
        let before = star.index;
        let after = func.params.len() - before - 1;
        let (min, max) = match &star.kind {
            StarKind::Variadic(_) => (before + after, usize::MAX),
            StarKind::Pack(_, types) => (before + types.len() + after, before + types.len() + after),
        };
        self.check_arity(f, min, max, &args, call_range, def_loc)?;
        let tail = args.split_off(args.len() - after);
        let middle = args.split_off(before);
        let mut bound = Vec::with_capacity(func.params.len());
        for ((a, r), p) in args.into_iter().zip(&func.params[..before]) {
            bound.push(convert(self, a, p.ty, r)?);
        }
        bound.push(match &star.kind {
            StarKind::Variadic(item) => {
                let mut color = Color::Blue;
                let mut items = Vec::with_capacity(middle.len());
                for (a, r) in middle {
                    let v = convert(self, a, *item, r)?;
                    color = color.join(v.color);
                    items.push(v.value);
                }
                Typed {
                    color,
                    ty: TypeId::INTERP_TUPLE,
                    value: Value::Tuple(Rc::new(TupleValue {
                        ty: TypeId::INTERP_TUPLE,
                        items: items.into(),
                    })),
                }
            }
            StarKind::Pack(tuple_ty, types) => {
                let mut items = Vec::with_capacity(types.len());
                for ((a, r), t) in middle.into_iter().zip(types) {
                    items.push(convert(self, a, *t, r)?.value);
                }
                Typed::red(
                    *tuple_ty,
                    Value::Tuple(Rc::new(TupleValue {
                        ty: *tuple_ty,
                        items: items.into(),
                    })),
                )
            }
        });
        for ((a, r), p) in tail.into_iter().zip(&func.params[before + 1..]) {
            bound.push(convert(self, a, p.ty, r)?);
        }
        Ok(bound)
    }

    /// The activation of `func` (running it, or shifting it when
    /// `shifting`): a fresh environment holding its presets, and the slot of
    /// each parameter, zipped with `args`, holding
    /// `local(self, param, slot, arg)`.
    pub(crate) fn activation<A>(
        &mut self,
        func: &Rc<Function>,
        name: Rc<str>,
        ns: Rc<str>,
        shift: Option<crate::frames::doppler::Shift>,
        args: impl IntoIterator<Item = A>,
        mut local: impl FnMut(&mut Self, &ast::Param<'_>, u32, A) -> Eval<Local>,
    ) -> Eval<Frame> {
        let code = &func.code;
        let locals = self.pools.fresh_env(code.scope().slot_count());
        for (slot, preset) in func.presets() {
            locals.borrow_mut()[*slot as usize] = Some(preset.clone());
        }
        for (p, arg) in code.params().iter().zip(args) {
            let NameRef::Local(slot) = code.res.name(p.name.id) else {
                return Err(crate::bug!("parameter `{}` is not a local", p.name.name));
            };
            let value = local(self, &p, slot, arg)?;
            locals.borrow_mut()[slot as usize] = Some(value);
        }
        Ok(Frame::function(func, locals, name, ns, shift))
    }

    /// Run one activation of `func` with arguments already bound to its
    /// parameters. `ns` overrides the namespace of definitions made inside.
    pub(crate) fn invoke(
        &mut self,
        func: &Rc<Function>,
        args: Vec<Typed>,
        ns: Option<String>,
    ) -> Eval<Typed> {
        self.enter_call()?;
        let result = self.invoke_inner(func, args, ns);
        self.leave_call();
        result
    }

    fn invoke_inner(&mut self, func: &Rc<Function>, mut args: Vec<Typed>, ns: Option<String>) -> Eval<Typed> {
        self.tick()?;
        let code = &func.code;
        let blue = func.color == FuncColor::Blue;
        let ns = ns.map(Rc::from).unwrap_or_else(|| func.fqn.clone());
        let mut frame = self.activation(
            func,
            func.fqn.clone(),
            ns,
            None,
            args.drain(..),
            |interp, _, _, arg| {
                let (color, ty) = if blue {
                    (arg.color, interp.blue_static_type(&arg))
                } else {
                    (Color::Red, arg.ty)
                };
                Ok(Local {
                    ty,
                    color,
                    value: Some(arg.value),
                })
            },
        )?;
        self.pools.recycle_bound(args);
        let color = if blue { Color::Blue } else { Color::Red };
        let body = self
            .forward_declare_structs(&mut frame, &code.body())
            .and_then(|_| self.exec_block(&mut frame, &code.body()));
        let result = match body {
            Ok(Flow::Return(v)) => Ok(v),
            // Falling off the end of a function whose return type is
            // inferred is `return None`.
            Ok(_) if func.inferred_ret().is_some() && self.infer_return_none(func) => Ok(Typed::none()),
            Ok(_)
                if func.inferred_ret().is_none()
                    && (func.ret() == TypeId::NONE || func.ret() == TypeId::DYNAMIC) =>
            {
                Ok(Typed::none())
            }
            Ok(_) => {
                let end = code
                    .def()
                    .body
                    .last()
                    .map(|s| s.range)
                    .unwrap_or(code.proto_range());
                let err = SpyError::new(
                    ExcKind::TypeError,
                    "reached the end of the function without a `return`",
                )
                .with_error(&code.file, end, "no return");
                // found at run time in every engine (the residual body
                // raises it), so it carries no specialization note
                Err(add_trace(err.into(), &frame))
            }
            Err(e) => Err(add_trace(self.noted_specialization(e, &frame), &frame)),
        };
        self.pools.recycle_env(frame.locals);
        let result = result?;
        // A blue function's result is blue, typed by its value when its
        // declared type is `dynamic` (there is no "dynamic blue").
        let ty = if blue && result.ty == TypeId::DYNAMIC {
            // a blue result is never a residual value (the only value
            // without a dynamic type)
            self.dynamic_type(&result.value)
                .ok_or_else(|| crate::bug!("blue function `{}` returned a residual value", func.fqn))?
        } else if blue {
            self.blue_static_type(&result)
        } else {
            result.ty
        };
        Ok(Typed {
            color,
            ty,
            value: result.value,
        })
    }

    /// Falling off the end of a function whose return type is inferred:
    /// it returns None (and its return type is NoneType).
    fn infer_return_none(&self, func: &Function) -> bool {
        let Some(cell) = func.inferred_ret() else {
            return false;
        };
        match cell.get() {
            None => {
                cell.set(Some(TypeId::NONE));
                true
            }
            Some(t) => t == TypeId::NONE,
        }
    }

    /// Inside blue code there is no "dynamic blue": a blue value typed
    /// `dynamic` is retyped to its dynamic type (upstream opspec.py:117).
    pub(crate) fn blue_static_type(&self, v: &Typed) -> TypeId {
        if v.ty == TypeId::DYNAMIC && v.is_blue() {
            self.dynamic_type(&v.value).unwrap_or(TypeId::DYNAMIC)
        } else {
            v.ty
        }
    }
}

pub(crate) fn is_name(e: &ExprRef<'_>, name: &str) -> bool {
    matches!(&e.kind(), ExprKind::Name(id) if id.name == name)
}

pub(crate) fn add_note(
    e: Failure,
    file: &Rc<crate::source::SourceFile>,
    range: TextRange,
    msg: &str,
) -> Failure {
    match e {
        Failure::Raise(mut err) => {
            err.annotations.push(crate::error::Annotation {
                level: crate::error::Level::Note,
                file: file.clone(),
                range,
                message: msg.to_string(),
            });
            Failure::Raise(err)
        }
        other => other,
    }
}

/// The type positional argument `k` of `given` is converted to in a call of
/// `func`, as `Interp::bind_args` matches them: a parameter's, or an item
/// type of its `*args` (`None` past the parameters: an arity error).
fn param_type_of_argument(func: &Function, given: usize, k: usize) -> Option<TypeId> {
    let Some(star) = func.star() else {
        return func.params.get(k).map(|p| p.ty);
    };
    let before = star.index;
    let after = func.params.len().saturating_sub(before + 1);
    if k < before {
        return func.params.get(k).map(|p| p.ty);
    }
    if given >= after && k >= given - after {
        return func.params.get(before + 1 + k - (given - after)).map(|p| p.ty);
    }
    match &star.kind {
        StarKind::Variadic(item) => Some(*item),
        StarKind::Pack(_, types) => types.get(k - before).copied(),
    }
}
