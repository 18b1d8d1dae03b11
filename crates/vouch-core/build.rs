//! Converts the embedded default spec (`verifiers/financial-analyst.toml`, the source of truth)
//! to JSON at build time. Every `vouch` process compiles the spec at start-up, and deserialising
//! JSON costs a fraction of parsing TOML (measured in docs/performance.md); the TOML stays the
//! only file anyone edits. A spec that is not valid TOML yields an empty file, and the runtime
//! then parses the TOML itself, reporting the error as before.

use std::path::PathBuf;

fn main() {
    let spec = "../../verifiers/financial-analyst.toml";
    println!("cargo:rerun-if-changed={spec}");
    println!("cargo:rerun-if-changed=build.rs");
    let text = std::fs::read_to_string(spec).expect("verifiers/financial-analyst.toml is readable");
    let json = text
        .parse::<toml::Table>()
        .ok()
        .and_then(|table| serde_json::to_string(&table).ok())
        .unwrap_or_default();
    let out = PathBuf::from(std::env::var_os("OUT_DIR").expect("cargo sets OUT_DIR"));
    std::fs::write(out.join("financial-analyst.json"), json).expect("OUT_DIR is writable");
}
