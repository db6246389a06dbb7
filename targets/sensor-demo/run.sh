#!/usr/bin/env bash
# Builds the sensor-demo firmware and runs it under QEMU (mps2-an386,
# Cortex-M4F): the firmware streams Arrow IPC on UART0, which QEMU writes
# byte for byte to <out-dir>/sensor.arrows (a character device of kind
# `file`); semihosting carries the firmware's log lines (stdout) and exit
# code. Used by scripts/demo.sh, targets/sensor-demo/live.sh and the stage
# `demo` of scripts/test.sh.
#
#   targets/sensor-demo/run.sh <out-dir> [--lz4] [--unpaced] [--build-only]
#
# --lz4 builds the firmware with the feature `lz4` (LZ4 frame body
# compression), --unpaced with `unpaced` (no 2 ms sampling period: the
# throughput measurement), each variant in its own target directory so that
# switching does not rebuild the others. --build-only stops after the build.
# QEMU's monitor is off and its standard input is /dev/null.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
out=${1:?usage: run.sh <out-dir> [--lz4] [--unpaced] [--build-only]}
shift
features=() variant=plain build_only=0
for arg in "$@"; do
    case "$arg" in
    --lz4) features+=(lz4) variant="${variant/plain/}lz4" ;;
    --unpaced) features+=(unpaced) variant="${variant}-unpaced" ;;
    --build-only) build_only=1 ;;
    *) echo "run.sh: unknown option $arg" >&2; exit 2 ;;
    esac
done
target_dir="$here/firmware/target"
[ "$variant" = plain ] || target_dir="$here/firmware/target/$variant"
feature_args=()
[ ${#features[@]} -eq 0 ] || feature_args=(--features "$(IFS=,; echo "${features[*]}")")
(cd "$here/firmware" && cargo build --quiet --release --target-dir "$target_dir" "${feature_args[@]}")
[ "$build_only" = 1 ] && exit 0
elf="$target_dir/thumbv7em-none-eabihf/release/sensor-demo"
mkdir -p "$out"
rm -f "$out/sensor.arrows"
timeout 120 qemu-system-arm -cpu cortex-m4 -machine mps2-an386 -nographic -monitor none \
    -semihosting-config enable=on,target=native \
    -serial "file:$out/sensor.arrows" -kernel "$elf" </dev/null
