//! `calculated_metrics.csv`: the Northstar bundle with this artifact replaced by the fuzzer's bytes.
#![no_main]
libfuzzer_sys::fuzz_target!(|data: &[u8]| vouch_fuzz::verify_with("calculated_metrics.csv", data));
