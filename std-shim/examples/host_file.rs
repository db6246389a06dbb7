//! A host program's job: a batch written to an Arrow IPC file, then read
//! back through a memory map (`alkaid_std::open_ipc`, format detected),
//! validated at the default level and printed as a table.
//!
//! ```sh
//! cargo run -p alkaid-std --example host_file
//! ```

use alkaid_std::array::{Array, Float64Array, RecordBatch, StringArray};
use alkaid_std::{format, open_ipc, FileWriter};

fn main() -> Result<(), alkaid_std::Error> {
    let batch = RecordBatch::try_from_iter([
        (
            "city",
            StringArray::from(vec![Some("Oslo"), Some("Lima"), None]).into_array_ref(),
        ),
        (
            "celsius",
            Float64Array::from(vec![-3.5, 19.0, 7.25]).into_array_ref(),
        ),
    ])?;

    let path = std::env::temp_dir().join(format!("alkaid-example-{}.arrow", std::process::id()));
    let mut w = FileWriter::try_new(std::fs::File::create(&path)?, batch.schema())?;
    w.write(&batch)?;
    w.finish()?;
    drop(w);

    let input = open_ipc(&path)?;
    let mut reader = input.reader()?;
    let mut table = format::TableWriter::new(reader.schema(), None);
    let mut text = String::new();
    while let Some(b) = reader.next_batch()? {
        assert_eq!(b, batch);
        table
            .write_rows(&mut text, &b, 0..b.num_rows())
            .expect("formatting");
    }
    table.finish(&mut text).expect("formatting");
    print!("{text}");
    std::fs::remove_file(&path)?;
    Ok(())
}
