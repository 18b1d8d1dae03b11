//! `vouch audit`: verify many runs and bare bundles (directories and archives) in parallel,
//! recomputing each distinct source once, with a content-addressed verdict cache, and produce
//! one results row per (run, check).

pub mod results;

pub use results::{CheckRow, RunResult, RunVerdict};
