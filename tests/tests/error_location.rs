//! Errors that say where (issue #15, item 3): one test per error family
//! showing the location in the `Display` message — the IPC readers (message,
//! field path, body buffer, row), `RecordBatch::try_new` (column), nested
//! validation (child path) and the C Data Interface import (child path,
//! buffer). The exact strings are asserted.

use alkaid::array::{
    Array, ArrayRef, ListArray, PrimitiveArray, RecordBatch, StringArray, StructArray,
    ValidationLevel,
};
use alkaid::buffer::{Buffer, Misaligned, OffsetBuffer, ScalarBuffer, SharedBox, SharedSlice};
use alkaid::datatypes::{DataType, Field, Schema};
use alkaid::ffi::FFI_ArrowArray;
use alkaid::ipc::reader::{FileReader, IpcReadOptions, SliceStreamReader, StreamReader};
use alkaid::ipc::writer::{FileWriter, IpcWriteOptions, StreamWriter};
use alkaid::{Error, ErrorKind, Global as G};

/// A Utf8 array of 3 slots whose offsets `[0, 3, 1, 4]` decrease after
/// slot 0 (slot 1 ends before it starts), built without validation.
fn bad_strings() -> StringArray<'static, G> {
    let offsets = ScalarBuffer::try_copy_in(&[0i32, 3, 1, 4], G).unwrap();
    let values = Buffer::try_copy_in(b"abcd", G).unwrap();
    // SAFETY: deliberately invalid offsets; the array is only validated,
    // written, and read back by validating readers, never accessed.
    unsafe { StringArray::new_unchecked(offsets, values, None) }
}

fn strings(v: &[&str]) -> ArrayRef<'static, G> {
    let o: Vec<Option<&str>> = v.iter().map(|s| Some(*s)).collect();
    StringArray::<G>::try_from_options_in(&o, G)
        .unwrap()
        .into_array_ref()
}

fn ints(v: &[i32]) -> ArrayRef<'static, G> {
    let o: Vec<Option<i32>> = v.iter().map(|x| Some(*x)).collect();
    PrimitiveArray::<i32, G>::try_from_options_in(&o, G)
        .unwrap()
        .into_array_ref()
}

fn schema_abc() -> Schema<'static, G> {
    let fields = [
        Field::new("a", DataType::Int32, true),
        Field::new("b", DataType::Utf8, true),
        Field::new("c", DataType::Utf8, true),
    ];
    Schema::new(SharedSlice::try_from_iter_in(fields, G).unwrap())
}

/// Two batches of (a: Int32, b: Utf8, c: Utf8); in the second, the offsets
/// of `c` (the third field) decrease at slot 1.
fn two_batches() -> [RecordBatch<'static, G>; 2] {
    let schema = schema_abc();
    let good = [
        ints(&[1, 2, 3]),
        strings(&["x", "y", "z"]),
        strings(&["p", "q", "r"]),
    ];
    let bad = [
        ints(&[4, 5, 6]),
        strings(&["u", "v", "w"]),
        bad_strings().into_array_ref(),
    ];
    let batch = |cols: [ArrayRef<'static, G>; 3]| {
        RecordBatch::try_new(
            schema.clone(),
            SharedSlice::try_from_iter_in(cols, G).unwrap(),
        )
        .unwrap()
    };
    [batch(good), batch(bad)]
}

/// Body buffers of a batch: a (validity 0, values 1), b (validity 2,
/// offsets 3, data 4), c (validity 5, offsets 6, data 7). The stream's
/// message 0 is the schema, so the second batch is message 2.
#[test]
fn ipc_stream_error_names_message_field_buffer_and_row() {
    let batches = two_batches();
    let mut w = StreamWriter::try_new_in(
        Vec::new(),
        batches[0].schema(),
        IpcWriteOptions::default(),
        G,
    )
    .unwrap();
    for b in &batches {
        w.write(b).unwrap();
    }
    w.finish().unwrap();
    let bytes = w.into_inner();
    let want = "offsets are not monotonically increasing (message 2, field 2, buffer 6, row 1)";

    let mut r = SliceStreamReader::try_new_in(&bytes, IpcReadOptions::default(), G).unwrap();
    assert!(r.next_batch().unwrap().is_some());
    let e = r.next_batch().unwrap_err();
    assert_eq!(e, Error::OffsetsNotMonotonic);
    assert_eq!(e.to_string(), want);
    let l = e.location();
    assert_eq!(
        (
            l.message(),
            l.field_path(),
            l.buffer(),
            l.row(),
            l.byte_offset()
        ),
        (Some(2), &[2u32][..], Some(6), Some(1), None)
    );
    assert_eq!(
        format!("{e:?}"),
        "OffsetsNotMonotonic: offsets are not monotonically increasing (message 2, field 2, buffer 6, row 1)"
    );

    let mut r = StreamReader::try_new_in(&bytes[..], IpcReadOptions::default(), G).unwrap();
    assert!(r.next_batch().unwrap().is_some());
    assert_eq!(r.next_batch().unwrap_err().to_string(), want);
}

/// In a file, messages are named by footer block: dictionary blocks first
/// (none here), then record batch `i` is message `i`.
#[test]
fn ipc_file_error_names_the_block() {
    let batches = two_batches();
    let mut w = FileWriter::try_new_in(
        Vec::new(),
        batches[0].schema(),
        IpcWriteOptions::default(),
        G,
    )
    .unwrap();
    for b in &batches {
        w.write(b).unwrap();
    }
    w.finish().unwrap();
    let bytes = w.into_inner();
    let mut r = FileReader::try_new_in(&bytes, IpcReadOptions::default(), G).unwrap();
    assert!(r.batch(0).is_ok());
    assert_eq!(
        r.batch(1).unwrap_err().to_string(),
        "offsets are not monotonically increasing (message 1, field 2, buffer 6, row 1)"
    );
}

/// A body buffer outside the body: the reader names the buffer it was
/// reading (buffer 7, the data of `c`) before any validation.
#[test]
fn ipc_buffer_out_of_body_names_the_buffer() {
    let batches = two_batches();
    let mut w = StreamWriter::try_new_in(
        Vec::new(),
        batches[0].schema(),
        IpcWriteOptions::default(),
        G,
    )
    .unwrap();
    w.write(&batches[0]).unwrap();
    w.finish().unwrap();
    let mut bytes = w.into_inner();
    // Message 1's header lists 8 buffers (offset i64, length i64); find the
    // 8th, whose offset is the largest, by its (offset, length) pair and
    // move its offset far past the body.
    let (at, _) = find_last_buffer(&bytes);
    bytes[at..at + 8].copy_from_slice(&(1i64 << 40).to_le_bytes());
    let mut r = SliceStreamReader::try_new_in(&bytes, IpcReadOptions::default(), G).unwrap();
    assert_eq!(
        r.next_batch().unwrap_err().to_string(),
        "buffer lies outside the message body (message 1, field 2, buffer 7)"
    );
}

/// The byte position of the `Buffer` struct with the largest offset in the
/// first record batch message (read with the flatc-generated code, not our
/// reader), and its offset.
fn find_last_buffer(stream: &[u8]) -> (usize, i64) {
    use alkaid_fbs::flatbuf as fb;
    let mut pos = 0;
    loop {
        let len = u32::from_le_bytes(stream[pos + 4..pos + 8].try_into().unwrap()) as usize;
        let meta = &stream[pos + 8..pos + 8 + len];
        let m = fb::root_as_message(meta).unwrap();
        if let Some(rb) = m.header_as_record_batch() {
            let bufs = rb.buffers().unwrap();
            let last = bufs.get(bufs.len() - 1);
            let mut pattern = last.offset().to_le_bytes().to_vec();
            pattern.extend_from_slice(&last.length().to_le_bytes());
            let at = meta
                .windows(16)
                .position(|w| w == &pattern[..])
                .expect("buffer struct in the metadata");
            return (pos + 8 + at, last.offset());
        }
        pos += 8 + len + m.bodyLength() as usize;
    }
}

/// `RecordBatch::try_new` names the column whose type, length or count
/// does not fit.
#[test]
fn record_batch_errors_name_the_column() {
    let schema = schema_abc();
    let cols = |c: Vec<ArrayRef<'static, G>>| SharedSlice::try_from_iter_in(c, G).unwrap();
    let wrong_type = RecordBatch::try_new(
        schema.clone(),
        cols(vec![ints(&[1]), strings(&["x"]), ints(&[2])]),
    )
    .unwrap_err();
    assert_eq!(wrong_type, Error::SchemaMismatch);
    assert_eq!(
        wrong_type.to_string(),
        "columns do not match the schema (field 2)"
    );
    let missing =
        RecordBatch::try_new(schema.clone(), cols(vec![ints(&[1]), strings(&["x"])])).unwrap_err();
    assert_eq!(
        missing.to_string(),
        "columns do not match the schema (field 2)"
    );
    let short = RecordBatch::try_new(
        schema,
        cols(vec![ints(&[1, 2]), strings(&["x"]), strings(&["y", "z"])]),
    )
    .unwrap_err();
    assert_eq!(
        short.to_string(),
        "lengths of columns or children differ (field 1)"
    );
}

/// struct<a: Int32, b: List<Utf8>> of 1 slot whose list values are the bad
/// strings: the error's path is child 1 (b), then its child 0 (the items).
fn bad_nested() -> (Field<'static, G>, StructArray<'static, G>) {
    let item = Field::new("item", DataType::Utf8, true);
    let item_ref = SharedBox::try_new_in(item, G).unwrap();
    let offsets = OffsetBuffer::try_new(ScalarBuffer::try_copy_in(&[0i32, 3], G).unwrap()).unwrap();
    let values = SharedBox::try_new_in(bad_strings().into_array_ref(), G).unwrap();
    // SAFETY: deliberately invalid items, only validated below.
    let list = unsafe { ListArray::new_unchecked(item_ref, offsets, values, None) };
    let fields = SharedSlice::try_from_iter_in(
        [
            Field::new("a", DataType::Int32, true),
            Field::new("b", list.data_type().clone(), true),
        ],
        G,
    )
    .unwrap();
    let children = SharedSlice::try_from_iter_in([ints(&[7]), list.into_array_ref()], G).unwrap();
    let field = Field::new("s", DataType::Struct(fields.clone()), true);
    // SAFETY: as above.
    let s = unsafe { StructArray::new_unchecked(fields, children, 1, None) };
    (field, s)
}

#[test]
fn nested_validation_error_shows_the_child_path() {
    let (_, s) = bad_nested();
    let e = s.validate(ValidationLevel::Full).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::OffsetsNotMonotonic);
    assert_eq!(
        e.to_string(),
        "offsets are not monotonically increasing (field 1.0, row 1)"
    );
    // In a record batch the column comes first.
    let schema = Schema::new(
        SharedSlice::try_from_iter_in([Field::new("s", s.data_type().clone(), true)], G).unwrap(),
    );
    let batch = RecordBatch::try_new(
        schema,
        SharedSlice::try_from_iter_in([s.into_array_ref()], G).unwrap(),
    )
    .unwrap();
    assert_eq!(
        batch
            .validate(ValidationLevel::Full)
            .unwrap_err()
            .to_string(),
        "offsets are not monotonically increasing (field 0.1.0, row 1)"
    );
}

#[test]
fn ffi_import_error_shows_the_child_path() {
    let (field, s) = bad_nested();
    let exported = FFI_ArrowArray::try_from_array_in(&s.into_array_ref(), G).unwrap();
    // SAFETY: a struct we exported ourselves, alive until released.
    let e = unsafe { exported.import_with_field_in(&field, Misaligned::Refuse, G) }.unwrap_err();
    assert_eq!(
        e.to_string(),
        "offsets are not monotonically increasing (field 1.0, row 1)"
    );
}

#[test]
fn utf8_error_names_the_byte_offset() {
    let offsets = ScalarBuffer::try_copy_in(&[0i32, 2, 5], G).unwrap();
    let values = Buffer::try_copy_in(b"ok\xffab", G).unwrap();
    let e = StringArray::<G>::try_new(offsets, values, None).unwrap_err();
    assert_eq!(
        e.to_string(),
        "string value is not valid UTF-8 (byte offset 2)"
    );
}

#[test]
fn a_kind_compares_equal_whatever_the_location() {
    let e = Error::InvalidRow.with_row(3).with_field(1);
    assert_eq!(e, Error::InvalidRow);
    assert_eq!(e, ErrorKind::InvalidRow);
    assert_eq!(Error::from(ErrorKind::InvalidRow), e);
    assert_eq!(
        e.to_string(),
        "row bytes are not a valid row encoding (field 1, row 3)"
    );
    assert_eq!(
        Error::InvalidRow.to_string(),
        "row bytes are not a valid row encoding"
    );
    assert!(Error::InvalidRow.location().is_empty());
}
