//! Host integration tests of alkaid (golden files, interop, property tests, benchmarks).
//!
//! - [`json`]: a reader of the Arrow integration-test JSON format;
//! - [`value`]: the logical value of a slot, and where two values differ;
//! - [`compare`]: our schemas and record batches against the JSON;
//! - [`harness`]: the golden cases, our readers and writers run on them
//!   (with the core's codecs, whose ZSTD decoder is `ruzstd`, or the std
//!   shim's, whose ZSTD is the reference library), the expected failures and
//!   the summary table;
//! - [`mutate`]: a seeded, structure-aware mutator of IPC streams and files
//!   (the differential tests);
//! - [`differential`]: the differential tests' inputs (golden files and their
//!   mutations), our verdict, the table of justified differences and the
//!   report, shared by the tests against pyarrow and arrow-rs;
//! - [`interop`]: our readers and writers on whole files, pyarrow (through
//!   the scripts of `tests/python/`) and the interop tables.
//!
//! `cargo test -p alkaid-tests` runs `tests/golden.rs` (every golden file
//! through every reader, then through our writers and back),
//! `tests/compare_selftest.rs` (the comparison catches altered JSON) and
//! `tests/core_bugs.rs` (ignored tests pinning known core bugs).
//! `cargo test -p alkaid-tests --features interop` (the `interop` stage of
//! `scripts/test.sh`) also runs `tests/interop_pyarrow.rs`,
//! `tests/message_metadata_pyarrow.rs` and `tests/validation_pyarrow.rs`:
//! round trips and checks with pyarrow (Python at `$ALKAID_PYTHON`, else
//! `<repo>/.venv/bin/python`), and `tests/differential_pyarrow.rs`: our
//! readers' verdicts and values on mutated golden inputs against pyarrow's.
//! The golden files are found at `$ALKAID_GOLDEN_DIR`, else
//! `<repo>/../shared/golden`, else `/work/shared/golden`; the tests fail
//! when none exists.
//! `cargo test -p alkaid-tests --test golden -- --nocapture` prints the
//! summary tables.
//!
//! This package depends on no arrow-rs crate (so that its golden tests build
//! quickly for s390x): the arrow-rs round trips, the row format against
//! `arrow-row` and the benchmarks against arrow-rs are in `tests/arrow-rs/`
//! (package `alkaid-tests-arrow-rs`, which uses these helpers), e.g.
//! `cargo bench -p alkaid-tests-arrow-rs --bench ipc_compression`.

pub mod compare;
pub mod differential;
pub mod harness;
pub mod interop;
pub mod json;
pub mod mutate;
pub mod value;
