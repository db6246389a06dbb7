#!/usr/bin/env bash
# Builds the sensor-demo firmware and runs it under QEMU (mps2-an386,
# Cortex-M4F, semihosting) with <out-dir> as QEMU's working directory, where
# the firmware writes sensor.arrows. Used by scripts/demo.sh and the stage
# `demo` of scripts/test.sh.
#
#   targets/sensor-demo/run.sh <out-dir> [--lz4]
#
# --lz4 builds the firmware with the feature `lz4` (LZ4 frame body
# compression), in its own target directory so that switching does not
# rebuild the other variant.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
out=${1:?usage: run.sh <out-dir> [--lz4]}
features=() target_dir="$here/firmware/target"
if [ "${2:-}" = --lz4 ]; then
    features=(--features lz4)
    target_dir="$here/firmware/target/lz4"
fi
(cd "$here/firmware" && cargo build --quiet --release --target-dir "$target_dir" "${features[@]}")
elf="$target_dir/thumbv7em-none-eabihf/release/sensor-demo"
mkdir -p "$out"
rm -f "$out/sensor.arrows"
cd "$out"
timeout 120 qemu-system-arm -cpu cortex-m4 -machine mps2-an386 -nographic \
    -semihosting-config enable=on,target=native -kernel "$elf" </dev/null
