//! The committed `src/flight/generated/` must be exactly what
//! `flight-gen` (protox + tonic-prost-build) makes of `proto/Flight.proto`,
//! and `--check` must notice a copy that is not.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// Exit status of `flight-gen --check` when the compared code is stale.
const STALE: i32 = 1;

fn shim() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// Runs the generator with `--check` (built in its own target directory
/// under this workspace's, so the nested build neither waits for nor
/// invalidates the outer one).
fn check(out_dir: Option<&Path>) -> Output {
    let target = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("flight-gen-target");
    let mut cmd = Command::new(env!("CARGO"));
    cmd.args(["run", "--quiet", "--manifest-path"])
        .arg(shim().join("flight-gen/Cargo.toml"))
        .arg("--target-dir")
        .arg(&target)
        .args(["--", "--check"])
        .env_remove("CARGO_TARGET_DIR")
        .env_remove("RUSTFLAGS");
    if let Some(d) = out_dir {
        cmd.env("ALKAID_FLIGHT_OUT_DIR", d);
    }
    cmd.output().expect("cannot run cargo")
}

fn describe(out: &Output) -> String {
    format!(
        "exit status {:?}\n--- stdout\n{}\n--- stderr\n{}",
        out.status.code(),
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    )
}

#[test]
fn committed_code_is_current_and_a_stale_copy_is_noticed() {
    let out = check(None);
    assert_eq!(out.status.code(), Some(0), "{}", describe(&out));

    let stale = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("flight-gen-stale");
    let _ = std::fs::remove_dir_all(&stale);
    std::fs::create_dir_all(&stale).unwrap();
    let name = "arrow.flight.protocol.rs";
    let mut text = std::fs::read_to_string(shim().join("src/flight/generated").join(name)).unwrap();
    text = text.replacen("data_body", "data_bodie", 1);
    std::fs::write(stale.join(name), text).unwrap();
    let out = check(Some(&stale));
    assert_eq!(out.status.code(), Some(STALE), "{}", describe(&out));
}
