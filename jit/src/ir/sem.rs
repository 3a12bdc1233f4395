//! Numeric semantics of the IR operations on canonical words: the single
//! definition that [`super::eval`] runs and that the x86-64 backend must match
//! bit for bit.
//!
//! Float NaN results follow the x86 SSE rules, written out here so the
//! reference does not depend on how the host compiler treats NaN payloads:
//! if the first operand is a NaN the result is it, quieted; else if the
//! second is a NaN the result is it, quieted; else an invalid operation
//! (inf - inf, 0 * inf, 0 / 0) gives the default NaN (sign set, quiet bit).

use super::{BinOp, CmpOp, ShiftOp, Ty, UnOp, Word};

/// Canonical form of `w` for `ty`: sign-extend signed integers, zero-extend
/// unsigned ones and `F32` bits, `Bool` is `w & 1` (callers only pass 0/1).
pub fn canon(ty: Ty, w: Word) -> Word {
    match ty {
        Ty::I8 => w as i8 as i64 as u64,
        Ty::U8 => w as u8 as u64,
        Ty::I32 => w as i32 as i64 as u64,
        Ty::U32 | Ty::F32 => w as u32 as u64,
        Ty::Bool => w & 1,
        Ty::I64 | Ty::U64 | Ty::F64 | Ty::Ptr | Ty::Handle => w,
        // Not a word (the verifier rejects vector constants).
        Ty::Vec(_) => w,
    }
}

const F64_DEFAULT_NAN: u64 = 0xFFF8_0000_0000_0000;
const F32_DEFAULT_NAN: u32 = 0xFFC0_0000;

fn f64_of(w: Word) -> f64 {
    f64::from_bits(w)
}
fn f32_of(w: Word) -> f32 {
    f32::from_bits(w as u32)
}

/// The SSE result of a binary f64 operation (see the module comment).
fn nan_rule_f64(a: f64, b: f64, r: f64) -> Word {
    if a.is_nan() {
        a.to_bits() | (1 << 51)
    } else if b.is_nan() {
        b.to_bits() | (1 << 51)
    } else if r.is_nan() {
        F64_DEFAULT_NAN
    } else {
        r.to_bits()
    }
}

fn nan_rule_f32(a: f32, b: f32, r: f32) -> Word {
    let bits = if a.is_nan() {
        a.to_bits() | (1 << 22)
    } else if b.is_nan() {
        b.to_bits() | (1 << 22)
    } else if r.is_nan() {
        F32_DEFAULT_NAN
    } else {
        r.to_bits()
    };
    bits as u64
}

/// Float binary arithmetic (`Add`, `Sub`, `Mul`, and `div` for [`fdiv`]).
fn float_arith(ty: Ty, a: Word, b: Word, op: fn(f64, f64) -> f64, op32: fn(f32, f32) -> f32) -> Word {
    if ty == Ty::F32 {
        let (x, y) = (f32_of(a), f32_of(b));
        nan_rule_f32(x, y, op32(x, y))
    } else {
        let (x, y) = (f64_of(a), f64_of(b));
        nan_rule_f64(x, y, op(x, y))
    }
}

/// A binary operation that cannot fail.
pub fn binary(op: BinOp, ty: Ty, a: Word, b: Word) -> Word {
    if ty.is_float() {
        return match op {
            BinOp::Add => float_arith(ty, a, b, |x, y| x + y, |x, y| x + y),
            BinOp::Sub => float_arith(ty, a, b, |x, y| x - y, |x, y| x - y),
            BinOp::Mul => float_arith(ty, a, b, |x, y| x * y, |x, y| x * y),
            BinOp::And | BinOp::Or | BinOp::Xor => unreachable!("verified: no bitwise float ops"),
        };
    }
    let r = match op {
        BinOp::Add => a.wrapping_add(b),
        BinOp::Sub => a.wrapping_sub(b),
        BinOp::Mul => a.wrapping_mul(b),
        BinOp::And => a & b,
        BinOp::Or => a | b,
        BinOp::Xor => a ^ b,
    };
    canon(ty, r)
}

/// A unary operation.
pub fn unary(op: UnOp, ty: Ty, a: Word) -> Word {
    match (op, ty) {
        (UnOp::Neg, Ty::F32) => a ^ (1 << 31),
        (UnOp::Neg, Ty::F64) => a ^ (1 << 63),
        (UnOp::Neg, _) => canon(ty, a.wrapping_neg()),
        (UnOp::Not, Ty::Bool) => a ^ 1,
        (UnOp::Not, _) => canon(ty, !a),
    }
}

/// Floor division and modulo (Python `//`, `%`); `None` when `b == 0`.
/// `MIN // -1` wraps to `MIN` (and `MIN % -1 == 0`).
pub fn floor_divmod(ty: Ty, a: Word, b: Word) -> Option<(Word, Word)> {
    if b == 0 {
        return None;
    }
    if ty.is_signed() {
        let (x, y) = (a as i64, b as i64);
        if y == -1 {
            return Some((canon(ty, x.wrapping_neg() as u64), 0));
        }
        let (mut q, mut r) = (x / y, x % y);
        if r != 0 && ((r ^ y) < 0) {
            q -= 1;
            r += y;
        }
        Some((canon(ty, q as u64), canon(ty, r as u64)))
    } else {
        Some((a / b, a % b))
    }
}

/// Float division; `None` when `b` is +0.0 or -0.0.
pub fn fdiv(ty: Ty, a: Word, b: Word) -> Option<Word> {
    let zero = if ty == Ty::F32 {
        f32_of(b) == 0.0
    } else {
        f64_of(b) == 0.0
    };
    if zero {
        return None;
    }
    Some(float_arith(ty, a, b, |x, y| x / y, |x, y| x / y))
}

/// What a shift by a count >= the width gives. One place to change if the
/// SPy spec settles on something else (the backend reads the same enum).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum OverShift {
    /// 0 for `Shl` and logical `Shr`; sign fill for arithmetic `Shr`.
    ZeroOrSignFill,
}

/// The policy in force.
pub const OVER_SHIFT: OverShift = OverShift::ZeroOrSignFill;

/// Shift; `None` for a negative count (signed count types only).
pub fn shift(op: ShiftOp, ty: Ty, a: Word, b: Word) -> Option<Word> {
    if ty.is_signed() && (b as i64) < 0 {
        return None;
    }
    let width = u64::from(ty.bits());
    let OverShift::ZeroOrSignFill = OVER_SHIFT;
    let r = match op {
        ShiftOp::Shl if b >= width => 0,
        ShiftOp::Shl => a << b,
        ShiftOp::Shr if ty.is_signed() => ((a as i64) >> b.min(63)) as u64,
        ShiftOp::Shr if b >= width => 0,
        ShiftOp::Shr => a >> b,
    };
    Some(canon(ty, r))
}

/// Comparison of two canonical values of type `ty`.
pub fn cmp(op: CmpOp, ty: Ty, a: Word, b: Word) -> bool {
    match ty {
        Ty::F32 => cmp_ord(op, f32_of(a).partial_cmp(&f32_of(b))),
        Ty::F64 => cmp_ord(op, f64_of(a).partial_cmp(&f64_of(b))),
        _ if ty.is_signed() => cmp_ord(op, (a as i64).partial_cmp(&(b as i64))),
        _ => cmp_ord(op, a.partial_cmp(&b)),
    }
}

fn cmp_ord(op: CmpOp, o: Option<std::cmp::Ordering>) -> bool {
    use std::cmp::Ordering::*;
    match (op, o) {
        (CmpOp::Ne, None) => true,
        (_, None) => false,
        (CmpOp::Eq, Some(o)) => o == Equal,
        (CmpOp::Ne, Some(o)) => o != Equal,
        (CmpOp::Lt, Some(o)) => o == Less,
        (CmpOp::Le, Some(o)) => o != Greater,
        (CmpOp::Gt, Some(o)) => o == Greater,
        (CmpOp::Ge, Some(o)) => o != Less,
    }
}

/// Whether `Convert` from `from` to `to` is allowed: between any two of the
/// integer types, `Bool`, `F32` and `F64`, except float to `Bool` (compare
/// with 0.0 instead). `Ptr` and `Handle` convert only to and from `U64`/`I64`.
pub fn convertible(from: Ty, to: Ty) -> bool {
    let num = |t: Ty| t.is_int() || t.is_float() || t == Ty::Bool;
    let word = |t: Ty| matches!(t, Ty::I64 | Ty::U64 | Ty::Ptr | Ty::Handle);
    (num(from) && num(to) && !(from.is_float() && to == Ty::Bool)) || (word(from) && word(to))
}

/// Conversion rules:
/// - integer/Bool to integer: the source value reinterpreted at the target
///   width (truncation, then sign or zero extension);
/// - integer to `Bool`: `a != 0`;
/// - integer/Bool to float: the nearest float (round to nearest even), exact
///   for `U64` too;
/// - float to integer: truncation toward zero, saturating at the target's
///   MIN/MAX, NaN gives 0 (Rust's `as`);
/// - `F32` <-> `F64`: IEEE conversion; NaNs are quieted (payload shifted as
///   SSE `cvtss2sd`/`cvtsd2ss` do).
pub fn convert(from: Ty, to: Ty, a: Word) -> Word {
    if from.is_float() {
        let x = if from == Ty::F32 {
            f64::from(f32_of(a))
        } else {
            f64_of(a)
        };
        return match to {
            Ty::Vec(_) => unreachable!("verified: no scalar conversion to a vector"),
            Ty::F64 if from == Ty::F32 => {
                if f32_of(a).is_nan() {
                    let m = a & 0x7F_FFFF;
                    let sign = (a >> 31) & 1;
                    (sign << 63) | 0x7FF8_0000_0000_0000 | (m << 29)
                } else {
                    x.to_bits()
                }
            }
            Ty::F64 => a,
            Ty::F32 if from == Ty::F32 => a,
            Ty::F32 => {
                if x.is_nan() {
                    let sign = (a >> 63) & 1;
                    let m = (a >> 29) & 0x7F_FFFF;
                    ((sign << 31) | 0x7FC0_0000 | m) & 0xFFFF_FFFF
                } else {
                    (x as f32).to_bits() as u64
                }
            }
            Ty::I8 => x as i8 as i64 as u64,
            Ty::U8 => x as u8 as u64,
            Ty::I32 => x as i32 as i64 as u64,
            Ty::U32 => x as u32 as u64,
            Ty::I64 => x as i64 as u64,
            Ty::U64 => x as u64,
            Ty::Bool | Ty::Ptr | Ty::Handle => unreachable!("verified: no float to {to}"),
        };
    }
    match to {
        Ty::Bool => (a != 0) as u64,
        Ty::F64 if from == Ty::U64 => (a as f64).to_bits(),
        Ty::F64 => ((a as i64) as f64).to_bits(),
        Ty::F32 if from == Ty::U64 => ((a as f32).to_bits()) as u64,
        Ty::F32 => (((a as i64) as f32).to_bits()) as u64,
        _ => canon(to, a),
    }
}
