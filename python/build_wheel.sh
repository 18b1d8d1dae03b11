#!/usr/bin/env bash
# Builds the `vouch` wheel: the Python package (python/vouch/ over the native module of
# crates/vouch-py) and the `vouch` command in the wheel's `vouch-<version>.data/scripts/`, where
# pip installs it on PATH (the way ruff ships its binary; docs/python.md says why).
#
#   python/build_wheel.sh                 debug build (what CI tests), into target/wheels/
#   python/build_wheel.sh --release       for distribution
#
# Every argument goes to `maturin build` (e.g. `--out DIR`); `--release` also builds the command
# optimised. MATURIN names the maturin to run (default: `maturin` on PATH).
set -euo pipefail
cd "$(dirname "$0")/.."
profile=debug
for arg in "$@"; do
  if [ "$arg" = "--release" ] || [ "$arg" = "-r" ]; then profile=release; fi
done
# The command with the polars `tables` feature, so that `vouch audit -o x.parquet|x.csv` works
# from the wheel too (after CI's `--all-features` tests the debug build of it is already there).
if [ "$profile" = release ]; then
  cargo build --locked --release --features tables --bin vouch
else
  cargo build --locked --features tables --bin vouch
fi
rm -rf target/wheel-data
mkdir -p target/wheel-data/scripts
cp "target/$profile/vouch" target/wheel-data/scripts/vouch
exec "${MATURIN:-maturin}" build --locked "$@"
