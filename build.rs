//! The `vouch` binary's link step: packed relative relocations make the executable smaller and
//! its start faster (docs/performance.md). The embedded spec is vouch-core's build script.

fn main() {
    println!("cargo:rerun-if-changed=build.rs");
    println!("cargo:rustc-link-arg-bins=-Wl,-z,pack-relative-relocs");
}
