//! Files through the library (spec §8.5): what a run may open is its
//! `FileAccess`, and a read is capped by the string limit before the bytes
//! are kept (a real file on the host, in a directory of this test's own).

use spy_interp::engine::{run_program, Engine, Limits, RunConfig};
use spy_interp::error::ExcKind;
use spy_interp::host::FileAccess;

fn program(path: &std::path::Path, method: &str) -> String {
    format!(
        "def main() -> None:\n    f = open({:?})\n    s = f.{method}()\n    print(len(s))\n",
        path.display().to_string()
    )
}

fn scratch(name: &str, bytes: usize) -> std::path::PathBuf {
    let dir = std::path::Path::new(env!("CARGO_TARGET_TMPDIR"))
        .join(format!("spy-interp-files-test-{}-{name}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("big.txt");
    std::fs::write(&path, "x".repeat(bytes)).unwrap();
    path
}

#[test]
fn a_read_past_the_string_limit_is_an_error_not_an_allocation() {
    let path = scratch("cap", 4096);
    for method in ["read", "readline"] {
        let source = program(&path, method);
        for engine in [Engine::Interp, Engine::Doppler] {
            let config = RunConfig {
                limits: Limits {
                    max_str_bytes: 1000,
                    ..Limits::default()
                },
                files: FileAccess::Host,
                ..RunConfig::default()
            };
            let out = run_program(engine, "cap.spy", source.as_bytes(), config);
            let error = out
                .error
                .unwrap_or_else(|| panic!("{engine} {method}: {}", out.stdout));
            assert_eq!(error.kind, ExcKind::OverflowError, "{engine} {method}");
            assert_eq!(error.message, "string too long (the limit is 1000 bytes)");
        }
        // within the limit the same program reads the file
        let config = RunConfig {
            files: FileAccess::Host,
            ..RunConfig::default()
        };
        let out = run_program(Engine::Interp, "cap.spy", source.as_bytes(), config);
        assert_eq!(out.stdout, "4096\n", "{method}");
    }
    std::fs::remove_dir_all(path.parent().unwrap()).unwrap();
}

#[test]
fn the_default_configuration_opens_nothing() {
    let path = scratch("denied", 10);
    let source = program(&path, "read");
    for engine in [Engine::Interp, Engine::Doppler] {
        let out = run_program(engine, "denied.spy", source.as_bytes(), RunConfig::default());
        let error = out.error.expect("an error");
        assert_eq!(error.to_string(), "OSError: file access is disabled in this run");
    }
    std::fs::remove_dir_all(path.parent().unwrap()).unwrap();
}
