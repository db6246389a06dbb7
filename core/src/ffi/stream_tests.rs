//! Tests of the C Stream Interface: export of batch iterators, import as an
//! iterator, errors and release on every path.

use core::ffi::CStr;
use core::sync::atomic::{AtomicUsize, Ordering};
use std::vec::Vec;

use crate::Global as G;

use super::{ArrowArrayStreamReader, FFI_ArrowArray, FFI_ArrowArrayStream, FFI_ArrowSchema};
use crate::array::RecordBatch;
use crate::error::{Error, Result};

/// Counts the drops of the iterators handed to the exporter.
static DROPS: AtomicUsize = AtomicUsize::new(0);

/// The sample batches, then (optionally) an error; counts its drop.
struct Batches {
    items: std::vec::IntoIter<Result<RecordBatch<'static, G>>>,
}

impl Iterator for Batches {
    type Item = Result<RecordBatch<'static, G>>;
    fn next(&mut self) -> Option<Self::Item> {
        self.items.next()
    }
}

impl Drop for Batches {
    fn drop(&mut self) {
        DROPS.fetch_add(1, Ordering::SeqCst);
    }
}

fn stream(error_after: Option<usize>) -> (FFI_ArrowArrayStream, Vec<RecordBatch<'static, G>>) {
    let batches: Vec<_> = [0, 1, 3]
        .iter()
        .map(|&o| crate::ipc::roundtrip_tests::sample_batch(o))
        .collect();
    let mut items: Vec<Result<RecordBatch<'static, G>>> = batches.iter().cloned().map(Ok).collect();
    if let Some(n) = error_after {
        items.truncate(n);
        items.push(Err(Error::OffsetsNotMonotonic
            .with_row(414)
            .with_buffer(1)
            .with_field(0)
            .with_message(1)));
    }
    let schema = batches[0].schema().clone();
    let s = FFI_ArrowArrayStream::try_from_batches_in(
        schema,
        Batches {
            items: items.into_iter(),
        },
        G,
    )
    .unwrap();
    (s, batches)
}

/// What `get_last_error` says of the producer's error: its message and
/// location, as its `Display` (without the feature `error-location`, its
/// message alone).
#[cfg(feature = "error-location")]
const LOCATED: &str =
    "offsets are not monotonically increasing (message 1, field 0, buffer 1, row 414)";
#[cfg(not(feature = "error-location"))]
const LOCATED: &str = "offsets are not monotonically increasing";

/// The stream tests share the drop counter: they run under one lock.
static LOCK: std::sync::Mutex<()> = std::sync::Mutex::new(());

#[test]
fn exported_batches_read_back_equal_and_the_stream_is_released_once() {
    let _g = LOCK.lock().unwrap();
    let before = DROPS.load(Ordering::SeqCst);
    let (s, batches) = stream(None);
    // SAFETY: a stream alkaid just made.
    let reader = unsafe { ArrowArrayStreamReader::try_new_in(s, G) }.unwrap();
    assert_eq!(reader.schema(), batches[0].schema());
    let got: Vec<_> = reader.collect::<Result<_>>().unwrap();
    assert_eq!(got, batches);
    assert_eq!(DROPS.load(Ordering::SeqCst), before + 1);
    // The batches outlive the stream: their buffers are alkaid's, kept
    // alive by the arrays the producer exported.
    assert_eq!(got[2].num_rows(), batches[2].num_rows());
}

#[test]
fn a_stream_dropped_before_its_end_is_released_once() {
    let _g = LOCK.lock().unwrap();
    let before = DROPS.load(Ordering::SeqCst);
    let (s, batches) = stream(None);
    // SAFETY: as above.
    let mut reader = unsafe { ArrowArrayStreamReader::try_new_in(s, G) }.unwrap();
    let first = reader.next().unwrap().unwrap();
    drop(reader);
    assert_eq!(DROPS.load(Ordering::SeqCst), before + 1);
    assert_eq!(first, batches[0]);
}

#[test]
fn producer_errors_reach_the_consumer_with_their_message() {
    let _g = LOCK.lock().unwrap();
    let (mut s, _) = stream(Some(1));
    let get_next = s.get_next.unwrap();
    let get_last_error = s.get_last_error.unwrap();
    let mut out = FFI_ArrowArray::empty();
    // SAFETY: a live stream and a struct to fill (the C consumer's view).
    assert_eq!(unsafe { get_next(&mut s, &mut out) }, 0);
    assert_eq!(out.length, 7);
    drop(out);
    let mut out = FFI_ArrowArray::empty();
    // SAFETY: as above.
    assert_eq!(unsafe { get_next(&mut s, &mut out) }, super::EINVAL);
    assert!(out.is_released());
    // SAFETY: the stream's last error is a NUL-terminated string.
    let msg = unsafe { CStr::from_ptr(get_last_error(&mut s)) };
    assert_eq!(msg.to_str().unwrap(), LOCATED);

    // Through the reader: the error, then the end.
    let (s, _) = stream(Some(2));
    // SAFETY: as above.
    let mut reader = unsafe { ArrowArrayStreamReader::try_new_in(s, G) }.unwrap();
    assert!(reader.next().unwrap().is_ok());
    assert!(reader.next().unwrap().is_ok());
    assert_eq!(reader.next().unwrap().unwrap_err(), Error::Io);
    assert_eq!(reader.last_error(), Some(LOCATED));
    assert!(reader.next().is_none());
}

#[test]
fn released_streams_and_schemas_are_refused() {
    let _g = LOCK.lock().unwrap();
    // SAFETY: a released stream: nothing is called.
    let e = unsafe { ArrowArrayStreamReader::<G>::try_new_in(FFI_ArrowArrayStream::empty(), G) };
    assert_eq!(e.unwrap_err(), Error::FfiReleased);
    let (mut s, batches) = stream(None);
    let get_schema = s.get_schema.unwrap();
    let mut out = FFI_ArrowSchema::empty();
    // SAFETY: a live stream and a struct to fill.
    assert_eq!(unsafe { get_schema(&mut s, &mut out) }, 0);
    // SAFETY: the schema the stream just exported.
    let schema = unsafe { super::import_schema_in(&out, G) }.unwrap();
    assert_eq!(schema.fields().len(), batches[0].num_columns());
    drop(out);
    // SAFETY: a null output is refused, not written.
    let rc = unsafe { get_schema(&mut s, core::ptr::null_mut()) };
    assert_eq!(rc, super::EINVAL);
}
