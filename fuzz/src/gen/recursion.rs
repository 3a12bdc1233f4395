//! `recursion-live`: recursive functions whose depth is bounded by their
//! first parameter, with several values of mixed types computed before
//! the recursive call, live across it and combined with its result after
//! it (the jit's callee-saved registers and spill slots across calls of
//! the function itself). Sometimes two recursive calls (`d - 1` and
//! `d - 2`), whose results both stay live. `main` calls them at depths up
//! to 40 (one call per level) or 8 (two).
//!
//! Termination and size: every call passes `d - 1` or `d - 2` and the base
//! case is `d <= 0`; a `str` passed down is cut to 8 characters, so values
//! do not grow with the depth.

use super::stmt::read_only;
use super::types::{int_lit, Ty};
use super::{Callee, Gen};
use crate::config::Feature;

/// Whether a value of `from` converts implicitly to `to` (spec §4.2; the
/// table `arg` uses).
fn implicit(from: &Ty, to: &Ty) -> bool {
    match to {
        Ty::F64 => from.is_int() || *from == Ty::F32,
        Ty::I32 => matches!(from, Ty::I8 | Ty::U8 | Ty::U32),
        Ty::I64 => matches!(from, Ty::I8 | Ty::U8 | Ty::I32 | Ty::U32 | Ty::U64),
        _ => false,
    }
}

/// A literal of result type `r` (i32, i64 or f64) with value `v`.
fn lit(r: &Ty, v: i64) -> String {
    match r {
        Ty::F64 => format!("{v}.0"),
        t => int_lit(t, i128::from(v)),
    }
}

/// An expression of type `r` (i32, i64 or f64) computed from `v: t`.
fn as_result(v: &str, t: &Ty, r: &Ty) -> String {
    match t {
        t if t == r || implicit(t, r) => v.to_string(),
        Ty::Bool => format!("({} if {v} else {})", lit(r, 3), lit(r, -1)),
        Ty::Str => format!("len({v})"),
        Ty::F64 => format!("({} if {v} > 0.5 else {})", lit(r, 5), lit(r, -2)),
        Ty::F32 => format!("({} if {v} > f32(0.5) else {})", lit(r, 5), lit(r, -2)),
        // An integer that does not convert implicitly (to i32): its digits.
        _ => format!("len(str({v}))"),
    }
}

impl Gen<'_, '_> {
    /// `def rlN(d: i32, p...: T...) -> R` and its calls from `main`.
    pub(super) fn live_recursive_func(&mut self) {
        self.mark(Feature::RecursionLive);
        let mut tys = vec![Ty::I32, Ty::F64, Ty::Bool];
        if self.on(Feature::SmallInts) {
            tys.extend([Ty::I8, Ty::U8, Ty::U32]);
        }
        if self.on(Feature::WideInts) {
            tys.extend([Ty::I64, Ty::U64]);
        }
        if self.on(Feature::F32) {
            tys.push(Ty::F32);
        }
        if self.on(Feature::Str) {
            tys.push(Ty::Str);
        }
        let mut rets = vec![Ty::I32, Ty::F64];
        if self.on(Feature::WideInts) {
            rets.push(Ty::I64);
        }
        let r = rets[self.pick(rets.len())].clone();
        let name = self.fresh("rl");
        let nparams = self.int(2, 4) as usize;
        let params: Vec<(String, Ty)> = (0..nparams)
            .map(|k| (format!("p{k}"), tys[self.pick(tys.len())].clone()))
            .collect();
        let mut all = vec![("d".to_string(), Ty::I32)];
        all.extend(params.iter().cloned());
        let mut env = self.func_env(&all);
        // Calls of earlier callees only (a call of this function in a
        // generated expression would not pass a smaller depth).
        let rs = r.spell();
        let mut body = String::new();
        // Each value as an `R` through a typed local (the implicit
        // conversion of a declaration: binary operators do not mix types).
        let as_locals = |vals: &[(String, Ty)], prefix: &str, ind: &str, body: &mut String| -> Vec<String> {
            vals.iter()
                .enumerate()
                .map(|(k, (v, t))| {
                    let z = format!("{prefix}{k}");
                    body.push_str(&format!("{ind}{z}: {rs} = {}\n", as_result(v, t, &r)));
                    z
                })
                .collect()
        };
        body.push_str("    if d <= 0:\n");
        let base = as_locals(&params, "b", "        ", &mut body);
        body.push_str(&format!("        return {} - {}\n", lit(&r, 1), base.join(" - ")));
        // Values computed before the call, live across it.
        let mut live: Vec<(String, Ty)> = Vec::new();
        for k in 0..self.int(2, 4) {
            let t = tys[self.pick(tys.len())].clone();
            let e = self.expr(&env, &t, 2);
            let v = format!("v{k}");
            body.push_str(&format!("    {v}: {} = {e}\n", t.spell()));
            env.locals.push(read_only(&v, t.clone()));
            live.push((v, t));
        }
        let two = self.chance(1, 3);
        let mut calls = vec![("r1", "d - 1")];
        if two {
            calls.push(("r2", "d - 2"));
        }
        for (rv, depth) in &calls {
            let args: Vec<String> = params
                .iter()
                .map(|(_, t)| {
                    // A string argument is cut to 8 characters so that it
                    // cannot grow with the depth; the slice needs a `str`
                    // operand, not an argument that converts to one (a
                    // struct with `__convert_to__`, which `arg` may give).
                    if *t == Ty::Str {
                        format!("({})[0:8]", self.expr(&env, t, 1))
                    } else {
                        self.arg(&env, t, 1)
                    }
                })
                .collect();
            body.push_str(&format!(
                "    {rv}: {rs} = {name}({depth}, {})\n",
                args.join(", ")
            ));
        }
        if self.chance(1, 2) {
            let shown: Vec<&str> = live.iter().map(|(v, _)| v.as_str()).collect();
            body.push_str(&format!("    print(\"{name}\", d, {}, r1)\n", shown.join(", ")));
        }
        // Everything live is combined with the results.
        let mut combined: Vec<String> = calls.iter().map(|(rv, _)| rv.to_string()).collect();
        combined.extend(as_locals(&live, "z", "    ", &mut body));
        combined.extend(as_locals(&params, "y", "    ", &mut body));
        let ops = ["+", "-", "*"];
        let mut e = combined[0].clone();
        for c in &combined[1..] {
            // Integers wrap; an f64 may reach inf or NaN (printed alike).
            let op = ops[self.pick(ops.len())];
            e = format!("({e} {op} {c})");
        }
        body.push_str(&format!("    return {e}\n"));
        let sig: Vec<String> = all.iter().map(|(p, t)| format!("{p}: {}", t.spell())).collect();
        self.defs
            .push(format!("def {name}({}) -> {rs}:\n{body}", sig.join(", ")));
        // Calls from `main`: deep for one call per level, shallow for two.
        for _ in 0..self.int(1, 2) {
            let depth = if two {
                self.int(0, 8)
            } else {
                [0i64, 1, 3, 12, 40][self.pick(5)]
            };
            let menv = self.func_env(&[]);
            let args: Vec<String> = params.iter().map(|(_, t)| self.arg(&menv, t, 1)).collect();
            self.backend_calls
                .push(format!("print({name}({depth}, {}))", args.join(", ")));
        }
        let mut ptys = vec![Ty::I32];
        ptys.extend(params.iter().map(|(_, t)| t.clone()));
        self.callees.push(Callee {
            text: name,
            params: ptys,
            ret: Some(r),
            leaf_args: false,
            exact_args: false,
            feature: Some(Feature::RecursionLive),
            blue: false,
            bounded_first: true,
        });
    }
}
