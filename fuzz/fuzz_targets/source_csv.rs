//! The source CSV: read, recomputed, and the Northstar bundle verified against it.
#![no_main]
libfuzzer_sys::fuzz_target!(|data: &[u8]| vouch_fuzz::verify_source(data));
