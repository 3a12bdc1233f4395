//! spy-jit: a leaf x86-64 code generator for SPy.
//!
//! It knows nothing of SPy: a front end lowers its residual module into the
//! typed, structured [`ir`], then [`compile`] turns the whole module into
//! machine code in one executable buffer, and [`CompiledModule::call`] runs
//! a function on a dedicated native stack. [`ir::eval`] runs the same IR as
//! the reference, bit for bit. See `jit/README.md` for the design.
//!
//! Modules: [`ir`] (IR, builder, verifier, semantics, evaluator),
//! [`opt`] (IR passes that keep every observable behaviour: inlining),
//! [`runtime`] (context, helper guard, native stack), `x64` (emitter,
//! register allocation, code generation, executable module; x86-64 only).

pub mod ir;
pub mod opt;
pub mod runtime;
#[cfg(all(target_arch = "x86_64", unix))]
pub mod x64;

use ir::{ErrCode, FuncId, Module, RunError, VerifyError, Word};
use runtime::Context;
use std::fmt;

/// Options fixed at compile time.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CompileOptions {
    /// Raised by a function entered beyond the context's depth limit.
    pub recursion_error: ErrCode,
    /// Raised when a helper panics (see [`runtime::guard`]).
    pub internal_error: ErrCode,
    /// The vector instructions vector ops may use.
    pub simd: SimdLevel,
    /// Planted bugs (test-only; none by default): the differential fuzzer
    /// must find each of them.
    pub mutations: Mutations,
}

/// The vector instruction set the code generator uses for vector ops.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SimdLevel {
    /// The x86-64 baseline: 16-byte chunks; `i32` lane multiply is done
    /// lane by lane (no `pmulld`).
    Sse2,
    /// 32-byte chunks (`vaddpd ymm` ...), and for partial chunks and
    /// comparisons the SSE4.1/4.2 `pmulld`, `pcmpeqq`, `pcmpgtq` (every
    /// AVX2 host has SSE4.2).
    Avx2,
}

/// The environment variable that forces [`SimdLevel::Sse2`] when set to `sse2`.
pub const SIMD_ENV: &str = "SPY_JIT_SIMD";

impl SimdLevel {
    /// What this host runs: `Avx2` when `is_x86_feature_detected!("avx2")`
    /// says so, unless `SPY_JIT_SIMD=sse2` forces the baseline.
    pub fn host() -> SimdLevel {
        if std::env::var(SIMD_ENV).is_ok_and(|v| v.eq_ignore_ascii_case("sse2")) {
            return SimdLevel::Sse2;
        }
        #[cfg(target_arch = "x86_64")]
        {
            if std::arch::is_x86_feature_detected!("avx2") {
                return SimdLevel::Avx2;
            }
        }
        SimdLevel::Sse2
    }

    /// Bytes of the widest vector register used (what `simd_width_of` counts).
    pub fn vector_bytes(self) -> u32 {
        match self {
            SimdLevel::Sse2 => 16,
            SimdLevel::Avx2 => 32,
        }
    }
}

impl CompileOptions {
    /// The planted bug `m` is switched on.
    pub fn mutation(&self, m: Mutation) -> bool {
        self.mutations.has(m)
    }
}

/// One planted code-generation bug (test-only): each is a one-line `if
/// opts.mutation(..)` in `x64/codegen.rs` or `x64/regalloc.rs`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Mutation {
    /// An unsigned integer comparison uses the signed condition code.
    UnsignedCmpSigned,
    /// The result of an i8 operation is not sign-extended.
    I8NoSignExtend,
    /// Values live across a call may live in caller-saved registers.
    CallerSavedKept,
    /// Signed `//` and `%` lose Python's floor fix-up (round toward zero).
    FloorDivNoFixup,
    /// Float `==` and `!=` ignore the parity flag (NaN compares equal).
    NanIgnoresParity,
    /// The bounds check of a pointer access lets `index == len` through.
    BoundsCheckLe,
    /// The second spilled value shares the first one's stack slot.
    SpillSlotShared,
    /// 64-bit shifts rely on the hardware (count taken mod 64).
    ShiftCountMasked,
    /// i64 `MIN // -1` goes to `idiv`, which traps (SIGFPE).
    DivMinTraps,
    /// The epilogue frees 8 bytes too many (a crash on return).
    EpilogueOffByEight,
}

impl Mutation {
    pub const ALL: [Mutation; 10] = [
        Mutation::UnsignedCmpSigned,
        Mutation::I8NoSignExtend,
        Mutation::CallerSavedKept,
        Mutation::FloorDivNoFixup,
        Mutation::NanIgnoresParity,
        Mutation::BoundsCheckLe,
        Mutation::SpillSlotShared,
        Mutation::ShiftCountMasked,
        Mutation::DivMinTraps,
        Mutation::EpilogueOffByEight,
    ];

    fn bit(self) -> u32 {
        1 << self as u32
    }
}

/// A set of planted bugs.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Mutations(u32);

impl Mutations {
    pub const NONE: Mutations = Mutations(0);

    pub fn has(self, m: Mutation) -> bool {
        self.0 & m.bit() != 0
    }

    pub fn with(self, m: Mutation) -> Mutations {
        Mutations(self.0 | m.bit())
    }
}

/// Why a module could not be compiled.
#[derive(Debug)]
pub enum JitError {
    /// The host is not x86-64 with the System V ABI.
    UnsupportedHost,
    /// The module is not valid IR.
    Verify(VerifyError),
    /// The assembler rejected the code (e.g. a relocation out of range).
    Assembler(String),
    /// Executable memory could not be obtained.
    Memory(String),
    /// A bug in this crate (e.g. the allocation checker failed).
    Internal(String),
}

impl fmt::Display for JitError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            JitError::UnsupportedHost => {
                f.write_str("the JIT supports only x86-64 hosts with the System V ABI")
            }
            JitError::Verify(e) => write!(f, "{e}"),
            JitError::Assembler(e) => write!(f, "assembler error: {e}"),
            JitError::Memory(e) => write!(f, "cannot get executable memory: {e}"),
            JitError::Internal(e) => write!(f, "internal JIT error: {e}"),
        }
    }
}

impl std::error::Error for JitError {}

impl From<VerifyError> for JitError {
    fn from(e: VerifyError) -> Self {
        JitError::Verify(e)
    }
}

/// Compile every function of `m` into one executable buffer.
pub fn compile(m: &Module, opts: &CompileOptions) -> Result<CompiledModule, JitError> {
    #[cfg(all(target_arch = "x86_64", unix))]
    {
        x64::module::compile(m, opts, None).map(|inner| CompiledModule { inner })
    }
    #[cfg(not(all(target_arch = "x86_64", unix)))]
    {
        let _ = (m, opts);
        Err(JitError::UnsupportedHost)
    }
}

/// [`compile`] only the functions `root` can reach through calls
/// ([`Module::reachable_from`]): what a run of `root` needs. Functions
/// inlined everywhere they were called are left out; each compiled
/// function's machine code is the one [`compile`] gives it. Calling a
/// function that was left out panics.
pub fn compile_reachable(
    m: &Module,
    opts: &CompileOptions,
    root: FuncId,
) -> Result<CompiledModule, JitError> {
    #[cfg(all(target_arch = "x86_64", unix))]
    {
        let live = m.reachable_from(root);
        x64::module::compile(m, opts, Some(&live)).map(|inner| CompiledModule { inner })
    }
    #[cfg(not(all(target_arch = "x86_64", unix)))]
    {
        let _ = (m, opts, root);
        Err(JitError::UnsupportedHost)
    }
}

/// [`compile_reachable`] of a module the caller gives up: each function's
/// body is optimized where it is instead of in a copy (the same machine
/// code; what `spy-interp` runs, which compiles a lowered module once).
pub fn compile_reachable_owned(
    m: Module,
    opts: &CompileOptions,
    root: FuncId,
) -> Result<CompiledModule, JitError> {
    #[cfg(all(target_arch = "x86_64", unix))]
    {
        let live = m.reachable_from(root);
        x64::module::compile_owned(m, opts, Some(&live)).map(|inner| CompiledModule { inner })
    }
    #[cfg(not(all(target_arch = "x86_64", unix)))]
    {
        let _ = (m, opts, root);
        Err(JitError::UnsupportedHost)
    }
}

/// A compiled module; the executable memory is freed on drop.
pub struct CompiledModule {
    #[cfg(all(target_arch = "x86_64", unix))]
    inner: x64::module::X64Module,
    #[cfg(not(all(target_arch = "x86_64", unix)))]
    #[allow(dead_code)]
    inner: std::convert::Infallible,
}

#[cfg(all(target_arch = "x86_64", unix))]
pub use x64::module::CompileStats;

impl CompiledModule {
    /// Call `f` with one word per parameter (canonicalized for its type;
    /// floats as bits). Returns one word per result, or the error raised.
    ///
    /// `Ptr` arguments are trusted: a non-null pointer passed with a length
    /// must point to that many valid elements (see `runtime::mem`).
    pub fn call(&self, ctx: &mut Context, f: FuncId, args: &[Word]) -> Result<Vec<Word>, RunError> {
        #[cfg(all(target_arch = "x86_64", unix))]
        {
            self.inner.call(ctx, f, args, None)
        }
        #[cfg(not(all(target_arch = "x86_64", unix)))]
        {
            let _ = (ctx, f, args);
            match self.inner {}
        }
    }

    /// [`call`](Self::call), lending `out` to the helpers for the duration
    /// of the call: a helper reaches it through
    /// [`HelperCtx::output`](runtime::HelperCtx::output) (e.g. to print as
    /// the program runs rather than collect the output).
    pub fn call_writing(
        &self,
        ctx: &mut Context,
        f: FuncId,
        args: &[Word],
        out: &mut dyn std::io::Write,
    ) -> Result<Vec<Word>, RunError> {
        #[cfg(all(target_arch = "x86_64", unix))]
        {
            self.inner.call(ctx, f, args, Some(out))
        }
        #[cfg(not(all(target_arch = "x86_64", unix)))]
        {
            let _ = (ctx, f, args, out);
            match self.inner {}
        }
    }

    /// Compilation statistics (instructions, bytes, spills, frame size).
    #[cfg(all(target_arch = "x86_64", unix))]
    pub fn stats(&self) -> &CompileStats {
        self.inner.stats()
    }

    /// Bytes of machine code of one function (without its entry thunk).
    #[cfg(all(target_arch = "x86_64", unix))]
    pub fn code_bytes(&self, f: FuncId) -> usize {
        self.inner.function_code_bytes(f)
    }

    /// Native stack bytes of one activation of `f`.
    #[cfg(all(target_arch = "x86_64", unix))]
    pub fn frame_bytes(&self, f: FuncId) -> usize {
        self.inner.function_frame_bytes(f)
    }

    /// Intel-syntax disassembly of the whole buffer (feature `disasm`).
    #[cfg(all(feature = "disasm", target_arch = "x86_64", unix))]
    pub fn disassemble(&self) -> String {
        disassemble_at(self.inner.code(), 0)
    }

    /// Intel-syntax disassembly of one function's machine code, without
    /// its entry thunk; addresses are offsets in the module's buffer
    /// (feature `disasm`).
    #[cfg(all(feature = "disasm", target_arch = "x86_64", unix))]
    pub fn disassemble_function(&self, f: FuncId) -> String {
        let (start, code) = self.inner.function_code(f);
        disassemble_at(code, start as u64)
    }
}

/// Intel syntax, one instruction a line: `offset  instruction`.
#[cfg(all(feature = "disasm", target_arch = "x86_64", unix))]
fn disassemble_at(code: &[u8], ip: u64) -> String {
    use iced_x86::{Decoder, DecoderOptions, Formatter, IntelFormatter};
    let mut dec = Decoder::with_ip(64, code, ip, DecoderOptions::NONE);
    let mut fmt = IntelFormatter::new();
    let mut out = String::new();
    for ins in &mut dec {
        let mut s = String::new();
        fmt.format(&ins, &mut s);
        out.push_str(&format!("{:6x}  {s}\n", ins.ip()));
    }
    out
}

#[cfg(all(feature = "disasm", target_arch = "x86_64", unix))]
impl CompiledModule {
    /// A listing of function `f` of `m` (the module this was compiled from)
    /// for people debugging the JIT (feature `disasm`): its IR, the home of
    /// every virtual register, and its machine code in Intel syntax, with
    /// the text `mark` gives for each `Stmt::Mark` before the code that
    /// follows it (the front end's source line).
    pub fn listing(&self, m: &Module, f: FuncId, mark: &dyn Fn(u32) -> String) -> String {
        use std::fmt::Write as _;
        let lowered = m.function(f);
        let mut out = String::new();
        let _ = writeln!(out, "== {}", lowered.name);
        let _ = writeln!(out, "-- IR");
        out.push_str(&ir::print::print_function_marked(m, lowered, mark));
        // The IR the back end compiled (simplified, strength-reduced, exit
        // tests rewritten): the registers below are its virtual registers,
        // some of them new.
        let (optimized, ranges) = x64::module::prepare(lowered);
        let func = &optimized;
        let _ = writeln!(
            out,
            "-- IR as compiled (simplified, strength-reduced, exit tests rewritten)"
        );
        out.push_str(&ir::print::print_function_marked(m, func, mark));
        let _ = writeln!(out, "-- registers (and value ranges narrower than the type)");
        for (i, l) in self.inner.function_locations(f).iter().enumerate() {
            if let Some(l) = l {
                let v = ir::VReg(i as u32);
                // A vector wider than 16 bytes in a vector register is in
                // the whole 256-bit register (the allocator names it by its
                // low half).
                let l = match l.strip_prefix("xmm") {
                    Some(n) if func.ty(v).bits() > 128 => format!("ymm{n}"),
                    _ => l.clone(),
                };
                let range = match (ranges.get(v), x64::range::Interval::of_type(func.ty(v))) {
                    (Some(r), Some(full)) if r != full && r.single().is_none() => {
                        format!("  in [{}, {}]", r.lo, r.hi)
                    }
                    _ => String::new(),
                };
                let _ = writeln!(out, "  {v}: {} -> {l}{range}", func.ty(v));
            }
        }
        let (start, code) = self.inner.function_code(f);
        let _ = writeln!(
            out,
            "-- machine code ({} bytes, frame {} bytes)",
            code.len(),
            self.inner.function_frame_bytes(f)
        );
        out.push_str(&disasm_lines(code, start, self.inner.function_marks(f), mark));
        out
    }
}

/// `code` (at buffer offset `start`) decoded by iced-x86, one instruction a
/// line, with each mark's text before the instruction at its offset. A run
/// of `int3` (the never-executed padding before an aligned loop head) is
/// one line: `int3 ×n`.
#[cfg(all(feature = "disasm", target_arch = "x86_64", unix))]
fn disasm_lines(code: &[u8], start: usize, marks: &[(usize, u32)], mark: &dyn Fn(u32) -> String) -> String {
    use iced_x86::{Decoder, DecoderOptions, Formatter, IntelFormatter, Mnemonic};
    let decoded: Vec<_> = Decoder::with_ip(64, code, start as u64, DecoderOptions::NONE)
        .into_iter()
        .collect();
    let mut fmt = IntelFormatter::new();
    let mut out = String::new();
    let mut next = 0;
    let mut i = 0;
    while i < decoded.len() {
        let ins = &decoded[i];
        while next < marks.len() && marks[next].0 as u64 <= ins.ip() {
            out.push_str(&format!("        ; {}\n", mark(marks[next].1)));
            next += 1;
        }
        let mut s = String::new();
        fmt.format(ins, &mut s);
        let mut run = 1;
        if ins.mnemonic() == Mnemonic::Int3 {
            let unmarked = |ip: u64| next >= marks.len() || marks[next].0 as u64 > ip;
            while decoded
                .get(i + run)
                .is_some_and(|n| n.mnemonic() == Mnemonic::Int3 && unmarked(n.ip()))
            {
                run += 1;
            }
            if run > 1 {
                s = format!("{s} \u{d7}{run}");
            }
        }
        out.push_str(&format!("{:6x}  {s}\n", ins.ip()));
        i += run;
    }
    out
}
