//! alkaid against arrow-rs 60 (publish = false): nothing but its tests and
//! benchmarks.
//!
//! - `tests/interop_arrow_rs.rs`: every golden file and pyarrow's random
//!   tables through our readers and writers and arrow-rs's (ignored without
//!   the `interop` feature; `scripts/test.sh interop` runs it);
//! - `tests/differential_arrow_rs.rs`: our readers' verdicts and values on
//!   mutated golden inputs against arrow-rs's (the twin of
//!   `alkaid-tests`'s `tests/differential_pyarrow.rs`; ignored without the
//!   `interop` feature);
//! - `tests/row_arrow_rs.rs`: our row format against `arrow-row`, byte for
//!   byte and in order;
//! - `benches/ipc.rs`, `benches/ipc_compression.rs`, `benches/row.rs`: our
//!   IPC (plain, LZ4, ZSTD) and row format timed against arrow-rs's in one
//!   run, printing both figures and their ratio
//!   (`cargo bench -p alkaid-tests-arrow-rs --bench ipc`).
//!
//! The helpers (golden cases, our readers and writers, the JSON comparison,
//! pyarrow) are `alkaid-tests`'s; this package only adds the arrow-rs
//! dependencies, so that `alkaid-tests` (the golden tests built for s390x)
//! compiles none of them.
