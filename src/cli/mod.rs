//! The subcommands, one module each (the clap definitions of their flags beside the code that
//! runs them), and what they share: the output discipline and the spec.

pub mod audit;
pub mod compare;
pub mod output;
pub mod run;
pub mod verify;

use anyhow::{Context as _, Result};
use std::path::PathBuf;
use vouch::Spec;

pub fn load_spec(path: Option<&PathBuf>) -> Result<Spec> {
    match path {
        None => Ok(Spec::default_spec()),
        Some(p) => {
            let text = std::fs::read_to_string(p)
                .with_context(|| format!("cannot read spec `{}`", p.display()))?;
            Spec::parse(&text).with_context(|| format!("invalid spec `{}`", p.display()))
        }
    }
}
