//! Struct forms beyond operator dunders:
//!
//! - `setitem`: `__setitem__(self, i: I, v: V) -> None` (plain, or with
//!   `MetaDunders` a metafunc returning an OpSpec), its body printing and
//!   writing a module `var`, called by `s[i] = v` statements (`stmt.rs`)
//!   whose three operands may have side effects;
//! - `struct-str`: `__str__(self) -> str` built from the fields (and
//!   nothing user-defined, so `str(s)` inside other dunders never
//!   recurses), used by `print(s)` and `str(s)`;
//! - `generic-pairs`: `@blue.generic def GP(T, U[, V]):` returning a
//!   `@struct class Self` (generic structs of two or three type
//!   parameters), instantiated with scalars, earlier structs and nested
//!   instances (`GP[GP[i32, f64], str]`), with getters, and sometimes
//!   `__str__` and `__setitem__` whose types are the parameters.

use super::structs::{Dunder, Form};
use super::types::Ty;
use super::{Env, Gen, Local};
use crate::config::Feature;

/// A `__setitem__` of struct `k`: its index and value types.
#[derive(Clone, Debug)]
pub(crate) struct SetItem {
    pub k: usize,
    pub index: Ty,
    pub value: Ty,
}

impl Gen<'_, '_> {
    /// `__str__` of a struct with fields `fields` (spelled as in the class
    /// body: `a0`, `a1`, ...), appended to its class body.
    pub(super) fn str_dunder(&mut self, label: &str, fields: usize, s: &mut String) {
        self.mark(Feature::StructStr);
        let parts: Vec<String> = (0..fields)
            .map(|j| match self.pick(3) {
                0 => format!("str(self.get{j}())"),
                _ => format!("str(self.a{j})"),
            })
            .collect();
        let sep = [", ", "|", ""][self.pick(3)];
        let mut e = format!(
            "\"{label}(\" + {} + \")\"",
            parts.join(&format!(" + \"{sep}\" + "))
        );
        if self.chance(1, 4) {
            e = format!("({e}).upper()");
        }
        s.push_str(&format!("\n    def __str__(self) -> str:\n        return {e}\n"));
    }

    /// `__setitem__(self, i, v)` of struct `k` (`sname` as spelled in its
    /// class body), appended to the class body and registered.
    pub(super) fn setitem_dunder(&mut self, k: usize, sname: &str, index: Ty, value: Ty, s: &mut String) {
        self.mark(Feature::SetItem);
        let env = Env {
            locals: vec![
                Local {
                    name: "self".into(),
                    ty: self.struct_ty(k),
                    mutable: false,
                    blue_range: None,
                },
                Local {
                    name: "i".into(),
                    ty: index.clone(),
                    mutable: false,
                    blue_range: None,
                },
                Local {
                    name: "v".into(),
                    ty: value.clone(),
                    mutable: false,
                    blue_range: None,
                },
            ],
            pure: false,
            callees: self.callees.len(),
        };
        let t = self.scalar_ty();
        let e = self.expr(&env, &t, 1);
        let mut body = vec![format!("print(\"set\", i, v, {e})")];
        if !self.globals.is_empty() && self.chance(1, 2) {
            let gi = self.pick(self.globals.len());
            let (g, gt) = self.globals[gi].clone();
            self.mark(Feature::ModuleVars);
            let e = self.arg(&env, &gt, 1);
            body.push(format!("{g} = {e}"));
        }
        let (is, vs) = (index.spell(), value.spell());
        if self.on(Feature::MetaDunders) && self.chance(1, 3) {
            self.mark(Feature::MetaDunders);
            self.import("operator", "OpSpec");
            s.push_str(&format!(
                "\n    @blue.metafunc\n    def __setitem__(m_self, m_i, m_v):\n        def impl(self: {sname}, i: {is}, v: {vs}) -> None:\n            {}\n        return OpSpec(impl)\n",
                body.join("\n            ")
            ));
        } else {
            s.push_str(&format!(
                "\n    def __setitem__(self, i: {is}, v: {vs}) -> None:\n        {}\n",
                body.join("\n        ")
            ));
        }
        self.setitems.push(SetItem { k, index, value });
    }

    /// `s[i] = v` through a registered `__setitem__`: on a fresh local or
    /// directly on an expression.
    pub(super) fn setitem_stmt(&mut self, env: &Env, p: &str, d: u32) -> String {
        let si = self.pick(self.setitems.len());
        let si = self.setitems[si].clone();
        self.mark(Feature::SetItem);
        let sty = self.struct_ty(si.k);
        if let Some(f) = sty.feature() {
            self.mark(f);
        }
        let obj = self.expr(env, &sty, d);
        let i = self.arg(env, &si.index, d);
        let v = self.arg(env, &si.value, d);
        if self.chance(1, 2) {
            let t = self.fresh("st");
            format!("{p}{t} = {obj}\n{p}{t}[{i}] = {v}\n")
        } else {
            format!("{p}{obj}[{i}] = {v}\n")
        }
    }

    /// `@blue.generic def GP(T, U[, V])` returning a struct, and one or
    /// two instances of it (the second sometimes nested).
    pub(super) fn generic_pair_def(&mut self) {
        self.mark(Feature::GenericPairs);
        let g = self.fresh("GP");
        let params: &[&str] = if self.chance(1, 3) {
            &["T", "U", "V"]
        } else {
            &["T", "U"]
        };
        let mut s = format!(
            "@blue.generic\ndef {g}({}):\n    @struct\n    class Self:\n",
            params.join(", ")
        );
        for (j, tp) in params.iter().enumerate() {
            s.push_str(&format!("        a{j}: {tp}\n"));
        }
        let mut class = String::new();
        for (j, tp) in params.iter().enumerate() {
            class.push_str(&format!(
                "\n    def get{j}(self) -> {tp}:\n        return self.a{j}\n"
            ));
        }
        let with_str = self.on(Feature::StructStr) && self.chance(1, 2);
        if with_str {
            self.str_dunder(&g, params.len(), &mut class);
        }
        // `__setitem__(self, i: i32, v: T)`: its body prints only (a
        // generated body would need the instance's types).
        let with_set = self.on(Feature::SetItem) && self.chance(1, 2);
        if with_set {
            self.mark(Feature::SetItem);
            class.push_str(
                "\n    def __setitem__(self, i: i32, v: T) -> None:\n        print(\"set\", i, v, self.a1)\n",
            );
        }
        for line in class.lines() {
            if line.is_empty() {
                s.push('\n');
            } else {
                s.push_str(&format!("    {line}\n"));
            }
        }
        s.push_str("    return Self\n");
        self.defs.push(s);
        let mut instances: Vec<Vec<Ty>> = Vec::new();
        for _ in 0..self.int(1, 2) {
            let args: Vec<Ty> = params
                .iter()
                .map(|_| {
                    if !self.structs.is_empty() && self.chance(1, 4) {
                        let k = self.pick(self.structs.len());
                        self.struct_ty(k)
                    } else {
                        self.scalar_ty()
                    }
                })
                .collect();
            if !instances.contains(&args) {
                instances.push(args);
            }
        }
        let mut i = 0;
        while i < instances.len() {
            let args = instances[i].clone();
            let spelled: Vec<String> = args.iter().map(Ty::spell).collect();
            let k = self.push_struct(format!("{g}[{}]", spelled.join(", ")), args.clone());
            let sty = self.struct_ty(k);
            for (j, t) in args.iter().enumerate() {
                let getter = ["get0", "get1", "get2"][j];
                self.dunders.push(Dunder {
                    k,
                    form: Form::Method(getter),
                    rhs: None,
                    ret: t.clone(),
                    meta: false,
                });
            }
            if with_set {
                self.setitems.push(SetItem {
                    k,
                    index: Ty::I32,
                    value: args[0].clone(),
                });
            }
            if with_str {
                let env = Env::default();
                let lit = self.literal(&env, &sty);
                self.backend_calls.push(format!("print({lit})"));
            }
            // A nested instance: this one as the first type argument.
            if i == 0 && instances.len() < 3 && self.chance(1, 3) {
                let mut nested = args.clone();
                nested[0] = sty;
                instances.push(nested);
            }
            i += 1;
        }
    }
}
