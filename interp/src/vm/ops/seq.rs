//! The item-level rules of `list[T]` operations that every engine shares:
//! which items a slice picks, where `insert` puts an item, which index
//! `pop(i)` removes. ASTFrame applies them to its `Value`s, the JIT's
//! runtime helpers to their item words, so the two cannot diverge.

use super::str::slice_indices;
use super::OpError;

/// `items[start:stop:step]` with Python's slice rules (upstream
/// `_list.spy` `_getitem_slice`). Errors: `ValueError: slice step cannot be
/// zero`.
pub fn slice<T: Clone>(
    items: &[T],
    start: Option<i64>,
    stop: Option<i64>,
    step: Option<i64>,
) -> Result<Vec<T>, OpError> {
    let n = i64::try_from(items.len()).unwrap_or(i64::MAX);
    let (start, stop, step) = slice_indices(n, start, stop, step)?;
    let mut out = Vec::new();
    let mut i = start;
    while (step > 0 && i < stop) || (step < 0 && i > stop) {
        // `slice_indices` keeps every visited index within 0..n.
        if let Some(v) = usize::try_from(i).ok().and_then(|i| items.get(i)) {
            out.push(v.clone());
        }
        i = i.saturating_add(step);
    }
    Ok(out)
}

/// Where `insert(k, x)` puts `x` in a list of `len` items (a negative `k`
/// counts from the end; both ends clamp).
pub fn insert_slot(k: i64, len: usize) -> usize {
    let len = len as i64;
    let k = if k < 0 { (k + len).max(0) } else { k.min(len) };
    k as usize
}

/// The item `l[raw]` reads (and `pop(raw)` removes) in a list of `len`
/// items, or `None`:
/// `IndexError` (a negative index counts from the end).
pub fn item_slot(raw: i64, len: usize) -> Option<usize> {
    let len = len as i64;
    let k = if raw < 0 { raw + len } else { raw };
    (0..len).contains(&k).then_some(k as usize)
}

/// The label ASTFrame puts on an out-of-range list index.
pub fn index_label(raw: i64, len: usize) -> String {
    format!("index {raw} of a list of length {len}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn slices_follow_python() {
        let a = [0, 1, 2, 3, 4, 5];
        assert_eq!(slice(&a, Some(1), Some(4), None), Ok(vec![1, 2, 3]));
        assert_eq!(slice(&a, None, None, Some(-2)), Ok(vec![5, 3, 1]));
        assert_eq!(slice(&a, Some(-2), None, None), Ok(vec![4, 5]));
        assert_eq!(slice(&a, Some(10), None, None), Ok(vec![]));
        assert!(slice(&a, None, None, Some(0)).is_err());
    }

    #[test]
    fn insert_and_item_slots() {
        assert_eq!(insert_slot(-10, 3), 0);
        assert_eq!(insert_slot(10, 3), 3);
        assert_eq!(insert_slot(-1, 3), 2);
        assert_eq!(item_slot(-3, 3), Some(0));
        assert_eq!(item_slot(-4, 3), None);
        assert_eq!(item_slot(3, 3), None);
    }
}
