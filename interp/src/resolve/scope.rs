//! Scopes and symbols: what the resolver decides about every declared name
//! (its slot, whether it is `var` or `const`, where it was declared).
//! A scope's symbols keep their declaration order (it is the slot order)
//! and are indexed by name, so declaring and finding a name is O(1) and
//! resolving a module of n definitions is linear in n.

use std::ops::{Deref, DerefMut};

use crate::source::TextRange;
use crate::syntax::ast::Name;

/// `var` (reassignable, red) or `const` (assigned once; blue when its first
/// value is blue).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum VarKind {
    Var,
    Const,
}

/// Why a symbol has its kind; printed in "const declared here (<origin>)".
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Origin {
    Auto,
    GlobalConst,
    Explicit,
    FuncDef,
    ClassDef,
    ClassField,
    RedParam,
    BlueParam,
    Import,
    ForTarget,
}

impl Origin {
    pub fn name(self) -> &'static str {
        match self {
            Origin::Auto => "auto",
            Origin::GlobalConst => "global-const",
            Origin::Explicit => "explicit",
            Origin::FuncDef => "funcdef",
            Origin::ClassDef => "classdef",
            Origin::ClassField => "class-field",
            Origin::RedParam => "red-param",
            Origin::BlueParam => "blue-param",
            Origin::Import => "import",
            Origin::ForTarget => "for-target",
        }
    }
}

/// A declared name: 16 bytes, one per local of every function of a
/// program (issue 14 item 5). Made by [`Scope::declare`]; its declaring
/// occurrence is [`Scope::decl_range`].
#[derive(Clone, Debug)]
pub struct Symbol {
    /// The declaring identifier's (interned) name.
    pub name: Name,
    pub kind: VarKind,
    pub origin: Origin,
    /// Where the declaring occurrence starts.
    start: u32,
    /// Bits 0..15: its length, or [`Symbol::LONG`] when that does not fit
    /// (the scope keeps the whole range); bit 15: assigned at least once
    /// (the resolver's count: an auto const assigned a second time is
    /// promoted to var).
    len: u16,
}

impl Symbol {
    const LONG: u16 = 0x7fff;
    const ASSIGNED: u16 = 0x8000;

    /// Whether a plain assignment (or an initialized declaration) targets
    /// it.
    pub fn is_assigned(&self) -> bool {
        self.len & Self::ASSIGNED != 0
    }

    pub fn set_assigned(&mut self) {
        self.len |= Self::ASSIGNED;
    }

    /// Its declaring occurrence when the symbol holds all of it.
    fn short_range(&self) -> Option<TextRange> {
        let len = self.len & !Self::ASSIGNED;
        (len != Self::LONG).then(|| TextRange::new(self.start, self.start + u32::from(len)))
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ScopeKind {
    Module,
    Function,
    Class,
}

/// The symbols of one body in declaration order (a symbol's index is its
/// slot), with an index from name to slot. It reads as a slice
/// (`symbols[slot]`, `symbols.iter()`); symbols are added only by
/// [`Symbols::push`], which keeps the index in step. A symbol's `name` must
/// not be changed after it is pushed.
#[derive(Clone, Debug, Default)]
pub struct Symbols {
    list: Vec<Symbol>,
    /// The index, once there are more than [`Symbols::INDEXED_FROM`]
    /// symbols (a function's few locals are found by a scan: a hash table
    /// each would cost more memory than its source). (Boxed: most scopes
    /// have none, and an inline table would make every function's scope
    /// larger.)
    by_name: Option<Box<NameIndex>>,
}

/// The slot of the first symbol of each name: 4 bytes an entry (the name
/// is read from the symbol list), where a map from name to slot takes 16.
#[derive(Clone, Default)]
struct NameIndex {
    slots: hashbrown::HashTable<u32>,
    hasher: foldhash::fast::RandomState,
}

impl std::fmt::Debug for NameIndex {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "NameIndex({} names)", self.slots.len())
    }
}

impl NameIndex {
    fn hash(&self, name: &str) -> u64 {
        use std::hash::BuildHasher;
        self.hasher.hash_one(name)
    }

    /// The slot of `name` in `list`.
    fn find(&self, list: &[Symbol], name: &str) -> Option<usize> {
        self.slots
            .find(self.hash(name), |&s| list[s as usize].name == name)
            .map(|&s| s as usize)
    }

    /// Index `list[slot]` unless its name is already indexed.
    fn add(&mut self, list: &[Symbol], slot: usize) {
        let name = list[slot].name.as_str();
        let hash = self.hash(name);
        let hasher = &self.hasher;
        let rehash = |&s: &u32| {
            use std::hash::BuildHasher;
            hasher.hash_one(list[s as usize].name.as_str())
        };
        if let hashbrown::hash_table::Entry::Vacant(v) =
            self.slots.entry(hash, |&s| list[s as usize].name == name, rehash)
        {
            // (A module has fewer than 2^32 symbols: its source is at most
            // 64 MiB.)
            v.insert(slot as u32);
        }
    }
}

impl Symbols {
    /// Scopes with more symbols than this get a hash index.
    pub const INDEXED_FROM: usize = 16;

    /// Append `symbol`; returns its slot.
    fn push(&mut self, symbol: Symbol) -> usize {
        let slot = self.list.len();
        self.list.push(symbol);
        match &mut self.by_name {
            Some(index) => index.add(&self.list, slot),
            None if self.list.len() > Self::INDEXED_FROM => {
                let mut index = NameIndex::default();
                index.slots.reserve(self.list.len(), |_| 0);
                for k in 0..self.list.len() {
                    index.add(&self.list, k);
                }
                self.by_name = Some(Box::new(index));
            }
            None => {}
        }
        slot
    }

    /// The slot of the first symbol called `name`.
    pub fn find(&self, name: &str) -> Option<usize> {
        match &self.by_name {
            Some(index) => index.find(&self.list, name),
            None => self.list.iter().position(|s| s.name == name),
        }
    }
}

impl Deref for Symbols {
    type Target = [Symbol];
    fn deref(&self) -> &[Symbol] {
        &self.list
    }
}

impl DerefMut for Symbols {
    fn deref_mut(&mut self) -> &mut [Symbol] {
        &mut self.list
    }
}

/// The symbols of one module, function or class body. A symbol's index is
/// its slot in the frame that executes that body.
///
/// One per `def` of a program, kept as long as it runs: 48 bytes (with no
/// name of its own: its qualified name is its definition's place in the
/// tree, spelled by whoever shows it, issue 14 item 5).
#[derive(Clone, Debug)]
pub struct Scope {
    pub kind: ScopeKind,
    pub symbols: Symbols,
    /// A blue body (a class body or a `@blue` function): a name may be
    /// declared in several places (both branches of a blue `if`); declaring
    /// it twice is a ScopeError only when it happens at run time.
    pub blue: bool,
    /// What almost no scope has (boxed).
    rare: Option<Box<RareParts>>,
}

/// The parts of a scope almost every scope goes without.
#[derive(Clone, Debug, Default)]
struct RareParts {
    /// The slots of names declared more than once in this (blue) scope.
    redeclared: Vec<usize>,
    /// The declaring occurrences too long for their symbol (identifiers of
    /// 32 KiB and more), by slot.
    long_ranges: Vec<(usize, TextRange)>,
}

impl Scope {
    pub fn new(kind: ScopeKind) -> Scope {
        Scope {
            kind,
            symbols: Symbols::default(),
            blue: kind == ScopeKind::Class,
            rare: None,
        }
    }

    /// Declare `name` (declared at `range`) in the next slot; returns the
    /// slot. `assigned`: the declaration assigns it.
    pub fn declare(
        &mut self,
        name: Name,
        kind: VarKind,
        origin: Origin,
        range: TextRange,
        assigned: bool,
    ) -> usize {
        let slot = self.symbols.len();
        let len = match u16::try_from(range.len()) {
            Ok(len) if len < Symbol::LONG => len,
            _ => {
                let rare = self.rare.get_or_insert_with(Default::default);
                rare.long_ranges.push((slot, range));
                Symbol::LONG
            }
        };
        let mut symbol = Symbol {
            name,
            kind,
            origin,
            start: range.start,
            len,
        };
        if assigned {
            symbol.set_assigned();
        }
        self.symbols.push(symbol)
    }

    /// The declaring occurrence of the symbol in `slot` (for "previous
    /// declaration" / "defined here").
    pub fn decl_range(&self, slot: usize) -> TextRange {
        let Some(symbol) = self.symbols.get(slot) else {
            return TextRange::default();
        };
        symbol.short_range().unwrap_or_else(|| {
            self.rare
                .iter()
                .flat_map(|r| &r.long_ranges)
                .find(|(s, _)| *s == slot)
                .map(|(_, range)| *range)
                .unwrap_or_default()
        })
    }

    /// Whether the name in `slot` has more than one declaration, so that
    /// executing one of them checks the slot is still empty.
    pub fn is_redeclared(&self, slot: usize) -> bool {
        self.rare.as_ref().is_some_and(|r| r.redeclared.contains(&slot))
    }

    /// Note that the name in `slot` is declared more than once.
    pub fn mark_redeclared(&mut self, slot: usize) {
        let r = self.rare.get_or_insert_with(Default::default);
        if !r.redeclared.contains(&slot) {
            r.redeclared.push(slot);
        }
    }

    pub fn find(&self, name: &str) -> Option<usize> {
        self.symbols.find(name)
    }

    /// The scope as kept once resolved: its symbol list without spare
    /// capacity (when that is worth a reallocation: a body of more than
    /// four symbols whose list grew by doubling).
    pub fn finished(mut self) -> Scope {
        let list = &mut self.symbols.list;
        if list.capacity() - list.len() >= 4 {
            list.shrink_to_fit();
        }
        self
    }

    pub fn slot_count(&self) -> usize {
        self.symbols.len()
    }
}

/// Where a name occurrence points, decided before execution.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum NameRef {
    /// A slot of the current frame.
    Local(u32),
    /// A slot of an enclosing function frame; `depth` 1 is the innermost
    /// enclosing function.
    Outer { depth: u32, slot: u32 },
    /// A module global slot.
    Global(u32),
    /// A builtin (index into `resolve::builtin_names::BUILTIN_NAMES`).
    Builtin(u32),
    /// Not declared anywhere: evaluating it raises NameError (lazily).
    Undefined,
}

#[cfg(test)]
mod tests {
    use super::*;

    fn symbol(name: &str) -> Symbol {
        Symbol {
            name: name.into(),
            kind: VarKind::Const,
            origin: Origin::Auto,
            start: 0,
            len: 0,
        }
    }

    /// A declaration's range reads back whole, however long; being
    /// assigned does not change it.
    #[test]
    fn declaration_ranges_read_back_whole() {
        let mut scope = Scope::new(ScopeKind::Function);
        let ranges = [
            TextRange::new(3, 4),
            TextRange::new(10, 10 + 0x7ffe),
            TextRange::new(20, 20 + 0x7fff),
            TextRange::new(7, 7 + 5_000_000),
            TextRange::new(u32::MAX - 2, u32::MAX),
        ];
        for (k, r) in ranges.iter().enumerate() {
            let slot = scope.declare(
                format!("n{k}").as_str().into(),
                VarKind::Var,
                Origin::Auto,
                *r,
                k % 2 == 0,
            );
            assert_eq!(slot, k);
        }
        for (k, r) in ranges.iter().enumerate() {
            assert_eq!(scope.decl_range(k), *r, "slot {k}");
            assert_eq!(scope.symbols[k].is_assigned(), k % 2 == 0, "slot {k}");
            scope.symbols[k].set_assigned();
            assert_eq!(scope.decl_range(k), *r, "slot {k} once assigned");
        }
        assert_eq!(scope.decl_range(ranges.len()), TextRange::default());
    }

    /// A function's scope costs its own bytes (issue 14 item 5): no name,
    /// no inline table of redeclarations.
    #[test]
    fn scopes_and_symbols_are_small() {
        assert_eq!(std::mem::size_of::<Scope>(), 48);
        assert_eq!(std::mem::size_of::<Symbol>(), 16);
    }

    /// The first symbol of a name is found the same way whether the scope
    /// is scanned (few symbols) or indexed (many).
    #[test]
    fn find_gives_the_first_slot_scanned_or_indexed() {
        let mut symbols = Symbols::default();
        for k in 0..Symbols::INDEXED_FROM + 10 {
            symbols.push(symbol(&format!("n{}", k % 12)));
            for j in 0..=k.min(11) {
                assert_eq!(symbols.find(&format!("n{j}")), Some(j), "after {k} pushes");
            }
            assert_eq!(symbols.find("absent"), None);
        }
    }
}
