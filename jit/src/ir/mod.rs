//! The typed, structured IR: what the lowering from SPy's residual module
//! produces and what both the reference evaluator ([`eval`]) and the x86-64
//! backend consume.
//!
//! Naming legend (used throughout the crate):
//! - `v`, `a`, `b`: a [`VReg`] (a virtual register: a source local or a temporary);
//! - `ty`: a [`Ty`]; `w`: a [`Word`] (a 64-bit bit pattern);
//! - `f`: a [`FuncId`]; `h`: a [`HelperId`]; `site`: a [`SiteId`].
//!
//! Values are 64-bit words in a *canonical* form: signed integers are
//! sign-extended from their width, unsigned integers and `Bool` (0 or 1) are
//! zero-extended, `F32` is its IEEE bits zero-extended, `F64` its bits.
//! `Ptr` is a raw address (0 is null); the length of the buffer it points to
//! is a separate `U64`/`I64` value passed next to it, so a SPy (base, len)
//! pair is two IR values. `Handle` is an opaque 64-bit word owned by runtime
//! helpers (str/list handles).
//!
//! Control flow is structured (`If`, `Loop`, `Break`, `Continue`, `Return`);
//! `Break`/`Continue` refer to the innermost loop. Locals are mutable virtual
//! registers (assigned any number of times); temporaries are defined once, and
//! their definition must come before every use in an enclosing block.

mod builder;
pub mod eval;
pub mod print;
pub mod sem;
pub mod vector;
mod verify;
pub mod visit;

pub use builder::{FunctionBuilder, ModuleBuilder};
pub use vector::{Lane, VecTy};
pub use verify::{verify, VerifyError};

use std::fmt;
use std::num::NonZeroU32;

/// A value's bits. Floats travel as their IEEE bits (`F32` zero-extended).
pub type Word = u64;

/// The type of a virtual register.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Ty {
    I8,
    U8,
    I32,
    U32,
    I64,
    U64,
    F32,
    F64,
    /// 0 or 1.
    Bool,
    /// A raw address; 0 is null. Loads and stores take a length next to it.
    Ptr,
    /// An opaque word for runtime-managed objects (str, list).
    Handle,
    /// A vector of lanes (`SIMD[T, N]`), see [`vector`]: not a word; it
    /// lives in frame memory, is never a parameter, result or call argument.
    Vec(VecTy),
}

/// The register class a type lives in.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Class {
    /// General-purpose registers: integers, `Bool`, `Ptr`, `Handle`.
    Int,
    /// SSE registers: `F32`, `F64`.
    Float,
    /// Vectors: a run of frame slots, never a register.
    Vector,
}

impl Ty {
    /// Every type, in declaration order (for tests and fuzzers).
    pub const ALL: [Ty; 11] = [
        Ty::I8,
        Ty::U8,
        Ty::I32,
        Ty::U32,
        Ty::I64,
        Ty::U64,
        Ty::F32,
        Ty::F64,
        Ty::Bool,
        Ty::Ptr,
        Ty::Handle,
    ];
    /// The integer types (arithmetic, division, shifts).
    pub const INTS: [Ty; 6] = [Ty::I8, Ty::U8, Ty::I32, Ty::U32, Ty::I64, Ty::U64];

    pub fn is_int(self) -> bool {
        matches!(self, Ty::I8 | Ty::U8 | Ty::I32 | Ty::U32 | Ty::I64 | Ty::U64)
    }
    pub fn is_signed(self) -> bool {
        matches!(self, Ty::I8 | Ty::I32 | Ty::I64)
    }
    pub fn is_float(self) -> bool {
        matches!(self, Ty::F32 | Ty::F64)
    }
    pub fn class(self) -> Class {
        if matches!(self, Ty::Vec(_)) {
            Class::Vector
        } else if self.is_float() {
            Class::Float
        } else {
            Class::Int
        }
    }
    /// Width in bits of the value (Bool counts as 8, Ptr/Handle as 64).
    pub fn bits(self) -> u32 {
        match self {
            Ty::I8 | Ty::U8 | Ty::Bool => 8,
            Ty::I32 | Ty::U32 | Ty::F32 => 32,
            Ty::I64 | Ty::U64 | Ty::F64 | Ty::Ptr | Ty::Handle => 64,
            Ty::Vec(v) => v.bytes() * 8,
        }
    }
    /// Size in bytes of one element in memory (loads and stores).
    pub fn size(self) -> u32 {
        self.bits() / 8
    }
}

impl fmt::Display for Ty {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let s = match self {
            Ty::I8 => "i8",
            Ty::U8 => "u8",
            Ty::I32 => "i32",
            Ty::U32 => "u32",
            Ty::I64 => "i64",
            Ty::U64 => "u64",
            Ty::F32 => "f32",
            Ty::F64 => "f64",
            Ty::Bool => "bool",
            Ty::Ptr => "ptr",
            Ty::Handle => "handle",
            Ty::Vec(v) => return write!(f, "{v}"),
        };
        f.write_str(s)
    }
}

/// A virtual register of one function (index into [`Function::vregs`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct VReg(pub u32);

impl VReg {
    pub fn index(self) -> usize {
        self.0 as usize
    }
}

impl fmt::Display for VReg {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "v{}", self.0)
    }
}

/// Whether a virtual register is a mutable local or a single-definition temporary.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum VRegKind {
    /// A source local (parameters are locals): assigned any number of times;
    /// must be definitely assigned before it is read.
    Local,
    /// Defined exactly once, before every use, in the same or an enclosing block.
    Temp,
}

/// Declaration of one virtual register.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct VRegInfo {
    pub ty: Ty,
    pub kind: VRegKind,
}

/// A function of the module (index into [`Module::functions`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct FuncId(pub u32);

/// A runtime helper of the module (index into [`Module::helpers`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct HelperId(pub u32);

/// A call site, chosen by the IR builder; an error unwinding through a call
/// appends the call's site to the traceback.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct SiteId(pub u32);

/// An error code, opaque to this crate (the front end maps its error enum to
/// codes). Never 0: the machine code uses 0 for "no error pending".
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct ErrCode(pub NonZeroU32);

impl ErrCode {
    /// `ErrCode::new(0)` is `None`.
    pub fn new(code: u32) -> Option<ErrCode> {
        NonZeroU32::new(code).map(ErrCode)
    }
    pub fn get(self) -> u32 {
        self.0.get()
    }
}

/// Unary operators.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum UnOp {
    /// Integers: wrapping negation. Floats: flip the sign bit.
    Neg,
    /// Integers: bitwise not. Bool: logical not.
    Not,
}

/// Binary operators that cannot fail.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum BinOp {
    /// Integers: wrapping at the type's width. Floats: IEEE (never fused).
    Add,
    Sub,
    Mul,
    /// Integers and Bool only.
    And,
    Or,
    Xor,
}

/// Shift operators. `Shr` is arithmetic for signed types, logical otherwise.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ShiftOp {
    Shl,
    Shr,
}

/// Comparisons; signedness (or float ordering) comes from the operand type.
/// Float comparisons with a NaN operand are false, except `Ne` (true).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum CmpOp {
    Eq,
    Ne,
    Lt,
    Le,
    Gt,
    Ge,
}

impl CmpOp {
    pub const ALL: [CmpOp; 6] = [CmpOp::Eq, CmpOp::Ne, CmpOp::Lt, CmpOp::Le, CmpOp::Gt, CmpOp::Ge];
}

/// An operation producing one value (the destination of [`Stmt::Assign`]).
/// The result type is the destination's declared type; see [`verify`] for the
/// typing rules.
#[derive(Clone, Debug, PartialEq)]
pub enum Op {
    /// A constant, given in canonical form for the destination type.
    Const(Word),
    /// Copy of a value of the same type (local get/set).
    Copy(VReg),
    Unary(UnOp, VReg),
    Binary(BinOp, VReg, VReg),
    /// Integer floor division (Python `//`): rounds toward negative infinity.
    /// `MIN // -1` wraps to `MIN`. Division by zero raises `on_zero` with
    /// operands (a, b).
    FloorDiv {
        a: VReg,
        b: VReg,
        on_zero: ErrCode,
    },
    /// Integer floor modulo (Python `%`): the result has the sign of `b`.
    /// Modulo by zero raises `on_zero` with operands (a, b).
    FloorMod {
        a: VReg,
        b: VReg,
        on_zero: ErrCode,
    },
    /// Float division. Division by (either) zero raises `on_zero` with the
    /// operands' bits (a, b), as SPy's `float division by zero`.
    FDiv {
        a: VReg,
        b: VReg,
        on_zero: ErrCode,
    },
    /// Shift of an integer `a` by `b` (same type). A negative count raises
    /// `on_negative` with operands (a, b). A count >= the width gives 0 for
    /// `Shl` and logical `Shr`, and the sign fill (0 or all ones) for
    /// arithmetic `Shr` (see [`sem::shift`]).
    Shift {
        op: ShiftOp,
        a: VReg,
        b: VReg,
        on_negative: ErrCode,
    },
    /// Comparison; the destination is `Bool`.
    Cmp(CmpOp, VReg, VReg),
    /// Conversion to the destination type; see [`sem::convert`] for the rules.
    Convert(VReg),
    /// Load element `index` (`I64` or `U64`) of the destination's type from
    /// the buffer at `ptr` with `len` elements. A null `ptr` raises `on_null`
    /// with operands (0, index); `index >= len` (unsigned) raises `on_oob`
    /// with operands (index, len).
    ///
    /// A vector destination (`SIMD[T, N]`, `ptr_simd_load`) reads the `n`
    /// lane elements `index .. index + n` of the lane type: the bounds check
    /// covers the whole run (`index >= len || len - index < n`, unsigned,
    /// so a negative index fails), with the same operands.
    ///
    /// `checked: false` (made only by `opt::versioning`, which proved the
    /// access non-null and in bounds before the loop, and `opt::memo`, when
    /// an earlier check of the same registers covers it) drops both checks
    /// from the machine code; [`eval`] still checks and reports a failed
    /// proof as the internal error.
    Load {
        ptr: VReg,
        len: VReg,
        index: VReg,
        on_null: ErrCode,
        on_oob: ErrCode,
        checked: bool,
    },
    /// Vector ops (the destination or the operands are [`Ty::Vec`]); see
    /// [`vector`] for their semantics.
    Vector(VOp),
}

impl Op {
    /// An operation with no effect but its result (it cannot raise, read
    /// or write memory, or call): removable when unused, movable when its
    /// operands are invariant.
    pub fn is_pure(&self) -> bool {
        matches!(
            self,
            Op::Const(_)
                | Op::Copy(_)
                | Op::Unary(..)
                | Op::Binary(..)
                | Op::Cmp(..)
                | Op::Convert(_)
                | Op::Vector(
                    VOp::Splat(_)
                        | VOp::Build(_)
                        | VOp::Lane(..)
                        | VOp::Binary(..)
                        | VOp::Cmp(..)
                        | VOp::Convert(_)
                )
        )
    }
}

/// An operation on vectors (lane-wise unless said otherwise).
#[derive(Clone, Debug, PartialEq)]
pub enum VOp {
    /// Every lane is the scalar `a` (of the lane type).
    Splat(VReg),
    /// Lane `i` is `lanes[i]` (each of the lane type, one per lane).
    Build(Vec<VReg>),
    /// The scalar lane `k` of vector `a` (`k` below the lane count).
    Lane(VReg, u8),
    /// `Add`, `Sub`, `Mul` lane by lane with the scalar rules of the lane
    /// type (integers wrap, floats IEEE).
    Binary(BinOp, VReg, VReg),
    /// Float lanes: lane-wise division; if any lane of `b` is ±0.0 nothing
    /// is written and `on_zero` is raised with operands (0, 0).
    FDiv { a: VReg, b: VReg, on_zero: ErrCode },
    /// Lane-wise comparison; the destination has `Bool` lanes.
    Cmp(CmpOp, VReg, VReg),
    /// Lane-wise conversion (`I32` lanes to `F64` lanes, exact).
    Convert(VReg),
}

/// A statement.
#[derive(Clone, Debug, PartialEq)]
pub enum Stmt {
    /// `dst = op`.
    Assign {
        dst: VReg,
        op: Op,
    },
    /// Store `value` as element `index` of the buffer (`ptr`, `len`); the
    /// element type is the value's type; checks as for [`Op::Load`]. A
    /// vector value writes its lanes as elements `index .. index + n` of
    /// the lane type, after the check of the whole run (nothing is written
    /// if it fails). `checked` as for [`Op::Load`].
    Store {
        ptr: VReg,
        len: VReg,
        index: VReg,
        value: VReg,
        on_null: ErrCode,
        on_oob: ErrCode,
        checked: bool,
    },
    /// Direct call of a function of the same module; `results` receive the
    /// callee's results. An error in the callee appends `site` to the
    /// traceback and propagates.
    Call {
        func: FuncId,
        args: Vec<VReg>,
        results: Vec<VReg>,
        site: SiteId,
    },
    /// Call of a runtime helper (`extern "C"`), with at most one result. An
    /// error raised by the helper appends `site` and propagates.
    CallHelper {
        helper: HelperId,
        args: Vec<VReg>,
        results: Vec<VReg>,
        site: SiteId,
    },
    /// Raise an error explicitly (e.g. an `assert` or a `raise`).
    Raise {
        code: ErrCode,
        operands: [Option<VReg>; 2],
    },
    If {
        cond: VReg,
        then_: Block,
        else_: Block,
    },
    Loop {
        body: Block,
    },
    /// Leave the innermost loop.
    Break,
    /// Go back to the head of the innermost loop.
    Continue,
    /// Return the values (the function's result types, in order).
    Return(Vec<VReg>),
    /// The start of an inlined call's body (see `opt::inline`): counts one
    /// activation against the depth limit exactly as a call's entry does
    /// (past the limit it raises the recursion error), and until the
    /// matching [`Stmt::InlineExit`] every error raised here appends `site`
    /// to the traceback, as unwinding through the call would. Enter and exit
    /// pair up in one block; no `Return` between them, and a `Break` or
    /// `Continue` between them only for a loop that is also between them.
    InlineEnter(SiteId),
    /// The end of the innermost open inlined call: the activation it
    /// counted ends (the depth is given back).
    InlineExit,
    /// A source position marker chosen by the front end (e.g. the source
    /// statement the following statements come from): no effect; the
    /// backend records where its code starts, for listings.
    Mark(u32),
}

/// A sequence of statements.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Block(pub Vec<Stmt>);

/// One function: its signature, its virtual registers and its body.
#[derive(Clone, Debug, PartialEq)]
pub struct Function {
    pub name: String,
    /// Parameter locals, in order (their types are the parameter types).
    pub params: Vec<VReg>,
    pub results: Vec<Ty>,
    pub vregs: Vec<VRegInfo>,
    pub body: Block,
}

impl Function {
    pub fn ty(&self, v: VReg) -> Ty {
        self.vregs[v.index()].ty
    }
    pub fn param_tys(&self) -> Vec<Ty> {
        self.param_tys_iter().collect()
    }
    /// [`Function::param_tys`] without the list.
    pub fn param_tys_iter(&self) -> impl Iterator<Item = Ty> + '_ {
        self.params.iter().map(|&p| self.ty(p))
    }
}

/// A runtime helper: an `extern "C"` function the machine code calls.
///
/// With `takes_ctx`, the helper receives a [`crate::runtime::CtxPtr`] as an extra first
/// argument, may raise errors through it and runs under the panic guard
/// pattern of [`crate::runtime::guard`]. Integer-class arguments are passed
/// as `u64` words in canonical form, floats as `f64`/`f32`.
#[derive(Clone, Debug, PartialEq)]
pub struct Helper {
    pub name: String,
    pub params: Vec<Ty>,
    pub result: Option<Ty>,
    /// Address of the `extern "C"` function.
    pub addr: usize,
    pub takes_ctx: bool,
}

/// A module: functions calling each other, and the helpers they call.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Module {
    pub functions: Vec<Function>,
    pub helpers: Vec<Helper>,
}

impl Module {
    pub fn function(&self, f: FuncId) -> &Function {
        &self.functions[f.0 as usize]
    }
    pub fn helper(&self, h: HelperId) -> &Helper {
        &self.helpers[h.0 as usize]
    }
    /// The function with this name, if any.
    pub fn find(&self, name: &str) -> Option<FuncId> {
        self.functions
            .iter()
            .position(|f| f.name == name)
            .map(|i| FuncId(i as u32))
    }

    /// Per function, whether a call from `root` can reach it (directly or
    /// through other functions; `root` itself is reached). A `Stmt::Call`
    /// is the only way to enter a function.
    pub fn reachable_from(&self, root: FuncId) -> Vec<bool> {
        let mut seen = vec![false; self.functions.len()];
        let mut todo = vec![root];
        seen[root.0 as usize] = true;
        while let Some(f) = todo.pop() {
            visit::walk(&self.function(f).body, &mut |s| {
                if let Stmt::Call { func, .. } = s {
                    if !seen[func.0 as usize] {
                        seen[func.0 as usize] = true;
                        todo.push(*func);
                    }
                }
            });
        }
        seen
    }
}

/// Most results a function may have; more than two of a class travel
/// through the context's return area (see the README's calling convention).
pub const MAX_RESULTS: usize = 16;

/// An error at run time, from the machine code or from [`eval`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RunError {
    pub code: ErrCode,
    /// Operand words of the failing operation (see each fallible op).
    pub operands: [Word; 2],
    /// Call sites the error unwound through, innermost first (at most
    /// [`TRACEBACK_CAP`]; `dropped_sites` counts the rest).
    pub traceback: Vec<SiteId>,
    pub dropped_sites: u32,
}

/// Capacity of the traceback recorded in the context.
pub const TRACEBACK_CAP: usize = 256;

impl fmt::Display for RunError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "error code {} (operands {:#x}, {:#x})",
            self.code.get(),
            self.operands[0],
            self.operands[1]
        )?;
        for s in &self.traceback {
            write!(f, " at site {}", s.0)?;
        }
        Ok(())
    }
}

impl std::error::Error for RunError {}
