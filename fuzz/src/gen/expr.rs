//! Typed expression generation: `expr(env, ty, depth)` builds an
//! expression whose static type is exactly `ty`, from the productions
//! valid for that type. Every compound expression is parenthesized, so
//! precedence never matters.

use super::types::{int_lit, Ty, F32_LITS, F64_LITS, STR_LITS};
use super::{Callee, Env, Gen, Local};
use crate::config::Feature;

/// Ill-typed expressions for dead branches (never evaluated).
const ILL_TYPED: &[&str] = &[
    "(\"a\" + 1)",
    "(1 + \"a\")",
    "len(5)",
    "undefined_name_q",
    "(True + 1)",
    "(1.5 // \"x\")",
];

impl Gen<'_, '_> {
    /// A literal of `ty` (a display of literals for tuples and structs).
    pub fn literal(&mut self, env: &Env, ty: &Ty) -> String {
        let _ = env;
        match ty {
            Ty::Bool => if self.chance(1, 2) { "True" } else { "False" }.to_string(),
            Ty::F64 => self.u.choose(F64_LITS).copied().unwrap_or("0.0").to_string(),
            Ty::F32 => format!("f32({})", self.u.choose(F32_LITS).copied().unwrap_or("0.0")),
            Ty::Str => self.u.choose(STR_LITS).copied().unwrap_or("\"\"").to_string(),
            Ty::Tuple(items) => {
                let items: Vec<String> = items.iter().map(|t| self.literal(env, t)).collect();
                tuple_display(&items)
            }
            Ty::Struct(k, name) => {
                let fields = self.structs[*k].clone();
                let args: Vec<String> = fields.iter().map(|t| self.literal(env, t)).collect();
                format!("{name}({})", args.join(", "))
            }
            int => {
                let v = if self.chance(1, 3) {
                    self.int(-3, 12) as i128
                } else {
                    let edges = int.int_edges();
                    edges[self.pick(edges.len())]
                };
                let v = clamp_to(int, v);
                int_lit(int, v)
            }
        }
    }

    /// A variable or literal of `ty`.
    fn leaf(&mut self, env: &Env, ty: &Ty) -> String {
        let mut names: Vec<String> = env.of_type(ty).map(|l| l.name.clone()).collect();
        if *ty == Ty::I32 {
            names.extend(self.consts.iter().map(|c| c.name.clone()));
        }
        names.extend(
            self.blue_exprs
                .iter()
                .filter(|(_, t)| t == ty)
                .map(|(n, _)| n.clone()),
        );
        if !env.pure {
            names.extend(
                self.globals
                    .iter()
                    .filter(|(_, t)| t == ty)
                    .map(|(n, _)| n.clone()),
            );
            names.extend(
                self.tuple_consts
                    .iter()
                    .filter(|(_, t)| t == ty)
                    .map(|(n, _)| n.clone()),
            );
        }
        if !names.is_empty() && self.chance(2, 3) {
            let k = self.pick(names.len());
            return names.swap_remove(k);
        }
        self.literal(env, ty)
    }

    /// An expression of exactly type `ty`.
    pub fn expr(&mut self, env: &Env, ty: &Ty, depth: u32) -> String {
        if let Some(f) = ty.feature() {
            self.mark(f);
        }
        if depth == 0 || self.chance(1, 4) {
            return self.leaf(env, ty);
        }
        let d = depth - 1;
        // Productions common to every type.
        match self.pick(12) {
            0 => {
                if let Some(e) = self.call_returning(env, ty, d) {
                    return e;
                }
            }
            1 => {
                if let Some(e) = self.item_of(env, ty, d) {
                    return e;
                }
            }
            2 => {
                let c = self.cond(env, d);
                let a = self.expr(env, ty, d);
                let b = self.expr(env, ty, d);
                return format!("({a} if {c} else {b})");
            }
            3 if self.on(Feature::BlueDeadBranches) && !self.consts.is_empty() => {
                return self.dead_branch_ifexp(env, ty, d);
            }
            4 if !env.pure => {
                if let Some(e) = self.dunder_returning(env, ty, d) {
                    return e;
                }
            }
            _ => {}
        }
        match ty {
            t if t.is_int() => self.int_expr(env, t, d),
            t if t.is_float() => self.float_expr(env, t, d),
            Ty::Bool => self.bool_expr(env, d),
            Ty::Str => self.str_expr(env, d),
            Ty::Tuple(items) => self.tuple_expr(env, items, d),
            Ty::Struct(k, name) => {
                let fields = self.structs[*k].clone();
                let args: Vec<String> = fields.iter().map(|t| self.expr(env, t, d)).collect();
                format!("{name}({})", args.join(", "))
            }
            _ => self.leaf(env, ty),
        }
    }

    /// A divisor of type `ty` that is never zero (unless the config's
    /// division-by-zero rate says otherwise).
    fn divisor(&mut self, env: &Env, ty: &Ty, d: u32) -> String {
        if !env.pure && self.on(Feature::DivZero) && self.chance(u32::from(self.cfg.div_zero_permille), 1000)
        {
            self.mark(Feature::DivZero);
            return self.expr(env, ty, d);
        }
        match ty {
            t if t.is_int() => {
                if self.chance(1, 2) {
                    let v = [1i128, 2, 3, 7, -1, -2, 10][self.pick(if t.is_signed() { 7 } else { 4 })];
                    int_lit(t, v)
                } else {
                    let e = self.expr(env, t, d);
                    format!("({e} | {})", int_lit(t, 1))
                }
            }
            Ty::F64 => {
                if self.chance(1, 2) {
                    ["2.0", "0.5", "-3.0", "1e-300", "7.0"][self.pick(5)].to_string()
                } else {
                    let e = self.expr(env, &Ty::F64, d);
                    format!("(abs({e}) + 1.0)")
                }
            }
            _ => format!("f32({})", ["2.0", "0.5", "-3.0", "7.0"][self.pick(4)]),
        }
    }

    fn int_expr(&mut self, env: &Env, ty: &Ty, d: u32) -> String {
        let t = ty.spell();
        match self.pick(10) {
            0..=2 => {
                let op = ["+", "-", "*", "&", "|", "^"][self.pick(6)];
                let a = self.expr(env, ty, d);
                let b = self.expr(env, ty, d);
                format!("({a} {op} {b})")
            }
            3 => {
                self.mark(Feature::ArithEdges);
                let op = ["//", "%"][self.pick(2)];
                let a = self.expr(env, ty, d);
                let b = self.divisor(env, ty, d);
                format!("({a} {op} {b})")
            }
            4 if self.on(Feature::ArithEdges) => {
                self.mark(Feature::ArithEdges);
                let op = ["<<", ">>"][self.pick(2)];
                let a = self.expr(env, ty, d);
                let b = self.expr(env, ty, d);
                let mask = int_lit(
                    ty,
                    i128::from((ty.bits() * 2 - 1).min(15 + 112 * u32::from(ty.bits() > 8))),
                );
                format!("({a} {op} ({b} & {mask}))")
            }
            5 if self.on(Feature::ArithEdges) => {
                self.mark(Feature::ArithEdges);
                let a = self.expr(env, ty, d);
                let k = self.int(0, 4);
                format!("({a} ** {})", int_lit(ty, i128::from(k)))
            }
            6 if ty.is_signed() => {
                let a = self.expr(env, ty, d);
                format!("(-{a})")
            }
            7 if self.on(Feature::Conversions) => self.explicit_conversion(env, ty, d),
            8 if *ty == Ty::I32 => match self.pick(5) {
                0 if self.on(Feature::Str) => {
                    let s = self.expr(env, &Ty::Str, d);
                    format!("len({s})")
                }
                1 => {
                    let a = self.expr(env, ty, d);
                    format!("abs({a})")
                }
                2 => {
                    let f = ["min", "max"][self.pick(2)];
                    let a = self.expr(env, ty, d);
                    let b = self.expr(env, ty, d);
                    format!("{f}({a}, {b})")
                }
                3 if self.on(Feature::StaticTuples) => {
                    // `len` of a static tuple folds to a constant: only side-effect-free operands.
                    let tuples: Vec<String> = env
                        .locals
                        .iter()
                        .filter(|l| matches!(l.ty, Ty::Tuple(_)))
                        .map(|l| l.name.clone())
                        .collect();
                    if tuples.is_empty() {
                        self.leaf(env, ty)
                    } else {
                        let k = self.pick(tuples.len());
                        format!("len({})", tuples[k])
                    }
                }
                _ if self.on(Feature::BlueFuncs) => {
                    self.blue_call(env, d).unwrap_or_else(|| self.leaf(env, ty))
                }
                _ => self.leaf(env, ty),
            },
            _ => {
                let _ = t;
                self.leaf(env, ty)
            }
        }
    }

    /// `T(x)` for a source type the explicit conversion table accepts.
    pub(super) fn explicit_conversion(&mut self, env: &Env, ty: &Ty, d: u32) -> String {
        self.mark(Feature::Conversions);
        let from = conversion_sources(ty);
        let allowed: Vec<Ty> = from.iter().filter(|t| self.ty_on(t)).cloned().collect();
        if allowed.is_empty() {
            return self.leaf(env, ty);
        }
        let src = allowed[self.pick(allowed.len())].clone();
        if src == Ty::Str {
            // str → int parses; round-trip a value of the target type.
            let e = self.expr(env, ty, d);
            return format!("{}(str({e}))", ty.spell());
        }
        let e = self.expr(env, &src, d);
        // `T(<int literal>)` would be a typed literal (range-checked at
        // parse time), not a conversion.
        let bare = e.trim_start_matches(['(', '-']).trim_end_matches(')');
        if !bare.is_empty() && bare.bytes().all(|b| b.is_ascii_digit()) {
            return format!("{}(({e} + 0))", ty.spell());
        }
        format!("{}({e})", ty.spell())
    }

    /// Whether values of `t` may appear (its feature is on).
    pub fn ty_on(&self, t: &Ty) -> bool {
        match t {
            Ty::Tuple(items) => self.on(Feature::StaticTuples) && items.iter().all(|t| self.ty_on(t)),
            t => t.feature().is_none_or(|f| self.on(f)),
        }
    }

    fn float_expr(&mut self, env: &Env, ty: &Ty, d: u32) -> String {
        match self.pick(9) {
            0..=2 => {
                let op = ["+", "-", "*"][self.pick(3)];
                let a = self.expr(env, ty, d);
                let b = self.expr(env, ty, d);
                format!("({a} {op} {b})")
            }
            3 => {
                let op = ["/", "//", "%"][self.pick(3)];
                if op != "/" {
                    self.mark(Feature::ArithEdges);
                }
                let a = self.expr(env, ty, d);
                let b = self.divisor(env, ty, d);
                format!("({a} {op} {b})")
            }
            4 if *ty == Ty::F64 => {
                // Mixed int/float arithmetic (§6.3).
                let mut others = vec![Ty::I32];
                for t in [Ty::I8, Ty::U8, Ty::U32, Ty::F32] {
                    if self.ty_on(&t) {
                        others.push(t);
                    }
                }
                let o = others[self.pick(others.len())].clone();
                let op = ["+", "-", "*"][self.pick(3)];
                let a = self.expr(env, ty, d);
                let b = self.expr(env, &o, d);
                if self.chance(1, 2) {
                    format!("({a} {op} {b})")
                } else {
                    format!("({b} {op} {a})")
                }
            }
            5 if *ty == Ty::F64 => {
                // Integer true division gives f64.
                let it = if self.on(Feature::WideInts) && self.chance(1, 3) {
                    Ty::I64
                } else {
                    Ty::I32
                };
                let a = self.expr(env, &it, d);
                let b = self.divisor(env, &it, d);
                format!("({a} / {b})")
            }
            6 if self.on(Feature::Conversions) => self.explicit_conversion(env, ty, d),
            7 => {
                let a = self.expr(env, ty, d);
                format!("(-{a})")
            }
            8 if self.on(Feature::ArithEdges) && *ty == Ty::F64 && !env.pure => {
                self.mark(Feature::ArithEdges);
                let a = self.expr(env, ty, d);
                match self.pick(3) {
                    0 => format!("(abs({a}) ** 0.5)"),
                    // May overflow (OverflowError): an error on purpose.
                    1 if self.on(Feature::DivZero) => {
                        self.mark(Feature::DivZero);
                        format!("({a} ** 2.0)")
                    }
                    _ => format!("max({a}, {})", self.expr(env, ty, d)),
                }
            }
            _ => self.leaf(env, ty),
        }
    }

    /// A comparison of two values of the same type, or a bool operator.
    fn bool_expr(&mut self, env: &Env, d: u32) -> String {
        match self.pick(9) {
            0..=2 => {
                let t = self.scalar_ty();
                let a = self.expr(env, &t, d);
                let b = self.expr(env, &t, d);
                let ops: &[&str] = match t {
                    Ty::Str => &["==", "!="],
                    Ty::Bool => &["==", "!=", "&", "|", "^"],
                    _ => &["==", "!=", "<", "<=", ">", ">="],
                };
                let op = ops[self.pick(ops.len())];
                format!("({a} {op} {b})")
            }
            3 => {
                let op = ["and", "or"][self.pick(2)];
                let a = self.bool_operand(env, d);
                let b = self.bool_operand(env, d);
                format!("({a} {op} {b})")
            }
            4 => {
                let a = self.cond(env, d);
                format!("(not {a})")
            }
            5 => {
                let t = [Ty::I32, Ty::F64, Ty::Str][self.pick(3)].clone();
                if !self.ty_on(&t) {
                    return self.leaf(env, &Ty::Bool);
                }
                let x = self.expr(env, &t, d);
                let n = self.int(1, 3);
                let items: Vec<String> = (0..n).map(|_| self.expr(env, &t, d)).collect();
                format!("({x} in {})", tuple_display(&items))
            }
            6 if self.on(Feature::StaticTuples) || !self.structs.is_empty() => {
                // Deep equality of tuples or structs.
                let t = self.any_ty(1);
                if t.is_scalar() || matches!(t, Ty::Struct(k, _) if self.eq_guard == Some(k)) {
                    return self.leaf(env, &Ty::Bool);
                }
                let a = self.expr(env, &t, d);
                let b = self.expr(env, &t, d);
                let op = ["==", "!="][self.pick(2)];
                format!("({a} {op} {b})")
            }
            7 if self.on(Feature::Str) => {
                let a = self.expr(env, &Ty::Str, d);
                let b = self.expr(env, &Ty::Str, d);
                format!("({a} in {b})")
            }
            8 if self.on(Feature::ColorStaticType) => self.static_type_test(env, d),
            _ => self.leaf(env, &Ty::Bool),
        }
    }

    /// An operand of `and`/`or`: a bool, or (with `IntBoolOps`) an i32.
    fn bool_operand(&mut self, env: &Env, d: u32) -> String {
        if self.on(Feature::IntBoolOps) && self.chance(1, 4) {
            self.mark(Feature::IntBoolOps);
            self.expr(env, &Ty::I32, d)
        } else {
            self.expr(env, &Ty::Bool, d)
        }
    }

    /// A condition: a bool, or an i32 (converted to bool).
    pub fn cond(&mut self, env: &Env, d: u32) -> String {
        if self.chance(1, 6) {
            self.expr(env, &Ty::I32, d)
        } else {
            self.expr(env, &Ty::Bool, d)
        }
    }

    fn str_expr(&mut self, env: &Env, d: u32) -> String {
        match self.pick(8) {
            0 | 1 => {
                let a = self.expr(env, &Ty::Str, d);
                let b = self.expr(env, &Ty::Str, d);
                format!("({a} + {b})")
            }
            2 => {
                let t = self.any_ty(1);
                let e = self.expr(env, &t, d);
                format!("str({e})")
            }
            3 => {
                let a = self.expr(env, &Ty::Str, d);
                format!("({a} * {})", self.int(0, 3))
            }
            4 => {
                let a = self.expr(env, &Ty::Str, d);
                match self.pick(4) {
                    0 => format!("{a}.upper()"),
                    1 => format!("{a}.replace(\"l\", \"LL\")"),
                    2 => format!("repr({a})"),
                    _ => format!("{a}[::-1]"),
                }
            }
            6 if self.on(Feature::ColorStaticType) => self.color_or_type_name(env, d),
            5 => {
                let a = self.expr(env, &Ty::Str, d);
                let lo = self.int(-2, 3);
                let hi = self.int(-1, 5);
                format!("{a}[{lo}:{hi}]")
            }
            _ => self.leaf(env, &Ty::Str),
        }
    }

    /// A tuple of the given item types: display, splats, splice loop.
    fn tuple_expr(&mut self, env: &Env, items: &[Ty], d: u32) -> String {
        if !items.is_empty()
            && self.on(Feature::SpliceUnroll)
            && items.iter().all(|t| *t == items[0])
            && self.chance(1, 3)
        {
            let one = self.splice_unroll(env, &items[0], items.len(), d);
            return format!("({one},)");
        }
        if self.on(Feature::Splats) && items.len() >= 2 && self.chance(1, 2) {
            let parts = self.splat_args(env, items, d);
            return tuple_display(&parts);
        }
        let parts: Vec<String> = items.iter().map(|t| self.expr(env, t, d)).collect();
        tuple_display(&parts)
    }

    /// `*(elt for k in UNROLL_RANGE(n))` producing `n` items of `ty`.
    pub fn splice_unroll(&mut self, env: &Env, ty: &Ty, n: usize, d: u32) -> String {
        self.mark(Feature::SpliceUnroll);
        self.import("__spy__", "UNROLL_RANGE");
        let k = self.fresh("k");
        let mut inner = env.clone();
        inner.locals.push(Local {
            name: k.clone(),
            ty: Ty::I32,
            mutable: false,
            blue_range: Some((0, n as i64 - 1)),
        });
        let elt = self.expr(&inner, ty, d.max(1));
        format!("*({elt} for {k} in UNROLL_RANGE({n}))")
    }

    /// Items (plain and starred) that splice to exactly `types`.
    pub fn splat_args(&mut self, env: &Env, types: &[Ty], d: u32) -> Vec<String> {
        self.mark(Feature::Splats);
        let mut out = Vec::new();
        let mut i = 0;
        while i < types.len() {
            let len = self.int(0, (types.len() - i) as i64) as usize;
            if len == 0 {
                out.push(self.expr(env, &types[i], d));
                i += 1;
                continue;
            }
            let seg = &types[i..i + len];
            if self.on(Feature::SpliceUnroll) && seg.iter().all(|t| *t == seg[0]) && self.chance(1, 4) {
                out.push(self.splice_unroll(env, &seg[0], len, d));
            } else {
                out.push(format!("*{}", self.splat_operand(env, seg, d)));
            }
            i += len;
        }
        out
    }

    /// An operand for `*e` of type `tuple[seg...]`: a tuple variable, a
    /// blue tuple constant, a call (side effects!) or a display.
    fn splat_operand(&mut self, env: &Env, seg: &[Ty], d: u32) -> String {
        let ty = Ty::Tuple(seg.to_vec());
        let mut names: Vec<String> = env.of_type(&ty).map(|l| l.name.clone()).collect();
        names.extend(
            self.tuple_consts
                .iter()
                .filter(|(_, t)| *t == ty)
                .map(|(n, _)| n.clone()),
        );
        if !names.is_empty() && self.chance(1, 2) {
            return names[self.pick(names.len())].clone();
        }
        if let Some(e) = self.call_returning(env, &ty, d) {
            return e;
        }
        let parts: Vec<String> = seg.iter().map(|t| self.expr(env, t, d)).collect();
        tuple_display(&parts)
    }

    /// A call of some callee returning `ty`, if one exists.
    fn call_returning(&mut self, env: &Env, ty: &Ty, d: u32) -> Option<String> {
        let cands: Vec<usize> = (0..env.callees)
            .filter(|&k| !env.pure && !self.callees[k].blue && self.callees[k].ret.as_ref() == Some(ty))
            .collect();
        if cands.is_empty() {
            return None;
        }
        let k = cands[self.pick(cands.len())];
        let c = self.callees[k].clone();
        Some(self.call_expr(env, &c, d))
    }

    /// `callee(args)`, arguments possibly spliced or implicitly converted.
    pub fn call_expr(&mut self, env: &Env, c: &Callee, d: u32) -> String {
        if let Some(f) = c.feature {
            self.mark(f);
        }
        let args: Vec<String> = if c.bounded_first {
            let mut args = vec![self.int(0, 6).to_string()];
            args.extend(c.params[1..].iter().map(|t| self.arg(env, t, d)));
            args
        } else if c.leaf_args {
            c.params.iter().map(|t| self.leaf(env, t)).collect()
        } else if self.on(Feature::Splats) && c.params.len() >= 2 && self.chance(1, 3) {
            self.splat_args(env, &c.params, d)
        } else {
            c.params
                .iter()
                .map(|t| {
                    if c.exact_args {
                        self.expr(env, t, d)
                    } else {
                        self.arg(env, t, d)
                    }
                })
                .collect()
        };
        format!("{}({})", c.text, args.join(", "))
    }

    /// A value for a place of type `ty` that converts implicitly (§4.2).
    pub fn arg(&mut self, env: &Env, ty: &Ty, d: u32) -> String {
        if !env.pure && self.on(Feature::ConvertHooks) && !self.convs.is_empty() && self.chance(1, 4) {
            if let Some(e) = self.hook_conversion(env, ty, d) {
                return e;
            }
        }
        if self.on(Feature::Conversions) && self.chance(1, 5) {
            let from: &[Ty] = match ty {
                Ty::F64 => &[Ty::I8, Ty::U8, Ty::I32, Ty::U32, Ty::F32, Ty::I64, Ty::U64],
                Ty::F32 => &[Ty::I32, Ty::F64],
                Ty::Bool => &[Ty::I32],
                Ty::I8 | Ty::U8 | Ty::U32 => &[Ty::I32],
                Ty::I32 => &[Ty::I8, Ty::U8, Ty::U32],
                Ty::I64 => &[Ty::I8, Ty::U8, Ty::I32, Ty::U32, Ty::U64],
                Ty::U64 => &[Ty::I64],
                _ => &[],
            };
            let allowed: Vec<Ty> = from.iter().filter(|t| self.ty_on(t)).cloned().collect();
            if !allowed.is_empty() {
                self.mark(Feature::Conversions);
                let src = allowed[self.pick(allowed.len())].clone();
                return self.expr(env, &src, d);
            }
        }
        self.expr(env, ty, d)
    }

    /// A tuple item, struct field or method result of type `ty`.
    fn item_of(&mut self, env: &Env, ty: &Ty, d: u32) -> Option<String> {
        let mut cands: Vec<String> = Vec::new();
        let tuples = env
            .locals
            .iter()
            .map(|l| (l.name.clone(), l.ty.clone()))
            .chain(if env.pure {
                Vec::new()
            } else {
                self.tuple_consts.clone()
            });
        let blue_idx: Vec<&Local> = env.locals.iter().filter(|l| l.blue_range.is_some()).collect();
        for (name, t) in tuples {
            let Ty::Tuple(items) = &t else { continue };
            for (j, it) in items.iter().enumerate() {
                if it == ty {
                    cands.push(format!("{name}[{j}]"));
                }
            }
            for b in &blue_idx {
                let (lo, hi) = b.blue_range.unwrap_or((0, -1));
                if lo >= 0 && (hi as usize) < items.len() && (lo..=hi).all(|j| &items[j as usize] == ty) {
                    cands.push(format!("{name}[{}]", b.name));
                }
            }
        }
        if !env.pure {
            for (k, fields) in self.structs.iter().enumerate() {
                for (j, f) in fields.iter().enumerate() {
                    if f == ty {
                        cands.push(format!("#S{k}.{j}"));
                    }
                }
            }
        }
        if cands.is_empty() {
            return None;
        }
        let c = cands.swap_remove(self.pick(cands.len()));
        if let Some(rest) = c.strip_prefix("#S") {
            let (k, j) = rest.split_once('.').unwrap_or(("0", "0"));
            let k: usize = k.parse().unwrap_or(0);
            let sty = self.struct_ty(k);
            let s = self.expr(env, &sty, d);
            if let Some(f) = sty.feature() {
                self.mark(f);
            }
            return Some(if self.chance(1, 2) {
                format!("{s}.a{j}")
            } else {
                format!("{s}.get{j}()")
            });
        }
        self.mark(Feature::StaticTuples);
        Some(c)
    }

    /// `(live if K op v else <ill-typed>)` with a blue condition whose
    /// value the generator knows.
    fn dead_branch_ifexp(&mut self, env: &Env, ty: &Ty, d: u32) -> String {
        self.mark(Feature::BlueDeadBranches);
        let (cond, truth) = self.blue_cond();
        let live = self.expr(env, ty, d);
        let dead = ILL_TYPED[self.pick(ILL_TYPED.len())];
        if truth {
            format!("({live} if {cond} else {dead})")
        } else {
            format!("({dead} if {cond} else {live})")
        }
    }

    /// A blue condition on a module constant, and its value.
    pub fn blue_cond(&mut self) -> (String, bool) {
        if self.consts.is_empty() {
            return ("True".into(), true);
        }
        let k = self.pick(self.consts.len());
        let c = self.consts[k].clone();
        let v = self.int(-2, 8);
        match self.pick(3) {
            0 => (format!("{} < {v}", c.name), c.value < v),
            1 => (format!("{} == {v}", c.name), c.value == v),
            _ => (format!("{} >= {v}", c.name), c.value >= v),
        }
    }

    /// A blue i32 expression (literals, constants, blue locals).
    pub fn blue_i32(&mut self, env: &Env, d: u32) -> String {
        let mut leaves: Vec<String> = env
            .locals
            .iter()
            .filter(|l| l.blue_range.is_some())
            .map(|l| l.name.clone())
            .collect();
        leaves.extend(self.consts.iter().map(|c| c.name.clone()));
        let leaf = if !leaves.is_empty() && self.chance(2, 3) {
            leaves[self.pick(leaves.len())].clone()
        } else {
            self.int(-5, 20).to_string()
        };
        if d == 0 || self.chance(1, 2) {
            return leaf;
        }
        let op = ["+", "-", "*"][self.pick(3)];
        let rhs = self.blue_i32(env, d - 1);
        format!("({leaf} {op} {rhs})")
    }

    /// A call of a `@blue` function with blue arguments.
    fn blue_call(&mut self, env: &Env, d: u32) -> Option<String> {
        let cands: Vec<usize> = (0..env.callees).filter(|&k| self.callees[k].blue).collect();
        if cands.is_empty() {
            return None;
        }
        let k = cands[self.pick(cands.len())];
        let c = self.callees[k].clone();
        self.mark(Feature::BlueFuncs);
        let args: Vec<String> = c.params.iter().map(|_| self.blue_i32(env, d.min(1))).collect();
        Some(format!("{}({})", c.text, args.join(", ")))
    }
}

/// `(a, b)`, `(a,)`, `()`.
pub fn tuple_display(items: &[String]) -> String {
    match items {
        [one] => format!("({one},)"),
        _ => format!("({})", items.join(", ")),
    }
}

fn clamp_to(ty: &Ty, v: i128) -> i128 {
    let (lo, hi): (i128, i128) = match ty {
        Ty::I8 => (-128, 127),
        Ty::U8 => (0, 255),
        Ty::I32 => (-2147483648, 2147483647),
        Ty::U32 => (0, 4294967295),
        Ty::I64 => (i128::from(i64::MIN), i128::from(i64::MAX)),
        _ => (0, i128::from(u64::MAX)),
    };
    v.clamp(lo, hi)
}

/// The source types of the explicit conversions `T(x)` to `ty`.
pub(super) fn conversion_sources(ty: &Ty) -> &'static [Ty] {
    match ty {
        Ty::I32 => &[Ty::F64, Ty::F32, Ty::I8, Ty::U8, Ty::U32, Ty::Str],
        Ty::I64 => &[Ty::F64, Ty::F32, Ty::I8, Ty::U8, Ty::I32, Ty::U32, Ty::U64],
        Ty::U64 => &[Ty::I64, Ty::Str],
        Ty::I8 | Ty::U8 => &[Ty::I32, Ty::Str],
        Ty::U32 => &[Ty::Str],
        Ty::F64 => &[Ty::I32, Ty::F32],
        Ty::F32 => &[Ty::I32, Ty::F64],
        _ => &[],
    }
}
