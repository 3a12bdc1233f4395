//! Unit tests of the parser entry points (the fixture snapshots live in
//! `interp/tests/parser_fixtures.rs`).

use super::*;

#[test]
fn empty_module() {
    let m = parse_str("").unwrap();
    assert!(m.body.is_empty());
}
