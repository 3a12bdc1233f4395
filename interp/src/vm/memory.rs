//! Pointer memory and the memory budget (spec §7, "Resource limits").
//!
//! What `gc_alloc[T](n)` allocates is [`PtrMem`]: items of a primitive type
//! are stored unboxed in a typed vector (`Vec<u8>`, `Vec<f64>`, ...), so `n`
//! items of `T` cost about `n × sizeof(T)` bytes; other items (structs,
//! pointers, SIMD vectors) are boxed [`Value`]s. Every allocation is
//! counted by a shared [`Meter`] while it is alive (it gives its bytes back
//! when the last pointer to it goes), and one that would take the live
//! total past the budget (`Limits::max_memory`, `--max-memory`) is refused
//! before anything is allocated: the caller raises `MemoryError`.
//!
//! Strings and list items count too, as a running total of what is alive
//! ([`live_heap_bytes`]): a str's text is a [`Text`], which adds its length
//! when it is made or grows and gives it back when the last reference goes
//! (its `Rc` drops it); a list keeps a [`HeapBytes`] in step with its
//! length. The total is per thread: a program runs on its own evaluator
//! thread (`native_stack::run`), and values are `Rc`s that never leave it.
//! Counting is two additions per string, so the check before building one
//! (`Interp::check_memory`) is cheap.

use std::cell::Cell;
use std::rc::Rc;

use crate::vm::ops::{PrimTy, Scalar};
use crate::vm::value::Value;

/// The live bytes of pointer memory, shared by every allocation of one
/// interpreter.
#[derive(Debug, Default)]
pub struct Meter {
    used: Cell<u64>,
}

impl Meter {
    /// Bytes counted now.
    pub fn used(&self) -> u64 {
        self.used.get()
    }

    /// Count `bytes` more if the total stays within `limit`.
    fn reserve(&self, bytes: u64, limit: u64) -> bool {
        match self.used.get().checked_add(bytes) {
            Some(total) if total <= limit => {
                self.used.set(total);
                true
            }
            _ => false,
        }
    }

    fn release(&self, bytes: u64) {
        self.used.set(self.used.get().saturating_sub(bytes));
    }

    /// Count `bytes` of memory that lives elsewhere (the JIT's pointer
    /// buffers) against `limit` while the returned [`Charge`] lives, by
    /// the rule [`PtrMem::zeroed`] applies.
    pub fn charge(self: &Rc<Meter>, bytes: u64, limit: u64) -> Result<Charge, OverBudget> {
        if !self.reserve(bytes, limit) {
            return Err(OverBudget { bytes });
        }
        Ok(Charge {
            bytes,
            meter: self.clone(),
        })
    }
}

/// Bytes counted by a [`Meter`] until dropped.
#[derive(Debug)]
pub struct Charge {
    bytes: u64,
    meter: Rc<Meter>,
}

impl Drop for Charge {
    fn drop(&mut self) {
        self.meter.release(self.bytes);
    }
}

/// The items behind a pointer, unboxed when their type is primitive.
#[derive(Debug)]
enum Items {
    I8(Vec<i8>),
    U8(Vec<u8>),
    I32(Vec<i32>),
    U32(Vec<u32>),
    I64(Vec<i64>),
    U64(Vec<u64>),
    F32(Vec<f32>),
    F64(Vec<f64>),
    Bool(Vec<bool>),
    Values(Vec<Value>),
}

/// What one item costs: a primitive its size, anything else a boxed value.
pub fn item_bytes(item: Option<PrimTy>) -> u64 {
    match item {
        Some(PrimTy::Bool) => 1,
        Some(p) => u64::from(p.bits() / 8).max(1),
        None => std::mem::size_of::<Value>() as u64,
    }
}

/// A gc-managed array of items, counted by its interpreter's [`Meter`].
#[derive(Debug)]
pub struct PtrMem {
    items: Items,
    bytes: u64,
    meter: Rc<Meter>,
}

/// An allocation the budget does not allow (or the host refused).
#[derive(Debug)]
pub struct OverBudget {
    pub bytes: u64,
}

impl PtrMem {
    /// `n` items, each `zero` (a scalar of `item` when `item` is
    /// primitive), counted against `limit` bytes of live memory.
    pub fn zeroed(
        item: Option<PrimTy>,
        zero: Value,
        n: usize,
        meter: &Rc<Meter>,
        limit: u64,
    ) -> Result<PtrMem, OverBudget> {
        let bytes = item_bytes(item).saturating_mul(n as u64);
        if !meter.reserve(bytes, limit) {
            return Err(OverBudget { bytes });
        }
        let items = match Self::filled(item, zero, n) {
            Some(items) => items,
            None => {
                meter.release(bytes);
                return Err(OverBudget { bytes });
            }
        };
        Ok(PtrMem {
            items,
            bytes,
            meter: meter.clone(),
        })
    }

    /// The vector, or `None` when the host cannot allocate it.
    fn filled(item: Option<PrimTy>, zero: Value, n: usize) -> Option<Items> {
        fn vec_of<T: Clone>(v: T, n: usize) -> Option<Vec<T>> {
            let mut out = Vec::new();
            out.try_reserve_exact(n).ok()?;
            out.resize(n, v);
            Some(out)
        }
        Some(match item {
            Some(PrimTy::I8) => Items::I8(vec_of(0, n)?),
            Some(PrimTy::U8) => Items::U8(vec_of(0, n)?),
            Some(PrimTy::I32) => Items::I32(vec_of(0, n)?),
            Some(PrimTy::U32) => Items::U32(vec_of(0, n)?),
            Some(PrimTy::I64) => Items::I64(vec_of(0, n)?),
            Some(PrimTy::U64) => Items::U64(vec_of(0, n)?),
            Some(PrimTy::F32) => Items::F32(vec_of(0.0, n)?),
            Some(PrimTy::F64) => Items::F64(vec_of(0.0, n)?),
            Some(PrimTy::Bool) => Items::Bool(vec_of(false, n)?),
            None => Items::Values(vec_of(zero, n)?),
        })
    }

    pub fn len(&self) -> usize {
        match &self.items {
            Items::I8(v) => v.len(),
            Items::U8(v) => v.len(),
            Items::I32(v) => v.len(),
            Items::U32(v) => v.len(),
            Items::I64(v) => v.len(),
            Items::U64(v) => v.len(),
            Items::F32(v) => v.len(),
            Items::F64(v) => v.len(),
            Items::Bool(v) => v.len(),
            Items::Values(v) => v.len(),
        }
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Item `i`, if it exists.
    pub fn get(&self, i: usize) -> Option<Value> {
        let s = |x: Scalar| Some(Value::Scalar(x));
        match &self.items {
            Items::I8(v) => s(Scalar::I8(*v.get(i)?)),
            Items::U8(v) => s(Scalar::U8(*v.get(i)?)),
            Items::I32(v) => s(Scalar::I32(*v.get(i)?)),
            Items::U32(v) => s(Scalar::U32(*v.get(i)?)),
            Items::I64(v) => s(Scalar::I64(*v.get(i)?)),
            Items::U64(v) => s(Scalar::U64(*v.get(i)?)),
            Items::F32(v) => s(Scalar::F32(*v.get(i)?)),
            Items::F64(v) => s(Scalar::F64(*v.get(i)?)),
            Items::Bool(v) => s(Scalar::Bool(*v.get(i)?)),
            Items::Values(v) => v.get(i).cloned(),
        }
    }

    /// Store `value` (already converted to the item type) at `i`:
    /// `Ok(false)` when `i` is out of bounds, `Err` when the value does not
    /// have the item type (a broken invariant of the caller).
    pub fn set(&mut self, i: usize, value: Value) -> Result<bool, Value> {
        macro_rules! store {
            ($v:expr, $variant:ident) => {
                match (value, $v.get_mut(i)) {
                    (Value::Scalar(Scalar::$variant(x)), Some(slot)) => {
                        *slot = x;
                        Ok(true)
                    }
                    (Value::Scalar(Scalar::$variant(_)), None) => Ok(false),
                    (other, _) => Err(other),
                }
            };
        }
        match &mut self.items {
            Items::I8(v) => store!(v, I8),
            Items::U8(v) => store!(v, U8),
            Items::I32(v) => store!(v, I32),
            Items::U32(v) => store!(v, U32),
            Items::I64(v) => store!(v, I64),
            Items::U64(v) => store!(v, U64),
            Items::F32(v) => store!(v, F32),
            Items::F64(v) => store!(v, F64),
            Items::Bool(v) => store!(v, Bool),
            Items::Values(v) => match v.get_mut(i) {
                Some(slot) => {
                    *slot = value;
                    Ok(true)
                }
                None => Ok(false),
            },
        }
    }
}

impl Drop for PtrMem {
    fn drop(&mut self) {
        self.meter.release(self.bytes);
    }
}

thread_local! {
    static LIVE_HEAP: Cell<u64> = const { Cell::new(0) };
}

/// Bytes of str text and list items alive on this thread.
pub fn live_heap_bytes() -> u64 {
    LIVE_HEAP.with(Cell::get)
}

fn heap_add(bytes: u64) {
    LIVE_HEAP.with(|c| c.set(c.get().saturating_add(bytes)));
}

fn heap_sub(bytes: u64) {
    LIVE_HEAP.with(|c| c.set(c.get().saturating_sub(bytes)));
}

/// An amount of live heap bytes held by one object (a list's items): set
/// as the object changes, given back when it is dropped.
#[derive(Debug, Default)]
pub struct HeapBytes(Cell<u64>);

impl HeapBytes {
    pub fn new(bytes: u64) -> HeapBytes {
        heap_add(bytes);
        HeapBytes(Cell::new(bytes))
    }

    /// The object now holds `bytes`.
    pub fn set(&self, bytes: u64) {
        let old = self.0.replace(bytes);
        heap_sub(old);
        heap_add(bytes);
    }
}

impl Drop for HeapBytes {
    fn drop(&mut self) {
        heap_sub(self.0.get());
    }
}

/// The text of a `str` value, counted in [`live_heap_bytes`] while it is
/// alive. It reads as a `str`; it grows only by [`Text::push_str`].
#[derive(PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Text(String);

impl Text {
    pub fn new(s: String) -> Text {
        heap_add(s.len() as u64);
        Text(s)
    }

    pub fn push_str(&mut self, s: &str) {
        heap_add(s.len() as u64);
        self.0.push_str(s);
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl From<String> for Text {
    fn from(s: String) -> Text {
        Text::new(s)
    }
}

impl From<&str> for Text {
    fn from(s: &str) -> Text {
        Text::new(s.to_string())
    }
}

impl Clone for Text {
    fn clone(&self) -> Text {
        Text::new(self.0.clone())
    }
}

impl Drop for Text {
    fn drop(&mut self) {
        heap_sub(self.0.len() as u64);
    }
}

impl std::ops::Deref for Text {
    type Target = str;
    fn deref(&self) -> &str {
        &self.0
    }
}

impl std::fmt::Debug for Text {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        std::fmt::Debug::fmt(&self.0, f)
    }
}

impl std::fmt::Display for Text {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

/// The content of a `bytes` value, counted in [`live_heap_bytes`] while it
/// is alive, like a [`Text`]. Immutable.
#[derive(PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Blob(Vec<u8>);

impl Blob {
    pub fn new(b: Vec<u8>) -> Blob {
        heap_add(b.len() as u64);
        Blob(b)
    }

    pub fn as_bytes(&self) -> &[u8] {
        &self.0
    }
}

impl Clone for Blob {
    fn clone(&self) -> Blob {
        Blob::new(self.0.clone())
    }
}

impl Drop for Blob {
    fn drop(&mut self) {
        heap_sub(self.0.len() as u64);
    }
}

impl std::ops::Deref for Blob {
    type Target = [u8];
    fn deref(&self) -> &[u8] {
        &self.0
    }
}

impl std::fmt::Debug for Blob {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "b\"{}\"", self.0.escape_ascii())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn primitive_items_cost_their_size() {
        let meter = Rc::new(Meter::default());
        let m = PtrMem::zeroed(Some(PrimTy::U8), Value::None, 1000, &meter, 1 << 20).unwrap();
        assert_eq!(meter.used(), 1000);
        let f = PtrMem::zeroed(Some(PrimTy::F64), Value::None, 10, &meter, 1 << 20).unwrap();
        assert_eq!(meter.used(), 1080);
        drop(m);
        assert_eq!(meter.used(), 80);
        assert_eq!(f.get(3).and_then(|v| v.as_scalar()), Some(Scalar::F64(0.0)));
    }

    #[test]
    fn an_allocation_past_the_budget_is_refused_and_not_counted() {
        let meter = Rc::new(Meter::default());
        let _a = PtrMem::zeroed(Some(PrimTy::I64), Value::None, 100, &meter, 1000).unwrap();
        let e = PtrMem::zeroed(Some(PrimTy::I64), Value::None, 26, &meter, 1000).unwrap_err();
        assert_eq!(e.bytes, 208);
        assert_eq!(meter.used(), 800);
    }

    #[test]
    fn stores_are_typed_and_bounds_checked() {
        let meter = Rc::new(Meter::default());
        let mut m = PtrMem::zeroed(Some(PrimTy::I32), Value::None, 2, &meter, 100).unwrap();
        assert!(m.set(1, Value::i32(7)).unwrap());
        assert!(!m.set(2, Value::i32(7)).unwrap());
        assert!(m.set(0, Value::bool(true)).is_err());
        assert_eq!(m.get(1).and_then(|v| v.as_i32()), Some(7));
        assert!(m.get(2).is_none());
    }
}
