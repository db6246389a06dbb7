//! `FileReader` (footer, random access by index over a `&[u8]`) and
//! `FileSeekReader` (over a seekable source returning short reads).
//! Oracles: accepted batches validate fully and round-trip through
//! `StreamWriter`; reading the batches again in reverse order gives equal
//! batches; where both readers accept batch `i` the two are equal;
//! allocations of each reader stay within `ipc_cap`.
#![no_main]

use alkaid::ipc::reader::{FileReader, FileSeekReader};
use alkaid_alloc::Counting;
use alkaid_fuzz::*;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let limits = fuzz_limits();
    let gcap = ipc_global_cap(&limits);
    let budget = Budget::new("FileReader", ipc_cap(data.len(), &limits));
    let seek_budget = Budget::new("FileSeekReader", ipc_cap(data.len(), &limits));
    let oracle = Counting::new(Direct);
    {
        let opened = global_scope("FileReader::try_new_in", gcap, || {
            FileReader::try_new_in(data, fuzz_options(), budget.alloc())
        });
        let mut by_index = Vec::new();
        if let Ok(mut r) = opened {
            let n = r.num_batches().min(MAX_BATCHES);
            let mut accepted = Vec::new();
            for i in 0..n {
                let b = global_scope("FileReader::batch", gcap, || r.batch(i));
                if let Ok(b) = &b {
                    check_batch(b);
                    accepted.push(b.clone());
                }
                by_index.push(b.ok());
            }
            // Random access: the same batches in reverse order.
            for i in (0..n).rev() {
                let again = global_scope("FileReader::batch", gcap, || r.batch(i)).ok();
                assert!(again == by_index[i], "batch {i} differs when read again");
            }
            assert!(
                r.batch(n.max(r.num_batches())).is_err(),
                "batch past the end accepted"
            );
            round_trip(r.schema(), &accepted, &oracle);
        }

        let src = Chunked::new(data, 1 + data.len() % 89);
        let opened = global_scope("FileSeekReader::try_new_in", gcap, || {
            FileSeekReader::try_new_in(src, fuzz_options(), seek_budget.alloc())
        });
        if let Ok(mut r) = opened {
            let n = r.num_batches().min(MAX_BATCHES);
            let mut accepted = Vec::new();
            for i in 0..n {
                if let Ok(b) = global_scope("FileSeekReader::batch", gcap, || r.batch(i)) {
                    check_batch(&b);
                    // Both readers accepted batch i: the same batch.
                    if let Some(Some(other)) = by_index.get(i) {
                        assert!(
                            *other == b,
                            "FileReader and FileSeekReader disagree on batch {i}"
                        );
                    }
                    accepted.push(b);
                }
            }
            round_trip(r.schema(), &accepted, &oracle);
        }
    }
    budget.check();
    seek_budget.check();
});
