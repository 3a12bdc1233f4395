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

use super::abi::{self, ArgLoc, CTX, DEPTH, SCRATCH_XMM0 as X14, SCRATCH_XMM1 as X15};
use super::emit::{Alu, Cc, Emitter, Gpr, Inst, LoadKind, Mem, Scale, Sh, Sse, StoreKind, Target, Xmm};
use super::emit::{R11, RAX, RCX, RDI, RDX, RSP};
use super::regalloc::{commutes, each_use, Allocation, Loc};
use crate::ir::{
    sem, BinOp, Block, Class, CmpOp, ErrCode, FuncId, Function, Module, Op, ShiftOp, SiteId, Stmt, Ty, UnOp,
    VReg,
};
use dynasmrt::DynamicLabel;

/// An access's checks: its null and out-of-bounds error codes, and whether
/// they are emitted at all (see `Op::Load`'s `checked`).
type Checks = (ErrCode, ErrCode, bool);

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
    /// The inlined calls open where the stub is branched to (outermost
    /// first): the error unwinds through their sites too.
    inline: Vec<SiteId>,
}

/// Facts about a compiled function the module needs.
pub struct FrameInfo {
    /// Bytes of native stack one activation uses (return address included).
    pub frame_bytes: usize,
    pub spilled: u32,
    /// Code offset of every `Stmt::Mark` (front-end marker), in order.
    pub marks: Vec<(usize, u32)>,
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
    /// Sites of the open `InlineEnter`s, outermost first.
    inline: Vec<SiteId>,
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
    /// Known lower bounds of `i32` values (`v >= k`), from a dominating
    /// `if v < k: <jump>`: temporaries, and locals the body never writes.
    lower: Vec<(VReg, i64)>,
    /// Narrow integer values kept with unspecified upper bits.
    loose: super::loose::Loose,
    /// Locals some statement writes (facts about them are not kept).
    written: Vec<bool>,
    /// The value a temporary copies when that is a local never written or
    /// another temporary (facts are kept on the root).
    root: Vec<VReg>,
}

mod depth;
mod simd;

/// A condition left in the flags by a comparison.
#[derive(Clone, Copy)]
enum Cond {
    /// An integer condition code (also float `<`-like forms, false on NaN).
    Cc(Cc),
    /// Float `==`: ZF=1 and PF=0.
    FEq,
    /// Float `!=`: ZF=0 or PF=1.
    FNe,
}

fn negate(c: Cc) -> Cc {
    match c {
        Cc::E => Cc::Ne,
        Cc::Ne => Cc::E,
        Cc::L => Cc::Ge,
        Cc::Ge => Cc::L,
        Cc::Le => Cc::G,
        Cc::G => Cc::Le,
        Cc::B => Cc::Ae,
        Cc::Ae => Cc::B,
        Cc::Be => Cc::A,
        Cc::A => Cc::Be,
        Cc::S => Cc::Ns,
        Cc::Ns => Cc::S,
        Cc::P => Cc::Np,
        Cc::Np => Cc::P,
    }
}

/// The condition with its operands swapped (`a < b` is `b > a`).
fn swap_cc(c: Cc) -> Cc {
    match c {
        Cc::L => Cc::G,
        Cc::G => Cc::L,
        Cc::Le => Cc::Ge,
        Cc::Ge => Cc::Le,
        Cc::B => Cc::A,
        Cc::A => Cc::B,
        Cc::Be => Cc::Ae,
        Cc::Ae => Cc::Be,
        c => c,
    }
}

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

/// Which values some statement of `f` writes (parameters count only if
/// the body assigns them).
fn written_locals(f: &Function) -> Vec<bool> {
    fn walk(b: &Block, w: &mut [bool]) {
        for s in &b.0 {
            match s {
                Stmt::Assign { dst, .. } => w[dst.index()] = true,
                Stmt::Call { results, .. } | Stmt::CallHelper { results, .. } => {
                    results.iter().for_each(|r| w[r.index()] = true)
                }
                Stmt::If { then_, else_, .. } => {
                    walk(then_, w);
                    walk(else_, w);
                }
                Stmt::Loop { body } => walk(body, w),
                _ => {}
            }
        }
    }
    let mut w = vec![false; f.vregs.len()];
    walk(&f.body, &mut w);
    // A temporary is written once, before its uses: facts about it hold.
    for (i, v) in f.vregs.iter().enumerate() {
        if v.kind == crate::ir::VRegKind::Temp {
            w[i] = false;
        }
    }
    w
}

/// The register a result travels in (results never go on the stack).
fn result_loc(l: ArgLoc) -> Loc {
    match l {
        ArgLoc::Gpr(r) => Loc::Gpr(r),
        ArgLoc::Xmm(x) => Loc::Xmm(x),
        ArgLoc::Stack(_) => unreachable!("results are in registers"),
    }
}

/// Whether control never falls out of the end of `b`.
pub(crate) fn ends_in_jump(b: &Block) -> bool {
    match b.0.last() {
        Some(Stmt::Return(_) | Stmt::Break | Stmt::Continue | Stmt::Raise { .. }) => true,
        Some(Stmt::If { then_, else_, .. }) => ends_in_jump(then_) && ends_in_jump(else_),
        _ => false,
    }
}

/// Largest number of argument words and outgoing stack words of any call in `b`.
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
        FnGen {
            em,
            m,
            f,
            alloc,
            labels,
            recursion_error,
            stubs: vec![],
            inline: vec![],
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
            lower: vec![],
            loose: super::loose::Loose::analyse(f),
            written: written_locals(f),
            root: vec![],
        }
        .with_roots()
    }

    fn with_roots(mut self) -> Self {
        let f = self.f;
        let mut root: Vec<VReg> = (0..f.vregs.len() as u32).map(VReg).collect();
        fn walk(b: &Block, f: &Function, written: &[bool], root: &mut [VReg]) {
            for s in &b.0 {
                match s {
                    Stmt::Assign { dst, op: Op::Copy(a) }
                        if f.vregs[dst.index()].kind == crate::ir::VRegKind::Temp && !written[a.index()] =>
                    {
                        root[dst.index()] = root[a.index()];
                    }
                    Stmt::If { then_, else_, .. } => {
                        walk(then_, f, written, root);
                        walk(else_, f, written, root);
                    }
                    Stmt::Loop { body } => walk(body, f, written, root),
                    _ => {}
                }
            }
        }
        walk(&f.body, f, &self.written, &mut root);
        self.root = root;
        self
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
        // Depth counter: one activation more; negative means too deep.
        self.e(Inst::AluI(Alu::Sub, DEPTH, 1));
        let rec = self.stub(StubKind::Error {
            code: self.recursion_error,
            operands: [Opnd::Zero, Opnd::Zero],
        });
        self.e(Inst::Jcc(Cc::S, rec));
        self.params();
        self.block(&f.body);
        // Verified: the body never falls through. The shared epilogue serves the stubs.
        self.em.bind(self.epilogue);
        self.epilogue_code(true);
        self.emit_stubs();
        for (w, l) in std::mem::take(&mut self.pool) {
            self.em.pool_word(l, w);
        }
        FrameInfo {
            frame_bytes: 8 + 8 * self.saved.len() + self.frame as usize,
            spilled: self.alloc.spilled,
            marks: std::mem::take(&mut self.marks),
        }
    }

    /// Give the activation back, free the frame, restore and return, with
    /// the status in CF: a normal return's last flag-writing instruction is
    /// `add r14, 1` (r14 is at most the depth limit, far below 2^64 - 1) or
    /// `add rsp, S` (a stack address plus a frame size does not wrap), so
    /// CF = 0; the error epilogue (`failed`) then does `cmp rsp, -1`, which
    /// borrows (rsp is never all ones), so CF = 1. `pop` and `ret` keep the
    /// flags.
    fn epilogue_code(&mut self, failed: bool) {
        self.leave_avx();
        self.e(Inst::AluI(Alu::Add, DEPTH, 1));
        let freed = if self.mutate(crate::Mutation::EpilogueOffByEight) {
            self.frame + 8
        } else {
            self.frame
        };
        if freed != 0 {
            self.e(Inst::AluI(Alu::Add, RSP, freed));
        }
        if failed {
            self.e(Inst::AluI(Alu::Cmp, RSP, -1));
        }
        for r in self.saved.clone().into_iter().rev() {
            self.e(Inst::Pop(r));
        }
        self.e(Inst::Ret);
    }

    /// The pool label of a constant word.
    fn constant(&mut self, w: u64) -> DynamicLabel {
        if let Some(&(_, l)) = self.pool.iter().find(|(c, _)| *c == w) {
            return l;
        }
        let l = self.label();
        self.pool.push((w, l));
        l
    }

    /// `op x, v` for a float `v`: a pool operand for a constant.
    fn sse_op(&mut self, op: Sse, x: Xmm, v: VReg) {
        match self.loc(v) {
            Loc::Imm(w) => {
                let l = self.constant(w);
                self.e(Inst::SseRip(op, x, l));
            }
            _ => {
                let r = self.float_in(v, X15);
                self.e(Inst::Sse(op, x, r));
            }
        }
    }

    /// Spill slot `k`.
    fn slot(&self, k: u32) -> Mem {
        Mem::base(RSP, 8 * (self.out_words + k) as i32)
    }

    fn stub(&mut self, kind: StubKind) -> DynamicLabel {
        let label = self.label();
        let inline = self.inline.clone();
        self.stubs.push(Stub { label, kind, inline });
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
                StubKind::Site(site) => self.append_site(site),
            }
            for &site in st.inline.iter().rev() {
                self.append_site(site);
            }
            self.e(Inst::Jmp(self.epilogue));
        }
    }

    /// Append `site` to the context's traceback (counted past its capacity).
    fn append_site(&mut self, site: SiteId) {
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

    fn params(&mut self) {
        let tys = self.f.param_tys();
        let locs = abi::arg_locs(&tys, false);
        let mut moves = vec![];
        let mut stack = vec![];
        for (i, l) in locs.iter().enumerate() {
            let p = self.f.params[i];
            let Some(home) = self.alloc.locs[p.index()] else {
                continue;
            };
            match *l {
                ArgLoc::Gpr(r) => moves.push((home, Loc::Gpr(r))),
                ArgLoc::Xmm(x) => moves.push((home, Loc::Xmm(x))),
                ArgLoc::Stack(j) => stack.push((home, j)),
            }
        }
        self.parallel_move(moves);
        let above = self.frame + 8 * self.saved.len() as i32 + 8;
        for (home, j) in stack {
            let m = Mem::base(RSP, above + 8 * j as i32);
            match home {
                Loc::Gpr(r) => self.e(Inst::Load(LoadKind::Q, r, m)),
                Loc::Xmm(x) => self.e(Inst::MovsdLoad(x, m)),
                l => {
                    self.e(Inst::Load(LoadKind::Q, RAX, m));
                    self.store_bits(l, RAX);
                }
            }
        }
    }

    /// Move every `(dst, src)` at once: a move runs when no pending move
    /// still reads its destination; a cycle goes through r11 / xmm15.
    /// Immediates are written last (nothing reads them, and an immediate to
    /// an SSE register goes through r11).
    fn parallel_move(&mut self, moves: Vec<(Loc, Loc)>) {
        let (mut pend, imms): (Vec<_>, Vec<_>) = moves
            .into_iter()
            .filter(|(d, s)| d != s)
            .partition(|(_, s)| !matches!(s, Loc::Imm(_)));
        while !pend.is_empty() {
            let ready = (0..pend.len()).find(|&i| {
                let d = pend[i].0;
                !pend.iter().enumerate().any(|(j, m)| j != i && m.1 == d)
            });
            match ready {
                Some(i) => {
                    let (d, s) = pend.remove(i);
                    self.mov_loc(d, s);
                }
                None => {
                    // A cycle: park the first destination's value in scratch.
                    let d = pend[0].0;
                    let tmp = match d {
                        Loc::Xmm(_) => Loc::Xmm(X15),
                        _ => Loc::Gpr(R11),
                    };
                    self.mov_loc(tmp, d);
                    for m in pend.iter_mut() {
                        if m.1 == d {
                            m.1 = tmp;
                        }
                    }
                }
            }
        }
        for (d, s) in imms {
            self.mov_loc(d, s);
        }
    }

    /// One move between locations of one value (r11 is the only scratch).
    fn mov_loc(&mut self, d: Loc, s: Loc) {
        match (d, s) {
            _ if d == s => {}
            (Loc::Imm(_), _) => unreachable!("an immediate is never written"),
            (Loc::Gpr(r), _) => self.load_bits(s, r),
            (Loc::Xmm(x), _) => self.float_into_loc(s, x),
            (Loc::Slot(k), Loc::Gpr(r)) => self.e(Inst::Store(StoreKind::Q, self.slot(k), r)),
            (Loc::Slot(k), Loc::Xmm(x)) => self.e(Inst::MovsdStore(self.slot(k), x)),
            (Loc::Slot(k), _) => {
                self.load_bits(s, R11);
                self.e(Inst::Store(StoreKind::Q, self.slot(k), R11));
            }
        }
    }

    // ---- moving values ----

    fn loc(&self, v: VReg) -> Loc {
        if self.in_rax == Some(v) || self.rax_val == Some(v) {
            return Loc::Gpr(RAX);
        }
        if let Some((t, a)) = self.copy_of {
            if t == v {
                return self.alloc.loc(a);
            }
        }
        self.alloc.loc(v)
    }

    /// Whether `d`, returned alone by `return vals` right after its
    /// definition, can be computed in `rax` (the result register).
    fn rax_eligible(&self, d: VReg, vals: &[VReg]) -> bool {
        vals == [d]
            && self.uses[d.index()] == 1
            && self.f.ty(d).class() == Class::Int
            && self.f.vregs[d.index()].kind == crate::ir::VRegKind::Temp
    }

    /// The known lower bound of an `i32` value.
    fn lower_bound(&self, v: VReg) -> i64 {
        let v = self.root[v.index()];
        self.lower
            .iter()
            .filter(|(w, _)| *w == v)
            .map(|&(_, k)| k)
            .max()
            .unwrap_or(i64::from(i32::MIN))
    }

    /// Whether `x + i` (`i32`, `x` canonical) cannot leave the `i32` range,
    /// so the 64-bit sum is already canonical.
    fn add_stays_i32(&self, x: VReg, i: i64) -> bool {
        i <= 0 && !self.loose.dirty(x) && self.lower_bound(x) + i >= i64::from(i32::MIN)
    }

    /// The value's bits into GPR `r` (any class).
    fn load_bits(&mut self, l: Loc, r: Gpr) {
        match l {
            Loc::Gpr(s) if s == r => {}
            Loc::Gpr(s) => self.e(Inst::MovRR(r, s)),
            Loc::Xmm(x) => self.e(Inst::MovqRX(r, x)),
            Loc::Slot(k) => self.e(Inst::Load(LoadKind::Q, r, self.slot(k))),
            Loc::Imm(w) => self.mov_imm(r, w),
        }
    }

    /// Write GPR `r`'s bits to the home `l` (any class).
    fn store_bits(&mut self, l: Loc, r: Gpr) {
        match l {
            Loc::Gpr(d) if d == r => {}
            Loc::Gpr(d) => self.e(Inst::MovRR(d, r)),
            Loc::Xmm(x) => self.e(Inst::MovqXR(x, r)),
            Loc::Slot(k) => self.e(Inst::Store(StoreKind::Q, self.slot(k), r)),
            Loc::Imm(_) => unreachable!("an immediate is never written"),
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
            Loc::Slot(k) => self.e(Inst::MovsdLoad(x, self.slot(k))),
            Loc::Gpr(r) => self.e(Inst::MovqXR(x, r)),
            Loc::Imm(0) => self.e(Inst::Sse(Sse::Xorpd, x, x)),
            Loc::Imm(w) => {
                let l = self.constant(w);
                self.e(Inst::MovsdRip(x, l));
            }
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
            Loc::Slot(k) => self.e(Inst::MovsdStore(self.slot(k), x)),
            Loc::Gpr(r) => self.e(Inst::MovqRX(r, x)),
            Loc::Imm(_) => unreachable!("an immediate is never written"),
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
        self.stmts(&b.0);
    }

    fn stmts(&mut self, st: &[Stmt]) {
        let facts = self.lower.len();
        let mut i = 0;
        while i < st.len() {
            // A comparison used only by the next `if`: compare and branch.
            if let (
                Stmt::Assign {
                    dst,
                    op: Op::Cmp(c, x, y),
                },
                Some(Stmt::If { cond, then_, else_ }),
            ) = (&st[i], st.get(i + 1))
            {
                if cond == dst && self.uses[dst.index()] == 1 {
                    // `x < k` false: x >= k (x an i32 value that is never
                    // reassigned) in the else arm, and after the `if` when
                    // the then arm always jumps away and there is no else.
                    let fact = match (self.imm32(*y), c) {
                        (Some(k), CmpOp::Lt | CmpOp::Le)
                            if self.f.ty(*x) == Ty::I32 && !self.written[x.index()] =>
                        {
                            Some((self.root[x.index()], i64::from(k) + i64::from(*c == CmpOp::Le)))
                        }
                        _ => None,
                    };
                    let cond = self.compare(*c, *x, *y);
                    self.if_(cond, then_, else_, fact);
                    if let Some(fact) = fact.filter(|_| ends_in_jump(then_) && else_.0.is_empty()) {
                        self.lower.push(fact);
                    }
                    i += 2;
                    continue;
                }
            }
            // `t = Copy(a)` read only by the next assignment (constants
            // without code in between): that reads `a`.
            let mut j = i + 1;
            while let Some(Stmt::Assign {
                dst,
                op: Op::Const(_),
            }) = st.get(j)
            {
                if !matches!(self.loc(*dst), Loc::Imm(_)) {
                    break;
                }
                j += 1;
            }
            if let (
                Stmt::Assign {
                    dst: t,
                    op: Op::Copy(a),
                },
                Some(Stmt::Assign {
                    op: Op::Binary(..) | Op::Cmp(..) | Op::Unary(..),
                    ..
                }),
            ) = (&st[i], st.get(j))
            {
                let mut reads_t = false;
                each_use(&st[j], |v| reads_t |= v == *t);
                if reads_t
                    && self.uses[t.index()] == 1
                    && self.f.vregs[t.index()].kind == crate::ir::VRegKind::Temp
                    && self.f.ty(*t).class() == Class::Int
                    && self.in_rax.is_none()
                    && matches!(self.loc(*a), Loc::Gpr(_))
                    && !matches!(st.get(j + 1), Some(Stmt::If { .. } | Stmt::Return(_)))
                {
                    for s in &st[i + 1..j] {
                        self.stmt(s);
                    }
                    self.copy_of = Some((*t, *a));
                    self.stmt(&st[j]);
                    self.copy_of = None;
                    i = j + 1;
                    continue;
                }
            }
            // `r = call; d = x op r; return d` (commutative op): r is used
            // where the call leaves it, d computed there.
            if let (
                Stmt::Call { results, .. },
                Some(Stmt::Assign {
                    dst: d,
                    op: Op::Binary(b, x, y),
                }),
                Some(Stmt::Return(vals)),
            ) = (&st[i], st.get(i + 1), st.get(i + 2))
            {
                if let [r] = results.as_slice() {
                    if commutes(*b)
                        && (x == r) != (y == r)
                        && self.uses[r.index()] == 1
                        && self.f.vregs[r.index()].kind == crate::ir::VRegKind::Temp
                        && self.rax_eligible(*d, vals)
                        && self.f.ty(*r).class() == Class::Int
                    {
                        self.in_rax = Some(*d);
                        self.rax_val = Some(*r);
                        for s in &st[i..i + 3] {
                            self.stmt(s);
                        }
                        self.in_rax = None;
                        self.rax_val = None;
                        i += 3;
                        continue;
                    }
                }
            }
            // `d = x op y; return d`: compute d in the result register.
            if let (
                Stmt::Assign {
                    dst,
                    op: Op::Binary(..),
                },
                Some(Stmt::Return(vals)),
            ) = (&st[i], st.get(i + 1))
            {
                if self.rax_eligible(*dst, vals) {
                    self.in_rax = Some(*dst);
                    self.stmt(&st[i]);
                    self.stmt(&st[i + 1]);
                    self.in_rax = None;
                    i += 2;
                    continue;
                }
            }
            self.stmt(&st[i]);
            i += 1;
        }
        self.lower.truncate(facts);
    }

    /// A loop whose body starts with plain assignments and then `if a <cmp>
    /// b: break` (either arm, the other empty): the index of the comparison
    /// and whether the loop exits when it is true.
    fn rotatable(&self, body: &Block) -> Option<(usize, bool)> {
        let st = &body.0;
        let k = st
            .iter()
            .take(8)
            .position(|s| !matches!(s, Stmt::Assign { op, .. } if !matches!(op, Op::Cmp(..))))?;
        let (Stmt::Assign { dst, op: Op::Cmp(..) }, Some(Stmt::If { cond, then_, else_ })) =
            (&st[k], st.get(k + 1))
        else {
            return None;
        };
        if cond != dst || self.uses[dst.index()] != 1 {
            return None;
        }
        match (then_.0.as_slice(), else_.0.as_slice()) {
            ([Stmt::Break], []) => Some((k, true)),
            ([], [Stmt::Break]) => Some((k, false)),
            _ => None,
        }
    }

    /// The test at the bottom: `jmp test; top: rest; test: prefix; cmp;
    /// j<stay> top` (the same statements in the same order, one jump less
    /// per iteration).
    fn rotated_loop(&mut self, body: &Block) {
        let (k, exit_when) = self.rotatable(body).expect("checked");
        let Stmt::Assign {
            op: Op::Cmp(c, x, y), ..
        } = body.0[k]
        else {
            unreachable!("checked")
        };
        let (top, test, exit) = (self.label(), self.label(), self.label());
        self.e(Inst::Jmp(test));
        self.em.align_jump_target();
        self.em.bind(top);
        self.loops.push((test, exit));
        self.stmts(&body.0[k + 2..]);
        self.loops.pop();
        self.em.bind(test);
        self.stmts(&body.0[..k]);
        let cond = self.compare(c, x, y);
        self.branch(cond, !exit_when, top);
        self.em.bind(exit);
    }

    /// The label a block consisting of one `break`/`continue` jumps to.
    fn lone_jump(&self, b: &Block) -> Option<DynamicLabel> {
        match b.0.as_slice() {
            [Stmt::Break] => self.loops.last().map(|l| l.1),
            [Stmt::Continue] => self.loops.last().map(|l| l.0),
            _ => None,
        }
    }

    /// Jump to `target` when `cond` is `when`.
    fn branch(&mut self, cond: Cond, when: bool, target: DynamicLabel) {
        match (cond, when) {
            (Cond::Cc(cc), true) => self.e(Inst::Jcc(cc, target)),
            (Cond::Cc(cc), false) => self.e(Inst::Jcc(negate(cc), target)),
            // Equal and ordered / not equal or unordered.
            (Cond::FEq, true) | (Cond::FNe, false) => {
                let skip = self.label();
                self.e(Inst::Jcc(Cc::P, skip));
                self.e(Inst::Jcc(Cc::E, target));
                self.em.bind(skip);
            }
            (Cond::FEq, false) | (Cond::FNe, true) => {
                self.e(Inst::Jcc(Cc::Ne, target));
                self.e(Inst::Jcc(Cc::P, target));
            }
        }
    }

    /// `if cond: then_ else: else_`; `else_fact` (a value and a lower
    /// bound) holds in the else arm.
    fn if_(&mut self, cond: Cond, then_: &Block, else_: &Block, else_fact: Option<(VReg, i64)>) {
        if let Some(t) = self.lone_jump(then_) {
            self.branch(cond, true, t);
            self.else_block(else_, else_fact);
            return;
        }
        if let Some(t) = self.lone_jump(else_) {
            self.branch(cond, false, t);
            self.block(then_);
            return;
        }
        let l_else = self.label();
        self.branch(cond, false, l_else);
        self.block(then_);
        if else_.0.is_empty() {
            self.em.bind(l_else);
            return;
        }
        let l_end = self.label();
        if !ends_in_jump(then_) {
            self.e(Inst::Jmp(l_end));
        }
        self.em.bind(l_else);
        self.else_block(else_, else_fact);
        self.em.bind(l_end);
    }

    fn else_block(&mut self, else_: &Block, fact: Option<(VReg, i64)>) {
        let facts = self.lower.len();
        self.lower.extend(fact);
        self.block(else_);
        self.lower.truncate(facts);
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
                let ptys = callee.param_tys();
                let rtys = callee.results.clone();
                self.call_args(args, &abi::arg_locs(&ptys, false));
                self.leave_avx();
                self.e(Inst::CallL(self.labels[func.0 as usize]));
                self.check_call_status(*site);
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
                self.if_(Cond::Cc(Cc::Ne), then_, else_, None);
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
                // The callee's entry, without the call: one activation more.
                self.inline.push(*site);
                if !self.depth.unchecked {
                    self.e(Inst::AluI(Alu::Sub, DEPTH, 1));
                    let rec = self.stub(StubKind::Error {
                        code: self.recursion_error,
                        operands: [Opnd::Zero, Opnd::Zero],
                    });
                    self.e(Inst::Jcc(Cc::S, rec));
                }
            }
            Stmt::InlineExit => {
                self.inline.pop();
                if !self.depth.unchecked {
                    self.e(Inst::AluI(Alu::Add, DEPTH, 1));
                }
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
                        let moves = vals
                            .iter()
                            .zip(&locs)
                            .map(|(&v, l)| (result_loc(*l), self.loc(v)))
                            .collect();
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

    /// After a helper call: an error recorded in the context unwinds
    /// through `site`.
    fn check_error(&mut self, site: SiteId) {
        let l = self.stub(StubKind::Site(site));
        self.e(Inst::CmpMemImm32(abi::err_code(), 0));
        self.e(Inst::Jcc(Cc::Ne, l));
    }

    /// After a JIT→JIT call: the callee's carry flag (see `epilogue_code`)
    /// says it failed; its error is recorded in the context, and unwinds
    /// through `site`.
    fn check_call_status(&mut self, site: SiteId) {
        let l = self.stub(StubKind::Site(site));
        self.e(Inst::Jcc(Cc::B, l));
    }

    fn call_args(&mut self, args: &[VReg], locs: &[ArgLoc]) {
        // Stack arguments first (through rax, which no argument lives in),
        // then the registers by one parallel move.
        let mut moves = vec![];
        for (&a, l) in args.iter().zip(locs) {
            let home = self.loc(a);
            match *l {
                ArgLoc::Stack(j) => {
                    self.load_bits(home, RAX);
                    self.e(Inst::Store(StoreKind::Q, Mem::base(RSP, 8 * j as i32), RAX));
                }
                ArgLoc::Gpr(r) => moves.push((Loc::Gpr(r), home)),
                ArgLoc::Xmm(x) => moves.push((Loc::Xmm(x), home)),
            }
        }
        self.parallel_move(moves);
    }

    fn call_results(&mut self, results: &[VReg], tys: &[Ty]) {
        match abi::result_regs(tys) {
            Some(locs) => {
                // A narrow integer result comes back loose (`super::loose`).
                for ((&d, l), &ty) in results.iter().zip(&locs).zip(tys) {
                    if let (ArgLoc::Gpr(r), false) = (*l, self.loose.loose(d)) {
                        self.canon(ty, r);
                    }
                }
                let moves = results
                    .iter()
                    .zip(&locs)
                    .map(|(&d, l)| (self.loc(d), result_loc(*l)))
                    .filter(|(d, _)| !matches!(d, Loc::Imm(_)))
                    .collect();
                self.parallel_move(moves);
            }
            None => {
                for (i, &d) in results.iter().enumerate() {
                    self.e(Inst::Load(LoadKind::Q, RAX, abi::ret_slot(i)));
                    self.store_int(d, RAX);
                }
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

    /// An immediate operand for a 64-bit ALU form (sign-extended imm32).
    fn imm32(&self, v: VReg) -> Option<i32> {
        match self.loc(v) {
            Loc::Imm(w) => i32::try_from(w as i64).ok(),
            _ => None,
        }
    }

    /// The GPR an integer result is computed in: the destination's register
    /// unless an operand still to be read lives there.
    fn work_gpr(&self, d: VReg, later: Option<VReg>) -> Gpr {
        match self.loc(d) {
            Loc::Gpr(r) if later.is_none_or(|y| self.loc(y) != Loc::Gpr(r)) => r,
            _ => RAX,
        }
    }

    fn work_xmm(&self, d: VReg, later: Option<VReg>) -> Xmm {
        match self.loc(d) {
            Loc::Xmm(x) if later.is_none_or(|y| self.loc(y) != Loc::Xmm(x)) => x,
            _ => X14,
        }
    }

    /// Write the result computed in `w` to `d`'s home (canonical unless
    /// `d` is loose).
    fn finish_int(&mut self, d: VReg, ty: Ty, w: Gpr) {
        if !self.loose.loose(d) {
            self.canon(ty, w);
        }
        self.store_int(d, w);
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
                self.finish_int(d, ty, w);
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
                        self.finish_int(d, ty, w);
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
                    let exact = ty == Ty::I32 && self.add_stays_i32(x, i);
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
                    if exact {
                        self.store_int(d, w);
                    } else {
                        self.finish_int(d, ty, w);
                    }
                    return;
                }
                if let (BinOp::Add, Loc::Gpr(xr), Loc::Gpr(yr)) = (b, self.loc(x), self.loc(y)) {
                    if xr != w && yr != w && xr != RSP && yr != RSP {
                        self.e(Inst::Lea(w, Mem::indexed(xr, yr, Scale::S1, 0)));
                        self.finish_int(d, ty, w);
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
                self.finish_int(d, ty, w);
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

    /// Emit the comparison of `a` and `b`; the flags then hold the result.
    fn compare(&mut self, c: CmpOp, a: VReg, b: VReg) -> Cond {
        let t = self.f.ty(a);
        if t.is_float() {
            let ucom = if t == Ty::F32 { Sse::Ucomiss } else { Sse::Ucomisd };
            // Unordered sets ZF=PF=CF=1: "above" forms are false on NaN.
            let parity = !self.mutate(crate::Mutation::NanIgnoresParity);
            let (l, r, cond) = match c {
                CmpOp::Eq if !parity => (a, b, Cond::Cc(Cc::E)),
                CmpOp::Ne if !parity => (a, b, Cond::Cc(Cc::Ne)),
                CmpOp::Eq => (a, b, Cond::FEq),
                CmpOp::Ne => (a, b, Cond::FNe),
                CmpOp::Lt => (b, a, Cond::Cc(Cc::A)),
                CmpOp::Le => (b, a, Cond::Cc(Cc::Ae)),
                CmpOp::Gt => (a, b, Cond::Cc(Cc::A)),
                CmpOp::Ge => (a, b, Cond::Cc(Cc::Ae)),
            };
            let xl = self.float_in(l, X14);
            self.sse_op(ucom, xl, r);
            return cond;
        }
        let s = t.is_signed() || self.mutate(crate::Mutation::UnsignedCmpSigned);
        let mut cc = match c {
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
        let (mut a, mut b) = (a, b);
        if self.imm32(a).is_some() && self.imm32(b).is_none() {
            (a, b) = (b, a);
            cc = swap_cc(cc);
        }
        let ra = self.int_in(a, RAX);
        match self.imm32(b) {
            Some(0) if matches!(cc, Cc::E | Cc::Ne) => self.e(Inst::Alu(Alu::Test, ra, ra)),
            Some(i) => self.e(Inst::AluI(Alu::Cmp, ra, i)),
            None => {
                let rb = self.int_in(b, RCX);
                self.e(Inst::Alu(Alu::Cmp, ra, rb));
            }
        }
        Cond::Cc(cc)
    }

    fn cmp(&mut self, d: VReg, c: CmpOp, a: VReg, b: VReg) {
        let w = self.work_gpr(d, None);
        match self.compare(c, a, b) {
            Cond::Cc(cc) => {
                self.e(Inst::Setcc(cc, w));
                self.e(Inst::Movzx8(w, w));
            }
            Cond::FEq => {
                self.e(Inst::Setcc(Cc::E, RAX));
                self.e(Inst::Setcc(Cc::Np, RCX));
                self.e(Inst::Alu(Alu::And, RAX, RCX));
                self.e(Inst::Movzx8(w, RAX));
            }
            Cond::FNe => {
                self.e(Inst::Setcc(Cc::Ne, RAX));
                self.e(Inst::Setcc(Cc::P, RCX));
                self.e(Inst::Alu(Alu::Or, RAX, RCX));
                self.e(Inst::Movzx8(w, RAX));
            }
        }
        self.store_int(d, w);
    }

    fn convert(&mut self, d: VReg, from: Ty, to: Ty, a: VReg) {
        if super::regalloc::noop_convert(from, to) {
            let (dl, al) = (self.loc(d), self.loc(a));
            self.mov_loc(dl, al);
            return;
        }
        if !from.is_float() && !to.is_float() {
            let w = self.work_gpr(d, None);
            self.int_into(a, w);
            if to == Ty::Bool {
                self.e(Inst::Alu(Alu::Test, w, w));
                self.e(Inst::Setcc(Cc::Ne, w));
                self.e(Inst::Movzx8(w, w));
            } else {
                self.canon(to, w);
            }
            self.store_int(d, w);
            return;
        }
        if !from.is_float() {
            self.int_into(a, RAX);
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
