//! Where printed residual code comes from, and an error's locations mapped
//! back through it.
//!
//! The printer records, for every expression, statement, parameter and
//! function header it prints, the printed byte range next to the node's own
//! range: redshift builds residual nodes with the range of the user's code
//! they come from (a specialized, inlined or unrolled copy keeps its
//! origin), or the empty range at 0 for code it makes up (helpers, the
//! struct `__eq__` for a metafunc, module-level definitions). An error
//! raised while the printed module is parsed or run is located in that
//! text; [`ResidualMap::map_error`] moves each location (annotations and
//! traceback entries) to the user's source: to the origin of the innermost
//! printed node there that has one; where only made-up code is, the
//! location stays in the residual text (spec §16.7).

use std::rc::Rc;

use crate::error::{Annotation, ExcKind, SpyError, TraceEntry};
use crate::source::{SourceFile, TextRange};

/// One printed node: where it is in the printed text, and its own range.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Origin {
    pub printed: TextRange,
    pub source: TextRange,
}

impl Origin {
    /// Whether the node comes from user source (redshift gives made-up
    /// code the empty range at offset 0).
    fn has_origin(self) -> bool {
        self.source != TextRange::default()
    }
}

/// The origins of one printed module, in printing order (a node after its
/// children, so the innermost of nodes printed at the same range first).
///
/// Packed: each origin is LEB128 numbers, about 3 bytes a node instead of
/// 16: the printed start as a zigzag delta from the previous one (shifted
/// left by one, the low bit telling whether the rest is the same as in the
/// printed text) and the printed length; unless the same, the source start
/// as a zigzag delta and the source length. Most residual code is laid out
/// as its source is: from one node to the next the printed and source
/// starts move by the same delta, and a node is as long printed as in the
/// source, so most origins are two numbers. A residual module has about
/// one node per 3 bytes of its text, and the map lives as long as the
/// residual program runs (issue 14 item 5). (A few numbers do not justify
/// a crate.)
///
/// An origin that cannot change an answer of [`Origins::source_of`] is not
/// kept: one whose source range is that of the nearest node printed around
/// it (a type annotation redshift wrote into a statement, with the
/// statement's range; a target with its assignment's). Where the innermost
/// node was such an origin, the next one out gives the same range. This
/// drops about a third of a residual module's origins and half the map's
/// bytes. The printer records a node after its children, so the nearest
/// node around an origin is the first later one whose printed range holds
/// it; until it comes, the origin waits in `window` (undecided ones in
/// `open`), and [`Origins::settle`] (at the end of each top-level
/// statement, and of the module) writes out what waits.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Origins {
    bytes: Vec<u8>,
    len: usize,
    last_printed: u32,
    last_source: u32,
    /// The origins recorded but not yet written, in order, each with
    /// whether it is kept.
    window: Vec<(Origin, bool)>,
    /// The indices in `window` of the origins no later one holds yet (a
    /// stack: the printed ranges nest, each after those it holds).
    open: Vec<usize>,
}

impl Origins {
    /// Record `o`; made-up code is never a mapping's answer, so it is not
    /// kept.
    pub(crate) fn push(&mut self, o: Origin) {
        if !o.has_origin() {
            return;
        }
        // The open origins `o` holds have found the nearest node around
        // them: `o`. One with `o`'s source range adds nothing.
        while let Some(&i) = self.open.last() {
            let (held, _) = self.window[i];
            if !o.printed.contains_range(held.printed) {
                break;
            }
            self.open.pop();
            if held.source == o.source {
                self.window[i].1 = false;
            }
        }
        self.open.push(self.window.len());
        self.window.push((o, true));
    }

    /// Write out every origin recorded so far (those still open are kept:
    /// no node around them is coming, e.g. at the end of a top-level
    /// statement). Reading the origins does not need it; it bounds the
    /// window by the largest top-level statement.
    pub(crate) fn settle(&mut self) {
        let window = std::mem::take(&mut self.window);
        for (o, kept) in &window {
            if *kept {
                self.write(*o);
            }
        }
        self.window = window;
        self.window.clear();
        self.open.clear();
    }

    /// Append `o` to the packed origins.
    fn write(&mut self, o: Origin) {
        let printed = zigzag(o.printed.start, self.last_printed);
        let source = zigzag(o.source.start, self.last_source);
        let same = printed == source && o.printed.len() == o.source.len();
        put(&mut self.bytes, u64::from(printed) << 1 | u64::from(same));
        put(&mut self.bytes, u64::from(o.printed.len()));
        if !same {
            put(&mut self.bytes, u64::from(source));
            put(&mut self.bytes, u64::from(o.source.len()));
        }
        self.last_printed = o.printed.start;
        self.last_source = o.source.start;
        self.len += 1;
    }

    /// Record each of `other`'s origins, its printed range moved `base`
    /// bytes on (the origins of a `def` printed on its own, placed in its
    /// module's text: `spy_printer::print_module_with_defs`).
    pub(crate) fn append_at(&mut self, other: &Origins, base: u32) {
        // (`other`'s origins are those kept: none of them can go now)
        self.settle();
        for o in other.iter() {
            self.write(Origin {
                printed: TextRange::new(o.printed.start + base, o.printed.end + base),
                source: o.source,
            });
        }
    }

    /// Write out what waits and give back the spare capacity (once the
    /// module is printed).
    pub(crate) fn shrink_to_fit(&mut self) {
        self.settle();
        self.bytes.shrink_to_fit();
        self.window = Vec::new();
        self.open = Vec::new();
    }

    /// The number of origins kept.
    pub fn len(&self) -> usize {
        self.len + self.window.iter().filter(|(_, kept)| *kept).count()
    }

    /// The bytes the packed origins take.
    pub fn byte_len(&self) -> usize {
        self.bytes.len()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Every origin kept, in the order they were recorded.
    fn iter(&self) -> impl Iterator<Item = Origin> + '_ {
        let waiting = self.window.iter().filter(|(_, kept)| *kept).map(|(o, _)| *o);
        self.written().chain(waiting)
    }

    /// The origins written out, in order.
    fn written(&self) -> impl Iterator<Item = Origin> + '_ {
        let mut at = 0;
        let (mut printed, mut source) = (0u32, 0u32);
        std::iter::from_fn(move || {
            if at >= self.bytes.len() {
                return None;
            }
            let first = take(&self.bytes, &mut at);
            let printed_delta = (first >> 1) as u32;
            printed = unzigzag(printed, printed_delta);
            let printed_len = take(&self.bytes, &mut at) as u32;
            let (source_delta, source_len) = if first & 1 == 1 {
                (printed_delta, printed_len)
            } else {
                let delta = take(&self.bytes, &mut at) as u32;
                (delta, take(&self.bytes, &mut at) as u32)
            };
            source = unzigzag(source, source_delta);
            Some(Origin {
                printed: TextRange::new(printed, printed + printed_len),
                source: TextRange::new(source, source + source_len),
            })
        })
    }

    /// The source range of the printed range `at`: that of the innermost
    /// node from user source printed exactly there or around it; `None`
    /// when only code redshift made up is there (or nothing was printed).
    pub fn source_of(&self, at: TextRange) -> Option<TextRange> {
        self.iter()
            .filter(|o| o.printed.contains_range(at))
            .min_by_key(|o| o.printed.len())
            .map(|o| o.source)
    }
}

/// `value - previous` as an unsigned number, small either way.
fn zigzag(value: u32, previous: u32) -> u32 {
    let d = value.wrapping_sub(previous) as i32;
    ((d << 1) ^ (d >> 31)) as u32
}

fn unzigzag(previous: u32, z: u32) -> u32 {
    let d = ((z >> 1) as i32) ^ -((z & 1) as i32);
    previous.wrapping_add(d as u32)
}

/// Append `v` in LEB128 (7 bits a byte, low first, high bit: more).
fn put(out: &mut Vec<u8>, mut v: u64) {
    while v >= 0x80 {
        out.push((v as u8) | 0x80);
        v >>= 7;
    }
    out.push(v as u8);
}

/// The LEB128 number at `*at`, moving `*at` past it.
fn take(bytes: &[u8], at: &mut usize) -> u64 {
    let (mut v, mut shift) = (0u64, 0);
    loop {
        let b = bytes[*at];
        *at += 1;
        v |= u64::from(b & 0x7f) << shift;
        if b < 0x80 {
            return v;
        }
        shift += 7;
    }
}

/// An error redshift found in lazy mode and turned into a residual
/// `raise` (a statement, or a call of a `$raise[N]` helper): what ASTFrame
/// would report there beyond `Kind: message`, which the residual `raise`
/// cannot spell.
#[derive(Clone, Debug)]
pub struct FoldedError {
    /// The `$raise[N]` helper that raises it, or `None` for a `raise`
    /// statement standing for the statement at `site`.
    pub helper: Option<String>,
    /// The user-source range of the residual `raise` (the statement) or of
    /// the helper's call.
    pub site: TextRange,
    pub kind: ExcKind,
    pub message: String,
    pub annotations: Vec<Annotation>,
    /// Frames the error passed through while redshift ran blue code
    /// (innermost first), and where the shifted function was (`current`).
    pub inner_traceback: Vec<TraceEntry>,
    pub current: TextRange,
    /// The error's notes (the blue calls it came out of).
    pub notes: Vec<String>,
}

/// A printed residual module's way back to the user's source.
#[derive(Clone, Debug)]
pub struct ResidualMap {
    /// The path the printed module's locations are shown under.
    pub printed_path: String,
    /// The user's source file the origins point into.
    pub source: Rc<SourceFile>,
    pub origins: Origins,
    /// The errors redshift folded into residual `raise`s.
    pub folded: Vec<FoldedError>,
    /// The maps of the program's other residual modules (spec §16.8).
    pub others: Vec<ResidualMap>,
}

impl ResidualMap {
    /// `e` with every location in the printed module that has an origin
    /// moved to the user's source.
    pub fn map_error(&self, e: &mut SpyError) {
        let map = |file: &mut Rc<SourceFile>, range: &mut TextRange| {
            if file.path != self.printed_path {
                return;
            }
            if let Some(source) = self.origins.source_of(*range) {
                *file = self.source.clone();
                *range = source;
            }
        };
        for a in &mut e.annotations {
            map(&mut a.file, &mut a.range);
        }
        for t in &mut e.traceback {
            map(&mut t.file, &mut t.range);
        }
        self.restore_folded(e);
        for other in &self.others {
            other.map_error(e);
        }
    }

    /// An error raised by a residual `raise` that stands for an error
    /// redshift found: shown as ASTFrame shows that error (its annotations,
    /// the frames of the blue code it came from, the frame's location), and
    /// without the `$raise[N]` helper's frame.
    fn restore_folded(&self, e: &mut SpyError) {
        let helper = e
            .traceback
            .first()
            .and_then(|t| t.name.rsplit("::").next())
            .filter(|n| n.starts_with("$raise["))
            .map(str::to_string);
        let at = usize::from(helper.is_some());
        let Some(outer) = e.traceback.get(at) else {
            return;
        };
        let found = self.folded.iter().find(|f| {
            f.kind == e.kind
                && f.message == e.message
                && match (&f.helper, &helper) {
                    (Some(h), Some(name)) => h == name,
                    (None, None) => f.site == outer.range && Rc::ptr_eq(&outer.file, &self.source),
                    _ => false,
                }
        });
        let Some(f) = found else {
            return;
        };
        e.annotations = f.annotations.clone();
        e.notes = f.notes.clone();
        e.traceback.drain(..at);
        e.traceback[0].range = f.current;
        e.traceback.splice(0..0, f.inner_traceback.iter().cloned());
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn o(p: (u32, u32), s: (u32, u32)) -> Origin {
        Origin {
            printed: TextRange::new(p.0, p.1),
            source: TextRange::new(s.0, s.1),
        }
    }

    /// Every origin reads back as it was pushed, whatever the distance
    /// between consecutive ones (forward, backward, far, at the limits).
    #[test]
    fn packed_origins_read_back_as_pushed() {
        let all = [
            o((0, 1), (5, 9)),
            o((3, 3), (0, 4)),
            o((2, 300), (70_000, 70_001)),
            o((1 << 20, (1 << 20) + 5), (1, 2)),
            o((7, 8), (u32::MAX - 3, u32::MAX)),
            o((u32::MAX - 1, u32::MAX), (0, u32::MAX)),
            o((0, 0), (3, 3)),
            // laid out as in the source: two numbers each
            o((100, 105), (203, 208)),
            o((110, 112), (213, 215)),
            o((90, 112), (193, 215)),
        ];
        let mut origins = Origins::default();
        for x in all {
            origins.push(x);
            // made-up code in between is not kept
            origins.push(o((4, 6), (0, 0)));
        }
        assert_eq!(origins.len(), all.len());
        assert_eq!(origins.iter().collect::<Vec<_>>(), all);
        origins.settle();
        let before = origins.byte_len();
        origins.push(o((95, 97), (198, 200)));
        origins.settle();
        assert_eq!(origins.byte_len() - before, 2, "a node laid out as in the source");
        let before = origins.byte_len();
        origins.push(o((96, 97), (199, 201)));
        origins.settle();
        assert_eq!(origins.byte_len() - before, 4, "one of another length");
    }

    /// `x: i32 = a + b` printed from `x = a + b` at 0..9: the target and
    /// the annotation redshift wrote carry the statement's range.
    fn assignment() -> Vec<Origin> {
        vec![
            o((0, 1), (0, 9)),   // x
            o((3, 6), (0, 9)),   // i32
            o((9, 10), (4, 5)),  // a
            o((13, 14), (8, 9)), // b
            o((9, 14), (4, 9)),  // a + b
            o((0, 14), (0, 9)),  // the statement
        ]
    }

    /// An origin whose source range is that of the nearest printed node
    /// around it is not kept, and no printed range maps differently for it:
    /// the same answers as with every origin kept, read before and after
    /// the origins are written out.
    #[test]
    fn an_origin_with_the_range_of_the_node_around_it_is_not_kept() {
        let all = assignment();
        let mut origins = Origins::default();
        for x in &all {
            origins.push(*x);
        }
        let kept = [all[2], all[3], all[4], all[5]];
        assert_eq!(origins.iter().collect::<Vec<_>>(), kept);
        let answers = |origins: &Origins| {
            (0..15u32)
                .flat_map(|s| (s..15).map(move |e| TextRange::new(s, e)))
                .map(|at| origins.source_of(at))
                .collect::<Vec<_>>()
        };
        // every origin kept: written one by one
        let mut every = Origins::default();
        for x in &all {
            every.write(*x);
        }
        assert_eq!(answers(&origins), answers(&every));
        origins.settle();
        assert_eq!(origins.len(), kept.len());
        assert_eq!(origins.iter().collect::<Vec<_>>(), kept);
        assert_eq!(answers(&origins), answers(&every));
        assert!(origins.byte_len() < every.byte_len());
    }

    /// A node printed exactly where a later one with another source range
    /// is keeps its answer (the first of the smallest wins), and an origin
    /// still open when its statement is settled is kept.
    #[test]
    fn a_node_with_its_own_range_inside_the_same_printed_range_is_kept() {
        let mut origins = Origins::default();
        origins.push(o((0, 4), (10, 14)));
        origins.push(o((0, 4), (20, 24)));
        origins.push(o((0, 4), (20, 24)));
        origins.push(o((6, 8), (30, 32)));
        origins.settle();
        assert_eq!(
            origins.iter().collect::<Vec<_>>(),
            [o((0, 4), (10, 14)), o((0, 4), (20, 24)), o((6, 8), (30, 32))]
        );
        assert_eq!(
            origins.source_of(TextRange::new(1, 2)),
            Some(TextRange::new(10, 14))
        );
        assert_eq!(
            origins.source_of(TextRange::new(6, 8)),
            Some(TextRange::new(30, 32))
        );
    }

    #[test]
    fn exact_match_wins_then_the_smallest_node_around() {
        let mut origins = Origins::default();
        origins.push(o((4, 5), (40, 41)));
        origins.push(o((0, 9), (30, 45)));
        origins.push(o((0, 9), (0, 0)));
        assert_eq!(
            origins.source_of(TextRange::new(4, 5)),
            Some(TextRange::new(40, 41))
        );
        assert_eq!(
            origins.source_of(TextRange::new(0, 9)),
            Some(TextRange::new(30, 45))
        );
        assert_eq!(
            origins.source_of(TextRange::new(6, 8)),
            Some(TextRange::new(30, 45))
        );
        assert_eq!(origins.source_of(TextRange::new(10, 12)), None);
    }

    #[test]
    fn made_up_code_maps_to_the_user_code_around_it_or_stays() {
        let mut origins = Origins::default();
        origins.push(o((2, 3), (0, 0)));
        origins.push(o((0, 9), (30, 45)));
        origins.push(o((20, 29), (0, 0)));
        assert_eq!(
            origins.source_of(TextRange::new(2, 3)),
            Some(TextRange::new(30, 45))
        );
        assert_eq!(origins.source_of(TextRange::new(22, 23)), None);
    }
}
