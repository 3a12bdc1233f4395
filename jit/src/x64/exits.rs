//! Loop exit tests made cheaper with value ranges ([`super::range`]), before
//! register allocation (after strength reduction; [`super::simplify`] runs
//! again to drop what this leaves unused):
//!
//! - *offset comparisons*: `b = (x + c) cmp k` (or `x - c`), where the sum is
//!   exact (no definition of it wraps), `c` and `k` are constants and `x` a
//!   temporary, becomes `b = x cmp (k - c)` (when `k - c` is a value of the
//!   type): the two are equal for every `x` whose sum does not wrap, and
//!   the sum, no longer read, goes. `while k + 2 < n` tests `k < n - 2`;
//! - *count-down counters*: a loop counter `j` that only counts — read
//!   only at the top of the loop, by `r = j`, for the exit test `r < k` (`k`
//!   invariant; the loop leaves when it fails) and for its one update `j =
//!   r + 1`, later at the top level of the body, and read nowhere else in
//!   the function — is replaced by `d`, a `u64` local holding `k - j`:
//!   `d = k - j` before the loop (0 when `j >= k`: the loop exits at once,
//!   as before), the test becomes `d != 0`, and `d = d - 1` goes at the end
//!   of the body and before every `continue` that follows `j`'s update (the
//!   paths where `j` moved on). While the loop runs `j < k`, so `k - j` is
//!   between 1 and `2^64 - 1` and exact in `u64`, and `j + 1` never
//!   wraps. With the decrement last, the code generator branches on its
//!   flags (`sub; jne`), as gcc's counted loops do.

use super::range::{value_of, word_of, Ranges};
use super::simplify::simplify;
use crate::ir::visit::{each_def, each_use, walk};
use crate::ir::{BinOp, Block, CmpOp, Function, Op, Stmt, Ty, VReg, VRegInfo, VRegKind};

/// `f` with its exit tests rewritten (simplified again when something
/// changed) and the value ranges of the result.
pub fn rewrite(mut g: Function) -> (Function, Ranges) {
    let ranges = Ranges::analyse(&g);
    let mut defs: Vec<Option<Op>> = vec![None; g.vregs.len()];
    let mut uses = vec![0u32; g.vregs.len()];
    walk(&g.body, &mut |s| {
        if let Stmt::Assign { dst, op } = s {
            if g.vregs[dst.index()].kind == VRegKind::Temp {
                defs[dst.index()] = Some(op.clone());
            }
        }
        each_use(s, |v| uses[v.index()] += 1);
    });
    let mut cx = Cx {
        vregs: std::mem::take(&mut g.vregs),
        defs,
        uses,
        ranges: &ranges,
        changed: false,
    };
    let body = std::mem::take(&mut g.body);
    g.body = cx.block(body);
    g.vregs = cx.vregs;
    if cx.changed {
        let g = simplify(&g);
        let ranges = Ranges::analyse(&g);
        (g, ranges)
    } else {
        (g, ranges)
    }
}

struct Cx<'r> {
    vregs: Vec<VRegInfo>,
    defs: Vec<Option<Op>>,
    /// Reads of each register in the function (as given).
    uses: Vec<u32>,
    ranges: &'r Ranges,
    changed: bool,
}

/// A counter of a loop that only counts (see the module comment).
struct Counter {
    j: VReg,
    /// `r = Copy(j)`, the exit test's comparison and `j`'s update:
    /// top-level indices.
    r_at: usize,
    cmp_at: usize,
    update_at: usize,
    stop: VReg,
}

/// Every register a block writes (nested blocks included).
fn writes(b: &Block, v: VReg) -> usize {
    let mut n = 0;
    walk(b, &mut |s| each_def(s, |d| n += usize::from(d == v)));
    n
}

fn defines(b: &Block, v: VReg) -> bool {
    writes(b, v) > 0
}

impl Cx<'_> {
    fn konst(&self, v: VReg) -> Option<i128> {
        match self.defs.get(v.index())? {
            Some(Op::Const(w)) => Some(value_of(self.vregs[v.index()].ty, *w)),
            _ => None,
        }
    }

    fn temp(&self, v: VReg) -> bool {
        self.vregs[v.index()].kind == VRegKind::Temp
    }

    /// `t` as `x + off` with `x` a temporary, when `t` is an exact sum of
    /// a temporary and a constant.
    fn offset_of(&self, t: VReg) -> Option<(VReg, i128)> {
        if !self.temp(t) || !self.ranges.exact(t) {
            return None;
        }
        let (x, off) = match *self.defs[t.index()].as_ref()? {
            Op::Binary(BinOp::Add, x, y) => match (self.konst(x), self.konst(y)) {
                (None, Some(c)) => (x, c),
                (Some(c), None) => (y, c),
                _ => return None,
            },
            Op::Binary(BinOp::Sub, x, y) => (x, -self.konst(y)?),
            _ => return None,
        };
        self.temp(x).then_some((x, off))
    }

    /// `cmp(a, b)` rewritten: the new constant's statement and the op.
    fn offset_compare(&mut self, op: &Op) -> Option<(Stmt, Op)> {
        let Op::Cmp(c, a, b) = *op else {
            return None;
        };
        let ty = self.vregs[a.index()].ty;
        let full = super::range::Interval::of_type(ty)?;
        // The sum on either side, the constant on the other.
        let (sum_left, t, k) = match (self.konst(a), self.konst(b)) {
            (None, Some(k)) => (true, a, k),
            (Some(k), None) => (false, b, k),
            _ => return None,
        };
        let (x, off) = self.offset_of(t)?;
        let k2 = k - off;
        if !(full.lo..=full.hi).contains(&k2) {
            return None;
        }
        self.vregs.push(VRegInfo {
            ty,
            kind: VRegKind::Temp,
        });
        let kv = VReg(self.vregs.len() as u32 - 1);
        let kop = Op::Const(word_of(ty, k2));
        self.defs.push(Some(kop.clone()));
        let new = if sum_left {
            Op::Cmp(c, x, kv)
        } else {
            Op::Cmp(c, kv, x)
        };
        Some((Stmt::Assign { dst: kv, op: kop }, new))
    }

    fn block(&mut self, b: Block) -> Block {
        let mut out = Vec::with_capacity(b.0.len());
        for s in b.0 {
            match s {
                Stmt::Assign { dst, op } => match self.offset_compare(&op) {
                    Some((konst, op)) => {
                        self.changed = true;
                        out.push(konst);
                        out.push(Stmt::Assign { dst, op });
                    }
                    None => out.push(Stmt::Assign { dst, op }),
                },
                Stmt::If { cond, then_, else_ } => out.push(Stmt::If {
                    cond,
                    then_: self.block(then_),
                    else_: self.block(else_),
                }),
                Stmt::Loop { body } => {
                    let mut body = self.block(body);
                    if let Some(pre) = self.count_down(&out, &mut body) {
                        self.changed = true;
                        out.extend(pre);
                    }
                    out.push(Stmt::Loop { body });
                }
                s => out.push(s),
            }
        }
        Block(out)
    }

    fn new_temp(&mut self, ty: Ty, op: Op, out: &mut Vec<Stmt>) -> VReg {
        self.vregs.push(VRegInfo {
            ty,
            kind: VRegKind::Temp,
        });
        let t = VReg(self.vregs.len() as u32 - 1);
        self.defs.push(Some(op.clone()));
        self.uses.push(0);
        out.push(Stmt::Assign { dst: t, op });
        t
    }

    fn new_local(&mut self, ty: Ty) -> VReg {
        self.vregs.push(VRegInfo {
            ty,
            kind: VRegKind::Local,
        });
        self.defs.push(None);
        self.uses.push(0);
        VReg(self.vregs.len() as u32 - 1)
    }

    /// The counter of a loop body that only counts, if there is one.
    fn counter(&self, body: &Block) -> Option<Counter> {
        let st = &body.0;
        for (r_at, s) in st.iter().enumerate() {
            let Stmt::Assign {
                dst: r,
                op: Op::Copy(j),
            } = *s
            else {
                continue;
            };
            let ty = self.vregs[j.index()].ty;
            if !self.temp(r)
                || self.temp(j)
                || !ty.is_int()
                || self.uses[j.index()] != 1
                || self.uses[r.index()] != 2
            {
                continue;
            }
            // The exit test: `c = r < stop` and `if c {} else {break}`.
            let Some(test_at) = st.iter().skip(r_at + 1).position(|s| {
                matches!(s, Stmt::If { cond, then_, else_ }
                    if then_.0.is_empty() && matches!(else_.0.as_slice(), [Stmt::Break])
                        && matches!(self.defs[cond.index()], Some(Op::Cmp(CmpOp::Lt, a, _)) if a == r))
            }) else {
                continue;
            };
            let test_at = test_at + r_at + 1;
            let Stmt::If { cond, .. } = st[test_at] else {
                unreachable!("found")
            };
            let Some(Op::Cmp(_, _, stop)) = self.defs[cond.index()] else {
                unreachable!("found")
            };
            let cmp_at = st[..test_at]
                .iter()
                .position(|s| matches!(s, Stmt::Assign { dst, .. } if *dst == cond))?;
            if cmp_at <= r_at || self.uses[cond.index()] != 1 {
                continue;
            }
            let invariant = if self.temp(stop) {
                !defines(body, stop)
            } else {
                writes(body, stop) == 0
            };
            if !invariant || writes(body, j) != 1 {
                continue;
            }
            // The update `j = r + 1` (or through a temporary read once).
            let Some(update_at) = st
                .iter()
                .position(|s| matches!(s, Stmt::Assign { dst, .. } if *dst == j))
            else {
                continue;
            };
            if update_at <= test_at {
                continue;
            }
            let Stmt::Assign { op, .. } = &st[update_at] else {
                unreachable!("found")
            };
            let sum = match *op {
                Op::Copy(t) if self.temp(t) && self.uses[t.index()] == 1 => self.defs[t.index()].clone(),
                ref op @ Op::Binary(..) => Some(op.clone()),
                _ => None,
            };
            let plus_one = match sum {
                Some(Op::Binary(BinOp::Add, a, b)) => {
                    (a == r && self.konst(b) == Some(1)) || (b == r && self.konst(a) == Some(1))
                }
                _ => false,
            };
            if plus_one {
                return Some(Counter {
                    j,
                    r_at,
                    cmp_at,
                    update_at,
                    stop,
                });
            }
        }
        None
    }

    /// Replace a counter that only counts by a count-down (see the module
    /// comment): the statements to put before the loop.
    fn count_down(&mut self, before: &[Stmt], body: &mut Block) -> Option<Vec<Stmt>> {
        let c = self.counter(body)?;
        let ty = self.vregs[c.j.index()].ty;
        let mut pre = vec![];
        // j's value on entry: the statement before the loop says it when
        // it is the last to write j there (so constants fold).
        let entry = match before.iter().rposition(|s| {
            let mut w = false;
            each_def(s, |d| w |= d == c.j);
            w || matches!(s, Stmt::If { .. } | Stmt::Loop { .. })
        }) {
            Some(i) => match before[i] {
                Stmt::Assign { op: Op::Copy(s0), .. } if self.temp(s0) => Some(s0),
                Stmt::Assign { op: Op::Const(w), .. } => Some(self.new_temp(ty, Op::Const(w), &mut pre)),
                _ => None,
            },
            None => None,
        };
        let e = match entry {
            Some(e) => e,
            None => self.new_temp(ty, Op::Copy(c.j), &mut pre),
        };
        let d = self.new_local(Ty::U64);
        let k64 = self.new_temp(Ty::U64, Op::Convert(c.stop), &mut pre);
        let e64 = self.new_temp(Ty::U64, Op::Convert(e), &mut pre);
        let diff = self.new_temp(Ty::U64, Op::Binary(BinOp::Sub, k64, e64), &mut pre);
        let zero = self.new_temp(Ty::U64, Op::Const(0), &mut pre);
        let starts_below = match (self.konst(e), self.konst(c.stop)) {
            (Some(a), Some(b)) => Some(a < b),
            _ => {
                let (re, rk) = (self.ranges.get(e), self.ranges.get(c.stop));
                match (re, rk) {
                    (Some(re), Some(rk)) if re.hi < rk.lo => Some(true),
                    (Some(re), Some(rk)) if re.lo >= rk.hi => Some(false),
                    _ => None,
                }
            }
        };
        match starts_below {
            Some(true) => pre.push(Stmt::Assign {
                dst: d,
                op: Op::Copy(diff),
            }),
            Some(false) => pre.push(Stmt::Assign {
                dst: d,
                op: Op::Copy(zero),
            }),
            None => {
                let below = self.new_temp(Ty::Bool, Op::Cmp(CmpOp::Lt, e, c.stop), &mut pre);
                pre.push(Stmt::If {
                    cond: below,
                    then_: Block(vec![Stmt::Assign {
                        dst: d,
                        op: Op::Copy(diff),
                    }]),
                    else_: Block(vec![Stmt::Assign {
                        dst: d,
                        op: Op::Copy(zero),
                    }]),
                });
            }
        }
        // The loop: r reads d, the test is d != 0, the update goes.
        let r2 = self.new_body_temp(Ty::U64, Op::Copy(d));
        body.0[c.r_at] = Stmt::Assign {
            dst: r2,
            op: Op::Copy(d),
        };
        let Stmt::Assign { dst: cond, .. } = body.0[c.cmp_at] else {
            unreachable!("found")
        };
        body.0[c.cmp_at] = Stmt::Assign {
            dst: cond,
            op: Op::Cmp(CmpOp::Ne, r2, zero),
        };
        self.defs[cond.index()] = Some(Op::Cmp(CmpOp::Ne, r2, zero));
        let one = self.new_temp(Ty::U64, Op::Const(1), &mut pre);
        let step = Stmt::Assign {
            dst: d,
            op: Op::Binary(BinOp::Sub, d, one),
        };
        let mut top = std::mem::take(&mut body.0);
        let tail = top.split_off(c.update_at + 1);
        top.pop();
        top.extend(super::strength::before_continues(tail, &step));
        body.0 = top;
        if !super::codegen::ends_in_jump(body) {
            body.0.push(step);
        }
        Some(pre)
    }

    /// A temporary defined by `op` in the loop body (its statement is
    /// placed by the caller).
    fn new_body_temp(&mut self, ty: Ty, op: Op) -> VReg {
        self.vregs.push(VRegInfo {
            ty,
            kind: VRegKind::Temp,
        });
        self.defs.push(Some(op));
        self.uses.push(0);
        VReg(self.vregs.len() as u32 - 1)
    }
}
