//! Calls of the `rawbuffer` module (spec §15.6, upstream's
//! `spy/vm/modules/rawbuffer.py`): a `RawBuffer` is pointer memory of
//! bytes (`vm::memory::PtrMem` of `u8`, counted by the memory budget),
//! held as a `Value::Ptr` of type `rawbuffer::RawBuffer`; `rb_get_*` /
//! `rb_set_*` read and write a scalar's little-endian bytes at a byte
//! offset (`vm::ops::rawbuffer`).

use std::cell::RefCell;
use std::rc::Rc;

use crate::error::SpyError;
use crate::frames::call::Args;
use crate::frames::{Eval, Frame, Interp};
use crate::source::TextRange;
use crate::vm::memory::PtrMem;
use crate::vm::ops::rawbuffer::{self as rb, RbFn};
use crate::vm::ops::{PrimTy, Scalar};
use crate::vm::rt_error::RuntimeError;
use crate::vm::types::TypeId;
use crate::vm::value::{PtrValue, Typed, Value};

impl Interp<'_> {
    /// `rb_alloc(n)`, `rb_set_*(b, offset, v)`, `rb_get_*(b, offset)`, the
    /// arguments checked by the signature (converted here).
    pub(crate) fn exec_rawbuffer(
        &mut self,
        f: &Frame,
        rbfn: RbFn,
        args: &Args,
        call: TextRange,
    ) -> Eval<Typed> {
        let params: &[TypeId] = match rbfn {
            RbFn::Alloc => &[TypeId::I32],
            RbFn::Set(t) => &[TypeId::RAW_BUFFER, TypeId::I32, TypeId::prim(t)],
            RbFn::Get(_) => &[TypeId::RAW_BUFFER, TypeId::I32],
        };
        let mut values = Vec::with_capacity(params.len());
        for ((a, r), &p) in args.iter().zip(params) {
            values.push(self.convert_to(f, a.clone(), p, *r, None)?.value);
        }
        let fail = |e: RuntimeError| -> crate::error::Failure {
            SpyError::from(e).with_error(&f.file, call, "").into()
        };
        if rbfn == RbFn::Alloc {
            let n = values[0].checked_i32()?;
            if n < 0 {
                return Err(fail(RuntimeError::NegativeAlloc));
            }
            let mem = PtrMem::zeroed(
                Some(PrimTy::U8),
                Value::None,
                n as usize,
                &self.meter,
                self.limits.max_memory,
            )
            .map_err(|e| self.memory_error(f, e.bytes, args[0].1))?;
            let ptr = PtrValue {
                ty: TypeId::RAW_BUFFER,
                mem: Some(Rc::new(RefCell::new(mem))),
            };
            return Ok(Typed::red(TypeId::RAW_BUFFER, Value::Ptr(ptr)));
        }
        let Value::Ptr(PtrValue { mem: Some(mem), .. }) = &values[0] else {
            return Err(crate::bug!("a RawBuffer without bytes: {:?}", values[0]));
        };
        let offset = values[1].checked_i32()?;
        let t = match rbfn {
            RbFn::Set(t) | RbFn::Get(t) => t,
            RbFn::Alloc => return Err(crate::bug!("rb_alloc handled above")),
        };
        let span = rb::span(mem.borrow().len(), offset, rb::size_of(t)).map_err(fail)?;
        match rbfn {
            RbFn::Set(_) => {
                let bytes = rb::encode(values[2].checked_scalar()?);
                let mut mem = mem.borrow_mut();
                for (k, b) in span.zip(bytes) {
                    if !matches!(mem.set(k, Value::Scalar(Scalar::U8(b))), Ok(true)) {
                        return Err(crate::bug!("a RawBuffer byte store failed"));
                    }
                }
                Ok(Typed::red(TypeId::NONE, Value::None))
            }
            _ => {
                let mem = mem.borrow();
                let bytes: Option<Vec<u8>> = span
                    .map(|k| match mem.get(k) {
                        Some(Value::Scalar(Scalar::U8(b))) => Some(b),
                        _ => None,
                    })
                    .collect();
                let bytes = bytes.ok_or_else(|| crate::bug!("a RawBuffer byte read failed"))?;
                Ok(Typed::red(TypeId::prim(t), Value::Scalar(rb::decode(t, &bytes))))
            }
        }
    }
}
