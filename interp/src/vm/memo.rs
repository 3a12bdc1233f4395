//! Memoization keys of blue calls. Every blue call is memoized on (callee,
//! each argument's color, static type and — for blue arguments — value), as
//! upstream's `vm.bluecache`: primitives and strings by value, types by id,
//! functions and other reference objects by identity, tuples and structs by
//! their items, MetaArgs by (color, static type, blue value).

use std::rc::Rc;

use crate::vm::builtins::Builtin;
use crate::vm::ops::Scalar;
use crate::vm::types::TypeId;
use crate::vm::value::{Color, Value};

/// A hashable image of a value.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum ValueKey {
    /// A scalar: its type and its bits (so `0.0` and `-0.0` differ, and
    /// NaNs with the same bits are equal).
    Scalar(TypeId, u64),
    Str(Rc<str>),
    Bytes(Rc<[u8]>),
    None,
    Type(TypeId),
    Builtin(Builtin),
    /// A reference object, by address (the memo entry keeps it alive).
    Identity(usize),
    Tuple(TypeId, Vec<ValueKey>),
    Struct(TypeId, Vec<ValueKey>),
    MetaArg(Color, TypeId, Option<Box<ValueKey>>),
    Range(i32, i32, i32),
    /// A residual expression (`vm::value::ResidualExpr`): its id and window.
    Residual(u32, u32),
}

fn scalar_bits(s: Scalar) -> (TypeId, u64) {
    let bits = match s {
        Scalar::I8(v) => v as u8 as u64,
        Scalar::U8(v) => v as u64,
        Scalar::I32(v) => v as u32 as u64,
        Scalar::U32(v) => v as u64,
        Scalar::I64(v) => v as u64,
        Scalar::U64(v) => v,
        Scalar::F32(v) => v.to_bits() as u64,
        Scalar::F64(v) => v.to_bits(),
        Scalar::Bool(v) => v as u64,
    };
    (TypeId::prim(s.ty()), bits)
}

pub fn value_key(v: &Value) -> ValueKey {
    match v {
        Value::Scalar(s) => {
            let (t, b) = scalar_bits(*s);
            ValueKey::Scalar(t, b)
        }
        Value::Str(s) => ValueKey::Str(Rc::from(s.as_str())),
        Value::Bytes(b) => ValueKey::Bytes(Rc::from(b.as_bytes())),
        Value::None => ValueKey::None,
        Value::Type(t) => ValueKey::Type(*t),
        Value::Builtin(b) => ValueKey::Builtin(*b),
        Value::Func(f) => ValueKey::Identity(Rc::as_ptr(f) as *const () as usize),
        Value::Exception(e) => ValueKey::Identity(Rc::as_ptr(e) as *const () as usize),
        Value::Module(m) => ValueKey::Identity(m.0 as usize),
        Value::Tuple(t) => ValueKey::Tuple(t.ty, t.items.iter().map(value_key).collect()),
        Value::Struct(s) => ValueKey::Struct(s.ty, s.fields.iter().map(value_key).collect()),
        Value::Range(r) => ValueKey::Range(r.start, r.stop, r.step),
        // Files are red (never in a blue-call key); an id, not an address.
        Value::File(id) => ValueKey::Identity(usize::MAX - id.0 as usize),
        Value::Meta(m) => m.key(),
        Value::OpSpec(o) => ValueKey::Identity(Rc::as_ptr(o) as *const () as usize),
        Value::Ptr(p) => ValueKey::Identity(p.identity()),
        // red: made only from allocations, at run time
        Value::Ref(r) => ValueKey::Identity(Rc::as_ptr(r) as *const () as usize),
        Value::List(l) => ValueKey::Identity(Rc::as_ptr(l) as *const () as usize),
        // red, like the list it walks
        Value::ListIter(it) => ValueKey::Identity(Rc::as_ptr(it) as *const () as usize),
        Value::Dict(d) => ValueKey::Identity(Rc::as_ptr(d) as *const () as usize),
        Value::GenericStruct(g) => ValueKey::Identity(Rc::as_ptr(g) as *const () as usize),
        // Residual values are red: blue-call keys never hold them (an id
        // of the residual module and its window).
        Value::Residual(e) => ValueKey::Residual(e.expr.index() as u32, e.window),
        Value::Simd(s) => ValueKey::Tuple(
            s.ty,
            s.lanes.iter().map(|l| value_key(&Value::Scalar(*l))).collect(),
        ),
    }
}

/// The key of one argument of a blue call.
pub fn arg_key(color: Color, ty: TypeId, v: &Value) -> (Color, TypeId, Option<ValueKey>) {
    match color {
        Color::Blue => (Color::Blue, ty, Some(value_key(v))),
        Color::Red => (Color::Red, ty, None),
    }
}
