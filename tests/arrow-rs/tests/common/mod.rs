//! arrow-rs's reading of IPC bytes and the first difference between two
//! readings, shared by the interop and differential tests of this package.

use std::io::Cursor;

use arrow_array::{Array, RecordBatch};
use arrow_ipc::reader::{FileReader, StreamReader};
use arrow_schema::SchemaRef;

use alkaid_tests::interop::Format;

/// What arrow-rs read: the schema and every batch.
pub type RsRead = (SchemaRef, Vec<RecordBatch>);

/// Every batch of `bytes`, read by arrow-rs's default reader of `format`.
///
/// # Errors
/// arrow-rs's error, as `arrow-rs: …` text.
pub fn rs_read(bytes: &[u8], format: Format) -> Result<RsRead, String> {
    let e = |e: arrow_schema::ArrowError| format!("arrow-rs: {e}");
    match format {
        Format::Stream => {
            let r = StreamReader::try_new(Cursor::new(bytes), None).map_err(e)?;
            let schema = r.schema();
            let batches = r.collect::<Result<Vec<_>, _>>().map_err(e)?;
            Ok((schema, batches))
        }
        Format::File => {
            let r = FileReader::try_new(Cursor::new(bytes), None).map_err(e)?;
            let schema = r.schema();
            let batches = r.collect::<Result<Vec<_>, _>>().map_err(e)?;
            Ok((schema, batches))
        }
    }
}

/// At most this many characters of a difference.
const MAX_REPR: usize = 240;

/// `s` on one line (arrays print on several), cut to [`MAX_REPR`].
pub fn short(s: String) -> String {
    let s = s.split_whitespace().collect::<Vec<_>>().join(" ");
    if s.len() <= MAX_REPR {
        return s;
    }
    let mut end = MAX_REPR;
    while !s.is_char_boundary(end) {
        end -= 1;
    }
    format!("{}...", &s[..end])
}

/// The first difference between arrow-rs's reading of our bytes (`ours`)
/// and of other bytes (`theirs`, named `what` in the text: "original",
/// "arrow-rs's"), if any: schema, batch count, rows, then the first column
/// and row that differ.
pub fn rs_diff(ours: &RsRead, theirs: &RsRead, what: &str) -> Option<String> {
    let (os, ob) = ours;
    let (ts, tb) = theirs;
    if os != ts {
        if os.fields().len() != ts.fields().len() {
            return Some(format!(
                "schema: {} fields vs {}",
                os.fields().len(),
                ts.fields().len()
            ));
        }
        for (i, (a, b)) in os.fields().iter().zip(ts.fields()).enumerate() {
            if a != b {
                return Some(short(format!(
                    "schema field {i}: ours {a:?} vs {what} {b:?}"
                )));
            }
        }
        return Some(short(format!(
            "schema metadata: ours {:?} vs {what} {:?}",
            os.metadata(),
            ts.metadata()
        )));
    }
    if ob.len() != tb.len() {
        return Some(format!("batches: ours {} vs {what} {}", ob.len(), tb.len()));
    }
    for (n, (a, b)) in ob.iter().zip(tb).enumerate() {
        if a == b {
            continue;
        }
        if a.num_rows() != b.num_rows() {
            return Some(format!(
                "batch {n}: rows ours {} vs {what} {}",
                a.num_rows(),
                b.num_rows()
            ));
        }
        for c in 0..a.num_columns() {
            let (x, y) = (a.column(c), b.column(c));
            if x.as_ref() == y.as_ref() {
                continue;
            }
            let name = os.field(c).name();
            let row = (0..x.len()).find(|&i| x.slice(i, 1).as_ref() != y.slice(i, 1).as_ref());
            return Some(short(match row {
                Some(i) => format!(
                    "batch {n} column {c} {name:?}: row {i}: ours {:?} vs {what} {:?}",
                    x.slice(i, 1),
                    y.slice(i, 1)
                ),
                None => format!("batch {n} column {c} {name:?}: arrays differ, no single row does"),
            }));
        }
        return Some(format!("batch {n}: RecordBatch == is false"));
    }
    None
}
