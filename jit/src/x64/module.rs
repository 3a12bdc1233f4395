//! A compiled module: one executable buffer holding every function and one
//! entry thunk per function, and the one place where Rust calls into machine
//! code (switching to the dedicated native stack).
//!
//! Entry thunk `thunk_f(ctx, args, stack_top, results, depth)` (SysV): saves
//! the callee-saved registers, pins `r15 = ctx` and `r14 = depth`, switches
//! `rsp` to `stack_top`, loads the argument words into the SysV argument
//! registers and stack slots, calls `f`, stores register results into
//! `results`, restores `rsp` and returns.

use super::abi::{self, ArgLoc, CTX, DEPTH};
use super::codegen::FnGen;
use super::emit::{Alu, Emitter, Inst, LoadKind, Mem, StoreKind, R12, R13, RAX, RBP, RBX, RSP};
use super::regalloc;
use crate::ir::{sem, FuncId, Module, RunError, Ty, Word};
use crate::runtime::{stack::NativeStack, Context, HelperCtx};
use crate::{CompileOptions, JitError};
use dynasmrt::mmap::MutableBuffer;
use dynasmrt::x64::X64Relocation;
use dynasmrt::{AssemblyOffset, ExecutableBuffer, VecAssembler};

/// The assembler the module is written into: a plain byte vector (every
/// reference to a label is relative, so the code does not depend on where
/// it is), copied into its executable mapping once complete ([`executable`]).
type Asm = VecAssembler<X64Relocation>;

struct FuncInfo {
    name: String,
    params: Vec<Ty>,
    results: Vec<Ty>,
    /// `None`: not compiled (unreachable from the roots, [`compile`]).
    thunk: Option<AssemblyOffset>,
    code_start: usize,
    code_bytes: usize,
    frame_bytes: usize,
    /// Home of every virtual register (`None`: it never occurs).
    locations: Vec<Option<regalloc::Loc>>,
    /// Code offset (from the buffer's start) of every `Stmt::Mark`.
    marks: Vec<(usize, u32)>,
}

/// Statistics of one compilation.
#[derive(Clone, Debug, Default)]
pub struct CompileStats {
    pub functions: usize,
    pub instructions: usize,
    pub code_bytes: usize,
    pub spilled_values: u32,
    pub max_frame_bytes: usize,
}

pub struct X64Module {
    buf: ExecutableBuffer,
    funcs: Vec<FuncInfo>,
    max_frame: usize,
    /// Bytes the entry thunk needs for the largest stack-argument area.
    max_thunk_bytes: usize,
    opts: CompileOptions,
    stats: CompileStats,
}

/// The function as the back end compiles it: simplified, then with its
/// induction-variable multiplications strength-reduced and its exit tests
/// rewritten with value ranges. Listings print this, since its virtual
/// registers are the ones the allocator placed.
pub fn optimize(f: &crate::ir::Function) -> crate::ir::Function {
    prepare(f).0
}

/// [`optimize`]'s function and its value ranges (what code generation
/// needs of it).
pub fn prepare(f: &crate::ir::Function) -> (crate::ir::Function, super::range::Ranges) {
    super::exits::rewrite(super::strength::reduce_owned(super::simplify::simplify(f)))
}

/// Where [`compile_from`] gets each function to compile: the module (for
/// every callee's signature) and function `i` prepared ([`prepare`]).
trait Functions {
    fn module(&self) -> &Module;
    fn prepare(&mut self, i: usize) -> (crate::ir::Function, super::range::Ranges);
}

/// A borrowed module: each function is copied, then prepared.
impl Functions for &Module {
    fn module(&self) -> &Module {
        self
    }
    fn prepare(&mut self, i: usize) -> (crate::ir::Function, super::range::Ranges) {
        prepare(&self.functions[i])
    }
}

/// A module given up by the caller: each function's body is moved out, not
/// copied (the rest of the function, its signature, stays for its callers);
/// the same function as [`prepare`] of the whole.
impl Functions for Module {
    fn module(&self) -> &Module {
        self
    }
    fn prepare(&mut self, i: usize) -> (crate::ir::Function, super::range::Ranges) {
        let f = &mut self.functions[i];
        let owned = crate::ir::Function {
            name: f.name.clone(),
            params: f.params.clone(),
            results: f.results.clone(),
            vregs: f.vregs.clone(),
            body: std::mem::take(&mut f.body),
        };
        super::exits::rewrite(super::strength::reduce_owned(super::simplify::simplify_owned(
            owned,
        )))
    }
}

/// Compile the functions of `m` that `live` marks (every one when `None`;
/// the others get neither code nor an entry thunk, and calling them is a
/// bug: `live` must hold every function a live one calls). The code of a
/// function does not depend on which others are compiled.
pub fn compile(m: &Module, opts: &CompileOptions, live: Option<&[bool]>) -> Result<X64Module, JitError> {
    compile_from(m, opts, live)
}

/// [`compile`] of a module the caller gives up: the functions' bodies are
/// optimized in place of a copy (the same machine code).
pub fn compile_owned(m: Module, opts: &CompileOptions, live: Option<&[bool]>) -> Result<X64Module, JitError> {
    compile_from(m, opts, live)
}

fn compile_from(
    mut src: impl Functions,
    opts: &CompileOptions,
    live: Option<&[bool]>,
) -> Result<X64Module, JitError> {
    crate::ir::verify(src.module())?;
    let is_live = |i: usize| live.is_none_or(|l| l[i]);
    let mut em = Emitter::new(Asm::new(0));
    let n = src.module().functions.len();
    let labels: Vec<_> = (0..n).map(|_| em.new_label()).collect();
    let mut funcs = vec![];
    let mut stats = CompileStats {
        functions: (0..n).filter(|&i| is_live(i)).count(),
        ..Default::default()
    };
    let mut frames = vec![];
    let mut scratch = super::codegen::Scratch::default();
    for i in 0..n {
        if !is_live(i) {
            frames.push(Default::default());
            continue;
        }
        let (optimized, ranges) = src.prepare(i);
        let f = &optimized;
        let m = src.module();
        let alloc = regalloc::allocate_with(m, f, opts.mutations, opts.simd);
        #[cfg(debug_assertions)]
        super::check::check(f, &alloc).map_err(JitError::Internal)?;
        let start = em.offset();
        let info = FnGen::new(
            &mut em,
            m,
            f,
            &alloc,
            &labels,
            opts.recursion_error,
            ranges,
            &mut scratch,
        )
        .with_simd(opts.simd)
        .with_mutations(opts.mutations)
        .emit_function(FuncId(i as u32));
        stats.spilled_values += info.spilled;
        frames.push((
            start,
            em.offset() - start,
            info.frame_bytes,
            alloc.locs,
            info.marks,
        ));
    }
    for (i, f) in src.module().functions.iter().enumerate() {
        let thunk = is_live(i).then(|| {
            let at = AssemblyOffset(em.offset());
            emit_thunk(&mut em, &f.param_tys(), &f.results, labels[i]);
            at
        });
        let (code_start, code_bytes, frame_bytes, locations, marks) = std::mem::take(&mut frames[i]);
        funcs.push(FuncInfo {
            name: f.name.clone(),
            params: f.param_tys(),
            results: f.results.clone(),
            thunk,
            code_start,
            code_bytes,
            frame_bytes,
            locations,
            marks,
        });
    }
    stats.instructions = em.count;
    stats.code_bytes = em.offset();
    let max_frame = funcs.iter().map(|f| f.frame_bytes).max().unwrap_or(0);
    stats.max_frame_bytes = max_frame;
    let code = em
        .asm
        .finalize()
        .map_err(|e| JitError::Assembler(e.to_string()))?;
    let buf = executable(&code).map_err(|e| JitError::Memory(e.to_string()))?;
    let max_thunk_bytes = funcs.iter().map(|f| f.params.len() * 8 + 16).max().unwrap_or(0);
    Ok(X64Module {
        buf,
        funcs,
        max_frame,
        max_thunk_bytes,
        opts: *opts,
        stats,
    })
}

/// `code` in a mapping of its own, written, then made executable and no
/// longer writable (W^X): one `mmap`, one `mprotect`, and the `munmap`
/// when the module is dropped.
fn executable(code: &[u8]) -> std::io::Result<ExecutableBuffer> {
    let mut b = MutableBuffer::new(code.len())?;
    b.set_len(code.len());
    b.copy_from_slice(code);
    dynasmrt::cache_control::synchronize_icache(&b);
    let buf = b.make_exec()?;
    dynasmrt::cache_control::prepare_for_execution(&buf);
    Ok(buf)
}

fn emit_thunk(em: &mut Emitter<Asm>, params: &[Ty], results: &[Ty], target: dynasmrt::DynamicLabel) {
    use super::emit::{R14, R15, R8, RCX, RDI, RDX, RSI};
    for r in [RBP, RBX, R12, R13, R14, R15] {
        em.emit(Inst::Push(r));
    }
    em.emit(Inst::MovRR(CTX, RDI));
    em.emit(Inst::MovRR(RBX, RSI));
    em.emit(Inst::MovRR(R12, RCX));
    em.emit(Inst::MovRR(DEPTH, R8));
    em.emit(Inst::MovRR(R13, RSP));
    em.emit(Inst::MovRR(RSP, RDX));
    let locs = abi::arg_locs(params, false);
    let nstack = locs.iter().filter(|l| matches!(l, ArgLoc::Stack(_))).count() as i32;
    let area = (8 * nstack + 15) / 16 * 16;
    if area > 0 {
        em.emit(Inst::AluI(Alu::Sub, RSP, area));
    }
    for (i, l) in locs.iter().enumerate() {
        let src = Mem::base(RBX, 8 * i as i32);
        match *l {
            ArgLoc::Gpr(r) => em.emit(Inst::Load(LoadKind::Q, r, src)),
            ArgLoc::Xmm(x) => em.emit(Inst::MovsdLoad(x, src)),
            ArgLoc::Stack(j) => {
                em.emit(Inst::Load(LoadKind::Q, RAX, src));
                em.emit(Inst::Store(StoreKind::Q, Mem::base(RSP, 8 * j as i32), RAX));
            }
        }
    }
    em.emit(Inst::CallL(target));
    if let Some(locs) = abi::result_regs(results) {
        for (i, l) in locs.iter().enumerate() {
            let dst = Mem::base(R12, 8 * i as i32);
            match *l {
                ArgLoc::Gpr(r) => {
                    // Narrow integer results come back loose (`super::loose`).
                    match results[i] {
                        Ty::I8 => em.emit(Inst::Movsx8(r, r)),
                        Ty::U8 => em.emit(Inst::Movzx8(r, r)),
                        Ty::I32 => em.emit(Inst::Movsxd(r, r)),
                        Ty::U32 => em.emit(Inst::MovRR32(r, r)),
                        _ => {}
                    }
                    em.emit(Inst::Store(StoreKind::Q, dst, r))
                }
                ArgLoc::Xmm(x) => em.emit(Inst::MovsdStore(dst, x)),
                ArgLoc::Stack(_) => unreachable!("results never on the stack"),
            }
        }
    }
    em.emit(Inst::MovRR(RSP, R13));
    for r in [R15, R14, R13, R12, RBX, RBP] {
        em.emit(Inst::Pop(r));
    }
    em.emit(Inst::Ret);
}

type Thunk = unsafe extern "sysv64" fn(*mut HelperCtx, *const Word, usize, *mut Word, u64);

impl X64Module {
    pub fn stats(&self) -> &CompileStats {
        &self.stats
    }

    pub fn function_code_bytes(&self, f: FuncId) -> usize {
        self.funcs[f.0 as usize].code_bytes
    }

    /// The function's machine code (without its entry thunk) and where it
    /// starts in the buffer.
    pub fn function_code(&self, f: FuncId) -> (usize, &[u8]) {
        let i = &self.funcs[f.0 as usize];
        (i.code_start, &self.buf[i.code_start..i.code_start + i.code_bytes])
    }

    /// Code offsets of the function's `Stmt::Mark`s, in emission order.
    pub fn function_marks(&self, f: FuncId) -> &[(usize, u32)] {
        &self.funcs[f.0 as usize].marks
    }

    /// The home of every virtual register of the function, in Intel syntax
    /// (`None`: the register never occurs).
    pub fn function_locations(&self, f: FuncId) -> Vec<Option<String>> {
        self.funcs[f.0 as usize]
            .locations
            .iter()
            .map(|l| l.map(|l| l.render()))
            .collect()
    }

    pub fn function_frame_bytes(&self, f: FuncId) -> usize {
        self.funcs[f.0 as usize].frame_bytes
    }

    pub fn code(&self) -> &[u8] {
        &self.buf
    }

    /// Native stack a call needs: every activation up to the depth limit,
    /// plus the thunk, the helpers' allowance and a page of margin.
    fn stack_needed(&self, ctx: &Context) -> usize {
        let depth = ctx.opts.depth_limit as usize + 1;
        depth * self.max_frame + self.max_thunk_bytes + 64 + ctx.opts.helper_stack + 4096
    }

    pub fn call(
        &self,
        ctx: &mut Context,
        f: FuncId,
        args: &[Word],
        out: Option<&mut dyn std::io::Write>,
    ) -> Result<Vec<Word>, RunError> {
        let info = &self.funcs[f.0 as usize];
        assert_eq!(args.len(), info.params.len(), "argument count of `{}`", info.name);
        let entry = info
            .thunk
            .unwrap_or_else(|| panic!("`{}` was not compiled (not reachable from the roots)", info.name));
        let args: Vec<Word> = args
            .iter()
            .zip(&info.params)
            .map(|(&w, &t)| sem::canon(t, w))
            .collect();
        let need = self.stack_needed(ctx);
        if ctx.stack.as_ref().is_none_or(|s| s.usable() < need) {
            ctx.stack = None;
            let s =
                NativeStack::take(need).unwrap_or_else(|e| panic!("cannot map a {need}-byte JIT stack: {e}"));
            ctx.stack = Some(s);
        }
        let top = ctx.stack.as_ref().expect("mapped above").top();
        let raw = ctx
            .raw
            .get_or_insert_with(|| HelperCtx::new(self.opts.internal_error));
        raw.reset(self.opts.internal_error);
        raw.lend_output(out);
        let mut results = vec![0 as Word; info.results.len().max(1)];
        // SAFETY: `thunk` points at an entry thunk emitted by `emit_thunk`
        // in this module's executable buffer (alive for `&self`), which
        // follows the `Thunk` signature. The machine code reads `args`
        // (one word per parameter) and writes at most one word per result
        // into `results`; it runs on the mapped stack `top` (sized by
        // `stack_needed` for `depth_limit` activations, the depth counter
        // stopping deeper recursion before it can overflow) and returns to
        // the Rust stack with every callee-saved register restored.
        // `raw` is boxed and only accessed by the machine code and its
        // helpers until the call returns.
        unsafe {
            let thunk: Thunk = std::mem::transmute::<*const u8, Thunk>(self.buf.ptr(entry));
            thunk(
                &mut **raw,
                args.as_ptr(),
                top,
                results.as_mut_ptr(),
                u64::from(ctx.opts.depth_limit),
            );
        }
        raw.lend_output(None);
        if let Some(e) = raw.error() {
            return Err(e);
        }
        let words = match abi::result_regs(&info.results) {
            Some(_) => results[..info.results.len()].to_vec(),
            None => raw.ret[..info.results.len()].to_vec(),
        };
        Ok(words
            .iter()
            .zip(&info.results)
            .map(|(&w, &t)| sem::canon(t, w))
            .collect())
    }
}
