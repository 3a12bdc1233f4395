//! Lexer unit tests: layout tokens, literals, soft keywords, errors.

use super::*;

#[test]
fn empty() {
    assert!(tokenize("").unwrap().is_empty());
}
