//! Module `var` globals: each one is a run of 8-byte slots in one area
//! owned by the run ([`GlobalArea`]), one slot per flattened register,
//! filled with the value module init computed. Red code reads and writes a
//! slot with spy-jit's checked `Load`/`Store` on the slot's address (length
//! 1, index 0: the checks cannot fail). A slot holds the register's
//! canonical word, little-endian, so a load of any IR type reads it back.
//! A value module init computed is placed when it has words of its own:
//! scalars, strs, bytes, exceptions, tuples and structs of them, and NULL
//! pointers. The slots are the run's module state: every function (and
//! every inlined callee's body, `x := e` included) reads and writes the
//! same slot, so a write is seen by every later read.

use foldhash::HashMap;

use spy_jit::ir::{ErrCode, Ty, VReg, Word};

use super::func::{FnLower, LVal};
use super::layout::word_of_scalar;
use super::{LowerCx, Lowered};
use crate::source::TextRange;
use crate::vm::types::{TypeId, TypeKind};
use crate::vm::value::Value;

/// The slots of every global the program uses. The area is allocated once
/// (its address is in the machine code) and kept alive by the `Program`.
#[derive(Default)]
pub struct GlobalArea {
    pub words: Vec<Word>,
    /// A global's first slot and declared type, by module slot.
    placed: HashMap<(crate::vm::value::ModuleId, u32), (usize, TypeId)>,
}

/// A global's slots: where they start and the IR type of each.
#[derive(Clone)]
pub(crate) struct Placed {
    first: usize,
    ty: TypeId,
    tys: Vec<Ty>,
}

/// The area's capacity: the address of slot `k` must not change once code
/// refers to it, so the area never grows past it.
pub const MAX_GLOBAL_SLOTS: usize = 4096;

impl LowerCx<'_, '_> {
    /// The canonical words of `v` (of static type `ty`), flattened.
    fn words_of(&mut self, ty: TypeId, v: &Value, out: &mut Vec<Word>) -> Option<()> {
        match (self.interp.vm.types.kind(ty).clone(), v) {
            (TypeKind::Prim(_), Value::Scalar(s)) => out.push(word_of_scalar(*s)),
            (TypeKind::Str, Value::Str(s)) => out.push(self.string(s)),
            (TypeKind::Bytes, Value::Bytes(b)) => out.push(self.bytes_const(b)),
            (TypeKind::Exception, Value::Exception(e)) => {
                out.push(super::exception::kind_code(e.kind));
                out.push(self.string(&e.message));
            }
            (TypeKind::NoneType, _) => {}
            (TypeKind::Type, Value::Type(t)) => out.push(self.type_handle(*t)?),
            // NULL: every register of a pointer 0 (`ptr_null`); a pointer
            // to memory module init allocated has no slot value (its
            // memory is the interpreter's, not the run's)
            (TypeKind::Ptr { .. }, Value::Ptr(p)) if p.mem.is_none() => {
                let n = super::layout::flatten(&self.interp.vm.types, ty)?.len();
                out.extend(std::iter::repeat_n(0, n));
            }
            (TypeKind::Tuple(items), Value::Tuple(t)) => {
                for (item_ty, item) in items.iter().zip(t.items.iter()) {
                    self.words_of(*item_ty, item, out)?;
                }
            }
            (TypeKind::Struct { fields, .. }, Value::Struct(s)) => {
                for (fd, item) in fields.iter().zip(s.fields.iter()) {
                    self.words_of(fd.ty, item, out)?;
                }
            }
            _ => return None,
        }
        Some(())
    }
}

impl FnLower<'_, '_, '_> {
    /// The slots of module global `slot` (`name`), placed on first use.
    fn global(&mut self, slot: u32, name: &str, range: TextRange) -> Lowered<Placed> {
        self.global_of(self.module, slot, name, range)
    }

    /// The slots of global `slot` (`name`) of module `module`, placed on
    /// first use (a `var` of another module is one area slot run too).
    fn global_of(
        &mut self,
        module: crate::vm::value::ModuleId,
        slot: u32,
        name: &str,
        range: TextRange,
    ) -> Lowered<Placed> {
        // (a `def` the engine deferred gets its record now:
        // `frames::pending_def`)
        if self.cx.interp.make_pending_def(module, slot as usize).is_err() {
            return self.unsupported(format!("the module variable `{name}`"), range);
        }
        let m = self.cx.interp.vm.module(module);
        let g = m.globals.get(slot as usize).cloned().flatten();
        let Some(g) = g else {
            return self.unsupported(format!("the module variable `{name}`"), range);
        };
        let tys = self.cx.flatten(g.ty, &self.file, range)?;
        if let Some(&(first, ty)) = self.cx.globals.placed.get(&(module, slot)) {
            return Ok(Placed { first, ty, tys });
        }
        let mut words = Vec::new();
        let filled = g
            .value
            .as_ref()
            .and_then(|v| self.cx.words_of(g.ty, v, &mut words));
        if filled.is_none() || words.len() != tys.len() {
            return self.unsupported(format!("the module variable `{name}` (its value)"), range);
        }
        let first = self.cx.globals.words.len();
        if first + words.len() > MAX_GLOBAL_SLOTS {
            return self.unsupported(format!("more than {MAX_GLOBAL_SLOTS} global slots"), range);
        }
        self.cx.globals.words.extend(words);
        self.cx.globals.placed.insert((module, slot), (first, g.ty));
        Ok(Placed { first, ty: g.ty, tys })
    }

    /// The address, length and index registers of slot `k`.
    fn slot_at(&mut self, k: usize) -> (VReg, VReg, VReg) {
        let addr = self.cx.global_base + 8 * k as Word;
        let p = self.fb.const_(Ty::Ptr, addr);
        let len = self.fb.const_(Ty::U64, 1);
        let i = self.fb.const_(Ty::U64, 0);
        (p, len, i)
    }

    /// The checks of a slot access never fail (a live address, index 0 of
    /// 1); their code is the internal error.
    pub(super) fn never() -> ErrCode {
        ErrCode::new(super::errors::INTERNAL).expect("non-zero")
    }

    /// Read module global `slot`.
    pub fn read_global(&mut self, slot: u32, name: &str, range: TextRange) -> Lowered<LVal> {
        self.read_global_of(self.module, slot, name, range)
    }

    /// Read global `slot` of module `module` (`m.x` of a `var` of `m`).
    pub fn read_global_of(
        &mut self,
        module: crate::vm::value::ModuleId,
        slot: u32,
        name: &str,
        range: TextRange,
    ) -> Lowered<LVal> {
        let g = self.global_of(module, slot, name, range)?;
        let mut regs = Vec::new();
        for (k, &t) in g.tys.iter().enumerate() {
            let (p, len, i) = self.slot_at(g.first + k);
            regs.push(self.fb.load(t, p, len, i, Self::never(), Self::never()));
        }
        Ok(LVal { ty: g.ty, regs })
    }

    /// Assign `x` (converted to the global's declared type) to a global.
    pub fn store_global(&mut self, slot: u32, name: &str, x: LVal, range: TextRange) -> Lowered<()> {
        let g = self.global(slot, name, range)?;
        let x = self.coerce(x, g.ty, range)?;
        for (k, &r) in x.regs.iter().enumerate() {
            let (p, len, i) = self.slot_at(g.first + k);
            self.fb.store(p, len, i, r, Self::never(), Self::never());
        }
        Ok(())
    }
}
