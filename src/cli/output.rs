//! Where reports go and how they look: `--color`, `--quiet`, `-o`.

use anyhow::{Context as _, Result};
use clap::ValueEnum;
use std::io::Write;
use std::path::PathBuf;

#[derive(Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum ColorWhen {
    Auto,
    Always,
    Never,
}

pub static COLOR: std::sync::OnceLock<ColorWhen> = std::sync::OnceLock::new();

/// Whether output to a stream (a terminal or not) is coloured: `--color always|never` decide;
/// with `auto`, a non-empty NO_COLOR turns colour off, a CLICOLOR_FORCE other than `0` turns it
/// on, CLICOLOR=0 off, and otherwise a terminal is coloured (docs/decisions.md).
pub fn color_for(terminal: bool) -> bool {
    let set = |k: &str| std::env::var_os(k).filter(|v| !v.is_empty());
    match COLOR.get().copied().unwrap_or(ColorWhen::Auto) {
        ColorWhen::Always => true,
        ColorWhen::Never => false,
        ColorWhen::Auto => {
            if set("NO_COLOR").is_some() {
                false
            } else if set("CLICOLOR_FORCE").is_some_and(|v| v != "0") {
                true
            } else if set("CLICOLOR").is_some_and(|v| v == "0") {
                false
            } else {
                terminal
            }
        }
    }
}

pub static QUIET: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);

/// Writes a report: to `output` when given, else to standard output unless --quiet.
pub fn emit(text: &str, output: Option<&PathBuf>) -> Result<()> {
    match output {
        Some(path) => {
            std::fs::write(path, text).with_context(|| format!("cannot write `{}`", path.display()))
        }
        None => {
            if !QUIET.load(std::sync::atomic::Ordering::Relaxed) {
                // A closed pipe (e.g. `| head`) is not an error worth a panic.
                let _ = std::io::stdout().lock().write_all(text.as_bytes());
            }
            Ok(())
        }
    }
}
