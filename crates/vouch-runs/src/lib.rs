//! vouch-runs: verifying many runs and comparing sets of them.
//!
//! `audit` finds runs (directories, archives), verifies each with `vouch_core::verify` in
//! parallel (each distinct source recomputed once, verdicts cached by content) and summarises;
//! `compare` tests whether a candidate set is worse than a baseline; `testdata` generates seeded
//! runs for the benchmarks and tests; `target` decides what `vouch verify` (the CLI and the Python
//! package) is pointed at.

pub mod audit;
pub mod compare;
pub mod plot;
pub mod target;
pub mod testdata;
