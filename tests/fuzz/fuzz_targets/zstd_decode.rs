//! The `no_std` ZSTD decoder (feature `zstd-decode`, `ruzstd`) through the
//! IPC body buffer path (`decompress_buffer`) with small limits: window
//! 64 KiB, buffers 64 KiB. Input: a little-endian `u16` declared length,
//! then the compressed stream.
//!
//! Oracles: decoding is deterministic (a fresh decoder and the reused one
//! give the same bytes); the output fills the declared length exactly; `A`
//! holds at most the limit; `ruzstd`'s own global heap stays within
//! `zstd_global_cap`.
#![no_main]

use alkaid::buffer::Buffer;
use alkaid::ipc::compression::zstd_decode::ZstdDecoder;
use alkaid::ipc::compression::{decompress_buffer, Codec};
use alkaid_fuzz::*;
use libfuzzer_sys::fuzz_target;

const LIMIT: usize = 64 << 10;
const WINDOW: u64 = 64 << 10;

fuzz_target!(|data: &[u8]| {
    if data.len() < 2 {
        return;
    }
    let declared = u16::from_le_bytes([data[0], data[1]]) as i64;
    let mut framed = Vec::with_capacity(data.len() + 6);
    framed.extend_from_slice(&declared.to_le_bytes());
    framed.extend_from_slice(&data[2..]);
    let input = Buffer::from_slice_ref(&framed);
    let gcap = zstd_global_cap(WINDOW as usize, LIMIT);
    let budget = Budget::new("zstd_decode", LIMIT + 4096);
    {
        let a = budget.alloc();
        let mut dec = ZstdDecoder::with_max_window_size(WINDOW);
        let first = global_scope("zstd decompress_buffer", gcap, || {
            decompress_buffer(&mut dec, &input, LIMIT, a)
        });
        // A declared length of 0 is the empty buffer, whatever follows
        // (`decompress_buffer` does not decode it).
        if let (Ok(buf), true) = (&first, declared > 0) {
            assert_eq!(
                buf.len() as i64,
                declared,
                "output length differs from the declared length"
            );
            // The reused decoder, straight into a slice.
            let mut out = vec![0u8; buf.len()];
            let n = global_scope("zstd decompress (reused)", gcap, || {
                dec.decompress(&data[2..], &mut out)
            });
            match n {
                Ok(n) => assert!(out[..n] == *buf.as_slice(), "reused decoder differs"),
                Err(e) => panic!("reused decoder refuses what a fresh one accepted: {e:?}"),
            }
        }
    }
    budget.check();
});
