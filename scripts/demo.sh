#!/usr/bin/env bash
# The sensor demo, from a fresh machine, live: a Cortex-M4F firmware (QEMU
# mps2-an386) with no global allocator samples simulated sensors into Arrow
# record batches in a static arena and streams them as Arrow IPC over its
# UART; on the host `alkaid cat --follow` shows each batch as it arrives and
# `alkaid flight put` forwards it to an Arrow Flight server (pyarrow's),
# whose table pyarrow, polars and DuckDB read (targets/sensor-demo/live.sh).
#
#   scripts/demo.sh          # uncompressed stream
#   scripts/demo.sh --lz4    # LZ4 frame body compression
#   ALKAID_SKIP_INSTALL=1 scripts/demo.sh   # do not run scripts/install.sh
#
# The UART bytes land in target/sensor-demo/<plain|lz4>/sensor.arrows, what
# the Flight server received in .../flight/sensors.arrows.
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

step "live: firmware (QEMU mps2-an386, no global allocator, $variant) -> UART0 -> alkaid cat --follow / alkaid flight put -> pyarrow Flight server"
targets/sensor-demo/live.sh "$OUT" "${run_args[@]}"

step "alkaid schema $OUT/sensor.arrows"
target/debug/alkaid schema "$OUT/sensor.arrows"

step "read.py: pyarrow, polars and DuckDB on what the Flight server received"
"$PY" targets/sensor-demo/read.py "$OUT/flight/sensors.arrows"
