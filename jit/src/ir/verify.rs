//! The IR verifier: typing rules, structure (loops, returns, call
//! signatures) and definite assignment. Both the evaluator and the backend
//! assume a verified module; [`crate::compile`] runs this first.
//!
//! Typing rules, by operation (`t` is the type of the operands, `d` of the
//! destination):
//! - `Const(w)`: `w` is canonical for `d`;
//! - `Copy(a)`, `Unary`: `d == t`; `Not` on integers and Bool, `Neg` on
//!   integers and floats;
//! - `Binary`: `d == t`, both operands `t`; `Add/Sub/Mul` on integers and
//!   floats, `And/Or/Xor` on integers and Bool;
//! - `FloorDiv`, `FloorMod`, `Shift`: integers; `FDiv`: floats;
//! - `Cmp`: both operands `t`, any type but `Handle` (`Ptr` compares as
//!   unsigned), `d == Bool`;
//! - `Convert(a)`: `sem::convertible(t, d)`;
//! - `Load`/`Store`: `ptr: Ptr`, `len` and `index` `I64` or `U64`;
//! - vectors ([`super::vector`]): only `Copy`, `Load`, `Store` and the
//!   `Vector` ops take or give them, never a parameter, result or call
//!   argument (a vector `Load`/`Store` accesses a run of lane elements);
//!   `Splat(a)`: `a` of the lane type; `Build(ls)`: one lane-typed value per
//!   lane; `Lane(a, k)`: `k` below the lane count, `d` the lane type;
//!   `Binary`: `Add/Sub/Mul`, `d` and both operands the same vector type
//!   with `I32 I64 F32 F64` lanes; `FDiv`: the same with float lanes;
//!   `Cmp`: both operands one vector type (not `Bool` lanes), `d` the same
//!   count of `Bool` lanes; `Convert`: `vector::convertible`, same count.

use super::{sem, Block, Class, Function, Module, Op, Stmt, Ty, UnOp, VReg, VRegKind, MAX_RESULTS};
use super::{vector, BinOp, Lane, VOp};
use std::fmt;

/// Why a module is not valid IR.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct VerifyError {
    pub function: String,
    pub message: String,
}

impl fmt::Display for VerifyError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "invalid IR in function `{}`: {}", self.function, self.message)
    }
}

impl std::error::Error for VerifyError {}

/// Most arguments of one call or parameters of one function.
pub const MAX_PARAMS: usize = 64;

/// Check the whole module.
pub fn verify(m: &Module) -> Result<(), VerifyError> {
    for (i, h) in m.helpers.iter().enumerate() {
        let err = |message: String| VerifyError {
            function: format!("helper #{i} `{}`", h.name),
            message,
        };
        let ints = h.params.iter().filter(|t| t.class() == Class::Int).count() + h.takes_ctx as usize;
        let floats = h.params.len() + h.takes_ctx as usize - ints;
        if ints > 6 || floats > 8 {
            return Err(err("helpers take at most 6 integer and 8 float arguments".into()));
        }
        if h.params
            .iter()
            .chain(&h.result)
            .any(|t| t.class() == Class::Vector)
        {
            return Err(err("a helper takes and gives no vectors".into()));
        }
        if h.addr == 0 {
            return Err(err("null helper address".into()));
        }
    }
    for f in &m.functions {
        Checker {
            m,
            f,
            defined_once: vec![false; f.vregs.len()],
            loop_depth: 0,
            open_inline: vec![],
            params: vec![],
        }
        .function()
        .map_err(|message| VerifyError {
            function: f.name.clone(),
            message,
        })?;
    }
    Ok(())
}

/// Definitely-assigned set; `None` when the point is unreachable.
type State = Option<Vec<bool>>;

fn join(a: State, b: State) -> State {
    match (a, b) {
        (None, s) | (s, None) => s,
        (Some(mut a), Some(b)) => {
            for (x, y) in a.iter_mut().zip(&b) {
                *x &= *y;
            }
            Some(a)
        }
    }
}

struct Checker<'a> {
    m: &'a Module,
    f: &'a Function,
    defined_once: Vec<bool>,
    loop_depth: u32,
    /// The open `InlineEnter`s, innermost last: the loop depth at each.
    open_inline: Vec<u32>,
    /// Scratch: a called function's parameter types.
    params: Vec<Ty>,
}

type R<T> = Result<T, String>;

/// What is wrong with a register (the message is made out of line, only
/// when an error is found).
#[derive(Clone, Copy)]
enum RegError {
    Unknown,
    ReadUnassigned,
    TempDefinedTwice,
}

#[cold]
#[inline(never)]
fn reg_error(v: VReg, e: RegError) -> String {
    match e {
        RegError::Unknown => format!("unknown virtual register {v}"),
        RegError::ReadUnassigned => format!("{v} may be read before it is assigned"),
        RegError::TempDefinedTwice => format!("temporary {v} is defined twice"),
    }
}

impl Checker<'_> {
    fn function(&mut self) -> R<()> {
        let f = self.f;
        if f.results.len() > MAX_RESULTS {
            return Err(format!("{} results (at most {MAX_RESULTS})", f.results.len()));
        }
        if f.params.len() > MAX_PARAMS {
            return Err(format!("{} parameters (at most {MAX_PARAMS})", f.params.len()));
        }
        if let Some(t) = f.results.iter().find(|t| t.class() == Class::Vector) {
            return Err(format!("a result of vector type {t}"));
        }
        let mut st = vec![false; f.vregs.len()];
        for &p in &f.params {
            if self.reg(p)?.class() == Class::Vector {
                return Err(format!("parameter {p} has a vector type"));
            }
            self.reg(p)?;
            if f.vregs[p.index()].kind != VRegKind::Local {
                return Err(format!("parameter {p} is not a local"));
            }
            if st[p.index()] {
                return Err(format!("parameter {p} listed twice"));
            }
            st[p.index()] = true;
        }
        let mut brk = None;
        match self.block(&f.body, Some(st), &mut brk)? {
            None => Ok(()),
            Some(_) => Err("control reaches the end of the function without a Return".into()),
        }
    }

    // `reg`, `use_` and `def` run for every operand and result: inlined,
    // their messages made out of line ([`reg_error`]).

    #[inline]
    fn reg(&self, v: VReg) -> R<Ty> {
        match self.f.vregs.get(v.index()) {
            Some(i) => Ok(i.ty),
            None => Err(reg_error(v, RegError::Unknown)),
        }
    }

    #[inline]
    fn use_(&self, st: &State, v: VReg) -> R<Ty> {
        let ty = self.reg(v)?;
        if let Some(s) = st {
            if !s[v.index()] {
                return Err(reg_error(v, RegError::ReadUnassigned));
            }
        }
        Ok(ty)
    }

    #[inline]
    fn def(&mut self, st: &mut State, v: VReg) -> R<Ty> {
        let ty = self.reg(v)?;
        if self.f.vregs[v.index()].kind == VRegKind::Temp {
            if self.defined_once[v.index()] {
                return Err(reg_error(v, RegError::TempDefinedTwice));
            }
            self.defined_once[v.index()] = true;
        }
        if let Some(s) = st {
            s[v.index()] = true;
        }
        Ok(ty)
    }

    fn block(&mut self, b: &Block, mut st: State, brk: &mut State) -> R<State> {
        let open = self.open_inline.len();
        for s in &b.0 {
            match s {
                Stmt::InlineEnter(_) => self.open_inline.push(self.loop_depth),
                Stmt::InlineExit if self.open_inline.len() == open => {
                    return Err("InlineExit without an InlineEnter in its block".into())
                }
                Stmt::InlineExit => {
                    self.open_inline.pop();
                }
                _ => {}
            }
            st = self.stmt(s, st, brk)?;
        }
        if self.open_inline.len() != open {
            return Err("InlineEnter without an InlineExit in its block".into());
        }
        Ok(st)
    }

    /// Whether a `Break`/`Continue` stays inside the innermost open inlined call.
    fn jump_inside_inline(&self) -> bool {
        self.open_inline.last().is_none_or(|&d| self.loop_depth > d)
    }

    fn index_args(&self, st: &State, ptr: VReg, len: VReg, index: VReg) -> R<()> {
        if self.use_(st, ptr)? != Ty::Ptr {
            return Err(format!("{ptr} is not a ptr"));
        }
        for v in [len, index] {
            let t = self.use_(st, v)?;
            if !matches!(t, Ty::I64 | Ty::U64) {
                return Err(format!("length/index {v} has type {t}, not i64/u64"));
            }
        }
        Ok(())
    }

    fn stmt(&mut self, s: &Stmt, mut st: State, brk: &mut State) -> R<State> {
        match s {
            Stmt::Assign { dst, op } => {
                let d = self.reg(*dst)?;
                self.op(&st, d, op).map_err(|e| format!("{dst} = {op:?}: {e}"))?;
                self.def(&mut st, *dst)?;
            }
            Stmt::Store {
                ptr,
                len,
                index,
                value,
                ..
            } => {
                self.index_args(&st, *ptr, *len, *index)?;
                self.use_(&st, *value)?;
            }
            Stmt::Call {
                func, args, results, ..
            } => {
                let callee = self
                    .m
                    .functions
                    .get(func.0 as usize)
                    .ok_or_else(|| format!("call of unknown function #{}", func.0))?;
                // The callee's parameter types, in a buffer reused from call to call.
                let mut params = std::mem::take(&mut self.params);
                params.clear();
                params.extend(callee.params.iter().map(|&p| callee.ty(p)));
                let checked = self.call_sig(&mut st, &params, &callee.results, args, results);
                self.params = params;
                checked.map_err(|e| format!("call of `{}`: {e}", callee.name))?;
            }
            Stmt::CallHelper {
                helper,
                args,
                results,
                ..
            } => {
                let h = self
                    .m
                    .helpers
                    .get(helper.0 as usize)
                    .ok_or_else(|| format!("call of unknown helper #{}", helper.0))?;
                self.call_sig(&mut st, &h.params, h.result.as_slice(), args, results)
                    .map_err(|e| format!("call of helper `{}`: {e}", h.name))?;
            }
            Stmt::Raise { operands, .. } => {
                for v in operands.iter().flatten() {
                    self.use_(&st, *v)?;
                }
                return Ok(None);
            }
            Stmt::If { cond, then_, else_ } => {
                if self.use_(&st, *cond)? != Ty::Bool {
                    return Err(format!("If condition {cond} is not a bool"));
                }
                let a = self.block(then_, st.clone(), brk)?;
                let b = self.block(else_, st, brk)?;
                return Ok(join(a, b));
            }
            Stmt::Loop { body } => {
                self.loop_depth += 1;
                let mut inner = None;
                self.block(body, st, &mut inner)?;
                self.loop_depth -= 1;
                // The body's end goes back to the head; only breaks leave.
                return Ok(inner);
            }
            Stmt::Mark(_) | Stmt::InlineEnter(_) | Stmt::InlineExit => {}
            Stmt::Break | Stmt::Continue => {
                if self.loop_depth == 0 {
                    return Err(format!("{s:?} outside a loop"));
                }
                if !self.jump_inside_inline() {
                    return Err(format!("{s:?} leaves an inlined call"));
                }
                if let Stmt::Break = s {
                    *brk = join(brk.take(), st);
                }
                return Ok(None);
            }
            Stmt::Return(_) if !self.open_inline.is_empty() => {
                return Err("Return inside an inlined call".into());
            }
            Stmt::Return(vals) => {
                if vals.len() != self.f.results.len() {
                    return Err(format!(
                        "Return of {} values, function has {} results",
                        vals.len(),
                        self.f.results.len()
                    ));
                }
                for (v, &t) in vals.iter().zip(&self.f.results) {
                    let vt = self.use_(&st, *v)?;
                    if vt != t {
                        return Err(format!("Return value {v} has type {vt}, result type is {t}"));
                    }
                }
                return Ok(None);
            }
        }
        Ok(st)
    }

    fn call_sig(
        &mut self,
        st: &mut State,
        params: &[Ty],
        res: &[Ty],
        args: &[VReg],
        results: &[VReg],
    ) -> R<()> {
        if args.len() != params.len() || results.len() != res.len() {
            return Err(format!(
                "{} arguments and {} results given, signature has {} and {}",
                args.len(),
                results.len(),
                params.len(),
                res.len()
            ));
        }
        for (a, &t) in args.iter().zip(params) {
            let at = self.use_(st, *a)?;
            if at != t {
                return Err(format!("argument {a} has type {at}, parameter type is {t}"));
            }
        }
        for (i, r) in results.iter().enumerate() {
            if results[..i].contains(r) {
                return Err(format!("result register {r} given twice"));
            }
        }
        for (r, &t) in results.iter().zip(res) {
            let rt = self.def(st, *r)?;
            if rt != t {
                return Err(format!("result register {r} has type {rt}, result type is {t}"));
            }
        }
        Ok(())
    }

    fn op(&self, st: &State, d: Ty, op: &Op) -> R<()> {
        let same = |t: Ty| {
            if t == d {
                Ok(())
            } else {
                Err(format!("operand type {t} differs from destination type {d}"))
            }
        };
        let pair = |a: VReg, b: VReg| -> R<Ty> {
            let (ta, tb) = (self.use_(st, a)?, self.use_(st, b)?);
            if ta != tb {
                return Err(format!("operands {a}: {ta} and {b}: {tb} differ in type"));
            }
            Ok(ta)
        };
        let scalar = |t: Ty| t.class() != Class::Vector;
        if !matches!(op, Op::Copy(_) | Op::Load { .. } | Op::Vector(_)) && !scalar(d) {
            return Err(format!("{op:?} into the vector {d}"));
        }
        match *op {
            Op::Vector(ref v) => return self.vop(st, d, v),
            Op::Const(w) => {
                if sem::canon(d, w) != w {
                    return Err(format!("constant {w:#x} is not canonical for {d}"));
                }
            }
            Op::Copy(a) => same(self.use_(st, a)?)?,
            Op::Unary(u, a) => {
                let t = self.use_(st, a)?;
                same(t)?;
                let ok = match u {
                    UnOp::Neg => t.is_int() || t.is_float(),
                    UnOp::Not => t.is_int() || t == Ty::Bool,
                };
                if !ok {
                    return Err(format!("{u:?} on {t}"));
                }
            }
            Op::Binary(b, x, y) => {
                let t = pair(x, y)?;
                same(t)?;
                let ok = match b {
                    BinOp::Add | BinOp::Sub | BinOp::Mul => t.is_int() || t.is_float(),
                    BinOp::And | BinOp::Or | BinOp::Xor => t.is_int() || t == Ty::Bool,
                };
                if !ok {
                    return Err(format!("{b:?} on {t}"));
                }
            }
            Op::FloorDiv { a, b, .. } | Op::FloorMod { a, b, .. } | Op::Shift { a, b, .. } => {
                let t = pair(a, b)?;
                same(t)?;
                if !t.is_int() {
                    return Err(format!("integer operation on {t}"));
                }
            }
            Op::FDiv { a, b, .. } => {
                let t = pair(a, b)?;
                same(t)?;
                if !t.is_float() {
                    return Err(format!("float division on {t}"));
                }
            }
            Op::Cmp(_, a, b) => {
                let t = pair(a, b)?;
                if t == Ty::Handle || !scalar(t) {
                    return Err("comparison of handles".into());
                }
                if d != Ty::Bool {
                    return Err(format!("comparison into {d}"));
                }
            }
            Op::Convert(a) => {
                let t = self.use_(st, a)?;
                if !scalar(t) || !sem::convertible(t, d) {
                    return Err(format!("no conversion from {t} to {d}"));
                }
            }
            Op::Load { ptr, len, index, .. } => self.index_args(st, ptr, len, index)?,
        }
        Ok(())
    }

    fn vop(&self, st: &State, d: Ty, op: &VOp) -> R<()> {
        let vec_of = |t: Ty| match t {
            Ty::Vec(v) => Ok(v),
            _ => Err(format!("{op:?}: {t} is not a vector")),
        };
        let pair = |a: VReg, b: VReg| -> R<super::VecTy> {
            let (ta, tb) = (self.use_(st, a)?, self.use_(st, b)?);
            if ta != tb {
                return Err(format!("operands {a}: {ta} and {b}: {tb} differ in type"));
            }
            vec_of(ta)
        };
        match *op {
            VOp::Splat(a) => {
                let v = vec_of(d)?;
                let t = self.use_(st, a)?;
                if t != v.lane.ty() {
                    return Err(format!("splat of {t} into {d}"));
                }
            }
            VOp::Build(ref lanes) => {
                let v = vec_of(d)?;
                if lanes.len() != usize::from(v.n) {
                    return Err(format!("{} lanes for {d}", lanes.len()));
                }
                for &l in lanes {
                    let t = self.use_(st, l)?;
                    if t != v.lane.ty() {
                        return Err(format!("lane {l}: {t} in {d}"));
                    }
                }
            }
            VOp::Lane(a, k) => {
                let v = vec_of(self.use_(st, a)?)?;
                if k >= v.n || d != v.lane.ty() {
                    return Err(format!("lane {k} of {v} into {d}"));
                }
            }
            VOp::Binary(b, x, y) => {
                let v = pair(x, y)?;
                if Ty::Vec(v) != d
                    || v.lane == Lane::Bool
                    || !matches!(b, BinOp::Add | BinOp::Sub | BinOp::Mul)
                {
                    return Err(format!("{b:?} of {v} into {d}"));
                }
            }
            VOp::FDiv { a, b, .. } => {
                let v = pair(a, b)?;
                if Ty::Vec(v) != d || !matches!(v.lane, Lane::F32 | Lane::F64) {
                    return Err(format!("float division of {v} into {d}"));
                }
            }
            VOp::Cmp(_, a, b) => {
                let v = pair(a, b)?;
                if v.lane == Lane::Bool || d != Ty::Vec(v.with_lane(Lane::Bool)) {
                    return Err(format!("comparison of {v} into {d}"));
                }
            }
            VOp::Convert(a) => {
                let from = vec_of(self.use_(st, a)?)?;
                let to = vec_of(d)?;
                if from.n != to.n || !vector::convertible(from.lane, to.lane) {
                    return Err(format!("no conversion from {from} to {to}"));
                }
            }
        }
        Ok(())
    }
}
