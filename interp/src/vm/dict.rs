//! The values of `dict[K, V]` and `interp_dict[K, V]`: a table of entries
//! in insertion order, found by each key's hashable image
//! ([`crate::vm::memo::ValueKey`]). Deleting a key moves the last entry
//! into its place, as upstream's `stdlib/_dict.spy` does
//! (`swap_last_entry_with`), so iteration order after a delete is
//! upstream's too. Which key types are allowed is decided by
//! [`crate::vm::types::TypeTable::dict_key_ok`].

use std::cell::RefCell;

use foldhash::HashMap;

use crate::vm::memo::{value_key, ValueKey};
use crate::vm::memory::HeapBytes;
use crate::vm::types::TypeId;
use crate::vm::value::Value;

#[derive(Debug, Default)]
struct Table {
    entries: Vec<(Value, Value)>,
    index: HashMap<ValueKey, usize>,
}

/// A dict: shared and mutable (copies alias the same entries).
#[derive(Debug)]
pub struct DictValue {
    pub ty: TypeId,
    table: RefCell<Table>,
    /// The entries' bytes in the memory budget (`vm::memory`).
    counted: HeapBytes,
}

impl DictValue {
    pub fn new(ty: TypeId) -> DictValue {
        DictValue {
            ty,
            table: RefCell::new(Table::default()),
            counted: HeapBytes::new(0),
        }
    }

    /// What `len` entries cost in the memory budget: the key and value and
    /// one index slot each.
    pub fn bytes_of(len: usize) -> u64 {
        let entry = 2 * std::mem::size_of::<Value>() + std::mem::size_of::<(ValueKey, usize)>();
        (len as u64).saturating_mul(entry as u64)
    }

    fn recount(&self) {
        self.counted.set(Self::bytes_of(self.len()));
    }

    pub fn len(&self) -> usize {
        self.table.borrow().entries.len()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    pub fn get(&self, key: &Value) -> Option<Value> {
        let t = self.table.borrow();
        t.index.get(&value_key(key)).map(|&k| t.entries[k].1.clone())
    }

    pub fn contains(&self, key: &Value) -> bool {
        self.table.borrow().index.contains_key(&value_key(key))
    }

    /// `d[key] = value`; whether the key is new (the dict grew).
    pub fn insert(&self, key: Value, value: Value) -> bool {
        let mut t = self.table.borrow_mut();
        let hk = value_key(&key);
        if let Some(&k) = t.index.get(&hk) {
            t.entries[k].1 = value;
            return false;
        }
        let k = t.entries.len();
        t.entries.push((key, value));
        t.index.insert(hk, k);
        drop(t);
        self.recount();
        true
    }

    /// Remove `key`; its value, or `None` when it is not there.
    pub fn remove(&self, key: &Value) -> Option<Value> {
        let mut t = self.table.borrow_mut();
        let k = t.index.remove(&value_key(key))?;
        let (_, v) = t.entries.swap_remove(k);
        if let Some((moved, _)) = t.entries.get(k) {
            let mk = value_key(moved);
            t.index.insert(mk, k);
        }
        drop(t);
        self.recount();
        Some(v)
    }

    /// The key of entry `i` (iteration reads the entries by position, as
    /// upstream's `dict_iterator`).
    pub fn key_at(&self, i: usize) -> Option<Value> {
        self.table.borrow().entries.get(i).map(|(k, _)| k.clone())
    }

    /// A snapshot of the entries, in order.
    pub fn entries(&self) -> Vec<(Value, Value)> {
        self.table.borrow().entries.clone()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn delete_moves_the_last_entry_into_the_hole() {
        let d = DictValue::new(TypeId::I32);
        for k in 1..=4 {
            assert!(d.insert(Value::i32(k), Value::i32(10 * k)));
        }
        assert!(!d.insert(Value::i32(2), Value::i32(22)));
        assert_eq!(d.remove(&Value::i32(2)).and_then(|v| v.as_i32()), Some(22));
        assert!(d.remove(&Value::i32(2)).is_none());
        let keys: Vec<i32> = d.entries().iter().filter_map(|(k, _)| k.as_i32()).collect();
        assert_eq!(keys, [1, 4, 3]);
        assert_eq!(d.get(&Value::i32(4)).and_then(|v| v.as_i32()), Some(40));
        assert!(d.contains(&Value::i32(3)) && !d.contains(&Value::i32(2)));
        assert_eq!(d.len(), 3);
    }
}
