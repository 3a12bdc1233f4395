//! `simd-lanes`: SIMD kernels aimed at the jit's vector code (spec §15.2,
//! §17.2 item 6). Each kernel is a red function over `SIMD[T, N]` for a
//! lane type `T` of `i32 i64 f32 f64` and a width `N` of 1, 2, 4, 8 or 16
//! (partial, single and multi-chunk vectors under both SSE2 and AVX2),
//! whose vector parameters receive lanes of edge values from `main`
//! (integer extremes, NaN, ±0.0, ±inf, subnormals), so redshift cannot
//! fold the operations away:
//!
//! - lane-wise `+ - *` and `/` (integer `/` gives `f64` lanes; a divisor
//!   with a zero lane only at the division-by-zero rate), every comparison
//!   to a `SIMD[bool, N]` mask, masks compared with masks and with
//!   `SIMD[bool, N](True)`, scalar broadcast on either side (of the lane
//!   type or of an implicitly converting `i32`), lane reads, printing,
//!   vectors as parameters and results;
//! - a memory kernel: a `gc_alloc` buffer filled in a loop, read by
//!   `ptr_simd_load` at computed offsets and in a strided accumulation
//!   loop, written by `ptr_simd_store`, out of bounds (load or store, at
//!   either end) at the division-by-zero rate.

use super::types::{int_lit, Ty, F32_LITS};
use super::Gen;
use crate::config::Feature;

/// Float lane values: the edges of `F64_LITS` and a NaN (no literal exists).
const F64_LANES: &[&str] = &[
    "0.0",
    "-0.0",
    "1.0",
    "-1.5",
    "0.1",
    "1e308",
    "-1e308",
    "1e-310",
    "1e999",
    "-1e999",
    "(1e999 - 1e999)",
    "2.5",
    "-7.25",
];

impl Gen<'_, '_> {
    /// The SIMD kernels of this program, and their calls for `main`.
    pub(super) fn simd_lane_funcs(&mut self) {
        // At a rate that keeps the average program small (a kernel of 16
        // lanes is long IR: a vector crosses a call as its lanes).
        if !self.on(Feature::SimdLanes) || !self.chance(1, 3) {
            return;
        }
        self.mark(Feature::SimdLanes);
        self.import("simd", "SIMD");
        let (lane, n) = self.lane_and_width();
        self.simd_kernel(&lane, n);
        if self.chance(1, 2) {
            let (lane, n) = self.lane_and_width();
            self.simd_memory_kernel(&lane, n);
        }
    }

    fn lane_and_width(&mut self) -> (Ty, i64) {
        let lane = [Ty::I32, Ty::I64, Ty::F32, Ty::F64][self.pick(4)].clone();
        let n = [1i64, 2, 4, 8, 16][self.pick(5)];
        (lane, n)
    }

    /// One lane value of type `lane`: an edge value, sometimes small.
    fn lane_value(&mut self, lane: &Ty) -> String {
        match lane {
            Ty::F64 => F64_LANES[self.pick(F64_LANES.len())].to_string(),
            Ty::F32 => {
                if self.chance(1, 4) {
                    "f32(1e999 - 1e999)".to_string()
                } else {
                    format!("f32({})", F32_LITS[self.pick(F32_LITS.len())])
                }
            }
            int => {
                if self.chance(1, 3) {
                    int_lit(int, i128::from(self.int(-9, 9)))
                } else {
                    let edges = int.int_edges();
                    int_lit(int, edges[self.pick(edges.len())])
                }
            }
        }
    }

    /// `SIMD[T, N](...)` of edge lanes: one value per lane, or a splat.
    fn lane_vector(&mut self, lane: &Ty, n: i64) -> String {
        let t = format!("SIMD[{}, {n}]", lane.spell());
        if self.chance(1, 4) {
            let v = self.lane_value(lane);
            return format!("{t}({v})");
        }
        let lanes: Vec<String> = (0..n).map(|_| self.lane_value(lane)).collect();
        format!("{t}({})", lanes.join(", "))
    }

    /// A vector with no zero lane (a safe divisor).
    fn nonzero_vector(&mut self, lane: &Ty, n: i64) -> String {
        let t = format!("SIMD[{}, {n}]", lane.spell());
        let lanes: Vec<String> = (0..n)
            .map(|_| {
                let v = [1i64, -1, 2, 3, -7, 10][self.pick(6)];
                match lane {
                    Ty::F64 => format!("{v}.5"),
                    Ty::F32 => format!("f32({v}.5)"),
                    int => int_lit(int, i128::from(v)),
                }
            })
            .collect();
        format!("{t}({})", lanes.join(", "))
    }

    /// `def vk(a: SIMD[T, N], b: SIMD[T, N], x: X) -> SIMD[T, N]`: every
    /// lane-wise operator, comparison, mask and broadcast on `a`, `b`, `x`.
    fn simd_kernel(&mut self, lane: &Ty, n: i64) {
        let t = format!("SIMD[{}, {n}]", lane.spell());
        let name = self.fresh("vk");
        // The broadcast scalar: the lane type, or an `i32` converted to it.
        let xty = if *lane != Ty::I32 && *lane != Ty::F32 && self.chance(1, 3) {
            Ty::I32
        } else {
            lane.clone()
        };
        let j = self.int(0, n - 1);
        let mut body = String::new();
        body.push_str("    print(a + b, a - b, a * b)\n");
        body.push_str("    print(a + x, x - a, a * x, x * b)\n");
        body.push_str("    print(a < b, a <= b, a == b)\n");
        body.push_str("    print(a != b, a > b, a >= x, x > b)\n");
        body.push_str(&format!(
            "    m = a < b\n    print(m == (b > a), m != (a <= x), m == SIMD[bool, {n}](True), m[{j}])\n"
        ));
        body.push_str(&format!("    print(a[0], b[{}], a[{j}] + b[{j}])\n", n - 1));
        let q = self.nonzero_vector(lane, n);
        body.push_str(&format!("    print(a / {q})\n"));
        body.push_str("    print(a / 4, b / -2)\n");
        if self.on(Feature::DivZero) && self.chance(u32::from(self.cfg.div_zero_permille), 1000) {
            // `b` may have a zero lane: the scalar ZeroDivisionError.
            self.mark(Feature::DivZero);
            body.push_str("    print(b / a)\n");
        }
        if self.chance(1, 2) {
            // A vector local reassigned in a loop (a loop-carried vector).
            body.push_str(&format!(
                "    c = a\n    k: i32 = 0\n    while k < 3:\n        c = c * x - b\n        k = k + 1\n    print(c, c[{j}])\n"
            ));
        }
        body.push_str("    return a * x - b\n");
        self.defs.push(format!(
            "def {name}(a: {t}, b: {t}, x: {}) -> {t}:\n{body}",
            xty.spell()
        ));
        for _ in 0..self.int(1, 2) {
            let a = self.lane_vector(lane, n);
            let b = self.lane_vector(lane, n);
            let x = self.lane_value(&xty);
            if self.chance(1, 2) {
                self.backend_calls.push(format!("print({name}({a}, {b}, {x}))"));
            } else {
                // The result fed back in: a vector result crossing a call.
                self.backend_calls
                    .push(format!("print({name}({name}({a}, {b}, {x}), {b}, {x})[{j}])"));
            }
        }
    }

    /// `def vm(nb, off, off2, v)`: a buffer of `nb` lanes filled in a loop,
    /// loaded at `off`, stored at `off2`, summed `N` lanes at a time.
    fn simd_memory_kernel(&mut self, lane: &Ty, n: i64) {
        self.import("unsafe", "gc_alloc");
        self.import("simd", "ptr_simd_load");
        self.import("simd", "ptr_simd_store");
        let ts = lane.spell();
        let t = format!("SIMD[{ts}, {n}]");
        let name = self.fresh("vm");
        let (fill, zero) = match lane {
            Ty::I32 => ("i * 3 - 2".to_string(), "0".to_string()),
            Ty::F64 => ("f64(i) * 1.5 - 2.0".to_string(), "0.0".to_string()),
            Ty::F32 => ("f32(i) * f32(0.5) - f32(2.0)".to_string(), "f32(0.0)".to_string()),
            _ => (
                "i64(i) * i64(3000000000) - i64(2)".to_string(),
                "i64(0)".to_string(),
            ),
        };
        let mut body = format!(
            "    p = gc_alloc[{ts}](nb)\n    i: i32 = 0\n    while i < nb:\n        p[i] = {fill}\n        i = i + 1\n"
        );
        body.push_str(&format!(
            "    w = ptr_simd_load[{ts}, {n}](p, off)\n    print(w, w[{}])\n",
            n - 1
        ));
        body.push_str("    ptr_simd_store(p, off2, w * v + w)\n    print(p[0], p[nb - 1])\n");
        body.push_str(&format!(
            "    acc = {t}({zero})\n    j: i32 = 0\n    while j + {n} <= nb:\n        acc = acc + ptr_simd_load[{ts}, {n}](p, j) * v\n        j = j + {n}\n    print(acc)\n"
        ));
        self.defs.push(format!(
            "def {name}(nb: i32, off: i32, off2: i32, v: {t}) -> None:\n{body}"
        ));
        for _ in 0..self.int(1, 2) {
            let len = n + self.int(0, 5);
            let mut off = self.int(0, len - n);
            let mut off2 = self.int(0, len - n);
            if self.on(Feature::DivZero) && self.chance(u32::from(self.cfg.div_zero_permille), 1000) {
                self.mark(Feature::DivZero);
                let bad = [len - n + 1, -1, len][self.pick(3)];
                if self.chance(1, 2) {
                    off = bad;
                } else {
                    off2 = bad;
                }
            }
            let v = self.lane_vector(lane, n);
            self.backend_calls
                .push(format!("{name}({len}, {off}, {off2}, {v})"));
        }
    }
}
