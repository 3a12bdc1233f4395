//! The memory operations of the `unsafe` module (upstream
//! `vm/modules/unsafe/mem.py`): `ptr_copy`, `ptr_move`, `ptr_setbytes`,
//! `ptr_cmp`, their `_slice` forms, and the byte-only `memcpy`,
//! `memmove`, `memset`, `memcmp`. Counts are in items, not bytes. This
//! module owns their names and value-free signatures; `frames::memops`
//! executes them.

use crate::error::ExcKind;
use crate::vm::ops::signatures::{At, BuiltinImpl, BuiltinSig, SigError};
use crate::vm::ops::PrimTy;
use crate::vm::types::{TypeId, TypeKind, TypeTable};

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum MemOp {
    PtrCopy,
    PtrCopySlice,
    PtrMove,
    PtrMoveSlice,
    PtrSetbytes,
    PtrSetbytesSlice,
    PtrCmp,
    PtrCmpSlice,
    Memcpy,
    Memmove,
    Memset,
    Memcmp,
}

/// What an operation does to its items.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MemKind {
    /// Copy items; `overlap` says whether the regions may overlap.
    Copy {
        overlap: bool,
    },
    Setbytes,
    Cmp,
}

impl MemOp {
    pub const ALL: [MemOp; 12] = [
        MemOp::PtrCopy,
        MemOp::PtrCopySlice,
        MemOp::PtrMove,
        MemOp::PtrMoveSlice,
        MemOp::PtrSetbytes,
        MemOp::PtrSetbytesSlice,
        MemOp::PtrCmp,
        MemOp::PtrCmpSlice,
        MemOp::Memcpy,
        MemOp::Memmove,
        MemOp::Memset,
        MemOp::Memcmp,
    ];

    pub fn name(self) -> &'static str {
        match self {
            MemOp::PtrCopy => "ptr_copy",
            MemOp::PtrCopySlice => "ptr_copy_slice",
            MemOp::PtrMove => "ptr_move",
            MemOp::PtrMoveSlice => "ptr_move_slice",
            MemOp::PtrSetbytes => "ptr_setbytes",
            MemOp::PtrSetbytesSlice => "ptr_setbytes_slice",
            MemOp::PtrCmp => "ptr_cmp",
            MemOp::PtrCmpSlice => "ptr_cmp_slice",
            MemOp::Memcpy => "memcpy",
            MemOp::Memmove => "memmove",
            MemOp::Memset => "memset",
            MemOp::Memcmp => "memcmp",
        }
    }

    pub fn find(name: &str) -> Option<MemOp> {
        MemOp::ALL.into_iter().find(|m| m.name() == name)
    }

    pub fn kind(self) -> MemKind {
        match self {
            MemOp::PtrCopy | MemOp::PtrCopySlice | MemOp::Memcpy => MemKind::Copy { overlap: false },
            MemOp::PtrMove | MemOp::PtrMoveSlice | MemOp::Memmove => MemKind::Copy { overlap: true },
            MemOp::PtrSetbytes | MemOp::PtrSetbytesSlice | MemOp::Memset => MemKind::Setbytes,
            MemOp::PtrCmp | MemOp::PtrCmpSlice | MemOp::Memcmp => MemKind::Cmp,
        }
    }

    pub fn is_slice(self) -> bool {
        matches!(
            self,
            MemOp::PtrCopySlice | MemOp::PtrMoveSlice | MemOp::PtrSetbytesSlice | MemOp::PtrCmpSlice
        )
    }

    /// The `ptr_*` operation a byte shim forwards to (itself otherwise):
    /// its panics are named after it, as upstream's shims call it.
    pub fn forwarded(self) -> MemOp {
        match self {
            MemOp::Memcpy => MemOp::PtrCopy,
            MemOp::Memmove => MemOp::PtrMove,
            MemOp::Memset => MemOp::PtrSetbytes,
            MemOp::Memcmp => MemOp::PtrCmp,
            other => other,
        }
    }

    /// The indices of the pointer arguments.
    pub fn pointer_args(self) -> &'static [usize] {
        match (self.kind(), self.is_slice()) {
            (MemKind::Setbytes, _) => &[0],
            (_, false) => &[0, 1],
            (_, true) => &[0, 3],
        }
    }

    fn arity(self) -> usize {
        match self {
            MemOp::PtrSetbytesSlice => 4,
            _ if self.is_slice() => 6,
            _ => 3,
        }
    }
}

fn mismatched(labels: Vec<(At, String)>, notes: Vec<(At, String)>) -> SigError {
    SigError::Error {
        kind: ExcKind::TypeError,
        message: "mismatched types".into(),
        labels,
        notes,
    }
}

/// The signature of `op(args)`: the pointers must be `ptr[T]` of one `T`
/// (upstream `_check_ptrs_match`; the memkinds may differ), the byte shims
/// take `ptr[u8]`/`ptr[i8]` only; every other argument is converted to
/// `i32` (the byte value of `*setbytes`/`memset` to `u8`).
pub fn signature(types: &TypeTable, op: MemOp, args: &[TypeId]) -> Result<BuiltinSig, SigError> {
    if args.len() != op.arity() {
        return Err(SigError::Arity {
            min: op.arity(),
            max: op.arity(),
        });
    }
    let mut item = None;
    for &k in op.pointer_args() {
        let t = args[k];
        let TypeKind::Ptr { item: it, .. } = *types.kind(t) else {
            return Err(mismatched(
                vec![(At::Arg(k), format!("expected ptr[T], got `{}`", types.name(t)))],
                Vec::new(),
            ));
        };
        if op.forwarded() != op && !matches!(it.as_prim(), Some(PrimTy::U8 | PrimTy::I8)) {
            return Err(mismatched(
                vec![(
                    At::Arg(k),
                    format!("expected ptr[u8] or ptr[i8], got `{}`", types.name(t)),
                )],
                vec![(
                    At::Arg(k),
                    format!("help: use `{}` instead", op.forwarded().name()),
                )],
            ));
        }
        match item {
            Some((first, k0)) if first != it => {
                let [a, b] = [k0, k].map(|i: usize| (At::Arg(i), format!("`{}`", types.name(args[i]))));
                return Err(mismatched(vec![a, b], Vec::new()));
            }
            _ => item = Some((it, k)),
        }
    }
    let mut params = vec![Some(TypeId::I32); args.len()];
    for &k in op.pointer_args() {
        params[k] = None;
    }
    if op.kind() == MemKind::Setbytes {
        let value = if op.is_slice() { 3 } else { 1 };
        params[value] = Some(TypeId::U8);
    }
    let result = match op.kind() {
        MemKind::Cmp => TypeId::I32,
        _ => TypeId::NONE,
    };
    Ok(BuiltinSig {
        imp: BuiltinImpl::Mem(op),
        result: Some(result),
        params,
    })
}

/// The items an operation works on, once its arguments pass the checks:
/// `n` items from `dst_start` (and from `src_start` of the second pointer).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MemPlan {
    pub dst_start: i64,
    pub src_start: i64,
    pub n: i64,
    /// `ptr_setbytes`/`memset`: the byte written.
    pub byte: u8,
}

/// Upstream's checks of `op` (`mem.py`), in its order: `ints` are the
/// converted integer arguments by position (pointer positions unused),
/// `dst_len`/`src_len` the item counts of the pointers (0 for NULL),
/// `same` whether both pointers are one allocation. Errors: the panic
/// text after the operation's name (`out of bounds`, `length mismatch`,
/// `regions overlap`). Decision: a negative count is `out of bounds`.
pub fn plan(
    op: MemOp,
    ints: &[i64],
    dst_len: i64,
    src_len: i64,
    same: bool,
) -> Result<MemPlan, &'static str> {
    if op.kind() == MemKind::Setbytes {
        let (start, end, byte) = if op.is_slice() {
            (ints[1], ints[2], ints[3])
        } else {
            (0, ints[2], ints[1])
        };
        if end - start < 0 || start < 0 || end > dst_len {
            return Err("out of bounds");
        }
        return Ok(MemPlan {
            dst_start: start,
            src_start: 0,
            n: end - start,
            byte: byte as u8,
        });
    }
    let (a, b, n) = if op.is_slice() {
        let n = ints[2] - ints[1];
        if n != ints[5] - ints[4] {
            return Err("length mismatch");
        }
        (ints[1], ints[4], n)
    } else {
        (0, 0, ints[2])
    };
    let in_bounds = |start: i64, len: i64| start >= 0 && start + n <= len;
    if n < 0 || !in_bounds(a, dst_len) || !in_bounds(b, src_len) {
        return Err("out of bounds");
    }
    if op.kind() == (MemKind::Copy { overlap: false }) && same && n > 0 && a < b + n && b < a + n {
        return Err("regions overlap");
    }
    Ok(MemPlan {
        dst_start: a,
        src_start: b,
        n,
        byte: 0,
    })
}

/// C's `memcmp` (musl, as libspy is built) of two item sequences by their
/// little-endian bytes: the difference of the first unequal bytes, or 0.
pub fn compare_bytes(xs: impl IntoIterator<Item = u8>, ys: impl IntoIterator<Item = u8>) -> i32 {
    for (p, q) in xs.into_iter().zip(ys) {
        if p != q {
            return i32::from(p) - i32::from(q);
        }
    }
    0
}

/// The little-endian bytes of `s` (what `ptr_cmp` compares).
pub fn scalar_bytes(s: crate::vm::ops::Scalar) -> Vec<u8> {
    use crate::vm::ops::Scalar;
    match s {
        Scalar::I8(v) => v.to_le_bytes().to_vec(),
        Scalar::U8(v) => vec![v],
        Scalar::I32(v) => v.to_le_bytes().to_vec(),
        Scalar::U32(v) => v.to_le_bytes().to_vec(),
        Scalar::I64(v) => v.to_le_bytes().to_vec(),
        Scalar::U64(v) => v.to_le_bytes().to_vec(),
        Scalar::F32(v) => v.to_bits().to_le_bytes().to_vec(),
        Scalar::F64(v) => v.to_bits().to_le_bytes().to_vec(),
        Scalar::Bool(b) => vec![u8::from(b)],
    }
}

/// A primitive item whose every byte is `byte` (what `ptr_setbytes`
/// writes); a `bool` is `true` for a non-zero byte.
pub fn filled_scalar(p: PrimTy, byte: u8) -> crate::vm::ops::Scalar {
    use crate::vm::ops::Scalar;
    let b8 = [byte; 8];
    let b4 = [byte; 4];
    match p {
        PrimTy::I8 => Scalar::I8(byte as i8),
        PrimTy::U8 => Scalar::U8(byte),
        PrimTy::I32 => Scalar::I32(i32::from_le_bytes(b4)),
        PrimTy::U32 => Scalar::U32(u32::from_le_bytes(b4)),
        PrimTy::I64 => Scalar::I64(i64::from_le_bytes(b8)),
        PrimTy::U64 => Scalar::U64(u64::from_le_bytes(b8)),
        PrimTy::F32 => Scalar::F32(f32::from_bits(u32::from_le_bytes(b4))),
        PrimTy::F64 => Scalar::F64(f64::from_bits(u64::from_le_bytes(b8))),
        PrimTy::Bool => Scalar::Bool(byte != 0),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::vm::ops::Scalar;

    #[test]
    fn names_round_trip_and_bytes_are_little_endian() {
        for m in MemOp::ALL {
            assert_eq!(MemOp::find(m.name()), Some(m));
        }
        assert_eq!(filled_scalar(PrimTy::I32, 7), Scalar::I32(0x0707_0707));
        assert_eq!(scalar_bytes(Scalar::I32(0x0102_0304)), vec![4, 3, 2, 1]);
        assert_eq!(filled_scalar(PrimTy::U8, 0), Scalar::U8(0));
    }
}
