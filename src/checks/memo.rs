//! `memo.*`: not yet implemented (in progress).

use crate::checks::metrics::MetricsReading;
use crate::checks::Context;
use crate::numbers::{Printed, Scale};
use crate::report::registry::CheckDef;
use crate::report::{Finding, Location};

pub const CHECKS: &[CheckDef] = &[];

/// A value printed in the memo's KPI table, matched to a metric.
#[derive(Clone, Debug)]
pub struct KpiCell {
    /// Spec metric index.
    pub metric: usize,
    /// Year index into the truth's years.
    pub t: usize,
    pub printed: Printed,
    /// The scale the value was read at.
    pub scale: Scale,
    pub location: Location,
}

#[derive(Clone, Debug, Default)]
pub struct MemoReading {
    pub kpi: Vec<KpiCell>,
}

pub fn check(_ctx: &Context, _metrics: &MetricsReading, _out: &mut Vec<Finding>) -> MemoReading {
    MemoReading::default()
}
