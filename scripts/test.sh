#!/usr/bin/env bash
# The one test command of alkaid.
#
#   scripts/test.sh              # every stage
#   scripts/test.sh fmt clippy   # only the named stages
#   ALKAID_SKIP_INSTALL=1 scripts/test.sh   # do not run scripts/install.sh
#
# Stages (each a function `stage_<name>` below; add new ones to STAGES):
#   install   scripts/install.sh (rust targets/components, qemu-system-arm,
#             the .venv with pyarrow)
#   fmt       cargo fmt --check (workspace and firmware projects)
#   clippy    cargo clippy -D warnings (workspace all targets, firmware)
#   test      cargo test --workspace
#   miri      the core's unsafe code under Miri (nightly toolchain)
#   interop   round trips with pyarrow (the .venv's, or $ALKAID_PYTHON) and
#             arrow-rs 60: cargo test -p alkaid-tests --features interop
#             (tests/interop_pyarrow.rs, tests/interop_arrow_rs.rs). Fails
#             when pyarrow is missing; outside CI, ALKAID_SKIP_PYARROW=1
#             runs only the arrow-rs tests.
#   nostd     alkaid and alkaid-alloc built for thumbv6m-none-eabi and
#             thumbv7em-none-eabihf without default features
#   firmware  every targets/qemu-cortex-m4/src/bin/*.rs run under QEMU
#             (mps2-an386, Cortex-M4F, no global allocator)
# Planned: s390x (big-endian under qemu-user).
#
# Every stage runs even if an earlier one failed (except install); the
# summary gives each stage's status and time, and the last line counts the
# tests run (cargo tests + firmware tests). Exit status: 0 only if all passed.
set -euo pipefail

cd "$(dirname "$0")/.."
ROOT=$(pwd)

STAGES=(install fmt clippy test interop miri nostd firmware)
FIRMWARE_DIRS=(targets/qemu-cortex-m4)
NOSTD_TARGETS=(thumbv6m-none-eabi thumbv7em-none-eabihf)

WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
COUNTS="$WORK/counts" # lines "passed failed" added by stages that run tests
: >"$COUNTS"

banner() { printf '\n==== %s ====\n' "$*"; }

# Adds the counts of every "test result: ok. N passed; M failed" line of a
# cargo test log.
count_cargo_tests() {
    grep -E '^test result: ' "$1" |
        sed -E 's/.* ([0-9]+) passed; ([0-9]+) failed.*/\1 \2/' >>"$COUNTS" || true
}

stage_install() {
    if [ "${ALKAID_SKIP_INSTALL:-0}" = 1 ]; then
        echo "skipped (ALKAID_SKIP_INSTALL=1)"
        return 0
    fi
    scripts/install.sh
}

stage_fmt() {
    cargo fmt --all -- --check
    local d
    for d in "${FIRMWARE_DIRS[@]}"; do
        (cd "$d" && cargo fmt -- --check)
    done
}

stage_clippy() {
    cargo clippy --workspace --all-targets -- -D warnings
    local d
    for d in "${FIRMWARE_DIRS[@]}"; do
        (cd "$d" && cargo clippy --release --lib --bins -- -D warnings)
    done
}

stage_test() {
    local log="$WORK/cargo-test.log"
    cargo test --workspace 2>&1 | tee "$log"
    count_cargo_tests "$log"
}

# The core's unsafe code (shared and mutable buffers, TryVec) under Miri,
# through the unit tests of the modules that contain or drive it.
MIRI_FILTERS=(buffer:: array:: ipc::flatbuf ipc::io)
stage_miri() {
    local log="$WORK/miri.log"
    cargo +nightly miri test -p alkaid --lib -- "${MIRI_FILTERS[@]}" 2>&1 | tee "$log"
    count_cargo_tests "$log"
}

stage_interop() {
    local log="$WORK/cargo-interop.log"
    local py="${ALKAID_PYTHON:-$ROOT/.venv/bin/python}"
    local tests=(--test interop_pyarrow --test interop_arrow_rs) filter=()
    if [ "${ALKAID_SKIP_PYARROW:-0}" = 1 ]; then
        if [ "${CI:-}" = true ]; then
            echo "ALKAID_SKIP_PYARROW=1 is not allowed in CI" >&2
            return 1
        fi
        echo "pyarrow tests SKIPPED (ALKAID_SKIP_PYARROW=1): arrow-rs only"
        tests=(--test interop_arrow_rs)
        filter=(--skip pyarrow)
    elif ! "$py" -c 'import pyarrow' 2>/dev/null; then
        echo "no pyarrow at $py: run scripts/install.sh (or set ALKAID_PYTHON)" >&2
        return 1
    else
        echo "pyarrow $("$py" -c 'import pyarrow; print(pyarrow.__version__)') at $py"
    fi
    # One thread: the tests print their per-file tables whole.
    ALKAID_PYTHON="$py" cargo test -p alkaid-tests --features interop "${tests[@]}" \
        -- --nocapture --test-threads=1 "${filter[@]}" 2>&1 | tee "$log"
    count_cargo_tests "$log"
}

stage_nostd() {
    local t
    for t in "${NOSTD_TARGETS[@]}"; do
        echo "-- $t"
        cargo build -p alkaid --no-default-features --target "$t"
        cargo build -p alkaid --no-default-features --features lz4,defmt --target "$t"
        # The ZSTD decoder needs a global allocator only when linked, not to build.
        cargo build -p alkaid --no-default-features --features zstd-decode --target "$t"
        cargo build -p alkaid-alloc --target "$t"
    done
}

# Runs every test binary of each firmware project under its cargo runner
# (QEMU) and checks both the exit code and the "N passed, M failed" line.
stage_firmware() {
    local d src bin out rc line bad=0
    for d in "${FIRMWARE_DIRS[@]}"; do
        (cd "$d" && cargo build --release --bins)
        for src in "$d"/src/bin/*.rs; do
            bin=$(basename "$src" .rs)
            echo "-- $d: $bin"
            set +e
            out=$(cd "$d" && cargo run --quiet --release --bin "$bin" </dev/null 2>&1)
            rc=$?
            set -e
            printf '%s\n' "$out"
            line=$(printf '%s\n' "$out" | grep -E '[0-9]+ passed, [0-9]+ failed$' | tail -n 1 || true)
            if [ -n "$line" ]; then
                sed -E 's/^(.*[^0-9])?([0-9]+) passed, ([0-9]+) failed$/\2 \3/' <<<"$line" >>"$COUNTS"
            else
                echo "$bin: no result line (exit $rc)"
                echo "0 1" >>"$COUNTS"
            fi
            if [ "$rc" -ne 0 ]; then
                echo "$bin: exit code $rc"
                bad=1
            fi
        done
    done
    return "$bad"
}

declare -A STATUS TIME
run_stage() {
    local name=$1 start rc
    banner "$name"
    start=$SECONDS
    set +e
    (
        set -euo pipefail
        "stage_$name"
    )
    rc=$?
    set -e
    TIME[$name]=$((SECONDS - start))
    if [ "$rc" -eq 0 ]; then STATUS[$name]=ok; else STATUS[$name]="FAILED (exit $rc)"; fi
    return 0
}

selected=("$@")
if [ ${#selected[@]} -eq 0 ]; then selected=("${STAGES[@]}"); fi
for s in "${selected[@]}"; do
    if ! declare -F "stage_$s" >/dev/null; then
        echo "unknown stage '$s' (stages: ${STAGES[*]})" >&2
        exit 2
    fi
done

total_start=$SECONDS
failed_stages=0
for s in "${selected[@]}"; do
    run_stage "$s"
    if [ "${STATUS[$s]}" != ok ]; then
        failed_stages=$((failed_stages + 1))
        if [ "$s" = install ]; then
            echo "install failed: stopping" >&2
            break
        fi
    fi
done

passed=0
failed=0
while read -r p f; do
    passed=$((passed + p))
    failed=$((failed + f))
done <"$COUNTS"

banner "summary"
for s in "${selected[@]}"; do
    [ -n "${STATUS[$s]:-}" ] || continue
    printf '%-10s %-20s %4ss\n' "$s" "${STATUS[$s]}" "${TIME[$s]}"
done
printf '%-10s %-20s %4ss\n' total "$([ "$failed_stages" -eq 0 ] && echo ok || echo "$failed_stages stage(s) failed")" "$((SECONDS - total_start))"
if [ "$failed_stages" -ne 0 ] && [ "$failed" -eq 0 ]; then
    # A stage without test counts failed (fmt, clippy, a build): count it.
    failed=$failed_stages
fi
echo "tests: $passed passed, $failed failed"
[ "$failed_stages" -eq 0 ]
