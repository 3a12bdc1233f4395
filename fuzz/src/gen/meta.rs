//! Module-level definitions that exercise metaprogramming: pure `@blue`
//! functions (also ones returning types, and ones with ill-typed dead
//! branches), PEP 695 and `@blue.generic` generics, metafuncs returning
//! each OpSpec form, parameter-pack functions, `@force_inline` functions,
//! bounded recursion and side-effecting tuple makers (splat operands).

use super::stmt::read_only;
use super::types::Ty;
use super::{Callee, Env, Gen, Local};
use crate::config::Feature;

impl Gen<'_, '_> {
    fn callee(&mut self, text: String, params: Vec<Ty>, ret: Option<Ty>, feature: Feature) {
        self.callees.push(Callee {
            text,
            params,
            ret,
            leaf_args: false,
            exact_args: false,
            feature: Some(feature),
            blue: false,
            bounded_first: false,
        });
    }

    fn exact_last(&mut self) {
        if let Some(c) = self.callees.last_mut() {
            c.exact_args = true;
        }
    }

    /// Types a generic over `+`/`*` may be instantiated with.
    fn generic_arg_types(&self) -> Vec<Ty> {
        let mut v = vec![Ty::I32, Ty::F64];
        if self.on(Feature::Str) {
            v.push(Ty::Str);
        }
        v
    }

    pub(super) fn meta_defs(&mut self) {
        if self.on(Feature::BlueFuncs) {
            for _ in 0..self.int(1, 2) {
                self.blue_func();
            }
            if self.chance(1, 2) {
                let name = self.fresh("pk");
                let a = self.scalar_ty();
                let b = self.scalar_ty();
                self.defs.push(format!(
                    "@blue\ndef {name}(w):\n    if w:\n        return {}\n    return {}\n",
                    a.spell(),
                    b.spell()
                ));
                self.type_pickers.push((name, a, b));
            }
            if self.on(Feature::BlueDeadBranches) && self.on(Feature::Str) {
                // The branch for the other type is ill-typed and never runs.
                let name = self.fresh("cv");
                self.defs.push(format!(
                    "@blue\ndef {name}(T, x):\n    if T == str:\n        return \"s:\" + x\n    else:\n        return x + 1\n"
                ));
                let v = self.int(-5, 50);
                self.blue_exprs.push((format!("{name}(i32, {v})"), Ty::I32));
                self.blue_exprs.push((format!("{name}(str, \"abc\")"), Ty::Str));
                self.blue_exprs.push((format!("{name}(f64, 2.5)"), Ty::F64));
                self.mark(Feature::BlueDeadBranches);
            }
        }
        if self.on(Feature::Generics) {
            self.generics();
        }
        if self.on(Feature::Metafuncs) {
            self.metafuncs();
        }
    }

    /// `@blue def bfN(x, y): ...` over blue i32s, pure and error-free.
    fn blue_func(&mut self) {
        let name = self.fresh("bf");
        let n = self.int(1, 2);
        let params: Vec<String> = (0..n).map(|_| self.fresh("x")).collect();
        let mut env = Env {
            locals: params
                .iter()
                .map(|p| Local {
                    name: p.clone(),
                    ty: Ty::I32,
                    mutable: false,
                    blue_range: Some((i64::from(i32::MIN), i64::from(i32::MAX))),
                })
                .collect(),
            pure: true,
            callees: self.callees.len(),
        };
        let mut body = String::new();
        for _ in 0..self.int(0, 2) {
            let v = self.fresh("t");
            let e = self.expr(&env, &Ty::I32, 2);
            body.push_str(&format!("    {v} = {e}\n"));
            env.locals.push(read_only(&v, Ty::I32));
        }
        if self.chance(1, 2) {
            let c = self.expr(&env, &Ty::Bool, 1);
            let e = self.expr(&env, &Ty::I32, 2);
            body.push_str(&format!("    if {c}:\n        return {e}\n"));
        }
        let e = self.expr(&env, &Ty::I32, 2);
        body.push_str(&format!("    return {e}\n"));
        self.defs
            .push(format!("@blue\ndef {name}({}):\n{body}", params.join(", ")));
        self.callees.push(Callee {
            text: name,
            params: vec![Ty::I32; params.len()],
            ret: Some(Ty::I32),
            leaf_args: false,
            exact_args: false,
            feature: Some(Feature::BlueFuncs),
            blue: true,
            bounded_first: false,
        });
    }

    fn generics(&mut self) {
        let tys = self.generic_arg_types();
        match self.pick(3) {
            0 => {
                let name = self.fresh("ga");
                self.defs.push(format!(
                    "def {name}[T](x: T, y: T) -> T:\n    print(\"{name}\", x)\n    return x + y\n"
                ));
                for t in tys {
                    self.callee(
                        format!("{name}[{}]", t.spell()),
                        vec![t.clone(), t.clone()],
                        Some(t),
                        Feature::Generics,
                    );
                }
            }
            1 => {
                let name = self.fresh("gs");
                self.defs
                    .push(format!("def {name}[T, n](y: T) -> T:\n    return y * n\n"));
                for t in tys {
                    let n = self.int(0, 3);
                    self.callee(
                        format!("{name}[{}, {n}]", t.spell()),
                        vec![t.clone()],
                        Some(t),
                        Feature::Generics,
                    );
                }
            }
            _ => {
                let name = self.fresh("gg");
                self.defs.push(format!(
                    "@blue.generic\ndef {name}(T):\n    if T == str:\n        def impl(x: T) -> T:\n            return x + \"!\"\n        return impl\n    def impl2(x: T) -> T:\n        return x * 2\n    return impl2\n"
                ));
                for t in tys {
                    self.callee(
                        format!("{name}[{}]", t.spell()),
                        vec![t.clone()],
                        Some(t),
                        Feature::Generics,
                    );
                }
                let z = self.fresh("gz");
                self.defs
                    .push(format!("@blue.generic\ndef {z}(T):\n    return T(0)\n"));
                self.blue_exprs.push((format!("{z}[i32]"), Ty::I32));
                self.blue_exprs.push((format!("{z}[f64]"), Ty::F64));
            }
        }
        self.mark(Feature::Generics);
    }

    /// One metafunc per OpSpec form (each only sometimes).
    fn metafuncs(&mut self) {
        self.import("operator", "OpSpec");
        let sub = self.fresh("msub");
        self.defs.push(format!(
            "def {sub}(a: i32, b: i32) -> i32:\n    return a - b * 3\n"
        ));
        // OpSpec(impl), with OpSpec.NULL for unsupported types.
        if self.chance(2, 3) {
            let name = self.fresh("mf");
            self.defs.push(format!(
                "@blue.metafunc\ndef {name}(m_x):\n    T = m_x.static_type\n    if T == i32 or T == f64 or T == str:\n        def impl(x: T) -> T:\n            return x + x\n        return OpSpec(impl)\n    return OpSpec.NULL\n"
            ));
            for t in self.generic_arg_types() {
                self.callee(name.clone(), vec![t.clone()], Some(t), Feature::Metafuncs);
                self.exact_last();
            }
        }
        // OpSpec(f, [m_b, m_a]) and OpSpec(f, [m_x, m_x]).
        if self.chance(2, 3) {
            let name = self.fresh("mr");
            self.defs.push(format!(
                "@blue.metafunc\ndef {name}(m_a, m_b):\n    return OpSpec({sub}, [m_b, m_a])\n"
            ));
            self.callee(name, vec![Ty::I32, Ty::I32], Some(Ty::I32), Feature::Metafuncs);
            self.exact_last();
            if self.on(Feature::ReorderedMetaArgs) {
                self.mark(Feature::ReorderedMetaArgs);
            } else if let Some(c) = self.callees.last_mut() {
                c.leaf_args = true;
            }
            let name = self.fresh("md");
            self.defs.push(format!(
                "@blue.metafunc\ndef {name}(m_x):\n    return OpSpec({sub}, [m_x, m_x])\n"
            ));
            self.callee(name, vec![Ty::I32], Some(Ty::I32), Feature::Metafuncs);
            self.exact_last();
        }
        // OpSpec(f, [m_x, MetaArg('blue', i32, k)]).
        if self.chance(1, 2) {
            self.import("operator", "MetaArg");
            let name = self.fresh("mb");
            let k = self.int(-3, 9);
            self.defs.push(format!(
                "@blue.metafunc\ndef {name}(m_x):\n    return OpSpec({sub}, [m_x, MetaArg('blue', i32, {k})])\n"
            ));
            self.callee(name, vec![Ty::I32], Some(Ty::I32), Feature::Metafuncs);
            self.exact_last();
        }
        // OpSpec.const: folded, so its arguments have no side effects.
        if self.chance(2, 3) {
            let name = self.fresh("mc");
            self.defs.push(format!(
                "@blue.metafunc\ndef {name}(*m_args):\n    return OpSpec.const(len(m_args) * 10 + len(m_args.types))\n"
            ));
            let n = self.int(0, 3);
            let params: Vec<Ty> = (0..n).map(|_| self.scalar_ty()).collect();
            self.callees.push(Callee {
                text: name,
                params,
                ret: Some(Ty::I32),
                leaf_args: true,
                exact_args: true,
                feature: Some(Feature::Metafuncs),
                blue: false,
                bounded_first: false,
            });
            if self.on(Feature::Str) {
                let name = self.fresh("mi");
                self.defs.push(format!(
                    "@blue.metafunc\ndef {name}(m_x):\n    return OpSpec.const(str(m_x.static_type))\n"
                ));
                let t = self.scalar_ty();
                self.callees.push(Callee {
                    text: name,
                    params: vec![t],
                    ret: Some(Ty::Str),
                    leaf_args: true,
                    exact_args: true,
                    feature: Some(Feature::Metafuncs),
                    blue: false,
                    bounded_first: false,
                });
            }
            let name = self.fresh("mv");
            self.defs.push(format!(
                "@blue.metafunc\ndef {name}(m_x):\n    return OpSpec.const(m_x.blueval * 2)\n"
            ));
            let v = self.int(-9, 99);
            self.blue_exprs.push((format!("{name}({v})"), Ty::I32));
        }
        // A pack built from the call's own types.
        if self.on(Feature::Packs) && self.on(Feature::Str) && self.chance(1, 2) {
            let name = self.fresh("mp");
            self.defs.push(format!(
                "@blue.metafunc\ndef {name}(*m_args):\n    def impl(*args: m_args.types) -> str:\n        return str(args)\n    return OpSpec(impl)\n"
            ));
            let n = self.int(1, 3);
            let params: Vec<Ty> = (0..n).map(|_| self.scalar_ty()).collect();
            self.callee(name, params, Some(Ty::Str), Feature::Packs);
            self.exact_last();
        }
        self.mark(Feature::Metafuncs);
    }

    /// `def rN(d: i32, x: T) -> T` recursing on `d - 1` down to 0.
    pub(super) fn recursive_func(&mut self) {
        self.mark(Feature::Recursion);
        let name = self.fresh("r");
        let ty = self.any_ty(1);
        let (d, x) = (self.fresh("d"), self.fresh("p"));
        let env = self.func_env(&[(d.clone(), Ty::I32), (x.clone(), ty.clone())]);
        let base = self.expr(&env, &ty, 2);
        let step = self.expr(&env, &ty, 2);
        let mut body = format!("    if {d} <= 0:\n        return {base}\n");
        if self.chance(1, 2) {
            body.push_str(&format!("    print(\"{name}\", {d}, {x})\n"));
        }
        body.push_str(&format!("    return {name}({d} - 1, {step})\n"));
        let t = ty.spell();
        self.defs
            .push(format!("def {name}({d}: i32, {x}: {t}) -> {t}:\n{body}"));
        self.callees.push(Callee {
            text: name,
            params: vec![Ty::I32, ty.clone()],
            ret: Some(ty),
            leaf_args: false,
            exact_args: false,
            feature: Some(Feature::Recursion),
            blue: false,
            bounded_first: true,
        });
    }

    /// `def fpN(*args: (T0, T1), x: T) -> R` (or `*args: TSk`).
    pub(super) fn pack_func(&mut self) {
        self.mark(Feature::Packs);
        self.import("__spy__", "UNROLL_RANGE");
        let name = self.fresh("fp");
        let (annot, types) = if !self.type_tuples.is_empty() && self.chance(1, 2) {
            let k = self.pick(self.type_tuples.len());
            let (n, t) = self.type_tuples[k].clone();
            (n, t)
        } else {
            let n = self.int(1, 3) as usize;
            let t: Vec<Ty> = (0..n).map(|_| self.scalar_ty()).collect();
            let spelled: Vec<String> = t.iter().map(Ty::spell).collect();
            let annot = if n == 1 {
                format!("({},)", spelled[0])
            } else {
                format!("({})", spelled.join(", "))
            };
            (annot, t)
        };
        let args = self.fresh("args");
        let mut params = vec![(args.clone(), Ty::Tuple(types.clone()))];
        let mut flat = types.clone();
        if self.chance(1, 2) {
            let x = self.fresh("p");
            let t = self.scalar_ty();
            params.push((x, t.clone()));
            flat.push(t);
        }
        let ret = self.any_ty(1);
        let env = self.func_env(&params);
        let u = self.fresh("u");
        let mut body = format!(
            "    print({args})\n    for {u} in UNROLL_RANGE(len({args})):\n        print({u}, {args}[{u}])\n"
        );
        body.push_str(&self.func_body(env, Some(ret.clone()), 1));
        let mut sig = vec![format!("*{args}: {annot}")];
        sig.extend(params[1..].iter().map(|(n, t)| format!("{n}: {}", t.spell())));
        self.defs.push(format!(
            "def {name}({}) -> {}:\n{body}",
            sig.join(", "),
            ret.spell()
        ));
        self.callee(name, flat, Some(ret), Feature::Packs);
    }

    /// `@force_inline def fiN(...) -> R:` declarations, then one return.
    pub(super) fn force_inline_func(&mut self) {
        self.mark(Feature::ForceInline);
        self.import("__spy__", "force_inline");
        let name = self.fresh("fi");
        let n = self.int(1, 3);
        let params: Vec<(String, Ty)> = (0..n).map(|_| (self.fresh("p"), self.scalar_ty())).collect();
        let ret = self.scalar_ty();
        let mut env = self.func_env(&params);
        let mut body = String::new();
        for _ in 0..self.int(0, 2) {
            let v = self.fresh("v");
            let t = self.scalar_ty();
            let e = self.expr(&env, &t, 2);
            body.push_str(&format!("    {v}: {} = {e}\n", t.spell()));
            env.locals.push(read_only(&v, t));
        }
        let conversions = self.on(Feature::InlineConversions);
        let e = if conversions {
            self.mark(Feature::InlineConversions);
            self.arg(&env, &ret, 2)
        } else {
            self.expr(&env, &ret, 2)
        };
        body.push_str(&format!("    return {e}\n"));
        let sig: Vec<String> = params
            .iter()
            .map(|(n, t)| format!("{n}: {}", t.spell()))
            .collect();
        self.defs.push(format!(
            "@force_inline\ndef {name}({}) -> {}:\n{body}",
            sig.join(", "),
            ret.spell()
        ));
        self.callee(
            name,
            params.into_iter().map(|(_, t)| t).collect(),
            Some(ret),
            Feature::ForceInline,
        );
        if !conversions {
            self.exact_last();
        }
    }

    /// `def mkN(x: i32) -> tuple[...]` that prints: a splat operand with a
    /// side effect.
    pub(super) fn noisy_tuple_func(&mut self) {
        self.mark(Feature::StaticTuples);
        let name = self.fresh("mk");
        let n = self.int(1, 3) as usize;
        let items: Vec<Ty> = (0..n).map(|_| self.scalar_ty()).collect();
        let x = self.fresh("p");
        let env = self.func_env(&[(x.clone(), Ty::I32)]);
        let parts: Vec<String> = items.iter().map(|t| self.expr(&env, t, 1)).collect();
        let ty = Ty::Tuple(items);
        self.defs.push(format!(
            "def {name}({x}: i32) -> {}:\n    print(\"{name}\", {x})\n    return {}\n",
            ty.spell(),
            super::expr::tuple_display(&parts)
        ));
        self.callee(name, vec![Ty::I32], Some(ty), Feature::StaticTuples);
    }
}
