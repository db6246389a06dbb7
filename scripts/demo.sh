#!/usr/bin/env bash
# The sensor demo, from a fresh machine: a Cortex-M4F firmware (QEMU
# mps2-an386) with no global allocator samples simulated sensors into Arrow
# record batches in a static arena and streams them as Arrow IPC over
# semihosting to a host file; on the host the alkaid CLI, our readers,
# pyarrow, polars and DuckDB read it.
#
#   scripts/demo.sh          # uncompressed stream
#   scripts/demo.sh --lz4    # LZ4 frame body compression
#   ALKAID_SKIP_INSTALL=1 scripts/demo.sh   # do not run scripts/install.sh
#
# The stream lands in target/sensor-demo/<plain|lz4>/sensor.arrows.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$(pwd)

variant=plain
run_args=()
case "${1:-}" in
"") ;;
--lz4)
    variant=lz4
    run_args=(--lz4)
    ;;
*)
    echo "usage: scripts/demo.sh [--lz4]" >&2
    exit 2
    ;;
esac
OUT="$ROOT/target/sensor-demo/$variant"
PY="$ROOT/.venv/bin/python"

step() { printf '\n\033[1m== %s\033[0m\n' "$*"; }

if [ "${ALKAID_SKIP_INSTALL:-0}" != 1 ]; then
    step "install: Rust targets, QEMU, the Python venv (pyarrow, polars, DuckDB)"
    scripts/install.sh
fi

step "build: the alkaid CLI and the host checker"
cargo build --quiet -p alkaid-std --bin alkaid
(cd targets/sensor-demo/host && cargo build --quiet)

step "firmware: thumbv7em-none-eabihf on QEMU mps2-an386 (Cortex-M4F), no global allocator ($variant)"
targets/sensor-demo/run.sh "$OUT" "${run_args[@]}"
ls -l "$OUT/sensor.arrows"

step "alkaid schema $OUT/sensor.arrows"
target/debug/alkaid schema "$OUT/sensor.arrows"

step "alkaid cat --limit 8"
target/debug/alkaid cat --limit 8 "$OUT/sensor.arrows"

step "sensor-check: our readers against the simulation"
targets/sensor-demo/host/target/debug/sensor-check "$OUT/sensor.arrows"

if [ -x "$PY" ]; then
    step "read.py: pyarrow, polars and DuckDB"
    "$PY" targets/sensor-demo/read.py "$OUT/sensor.arrows"
else
    step "read.py skipped: no .venv (run scripts/install.sh)"
fi
