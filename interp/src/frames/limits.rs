//! Deterministic resource limits kept in interpreter state, never the host
//! stack: a call-depth limit (RecursionError) and optional step fuel
//! (`--max-steps`, StepLimitError), plus the test-only planted-bug switches
//! (`Mutations`) that prove the differential fuzzer finds real mistakes and
//! the switch that turns ASTFrame's shortcuts off (`general_paths_only`).

use crate::error::{ExcKind, Failure, SpyError};
use crate::frames::Interp;

#[derive(Clone, Copy, Debug)]
pub struct Limits {
    /// Maximum number of nested function activations.
    pub max_depth: u32,
    /// Maximum number of steps (statements + calls); `None` = unbounded.
    pub max_steps: Option<u64>,
    /// Longest string a program may build, in bytes (a runaway `s = s + s`
    /// ends with an error instead of exhausting memory).
    pub max_str_bytes: usize,
    /// Live bytes of pointer memory a program may hold, and the most a
    /// single string, list or residual module may take (`--max-memory`;
    /// beyond it, `MemoryError`).
    pub max_memory: u64,
}

/// The default memory budget: 4 GiB.
pub const DEFAULT_MAX_MEMORY: u64 = 4 << 30;

impl Default for Limits {
    fn default() -> Self {
        Limits {
            max_depth: 1000,
            max_steps: None,
            max_str_bytes: 1 << 28,
            max_memory: DEFAULT_MAX_MEMORY,
        }
    }
}

/// How a program is run: its limits, the planted bugs (test-only) and
/// whether ASTFrame takes only its general rules.
#[derive(Clone, Copy, Debug, Default)]
pub struct RunConfig {
    pub limits: Limits,
    /// Deliberate engine bugs for testing the fuzzer (none by default).
    pub mutations: Mutations,
    /// Take the general evaluation rule everywhere ASTFrame has a shortcut
    /// for a common case (in-place `s = s + t`, primitive operators
    /// resolved first, exact-arity argument binding). The conformance
    /// suite runs every case in this mode too (`interp-general`), so each
    /// shortcut is checked against the rule it abbreviates.
    pub general_paths_only: bool,
    /// The command-line arguments of `main(argv: list[str])`, `argv[0]`
    /// being the program's path as given; `None` is just the path. (Static
    /// so that a `RunConfig` stays `Copy`: the CLI makes it once per
    /// process.)
    pub argv: Option<&'static [String]>,
    /// What `open` may open (spec §8.5): nothing by default.
    pub files: crate::host::FileAccess,
    /// Where `import m` finds `m.spy` (spec §8.6): beside the main file on
    /// disk by default.
    pub modules: crate::host::ModuleSources,
}

impl RunConfig {
    /// The `interp-general` mode: ASTFrame with its shortcuts off.
    pub fn general(self) -> RunConfig {
        RunConfig {
            general_paths_only: true,
            ..self
        }
    }
}

impl From<Limits> for RunConfig {
    fn from(limits: Limits) -> RunConfig {
        RunConfig {
            limits,
            ..RunConfig::default()
        }
    }
}

/// One planted bug (test-only): each is a 2-5 line `if` in the engine code
/// and never affects the reference engine (it runs with `Mutations::NONE`,
/// see `engine::run_program`). The first five are in doppler (and so in the
/// jit engine, which runs doppler's residual module), the sixth in the
/// residual printer (both engines run its text); the `Jit` ones are
/// code-generation bugs of spy-jit, passed to it through `CompileOptions`
/// (`lower::run`), and affect only the jit engine.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Mutation {
    /// Blue `//` folded by redshift rounds toward zero (`frames/dispatch.rs`).
    FloorDivRoundsTowardZero,
    /// An UNROLL_RANGE loop being redshifted gets n-1 copies (`frames/unroll.rs`).
    UnrollOffByOne,
    /// A red splat's operand is evaluated twice (`frames/doppler/expr.rs`).
    SplatTwice,
    /// `ptr_simd_load` reverses the lanes in doppler's residual run
    /// (`frames/lowlevel.rs`).
    SimdLaneOrder,
    /// Redshift folds a blue `-0.0` into the constant `0.0`
    /// (`frames/doppler/consts.rs`).
    NegZeroFolded,
    /// The residual printer drops the parentheses around a binary
    /// operation's right operand, `a - (b - c)` as `a - b - c`
    /// (`backend::PlantedPrinterBug`): affects the doppler and jit engines
    /// on the printed residual route only.
    PrinterRightOperandUnparenthesized,
    /// A code-generation bug of the jit (`spy_jit::Mutation`).
    Jit(spy_jit::Mutation),
}

impl Mutation {
    pub const ALL: [Mutation; 16] = {
        use spy_jit::Mutation as J;
        [
            Mutation::FloorDivRoundsTowardZero,
            Mutation::UnrollOffByOne,
            Mutation::SplatTwice,
            Mutation::SimdLaneOrder,
            Mutation::NegZeroFolded,
            Mutation::PrinterRightOperandUnparenthesized,
            Mutation::Jit(J::UnsignedCmpSigned),
            Mutation::Jit(J::I8NoSignExtend),
            Mutation::Jit(J::CallerSavedKept),
            Mutation::Jit(J::FloorDivNoFixup),
            Mutation::Jit(J::NanIgnoresParity),
            Mutation::Jit(J::BoundsCheckLe),
            Mutation::Jit(J::SpillSlotShared),
            Mutation::Jit(J::ShiftCountMasked),
            Mutation::Jit(J::DivMinTraps),
            Mutation::Jit(J::EpilogueOffByEight),
        ]
    };

    pub fn name(self) -> &'static str {
        use spy_jit::Mutation as J;
        match self {
            Mutation::FloorDivRoundsTowardZero => "floordiv-rounds-toward-zero",
            Mutation::UnrollOffByOne => "unroll-off-by-one",
            Mutation::SplatTwice => "splat-twice",
            Mutation::SimdLaneOrder => "simd-lane-order",
            Mutation::NegZeroFolded => "neg-zero-folded",
            Mutation::PrinterRightOperandUnparenthesized => "printer-right-operand-unparenthesized",
            Mutation::Jit(J::UnsignedCmpSigned) => "jit-unsigned-cmp-signed",
            Mutation::Jit(J::I8NoSignExtend) => "jit-i8-no-sign-extend",
            Mutation::Jit(J::CallerSavedKept) => "jit-caller-saved-kept",
            Mutation::Jit(J::FloorDivNoFixup) => "jit-floordiv-no-fixup",
            Mutation::Jit(J::NanIgnoresParity) => "jit-nan-ignores-parity",
            Mutation::Jit(J::BoundsCheckLe) => "jit-bounds-check-le",
            Mutation::Jit(J::SpillSlotShared) => "jit-spill-slot-shared",
            Mutation::Jit(J::ShiftCountMasked) => "jit-shift-count-masked",
            Mutation::Jit(J::DivMinTraps) => "jit-div-min-traps",
            Mutation::Jit(J::EpilogueOffByEight) => "jit-epilogue-off-by-eight",
        }
    }

    /// Whether only the jit engine carries this bug.
    pub fn is_jit(self) -> bool {
        matches!(self, Mutation::Jit(_))
    }

    pub fn from_name(name: &str) -> Option<Mutation> {
        Mutation::ALL.into_iter().find(|m| m.name() == name)
    }

    fn bit(self) -> u32 {
        let i = Mutation::ALL.iter().position(|m| *m == self).expect("in ALL");
        1 << i
    }
}

/// A set of planted bugs (a tiny bitflag set).
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

    pub fn without(self, m: Mutation) -> Mutations {
        Mutations(self.0 & !m.bit())
    }

    pub fn is_empty(self) -> bool {
        self.0 == 0
    }

    /// The jit's planted bugs of this set, for `spy_jit::CompileOptions`.
    pub fn jit(self) -> spy_jit::Mutations {
        Mutation::ALL
            .iter()
            .fold(spy_jit::Mutations::NONE, |acc, m| match m {
                Mutation::Jit(j) if self.has(*m) => acc.with(*j),
                _ => acc,
            })
    }

    /// The set as bits (one per `Mutation`, in `Mutation::ALL` order), for
    /// sending it to a worker process.
    pub fn bits(self) -> u32 {
        self.0
    }

    /// The set of `bits` (unknown bits are dropped).
    pub fn from_bits(bits: u32) -> Mutations {
        Mutations(bits & Mutation::ALL.iter().fold(0, |a, m| a | m.bit()))
    }
}

impl From<Mutation> for Mutations {
    fn from(m: Mutation) -> Mutations {
        Mutations::NONE.with(m)
    }
}

impl Interp<'_> {
    /// Count one step; fails when the fuel is exhausted.
    pub(crate) fn tick(&mut self) -> Result<(), Failure> {
        self.steps += 1;
        match self.limits.max_steps {
            Some(max) if self.steps > max => Err(SpyError::new(
                ExcKind::StepLimitError,
                format!("execution exceeded the step limit ({max} steps)"),
            )
            .into()),
            _ => Ok(()),
        }
    }

    /// A string of `len` bytes may be built: within `max_str_bytes`
    /// (OverflowError) and within the memory budget (MemoryError).
    pub(crate) fn check_str_len(
        &self,
        f: &crate::frames::Frame,
        len: usize,
        range: crate::source::TextRange,
    ) -> Result<(), Failure> {
        self.check_str_growth(f, len, len, range)
    }

    /// A string grows to `len` bytes, `growth` of them new (an append in
    /// place: the rest is counted already).
    pub(crate) fn check_str_growth(
        &self,
        f: &crate::frames::Frame,
        len: usize,
        growth: usize,
        range: crate::source::TextRange,
    ) -> Result<(), Failure> {
        if len > self.limits.max_str_bytes {
            return Err(SpyError::from(crate::vm::rt_error::RuntimeError::StrTooLong {
                limit: self.limits.max_str_bytes as u64,
            })
            .with_error(&f.file, range, "this string would be too long")
            .into());
        }
        self.check_memory(f, growth as u64, range)
    }

    /// `bytes` more (a new string, a list's new item) fit in what the
    /// memory budget has left after the live pointer memory, strings and
    /// list items (`vm::memory`).
    pub(crate) fn check_memory(
        &self,
        f: &crate::frames::Frame,
        bytes: u64,
        range: crate::source::TextRange,
    ) -> Result<(), Failure> {
        let live = self
            .meter
            .used()
            .saturating_add(crate::vm::memory::live_heap_bytes());
        if live.saturating_add(bytes) <= self.limits.max_memory {
            return Ok(());
        }
        Err(self.memory_error(f, bytes, range))
    }

    /// `MemoryError` for an object of `bytes` at `range`.
    pub(crate) fn memory_error(
        &self,
        f: &crate::frames::Frame,
        bytes: u64,
        range: crate::source::TextRange,
    ) -> Failure {
        SpyError::from(crate::vm::rt_error::RuntimeError::MemoryLimit {
            limit: self.limits.max_memory,
        })
        .with_error(&f.file, range, format!("this needs {bytes} bytes"))
        .into()
    }

    /// Enter a function activation; fails past the depth limit.
    pub(crate) fn enter_call(&mut self) -> Result<(), Failure> {
        // The native stack may run short before `max_depth` when calls are
        // deep in expressions (`native_stack`): the same error, earlier.
        if self.depth >= self.limits.max_depth || crate::native_stack::exhausted() {
            return Err(SpyError::from(crate::vm::rt_error::RuntimeError::RecursionDepth).into());
        }
        self.depth += 1;
        Ok(())
    }

    pub(crate) fn leave_call(&mut self) {
        self.depth -= 1;
    }
}
