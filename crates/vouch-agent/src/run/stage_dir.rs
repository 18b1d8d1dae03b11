//! A private scratch directory under the system's temporary directory, removed when dropped
//! (also when the trial is cut short or interrupted).

use std::path::{Path, PathBuf};

pub struct ScratchDir(PathBuf);

impl ScratchDir {
    /// A new empty directory `vouch-local-<16 hex>`; never an existing one.
    pub fn new() -> std::io::Result<ScratchDir> {
        let path = std::env::temp_dir().join(format!("vouch-local-{}", super::random_hex(16)));
        std::fs::create_dir(&path)?;
        Ok(ScratchDir(path))
    }

    pub fn path(&self) -> &Path {
        &self.0
    }
}

impl Drop for ScratchDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}
