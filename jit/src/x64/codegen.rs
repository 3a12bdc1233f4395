//! Code generation for one function: walks the structured IR and drives the
//! emitter, using the allocation's locations and the scratch registers of
//! [`super::abi`]. Integer and float operations work in the destination's
//! register when they can (two-address form), with register, immediate
//! (constant temporaries) and spilled operands; a comparison feeding the
//! next `if` becomes compare-and-branch, an `if` whose arm is a lone
//! `break`/`continue` one conditional jump; call arguments, parameters,
//! results and returned values move by one parallel move (cycles through a
//! scratch register). The prologue saves only the callee-saved registers the
//! function uses, there is no frame pointer, and every `return` has its own
//! epilogue.
//! Fallible operations branch to out-of-line error stubs emitted after the
//! body, which share one error epilogue. A JIT function returns its status
//! in the carry flag as well as in the context's error slot: every normal
//! epilogue leaves CF clear, the error epilogue sets it, so a JIT→JIT call
//! site tests `jc` instead of loading the slot (helpers and the entry thunk
//! read the slot).
//!
//! This module owns the generator's state, the prologue and the dispatch
//! over statements (`stmt`) and operations (`assign`, with element
//! addressing); the rest is in submodules: `moves` (value locations and
//! moves), `control` (blocks, branches, `if`, loop rotation), `depth`
//! (depth-check versioning of loops), `calls` (the call sequence and status
//! checks), `stubs` (error stubs and epilogues), `arith` (division, shifts,
//! comparisons, conversions) and `simd` (vector ops).

use super::abi::{self, CTX, DEPTH, SCRATCH_XMM0 as X14, SCRATCH_XMM1 as X15};
use super::emit::{Alu, Cc, Emitter, Gpr, Inst, LoadKind, Mem, Scale, Sse, StoreKind, Target, Xmm};
use super::emit::{RAX, RCX, RDI, RDX, RSP};
use super::regalloc::{commutes, each_use, Allocation, Loc};
use crate::ir::{BinOp, Block, Class, ErrCode, FuncId, Function, Module, Op, SiteId, Stmt, Ty, UnOp, VReg};
use dynasmrt::DynamicLabel;

/// An access's checks: its null and out-of-bounds error codes, and whether
/// they are emitted at all (see `Op::Load`'s `checked`).
type Checks = (ErrCode, ErrCode, bool);

/// Facts about a compiled function the module needs.
pub struct FrameInfo {
    /// Bytes of native stack one activation uses (return address included).
    pub frame_bytes: usize,
    pub spilled: u32,
    /// Code offset of every `Stmt::Mark` (front-end marker), in order.
    pub marks: Vec<(usize, u32)>,
}

/// Buffers code generation reuses from function to function of a module
/// (their allocations, not their contents).
#[derive(Default)]
pub struct Scratch {
    stubs: Vec<Stub>,
    inline_log: Vec<SiteId>,
    move_buf: Vec<(Loc, Loc)>,
    move_imms: Vec<(Loc, Loc)>,
}

pub struct FnGen<'a, A: Target> {
    pub em: &'a mut Emitter<A>,
    scratch: &'a mut Scratch,
    pub m: &'a Module,
    pub f: &'a Function,
    pub alloc: &'a Allocation,
    /// Entry label of every function of the module.
    pub labels: &'a [DynamicLabel],
    pub recursion_error: ErrCode,
    stubs: Vec<Stub>,
    loops: Vec<(DynamicLabel, DynamicLabel)>,
    /// Sites of the open `InlineEnter`s, outermost first.
    inline: Vec<SiteId>,
    /// The `inline` lists of the stubs, one after the other (a stub holds
    /// its range); `inline_saved`: the range holding `inline` as it is now,
    /// if one does (stubs in a row share it).
    inline_log: Vec<SiteId>,
    inline_saved: Option<(u32, u32)>,
    /// Buffers of `parallel_move` (its moves, its immediates), reused.
    move_buf: Vec<(Loc, Loc)>,
    move_imms: Vec<(Loc, Loc)>,
    epilogue: DynamicLabel,
    /// The vector instructions vector ops may use (`simd.rs`).
    simd: crate::SimdLevel,
    /// Some vector op uses 256-bit registers: `vzeroupper` before every
    /// call and return (`simd.rs`).
    uses_ymm: bool,
    /// Vector registers stored to the staging area for the current vector
    /// op, by area (`simd.rs`).
    staged: Vec<Xmm>,
    /// Depth-check versioning of loops with inlined calls (`depth.rs`).
    depth: depth::DepthState,
    /// Code offset of every `Stmt::Mark`, in emission order.
    marks: Vec<(usize, u32)>,
    /// Number of uses of each register (compare-and-branch fusion).
    uses: Vec<u32>,
    /// Callee-saved registers pushed by the prologue, in push order.
    saved: Vec<Gpr>,
    /// Bytes of `sub rsp`: outgoing stack arguments, then spill slots.
    frame: i32,
    /// Words of outgoing stack arguments (the spill slots start above them).
    out_words: u32,
    /// Float constants used as memory operands, written after the stubs.
    pool: Vec<(u64, DynamicLabel)>,
    /// Planted bugs (test-only, `CompileOptions::mutations`).
    mutations: crate::Mutations,
    /// A temporary computed straight into `rax` because the next statement
    /// returns it (its allocated home is never written).
    in_rax: Option<VReg>,
    /// A call result left in `rax` for the next statement (which also
    /// computes `in_rax`).
    rax_val: Option<VReg>,
    /// `(t, a)`: the temporary `t = Copy(a)` was not emitted; reading `t`
    /// reads `a` (for the one statement that uses `t`).
    copy_of: Option<(VReg, VReg)>,
    /// The next `InlineEnter` is at a depth the last one (same nesting,
    /// nothing that calls in between) already checked (`control.rs`).
    depth_pair: bool,
    /// Activations this function's code holds that `r14` does not show:
    /// its own (1 after the prologue) plus the open `InlineEnter`s. `r14`
    /// keeps the caller's value in the body; an enter at offset `o` checks
    /// `r14 >= o`, a call passes `r14 - o` (`depth.rs`).
    depth_off: i32,
    /// Narrow integer values kept with unspecified upper bits.
    loose: super::loose::Loose,
    /// Value ranges: which narrow results need no extension.
    ranges: super::range::Ranges,
}

mod arith;
mod calls;
mod control;
mod depth;
mod moves;
mod simd;
mod stubs;

use calls::{call_needs, result_loc};
pub(crate) use control::ends_in_jump;
use control::Cond;
use stubs::{Opnd, Stub, StubKind};

fn count_uses(b: &Block, uses: &mut [u32]) {
    for s in &b.0 {
        each_use(s, |v| uses[v.index()] += 1);
        match s {
            Stmt::If { then_, else_, .. } => {
                count_uses(then_, uses);
                count_uses(else_, uses);
            }
            Stmt::Loop { body } => count_uses(body, uses),
            _ => {}
        }
    }
}

impl<'a, A: Target> FnGen<'a, A> {
    /// The generator of `f` (allocated as `alloc`, with its value ranges)
    /// in module `m`, writing into `em`, with the module's function labels,
    /// its recursion error code and its reused buffers.
    #[allow(clippy::too_many_arguments)]
    pub fn new(
        em: &'a mut Emitter<A>,
        m: &'a Module,
        f: &'a Function,
        alloc: &'a Allocation,
        labels: &'a [DynamicLabel],
        recursion_error: ErrCode,
        ranges: super::range::Ranges,
        scratch: &'a mut Scratch,
    ) -> Self {
        let epilogue = em.new_label();
        let mut uses = vec![0; f.vregs.len()];
        count_uses(&f.body, &mut uses);
        let mut needs = (0, 0);
        call_needs(m, &f.body, &mut needs);
        let saved = alloc.callee_saved_used();
        let out_words = needs.1;
        // At entry rsp is 8 mod 16 (the return address); the body needs 0 mod 16.
        let mut frame = 8 * (out_words + alloc.spill_slots) as i32;
        if (8 + 8 * saved.len() as i32 + frame) % 16 != 0 {
            frame += 8;
        }
        let mut stubs = std::mem::take(&mut scratch.stubs);
        let mut inline_log = std::mem::take(&mut scratch.inline_log);
        stubs.clear();
        inline_log.clear();
        FnGen {
            em,
            m,
            f,
            alloc,
            labels,
            recursion_error,
            stubs,
            inline: vec![],
            inline_log,
            inline_saved: None,
            move_buf: std::mem::take(&mut scratch.move_buf),
            move_imms: std::mem::take(&mut scratch.move_imms),
            scratch,
            loops: vec![],
            epilogue,
            simd: crate::SimdLevel::Sse2,
            uses_ymm: false,
            staged: vec![],
            depth: depth::DepthState::default(),
            marks: vec![],
            uses,
            saved,
            frame,
            out_words,
            pool: vec![],
            mutations: crate::Mutations::NONE,
            in_rax: None,
            rax_val: None,
            copy_of: None,
            depth_pair: false,
            depth_off: 0,
            loose: super::loose::Loose::analyse(f),
            ranges,
        }
    }

    /// Plant the bugs of `m` (test-only).
    pub fn with_mutations(mut self, m: crate::Mutations) -> Self {
        self.mutations = m;
        self
    }

    fn mutate(&self, m: crate::Mutation) -> bool {
        self.mutations.has(m)
    }

    /// Use the vector instructions of `level` for vector ops.
    pub fn with_simd(mut self, level: crate::SimdLevel) -> Self {
        self.simd = level;
        self.uses_ymm = level == crate::SimdLevel::Avx2
            && self
                .f
                .vregs
                .iter()
                .any(|r| matches!(r.ty, Ty::Vec(vt) if vt.bytes() >= 32));
        self
    }

    fn e(&mut self, i: Inst) {
        self.em.emit(i);
    }

    fn label(&mut self) -> DynamicLabel {
        self.em.new_label()
    }

    /// Emit the whole function at its entry label.
    pub fn emit_function(mut self, id: FuncId) -> FrameInfo {
        let f = self.f;
        self.em.bind(self.labels[id.0 as usize]);
        for r in self.saved.clone() {
            self.e(Inst::Push(r));
        }
        if self.frame != 0 {
            self.e(Inst::AluI(Alu::Sub, RSP, self.frame));
        }
        // Depth counter: this activation needs one left in r14 (which the
        // body leaves as the caller passed it, `depth.rs`).
        self.depth_off = 0;
        self.take_activation();
        self.params();
        self.block(&f.body);
        // Verified: the body never falls through. The shared epilogue serves the stubs.
        self.em.bind(self.epilogue);
        self.epilogue_code(true);
        self.emit_stubs();
        for (w, l) in std::mem::take(&mut self.pool) {
            self.em.pool_word(l, w);
        }
        self.scratch.stubs = std::mem::take(&mut self.stubs);
        self.scratch.inline_log = std::mem::take(&mut self.inline_log);
        self.scratch.move_buf = std::mem::take(&mut self.move_buf);
        self.scratch.move_imms = std::mem::take(&mut self.move_imms);
        FrameInfo {
            frame_bytes: 8 + 8 * self.saved.len() + self.frame as usize,
            spilled: self.alloc.spilled,
            marks: std::mem::take(&mut self.marks),
        }
    }

    fn stmt(&mut self, s: &Stmt) {
        match s {
            Stmt::Assign { dst, op } => self.assign(*dst, op),
            Stmt::Store {
                ptr,
                len,
                index,
                value,
                on_null,
                on_oob,
                checked,
            } if self.f.ty(*value).class() == Class::Vector => {
                self.vstore(*value, *ptr, *len, *index, (*on_null, *on_oob, *checked))
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
                let ty = self.f.ty(*value);
                let mem = self.checked_address(*ptr, *len, *index, (*on_null, *on_oob, *checked), ty);
                let vl = self.loc(*value);
                if let (Ty::F64, Loc::Xmm(x)) = (ty, vl) {
                    self.e(Inst::MovsdStore(mem, x));
                    return;
                }
                self.load_bits(vl, RDX);
                let kind = match ty.size() {
                    1 => StoreKind::B,
                    4 => StoreKind::D,
                    _ => StoreKind::Q,
                };
                self.e(Inst::Store(kind, mem, RDX));
            }
            Stmt::Call {
                func,
                args,
                results,
                site,
            } => {
                let callee = self.m.function(*func);
                self.call_args(args, abi::arg_locs_of(callee.param_tys_iter(), false));
                self.leave_avx();
                self.e(Inst::AluI(Alu::Sub, DEPTH, self.depth_off));
                self.e(Inst::CallL(self.labels[func.0 as usize]));
                self.check_call_status(*site);
                self.e(Inst::AluI(Alu::Add, DEPTH, self.depth_off));
                self.call_results(results, &callee.results);
            }
            Stmt::CallHelper {
                helper,
                args,
                results,
                site,
            } => {
                let h = self.m.helper(*helper);
                self.call_args(args, abi::arg_locs_of(h.params.iter().copied(), h.takes_ctx));
                if h.takes_ctx {
                    self.e(Inst::MovRR(RDI, CTX));
                }
                self.e(Inst::MovRI64(RAX, h.addr as u64));
                self.leave_avx();
                self.e(Inst::CallR(RAX));
                if h.takes_ctx {
                    self.check_error(*site);
                }
                if let (Some(&d), Some(ty)) = (results.first(), h.result) {
                    if ty.is_float() {
                        self.store_float(d, Xmm(0));
                    } else {
                        self.canon(ty, RAX);
                        self.store_int(d, RAX);
                    }
                }
            }
            Stmt::Raise { code, operands } => {
                let ops = operands.map(|o| o.map_or(Opnd::Zero, |v| Opnd::Of(self.loc(v))));
                let l = self.stub(StubKind::Error {
                    code: *code,
                    operands: ops,
                });
                self.e(Inst::Jmp(l));
            }
            Stmt::If { cond, then_, else_ } if matches!(self.loc(*cond), Loc::Imm(_)) => {
                let taken = if self.loc(*cond) == Loc::Imm(0) {
                    else_
                } else {
                    then_
                };
                self.block(taken);
            }
            Stmt::If { cond, then_, else_ } => {
                let c = self.int_in(*cond, RAX);
                self.e(Inst::Alu(Alu::Test, c, c));
                self.if_(Cond::Cc(Cc::Ne), then_, else_);
            }
            Stmt::Loop { body } if !self.depth.versioning && depth::hoistable(body).is_some() => {
                self.depth_versioned_loop(s)
            }
            Stmt::Loop { body } if self.rotatable(body).is_some() => self.rotated_loop(body),
            Stmt::Loop { body } => {
                let (head, exit) = (self.label(), self.label());
                self.em.bind(head);
                self.loops.push((head, exit));
                self.block(body);
                self.loops.pop();
                if !ends_in_jump(body) {
                    self.e(Inst::Jmp(head));
                }
                self.em.bind(exit);
            }
            Stmt::Mark(k) => {
                let at = self.em.offset();
                self.marks.push((at, *k));
            }
            Stmt::InlineEnter(site) => {
                // The callee's entry, without the call: one activation more
                // (checked unless the last enter already checked this depth).
                self.inline.push(*site);
                self.inline_saved = None;
                if std::mem::take(&mut self.depth_pair) {
                    self.depth_off += 1;
                } else {
                    self.take_activation();
                }
            }
            Stmt::InlineExit => {
                self.inline.pop();
                self.inline_saved = None;
                self.depth_off -= 1;
            }
            Stmt::Break => {
                let exit = self.loops.last().expect("verified").1;
                self.e(Inst::Jmp(exit));
            }
            Stmt::Continue => {
                let head = self.loops.last().expect("verified").0;
                self.e(Inst::Jmp(head));
            }
            Stmt::Return(vals) => {
                let tys: Vec<Ty> = vals.iter().map(|&v| self.f.ty(v)).collect();
                match abi::result_regs(&tys) {
                    Some(locs) => {
                        let mut moves = self.move_list();
                        moves.extend(
                            vals.iter()
                                .zip(&locs)
                                .map(|(&v, l)| (result_loc(*l), self.loc(v))),
                        );
                        self.parallel_move(moves);
                    }
                    None => {
                        for (i, &v) in vals.iter().enumerate() {
                            self.int_into(v, RAX);
                            self.e(Inst::Store(StoreKind::Q, abi::ret_slot(i), RAX));
                        }
                    }
                }
                self.epilogue_code(false);
            }
        }
    }

    /// Null and bounds checks (none for an unchecked access, which
    /// `opt::versioning` proved in bounds); the element's address for an
    /// element of `ty`: the base and index in their own registers, or
    /// loaded into rax and rcx. rdx stays free for the value.
    fn checked_address(&mut self, ptr: VReg, len: VReg, index: VReg, checks: Checks, ty: Ty) -> Mem {
        let (on_null, on_oob, checked) = checks;
        let (nl, il) = (self.loc(len), self.loc(index));
        let base = self.int_in(ptr, RAX);
        if !checked {
            let ix = self.int_in(index, RCX);
            return Mem::indexed(base, ix, scale_of(ty), 0);
        }
        self.e(Inst::Alu(Alu::Test, base, base));
        let null = self.stub(StubKind::Error {
            code: on_null,
            operands: [Opnd::Zero, Opnd::Of(il)],
        });
        self.e(Inst::Jcc(Cc::E, null));
        let ix = self.int_in(index, RCX);
        let n = self.int_in(len, RDX);
        self.e(Inst::Alu(Alu::Cmp, ix, n));
        let oob = self.stub(StubKind::Error {
            code: on_oob,
            operands: [Opnd::Of(il), Opnd::Of(nl)],
        });
        let past = if self.mutate(crate::Mutation::BoundsCheckLe) {
            Cc::A
        } else {
            Cc::Ae
        };
        self.e(Inst::Jcc(past, oob));
        Mem::indexed(base, ix, scale_of(ty), 0)
    }

    fn assign(&mut self, d: VReg, op: &Op) {
        let ty = self.f.ty(d);
        let dl = self.loc(d);
        match *op {
            Op::Const(w) => {
                if !matches!(dl, Loc::Imm(_)) {
                    self.mov_loc(dl, Loc::Imm(w));
                }
            }
            Op::Vector(ref v) => self.vop(d, v),
            Op::Load {
                ptr,
                len,
                index,
                on_null,
                on_oob,
                checked,
            } if ty.class() == Class::Vector => self.vload(d, ptr, len, index, (on_null, on_oob, checked)),
            Op::Copy(a) if ty.class() == Class::Vector => self.vcopy(d, a),
            Op::Copy(a) => {
                let al = self.loc(a);
                self.mov_loc(dl, al);
            }
            Op::Unary(u, a) if ty.is_float() => {
                let UnOp::Neg = u else {
                    unreachable!("verified: not on floats")
                };
                let la = self.loc(a);
                self.load_bits(la, RAX);
                if ty == Ty::F32 {
                    self.e(Inst::AluI(Alu::Xor, RAX, i32::MIN));
                    self.e(Inst::MovRR32(RAX, RAX));
                } else {
                    self.e(Inst::MovRI64(RCX, 1 << 63));
                    self.e(Inst::Alu(Alu::Xor, RAX, RCX));
                }
                self.store_bits(dl, RAX);
            }
            Op::Unary(u, a) => {
                let w = self.work_gpr(d, None);
                let la = self.loc(a);
                self.load_bits(la, w);
                match (u, ty) {
                    (UnOp::Neg, _) => self.e(Inst::Neg(w)),
                    (UnOp::Not, Ty::Bool) => self.e(Inst::AluI(Alu::Xor, w, 1)),
                    (UnOp::Not, _) => self.e(Inst::Not(w)),
                }
                self.finish_int(d, ty, w, &[a]);
            }
            Op::Binary(b, x, y) if ty.is_float() => {
                let w = self.work_xmm(d, Some(y));
                self.float_into(x, w);
                let f32 = ty == Ty::F32;
                let op = match (b, f32) {
                    (BinOp::Add, false) => Sse::Addsd,
                    (BinOp::Sub, false) => Sse::Subsd,
                    (BinOp::Mul, false) => Sse::Mulsd,
                    (BinOp::Add, true) => Sse::Addss,
                    (BinOp::Sub, true) => Sse::Subss,
                    (BinOp::Mul, true) => Sse::Mulss,
                    _ => unreachable!("verified"),
                };
                self.sse_op(op, w, y);
                self.store_float(d, w);
            }
            Op::Binary(b, x, y) => {
                // Commutative: the immediate, or the operand in d's register, goes right.
                let swap = commutes(b)
                    && ((self.loc(y) == dl && self.loc(x) != dl)
                        || (matches!(self.loc(x), Loc::Imm(_)) && !matches!(self.loc(y), Loc::Imm(_))));
                let (x, y) = if swap { (y, x) } else { (x, y) };
                let w = self.work_gpr(d, Some(y));
                if b == BinOp::Mul {
                    if let Some(i) = self.imm32(y) {
                        let xr = self.int_in(x, w);
                        self.e(Inst::ImulI(w, xr, i));
                        self.finish_int(d, ty, w, &[x, y]);
                        return;
                    }
                }
                let alu = match b {
                    BinOp::Add => Some(Alu::Add),
                    BinOp::Sub => Some(Alu::Sub),
                    BinOp::And => Some(Alu::And),
                    BinOp::Or => Some(Alu::Or),
                    BinOp::Xor => Some(Alu::Xor),
                    BinOp::Mul => None,
                };
                // `x + i`, `x - i`, `x + y` into another register: one `lea`.
                let disp = match (b, self.imm32(y)) {
                    (BinOp::Add, Some(i)) => Some(i64::from(i)),
                    (BinOp::Sub, Some(i)) => Some(-i64::from(i)),
                    _ => None,
                };
                if let (Some(i), Loc::Gpr(xr)) = (disp, self.loc(x)) {
                    if let (Ok(i), true) = (i32::try_from(i), xr != w) {
                        self.e(Inst::Lea(w, Mem::base(xr, i)));
                    } else {
                        self.int_into(x, w);
                        self.e(Inst::AluI(
                            alu.expect("add or sub"),
                            w,
                            self.imm32(y).expect("immediate"),
                        ));
                    }
                    self.finish_int(d, ty, w, &[x, y]);
                    return;
                }
                if let (BinOp::Add, Loc::Gpr(xr), Loc::Gpr(yr)) = (b, self.loc(x), self.loc(y)) {
                    if xr != w && yr != w && xr != RSP && yr != RSP {
                        self.e(Inst::Lea(w, Mem::indexed(xr, yr, Scale::S1, 0)));
                        self.finish_int(d, ty, w, &[x, y]);
                        return;
                    }
                }
                match (alu, self.imm32(y)) {
                    (Some(alu), Some(i)) => {
                        self.int_into(x, w);
                        self.e(Inst::AluI(alu, w, i));
                    }
                    _ => {
                        let yr = self.int_in(y, RCX);
                        self.int_into(x, w);
                        match alu {
                            Some(alu) => self.e(Inst::Alu(alu, w, yr)),
                            None => self.e(Inst::Imul(w, yr)),
                        }
                    }
                }
                self.finish_int(d, ty, w, &[x, y]);
            }
            Op::FloorDiv { a, b, on_zero } | Op::FloorMod { a, b, on_zero } => {
                let div = matches!(op, Op::FloorDiv { .. });
                self.divmod(d, ty, a, b, on_zero, div);
            }
            Op::FDiv { a, b, on_zero } => {
                let f32 = ty == Ty::F32;
                let bx = self.float_in(b, X15);
                self.e(Inst::Sse(Sse::Xorpd, X14, X14));
                self.e(Inst::Sse(if f32 { Sse::Ucomiss } else { Sse::Ucomisd }, bx, X14));
                let ok = self.label();
                self.e(Inst::Jcc(Cc::P, ok));
                let z = self.stub(StubKind::Error {
                    code: on_zero,
                    operands: [Opnd::Of(self.loc(a)), Opnd::Of(self.loc(b))],
                });
                self.e(Inst::Jcc(Cc::E, z));
                self.em.bind(ok);
                self.float_into(a, X14);
                self.e(Inst::Sse(if f32 { Sse::Divss } else { Sse::Divsd }, X14, bx));
                self.store_float(d, X14);
            }
            Op::Shift {
                op,
                a,
                b,
                on_negative,
            } => self.shift(d, ty, op, a, b, on_negative),
            Op::Cmp(c, a, b) => self.cmp(d, c, a, b),
            Op::Convert(a) => self.convert(d, self.f.ty(a), ty, a),
            Op::Load {
                ptr,
                len,
                index,
                on_null,
                on_oob,
                checked,
            } => {
                let mem = self.checked_address(ptr, len, index, (on_null, on_oob, checked), ty);
                if let (Ty::F64, Loc::Xmm(x)) = (ty, dl) {
                    self.e(Inst::MovsdLoad(x, mem));
                    return;
                }
                let kind = match ty {
                    Ty::I8 => LoadKind::Bsx,
                    Ty::U8 | Ty::Bool => LoadKind::Bzx,
                    Ty::I32 => LoadKind::Dsx,
                    Ty::U32 | Ty::F32 => LoadKind::D,
                    _ => LoadKind::Q,
                };
                self.e(Inst::Load(kind, RAX, mem));
                if ty == Ty::Bool {
                    self.e(Inst::Alu(Alu::Test, RAX, RAX));
                    self.e(Inst::Setcc(Cc::Ne, RAX));
                    self.e(Inst::Movzx8(RAX, RAX));
                }
                let l = self.loc(d);
                self.store_bits(l, RAX);
            }
        }
    }
}

fn scale_of(ty: Ty) -> Scale {
    match ty.size() {
        1 => Scale::S1,
        4 => Scale::S4,
        _ => Scale::S8,
    }
}
