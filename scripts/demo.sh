#!/usr/bin/env bash
# The main job of alkaid: a firmware that records sensor samples into Arrow
# arrays with no heap and streams them as Arrow IPC, read back on the host.
#
# The full sensor demo arrives with the IPC writer. Until then this runs the
# firmware example that exists: a RecordBatch with a schema in flash and
# columns in a static arena, on QEMU's Cortex-M4 board.
set -euo pipefail
cd "$(dirname "$0")/.."

if [ "${ALKAID_SKIP_INSTALL:-0}" != 1 ]; then
    scripts/install.sh
fi

echo "== alkaid firmware example: RecordBatch on a Cortex-M4 (QEMU mps2-an386), no global allocator"
(cd targets/qemu-cortex-m4 && cargo run --quiet --release --bin record_batch </dev/null)

echo
echo "The full sensor demo (firmware -> Arrow IPC stream -> host reader) is pending:"
echo "it arrives with the IPC writer. See README.md."
