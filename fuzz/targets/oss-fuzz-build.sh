#!/bin/bash -eu
# OSS-Fuzz / ClusterFuzzLite build script (`build.sh`) for spy-interp's
# libFuzzer targets. The base-builder-rust image provides nightly Rust,
# cargo-fuzz and the sanitizer RUSTFLAGS; $SRC and $OUT are set by the
# builder. Copy or symlink this file to `.clusterfuzzlite/build.sh` (or
# `projects/spy-interp/build.sh` in google/oss-fuzz).
cd "$SRC/spy-interp"

TARGETS="parse diff redshift_roundtrip encoder ir"

# -O: optimized build with debug assertions (what OSS-Fuzz expects).
cargo fuzz build -O --fuzz-dir fuzz/targets

TRIPLE=x86_64-unknown-linux-gnu
for t in $TARGETS; do
    cp "fuzz/targets/target/$TRIPLE/release/$t" "$OUT/"
done

# Seed corpora. `parse` starts from real SPy: the conformance suite and the
# parser fixtures (valid and invalid). `diff`, `redshift_roundtrip`,
# `encoder` and `ir` read their input through `arbitrary` (into the program
# generator, the emitter's forms, the IR builder), so any bytes are valid
# seeds: a few random 4 KiB inputs.
mkdir -p /tmp/seed-parse
i=0
for f in conformance/cases/*/*.spy interp/tests/parser/valid/*.spy interp/tests/parser/invalid/*.spy; do
    i=$((i + 1))
    cp "$f" "/tmp/seed-parse/case$i.spy"
done
(cd /tmp/seed-parse && zip -q "$OUT/parse_seed_corpus.zip" ./*)
for t in diff redshift_roundtrip encoder ir; do
    mkdir -p "/tmp/seed-$t"
    for i in 1 2 3 4 5 6 7 8; do
        head -c 4096 /dev/urandom > "/tmp/seed-$t/seed$i"
    done
    (cd "/tmp/seed-$t" && zip -q "$OUT/${t}_seed_corpus.zip" ./*)
done
