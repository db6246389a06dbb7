//! The library API: paths, mmap, `std::io` sources and sinks, errors.

mod common;

use std::io::Cursor;

use alkaid::array::ArrayRef;
use alkaid::Global as G;
use alkaid_std::{
    create_file, create_stream, open_ipc, read_ipc, read_stream, Error, IpcFormat, IpcInput,
    IpcWriteOptions,
};

#[test]
fn create_then_open_both_formats() {
    let dir = common::temp_dir("create_then_open");
    let (schema, batches) = common::sample();
    let s = dir.join("a.arrows");
    let f = dir.join("a.arrow");
    let mut w = create_stream(&s, &schema, IpcWriteOptions::default()).unwrap();
    let mut fw = create_file(&f, &schema, IpcWriteOptions::default()).unwrap();
    for b in &batches {
        w.write(b).unwrap();
        fw.write(b).unwrap();
    }
    w.finish().unwrap();
    fw.finish().unwrap();
    assert_eq!(fw.position(), std::fs::metadata(&f).unwrap().len());

    for (path, format) in [(&s, IpcFormat::Stream), (&f, IpcFormat::File)] {
        let input = open_ipc(path).unwrap();
        assert_eq!(input.format(), format);
        let mut reader = input.reader().unwrap();
        assert_eq!(reader.format(), format);
        assert_eq!(reader.schema(), &schema);
        assert_eq!(
            reader.num_batches(),
            (format == IpcFormat::File).then_some(2)
        );
        let got: Vec<_> = reader.by_ref().map(Result::unwrap).collect();
        assert_eq!(got, batches);
        assert!(reader.next_batch().unwrap().is_none());
        // A mapped input can be read again.
        assert_eq!(input.reader().unwrap().count(), 2);
    }
}

#[test]
fn mapped_batches_point_into_the_mapping() {
    let dir = common::temp_dir("zero_copy");
    let path = dir.join("z.arrow");
    std::fs::write(&path, common::encode(IpcFormat::File)).unwrap();
    let input = open_ipc(&path).unwrap();
    let range = input.bytes().unwrap().as_ptr_range();
    let batch = input.reader().unwrap().next_batch().unwrap().unwrap();
    let ArrayRef::Int32(ids) = &batch.columns()[0] else {
        panic!("id column is not Int32")
    };
    assert_eq!(ids.values(), &[1, 2, 3]);
    assert!(range.contains(&ids.values().as_ptr().cast()));
    let ArrayRef::Utf8(names) = &batch.columns()[1] else {
        panic!("name column is not Utf8")
    };
    assert!(range.contains(&names.values().as_ptr()));
}

#[test]
fn read_ipc_detects_and_streams_lazily() {
    let (_, batches) = common::sample();
    // Stream format: read as consumed; bytes are not kept.
    let input = read_ipc(Cursor::new(common::encode(IpcFormat::Stream))).unwrap();
    assert_eq!(input.format(), IpcFormat::Stream);
    assert!(input.bytes().is_none());
    let got: Vec<_> = input.reader().unwrap().map(Result::unwrap).collect();
    assert_eq!(got, batches);
    let again = input.reader().map(|_| ()).unwrap_err();
    assert_eq!(again.to_string(), "input stream already consumed");

    // File format: read whole into aligned memory.
    let bytes = common::encode(IpcFormat::File);
    let input = read_ipc(Cursor::new(bytes.clone())).unwrap();
    assert_eq!(input.format(), IpcFormat::File);
    assert_eq!(input.bytes(), Some(&bytes[..]));
    assert_eq!(input.bytes().unwrap().as_ptr() as usize % 64, 0);
    let got: Vec<_> = input.reader().unwrap().map(Result::unwrap).collect();
    assert_eq!(got, batches);

    // Short and empty sources.
    let input = read_ipc(Cursor::new(b"ARR".to_vec())).unwrap();
    assert_eq!(input.format(), IpcFormat::Stream);
    assert!(matches!(
        input.reader().map(|_| ()),
        Err(Error::Arrow(e)) if e.kind() == alkaid::ErrorKind::UnexpectedEof
    ));
    let input = read_ipc(Cursor::new(Vec::new())).unwrap();
    assert!(matches!(
        input.reader().map(|_| ()),
        Err(Error::Arrow(e)) if e.kind() == alkaid::ErrorKind::UnexpectedEof
    ));
}

#[test]
fn read_stream_and_from_bytes() {
    let (schema, batches) = common::sample();
    let bytes = common::encode(IpcFormat::Stream);
    let reader = read_stream(&bytes[..]).unwrap();
    assert_eq!(reader.schema(), &schema);
    let got: Vec<_> = reader.map(Result::unwrap).collect();
    assert_eq!(got, batches);

    let input = IpcInput::from_bytes(&bytes).unwrap();
    assert_eq!(input.format(), IpcFormat::Stream);
    let (n, rows) = input
        .reader()
        .unwrap()
        .validate_all(alkaid::array::ValidationLevel::Full)
        .unwrap();
    assert_eq!((n, rows), (2, 4));

    // A truncated stream: the error is the core's, and the reader stops.
    let mut reader = read_stream(&bytes[..bytes.len() - 20]).unwrap();
    assert!(reader.next_batch().unwrap().is_some());
    assert!(matches!(
        reader.next_batch(),
        Err(Error::Arrow(e)) if e.kind() == alkaid::ErrorKind::UnexpectedEof
    ));
    assert!(reader.next_batch().unwrap().is_none());
}

#[test]
fn io_errors_keep_the_os_error() {
    let err = open_ipc("/nonexistent/alkaid.arrow").unwrap_err();
    let Error::Io(e) = &err else {
        panic!("expected an I/O error, got {err:?}")
    };
    assert_eq!(e.kind(), std::io::ErrorKind::NotFound);

    // A full disk: the BufWriter's flush at finish reports ENOSPC.
    if std::path::Path::new("/dev/full").exists() {
        let (schema, batches) = common::sample();
        let mut w = create_stream("/dev/full", &schema, IpcWriteOptions::default()).unwrap();
        let r = w.write(&batches[0]).and_then(|_| w.finish());
        let Err(Error::Io(e)) = r else {
            panic!("expected an I/O error, got {r:?}")
        };
        assert_eq!(e.raw_os_error(), Some(28), "{e}");
        let back: std::io::Error = Error::Io(e).into();
        assert_eq!(back.kind(), std::io::ErrorKind::StorageFull);
    }
}

#[test]
fn writer_errors_are_the_cores() {
    let (schema, batches) = common::sample();
    let bad = IpcWriteOptions {
        alignment: 3,
        ..Default::default()
    };
    let r = alkaid_std::StreamWriter::try_new_with_options(Vec::new(), &schema, bad);
    assert!(matches!(
        r,
        Err(Error::Arrow(e)) if e.kind() == alkaid::ErrorKind::InvalidArgument
    ));
    let mut w = alkaid_std::FileWriter::try_new(Vec::new(), &schema).unwrap();
    w.write(&batches[0]).unwrap();
    w.finish().unwrap();
    assert!(matches!(
        w.write(&batches[1]),
        Err(Error::Arrow(e)) if e.kind() == alkaid::ErrorKind::InvalidBuilderState
    ));
    let bytes = w.into_inner();
    assert!(bytes.starts_with(b"ARROW1") && bytes.ends_with(b"ARROW1"));
    let _ = G;
}

/// `validate_all` checks each batch once (issue #14: `alkaid validate`
/// validated every batch fully twice): the reader's own full validation
/// is enough, and a second pass runs only when the reader's level was
/// lowered below the one asked for.
#[test]
fn validate_all_checks_again_only_above_the_readers_level() {
    let mut bytes = common::encode(IpcFormat::Stream);
    let at = bytes
        .windows(8)
        .position(|w| w == b"alicebob")
        .expect("the string values");
    bytes[at] = 0xFF;
    let input = IpcInput::from_bytes(&bytes).unwrap();
    let full = alkaid::array::ValidationLevel::Full;
    let cheap = alkaid::array::ValidationLevel::Cheap;
    // Default options: the reader itself refuses the batch.
    assert!(matches!(
        input.reader().unwrap().validate_all(full),
        Err(Error::Arrow(e)) if e.kind() == alkaid::ErrorKind::InvalidUtf8
    ));
    // SAFETY: the batches are only validated, never read.
    let lowered = unsafe { alkaid::ipc::reader::IpcReadOptions::default().with_validation(cheap) };
    // A cheap reader and a cheap check: the bad byte goes unnoticed.
    assert_eq!(
        input
            .reader_with(lowered)
            .unwrap()
            .validate_all(cheap)
            .unwrap(),
        (2, 4)
    );
    // A cheap reader and a full check: the second pass finds it.
    assert!(matches!(
        input.reader_with(lowered).unwrap().validate_all(full),
        Err(Error::Arrow(e)) if e.kind() == alkaid::ErrorKind::InvalidUtf8
    ));
}

/// Batches in an arena go through every shim writer with ZSTD and LZ4 (the
/// shim's codecs), and come back equal; an arena too small for the writer's
/// memory is the core's `AllocationFailed`, not a panic.
#[test]
fn writers_take_batches_from_any_allocator() {
    use alkaid::ipc::reader::{IpcReadOptions, StreamReader};
    use alkaid::ipc::writer::CompressionCodec;
    use alkaid_alloc::Arena;
    use alkaid_std::{FileWriter, IpcWriter, StreamWriter, VectoredFileWriter};

    let (schema, batches) = common::sample();
    let mut plain = alkaid_std::StreamWriter::try_new(Vec::new(), &schema).unwrap();
    for b in &batches {
        plain.write(b).unwrap();
    }
    plain.finish().unwrap();
    let plain = plain.into_inner();

    let mut region = vec![0u8; 4 << 20];
    let arena = Arena::new(&mut region);
    let read = |alloc| {
        let mut r = StreamReader::try_new_in(&plain[..], IpcReadOptions::default(), alloc).unwrap();
        let schema = r.schema().clone();
        let mut got = Vec::new();
        while let Some(b) = r.next_batch().unwrap() {
            got.push(b);
        }
        (schema, got)
    };
    let (arena_schema, arena_batches) = read(&arena);
    for codec in [CompressionCodec::Zstd, CompressionCodec::Lz4Frame] {
        let options = IpcWriteOptions {
            compression: Some(codec),
            ..Default::default()
        };
        let mut s = StreamWriter::try_new_in(Vec::new(), &arena_schema, options, &arena).unwrap();
        let mut f = FileWriter::try_new_in(Vec::new(), &arena_schema, options, &arena).unwrap();
        let mut i =
            IpcWriter::try_new_in(Vec::new(), IpcFormat::File, &arena_schema, options, &arena)
                .unwrap();
        let mut v = VectoredFileWriter::try_new_with_codecs_in(
            Vec::new(),
            &arena_schema,
            options,
            alkaid_std::StdCodecs::default(),
            &arena,
        )
        .unwrap();
        for b in &arena_batches {
            s.write(b).unwrap();
            f.write(b).unwrap();
            i.write(b).unwrap();
            v.write(b).unwrap();
        }
        s.finish().unwrap();
        f.finish().unwrap();
        i.finish().unwrap();
        v.finish().unwrap();
        let file = f.into_inner();
        assert_eq!(i.into_inner(), file);
        assert_eq!(v.into_inner(), file);
        for bytes in [s.into_inner(), file] {
            let got: Vec<_> = IpcInput::from_bytes(&bytes)
                .unwrap()
                .reader()
                .unwrap()
                .map(Result::unwrap)
                .collect();
            assert_eq!(got, batches, "{codec:?}");
        }
    }

    // The writer's own memory comes from its allocator: an arena of 64
    // bytes cannot hold the schema message.
    let mut tiny = [0u8; 64];
    let tiny = Arena::new(&mut tiny);
    let err =
        StreamWriter::try_new_in(Vec::new(), &arena_schema, IpcWriteOptions::default(), &tiny)
            .unwrap_err();
    assert_eq!(
        err.as_arrow(),
        Some(alkaid::Error::AllocationFailed),
        "{err:?}"
    );
}
