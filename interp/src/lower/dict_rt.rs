//! The runtime helpers of `dict[K, V]` values: a dict `Handle` is an index
//! into `RunState::dicts`. An entry is its key's and its value's flattened
//! words (floats as their bits, `layout`); a key is found by its image, in
//! which a str handle is the str's text (`key_strs`: which key words are
//! str handles), as `vm::dict` finds a key by its `ValueKey`. Entries keep
//! insertion order and a delete moves the last entry into the hole, as
//! `vm::dict::DictValue` (upstream's `swap_last_entry_with`); a new key is
//! counted against the memory budget by `DictValue::bytes_of`, as
//! ASTFrame's `dict_insert`. The words of a key (and of a stored value)
//! are staged one by one (`dict_arg`) before the call that reads them.

use std::collections::HashMap;
use std::rc::Rc;

use crate::lower::helpers::declare_helper;
use spy_jit::ir::{HelperId, ModuleBuilder, Word};
use spy_jit::runtime::{CtxPtr, HelperCtx};

use super::helpers::{with, RunState};
use crate::vm::dict::DictValue;
use crate::vm::ops::OpError;
use crate::vm::rt_error::RuntimeError;

/// One word of a key's image.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
enum KeyPart {
    Word(Word),
    Str(Rc<str>),
    Bytes(Rc<[u8]>),
}

/// One dict of a run.
#[derive(Clone, Debug)]
pub struct RunDict {
    /// Bit `i`: key word `i` is a str handle (`key_strs`) or a bytes
    /// handle (`key_bytes`).
    key_strs: u64,
    key_bytes: u64,
    key_words: usize,
    entries: Vec<(Vec<Word>, Vec<Word>)>,
    index: HashMap<Vec<KeyPart>, usize>,
}

impl RunState {
    fn dict(&mut self, h: Word) -> &mut RunDict {
        self.dicts.get_mut(h as usize).expect("a valid dict handle")
    }

    /// The image of key words `key` of dict `h`.
    fn key_image(&self, h: Word, key: &[Word]) -> Vec<KeyPart> {
        let d = &self.dicts[h as usize];
        key.iter()
            .enumerate()
            .map(|(i, &w)| {
                if i < 64 && d.key_strs & (1 << i) != 0 {
                    KeyPart::Str(self.str(w))
                } else if i < 64 && d.key_bytes & (1 << i) != 0 {
                    KeyPart::Bytes(self.bytes[w as usize].clone())
                } else {
                    KeyPart::Word(w)
                }
            })
            .collect()
    }

    /// The staged words (taken).
    fn staged(&mut self) -> Vec<Word> {
        std::mem::take(&mut self.dict_args)
    }

    /// The entry of the staged key of dict `h`, if it has one.
    fn find_staged(&mut self, h: Word) -> (Vec<Word>, Option<usize>) {
        let words = self.staged();
        let n = self.dict(h).key_words.min(words.len());
        let image = self.key_image(h, &words[..n]);
        let found = self.dict(h).index.get(&image).copied();
        (words, found)
    }
}

fn key_error(st: &mut RunState, c: &mut HelperCtx) {
    st.raise(c, OpError::Runtime(RuntimeError::KeyNotFound));
}

/// A new empty dict whose keys are `key_words` words (`key_strs`,
/// `key_bytes`: which are str and bytes handles).
extern "C" fn dict_new(ctx: CtxPtr<'_>, key_strs: u64, key_bytes: u64, key_words: u64) -> u64 {
    with(ctx, |st, _| {
        st.dicts.push(RunDict {
            key_strs,
            key_bytes,
            key_words: key_words as usize,
            entries: Vec::new(),
            index: HashMap::new(),
        });
        st.dicts.len() as Word - 1
    })
}

/// A snapshot of dict `h` (a new handle): what ASTFrame's `entries()`
/// gives `==` and the text to walk while user code (an `__eq__`, a
/// `__repr__`) may change the dict.
extern "C" fn dict_snapshot(ctx: CtxPtr<'_>, h: u64) -> u64 {
    with(ctx, |st, _| {
        let copy = st.dict(h).clone();
        st.dicts.push(copy);
        st.dicts.len() as Word - 1
    })
}

/// Stage one word of a key or value.
extern "C" fn dict_arg(ctx: CtxPtr<'_>, w: u64) {
    with(ctx, |st, _| st.dict_args.push(w))
}

/// The entry of the staged key, or -1.
extern "C" fn dict_find(ctx: CtxPtr<'_>, h: u64) -> u64 {
    with(ctx, |st, _| st.find_staged(h).1.map_or(u64::MAX, |k| k as u64))
}

/// The entry of the staged key, or `KeyError` (ASTFrame's `dict_getitem`).
extern "C" fn dict_get(ctx: CtxPtr<'_>, h: u64) -> u64 {
    with(ctx, |st, c| match st.find_staged(h).1 {
        Some(k) => k as u64,
        None => {
            key_error(st, c);
            0
        }
    })
}

/// `d[k] = v` of the staged key and value words: a new key is counted
/// against the memory budget first (ASTFrame's `dict_insert`).
extern "C" fn dict_set(ctx: CtxPtr<'_>, h: u64) {
    with(ctx, |st, c| {
        let (mut words, found) = st.find_staged(h);
        let n = st.dict(h).key_words.min(words.len());
        let value = words.split_off(n);
        match found {
            Some(k) => st.dict(h).entries[k].1 = value,
            None => {
                if !st.check_memory(c, DictValue::bytes_of(1)) {
                    return;
                }
                let image = st.key_image(h, &words);
                let d = st.dict(h);
                d.index.insert(image, d.entries.len());
                d.entries.push((words, value));
            }
        }
    })
}

/// `del d[k]` / `d.__delitem__(k)` of the staged key, or `KeyError`: the
/// last entry moves into the hole (`DictValue::remove`).
extern "C" fn dict_del(ctx: CtxPtr<'_>, h: u64) {
    with(ctx, |st, c| {
        let (words, found) = st.find_staged(h);
        let Some(k) = found else {
            key_error(st, c);
            return;
        };
        let n = st.dict(h).key_words.min(words.len());
        let image = st.key_image(h, &words[..n]);
        st.dict(h).index.remove(&image);
        st.dict(h).entries.swap_remove(k);
        if let Some((moved, _)) = st.dict(h).entries.get(k).cloned() {
            let image = st.key_image(h, &moved);
            st.dict(h).index.insert(image, k);
        }
        st.uncount(DictValue::bytes_of(1));
    })
}

extern "C" fn dict_len(ctx: CtxPtr<'_>, h: u64) -> u64 {
    with(ctx, |st, _| st.dict(h).entries.len() as i32 as i64 as u64)
}

/// Word `j` of the key of entry `k`.
extern "C" fn dict_key(ctx: CtxPtr<'_>, h: u64, k: u64, j: u64) -> u64 {
    with(ctx, |st, _| st.dict(h).entries[k as usize].0[j as usize])
}

/// Word `j` of the value of entry `k`.
extern "C" fn dict_value(ctx: CtxPtr<'_>, h: u64, k: u64, j: u64) -> u64 {
    with(ctx, |st, _| st.dict(h).entries[k as usize].1[j as usize])
}

/// One `k: v` of a dict's text being built in str list `b` (the reprs of
/// the key and the value): the text so far is checked against the str
/// limit as ASTFrame's `dict_text` checks it.
extern "C" fn dict_text_part(ctx: CtxPtr<'_>, b: u64, k: u64, v: u64) {
    with(ctx, |st, c| {
        let part = format!("{}: {}", st.str(k), st.str(v));
        let h = st.handle(part);
        st.lists[b as usize].push(h);
        let total = st.lists[b as usize]
            .iter()
            .fold(2usize, |t, &p| t.saturating_add(st.strs[p as usize].len() + 2));
        st.check_len(c, total);
    })
}

/// `{k: v, ...}` from the parts of str list `b`.
extern "C" fn dict_text_end(ctx: CtxPtr<'_>, b: u64) -> u64 {
    with(ctx, |st, _| {
        let parts: Vec<String> = st.lists[b as usize].iter().map(|&p| st.text(p)).collect();
        st.handle(format!("{{{}}}", parts.join(", ")))
    })
}

/// The dict helpers of one module, declared once.
#[derive(Clone, Copy, Debug)]
pub struct DictHelpers {
    pub new: HelperId,
    pub arg: HelperId,
    pub find: HelperId,
    pub get: HelperId,
    pub set: HelperId,
    pub del: HelperId,
    pub len: HelperId,
    pub key: HelperId,
    pub value: HelperId,
    pub text_part: HelperId,
    pub text_end: HelperId,
    pub snapshot: HelperId,
}

impl DictHelpers {
    pub fn declare(m: &mut ModuleBuilder) -> DictHelpers {
        DictHelpers {
            new: declare_helper!(m, dict_new(U64, U64, U64) -> Handle),
            snapshot: declare_helper!(m, dict_snapshot(Handle) -> Handle),
            arg: declare_helper!(m, dict_arg(U64) -> ()),
            find: declare_helper!(m, dict_find(Handle) -> I64),
            get: declare_helper!(m, dict_get(Handle) -> I64),
            set: declare_helper!(m, dict_set(Handle) -> ()),
            del: declare_helper!(m, dict_del(Handle) -> ()),
            len: declare_helper!(m, dict_len(Handle) -> I32),
            key: declare_helper!(m, dict_key(Handle, I64, U64) -> U64),
            value: declare_helper!(m, dict_value(Handle, I64, U64) -> U64),
            text_part: declare_helper!(m, dict_text_part(Handle, Handle, Handle) -> ()),
            text_end: declare_helper!(m, dict_text_end(Handle) -> Handle),
        }
    }
}
