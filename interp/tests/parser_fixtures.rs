//! Parser fixtures, one insta snapshot each:
//! - `tests/parser/valid/*.spy` must parse; the snapshot is the AST dump.
//!   Every tree also passes the span validator (children inside their
//!   parent, siblings in source order, all within the file) and the name-id
//!   check (ids dense from 0, increasing in source order).
//! - `tests/parser/invalid/*.spy` must fail; the snapshot is the rendered
//!   error (`diag::render`).
//!
//! Bless with `INSTA_UPDATE=always cargo test --test parser_fixtures` or
//! `cargo insta accept`.

mod support;

use std::path::Path;

use spy_interp::diag;
use spy_interp::syntax::{dump, parse_bytes};
use support::{check_name_ids, check_spans};

fn display_name(path: &Path) -> String {
    path.file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default()
}

#[test]
fn valid_fixtures_parse() {
    insta::glob!("parser/valid/*.spy", |path| {
        let bytes = std::fs::read(path).expect("fixture is readable");
        let name = display_name(path);
        match parse_bytes(&name, &bytes) {
            Ok((file, module)) => {
                check_spans(&module, file.text().len() as u32);
                check_name_ids(&module);
                insta::assert_snapshot!(dump::dump_module(&module));
            }
            Err(e) => panic!("{name} should parse, got:\n{}", diag::render(&e)),
        }
    });
}

#[test]
fn invalid_fixtures_fail() {
    insta::glob!("parser/invalid/*.spy", |path| {
        let bytes = std::fs::read(path).expect("fixture is readable");
        let name = display_name(path);
        match parse_bytes(&name, &bytes) {
            Ok(_) => panic!("{name} should be rejected"),
            Err(e) => {
                assert_eq!(e.annotations.len(), 1, "{name}: one annotation");
                let r = e.annotations[0].range;
                assert!(
                    r.end as usize <= e.annotations[0].file.text().len() && r.start <= r.end,
                    "{name}: error range {r:?} out of the file"
                );
                insta::assert_snapshot!(diag::render(&e));
            }
        }
    });
}
