#!/usr/bin/env bash
# Cargo runner: runs the firmware ELF ($1) under QEMU with semihosting, whose
# output is the binary defmt log, and decodes it with defmt-print (installed
# by scripts/install.sh) against the same ELF. The exit status is QEMU's
# (the firmware's semihosting exit code; 124 when `timeout` stops it), or
# defmt-print's when decoding fails.
set -euo pipefail
elf=$1
if ! command -v defmt-print >/dev/null 2>&1; then
    echo "defmt-print not found: run scripts/install.sh (cargo install defmt-print)" >&2
    exit 2
fi
timeout 60 qemu-system-arm -cpu cortex-m4 -machine mps2-an386 -nographic \
    -semihosting-config enable=on,target=native -kernel "$elf" |
    defmt-print --log-format '{L} {s}' -e "$elf" stdin
