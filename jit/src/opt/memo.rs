//! Memoized bounds checks: an access (load or store) whose pointer, length
//! and index registers are those of an earlier checked access of the same
//! element type and at least as many lanes, with none of the three written
//! in between, is made `checked: false`. Its checks would compute the
//! same thing on the same values: the earlier one passed (else it raised
//! and this one is not reached), so `ptr != 0` and `index .. index + w`
//! is within `len` for the earlier `w` ≥ this access's lanes. Exact, and
//! [`crate::ir::eval`] still checks (a wrong memo shows as the internal
//! error).
//!
//! Facts flow forward through one statement list, into the arms of an
//! `if` that follows, and into a loop body for the registers the loop does
//! not write; a write of any of the three registers (anywhere, nested
//! statements included) forgets the fact.

use super::{each_def, walk};
use crate::ir::{Block, Function, Module, Op, Stmt, Ty, VReg, VRegKind};

/// A checked access: (ptr, len, index, element type, lanes).
type Fact = (VReg, VReg, VReg, Ty, u32);

/// Memoize checks in every function of `m` (verified; stays verified).
/// Returns the number of accesses made unchecked.
pub fn memoize_checks(m: &mut Module) -> usize {
    let mut n = 0;
    for f in &mut m.functions {
        let mut body = std::mem::take(&mut f.body);
        n += block(f, &mut body, vec![]);
        f.body = body;
    }
    n
}

/// The access a statement makes: its fact and its `checked` flag.
fn access<'s>(f: &Function, s: &'s mut Stmt) -> Option<(Fact, &'s mut bool)> {
    let (ptr, len, index, ty, checked) = match s {
        Stmt::Assign {
            dst,
            op:
                Op::Load {
                    ptr,
                    len,
                    index,
                    checked,
                    ..
                },
        } => (*ptr, *len, *index, f.ty(*dst), checked),
        Stmt::Store {
            ptr,
            len,
            index,
            value,
            checked,
            ..
        } => (*ptr, *len, *index, f.ty(*value), checked),
        _ => return None,
    };
    let (elem, lanes) = match ty {
        Ty::Vec(vt) => (vt.lane.ty(), u32::from(vt.n)),
        t => (t, 1),
    };
    Some(((ptr, len, index, elem, lanes), checked))
}

/// Every local `s` writes, nested statements included. A temporary is
/// left out: it is defined once, and a fact holds only registers an
/// earlier access read (so defined before it), so no write of a
/// temporary can concern a known fact or the access that defines it
/// (verified IR). Most statements write a temporary and nothing else:
/// their list is empty and allocates nothing.
fn writes(f: &Function, s: &Stmt, w: &mut Vec<VReg>) {
    w.clear();
    let mut local = |v: VReg| {
        if f.vregs[v.index()].kind == VRegKind::Local {
            w.push(v)
        }
    };
    each_def(s, &mut local);
    if let Stmt::If { then_, else_, .. } = s {
        for b in [then_, else_] {
            walk(b, &mut |t| each_def(t, &mut local));
        }
    }
    if let Stmt::Loop { body } = s {
        walk(body, &mut |t| each_def(t, &mut local));
    }
}

fn forget(facts: &mut Vec<Fact>, written: &[VReg]) {
    if written.is_empty() {
        return;
    }
    facts.retain(|&(p, l, i, _, _)| !written.iter().any(|&v| v == p || v == l || v == i));
}

fn block(f: &Function, b: &mut Block, mut facts: Vec<Fact>) -> usize {
    let mut n = 0;
    let mut written = vec![];
    for s in &mut b.0 {
        // What `s` writes matters only to facts known before it and to
        // the fact an access adds (not allocated otherwise).
        let is_access = matches!(
            s,
            Stmt::Assign {
                op: Op::Load { .. },
                ..
            } | Stmt::Store { .. }
        );
        if facts.is_empty() && !is_access {
            written.clear();
        } else {
            writes(f, s, &mut written);
        }
        match s {
            Stmt::If { then_, else_, .. } => {
                n += block(f, then_, facts.clone());
                n += block(f, else_, facts.clone());
            }
            Stmt::Loop { body } => {
                // Facts about registers the loop never writes hold in it.
                let mut inside = facts.clone();
                forget(&mut inside, &written);
                n += block(f, body, inside);
            }
            _ => {}
        }
        if let Some((fact, checked)) = access(f, s) {
            let (p, l, i, t, w) = fact;
            let covered = facts
                .iter()
                .any(|&(p2, l2, i2, t2, w2)| (p2, l2, i2, t2) == (p, l, i, t) && w2 >= w);
            if *checked && covered {
                *checked = false;
                n += 1;
            }
            forget(&mut facts, &written);
            // A load into its own index or length proves nothing afterwards.
            if !written.iter().any(|&v| v == p || v == l || v == i) {
                facts.push(fact);
            }
        } else {
            forget(&mut facts, &written);
        }
    }
    n
}
