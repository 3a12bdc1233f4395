//! The encoder fuzz target's property, without libFuzzer: bytes → a
//! sequence of the jit emitter's instruction forms (`spy_jit::x64::emit::Inst`,
//! every form with arbitrary operands, branches to labels bound anywhere
//! in the sequence, constant-pool references), encoded by the emitter,
//! decoded back one instruction at a time with iced-x86 and compared with
//! the emitter's own Intel rendering (`Inst::render`): the decoded length
//! must be the encoded one, the text the rendering, a branch must reach
//! its label and a pool reference its word. `fuzz_targets/encoder.rs`
//! drives it from libFuzzer, `tests/encoder_and_ir.rs` over a fixed seed
//! range under plain `cargo test`.

use arbitrary::{Result, Unstructured};
use dynasmrt::x64::X64Relocation;
use dynasmrt::{DynamicLabel, VecAssembler};
use iced_x86::{Decoder, DecoderOptions, Formatter, IntelFormatter, MemorySizeOptions};
use spy_jit::x64::emit::*;

/// Labels a sequence may branch to.
const LABELS: usize = 4;
/// Instructions per sequence, at most.
const MAX_INSTS: usize = 64;

/// One step of a generated sequence.
#[derive(Clone, Copy, Debug)]
enum Item {
    /// A form without a label.
    Plain(Inst),
    /// `call`/`jmp`/`jcc` (`None`: `jmp`, `Some(None)`: `call`) to label `k`.
    Branch(Option<Option<Cc>>, usize),
    /// `op xmm, [rip + pool k]` (`None`: `movsd`).
    Pool(Option<Sse>, Xmm, usize),
    /// Bind label `k` here (once; the unbound ones at the end).
    Bind(usize),
}

fn pick<T: Copy>(u: &mut Unstructured, all: &[T]) -> Result<T> {
    Ok(*u.choose(all)?)
}

fn gpr(u: &mut Unstructured) -> Result<Gpr> {
    Ok(Gpr(u.int_in_range(0..=15)?))
}

fn xmm(u: &mut Unstructured) -> Result<Xmm> {
    Ok(Xmm(u.int_in_range(0..=15)?))
}

/// An immediate biased toward the edges of the encodings (imm8 / imm32).
fn imm32(u: &mut Unstructured) -> Result<i32> {
    Ok(match u.int_in_range(0..=3)? {
        0 => pick(u, &[0, 1, -1, 127, -128, 128, -129, i32::MAX, i32::MIN])?,
        1 => i32::from(u.arbitrary::<i8>()?),
        _ => u.arbitrary()?,
    })
}

fn mem(u: &mut Unstructured) -> Result<Mem> {
    let base = gpr(u)?;
    let disp = imm32(u)?;
    Ok(if u.arbitrary()? {
        // rsp cannot be an index register.
        let index = Gpr(*u.choose(&[0u8, 1, 2, 3, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15])?);
        Mem::indexed(base, index, pick(u, &[Scale::S1, Scale::S4, Scale::S8])?, disp)
    } else {
        Mem::base(base, disp)
    })
}

/// One instruction form with arbitrary operands, within the emitter's
/// contract (no `test r, imm`, shift counts 0..=63, no pool `xorpd`).
fn plain(u: &mut Unstructured) -> Result<Inst> {
    use Inst as I;
    let loads = [
        LoadKind::Q,
        LoadKind::D,
        LoadKind::Dsx,
        LoadKind::Bsx,
        LoadKind::Bzx,
    ];
    let stores = [StoreKind::Q, StoreKind::D, StoreKind::B];
    Ok(match u.int_in_range(0..=48)? {
        0 => I::MovRR(gpr(u)?, gpr(u)?),
        1 => I::MovRR32(gpr(u)?, gpr(u)?),
        2 => I::MovRI64(gpr(u)?, u.arbitrary()?),
        3 => I::MovRI32(gpr(u)?, u.arbitrary()?),
        4 => I::Load(pick(u, &loads)?, gpr(u)?, mem(u)?),
        5 => I::Store(pick(u, &stores)?, mem(u)?, gpr(u)?),
        6 => I::StoreImm32(mem(u)?, imm32(u)?),
        7 => I::CmpMemImm32(mem(u)?, imm32(u)?),
        8 => I::Alu(pick(u, &Alu::ALL)?, gpr(u)?, gpr(u)?),
        9 => {
            let ops: Vec<Alu> = Alu::ALL.into_iter().filter(|a| *a != Alu::Test).collect();
            I::AluI(pick(u, &ops)?, gpr(u)?, imm32(u)?)
        }
        10 => I::Imul(gpr(u)?, gpr(u)?),
        11 => I::ImulI(gpr(u)?, gpr(u)?, imm32(u)?),
        12 => I::Neg(gpr(u)?),
        13 => I::Not(gpr(u)?),
        14 => I::Cqo,
        15 => I::Idiv(gpr(u)?),
        16 => I::Div(gpr(u)?),
        17 => I::ShiftCl(pick(u, &Sh::ALL)?, gpr(u)?),
        18 => I::ShiftI(pick(u, &Sh::ALL)?, gpr(u)?, u.int_in_range(0..=63)?),
        19 => I::Movsx8(gpr(u)?, gpr(u)?),
        20 => I::Movzx8(gpr(u)?, gpr(u)?),
        21 => I::Movsxd(gpr(u)?, gpr(u)?),
        22 => I::Setcc(pick(u, &Cc::ALL)?, gpr(u)?),
        23 => I::Push(gpr(u)?),
        24 => I::Pop(gpr(u)?),
        25 => I::Ret,
        26 => I::CallR(gpr(u)?),
        27 => I::MovqXR(xmm(u)?, gpr(u)?),
        28 => I::MovqRX(gpr(u)?, xmm(u)?),
        29 => I::MovdXR(xmm(u)?, gpr(u)?),
        30 => I::MovdRX(gpr(u)?, xmm(u)?),
        31 => I::MovsdLoad(xmm(u)?, mem(u)?),
        32 => I::MovsdStore(mem(u)?, xmm(u)?),
        33 => I::Movaps(xmm(u)?, xmm(u)?),
        34 => I::Sse(pick(u, &Sse::ALL)?, xmm(u)?, xmm(u)?),
        35 => I::Cvtsi2sd(xmm(u)?, gpr(u)?),
        36 => I::Cvtsi2ss(xmm(u)?, gpr(u)?),
        37 => I::Cvttsd2si(gpr(u)?, xmm(u)?),
        38 => I::VLoad(pick(u, &VW::ALL)?, xmm(u)?, mem(u)?),
        39 => I::VStore(pick(u, &VW::ALL)?, mem(u)?, xmm(u)?),
        40 => I::Pk(pick(u, &Pk::ALL)?, xmm(u)?, xmm(u)?),
        41 => I::Vpk(pick(u, &Pk::ALL)?, xmm(u)?, xmm(u)?, xmm(u)?),
        42 => I::Cmpp(pick(u, &Pred::ALL)?, u.arbitrary()?, xmm(u)?, xmm(u)?),
        43 => I::Movmsk(u.arbitrary()?, gpr(u)?, xmm(u)?),
        44 => I::Cvtdq2pd(xmm(u)?, xmm(u)?),
        45 => I::Vcvtdq2pd(xmm(u)?, xmm(u)?),
        46 => I::Vzeroupper,
        // A run of `mov r64, imm64` pushes later branches past rel8 reach.
        _ => I::MovRI64(gpr(u)?, u.arbitrary()?),
    })
}

fn item(u: &mut Unstructured) -> Result<Item> {
    Ok(match u.int_in_range(0..=9)? {
        0 => {
            let kind = match u.int_in_range(0..=2)? {
                0 => None,
                1 => Some(None),
                _ => Some(Some(pick(u, &Cc::ALL)?)),
            };
            Item::Branch(kind, u.choose_index(LABELS)?)
        }
        1 => {
            let ops: Vec<Sse> = Sse::ALL.into_iter().filter(|s| *s != Sse::Xorpd).collect();
            let op = if u.arbitrary()? {
                Some(pick(u, &ops)?)
            } else {
                None
            };
            Item::Pool(op, xmm(u)?, u.choose_index(LABELS)?)
        }
        2 => Item::Bind(u.choose_index(LABELS)?),
        _ => Item::Plain(plain(u)?),
    })
}

/// The sequence `bytes` describe.
fn sequence(bytes: &[u8]) -> Vec<Item> {
    let mut u = Unstructured::new(bytes);
    let mut items = vec![];
    while items.len() < MAX_INSTS && !u.is_empty() {
        match item(&mut u) {
            Ok(i) => items.push(i),
            Err(_) => break,
        }
    }
    items
}

/// iced's Intel formatter configured as `Inst::render` prints.
fn formatter() -> IntelFormatter {
    let mut f = IntelFormatter::new();
    let o = f.options_mut();
    o.set_uppercase_hex(false);
    o.set_hex_prefix("0x");
    o.set_hex_suffix("");
    o.set_space_after_operand_separator(true);
    o.set_small_hex_numbers_in_decimal(false);
    o.set_signed_immediate_operands(true);
    o.set_memory_size_options(MemorySizeOptions::Always);
    o.set_branch_leading_zeros(false);
    o.set_show_branch_size(false);
    f
}

/// One emitted instruction: where it is, and what it must decode to.
struct Emitted {
    inst: Inst,
    start: usize,
    end: usize,
    /// The label a branch must reach (`Some(k)`), or the pool word a rip
    /// operand must address.
    branch: Option<usize>,
    pool: Option<usize>,
}

/// Encode the sequence of `bytes`, decode it back and compare: `Err` is a
/// mismatch (the instruction, its bytes, the two texts). `Ok` counts the
/// instructions checked.
pub fn check(bytes: &[u8]) -> std::result::Result<usize, String> {
    let items = sequence(bytes);
    let mut e = Emitter::new(VecAssembler::<X64Relocation>::new(0));
    let labels: Vec<DynamicLabel> = (0..LABELS).map(|_| e.new_label()).collect();
    let pool: Vec<DynamicLabel> = (0..LABELS).map(|_| e.new_label()).collect();
    let mut bound = [None; LABELS];
    let mut emitted = vec![];
    for it in items {
        let (inst, branch, pool_ref) = match it {
            Item::Bind(k) => {
                if bound[k].is_none() {
                    bound[k] = Some(e.offset());
                    e.bind(labels[k]);
                }
                continue;
            }
            Item::Plain(i) => (i, None, None),
            Item::Branch(None, k) => (Inst::Jmp(labels[k]), Some(k), None),
            Item::Branch(Some(None), k) => (Inst::CallL(labels[k]), Some(k), None),
            Item::Branch(Some(Some(cc)), k) => (Inst::Jcc(cc, labels[k]), Some(k), None),
            Item::Pool(None, x, k) => (Inst::MovsdRip(x, pool[k]), None, Some(k)),
            Item::Pool(Some(op), x, k) => (Inst::SseRip(op, x, pool[k]), None, Some(k)),
        };
        let start = e.offset();
        e.emit(inst);
        emitted.push(Emitted {
            inst,
            start,
            end: e.offset(),
            branch,
            pool: pool_ref,
        });
    }
    for (k, l) in labels.iter().enumerate() {
        if bound[k].is_none() {
            bound[k] = Some(e.offset());
            e.bind(*l);
        }
    }
    e.emit(Inst::Ret);
    let mut words = [0usize; LABELS];
    for (k, l) in pool.iter().enumerate() {
        let w = 0x0102_0304_0506_0700 | k as u64;
        e.pool_word(*l, w);
        words[k] = e.offset() - 8;
    }
    let code = e
        .asm
        .finalize()
        .map_err(|err| format!("the assembler rejected the sequence: {err:?}"))?;
    let mut f = formatter();
    for x in &emitted {
        let bytes = &code[x.start..x.end];
        let mut dec = Decoder::with_ip(64, bytes, x.start as u64, DecoderOptions::NONE);
        let ins = dec.decode();
        let mut text = String::new();
        f.format(&ins, &mut text);
        let mut want = x.inst.render();
        let mut why = None;
        if ins.is_invalid() || ins.len() != bytes.len() {
            why = Some(format!("decodes to {} of {} bytes", ins.len(), bytes.len()));
        } else if let Some(k) = x.branch {
            let target = bound[k].unwrap_or(0) as u64;
            if ins.near_branch_target() != target {
                why = Some(format!(
                    "branches to {:#x}, its label is at {target:#x}",
                    ins.near_branch_target()
                ));
            }
            // The target prints as an address; the mnemonic must agree.
            want = want.split(' ').next().unwrap_or("").to_string();
            text = text.split(' ').next().unwrap_or("").to_string();
        } else if let Some(k) = x.pool {
            let label = x.inst.target().map_or(0, |l| l.get_id());
            want = want.replace(&format!("[L{label}]"), &format!("[{:#x}]", words[k]));
            if !ins.is_ip_rel_memory_operand() || ins.ip_rel_memory_address() != words[k] as u64 {
                why = Some(format!("does not address its pool word at {:#x}", words[k]));
            }
        }
        if why.is_none() && text != want {
            why = Some("renders differently".into());
        }
        if let Some(why) = why {
            return Err(format!(
                "{:?} at {:#x}: {why}: the emitter says `{want}`, iced decodes {bytes:02x?} as `{text}`",
                x.inst, x.start
            ));
        }
    }
    Ok(emitted.len())
}
