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
#   fmt       cargo fmt --check (workspace, fuzz and firmware projects)
#   clippy    cargo clippy -D warnings (workspace all targets, firmware)
#   test      cargo test --workspace (doc tests included); the examples
#             (cargo run --example: firmware_stream, database_arena of
#             alkaid-alloc, host_file of alkaid-std); the core's
#             disabled_families test without default features; alkaid-std
#             without default features must not depend on clap
#   package   cargo package --workspace (each crate built from its
#             .crate), no package of alkaid-alloc, alkaid-fbs, alkaid or
#             alkaid-std holding a test file; cargo doc of alkaid-alloc and
#             alkaid-fbs with docs.rs's features and -D warnings (the core's
#             and alkaid-std's: clippy stage); cargo doc --workspace
#             without an output filename collision
#   fuzz      the cargo-fuzz targets of tests/fuzz (libFuzzer, nightly
#             toolchain; see tests/fuzz/Cargo.toml and src/lib.rs for the
#             targets and their oracles): installs cargo-fuzz
#             $CARGO_FUZZ_VERSION when missing (cargo install --locked),
#             builds every target, then runs each for its share of
#             $FUZZ_TOTAL_SECONDS (120 s split evenly over the targets:
#             adding a target keeps the stage's time; ALKAID_FUZZ_SECONDS
#             sets the seconds per target instead) on a temporary copy of its
#             committed corpus (tests/fuzz/corpus/<target>/, never
#             modified) with tests/fuzz/ipc.dict, -timeout=10 (s per input)
#             and -rss_limit_mb=2048. Any finding (crash, oracle panic,
#             timeout, out-of-memory) fails the stage; its input is kept in
#             target/fuzz-artifacts/<target>/. Prints per target the
#             executions, executions per second and the corpus size after
#             the run (from libFuzzer's -print_final_stats=1 lines).
#             The targets run $(nproc) at a time, each on a core for
#             its whole share: on 2 cores the runs take about 65 s of wall
#             time. The install takes about 1 min, the build of the nine
#             ASan-instrumented targets 2.5-4 min on 2 vCPUs.
#   miri      the core's unsafe code under Miri (nightly toolchain)
#   interop   round trips with pyarrow (the .venv's, or $ALKAID_PYTHON) and
#             arrow-rs 60: cargo test -p alkaid-tests --features interop
#             (tests/interop_pyarrow.rs, message_metadata_pyarrow.rs,
#             validation_pyarrow.rs, flight_pyarrow.rs: our Flight client
#             against a pyarrow Flight server) and the differential test of our
#             readers against pyarrow on ~2,800 mutated golden inputs
#             (tests/differential_pyarrow.rs: prints both accept / both
#             reject / justified differences, fails on any other), then
#             cargo test -p alkaid-tests-arrow-rs --features interop
#             (tests/arrow-rs: interop_arrow_rs.rs, the C Data Interface
#             with arrow-rs, ffi_*_arrow_rs.rs, and the differential test
#             against arrow-rs on the same mutated inputs,
#             differential_arrow_rs.rs; the justified differences of both
#             differential tests are the table of docs/verdicts.md), then
#             the C Data Interface
#             with pyarrow, polars and DuckDB (tests/python/ffi_interop.py
#             over the test cdylib tests/ffi-lib). Fails when pyarrow is
#             missing; outside CI, ALKAID_SKIP_PYARROW=1 runs only the
#             arrow-rs tests.
#   nostd     alkaid and alkaid-alloc built for thumbv6m-none-eabi and
#             thumbv7em-none-eabihf without default features; alkaid
#             linted (-D warnings) for thumbv7em with each optional feature
#             (compression and the layout families) off and alone
#   msrv      the declared rust-version (Cargo.toml) builds the core
#             (default features; no default features for thumbv7em),
#             alkaid-alloc and alkaid-std without `flight`; `zstd-decode`
#             (Rust 1.87) and `flight` (1.88) are left out
#   firmware  every targets/qemu-cortex-m4/src/bin/*.rs run under QEMU
#             (mps2-an386, Cortex-M4F, no global allocator), and
#             targets/defmt-log: a firmware logging with defmt over
#             semihosting, decoded on the host by defmt-print, and
#             targets/embassy-async: AsyncStreamWriter and AsyncStreamReader
#             tasks on an Embassy executor across an embassy-sync pipe
#   size      targets/size-report/report.sh: text/data/bss and heap of a
#             minimal stream writer and reader firmware against the budget
#             (writer <= 16 KiB text and no steady-state heap, reader <=
#             32 KiB text; docs/size.md)
#   s390x     big-endian: the core's tests and the golden tests built for
#             s390x-unknown-linux-gnu and run under qemu-s390x (cargo profile
#             `s390x`, see .cargo/config.toml; alkaid-tests depends on no
#             arrow-rs crate, so none is cross-compiled); then targets/big-endian
#             writes a stream on s390x that our readers (be_check) and
#             pyarrow (check.py, when the .venv exists) read on the host
#   demo      the sensor demo's live chain (targets/sensor-demo/live.sh),
#             uncompressed and LZ4: firmware under QEMU streams over UART0,
#             alkaid cat --follow and alkaid flight put read it while it
#             runs, a pyarrow Flight server receives it; sensor-check (our
#             readers) and read.py --check (pyarrow, polars, DuckDB) compare
#             the UART bytes and what the server received with the
#             simulation; then the firmware killed after 3 batches: both host
#             readers report the truncated stream, the whole batches match
#
# Every stage runs even if an earlier one failed (except install); the
# summary gives each stage's status and time, and the last line counts the
# tests run (cargo tests + firmware tests). Exit status: 0 only if all passed.
set -euo pipefail

cd "$(dirname "$0")/.."
ROOT=$(pwd)

STAGES=(install fmt clippy test package fuzz interop miri nostd msrv firmware size s390x demo)
FIRMWARE_DIRS=(targets/qemu-cortex-m4 targets/defmt-log targets/embassy-async)
# Other firmware projects (not test harnesses): fmt and clippy here, run by
# their own stages.
FIRMWARE_APP_DIRS=(targets/size-report targets/sensor-demo/firmware)
# Host (std) projects under targets/: fmt and clippy here; their stages run them.
HOST_TARGET_DIRS=(targets/big-endian targets/sensor-demo/host targets/sensor-demo/model)
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
    (cd tests/fuzz && cargo fmt -- --check)
    local d
    for d in "${FIRMWARE_DIRS[@]}" "${FIRMWARE_APP_DIRS[@]}" "${HOST_TARGET_DIRS[@]}"; do
        (cd "$d" && cargo fmt -- --check)
    done
}

stage_clippy() {
    cargo clippy --workspace --all-targets -- -D warnings
    # Doc links (private items too: the row format's internals are
    # documented for maintainers) must resolve.
    RUSTDOCFLAGS="-D warnings" cargo doc -p alkaid --all-features \
        --document-private-items --no-deps
    # alkaid-std's pages link to the core's (just built): every link
    # resolves, and none is left as literal `[...]` text. The blanket
    # implementations at the end of each page are other crates' docs (the
    # Flight stack's tower and tracing traits) and are not checked.
    RUSTDOCFLAGS="-D warnings" cargo doc -p alkaid-std --no-deps
    if find "${CARGO_TARGET_DIR:-target}/doc/alkaid_std" -name '*.html' -exec perl -0777 -ne \
        's/id="blanket-implementations-list".*//s; print "$ARGV\n" if /\[<code>[^<]*<\/code>\]/' {} + |
        grep .; then
        echo "alkaid-std docs: links rendered as literal text (files above)" >&2
        return 1
    fi
    local d
    for d in "${FIRMWARE_DIRS[@]}"; do
        local lib=()
        if [ -f "$d/src/lib.rs" ]; then lib=(--lib); fi
        (cd "$d" && cargo clippy --release "${lib[@]}" --bins -- -D warnings)
    done
    (cd targets/size-report && cargo clippy --release --lib --bins -- -D warnings)
    (cd targets/sensor-demo/firmware && cargo clippy --release --bins -- -D warnings)
    (cd targets/sensor-demo/firmware &&
        cargo clippy --release --bins --features lz4 --target-dir target/lz4 -- -D warnings)
    for d in "${HOST_TARGET_DIRS[@]}"; do
        (cd "$d" && cargo clippy --all-targets -- -D warnings)
    done
}

stage_test() {
    local log="$WORK/cargo-test.log"
    cargo test --workspace 2>&1 | tee "$log"
    count_cargo_tests "$log"
    # Issue #15: the public crates carry runnable examples (at least 60 doc
    # tests across alkaid, alkaid-alloc and alkaid-std, all run above).
    local docs
    docs=$(awk '/^ *Doc-tests /{crate=$2} /^test result: /{if (crate ~ /^alkaid(_alloc|_std)?$/) n += $4; crate=""} END {print n+0}' "$log")
    echo "-- doc examples run (alkaid, alkaid-alloc, alkaid-std): $docs"
    if [ "$docs" -lt 60 ]; then
        echo "fewer than 60 doc examples ran" >&2
        return 1
    fi
    # The examples for the three users (firmware, database, host program),
    # each run by the crate that owns it.
    local ex
    for ex in alkaid-alloc:firmware_stream alkaid-alloc:database_arena alkaid-std:host_file; do
        echo "-- cargo run -p ${ex%%:*} --example ${ex#*:}"
        cargo run -q -p "${ex%%:*}" --example "${ex#*:}"
    done
    # The core without its optional layout families and compression (what
    # the size-report firmwares use): disabled families are refused cleanly.
    cargo test -p alkaid --no-default-features --features alloc \
        --test disabled_families 2>&1 | tee "$log"
    count_cargo_tests "$log"
    # The std shim as a library (without its `cli` feature) does not
    # depend on clap.
    local tree
    tree=$(cargo tree -p alkaid-std --no-default-features -e normal)
    if grep -q clap <<<"$tree"; then
        echo "alkaid-std without default features depends on clap:" >&2
        grep clap <<<"$tree" >&2
        return 1
    fi
    echo "-- alkaid-std --no-default-features: no clap"
}

# Fuzzing (see the header). The fuzz workspace builds into its own
# tests/fuzz/target (cargo-fuzz's default), whatever CARGO_TARGET_DIR says.
CARGO_FUZZ_VERSION=0.13.2
FUZZ_TOTAL_SECONDS=120
# One fuzz target for its seconds on a copy of its corpus; writes its table
# row to $WORK/fuzz-<target>.row and libFuzzer's output to fuzz-<target>.log.
fuzz_one_target() {
    local dir=$1 host=$2 t=$3 seconds=$4 bin work log runs secs eps files bytes rc result
    bin="$dir/target/$host/release/$t"
    work="$WORK/fuzz/$t"
    log="$WORK/fuzz-$t.log"
    mkdir -p "$work" "$ROOT/target/fuzz-artifacts/$t"
    if [ -d "$dir/corpus/$t" ]; then cp -R "$dir/corpus/$t/." "$work/"; fi
    echo "-- $t: ${seconds}s on $(find "$work" -type f | wc -l) corpus files"
    set +e
    "$bin" "$work" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 \
        -max_len=65536 -dict="$dir/ipc.dict" -print_final_stats=1 \
        -artifact_prefix="$ROOT/target/fuzz-artifacts/$t/" >"$log" 2>&1
    rc=$?
    set -e
    runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -n 1)
    secs=$(sed -n 's/^Done [0-9]* runs in \([0-9]*\) second.*/\1/p' "$log" | tail -n 1)
    runs=${runs:-0}
    secs=${secs:-$seconds}
    eps=$((runs / (secs > 0 ? secs : 1)))
    files=$(find "$work" -type f | wc -l)
    bytes=$(find "$work" -type f -printf '%s\n' | awk '{s += $1} END {print s + 0}')
    if [ "$rc" -eq 0 ] && ! grep -qE '^==[0-9]+== ?ERROR|panicked at|ERROR: libFuzzer' "$log"; then
        result=ok
    else
        result="FINDING (exit $rc)"
    fi
    printf '%-20s %8s %10s %8s %8s %10s  %s\n' "$t" "$secs" "$runs" "$eps" "$files" "$bytes" "$result" \
        >"$WORK/fuzz-$t.row"
}

stage_fuzz() {
    local dir="$ROOT/tests/fuzz" host t bad=0
    if ! cargo fuzz --version 2>/dev/null | grep -qF "$CARGO_FUZZ_VERSION"; then
        echo "-- cargo install cargo-fuzz $CARGO_FUZZ_VERSION"
        cargo install --locked --quiet cargo-fuzz --version "$CARGO_FUZZ_VERSION"
    fi
    echo "-- cargo +nightly fuzz build ($(cargo fuzz --version))"
    (cd "$dir" && env -u CARGO_TARGET_DIR cargo +nightly fuzz build)
    host=$(rustc +nightly -vV | sed -n 's/^host: //p')
    local targets=()
    mapfile -t targets < <(cd "$dir" && cargo +nightly fuzz list)
    local FUZZ_SECONDS=${ALKAID_FUZZ_SECONDS:-$((FUZZ_TOTAL_SECONDS / ${#targets[@]}))}
    local table="$WORK/fuzz-table"
    printf '%-20s %8s %10s %8s %8s %10s  %s\n' target seconds executions exec/s corpus bytes result >"$table"
    # The targets run $(nproc) at a time, each on its own core for its
    # whole share: the stage's wall time is the budget divided by the cores.
    local jobs
    jobs=$(nproc 2>/dev/null || echo 1)
    for t in "${targets[@]}"; do
        while [ "$(jobs -rp | wc -l)" -ge "$jobs" ]; do wait -n || true; done
        fuzz_one_target "$dir" "$host" "$t" "$FUZZ_SECONDS" &
    done
    wait
    for t in "${targets[@]}"; do
        if [ -f "$WORK/fuzz-$t.row" ]; then
            cat "$WORK/fuzz-$t.row" >>"$table"
        else
            printf '%-20s %50s  %s\n' "$t" "" "NO RESULT (the run's shell failed)" >>"$table"
        fi
        if ! grep -qs ' ok$' "$WORK/fuzz-$t.row"; then
            bad=1
            echo "FINDING in $t; input kept in target/fuzz-artifacts/$t/:"
            grep -E 'panicked at|ERROR|SUMMARY|Test unit written|^thread' "$WORK/fuzz-$t.log" | head -n 20
        fi
    done
    echo
    cat "$table"
    return "$bad"
}

# The core's unsafe code under Miri, through the unit tests of the modules
# that contain or drive it: the default allocator (Global: over-aligned
# blocks, grow and shrink), shared and mutable buffers, TryVec, arrays, the
# flatbuffers and I/O layers, the C Data Interface; the kernels whose
# results are built unchecked (compute::tests_miri: take, filter, concat,
# interleave, sort, at a few rows each; gc); the row format's examples,
# round trips and malformed rows, unions, the string-view decoder
# and the cursor decoders' prefetch. The
# row tests' allocation-failure loop over dictionary rows (70 s under Miri)
# is skipped: the other three failure loops cover the same paths. So are
# the two checks of the decimal power-of-ten tables (54 s under Miri):
# integer arithmetic on the stack, no unsafe code.
MIRI_FILTERS=(global:: buffer:: array:: ipc::flatbuf ipc::io ffi::
    compute::tests_miri compute::take::bytes::tests::miri_ compute::set_bits::tests::miri_
    compute::filter::values:: compute::compress:: arch::
    compute::tests_views::gc_keeps_inline_views_and_nulls
    row::tests:: row::union_tests:: row::encode::tests::long_byte_column_bad_offsets
    row::variable::views::tests::decoded_views_validate
    row::variable::views::tests::view_utf8_is_checked
    row::provenance::tests::own_rows_decode_equal_unchecked row::prefetch_tests::
    --skip row::tests::every_allocation_failure_is_an_error_decoding_all_dictionary_rows
    --skip array::primitive_values::tests::tables_hold_powers_of_ten
    --skip array::primitive_values::tests::decimal256_boundaries)
# The x86-64 code the kernels pick at run time (BMI2 `PEXT` in filter, the
# AVX2 gather in take: arch/x86.rs) a second time, built with those
# features: Miri has no CPUID to find them, so the first run takes the
# portable paths.
MIRI_X86_FILTERS=(arch::x86:: compute::filter::values::)
stage_miri() {
    local log="$WORK/miri.log"
    cargo +nightly miri test -p alkaid --lib -- "${MIRI_FILTERS[@]}" 2>&1 | tee "$log"
    if [ "$(uname -m)" = x86_64 ]; then
        RUSTFLAGS="-C target-feature=+avx2,+bmi1,+bmi2" CARGO_TARGET_DIR="$ROOT/target/miri-x86" \
            cargo +nightly miri test -p alkaid --lib -- "${MIRI_X86_FILTERS[@]}" 2>&1 | tee -a "$log"
    fi
    count_cargo_tests "$log"
}

stage_interop() {
    local log="$WORK/cargo-interop.log"
    local py="${ALKAID_PYTHON:-$ROOT/.venv/bin/python}"
    # alkaid-tests: the pyarrow tests; alkaid-tests-arrow-rs (tests/arrow-rs,
    # the package that holds every arrow-rs dependency): the arrow-rs ones.
    local tests=(--test interop_pyarrow --test message_metadata_pyarrow --test validation_pyarrow
        --test differential_pyarrow --test flight_pyarrow)
    local rs_tests=(--test interop_arrow_rs --test ffi_arrow_rs --test ffi_schema_arrow_rs
        --test differential_arrow_rs)
    local filter=() bad=0
    if [ "${ALKAID_SKIP_PYARROW:-0}" = 1 ]; then
        if [ "${CI:-}" = true ]; then
            echo "ALKAID_SKIP_PYARROW=1 is not allowed in CI" >&2
            return 1
        fi
        echo "pyarrow tests SKIPPED (ALKAID_SKIP_PYARROW=1): arrow-rs only"
        tests=()
        filter=(--skip pyarrow)
    elif ! "$py" -c 'import pyarrow' 2>/dev/null; then
        echo "no pyarrow at $py: run scripts/install.sh (or set ALKAID_PYTHON)" >&2
        return 1
    else
        echo "pyarrow $("$py" -c 'import pyarrow; print(pyarrow.__version__)') at $py"
    fi
    # One thread: the tests print their per-file tables whole.
    if [ ${#tests[@]} -gt 0 ]; then
        ALKAID_PYTHON="$py" cargo test -p alkaid-tests --features interop "${tests[@]}" \
            -- --nocapture --test-threads=1 2>&1 | tee "$log" || bad=1
        count_cargo_tests "$log"
    fi
    local rs_log="$WORK/cargo-interop-arrow-rs.log"
    ALKAID_PYTHON="$py" cargo test -p alkaid-tests-arrow-rs --features interop "${rs_tests[@]}" \
        -- --nocapture --test-threads=1 "${filter[@]}" 2>&1 | tee "$rs_log" || bad=1
    count_cargo_tests "$rs_log"
    # The differential tests' counts, again at the end of the stage.
    grep -hE '^differential vs (pyarrow|arrow-rs)' "$log" "$rs_log" 2>/dev/null || true
    if [ "${ALKAID_SKIP_PYARROW:-0}" != 1 ]; then
        # The C Data Interface with pyarrow, polars and DuckDB in one
        # process: Python loads the test-only cdylib of tests/ffi-lib.
        echo "-- C Data Interface: pyarrow, polars, DuckDB (tests/python/ffi_interop.py)"
        cargo build -p alkaid-ffi-testlib
        log="$WORK/ffi-interop.log"
        "$py" tests/python/ffi_interop.py "$(cargo_target_dir)/debug/libalkaid_ffi_testlib.so" \
            "$(golden_root)"/{cpp-21.0.0,1.0.0-bigendian,2.0.0-compression,4.0.0-shareddict} 2>&1 |
            tee "$log"
        count_plain_result "$log"
        grep -qE '^ffi_interop: [0-9]+ passed, 0 failed$' "$log" || bad=1
    fi
    return "$bad"
}

# The workspace's target directory (CARGO_TARGET_DIR when set).
cargo_target_dir() {
    cargo metadata --format-version 1 --no-deps |
        "${ALKAID_PYTHON:-$ROOT/.venv/bin/python}" -c 'import json,sys; print(json.load(sys.stdin)["target_directory"])'
}

# The golden files: $ALKAID_GOLDEN_DIR, or shared/golden beside the repository.
golden_root() {
    if [ -n "${ALKAID_GOLDEN_DIR:-}" ]; then
        echo "$ALKAID_GOLDEN_DIR"
    else
        echo "$ROOT/../shared/golden"
    fi
}

stage_nostd() {
    local t
    for t in "${NOSTD_TARGETS[@]}"; do
        echo "-- $t"
        cargo build -p alkaid --no-default-features --target "$t"
        cargo build -p alkaid --no-default-features --features lz4,defmt --target "$t"
        # The async front-ends need no executor and no global allocator.
        cargo build -p alkaid --no-default-features --features async,lz4 --target "$t"
        # The ZSTD decoder needs a global allocator only when linked, not to build.
        cargo build -p alkaid --no-default-features --features zstd-decode --target "$t"
        cargo build -p alkaid-alloc --target "$t"
    done
    # The optional features (all default): each one off (the others on) and
    # each one alone must build warning-free, so that their cfgs do not rot.
    local f rest optional=(compression dictionary nested union views run-end ffi)
    t=thumbv7em-none-eabihf
    echo "-- $t: lint without any optional feature"
    cargo clippy -p alkaid --no-default-features --target "$t" -- -D warnings
    for f in "${optional[@]}"; do
        rest=$(printf '%s\n' alloc "${optional[@]}" | grep -vx "$f" | paste -sd, -)
        echo "-- $t: without $f; $f alone"
        cargo clippy -p alkaid --no-default-features --features "$rest" --target "$t" -- -D warnings
        cargo clippy -p alkaid --no-default-features --features "$f" --target "$t" -- -D warnings
    done
}

# The declared minimum Rust (`rust-version` in Cargo.toml, installed by
# scripts/install.sh) builds the core (default features, and without them
# for thumbv7em), alkaid-alloc and alkaid-std without the Flight client.
# Left out, as the README's features tables say: `zstd-decode` (ruzstd needs
# Rust 1.87) and alkaid-std's `flight` (tonic needs 1.88). Its own target
# directory keeps the other stages' builds warm.
stage_msrv() {
    local v
    v=$(sed -n 's/^rust-version = "\(.*\)"/\1/p' Cargo.toml)
    echo "-- rust $v"
    export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-target}/msrv"
    cargo +"$v" build -p alkaid
    cargo +"$v" build -p alkaid --no-default-features --target thumbv7em-none-eabihf
    cargo +"$v" build -p alkaid-alloc
    cargo +"$v" build -p alkaid-std --no-default-features --features cli
}

# Every crate of the workspace packaged together (interdependent,
# unpublished) and each built from its own package, so that a missing file
# or version fails; no package of a publishable crate holds a test file.
# Then the docs: docs.rs's feature sets, and the workspace's without an
# output filename collision (the CLI's page is not the core's).
PUBLISHED=(alkaid-alloc alkaid-fbs alkaid alkaid-std)
stage_package() {
    local c listed
    cargo package --workspace --allow-dirty
    for c in "${PUBLISHED[@]}"; do
        listed=$(cargo package -p "$c" --list --allow-dirty)
        echo "-- $c: $(wc -l <<<"$listed") files"
        if grep -E '^tests/|proptest-regressions|(^|/)(tests|tests_[a-z_]+|[a-z_]+_tests|proptests[a-z_]*|[a-z_]+_model|test_support)\.rs$' <<<"$listed"; then
            echo "$c: the package holds test files (above)" >&2
            return 1
        fi
    done
    # docs.rs's feature sets, warnings as errors (alkaid with every feature
    # and alkaid-std with its defaults are built so by the clippy stage).
    RUSTDOCFLAGS="-D warnings" cargo doc -p alkaid-alloc --features alloc --no-deps
    RUSTDOCFLAGS="-D warnings" cargo doc -p alkaid-fbs --all-features --no-deps
    local log="$WORK/doc.log"
    cargo doc --workspace --no-deps 2>&1 | tee "$log"
    if grep -qi "collision" "$log"; then
        echo "cargo doc: output filename collision" >&2
        return 1
    fi
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

# Big-endian tests under qemu-user. Tests that fail on s390x for a reason
# outside alkaid are skipped by name (with the reason) and run on their own
# afterwards, so that the stage says when one starts passing.
S390X=s390x-unknown-linux-gnu
S390X_KNOWN_FAILURES=(
    # lz4_flex 0.14 hashes the wrong 5 bytes on 64-bit big-endian targets
    # (`hash5` shifts the word left on both byte orders; the reference LZ4
    # shifts right on big-endian), so on s390x it finds fewer matches: the
    # frames stay valid and round-trip, but this 1 MiB text compresses to
    # 322035 bytes instead of under 104857 (the test's bound). Checked by
    # patching lz4_flex's hashtable.rs: the test then passes on s390x.
    "ipc::compression::lz4_frame::tests::one_mebibyte_round_trip_and_sizes|lz4_flex hash5 on big-endian (compression ratio only)"
)
stage_s390x() {
    local log="$WORK/s390x.log" skips=() entry name bad=0
    for entry in "${S390X_KNOWN_FAILURES[@]}"; do
        skips+=(--skip "${entry%%|*}")
    done
    echo "-- cargo test -p alkaid (s390x, qemu-s390x)"
    cargo test -p alkaid --profile s390x --target "$S390X" --no-fail-fast \
        -- "${skips[@]}" 2>&1 | tee "$log" || bad=1
    count_cargo_tests "$log"
    for entry in "${S390X_KNOWN_FAILURES[@]}"; do
        name=${entry%%|*}
        if cargo test -q -p alkaid --lib --profile s390x --target "$S390X" \
            -- --exact "$name" >/dev/null 2>&1; then
            echo "NOTE: $name now passes on s390x: remove it from S390X_KNOWN_FAILURES"
        else
            echo "KNOWN FAILURE on s390x (skipped above): $name: ${entry#*|}"
        fi
    done

    echo "-- cargo test -p alkaid-tests --test golden (s390x, qemu-s390x)"
    log="$WORK/s390x-golden.log"
    cargo test -p alkaid-tests --profile s390x --target "$S390X" --test golden 2>&1 |
        tee "$log" || bad=1
    count_cargo_tests "$log"

    echo "-- a stream written on s390x, read on the host"
    local d=targets/big-endian out="$ROOT/target/big-endian" py="$ROOT/.venv/bin/python"
    mkdir -p "$out"
    rm -f "$out/s390x.arrows"
    (cd "$d" && cargo run --quiet --target "$S390X" --bin be_write -- "$out/s390x.arrows") || bad=1
    log="$WORK/be-check.log"
    (cd "$d" && cargo run --quiet --bin be_check -- "$out/s390x.arrows" --expect big) 2>&1 |
        tee "$log" || bad=1
    count_plain_result "$log"
    if [ -x "$py" ] && "$py" -c 'import pyarrow' 2>/dev/null; then
        log="$WORK/be-pyarrow.log"
        "$py" "$d/check.py" "$out/s390x.arrows" --expect big 2>&1 | tee "$log" || bad=1
        count_plain_result "$log"
    elif [ "${CI:-}" = true ]; then
        echo "no pyarrow at $py (run scripts/install.sh): required in CI" >&2
        bad=1
    else
        echo "pyarrow check SKIPPED: no .venv with pyarrow at $py (scripts/install.sh makes it);"
        echo "the stream was checked by our readers only"
    fi
    return "$bad"
}

# Adds the "<tool>: N passed, M failed" line of a log to the counts.
count_plain_result() {
    grep -E '^[A-Za-z0-9_.-]+: [0-9]+ passed, [0-9]+ failed$' "$1" |
        sed -E 's/.* ([0-9]+) passed, ([0-9]+) failed/\1 \2/' >>"$COUNTS" || true
}

# The sensor demo, end to end and live: firmware under QEMU -> UART0 ->
# alkaid cat --follow and alkaid flight put -> pyarrow Flight server ->
# our readers and pyarrow/polars/DuckDB, each checking every value against
# the simulation. Both variants (uncompressed, LZ4), then a firmware killed
# mid-stream.
stage_demo() {
    local d=targets/sensor-demo py="$ROOT/.venv/bin/python" variant out log bad=0
    if ! [ -x "$py" ] || ! "$py" -c 'import pyarrow.flight' 2>/dev/null; then
        echo "no pyarrow (with Flight) at $py: run scripts/install.sh" >&2
        return 1
    fi
    cargo build --quiet -p alkaid-std --bin alkaid
    (cd "$d/host" && cargo build --quiet)
    for variant in plain lz4; do
        out="$ROOT/target/sensor-demo/$variant"
        echo "-- live chain ($variant)"
        log="$WORK/demo-$variant-live.log"
        if [ "$variant" = lz4 ]; then
            "$d/live.sh" "$out" --lz4 2>&1 | tee "$log" || bad=1
        else
            "$d/live.sh" "$out" 2>&1 | tee "$log" || bad=1
        fi
        count_plain_result "$log"
        log="$WORK/demo-$variant-check.log"
        "$d/host/target/debug/sensor-check" "$out/sensor.arrows" 2>&1 | tee "$log" || bad=1
        count_plain_result "$log"
        log="$WORK/demo-$variant-py.log"
        "$py" "$d/read.py" "$out/sensor.arrows" --check 2>&1 | tee "$log" || bad=1
        count_plain_result "$log"
    done
    echo "-- the firmware killed after 3 batches"
    log="$WORK/demo-killed.log"
    "$d/live.sh" "$ROOT/target/sensor-demo/killed" --kill-after-batches 3 2>&1 | tee "$log" || bad=1
    count_plain_result "$log"
    return "$bad"
}

# Code size and heap budget.
stage_size() {
    local log="$WORK/size.log" rc=0
    targets/size-report/report.sh 2>&1 | tee "$log" || rc=$?
    count_plain_result "$log"
    return "$rc"
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

# The s390x stage's builds (about 6 min of both cores) start in the
# background, at low priority, when the miri stage starts: Miri interprets
# the tests on one thread for minutes, and the firmware stage runs QEMU on
# one, so the other core builds them meanwhile. The s390x stage waits for
# them and then builds nothing; it still runs every build itself, so a
# failed or skipped background build changes nothing but the time.
s390x_prebuild_pid=
s390x_prebuild() {
    nice -n 10 cargo test -p alkaid --profile s390x --target "$S390X" --no-run &&
        nice -n 10 cargo test -p alkaid-tests --profile s390x --target "$S390X" --test golden --no-run &&
        (cd targets/big-endian && nice -n 10 cargo build --target "$S390X" --bin be_write)
}

total_start=$SECONDS
failed_stages=0
for s in "${selected[@]}"; do
    if [ "$s" = miri ] && [[ " ${selected[*]} " == *" s390x "* ]]; then
        s390x_prebuild >"$WORK/s390x-prebuild.log" 2>&1 &
        s390x_prebuild_pid=$!
    fi
    if [ "$s" = s390x ] && [ -n "$s390x_prebuild_pid" ]; then
        echo "(waiting for the s390x builds started with the miri stage)"
        wait "$s390x_prebuild_pid" || echo "(the background s390x build failed: the stage builds again)"
    fi
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
