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
#[derive(Clone, Debug, Default)]
pub struct Origins {
    entries: Vec<Origin>,
}

impl Origins {
    /// Record `o`; made-up code is never a mapping's answer, so it is not
    /// kept (the map costs 16 bytes a node from user source).
    pub(crate) fn push(&mut self, o: Origin) {
        if o.has_origin() {
            self.entries.push(o);
        }
    }

    pub fn len(&self) -> usize {
        self.entries.len()
    }

    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// The source range of the printed range `at`: that of the innermost
    /// node from user source printed exactly there or around it; `None`
    /// when only code redshift made up is there (or nothing was printed).
    pub fn source_of(&self, at: TextRange) -> Option<TextRange> {
        self.entries
            .iter()
            .filter(|o| o.has_origin() && o.printed.contains_range(at))
            .min_by_key(|o| o.printed.len())
            .map(|o| o.source)
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
