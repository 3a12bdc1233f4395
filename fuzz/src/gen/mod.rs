//! The program generator: `arbitrary` bytes → a well-typed, terminating
//! SPy program (source text) and the set of features it used.
//!
//! Design (after cranelift-fuzzgen and Csmith/YARPGen):
//! - *Typed construction.* Every expression is built for a wanted type
//!   from productions that are valid for it, so the program type-checks by
//!   construction; nothing is generated and then filtered.
//! - *Errors only on purpose.* Divisors are guarded (`(e | 1)`, non-zero
//!   literals), shift counts masked, exponents small literals; an
//!   unguarded divisor appears at the configured per-mille rate.
//! - *Termination by construction.* Loops count a fresh counter up to a
//!   small literal, recursion passes a decreasing depth, and function `k`
//!   calls only callees defined before it. Fuel bounds the rest.
//! - *No allowed divergences* (spec §16.6): blue code is pure (no prints,
//!   no errors), no `def` inside red functions, no red `*args: T`, every red
//!   function built in blue code declares its return type, no red local
//!   holds a blue function, and operands of folded operations (`len`,
//!   `OpSpec.const` metafuncs) have no side effects.
//! - *Host independence.* Input consumption never depends on the host
//!   (`simd_width_of` is never used).

mod backend;
mod expr;
mod lowlevel;
mod meta;
mod recursion;
mod simd;
mod stmt;
mod struct_forms;
mod structs;
pub mod types;

use std::collections::{BTreeMap, BTreeSet};
use std::rc::Rc;

use arbitrary::{Arbitrary, Unstructured};

use crate::config::{Feature, FeatureSet, GenConfig};
use types::Ty;

/// A generated program.
#[derive(Clone, Debug)]
pub struct Program {
    pub source: String,
    /// The features the program actually uses.
    pub features: FeatureSet,
    pub config: GenConfig,
}

/// Build a program from raw bytes: the swarm configuration first, then
/// the program.
pub fn generate(data: &[u8]) -> Program {
    generate_restricted(data, FeatureSet::all())
}

/// Like `generate`, with the features limited to `allowed`.
pub fn generate_restricted(data: &[u8], allowed: FeatureSet) -> Program {
    let mut u = Unstructured::new(data);
    let cfg = GenConfig::arbitrary(&mut u).unwrap_or_else(|_| GenConfig::full());
    generate_with(&mut u, cfg.restrict(allowed))
}

/// Build a program with a given configuration.
pub fn generate_with(u: &mut Unstructured<'_>, cfg: GenConfig) -> Program {
    let mut g = Gen::new(u, cfg);
    let source = g.program();
    Program {
        source,
        features: g.used,
        config: cfg,
    }
}

/// Something red code can call: a function, a generic instance, a
/// metafunc at given argument types.
#[derive(Clone, Debug)]
pub(crate) struct Callee {
    /// The callee expression: `f3`, `ga1[i32]`, `mf0`.
    pub text: String,
    pub params: Vec<Ty>,
    pub ret: Option<Ty>,
    /// Arguments must be free of side effects (the call folds to a
    /// constant in redshift: spec §16.6 item 7).
    pub leaf_args: bool,
    /// Arguments must have exactly the parameter types (a metafunc sees
    /// static types: no implicit conversion happens before it).
    pub exact_args: bool,
    /// Feature exercised by calling it.
    pub feature: Option<Feature>,
    /// A `@blue` function: arguments must be blue.
    pub blue: bool,
    /// The first argument is a recursion depth: a small literal.
    pub bounded_first: bool,
}

/// A local (or parameter) in scope.
#[derive(Clone, Debug)]
pub(crate) struct Local {
    pub name: String,
    pub ty: Ty,
    /// May be assigned again (declared `var`).
    pub mutable: bool,
    /// A blue i32 whose value is known to lie in this range (an
    /// UNROLL_RANGE variable or a blue-function parameter).
    pub blue_range: Option<(i64, i64)>,
}

/// What the code being generated may use.
#[derive(Clone, Debug, Default)]
pub(crate) struct Env {
    pub locals: Vec<Local>,
    /// Blue code: no effects, no red calls, no possible errors.
    pub pure: bool,
    /// Only the first `callees` entries of `Gen::callees` may be called.
    pub callees: usize,
}

impl Env {
    pub fn of_type<'e>(&'e self, ty: &'e Ty) -> impl Iterator<Item = &'e Local> + 'e {
        self.locals.iter().filter(move |l| &l.ty == ty)
    }
}

/// A module-level blue integer constant with a known value.
#[derive(Clone, Debug)]
pub(crate) struct ModConst {
    pub name: String,
    pub value: i64,
}

pub(crate) struct Gen<'a, 'b> {
    pub u: &'a mut Unstructured<'b>,
    pub cfg: GenConfig,
    pub used: FeatureSet,
    imports: BTreeMap<&'static str, BTreeSet<&'static str>>,
    /// Module-level definitions, in order.
    pub defs: Vec<String>,
    pub consts: Vec<ModConst>,
    /// Blue static-tuple constants: name, type.
    pub tuple_consts: Vec<(String, Ty)>,
    /// Blue tuples of types: name, the types.
    pub type_tuples: Vec<(String, Vec<Ty>)>,
    /// Struct field types, by struct index (plain structs and instances
    /// of generic structs).
    pub structs: Vec<Vec<Ty>>,
    /// Struct spellings, by struct index.
    pub struct_names: Vec<Rc<str>>,
    /// Operator dunders and extra methods of the structs.
    pub dunders: Vec<structs::Dunder>,
    /// `__setitem__`s of the structs (`s[i] = v` statements use them).
    pub setitems: Vec<struct_forms::SetItem>,
    /// The struct whose `__eq__`/`__ne__` is being generated: its values
    /// must not be compared (that would recurse forever).
    pub eq_guard: Option<usize>,
    /// Implicit conversions the structs' `__convert_to__`/`__convert_from__`
    /// hooks provide: (from, to).
    pub convs: Vec<(Ty, Ty)>,
    /// Structs with a plain (non-metafunc) `__convert_to__`: it handles
    /// every conversion from them, so no other hook may convert from them.
    pub plain_conv_to: Vec<usize>,
    /// Module-level `var`s.
    pub globals: Vec<(String, Ty)>,
    pub callees: Vec<Callee>,
    /// `@blue` functions returning a type, with the two types they pick.
    pub type_pickers: Vec<(String, Ty, Ty)>,
    /// Complete blue expressions of known type (`cv1(i32, 41)`, `gz2[f64]`).
    pub blue_exprs: Vec<(String, Ty)>,
    /// Calls of the backend helpers (`backend.rs`), made by `main`.
    pub backend_calls: Vec<String>,
    fresh: usize,
}

impl<'a, 'b> Gen<'a, 'b> {
    fn new(u: &'a mut Unstructured<'b>, cfg: GenConfig) -> Self {
        Gen {
            u,
            cfg,
            used: FeatureSet::EMPTY,
            imports: BTreeMap::new(),
            defs: Vec::new(),
            consts: Vec::new(),
            tuple_consts: Vec::new(),
            type_tuples: Vec::new(),
            structs: Vec::new(),
            struct_names: Vec::new(),
            dunders: Vec::new(),
            setitems: Vec::new(),
            eq_guard: None,
            convs: Vec::new(),
            plain_conv_to: Vec::new(),
            globals: Vec::new(),
            callees: Vec::new(),
            type_pickers: Vec::new(),
            blue_exprs: Vec::new(),
            backend_calls: Vec::new(),
            fresh: 0,
        }
    }

    // ------------------------------------------------------------ choices

    /// An index below `n` (0 when the input is exhausted or `n == 0`).
    pub fn pick(&mut self, n: usize) -> usize {
        if n <= 1 {
            return 0;
        }
        self.u.choose_index(n).unwrap_or(0)
    }

    /// True with probability `num/den` (false once the input is exhausted).
    pub fn chance(&mut self, num: u32, den: u32) -> bool {
        if num == 0 {
            return false;
        }
        if num >= den {
            return true;
        }
        self.u.ratio(num, den).unwrap_or(false)
    }

    pub fn int(&mut self, lo: i64, hi: i64) -> i64 {
        self.u.int_in_range(lo..=hi).unwrap_or(lo)
    }

    pub fn on(&self, f: Feature) -> bool {
        self.cfg.features.has(f)
    }

    pub fn mark(&mut self, f: Feature) {
        self.used.insert(f);
    }

    pub fn fresh(&mut self, prefix: &str) -> String {
        self.fresh += 1;
        // `_` keeps generated names clear of `i32`, `u8`, `f64`...
        format!("{prefix}_{}", self.fresh)
    }

    pub fn import(&mut self, module: &'static str, name: &'static str) {
        self.imports.entry(module).or_default().insert(name);
    }

    /// A type the program may use (scalars, tuples, structs per features).
    pub fn any_ty(&mut self, depth: u32) -> Ty {
        let mut choices = vec![Ty::I32, Ty::I32, Ty::F64, Ty::Bool];
        if self.on(Feature::Str) {
            choices.push(Ty::Str);
        }
        if self.on(Feature::SmallInts) {
            choices.extend([Ty::I8, Ty::U8, Ty::U32]);
        }
        if self.on(Feature::WideInts) {
            choices.extend([Ty::I64, Ty::U64]);
        }
        if self.on(Feature::F32) {
            choices.push(Ty::F32);
        }
        let n = choices.len();
        let extra =
            usize::from(self.on(Feature::StaticTuples) && depth > 0) + usize::from(!self.structs.is_empty());
        let k = self.pick(n + extra);
        if k < n {
            return choices[k].clone();
        }
        if k == n && self.on(Feature::StaticTuples) && depth > 0 {
            let len = self.int(1, 3) as usize;
            return Ty::Tuple((0..len).map(|_| self.scalar_ty()).collect());
        }
        let k = self.pick(self.structs.len());
        self.struct_ty(k)
    }

    /// The type of struct `k`.
    pub fn struct_ty(&self, k: usize) -> Ty {
        Ty::Struct(k, self.struct_names[k].clone())
    }

    pub fn scalar_ty(&mut self) -> Ty {
        match self.any_ty(0) {
            Ty::Struct(..) => Ty::I32,
            t => t,
        }
    }

    // ------------------------------------------------------------ program

    fn program(&mut self) -> String {
        self.module_constants();
        self.struct_defs();
        self.meta_defs();
        let nfuncs = self.int(0, i64::from(self.cfg.max_funcs));
        for _ in 0..nfuncs {
            let k = self.pick(8);
            match k {
                0 if self.on(Feature::RecursionLive) && self.chance(1, 3) => self.live_recursive_func(),
                0 if self.on(Feature::Recursion) => self.recursive_func(),
                1 if self.on(Feature::Packs) => self.pack_func(),
                2 if self.on(Feature::ForceInline) => self.force_inline_func(),
                3 if self.on(Feature::Splats) || self.on(Feature::StaticTuples) => self.noisy_tuple_func(),
                _ => self.red_func(),
            }
        }
        self.backend_funcs();
        self.simd_lane_funcs();
        let main = self.main_func();
        let mut out = String::new();
        for (module, names) in &self.imports {
            let names: Vec<_> = names.iter().copied().collect();
            out.push_str(&format!("from {module} import {}\n", names.join(", ")));
        }
        if !self.imports.is_empty() {
            out.push('\n');
        }
        for d in &self.defs {
            out.push_str(d);
            out.push('\n');
        }
        out.push_str(&main);
        out
    }

    fn module_constants(&mut self) {
        let n = self.int(0, 3);
        for _ in 0..n {
            let name = self.fresh("K");
            let value = *self.u.choose(&[0i64, 1, 2, 3, 4, 5, 7, -3, 10]).unwrap_or(&3);
            self.defs.push(format!("{name} = {value}\n"));
            self.consts.push(ModConst { name, value });
        }
        if self.on(Feature::StaticTuples) && self.chance(2, 3) {
            let name = self.fresh("KT");
            let len = self.int(1, 4) as usize;
            let homogeneous = self.chance(1, 2);
            let first = self.scalar_ty();
            let items: Vec<Ty> = (0..len)
                .map(|_| {
                    if homogeneous {
                        first.clone()
                    } else {
                        self.scalar_ty()
                    }
                })
                .collect();
            let env = Env::default();
            let vals: Vec<String> = items.iter().map(|t| self.literal(&env, t)).collect();
            self.defs.push(format!(
                "{name} = ({}{})\n",
                vals.join(", "),
                if len == 1 { "," } else { "" }
            ));
            self.tuple_consts.push((name, Ty::Tuple(items)));
        }
        if (self.on(Feature::Packs) || self.on(Feature::Splats)) && self.chance(1, 2) {
            let name = self.fresh("TS");
            let len = self.int(1, 3) as usize;
            let items: Vec<Ty> = (0..len).map(|_| self.scalar_ty()).collect();
            let spelled: Vec<String> = items.iter().map(Ty::spell).collect();
            self.defs.push(format!(
                "{name} = ({}{})\n",
                spelled.join(", "),
                if len == 1 { "," } else { "" }
            ));
            self.type_tuples.push((name, items));
        }
        if self.on(Feature::ModuleVars) && self.chance(1, 2) {
            let name = self.fresh("g");
            let ty = self.scalar_ty();
            let env = Env::default();
            let v = self.literal(&env, &ty);
            self.defs.push(format!("var {name}: {} = {v}\n", ty.spell()));
            self.globals.push((name, ty));
            self.mark(Feature::ModuleVars);
        }
    }

    /// A red function `fN(params) -> R` calling only earlier callees.
    fn red_func(&mut self) {
        let name = self.fresh("f");
        let nparams = self.int(0, 3);
        let params: Vec<(String, Ty)> = (0..nparams).map(|_| (self.fresh("p"), self.any_ty(1))).collect();
        let ret = if self.chance(1, 5) {
            None
        } else {
            Some(self.any_ty(1))
        };
        let env = self.func_env(&params);
        let body = self.func_body(env, ret.clone(), 1);
        let sig: Vec<String> = params
            .iter()
            .map(|(n, t)| format!("{n}: {}", t.spell()))
            .collect();
        let rspell = ret.as_ref().map_or("None".to_string(), Ty::spell);
        self.defs
            .push(format!("def {name}({}) -> {rspell}:\n{body}", sig.join(", ")));
        self.callees.push(Callee {
            text: name,
            params: params.into_iter().map(|(_, t)| t).collect(),
            ret,
            leaf_args: false,
            exact_args: false,
            feature: None,
            blue: false,
            bounded_first: false,
        });
    }

    pub fn func_env(&self, params: &[(String, Ty)]) -> Env {
        Env {
            locals: params
                .iter()
                .map(|(n, t)| Local {
                    name: n.clone(),
                    ty: t.clone(),
                    mutable: false,
                    blue_range: None,
                })
                .collect(),
            pure: false,
            callees: self.callees.len(),
        }
    }

    fn main_func(&mut self) -> String {
        let env = self.func_env(&[]);
        let mut body = String::new();
        let mut ctx = stmt::FnCtx::new(env, None);
        self.block_into(&mut ctx, 1, &mut body, self.cfg.max_stmts as usize + 2);
        // Call every callee once more, so each definition runs.
        for k in 0..self.callees.len() {
            let c = self.callees[k].clone();
            let call = if c.blue {
                let args: Vec<String> = c.params.iter().map(|_| self.blue_i32(&ctx.env, 1)).collect();
                format!("{}({})", c.text, args.join(", "))
            } else {
                self.call_expr(&ctx.env, &c, 1)
            };
            if c.ret.is_some() {
                body.push_str(&format!("    print({call})\n"));
            } else {
                body.push_str(&format!("    {call}\n"));
            }
        }
        for call in &self.backend_calls {
            body.push_str(&format!("    {call}\n"));
        }
        if body.is_empty() {
            body.push_str("    pass\n");
        }
        format!("def main() -> None:\n{body}")
    }
}

#[cfg(test)]
mod tests {
    use crate::campaign::case_bytes;
    use crate::config::{Feature, FeatureSet};

    /// Every swarm feature is used by some program of a short campaign (the
    /// coverage line of `spy-interp fuzz` counts them the same way).
    #[test]
    fn every_feature_is_reached() {
        let mut used = FeatureSet::EMPTY;
        for case in 0..3000 {
            used = used.union(super::generate(&case_bytes(7, case)).features);
            if used == FeatureSet::all() {
                return;
            }
        }
        let missing: Vec<&str> = Feature::ALL
            .into_iter()
            .filter(|f| !used.has(*f))
            .map(Feature::name)
            .collect();
        panic!("features never reached: {}", missing.join(", "));
    }
}
