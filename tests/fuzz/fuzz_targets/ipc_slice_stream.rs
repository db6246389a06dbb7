//! `SliceStreamReader` (zero copy over a `&[u8]`), differentially against
//! `StreamReader` over the same bytes: wherever both accept a batch, the
//! batches are equal. Oracles as `ipc_stream`.
#![no_main]

use alkaid::ipc::reader::{SliceStreamReader, StreamReader};
use alkaid_alloc::Counting;
use alkaid_fuzz::*;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let limits = fuzz_limits();
    let gcap = ipc_global_cap(&limits);
    let budget = Budget::new("SliceStreamReader", ipc_cap(data.len(), &limits));
    let oracle = Counting::new(Direct);
    {
        let opened = global_scope("SliceStreamReader::try_new_in", gcap, || {
            SliceStreamReader::try_new_in(data, fuzz_options(), budget.alloc())
        });
        if let Ok(mut r) = opened {
            let mut batches = Vec::new();
            while batches.len() < MAX_BATCHES {
                match global_scope("SliceStreamReader::next_batch", gcap, || r.next_batch()) {
                    Ok(Some(b)) => {
                        check_batch(&b);
                        batches.push(b);
                    }
                    Ok(None) | Err(_) => break,
                }
            }
            // The same bytes through the `Read` front-end (whole reads).
            if let Ok(mut s) = StreamReader::try_new_in(data, fuzz_options(), &oracle) {
                assert!(
                    s.schema() == r.schema(),
                    "the two stream readers disagree on the schema"
                );
                for (i, b) in batches.iter().enumerate() {
                    match s.next_batch() {
                        Ok(Some(other)) => {
                            assert!(other == *b, "the two stream readers disagree on batch {i}")
                        }
                        _ => break,
                    }
                }
            }
            round_trip(r.schema(), &batches, &oracle);
        }
    }
    budget.check();
});
