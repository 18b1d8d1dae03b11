//! `movements.*`: in progress.

use crate::checks::metrics::MetricsReading;
use crate::checks::Context;
use crate::report::registry::CheckDef;
use crate::report::{Family, Finding};

pub const CHECKS: &[CheckDef] = crate::checks![Family::Movements;
];

pub fn check(_ctx: &Context, _metrics: &MetricsReading, _out: &mut Vec<Finding>) {}
