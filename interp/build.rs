//! Generates the LR parser from `src/syntax/grammar.lalrpop` into OUT_DIR.
fn main() {
    println!("cargo:rerun-if-changed=src/syntax/grammar.lalrpop");
    if std::path::Path::new("src/syntax/grammar.lalrpop").exists() {
        lalrpop::Configuration::new()
            .use_cargo_dir_conventions()
            .process()
            .expect("lalrpop failed to generate the SPy grammar");
    }
}
