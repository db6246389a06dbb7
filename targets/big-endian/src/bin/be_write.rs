//! Writes the test's IPC stream (see the library docs) to the path given as
//! the only argument. Run on s390x under qemu-user, it writes big-endian
//! data and a schema marked `Big`; it refuses to run on a little-endian
//! machine unless `--allow-little` is given.

use std::process::ExitCode;

use alkaid::ipc::reader::{IpcReadOptions, SliceStreamReader};
use alkaid::ipc::writer::{IpcWriteOptions, StreamWriter};
use alkaid::ipc::Endianness;
use alkaid::Global;
use alkaid_big_endian::batches;

fn run(path: &str) -> Result<(), String> {
    let batches = batches().map_err(|e| format!("building batches: {e}"))?;
    let mut w = StreamWriter::try_new_in(
        Vec::new(),
        batches[0].schema(),
        IpcWriteOptions::default(),
        Global,
    )
    .map_err(|e| format!("writer: {e}"))?;
    for b in &batches {
        w.write(b).map_err(|e| format!("write: {e}"))?;
    }
    w.finish().map_err(|e| format!("finish: {e}"))?;
    let bytes = w.into_inner();

    // Read back on the writing machine too: no byte swap on this side.
    let mut r = SliceStreamReader::try_new_in(&bytes, IpcReadOptions::default(), Global)
        .map_err(|e| format!("reading back: {e}"))?;
    if r.endianness() != Endianness::NATIVE {
        return Err(format!("read back as {:?}", r.endianness()));
    }
    for (k, want) in batches.iter().enumerate() {
        match r.next_batch() {
            Ok(Some(got)) if &got == want => {}
            other => return Err(format!("batch {k} read back as {other:?}")),
        }
    }
    std::fs::write(path, &bytes).map_err(|e| format!("{path}: {e}"))?;
    let rows: usize = batches.iter().map(|b| b.num_rows()).sum();
    println!(
        "be_write: {} bytes, {} batches, {rows} rows, written {:?}-endian on {} to {path}",
        bytes.len(),
        batches.len(),
        Endianness::NATIVE,
        std::env::consts::ARCH,
    );
    Ok(())
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let allow_little = args.iter().any(|a| a == "--allow-little");
    let paths: Vec<&String> = args.iter().filter(|a| !a.starts_with("--")).collect();
    let [path] = paths[..] else {
        eprintln!("usage: be_write [--allow-little] <out.arrows>");
        return ExitCode::from(2);
    };
    if Endianness::NATIVE != Endianness::Big && !allow_little {
        eprintln!("be_write: this machine is little-endian (run it under qemu-s390x)");
        return ExitCode::from(2);
    }
    match run(path) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("be_write: {e}");
            ExitCode::FAILURE
        }
    }
}
