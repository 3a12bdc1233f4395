//! The x86-64 emitter: the only place in the crate that writes machine
//! instructions. Every instruction form is one variant of [`Inst`]; each
//! variant has exactly one `dynasm!` arm in [`encode`] and one Intel-syntax
//! rendering in [`Inst::render`] (the encoding tests decode the bytes with
//! iced-x86 and compare the two).
//!
//! The form set is deliberately small. Its only VEX forms are the 256-bit
//! vector forms of [`Inst::VLoad`]/[`Inst::VStore`] (`vmovdqu`),
//! [`Inst::Vpk`] (three-register AVX/AVX2 arithmetic), [`Inst::Vcvtdq2pd`],
//! [`Inst::Vmovaps`] (`ymm` to `ymm`)
//! and [`Inst::Vzeroupper`], each round-tripped through iced-x86 by the
//! tests; see [`KNOWN_MISENCODED`] for the dynasm 5.x forms that must never
//! be added.

use dynasmrt::x64::X64Relocation;
use dynasmrt::{dynasm, DynamicLabel, DynasmLabelApi};
use std::fmt::Write as _;

/// A general-purpose register, by hardware number (0 = rax … 15 = r15).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Gpr(pub u8);

/// An SSE register, by number (0 = xmm0 … 15 = xmm15).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Xmm(pub u8);

pub const RAX: Gpr = Gpr(0);
pub const RCX: Gpr = Gpr(1);
pub const RDX: Gpr = Gpr(2);
pub const RBX: Gpr = Gpr(3);
pub const RSP: Gpr = Gpr(4);
pub const RBP: Gpr = Gpr(5);
pub const RSI: Gpr = Gpr(6);
pub const RDI: Gpr = Gpr(7);
pub const R8: Gpr = Gpr(8);
pub const R9: Gpr = Gpr(9);
pub const R10: Gpr = Gpr(10);
pub const R11: Gpr = Gpr(11);
pub const R12: Gpr = Gpr(12);
pub const R13: Gpr = Gpr(13);
pub const R14: Gpr = Gpr(14);
pub const R15: Gpr = Gpr(15);

const NAMES64: [&str; 16] = [
    "rax", "rcx", "rdx", "rbx", "rsp", "rbp", "rsi", "rdi", "r8", "r9", "r10", "r11", "r12", "r13", "r14",
    "r15",
];
const NAMES32: [&str; 16] = [
    "eax", "ecx", "edx", "ebx", "esp", "ebp", "esi", "edi", "r8d", "r9d", "r10d", "r11d", "r12d", "r13d",
    "r14d", "r15d",
];
const NAMES8: [&str; 16] = [
    "al", "cl", "dl", "bl", "spl", "bpl", "sil", "dil", "r8b", "r9b", "r10b", "r11b", "r12b", "r13b", "r14b",
    "r15b",
];

impl Gpr {
    pub fn name64(self) -> &'static str {
        NAMES64[self.0 as usize]
    }
    pub fn name32(self) -> &'static str {
        NAMES32[self.0 as usize]
    }
    pub fn name8(self) -> &'static str {
        NAMES8[self.0 as usize]
    }
}

impl Xmm {
    pub fn name(self) -> String {
        format!("xmm{}", self.0)
    }
}

/// The name of the 256-bit register of `x`.
fn ymm(x: Xmm) -> String {
    format!("ymm{}", x.0)
}

/// Index scale of a memory operand.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Scale {
    S1,
    S4,
    S8,
}

impl Scale {
    fn factor(self) -> u8 {
        match self {
            Scale::S1 => 1,
            Scale::S4 => 4,
            Scale::S8 => 8,
        }
    }
}

/// A memory operand `[base + index*scale + disp]`. `rsp` cannot be an index.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Mem {
    pub base: Gpr,
    pub index: Option<(Gpr, Scale)>,
    pub disp: i32,
}

impl Mem {
    pub fn base(base: Gpr, disp: i32) -> Mem {
        Mem {
            base,
            index: None,
            disp,
        }
    }
    pub fn indexed(base: Gpr, index: Gpr, scale: Scale, disp: i32) -> Mem {
        assert_ne!(index, RSP, "rsp cannot be an index register");
        Mem {
            base,
            index: Some((index, scale)),
            disp,
        }
    }
    fn render(&self, size: &str) -> String {
        let mut s = if size.is_empty() {
            format!("[{}", self.base.name64())
        } else {
            format!("{size} ptr [{}", self.base.name64())
        };
        if let Some((i, sc)) = self.index {
            let _ = write!(s, "+{}", i.name64());
            if sc != Scale::S1 {
                let _ = write!(s, "*{}", sc.factor());
            }
        }
        match self.disp {
            0 => {}
            d if d < 0 => {
                let _ = write!(s, "-{:#x}", -(d as i64));
            }
            d => {
                let _ = write!(s, "+{d:#x}");
            }
        }
        s.push(']');
        s
    }
}

/// Condition codes (setcc/jcc).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Cc {
    E,
    Ne,
    L,
    Le,
    G,
    Ge,
    B,
    Be,
    A,
    Ae,
    S,
    Ns,
    P,
    Np,
}

impl Cc {
    pub const ALL: [Cc; 14] = [
        Cc::E,
        Cc::Ne,
        Cc::L,
        Cc::Le,
        Cc::G,
        Cc::Ge,
        Cc::B,
        Cc::Be,
        Cc::A,
        Cc::Ae,
        Cc::S,
        Cc::Ns,
        Cc::P,
        Cc::Np,
    ];
    fn suffix(self) -> &'static str {
        match self {
            Cc::E => "e",
            Cc::Ne => "ne",
            Cc::L => "l",
            Cc::Le => "le",
            Cc::G => "g",
            Cc::Ge => "ge",
            Cc::B => "b",
            Cc::Be => "be",
            Cc::A => "a",
            Cc::Ae => "ae",
            Cc::S => "s",
            Cc::Ns => "ns",
            Cc::P => "p",
            Cc::Np => "np",
        }
    }
}

/// Two-operand integer ALU operations (64-bit).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Alu {
    Add,
    Sub,
    And,
    Or,
    Xor,
    Cmp,
    Test,
}

impl Alu {
    pub const ALL: [Alu; 7] = [
        Alu::Add,
        Alu::Sub,
        Alu::And,
        Alu::Or,
        Alu::Xor,
        Alu::Cmp,
        Alu::Test,
    ];
    fn name(self) -> &'static str {
        match self {
            Alu::Add => "add",
            Alu::Sub => "sub",
            Alu::And => "and",
            Alu::Or => "or",
            Alu::Xor => "xor",
            Alu::Cmp => "cmp",
            Alu::Test => "test",
        }
    }
}

/// Shift operations (64-bit).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Sh {
    Shl,
    Shr,
    Sar,
}

impl Sh {
    pub const ALL: [Sh; 3] = [Sh::Shl, Sh::Shr, Sh::Sar];
    fn name(self) -> &'static str {
        match self {
            Sh::Shl => "shl",
            Sh::Shr => "shr",
            Sh::Sar => "sar",
        }
    }
}

/// Scalar SSE operations `op xmm, xmm`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Sse {
    Addsd,
    Subsd,
    Mulsd,
    Divsd,
    Addss,
    Subss,
    Mulss,
    Divss,
    Minsd,
    Maxsd,
    Ucomisd,
    Ucomiss,
    Xorpd,
    Cvtss2sd,
    Cvtsd2ss,
}

impl Sse {
    /// Operand size of the memory form.
    pub fn mem_size(self) -> &'static str {
        match self {
            Sse::Addss | Sse::Subss | Sse::Mulss | Sse::Divss | Sse::Ucomiss | Sse::Cvtss2sd => "dword",
            Sse::Xorpd => "xmmword",
            _ => "qword",
        }
    }

    pub const ALL: [Sse; 15] = [
        Sse::Addsd,
        Sse::Subsd,
        Sse::Mulsd,
        Sse::Divsd,
        Sse::Addss,
        Sse::Subss,
        Sse::Mulss,
        Sse::Divss,
        Sse::Minsd,
        Sse::Maxsd,
        Sse::Ucomisd,
        Sse::Ucomiss,
        Sse::Xorpd,
        Sse::Cvtss2sd,
        Sse::Cvtsd2ss,
    ];
    fn name(self) -> &'static str {
        match self {
            Sse::Addsd => "addsd",
            Sse::Subsd => "subsd",
            Sse::Mulsd => "mulsd",
            Sse::Divsd => "divsd",
            Sse::Addss => "addss",
            Sse::Subss => "subss",
            Sse::Mulss => "mulss",
            Sse::Divss => "divss",
            Sse::Minsd => "minsd",
            Sse::Maxsd => "maxsd",
            Sse::Ucomisd => "ucomisd",
            Sse::Ucomiss => "ucomiss",
            Sse::Xorpd => "xorpd",
            Sse::Cvtss2sd => "cvtss2sd",
            Sse::Cvtsd2ss => "cvtsd2ss",
        }
    }
}

/// Width of a vector load or store between memory and an SSE/AVX register.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum VW {
    /// `movd xmm, dword [m]` / `movd dword [m], xmm` (4 bytes)
    D,
    /// `movq xmm, qword [m]` / `movq qword [m], xmm` (8 bytes)
    Q,
    /// `movdqu xmm, [m]` (16 bytes)
    X,
    /// `vmovdqu ymm, [m]` (32 bytes, AVX)
    Y,
}

impl VW {
    pub const ALL: [VW; 4] = [VW::D, VW::Q, VW::X, VW::Y];
    pub fn bytes(self) -> u32 {
        match self {
            VW::D => 4,
            VW::Q => 8,
            VW::X => 16,
            VW::Y => 32,
        }
    }
}

/// Packed vector operations `op xmm, xmm` (legacy SSE encoding) and, as
/// [`Inst::Vpk`], `vop ymm, ymm, ymm` (VEX.256).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Pk {
    Addpd,
    Subpd,
    Mulpd,
    Divpd,
    Addps,
    Subps,
    Mulps,
    Divps,
    Paddd,
    Psubd,
    Paddq,
    Psubq,
    /// SSE4.1 (AVX2 for the 256-bit form)
    Pmulld,
    Pcmpeqd,
    Pcmpgtd,
    /// SSE4.1
    Pcmpeqq,
    /// SSE4.2
    Pcmpgtq,
    Xorps,
}

impl Pk {
    pub const ALL: [Pk; 18] = [
        Pk::Addpd,
        Pk::Subpd,
        Pk::Mulpd,
        Pk::Divpd,
        Pk::Addps,
        Pk::Subps,
        Pk::Mulps,
        Pk::Divps,
        Pk::Paddd,
        Pk::Psubd,
        Pk::Paddq,
        Pk::Psubq,
        Pk::Pmulld,
        Pk::Pcmpeqd,
        Pk::Pcmpgtd,
        Pk::Pcmpeqq,
        Pk::Pcmpgtq,
        Pk::Xorps,
    ];
    fn name(self) -> &'static str {
        match self {
            Pk::Addpd => "addpd",
            Pk::Subpd => "subpd",
            Pk::Mulpd => "mulpd",
            Pk::Divpd => "divpd",
            Pk::Addps => "addps",
            Pk::Subps => "subps",
            Pk::Mulps => "mulps",
            Pk::Divps => "divps",
            Pk::Paddd => "paddd",
            Pk::Psubd => "psubd",
            Pk::Paddq => "paddq",
            Pk::Psubq => "psubq",
            Pk::Pmulld => "pmulld",
            Pk::Pcmpeqd => "pcmpeqd",
            Pk::Pcmpgtd => "pcmpgtd",
            Pk::Pcmpeqq => "pcmpeqq",
            Pk::Pcmpgtq => "pcmpgtq",
            Pk::Xorps => "xorps",
        }
    }
}

/// The predicate of `cmppd`/`cmpps` (imm8).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Pred {
    Eq = 0,
    Lt = 1,
    Le = 2,
    /// Not equal or unordered (true on NaN).
    Neq = 4,
}

impl Pred {
    pub const ALL: [Pred; 4] = [Pred::Eq, Pred::Lt, Pred::Le, Pred::Neq];
    fn suffix(self) -> &'static str {
        match self {
            Pred::Eq => "eq",
            Pred::Lt => "lt",
            Pred::Le => "le",
            Pred::Neq => "neq",
        }
    }
}

/// Memory load forms (`dst` is a GPR).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LoadKind {
    /// `mov r64, qword [m]`
    Q,
    /// `mov r32, dword [m]` (zero-extends)
    D,
    /// `movsxd r64, dword [m]`
    Dsx,
    /// `movsx r64, byte [m]`
    Bsx,
    /// `movzx r32, byte [m]`
    Bzx,
}

/// Memory store forms (`src` is a GPR).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum StoreKind {
    Q,
    D,
    B,
}

/// One instruction form with its operands.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Inst {
    /// `mov r64, r64`
    MovRR(Gpr, Gpr),
    /// `mov r32, r32` (zero-extends)
    MovRR32(Gpr, Gpr),
    /// `mov r64, imm64` (movabs)
    MovRI64(Gpr, u64),
    /// `mov r32, imm32` (zero-extends)
    MovRI32(Gpr, u32),
    Load(LoadKind, Gpr, Mem),
    /// `lea r64, [m]` (three-operand add of a register and a register or a
    /// displacement)
    Lea(Gpr, Mem),
    Store(StoreKind, Mem, Gpr),
    /// `mov dword [m], imm32`
    StoreImm32(Mem, i32),
    /// `cmp dword [m], imm32`
    CmpMemImm32(Mem, i32),
    /// `op r64, r64`
    Alu(Alu, Gpr, Gpr),
    /// `op r64, imm32` (sign-extended; `Test` not allowed)
    AluI(Alu, Gpr, i32),
    /// `imul r64, r64`
    Imul(Gpr, Gpr),
    /// `imul r64, r64, imm32` (sign-extended)
    ImulI(Gpr, Gpr, i32),
    /// `neg r64`
    Neg(Gpr),
    /// `not r64`
    Not(Gpr),
    /// `cqo`
    Cqo,
    /// `idiv r64`
    Idiv(Gpr),
    /// `div r64`
    Div(Gpr),
    /// `mul r64` (unsigned: `rdx:rax = rax * r`)
    Mul(Gpr),
    /// `op r64, cl`
    ShiftCl(Sh, Gpr),
    /// `op r64, imm8`
    ShiftI(Sh, Gpr, u8),
    /// `movsx r64, r8`
    Movsx8(Gpr, Gpr),
    /// `movzx r32, r8`
    Movzx8(Gpr, Gpr),
    /// `movsxd r64, r32`
    Movsxd(Gpr, Gpr),
    /// `setcc r8`
    Setcc(Cc, Gpr),
    Push(Gpr),
    Pop(Gpr),
    Ret,
    /// `call r64`
    CallR(Gpr),
    /// `call rel32` to a label
    CallL(DynamicLabel),
    /// `jmp rel32`
    Jmp(DynamicLabel),
    /// `jcc rel32`
    Jcc(Cc, DynamicLabel),
    /// `movq xmm, r64`
    MovqXR(Xmm, Gpr),
    /// `movq r64, xmm`
    MovqRX(Gpr, Xmm),
    /// `movd xmm, r32`
    MovdXR(Xmm, Gpr),
    /// `movd r32, xmm`
    MovdRX(Gpr, Xmm),
    /// `movsd xmm, qword [m]`
    MovsdLoad(Xmm, Mem),
    /// `movsd qword [m], xmm`
    MovsdStore(Mem, Xmm),
    /// `movaps xmm, xmm`
    Movaps(Xmm, Xmm),
    /// `op xmm, xmm`
    Sse(Sse, Xmm, Xmm),
    /// `cvtsi2sd xmm, r64`
    Cvtsi2sd(Xmm, Gpr),
    /// `cvtsi2ss xmm, r64`
    Cvtsi2ss(Xmm, Gpr),
    /// `cvttsd2si r64, xmm`
    Cvttsd2si(Gpr, Xmm),
    /// Vector load of the given width (the rest of the register is zeroed
    /// for `D`/`Q`; `Y` writes the whole ymm).
    VLoad(VW, Xmm, Mem),
    VStore(VW, Mem, Xmm),
    /// `op xmm, xmm` (packed, legacy SSE encoding)
    Pk(Pk, Xmm, Xmm),
    /// `vop ymm, ymm, ymm` (VEX.256)
    Vpk(Pk, Xmm, Xmm, Xmm),
    /// `cmp<pred>pd xmm, xmm` (`true`) or `cmp<pred>ps xmm, xmm`
    Cmpp(Pred, bool, Xmm, Xmm),
    /// `movmskpd r32, xmm` (`true`) or `movmskps r32, xmm`
    Movmsk(bool, Gpr, Xmm),
    /// `cvtdq2pd xmm, xmm`
    Cvtdq2pd(Xmm, Xmm),
    /// `vcvtdq2pd ymm, xmm`
    Vcvtdq2pd(Xmm, Xmm),
    /// `vmovaps ymm, ymm` (VEX.256: a whole-register vector copy)
    Vmovaps(Xmm, Xmm),
    Vzeroupper,
    /// `op xmm, [rip + label]`: a constant of the pool (`qword` for the
    /// double forms, `dword` for the single ones; not `xorpd`).
    SseRip(Sse, Xmm, DynamicLabel),
    /// `movsd xmm, qword [rip + label]`
    MovsdRip(Xmm, DynamicLabel),
}

/// The shape of an [`Inst`], without operands (for coverage and the
/// known-bad check).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Form {
    MovRR,
    MovRR32,
    MovRI64,
    MovRI32,
    Load,
    Store,
    StoreImm32,
    CmpMemImm32,
    Alu,
    AluI,
    Imul,
    ImulI,
    Neg,
    Not,
    Cqo,
    Idiv,
    Div,
    Mul,
    ShiftCl,
    ShiftI,
    Movsx8,
    Movzx8,
    Movsxd,
    Setcc,
    Push,
    Pop,
    Ret,
    CallR,
    CallL,
    Jmp,
    Jcc,
    MovqXR,
    MovqRX,
    MovdXR,
    MovdRX,
    MovsdLoad,
    MovsdStore,
    Movaps,
    Sse,
    Cvtsi2sd,
    Cvtsi2ss,
    Cvttsd2si,
    VLoad,
    VStore,
    Pk,
    Vpk,
    Cmpp,
    Movmsk,
    Cvtdq2pd,
    Vcvtdq2pd,
    Vmovaps,
    Vzeroupper,
    SseRip,
    MovsdRip,
    Lea,
}

impl Form {
    pub const ALL: [Form; 55] = [
        Form::MovRR,
        Form::MovRR32,
        Form::MovRI64,
        Form::MovRI32,
        Form::Load,
        Form::Store,
        Form::StoreImm32,
        Form::CmpMemImm32,
        Form::Alu,
        Form::AluI,
        Form::Imul,
        Form::ImulI,
        Form::Neg,
        Form::Not,
        Form::Cqo,
        Form::Idiv,
        Form::Div,
        Form::Mul,
        Form::ShiftCl,
        Form::ShiftI,
        Form::Movsx8,
        Form::Movzx8,
        Form::Movsxd,
        Form::Setcc,
        Form::Push,
        Form::Pop,
        Form::Ret,
        Form::CallR,
        Form::CallL,
        Form::Jmp,
        Form::Jcc,
        Form::MovqXR,
        Form::MovqRX,
        Form::MovdXR,
        Form::MovdRX,
        Form::MovsdLoad,
        Form::MovsdStore,
        Form::Movaps,
        Form::Sse,
        Form::Cvtsi2sd,
        Form::Cvtsi2ss,
        Form::Cvttsd2si,
        Form::VLoad,
        Form::VStore,
        Form::Pk,
        Form::Vpk,
        Form::Cmpp,
        Form::Movmsk,
        Form::Cvtdq2pd,
        Form::Vcvtdq2pd,
        Form::Vmovaps,
        Form::Vzeroupper,
        Form::SseRip,
        Form::MovsdRip,
        Form::Lea,
    ];
}

/// dynasm 5.x forms known to be mis-encoded (mnemonic prefixes; see the
/// README). The emitter has no VEX forms at all; the test
/// `no_known_misencoded_form` keeps it that way.
pub const KNOWN_MISENCODED: &[&str] = &[
    "vfmadd",
    "vfmsub",
    "vfnmadd",
    "vfnmsub",
    "vfmaddsub",
    "vfmsubadd",
    "vgather",
    "vpgather",
    "vcmppd",
    "vcmpps",
    "vshufpd",
    "vshufps",
    "vblendpd",
    "vblendps",
    "vpblendd",
    "vpblendw",
    "vdpps",
    "vmpsadbw",
    "vpalignr",
    "vpsrlq",
];

impl Inst {
    pub fn form(&self) -> Form {
        match self {
            Inst::MovRR(..) => Form::MovRR,
            Inst::MovRR32(..) => Form::MovRR32,
            Inst::MovRI64(..) => Form::MovRI64,
            Inst::MovRI32(..) => Form::MovRI32,
            Inst::Load(..) => Form::Load,
            Inst::Lea(..) => Form::Lea,
            Inst::Store(..) => Form::Store,
            Inst::StoreImm32(..) => Form::StoreImm32,
            Inst::CmpMemImm32(..) => Form::CmpMemImm32,
            Inst::Alu(..) => Form::Alu,
            Inst::AluI(..) => Form::AluI,
            Inst::Imul(..) => Form::Imul,
            Inst::ImulI(..) => Form::ImulI,
            Inst::Neg(..) => Form::Neg,
            Inst::Not(..) => Form::Not,
            Inst::Cqo => Form::Cqo,
            Inst::Idiv(..) => Form::Idiv,
            Inst::Div(..) => Form::Div,
            Inst::Mul(..) => Form::Mul,
            Inst::ShiftCl(..) => Form::ShiftCl,
            Inst::ShiftI(..) => Form::ShiftI,
            Inst::Movsx8(..) => Form::Movsx8,
            Inst::Movzx8(..) => Form::Movzx8,
            Inst::Movsxd(..) => Form::Movsxd,
            Inst::Setcc(..) => Form::Setcc,
            Inst::Push(..) => Form::Push,
            Inst::Pop(..) => Form::Pop,
            Inst::Ret => Form::Ret,
            Inst::CallR(..) => Form::CallR,
            Inst::CallL(..) => Form::CallL,
            Inst::Jmp(..) => Form::Jmp,
            Inst::Jcc(..) => Form::Jcc,
            Inst::MovqXR(..) => Form::MovqXR,
            Inst::MovqRX(..) => Form::MovqRX,
            Inst::MovdXR(..) => Form::MovdXR,
            Inst::MovdRX(..) => Form::MovdRX,
            Inst::MovsdLoad(..) => Form::MovsdLoad,
            Inst::MovsdStore(..) => Form::MovsdStore,
            Inst::Movaps(..) => Form::Movaps,
            Inst::Sse(..) => Form::Sse,
            Inst::Cvtsi2sd(..) => Form::Cvtsi2sd,
            Inst::Cvtsi2ss(..) => Form::Cvtsi2ss,
            Inst::Cvttsd2si(..) => Form::Cvttsd2si,
            Inst::VLoad(..) => Form::VLoad,
            Inst::VStore(..) => Form::VStore,
            Inst::Pk(..) => Form::Pk,
            Inst::Vpk(..) => Form::Vpk,
            Inst::Cmpp(..) => Form::Cmpp,
            Inst::Movmsk(..) => Form::Movmsk,
            Inst::Cvtdq2pd(..) => Form::Cvtdq2pd,
            Inst::Vcvtdq2pd(..) => Form::Vcvtdq2pd,
            Inst::Vmovaps(..) => Form::Vmovaps,
            Inst::Vzeroupper => Form::Vzeroupper,
            Inst::SseRip(..) => Form::SseRip,
            Inst::MovsdRip(..) => Form::MovsdRip,
        }
    }

    /// The mnemonic (as the Intel formatter prints it).
    pub fn mnemonic(&self) -> String {
        self.render().split(' ').next().unwrap_or("").to_string()
    }

    /// Intel-syntax text, in the format the encoding tests configure iced's
    /// formatter to print. Branch targets print as `L<label id>`.
    pub fn render(&self) -> String {
        let hex = |v: i64| {
            if v < 0 {
                format!("-{:#x}", -(v as i128))
            } else {
                format!("{v:#x}")
            }
        };
        match *self {
            Inst::MovRR(d, s) => format!("mov {}, {}", d.name64(), s.name64()),
            Inst::MovRR32(d, s) => format!("mov {}, {}", d.name32(), s.name32()),
            Inst::MovRI64(d, i) => format!("mov {}, {}", d.name64(), hex(i as i64)),
            Inst::MovRI32(d, i) => format!("mov {}, {}", d.name32(), hex(i as i32 as i64)),
            Inst::Load(k, d, m) => match k {
                LoadKind::Q => format!("mov {}, {}", d.name64(), m.render("qword")),
                LoadKind::D => format!("mov {}, {}", d.name32(), m.render("dword")),
                LoadKind::Dsx => format!("movsxd {}, {}", d.name64(), m.render("dword")),
                LoadKind::Bsx => format!("movsx {}, {}", d.name64(), m.render("byte")),
                LoadKind::Bzx => format!("movzx {}, {}", d.name32(), m.render("byte")),
            },
            Inst::Lea(d, m) => format!("lea {}, {}", d.name64(), m.render("")),
            Inst::Store(k, m, s) => match k {
                StoreKind::Q => format!("mov {}, {}", m.render("qword"), s.name64()),
                StoreKind::D => format!("mov {}, {}", m.render("dword"), s.name32()),
                StoreKind::B => format!("mov {}, {}", m.render("byte"), s.name8()),
            },
            Inst::StoreImm32(m, i) => format!("mov {}, {}", m.render("dword"), hex(i.into())),
            Inst::CmpMemImm32(m, i) => format!("cmp {}, {}", m.render("dword"), hex(i.into())),
            Inst::Alu(op, d, s) => format!("{} {}, {}", op.name(), d.name64(), s.name64()),
            Inst::AluI(op, d, i) => format!("{} {}, {}", op.name(), d.name64(), hex(i.into())),
            Inst::Imul(d, s) => format!("imul {}, {}", d.name64(), s.name64()),
            // The decoder prints the two-operand alias when both registers agree.
            Inst::ImulI(d, s, i) if d == s => format!("imul {}, {}", d.name64(), hex(i.into())),
            Inst::ImulI(d, s, i) => format!("imul {}, {}, {}", d.name64(), s.name64(), hex(i.into())),
            Inst::Neg(r) => format!("neg {}", r.name64()),
            Inst::Not(r) => format!("not {}", r.name64()),
            Inst::Cqo => "cqo".into(),
            Inst::Idiv(r) => format!("idiv {}", r.name64()),
            Inst::Div(r) => format!("div {}", r.name64()),
            Inst::Mul(r) => format!("mul {}", r.name64()),
            Inst::ShiftCl(op, r) => format!("{} {}, cl", op.name(), r.name64()),
            Inst::ShiftI(op, r, i) => format!("{} {}, {}", op.name(), r.name64(), hex(i.into())),
            Inst::Movsx8(d, s) => format!("movsx {}, {}", d.name64(), s.name8()),
            Inst::Movzx8(d, s) => format!("movzx {}, {}", d.name32(), s.name8()),
            Inst::Movsxd(d, s) => format!("movsxd {}, {}", d.name64(), s.name32()),
            Inst::Setcc(cc, r) => format!("set{} {}", cc.suffix(), r.name8()),
            Inst::Push(r) => format!("push {}", r.name64()),
            Inst::Pop(r) => format!("pop {}", r.name64()),
            Inst::Ret => "ret".into(),
            Inst::CallR(r) => format!("call {}", r.name64()),
            Inst::CallL(l) => format!("call L{}", l.get_id()),
            Inst::Jmp(l) => format!("jmp L{}", l.get_id()),
            Inst::Jcc(cc, l) => format!("j{} L{}", cc.suffix(), l.get_id()),
            Inst::MovqXR(x, r) => format!("movq {}, {}", x.name(), r.name64()),
            Inst::MovqRX(r, x) => format!("movq {}, {}", r.name64(), x.name()),
            Inst::MovdXR(x, r) => format!("movd {}, {}", x.name(), r.name32()),
            Inst::MovdRX(r, x) => format!("movd {}, {}", r.name32(), x.name()),
            Inst::MovsdLoad(x, m) => format!("movsd {}, {}", x.name(), m.render("qword")),
            Inst::MovsdStore(m, x) => format!("movsd {}, {}", m.render("qword"), x.name()),
            Inst::Movaps(d, s) => format!("movaps {}, {}", d.name(), s.name()),
            Inst::Sse(op, d, s) => format!("{} {}, {}", op.name(), d.name(), s.name()),
            Inst::Cvtsi2sd(x, r) => format!("cvtsi2sd {}, {}", x.name(), r.name64()),
            Inst::Cvtsi2ss(x, r) => format!("cvtsi2ss {}, {}", x.name(), r.name64()),
            Inst::Cvttsd2si(r, x) => format!("cvttsd2si {}, {}", r.name64(), x.name()),
            Inst::VLoad(w, x, m) => match w {
                VW::D => format!("movd {}, {}", x.name(), m.render("dword")),
                VW::Q => format!("movq {}, {}", x.name(), m.render("qword")),
                VW::X => format!("movdqu {}, {}", x.name(), m.render("xmmword")),
                VW::Y => format!("vmovdqu {}, {}", ymm(x), m.render("ymmword")),
            },
            Inst::VStore(w, m, x) => match w {
                VW::D => format!("movd {}, {}", m.render("dword"), x.name()),
                VW::Q => format!("movq {}, {}", m.render("qword"), x.name()),
                VW::X => format!("movdqu {}, {}", m.render("xmmword"), x.name()),
                VW::Y => format!("vmovdqu {}, {}", m.render("ymmword"), ymm(x)),
            },
            Inst::Pk(op, d, s) => format!("{} {}, {}", op.name(), d.name(), s.name()),
            Inst::Vpk(op, d, a, b) => format!("v{} {}, {}, {}", op.name(), ymm(d), ymm(a), ymm(b)),
            Inst::Vmovaps(d, s) => format!("vmovaps {}, {}", ymm(d), ymm(s)),
            Inst::Cmpp(p, dbl, d, s) => {
                format!(
                    "cmp{}p{} {}, {}",
                    p.suffix(),
                    if dbl { "d" } else { "s" },
                    d.name(),
                    s.name()
                )
            }
            Inst::Movmsk(dbl, r, x) => {
                format!(
                    "movmskp{} {}, {}",
                    if dbl { "d" } else { "s" },
                    r.name32(),
                    x.name()
                )
            }
            Inst::Cvtdq2pd(d, s) => format!("cvtdq2pd {}, {}", d.name(), s.name()),
            Inst::Vcvtdq2pd(d, s) => format!("vcvtdq2pd {}, {}", ymm(d), s.name()),
            Inst::Vzeroupper => "vzeroupper".into(),
            Inst::SseRip(op, x, l) => format!(
                "{} {}, {} ptr [L{}]",
                op.name(),
                x.name(),
                op.mem_size(),
                l.get_id()
            ),
            Inst::MovsdRip(x, l) => format!("movsd {}, qword ptr [L{}]", x.name(), l.get_id()),
        }
    }

    /// The label, for branch forms and pool references.
    pub fn target(&self) -> Option<DynamicLabel> {
        match *self {
            Inst::CallL(l)
            | Inst::Jmp(l)
            | Inst::Jcc(_, l)
            | Inst::SseRip(_, _, l)
            | Inst::MovsdRip(_, l) => Some(l),
            _ => None,
        }
    }
}

/// An assembler the emitter can write into (the module's executable
/// [`dynasmrt::x64::Assembler`], or a `VecAssembler` in tests).
pub trait Target: DynasmLabelApi<Relocation = X64Relocation> {
    fn new_label(&mut self) -> DynamicLabel;
}

impl Target for dynasmrt::x64::Assembler {
    fn new_label(&mut self) -> DynamicLabel {
        self.new_dynamic_label()
    }
}

impl Target for dynasmrt::VecAssembler<X64Relocation> {
    fn new_label(&mut self) -> DynamicLabel {
        self.new_dynamic_label()
    }
}

/// Writes [`Inst`]s into a [`Target`], counting them.
pub struct Emitter<A: Target> {
    pub asm: A,
    pub count: usize,
    /// The register whose value ZF and SF describe: the destination of the
    /// last instruction, an `add`/`sub`/`and`/`or`/`xor`, when no label was
    /// bound after it (so every path here ran it).
    flags_of: Option<Gpr>,
}

/// `dynasm!` with a memory operand: one arm per addressing shape (index or
/// not, scale, disp8 or disp32), splicing `[$addr]` between `pre` and `post`.
macro_rules! with_mem {
    ($ops:expr, $m:expr, [$($pre:tt)*], [$($post:tt)*]) => {{
        let m: Mem = $m;
        let b = m.base.0;
        let d = m.disp;
        let short = i8::try_from(d).is_ok();
        let d8 = d as i8;
        match (m.index, short) {
            (None, true) => dynasm!($ops ; .arch x64 ; $($pre)* [BYTE Rq(b) + d8] $($post)*),
            (None, false) => dynasm!($ops ; .arch x64 ; $($pre)* [DWORD Rq(b) + d] $($post)*),
            (Some((i, Scale::S1)), true) => dynasm!($ops ; .arch x64 ; $($pre)* [BYTE Rq(b) + Rq(i.0) * 1 + d8] $($post)*),
            (Some((i, Scale::S1)), false) => dynasm!($ops ; .arch x64 ; $($pre)* [DWORD Rq(b) + Rq(i.0) * 1 + d] $($post)*),
            (Some((i, Scale::S4)), true) => dynasm!($ops ; .arch x64 ; $($pre)* [BYTE Rq(b) + Rq(i.0) * 4 + d8] $($post)*),
            (Some((i, Scale::S4)), false) => dynasm!($ops ; .arch x64 ; $($pre)* [DWORD Rq(b) + Rq(i.0) * 4 + d] $($post)*),
            (Some((i, Scale::S8)), true) => dynasm!($ops ; .arch x64 ; $($pre)* [BYTE Rq(b) + Rq(i.0) * 8 + d8] $($post)*),
            (Some((i, Scale::S8)), false) => dynasm!($ops ; .arch x64 ; $($pre)* [DWORD Rq(b) + Rq(i.0) * 8 + d] $($post)*),
        }
    }};
}

impl<A: Target> Emitter<A> {
    pub fn new(asm: A) -> Self {
        Emitter {
            asm,
            count: 0,
            flags_of: None,
        }
    }

    pub fn new_label(&mut self) -> DynamicLabel {
        self.asm.new_label()
    }

    /// Bind `l` to the current position.
    pub fn bind(&mut self, l: DynamicLabel) {
        self.flags_of = None;
        dynasm!(self.asm ; .arch x64 ; =>l);
    }

    /// The register whose value the flags ZF and SF describe here, if any
    /// (a `test r, r` would set them alike).
    pub fn flags_of(&self) -> Option<Gpr> {
        self.flags_of
    }

    /// Align to 8 bytes and write a constant-pool word at `l`.
    pub fn pool_word(&mut self, l: DynamicLabel, w: u64) {
        self.flags_of = None;
        dynasm!(self.asm ; .arch x64 ; .align 8 ; =>l ; .u64 w);
    }

    /// Pad with `int3` to a multiple of `to` bytes (a power of two, at
    /// most 64): the head of a loop that is entered by a jump (the padding
    /// is never executed, and a stray jump into it traps), so that a short
    /// loop body does not straddle a fetch block or a 64-byte line.
    pub fn align_jump_target(&mut self, to: usize) {
        debug_assert!(to.is_power_of_two() && to <= 64);
        self.flags_of = None;
        dynasmrt::DynasmApi::align(&mut self.asm, to, 0xcc);
    }

    /// Current offset in bytes.
    pub fn offset(&self) -> usize {
        self.asm.offset().0
    }

    /// Emit one instruction.
    pub fn emit(&mut self, i: Inst) {
        self.count += 1;
        self.flags_of = match i {
            Inst::AluI(op, d, _) | Inst::Alu(op, d, _) if !matches!(op, Alu::Cmp | Alu::Test) => Some(d),
            _ => None,
        };
        encode(&mut self.asm, i);
    }

    /// Append `count` instructions already encoded by this emitter (`bytes`,
    /// position-independent: no label, no jump out of them), ending with one
    /// that leaves no flags described (a store).
    pub fn emit_encoded(&mut self, bytes: &[u8], count: usize) {
        self.count += count;
        self.flags_of = None;
        self.asm.extend(bytes);
    }
}

/// The one `dynasm!` arm per form. (dynasm's expansion converts dynamic
/// register numbers with `.into()`, hence the allow.)
#[allow(clippy::useless_conversion)]
fn encode<A: Target>(ops: &mut A, i: Inst) {
    match i {
        Inst::MovRR(d, s) => dynasm!(ops ; .arch x64 ; mov Rq(d.0), Rq(s.0)),
        Inst::MovRR32(d, s) => dynasm!(ops ; .arch x64 ; mov Rd(d.0), Rd(s.0)),
        Inst::MovRI64(d, imm) => {
            let imm = imm as i64;
            dynasm!(ops ; .arch x64 ; mov Rq(d.0), QWORD imm)
        }
        Inst::MovRI32(d, imm) => {
            let imm = imm as i32;
            dynasm!(ops ; .arch x64 ; mov Rd(d.0), DWORD imm)
        }
        Inst::Load(k, d, m) => match k {
            LoadKind::Q => with_mem!(ops, m, [mov Rq(d.0), QWORD], []),
            LoadKind::D => with_mem!(ops, m, [mov Rd(d.0), DWORD], []),
            LoadKind::Dsx => with_mem!(ops, m, [movsxd Rq(d.0), DWORD], []),
            LoadKind::Bsx => with_mem!(ops, m, [movsx Rq(d.0), BYTE], []),
            LoadKind::Bzx => with_mem!(ops, m, [movzx Rd(d.0), BYTE], []),
        },
        Inst::Lea(d, m) => with_mem!(ops, m, [lea Rq(d.0),], []),
        Inst::Store(k, m, s) => match k {
            StoreKind::Q => with_mem!(ops, m, [mov QWORD], [, Rq(s.0)]),
            StoreKind::D => with_mem!(ops, m, [mov DWORD], [, Rd(s.0)]),
            StoreKind::B => with_mem!(ops, m, [mov BYTE], [, Rb(s.0)]),
        },
        Inst::StoreImm32(m, imm) => with_mem!(ops, m, [mov DWORD], [, DWORD imm]),
        Inst::CmpMemImm32(m, imm) if i8::try_from(imm).is_ok() => {
            with_mem!(ops, m, [cmp DWORD], [, BYTE imm])
        }
        Inst::CmpMemImm32(m, imm) => with_mem!(ops, m, [cmp DWORD], [, DWORD imm]),
        Inst::Alu(op, d, s) => match op {
            Alu::Add => dynasm!(ops ; .arch x64 ; add Rq(d.0), Rq(s.0)),
            Alu::Sub => dynasm!(ops ; .arch x64 ; sub Rq(d.0), Rq(s.0)),
            Alu::And => dynasm!(ops ; .arch x64 ; and Rq(d.0), Rq(s.0)),
            Alu::Or => dynasm!(ops ; .arch x64 ; or Rq(d.0), Rq(s.0)),
            Alu::Xor => dynasm!(ops ; .arch x64 ; xor Rq(d.0), Rq(s.0)),
            Alu::Cmp => dynasm!(ops ; .arch x64 ; cmp Rq(d.0), Rq(s.0)),
            Alu::Test => dynasm!(ops ; .arch x64 ; test Rq(d.0), Rq(s.0)),
        },
        // The sign-extended imm8 encoding when the immediate fits (`test` has none).
        Inst::AluI(op, d, imm) if op != Alu::Test && i8::try_from(imm).is_ok() => {
            let imm = imm as i8;
            match op {
                Alu::Add => dynasm!(ops ; .arch x64 ; add Rq(d.0), BYTE imm),
                Alu::Sub => dynasm!(ops ; .arch x64 ; sub Rq(d.0), BYTE imm),
                Alu::And => dynasm!(ops ; .arch x64 ; and Rq(d.0), BYTE imm),
                Alu::Or => dynasm!(ops ; .arch x64 ; or Rq(d.0), BYTE imm),
                Alu::Xor => dynasm!(ops ; .arch x64 ; xor Rq(d.0), BYTE imm),
                Alu::Cmp | Alu::Test => dynasm!(ops ; .arch x64 ; cmp Rq(d.0), BYTE i32::from(imm)),
            }
        }
        Inst::AluI(op, d, imm) => match op {
            Alu::Add => dynasm!(ops ; .arch x64 ; add Rq(d.0), DWORD imm),
            Alu::Sub => dynasm!(ops ; .arch x64 ; sub Rq(d.0), DWORD imm),
            Alu::And => dynasm!(ops ; .arch x64 ; and Rq(d.0), DWORD imm),
            Alu::Or => dynasm!(ops ; .arch x64 ; or Rq(d.0), DWORD imm),
            Alu::Xor => dynasm!(ops ; .arch x64 ; xor Rq(d.0), DWORD imm),
            Alu::Cmp => dynasm!(ops ; .arch x64 ; cmp Rq(d.0), DWORD imm),
            Alu::Test => dynasm!(ops ; .arch x64 ; test Rq(d.0), DWORD imm),
        },
        Inst::Imul(d, s) => dynasm!(ops ; .arch x64 ; imul Rq(d.0), Rq(s.0)),
        Inst::ImulI(d, s, imm) if i8::try_from(imm).is_ok() => {
            let imm = imm as i8;
            dynasm!(ops ; .arch x64 ; imul Rq(d.0), Rq(s.0), BYTE imm)
        }
        Inst::ImulI(d, s, imm) => dynasm!(ops ; .arch x64 ; imul Rq(d.0), Rq(s.0), DWORD imm),
        Inst::Neg(r) => dynasm!(ops ; .arch x64 ; neg Rq(r.0)),
        Inst::Not(r) => dynasm!(ops ; .arch x64 ; not Rq(r.0)),
        Inst::Cqo => dynasm!(ops ; .arch x64 ; cqo),
        Inst::Idiv(r) => dynasm!(ops ; .arch x64 ; idiv Rq(r.0)),
        Inst::Div(r) => dynasm!(ops ; .arch x64 ; div Rq(r.0)),
        Inst::Mul(r) => dynasm!(ops ; .arch x64 ; mul Rq(r.0)),
        Inst::ShiftCl(op, r) => match op {
            Sh::Shl => dynasm!(ops ; .arch x64 ; shl Rq(r.0), cl),
            Sh::Shr => dynasm!(ops ; .arch x64 ; shr Rq(r.0), cl),
            Sh::Sar => dynasm!(ops ; .arch x64 ; sar Rq(r.0), cl),
        },
        Inst::ShiftI(op, r, imm) => {
            let imm = imm as i8;
            match op {
                Sh::Shl => dynasm!(ops ; .arch x64 ; shl Rq(r.0), BYTE imm),
                Sh::Shr => dynasm!(ops ; .arch x64 ; shr Rq(r.0), BYTE imm),
                Sh::Sar => dynasm!(ops ; .arch x64 ; sar Rq(r.0), BYTE imm),
            }
        }
        Inst::Movsx8(d, s) => dynasm!(ops ; .arch x64 ; movsx Rq(d.0), Rb(s.0)),
        Inst::Movzx8(d, s) => dynasm!(ops ; .arch x64 ; movzx Rd(d.0), Rb(s.0)),
        Inst::Movsxd(d, s) => dynasm!(ops ; .arch x64 ; movsxd Rq(d.0), Rd(s.0)),
        Inst::Setcc(cc, r) => match cc {
            Cc::E => dynasm!(ops ; .arch x64 ; sete Rb(r.0)),
            Cc::Ne => dynasm!(ops ; .arch x64 ; setne Rb(r.0)),
            Cc::L => dynasm!(ops ; .arch x64 ; setl Rb(r.0)),
            Cc::Le => dynasm!(ops ; .arch x64 ; setle Rb(r.0)),
            Cc::G => dynasm!(ops ; .arch x64 ; setg Rb(r.0)),
            Cc::Ge => dynasm!(ops ; .arch x64 ; setge Rb(r.0)),
            Cc::B => dynasm!(ops ; .arch x64 ; setb Rb(r.0)),
            Cc::Be => dynasm!(ops ; .arch x64 ; setbe Rb(r.0)),
            Cc::A => dynasm!(ops ; .arch x64 ; seta Rb(r.0)),
            Cc::Ae => dynasm!(ops ; .arch x64 ; setae Rb(r.0)),
            Cc::S => dynasm!(ops ; .arch x64 ; sets Rb(r.0)),
            Cc::Ns => dynasm!(ops ; .arch x64 ; setns Rb(r.0)),
            Cc::P => dynasm!(ops ; .arch x64 ; setp Rb(r.0)),
            Cc::Np => dynasm!(ops ; .arch x64 ; setnp Rb(r.0)),
        },
        Inst::Push(r) => dynasm!(ops ; .arch x64 ; push Rq(r.0)),
        Inst::Pop(r) => dynasm!(ops ; .arch x64 ; pop Rq(r.0)),
        Inst::Ret => dynasm!(ops ; .arch x64 ; ret),
        Inst::CallR(r) => dynasm!(ops ; .arch x64 ; call Rq(r.0)),
        Inst::CallL(l) => dynasm!(ops ; .arch x64 ; call =>l),
        Inst::Jmp(l) => dynasm!(ops ; .arch x64 ; jmp =>l),
        Inst::Jcc(cc, l) => match cc {
            Cc::E => dynasm!(ops ; .arch x64 ; je =>l),
            Cc::Ne => dynasm!(ops ; .arch x64 ; jne =>l),
            Cc::L => dynasm!(ops ; .arch x64 ; jl =>l),
            Cc::Le => dynasm!(ops ; .arch x64 ; jle =>l),
            Cc::G => dynasm!(ops ; .arch x64 ; jg =>l),
            Cc::Ge => dynasm!(ops ; .arch x64 ; jge =>l),
            Cc::B => dynasm!(ops ; .arch x64 ; jb =>l),
            Cc::Be => dynasm!(ops ; .arch x64 ; jbe =>l),
            Cc::A => dynasm!(ops ; .arch x64 ; ja =>l),
            Cc::Ae => dynasm!(ops ; .arch x64 ; jae =>l),
            Cc::S => dynasm!(ops ; .arch x64 ; js =>l),
            Cc::Ns => dynasm!(ops ; .arch x64 ; jns =>l),
            Cc::P => dynasm!(ops ; .arch x64 ; jp =>l),
            Cc::Np => dynasm!(ops ; .arch x64 ; jnp =>l),
        },
        Inst::MovqXR(x, r) => dynasm!(ops ; .arch x64 ; movq Rx(x.0), Rq(r.0)),
        Inst::MovqRX(r, x) => dynasm!(ops ; .arch x64 ; movq Rq(r.0), Rx(x.0)),
        Inst::MovdXR(x, r) => dynasm!(ops ; .arch x64 ; movd Rx(x.0), Rd(r.0)),
        Inst::MovdRX(r, x) => dynasm!(ops ; .arch x64 ; movd Rd(r.0), Rx(x.0)),
        Inst::MovsdLoad(x, m) => with_mem!(ops, m, [movsd Rx(x.0), QWORD], []),
        Inst::MovsdStore(m, x) => with_mem!(ops, m, [movsd QWORD], [, Rx(x.0)]),
        Inst::Movaps(d, s) => dynasm!(ops ; .arch x64 ; movaps Rx(d.0), Rx(s.0)),
        Inst::Vmovaps(d, s) => dynasm!(ops ; .arch x64 ; vmovaps Ry(d.0), Ry(s.0)),
        Inst::Sse(op, d, s) => match op {
            Sse::Addsd => dynasm!(ops ; .arch x64 ; addsd Rx(d.0), Rx(s.0)),
            Sse::Subsd => dynasm!(ops ; .arch x64 ; subsd Rx(d.0), Rx(s.0)),
            Sse::Mulsd => dynasm!(ops ; .arch x64 ; mulsd Rx(d.0), Rx(s.0)),
            Sse::Divsd => dynasm!(ops ; .arch x64 ; divsd Rx(d.0), Rx(s.0)),
            Sse::Addss => dynasm!(ops ; .arch x64 ; addss Rx(d.0), Rx(s.0)),
            Sse::Subss => dynasm!(ops ; .arch x64 ; subss Rx(d.0), Rx(s.0)),
            Sse::Mulss => dynasm!(ops ; .arch x64 ; mulss Rx(d.0), Rx(s.0)),
            Sse::Divss => dynasm!(ops ; .arch x64 ; divss Rx(d.0), Rx(s.0)),
            Sse::Minsd => dynasm!(ops ; .arch x64 ; minsd Rx(d.0), Rx(s.0)),
            Sse::Maxsd => dynasm!(ops ; .arch x64 ; maxsd Rx(d.0), Rx(s.0)),
            Sse::Ucomisd => dynasm!(ops ; .arch x64 ; ucomisd Rx(d.0), Rx(s.0)),
            Sse::Ucomiss => dynasm!(ops ; .arch x64 ; ucomiss Rx(d.0), Rx(s.0)),
            Sse::Xorpd => dynasm!(ops ; .arch x64 ; xorpd Rx(d.0), Rx(s.0)),
            Sse::Cvtss2sd => dynasm!(ops ; .arch x64 ; cvtss2sd Rx(d.0), Rx(s.0)),
            Sse::Cvtsd2ss => dynasm!(ops ; .arch x64 ; cvtsd2ss Rx(d.0), Rx(s.0)),
        },
        Inst::Cvtsi2sd(x, r) => dynasm!(ops ; .arch x64 ; cvtsi2sd Rx(x.0), Rq(r.0)),
        Inst::Cvtsi2ss(x, r) => dynasm!(ops ; .arch x64 ; cvtsi2ss Rx(x.0), Rq(r.0)),
        Inst::Cvttsd2si(r, x) => dynasm!(ops ; .arch x64 ; cvttsd2si Rq(r.0), Rx(x.0)),
        Inst::VLoad(w, x, m) => match w {
            VW::D => with_mem!(ops, m, [movd Rx(x.0), DWORD], []),
            VW::Q => with_mem!(ops, m, [movq Rx(x.0), QWORD], []),
            VW::X => with_mem!(ops, m, [movdqu Rx(x.0), OWORD], []),
            VW::Y => with_mem!(ops, m, [vmovdqu Ry(x.0), YWORD], []),
        },
        Inst::VStore(w, m, x) => match w {
            VW::D => with_mem!(ops, m, [movd DWORD], [, Rx(x.0)]),
            VW::Q => with_mem!(ops, m, [movq QWORD], [, Rx(x.0)]),
            VW::X => with_mem!(ops, m, [movdqu OWORD], [, Rx(x.0)]),
            VW::Y => with_mem!(ops, m, [vmovdqu YWORD], [, Ry(x.0)]),
        },
        Inst::Pk(op, d, s) => match op {
            Pk::Addpd => dynasm!(ops ; .arch x64 ; addpd Rx(d.0), Rx(s.0)),
            Pk::Subpd => dynasm!(ops ; .arch x64 ; subpd Rx(d.0), Rx(s.0)),
            Pk::Mulpd => dynasm!(ops ; .arch x64 ; mulpd Rx(d.0), Rx(s.0)),
            Pk::Divpd => dynasm!(ops ; .arch x64 ; divpd Rx(d.0), Rx(s.0)),
            Pk::Addps => dynasm!(ops ; .arch x64 ; addps Rx(d.0), Rx(s.0)),
            Pk::Subps => dynasm!(ops ; .arch x64 ; subps Rx(d.0), Rx(s.0)),
            Pk::Mulps => dynasm!(ops ; .arch x64 ; mulps Rx(d.0), Rx(s.0)),
            Pk::Divps => dynasm!(ops ; .arch x64 ; divps Rx(d.0), Rx(s.0)),
            Pk::Paddd => dynasm!(ops ; .arch x64 ; paddd Rx(d.0), Rx(s.0)),
            Pk::Psubd => dynasm!(ops ; .arch x64 ; psubd Rx(d.0), Rx(s.0)),
            Pk::Paddq => dynasm!(ops ; .arch x64 ; paddq Rx(d.0), Rx(s.0)),
            Pk::Psubq => dynasm!(ops ; .arch x64 ; psubq Rx(d.0), Rx(s.0)),
            Pk::Pmulld => dynasm!(ops ; .arch x64 ; pmulld Rx(d.0), Rx(s.0)),
            Pk::Pcmpeqd => dynasm!(ops ; .arch x64 ; pcmpeqd Rx(d.0), Rx(s.0)),
            Pk::Pcmpgtd => dynasm!(ops ; .arch x64 ; pcmpgtd Rx(d.0), Rx(s.0)),
            Pk::Pcmpeqq => dynasm!(ops ; .arch x64 ; pcmpeqq Rx(d.0), Rx(s.0)),
            Pk::Pcmpgtq => dynasm!(ops ; .arch x64 ; pcmpgtq Rx(d.0), Rx(s.0)),
            Pk::Xorps => dynasm!(ops ; .arch x64 ; xorps Rx(d.0), Rx(s.0)),
        },
        Inst::Vpk(op, d, a, b) => match op {
            Pk::Addpd => dynasm!(ops ; .arch x64 ; vaddpd Ry(d.0), Ry(a.0), Ry(b.0)),
            Pk::Subpd => dynasm!(ops ; .arch x64 ; vsubpd Ry(d.0), Ry(a.0), Ry(b.0)),
            Pk::Mulpd => dynasm!(ops ; .arch x64 ; vmulpd Ry(d.0), Ry(a.0), Ry(b.0)),
            Pk::Divpd => dynasm!(ops ; .arch x64 ; vdivpd Ry(d.0), Ry(a.0), Ry(b.0)),
            Pk::Addps => dynasm!(ops ; .arch x64 ; vaddps Ry(d.0), Ry(a.0), Ry(b.0)),
            Pk::Subps => dynasm!(ops ; .arch x64 ; vsubps Ry(d.0), Ry(a.0), Ry(b.0)),
            Pk::Mulps => dynasm!(ops ; .arch x64 ; vmulps Ry(d.0), Ry(a.0), Ry(b.0)),
            Pk::Divps => dynasm!(ops ; .arch x64 ; vdivps Ry(d.0), Ry(a.0), Ry(b.0)),
            Pk::Paddd => dynasm!(ops ; .arch x64 ; vpaddd Ry(d.0), Ry(a.0), Ry(b.0)),
            Pk::Psubd => dynasm!(ops ; .arch x64 ; vpsubd Ry(d.0), Ry(a.0), Ry(b.0)),
            Pk::Paddq => dynasm!(ops ; .arch x64 ; vpaddq Ry(d.0), Ry(a.0), Ry(b.0)),
            Pk::Psubq => dynasm!(ops ; .arch x64 ; vpsubq Ry(d.0), Ry(a.0), Ry(b.0)),
            Pk::Pmulld => dynasm!(ops ; .arch x64 ; vpmulld Ry(d.0), Ry(a.0), Ry(b.0)),
            Pk::Pcmpeqd => dynasm!(ops ; .arch x64 ; vpcmpeqd Ry(d.0), Ry(a.0), Ry(b.0)),
            Pk::Pcmpgtd => dynasm!(ops ; .arch x64 ; vpcmpgtd Ry(d.0), Ry(a.0), Ry(b.0)),
            Pk::Pcmpeqq => dynasm!(ops ; .arch x64 ; vpcmpeqq Ry(d.0), Ry(a.0), Ry(b.0)),
            Pk::Pcmpgtq => dynasm!(ops ; .arch x64 ; vpcmpgtq Ry(d.0), Ry(a.0), Ry(b.0)),
            Pk::Xorps => dynasm!(ops ; .arch x64 ; vxorps Ry(d.0), Ry(a.0), Ry(b.0)),
        },
        Inst::Cmpp(p, dbl, d, s) => {
            let imm = p as i8;
            if dbl {
                dynasm!(ops ; .arch x64 ; cmppd Rx(d.0), Rx(s.0), BYTE imm)
            } else {
                dynasm!(ops ; .arch x64 ; cmpps Rx(d.0), Rx(s.0), BYTE imm)
            }
        }
        Inst::Movmsk(dbl, r, x) => {
            if dbl {
                dynasm!(ops ; .arch x64 ; movmskpd Rd(r.0), Rx(x.0))
            } else {
                dynasm!(ops ; .arch x64 ; movmskps Rd(r.0), Rx(x.0))
            }
        }
        Inst::Cvtdq2pd(d, s) => dynasm!(ops ; .arch x64 ; cvtdq2pd Rx(d.0), Rx(s.0)),
        Inst::Vcvtdq2pd(d, s) => dynasm!(ops ; .arch x64 ; vcvtdq2pd Ry(d.0), Rx(s.0)),
        Inst::Vzeroupper => dynasm!(ops ; .arch x64 ; vzeroupper),
        Inst::SseRip(op, d, l) => match op {
            Sse::Addsd => dynasm!(ops ; .arch x64 ; addsd Rx(d.0), QWORD [=>l]),
            Sse::Subsd => dynasm!(ops ; .arch x64 ; subsd Rx(d.0), QWORD [=>l]),
            Sse::Mulsd => dynasm!(ops ; .arch x64 ; mulsd Rx(d.0), QWORD [=>l]),
            Sse::Divsd => dynasm!(ops ; .arch x64 ; divsd Rx(d.0), QWORD [=>l]),
            Sse::Addss => dynasm!(ops ; .arch x64 ; addss Rx(d.0), DWORD [=>l]),
            Sse::Subss => dynasm!(ops ; .arch x64 ; subss Rx(d.0), DWORD [=>l]),
            Sse::Mulss => dynasm!(ops ; .arch x64 ; mulss Rx(d.0), DWORD [=>l]),
            Sse::Divss => dynasm!(ops ; .arch x64 ; divss Rx(d.0), DWORD [=>l]),
            Sse::Minsd => dynasm!(ops ; .arch x64 ; minsd Rx(d.0), QWORD [=>l]),
            Sse::Maxsd => dynasm!(ops ; .arch x64 ; maxsd Rx(d.0), QWORD [=>l]),
            Sse::Ucomisd => dynasm!(ops ; .arch x64 ; ucomisd Rx(d.0), QWORD [=>l]),
            Sse::Ucomiss => dynasm!(ops ; .arch x64 ; ucomiss Rx(d.0), DWORD [=>l]),
            Sse::Cvtss2sd => dynasm!(ops ; .arch x64 ; cvtss2sd Rx(d.0), DWORD [=>l]),
            Sse::Cvtsd2ss => dynasm!(ops ; .arch x64 ; cvtsd2ss Rx(d.0), QWORD [=>l]),
            Sse::Xorpd => unreachable!("xorpd reads 16 aligned bytes: no pool form"),
        },
        Inst::MovsdRip(d, l) => dynasm!(ops ; .arch x64 ; movsd Rx(d.0), QWORD [=>l]),
    }
}

#[cfg(test)]
#[path = "emit_tests.rs"]
mod tests;
