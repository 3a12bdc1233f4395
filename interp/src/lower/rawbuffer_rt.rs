//! The runtime helpers of `rawbuffer.RawBuffer` (spec §15.6): a buffer is
//! one of the run's pointer buffers (made by `ptr_alloc` with `u8` items),
//! found by its address; a scalar is read or written as the little-endian
//! bytes of its words, at a byte offset checked by the interpreter's own
//! rule (`vm::ops::rawbuffer::span`), so the error is ASTFrame's.

use spy_jit::ir::{HelperId, ModuleBuilder};
use spy_jit::runtime::CtxPtr;

use super::helpers::with;
use super::layout::{prim_of_code, scalar_of_word, word_of_scalar};
use super::mem_rt::{buffer, byte_at, set_byte};
use crate::lower::helpers::declare_helper;
use crate::vm::ops::rawbuffer as rb;
use crate::vm::ops::OpError;

/// The canonical word of the scalar of type code `ty` at byte `offset` of
/// the buffer at `addr` holding `len` bytes (`PanicError` outside it).
extern "C" fn rb_get(ctx: CtxPtr<'_>, addr: u64, len: u64, offset: u64, ty: u64) -> u64 {
    with(ctx, |st, c| {
        let t = prim_of_code(ty).expect("a primitive type code");
        match rb::span(len as usize, offset as i32, rb::size_of(t)) {
            Ok(span) => {
                let buf = buffer(st, addr);
                let bytes: Vec<u8> = span.map(|k| byte_at(buf, k)).collect();
                word_of_scalar(rb::decode(t, &bytes))
            }
            Err(e) => {
                st.raise(c, OpError::Runtime(e));
                0
            }
        }
    })
}

/// Write the scalar of type code `ty` whose canonical word is `w` at byte
/// `offset` of the buffer (`PanicError` outside it, nothing written).
extern "C" fn rb_set(ctx: CtxPtr<'_>, addr: u64, len: u64, offset: u64, ty: u64, w: u64) {
    with(ctx, |st, c| {
        let t = prim_of_code(ty).expect("a primitive type code");
        match rb::span(len as usize, offset as i32, rb::size_of(t)) {
            Ok(span) => {
                let bytes = rb::encode(scalar_of_word(t, w));
                let buf = buffer(st, addr);
                for (k, b) in span.zip(bytes) {
                    set_byte(buf, k, b);
                }
            }
            Err(e) => st.raise(c, OpError::Runtime(e)),
        }
    })
}

#[derive(Clone, Copy, Debug)]
pub struct RawBufferHelpers {
    pub get: HelperId,
    pub set: HelperId,
}

impl RawBufferHelpers {
    pub fn declare(m: &mut ModuleBuilder) -> RawBufferHelpers {
        RawBufferHelpers {
            get: declare_helper!(m, rb_get(Ptr, I64, I32, U64) -> U64),
            set: declare_helper!(m, rb_set(Ptr, I64, I32, U64, U64) -> ()),
        }
    }
}
