//! The runtime helpers of `bytes` values (and of the two str operations
//! that meet them: `str.encode`, `ord`): a bytes `Handle` is an index into
//! `RunState::bytes`, whose first handles are the program's bytes
//! constants (handle 0 is `b""`, what zeroed pointer memory holds). Each
//! body calls the interpreter's own function (`vm::ops::bytes`,
//! `vm::ops::str::ord`, `ops::seq::slice`) and raises its `OpError`, so results, texts and
//! error codes cannot diverge; concatenation and repetition are checked
//! against the str limit as ASTFrame's `check_str_len` does.

use std::rc::Rc;

use crate::lower::helpers::declare_helper;
use spy_jit::ir::{HelperId, ModuleBuilder, Word};
use spy_jit::runtime::CtxPtr;

use super::helpers::{with, RunState};
use crate::vm::ops::{self, OpError};

impl RunState {
    fn bytes_of(&self, h: Word) -> Rc<[u8]> {
        self.bytes.get(h as usize).cloned().expect("a valid bytes handle")
    }

    /// A new bytes value, counted with the run's strs (it lives until the
    /// run ends).
    fn bytes_handle(&mut self, b: Vec<u8>) -> Word {
        self.str_bytes = self.str_bytes.saturating_add(b.len() as u64);
        self.bytes.push(b.into());
        self.bytes.len() as Word - 1
    }
}

/// The raised error's word is never read (the error status is set).
fn or_raise<T: Default>(
    st: &mut RunState,
    c: &mut spy_jit::runtime::HelperCtx,
    r: Result<T, OpError>,
) -> Option<T> {
    match r {
        Ok(v) => Some(v),
        Err(e) => {
            st.raise(c, e);
            None
        }
    }
}

/// `a + b` (ASTFrame's `BytesConcat`).
extern "C" fn bytes_concat(ctx: CtxPtr<'_>, a: u64, b: u64) -> u64 {
    with(ctx, |st, c| {
        let (x, y) = (st.bytes_of(a), st.bytes_of(b));
        if !st.check_len(c, x.len() + y.len()) {
            return 0;
        }
        st.bytes_handle([&x[..], &y[..]].concat())
    })
}

/// `a * n` (ASTFrame's `BytesRepeat`: `ops::bytes::repeat`).
extern "C" fn bytes_repeat(ctx: CtxPtr<'_>, a: u64, n: u64) -> u64 {
    with(ctx, |st, c| {
        let (b, n) = (st.bytes_of(a), n as i32);
        if !st.check_len(c, b.len().saturating_mul(n.max(0) as usize)) {
            return 0;
        }
        match or_raise(st, c, ops::bytes::repeat(&b, n.into())) {
            Some(v) => st.bytes_handle(v),
            None => 0,
        }
    })
}

/// `a == b`.
extern "C" fn bytes_eq(ctx: CtxPtr<'_>, a: u64, b: u64) -> u64 {
    with(ctx, |st, _| u64::from(st.bytes_of(a) == st.bytes_of(b)))
}

/// `len(b)`.
extern "C" fn bytes_len(ctx: CtxPtr<'_>, a: u64) -> u64 {
    with(ctx, |st, _| st.bytes_of(a).len() as i32 as i64 as u64)
}

/// `b[i]`: `ops::bytes::index`; the byte as a word.
extern "C" fn bytes_index(ctx: CtxPtr<'_>, a: u64, i: u64) -> u64 {
    with(ctx, |st, c| {
        let b = st.bytes_of(a);
        or_raise(st, c, ops::bytes::index(&b, i as i64)).map_or(0, u64::from)
    })
}

/// `ord(b)`: `ops::bytes::ord`.
extern "C" fn bytes_ord(ctx: CtxPtr<'_>, a: u64) -> u64 {
    with(ctx, |st, c| {
        let b = st.bytes_of(a);
        or_raise(st, c, ops::bytes::ord(&b)).map_or(0, u64::from)
    })
}

/// `ord(s)` of a str: `ops::str::ord` (an `i32`).
extern "C" fn str_ord(ctx: CtxPtr<'_>, h: u64) -> u64 {
    with(ctx, |st, c| {
        let s = st.str(h);
        or_raise(st, c, ops::str::ord(&s)).map_or(0, |v| v as i64 as u64)
    })
}

/// `repr(b)` / `str(b)`: `ops::bytes::repr` (a str handle).
extern "C" fn bytes_repr(ctx: CtxPtr<'_>, a: u64) -> u64 {
    with(ctx, |st, _| {
        let b = st.bytes_of(a);
        st.handle(ops::bytes::repr(&b))
    })
}

/// `b.decode(enc)` (ASTFrame's `call_bytes_method`): the encoding is
/// checked first, then the utf-8; a str handle.
extern "C" fn bytes_decode(ctx: CtxPtr<'_>, a: u64, enc: u64) -> u64 {
    with(ctx, |st, c| {
        let (b, e) = (st.bytes_of(a), st.str(enc));
        let text = ops::bytes::check_encoding(&e).and_then(|()| ops::bytes::decode_utf8(&b));
        match or_raise(st, c, text) {
            Some(t) => st.handle(t),
            None => 0,
        }
    })
}

/// `s.encode(enc)` (ASTFrame's `StrMethod::Encode`): a bytes handle.
extern "C" fn str_encode(ctx: CtxPtr<'_>, h: u64, enc: u64) -> u64 {
    with(ctx, |st, c| {
        let (s, e) = (st.str(h), st.str(enc));
        match or_raise(st, c, ops::bytes::check_encoding(&e)) {
            Some(()) => st.bytes_handle(s.as_bytes().to_vec()),
            None => 0,
        }
    })
}

/// `b[start:stop:step]` (bit k of `given`: bound k is given): Python's
/// slice rules over the bytes, `ops::seq::slice` as ASTFrame's.
extern "C" fn bytes_slice(ctx: CtxPtr<'_>, a: u64, start: u64, stop: u64, step: u64, given: u64) -> u64 {
    with(ctx, |st, c| {
        let bound = |k: u32, w: u64| (given & (1 << k) != 0).then_some(w as i64);
        let b = st.bytes_of(a);
        let picked = ops::seq::slice(&b, bound(0, start), bound(1, stop), bound(2, step));
        match or_raise(st, c, picked) {
            Some(v) => st.bytes_handle(v),
            None => 0,
        }
    })
}

/// The bytes helpers of one module, declared once.
#[derive(Clone, Copy, Debug)]
pub struct BytesHelpers {
    pub concat: HelperId,
    pub repeat: HelperId,
    pub eq: HelperId,
    pub len: HelperId,
    pub index: HelperId,
    pub ord: HelperId,
    pub str_ord: HelperId,
    pub repr: HelperId,
    pub decode: HelperId,
    pub encode: HelperId,
    pub slice: HelperId,
}

impl BytesHelpers {
    pub fn declare(m: &mut ModuleBuilder) -> BytesHelpers {
        BytesHelpers {
            concat: declare_helper!(m, bytes_concat(Handle, Handle) -> Handle),
            repeat: declare_helper!(m, bytes_repeat(Handle, I32) -> Handle),
            eq: declare_helper!(m, bytes_eq(Handle, Handle) -> Bool),
            len: declare_helper!(m, bytes_len(Handle) -> I32),
            index: declare_helper!(m, bytes_index(Handle, I64) -> U64),
            ord: declare_helper!(m, bytes_ord(Handle) -> U64),
            str_ord: declare_helper!(m, str_ord(Handle) -> U64),
            repr: declare_helper!(m, bytes_repr(Handle) -> Handle),
            decode: declare_helper!(m, bytes_decode(Handle, Handle) -> Handle),
            encode: declare_helper!(m, str_encode(Handle, Handle) -> Handle),
            slice: declare_helper!(m, bytes_slice(Handle, I64, I64, I64, U64) -> Handle),
        }
    }
}
