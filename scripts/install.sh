#!/usr/bin/env bash
# Installs what scripts/test.sh needs, skipping whatever is already there:
# Rust targets and components (rustup), Debian packages (apt-get) and the
# Python virtual environment `.venv` at the repository root with pyarrow for
# the interop tests and polars and DuckDB for the sensor demo (pip, from
# PyPI). Works as root, or through sudo otherwise. Safe to run again.
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)

RUST_TARGETS=(thumbv7em-none-eabihf thumbv6m-none-eabi s390x-unknown-linux-gnu)
RUST_COMPONENTS=(rustfmt clippy)
# package:command pairs; a package is installed only if its command is
# missing (a "command" starting with / is a file that must exist).
DEB_PACKAGES=(
    qemu-system-arm:qemu-system-arm         # firmware tests, sensor demo, size report
    binutils-arm-none-eabi:arm-none-eabi-size # size report (text/data/bss)
    qemu-user:qemu-s390x                    # big-endian tests (stage s390x)
    gcc-s390x-linux-gnu:s390x-linux-gnu-gcc # linker of s390x-unknown-linux-gnu
    libc6-dev-s390x-cross:/usr/s390x-linux-gnu/lib/libc.so.6
)
# The Python packages (interop tests: pyarrow, numpy; sensor demo: polars,
# duckdb), pinned to the versions they are tested with (the venv is rebuilt
# when these change).
VENV="$ROOT/.venv"
PY_PACKAGES=(pyarrow==26.0.1 numpy==2.4.6 polars==2.1.0 duckdb==2.0.0 pytz==2025.2)

log() { printf '[install] %s\n' "$*"; }

as_root() {
    if [ "$(id -u)" -eq 0 ]; then
        "$@"
    elif command -v sudo >/dev/null 2>&1; then
        sudo "$@"
    else
        echo "[install] need root or sudo to run: $*" >&2
        return 1
    fi
}

install_rust() {
    if ! command -v rustup >/dev/null 2>&1; then
        log "rustup not found: cannot add targets/components (cargo: $(command -v cargo || echo missing))"
        return 1
    fi
    local installed_targets installed_components missing=()
    installed_targets=$(rustup target list --installed)
    for t in "${RUST_TARGETS[@]}"; do
        grep -qx "$t" <<<"$installed_targets" || missing+=("$t")
    done
    if [ ${#missing[@]} -gt 0 ]; then
        log "rustup target add ${missing[*]}"
        rustup target add "${missing[@]}"
    else
        log "rust targets present: ${RUST_TARGETS[*]}"
    fi
    installed_components=$(rustup component list --installed)
    missing=()
    for c in "${RUST_COMPONENTS[@]}"; do
        grep -q "^$c" <<<"$installed_components" || missing+=("$c")
    done
    if [ ${#missing[@]} -gt 0 ]; then
        log "rustup component add ${missing[*]}"
        rustup component add "${missing[@]}"
    else
        log "rust components present: ${RUST_COMPONENTS[*]}"
    fi
}

install_debs() {
    local missing=() entry pkg cmd
    for entry in "${DEB_PACKAGES[@]}"; do
        pkg=${entry%%:*}
        cmd=${entry#*:}
        if [[ $cmd == /* ]]; then
            [ -e "$cmd" ] || missing+=("$pkg")
        else
            command -v "$cmd" >/dev/null 2>&1 || missing+=("$pkg")
        fi
    done
    if [ ${#missing[@]} -eq 0 ]; then
        log "debian packages present: ${DEB_PACKAGES[*]%%:*}"
        return 0
    fi
    log "apt-get install ${missing[*]}"
    as_root apt-get update -qq
    as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}"
}

# Miri runs on the nightly toolchain (scripts/test.sh stage `miri`).
install_miri() {
    if ! rustup toolchain list | grep -q '^nightly'; then
        log "rustup toolchain install nightly (minimal profile)"
        rustup toolchain install nightly --profile minimal
    fi
    if ! rustup +nightly component list --installed | grep -q '^miri'; then
        log "rustup +nightly component add miri rust-src"
        rustup +nightly component add miri rust-src
    else
        log "miri present"
    fi
}

# defmt-print decodes the defmt log of targets/defmt-log on the host
# (scripts/test.sh stage `firmware`). Pinned; installed into ~/.cargo/bin.
DEFMT_PRINT_VERSION=1.2.0
install_defmt_print() {
    if command -v defmt-print >/dev/null 2>&1 &&
        defmt-print --version 2>/dev/null | grep -q "$DEFMT_PRINT_VERSION"; then
        log "defmt-print $DEFMT_PRINT_VERSION present"
        return 0
    fi
    log "cargo install defmt-print $DEFMT_PRINT_VERSION"
    cargo install --locked --quiet defmt-print --version "$DEFMT_PRINT_VERSION"
}

# True when $VENV's python has exactly the pinned PY_PACKAGES.
venv_current() {
    [ -x "$VENV/bin/python" ] || return 1
    "$VENV/bin/python" - "${PY_PACKAGES[@]}" <<'PY' 2>/dev/null
import sys
from importlib.metadata import version
for spec in sys.argv[1:]:
    name, want = spec.split("==")
    if version(name) != want:
        sys.exit(1)
PY
}

install_venv() {
    if venv_current; then
        log "python venv present: $VENV (${PY_PACKAGES[*]})"
        return 0
    fi
    if ! command -v python3 >/dev/null 2>&1; then
        log "apt-get install python3 python3-venv"
        as_root apt-get update -qq
        as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends python3 python3-venv
    fi
    if [ ! -x "$VENV/bin/python" ] || ! "$VENV/bin/python" -m pip --version >/dev/null 2>&1; then
        rm -rf "$VENV"
        log "python3 -m venv $VENV"
        if ! python3 -m venv "$VENV" >/dev/null 2>&1; then
            # Debian's python3 has no ensurepip without python3-venv.
            rm -rf "$VENV"
            log "apt-get install python3-venv"
            as_root apt-get update -qq
            as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends python3-venv
            python3 -m venv "$VENV"
        fi
    fi
    log "pip install ${PY_PACKAGES[*]} into $VENV"
    "$VENV/bin/python" -m pip install --quiet --disable-pip-version-check "${PY_PACKAGES[@]}"
    venv_current || {
        log "$VENV does not have ${PY_PACKAGES[*]} after pip install"
        return 1
    }
}

# The declared minimum Rust (`rust-version` of the workspace Cargo.toml) and
# the thumbv7em target for it: the msrv stage of scripts/test.sh builds with
# it.
install_msrv() {
    local v
    v=$(sed -n 's/^rust-version = "\(.*\)"/\1/p' "$ROOT/Cargo.toml")
    if rustup run "$v" rustc --version >/dev/null 2>&1 &&
        rustup target list --toolchain "$v" --installed | grep -qx thumbv7em-none-eabihf; then
        log "rust $v (the declared minimum) present"
        return
    fi
    log "rustup toolchain install $v (the declared minimum) with thumbv7em-none-eabihf"
    rustup toolchain install "$v" --profile minimal --target thumbv7em-none-eabihf
}

install_rust
install_msrv
install_miri
install_debs
install_defmt_print
install_venv
log "done"
