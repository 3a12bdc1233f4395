//! Structs: plain `@struct` classes with field getters and (with
//! `StructDunders`) operator dunders whose bodies are generated
//! expressions, PEP 695 generic structs (`class GS[T]:`) and their
//! instances, the expressions that use the dunders, and `COLOR` /
//! `STATIC_TYPE` of side-effect-free expressions.
//!
//! With `MetaDunders` a dunder is sometimes a `@blue.metafunc` returning
//! an OpSpec of an inner `impl`; with `ConvertHooks` a struct gets
//! `__convert_to__`/`__convert_from__` hooks (metafuncs dispatching on the
//! expected/got type, or plain functions), which `arg` uses for implicit
//! conversions.
//!
//! Termination: a dunder's body may only use dunders registered before
//! it, so dunders never call each other in a cycle; `__eq__`/`__ne__` come
//! first and their bodies never compare their own struct. The same holds
//! for conversion hooks: a hook's body is generated before its conversions
//! are registered (and struct-level bodies never convert implicitly: no
//! callees exist yet, and only `arg` uses hooks).

use std::rc::Rc;

use super::types::Ty;
use super::{Env, Gen, Local};
use crate::config::Feature;

/// How an expression uses a dunder (or method) of a struct.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Form {
    /// `(s OP r)`.
    Bin(&'static str),
    /// `s[r]`.
    GetItem,
    /// `s(r)`.
    Call,
    /// `len(s)`.
    Len,
    /// `(r in s)`.
    Contains,
    /// `s.NAME()`.
    Method(&'static str),
}

/// A dunder of struct `k`: its right operand's type and its result type.
#[derive(Clone, Debug)]
pub(crate) struct Dunder {
    pub k: usize,
    pub form: Form,
    pub rhs: Option<Ty>,
    pub ret: Ty,
    /// Defined as a `@blue.metafunc` returning an OpSpec.
    pub meta: bool,
}

/// Which conversion hook of a struct.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum HookDir {
    /// `__convert_to__`: from the struct to another type.
    To,
    /// `__convert_from__`: from another type to the struct.
    From,
}

impl HookDir {
    fn name(self) -> &'static str {
        match self {
            HookDir::To => "__convert_to__",
            HookDir::From => "__convert_from__",
        }
    }
}

const ARITH: &[(&str, &str)] = &[
    ("__add__", "+"),
    ("__sub__", "-"),
    ("__mul__", "*"),
    ("__div__", "/"),
    ("__floordiv__", "//"),
    ("__mod__", "%"),
    ("__pow__", "**"),
    ("__lshift__", "<<"),
    ("__rshift__", ">>"),
    ("__and__", "&"),
    ("__or__", "|"),
    ("__xor__", "^"),
];

const CMP: &[(&str, &str)] = &[
    ("__lt__", "<"),
    ("__le__", "<="),
    ("__gt__", ">"),
    ("__ge__", ">="),
];

impl Gen<'_, '_> {
    pub(super) fn struct_defs(&mut self) {
        if self.on(Feature::Structs) {
            for _ in 0..self.int(1, 2) {
                self.struct_def();
            }
        }
        if self.on(Feature::GenericStructs) && self.chance(2, 3) {
            self.generic_struct_def();
        }
        if self.on(Feature::GenericPairs) && self.chance(1, 3) {
            self.generic_pair_def();
        }
    }

    pub(super) fn push_struct(&mut self, name: String, fields: Vec<Ty>) -> usize {
        self.structs.push(fields);
        self.struct_names.push(Rc::from(name));
        self.structs.len() - 1
    }

    fn struct_def(&mut self) {
        let k = self.structs.len();
        let nfields = self.int(1, 3) as usize;
        let fields: Vec<Ty> = (0..nfields)
            .map(|_| loop {
                let t = self.scalar_ty();
                if !self.u.is_empty() || t.is_scalar() {
                    break t;
                }
            })
            .collect();
        let name = format!("S{k}");
        let mut s = format!("@struct\nclass {name}:\n");
        let name_for_push = name.clone();
        for (j, t) in fields.iter().enumerate() {
            s.push_str(&format!("    a{j}: {}\n", t.spell()));
        }
        for (j, t) in fields.iter().enumerate() {
            s.push_str(&format!(
                "\n    def get{j}(self) -> {}:\n        return self.a{j}\n",
                t.spell()
            ));
        }
        self.push_struct(name_for_push, fields);
        if self.on(Feature::StructDunders) && self.chance(1, 2) {
            self.dunder_defs(k, &mut s);
        }
        if self.on(Feature::ConvertHooks) && self.chance(1, 2) {
            self.convert_hooks(k, &mut s);
        }
        let sty = self.struct_ty(k);
        let env = Env::default();
        if self.on(Feature::StructStr) && self.chance(1, 3) {
            self.str_dunder(&name, nfields, &mut s);
            // Used at least once: printed, and through `str`.
            let (a, b) = (self.literal(&env, &sty), self.literal(&env, &sty));
            self.backend_calls.push(format!("print({a}, len(str({b})))"));
        }
        if self.on(Feature::SetItem) && self.chance(1, 3) {
            let (index, value) = (self.scalar_ty(), self.any_ty(1));
            let sname = self.struct_names[k].to_string();
            self.setitem_dunder(k, &sname, index.clone(), value.clone(), &mut s);
            let obj = self.literal(&env, &sty);
            let (i, v) = (self.literal(&env, &index), self.literal(&env, &value));
            self.backend_calls.push(format!("{obj}[{i}] = {v}"));
        }
        self.defs.push(s);
    }

    /// Up to four dunders of struct `k`, appended to its class body.
    fn dunder_defs(&mut self, k: usize, s: &mut String) {
        self.mark(Feature::StructDunders);
        let sty = self.struct_ty(k);
        let mut names: Vec<&'static str> = Vec::new();
        if self.chance(1, 4) {
            // Both or neither: `!=` must not fall back to field equality
            // while `==` is user-defined. `==` on this struct inside them
            // would recurse forever.
            self.eq_guard = Some(k);
            for (dn, op) in [("__eq__", "=="), ("__ne__", "!=")] {
                self.dunder_method(s, k, dn, Some(sty.clone()), Ty::Bool, Form::Bin(op));
            }
            self.eq_guard = None;
        }
        for _ in 0..self.int(1, 2) {
            let (dn, form, rhs, ret) = match self.pick(7) {
                0 | 1 => {
                    let (dn, op) = ARITH[self.pick(ARITH.len())];
                    let rhs = if self.chance(1, 2) {
                        sty.clone()
                    } else {
                        self.scalar_ty()
                    };
                    (dn, Form::Bin(op), Some(rhs), self.any_ty(1))
                }
                2 => {
                    let (dn, op) = CMP[self.pick(CMP.len())];
                    let rhs = if self.chance(1, 2) {
                        sty.clone()
                    } else {
                        self.scalar_ty()
                    };
                    (dn, Form::Bin(op), Some(rhs), Ty::Bool)
                }
                3 => (
                    "__getitem__",
                    Form::GetItem,
                    Some(self.scalar_ty()),
                    self.any_ty(1),
                ),
                4 => ("__call__", Form::Call, Some(self.scalar_ty()), self.any_ty(1)),
                5 => ("__len__", Form::Len, None, Ty::I32),
                _ => ("__contains__", Form::Contains, Some(self.scalar_ty()), Ty::Bool),
            };
            if names.contains(&dn) {
                continue;
            }
            names.push(dn);
            self.dunder_method(s, k, dn, rhs, ret, form);
        }
    }

    /// `def DN(self, other: R) -> T: return <expr>`, or (`MetaDunders`) a
    /// metafunc `DN(m_self, m_other)` returning an OpSpec of an inner
    /// `impl`; then registered.
    fn dunder_method(&mut self, s: &mut String, k: usize, dn: &str, rhs: Option<Ty>, ret: Ty, form: Form) {
        let meta = self.on(Feature::MetaDunders) && self.chance(1, 2);
        // 0: OpSpec(impl); 1: OpSpec(impl, [m_self, m_other]); 2: dispatch
        // on m_other.static_type, else OpSpec.NULL; 3: an extra blue
        // MetaArg; 4: operands passed in the other order.
        let mut shape = if meta { self.pick(5) } else { 0 };
        if (shape == 2 || shape == 4) && rhs.is_none() {
            shape = 1;
        }
        if shape == 4 && !self.on(Feature::ReorderedMetaArgs) {
            shape = 1;
        }
        let mut env = Env {
            locals: vec![Local {
                name: "self".into(),
                ty: self.struct_ty(k),
                mutable: false,
                blue_range: None,
            }],
            pure: false,
            callees: self.callees.len(),
        };
        let mut sig = "self".to_string();
        if let Some(r) = &rhs {
            env.locals.push(Local {
                name: "other".into(),
                ty: r.clone(),
                mutable: false,
                blue_range: None,
            });
            sig.push_str(&format!(", other: {}", r.spell()));
        }
        let blue_k = if shape == 3 {
            env.locals.push(Local {
                name: "kb".into(),
                ty: Ty::I32,
                mutable: false,
                blue_range: None,
            });
            Some(self.int(-3, 9))
        } else {
            None
        };
        let d = self.int(1, 2) as u32;
        let e = self.expr(&env, &ret, d);
        if !meta {
            s.push_str(&format!(
                "\n    def {dn}(self{}) -> {}:\n        return {e}\n",
                &sig[4..],
                ret.spell()
            ));
        } else {
            self.import("operator", "OpSpec");
            let sname = self.struct_names[k].to_string();
            let mut params = vec![format!("self: {sname}")];
            let mut metas = vec!["m_self".to_string()];
            let mut margs = "m_self".to_string();
            if let Some(r) = &rhs {
                let rt = if shape == 2 { "T".to_string() } else { r.spell() };
                params.push(format!("other: {rt}"));
                metas.push("m_other".into());
                margs.push_str(", m_other");
            }
            if shape == 4 {
                self.mark(Feature::ReorderedMetaArgs);
                params.reverse();
                metas.reverse();
            }
            if let Some(v) = blue_k {
                self.import("operator", "MetaArg");
                params.push("kb: i32".into());
                metas.push(format!("MetaArg('blue', i32, {v})"));
            }
            let spec = if shape == 0 || shape == 2 {
                "OpSpec(impl)".to_string()
            } else {
                format!("OpSpec(impl, [{}])", metas.join(", "))
            };
            s.push_str(&format!("\n    @blue.metafunc\n    def {dn}({margs}):\n"));
            let ind = if shape == 2 {
                let r = rhs.as_ref().map_or("i32".to_string(), Ty::spell);
                s.push_str(&format!(
                    "        T = m_other.static_type\n        if T == {r}:\n"
                ));
                "            "
            } else {
                "        "
            };
            s.push_str(&format!(
                "{ind}def impl({}) -> {}:\n{ind}    return {e}\n{ind}return {spec}\n",
                params.join(", "),
                ret.spell()
            ));
            if shape == 2 {
                s.push_str("        return OpSpec.NULL\n");
            }
        }
        self.dunders.push(Dunder {
            k,
            form,
            rhs,
            ret,
            meta,
        });
    }

    /// `__convert_to__` and/or `__convert_from__` hooks of plain struct
    /// `k` (metafuncs dispatching on the type, or plain functions), their
    /// conversions registered in `convs` once their bodies exist.
    fn convert_hooks(&mut self, k: usize, s: &mut String) {
        let mut new_convs: Vec<(Ty, Ty)> = Vec::new();
        let both = self.chance(1, 3);
        let to = both || self.chance(1, 2);
        if to {
            // Targets: scalars and earlier plain structs.
            let mut targets: Vec<Ty> = Vec::new();
            for _ in 0..self.int(1, 2) {
                let t = if k > 0 && self.chance(1, 4) {
                    let j = self.pick(k);
                    self.struct_ty(j)
                } else {
                    self.scalar_ty()
                };
                if !targets.contains(&t) {
                    targets.push(t);
                }
            }
            let plain = targets.len() == 1 && self.chance(1, 4);
            if plain {
                self.plain_conv_to.push(k);
            }
            let hook = self.convert_hook(HookDir::To, k, &targets, plain, &mut new_convs);
            s.push_str(&hook);
        }
        if both || !to {
            // Sources: scalars and earlier plain structs whose own
            // `__convert_to__` (asked first) is a metafunc or absent.
            let mut sources: Vec<Ty> = Vec::new();
            for _ in 0..self.int(1, 2) {
                let t = if k > 0 && self.chance(1, 4) {
                    let j = self.pick(k);
                    if self.plain_conv_to.contains(&j) {
                        continue;
                    }
                    self.struct_ty(j)
                } else {
                    self.scalar_ty()
                };
                if !sources.contains(&t) {
                    sources.push(t);
                }
            }
            if sources.is_empty() {
                sources.push(Ty::I32);
            }
            let plain = sources.len() == 1 && sources[0].is_scalar() && self.chance(1, 4);
            let hook = self.convert_hook(HookDir::From, k, &sources, plain, &mut new_convs);
            s.push_str(&hook);
        }
        self.convs.extend(new_convs);
    }

    /// The text of struct `k`'s `__convert_to__` (to each of `others`) or
    /// `__convert_from__` (from each of `others`): a plain function when
    /// `plain` (one conversion), else a metafunc with one branch per type.
    /// The conversions it defines are added to `new_convs`.
    fn convert_hook(
        &mut self,
        dir: HookDir,
        k: usize,
        others: &[Ty],
        plain: bool,
        new_convs: &mut Vec<(Ty, Ty)>,
    ) -> String {
        let sty = self.struct_ty(k);
        let mut hook = String::new();
        for (i, t) in others.iter().enumerate() {
            let ts = t.spell();
            // (from, to) of this conversion
            let (from, to) = match dir {
                HookDir::To => (&sty, t),
                HookDir::From => (t, &sty),
            };
            let param = if plain && dir == HookDir::To { "self" } else { "x" };
            let env = self.hook_env(param, from);
            let d = self.int(1, 2) as u32;
            let e = self.expr(&env, to, d);
            let (from_s, to_s) = (from.spell(), to.spell());
            if plain {
                let params = match dir {
                    HookDir::To => "self".to_string(),
                    HookDir::From => format!("x: {ts}"),
                };
                hook.push_str(&format!(
                    "\n    def {}({params}) -> {to_s}:\n        return {e}\n",
                    dir.name()
                ));
            } else {
                let spec = if self.chance(1, 2) { "" } else { ", [m_x]" };
                let (m_arg, conv) = match dir {
                    HookDir::To => ("m_expT", "conv"),
                    HookDir::From => ("m_gotT", "conv_from"),
                };
                hook.push_str(&format!(
                    "        if {m_arg}.blueval == {ts}:\n            def {conv}{i}(x: {from_s}) -> {to_s}:\n                return {e}\n            return OpSpec({conv}{i}{spec})\n"
                ));
            }
            new_convs.push((from.clone(), to.clone()));
        }
        if plain {
            return hook;
        }
        self.import("operator", "OpSpec");
        format!(
            "\n    @blue.metafunc\n    def {}(m_expT, m_gotT, m_x):\n{hook}        return OpSpec.NULL\n",
            dir.name()
        )
    }

    /// The environment of a hook body: one read-only parameter.
    fn hook_env(&self, name: &str, ty: &Ty) -> Env {
        Env {
            locals: vec![Local {
                name: name.into(),
                ty: ty.clone(),
                mutable: false,
                blue_range: None,
            }],
            pure: false,
            callees: self.callees.len(),
        }
    }

    /// A value of another type that a conversion hook converts to `ty`
    /// (an implicit conversion at an argument, typed local, assignment or
    /// return), if one is registered.
    pub(super) fn hook_conversion(&mut self, env: &Env, ty: &Ty, d: u32) -> Option<String> {
        let srcs: Vec<Ty> = self
            .convs
            .iter()
            .filter(|(_, t)| t == ty)
            .map(|(s, _)| s.clone())
            .collect();
        if srcs.is_empty() {
            return None;
        }
        let src = srcs[self.pick(srcs.len())].clone();
        self.mark(Feature::ConvertHooks);
        Some(self.expr(env, &src, d))
    }

    /// `@struct class GS[T]:` and one to three instances of it (the third
    /// nested).
    fn generic_struct_def(&mut self) {
        self.mark(Feature::GenericStructs);
        let g = self.fresh("GS");
        let nt = self.int(1, 3) as usize;
        let fixed = if self.chance(1, 3) {
            Some(self.scalar_ty())
        } else {
            None
        };
        let arith = self.on(Feature::StructDunders) && self.chance(1, 2);
        let mut args: Vec<Ty> = Vec::new();
        for _ in 0..self.int(1, 2) {
            let t = if arith {
                let cands: Vec<Ty> = [
                    Ty::I32,
                    Ty::F64,
                    Ty::Str,
                    Ty::I8,
                    Ty::U8,
                    Ty::U32,
                    Ty::I64,
                    Ty::F32,
                ]
                .into_iter()
                .filter(|t| self.ty_on(t))
                .collect();
                cands[self.pick(cands.len())].clone()
            } else if !self.structs.is_empty() && self.chance(1, 4) {
                let k = self.pick(self.structs.len());
                self.struct_ty(k)
            } else {
                self.scalar_ty()
            };
            if !args.contains(&t) {
                args.push(t);
            }
        }
        let ordered = arith && args.iter().all(|t| t.is_int() || t.is_float());
        let mut s = format!("@struct\nclass {g}[T]:\n");
        for j in 0..nt {
            s.push_str(&format!("    a{j}: T\n"));
        }
        if let Some(t) = &fixed {
            s.push_str(&format!("    a{nt}: {}\n", t.spell()));
        }
        for j in 0..nt {
            s.push_str(&format!(
                "\n    def get{j}(self) -> T:\n        return self.a{j}\n"
            ));
        }
        if let Some(t) = &fixed {
            s.push_str(&format!(
                "\n    def get{nt}(self) -> {}:\n        return self.a{nt}\n",
                t.spell()
            ));
        }
        let rest = if fixed.is_some() {
            format!(", self.a{nt}")
        } else {
            String::new()
        };
        if nt >= 2 {
            let swapped: Vec<String> = (0..nt).rev().map(|j| format!("self.a{j}")).collect();
            s.push_str(&format!(
                "\n    def swap(self) -> Self:\n        return Self({}{rest})\n",
                swapped.join(", ")
            ));
        }
        if arith {
            self.mark(Feature::StructDunders);
            let sums: Vec<String> = (0..nt).map(|j| format!("(self.a{j} + other.a{j})")).collect();
            s.push_str(&format!(
                "\n    def __add__(self, other: Self) -> Self:\n        return Self({}{rest})\n",
                sums.join(", ")
            ));
            if ordered {
                s.push_str(
                    "\n    def __lt__(self, other: Self) -> bool:\n        return self.a0 < other.a0\n",
                );
            }
        }
        self.defs.push(s);
        // A nested instance (`GS[GS[i32]]`) sometimes.
        let nested = !arith && self.chance(1, 3);
        let mut i = 0;
        while i < args.len() {
            let t = args[i].clone();
            let mut fields = vec![t.clone(); nt];
            fields.extend(fixed.clone());
            let k = self.push_struct(format!("{g}[{}]", t.spell()), fields);
            let sty = self.struct_ty(k);
            if nt >= 2 {
                self.dunders.push(Dunder {
                    k,
                    form: Form::Method("swap"),
                    rhs: None,
                    ret: sty.clone(),
                    meta: false,
                });
            }
            if arith {
                self.dunders.push(Dunder {
                    k,
                    form: Form::Bin("+"),
                    rhs: Some(sty.clone()),
                    ret: sty.clone(),
                    meta: false,
                });
                if ordered {
                    self.dunders.push(Dunder {
                        k,
                        form: Form::Bin("<"),
                        rhs: Some(sty.clone()),
                        ret: Ty::Bool,
                        meta: false,
                    });
                }
            }
            if i == 0 && nested {
                args.push(sty);
            }
            i += 1;
        }
    }

    /// An expression using a struct dunder that returns `ty`, if any.
    pub(super) fn dunder_returning(&mut self, env: &Env, ty: &Ty, d: u32) -> Option<String> {
        let cands: Vec<usize> = (0..self.dunders.len())
            .filter(|&i| self.dunders[i].ret == *ty)
            .collect();
        if cands.is_empty() {
            return None;
        }
        let i = cands[self.pick(cands.len())];
        let dn = self.dunders[i].clone();
        let sty = self.struct_ty(dn.k);
        let s = self.expr(env, &sty, d);
        let r = match &dn.rhs {
            Some(t) => self.expr(env, t, d),
            None => String::new(),
        };
        match dn.form {
            Form::Method(_) => {
                if let Some(f) = sty.feature() {
                    self.mark(f);
                }
            }
            _ => self.mark(Feature::StructDunders),
        }
        if dn.meta {
            self.mark(Feature::MetaDunders);
        }
        Some(match dn.form {
            Form::Bin(op) => format!("({s} {op} {r})"),
            Form::GetItem => format!("{s}[{r}]"),
            Form::Call => format!("{s}({r})"),
            Form::Len => format!("len({s})"),
            Form::Contains => format!("({r} in {s})"),
            Form::Method(m) => format!("{s}.{m}()"),
        })
    }

    /// An expression of type `ty` free of side effects and errors (the
    /// operand of `COLOR`/`STATIC_TYPE`, which need not evaluate it).
    fn pure_operand(&mut self, env: &Env, d: u32) -> (String, Ty) {
        let mut pure = env.clone();
        pure.pure = true;
        let ty = self.any_ty(1);
        (self.expr(&pure, &ty, d), ty)
    }

    /// `COLOR(e)` or `str(STATIC_TYPE(e))`: a str.
    pub(super) fn color_or_type_name(&mut self, env: &Env, d: u32) -> String {
        self.mark(Feature::ColorStaticType);
        let (e, _) = self.pure_operand(env, d);
        if self.chance(1, 2) {
            self.import("__spy__", "COLOR");
            format!("COLOR({e})")
        } else {
            self.import("__spy__", "STATIC_TYPE");
            format!("str(STATIC_TYPE({e}))")
        }
    }

    /// `(STATIC_TYPE(e) == T)` or `(COLOR(e) == "red")`: a bool.
    pub(super) fn static_type_test(&mut self, env: &Env, d: u32) -> String {
        self.mark(Feature::ColorStaticType);
        let (e, ty) = self.pure_operand(env, d);
        if self.chance(1, 3) {
            self.import("__spy__", "COLOR");
            let c = ["red", "blue"][self.pick(2)];
            return format!("(COLOR({e}) == \"{c}\")");
        }
        self.import("__spy__", "STATIC_TYPE");
        let other = if self.chance(1, 2) { ty } else { self.any_ty(1) };
        let op = ["==", "!="][self.pick(2)];
        format!("(STATIC_TYPE({e}) {op} {})", other.spell())
    }

    /// `STATIC_TYPE(e)`: an item of a `print`.
    pub(super) fn static_type_item(&mut self, env: &Env, d: u32) -> String {
        self.mark(Feature::ColorStaticType);
        self.import("__spy__", "STATIC_TYPE");
        let (e, _) = self.pure_operand(env, d);
        format!("STATIC_TYPE({e})")
    }
}
