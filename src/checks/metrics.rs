//! `metrics.*`: in progress.

use crate::checks::Context;
use crate::numbers::{Printed, Scale};
use crate::report::registry::CheckDef;
use crate::report::{Family, Finding, Location};

pub const CHECKS: &[CheckDef] = crate::checks![Family::Metrics;
];

/// One printed value of a metric in `calculated_metrics.csv`.
#[derive(Clone, Debug)]
pub struct PrintedCell {
    /// Year index into the truth's years.
    pub t: usize,
    pub printed: Printed,
    pub location: Location,
}

/// How the metrics file printed one metric.
#[derive(Clone, Debug)]
pub struct MetricUse {
    /// Index of the variant that explains the metric's cells (0 = canonical).
    pub variant: usize,
    pub scale: Scale,
    pub cells: Vec<PrintedCell>,
}

/// What the metrics file said, for later families (movements, memo, consistency).
#[derive(Clone, Debug, Default)]
pub struct MetricsReading {
    /// Per spec metric; `None` when the metric is absent or the file could not be read.
    pub metrics: Vec<Option<MetricUse>>,
    /// The years the file printed (valid year labels), in file order.
    pub years: Vec<i32>,
    pub readable: bool,
}

impl MetricsReading {
    /// The variant the file uses for metric `m` (canonical when unknown).
    pub fn variant(&self, m: usize) -> usize {
        self.metrics
            .get(m)
            .and_then(|u| u.as_ref())
            .map_or(0, |u| u.variant)
    }
}

pub fn check(_ctx: &Context, _out: &mut Vec<Finding>) -> MetricsReading {
    MetricsReading::default()
}
