//! `FileReader` (footer, random access by index over a `&[u8]`) and
//! `FileSeekReader` (over a seekable source returning short reads).
//! Oracles: accepted batches validate fully and round-trip through
//! `StreamWriter`; reading the batches again in reverse order gives equal
//! batches; allocations of each reader stay within `ipc_cap`. The two
//! readers agree (one error for one defect; `tests/tests/reader_agreement.rs`
//! checks the same over the committed corpus): both open or both fail, with
//! the same `ErrorKind`; opened, they list the same number of batches; and
//! batch `i` is the same batch from both, or fails in both with the same
//! `ErrorKind` (a failed batch leaves a reader's state as it was, so each
//! batch is compared on its own).
//!
//! The kinds are compared except [`ErrorKind::AllocationFailed`]: each
//! reader has its own budget (of the same cap) and they allocate
//! differently (`FileSeekReader` copies the footer and every body into
//! memory from `A`, `FileReader` borrows them), so a budget refusal can hit
//! one reader and not the other; a refused request is a finding of its own,
//! reported by `Budget::check`. Every other kind, `LimitExceeded` included,
//! comes from the input and the options, which are the same for both.
#![no_main]

use alkaid::ipc::reader::{FileReader, FileSeekReader};
use alkaid::{Error, ErrorKind};
use alkaid_alloc::Counting;
use alkaid_fuzz::*;
use libfuzzer_sys::fuzz_target;

/// A request a budget refused (see the crate's doc): left to
/// `Budget::check`, which reports it with the cap and the peak.
fn budget_refusal(e: &Error) -> bool {
    e.kind() == ErrorKind::AllocationFailed
}

/// Asserts that the two readers' verdicts on `what` agree: both accept, or
/// both fail with the same kind (unless a budget refused a request).
fn agree<T>(what: &str, file: &Result<T, Error>, seek: &Result<T, Error>) {
    match (file, seek) {
        (Ok(_), Ok(_)) => {}
        (Err(f), _) | (_, Err(f)) if budget_refusal(f) => {}
        (Err(f), Err(s)) => assert!(
            f.kind() == s.kind(),
            "{what}: FileReader fails with {f:?}, FileSeekReader with {s:?}"
        ),
        (Err(f), Ok(_)) => panic!("{what}: FileReader fails with {f:?}, FileSeekReader accepts"),
        (Ok(_), Err(s)) => panic!("{what}: FileSeekReader fails with {s:?}, FileReader accepts"),
    }
}

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
        // FileReader's verdict on opening and on each batch.
        let mut open_error = Ok(());
        let mut declared = None;
        let mut by_index = Vec::new();
        match opened {
            Ok(mut r) => {
                declared = Some(r.num_batches());
                let n = r.num_batches().min(MAX_BATCHES);
                let mut accepted = Vec::new();
                for i in 0..n {
                    let b = global_scope("FileReader::batch", gcap, || r.batch(i));
                    if let Ok(b) = &b {
                        check_batch(b);
                        accepted.push(b.clone());
                    }
                    by_index.push(b);
                }
                // Random access: the same batches in reverse order.
                for i in (0..n).rev() {
                    let again = global_scope("FileReader::batch", gcap, || r.batch(i)).ok();
                    assert!(
                        again == by_index[i].as_ref().ok().cloned(),
                        "batch {i} differs when read again"
                    );
                }
                assert!(
                    r.batch(n.max(r.num_batches())).is_err(),
                    "batch past the end accepted"
                );
                round_trip(r.schema(), &accepted, &oracle);
            }
            Err(e) => open_error = Err(e),
        }

        let src = Chunked::new(data, 1 + data.len() % 89);
        let opened = global_scope("FileSeekReader::try_new_in", gcap, || {
            FileSeekReader::try_new_in(src, fuzz_options(), seek_budget.alloc())
        });
        agree(
            "opening",
            &open_error,
            &opened.as_ref().map(|_| ()).map_err(|&e| e),
        );
        if let Ok(mut r) = opened {
            // `None` when FileReader did not open (a budget refusal).
            if let Some(d) = declared {
                assert!(
                    d == r.num_batches(),
                    "FileReader lists {d} batches, FileSeekReader {}",
                    r.num_batches()
                );
            }
            let n = r.num_batches().min(MAX_BATCHES);
            let mut accepted = Vec::new();
            for i in 0..n {
                let b = global_scope("FileSeekReader::batch", gcap, || r.batch(i));
                if let Some(file) = by_index.get(i) {
                    agree(&format!("batch {i}"), file, &b);
                }
                if let Ok(b) = b {
                    check_batch(&b);
                    // Both readers accepted batch i: the same batch.
                    if let Some(Ok(other)) = by_index.get(i) {
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
