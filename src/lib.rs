//! vouch: independently verify what an AI financial-analyst agent produced.
//!
//! This crate is the `vouch` command; its library re-exports the workspace's crates under one
//! name for the tests, benches and examples: `vouch-core` (the verifier: spec, readers, truth,
//! checks, report), `vouch-runs` (audit, compare, seeded runs) and `vouch-agent` (run client,
//! emulator, sandbox, re-execution). docs/architecture.md has the map.

pub use vouch_agent::{emulator, reexecute, run, sandbox};
pub use vouch_core::{
    bundle, checks, names, numbers, read, recompute, report, source, spec, verify, Finding, Report,
    Spec, Status, Verdict,
};
pub use vouch_runs::{audit, compare, target, testdata};
