//! vouch-core: independently verify what an AI financial-analyst agent produced — the verifier
//! itself, with no async runtime, HTTP or dataframe library (the Python binding and every
//! front end build on it).
//!
//! The pipeline runs one way: load (`bundle`, `source`) → recompute (`recompute`, the truth) →
//! check (`checks::<family>`) → report (`report`). The contract lives in `spec` as data.

pub mod bundle;
pub mod checks;
pub mod names;
pub mod numbers;
pub mod read;
pub mod recompute;
pub mod report;
pub mod source;
pub mod spec;
pub mod verify;

pub use report::{Finding, Report, Status, Verdict};
pub use spec::Spec;
