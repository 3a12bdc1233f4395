//! The reference evaluator: runs a verified [`Module`] directly on the IR,
//! with the numeric semantics of [`super::sem`], the same depth counter,
//! error codes, operands and traceback as the machine code. Tests compare the
//! two bit for bit; a later IR fuzz target will too.
//!
//! Helpers cannot be called from here through their `extern "C"` address
//! (that would need a call with a signature known only at run time), so the
//! caller supplies a [`HelperEval`] that mirrors each helper in Rust.

use super::{sem, Block, FuncId, Helper, HelperId, Module, Op, RunError, Stmt, Word};
use super::{vector, ErrCode, Function, Ty, VOp, VReg, MAX_RESULTS};
use crate::runtime::{mem, HelperCtx};

/// The Rust mirror of a module's helpers, for evaluation.
pub trait HelperEval {
    /// Run helper `id` on canonical argument words; return its result word
    /// (if it has one). A helper raises through `ctx` (and a panic must be
    /// caught, as [`crate::runtime::guard`] does).
    fn call(&mut self, id: HelperId, helper: &Helper, args: &[Word], ctx: &mut HelperCtx) -> Option<Word>;
}

/// For modules without helpers: any helper call raises the internal error.
pub struct NoHelpers;

impl HelperEval for NoHelpers {
    fn call(&mut self, _: HelperId, _: &Helper, _: &[Word], ctx: &mut HelperCtx) -> Option<Word> {
        let code = ctx.internal_error;
        ctx.err_code = code;
        None
    }
}

/// Evaluation options; mirror the `CompileOptions` and `Context` of a machine-code run.
#[derive(Clone, Copy, Debug)]
pub struct EvalOptions {
    pub depth_limit: u32,
    pub recursion_error: ErrCode,
    pub internal_error: ErrCode,
}

/// Call `f` with canonical argument words. The module must be verified.
pub fn call(
    m: &Module,
    f: FuncId,
    args: &[Word],
    opts: &EvalOptions,
    helpers: &mut dyn HelperEval,
) -> Result<Vec<Word>, RunError> {
    let mut ev = Eval {
        m,
        opts,
        helpers,
        ctx: HelperCtx::new(opts.internal_error),
        depth: 0,
        cur: vec![],
    };
    let func = m.function(f);
    assert_eq!(args.len(), func.params.len(), "argument count of `{}`", func.name);
    let args: Vec<Word> = args
        .iter()
        .zip(func.param_tys())
        .map(|(&w, t)| sem::canon(t, w))
        .collect();
    match ev.call(f, &args) {
        Some(r) => Ok(r),
        None => Err(ev.ctx.error().expect("an error is pending")),
    }
}

/// How a statement left: fell through, or an abrupt exit.
enum Flow {
    Next,
    Break,
    Continue,
    Return(Vec<Word>),
    /// The error is recorded in the context.
    Error,
}

struct Eval<'a> {
    m: &'a Module,
    opts: &'a EvalOptions,
    helpers: &'a mut dyn HelperEval,
    ctx: Box<HelperCtx>,
    depth: u32,
    /// The functions being evaluated (the innermost's registers are `regs`).
    cur: Vec<&'a Function>,
}

impl<'a> Eval<'a> {
    /// `None` when an error is pending in `ctx`.
    fn call(&mut self, f: FuncId, args: &[Word]) -> Option<Vec<Word>> {
        if self.depth >= self.opts.depth_limit {
            self.ctx.raise(self.opts.recursion_error, [0; 2]);
            return None;
        }
        self.depth += 1;
        let func: &'a Function = self.m.function(f);
        self.cur.push(func);
        let mut regs = Regs {
            words: vec![0u64; func.vregs.len()],
            vecs: vec![Vec::new(); func.vregs.len()],
            inline: vec![],
        };
        for (&p, &a) in func.params.iter().zip(args) {
            regs[p.index()] = a;
        }
        let flow = self.block(&func.body, &mut regs);
        self.depth -= 1;
        self.cur.pop();
        match flow {
            Flow::Return(v) => Some(v),
            Flow::Error => {
                // The error unwinds through the open inlined calls, innermost first.
                for &site in regs.inline.iter().rev() {
                    self.ctx.push_site(site);
                }
                self.depth -= regs.inline.len() as u32;
                None
            }
            Flow::Next | Flow::Break | Flow::Continue => unreachable!("verified: every path returns"),
        }
    }

    fn block(&mut self, b: &Block, regs: &mut Regs) -> Flow {
        for s in &b.0 {
            match self.stmt(s, regs) {
                Flow::Next => {}
                other => return other,
            }
        }
        Flow::Next
    }

    fn raise(&mut self, code: ErrCode, a: Word, b: Word) -> Flow {
        self.ctx.raise(code, [a, b]);
        Flow::Error
    }

    fn stmt(&mut self, s: &Stmt, regs: &mut Regs) -> Flow {
        match s {
            Stmt::Assign {
                dst,
                op: Op::Vector(v),
            } => self.vop(*dst, v, regs),
            Stmt::Assign {
                dst,
                op:
                    Op::Load {
                        ptr,
                        len,
                        index,
                        on_null,
                        on_oob,
                        checked,
                    },
            } if matches!(self.vreg_ty(*dst), Ty::Vec(_)) => {
                let (on_null, on_oob) = self.codes(*checked, *on_null, *on_oob);
                let Ty::Vec(v) = self.vreg_ty(*dst) else {
                    unreachable!("matched")
                };
                let (p, n, i) = (regs[ptr.index()], regs[len.index()], regs[index.index()]);
                if let Some(flow) = self.vector_checks(v, p, n, i, on_null, on_oob) {
                    return flow;
                }
                regs.vecs[dst.index()] = (0..u64::from(v.n))
                    .map(|k| mem::load(v.lane.ty(), p, i + k))
                    .collect();
                Flow::Next
            }
            Stmt::Store {
                ptr,
                len,
                index,
                value,
                on_null,
                on_oob,
                checked,
            } if matches!(self.vreg_ty(*value), Ty::Vec(_)) => {
                let (on_null, on_oob) = self.codes(*checked, *on_null, *on_oob);
                let Ty::Vec(v) = self.vreg_ty(*value) else {
                    unreachable!("matched")
                };
                let (p, n, i) = (regs[ptr.index()], regs[len.index()], regs[index.index()]);
                if let Some(flow) = self.vector_checks(v, p, n, i, on_null, on_oob) {
                    return flow;
                }
                for (k, &w) in regs.vecs[value.index()].iter().enumerate() {
                    mem::store(v.lane.ty(), p, i + k as u64, w);
                }
                Flow::Next
            }
            Stmt::Assign { dst, op: Op::Copy(a) } if matches!(self.vreg_ty(*a), Ty::Vec(_)) => {
                regs.vecs[dst.index()] = regs.vecs[a.index()].clone();
                Flow::Next
            }
            Stmt::Assign { dst, op } => {
                let ty = self.vreg_ty(*dst);
                let r = |v: VReg| regs[v.index()];
                let w = match *op {
                    Op::Const(w) => w,
                    Op::Copy(a) => r(a),
                    Op::Unary(u, a) => sem::unary(u, ty, r(a)),
                    Op::Binary(b, x, y) => sem::binary(b, ty, r(x), r(y)),
                    Op::FloorDiv { a, b, on_zero } | Op::FloorMod { a, b, on_zero } => {
                        match sem::floor_divmod(ty, r(a), r(b)) {
                            Some((q, m)) => {
                                if matches!(op, Op::FloorDiv { .. }) {
                                    q
                                } else {
                                    m
                                }
                            }
                            None => return self.raise(on_zero, r(a), r(b)),
                        }
                    }
                    Op::FDiv { a, b, on_zero } => match sem::fdiv(ty, r(a), r(b)) {
                        Some(q) => q,
                        None => return self.raise(on_zero, r(a), r(b)),
                    },
                    Op::Shift {
                        op,
                        a,
                        b,
                        on_negative,
                    } => match sem::shift(op, ty, r(a), r(b)) {
                        Some(w) => w,
                        None => return self.raise(on_negative, r(a), r(b)),
                    },
                    Op::Cmp(c, a, b) => {
                        let t = self.vreg_ty(a);
                        sem::cmp(c, t, r(a), r(b)) as u64
                    }
                    Op::Convert(a) => sem::convert(self.vreg_ty(a), ty, r(a)),
                    Op::Load {
                        ptr,
                        len,
                        index,
                        on_null,
                        on_oob,
                        checked,
                    } => {
                        let (on_null, on_oob) = self.codes(checked, on_null, on_oob);
                        let (p, n, i) = (r(ptr), r(len), r(index));
                        if p == 0 {
                            return self.raise(on_null, 0, i);
                        }
                        if i >= n {
                            return self.raise(on_oob, i, n);
                        }
                        mem::load(ty, p, i)
                    }
                    Op::Vector(_) => unreachable!("matched above"),
                };
                regs[dst.index()] = w;
                Flow::Next
            }
            Stmt::Store {
                ptr,
                len,
                index,
                value,
                on_null,
                on_oob,
                checked,
            } => {
                let (on_null, on_oob) = self.codes(*checked, *on_null, *on_oob);
                let (p, n, i) = (regs[ptr.index()], regs[len.index()], regs[index.index()]);
                if p == 0 {
                    return self.raise(on_null, 0, i);
                }
                if i >= n {
                    return self.raise(on_oob, i, n);
                }
                mem::store(self.vreg_ty(*value), p, i, regs[value.index()]);
                Flow::Next
            }
            Stmt::Call {
                func,
                args,
                results,
                site,
            } => {
                let a: Vec<Word> = args.iter().map(|v| regs[v.index()]).collect();
                match self.call(*func, &a) {
                    Some(r) => {
                        debug_assert!(r.len() <= MAX_RESULTS);
                        for (d, w) in results.iter().zip(r) {
                            regs[d.index()] = w;
                        }
                        Flow::Next
                    }
                    None => {
                        self.ctx.push_site(*site);
                        Flow::Error
                    }
                }
            }
            Stmt::CallHelper {
                helper,
                args,
                results,
                site,
            } => {
                let h = self.m.helper(*helper);
                let a: Vec<Word> = args.iter().map(|v| regs[v.index()]).collect();
                let r = self.helpers.call(*helper, h, &a, &mut self.ctx);
                if self.ctx.failed() {
                    self.ctx.push_site(*site);
                    return Flow::Error;
                }
                if let (Some(d), Some(ty)) = (results.first(), h.result) {
                    regs[d.index()] = sem::canon(ty, r.expect("helper with a result returned none"));
                }
                Flow::Next
            }
            Stmt::Raise { code, operands } => {
                let w = operands.map(|o| o.map_or(0, |v| regs[v.index()]));
                self.raise(*code, w[0], w[1])
            }
            Stmt::If { cond, then_, else_ } => {
                if regs[cond.index()] != 0 {
                    self.block(then_, regs)
                } else {
                    self.block(else_, regs)
                }
            }
            Stmt::Loop { body } => loop {
                match self.block(body, regs) {
                    Flow::Next | Flow::Continue => {}
                    Flow::Break => return Flow::Next,
                    other => return other,
                }
            },
            Stmt::Mark(_) => Flow::Next,
            Stmt::InlineEnter(site) => {
                // As a call's entry: the recursion error unwinds through `site`.
                // (The depth counts it either way: the unwinding gives it back.)
                regs.inline.push(*site);
                let too_deep = self.depth >= self.opts.depth_limit;
                self.depth += 1;
                if too_deep {
                    return self.raise(self.opts.recursion_error, 0, 0);
                }
                Flow::Next
            }
            Stmt::InlineExit => {
                regs.inline.pop();
                self.depth -= 1;
                Flow::Next
            }
            Stmt::Break => Flow::Break,
            Stmt::Continue => Flow::Continue,
            Stmt::Return(vals) => Flow::Return(vals.iter().map(|v| regs[v.index()]).collect()),
        }
    }

    /// The error codes of an access's checks: its own, or for an unchecked
    /// access (proved in bounds by `opt::versioning`) the internal error, so
    /// a wrong proof shows as a bug instead of touching memory.
    fn codes(&self, checked: bool, on_null: ErrCode, on_oob: ErrCode) -> (ErrCode, ErrCode) {
        if checked {
            (on_null, on_oob)
        } else {
            (self.opts.internal_error, self.opts.internal_error)
        }
    }

    /// The checks of a vector `Load`/`Store` of `v` at element `i` of the
    /// buffer (`p`, `n`): null, then the whole lane run in bounds.
    fn vector_checks(
        &mut self,
        v: super::VecTy,
        p: Word,
        n: Word,
        i: Word,
        on_null: ErrCode,
        on_oob: ErrCode,
    ) -> Option<Flow> {
        if p == 0 {
            return Some(self.raise(on_null, 0, i));
        }
        if i >= n || n - i < u64::from(v.n) {
            return Some(self.raise(on_oob, i, n));
        }
        None
    }

    /// A vector op: lanes as canonical words, semantics of [`vector`].
    fn vop(&mut self, d: VReg, op: &VOp, regs: &mut Regs) -> Flow {
        let lane_of = |t: Ty| match t {
            Ty::Vec(v) => v.lane,
            _ => unreachable!("verified: a vector"),
        };
        let lanes = match *op {
            VOp::Splat(a) => {
                let Ty::Vec(v) = self.vreg_ty(d) else {
                    unreachable!("verified")
                };
                vec![regs[a.index()]; usize::from(v.n)]
            }
            VOp::Build(ref ls) => ls.iter().map(|l| regs[l.index()]).collect(),
            VOp::Lane(a, k) => {
                regs[d.index()] = regs.vecs[a.index()][usize::from(k)];
                return Flow::Next;
            }
            VOp::Binary(b, x, y) => vector::binary(
                b,
                lane_of(self.vreg_ty(x)),
                &regs.vecs[x.index()],
                &regs.vecs[y.index()],
            ),
            VOp::FDiv { a, b, on_zero } => {
                match vector::fdiv(
                    lane_of(self.vreg_ty(a)),
                    &regs.vecs[a.index()],
                    &regs.vecs[b.index()],
                ) {
                    Some(v) => v,
                    None => return self.raise(on_zero, 0, 0),
                }
            }
            VOp::Cmp(c, a, b) => vector::cmp(
                c,
                lane_of(self.vreg_ty(a)),
                &regs.vecs[a.index()],
                &regs.vecs[b.index()],
            ),
            VOp::Convert(a) => vector::convert(
                lane_of(self.vreg_ty(a)),
                lane_of(self.vreg_ty(d)),
                &regs.vecs[a.index()],
            ),
        };
        regs.vecs[d.index()] = lanes;
        Flow::Next
    }

    fn vreg_ty(&self, v: VReg) -> Ty {
        self.cur.last().expect("in a function").ty(v)
    }
}

/// The registers of one activation: words, and the lanes of vectors; and
/// the sites of its open inlined calls (outermost first).
struct Regs {
    words: Vec<Word>,
    vecs: Vec<Vec<Word>>,
    inline: Vec<super::SiteId>,
}

impl std::ops::Index<usize> for Regs {
    type Output = Word;
    fn index(&self, i: usize) -> &Word {
        &self.words[i]
    }
}

impl std::ops::IndexMut<usize> for Regs {
    fn index_mut(&mut self, i: usize) -> &mut Word {
        &mut self.words[i]
    }
}
