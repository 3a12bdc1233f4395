//! Code generation for one function: walks the structured IR and drives the
//! emitter, using the allocation's locations and the scratch registers of
//! [`super::abi`]. Operands are brought into scratch registers when they are
//! not already in registers, results are written to their home location.
//! Fallible operations branch to out-of-line error stubs emitted after the
//! body; every exit (normal or error) goes through the single epilogue, and
//! the caller tells them apart by the context's error slot.

use super::abi::{self, ArgLoc, CTX, DEPTH, SCRATCH_XMM0 as X14, SCRATCH_XMM1 as X15};
use super::emit::{Alu, Cc, Emitter, Gpr, Inst, LoadKind, Mem, Scale, Sh, Sse, StoreKind, Target, Xmm};
use super::emit::{R11, RAX, RCX, RDI, RDX, RSP};
use super::regalloc::{Allocation, Loc};
use crate::ir::{
    sem, BinOp, Block, Class, CmpOp, ErrCode, FuncId, Function, Module, Op, ShiftOp, SiteId, Stmt, Ty, UnOp,
    VReg,
};
use dynasmrt::DynamicLabel;

/// An operand word recorded by an error stub.
#[derive(Clone, Copy)]
enum Opnd {
    Zero,
    Of(Loc),
}

/// What an out-of-line stub does before jumping to the epilogue.
enum StubKind {
    Error {
        code: ErrCode,
        operands: [Opnd; 2],
    },
    /// An error is already recorded (by a callee or a helper): append the site.
    Site(SiteId),
}

struct Stub {
    label: DynamicLabel,
    kind: StubKind,
}

/// Facts about a compiled function the module needs.
pub struct FrameInfo {
    /// Bytes of native stack one activation uses (return address included).
    pub frame_bytes: usize,
    pub spilled: u32,
}

pub struct FnGen<'a, A: Target> {
    pub em: &'a mut Emitter<A>,
    pub m: &'a Module,
    pub f: &'a Function,
    pub alloc: &'a Allocation,
    /// Entry label of every function of the module.
    pub labels: &'a [DynamicLabel],
    pub recursion_error: ErrCode,
    stubs: Vec<Stub>,
    loops: Vec<(DynamicLabel, DynamicLabel)>,
    epilogue: DynamicLabel,
    /// First staging slot (after the spill slots).
    stage: u32,
    /// Planted bugs (test-only, `CompileOptions::mutations`).
    mutations: crate::Mutations,
}

/// Largest number of staging words and outgoing stack words of any call in `b`.
fn call_needs(m: &Module, b: &Block, acc: &mut (u32, u32)) {
    for s in &b.0 {
        match s {
            Stmt::Call { func, args, .. } => {
                let tys = m.function(*func).param_tys();
                let stack = abi::arg_locs(&tys, false)
                    .iter()
                    .filter(|l| matches!(l, ArgLoc::Stack(_)))
                    .count();
                acc.0 = acc.0.max(args.len() as u32);
                acc.1 = acc.1.max(stack as u32);
            }
            Stmt::CallHelper { helper, args, .. } => {
                let h = m.helper(*helper);
                let stack = abi::arg_locs(&h.params, h.takes_ctx)
                    .iter()
                    .filter(|l| matches!(l, ArgLoc::Stack(_)))
                    .count();
                acc.0 = acc.0.max(args.len() as u32);
                acc.1 = acc.1.max(stack as u32);
            }
            Stmt::If { then_, else_, .. } => {
                call_needs(m, then_, acc);
                call_needs(m, else_, acc);
            }
            Stmt::Loop { body } => call_needs(m, body, acc),
            _ => {}
        }
    }
}

impl<'a, A: Target> FnGen<'a, A> {
    pub fn new(
        em: &'a mut Emitter<A>,
        m: &'a Module,
        f: &'a Function,
        alloc: &'a Allocation,
        labels: &'a [DynamicLabel],
        recursion_error: ErrCode,
    ) -> Self {
        let epilogue = em.new_label();
        FnGen {
            em,
            m,
            f,
            alloc,
            labels,
            recursion_error,
            stubs: vec![],
            loops: vec![],
            epilogue,
            stage: alloc.spill_slots,
            mutations: crate::Mutations::NONE,
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

    fn e(&mut self, i: Inst) {
        self.em.emit(i);
    }

    fn label(&mut self) -> DynamicLabel {
        self.em.new_label()
    }

    /// Emit the whole function at its entry label.
    pub fn emit_function(mut self, id: FuncId) -> FrameInfo {
        let f = self.f;
        let mut needs = (f.params.len().max(f.results.len()) as u32, 0);
        call_needs(self.m, &f.body, &mut needs);
        let slots = self.alloc.spill_slots + needs.0;
        let mut s = 8 * (slots + needs.1) as i32;
        if s % 16 != 8 {
            s += 8;
        }
        self.em.bind(self.labels[id.0 as usize]);
        self.e(Inst::Push(super::emit::RBP));
        self.e(Inst::MovRR(super::emit::RBP, RSP));
        for r in abi::CALLEE_SAVED {
            self.e(Inst::Push(r));
        }
        self.e(Inst::AluI(Alu::Sub, RSP, s));
        // Depth counter: one activation more; negative means too deep.
        self.e(Inst::AluI(Alu::Sub, DEPTH, 1));
        let rec = self.stub(StubKind::Error {
            code: self.recursion_error,
            operands: [Opnd::Zero, Opnd::Zero],
        });
        self.e(Inst::Jcc(Cc::S, rec));
        self.params();
        self.block(&f.body);
        // Verified: the body never falls through, so no code is needed here.
        self.em.bind(self.epilogue);
        self.e(Inst::AluI(Alu::Add, DEPTH, 1));
        let freed = if self.mutate(crate::Mutation::EpilogueOffByEight) {
            s + 8
        } else {
            s
        };
        self.e(Inst::AluI(Alu::Add, RSP, freed));
        for r in abi::CALLEE_SAVED.iter().rev() {
            self.e(Inst::Pop(*r));
        }
        self.e(Inst::Pop(super::emit::RBP));
        self.e(Inst::Ret);
        self.emit_stubs();
        FrameInfo {
            frame_bytes: 8 + abi::SAVED_BYTES as usize + s as usize,
            spilled: self.alloc.spilled,
        }
    }

    fn stub(&mut self, kind: StubKind) -> DynamicLabel {
        let label = self.label();
        self.stubs.push(Stub { label, kind });
        label
    }

    fn emit_stubs(&mut self) {
        for st in std::mem::take(&mut self.stubs) {
            self.em.bind(st.label);
            match st.kind {
                StubKind::Error { code, operands } => {
                    self.e(Inst::StoreImm32(abi::err_code(), code.get() as i32));
                    for (i, o) in operands.iter().enumerate() {
                        match *o {
                            Opnd::Zero => self.e(Inst::Alu(Alu::Xor, RAX, RAX)),
                            Opnd::Of(l) => self.load_bits(l, RAX),
                        }
                        self.e(Inst::Store(StoreKind::Q, abi::operand(i), RAX));
                    }
                }
                StubKind::Site(site) => {
                    let skip = self.label();
                    self.e(Inst::Load(LoadKind::D, RAX, abi::tb_len()));
                    self.e(Inst::AluI(Alu::Cmp, RAX, crate::ir::TRACEBACK_CAP as i32));
                    self.e(Inst::Jcc(Cc::Ae, skip));
                    self.e(Inst::StoreImm32(
                        Mem::indexed(CTX, RAX, Scale::S4, abi::tb_offset()),
                        site.0 as i32,
                    ));
                    self.em.bind(skip);
                    self.e(Inst::AluI(Alu::Add, RAX, 1));
                    self.e(Inst::Store(StoreKind::D, abi::tb_len(), RAX));
                }
            }
            self.e(Inst::Jmp(self.epilogue));
        }
    }

    fn stage_slot(&self, i: usize) -> Mem {
        abi::slot(self.stage + i as u32)
    }

    fn params(&mut self) {
        let tys = self.f.param_tys();
        let locs = abi::arg_locs(&tys, false);
        for (i, l) in locs.iter().enumerate() {
            match *l {
                ArgLoc::Gpr(r) => self.e(Inst::Store(StoreKind::Q, self.stage_slot(i), r)),
                ArgLoc::Xmm(x) => self.e(Inst::MovsdStore(self.stage_slot(i), x)),
                ArgLoc::Stack(_) => {}
            }
        }
        for (i, l) in locs.iter().enumerate() {
            let p = self.f.params[i];
            let Some(home) = self.alloc.locs[p.index()] else {
                continue;
            };
            match *l {
                ArgLoc::Stack(j) => self.e(Inst::Load(
                    LoadKind::Q,
                    RAX,
                    Mem::base(super::emit::RBP, 16 + 8 * j as i32),
                )),
                _ => self.e(Inst::Load(LoadKind::Q, RAX, self.stage_slot(i))),
            }
            self.store_bits(home, RAX);
        }
    }

    // ---- moving values ----

    fn loc(&self, v: VReg) -> Loc {
        self.alloc.loc(v)
    }

    /// The value's bits into GPR `r` (any class).
    fn load_bits(&mut self, l: Loc, r: Gpr) {
        match l {
            Loc::Gpr(s) if s == r => {}
            Loc::Gpr(s) => self.e(Inst::MovRR(r, s)),
            Loc::Xmm(x) => self.e(Inst::MovqRX(r, x)),
            Loc::Slot(k) => self.e(Inst::Load(LoadKind::Q, r, abi::slot(k))),
        }
    }

    /// Write GPR `r`'s bits to the home `l` (any class).
    fn store_bits(&mut self, l: Loc, r: Gpr) {
        match l {
            Loc::Gpr(d) if d == r => {}
            Loc::Gpr(d) => self.e(Inst::MovRR(d, r)),
            Loc::Xmm(x) => self.e(Inst::MovqXR(x, r)),
            Loc::Slot(k) => self.e(Inst::Store(StoreKind::Q, abi::slot(k), r)),
        }
    }

    /// A GPR holding the integer value: its home if a register, else `scratch`.
    fn int_in(&mut self, v: VReg, scratch: Gpr) -> Gpr {
        match self.loc(v) {
            Loc::Gpr(r) => r,
            l => {
                self.load_bits(l, scratch);
                scratch
            }
        }
    }

    fn int_into(&mut self, v: VReg, r: Gpr) {
        let l = self.loc(v);
        self.load_bits(l, r);
    }

    /// An SSE register holding the float value: its home, or `scratch`.
    fn float_in(&mut self, v: VReg, scratch: Xmm) -> Xmm {
        match self.loc(v) {
            Loc::Xmm(x) => x,
            l => {
                self.float_into_loc(l, scratch);
                scratch
            }
        }
    }

    fn float_into_loc(&mut self, l: Loc, x: Xmm) {
        match l {
            Loc::Xmm(s) if s == x => {}
            Loc::Xmm(s) => self.e(Inst::Movaps(x, s)),
            Loc::Slot(k) => self.e(Inst::MovsdLoad(x, abi::slot(k))),
            Loc::Gpr(r) => self.e(Inst::MovqXR(x, r)),
        }
    }

    fn float_into(&mut self, v: VReg, x: Xmm) {
        let l = self.loc(v);
        self.float_into_loc(l, x);
    }

    fn store_float(&mut self, v: VReg, x: Xmm) {
        match self.loc(v) {
            Loc::Xmm(d) if d == x => {}
            Loc::Xmm(d) => self.e(Inst::Movaps(d, x)),
            Loc::Slot(k) => self.e(Inst::MovsdStore(abi::slot(k), x)),
            Loc::Gpr(r) => self.e(Inst::MovqRX(r, x)),
        }
    }

    fn store_int(&mut self, v: VReg, r: Gpr) {
        let l = self.loc(v);
        self.store_bits(l, r);
    }

    /// Put `r` in canonical form for `ty`.
    fn canon(&mut self, ty: Ty, r: Gpr) {
        match ty {
            Ty::I8 if !self.mutate(crate::Mutation::I8NoSignExtend) => self.e(Inst::Movsx8(r, r)),
            Ty::U8 => self.e(Inst::Movzx8(r, r)),
            Ty::I32 => self.e(Inst::Movsxd(r, r)),
            Ty::U32 => self.e(Inst::MovRR32(r, r)),
            _ => {}
        }
    }

    fn mov_imm(&mut self, r: Gpr, w: u64) {
        if w == 0 {
            self.e(Inst::Alu(Alu::Xor, r, r));
        } else if w <= u64::from(u32::MAX) {
            self.e(Inst::MovRI32(r, w as u32));
        } else {
            self.e(Inst::MovRI64(r, w));
        }
    }

    // ---- statements ----

    fn block(&mut self, b: &Block) {
        for s in &b.0 {
            self.stmt(s);
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
            } => {
                let ty = self.f.ty(*value);
                self.checked_address(*ptr, *len, *index, *on_null, *on_oob);
                let vl = self.loc(*value);
                self.load_bits(vl, RDX);
                let kind = match ty.size() {
                    1 => StoreKind::B,
                    4 => StoreKind::D,
                    _ => StoreKind::Q,
                };
                self.e(Inst::Store(kind, Mem::indexed(RAX, RCX, scale_of(ty), 0), RDX));
            }
            Stmt::Call {
                func,
                args,
                results,
                site,
            } => {
                let callee = self.m.function(*func);
                let ptys = callee.param_tys();
                let rtys = callee.results.clone();
                self.call_args(args, &abi::arg_locs(&ptys, false));
                self.e(Inst::CallL(self.labels[func.0 as usize]));
                self.check_error(*site);
                self.call_results(results, &rtys);
            }
            Stmt::CallHelper {
                helper,
                args,
                results,
                site,
            } => {
                let h = self.m.helper(*helper);
                self.call_args(args, &abi::arg_locs(&h.params, h.takes_ctx));
                if h.takes_ctx {
                    self.e(Inst::MovRR(RDI, CTX));
                }
                self.e(Inst::MovRI64(RAX, h.addr as u64));
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
            Stmt::If { cond, then_, else_ } => {
                let (l_else, l_end) = (self.label(), self.label());
                let c = self.int_in(*cond, RAX);
                self.e(Inst::Alu(Alu::Test, c, c));
                self.e(Inst::Jcc(Cc::E, l_else));
                self.block(then_);
                self.e(Inst::Jmp(l_end));
                self.em.bind(l_else);
                self.block(else_);
                self.em.bind(l_end);
            }
            Stmt::Loop { body } => {
                let (head, exit) = (self.label(), self.label());
                self.em.bind(head);
                self.loops.push((head, exit));
                self.block(body);
                self.loops.pop();
                self.e(Inst::Jmp(head));
                self.em.bind(exit);
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
                        // Floats through the scratch registers first: a value
                        // may live in xmm0/xmm1 itself.
                        let mut fl = vec![];
                        for (&v, l) in vals.iter().zip(&locs) {
                            match *l {
                                ArgLoc::Gpr(r) => self.int_into(v, r),
                                ArgLoc::Xmm(x) => {
                                    let s = if fl.is_empty() { X14 } else { X15 };
                                    self.float_into(v, s);
                                    fl.push((x, s));
                                }
                                ArgLoc::Stack(_) => unreachable!(),
                            }
                        }
                        for (x, s) in fl {
                            self.e(Inst::Movaps(x, s));
                        }
                    }
                    None => {
                        for (i, &v) in vals.iter().enumerate() {
                            self.int_into(v, RAX);
                            self.e(Inst::Store(StoreKind::Q, abi::ret_slot(i), RAX));
                        }
                    }
                }
                self.e(Inst::Jmp(self.epilogue));
            }
        }
    }

    /// After a call: an error recorded in the context unwinds through `site`.
    fn check_error(&mut self, site: SiteId) {
        let l = self.stub(StubKind::Site(site));
        self.e(Inst::CmpMemImm32(abi::err_code(), 0));
        self.e(Inst::Jcc(Cc::Ne, l));
    }

    fn call_args(&mut self, args: &[VReg], locs: &[ArgLoc]) {
        // Stage register arguments in the frame, so writing one argument
        // register never clobbers another argument's home.
        for (i, (&a, l)) in args.iter().zip(locs).enumerate() {
            let home = self.loc(a);
            self.load_bits(home, RAX);
            match *l {
                ArgLoc::Stack(j) => self.e(Inst::Store(StoreKind::Q, Mem::base(RSP, 8 * j as i32), RAX)),
                _ => self.e(Inst::Store(StoreKind::Q, self.stage_slot(i), RAX)),
            }
        }
        for (i, l) in locs.iter().enumerate() {
            match *l {
                ArgLoc::Gpr(r) => self.e(Inst::Load(LoadKind::Q, r, self.stage_slot(i))),
                ArgLoc::Xmm(x) => self.e(Inst::MovsdLoad(x, self.stage_slot(i))),
                ArgLoc::Stack(_) => {}
            }
        }
    }

    fn call_results(&mut self, results: &[VReg], tys: &[Ty]) {
        match abi::result_regs(tys) {
            Some(locs) => {
                self.e(Inst::Movaps(X14, Xmm(0)));
                self.e(Inst::Movaps(X15, Xmm(1)));
                for (&d, l) in results.iter().zip(&locs) {
                    match *l {
                        ArgLoc::Gpr(r) => self.store_int(d, r),
                        ArgLoc::Xmm(x) => self.store_float(d, if x.0 == 0 { X14 } else { X15 }),
                        ArgLoc::Stack(_) => unreachable!(),
                    }
                }
            }
            None => {
                for (i, &d) in results.iter().enumerate() {
                    self.e(Inst::Load(LoadKind::Q, RAX, abi::ret_slot(i)));
                    self.store_int(d, RAX);
                }
            }
        }
    }

    /// Null and bounds checks; leaves the base in rax and the index in rcx.
    fn checked_address(&mut self, ptr: VReg, len: VReg, index: VReg, on_null: ErrCode, on_oob: ErrCode) {
        let (nl, il) = (self.loc(len), self.loc(index));
        self.int_into(ptr, RAX);
        self.e(Inst::Alu(Alu::Test, RAX, RAX));
        let null = self.stub(StubKind::Error {
            code: on_null,
            operands: [Opnd::Zero, Opnd::Of(il)],
        });
        self.e(Inst::Jcc(Cc::E, null));
        self.int_into(index, RCX);
        let n = self.int_in(len, RDX);
        self.e(Inst::Alu(Alu::Cmp, RCX, n));
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
    }

    fn assign(&mut self, d: VReg, op: &Op) {
        let ty = self.f.ty(d);
        match *op {
            Op::Const(w) => {
                self.mov_imm(RAX, w);
                self.store_int(d, RAX);
            }
            Op::Copy(a) => match (self.loc(a), ty.class()) {
                (Loc::Xmm(_), Class::Float) => {
                    let x = self.float_in(a, X14);
                    self.store_float(d, x);
                }
                (l, _) => {
                    let r = match l {
                        Loc::Gpr(r) => r,
                        _ => {
                            self.load_bits(l, RAX);
                            RAX
                        }
                    };
                    self.store_int(d, r);
                }
            },
            Op::Unary(u, a) => {
                let la = self.loc(a);
                self.load_bits(la, RAX);
                match (u, ty) {
                    (UnOp::Neg, Ty::F32) => {
                        self.e(Inst::MovRI32(RCX, 0x8000_0000));
                        self.e(Inst::Alu(Alu::Xor, RAX, RCX));
                    }
                    (UnOp::Neg, Ty::F64) => {
                        self.e(Inst::MovRI64(RCX, 1 << 63));
                        self.e(Inst::Alu(Alu::Xor, RAX, RCX));
                    }
                    (UnOp::Neg, _) => self.e(Inst::Neg(RAX)),
                    (UnOp::Not, Ty::Bool) => self.e(Inst::AluI(Alu::Xor, RAX, 1)),
                    (UnOp::Not, _) => self.e(Inst::Not(RAX)),
                }
                self.canon(ty, RAX);
                self.store_int(d, RAX);
            }
            Op::Binary(b, x, y) if ty.is_float() => {
                self.float_into(x, X14);
                let yx = self.float_in(y, X15);
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
                self.e(Inst::Sse(op, X14, yx));
                self.store_float(d, X14);
            }
            Op::Binary(b, x, y) => {
                self.int_into(x, RAX);
                let yr = self.int_in(y, RCX);
                match b {
                    BinOp::Add => self.e(Inst::Alu(Alu::Add, RAX, yr)),
                    BinOp::Sub => self.e(Inst::Alu(Alu::Sub, RAX, yr)),
                    BinOp::Mul => self.e(Inst::Imul(RAX, yr)),
                    BinOp::And => self.e(Inst::Alu(Alu::And, RAX, yr)),
                    BinOp::Or => self.e(Inst::Alu(Alu::Or, RAX, yr)),
                    BinOp::Xor => self.e(Inst::Alu(Alu::Xor, RAX, yr)),
                }
                self.canon(ty, RAX);
                self.store_int(d, RAX);
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
            } => {
                self.checked_address(ptr, len, index, on_null, on_oob);
                let mem = Mem::indexed(RAX, RCX, scale_of(ty), 0);
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

    fn divmod(&mut self, d: VReg, ty: Ty, a: VReg, b: VReg, on_zero: ErrCode, div: bool) {
        self.int_into(b, RCX);
        self.e(Inst::Alu(Alu::Test, RCX, RCX));
        let z = self.stub(StubKind::Error {
            code: on_zero,
            operands: [Opnd::Of(self.loc(a)), Opnd::Of(self.loc(b))],
        });
        self.e(Inst::Jcc(Cc::E, z));
        self.int_into(a, RAX);
        let done = self.label();
        if ty.is_signed() {
            let l_div = self.label();
            if ty == Ty::I64 && !self.mutate(crate::Mutation::DivMinTraps) {
                // idiv traps on MIN / -1: x // -1 is -x (wrapping), x % -1 is 0.
                self.e(Inst::AluI(Alu::Cmp, RCX, -1));
                self.e(Inst::Jcc(Cc::Ne, l_div));
                if div {
                    self.e(Inst::Neg(RAX));
                } else {
                    self.e(Inst::Alu(Alu::Xor, RDX, RDX));
                }
                self.e(Inst::Jmp(done));
            }
            self.em.bind(l_div);
            self.e(Inst::Cqo);
            self.e(Inst::Idiv(RCX));
            // Python sign fix-up: a non-zero remainder whose sign differs from b's.
            if !self.mutate(crate::Mutation::FloorDivNoFixup) {
                self.e(Inst::Alu(Alu::Test, RDX, RDX));
                self.e(Inst::Jcc(Cc::E, done));
                self.e(Inst::MovRR(R11, RDX));
                self.e(Inst::Alu(Alu::Xor, R11, RCX));
                self.e(Inst::Jcc(Cc::Ns, done));
                if div {
                    self.e(Inst::AluI(Alu::Sub, RAX, 1));
                } else {
                    self.e(Inst::Alu(Alu::Add, RDX, RCX));
                }
            }
        } else {
            self.e(Inst::Alu(Alu::Xor, RDX, RDX));
            self.e(Inst::Div(RCX));
        }
        self.em.bind(done);
        let r = if div { RAX } else { RDX };
        self.canon(ty, r);
        self.store_int(d, r);
    }

    fn shift(&mut self, d: VReg, ty: Ty, op: ShiftOp, a: VReg, b: VReg, on_negative: ErrCode) {
        self.int_into(b, RCX);
        if ty.is_signed() {
            self.e(Inst::Alu(Alu::Test, RCX, RCX));
            let neg = self.stub(StubKind::Error {
                code: on_negative,
                operands: [Opnd::Of(self.loc(a)), Opnd::Of(self.loc(b))],
            });
            self.e(Inst::Jcc(Cc::S, neg));
        }
        self.int_into(a, RAX);
        let (ok, done) = (self.label(), self.label());
        let width = if self.mutate(crate::Mutation::ShiftCountMasked) {
            i32::MAX
        } else {
            ty.bits() as i32
        };
        self.e(Inst::AluI(Alu::Cmp, RCX, width));
        self.e(Inst::Jcc(Cc::B, ok));
        // Count >= width: the policy of `sem::OVER_SHIFT`.
        let sem::OverShift::ZeroOrSignFill = sem::OVER_SHIFT;
        let arith = op == ShiftOp::Shr && ty.is_signed();
        if arith {
            self.e(Inst::MovRI32(RCX, 63));
        } else {
            self.e(Inst::Alu(Alu::Xor, RAX, RAX));
            self.e(Inst::Jmp(done));
        }
        self.em.bind(ok);
        let sh = match op {
            ShiftOp::Shl => Sh::Shl,
            ShiftOp::Shr if arith => Sh::Sar,
            ShiftOp::Shr => Sh::Shr,
        };
        self.e(Inst::ShiftCl(sh, RAX));
        self.em.bind(done);
        self.canon(ty, RAX);
        self.store_int(d, RAX);
    }

    fn cmp(&mut self, d: VReg, c: CmpOp, a: VReg, b: VReg) {
        let t = self.f.ty(a);
        if t.is_float() {
            let ucom = if t == Ty::F32 { Sse::Ucomiss } else { Sse::Ucomisd };
            let xa = self.float_in(a, X14);
            let xb = self.float_in(b, X15);
            // Unordered sets ZF=PF=CF=1: "above" forms are false on NaN.
            let (l, r, cc) = match c {
                CmpOp::Eq | CmpOp::Ne => (xa, xb, Cc::E),
                CmpOp::Lt => (xb, xa, Cc::A),
                CmpOp::Le => (xb, xa, Cc::Ae),
                CmpOp::Gt => (xa, xb, Cc::A),
                CmpOp::Ge => (xa, xb, Cc::Ae),
            };
            self.e(Inst::Sse(ucom, l, r));
            let parity = !self.mutate(crate::Mutation::NanIgnoresParity);
            match c {
                CmpOp::Eq | CmpOp::Ne if !parity => {
                    self.e(Inst::Setcc(if c == CmpOp::Eq { Cc::E } else { Cc::Ne }, RAX));
                    self.e(Inst::Movzx8(RAX, RAX));
                }
                CmpOp::Eq => {
                    self.e(Inst::Setcc(Cc::E, RAX));
                    self.e(Inst::Setcc(Cc::Np, RCX));
                    self.e(Inst::Movzx8(RAX, RAX));
                    self.e(Inst::Movzx8(RCX, RCX));
                    self.e(Inst::Alu(Alu::And, RAX, RCX));
                }
                CmpOp::Ne => {
                    self.e(Inst::Setcc(Cc::Ne, RAX));
                    self.e(Inst::Setcc(Cc::P, RCX));
                    self.e(Inst::Movzx8(RAX, RAX));
                    self.e(Inst::Movzx8(RCX, RCX));
                    self.e(Inst::Alu(Alu::Or, RAX, RCX));
                }
                _ => {
                    self.e(Inst::Setcc(cc, RAX));
                    self.e(Inst::Movzx8(RAX, RAX));
                }
            }
        } else {
            self.int_into(a, RAX);
            let rb = self.int_in(b, RCX);
            self.e(Inst::Alu(Alu::Cmp, RAX, rb));
            let s = t.is_signed() || self.mutate(crate::Mutation::UnsignedCmpSigned);
            let cc = match c {
                CmpOp::Eq => Cc::E,
                CmpOp::Ne => Cc::Ne,
                CmpOp::Lt if s => Cc::L,
                CmpOp::Le if s => Cc::Le,
                CmpOp::Gt if s => Cc::G,
                CmpOp::Ge if s => Cc::Ge,
                CmpOp::Lt => Cc::B,
                CmpOp::Le => Cc::Be,
                CmpOp::Gt => Cc::A,
                CmpOp::Ge => Cc::Ae,
            };
            self.e(Inst::Setcc(cc, RAX));
            self.e(Inst::Movzx8(RAX, RAX));
        }
        self.store_int(d, RAX);
    }

    fn convert(&mut self, d: VReg, from: Ty, to: Ty, a: VReg) {
        if !from.is_float() {
            self.int_into(a, RAX);
            if !to.is_float() {
                if to == Ty::Bool {
                    self.e(Inst::Alu(Alu::Test, RAX, RAX));
                    self.e(Inst::Setcc(Cc::Ne, RAX));
                    self.e(Inst::Movzx8(RAX, RAX));
                } else {
                    self.canon(to, RAX);
                }
                self.store_int(d, RAX);
                return;
            }
            let f32 = to == Ty::F32;
            let cvt = |x: Xmm, r: Gpr| {
                if f32 {
                    Inst::Cvtsi2ss(x, r)
                } else {
                    Inst::Cvtsi2sd(x, r)
                }
            };
            if from == Ty::U64 {
                // >= 2^63: halve with round-to-odd, convert, double (exact rounding).
                let (big, done) = (self.label(), self.label());
                self.e(Inst::Alu(Alu::Test, RAX, RAX));
                self.e(Inst::Jcc(Cc::S, big));
                self.e(cvt(X14, RAX));
                self.e(Inst::Jmp(done));
                self.em.bind(big);
                self.e(Inst::MovRR(RCX, RAX));
                self.e(Inst::ShiftI(Sh::Shr, RCX, 1));
                self.e(Inst::AluI(Alu::And, RAX, 1));
                self.e(Inst::Alu(Alu::Or, RCX, RAX));
                self.e(cvt(X14, RCX));
                self.e(Inst::Sse(if f32 { Sse::Addss } else { Sse::Addsd }, X14, X14));
                self.em.bind(done);
            } else {
                self.e(cvt(X14, RAX));
            }
            self.store_float(d, X14);
            return;
        }
        // From a float: widen F32 to F64 first (exact), then work in F64.
        let xa = self.float_in(a, X14);
        if from == Ty::F32 {
            match to {
                Ty::F32 => {
                    self.store_float(d, xa);
                    return;
                }
                _ => self.e(Inst::Sse(Sse::Cvtss2sd, X14, xa)),
            }
        } else if xa != X14 {
            self.e(Inst::Movaps(X14, xa));
        }
        match to {
            Ty::F64 => self.store_float(d, X14),
            Ty::F32 => {
                self.e(Inst::Sse(Sse::Cvtsd2ss, X14, X14));
                self.store_float(d, X14);
            }
            Ty::I64 => {
                let (nan, done) = (self.label(), self.label());
                self.e(Inst::Cvttsd2si(RAX, X14));
                self.e(Inst::MovRI64(RCX, 1 << 63));
                self.e(Inst::Alu(Alu::Cmp, RAX, RCX));
                self.e(Inst::Jcc(Cc::Ne, done));
                self.e(Inst::Sse(Sse::Ucomisd, X14, X14));
                self.e(Inst::Jcc(Cc::P, nan));
                self.e(Inst::Sse(Sse::Xorpd, X15, X15));
                self.e(Inst::Sse(Sse::Ucomisd, X14, X15));
                self.e(Inst::Jcc(Cc::Be, done));
                self.e(Inst::MovRI64(RAX, i64::MAX as u64));
                self.e(Inst::Jmp(done));
                self.em.bind(nan);
                self.e(Inst::Alu(Alu::Xor, RAX, RAX));
                self.em.bind(done);
                self.store_int(d, RAX);
            }
            Ty::U64 => {
                let (zero, big, max, done) = (self.label(), self.label(), self.label(), self.label());
                self.e(Inst::Sse(Sse::Ucomisd, X14, X14));
                self.e(Inst::Jcc(Cc::P, zero));
                self.e(Inst::MovRI64(RAX, (9_223_372_036_854_775_808.0f64).to_bits()));
                self.e(Inst::MovqXR(X15, RAX));
                self.e(Inst::Sse(Sse::Ucomisd, X14, X15));
                self.e(Inst::Jcc(Cc::Ae, big));
                self.e(Inst::Cvttsd2si(RAX, X14));
                self.e(Inst::Alu(Alu::Test, RAX, RAX));
                self.e(Inst::Jcc(Cc::Ns, done));
                self.em.bind(zero);
                self.e(Inst::Alu(Alu::Xor, RAX, RAX));
                self.e(Inst::Jmp(done));
                self.em.bind(big);
                self.e(Inst::Sse(Sse::Subsd, X14, X15));
                self.e(Inst::Cvttsd2si(RAX, X14));
                self.e(Inst::Alu(Alu::Test, RAX, RAX));
                self.e(Inst::Jcc(Cc::S, max));
                self.e(Inst::MovRI64(RCX, 1 << 63));
                self.e(Inst::Alu(Alu::Xor, RAX, RCX));
                self.e(Inst::Jmp(done));
                self.em.bind(max);
                self.e(Inst::MovRI64(RAX, u64::MAX));
                self.em.bind(done);
                self.store_int(d, RAX);
            }
            _ => {
                // I8 U8 I32 U32: clamp in f64 (bounds are exact), then truncate.
                let (lo, hi) = match to {
                    Ty::I8 => (i8::MIN as f64, i8::MAX as f64),
                    Ty::U8 => (0.0, u8::MAX as f64),
                    Ty::I32 => (i32::MIN as f64, i32::MAX as f64),
                    Ty::U32 => (0.0, u32::MAX as f64),
                    _ => unreachable!("verified: no float to {to}"),
                };
                let (nan, done) = (self.label(), self.label());
                self.e(Inst::Sse(Sse::Ucomisd, X14, X14));
                self.e(Inst::Jcc(Cc::P, nan));
                self.e(Inst::MovRI64(RAX, lo.to_bits()));
                self.e(Inst::MovqXR(X15, RAX));
                self.e(Inst::Sse(Sse::Maxsd, X14, X15));
                self.e(Inst::MovRI64(RAX, hi.to_bits()));
                self.e(Inst::MovqXR(X15, RAX));
                self.e(Inst::Sse(Sse::Minsd, X14, X15));
                self.e(Inst::Cvttsd2si(RAX, X14));
                self.e(Inst::Jmp(done));
                self.em.bind(nan);
                self.e(Inst::Alu(Alu::Xor, RAX, RAX));
                self.em.bind(done);
                self.store_int(d, RAX);
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
