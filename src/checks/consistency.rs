//! `consistency.*`: not yet implemented (in progress).

use crate::checks::manifest::ManifestReading;
use crate::checks::memo::MemoReading;
use crate::checks::metrics::MetricsReading;
use crate::checks::Context;
use crate::report::registry::CheckDef;
use crate::report::Finding;

pub const CHECKS: &[CheckDef] = &[];

pub fn check(
    _ctx: &Context,
    _metrics: &MetricsReading,
    _memo: &MemoReading,
    _manifest: &ManifestReading,
    _out: &mut Vec<Finding>,
) {
}
