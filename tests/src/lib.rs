//! Host integration tests of alkaid (golden files, interop, property tests, benchmarks).
