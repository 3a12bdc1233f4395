//! How a SPy value of a static type lives in IR registers: primitives are
//! one register of the matching `Ty`, `str` and `bytes` one `Handle`, `None` nothing,
//! static tuples and structs by value the concatenation of their items'
//! registers (flattened), `SIMD[T, N]` one vector register. A pointer (`gc_ptr[T]`, `raw_ptr[T]`) is
//! a `Ptr` and the `I64` number of items: to a primitive `T`, the `Ptr` is
//! the items' buffer; to any other `T` (a struct, a pointer), the items are
//! stored by parts — one buffer per scalar of `T`'s flattened layout — and
//! the `Ptr` is the allocation's *table*, a buffer of the part buffers'
//! addresses (at least one word: it is also the allocation's identity, for
//! `==` and truth; NULL is 0). Unless `T` reaches itself through pointers
//! (`next: gc_ptr[Node]` in `Node`), the part buffers follow in registers
//! too, so an access needs no table load (see [`PtrLayout`]). A reference (`gc_ref[T]`, `raw_ref[T]`:
//! always to a struct) is the table of the allocation it lies in, the
//! table position of `T`'s first part (a struct field's parts are a run of
//! its item's), and the `I64` length and index of the item, see
//! [`ref_regs`]. Also the one
//! mapping between canonical IR words and `vm::ops::Scalar`, used by every
//! helper.

use spy_jit::ir::{Ty, Word};

use crate::vm::ops::{PrimTy, Scalar};
use crate::vm::types::{TypeId, TypeKind, TypeTable};

/// The IR type of a primitive.
pub fn prim_ty(p: PrimTy) -> Ty {
    match p {
        PrimTy::I8 => Ty::I8,
        PrimTy::U8 => Ty::U8,
        PrimTy::I32 => Ty::I32,
        PrimTy::U32 => Ty::U32,
        PrimTy::I64 => Ty::I64,
        PrimTy::U64 => Ty::U64,
        PrimTy::F32 => Ty::F32,
        PrimTy::F64 => Ty::F64,
        PrimTy::Bool => Ty::Bool,
    }
}

/// The registers of a value of type `ty`, in order; `None` when the type
/// has no native layout yet (the caller reports what it is).
pub fn flatten(types: &TypeTable, ty: TypeId) -> Option<Vec<Ty>> {
    let mut out = Vec::new();
    flatten_into(types, ty, &mut out, &mut Vec::new()).then_some(out)
}

/// `pointees`: the item types of the pointers (and references) being laid
/// out around `ty`, whose own layout is being decided.
fn flatten_into(types: &TypeTable, ty: TypeId, out: &mut Vec<Ty>, pointees: &mut Vec<TypeId>) -> bool {
    match types.kind(ty) {
        TypeKind::Prim(p) => out.push(prim_ty(*p)),
        TypeKind::Str | TypeKind::Bytes => out.push(Ty::Handle),
        // an exception: its kind's code and its message (`exception.rs`)
        TypeKind::Exception => out.extend([Ty::U32, Ty::Handle]),
        TypeKind::NoneType => {}
        TypeKind::Simd { .. } => match super::simd::vec_ty(types, ty) {
            Some(v) => out.push(Ty::Vec(v)),
            None => return false,
        },
        TypeKind::Tuple(items) => {
            for &t in items {
                if !flatten_into(types, t, out, pointees) {
                    return false;
                }
            }
        }
        TypeKind::Struct {
            fields,
            complete: true,
        } => {
            for fd in fields {
                if !flatten_into(types, fd.ty, out, pointees) {
                    return false;
                }
            }
        }
        // A list is a handle to a table of the run; its items are words
        // (an item type of one register).
        TypeKind::List(item) => match flatten(types, *item) {
            Some(parts) if parts.len() == 1 => out.push(Ty::Handle),
            _ => return false,
        },
        // `list[T]::list_iterator`: its list's handle and its index
        TypeKind::ListIter(list) => {
            if !flatten_into(types, *list, out, pointees) {
                return false;
            }
            out.push(Ty::I32);
        }
        // A dict is a handle to a table of the run whose entries are the
        // words of the key and the value (`dict_rt`): neither may hold a
        // vector.
        TypeKind::Dict { key, value, .. } => {
            let words =
                |t: TypeId| flatten(types, t).is_some_and(|p| p.iter().all(|t| !matches!(t, Ty::Vec(_))));
            if !words(*key) || !words(*value) {
                return false;
            }
            out.push(Ty::Handle)
        }
        // a file: its id in the interpreter's file table (`file_rt`)
        TypeKind::File => out.push(Ty::Handle),
        // a RawBuffer: a pointer to its bytes and their number (`rawbuffer`)
        TypeKind::RawBuffer => out.extend([Ty::Ptr, Ty::I64]),
        // `{}`: a handle to an empty table
        TypeKind::EmptyDict => out.push(Ty::Handle),
        // a range object: its start, stop and step (a non-zero step)
        TypeKind::Range => out.extend([Ty::I32; 3]),
        // `[]`: a handle to an empty table
        TypeKind::EmptyList => out.push(Ty::Handle),
        TypeKind::Ptr { item, .. } | TypeKind::Ref { item, .. } => {
            // the item must have a layout; one being laid out around this
            // pointer (`next: gc_ptr[Node]` in `Node`) is decided there
            let mut parts = Vec::new();
            if !pointees.contains(item) {
                pointees.push(*item);
                let laid_out = flatten_into(types, *item, &mut parts, pointees);
                pointees.pop();
                if !laid_out {
                    return false;
                }
            }
            match types.kind(ty) {
                TypeKind::Ptr { .. } => {
                    let cached = buffers_cached(types, *item);
                    out.extend(PtrLayout::REGS);
                    if cached {
                        out.extend(parts.iter().map(|_| Ty::Ptr));
                    }
                }
                _ => out.extend(REF_REGS),
            }
        }
        _ => return false,
    }
    true
}

/// The registers of a reference: the table of its allocation, the table
/// position of its struct's first part, the item's length and index.
pub const REF_REGS: [Ty; 4] = [Ty::Ptr, Ty::I64, Ty::I64, Ty::I64];

/// Whether a pointer to `item` holds its part buffers in registers: for
/// items stored by parts that do not reach themselves through pointers
/// (a pointer's registers would then hold its own buffers, without end).
/// A property of the item type alone, so every pointer of one type has one
/// layout.
fn buffers_cached(types: &TypeTable, item: TypeId) -> bool {
    item.as_prim().is_none() && !reaches(types, item, item, &mut Vec::new())
}

/// Whether `from`'s fields, items or pointees reach `target`.
fn reaches(types: &TypeTable, from: TypeId, target: TypeId, seen: &mut Vec<TypeId>) -> bool {
    let next: Vec<TypeId> = match types.kind(from) {
        TypeKind::Struct { fields, .. } => fields.iter().map(|f| f.ty).collect(),
        TypeKind::Tuple(items) => items.clone(),
        TypeKind::Ptr { item, .. } | TypeKind::Ref { item, .. } => vec![*item],
        _ => Vec::new(),
    };
    for t in next {
        if t == target {
            return true;
        }
        if !seen.contains(&t) {
            seen.push(t);
            if reaches(types, t, target, seen) {
                return true;
            }
        }
    }
    false
}

/// How a pointer to items of one type lives in registers and memory.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PtrLayout {
    /// The item type is primitive: the identity register is the buffer.
    pub prim: bool,
    /// The IR type of each part of an item (one buffer per part).
    pub parts: Vec<Ty>,
    /// The part buffers follow the table in the pointer's registers.
    pub cached: bool,
}

impl PtrLayout {
    /// The layout of a pointer to `item`, if `item` has a native layout.
    pub fn of(types: &TypeTable, item: TypeId) -> Option<PtrLayout> {
        let parts = flatten(types, item)?;
        Some(PtrLayout {
            prim: item.as_prim().is_some(),
            parts,
            cached: buffers_cached(types, item),
        })
    }

    /// The registers every pointer starts with: the items' buffer (a
    /// primitive item) or the allocation's table, then the number of items.
    pub const REGS: [Ty; 2] = [Ty::Ptr, Ty::I64];

    /// Where part `j`'s buffer is among a pointer's registers, when they
    /// hold it.
    pub fn cached_buffer(&self, j: usize) -> Option<usize> {
        if self.prim {
            Some(0)
        } else if self.cached {
            Some(2 + j)
        } else {
            None
        }
    }

    /// The number of words of the allocation's table (one at least).
    pub fn table_len(&self) -> usize {
        self.parts.len().max(1)
    }
}

/// The stable number of a primitive type passed to helpers.
pub fn prim_code(p: PrimTy) -> Word {
    PrimTy::ALL.iter().position(|&q| q == p).unwrap_or(0) as Word
}

/// The primitive type of a helper's type number.
pub fn prim_of_code(code: Word) -> Option<PrimTy> {
    PrimTy::ALL.get(code as usize).copied()
}

/// A scalar from its canonical IR word (floats as their bits).
pub fn scalar_of_word(p: PrimTy, w: Word) -> Scalar {
    match p {
        PrimTy::I8 => Scalar::I8(w as i8),
        PrimTy::U8 => Scalar::U8(w as u8),
        PrimTy::I32 => Scalar::I32(w as i32),
        PrimTy::U32 => Scalar::U32(w as u32),
        PrimTy::I64 => Scalar::I64(w as i64),
        PrimTy::U64 => Scalar::U64(w),
        PrimTy::F32 => Scalar::F32(f32::from_bits(w as u32)),
        PrimTy::F64 => Scalar::F64(f64::from_bits(w)),
        PrimTy::Bool => Scalar::Bool(w != 0),
    }
}

/// The canonical IR word of a scalar (see `spy_jit::ir`).
pub fn word_of_scalar(s: Scalar) -> Word {
    match s {
        Scalar::I8(v) => v as i64 as Word,
        Scalar::U8(v) => Word::from(v),
        Scalar::I32(v) => v as i64 as Word,
        Scalar::U32(v) => Word::from(v),
        Scalar::I64(v) => v as Word,
        Scalar::U64(v) => v,
        Scalar::F32(v) => Word::from(v.to_bits()),
        Scalar::F64(v) => v.to_bits(),
        Scalar::Bool(b) => Word::from(b),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn words_and_scalars_round_trip_canonically() {
        let samples = [
            Scalar::I8(-1),
            Scalar::U8(255),
            Scalar::I32(i32::MIN),
            Scalar::U32(u32::MAX),
            Scalar::I64(-7),
            Scalar::U64(u64::MAX),
            Scalar::F32(-0.5),
            Scalar::F64(f64::NAN),
            Scalar::Bool(true),
        ];
        for s in samples {
            let w = word_of_scalar(s);
            let back = scalar_of_word(s.ty(), w);
            assert_eq!(word_of_scalar(back), w, "{s:?}");
            assert_eq!(prim_of_code(prim_code(s.ty())), Some(s.ty()));
        }
        // Signed values are sign-extended, unsigned zero-extended.
        assert_eq!(word_of_scalar(Scalar::I8(-1)), u64::MAX);
        assert_eq!(word_of_scalar(Scalar::U8(255)), 255);
    }

    #[test]
    fn tuples_flatten_into_their_scalars() {
        let mut t = TypeTable::new();
        let inner = t.tuple(vec![TypeId::F64, TypeId::STR]);
        let outer = t.tuple(vec![TypeId::I32, inner, TypeId::NONE, TypeId::BOOL]);
        assert_eq!(
            flatten(&t, outer),
            Some(vec![Ty::I32, Ty::F64, Ty::Handle, Ty::Bool])
        );
        // A list is a handle when its items are one register each.
        let list = t.list(TypeId::I32);
        assert_eq!(flatten(&t, list), Some(vec![Ty::Handle]));
        let pairs = t.list(inner);
        assert_eq!(flatten(&t, pairs), None);
    }

    #[test]
    fn pointers_are_a_buffer_or_table_and_a_length() {
        let mut t = TypeTable::new();
        let p = t.ptr(TypeId::F64, true);
        assert_eq!(flatten(&t, p), Some(vec![Ty::Ptr, Ty::I64]));
        // A pointer to (i32, gc_ptr[f64]): its table and length; its items
        // are stored by parts (i32, and the inner pointer's two registers).
        let item = t.tuple(vec![TypeId::I32, p]);
        let q = t.ptr(item, false);
        assert_eq!(
            flatten(&t, q),
            Some(vec![Ty::Ptr, Ty::I64, Ty::Ptr, Ty::Ptr, Ty::Ptr])
        );
        let l = PtrLayout::of(&t, item).unwrap();
        assert_eq!(l.parts, vec![Ty::I32, Ty::Ptr, Ty::I64]);
        assert_eq!(l.table_len(), 3);
        assert_eq!(l.cached_buffer(1), Some(3));
        assert!(PtrLayout::of(&t, TypeId::U8).unwrap().prim);
        // no layout for the item, none for the pointer
        let d = t.ptr(TypeId::DYNAMIC, true);
        assert_eq!(flatten(&t, d), None);
    }

    #[test]
    fn references_are_table_first_part_length_and_index() {
        use crate::vm::types::Field;
        let mut t = TypeTable::new();
        let point = t.new_struct("m::Point".into());
        let field = |name: &str, ty| Field {
            name: name.into(),
            ty,
        };
        t.complete_struct(point, vec![field("x", TypeId::I32), field("y", TypeId::F64)]);
        let r = t.mem_ref(point, true);
        assert_eq!(flatten(&t, r), Some(vec![Ty::Ptr, Ty::I64, Ty::I64, Ty::I64]));
    }

    #[test]
    fn a_struct_may_point_to_itself() {
        use crate::vm::types::Field;
        let mut t = TypeTable::new();
        let node = t.new_struct("m::Node".into());
        let next = t.ptr(node, true);
        let fields = vec![
            Field {
                name: "val".into(),
                ty: TypeId::I32,
            },
            Field {
                name: "next".into(),
                ty: next,
            },
        ];
        t.complete_struct(node, fields);
        // a table and a length only: its buffers are read from the table
        assert_eq!(flatten(&t, next), Some(vec![Ty::Ptr, Ty::I64]));
        assert_eq!(flatten(&t, node), Some(vec![Ty::I32, Ty::Ptr, Ty::I64]));
        let l = PtrLayout::of(&t, node).unwrap();
        assert_eq!((l.parts.len(), l.cached, l.cached_buffer(0)), (3, false, None));
        // a struct holding such a pointer is not on the cycle: cached
        let holder = t.tuple(vec![next, TypeId::F64]);
        let h = t.ptr(holder, true);
        assert_eq!(
            flatten(&t, h),
            Some(vec![Ty::Ptr, Ty::I64, Ty::Ptr, Ty::Ptr, Ty::Ptr])
        );
    }
}
