//! `consistency.*`: the artifacts must agree with each other, not only with the truth. The same
//! metric and year printed in the metrics file and the memo's KPI table must have overlapping
//! intervals; a metric-based change in the movements file must be reachable from the metrics
//! file's own printed values (interval arithmetic over the rule's formula); the metrics file's
//! years must equal the manifest's `year_range`.

use crate::checks::manifest::ManifestReading;
use crate::checks::memo::MemoReading;
use crate::checks::metrics::MetricsReading;
use crate::checks::movements::MovementsReading;
use crate::checks::Context;
use crate::numbers::{Interval, Printed, Scale};
use crate::recompute::{Basis, ItemRef};
use crate::report::registry::CheckDef;
use crate::report::CheckId;
use crate::report::{Family, Finding, Location, NumberDetail};
use crate::spec::formula::{IntervalEnv, Ref};

pub const CHECKS: &[CheckDef] = crate::checks![Family::Consistency;
    CheckId::ConsistencyKpiVsMetrics, Fail, "A metric and year printed in the memo's KPI table and in calculated_metrics.csv have disjoint intervals.",
        why: "The memo's KPI table and `calculated_metrics.csv` print the same metric and year with intervals that do not overlap, so the two artifacts tell different stories and at least one is wrong.",
        fix: "Fill the KPI table from the same computed values the script writes to `calculated_metrics.csv`, in the same run, rounding each from the same number.";
    CheckId::ConsistencyMovementsVsMetrics, Fail, "A metric-based change in unusual_movements.csv cannot be obtained from the values calculated_metrics.csv prints.",
        why: "A metric-based change in `unusual_movements.csv` cannot be obtained from the values `calculated_metrics.csv` prints, so the flag and the table disagree about how much the metric moved.",
        fix: "Compute each metric flag's change from the same metric values the script writes to `calculated_metrics.csv` (e.g. margin move = margin minus prior margin), in the same run.";
    CheckId::ConsistencyYearRange, Fail, "The years in calculated_metrics.csv differ from the manifest's year_range.",
        why: "The source years printed in `calculated_metrics.csv` differ from the manifest's `year_range`, so the manifest misstates the period the table covers, or the table omits years.",
        fix: "Write every source year to `calculated_metrics.csv` and set `year_range` from the same years the script read.";
];

/// A printed value's interval in base units (fractions for ratios).
fn base_interval(p: &Printed, scale: Scale) -> Interval {
    p.scaled(&(crate::numbers::one() / scale.factor()))
}

/// The metrics file's printed intervals, by metric and year.
struct MetricsIntervals<'a> {
    metrics: &'a MetricsReading,
    item: Option<usize>,
}

impl MetricsIntervals<'_> {
    fn metric(&self, m: usize, t: usize) -> Option<Interval> {
        let u = self.metrics.metrics.get(m)?.as_ref()?;
        let c = u.cells.iter().find(|c| c.t == t)?;
        Some(base_interval(&c.printed, c.scale))
    }
}

impl IntervalEnv for MetricsIntervals<'_> {
    fn interval(&self, r: Ref, t: usize) -> Option<Interval> {
        match r {
            Ref::Metric(m) => self.metric(m, t),
            Ref::Item => self.metric(self.item?, t),
            Ref::Column(_) => None,
        }
    }
}

fn show_iv(i: &Interval) -> String {
    i.to_string()
}

pub fn check(
    ctx: &Context,
    metrics: &MetricsReading,
    movements: &MovementsReading,
    memo: &MemoReading,
    manifest: &ManifestReading,
    out: &mut Vec<Finding>,
) {
    let spec = ctx.spec;
    let Some(truth) = ctx.truth else { return };
    let env = MetricsIntervals {
        metrics,
        item: None,
    };

    for k in &memo.kpi {
        let Some(file_iv) = env.metric(k.metric, k.t) else {
            continue;
        };
        let memo_iv = base_interval(&k.printed, k.scale);
        if !memo_iv.overlaps(&file_iv) {
            let m = &spec.metrics[k.metric];
            let cell = metrics.metrics[k.metric]
                .as_ref()
                .and_then(|u| u.cells.iter().find(|c| c.t == k.t));
            out.push(
                Finding::fail(
                    CheckId::ConsistencyKpiVsMetrics,
                    format!(
                        "{} {}: the memo's KPI table prints `{}` but {} prints `{}`; their intervals {} and {} do not overlap",
                        m.id,
                        truth.years[k.t],
                        k.printed.raw,
                        spec.artifacts.metrics,
                        cell.map_or("?", |c| c.printed.raw.as_str()),
                        show_iv(&memo_iv),
                        show_iv(&file_iv)
                    ),
                )
                .artifact(spec.artifacts.memo.clone())
                .at(Location { year: Some(truth.years[k.t]), ..k.location.clone() })
                .number(NumberDetail {
                    printed: k.printed.raw.clone(),
                    interval: Some(show_iv(&memo_iv)),
                    recomputed: cell.map(|c| c.printed.raw.clone()),
                    ..Default::default()
                }),
            );
        }
    }

    for c in movements.changes.iter().filter(|c| !c.other_reading) {
        let ItemRef::Metric(m) = c.flag.item else {
            continue;
        };
        let formula = match c.flag.basis {
            Basis::Rule(r) => &spec.movements.rules[r].change,
            Basis::MetricGrowth { .. } => &spec.movements.extra_growth_change,
        };
        let env = MetricsIntervals {
            metrics,
            item: Some(m),
        };
        let Some(from_file) = formula.eval_interval(&env, c.t) else {
            continue;
        };
        let printed = base_interval(&c.printed, c.scale);
        if !printed.overlaps(&from_file) {
            out.push(
                Finding::fail(
                    CheckId::ConsistencyMovementsVsMetrics,
                    format!(
                        "{} {}: change `{}` {} cannot come from the metrics file's printed values, which give {} = {}",
                        spec.metrics[m].id,
                        truth.years[c.t],
                        c.printed.raw,
                        show_iv(&printed),
                        formula,
                        show_iv(&from_file)
                    ),
                )
                .artifact(spec.artifacts.movements.clone())
                .at(c.location.clone())
                .number(NumberDetail {
                    printed: c.printed.raw.clone(),
                    interval: Some(show_iv(&printed)),
                    formula: Some(formula.to_string()),
                    ..Default::default()
                }),
            );
        }
    }

    if let (Some((first, last)), true) = (manifest.year_range, metrics.readable) {
        let mut years = metrics.years.clone();
        years.sort_unstable();
        let expected: Vec<i32> = (first..=last).collect();
        if years != expected {
            out.push(
                Finding::fail(
                    CheckId::ConsistencyYearRange,
                    format!(
                        "{} prints years {} but {} claims year_range {first}–{last}",
                        spec.artifacts.metrics,
                        years
                            .iter()
                            .map(i32::to_string)
                            .collect::<Vec<_>>()
                            .join(", "),
                        spec.artifacts.manifest
                    ),
                )
                .artifact(spec.artifacts.metrics.clone()),
            );
        }
    }
}
