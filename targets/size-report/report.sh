#!/usr/bin/env bash
# Size and memory budget of alkaid on a Cortex-M4 (stage `size` of
# scripts/test.sh). Builds the two firmwares (opt-level "z", LTO, one codegen
# unit, panic abort; alkaid without default features), prints text/data/bss
# from arm-none-eabi-size, runs both under QEMU for the heap figures of the
# Counting allocator, and compares with the budget:
#
#   writer: text <= 16 KiB, and 0 bytes of heap in the steady state
#   reader: text <= 32 KiB
#
# Exit status 0 only when both firmwares pass their own checks and both are
# within budget. When over budget, the largest symbols are listed (what
# pulls the code in). For scale: nanoarrow's C writer firmware for the same
# job links to about 46 KiB of text and 5.8 KB of heap, its reader to 42 KiB.
set -euo pipefail
cd "$(dirname "$0")"

WRITER_TEXT_BUDGET=$((16 * 1024))
READER_TEXT_BUDGET=$((32 * 1024))
ELF=target/thumbv7em-none-eabihf/release
SIZE=${ARM_SIZE:-arm-none-eabi-size}
NM=${ARM_NM:-arm-none-eabi-nm}
if ! command -v "$SIZE" >/dev/null 2>&1; then
    echo "$SIZE not found: run scripts/install.sh (binutils-arm-none-eabi)" >&2
    exit 2
fi

cargo build --release --bins

declare -A TEXT DATA BSS
for b in writer reader; do
    read -r t d s _ < <("$SIZE" "$ELF/$b" | tail -n 1)
    TEXT[$b]=$t DATA[$b]=$d BSS[$b]=$s
done

bad=0
declare -A OUT
for b in writer reader; do
    echo "-- $b under QEMU"
    set +e
    OUT[$b]=$(cargo run --quiet --release --bin "$b" </dev/null 2>&1)
    rc=$?
    set -e
    printf '%s\n' "${OUT[$b]}" | sed 's/^/   /'
    if [ "$rc" -ne 0 ]; then
        echo "$b: exit code $rc"
        bad=1
    fi
done
value() { printf '%s\n' "${OUT[$1]}" | sed -n "s/^$2=//p" | tail -n 1; }

kib() { awk -v n="$1" 'BEGIN { printf "%.1f KiB", n / 1024 }'; }
verdict() { if [ "$1" -le "$2" ]; then echo "ok"; else echo "OVER BUDGET"; fi; }

w_peak=$(value writer end_heap_peak_bytes)
w_steady=$(value writer steady_state_allocations)
w_growth=$(value writer steady_state_heap_growth_bytes)
r_peak=$(value reader end_heap_peak_bytes)
echo
echo "== size report (thumbv7em-none-eabihf, opt-level z, LTO, alkaid default-features = false)"
printf '%-8s %8s %6s %6s  %-22s %-12s %s\n' binary text data bss "text budget" verdict "heap"
printf '%-8s %8s %6s %6s  %-22s %-12s %s\n' writer "${TEXT[writer]}" "${DATA[writer]}" "${BSS[writer]}" \
    "$(kib "${TEXT[writer]}") / $(kib $WRITER_TEXT_BUDGET)" "$(verdict "${TEXT[writer]}" $WRITER_TEXT_BUDGET)" \
    "peak ${w_peak:-?} B; steady state: ${w_steady:-?} allocations, ${w_growth:-?} B"
printf '%-8s %8s %6s %6s  %-22s %-12s %s\n' reader "${TEXT[reader]}" "${DATA[reader]}" "${BSS[reader]}" \
    "$(kib "${TEXT[reader]}") / $(kib $READER_TEXT_BUDGET)" "$(verdict "${TEXT[reader]}" $READER_TEXT_BUDGET)" \
    "peak ${r_peak:-?} B"
echo "(bss is the 16 KiB static arena behind the heap plus the runtime's; the heap peak is what the Counting allocator saw)"

over=()
[ "${TEXT[writer]}" -le $WRITER_TEXT_BUDGET ] || over+=(writer)
[ "${TEXT[reader]}" -le $READER_TEXT_BUDGET ] || over+=(reader)
if [ "${w_steady:-1}" != 0 ] || [ "${w_growth:-1}" != 0 ]; then
    echo "writer: the steady state allocates (budget: 0 bytes)"
    bad=1
fi
for b in "${over[@]}"; do
    echo
    echo "-- $b: largest symbols (what pulls the code in)"
    # `head` closes the pipe early: ignore the SIGPIPE of the commands before it.
    ("$NM" --size-sort -r -C --radix=d "$ELF/$b" | grep -v ' [bB] ' | head -n 15 | sed 's/^/   /') || true
done
if [ ${#over[@]} -gt 0 ]; then
    echo
    echo "OVER BUDGET: ${over[*]} (see docs/size.md)"
    bad=1
fi
echo "size: $([ "$bad" -eq 0 ] && echo "2 passed, 0 failed" || echo "$((2 - ${#over[@]})) passed, ${#over[@]} failed")"
exit "$bad"
