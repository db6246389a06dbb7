//! `StreamReader` over `embedded_io::Read`, fed in short reads (1 to 97
//! bytes, from the input's length) so that every partial-read path runs.
//! Oracles: accepted batches validate fully, round-trip through
//! `StreamWriter`, allocations stay within `ipc_cap`, no global heap beyond
//! the ZSTD decoder's.
#![no_main]

use alkaid::ipc::reader::StreamReader;
use alkaid_alloc::Counting;
use alkaid_fuzz::*;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let limits = fuzz_limits();
    let gcap = ipc_global_cap(&limits);
    let budget = Budget::new("StreamReader", ipc_cap(data.len(), &limits));
    let oracle = Counting::new(Direct);
    {
        let src = Chunked::new(data, 1 + data.len() % 97);
        let opened = global_scope("StreamReader::try_new_in", gcap, || {
            StreamReader::try_new_in(src, fuzz_options(), budget.alloc())
        });
        if let Ok(mut r) = opened {
            let mut batches = Vec::new();
            while batches.len() < MAX_BATCHES {
                match global_scope("StreamReader::next_batch", gcap, || r.next_batch()) {
                    Ok(Some(b)) => {
                        check_batch(&b);
                        batches.push(b);
                    }
                    Ok(None) | Err(_) => break,
                }
            }
            round_trip(r.schema(), &batches, &oracle);
        }
    }
    budget.check();
});
