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
//!   expression (register allocation, spills, caller-saved registers).

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
}
