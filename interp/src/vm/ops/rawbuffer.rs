//! The accessors of `rawbuffer.RawBuffer` (upstream's
//! `spy/vm/modules/rawbuffer.py`, spec §15.6), value-free: which function
//! is which, where an access at a byte offset lies, and the little-endian
//! bytes of its scalar (the layout of upstream's targets). ASTFrame and the
//! jit's helpers keep the bytes their own way and use these rules.

use std::ops::Range;

use crate::vm::ops::{PrimTy, Scalar};
use crate::vm::rt_error::RuntimeError;

/// A function of the `rawbuffer` module.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum RbFn {
    /// `rb_alloc(size)`: `size` zeroed bytes.
    Alloc,
    /// `rb_set_i32(b, offset, v)`, `rb_set_f64(b, offset, v)`.
    Set(PrimTy),
    /// `rb_get_i32(b, offset)`, `rb_get_f64(b, offset)`.
    Get(PrimTy),
}

impl RbFn {
    pub const ALL: [RbFn; 5] = [
        RbFn::Alloc,
        RbFn::Set(PrimTy::I32),
        RbFn::Get(PrimTy::I32),
        RbFn::Set(PrimTy::F64),
        RbFn::Get(PrimTy::F64),
    ];

    pub fn name(self) -> &'static str {
        match self {
            RbFn::Alloc => "rb_alloc",
            RbFn::Set(PrimTy::I32) => "rb_set_i32",
            RbFn::Get(PrimTy::I32) => "rb_get_i32",
            RbFn::Set(_) => "rb_set_f64",
            RbFn::Get(_) => "rb_get_f64",
        }
    }

    pub fn find(name: &str) -> Option<RbFn> {
        RbFn::ALL.into_iter().find(|f| f.name() == name)
    }
}

/// The bytes an access of `size` bytes at `offset` covers in a buffer of
/// `len` bytes. Decision: outside `0..len` it is `PanicError: rawbuffer
/// access out of bounds` (upstream's interpreter lets Python's `struct`
/// count a negative offset from the end or raise its own error; its C code
/// does not check).
pub fn span(len: usize, offset: i32, size: usize) -> Result<Range<usize>, RuntimeError> {
    let start = usize::try_from(offset).map_err(|_| RuntimeError::RawBufferOutOfBounds)?;
    match start.checked_add(size) {
        Some(end) if end <= len => Ok(start..end),
        _ => Err(RuntimeError::RawBufferOutOfBounds),
    }
}

/// The number of bytes a scalar of type `t` takes in a buffer.
pub fn size_of(t: PrimTy) -> usize {
    (t.bits() as usize / 8).max(1)
}

/// The little-endian bytes of `s`.
pub fn encode(s: Scalar) -> Vec<u8> {
    match s {
        Scalar::I8(v) => v.to_le_bytes().to_vec(),
        Scalar::U8(v) => v.to_le_bytes().to_vec(),
        Scalar::I32(v) => v.to_le_bytes().to_vec(),
        Scalar::U32(v) => v.to_le_bytes().to_vec(),
        Scalar::I64(v) => v.to_le_bytes().to_vec(),
        Scalar::U64(v) => v.to_le_bytes().to_vec(),
        Scalar::F32(v) => v.to_le_bytes().to_vec(),
        Scalar::F64(v) => v.to_le_bytes().to_vec(),
        Scalar::Bool(v) => vec![u8::from(v)],
    }
}

/// The scalar of type `t` whose little-endian bytes are `b` (`size_of(t)`
/// of them).
pub fn decode(t: PrimTy, b: &[u8]) -> Scalar {
    let mut w = [0u8; 8];
    w[..b.len().min(8)].copy_from_slice(&b[..b.len().min(8)]);
    match t {
        PrimTy::I8 => Scalar::I8(w[0] as i8),
        PrimTy::U8 => Scalar::U8(w[0]),
        PrimTy::I32 => Scalar::I32(i32::from_le_bytes([w[0], w[1], w[2], w[3]])),
        PrimTy::U32 => Scalar::U32(u32::from_le_bytes([w[0], w[1], w[2], w[3]])),
        PrimTy::I64 => Scalar::I64(i64::from_le_bytes(w)),
        PrimTy::U64 => Scalar::U64(u64::from_le_bytes(w)),
        PrimTy::F32 => Scalar::F32(f32::from_le_bytes([w[0], w[1], w[2], w[3]])),
        PrimTy::F64 => Scalar::F64(f64::from_le_bytes(w)),
        PrimTy::Bool => Scalar::Bool(w[0] != 0),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn accesses_lie_within_the_buffer() {
        assert_eq!(span(8, 4, 4), Ok(4..8));
        assert_eq!(span(8, 0, 8), Ok(0..8));
        assert_eq!(span(8, 5, 4), Err(RuntimeError::RawBufferOutOfBounds));
        assert_eq!(span(8, -4, 4), Err(RuntimeError::RawBufferOutOfBounds));
        assert_eq!(span(0, 0, 4), Err(RuntimeError::RawBufferOutOfBounds));
        assert_eq!(
            span(usize::MAX, i32::MAX, 8),
            Ok(i32::MAX as usize..i32::MAX as usize + 8)
        );
    }

    #[test]
    fn scalars_round_trip_through_little_endian_bytes() {
        for s in [
            Scalar::I32(-2),
            Scalar::I32(i32::MIN),
            Scalar::F64(12.3),
            Scalar::F64(-0.0),
        ] {
            let b = encode(s);
            assert_eq!(b.len(), size_of(s.ty()));
            assert_eq!(encode(decode(s.ty(), &b)), b);
        }
        assert_eq!(encode(Scalar::I32(-2)), vec![0xfe, 0xff, 0xff, 0xff]);
        // bytes 1..5 of -2 written at 1, read at 0: upstream's -512
        let mut buf = [0u8; 8];
        buf[1..5].copy_from_slice(&encode(Scalar::I32(-2)));
        assert_eq!(decode(PrimTy::I32, &buf[0..4]), Scalar::I32(-512));
    }
}
