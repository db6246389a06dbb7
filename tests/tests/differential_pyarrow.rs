//! Differential test of our IPC readers against pyarrow on mutated golden
//! inputs.
//!
//! Every `.stream` and `.arrow_file` of the golden folders is parsed into
//! its messages, flatbuffer scalars and body buffers
//! ([`alkaid_tests::mutate`]), and a seeded generator draws
//! `MUTATIONS_PER_INPUT` mutations of each: byte flips (anywhere, in the
//! metadata, in body buffers, in strings, in the footer), changed scalars
//! (length prefixes, `bodyLength`, `FieldNode` lengths and null counts,
//! `Buffer` offsets and lengths, type parameters, dictionary ids, footer
//! `Block`s…), truncations, and dropped, duplicated, swapped and reordered
//! messages or footer blocks. The unmutated inputs are checked too.
//!
//! For each input, our verdict (streams: `SliceStreamReader` and
//! `StreamReader`; files: `FileReader` and `FileSeekReader`; every
//! batch validated at the default level) is compared with pyarrow's
//! (`read_all()`, then `Table.validate(full=True)`; `tests/python/
//! differential.py`, one run over every input). When both accept, we write
//! what we read with our `StreamWriter`, and pyarrow finds it equal to its
//! own reading (`Table.equals(check_metadata=True)`: schema, metadata and
//! every value).
//!
//! pyarrow's readers do not apply the value-domain rules of
//! `validate(full=True)` (decimal precision, whole-day Date64, time of day);
//! neither does our default level. An input pyarrow refuses for one of them
//! (`alkaid_tests::differential::VALUE_RULES`) and our default level reads
//! is not a difference when our reader at `ValidationLevel::Strict` refuses
//! it for the same rule: the test reads every accepted input again at
//! Strict to check it, and counts those inputs apart.
//!
//! Every disagreement must match an entry of [`JUSTIFIED`] (the strict table
//! of justified differences, each with its reasoning from the spec); an
//! entry that matches nothing fails the test. Our two readers of a format
//! must agree too (a disagreement between them is listed the same way); a
//! panic of ours is never justified. The test prints the counts of inputs
//! (both accept / both reject / justified differences / unexplained), each
//! table entry with its count and examples, and the outcomes per mutation
//! operator. Ignored without the `interop` feature; the mutated inputs are
//! left in `target/tmp/differential-pyarrow/` (`manifest.json` lists them
//! with their mutation).
//!
//! The inputs, our verdict, the matching and the report are
//! [`alkaid_tests::differential`]'s, shared with the arrow-rs twin
//! (`tests/arrow-rs/tests/differential_arrow_rs.rs`). The documented list
//! of justified differences of our default verdict from pyarrow's and
//! arrow-rs's is the table of `docs/verdicts.md`: keep it in step with
//! [`JUSTIFIED`].

use std::collections::BTreeMap;
use std::path::Path;
use std::process::Command;

use alkaid_tests::differential::{judge, our_entries, Justified, Kind, Theirs};
use alkaid_tests::interop::{python, python_script, require_pyarrow, scratch_dir};

/// The strict table of justified differences.
///
/// An entry that no input matches any more fails the test: remove it with
/// the change that made it stale.
const JUSTIFIED: &[Justified] = &[
    // ---- pyarrow accepts, we reject: checks pyarrow does not make.
    Justified {
        kind: Kind::TheirsOnly,
        input: "",
        mutation: "",
        ours: "Error::BufferOutOfBody",
        theirs: "",
        reason: "Message.fbs: a Buffer is a region of the body (offset and length from the \
                 body's start, inside bodyLength); we check every Buffer of a batch, pyarrow \
                 skips the buffers it does not need (the validity bitmap of a node whose \
                 null_count is 0) without looking at them",
    },
    Justified {
        kind: Kind::TheirsOnly,
        input: "uncompressible_",
        mutation: "",
        ours: "Error::CorruptCompressedData",
        theirs: "",
        reason: "Message.fbs BodyCompression: every buffer is compressed on its own, behind \
                 its uncompressed length (-1: stored as is); we decode every buffer, pyarrow \
                 never decompresses the validity bitmap of a node whose null_count is 0, so \
                 a corrupt one goes unseen",
    },
    Justified {
        kind: Kind::TheirsOnly,
        input: "uncompressible_",
        mutation: "",
        ours: "Error::LimitExceeded",
        theirs: "",
        reason: "as the entry above: a corrupt uncompressed-length prefix (e.g. 2^31 - 1 for \
                 a 1-byte bitmap) of a validity bitmap pyarrow skips; we refuse a prefix \
                 above ReadLimits::max_buffer_size or that the codec does not produce",
    },
    Justified {
        kind: Kind::TheirsOnly,
        input: "",
        mutation: "",
        ours: "Error::InvalidFlatbuffer",
        theirs: "",
        reason: "our flatbuffer verifier is stricter than the C++ one on strings: \
                 flatbuffers `string`s (names, metadata, time zones) must be UTF-8; fields \
                 are otherwise verified one by one as the C++ verifier does",
    },
    Justified {
        kind: Kind::TheirsOnly,
        input: "",
        mutation: "",
        ours: "Error::InvalidFieldNode",
        theirs: "",
        reason: "Message.fbs FieldNode: null_count is the number of null slots of the node, so \
                 0 <= null_count <= length; pyarrow reads -1 as 'unknown' (and recounts) and \
                 ignores the null count of Null arrays",
    },
    Justified {
        kind: Kind::TheirsOnly,
        input: "",
        mutation: "(zero-row batch)",
        ours: "Error::OffsetOutOfBounds",
        theirs: "",
        reason: "Columnar format, variable-size binary/list layouts: the offsets buffer holds \
                 length + 1 offsets, each a position in the data buffer (child), so an empty \
                 array's one offset must lie inside it too; pyarrow's full validation skips \
                 the offsets of empty arrays",
    },
    Justified {
        kind: Kind::TheirsOnly,
        input: "generated_binary_view.",
        mutation: "",
        ours: "Error::ViewOffsetOutOfBounds",
        theirs: "",
        reason: "Columnar format, binary view layout: every view of the views buffer is a \
                 length and either inline bytes or (buffer index, offset) into a data buffer; \
                 our full validation checks every view, pyarrow's skips null slots",
    },
    Justified {
        kind: Kind::TheirsOnly,
        input: "generated_decimal",
        mutation: "",
        ours: "Error::InvalidDataType",
        theirs: "",
        reason: "Schema.fbs Decimal: scale is the number of digits after the decimal point, \
                 out of `precision` digits in all, so scale <= precision; pyarrow accepts \
                 any scale",
    },
    Justified {
        kind: Kind::TheirsOnly,
        input: "",
        mutation: "Field.type_type",
        ours: "Error::BufferCountMismatch",
        theirs: "",
        reason: "Message.fbs RecordBatch: `buffers` are the buffers of the schema's fields in \
                 pre-order, as many as their layouts have; a type changed to one with fewer \
                 buffers leaves some over, which pyarrow ignores",
    },
    Justified {
        kind: Kind::TheirsOnly,
        input: "dictionary",
        mutation: "RecordBatch.length",
        ours: "Error::LengthMismatch",
        theirs: "",
        reason: "Message.fbs: a DictionaryBatch's data is a RecordBatch whose length is its \
                 number of records, i.e. its one column's length; pyarrow ignores the length \
                 of dictionary batches",
    },
    Justified {
        kind: Kind::TheirsOnly,
        input: "",
        mutation: "Field.nullable",
        ours: "Error::NullInNonNullableField",
        theirs: "",
        reason: "Schema.fbs Field.nullable: a field that is not nullable holds no nulls; \
                 pyarrow does not check batches against their schema's nullability",
    },
    Justified {
        kind: Kind::TheirsOnly,
        input: "",
        mutation: "Buffer.offset",
        ours: "Error::UnalignedBodyBuffer",
        theirs: "",
        reason: "Columnar format, 'Buffer Alignment and Padding' and Message.fbs Buffer: \
                 buffers of a message body start on 8-byte boundaries; we refuse every \
                 unaligned Buffer.offset of a batch, pyarrow only those of the buffers it \
                 reads (not the validity bitmap of a node whose null_count is 0)",
    },
    // ---- We accept, pyarrow rejects.
    Justified {
        kind: Kind::OursOnly,
        input: "",
        mutation: "",
        ours: "",
        theirs: "expected number",
        reason: "IPC streaming format: 'before any dictionary key is used in a RecordBatch it \
                 should be defined in a DictionaryBatch' (and a dictionary may follow the \
                 first batch); a stream that ends, or has a zero-row batch, before a \
                 dictionary uses none of its keys; pyarrow wants every dictionary first",
    },
    // ---- Our two readers of one format disagree.
];

/// Runs `differential.py` over the manifest; restarts it after an entry
/// that crashes pyarrow (recorded as a rejection with that reason).
fn pyarrow_verdicts(manifest: &Path, ids: &[String]) -> BTreeMap<String, Theirs> {
    let mut out = BTreeMap::new();
    let mut start = 0;
    while start < ids.len() {
        let o = Command::new(python())
            .arg(python_script("differential.py"))
            .arg(manifest)
            .arg(start.to_string())
            .output()
            .unwrap_or_else(|e| panic!("cannot run {}: {e}", python().display()));
        let mut next = start;
        for line in String::from_utf8_lossy(&o.stdout).lines() {
            let v: serde_json::Value = serde_json::from_str(line)
                .unwrap_or_else(|e| panic!("differential.py: {e}: {line}"));
            let id = v["id"].as_str().unwrap_or_default().to_string();
            assert_eq!(ids.get(next), Some(&id), "differential.py out of order");
            let equal = v["equal"].as_bool();
            out.insert(
                id,
                Theirs {
                    accept: v["accept"].as_bool() == Some(true),
                    error: v["error"].as_str().unwrap_or_default().to_string(),
                    differs: (equal == Some(false))
                        .then(|| v["detail"].as_str().unwrap_or_default().to_string()),
                },
            );
            next += 1;
        }
        if next < ids.len() {
            assert!(
                !o.status.success(),
                "differential.py stopped early without failing"
            );
            let err = String::from_utf8_lossy(&o.stderr);
            let last = err.lines().last().unwrap_or_default();
            out.insert(
                ids[next].clone(),
                Theirs {
                    accept: false,
                    error: format!("pyarrow crashed ({}): {last}", o.status),
                    differs: None,
                },
            );
            next += 1;
        }
        start = next;
    }
    out
}

#[test]
#[cfg_attr(
    not(feature = "interop"),
    ignore = "needs pyarrow: run with --features interop (scripts/test.sh interop)"
)]
fn mutated_golden_inputs_get_the_same_verdicts_and_values_as_pyarrow() {
    let version = require_pyarrow();
    let work = scratch_dir(
        Path::new(env!("CARGO_TARGET_TMPDIR")),
        "differential-pyarrow",
    );
    // Our verdicts first (each input and our rewrite left in `work`), then
    // pyarrow's in one run over the manifest.
    let (mut entries, mpath, mutations) = our_entries(&work);
    let ids: Vec<String> = entries.iter().map(|e| e.id.clone()).collect();
    let mut theirs = pyarrow_verdicts(&mpath, &ids);
    for e in &mut entries {
        e.theirs = theirs
            .remove(&e.id)
            .unwrap_or_else(|| panic!("no pyarrow verdict for {}", e.id));
    }
    let outcome = judge(
        &format!("pyarrow {version}"),
        JUSTIFIED,
        &entries,
        mutations,
    );
    outcome.print();
    outcome.check();
}
