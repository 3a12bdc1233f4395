//! Statement and function-body generation: declarations, assignments,
//! prints of intermediate values, `if`/`while`/`for range` (bounded),
//! `UNROLL_RANGE` loops (nested, with fresh `const` declarations, blue
//! calls on the loop variable, tuple indexing by it), blue conditions
//! with ill-typed dead branches, early returns, `break`/`continue`.

use super::types::Ty;
use super::{Env, Gen, Local};
use crate::config::Feature;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum LoopKind {
    Regular,
    Unroll,
}

/// The function whose body is being generated.
pub(crate) struct FnCtx {
    pub env: Env,
    pub ret: Option<Ty>,
    pub loops: Vec<LoopKind>,
    pub depth: u32,
}

impl FnCtx {
    pub fn new(env: Env, ret: Option<Ty>) -> FnCtx {
        FnCtx {
            env,
            ret,
            loops: Vec::new(),
            depth: 0,
        }
    }

    fn in_unroll(&self) -> bool {
        self.loops.contains(&LoopKind::Unroll)
    }
}

fn pad(ind: usize) -> String {
    "    ".repeat(ind)
}

impl Gen<'_, '_> {
    fn edepth(&mut self) -> u32 {
        self.int(0, i64::from(self.cfg.max_expr_depth)) as u32
    }

    /// A whole body: statements, then `return e` for a typed function.
    pub fn func_body(&mut self, env: Env, ret: Option<Ty>, ind: usize) -> String {
        let mut ctx = FnCtx::new(env, ret.clone());
        let mut out = String::new();
        let n = self.int(0, i64::from(self.cfg.max_stmts)) as usize;
        self.stmts_into(&mut ctx, ind, &mut out, n);
        if let Some(t) = &ret {
            let d = self.edepth();
            let e = self.arg(&ctx.env, t, d);
            out.push_str(&format!("{}return {e}\n", pad(ind)));
        }
        if out.is_empty() {
            out.push_str(&format!("{}pass\n", pad(ind)));
        }
        out
    }

    /// Up to `max` statements in a nested block; its declarations go out
    /// of the generator's scope at the end (they may be unassigned).
    pub fn block_into(&mut self, ctx: &mut FnCtx, ind: usize, out: &mut String, max: usize) {
        let mark = ctx.env.locals.len();
        let n = self.int(1, max.max(1) as i64) as usize;
        let before = out.len();
        self.stmts_into(ctx, ind, out, n);
        if out.len() == before {
            out.push_str(&format!("{}pass\n", pad(ind)));
        }
        ctx.env.locals.truncate(mark);
    }

    fn stmts_into(&mut self, ctx: &mut FnCtx, ind: usize, out: &mut String, n: usize) {
        for _ in 0..n {
            if self.u.is_empty() {
                break;
            }
            self.stmt(ctx, ind, out);
        }
    }

    fn nested_block(&mut self, ctx: &mut FnCtx, ind: usize, out: &mut String) {
        ctx.depth += 1;
        let max = (self.cfg.max_stmts / 2).max(1) as usize;
        self.block_into(ctx, ind, out, max);
        ctx.depth -= 1;
    }

    fn stmt(&mut self, ctx: &mut FnCtx, ind: usize, out: &mut String) {
        let p = pad(ind);
        let nest = ctx.depth < u32::from(self.cfg.max_block_depth);
        let d = self.edepth();
        match self.pick(20) {
            0..=3 if self.on(Feature::ColorStaticType) && self.chance(1, 5) => {
                let e = self.static_type_item(&ctx.env, d);
                out.push_str(&format!("{p}print({e})\n"));
            }
            0..=3 => {
                let n = self.int(1, 3);
                let items: Vec<String> = (0..n)
                    .map(|_| {
                        let t = self.any_ty(1);
                        self.expr(&ctx.env, &t, d)
                    })
                    .collect();
                out.push_str(&format!("{p}print({})\n", items.join(", ")));
            }
            4..=6 => self.decl(ctx, ind, out, d),
            7 | 8 => self.assign(ctx, ind, out, d),
            9 if nest && self.on(Feature::IfElse) => {
                self.mark(Feature::IfElse);
                let c = self.cond(&ctx.env, d);
                out.push_str(&format!("{p}if {c}:\n"));
                self.nested_block(ctx, ind + 1, out);
                if self.chance(1, 2) {
                    out.push_str(&format!("{p}else:\n"));
                    self.nested_block(ctx, ind + 1, out);
                }
            }
            10 if nest && self.on(Feature::While) => {
                self.mark(Feature::While);
                let w = self.fresh("w");
                let n = self.int(0, 4);
                out.push_str(&format!("{p}var {w} = 0\n{p}while {w} < {n}:\n{p}    {w} += 1\n"));
                ctx.env.locals.push(read_only(&w, Ty::I32));
                ctx.loops.push(LoopKind::Regular);
                self.nested_block(ctx, ind + 1, out);
                ctx.loops.pop();
            }
            11 if nest && self.on(Feature::ForRange) => {
                self.mark(Feature::ForRange);
                let i = self.fresh("i");
                let range = match self.pick(3) {
                    0 => format!("range({})", self.int(0, 4)),
                    1 => format!("range({}, {})", self.int(-2, 2), self.int(0, 4)),
                    _ => format!(
                        "range({}, {}, {})",
                        self.int(3, 6),
                        self.int(-2, 2),
                        -self.int(1, 2)
                    ),
                };
                out.push_str(&format!("{p}for {i} in {range}:\n"));
                let mark = ctx.env.locals.len();
                ctx.env.locals.push(read_only(&i, Ty::I32));
                ctx.loops.push(LoopKind::Regular);
                self.nested_block(ctx, ind + 1, out);
                ctx.loops.pop();
                ctx.env.locals.truncate(mark);
            }
            12 if nest && self.on(Feature::UnrollRange) => self.unroll(ctx, ind, out),
            13 if nest && self.on(Feature::BlueDeadBranches) => {
                self.mark(Feature::BlueDeadBranches);
                let (c, truth) = self.blue_cond();
                let dead = {
                    let ill = ["(\"a\" + 1)", "undefined_name_q", "len(5)", "(1 + None)"];
                    format!("{p}    print({})\n", ill[self.pick(ill.len())])
                };
                out.push_str(&format!("{p}if {c}:\n"));
                if truth {
                    self.nested_block(ctx, ind + 1, out);
                    out.push_str(&format!("{p}else:\n{dead}"));
                } else {
                    out.push_str(&dead);
                    out.push_str(&format!("{p}else:\n"));
                    self.nested_block(ctx, ind + 1, out);
                }
            }
            14 => {
                let cands: Vec<usize> = (0..ctx.env.callees).filter(|&k| !self.callees[k].blue).collect();
                if !cands.is_empty() {
                    let k = cands[self.pick(cands.len())];
                    let c = self.callees[k].clone();
                    let call = self.call_expr(&ctx.env, &c, d);
                    out.push_str(&format!("{p}{call}\n"));
                }
            }
            15 if ctx.depth > 0 => {
                // An early return, under a condition.
                let c = self.cond(&ctx.env, d);
                let r = match ctx.ret.clone() {
                    Some(t) => format!("return {}", self.arg(&ctx.env, &t, d)),
                    None => "return".to_string(),
                };
                out.push_str(&format!("{p}if {c}:\n{p}    {r}\n"));
            }
            16 if ctx.loops.last() == Some(&LoopKind::Regular) => {
                let c = self.cond(&ctx.env, d);
                let j = ["break", "continue"][self.pick(2)];
                out.push_str(&format!("{p}if {c}:\n{p}    {j}\n"));
            }
            17 if self.on(Feature::GcPtr) => self.ptr_block(ctx, ind, out),
            18 if self.on(Feature::Simd) => self.simd_block(ctx, ind, out),
            19 if self.on(Feature::SetItem) && !self.setitems.is_empty() => {
                let s = self.setitem_stmt(&ctx.env, &p, d);
                out.push_str(&s);
            }
            _ => {
                let t = self.any_ty(1);
                let e = self.expr(&ctx.env, &t, d);
                out.push_str(&format!("{p}print({e})\n"));
            }
        }
    }

    /// A declaration of a fresh local.
    fn decl(&mut self, ctx: &mut FnCtx, ind: usize, out: &mut String, d: u32) {
        let p = pad(ind);
        let name = self.fresh("v");
        let in_unroll = ctx.in_unroll();
        // Tuple unpacking.
        if !in_unroll && self.on(Feature::StaticTuples) && self.chance(1, 8) {
            let n = self.int(2, 3) as usize;
            let items: Vec<Ty> = (0..n).map(|_| self.scalar_ty()).collect();
            let e = self.expr(&ctx.env, &Ty::Tuple(items.clone()), d);
            let names: Vec<String> = (0..n).map(|_| self.fresh("v")).collect();
            out.push_str(&format!("{p}{} = {e}\n", names.join(", ")));
            for (n, t) in names.iter().zip(items) {
                ctx.env.locals.push(read_only(n, t));
            }
            self.mark(Feature::StaticTuples);
            return;
        }
        // An annotation computed by a blue function.
        if !self.type_pickers.is_empty() && self.chance(1, 6) {
            let k = self.pick(self.type_pickers.len());
            let (f, a, b) = self.type_pickers[k].clone();
            let flag = self.chance(1, 2);
            let ty = if flag { a } else { b };
            let e = self.expr(&ctx.env, &ty, d);
            let flag = if flag { "True" } else { "False" };
            out.push_str(&format!("{p}{name}: {f}({flag}) = {e}\n"));
            ctx.env.locals.push(read_only(&name, ty));
            self.mark(Feature::BlueFuncs);
            return;
        }
        let ty = self.any_ty(1);
        let form = if in_unroll { self.pick(2) * 2 } else { self.pick(4) };
        match form {
            0 => {
                let e = self.expr(&ctx.env, &ty, d);
                out.push_str(&format!("{p}const {name} = {e}\n"));
                ctx.env.locals.push(read_only(&name, ty));
            }
            1 => {
                let e = self.expr(&ctx.env, &ty, d);
                out.push_str(&format!("{p}{name} = {e}\n"));
                ctx.env.locals.push(read_only(&name, ty));
            }
            2 => {
                let e = self.arg(&ctx.env, &ty, d);
                out.push_str(&format!("{p}{name}: {} = {e}\n", self.spell_annot(&ty)));
                ctx.env.locals.push(read_only(&name, ty));
            }
            _ => {
                let e = self.arg(&ctx.env, &ty, d);
                out.push_str(&format!("{p}var {name}: {} = {e}\n", self.spell_annot(&ty)));
                ctx.env.locals.push(Local {
                    name,
                    ty,
                    mutable: true,
                    blue_range: None,
                });
            }
        }
    }

    /// A type annotation; tuple types sometimes through a blue splat of a
    /// tuple of types (`tuple[*TS1, f64]`).
    fn spell_annot(&mut self, ty: &Ty) -> String {
        if let Ty::Tuple(items) = ty {
            for (name, types) in self.type_tuples.clone() {
                if items.starts_with(&types) && self.on(Feature::Splats) && self.chance(1, 2) {
                    self.mark(Feature::Splats);
                    let rest: Vec<String> = items[types.len()..].iter().map(Ty::spell).collect();
                    let mut parts = vec![format!("*{name}")];
                    parts.extend(rest);
                    return format!("tuple[{}]", parts.join(", "));
                }
            }
        }
        ty.spell()
    }

    /// An assignment to a `var` local or a module `var`.
    fn assign(&mut self, ctx: &mut FnCtx, ind: usize, out: &mut String, d: u32) {
        let p = pad(ind);
        let mut targets: Vec<(String, Ty)> = ctx
            .env
            .locals
            .iter()
            .filter(|l| l.mutable)
            .map(|l| (l.name.clone(), l.ty.clone()))
            .collect();
        targets.extend(self.globals.clone());
        if targets.is_empty() {
            return self.decl(ctx, ind, out, d);
        }
        let (name, ty) = targets.swap_remove(self.pick(targets.len()));
        if self.globals.iter().any(|(n, _)| *n == name) {
            self.mark(Feature::ModuleVars);
        }
        let aug: &[&str] = match &ty {
            t if t.is_int() => &["+=", "-=", "*=", "^=", "|=", "&="],
            t if t.is_float() => &["+=", "-=", "*="],
            Ty::Str => &["+="],
            _ => &[],
        };
        if !aug.is_empty() && self.chance(1, 2) {
            let op = aug[self.pick(aug.len())];
            let e = self.expr(&ctx.env, &ty, d);
            out.push_str(&format!("{p}{name} {op} {e}\n"));
        } else {
            let e = self.arg(&ctx.env, &ty, d);
            out.push_str(&format!("{p}{name} = {e}\n"));
        }
    }

    /// A blue trip count in `0..=max`, as text with its possible range.
    fn blue_count(&mut self, env: &Env, max: i64) -> (String, i64, i64) {
        let mut cands: Vec<(String, i64, i64)> = Vec::new();
        for l in &env.locals {
            if let Some((lo, hi)) = l.blue_range {
                if lo >= 0 && hi < max {
                    cands.push((format!("({} + 1)", l.name), lo + 1, hi + 1));
                    cands.push((l.name.clone(), lo, hi));
                }
            }
            if let Ty::Tuple(items) = &l.ty {
                if (items.len() as i64) <= max {
                    cands.push((format!("len({})", l.name), items.len() as i64, items.len() as i64));
                }
            }
        }
        for c in &self.consts {
            if (0..=max).contains(&c.value) {
                cands.push((c.name.clone(), c.value, c.value));
            }
        }
        if !cands.is_empty() && self.chance(2, 3) {
            return cands.swap_remove(self.pick(cands.len()));
        }
        let n = self.int(0, max);
        (n.to_string(), n, n)
    }

    /// `for u in UNROLL_RANGE(n):` with a body in which `u` is blue.
    fn unroll(&mut self, ctx: &mut FnCtx, ind: usize, out: &mut String) {
        self.mark(Feature::UnrollRange);
        self.import("__spy__", "UNROLL_RANGE");
        let p = pad(ind);
        let u = self.fresh("u");
        let (count, lo, hi) = self.blue_count(&ctx.env, 4);
        out.push_str(&format!("{p}for {u} in UNROLL_RANGE({count}):\n"));
        let mark = ctx.env.locals.len();
        if hi >= 1 {
            ctx.env.locals.push(Local {
                name: u.clone(),
                ty: Ty::I32,
                mutable: false,
                blue_range: Some((0, hi - 1)),
            });
        }
        let _ = lo;
        ctx.loops.push(LoopKind::Unroll);
        if hi >= 1 && self.chance(1, 2) {
            // A fresh const per copy, computed from the loop variable.
            let c = self.fresh("c");
            let e = self.blue_i32(&ctx.env, 1);
            out.push_str(&format!("{p}    const {c} = {e}\n{p}    print({u}, {c})\n"));
            ctx.env.locals.push(read_only(&c, Ty::I32));
        }
        ctx.depth += 1;
        let before = out.len();
        let max = (self.cfg.max_stmts / 2).max(1) as usize;
        let n = self.int(1, max as i64) as usize;
        self.stmts_into(ctx, ind + 1, out, n);
        if out.len() == before {
            out.push_str(&format!("{p}    pass\n"));
        }
        ctx.depth -= 1;
        ctx.loops.pop();
        ctx.env.locals.truncate(mark);
    }
}

pub(crate) fn read_only(name: &str, ty: Ty) -> Local {
    Local {
        name: name.to_string(),
        ty,
        mutable: false,
        blue_range: None,
    }
}
