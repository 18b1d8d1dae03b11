//! vouch: independently verify what an AI financial-analyst agent produced.
//!
//! The pipeline runs one way: load (`bundle`, `source`) → recompute (`recompute`, the truth) →
//! check (`checks::<family>`) → report (`report`). The contract lives in `spec` as data.

pub mod audit;
pub mod bundle;
pub mod checks;
pub mod compare;
pub mod csvtable;
pub mod emulator;
pub mod names;
pub mod numbers;
pub mod recompute;
pub mod reexecute;
pub mod report;
pub mod run;
pub mod sandbox;
pub mod source;
pub mod spec;
pub mod testdata;
pub mod verify;

pub use report::{Finding, Report, Status, Verdict};
pub use spec::Spec;
