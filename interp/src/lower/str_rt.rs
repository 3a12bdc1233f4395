//! The runtime helpers of `str` methods other than `encode` (which meets
//! bytes: `bytes_rt`): `upper`, `isascii`, `isspace`, `startswith`,
//! `endswith`, `find`, `count`, `replace`, `split` of a str handle, and
//! the operator `sub in s`. Each body calls
//! the interpreter's own function (`vm::ops::str`), the one ASTFrame's
//! `call_str_method` calls, so results cannot diverge; `replace` is
//! checked against the str limit with ASTFrame's length formula.

use crate::lower::helpers::declare_helper;
use spy_jit::ir::{HelperId, ModuleBuilder};
use spy_jit::runtime::CtxPtr;

use super::helpers::with;
use crate::vm::ops;

/// `s.upper()`: a str handle.
extern "C" fn str_upper(ctx: CtxPtr<'_>, h: u64) -> u64 {
    with(ctx, |st, _| {
        let s = st.str(h);
        st.handle(ops::str::upper(&s))
    })
}

/// `s.isascii()`.
extern "C" fn str_isascii(ctx: CtxPtr<'_>, h: u64) -> u64 {
    with(ctx, |st, _| u64::from(ops::str::isascii(&st.str(h))))
}

/// `s.isspace()`.
extern "C" fn str_isspace(ctx: CtxPtr<'_>, h: u64) -> u64 {
    with(ctx, |st, _| u64::from(ops::str::isspace(&st.str(h))))
}

/// `s.startswith(p)`.
extern "C" fn str_startswith(ctx: CtxPtr<'_>, h: u64, p: u64) -> u64 {
    with(ctx, |st, _| {
        u64::from(ops::str::startswith(&st.str(h), &st.str(p)))
    })
}

/// `s.endswith(p)`.
extern "C" fn str_endswith(ctx: CtxPtr<'_>, h: u64, p: u64) -> u64 {
    with(ctx, |st, _| u64::from(ops::str::endswith(&st.str(h), &st.str(p))))
}

/// `s.find(sub, start, end)` (the lowering passes ASTFrame's defaults: 0
/// and `len(s)`): an `i32`.
extern "C" fn str_find(ctx: CtxPtr<'_>, h: u64, sub: u64, start: u64, end: u64) -> u64 {
    with(ctx, |st, _| {
        ops::str::find_range(&st.str(h), &st.str(sub), start as i32, end as i32) as i64 as u64
    })
}

/// `s.count(sub, start, end)`: an `i32`.
extern "C" fn str_count(ctx: CtxPtr<'_>, h: u64, sub: u64, start: u64, end: u64) -> u64 {
    with(ctx, |st, _| {
        ops::str::count_range(&st.str(h), &st.str(sub), start as i32, end as i32) as i64 as u64
    })
}

/// `s.replace(old, new)`: the length bound ASTFrame checks first, then a
/// str handle.
extern "C" fn str_replace(ctx: CtxPtr<'_>, h: u64, old: u64, new: u64) -> u64 {
    with(ctx, |st, c| {
        let (s, old, new) = (st.str(h), st.str(old), st.str(new));
        let hits = ops::str::count(&s, &old).max(0) as usize;
        if !st.check_len(c, s.len().saturating_add(hits.saturating_mul(new.len()))) {
            return 0;
        }
        st.handle(ops::str::replace(&s, &old, &new))
    })
}

/// `sub in s` (ASTFrame's `StrContains`).
extern "C" fn str_contains(ctx: CtxPtr<'_>, sub: u64, h: u64) -> u64 {
    with(ctx, |st, _| {
        u64::from(ops::str::contains(&st.str(h), &st.str(sub)))
    })
}

/// `s.split()` (`given` 0) or `s.split(sep)`: a `list[str]` handle of
/// new str handles; an empty `sep` raises ASTFrame's `ValueError`.
extern "C" fn str_split(ctx: CtxPtr<'_>, h: u64, sep: u64, given: u64) -> u64 {
    with(ctx, |st, c| {
        let s = st.str(h);
        let sep = (given != 0).then(|| st.str(sep));
        match ops::str::split(&s, sep.as_deref()) {
            Ok(parts) => {
                let items = parts.into_iter().map(|p| st.handle(p)).collect();
                st.lists.push(items);
                st.lists.len() as u64 - 1
            }
            Err(e) => {
                st.raise(c, e);
                0
            }
        }
    })
}

/// The str-method helpers of one module, declared once.
#[derive(Clone, Copy, Debug)]
pub struct StrHelpers {
    pub upper: HelperId,
    pub isascii: HelperId,
    pub isspace: HelperId,
    pub startswith: HelperId,
    pub endswith: HelperId,
    pub find: HelperId,
    pub count: HelperId,
    pub replace: HelperId,
    pub split: HelperId,
    pub contains: HelperId,
}

impl StrHelpers {
    pub fn declare(m: &mut ModuleBuilder) -> StrHelpers {
        StrHelpers {
            upper: declare_helper!(m, str_upper(Handle) -> Handle),
            isascii: declare_helper!(m, str_isascii(Handle) -> Bool),
            isspace: declare_helper!(m, str_isspace(Handle) -> Bool),
            startswith: declare_helper!(m, str_startswith(Handle, Handle) -> Bool),
            endswith: declare_helper!(m, str_endswith(Handle, Handle) -> Bool),
            find: declare_helper!(m, str_find(Handle, Handle, I32, I32) -> I32),
            count: declare_helper!(m, str_count(Handle, Handle, I32, I32) -> I32),
            replace: declare_helper!(m, str_replace(Handle, Handle, Handle) -> Handle),
            split: declare_helper!(m, str_split(Handle, Handle, U64) -> Handle),
            contains: declare_helper!(m, str_contains(Handle, Handle) -> Bool),
        }
    }
}
