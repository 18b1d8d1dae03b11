//! `vouch audit`: verify many runs and bare bundles (directories and archives) in parallel,
//! recomputing each distinct source once, with a content-addressed verdict cache behind a stat
//! index (a re-audit of unchanged runs reads no artifact), and produce one results row per
//! (run, check).

pub mod archive;
pub mod cache;
pub mod ci;
pub mod dedup;
pub mod discover;
pub mod html;
pub mod index;
pub mod output;
pub mod repair;
pub mod results;
pub mod runner;
pub mod summary;
#[cfg(feature = "tables")]
pub mod table;

pub use results::{CheckOutcome, CheckRow, RunResult, RunVerdict};
