//! `manifest.*`: in progress.

use crate::checks::Context;
use crate::report::registry::CheckDef;
use crate::report::{Family, Finding};

pub const CHECKS: &[CheckDef] = crate::checks![Family::Manifest;
];

/// What the manifest claimed, for the consistency checks.
#[derive(Clone, Debug, Default)]
pub struct ManifestReading {
    /// `(first, last)` of `year_range`, when it parsed.
    pub year_range: Option<(i32, i32)>,
}

pub fn check(_ctx: &Context, _out: &mut Vec<Finding>) -> ManifestReading {
    ManifestReading::default()
}
