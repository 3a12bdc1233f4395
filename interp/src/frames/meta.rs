//! Blue-time metaprogramming: memoized blue calls, generics called with
//! `[...]`, metafuncs with MetaArgs and the OpSpec they return (resolved to
//! an operation on the call's arguments, and memoized), MetaArg and
//! interp-tuple attributes, and dunder methods that may be metafuncs.

use foldhash::HashMap;
use std::rc::Rc;

use crate::error::{ExcKind, Failure, SpyError};
use crate::frames::call::Args;
use crate::frames::{Eval, Frame, Interp};
use crate::source::{SourceFile, TextRange};
use crate::syntax::ast::{self, FuncKind};
use crate::vm::memo::{arg_key, value_key, ValueKey};
use crate::vm::ops::format;
use crate::vm::types::{TypeId, TypeKind};
use crate::vm::value::{Color, Function, MetaArgValue, OpSpecValue, TupleValue, Typed, Value};

/// The key of a memoized blue call: callee identity and argument keys.
pub(crate) type MemoKey = (usize, Vec<(Color, TypeId, Option<ValueKey>)>);

/// How one argument of a resolved operation is obtained.
#[derive(Clone, Debug)]
pub(crate) enum ArgSpec {
    /// The call's `i`-th argument.
    Arg(usize),
    /// A blue constant (from a blue MetaArg).
    Const(Typed),
}

/// What an OpSpec resolves to for one call site shape.
#[derive(Clone, Debug)]
pub(crate) enum ResolvedOp {
    Null,
    Const(Typed),
    Call { callee: Typed, args: Vec<ArgSpec> },
}

#[derive(Clone)]
pub(crate) enum MemoResult {
    Value(Typed),
    Op(ResolvedOp),
}

/// A memo entry keeps the callee and the arguments alive, so identity keys
/// (addresses) cannot be reused while the entry exists.
pub(crate) struct MemoEntry {
    _keep_alive: (Rc<Function>, Vec<Value>),
    result: MemoResult,
}

/// The memo table of blue calls and metafunc resolutions.
#[derive(Default)]
pub struct BlueCache {
    entries: HashMap<MemoKey, MemoEntry>,
}

impl BlueCache {
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }
}

impl Interp<'_> {
    fn memo_key(&self, func: &Rc<Function>, args: &[Typed]) -> MemoKey {
        let ptr = Rc::as_ptr(func) as *const () as usize;
        (
            ptr,
            args.iter()
                .map(|a| arg_key(a.color, self.blue_static_type(a), &a.value))
                .collect(),
        )
    }

    fn memo_store(&mut self, key: MemoKey, func: &Rc<Function>, args: &[Typed], result: MemoResult) {
        let keep = (func.clone(), args.iter().map(|a| a.value.clone()).collect());
        self.cache.entries.insert(
            key,
            MemoEntry {
                _keep_alive: keep,
                result,
            },
        );
    }

    /// A short rendering of a blue argument for namespaces: `f[i32, 4]`.
    pub(crate) fn ns_repr(&self, v: &Value) -> String {
        match v {
            Value::Type(t) => self.vm.types.name(*t).to_string(),
            Value::Func(func) => func.fqn.to_string(),
            Value::Scalar(s) => format::format_scalar(*s),
            Value::Str(s) => format::repr_str(s),
            Value::None => "None".to_string(),
            Value::Tuple(t) => format!(
                "({})",
                t.items
                    .iter()
                    .map(|i| self.ns_repr(i))
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
            Value::Meta(m) => format!("MetaArg[{}, {}]", m.color.name(), self.vm.types.name(m.ty)),
            Value::Builtin(b) => b.name().to_string(),
            other => format!("{:?}", value_key(other)),
        }
    }

    /// Call a blue function (plain `@blue` or a generic through `[...]`):
    /// memoized on the callee and each argument's color, type and value.
    pub(crate) fn call_blue(
        &mut self,
        f: &Frame,
        func: &Rc<Function>,
        args: Args,
        call_range: TextRange,
    ) -> Eval<Typed> {
        let values: Vec<Typed> = args.iter().map(|(a, _)| a.clone()).collect();
        let key = self.memo_key(func, &values);
        if let Some(entry) = self.cache.entries.get(&key) {
            if let MemoResult::Value(v) = &entry.result {
                return Ok(v.clone());
            }
        }
        let ns = format!(
            "{}[{}]",
            func.fqn,
            values
                .iter()
                .map(|a| self.ns_repr(&a.value))
                .collect::<Vec<_>>()
                .join(", ")
        );
        self.enter_blue_call(f, &func.fqn, call_range, &ns);
        let result = self.call_blue_uncached(f, func, args, values.clone(), ns.clone(), call_range);
        self.leave_blue_call();
        let result = result.map_err(|e| self.noted_blue_call(e, f, &func.fqn, call_range, &ns))?;
        self.memo_store(key, func, &values, MemoResult::Value(result.clone()));
        Ok(result)
    }

    /// `callee` called at `range` (for provenance): the call as written,
    /// where, and the blue arguments.
    /// A blue call (or metafunc) starts: blue code is running until the
    /// matching `leave_blue_call`. While redshifting, the call is also
    /// recorded, so the red functions it makes know where they come from.
    fn enter_blue_call(&mut self, f: &Frame, callee: &Rc<str>, range: TextRange, resolved: &str) {
        self.blue_depth += 1;
        let resolved: Rc<str> = resolved.into();
        if let Some(r) = &self.redshift {
            r.state()
                .blue_calls
                .push(crate::frames::doppler::record::BlueCall {
                    file: f.file.clone(),
                    range,
                    callee: callee.clone(),
                    resolved: resolved.clone(),
                });
        }
        self.blue_sites.push(BlueSite {
            file: f.file.clone(),
            callee: callee.clone(),
            range,
            resolved,
        });
    }

    fn leave_blue_call(&mut self) {
        self.blue_depth -= 1;
        self.blue_sites.pop();
        if let Some(r) = &self.redshift {
            r.state().blue_calls.pop();
        }
    }

    /// `err` came out of the blue call `callee` at `range`: it says so in
    /// a note (each enclosing blue call adds its own, innermost first).
    fn noted_blue_call(
        &self,
        err: Failure,
        f: &Frame,
        callee: &str,
        range: TextRange,
        resolved: &str,
    ) -> Failure {
        match err {
            Failure::Raise(mut e) => {
                e.notes.push(format!(
                    "in the blue call {}",
                    chain_site(&f.file, callee, range, resolved)
                ));
                Failure::Raise(e)
            }
            other => other,
        }
    }

    fn call_blue_uncached(
        &mut self,
        f: &Frame,
        func: &Rc<Function>,
        args: Args,
        values: Vec<Typed>,
        ns: String,
        call_range: TextRange,
    ) -> Eval<Typed> {
        Ok(if func.pep695 {
            let n = func.params.len();
            self.check_arity(
                f,
                n,
                n,
                &args,
                call_range,
                Some((&func.code.file, func.code.proto_range())),
            )?;
            self.specialize_pep695(func, values, ns)?
        } else {
            let bound = self.bind_args(f, func, args, call_range)?;
            self.invoke(func, bound, Some(ns))?
        })
    }

    /// `g[a, b]` on a generic function.
    pub(crate) fn call_generic(
        &mut self,
        f: &Frame,
        func: &Rc<Function>,
        obj_range: TextRange,
        idx: Args,
        whole: TextRange,
    ) -> Eval<Typed> {
        self.check_blue_args(f, func, obj_range, &idx)?;
        let result = self.call_blue(f, func, idx, whole)?;
        // upstream records the generic as the origin of a type it defines
        // directly in its own namespace (`gen[args]::T`), not of a type it
        // merely returns
        if let Value::Type(t) = result.value {
            let name = self.vm.types.name(t);
            let defined_inside = name
                .strip_prefix(func.fqn.as_ref())
                .is_some_and(|rest| rest.starts_with('[') && rest.contains("]::"));
            if defined_inside {
                self.type_origins.entry(t).or_insert(Value::Func(func.clone()));
            }
        }
        Ok(result)
    }

    /// Call a metafunc: it receives one MetaArg per argument and returns an
    /// OpSpec, resolved (and memoized) into an operation on the arguments.
    pub(crate) fn call_metafunc(
        &mut self,
        f: &mut Frame,
        func: &Rc<Function>,
        callee_range: TextRange,
        args: Args,
        call_range: TextRange,
    ) -> Eval<Typed> {
        let all: Vec<usize> = (0..args.len()).collect();
        let op = self.metafunc_op(f, func, &args, callee_range, call_range, &all)?;
        if f.is_shifting() {
            let target = match &op {
                ResolvedOp::Call {
                    callee:
                        Typed {
                            value: Value::Func(g),
                            ..
                        },
                    ..
                } => format!("`{}`", g.fqn),
                ResolvedOp::Call { .. } => "a builtin".to_string(),
                ResolvedOp::Const(_) => "a constant".to_string(),
                ResolvedOp::Null => "OpSpec.NULL".to_string(),
            };
            let site = || describe_call(&f.file, &func.fqn, call_range, "metafunc");
            self.note(f, || format!("{}: resolved to {target}", site()), call_range)?;
        }
        self.apply_op(f, op, func, args, callee_range, call_range)
    }

    /// Run (or find in the memo) metafunc `func` on MetaArgs describing
    /// `args`, and resolve the OpSpec it returns. A simple `OpSpec(g)` calls
    /// `g` with the arguments numbered `simple`.
    pub(crate) fn metafunc_op(
        &mut self,
        f: &Frame,
        func: &Rc<Function>,
        args: &Args,
        callee_range: TextRange,
        call_range: TextRange,
        simple: &[usize],
    ) -> Eval<ResolvedOp> {
        let metas: Vec<Rc<MetaArgValue>> = args
            .iter()
            .map(|(a, _)| {
                Rc::new(MetaArgValue {
                    color: a.color,
                    ty: a.ty,
                    value: a.value.clone(),
                })
            })
            .collect();
        let meta_values: Vec<Typed> = metas
            .iter()
            .map(|m| Typed::blue(TypeId::METAARG, Value::Meta(m.clone())))
            .collect();
        let key = self.memo_key(func, &meta_values);
        let cached = self.cache.entries.get(&key).and_then(|e| match &e.result {
            MemoResult::Op(op) => Some(op.clone()),
            MemoResult::Value(_) => None,
        });
        if let Some(op) = cached {
            return Ok(op);
        }
        self.enter_blue_call(f, &func.fqn, call_range, "metafunc");
        let result = self.run_metafunc(
            f,
            func,
            &meta_values,
            args,
            &metas,
            callee_range,
            call_range,
            simple,
        );
        self.leave_blue_call();
        let op = result.map_err(|e| self.noted_blue_call(e, f, &func.fqn, call_range, "metafunc"))?;
        self.memo_store(key, func, &meta_values, MemoResult::Op(op.clone()));
        Ok(op)
    }

    #[allow(clippy::too_many_arguments)]
    fn run_metafunc(
        &mut self,
        f: &Frame,
        func: &Rc<Function>,
        meta_values: &[Typed],
        args: &Args,
        metas: &[Rc<MetaArgValue>],
        callee_range: TextRange,
        call_range: TextRange,
        simple: &[usize],
    ) -> Eval<ResolvedOp> {
        let margs: Args = meta_values
            .iter()
            .cloned()
            .zip(args.iter().map(|(_, r)| *r))
            .collect();
        let bound = self.bind_args(f, func, margs, call_range)?;
        let result = self.invoke(func, bound, None)?;
        self.resolve_opspec(f, func, &result, metas, callee_range, simple)
    }

    fn resolve_opspec(
        &self,
        f: &Frame,
        func: &Rc<Function>,
        result: &Typed,
        metas: &[Rc<MetaArgValue>],
        callee_range: TextRange,
        simple: &[usize],
    ) -> Eval<ResolvedOp> {
        let Value::OpSpec(spec) = &result.value else {
            let got = self.vm.types.name(result.ty).to_string();
            return Err(SpyError::new(
                ExcKind::TypeError,
                format!("wrong metafunc return type: expected `operator::OpSpec`, got `{got}`"),
            )
            .with_error(&f.file, callee_range, "this is a metafunc")
            .with_note(&func.code.file, func.code.proto_range(), "metafunc defined here")
            .into());
        };
        Ok(match &**spec {
            OpSpecValue::Null => ResolvedOp::Null,
            OpSpecValue::Const(v) => ResolvedOp::Const(v.clone()),
            OpSpecValue::Simple(callee) => ResolvedOp::Call {
                callee: callee.clone(),
                args: simple.iter().copied().map(ArgSpec::Arg).collect(),
            },
            OpSpecValue::Complex(callee, margs) => {
                let mut specs = Vec::with_capacity(margs.len());
                for m in margs {
                    if let Some(i) = metas.iter().position(|x| Rc::ptr_eq(x, m)) {
                        specs.push(ArgSpec::Arg(i));
                    } else if m.color == Color::Blue {
                        specs.push(ArgSpec::Const(Typed::blue(m.ty, m.value.clone())));
                    } else {
                        return Err(SpyError::new(
                            ExcKind::TypeError,
                            "a red MetaArg in OpSpec must be one of the metafunc's arguments",
                        )
                        .with_error(&f.file, callee_range, "this is a metafunc")
                        .with_note(&func.code.file, func.code.proto_range(), "metafunc defined here")
                        .into());
                    }
                }
                ResolvedOp::Call {
                    callee: callee.clone(),
                    args: specs,
                }
            }
        })
    }

    pub(crate) fn apply_op(
        &mut self,
        f: &mut Frame,
        op: ResolvedOp,
        func: &Rc<Function>,
        args: Args,
        callee_range: TextRange,
        call_range: TextRange,
    ) -> Eval<Typed> {
        if f.is_shifting() && self.reorders_effects(f, &op, &args)? {
            return self.apply_op_in_order(f, op, func, args, callee_range, call_range);
        }
        match op {
            ResolvedOp::Null => {
                let ty = self.vm.types.name(func.ty).to_string();
                Err(
                    SpyError::new(ExcKind::TypeError, format!("cannot call objects of type `{ty}`"))
                        .with_error(&f.file, callee_range, format!("this is `{ty}`"))
                        .into(),
                )
            }
            ResolvedOp::Const(v) => {
                // `OpSpec.const` is pure: blue iff every input is blue.
                let color = args.iter().fold(Color::Blue, |c, (a, _)| c.join(a.color));
                Ok(Typed { color, ..v })
            }
            ResolvedOp::Call { callee, args: specs } => {
                let mut actual = Vec::with_capacity(specs.len());
                for spec in specs {
                    actual.push(match spec {
                        ArgSpec::Arg(i) => args[i].clone(),
                        ArgSpec::Const(v) => (v, call_range),
                    });
                }
                self.call_value(f, callee, callee_range, actual, call_range)
            }
        }
    }

    /// While shifting: whether applying `op` would evaluate the call's
    /// effectful arguments in another order or number than the call does
    /// (`OpSpec(f, [m_b, m_a])`, a duplicated or dropped argument,
    /// `OpSpec.const`).
    fn reorders_effects(&mut self, f: &Frame, op: &ResolvedOp, args: &Args) -> Eval<bool> {
        let identity = match op {
            ResolvedOp::Call { args: specs, .. } => {
                specs.len() == args.len()
                    && specs
                        .iter()
                        .enumerate()
                        .all(|(k, s)| matches!(s, ArgSpec::Arg(i) if *i == k))
            }
            ResolvedOp::Const(_) => false,
            ResolvedOp::Null => true,
        };
        if identity {
            return Ok(false);
        }
        self.any_effects(f, args.iter().map(|(a, r)| (a, *r)))
    }

    /// Apply `op` with every run-time argument first bound to a temporary,
    /// in the call's order: `(t1 := a, t2 := b, g(t2, t1))[2]` (all of them:
    /// reading a variable must not move across another argument's effects).
    fn apply_op_in_order(
        &mut self,
        f: &mut Frame,
        op: ResolvedOp,
        func: &Rc<Function>,
        mut args: Args,
        callee_range: TextRange,
        call_range: TextRange,
    ) -> Eval<Typed> {
        let bindings = self.bind_in_order(f, &mut args)?;
        let result = match op {
            ResolvedOp::Const(v) => {
                let color = args.iter().fold(Color::Blue, |c, (a, _)| c.join(a.color));
                Typed { color, ..v }
            }
            other => self.apply_op(f, other, func, args, callee_range, call_range)?,
        };
        self.after_bindings(f, bindings, &result, call_range)
    }

    /// Call a dunder method: a metafunc dunder goes through the metacall
    /// protocol, a plain one is called with the operands.
    pub(crate) fn call_dunder(
        &mut self,
        f: &mut Frame,
        method: &Rc<Function>,
        args: Args,
        range: TextRange,
    ) -> Eval<Typed> {
        if method.kind == FuncKind::Metafunc {
            return self.call_metafunc(f, method, range, args, range);
        }
        // the caller's traceback line points at the operation, as at a
        // call (residual code spells a dunder as the call it is)
        self.call_at(f, range, |this, f| this.call_function(f, method, args, range))
    }

    /// `OpSpec(f)`, `OpSpec(f, [m_a, ...])`, `OpSpec(f, [])`.
    pub(crate) fn make_opspec(&mut self, f: &Frame, args: Args, callee_range: TextRange) -> Eval<Typed> {
        self.check_arity(f, 1, 2, &args, callee_range, None)?;
        let mut it = args.into_iter();
        let (callee, _) = it.next().expect("arity checked");
        let spec = match it.next() {
            None => OpSpecValue::Simple(callee),
            Some((list, r)) => {
                let items = match &list.value {
                    Value::Tuple(t) if t.ty == TypeId::INTERP_TUPLE => t.items.to_vec(),
                    // `[m_a, m_b]`, and `[]` for an implementation that
                    // takes none of the operands (upstream accepts both)
                    Value::List(l) => l.items.borrow().clone(),
                    _ => {
                        return Err(SpyError::new(
                            ExcKind::TypeError,
                            "OpSpec arguments must be a list of MetaArgs",
                        )
                        .with_error(&f.file, r, format!("this is `{}`", self.vm.types.name(list.ty)))
                        .into())
                    }
                };
                let mut metas = Vec::with_capacity(items.len());
                for item in items {
                    match item {
                        Value::Meta(m) => metas.push(m),
                        _ => {
                            return Err(SpyError::new(
                                ExcKind::TypeError,
                                "OpSpec arguments must be a list of MetaArgs",
                            )
                            .with_error(&f.file, r, "expected MetaArgs")
                            .into())
                        }
                    }
                }
                OpSpecValue::Complex(callee, metas)
            }
        };
        Ok(Typed::blue(TypeId::OPSPEC, Value::OpSpec(Rc::new(spec))))
    }

    /// Attributes of blue-time values: `m.static_type`, `m.color`,
    /// `m.blueval`, `m_args.types`, `T.types`, `OpSpec.const`/`.NULL`.
    pub(crate) fn meta_attr(
        &mut self,
        f: &Frame,
        obj: &Typed,
        obj_range: TextRange,
        attr: &ast::Identifier,
    ) -> Option<Eval<Typed>> {
        let color = obj.color;
        match (&obj.value, attr.name.as_str()) {
            (Value::Meta(m), "static_type") => Some(Ok(Typed {
                color,
                ty: TypeId::TYPE,
                value: Value::Type(m.ty),
            })),
            (Value::Meta(m), "color") => Some(Ok(Typed {
                color,
                ty: TypeId::STR,
                value: Value::str(m.color.name()),
            })),
            (Value::Meta(m), "blueval") => Some(if m.color == Color::Blue {
                let ty = self.dynamic_type(&m.value).unwrap_or(m.ty);
                Ok(Typed {
                    color,
                    ty,
                    value: m.value.clone(),
                })
            } else {
                Err(SpyError::new(ExcKind::ValueError, "oparg is not blue")
                    .with_error(&f.file, obj_range, "this MetaArg is red")
                    .into())
            }),
            (Value::Tuple(t), "types") if t.ty == TypeId::INTERP_TUPLE => {
                let mut types = Vec::with_capacity(t.items.len());
                for item in t.items.iter() {
                    match item {
                        Value::Meta(m) => types.push(Value::Type(m.ty)),
                        _ => return None,
                    }
                }
                Some(Ok(Typed {
                    color,
                    ty: TypeId::INTERP_TUPLE,
                    value: interp_tuple(types),
                }))
            }
            (Value::Type(t), "types") => {
                let items = self
                    .vm
                    .types
                    .tuple_items(*t)?
                    .iter()
                    .map(|t| Value::Type(*t))
                    .collect();
                Some(Ok(Typed::blue(TypeId::INTERP_TUPLE, interp_tuple(items))))
            }
            (Value::Type(t), "itemtype") => match self.vm.types.kind(*t) {
                TypeKind::Ptr { item, .. } | TypeKind::Ref { item, .. } => {
                    Some(Ok(Typed::blue(TypeId::TYPE, Value::Type(*item))))
                }
                _ => None,
            },
            (Value::Type(t), "__name__") => {
                let name = self.vm.types.name(*t);
                let short = name.rsplit("::").next().unwrap_or(name).to_string();
                Some(Ok(Typed::blue(TypeId::STR, Value::str(&short))))
            }
            (Value::Type(t), "__fqn__" | "__qualname__") => {
                Some(Ok(Typed::blue(TypeId::STR, Value::str(self.vm.types.name(*t)))))
            }
            (Value::Type(t), "__full_fqn__") => {
                Some(Ok(Typed::blue(TypeId::STR, Value::str(&self.full_fqn(*t)))))
            }
            (Value::Type(t), "__origin__") => Some(Ok(match self.type_origins.get(t) {
                Some(origin) => Typed::blue(TypeId::DYNAMIC, origin.clone()),
                None => Typed::blue(TypeId::DYNAMIC, Value::None),
            })),
            (Value::Builtin(crate::vm::builtins::Builtin::OpSpec), "const") => Some(Ok(Typed::blue(
                TypeId::BUILTIN_FUNC,
                Value::Builtin(crate::vm::builtins::Builtin::OpSpecConst),
            ))),
            (Value::Builtin(crate::vm::builtins::Builtin::OpSpec), "NULL") => Some(Ok(Typed::blue(
                TypeId::OPSPEC,
                Value::OpSpec(Rc::new(OpSpecValue::Null)),
            ))),
            _ => None,
        }
    }
}

impl Interp<'_> {
    /// `T.__full_fqn__`, upstream's `str(fqn)`: builtin types are in
    /// `builtins`, and the specialization `C[args]` of a generic struct is
    /// the class `Self` inside the generic `C[args]` (how upstream desugars
    /// `class C[T]`). Types upstream implements in its stdlib (`list[T]` is
    /// `_list::list[T]::_ListImpl` there) keep their own name here (spec
    /// `differences-from-upstream.md`).
    fn full_fqn(&self, t: TypeId) -> String {
        let name = self.vm.types.name(t);
        match self.type_origins.get(&t) {
            Some(Value::GenericStruct(_)) => format!("{name}::Self"),
            _ if t.0 < TypeId::FIRST_DYNAMIC_ID && !name.contains("::") => format!("builtins::{name}"),
            _ => name.to_string(),
        }
    }
}

/// An interp tuple of `items`.
pub(crate) fn interp_tuple(items: Vec<Value>) -> Value {
    Value::Tuple(Rc::new(TupleValue {
        ty: TypeId::INTERP_TUPLE,
        items: items.into(),
    }))
}

/// A blue call being evaluated, kept as where it is: its note text
/// ([`chain_site`]) is built only when an error or a made function's
/// provenance shows it, not at every blue call.
#[derive(Clone)]
pub(crate) struct BlueSite {
    file: Rc<SourceFile>,
    callee: Rc<str>,
    range: TextRange,
    resolved: Rc<str>,
}

impl std::fmt::Display for BlueSite {
    fn fmt(&self, out: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        out.write_str(&chain_site(&self.file, &self.callee, self.range, &self.resolved))
    }
}

/// A blue call as an error's note shows it: `` `make(i32)` at m.spy:3:5
/// (`m::make[i32]`) ``, or `` (metafunc `m::pick`) `` for a metafunc.
fn chain_site(file: &SourceFile, callee: &str, range: TextRange, resolved: &str) -> String {
    let what = if resolved == "metafunc" {
        format!("metafunc `{callee}`")
    } else {
        format!("`{resolved}`")
    };
    format!(
        "`{}` at {} ({what})",
        text_at(file, range),
        file.location(range.start)
    )
}

/// A blue call as provenance shows it: `` `make(i32)` at m.spy:3:5 calls
/// `m::make` (`m::make[i32]`) ``.
pub(crate) fn describe_call(file: &SourceFile, callee: &str, range: TextRange, resolved: &str) -> String {
    format!(
        "`{}` at {} calls `{callee}` ({resolved})",
        text_at(file, range),
        file.location(range.start)
    )
}

/// The source text at `range` on one line (runs of whitespace collapsed),
/// as provenance notes quote a call.
pub(crate) fn call_text(f: &Frame, range: TextRange) -> String {
    text_at(&f.file, range)
}

fn text_at(file: &SourceFile, range: TextRange) -> String {
    file.slice(range).split_whitespace().collect::<Vec<_>>().join(" ")
}
