//! The subcommands, one module each (the clap definitions of their flags beside the code that
//! runs them), and what they share: the output discipline and the spec.

pub mod audit;
pub mod compare;
pub mod output;
pub mod run;
pub mod verify;

use anyhow::Result;
use std::path::PathBuf;
use vouch::Spec;

/// `--spec FILE` or the embedded contract (one implementation with the Python package's).
pub fn load_spec(path: Option<&PathBuf>) -> Result<Spec> {
    vouch::target::load_spec(path.map(PathBuf::as_path)).map_err(anyhow::Error::msg)
}
