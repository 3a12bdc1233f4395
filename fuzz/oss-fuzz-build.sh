#!/bin/bash -eu
# OSS-Fuzz / ClusterFuzzLite build script (`build.sh`) for spy-interp's
# libFuzzer targets. The base-builder-rust image provides nightly Rust,
# cargo-fuzz and the sanitizer RUSTFLAGS; $SRC and $OUT are set by the
# builder. Copy or symlink this file to `.clusterfuzzlite/build.sh` (or
# `projects/spy-interp/build.sh` in google/oss-fuzz).
cd "$SRC/spy-interp"

TARGETS="parse diff redshift_roundtrip"

# -O: optimized build with debug assertions (what OSS-Fuzz expects).
cargo fuzz build -O --fuzz-dir fuzz

TRIPLE=x86_64-unknown-linux-gnu
for t in $TARGETS; do
    cp "fuzz/target/$TRIPLE/release/$t" "$OUT/"
done

# Seed corpora: a few generated programs' worth of random bytes is all the
# generator needs; inputs are read through `arbitrary`, so any bytes work.
for t in $TARGETS; do
    mkdir -p "/tmp/seed-$t"
    for i in 1 2 3 4 5 6 7 8; do
        head -c 4096 /dev/urandom > "/tmp/seed-$t/seed$i"
    done
    (cd "/tmp/seed-$t" && zip -q "$OUT/${t}_seed_corpus.zip" ./*)
done
