//! Debug-build allocation checker: abstract interpretation over the
//! structured IR tracking which value each location holds. Every use must
//! find its value in its location (the location it was last written to);
//! calls clobber every caller-saved register. A location may hold several
//! values at once (after a `Copy` between values sharing it); an immediate
//! ([`Loc::Imm`]) is always available. A failure is a bug in
//! [`super::regalloc`], reported as `JitError::Internal`.

use super::abi::is_callee_saved;
use super::regalloc::{noop_convert, stmt_defs, stmt_uses, Allocation, Loc};
use crate::ir::{Block, Function, Op, Stmt, VReg};
use std::collections::HashMap;

type State = Option<HashMap<Loc, Vec<VReg>>>;

fn join(a: State, b: State) -> State {
    match (a, b) {
        (None, s) | (s, None) => s,
        (Some(a), Some(b)) => Some(
            a.into_iter()
                .filter_map(|(l, vs)| {
                    let o = b.get(&l)?;
                    let both: Vec<VReg> = vs.into_iter().filter(|v| o.contains(v)).collect();
                    (!both.is_empty()).then_some((l, both))
                })
                .collect(),
        ),
    }
}

struct Checker<'a> {
    f: &'a Function,
    alloc: &'a Allocation,
    breaks: Vec<State>,
    continues: Vec<State>,
}

/// Check `alloc` for `f`; `Err` names the first use that would read a clobbered location.
pub fn check(f: &Function, alloc: &Allocation) -> Result<(), String> {
    let mut st = HashMap::new();
    for &p in &f.params {
        st.insert(alloc.loc(p), vec![p]);
    }
    let mut c = Checker {
        f,
        alloc,
        breaks: vec![],
        continues: vec![],
    };
    c.block(&f.body, Some(st))
        .map(|_| ())
        .map_err(|e| format!("function `{}`: {e}", f.name))
}

impl Checker<'_> {
    fn block(&mut self, b: &Block, mut st: State) -> Result<State, String> {
        for s in &b.0 {
            st = self.stmt(s, st)?;
        }
        Ok(st)
    }

    fn stmt(&mut self, s: &Stmt, st: State) -> Result<State, String> {
        let Some(mut m) = st else { return Ok(None) };
        for v in stmt_uses(s) {
            let l = self.alloc.loc(v);
            if !matches!(l, Loc::Imm(_)) && !m.get(&l).is_some_and(|vs| vs.contains(&v)) {
                return Err(format!(
                    "{v} read from {l:?}, which holds {:?} ({s:?})",
                    m.get(&l)
                ));
            }
        }
        if matches!(s, Stmt::Call { .. } | Stmt::CallHelper { .. }) {
            m.retain(|l, _| match l {
                Loc::Gpr(r) => is_callee_saved(*r),
                Loc::Xmm(_) => false,
                Loc::Slot(_) | Loc::Imm(_) => true,
            });
        }
        // A copy within one location adds the value; any other write replaces.
        // (A value-preserving conversion is a copy: see `regalloc::noop_convert`.)
        let same = match s {
            Stmt::Assign {
                dst,
                op: Op::Copy(a) | Op::Convert(a),
            } if self.alloc.loc(*dst) == self.alloc.loc(*a)
                && noop_convert(self.f.ty(*a), self.f.ty(*dst)) =>
            {
                Some(*dst)
            }
            _ => None,
        };
        for v in stmt_defs(s) {
            let l = self.alloc.loc(v);
            if matches!(l, Loc::Imm(_)) {
                continue;
            }
            match same {
                Some(d) if d == v => m.entry(l).or_default().push(v),
                _ => {
                    m.insert(l, vec![v]);
                }
            }
        }
        match s {
            Stmt::If { then_, else_, .. } => {
                let a = self.block(then_, Some(m.clone()))?;
                let b = self.block(else_, Some(m))?;
                Ok(join(a, b))
            }
            Stmt::Loop { body } => {
                // Iterate the header state to a fixpoint (states only shrink).
                let mut head = Some(m);
                loop {
                    self.breaks.push(None);
                    self.continues.push(None);
                    let end = self.block(body, head.clone())?;
                    let brk = self.breaks.pop().expect("pushed");
                    let cont = self.continues.pop().expect("pushed");
                    let next = join(head.clone(), join(end, cont));
                    if next == head {
                        return Ok(brk);
                    }
                    head = next;
                }
            }
            Stmt::Break => {
                let b = self.breaks.last_mut().expect("verified: in a loop");
                *b = join(b.take(), Some(m));
                Ok(None)
            }
            Stmt::Continue => {
                let c = self.continues.last_mut().expect("verified: in a loop");
                *c = join(c.take(), Some(m));
                Ok(None)
            }
            Stmt::Return(_) | Stmt::Raise { .. } => Ok(None),
            _ => Ok(Some(m)),
        }
    }
}
