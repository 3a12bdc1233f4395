//! Where every name occurrence of a module points (`NameRef`), indexed by
//! `NameId`, in 4 bytes an occurrence instead of a `NameRef`'s 12: a large
//! program has about one occurrence per 7 source bytes, so this table is a
//! good part of the memory a resolved module takes (issue 14 item 5).
//!
//! A `u32` holds a tag in its low 3 bits and the payload above: a slot or a
//! builtin index (29 bits), or an outer reference's depth (8 bits) and slot
//! (21 bits). A reference that does not fit (only possible in a program with
//! millions of names in one scope) is kept whole in a side table.

use super::scope::NameRef;

const TAG_BITS: u32 = 3;
const TAG_MASK: u32 = (1 << TAG_BITS) - 1;
const PAYLOAD_MAX: u32 = u32::MAX >> TAG_BITS;
const DEPTH_BITS: u32 = 8;
const DEPTH_MAX: u32 = (1 << DEPTH_BITS) - 1;
const OUTER_SLOT_MAX: u32 = PAYLOAD_MAX >> DEPTH_BITS;

const UNDEFINED: u32 = 0;
const LOCAL: u32 = 1;
const GLOBAL: u32 = 2;
const BUILTIN: u32 = 3;
const OUTER: u32 = 4;
/// The payload is an index into `NameRefs::wide`.
const WIDE: u32 = 5;

/// A `NameRef` per name occurrence, packed.
#[derive(Clone, Debug, Default)]
pub struct NameRefs {
    packed: Vec<u32>,
    wide: Vec<NameRef>,
}

impl NameRefs {
    /// `n` occurrences, all `NameRef::Undefined`.
    pub fn new(n: usize) -> NameRefs {
        NameRefs {
            packed: vec![UNDEFINED; n],
            wide: Vec::new(),
        }
    }

    pub fn len(&self) -> usize {
        self.packed.len()
    }

    pub fn is_empty(&self) -> bool {
        self.packed.is_empty()
    }

    /// The reference of occurrence `i`; `Undefined` past the end.
    pub fn get(&self, i: usize) -> NameRef {
        let Some(&word) = self.packed.get(i) else {
            return NameRef::Undefined;
        };
        let payload = word >> TAG_BITS;
        match word & TAG_MASK {
            LOCAL => NameRef::Local(payload),
            GLOBAL => NameRef::Global(payload),
            BUILTIN => NameRef::Builtin(payload),
            OUTER => NameRef::Outer {
                depth: payload & DEPTH_MAX,
                slot: payload >> DEPTH_BITS,
            },
            WIDE => self.wide[payload as usize],
            _ => NameRef::Undefined,
        }
    }

    /// Set occurrence `i` (ignored past the end, as `get` answers
    /// `Undefined` there).
    pub fn set(&mut self, i: usize, r: NameRef) {
        if i >= self.packed.len() {
            return;
        }
        let word = match r {
            NameRef::Undefined => Some(UNDEFINED),
            NameRef::Local(s) => pack(LOCAL, s),
            NameRef::Global(s) => pack(GLOBAL, s),
            NameRef::Builtin(b) => pack(BUILTIN, b),
            NameRef::Outer { depth, slot } if depth <= DEPTH_MAX && slot <= OUTER_SLOT_MAX => {
                pack(OUTER, slot << DEPTH_BITS | depth)
            }
            NameRef::Outer { .. } => None,
        };
        self.packed[i] = match word {
            Some(w) => w,
            None => {
                let at = self.wide.len();
                self.wide.push(r);
                // A module has fewer than 2^29 name occurrences (its source
                // is at most 64 MiB), so the index always fits.
                pack(WIDE, at as u32).expect("fewer wide references than name occurrences")
            }
        };
    }
}

fn pack(tag: u32, payload: u32) -> Option<u32> {
    (payload <= PAYLOAD_MAX).then_some(payload << TAG_BITS | tag)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every reference reads back as it was set, packed or kept whole.
    #[test]
    fn references_read_back_as_set() {
        let refs = [
            NameRef::Undefined,
            NameRef::Local(0),
            NameRef::Local(PAYLOAD_MAX),
            NameRef::Local(u32::MAX),
            NameRef::Global(7),
            NameRef::Global(PAYLOAD_MAX + 1),
            NameRef::Builtin(3),
            NameRef::Outer { depth: 1, slot: 0 },
            NameRef::Outer {
                depth: DEPTH_MAX,
                slot: OUTER_SLOT_MAX,
            },
            NameRef::Outer {
                depth: DEPTH_MAX + 1,
                slot: 2,
            },
            NameRef::Outer {
                depth: 2,
                slot: OUTER_SLOT_MAX + 1,
            },
            NameRef::Outer {
                depth: u32::MAX,
                slot: u32::MAX,
            },
        ];
        let mut table = NameRefs::new(refs.len() + 1);
        for (i, r) in refs.iter().enumerate() {
            table.set(i, *r);
        }
        for (i, r) in refs.iter().enumerate() {
            assert_eq!(table.get(i), *r, "occurrence {i}");
        }
        assert_eq!(table.get(refs.len()), NameRef::Undefined);
        assert_eq!(table.get(refs.len() + 5), NameRef::Undefined);
        // Only the references that do not fit are kept whole.
        assert_eq!(table.wide.len(), 5);
        // Setting again replaces.
        table.set(1, NameRef::Builtin(9));
        table.set(3, NameRef::Local(1));
        assert_eq!(table.get(1), NameRef::Builtin(9));
        assert_eq!(table.get(3), NameRef::Local(1));
        table.set(refs.len() + 5, NameRef::Local(1));
        assert_eq!(table.len(), refs.len() + 1);
    }
}
