//! Hostile input built from every golden file: every truncation point of every
//! stream, truncations of files at many points, and
//! single-byte corruptions must give an error or batches that pass full
//! validation, never a panic; the same through `alkaid validate`. Then
//! crafted file footers (issue #14): blocks that disagree with their
//! message, are unaligned or lie outside the file get the same distinct
//! error from both file readers, without allocating what they declare; a
//! footer without its `version` field is read.

use alkaid::array::ValidationLevel;
use alkaid::ipc::reader::{FileReader, IpcReadOptions, SliceStreamReader, StreamReader};
use alkaid::Global as G;
use alkaid_tests::harness::{cases, golden_dir};

/// Reads every batch of a stream; batches that decode must validate fully.
fn probe_stream(bytes: &[u8]) {
    if let Ok(r) = SliceStreamReader::try_new_in(bytes, IpcReadOptions::default(), G) {
        for b in r {
            match b {
                Ok(b) => b
                    .validate(ValidationLevel::Full)
                    .expect("decoded batch validates"),
                Err(_) => break,
            }
        }
    }
}

fn probe_stream_read(bytes: &[u8]) {
    if let Ok(r) = StreamReader::try_new_in(bytes, IpcReadOptions::default(), G) {
        for b in r {
            match b {
                Ok(b) => b
                    .validate(ValidationLevel::Full)
                    .expect("decoded batch validates"),
                Err(_) => break,
            }
        }
    }
}

fn probe_file(bytes: &[u8]) {
    if let Ok(mut r) = FileReader::try_new_in(bytes, IpcReadOptions::default(), G) {
        for i in 0..r.num_batches().min(64) {
            if let Ok(b) = r.batch(i) {
                b.validate(ValidationLevel::Full)
                    .expect("decoded batch validates");
            }
        }
    }
}

/// Positions to cut or corrupt: every byte of small inputs and of the first
/// 512 bytes (the schema and first headers), then about `n` spread evenly.
fn positions(len: usize, n: usize) -> Vec<usize> {
    let mut v: Vec<usize> = (0..len.min(512)).collect();
    if len > 512 {
        let step = ((len - 512) / n).max(1);
        v.extend((512..len).step_by(step));
    }
    v
}

/// The encapsulated messages of a well-formed stream: for each, the range of
/// its bytes (prefix, metadata, padding, body) and whether it is a schema or
/// dictionary batch (which later messages depend on); the last range is the
/// end-of-stream marker.
fn messages(stream: &[u8]) -> Vec<(std::ops::Range<usize>, bool)> {
    use alkaid::ipc::message::{MessageHeader, MessageView};
    let word = |at: usize| u32::from_le_bytes(stream[at..at + 4].try_into().unwrap());
    let mut out = Vec::new();
    let mut pos = 0;
    while pos + 4 <= stream.len() {
        let (len, meta) = if word(pos) == 0xFFFF_FFFF {
            (word(pos + 4) as usize, pos + 8)
        } else {
            (word(pos) as usize, pos + 4) // legacy framing
        };
        if len == 0 {
            break;
        }
        let m = MessageView::decode(&stream[meta..meta + len]).expect("golden message");
        let end = meta + len + m.body_length as usize;
        let keep = !matches!(m.header, MessageHeader::RecordBatch(_));
        out.push((pos..end, keep));
        pos = end;
    }
    // The end-of-stream marker and anything after it.
    out.push((pos..stream.len(), false));
    out
}

/// Inputs above this size are cut message by message (see below).
const WHOLE_PREFIX_LIMIT: usize = 64 * 1024;

/// Every truncation point of every golden stream, read by the zero-copy
/// reader. Streams up to 64 KiB are cut literally (`stream[..n]` for every
/// `n`). For the two larger ones (big-endian decimals, 250–360 KB, 33–36
/// batches) re-reading the whole prefix for each of 600,000 cuts takes too
/// long unoptimised, so each message is cut at every byte behind the messages
/// the reader's state depends on (the schema and any dictionary batch before
/// it): the reader is in the same state at the cut as in the literal prefix,
/// since earlier record batches leave no state behind.
#[test]
fn every_truncation_point_of_every_golden_stream() {
    let mut cuts = 0usize;
    for case in cases(&golden_dir()) {
        let stream = std::fs::read(case.stream_path()).unwrap();
        if stream.len() <= WHOLE_PREFIX_LIMIT {
            for n in 0..=stream.len() {
                probe_stream(&stream[..n]);
            }
            cuts += stream.len() + 1;
            continue;
        }
        let mut state: Vec<u8> = Vec::new();
        for (range, keep) in messages(&stream) {
            let mut input = state.clone();
            let base = input.len();
            input.extend_from_slice(&stream[range.clone()]);
            for n in base..=input.len() {
                probe_stream(&input[..n]);
            }
            cuts += range.len();
            if keep {
                state.extend_from_slice(&stream[range]);
            }
        }
        assert!(!state.is_empty(), "{}: no schema message", case.stem);
    }
    assert!(cuts > 800_000, "{cuts} cuts");
}

#[test]
fn truncated_golden_inputs_never_panic() {
    for case in cases(&golden_dir()) {
        let stream = std::fs::read(case.stream_path()).unwrap();
        for n in positions(stream.len(), 400) {
            probe_stream(&stream[..n]);
        }
        for n in positions(stream.len(), 40) {
            probe_stream_read(&stream[..n]);
        }
        let file = std::fs::read(case.file_path()).unwrap();
        for n in positions(file.len(), 100) {
            probe_file(&file[..n]);
        }
    }
}

#[test]
fn corrupted_golden_inputs_never_panic() {
    for case in cases(&golden_dir()) {
        let stream = std::fs::read(case.stream_path()).unwrap();
        let mut bad = stream.clone();
        for i in positions(stream.len(), 200) {
            for x in [0xFFu8, 0x01, 0x80] {
                bad[i] ^= x;
                probe_stream(&bad);
                bad[i] ^= x;
            }
        }
        let file = std::fs::read(case.file_path()).unwrap();
        let mut bad = file.clone();
        let len = file.len();
        // The footer sits at the end: corrupt it too.
        let tail: Vec<usize> = (len.saturating_sub(256)..len).collect();
        for i in positions(len, 60).into_iter().chain(tail) {
            bad[i] ^= 0xFF;
            probe_file(&bad);
            bad[i] ^= 0xFF;
        }
    }
}

/// `alkaid validate` on corrupted and truncated golden streams: exit 0 or 1,
/// one `invalid:` line on stderr when invalid (after any value-rule
/// `warning:` lines), and never a panic.
#[test]
fn alkaid_validate_never_panics_on_golden_corruptions() {
    let exe = alkaid_tests::harness::alkaid_exe();
    let dir = tempdir();
    let mut runs = 0;
    for case in &cases(&golden_dir()) {
        let stream = std::fs::read(case.stream_path()).unwrap();
        let len = stream.len();
        let mut inputs: Vec<Vec<u8>> = Vec::new();
        for k in 1..=4 {
            inputs.push(stream[..len * k / 5].to_vec());
            let mut bad = stream.clone();
            bad[(len * k / 5 + 13) % len] ^= 0xFF;
            inputs.push(bad);
        }
        for (j, input) in inputs.iter().enumerate() {
            let path = dir.join(format!("{}-{j}.stream", case.stem));
            std::fs::write(&path, input).unwrap();
            let out = std::process::Command::new(&exe)
                .arg("validate")
                .arg(&path)
                .output()
                .expect("run alkaid");
            runs += 1;
            let stderr = String::from_utf8_lossy(&out.stderr);
            assert!(!stderr.contains("panicked"), "{}: {stderr}", path.display());
            // Value-rule warnings (batches read before the defect) may come
            // first; a failure ends with one `invalid:` line.
            let verdicts: Vec<_> = stderr
                .lines()
                .filter(|l| !l.starts_with("warning: "))
                .collect();
            match out.status.code() {
                Some(0) => assert!(verdicts.is_empty(), "{stderr}"),
                Some(1) => {
                    assert_eq!(verdicts.len(), 1, "{stderr}");
                    assert!(verdicts[0].starts_with("invalid: "), "{stderr}");
                }
                other => panic!("{}: exit {other:?}: {stderr}", path.display()),
            }
        }
    }
    assert!(runs >= 100, "{runs} runs");
}

fn tempdir() -> std::path::PathBuf {
    let d = std::env::temp_dir().join(format!("alkaid-hostile-{}", std::process::id()));
    std::fs::create_dir_all(&d).unwrap();
    d
}

// ----- crafted footers (#14) -----

use alkaid::array::{Array, PrimitiveArray, RecordBatch, StringArray};
use alkaid::buffer::SharedSlice;
use alkaid::datatypes::{DataType, Field, Schema};
use alkaid::ipc::message::{Block, FooterView};
use alkaid::ipc::reader::FileSeekReader;
use alkaid::ipc::writer::{FileWriter, IpcWriteOptions};
use alkaid::Error;

/// A file we write: two record batches of an int64 and a utf8 column.
fn small_file() -> (Vec<u8>, Vec<RecordBatch<'static, G>>) {
    let schema = Schema::new(
        SharedSlice::try_from_iter_in(
            [
                Field::new("i", DataType::Int64, true),
                Field::new("s", DataType::Utf8, true),
            ],
            G,
        )
        .unwrap(),
    );
    let batches: Vec<_> = (0..2i64)
        .map(|k| {
            let i = PrimitiveArray::<i64, G>::try_from_options_in(
                &[Some(k), None, Some(k * 1000 + 7)],
                G,
            )
            .unwrap();
            let s =
                StringArray::<G>::try_from_options_in(&[Some("north"), Some(""), None], G).unwrap();
            RecordBatch::try_new(
                schema.clone(),
                SharedSlice::try_from_iter_in([i.into_array_ref(), s.into_array_ref()], G).unwrap(),
            )
            .unwrap()
        })
        .collect();
    let mut w = FileWriter::try_new_in(Vec::new(), &schema, IpcWriteOptions::default(), G).unwrap();
    for b in &batches {
        w.write(b).unwrap();
    }
    w.finish().unwrap();
    (w.into_inner(), batches)
}

/// Where the footer flatbuffer of `file` starts and ends.
fn footer_range(file: &[u8]) -> std::ops::Range<usize> {
    let end = file.len() - 10;
    let len = i32::from_le_bytes(file[end..end + 4].try_into().unwrap()) as usize;
    end - len..end
}

/// Record batch block `i` of the footer of `file`.
fn record_block(file: &[u8], i: usize) -> Block {
    FooterView::decode(&file[footer_range(file)])
        .unwrap()
        .record_batch(i)
        .unwrap()
}

/// `file` with record batch block `i` of its footer changed by `edit`.
fn with_block(file: &[u8], i: usize, edit: impl Fn(&mut Block)) -> Vec<u8> {
    let old = record_block(file, i);
    let mut new = old;
    edit(&mut new);
    let range = footer_range(file);
    let at = file[range.clone()]
        .windows(24)
        .position(|w| w == old.to_bytes())
        .expect("block in the footer")
        + range.start;
    let mut out = file.to_vec();
    out[at..at + 24].copy_from_slice(&new.to_bytes());
    assert_eq!(record_block(&out, i), new);
    out
}

/// Every batch through `FileReader`, or the first error.
fn via_file_reader(file: &[u8]) -> Result<Vec<RecordBatch<'_, G>>, Error> {
    let mut r = FileReader::try_new_in(file, IpcReadOptions::default(), G)?;
    (0..r.num_batches()).map(|i| r.batch(i)).collect()
}

/// Every batch through `FileSeekReader`, or the first error.
fn via_seek_reader(file: &[u8]) -> Result<Vec<RecordBatch<'static, G>>, Error> {
    let src = embedded_io_adapters::std::FromStd::new(std::io::Cursor::new(file));
    let mut r = FileSeekReader::try_new_in(src, IpcReadOptions::default(), G)?;
    (0..r.num_batches()).map(|i| r.batch(i)).collect()
}

/// Both file readers refuse `file` with `want`.
fn both_refuse(file: &[u8], want: Error, what: &str) {
    assert_eq!(
        via_file_reader(file).err(),
        Some(want),
        "FileReader: {what}"
    );
    assert_eq!(
        via_seek_reader(file).err(),
        Some(want),
        "FileSeekReader: {what}"
    );
}

#[test]
fn both_file_readers_read_a_consistent_file_alike() {
    let (file, batches) = small_file();
    assert_eq!(via_file_reader(&file).unwrap(), batches);
    assert_eq!(via_seek_reader(&file).unwrap(), batches);
}

/// Block lengths that disagree with the message: `FileReader` used to read
/// the batch by the message's own length prefix (and `alkaid validate`
/// accepted the file) while `FileSeekReader` refused it.
#[test]
fn footer_blocks_that_disagree_with_their_message_are_refused_by_both_readers() {
    let (file, _) = small_file();
    let b = record_block(&file, 1);
    let longer_body = with_block(&file, 0, |b| b.body_length += 8);
    both_refuse(&longer_body, Error::BlockMessageMismatch, "body + 8");
    let shorter_body = with_block(&file, 0, |b| b.body_length -= 8);
    both_refuse(&shorter_body, Error::BlockMessageMismatch, "body - 8");
    let longer_meta = with_block(&file, 0, |b| b.meta_data_length += 8);
    both_refuse(&longer_meta, Error::BlockMessageMismatch, "metadata + 8");
    let shorter_meta = with_block(&file, 0, |b| b.meta_data_length -= 8);
    both_refuse(&shorter_meta, Error::BlockMessageMismatch, "metadata - 8");
    // Batch 0's block pointing at batch 1's message with batch 0's lengths
    // (equal here: same shape), and at the schema message.
    let moved = with_block(&file, 0, |x| x.offset = b.offset);
    assert_eq!(
        via_file_reader(&moved).unwrap().len(),
        2,
        "same shape: consistent"
    );
    let at_schema = with_block(&file, 0, |x| x.offset = 8);
    both_refuse(
        &at_schema,
        Error::BlockMessageMismatch,
        "block at the schema",
    );
}

#[test]
fn unaligned_footer_blocks_are_refused_by_both_readers() {
    let (file, _) = small_file();
    for (what, edit) in [
        (
            "offset + 4",
            (|b: &mut Block| b.offset += 4) as fn(&mut Block),
        ),
        ("metadata + 4", |b| b.meta_data_length += 4),
        ("body + 4", |b| b.body_length += 4),
        ("body - 1", |b| b.body_length -= 1),
    ] {
        both_refuse(&with_block(&file, 1, edit), Error::UnalignedBlock, what);
    }
}

#[test]
fn footer_blocks_outside_the_file_are_refused_by_both_readers() {
    let (file, _) = small_file();
    let footer_start = footer_range(&file).start as i64;
    for (what, edit) in [
        (
            "negative offset",
            (|b: &mut Block| b.offset = -8) as fn(&mut Block),
        ),
        ("offset 0 (the magic)", |b| b.offset = 0),
        ("negative body", |b| b.body_length = -8),
        ("negative metadata", |b| b.meta_data_length = -8),
        ("huge body", |b| b.body_length = 3 << 30),
        ("offset past the end", |b| b.offset = 1 << 40),
        ("overflowing end", |b| b.offset = i64::MAX - 7),
    ] {
        both_refuse(&with_block(&file, 1, edit), Error::BlockOutOfFile, what);
    }
    // Reaching into the footer.
    let into_footer = with_block(&file, 1, |b| b.offset = footer_start & !7);
    both_refuse(&into_footer, Error::BlockOutOfFile, "into the footer");
}

/// Where the `bodyLength` (field 3) of the `Message` flatbuffer that starts
/// at `meta` lies, read from the table's vtable.
fn message_body_length_at(meta: &[u8]) -> usize {
    let u32_at = |i: usize| u32::from_le_bytes(meta[i..i + 4].try_into().unwrap()) as usize;
    let table = u32_at(0);
    let vtable = (table as i64
        - i32::from_le_bytes(meta[table..table + 4].try_into().unwrap()) as i64)
        as usize;
    let slot = vtable + 4 + 2 * 3;
    let field = u16::from_le_bytes(meta[slot..slot + 2].try_into().unwrap()) as usize;
    assert_ne!(field, 0, "bodyLength present");
    table + field
}

/// Issue #14: an 8.6 KB file whose block and message both declare a 3 GiB
/// body made `FileSeekReader` reserve and zero 3 GiB before reading.
#[test]
fn a_body_larger_than_the_file_is_refused_before_allocating() {
    let (file, _) = small_file();
    let b = record_block(&file, 1);
    let huge: i64 = 3 << 30;
    let mut bad = with_block(&file, 1, |x| x.body_length = huge);
    // The message says the same, so that block and message agree.
    let meta = &bad[b.offset as usize + 8..];
    let at = b.offset as usize + 8 + message_body_length_at(meta);
    assert_eq!(bad[at..at + 8], b.body_length.to_le_bytes());
    bad[at..at + 8].copy_from_slice(&huge.to_le_bytes());
    let counting = alkaid_alloc::Counting::new(G);
    let src = embedded_io_adapters::std::FromStd::new(std::io::Cursor::new(&bad[..]));
    let mut r = FileSeekReader::try_new_in(src, IpcReadOptions::default(), &counting).unwrap();
    let got = r.batch(1).err();
    assert!(
        counting.peak_bytes() < 64 * 1024,
        "peak {} bytes",
        counting.peak_bytes()
    );
    assert_eq!(got, Some(Error::BlockOutOfFile));
    assert!(r.batch(0).is_ok());
    both_refuse(&bad, Error::BlockOutOfFile, "3 GiB body");
}

/// Issue #14: a footer without its `version` field (older writers left it
/// out; it then reads as V1) over V4/V5 messages is read: the messages'
/// own versions are what matter.
#[test]
fn a_footer_without_a_version_field_is_read() {
    let (file, batches) = small_file();
    let range = footer_range(&file);
    let mut old = file.clone();
    // The footer's vtable slot of `version` (field 0) set to 0: absent.
    let fb = &file[range.clone()];
    let table = u32::from_le_bytes(fb[0..4].try_into().unwrap()) as usize;
    let vtable = (table as i64
        - i32::from_le_bytes(fb[table..table + 4].try_into().unwrap()) as i64)
        as usize;
    old[range.start + vtable + 4..range.start + vtable + 6].fill(0);
    let footer = alkaid_fbs::flatbuf::root_as_footer(&old[range.clone()]).unwrap();
    assert_eq!(footer.version(), alkaid_fbs::flatbuf::MetadataVersion::V1);
    assert!(footer.schema().is_some());
    assert_eq!(FooterView::decode(&old[range]).unwrap().version, None);
    assert_eq!(via_file_reader(&old).unwrap(), batches);
    assert_eq!(via_seek_reader(&old).unwrap(), batches);
}

/// `bytes` with the offset of body buffer `k` of the record batch message
/// whose metadata flatbuffer is `bytes[meta]` moved by `delta` bytes
/// (located with the flatc-generated reader).
fn with_buffer_offset(bytes: &[u8], meta: std::ops::Range<usize>, k: usize, delta: i64) -> Vec<u8> {
    let m = alkaid_fbs::flatbuf::root_as_message(&bytes[meta.clone()]).unwrap();
    let buffers = m.header_as_record_batch().unwrap().buffers().unwrap();
    let old = buffers.get(k).offset();
    let at = buffers.bytes().as_ptr() as usize - bytes.as_ptr() as usize + 16 * k;
    assert_eq!(bytes[at..at + 8], old.to_le_bytes());
    let mut out = bytes.to_vec();
    out[at..at + 8].copy_from_slice(&(old + delta).to_le_bytes());
    out
}

/// Issue #14: a body buffer whose offset is not a multiple of 8 was
/// accepted; the format requires 8-byte aligned body buffers (Arrow C++:
/// "did not start on 8-byte aligned offset"), and no golden file's writer
/// produces others. Every reader refuses it with a distinct error.
#[test]
fn an_unaligned_body_buffer_is_refused_by_every_reader() {
    let (file, batches) = small_file();
    let b = record_block(&file, 0);
    let meta = b.offset as usize + 8..(b.offset + i64::from(b.meta_data_length)) as usize;
    // Buffer 1: the 24 bytes of int64 values, padded to 64: moved by 4
    // bytes it still lies inside the body.
    let bad = with_buffer_offset(&file, meta.clone(), 1, 4);
    both_refuse(&bad, Error::UnalignedBodyBuffer, "buffer 1 at +4");
    let bad = with_buffer_offset(&file, meta, 1, 1);
    both_refuse(&bad, Error::UnalignedBodyBuffer, "buffer 1 at +1");
    // The same in a stream.
    let mut w = alkaid::ipc::writer::StreamWriter::try_new_in(
        Vec::new(),
        batches[0].schema(),
        IpcWriteOptions::default(),
        G,
    )
    .unwrap();
    w.write(&batches[0]).unwrap();
    w.finish().unwrap();
    let stream = w.into_inner();
    // The schema message (no body), then the record batch's.
    let word = |at: usize| u32::from_le_bytes(stream[at..at + 4].try_into().unwrap()) as usize;
    let at = 8 + word(4);
    let batch_meta = at + 8..at + 8 + word(at + 4);
    let bad = with_buffer_offset(&stream, batch_meta, 1, 4);
    let sliced: Result<Vec<_>, _> =
        SliceStreamReader::try_new_in(&bad[..], IpcReadOptions::default(), G)
            .unwrap()
            .collect();
    assert_eq!(sliced.err(), Some(Error::UnalignedBodyBuffer));
    let read: Result<Vec<_>, _> = StreamReader::try_new_in(&bad[..], IpcReadOptions::default(), G)
        .unwrap()
        .collect();
    assert_eq!(read.err(), Some(Error::UnalignedBodyBuffer));
}
