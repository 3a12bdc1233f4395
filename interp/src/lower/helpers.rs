//! The JIT's runtime helpers: `extern "C"` functions the machine code calls
//! for everything that is not a single machine instruction — formatting
//! and `print`, str values, integer `**` and `/`, float `//` `%` `**`. Each
//! body runs under `spy_jit::runtime::guard` and calls the interpreter's own
//! function (`vm::ops`), so results and error texts cannot diverge.
//!
//! The state of one run ([`RunState`]: the str handle table, the error
//! table) lives in a thread-local installed around the call (the machine
//! code runs on the calling thread). `print` writes each line as it is
//! printed to the engine's writer, which the call lends through the
//! runtime context (`HelperCtx::output`). A str `Handle` is an
//! index into `RunState::strs`; the first handles are the program's str
//! constants, in lowering order.

use std::cell::RefCell;
use std::rc::Rc;

use spy_jit::ir::{ErrCode, Helper, HelperId, ModuleBuilder, Ty, Word};
use spy_jit::runtime::{guard, CtxPtr, HelperCtx};

use crate::lower::errors::ErrorTable;
use crate::lower::layout::{prim_of_code, scalar_of_word, word_of_scalar};
use crate::lower::list_rt::{
    f32_of_word, f64_of_word, list_append, list_clear, list_concat, list_copy, list_extend, list_find,
    list_insert, list_pop, list_remove_at, list_repeat, list_set, list_slice, word_of_f32, word_of_f64,
};
use crate::lower::mem_rt::{mem_arg, mem_check, mem_cmp, mem_copy, mem_fill, mem_part};
use crate::lower::{bytes_rt, dict_rt, file_rt, rawbuffer_rt, str_rt};
use crate::syntax::ast::BinOp;
use crate::vm::memory::{item_bytes, Charge, Meter};
use crate::vm::op_select;
use crate::vm::ops::{self, format, OpError, PrimTy, Scalar};
use crate::vm::rt_error::RuntimeError;

/// Everything a run's helpers share.
pub struct RunState {
    /// The line being printed (reused: one write per `print`).
    line: Vec<u8>,
    /// Why writing the program's output failed: the run stopped there
    /// (raised as the internal code; `run::run_module` reads this first).
    pub output_failed: Option<std::io::Error>,
    /// str values by handle.
    pub strs: Vec<Rc<str>>,
    /// The parts of the `print` call in progress.
    parts: Vec<Rc<str>>,
    /// The item reprs of the tuple repr in progress.
    joined: Vec<String>,
    pub errors: ErrorTable,
    /// `Limits::max_str_bytes`.
    pub max_str_bytes: usize,
    /// `Limits::max_memory`, and the bytes of every str made so far: a
    /// handle lives as long as the run (the table is never compacted), so
    /// the running total is the live total.
    pub max_memory: u64,
    pub(super) str_bytes: u64,
    /// bytes values by handle (`bytes_rt`): the program's bytes constants
    /// first, as `Program::bytes` lists them.
    pub(super) bytes: Vec<Rc<[u8]>>,
    /// Pointer memory: every buffer `ptr_alloc`/`ptr_buffer` made, alive
    /// (at a fixed address) until the run ends.
    pub(super) buffers: Vec<spy_jit::runtime::buffer::ZeroedWords>,
    /// The integer arguments of the memory operation being called, and
    /// its checked plan (`mem_rt`).
    pub(super) mem_args: Vec<i64>,
    pub(super) mem_plan: Option<crate::vm::ops::memops::MemPlan>,
    /// The interpreter's memory meter and what the run's allocations count
    /// on it (given back when the run ends).
    meter: Rc<Meter>,
    charges: Vec<Charge>,
    /// list values by handle: their items' canonical words (floats as
    /// their bits).
    pub(super) lists: Vec<Vec<Word>>,
    /// The annotation text of the error a helper is raising, when it is
    /// made at run time (`index 3 of a list of length 3`); it replaces the
    /// call site's fixed text.
    pub label: Option<String>,
    /// What the lists' items count in the memory budget, by the
    /// interpreter's rule (`ListValue::bytes_of`: the same number of items
    /// reaches `MemoryError` in every engine). Lists live until the run
    /// ends, as strs do.
    list_bytes: u64,
    /// dict values by handle (`dict_rt`), and the key/value words staged
    /// for the next dict helper.
    pub(super) dicts: Vec<super::dict_rt::RunDict>,
    pub(super) dict_args: Vec<Word>,
    /// The interpreter's file table, lent to the run (`file_rt`).
    pub files: crate::host::Files,
}

/// The memory budget a run's pointer allocations are counted against.
pub struct Budget {
    pub meter: Rc<Meter>,
    pub max_memory: u64,
}

impl RunState {
    pub fn new(strs: Vec<Rc<str>>, errors: ErrorTable, max_str_bytes: usize, budget: Budget) -> RunState {
        let str_bytes = strs.iter().map(|s| s.len() as u64).sum();
        RunState {
            line: Vec::new(),
            output_failed: None,
            strs,
            parts: Vec::new(),
            joined: Vec::new(),
            errors,
            max_str_bytes,
            max_memory: budget.max_memory,
            str_bytes,
            bytes: Vec::new(),
            buffers: Vec::new(),
            mem_args: Vec::new(),
            mem_plan: None,
            meter: budget.meter,
            charges: Vec::new(),
            lists: Vec::new(),
            label: None,
            list_bytes: 0,
            dicts: Vec::new(),
            dict_args: Vec::new(),
            files: crate::host::Files::default(),
        }
    }

    /// A new list of the str values `items`; its handle.
    pub fn str_list(&mut self, items: Vec<String>) -> Word {
        let words = items.into_iter().map(|s| self.handle(s)).collect();
        self.lists.push(words);
        self.lists.len() as Word - 1
    }

    /// The live total the budget is checked against, as ASTFrame's
    /// `check_memory` counts it: pointer memory (the meter), the
    /// interpreter's live strings and lists, and the run's own strs and
    /// list items.
    pub(super) fn live(&self) -> u64 {
        self.meter
            .used()
            .saturating_add(crate::vm::memory::live_heap_bytes())
            .saturating_add(self.str_bytes)
            .saturating_add(self.list_bytes)
    }

    /// A zeroed buffer of `bytes` (at least one word, so that every
    /// allocation has its own non-null address), or `None` when the host
    /// refuses it.
    fn buffer(&mut self, bytes: u64) -> Option<Word> {
        let words = usize::try_from(bytes.div_ceil(8)).ok()?;
        let mut v = spy_jit::runtime::buffer::ZeroedWords::new(words)?;
        let addr = v.as_mut_ptr() as Word;
        self.buffers.push(v);
        Some(addr)
    }

    /// ASTFrame's `check_memory`: `bytes` more fit in the budget, or
    /// `MemoryError` is raised.
    /// The `bytes` are list items (by `ListValue::bytes_of`), counted from
    /// then on: the run's lists live until it ends.
    pub(super) fn check_memory(&mut self, ctx: &mut HelperCtx, bytes: u64) -> bool {
        if self.live().saturating_add(bytes) <= self.max_memory {
            self.list_bytes = self.list_bytes.saturating_add(bytes);
            return true;
        }
        self.label = Some(format!("this needs {bytes} bytes"));
        self.memory_error(ctx);
        false
    }

    /// `bytes` counted by [`Self::check_memory`] no longer live (a deleted
    /// dict entry, as `DictValue` recounts).
    pub(super) fn uncount(&mut self, bytes: u64) {
        self.list_bytes = self.list_bytes.saturating_sub(bytes);
    }

    pub(super) fn memory_error(&mut self, ctx: &mut HelperCtx) {
        let limit = self.max_memory;
        self.raise(ctx, OpError::Runtime(RuntimeError::MemoryLimit { limit }));
    }

    pub fn text(&self, h: Word) -> String {
        self.strs
            .get(h as usize)
            .map(|s| s.to_string())
            .unwrap_or_default()
    }

    pub(super) fn str(&self, h: Word) -> Rc<str> {
        self.strs.get(h as usize).cloned().expect("a valid str handle")
    }

    pub(super) fn handle(&mut self, s: impl Into<Rc<str>>) -> Word {
        let s = s.into();
        self.str_bytes = self.str_bytes.saturating_add(s.len() as u64);
        self.strs.push(s);
        self.strs.len() as Word - 1
    }

    /// Raise `e` by its code (run-time errors) with its operands; a text
    /// operand is a str handle in word 1 (see `errors`).
    pub(super) fn raise(&mut self, ctx: &mut HelperCtx, e: OpError) {
        match e {
            OpError::Runtime(e) => {
                let ops = e.operands();
                let mut words = ops.words;
                if RuntimeError::has_text(e.code()) {
                    words[1] = self.handle(ops.text);
                }
                ctx.raise(ErrorTable::helper_runtime(&e), words);
            }
            OpError::Static { kind, message } => {
                let code = self.errors.helper_fixed(kind, &message);
                ctx.raise(code, [0, 0]);
            }
        }
    }

    /// The program's bytes constants: handles `0..consts.len()`.
    pub fn set_bytes_consts(&mut self, consts: Vec<Rc<[u8]>>) {
        self.str_bytes += consts.iter().map(|b| b.len() as u64).sum::<u64>();
        self.bytes = consts;
    }

    /// ASTFrame's `check_str_len`.
    pub(super) fn check_len(&mut self, ctx: &mut HelperCtx, len: usize) -> bool {
        if len > self.max_str_bytes {
            let limit = self.max_str_bytes as u64;
            // ASTFrame's `check_str_growth` annotation
            self.label = Some("this string would be too long".into());
            self.raise(ctx, OpError::Runtime(RuntimeError::StrTooLong { limit }));
            return false;
        }
        if self.live().saturating_add(len as u64) > self.max_memory {
            self.label = Some(format!("this needs {len} bytes"));
            let limit = self.max_memory;
            self.raise(ctx, OpError::Runtime(RuntimeError::MemoryLimit { limit }));
            return false;
        }
        true
    }
}

thread_local! {
    static RUN: RefCell<Option<RunState>> = const { RefCell::new(None) };
}

/// Install the state of the run about to start on this thread.
pub fn install(state: RunState) {
    RUN.with(|r| *r.borrow_mut() = Some(state));
}

/// Take the state back after the run.
pub fn take() -> Option<RunState> {
    RUN.with(|r| r.borrow_mut().take())
}

/// Run a helper body on the run state, under the panic guard.
pub(super) fn with<R: Default>(ctx: CtxPtr<'_>, body: impl FnOnce(&mut RunState, &mut HelperCtx) -> R) -> R {
    guard(ctx, |c| {
        RUN.with(|r| {
            let mut state = r.borrow_mut();
            body(state.as_mut().expect("the run state is installed"), c)
        })
    })
}

// ------------------------------------------------------------ formatting

extern "C" fn fmt_scalar(ctx: CtxPtr<'_>, ty: u64, w: u64) -> u64 {
    with(ctx, |st, _| {
        let p = prim_of_code(ty).expect("a primitive type code");
        st.handle(format::format_scalar(scalar_of_word(p, w)))
    })
}

extern "C" fn fmt_f64(ctx: CtxPtr<'_>, x: f64) -> u64 {
    with(ctx, |st, _| st.handle(format::format_scalar(Scalar::F64(x))))
}

extern "C" fn fmt_f32(ctx: CtxPtr<'_>, x: f32) -> u64 {
    with(ctx, |st, _| st.handle(format::format_scalar(Scalar::F32(x))))
}

extern "C" fn repr_str(ctx: CtxPtr<'_>, h: u64) -> u64 {
    with(ctx, |st, _| {
        let s = st.str(h);
        st.handle(format::repr_str(&s))
    })
}

extern "C" fn print_part(ctx: CtxPtr<'_>, h: u64) {
    with(ctx, |st, _| {
        let s = st.str(h);
        st.parts.push(s);
    })
}

/// ASTFrame's `print`: the parts joined by a space, then a newline, written
/// to the run's writer at once (buffering is the writer's business, as in
/// ASTFrame). A write that fails stops the run (`RunState::output_failed`).
extern "C" fn print_end(ctx: CtxPtr<'_>) {
    with(ctx, |st, c| {
        st.line.clear();
        for (i, part) in st.parts.iter().enumerate() {
            if i > 0 {
                st.line.push(b' ');
            }
            st.line.extend_from_slice(part.as_bytes());
        }
        st.line.push(b'\n');
        st.parts.clear();
        let out = c.output().expect("the run lends its writer to the helpers");
        if let Err(e) = out.write_all(&st.line) {
            st.output_failed = Some(e);
            let internal = ErrCode::new(c.internal_error).expect("the internal code is not 0");
            c.raise(internal, [0, 0]);
        }
    })
}

/// One part of a tuple's repr being joined (`tuple_text` takes them).
extern "C" fn join_part(ctx: CtxPtr<'_>, h: u64) {
    with(ctx, |st, _| {
        let s = st.str(h);
        st.joined.push(s.to_string());
    })
}

/// `repr()` of a tuple from its items' reprs (`op_select::tuple_text`).
extern "C" fn tuple_text(ctx: CtxPtr<'_>) -> u64 {
    with(ctx, |st, _| {
        let parts = std::mem::take(&mut st.joined);
        st.handle(op_select::tuple_text(&parts))
    })
}

/// The text of a range object (`op_select::range_text`).
extern "C" fn range_text(ctx: CtxPtr<'_>, start: u64, stop: u64, step: u64) -> u64 {
    with(ctx, |st, _| {
        st.handle(op_select::range_text(start as i32, stop as i32, step as i32))
    })
}

// ------------------------------------------------------------------ str

extern "C" fn str_concat(ctx: CtxPtr<'_>, a: u64, b: u64) -> u64 {
    with(ctx, |st, c| {
        let (x, y) = (st.str(a), st.str(b));
        if !st.check_len(c, x.len() + y.len()) {
            return 0;
        }
        st.handle(ops::str::concat(&x, &y))
    })
}

extern "C" fn str_repeat(ctx: CtxPtr<'_>, a: u64, n: u64) -> u64 {
    with(ctx, |st, c| {
        let (s, n) = (st.str(a), n as i32);
        if !st.check_len(c, s.len().saturating_mul(n.max(0) as usize)) {
            return 0;
        }
        match ops::str::repeat(&s, n.into()) {
            Ok(r) => st.handle(r),
            Err(e) => {
                st.raise(c, e);
                0
            }
        }
    })
}

extern "C" fn str_eq(ctx: CtxPtr<'_>, a: u64, b: u64) -> u64 {
    with(ctx, |st, _| u64::from(ops::str::eq(&st.str(a), &st.str(b))))
}

extern "C" fn str_len(ctx: CtxPtr<'_>, a: u64) -> u64 {
    with(ctx, |st, _| ops::str::len(&st.str(a)) as i64 as u64)
}

extern "C" fn str_index(ctx: CtxPtr<'_>, a: u64, i: u64) -> u64 {
    with(ctx, |st, c| match ops::str::index(&st.str(a), i as i64) {
        Ok(r) => st.handle(r),
        Err(e) => {
            st.raise(c, e);
            0
        }
    })
}

/// `s[start:stop:step]` (bit k of `given`: bound k is given): the
/// interpreter's `ops::str::slice`.
extern "C" fn str_slice(ctx: CtxPtr<'_>, h: u64, start: u64, stop: u64, step: u64, given: u64) -> u64 {
    with(ctx, |st, c| {
        let bound = |k: u32, w: u64| (given & (1 << k) != 0).then_some(w as i64);
        let s = st.str(h);
        match ops::str::slice(&s, bound(0, start), bound(1, stop), bound(2, step)) {
            Ok(r) => st.handle(r),
            Err(e) => {
                st.raise(c, e);
                0
            }
        }
    })
}

/// `T(s)` for an integer type `T` (`ty` its code): the interpreter's
/// `parse_int_str`; the canonical word of the result.
extern "C" fn str_to_int(ctx: CtxPtr<'_>, ty: u64, h: u64) -> u64 {
    with(ctx, |st, c| {
        let p = prim_of_code(ty).expect("a primitive type code");
        match ops::convert::parse_int_str(&st.str(h), p) {
            Ok(v) => word_of_scalar(v),
            Err(e) => {
                st.raise(c, e);
                0
            }
        }
    })
}

// ---------------------------------------------------------------- lists

/// The item type code of a list of str (beside the primitives' codes).
pub const STR_ITEM: Word = 100;

extern "C" fn list_new(ctx: CtxPtr<'_>) -> u64 {
    with(ctx, |st, _| {
        st.lists.push(Vec::new());
        st.lists.len() as Word - 1
    })
}

/// One more item of a list display, within the memory budget (as an
/// `append`): past it, `MemoryError` and nothing is pushed.
fn push_word(st: &mut RunState, c: &mut HelperCtx, h: u64, w: Word) {
    if !st.check_memory(c, crate::vm::value::ListValue::bytes_of(1)) {
        return;
    }
    st.lists.get_mut(h as usize).expect("a valid list handle").push(w);
}

extern "C" fn list_push(ctx: CtxPtr<'_>, h: u64, w: u64) {
    with(ctx, |st, c| push_word(st, c, h, w))
}

extern "C" fn list_push_f64(ctx: CtxPtr<'_>, h: u64, x: f64) {
    with(ctx, |st, c| push_word(st, c, h, x.to_bits()))
}

extern "C" fn list_push_f32(ctx: CtxPtr<'_>, h: u64, x: f32) {
    with(ctx, |st, c| push_word(st, c, h, u64::from(x.to_bits())))
}

/// `l[i]`: ASTFrame's `list_slot` (negative from the end) or `IndexError`.
fn get_word(st: &mut RunState, c: &mut HelperCtx, h: u64, i: u64) -> Word {
    let items = st.lists.get(h as usize).expect("a valid list handle");
    match crate::frames::list::list_slot(i as i64, items.len()) {
        Some(k) => items[k],
        None => {
            st.label = Some(ops::seq::index_label(i as i64, items.len()));
            st.raise(c, OpError::Runtime(RuntimeError::ListIndex));
            0
        }
    }
}

extern "C" fn list_get(ctx: CtxPtr<'_>, h: u64, i: u64) -> u64 {
    with(ctx, |st, c| get_word(st, c, h, i))
}

extern "C" fn list_get_f64(ctx: CtxPtr<'_>, h: u64, i: u64) -> f64 {
    with(ctx, |st, c| f64::from_bits(get_word(st, c, h, i)))
}

extern "C" fn list_get_f32(ctx: CtxPtr<'_>, h: u64, i: u64) -> f32 {
    with(ctx, |st, c| f32::from_bits(get_word(st, c, h, i) as u32))
}

extern "C" fn list_len(ctx: CtxPtr<'_>, h: u64) -> u64 {
    with(ctx, |st, _| {
        st.lists.get(h as usize).expect("a valid list handle").len() as i64 as u64
    })
}

/// `repr(l)`: each item's repr (the interpreter's formatting of its type:
/// `item` is a primitive's code or [`STR_ITEM`]) joined by
/// `op_select::list_text`, within the str limit as ASTFrame checks it.
extern "C" fn list_text(ctx: CtxPtr<'_>, h: u64, item: u64) -> u64 {
    with(ctx, |st, c| {
        let words = st.lists.get(h as usize).expect("a valid list handle").clone();
        let mut parts = Vec::with_capacity(words.len());
        let mut bytes = 0usize;
        for (k, w) in words.into_iter().enumerate() {
            let part = match prim_of_code(item) {
                Some(p) => format::format_scalar(scalar_of_word(p, w)),
                None => format::repr_str(&st.str(w)),
            };
            bytes = bytes.saturating_add(part.len());
            if !st.check_len(c, op_select::list_text_len(k + 1, bytes)) {
                return 0;
            }
            parts.push(part);
        }
        st.handle(op_select::list_text(&parts))
    })
}

// ----------------------------------------------------------------- time

/// `time.time()`: the interpreter's clock.
extern "C" fn time_now(ctx: CtxPtr<'_>) -> f64 {
    with(ctx, |_, _| crate::frames::lowlevel::clock_secs())
}

/// `time.sleep(s)`: the interpreter's sleep.
extern "C" fn sleep(ctx: CtxPtr<'_>, s: f64) {
    with(ctx, |_, _| crate::frames::lowlevel::sleep_secs(s))
}

// ----------------------------------------------------------------- math

/// `math.f(a[, b])` (`code` is the function's place in `MathFn::ALL`):
/// the interpreter's own `MathFn::apply`.
extern "C" fn math_call(ctx: CtxPtr<'_>, code: u64, a: f64, b: f64) -> f64 {
    with(ctx, |_, _| {
        let m = ops::math::MathFn::ALL[code as usize];
        m.apply(&[a, b][..m.arity()])
    })
}

// ------------------------------------------------------------ pointers

/// `gc_alloc[T](n)` / `raw_alloc[T](n)` as ASTFrame's `alloc`: a negative
/// `n` raises, then `n` items are counted against the memory budget by the
/// interpreter's rule (`item` is the primitive's code, or `u64::MAX` for a
/// boxed item), then a zeroed buffer of `n × size` bytes is made (`size` 0:
/// a one-word identity for an item stored by parts). Returns its address.
extern "C" fn ptr_alloc(ctx: CtxPtr<'_>, n: u64, item: u64, size: u64) -> u64 {
    with(ctx, |st, c| {
        let n = n as i64;
        if n < 0 {
            st.raise(c, OpError::Runtime(RuntimeError::NegativeAlloc));
            return 0;
        }
        let bytes = item_bytes(prim_of_code(item)).saturating_mul(n as u64);
        match st.meter.charge(bytes, st.max_memory) {
            Ok(charge) => st.charges.push(charge),
            Err(e) => {
                st.label = Some(format!("this needs {} bytes", e.bytes));
                st.memory_error(c);
                return 0;
            }
        }
        match st.buffer(size.saturating_mul(n as u64)) {
            Some(addr) => addr,
            None => {
                st.memory_error(c);
                0
            }
        }
    })
}

/// One more zeroed buffer of `n × size` bytes for an allocation made by
/// `ptr_alloc` (a part of items stored by parts; already counted).
extern "C" fn ptr_buffer(ctx: CtxPtr<'_>, n: u64, size: u64) -> u64 {
    with(ctx, |st, c| match st.buffer(size.saturating_mul(n)) {
        Some(addr) => addr,
        None => {
            st.memory_error(c);
            0
        }
    })
}

// -------------------------------------------------------------- numbers

fn binop_of_code(code: u64) -> BinOp {
    BinOp::ALL[code as usize]
}

/// The helper's number for `op`.
pub fn binop_code(op: BinOp) -> Word {
    BinOp::ALL
        .iter()
        .position(|&o| o == op)
        .expect("every operator is in BinOp::ALL") as Word
}

fn run_binop(
    st: &mut RunState,
    c: &mut HelperCtx,
    op: u64,
    p: PrimTy,
    a: Scalar,
    b: Scalar,
) -> Option<Scalar> {
    match ops::dispatch::run_binop(binop_of_code(op), p, a, b) {
        Ok(r) => Some(r),
        Err(e) => {
            st.raise(c, e);
            None
        }
    }
}

/// An integer `**` (`ty` is the operand type); the result is the canonical
/// word of that type, returned as a `u64` (the caller converts it back).
extern "C" fn int_binop(ctx: CtxPtr<'_>, op: u64, ty: u64, a: u64, b: u64) -> u64 {
    with(ctx, |st, c| {
        let p = prim_of_code(ty).expect("a primitive type code");
        run_binop(st, c, op, p, scalar_of_word(p, a), scalar_of_word(p, b))
            .map(word_of_scalar)
            // raised: the error status is set and the caller ignores the word
            .unwrap_or(0)
    })
}

/// An integer `/`: true division, an `f64`.
extern "C" fn int_div(ctx: CtxPtr<'_>, ty: u64, a: u64, b: u64) -> f64 {
    with(ctx, |st, c| {
        let p = prim_of_code(ty).expect("a primitive type code");
        let op = binop_code(BinOp::Div);
        match run_binop(st, c, op, p, scalar_of_word(p, a), scalar_of_word(p, b)) {
            Some(Scalar::F64(r)) => r,
            _ => 0.0,
        }
    })
}

extern "C" fn f64_binop(ctx: CtxPtr<'_>, op: u64, a: f64, b: f64) -> f64 {
    with(ctx, |st, c| {
        match run_binop(st, c, op, PrimTy::F64, Scalar::F64(a), Scalar::F64(b)) {
            Some(Scalar::F64(r)) => r,
            _ => 0.0,
        }
    })
}

/// `unsafe.ieee754_div` on `f64` (`DivOp::apply`: never raises).
extern "C" fn f64_ieee754_div(ctx: CtxPtr<'_>, a: f64, b: f64) -> f64 {
    with(ctx, |_, _| {
        match ops::unchecked::DivOp::Ieee754Div.apply(PrimTy::F64, Scalar::F64(a), Scalar::F64(b)) {
            Ok(Scalar::F64(r)) => r,
            _ => f64::NAN,
        }
    })
}

/// `unsafe.ieee754_div` on `f32`.
extern "C" fn f32_ieee754_div(ctx: CtxPtr<'_>, a: f32, b: f32) -> f32 {
    with(ctx, |_, _| {
        match ops::unchecked::DivOp::Ieee754Div.apply(PrimTy::F32, Scalar::F32(a), Scalar::F32(b)) {
            Ok(Scalar::F32(r)) => r,
            _ => f32::NAN,
        }
    })
}

extern "C" fn f32_binop(ctx: CtxPtr<'_>, op: u64, a: f32, b: f32) -> f32 {
    with(ctx, |st, c| {
        match run_binop(st, c, op, PrimTy::F32, Scalar::F32(a), Scalar::F32(b)) {
            Some(Scalar::F32(r)) => r,
            _ => 0.0,
        }
    })
}

/// The helpers of one module, declared once.
#[derive(Clone, Copy, Debug)]
pub struct Helpers {
    pub fmt_scalar: HelperId,
    pub fmt_f64: HelperId,
    pub fmt_f32: HelperId,
    pub repr_str: HelperId,
    pub print_part: HelperId,
    pub print_end: HelperId,
    pub join_part: HelperId,
    pub tuple_text: HelperId,
    pub str_concat: HelperId,
    pub str_repeat: HelperId,
    pub str_eq: HelperId,
    pub str_len: HelperId,
    pub str_index: HelperId,
    pub int_binop: HelperId,
    pub int_div: HelperId,
    pub f64_binop: HelperId,
    pub f32_binop: HelperId,
    pub f64_ieee754_div: HelperId,
    pub f32_ieee754_div: HelperId,
    pub ptr_alloc: HelperId,
    pub ptr_buffer: HelperId,
    pub str_to_int: HelperId,
    pub time_now: HelperId,
    pub sleep: HelperId,
    pub list_new: HelperId,
    pub list_push: HelperId,
    pub list_push_f64: HelperId,
    pub list_push_f32: HelperId,
    pub list_get: HelperId,
    pub list_get_f64: HelperId,
    pub list_get_f32: HelperId,
    pub list_len: HelperId,
    pub list_text: HelperId,
    pub math_call: HelperId,
    pub range_text: HelperId,
    pub list_remove_at: HelperId,
    pub str_slice: HelperId,
    pub mem_arg: HelperId,
    pub mem_check: HelperId,
    pub mem_copy: HelperId,
    pub mem_fill: HelperId,
    pub mem_cmp: HelperId,
    pub mem_part: HelperId,
    pub word_of_f64: HelperId,
    pub f64_of_word: HelperId,
    pub word_of_f32: HelperId,
    pub f32_of_word: HelperId,
    pub list_set: HelperId,
    pub list_append: HelperId,
    pub list_insert: HelperId,
    pub list_pop: HelperId,
    pub list_clear: HelperId,
    pub list_copy: HelperId,
    pub list_extend: HelperId,
    pub list_concat: HelperId,
    pub list_repeat: HelperId,
    pub list_slice: HelperId,
    pub list_find: HelperId,
    pub bytes: bytes_rt::BytesHelpers,
    pub str_methods: str_rt::StrHelpers,
    pub dict: dict_rt::DictHelpers,
    pub file: file_rt::FileHelpers,
    pub rawbuffer: rawbuffer_rt::RawBufferHelpers,
    pub exc_text: HelperId,
}

/// `declare_helper!(m, f(P, Q) -> R)`: declares the runtime helper `f`
/// (an `extern "C"` function of this crate taking the run context first)
/// in module builder `m`, under its own name; `-> ()` when it returns
/// nothing. One line per helper in every `*_rt` module's table.
macro_rules! declare_helper {
    ($m:expr, $f:ident($($p:ident),*) -> ()) => {
        $crate::lower::helpers::declare_named($m, stringify!($f), &[$(spy_jit::ir::Ty::$p),*], None, $f as *const () as usize)
    };
    ($m:expr, $f:ident($($p:ident),*) -> $r:ident) => {
        $crate::lower::helpers::declare_named(
            $m,
            stringify!($f),
            &[$(spy_jit::ir::Ty::$p),*],
            Some(spy_jit::ir::Ty::$r),
            $f as *const () as usize,
        )
    };
}
pub(crate) use declare_helper;

/// The helper at `addr` named `name` (see [`declare_helper`]).
pub(crate) fn declare_named(
    m: &mut ModuleBuilder,
    name: &str,
    params: &[Ty],
    result: Option<Ty>,
    addr: usize,
) -> HelperId {
    m.helper(Helper {
        name: name.to_string(),
        params: params.to_vec(),
        result,
        addr,
        takes_ctx: true,
    })
}

impl Helpers {
    pub fn declare(m: &mut ModuleBuilder) -> Helpers {
        Helpers {
            fmt_scalar: declare_helper!(m, fmt_scalar(U64, U64) -> Handle),
            fmt_f64: declare_helper!(m, fmt_f64(F64) -> Handle),
            fmt_f32: declare_helper!(m, fmt_f32(F32) -> Handle),
            repr_str: declare_helper!(m, repr_str(Handle) -> Handle),
            print_part: declare_helper!(m, print_part(Handle) -> ()),
            print_end: declare_helper!(m, print_end() -> ()),
            join_part: declare_helper!(m, join_part(Handle) -> ()),
            tuple_text: declare_helper!(m, tuple_text() -> Handle),
            str_concat: declare_helper!(m, str_concat(Handle, Handle) -> Handle),
            str_repeat: declare_helper!(m, str_repeat(Handle, I32) -> Handle),
            str_eq: declare_helper!(m, str_eq(Handle, Handle) -> Bool),
            str_len: declare_helper!(m, str_len(Handle) -> I32),
            str_index: declare_helper!(m, str_index(Handle, I64) -> Handle),
            int_binop: declare_helper!(m, int_binop(U64, U64, U64, U64) -> U64),
            int_div: declare_helper!(m, int_div(U64, U64, U64) -> F64),
            f64_binop: declare_helper!(m, f64_binop(U64, F64, F64) -> F64),
            f64_ieee754_div: declare_helper!(m, f64_ieee754_div(F64, F64) -> F64),
            f32_ieee754_div: declare_helper!(m, f32_ieee754_div(F32, F32) -> F32),
            f32_binop: declare_helper!(m, f32_binop(U64, F32, F32) -> F32),
            ptr_alloc: declare_helper!(m, ptr_alloc(I64, U64, U64) -> Ptr),
            ptr_buffer: declare_helper!(m, ptr_buffer(I64, U64) -> Ptr),
            str_to_int: declare_helper!(m, str_to_int(U64, Handle) -> U64),
            mem_arg: declare_helper!(m, mem_arg(I64) -> ()),
            mem_check: declare_helper!(m, mem_check(U64, I64, I64, U64, U64) -> ()),
            mem_copy: declare_helper!(m, mem_copy(Ptr, Ptr, U64) -> ()),
            mem_fill: declare_helper!(m, mem_fill(Ptr, U64, U64) -> ()),
            mem_cmp: declare_helper!(m, mem_cmp(Ptr, Ptr, U64) -> I32),
            mem_part: declare_helper!(m, mem_part(Ptr, U64) -> Ptr),
            str_slice: declare_helper!(m, str_slice(Handle, I64, I64, I64, U64) -> Handle),
            list_remove_at: declare_helper!(m, list_remove_at(Handle, I64) -> ()),
            range_text: declare_helper!(m, range_text(I32, I32, I32) -> Handle),
            math_call: declare_helper!(m, math_call(U64, F64, F64) -> F64),
            time_now: declare_helper!(m, time_now() -> F64),
            sleep: declare_helper!(m, sleep(F64) -> ()),
            list_new: declare_helper!(m, list_new() -> Handle),
            list_push: declare_helper!(m, list_push(Handle, U64) -> ()),
            list_push_f64: declare_helper!(m, list_push_f64(Handle, F64) -> ()),
            list_push_f32: declare_helper!(m, list_push_f32(Handle, F32) -> ()),
            list_get: declare_helper!(m, list_get(Handle, I64) -> U64),
            list_get_f64: declare_helper!(m, list_get_f64(Handle, I64) -> F64),
            list_get_f32: declare_helper!(m, list_get_f32(Handle, I64) -> F32),
            list_len: declare_helper!(m, list_len(Handle) -> I32),
            list_text: declare_helper!(m, list_text(Handle, U64) -> Handle),
            word_of_f64: declare_helper!(m, word_of_f64(F64) -> U64),
            f64_of_word: declare_helper!(m, f64_of_word(U64) -> F64),
            word_of_f32: declare_helper!(m, word_of_f32(F32) -> U64),
            f32_of_word: declare_helper!(m, f32_of_word(U64) -> F32),
            list_set: declare_helper!(m, list_set(Handle, I64, U64) -> ()),
            list_append: declare_helper!(m, list_append(Handle, U64) -> ()),
            list_insert: declare_helper!(m, list_insert(Handle, I64, U64) -> ()),
            list_pop: declare_helper!(m, list_pop(Handle, I64, U64) -> U64),
            list_clear: declare_helper!(m, list_clear(Handle) -> ()),
            list_copy: declare_helper!(m, list_copy(Handle) -> Handle),
            list_extend: declare_helper!(m, list_extend(Handle, Handle) -> ()),
            list_concat: declare_helper!(m, list_concat(Handle, Handle) -> Handle),
            list_repeat: declare_helper!(m, list_repeat(Handle, I32) -> Handle),
            list_slice: declare_helper!(m, list_slice(Handle, I64, I64, I64, U64) -> Handle),
            list_find: declare_helper!(m, list_find(Handle, U64, U64, U64) -> U64),
            bytes: bytes_rt::BytesHelpers::declare(m),
            str_methods: str_rt::StrHelpers::declare(m),
            dict: dict_rt::DictHelpers::declare(m),
            file: file_rt::FileHelpers::declare(m),
            rawbuffer: rawbuffer_rt::RawBufferHelpers::declare(m),
            exc_text: crate::lower::exception::declare(m),
        }
    }
}
