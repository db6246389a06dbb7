//! Binary metadata: exact bytes, decoding back, hostile counts and lengths.

use std::vec::Vec;

use crate::Global;

use super::metadata::{decode_metadata_in, encode_metadata_in};
use crate::buffer::{SharedSlice, SharedStr};
use crate::datatypes::Metadata;
use crate::error::{Error, ErrorKind};
use crate::test_support::check_every_failure;

fn i32s(v: i32) -> [u8; 4] {
    v.to_ne_bytes()
}

fn two_pairs() -> Metadata<'static, Global> {
    static PAIRS: [(SharedStr<'static, Global>, SharedStr<'static, Global>); 2] = [
        (SharedStr::borrowed("k"), SharedStr::borrowed("v1")),
        (
            SharedStr::borrowed("ARROW:extension:name"),
            SharedStr::borrowed(""),
        ),
    ];
    SharedSlice::borrowed(&PAIRS)
}

/// The encoding of [`two_pairs`], spelled out.
fn two_pairs_bytes() -> Vec<u8> {
    let mut b = Vec::new();
    b.extend(i32s(2));
    b.extend(i32s(1));
    b.extend(b"k");
    b.extend(i32s(2));
    b.extend(b"v1");
    b.extend(i32s(20));
    b.extend(b"ARROW:extension:name");
    b.extend(i32s(0));
    b
}

/// Decodes `bytes` (copied into an `i32`-aligned and an odd address in
/// turn, as producers need not align), with `max_bytes`.
fn decode(bytes: &[u8], max_bytes: usize) -> crate::Result<(Metadata<'static, Global>, usize)> {
    let mut first = None;
    for shift in [0usize, 1] {
        let mut storage = std::vec![0u8; bytes.len() + shift];
        storage[shift..].copy_from_slice(bytes);
        // SAFETY: the pointer covers `bytes.len()` readable bytes, which
        // the decoder never reads past (checked under Miri).
        let r = unsafe { decode_metadata_in(storage[shift..].as_ptr().cast(), Global, max_bytes) };
        match &first {
            None => first = Some(r),
            Some(f) => assert_eq!(&r, f, "result depends on alignment"),
        }
    }
    first.unwrap()
}

#[test]
fn two_pairs_encode_to_the_exact_bytes_and_decode_back() {
    let buf = encode_metadata_in(&two_pairs(), Global).unwrap().unwrap();
    assert_eq!(buf.as_slice(), two_pairs_bytes().as_slice());
    assert_eq!(buf.as_slice().as_ptr() as usize % 4, 0);
    let (md, size) = decode(&two_pairs_bytes(), 1 << 20).unwrap();
    assert_eq!(md, two_pairs());
    assert_eq!(size, two_pairs_bytes().len());
}

#[test]
fn empty_metadata_is_a_null_pointer_and_back() {
    assert!(encode_metadata_in(&Metadata::<Global>::empty(), Global)
        .unwrap()
        .is_none());
    // SAFETY: null is allowed.
    let (md, size) = unsafe { decode_metadata_in(core::ptr::null(), Global, 100) }.unwrap();
    assert!(md.is_empty());
    assert_eq!(size, 0);
    // Zero pairs, spelled out.
    let (md, size) = decode(&i32s(0), 100).unwrap();
    assert!(md.is_empty());
    assert_eq!(size, 4);
}

#[test]
fn hostile_metadata_gives_its_error_without_reading_past_the_limit() {
    use ErrorKind::*;
    let good = two_pairs_bytes();
    let mut neg_count = good.clone();
    neg_count[..4].copy_from_slice(&i32s(-1));
    let mut neg_key = good.clone();
    neg_key[4..8].copy_from_slice(&i32s(-5));
    let mut neg_value = good.clone();
    neg_value[9..13].copy_from_slice(&i32s(i32::MIN));
    let mut bad_key = good.clone();
    bad_key[8] = 0xff;
    let mut bad_value = good.clone();
    bad_value[13] = 0xc3;
    // A count of i32::MAX pairs in 4 bytes: refused from the count alone
    // (Miri would flag a read past the 4 bytes).
    let huge_count = i32s(i32::MAX).to_vec();
    // A key claiming 1000 bytes, with a limit of 100.
    let mut long_key = Vec::new();
    long_key.extend(i32s(1));
    long_key.extend(i32s(1000));
    let cases: [(&[u8], usize, ErrorKind); 8] = [
        (&neg_count, 1 << 20, FfiMetadataNegativeLength),
        (&neg_key, 1 << 20, FfiMetadataNegativeLength),
        (&neg_value, 1 << 20, FfiMetadataNegativeLength),
        (&bad_key, 1 << 20, FfiMetadataNotUtf8),
        (&bad_value, 1 << 20, FfiMetadataNotUtf8),
        (&huge_count, 1 << 20, FfiMetadataTooLarge),
        (&long_key, 100, FfiMetadataTooLarge),
        // The limit is on the whole encoding: one byte short of it.
        (&good, good.len() - 1, FfiMetadataTooLarge),
    ];
    for (i, (bytes, max, e)) in cases.iter().enumerate() {
        assert_eq!(
            decode(bytes, *max).map(|_| ()),
            Err(Error::from(*e)),
            "case {i}"
        );
    }
    assert!(decode(&good, good.len()).is_ok());
}

#[test]
fn allocation_failures_leak_nothing() {
    let bytes = two_pairs_bytes();
    check_every_failure(|a| {
        // SAFETY: `bytes` holds the whole encoding.
        let (md, _) = unsafe { decode_metadata_in(bytes.as_ptr().cast(), a.clone(), 1 << 20) }?;
        let again = encode_metadata_in(&md, a)?;
        assert_eq!(again.map(|b| b.as_slice().to_vec()), Some(bytes.clone()));
        Ok(md)
    });
}
