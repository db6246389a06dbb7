#!/usr/bin/env bash
# The sensor demo's live chain: QEMU firmware -> UART0 -> the host reads the
# stream while the firmware is still sampling -> Arrow Flight server.
#
#   targets/sensor-demo/live.sh <out-dir> [--lz4] [--kill-after-batches N]
#
# 1. A pyarrow Flight server (tests/python/flight_server.py, 127.0.0.1, any
#    free port) starts; it dumps what it receives to <out-dir>/flight/.
# 2. The firmware runs under QEMU (run.sh); its UART0 lands byte for byte in
#    <out-dir>/sensor.arrows as it is sent.
# 3. While it runs, `alkaid cat --follow` prints each batch as it arrives
#    (every line stamped with the seconds since the firmware started) and
#    `alkaid flight put --follow` forwards each batch to the server.
# 4. Checks: sensor-check and read.py --check (pyarrow, polars, DuckDB) on
#    what the Flight server received, every value against the simulation.
#
# --kill-after-batches N kills QEMU once the firmware has sent N batches:
# then both host readers must report the truncated stream (exit 1), and
# what they received whole must match the simulation (sensor-check --prefix).
#
# Needs target/debug/alkaid, the host checker and the .venv (scripts/demo.sh
# builds and installs them). Prints `live: N passed, M failed`; exits 1 when
# a check failed.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
out=${1:?usage: live.sh <out-dir> [--lz4] [--kill-after-batches N]}
shift
run_args=() kill_after=0
while [ $# -gt 0 ]; do
    case "$1" in
    --lz4) run_args+=(--lz4) ;;
    --kill-after-batches) kill_after=${2:?}; shift ;;
    *) echo "live.sh: unknown option $1" >&2; exit 2 ;;
    esac
    shift
done
py="${ALKAID_PYTHON:-$root/.venv/bin/python}"
alkaid="$root/target/debug/alkaid"
check="$here/host/target/debug/sensor-check"
passed=0 failed=0
ok() { passed=$((passed + 1)); echo "ok      $*"; }
bad() { failed=$((failed + 1)); echo "FAILED  $*"; }

mkdir -p "$out/flight"
rm -f "$out/sensor.arrows" "$out"/flight/* "$out"/*.log
"$here/run.sh" "$out" "${run_args[@]}" --build-only || exit 1

pids=()
cleanup() { for p in "${pids[@]}"; do kill "$p" 2>/dev/null; done; wait 2>/dev/null; }
trap cleanup EXIT

"$py" "$root/tests/python/flight_server.py" --dump "$out/flight" >"$out/server-port.log" 2>"$out/server.log" &
pids+=($!)
for _ in $(seq 300); do [ -s "$out/server-port.log" ] && break; sleep 0.1; done
port=$(head -1 "$out/server-port.log")
[ -n "$port" ] || { echo "the Flight server did not start:" >&2; cat "$out/server.log" >&2; exit 1; }
server="grpc://127.0.0.1:$port"
echo "Flight server (pyarrow) at $server"

start=$(date +%s.%N)
since() { awk -v s="$start" -v n="$(date +%s.%N)" 'BEGIN { printf "%6.3f", n - s }'; }
"$here/run.sh" "$out" "${run_args[@]}" >"$out/firmware.log" 2>&1 &
qemu=$!
pids+=($qemu)
for _ in $(seq 300); do [ -e "$out/sensor.arrows" ] && break; sleep 0.05; done

# The idle limit ends the readers when the firmware stops sending (killed);
# a finished stream ends them at its end-of-stream marker.
# Each line is stamped with the host's clock as it arrives ($EPOCHREALTIME:
# no process per line, so the stamping keeps up with the output).
"$alkaid" cat --follow --idle-timeout 3 "$out/sensor.arrows" 2>"$out/cat.err" |
    while IFS= read -r line; do printf '%s  %s\n' "$EPOCHREALTIME" "$line"; done >"$out/cat.raw" &
cat_pid=$!
"$alkaid" flight put "$server" --path sensors --follow --idle-timeout 3 "$out/sensor.arrows" \
    >"$out/put.log" 2>&1 &
put_pid=$!

if [ "$kill_after" -gt 0 ]; then
    want="batch $((kill_after - 1)) sent"
    for _ in $(seq 600); do grep -q "$want" "$out/firmware.log" && break; sleep 0.02; done
    pkill -KILL -f "file:$out/sensor.arrows" || true
fi
wait "$qemu"
qemu_status=$?
finished=$(since)
wait "$cat_pid"
cat_status=$?
# Seconds since QEMU started instead of the raw clock.
awk -v s="$start" '{ printf "%7.3f  %s\n", $1 - s, substr($0, length($1) + 3) }' "$out/cat.raw" >"$out/cat.log"
wait "$put_pid"
put_status=$?

echo "-- firmware log"
cat "$out/firmware.log"
echo "-- alkaid cat --follow (seconds since QEMU started | output)"
head -6 "$out/cat.log"
echo "   ... ($(wc -l <"$out/cat.log") lines)"
first=$(awk 'NR == 3 { print $1 }' "$out/cat.log")
echo "first batch shown at ${first:-?} s; firmware finished at $finished s"
# Per batch: when `cat --follow` printed its first row and when the Flight
# server received it (host clock, seconds since QEMU started).
if [ -s "$out/flight/arrivals.log" ]; then
    echo "-- batch arrival (s since QEMU started): cat --follow | Flight server | forwarding"
    awk -v s="$start" 'NR == FNR { shown[FNR] = $1; next }
        { k = FNR - 1; at = $1 - s; line = 3 + 100 * k
          if (line in shown) printf "batch %d: %7.3f | %7.3f | %+.3f\n", k, shown[line], at, at - shown[line] }' \
        "$out/cat.log" "$out/flight/arrivals.log" | tee "$out/arrivals.txt"
    awk '{ print $NF }' "$out/arrivals.txt" | sort -g |
        awk '{ d[NR] = $1 } END { if (NR) printf "median forwarding delay (cat --follow to Flight server): %.3f s over %d batches\n", d[int((NR + 1) / 2)], NR }'
fi
echo "-- alkaid flight put"
cat "$out/put.log"
echo "-- checks"

received="$out/flight/sensors.arrows"
rows=$(awk 'NR > 2' "$out/cat.log" | wc -l)
if [ "$kill_after" -eq 0 ]; then
    [ "$qemu_status" = 0 ] && ok "firmware exit 0" || bad "firmware exit $qemu_status"
    [ "$cat_status" = 0 ] && [ "$rows" = 1000 ] && ok "cat --follow printed 1000 rows" ||
        bad "cat --follow: exit $cat_status, $rows rows: $(cat "$out/cat.err")"
    awk -v f="$first" -v e="$finished" 'BEGIN { exit !(f != "" && f < e) }' &&
        ok "the first batch was shown before the firmware finished (${first} s < ${finished} s)" ||
        bad "the first batch was not shown while the firmware ran"
    [ "$put_status" = 0 ] && ok "flight put exit 0" || bad "flight put exit $put_status"
    if "$check" "$received" >"$out/check.log" 2>&1; then ok "sensor-check on what the Flight server received"; else bad "sensor-check: $(cat "$out/check.log")"; fi
    if "$py" "$here/read.py" "$received" --check >"$out/read.log" 2>&1; then
        ok "read.py --check (pyarrow, polars, DuckDB) on what the Flight server received"
    else
        bad "read.py --check: $(tail -5 "$out/read.log")"
    fi
else
    [ "$cat_status" = 1 ] && grep -qE "no new bytes|unexpected end of input" "$out/cat.err" &&
        ok "cat --follow reports the truncated stream: $(cat "$out/cat.err")" ||
        bad "cat --follow: exit $cat_status: $(cat "$out/cat.err")"
    [ "$rows" -ge $((kill_after * 100)) ] && [ $((rows % 100)) = 0 ] &&
        ok "cat printed $rows rows: whole batches, at least the $kill_after sent" ||
        bad "cat printed $rows rows"
    [ "$put_status" = 1 ] && ok "flight put reports the truncated stream: $(tail -1 "$out/put.log")" ||
        bad "flight put: exit $put_status"
    if "$check" --prefix "$out/sensor.arrows" >"$out/check.log" 2>&1; then
        ok "the UART bytes up to the cut: $(head -1 "$out/check.log")"
    else
        bad "sensor-check --prefix on the UART bytes: $(cat "$out/check.log")"
    fi
    if "$check" --prefix "$received" >"$out/check-flight.log" 2>&1; then
        ok "the Flight server kept the whole batches: $(head -1 "$out/check-flight.log")"
    else
        bad "sensor-check --prefix on what the server received: $(cat "$out/check-flight.log")"
    fi
fi
echo "live: $passed passed, $failed failed"
[ "$failed" = 0 ]
