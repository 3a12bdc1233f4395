//! Generation aimed at the native backend: helper functions whose red
//! parameters receive edge values from `main`, so that redshift cannot
//! fold the operation away and the jit's code for it runs on them.
//!
//! - `cmp-edges`: every comparison of two values of one scalar type, with
//!   the sign-bit and width edges of each integer type and NaN (computed
//!   as `inf - inf`), ±0.0, ±inf and subnormals for floats;
//! - `shift-edges`: wrapping `+ - *` at each integer width, shifts by
//!   counts at and beyond the width, and `//` and `%` by -1 and by values
//!   of the other sign (`MIN // -1`);
//! - `reg-pressure`: a function with 8-12 mixed integer and float
//!   parameters whose values stay live across a call and feed a deep
//!   expression (register allocation, spills, caller-saved registers);
//! - `signed-zeros`: a blue function whose float result is `-0.0` (or NaN,
//!   or a value of either sign), folded by redshift into the residual
//!   code, printed and passed to red code where its sign shows (`print`,
//!   `* -1.0`, `+ 0.0`, comparisons, `f32` round trips): a constant `-0.0`
//!   folded into `0.0` is a finding;
//! - `loop-carried`: a loop of up to 60 iterations carrying 4-7 values of
//!   mixed types (every integer width, floats, bool) from one iteration to
//!   the next, each updated from the others;
//! - `ptr-arrays`: `gc_alloc` buffers of scalars and of a struct written
//!   and read in loops at computed indices (`(i * K + k) % n`), summed,
//!   and at a low rate read out of bounds.

use super::expr::conversion_sources;
use super::types::{int_lit, Ty, F32_LITS, F64_LITS};
use super::Gen;
use crate::config::Feature;

impl Gen<'_, '_> {
    /// The backend helpers of this program, and their calls for `main`.
    pub(super) fn backend_funcs(&mut self) {
        if self.on(Feature::CmpEdges) && self.chance(2, 3) {
            self.mark(Feature::CmpEdges);
            self.cmp_edges();
        }
        if self.on(Feature::ShiftEdges) && self.chance(2, 3) {
            self.mark(Feature::ShiftEdges);
            self.shift_edges();
        }
        if self.on(Feature::RegPressure) && self.chance(2, 3) {
            self.mark(Feature::RegPressure);
            self.reg_pressure();
        }
        if self.on(Feature::LoopCarried) && self.chance(1, 2) {
            self.mark(Feature::LoopCarried);
            self.loop_carried();
        }
        if self.on(Feature::PtrArrays) && self.chance(1, 2) {
            self.mark(Feature::PtrArrays);
            self.ptr_arrays();
        }
        if self.on(Feature::SignedZeros) && self.chance(1, 2) {
            self.mark(Feature::SignedZeros);
            self.signed_zeros();
        }
    }

    fn signed_zeros(&mut self) {
        // Blue expressions whose value is -0.0 (most), +0.0 or NaN.
        const ZEROS: &[&str] = &[
            "-0.0",
            "0.0 * -1.0",
            "-(0.0)",
            "-0.0 + -0.0",
            "-1.0 * 0.0",
            "0.0 / -4.0",
            "-1e-310 * 1e-300",
            "-0.0 - 0.0",
            "0.0 - 0.0",
            "1e999 - 1e999",
        ];
        let z = ZEROS[self.pick(ZEROS.len())];
        let blue = self.fresh("bz");
        let red = self.fresh("sz");
        self.defs
            .push(format!("@blue\ndef {blue}() -> f64:\n    return {z}\n"));
        let mut body = String::from("    print(x)\n    print(x * -1.0)\n    print(x + 0.0)\n");
        body.push_str("    print(x == 0.0)\n    print(x < 0.0)\n");
        if self.on(Feature::F32) {
            body.push_str("    print(f32(x))\n");
        }
        self.defs.push(format!("def {red}(x: f64) -> None:\n{body}"));
        self.backend_calls.push(format!("print({blue}())"));
        self.backend_calls.push(format!("{red}({blue}())"));
        if self.chance(1, 2) {
            self.backend_calls.push(format!("print(-{blue}())"));
        }
    }

    /// An edge value of scalar `ty` (floats from the literal tables).
    fn edge(&mut self, ty: &Ty) -> String {
        match ty {
            Ty::F64 => self.u.choose(F64_LITS).copied().unwrap_or("0.0").to_string(),
            Ty::F32 => format!("f32({})", self.u.choose(F32_LITS).copied().unwrap_or("0.0")),
            Ty::Bool => "True".into(),
            int => {
                let edges = int.int_edges();
                int_lit(int, edges[self.pick(edges.len())])
            }
        }
    }

    fn edge_ty(&mut self) -> Ty {
        let mut tys = vec![Ty::I32, Ty::F64];
        if self.on(Feature::SmallInts) || self.on(Feature::WideInts) {
            tys.extend([Ty::I8, Ty::U8, Ty::U32, Ty::I64, Ty::U64]);
        }
        if self.on(Feature::F32) {
            tys.push(Ty::F32);
        }
        tys[self.pick(tys.len())].clone()
    }

    fn cmp_edges(&mut self) {
        let ty = self.edge_ty();
        let name = self.fresh("ce");
        let t = ty.spell();
        let mut body = String::new();
        let float = matches!(ty, Ty::F32 | Ty::F64);
        // A NaN operand when `a` is ±inf (no NaN literal exists).
        let operands: &[(&str, &str)] = if float {
            &[("a", "b"), ("a - a", "b"), ("b", "a - a")]
        } else {
            &[("a", "b")]
        };
        for (x, y) in operands {
            for op in ["<", "<=", "==", "!=", ">", ">="] {
                body.push_str(&format!("    print({x} {op} {y})\n"));
            }
        }
        self.defs
            .push(format!("def {name}(a: {t}, b: {t}) -> None:\n{body}"));
        for _ in 0..self.int(1, 4) {
            let (a, b) = (self.edge(&ty), self.edge(&ty));
            self.backend_calls.push(format!("{name}({a}, {b})"));
        }
    }

    fn shift_edges(&mut self) {
        let ints = [Ty::I8, Ty::U8, Ty::I32, Ty::U32, Ty::I64, Ty::U64];
        let ty = if self.on(Feature::SmallInts) || self.on(Feature::WideInts) {
            ints[self.pick(ints.len())].clone()
        } else {
            Ty::I32
        };
        let name = self.fresh("se");
        let t = ty.spell();
        let width = match ty {
            Ty::I8 | Ty::U8 => 8,
            Ty::I32 | Ty::U32 => 32,
            _ => 64,
        };
        let mut body = String::new();
        // Wrapping at the width (canonical sign or zero extension).
        // Printing reads only the width's bits; a comparison reads them all.
        body.push_str("    print(a + b)\n    print(a - b)\n    print(a * b)\n");
        body.push_str("    print(a + b > a)\n    print(a * b < b)\n    print(a - b == b - a)\n");
        body.push_str("    print(a << c)\n    print(a >> c)\n");
        body.push_str(&format!(
            "    if b != {}:\n        print(a // b)\n        print(a % b)\n",
            int_lit(&ty, 0)
        ));
        self.defs
            .push(format!("def {name}(a: {t}, b: {t}, c: {t}) -> None:\n{body}"));
        for _ in 0..self.int(1, 4) {
            let a = self.edge(&ty);
            let b = if ty.is_signed() && self.chance(1, 2) {
                int_lit(&ty, -1)
            } else {
                self.edge(&ty)
            };
            let counts = [width - 1, width, width + 1, 2 * width + 1, 1, 0];
            let c = int_lit(&ty, counts[self.pick(counts.len())]);
            self.backend_calls.push(format!("{name}({a}, {b}, {c})"));
        }
    }

    fn reg_pressure(&mut self) {
        let n = self.int(8, 12) as usize;
        let mut params = vec![];
        for i in 0..n {
            let ty = match self.pick(3) {
                0 => Ty::F64,
                1 if self.on(Feature::WideInts) => Ty::I64,
                _ => Ty::I32,
            };
            params.push((format!("q{i}"), ty));
        }
        let name = self.fresh("rp");
        let callee = self.fresh("rq");
        self.defs
            .push(format!("def {callee}(x: i32) -> i32:\n    return x * 3 + 1\n"));
        let sig: Vec<String> = params
            .iter()
            .map(|(p, t)| format!("{p}: {}", t.spell()))
            .collect();
        let mut body = String::new();
        // Every parameter is live across the call, then used.
        body.push_str(&format!("    k: i32 = {callee}(7)\n"));
        let (mut ints, mut wides, mut floats) = (vec!["k".to_string()], vec![], vec![]);
        for (p, t) in &params {
            match t {
                Ty::F64 => floats.push(p.clone()),
                Ty::I64 => wides.push(p.clone()),
                _ => ints.push(format!("({p} % 1000)")),
            }
        }
        body.push_str(&format!("    print({})\n", ints.join(" + ")));
        if !wides.is_empty() {
            body.push_str(&format!("    print({} - i64(k))\n", wides.join(" * i64(3) + ")));
        }
        if !floats.is_empty() {
            body.push_str(&format!("    print({})\n", floats.join(" * 0.5 + ")));
        }
        body.push_str(&format!("    print({callee}(k) - k)\n"));
        self.defs
            .push(format!("def {name}({}) -> None:\n{body}", sig.join(", ")));
        let args: Vec<String> = params
            .iter()
            .map(|(_, t)| match t {
                Ty::F64 => ["1.5", "-0.0", "2.25", "1e16"][self.pick(4)].to_string(),
                t => int_lit(t, i128::from(self.int(-50, 50))),
            })
            .collect();
        self.backend_calls.push(format!("{name}({})", args.join(", ")));
    }

    /// The scalar types this program may use (integers of every width if
    /// small/wide ints are on, `f32` if on).
    fn mixed_tys(&self) -> Vec<Ty> {
        let mut tys = vec![Ty::I32, Ty::F64, Ty::Bool];
        if self.on(Feature::SmallInts) {
            tys.extend([Ty::I8, Ty::U8]);
        }
        if self.on(Feature::WideInts) {
            tys.extend([Ty::U32, Ty::I64, Ty::U64]);
        }
        if self.on(Feature::F32) {
            tys.push(Ty::F32);
        }
        tys
    }

    fn loop_carried(&mut self) {
        let tys = self.mixed_tys();
        let name = self.fresh("lc");
        let n = self.int(4, 7) as usize;
        let vars: Vec<(String, Ty)> = (0..n)
            .map(|k| (format!("c{k}"), tys[self.pick(tys.len())].clone()))
            .collect();
        let mut body = String::new();
        for (k, (v, t)) in vars.iter().enumerate() {
            let init = match t {
                Ty::Bool => "False".to_string(),
                Ty::F64 => format!("{k}.5"),
                Ty::F32 => format!("f32({k}.25)"),
                t => int_lit(t, k as i128 + 1),
            };
            body.push_str(&format!("    {v}: {} = {init}\n", t.spell()));
        }
        body.push_str("    i: i32 = 0\n    while i < n:\n");
        // Each value is updated from itself, the counter and the previous
        // value (converted), so they all stay live across the iterations.
        for (k, (v, t)) in vars.iter().enumerate() {
            let (prev, pt) = &vars[(k + n - 1) % n];
            let one = if *pt == Ty::F32 { "f32(1.0)" } else { "1.0" };
            let from_prev = match (t, pt) {
                (Ty::Bool, Ty::Bool) => prev.clone(),
                (Ty::Bool, Ty::F64 | Ty::F32) => format!("{prev} > {one}"),
                (Ty::Bool, _) => format!("{prev} % {} == {}", int_lit(pt, 2), int_lit(pt, 0)),
                // A conversion where one exists, except float to integer
                // (the floats grow past every integer range); else a choice.
                _ if (t.is_float() || !pt.is_float()) && conversion_sources(t).contains(pt) => {
                    format!("{}({prev})", t.spell())
                }
                _ => {
                    let (a, b) = match t {
                        Ty::F64 => ("2.0".to_string(), "0.5".to_string()),
                        Ty::F32 => ("f32(2.0)".to_string(), "f32(0.5)".to_string()),
                        t => (int_lit(t, 1), int_lit(t, 2)),
                    };
                    let cond = match pt {
                        Ty::Bool => prev.clone(),
                        Ty::F64 | Ty::F32 => format!("{prev} > {one}"),
                        _ => format!("{prev} > {}", int_lit(pt, 1)),
                    };
                    format!("({a} if {cond} else {b})")
                }
            };
            let update = match t {
                Ty::Bool => format!("{v} = not {v} and {from_prev}"),
                Ty::F64 => format!("{v} = {v} * 0.75 + {from_prev} * 0.5 - f64(i)"),
                Ty::F32 => format!("{v} = {v} * f32(0.5) + {from_prev} - f32(i)"),
                t => format!(
                    "{v} = {v} * {} + {from_prev} + {}",
                    int_lit(t, 3),
                    from_i32(t, "i")
                ),
            };
            body.push_str(&format!("        {update}\n"));
        }
        body.push_str("        i = i + 1\n");
        for (v, _) in &vars {
            body.push_str(&format!("    print({v})\n"));
        }
        self.defs.push(format!("def {name}(n: i32) -> None:\n{body}"));
        let iters = [0i64, 1, 2, 17, 60][self.pick(5)];
        self.backend_calls.push(format!("{name}({iters})"));
    }

    fn ptr_arrays(&mut self) {
        self.import("unsafe", "gc_alloc");
        let tys: Vec<Ty> = self.mixed_tys().into_iter().filter(|t| *t != Ty::Bool).collect();
        let t = tys[self.pick(tys.len())].clone();
        let ts = t.spell();
        let name = self.fresh("pa");
        let k1 = [1i64, 3, 5, 7][self.pick(4)];
        let item = from_i32(&t, "i * 3 + 7");
        let mut body = format!(
            "    q = gc_alloc[{ts}](n)\n    i: i32 = 0\n    while i < n:\n        q[(i * {k1} + k) % n] = {item}\n        i = i + 1\n"
        );
        let zero = match t {
            Ty::F64 => "0.0".to_string(),
            Ty::F32 => "f32(0.0)".to_string(),
            _ => int_lit(&t, 0),
        };
        body.push_str(&format!(
            "    s = {zero}\n    i = 0\n    while i < n:\n        s = s + q[i] * q[(i + k) % n]\n        i = i + 1\n    print(s)\n    print(q[(k * 7) % n])\n"
        ));
        // A struct buffer: whole items stored at computed indices (native
        // in the jit), and, less often, fields written through an index
        // (`r[i].x = ...`, which the jit does not compile yet).
        let st = self.fresh("PA");
        self.defs
            .push(format!("@struct\nclass {st}:\n    x: i32\n    y: {ts}\n"));
        body.push_str(&format!(
            "    r = gc_alloc[{st}](n)\n    i = 0\n    while i < n:\n        r[(i + k) % n] = {st}(i, q[(i * {k1}) % n])\n        i = i + 1\n"
        ));
        if self.chance(1, 5) {
            body.push_str("    r[k % n].x = r[(k + 1) % n].x * 2\n");
        }
        body.push_str("    print(r[k % n].x, r[(n - 1 + k) % n].y)\n");
        if self.on(Feature::DivZero) && self.chance(u32::from(self.cfg.div_zero_permille), 1000) {
            self.mark(Feature::DivZero);
            body.push_str("    print(q[n + k])\n");
        }
        self.defs
            .push(format!("def {name}(n: i32, k: i32) -> None:\n{body}"));
        let n = self.int(1, 9);
        let k = self.int(0, 20);
        self.backend_calls.push(format!("{name}({n}, {k})"));
    }
}

/// A non-negative i32 expression `e` as a value of `t` (through `i64` or
/// `str` where no direct conversion exists).
fn from_i32(t: &Ty, e: &str) -> String {
    match t {
        Ty::I32 => e.to_string(),
        Ty::U64 => format!("u64(i64({e}))"),
        Ty::U32 => format!("u32(str({e}))"),
        t => format!("{}({e})", t.spell()),
    }
}
