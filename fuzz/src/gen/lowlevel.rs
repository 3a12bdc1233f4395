//! `unsafe` and `simd` statements: `gc_alloc` buffers (scalars and
//! structs) written and read in and out of bounds (at the configured
//! error rate), SIMD vectors built lane by lane and by broadcast, lane-wise
//! arithmetic and comparisons, lane reads, `ptr_simd_load` and
//! `ptr_simd_store`. `simd_width_of` is never used: its value depends on
//! the host.

use super::stmt::FnCtx;
use super::types::Ty;
use super::Gen;
use crate::config::Feature;

fn pad(ind: usize) -> String {
    "    ".repeat(ind)
}

impl Gen<'_, '_> {
    /// An index into a buffer of `n` items: in bounds, except rarely.
    fn ptr_index(&mut self, n: i64) -> i64 {
        if self.on(Feature::DivZero) && self.chance(u32::from(self.cfg.div_zero_permille), 1000) {
            self.mark(Feature::DivZero);
            return [n, -1, n + 3][self.pick(3)];
        }
        self.int(0, n - 1)
    }

    pub(super) fn ptr_block(&mut self, ctx: &mut FnCtx, ind: usize, out: &mut String) {
        self.mark(Feature::GcPtr);
        self.import("unsafe", "gc_alloc");
        let p = pad(ind);
        let q = self.fresh("q");
        let env = ctx.env.clone();
        if !self.structs.is_empty() && self.chance(1, 3) {
            // A buffer of one struct, mutated in place through the pointer.
            let k = self.pick(self.structs.len());
            let fields = self.structs[k].clone();
            let name = self.struct_names[k].clone();
            out.push_str(&format!("{p}{q} = gc_alloc[{name}](1)\n"));
            let j = self.pick(fields.len());
            let e = self.expr(&env, &fields[j], 2);
            out.push_str(&format!("{p}{q}.a{j} = {e}\n"));
            out.push_str(&format!(
                "{p}print({q}.a{j}, {q}[0].a{})\n",
                self.pick(fields.len())
            ));
            return;
        }
        let ty = loop {
            let t = self.scalar_ty();
            if t != Ty::Str || self.u.is_empty() {
                break if t == Ty::Str { Ty::I32 } else { t };
            }
        };
        let n = self.int(1, 6);
        out.push_str(&format!("{p}{q} = gc_alloc[{}]({n})\n", ty.spell()));
        for _ in 0..self.int(1, 3) {
            let i = self.ptr_index(n);
            let e = self.arg(&env, &ty, 2);
            out.push_str(&format!("{p}{q}[{i}] = {e}\n"));
        }
        let reads: Vec<String> = (0..self.int(1, 3))
            .map(|_| format!("{q}[{}]", self.ptr_index(n)))
            .collect();
        out.push_str(&format!("{p}print({})\n", reads.join(", ")));
    }

    pub(super) fn simd_block(&mut self, ctx: &mut FnCtx, ind: usize, out: &mut String) {
        self.mark(Feature::Simd);
        self.import("simd", "SIMD");
        let p = pad(ind);
        let lane = [Ty::I32, Ty::I64, Ty::F32, Ty::F64][self.pick(4)].clone();
        let lane = if self.ty_on(&lane) { lane } else { Ty::F64 };
        let n = [1i64, 2, 4, 8, 16][self.pick(5)];
        let t = format!("SIMD[{}, {n}]", lane.spell());
        let env = ctx.env.clone();
        let a = self.fresh("sv");
        let lanes: Vec<String> = (0..n).map(|_| self.arg(&env, &lane, 1)).collect();
        out.push_str(&format!("{p}{a} = {t}({})\n", lanes.join(", ")));
        let b = self.fresh("sv");
        let fill = self.arg(&env, &lane, 1);
        out.push_str(&format!("{p}{b} = {t}({fill})\n"));
        let op = ["+", "-", "*"][self.pick(3)];
        let cmp = ["==", "<", ">=", "!="][self.pick(4)];
        let scalar = if lane.is_float() { "2.5" } else { "3" };
        out.push_str(&format!(
            "{p}print({a} {op} {b}, {a} {cmp} {b}, {a} * {scalar}, {a}[{}])\n",
            self.int(0, n - 1)
        ));
        if lane.is_float() && self.chance(1, 2) {
            out.push_str(&format!("{p}print({a} / {t}(4.0))\n"));
        }
        if self.on(Feature::UnrollRange) && self.chance(1, 3) {
            self.import("__spy__", "UNROLL_RANGE");
            self.mark(Feature::UnrollRange);
            let u = self.fresh("u");
            out.push_str(&format!(
                "{p}for {u} in UNROLL_RANGE({n}):\n{p}    print({b}[{u}] + {a}[{u}])\n"
            ));
        }
        if self.chance(2, 3) {
            // Through memory: fill a buffer, load lanes, store them back.
            self.import("unsafe", "gc_alloc");
            self.import("simd", "ptr_simd_load");
            self.import("simd", "ptr_simd_store");
            let q = self.fresh("q");
            let len = n + self.int(0, 3);
            let i = self.fresh("i");
            out.push_str(&format!(
                "{p}{q} = gc_alloc[{}]({len})\n{p}for {i} in range({len}):\n{p}    {q}[{i}] = {i} * 3 - 2\n",
                lane.spell()
            ));
            let off = self.int(0, len - n);
            let l = self.fresh("sv");
            out.push_str(&format!(
                "{p}{l} = ptr_simd_load[{}, {n}]({q}, {off})\n{p}print({l}, {l}[0])\n",
                lane.spell()
            ));
            let off2 = self.int(0, len - n);
            out.push_str(&format!(
                "{p}ptr_simd_store({q}, {off2}, {l} * {scalar} + {a})\n{p}print({q}[0], {q}[{}])\n",
                len - 1
            ));
        }
    }
}
