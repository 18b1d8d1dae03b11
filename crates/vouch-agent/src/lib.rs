//! vouch-agent: vouch driving the agent.
//!
//! `run` is the client of `vouch run` (upload, container, model turns, download, clean-up, run
//! directories); `emulator` serves the same API locally with a scripted agent; `sandbox` is the
//! bubblewrap jail both the emulator and `reexecute` (re-running a bundle's script) use.

pub mod emulator;
pub mod reexecute;
pub mod run;
pub mod sandbox;
