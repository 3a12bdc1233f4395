//! Swarm configuration of the program generator: each program enables a
//! random subset of the language features and random size limits
//! (wasm-smith's `SwarmConfig` idea: a generator that may use everything
//! produces programs that use a little of everything; switching whole
//! features off makes the rest denser and finds more). `GenConfig` is
//! itself `Arbitrary`, so it is read from the head of the input bytes.

use arbitrary::{Arbitrary, Unstructured};

/// One language feature the generator can exercise (and tracks for
/// coverage statistics).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Feature {
    /// i8, u8, u32, i64, u64 values (i32, f64, bool, str are always on).
    SmallInts,
    WideInts,
    F32,
    Str,
    StaticTuples,
    Structs,
    /// Wrapping, shifts, `**`, floor division and modulo with edge values.
    ArithEdges,
    /// Run-time errors on purpose, at a low rate: a divisor that may be
    /// zero, a float `**` that may overflow, a pointer index out of bounds.
    DivZero,
    Conversions,
    IfElse,
    While,
    ForRange,
    Recursion,
    UnrollRange,
    /// `*e` in calls, tuple displays and subscripts.
    Splats,
    /// `*(e for i in UNROLL_RANGE(n))`.
    SpliceUnroll,
    /// `*args: (T0, T1, ...)`.
    Packs,
    BlueFuncs,
    /// PEP 695 `def f[T](...)` and `@blue.generic`.
    Generics,
    Metafuncs,
    /// `if K: ... else: <ill-typed>` with a blue condition.
    BlueDeadBranches,
    ForceInline,
    GcPtr,
    Simd,
    ModuleVars,
    /// i32 operands of `and`/`or` (converted to bool).
    IntBoolOps,
    /// Implicit conversions of a `@force_inline` function's arguments and
    /// result.
    InlineConversions,
    /// Side-effecting arguments of a metafunc whose OpSpec passes them in
    /// another order (`OpSpec(f, [m_b, m_a])`).
    ReorderedMetaArgs,
    /// PEP 695 generic structs (`@struct class GS[T]:`), their instances
    /// as types (`GS[i32]`, `GS[S0]`), `Self` and methods returning it.
    GenericStructs,
    /// Operator dunders on structs: arithmetic and comparison operators,
    /// `__getitem__`, `__call__`, `__len__`, `__contains__`.
    StructDunders,
    /// `__spy__.COLOR` and `__spy__.STATIC_TYPE` of side-effect-free
    /// expressions.
    ColorStaticType,
    /// Struct dunders written as metafuncs (`@blue.metafunc def
    /// __add__(m_self, m_other): ... return OpSpec(impl, ...)`) in each
    /// OpSpec form: simple, explicit list, reordered, blue `MetaArg`,
    /// dispatch on `m_other.static_type` with `OpSpec.NULL` fallback.
    MetaDunders,
    /// Conversion hooks `__convert_to__`/`__convert_from__` on structs
    /// (metafuncs dispatching on `m_expT`/`m_gotT`, or plain functions),
    /// used by implicit conversions: arguments, typed locals, assignments,
    /// returns.
    ConvertHooks,
    /// Every comparison of red values of one scalar type at its edges
    /// (sign bit, width, NaN, ±0.0, ±inf, subnormals): `gen/backend.rs`.
    CmpEdges,
    /// Shift counts at and beyond the width, `//` and `%` by -1.
    ShiftEdges,
    /// 8-12 mixed integer/float parameters live across a call.
    RegPressure,
    /// Blue float computations that fold to `-0.0` (and NaN from `inf -
    /// inf`), their results printed and used by red code where the sign
    /// is observable: `gen/backend.rs`.
    SignedZeros,
    /// A long loop with many loop-carried values of mixed types.
    LoopCarried,
    /// Buffers of scalars and of structs indexed by computed indices in
    /// loops (out of bounds at the configured error rate).
    PtrArrays,
    /// SIMD kernels over every lane type (`i32 i64 f32 f64`) and width
    /// (1-16): lane-wise arithmetic, comparisons to masks, broadcasts,
    /// lane reads, loads and stores in and out of bounds (`gen/simd.rs`).
    SimdLanes,
    /// Recursion bounded by a depth parameter with several values of
    /// mixed types live across the recursive call(s), combined after
    /// (`gen/recursion.rs`).
    RecursionLive,
    /// `__setitem__` on structs, called by `s[i] = v`.
    SetItem,
    /// `__str__` on structs, used by `print(s)` and `str(s)`.
    StructStr,
    /// `@blue.generic def GP(T, U[, V])` returning a struct class.
    GenericPairs,
}

impl Feature {
    pub const ALL: [Feature; 44] = [
        Feature::SmallInts,
        Feature::WideInts,
        Feature::F32,
        Feature::Str,
        Feature::StaticTuples,
        Feature::Structs,
        Feature::ArithEdges,
        Feature::DivZero,
        Feature::Conversions,
        Feature::IfElse,
        Feature::While,
        Feature::ForRange,
        Feature::Recursion,
        Feature::UnrollRange,
        Feature::Splats,
        Feature::SpliceUnroll,
        Feature::Packs,
        Feature::BlueFuncs,
        Feature::Generics,
        Feature::Metafuncs,
        Feature::BlueDeadBranches,
        Feature::ForceInline,
        Feature::GcPtr,
        Feature::Simd,
        Feature::ModuleVars,
        Feature::IntBoolOps,
        Feature::InlineConversions,
        Feature::ReorderedMetaArgs,
        Feature::GenericStructs,
        Feature::StructDunders,
        Feature::ColorStaticType,
        Feature::MetaDunders,
        Feature::ConvertHooks,
        Feature::CmpEdges,
        Feature::ShiftEdges,
        Feature::RegPressure,
        Feature::SignedZeros,
        Feature::LoopCarried,
        Feature::PtrArrays,
        Feature::SimdLanes,
        Feature::RecursionLive,
        Feature::SetItem,
        Feature::StructStr,
        Feature::GenericPairs,
    ];

    pub fn name(self) -> &'static str {
        match self {
            Feature::SmallInts => "small-ints",
            Feature::WideInts => "wide-ints",
            Feature::F32 => "f32",
            Feature::Str => "str",
            Feature::StaticTuples => "tuples",
            Feature::Structs => "structs",
            Feature::ArithEdges => "arith-edges",
            Feature::DivZero => "div-zero",
            Feature::Conversions => "conversions",
            Feature::IfElse => "if",
            Feature::While => "while",
            Feature::ForRange => "for-range",
            Feature::Recursion => "recursion",
            Feature::UnrollRange => "unroll",
            Feature::Splats => "splats",
            Feature::SpliceUnroll => "splice-unroll",
            Feature::Packs => "packs",
            Feature::BlueFuncs => "blue-funcs",
            Feature::Generics => "generics",
            Feature::Metafuncs => "metafuncs",
            Feature::BlueDeadBranches => "blue-dead-branches",
            Feature::ForceInline => "force-inline",
            Feature::GcPtr => "gc-ptr",
            Feature::Simd => "simd",
            Feature::ModuleVars => "module-vars",
            Feature::IntBoolOps => "int-bool-ops",
            Feature::InlineConversions => "inline-conversions",
            Feature::ReorderedMetaArgs => "reordered-meta-args",
            Feature::GenericStructs => "generic-structs",
            Feature::StructDunders => "struct-dunders",
            Feature::ColorStaticType => "color-static-type",
            Feature::MetaDunders => "meta-dunders",
            Feature::ConvertHooks => "convert-hooks",
            Feature::CmpEdges => "cmp-edges",
            Feature::ShiftEdges => "shift-edges",
            Feature::RegPressure => "reg-pressure",
            Feature::SignedZeros => "signed-zeros",
            Feature::LoopCarried => "loop-carried",
            Feature::PtrArrays => "ptr-arrays",
            Feature::SimdLanes => "simd-lanes",
            Feature::RecursionLive => "recursion-live",
            Feature::SetItem => "setitem",
            Feature::StructStr => "struct-str",
            Feature::GenericPairs => "generic-pairs",
        }
    }

    pub fn from_name(name: &str) -> Option<Feature> {
        Feature::ALL.into_iter().find(|f| f.name() == name)
    }

    fn bit(self) -> u64 {
        1 << self as u32
    }
}

/// A set of features (bit set).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct FeatureSet(pub u64);

impl FeatureSet {
    pub const EMPTY: FeatureSet = FeatureSet(0);

    pub fn all() -> FeatureSet {
        Feature::ALL.iter().fold(FeatureSet::EMPTY, |s, f| s.with(*f))
    }

    pub fn has(self, f: Feature) -> bool {
        self.0 & f.bit() != 0
    }

    pub fn with(self, f: Feature) -> FeatureSet {
        FeatureSet(self.0 | f.bit())
    }

    pub fn without(self, f: Feature) -> FeatureSet {
        FeatureSet(self.0 & !f.bit())
    }

    pub fn insert(&mut self, f: Feature) {
        *self = self.with(f);
    }

    pub fn union(self, o: FeatureSet) -> FeatureSet {
        FeatureSet(self.0 | o.0)
    }

    pub fn intersect(self, o: FeatureSet) -> FeatureSet {
        FeatureSet(self.0 & o.0)
    }

    pub fn iter(self) -> impl Iterator<Item = Feature> {
        Feature::ALL.into_iter().filter(move |f| self.has(*f))
    }

    pub fn len(self) -> usize {
        self.0.count_ones() as usize
    }

    pub fn is_empty(self) -> bool {
        self.0 == 0
    }

    /// `a,b,c` names.
    pub fn names(self) -> String {
        self.iter().map(|f| f.name()).collect::<Vec<_>>().join(",")
    }

    /// Parse `a,b,c` (an unknown name is an error).
    pub fn parse(list: &str) -> Result<FeatureSet, String> {
        let mut s = FeatureSet::EMPTY;
        for name in list.split(',').map(str::trim).filter(|n| !n.is_empty()) {
            let f = Feature::from_name(name).ok_or_else(|| {
                let all: Vec<_> = Feature::ALL.iter().map(|f| f.name()).collect();
                format!("unknown feature `{name}` (known: {})", all.join(", "))
            })?;
            s.insert(f);
        }
        Ok(s)
    }
}

/// What one generated program may use, and how big it may get.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct GenConfig {
    pub features: FeatureSet,
    /// Red helper functions before `main` (0..=max).
    pub max_funcs: u8,
    /// Statements per block (before nesting).
    pub max_stmts: u8,
    /// Expression nesting depth.
    pub max_expr_depth: u8,
    /// Block nesting depth.
    pub max_block_depth: u8,
    /// Per-mille chance that a division's divisor is not guarded.
    pub div_zero_permille: u16,
}

impl GenConfig {
    /// Everything on, medium sizes (used when no swarm choice is wanted).
    pub fn full() -> GenConfig {
        GenConfig {
            features: FeatureSet::all(),
            max_funcs: 5,
            max_stmts: 6,
            max_expr_depth: 3,
            max_block_depth: 2,
            div_zero_permille: 5,
        }
    }

    /// Keep only `allowed` features (the CLI's `--features`/`--without`).
    pub fn restrict(mut self, allowed: FeatureSet) -> GenConfig {
        self.features = self.features.intersect(allowed);
        self
    }
}

impl<'a> Arbitrary<'a> for GenConfig {
    fn arbitrary(u: &mut Unstructured<'a>) -> arbitrary::Result<Self> {
        // A fixed number of bytes, whatever the values (the same input
        // always decodes the same way).
        let mut features = FeatureSet::EMPTY;
        for f in Feature::ALL {
            // Each feature is on with probability 3/4: programs mix many
            // features, yet every subset is reachable.
            if u.int_in_range(0u8..=3)? != 0 {
                features.insert(f);
            }
        }
        Ok(GenConfig {
            features,
            max_funcs: u.int_in_range(0..=6)?,
            max_stmts: u.int_in_range(2..=8)?,
            max_expr_depth: u.int_in_range(1..=4)?,
            max_block_depth: u.int_in_range(1..=3)?,
            div_zero_permille: *u.choose(&[0, 2, 10, 50])?,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip() {
        for f in Feature::ALL {
            assert_eq!(Feature::from_name(f.name()), Some(f));
        }
        let s = FeatureSet::parse("simd,packs").unwrap();
        assert_eq!(s.names(), "packs,simd");
        assert!(FeatureSet::parse("nope").is_err());
    }

    #[test]
    fn config_from_empty_input() {
        let c = GenConfig::arbitrary(&mut Unstructured::new(&[])).unwrap();
        assert!(c.max_stmts >= 2);
    }
}
