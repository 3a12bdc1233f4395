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

// ------------------------------------------------------- lists of wide items

// A list whose items are several registers (a struct, a tuple: `n` > 1
// words each, `n` given by the lowering from the item type) keeps its
// items' words one after another in its table: item `k` is words
// `k*n .. k*n + n`. The helpers below count, check and charge in items
// (the same rules and memory as the one-word helpers above); the ones that
// give the machine code an item return the address of its first word,
// where it loads or stores the parts (part `j` in word `j`, its bytes at
// the start of the word). The address is used at once, before any other
// call may move the table.

fn wide_len(st: &mut RunState, h: u64, n: u64) -> usize {
    items(st, h).len() / n as usize
}

/// The address of item `k` of `h` (in range).
fn item_addr(st: &mut RunState, h: u64, k: usize, n: u64) -> u64 {
    let words = items(st, h);
    words[k * n as usize..].as_mut_ptr() as u64
}

/// `len(l)`.
pub(super) extern "C" fn wlist_len(ctx: CtxPtr<'_>, h: u64, n: u64) -> u64 {
    with(ctx, |st, _| wide_len(st, h, n) as u64)
}

/// `l[i]` (read or assigned): item `i` (negative from the end), or
/// `IndexError` (ASTFrame's `list_slot`); an assigned item's words are
/// zeroed first.
pub(super) extern "C" fn wlist_item(ctx: CtxPtr<'_>, h: u64, i: u64, n: u64, zero: u64) -> u64 {
    with(ctx, |st, c| {
        let len = wide_len(st, h, n);
        match seq::item_slot(i as i64, len) {
            Some(k) => {
                if zero != 0 {
                    let start = k * n as usize;
                    items(st, h)[start..start + n as usize].fill(0);
                }
                item_addr(st, h, k, n)
            }
            None => {
                index_error(st, c, i as i64, len);
                0
            }
        }
    })
}

/// `l.append(x)` (and each item of a display): one more item of zeroed
/// words within the memory budget; its address.
pub(super) extern "C" fn wlist_append(ctx: CtxPtr<'_>, h: u64, n: u64) -> u64 {
    with(ctx, |st, c| {
        if !st.check_memory(c, ListValue::bytes_of(1)) {
            return 0;
        }
        let k = wide_len(st, h, n);
        items(st, h).extend(std::iter::repeat_n(0, n as usize));
        item_addr(st, h, k, n)
    })
}

/// `l.insert(i, x)`: a zeroed item at `seq::insert_slot`; its address.
pub(super) extern "C" fn wlist_insert(ctx: CtxPtr<'_>, h: u64, i: u64, n: u64) -> u64 {
    with(ctx, |st, c| {
        if !st.check_memory(c, ListValue::bytes_of(1)) {
            return 0;
        }
        let k = seq::insert_slot(i as i64, wide_len(st, h, n));
        let at = k * n as usize;
        items(st, h).splice(at..at, std::iter::repeat_n(0, n as usize));
        item_addr(st, h, k, n)
    })
}

/// `l.pop(i)` (`given` 0: the last item), with `list_pop`'s errors: the
/// removed item's words are kept in the run's pop buffer, whose address
/// is returned.
pub(super) extern "C" fn wlist_pop(ctx: CtxPtr<'_>, h: u64, i: u64, given: u64, n: u64) -> u64 {
    with(ctx, |st, c| {
        let len = wide_len(st, h, n);
        if len == 0 {
            st.raise(c, OpError::Runtime(RuntimeError::PopEmptyList));
            return 0;
        }
        let raw = if given == 0 { -1 } else { i as i64 };
        match seq::item_slot(raw, len) {
            Some(k) => {
                let at = k * n as usize;
                let removed: Vec<Word> = items(st, h).drain(at..at + n as usize).collect();
                st.popped = removed;
                st.popped.as_mut_ptr() as u64
            }
            None => {
                index_error(st, c, raw, len);
                0
            }
        }
    })
}

/// Remove item `k` if the list still has it (`l.remove(x)` after a scan).
pub(super) extern "C" fn wlist_remove_at(ctx: CtxPtr<'_>, h: u64, k: u64, n: u64) {
    with(ctx, |st, _| {
        if (k as usize) < wide_len(st, h, n) {
            let at = k as usize * n as usize;
            items(st, h).drain(at..at + n as usize);
        }
    })
}

/// `l.extend(o)`, charged by items.
pub(super) extern "C" fn wlist_extend(ctx: CtxPtr<'_>, h: u64, o: u64, n: u64) {
    with(ctx, |st, c| {
        let more = items(st, o).clone();
        if st.check_memory(c, ListValue::bytes_of(more.len() / n as usize)) {
            items(st, h).extend(more);
        }
    })
}

/// `a + b`, charged by items.
pub(super) extern "C" fn wlist_concat(ctx: CtxPtr<'_>, a: u64, b: u64, n: u64) -> u64 {
    with(ctx, |st, c| {
        let mut out = items(st, a).clone();
        let more = items(st, b).clone();
        if !st.check_memory(c, ListValue::bytes_of((out.len() + more.len()) / n as usize)) {
            return 0;
        }
        out.extend(more);
        new_list(st, out)
    })
}

/// `a * times` (`list_repeat`'s rule, charged by items).
pub(super) extern "C" fn wlist_repeat(ctx: CtxPtr<'_>, a: u64, times: u64, n: u64) -> u64 {
    with(ctx, |st, c| {
        let one = items(st, a).clone();
        let len = (one.len() / n as usize) as u64;
        let times = if len == 0 { 0 } else { (times as i32).max(0) as u64 };
        let bytes = (len * times).saturating_mul(std::mem::size_of::<crate::vm::value::Value>() as u64);
        if !st.check_memory(c, bytes) {
            return 0;
        }
        let mut out = Vec::with_capacity(one.len() * times as usize);
        for _ in 0..times {
            out.extend_from_slice(&one);
        }
        new_list(st, out)
    })
}

/// `l[start:stop:step]` by items (`list_slice`'s rule); bits 0-2 of
/// `given_n` as `list_slice`'s `given`, the words per item above them.
pub(super) extern "C" fn wlist_slice(
    ctx: CtxPtr<'_>,
    h: u64,
    start: u64,
    stop: u64,
    step: u64,
    given_n: u64,
) -> u64 {
    with(ctx, |st, c| {
        let (given, n) = (given_n & 7, given_n >> 3);
        let bound = |k: u32, w: u64| (given & (1 << k) != 0).then_some(w as i64);
        let chunks: Vec<Vec<Word>> = items(st, h).chunks(n as usize).map(<[Word]>::to_vec).collect();
        match seq::slice(&chunks, bound(0, start), bound(1, stop), bound(2, step)) {
            Ok(v) => new_list(st, v.concat()),
            Err(e) => {
                st.raise(c, e);
                0
            }
        }
    })
}

/// A list text being built in the machine code: a word list whose word 0
/// is the byte total of the reprs collected so far, then their handles.
pub(super) extern "C" fn list_text_start(ctx: CtxPtr<'_>) -> u64 {
    with(ctx, |st, _| new_list(st, vec![0]))
}

/// One more item's repr of the text being built in `b`, within the str
/// limit as ASTFrame checks it after each item.
pub(super) extern "C" fn list_text_part(ctx: CtxPtr<'_>, b: u64, part: u64) {
    with(ctx, |st, c| {
        let len = st.str(part).len() as u64;
        let words = items(st, b);
        words[0] = words[0].saturating_add(len);
        words.push(part);
        let (bytes, count) = (words[0] as usize, words.len() - 1);
        st.check_len(c, crate::vm::op_select::list_text_len(count, bytes));
    })
}

/// The text of a list from the reprs collected in `b`
/// (`op_select::list_text`).
pub(super) extern "C" fn list_text_end(ctx: CtxPtr<'_>, b: u64) -> u64 {
    with(ctx, |st, _| {
        let handles = items(st, b)[1..].to_vec();
        let parts: Vec<String> = handles.iter().map(|&p| st.text(p)).collect();
        st.handle(crate::vm::op_select::list_text(&parts))
    })
}

/// The helpers of lists of wide items and of list texts built in the
/// machine code.
#[derive(Clone, Copy, Debug)]
pub struct WideListHelpers {
    pub len: spy_jit::ir::HelperId,
    pub item: spy_jit::ir::HelperId,
    pub append: spy_jit::ir::HelperId,
    pub insert: spy_jit::ir::HelperId,
    pub pop: spy_jit::ir::HelperId,
    pub remove_at: spy_jit::ir::HelperId,
    pub extend: spy_jit::ir::HelperId,
    pub concat: spy_jit::ir::HelperId,
    pub repeat: spy_jit::ir::HelperId,
    pub slice: spy_jit::ir::HelperId,
    pub text_start: spy_jit::ir::HelperId,
    pub text_part: spy_jit::ir::HelperId,
    pub text_end: spy_jit::ir::HelperId,
}

impl WideListHelpers {
    pub fn declare(m: &mut spy_jit::ir::ModuleBuilder) -> WideListHelpers {
        use super::helpers::declare_helper;
        WideListHelpers {
            len: declare_helper!(m, wlist_len(Handle, U64) -> I32),
            item: declare_helper!(m, wlist_item(Handle, I64, U64, U64) -> Ptr),
            append: declare_helper!(m, wlist_append(Handle, U64) -> Ptr),
            insert: declare_helper!(m, wlist_insert(Handle, I64, U64) -> Ptr),
            pop: declare_helper!(m, wlist_pop(Handle, I64, U64, U64) -> Ptr),
            remove_at: declare_helper!(m, wlist_remove_at(Handle, I64, U64) -> ()),
            extend: declare_helper!(m, wlist_extend(Handle, Handle, U64) -> ()),
            concat: declare_helper!(m, wlist_concat(Handle, Handle, U64) -> Handle),
            repeat: declare_helper!(m, wlist_repeat(Handle, I32, U64) -> Handle),
            slice: declare_helper!(m, wlist_slice(Handle, I64, I64, I64, U64) -> Handle),
            text_start: declare_helper!(m, list_text_start() -> Handle),
            text_part: declare_helper!(m, list_text_part(Handle, Handle) -> ()),
            text_end: declare_helper!(m, list_text_end(Handle) -> Handle),
        }
    }
}
