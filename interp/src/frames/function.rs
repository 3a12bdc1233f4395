//! Making functions: what executing a `def` does (annotations and defaults
//! evaluated in the enclosing frame, `*args` kinds, return-type inference,
//! decorators), PEP 695 generics and their specializations, FQNs.

use foldhash::HashMap;
use std::cell::Cell;
use std::rc::Rc;

use crate::error::{ExcKind, SpyError};
use crate::frames::call::is_name;
use crate::frames::{Eval, Frame, FrameKind, Interp};
use crate::resolve::NameRef;
use crate::syntax::ast::{self, FuncColor, FuncKind, ParamKind};
use crate::vm::code::{CodeUnit, FuncCode};
use crate::vm::types::TypeId;
use crate::vm::value::{
    Color, FuncExtra, Function, Local, ParamSpec, ParamSpecs, Presets, StarKind, StarParam, Typed, Value,
};

/// What the functions an interpreter makes share, kept so that a `def`
/// costs only its own record (issue 14 item 5).
#[derive(Default)]
pub(crate) struct Records {
    /// The code unit of the frame that last made a function (every `def`
    /// of a module's init is in the same one).
    last_unit: Option<Rc<CodeUnit>>,
    /// The parameter list of the functions of each function type whose
    /// parameters have no default (the type's parameter types, each
    /// without a default): one list per type, not one per `def`.
    plain_params: HashMap<TypeId, ParamSpecs>,
    /// The closure of a module frame (none): one allocation shared by
    /// every module frame and the functions defined in them.
    no_closure: crate::vm::value::Closure,
}

impl Records {
    /// The empty closure (of a module frame).
    pub(crate) fn no_closure(&self) -> crate::vm::value::Closure {
        self.no_closure.clone()
    }

    /// The code unit of the `def`s of frame `f`'s tree: the last one made
    /// if it is the same tree, resolution and module, else a new one.
    fn code_unit(&mut self, f: &Frame) -> Rc<CodeUnit> {
        match &self.last_unit {
            Some(unit) if unit.is(&f.ast, &f.res, &f.file, f.module) => unit.clone(),
            _ => {
                let unit = Rc::new(CodeUnit {
                    ast: f.ast.clone(),
                    module: f.module,
                    file: f.file.clone(),
                    res: f.res.clone(),
                });
                self.last_unit = Some(unit.clone());
                unit
            }
        }
    }

    /// The parameter list of a function of type `ty` whose parameters are
    /// `params`: the shared one of `ty` when no parameter has a default.
    fn params(&mut self, ty: TypeId, params: Vec<ParamSpec>, ret: TypeId) -> ParamSpecs {
        if params.iter().any(|p| p.default.is_some()) {
            return ParamSpecs::new(params, ret);
        }
        self.plain_params
            .entry(ty)
            .or_insert_with(|| ParamSpecs::new(params, ret))
            .clone()
    }
}

/// The FQNs handed out to the module-level `def`s of one module (frame
/// namespace `ns`, resolution `res`): `ns::name` is taken when the global
/// slot of `name` is marked. A mark is a byte a global, where the text in
/// `Interp::fqns` took a 16-byte entry of a hash set (most of a program's
/// FQNs are its module-level functions', issue 14 item 5). Every FQN is in
/// exactly one of the two, and a request checks both, so FQNs stay unique
/// exactly as with one set.
pub(crate) struct ModuleFqns {
    res: Rc<crate::resolve::Resolution>,
    taken: Vec<bool>,
}

impl ModuleFqns {
    /// The global slot of `name` in the module.
    fn slot(&self, name: &str) -> Option<usize> {
        crate::resolve::ScopeRef::module(&self.res).find(name)
    }
}

/// How to build a function from a `def`.
pub(crate) struct FunctionSpec {
    pub fqn: Rc<str>,
    pub self_type: Option<TypeId>,
    pub closure: crate::vm::value::Closure,
    pub presets: Presets,
    /// Defined inside blue code: a red function may omit `-> T`.
    pub in_blue_code: bool,
}

impl Interp<'_> {
    /// A fresh FQN `ns::name`, made unique with `#1`, `#2`... as upstream's
    /// `get_unique_FQN`, so two different functions never share a name.
    pub(crate) fn unique_fqn(&mut self, base: String) -> Rc<str> {
        let base: Rc<str> = base.into();
        if !self.module_fqn_taken(&base) && self.fqns.insert(base.clone()) {
            return base;
        }
        // Continue from the last suffix given to this base (no rescans).
        // (A suffixed FQN is never a module-level `def`'s: no name has `#`.)
        let next = self.fqn_suffixes.entry(base.to_string()).or_insert(0);
        loop {
            *next += 1;
            let name: Rc<str> = format!("{base}#{next}").into();
            if self.fqns.insert(name.clone()) {
                return name;
            }
        }
    }

    /// Whether `fqn` was handed out to a module-level `def`.
    fn module_fqn_taken(&self, fqn: &str) -> bool {
        let Some((ns, name)) = fqn.rsplit_once("::") else {
            return false;
        };
        self.module_fqns
            .get(ns)
            .and_then(|m| Some(m.taken[m.slot(name)?]))
            .unwrap_or(false)
    }

    /// The FQN of a `def` named `name` executed in frame `f`: for a
    /// module-level `def`, marked on its global slot ([`ModuleFqns`]) when
    /// it is free, else as [`Self::unique_fqn_in`].
    fn def_fqn(&mut self, f: &Frame, name: &str) -> Rc<str> {
        if self.claim_module_fqn(f, name) {
            return module_fqn(&f.ns, name).into();
        }
        self.unique_fqn_in(&f.ns, name)
    }

    /// Claim `ns::name` for a `def` named `name` executed in module frame
    /// `f` (a mark on its global slot, [`ModuleFqns`]) when it is free;
    /// `false` when it is not (or `f` is not a module frame).
    pub(crate) fn claim_module_fqn(&mut self, f: &Frame, name: &str) -> bool {
        if f.kind != FrameKind::Module {
            return false;
        }
        let module = self
            .module_fqns
            .entry(f.ns.clone())
            .or_insert_with(|| ModuleFqns {
                res: f.res.clone(),
                taken: vec![false; crate::resolve::ScopeRef::module(&f.res).slot_count()],
            });
        // (A second module with the same namespace, if any, goes to the
        // set.)
        let slot = Rc::ptr_eq(&module.res, &f.res)
            .then(|| module.slot(name))
            .flatten();
        let Some(slot) = slot else {
            return false;
        };
        if module.taken[slot] || self.fqns.contains(module_fqn(&f.ns, name).as_str()) {
            return false;
        }
        module.taken[slot] = true;
        true
    }

    /// [`Self::unique_fqn`] of `ns::name` (a `def` or `class` statement's;
    /// written without `format!`, as every function definition runs one).
    pub(crate) fn unique_fqn_in(&mut self, ns: &str, name: &str) -> Rc<str> {
        self.unique_fqn(module_fqn(ns, name))
    }

    /// The environments a function or class defined in frame `f` closes
    /// over.
    pub(crate) fn closure_of(&mut self, f: &Frame) -> crate::vm::value::Closure {
        match f.kind {
            FrameKind::Function => {
                self.pools.note_captured(&f.locals);
                Rc::new(
                    f.closure
                        .iter()
                        .cloned()
                        .chain(std::iter::once(f.locals.clone()))
                        .collect(),
                )
            }
            FrameKind::Class | FrameKind::Module => f.closure.clone(),
        }
    }

    /// Execute a `def` in frame `f`. `self_type` is the struct of a method
    /// (its first parameter may omit the annotation).
    pub(crate) fn make_function_in(
        &mut self,
        f: &mut Frame,
        def: &ast::FuncDef<'_>,
        self_type: Option<TypeId>,
    ) -> Eval<Typed> {
        let fqn = self.def_fqn(f, &def.name.name);
        let in_blue_code = f.func.as_ref().is_some_and(|func| func.color == FuncColor::Blue);
        let spec = FunctionSpec {
            fqn,
            self_type,
            closure: self.closure_of(f),
            presets: crate::vm::value::no_presets(),
            in_blue_code,
        };
        let mut result = if def.type_params.is_some() {
            self.make_pep695_generic(f, def, spec)?
        } else {
            let func = self.build_function(f, def, spec)?;
            Typed::blue(func.ty, Value::Func(func))
        };
        // Decorators are blue calls, applied bottom-up.
        for d in def.decorators.iter().rev() {
            // `@staticmethod`, `@classmethod` and `@property` mark a method
            // of the class being defined (`StructInfo`); the function itself
            // is unchanged
            if is_name(&d, "staticmethod")
                || (f.class_type.is_some() && (is_name(&d, "property") || is_name(&d, "classmethod")))
            {
                continue;
            }
            let deco = self.eval_expr(f, &d)?;
            if !deco.is_blue() {
                return Err(SpyError::new(ExcKind::TypeError, "decorators must be @blue")
                    .with_error(&f.file, d.range, "this is red")
                    .into());
            }
            result = self.call_value(f, deco, d.range, vec![(result, def.name.range)], d.range)?;
            // upstream checks the decorator's result: a red function used as
            // a decorator gives a red one
            if !result.is_blue() {
                return Err(SpyError::new(ExcKind::TypeError, "decorators must be @blue")
                    .with_error(&f.file, d.range, "this is red")
                    .into());
            }
        }
        Ok(result)
    }

    /// Build a function from `def`, evaluating its annotations in `f`.
    pub(crate) fn build_function(
        &mut self,
        f: &mut Frame,
        def: &ast::FuncDef<'_>,
        spec: FunctionSpec,
    ) -> Eval<Rc<Function>> {
        let blue = def.color == FuncColor::Blue;
        let mut params = Vec::with_capacity(def.params.len());
        let mut star = None;
        for (i, p) in def.params.iter().enumerate() {
            if p.kind == ParamKind::Star {
                let kind = self.star_kind(f, &p, blue)?;
                let ty = match &kind {
                    StarKind::Pack(t, _) => *t,
                    StarKind::Variadic(_) => TypeId::INTERP_TUPLE,
                };
                star = Some(StarParam { index: i, kind });
                params.push(ParamSpec { ty, default: None });
                continue;
            }
            let ty = match &p.annotation {
                Some(t) => self.eval_type_expr(f, t)?,
                // A red method's `self` may omit its type (metafunc methods
                // receive MetaArgs instead).
                None if i == 0 && spec.self_type.is_some() && !blue => {
                    spec.self_type.unwrap_or(TypeId::DYNAMIC)
                }
                None if blue => TypeId::DYNAMIC,
                None => {
                    return Err(SpyError::new(
                        ExcKind::TypeError,
                        format!("missing type for argument '{}'", p.name.name),
                    )
                    .with_error(&f.file, p.range, "type is missing here")
                    .into())
                }
            };
            let default = match &p.default {
                Some(d) => Some(Box::new(self.eval_expr(f, d)?)),
                None => None,
            };
            params.push(ParamSpec { ty, default });
        }
        let mut inferred_ret = None;
        let ret = match &def.return_type {
            Some(t) => self.eval_type_expr(f, t)?,
            None if blue => TypeId::DYNAMIC,
            None if spec.in_blue_code => {
                inferred_ret = Some(Cell::new(None));
                TypeId::DYNAMIC
            }
            None => {
                return Err(SpyError::new(ExcKind::TypeError, "missing return type")
                    .with_error(&f.file, def.proto_range, "")
                    .into())
            }
        };
        let Some(code) = FuncCode::new(self.records.code_unit(f), def.id) else {
            return Err(crate::bug!("no scope for function `{}`", def.name.name));
        };
        let ty = self.vm.types.func(
            params.iter().map(|p| p.ty).collect(),
            ret,
            kind_prefix(def.color, def.kind),
        );
        let func = Rc::new(Function {
            fqn: spec.fqn,
            code,
            color: def.color,
            kind: def.kind,
            ty,
            params: self.records.params(ty, params, ret),
            closure: spec.closure,
            extra: FuncExtra {
                presets: spec.presets,
                star,
                inferred_ret,
            }
            .boxed(),
            force_inline: false,
            pep695: false,
        });
        if func.color == FuncColor::Red && func.kind == FuncKind::Plain {
            if !self.blue_sites.is_empty() {
                let sites: Rc<[super::meta::BlueSite]> = self.blue_sites.iter().rev().cloned().collect();
                self.made_by.insert(func.fqn.clone(), sites);
            }
            if let Some(r) = &self.redshift {
                // The redshift's worklist; made by blue code: remember the
                // calls that made it.
                let mut r = r.state();
                if !r.blue_calls.is_empty() {
                    let sites = r.blue_calls.iter().rev().cloned().collect();
                    r.made_by.insert(func.fqn.to_string(), sites);
                }
                r.red_functions
                    .push(super::doppler::RedFunction::Made(func.clone()));
            }
        }
        Ok(func)
    }

    /// `*args`, `*args: T`, or `*args: types` (a blue tuple of types: a
    /// parameter pack).
    fn star_kind(&mut self, f: &mut Frame, p: &ast::Param<'_>, blue: bool) -> Eval<StarKind> {
        let Some(annotation) = &p.annotation else {
            let _ = blue;
            return Ok(StarKind::Variadic(TypeId::DYNAMIC));
        };
        let v = self.eval_expr(f, annotation)?;
        match &v.value {
            Value::Type(t) => Ok(StarKind::Variadic(*t)),
            Value::None => Ok(StarKind::Variadic(TypeId::NONE)),
            Value::Tuple(tuple) if tuple.ty == TypeId::INTERP_TUPLE || tuple.items.is_empty() => {
                if !v.is_blue() && !tuple.items.is_empty() {
                    return Err(SpyError::new(
                        ExcKind::TypeError,
                        "the types of a parameter pack must be blue",
                    )
                    .with_error(&f.file, annotation.range, "this is red")
                    .into());
                }
                let mut types = Vec::with_capacity(tuple.items.len());
                for item in tuple.items.iter() {
                    match item {
                        Value::Type(t) => types.push(*t),
                        Value::None => types.push(TypeId::NONE),
                        other => {
                            let got = self
                                .dynamic_type(other)
                                .map(|t| self.vm.types.name(t).to_string())
                                .unwrap_or_default();
                            return Err(SpyError::new(
                                ExcKind::TypeError,
                                format!("expected a tuple of types, got an item of type `{got}`"),
                            )
                            .with_error(&f.file, annotation.range, "expected a tuple of types")
                            .into());
                        }
                    }
                }
                let tuple_ty = self.vm.types.tuple(types.clone());
                Ok(StarKind::Pack(tuple_ty, types))
            }
            _ => Err(SpyError::new(
                ExcKind::TypeError,
                format!("expected `type`, got `{}`", self.vm.types.name(v.ty)),
            )
            .with_error(&f.file, annotation.range, "expected `type` or a tuple of types")
            .into()),
        }
    }

    /// `def f[T, n](...)`: a blue generic whose call `f[i32, 3]` builds the
    /// red specialization with `T` and `n` bound.
    fn make_pep695_generic(
        &mut self,
        f: &mut Frame,
        def: &ast::FuncDef<'_>,
        spec: FunctionSpec,
    ) -> Eval<Typed> {
        let Some(code) = FuncCode::new(self.records.code_unit(f), def.id) else {
            return Err(crate::bug!("no scope for function `{}`", def.name.name));
        };
        let params: Vec<ParamSpec> = def
            .type_params
            .iter()
            .flatten()
            .map(|_| ParamSpec {
                ty: TypeId::DYNAMIC,
                default: None,
            })
            .collect();
        let ty = self.vm.types.func(
            params.iter().map(|p| p.ty).collect(),
            TypeId::DYNAMIC,
            "@blue.generic ",
        );
        let func = Rc::new(Function {
            fqn: spec.fqn,
            code,
            color: FuncColor::Blue,
            kind: FuncKind::Generic,
            ty,
            params: ParamSpecs::new(params, TypeId::DYNAMIC),
            closure: spec.closure,
            extra: None,
            force_inline: false,
            pep695: true,
        });
        Ok(Typed::blue(ty, Value::Func(func)))
    }

    /// Build the specialization `generic[args]` of a PEP 695 generic.
    pub(crate) fn specialize_pep695(
        &mut self,
        generic: &Rc<Function>,
        args: Vec<Typed>,
        ns: String,
    ) -> Eval<Typed> {
        let code = generic.code.clone();
        let def = code.def();
        let mut presets = Vec::new();
        let locals = Rc::new(std::cell::RefCell::new(vec![None; code.scope().slot_count()]));
        for (tp, arg) in def.type_params.iter().flatten().zip(args) {
            let NameRef::Local(slot) = code.res.name(tp.id) else {
                return Err(crate::bug!("type parameter `{}` is not a local", tp.name));
            };
            let local = Local {
                ty: self.blue_static_type(&arg),
                color: Color::Blue,
                value: Some(arg.value),
            };
            locals.borrow_mut()[slot as usize] = Some(local.clone());
            presets.push((slot, local));
        }
        let mut frame = Frame::function(generic, locals, generic.fqn.clone(), ns.as_str().into(), None);
        let fqn = self.unique_fqn(ns);
        let spec = FunctionSpec {
            fqn,
            self_type: None,
            closure: generic.closure.clone(),
            presets: presets.into(),
            in_blue_code: false,
        };
        let func = self
            .build_function(&mut frame, &def, spec)
            .map_err(|e| crate::frames::add_trace(e, &frame))?;
        // The specialization is an ordinary (red) function.
        let func = Rc::new(Function {
            kind: FuncKind::Plain,
            ..clone_function(&func)
        });
        Ok(Typed::blue(func.ty, Value::Func(func)))
    }

    /// `@force_inline`: only on red `def`d functions whose body ends with
    /// its single `return`.
    pub(crate) fn force_inline(
        &mut self,
        f: &Frame,
        arg: &Typed,
        range: crate::source::TextRange,
    ) -> Eval<Typed> {
        let Value::Func(func) = &arg.value else {
            return Err(SpyError::new(
                ExcKind::TypeError,
                "@force_inline can only be applied to def'd functions",
            )
            .with_error(&f.file, range, "")
            .into());
        };
        if func.color == FuncColor::Blue || func.kind != FuncKind::Plain {
            return Err(SpyError::new(
                ExcKind::TypeError,
                "@force_inline cannot be applied to @blue functions",
            )
            .with_error(&f.file, range, "")
            .into());
        }
        let code = func.code.clone();
        let body = &code.body();
        let returns = count_returns(body);
        let tail_return = matches!(body.last().map(|s| s.kind()), Some(ast::StmtKind::Return(_)));
        let returns_none = func.ret() == TypeId::NONE && returns == 0;
        if !returns_none && (returns != 1 || !tail_return) {
            return Err(
                SpyError::new(ExcKind::TypeError, "@force_inline requires a single tail return")
                    .with_error(
                        &func.code.file,
                        func.code.proto_range(),
                        "`return` must be the last statement of the body",
                    )
                    .into(),
            );
        }
        let inlined = Rc::new(Function {
            force_inline: true,
            ..clone_function(func)
        });
        Ok(Typed::blue(inlined.ty, Value::Func(inlined)))
    }
}

fn clone_function(f: &Function) -> Function {
    Function {
        fqn: f.fqn.clone(),
        code: f.code.clone(),
        color: f.color,
        kind: f.kind,
        ty: f.ty,
        params: f.params.clone(),
        closure: f.closure.clone(),
        extra: f.extra.clone(),
        force_inline: f.force_inline,
        pep695: f.pep695,
    }
}

fn count_returns(body: &ast::Stmts<'_>) -> usize {
    body.iter()
        .map(|s| match &s.kind() {
            ast::StmtKind::Return(_) => 1,
            ast::StmtKind::If { body, orelse, .. } => count_returns(body) + count_returns(orelse),
            ast::StmtKind::While { body, .. } | ast::StmtKind::For { body, .. } => count_returns(body),
            _ => 0,
        })
        .sum()
}

/// How a function type names its kind: `def`, `@blue def`...
pub(crate) fn kind_prefix(color: FuncColor, kind: FuncKind) -> &'static str {
    match (color, kind) {
        (_, FuncKind::Generic) => "@blue.generic ",
        (_, FuncKind::Metafunc) => "@blue.metafunc ",
        (FuncColor::Blue, FuncKind::Plain) => "@blue ",
        (FuncColor::Red, FuncKind::Plain) => "",
    }
}

/// `ns::name` (written without `format!`, as every function definition
/// runs one).
fn module_fqn(ns: &str, name: &str) -> String {
    let mut fqn = String::with_capacity(ns.len() + 2 + name.len());
    fqn.push_str(ns);
    fqn.push_str("::");
    fqn.push_str(name);
    fqn
}
