//! `vouch audit`'s archive reader, as a zip and as a tar.gz, under the default limits.
#![no_main]
use vouch_runs::audit::archive::{self, ArchiveLimits};

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    let limits = ArchiveLimits::new(vouch_fuzz::spec().limits.max_artifact_bytes);
    let _ = archive::read("input.zip", data, limits);
    let _ = archive::read("input.tar.gz", data, limits);
});
