//! Regenerates `std-shim/src/flight/generated/` from `std-shim/proto/Flight.proto`
//! with a protobuf compiler written in Rust (protox) and tonic's prost code
//! generator, so that no `protoc` binary is needed.
//!
//! ```text
//! cargo run --manifest-path std-shim/flight-gen/Cargo.toml            rewrite in place
//! cargo run --manifest-path std-shim/flight-gen/Cargo.toml -- --check compare, change nothing
//! ```
//!
//! Exit status: 0 done / up to date; 1 the committed code is stale
//! (`--check`); 2 generation failed; 64 bad usage.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

/// The generated module, one file per protobuf package.
const GENERATED: &str = "arrow.flight.protocol.rs";

fn generate(shim: &Path, out: &Path) -> Result<(), String> {
    let proto = shim.join("proto");
    let fds = protox::compile([proto.join("Flight.proto")], [&proto])
        .map_err(|e| format!("compiling Flight.proto: {e}"))?;
    tonic_prost_build::configure()
        .build_server(false)
        .build_client(true)
        .build_transport(true)
        .emit_rerun_if_changed(false)
        .out_dir(out)
        .compile_fds(fds)
        .map_err(|e| format!("generating code: {e}"))
}

fn main() -> ExitCode {
    let check = match std::env::args().nth(1).as_deref() {
        None => false,
        Some("--check") => true,
        Some(_) => {
            eprintln!("usage: alkaid-flight-gen [--check]");
            return ExitCode::from(64);
        }
    };
    let shim = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .map(Path::to_path_buf)
        .unwrap_or_default();
    // ALKAID_FLIGHT_OUT_DIR redirects the directory written or checked (a
    // test uses it to show that --check notices a stale copy).
    let committed = std::env::var_os("ALKAID_FLIGHT_OUT_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| shim.join("src/flight/generated"));
    let tmp = std::env::temp_dir().join(format!("alkaid-flight-gen-{}", std::process::id()));
    let result = std::fs::create_dir_all(&tmp)
        .map_err(|e| e.to_string())
        .and_then(|()| generate(&shim, &tmp))
        .and_then(|()| std::fs::read(tmp.join(GENERATED)).map_err(|e| e.to_string()));
    let _ = std::fs::remove_dir_all(&tmp);
    let fresh = match result {
        Ok(bytes) => bytes,
        Err(e) => {
            eprintln!("alkaid-flight-gen: {e}");
            return ExitCode::from(2);
        }
    };
    let path = committed.join(GENERATED);
    if check {
        if std::fs::read(&path).ok().as_deref() == Some(&fresh[..]) {
            println!("{} is up to date", path.display());
            ExitCode::SUCCESS
        } else {
            eprintln!(
                "{} is stale: run `cargo run --manifest-path std-shim/flight-gen/Cargo.toml`",
                path.display()
            );
            ExitCode::from(1)
        }
    } else {
        match std::fs::create_dir_all(&committed).and_then(|()| std::fs::write(&path, &fresh)) {
            Ok(()) => {
                println!("wrote {}", path.display());
                ExitCode::SUCCESS
            }
            Err(e) => {
                eprintln!("alkaid-flight-gen: {}: {e}", path.display());
                ExitCode::from(2)
            }
        }
    }
}
