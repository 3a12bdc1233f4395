//! The runtime helpers of `list[T]` operations beyond display, index and
//! length (those are in `helpers`): store, the methods, `+`, `*`, slices.
//! Items are canonical words (`layout::word_of_scalar`; a float is moved
//! in and out of a word by `word_of_f64`/`f64_of_word` and the f32 pair).
//! Each body applies the interpreter's own rule (`vm::ops::seq`, the
//! scalar `==` of `ops::cmpop`, `ops::str::eq`) and raises its errors with
//! ASTFrame's annotation text (`RunState::label`).

use spy_jit::ir::Word;
use spy_jit::runtime::{guard, CtxPtr, HelperCtx};

use super::helpers::{with, RunState, STR_ITEM};
use crate::lower::layout::{prim_of_code, scalar_of_word};
use crate::syntax::ast::CmpOp;
use crate::vm::ops::{self, seq, OpError, Scalar};
use crate::vm::rt_error::RuntimeError;
use crate::vm::value::ListValue;

fn items(st: &mut RunState, h: u64) -> &mut Vec<Word> {
    st.lists.get_mut(h as usize).expect("a valid list handle")
}

fn new_list(st: &mut RunState, items: Vec<Word>) -> u64 {
    st.lists.push(items);
    st.lists.len() as Word - 1
}

fn index_error(st: &mut RunState, c: &mut HelperCtx, raw: i64, len: usize) {
    st.label = Some(seq::index_label(raw, len));
    st.raise(c, OpError::Runtime(RuntimeError::ListIndex));
}

pub(super) extern "C" fn word_of_f64(ctx: CtxPtr<'_>, x: f64) -> u64 {
    guard(ctx, |_| x.to_bits())
}

pub(super) extern "C" fn f64_of_word(ctx: CtxPtr<'_>, w: u64) -> f64 {
    guard(ctx, |_| f64::from_bits(w))
}

pub(super) extern "C" fn word_of_f32(ctx: CtxPtr<'_>, x: f32) -> u64 {
    guard(ctx, |_| u64::from(x.to_bits()))
}

pub(super) extern "C" fn f32_of_word(ctx: CtxPtr<'_>, w: u64) -> f32 {
    guard(ctx, |_| f32::from_bits(w as u32))
}

/// `l[i] = w` (ASTFrame's `list_setitem`).
pub(super) extern "C" fn list_set(ctx: CtxPtr<'_>, h: u64, i: u64, w: u64) {
    with(ctx, |st, c| {
        let len = items(st, h).len();
        match seq::item_slot(i as i64, len) {
            Some(k) => items(st, h)[k] = w,
            None => index_error(st, c, i as i64, len),
        }
    })
}

/// `l.append(w)` within the memory budget (ASTFrame counts the item).
pub(super) extern "C" fn list_append(ctx: CtxPtr<'_>, h: u64, w: u64) {
    with(ctx, |st, c| {
        if st.check_memory(c, ListValue::bytes_of(1)) {
            items(st, h).push(w);
        }
    })
}

/// `l.insert(i, w)`.
pub(super) extern "C" fn list_insert(ctx: CtxPtr<'_>, h: u64, i: u64, w: u64) {
    with(ctx, |st, c| {
        if st.check_memory(c, ListValue::bytes_of(1)) {
            let k = seq::insert_slot(i as i64, items(st, h).len());
            items(st, h).insert(k, w);
        }
    })
}

/// `l.pop(i)` (`given` 0: `l.pop()`, the last item): `IndexError` first
/// for an empty list, as ASTFrame.
pub(super) extern "C" fn list_pop(ctx: CtxPtr<'_>, h: u64, i: u64, given: u64) -> u64 {
    with(ctx, |st, c| {
        let len = items(st, h).len();
        if len == 0 {
            st.raise(c, OpError::Runtime(RuntimeError::PopEmptyList));
            return 0;
        }
        let raw = if given == 0 { -1 } else { i as i64 };
        match seq::item_slot(raw, len) {
            Some(k) => items(st, h).remove(k),
            None => {
                index_error(st, c, raw, len);
                0
            }
        }
    })
}

/// Remove item `k` of `l` if the list still has it (`l.remove(x)` after a
/// scan whose `__eq__` calls may have shortened the list).
pub(super) extern "C" fn list_remove_at(ctx: CtxPtr<'_>, h: u64, k: u64) {
    with(ctx, |st, _| {
        let items = items(st, h);
        if (k as usize) < items.len() {
            items.remove(k as usize);
        }
    })
}

pub(super) extern "C" fn list_clear(ctx: CtxPtr<'_>, h: u64) {
    with(ctx, |st, _| items(st, h).clear())
}

pub(super) extern "C" fn list_copy(ctx: CtxPtr<'_>, h: u64) -> u64 {
    with(ctx, |st, _| {
        let v = items(st, h).clone();
        new_list(st, v)
    })
}

/// `l.extend(o)`: the items `o` had before the call (`l.extend(l)`
/// doubles `l`), within the memory budget.
pub(super) extern "C" fn list_extend(ctx: CtxPtr<'_>, h: u64, o: u64) {
    with(ctx, |st, c| {
        let more = items(st, o).clone();
        if st.check_memory(c, ListValue::bytes_of(more.len())) {
            items(st, h).extend(more);
        }
    })
}

/// `a + b` (ASTFrame's `ListConcat`).
pub(super) extern "C" fn list_concat(ctx: CtxPtr<'_>, a: u64, b: u64) -> u64 {
    with(ctx, |st, c| {
        let mut out = items(st, a).clone();
        let more = items(st, b).clone();
        if !st.check_memory(c, ListValue::bytes_of(out.len() + more.len())) {
            return 0;
        }
        out.extend(more);
        new_list(st, out)
    })
}

/// `a * n` (ASTFrame's `ListRepeat`: an empty list stays empty however
/// often it is repeated; a negative `n` gives an empty list).
pub(super) extern "C" fn list_repeat(ctx: CtxPtr<'_>, a: u64, n: u64) -> u64 {
    with(ctx, |st, c| {
        let one = items(st, a).clone();
        let len = one.len() as u64;
        let times = if len == 0 { 0 } else { (n as i32).max(0) as u64 };
        let bytes = (len * times).saturating_mul(std::mem::size_of::<crate::vm::value::Value>() as u64);
        if !st.check_memory(c, bytes) {
            return 0;
        }
        let mut out = Vec::with_capacity((len * times) as usize);
        for _ in 0..times {
            out.extend_from_slice(&one);
        }
        new_list(st, out)
    })
}

/// `l[start:stop:step]`; bit k of `given` says whether bound k is given.
pub(super) extern "C" fn list_slice(
    ctx: CtxPtr<'_>,
    h: u64,
    start: u64,
    stop: u64,
    step: u64,
    given: u64,
) -> u64 {
    with(ctx, |st, c| {
        let bound = |k: u32, w: u64| (given & (1 << k) != 0).then_some(w as i64);
        let picked = seq::slice(items(st, h), bound(0, start), bound(1, stop), bound(2, step));
        match picked {
            Ok(v) => new_list(st, v),
            Err(e) => {
                st.raise(c, e);
                0
            }
        }
    })
}

/// What `list_find` answers.
pub const FIND_REMOVE: Word = 0;
pub const FIND_COUNT: Word = 1;
pub const FIND_INDEX: Word = 2;

/// ASTFrame's `values_equal` of two items of one list type (`item` a
/// primitive's code or [`STR_ITEM`]).
fn item_eq(st: &RunState, item: u64, a: Word, b: Word) -> bool {
    match prim_of_code(item) {
        Some(p) => {
            ops::cmpop(CmpOp::Eq, scalar_of_word(p, a), scalar_of_word(p, b)) == Ok(Scalar::Bool(true))
        }
        None => {
            debug_assert_eq!(item, STR_ITEM);
            ops::str::eq(&st.str(a), &st.str(b))
        }
    }
}

/// `l.remove(x)` / `l.count(x)` / `l.index(x)` (`mode` one of the `FIND_`
/// codes): `ValueError: value is not in list` when `remove`/`index` find
/// nothing. Returns the count or the index (0 for `remove`).
pub(super) extern "C" fn list_find(ctx: CtxPtr<'_>, h: u64, item: u64, x: u64, mode: u64) -> u64 {
    with(ctx, |st, c| {
        let all = items(st, h).clone();
        let hits: Vec<usize> = (0..all.len()).filter(|&k| item_eq(st, item, x, all[k])).collect();
        match (mode, hits.first()) {
            (FIND_COUNT, _) => hits.len() as u64,
            (FIND_REMOVE, Some(&k)) => {
                items(st, h).remove(k);
                0
            }
            (_, Some(&k)) => k as u64,
            (_, None) => {
                st.raise(c, OpError::Runtime(RuntimeError::NotInList));
                0
            }
        }
    })
}
