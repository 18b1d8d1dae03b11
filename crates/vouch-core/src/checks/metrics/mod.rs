//! `metrics.*`: every value in `calculated_metrics.csv` against the recomputed truth (contract §2
//! and §7): layout, names and synonyms, one variant and one scale per metric, undefined and
//! not-meaningful cells, missing metrics, years and values.

pub mod layout;

use crate::checks::Context;
use crate::names::{fold, percent_hint};
use crate::numbers::{
    fit_scale, int, judge, parse_number, show_auto, Agreement, Num, Printed, Scale,
};
use crate::recompute::{Cell, MetricTruth};
use crate::report::registry::CheckDef;
use crate::report::{Family, Finding, Location, NumberDetail, Shown};
use crate::spec::{MetricSpec, Spec, Unit};
use layout::{LayoutError, RawSeries};

pub const CHECKS: &[CheckDef] = crate::checks![Family::Metrics;
    "metrics.unreadable", Fail, "calculated_metrics.csv is not UTF-8 text (or holds a NUL byte).";
    "metrics.layout", Fail, "No wide, long or transposed layout could be recognised.";
    "metrics.missing_metric", Fail, "A §2 metric with defined values has no column/row in the file.";
    "metrics.duplicate_metric", Fail, "Two columns or rows (or long-layout rows for one year) hold the same metric.";
    "metrics.extra_metric", Info, "A column or row names no §2 metric (allowed).";
    "metrics.missing_year", Fail, "A source year is absent from the file.";
    "metrics.extra_year", Fail, "The file has a year that is not in the source.";
    "metrics.extra_label", Info, "A row or column label is not a year (e.g. an average); ignored.";
    "metrics.missing_value", Fail, "A cell is blank where the metric is defined (and meaningful).";
    "metrics.non_numeric", Fail, "A value cell is neither a number nor a blank token.";
    "metrics.undefined_value", Fail, "A number is printed where the metric is undefined (first year, missing input, zero denominator).";
    "metrics.value", Fail, "A printed value disagrees with the recomputed value beyond one unit of its last digit (warns between half a unit and one unit).";
    "metrics.mixed_variant", Fail, "Cells of one metric are explained only by different accepted variants.";
    "metrics.mixed_scale", Fail, "Cells of one ratio metric are printed on different scales (fraction vs percent).";
    "metrics.scale_hint", Warn, "A percent hint (header or % signs) contradicts the scale the values fit.";
    "metrics.imprecise", Warn, "A ratio or multiple is printed with fewer significant digits than `metrics_file.min_significant_digits` (3 by default).";
    "metrics.source_value", Fail, "A column named after a source line item prints a value that is not the source's, at any thousands scale (a misstated input).";
    "metrics.not_meaningful", Info, "A not-meaningful cell (negative denominator or base) is blank or holds its arithmetic value.";
];

/// One printed value of a metric in `calculated_metrics.csv`.
#[derive(Clone, Debug)]
pub struct PrintedCell {
    /// Year index into the truth's years.
    pub t: usize,
    pub printed: Printed,
    pub scale: Scale,
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

/// The scale a printed value of a metric is read at: `%` forces percent; otherwise the metric's.
pub fn cell_scale(unit: Unit, p: &Printed, metric_scale: Scale) -> Scale {
    match unit {
        Unit::Ratio | Unit::Points if p.percent => Scale::Hundred,
        Unit::Ratio | Unit::Points => metric_scale,
        Unit::Multiple | Unit::Money => Scale::Fraction,
    }
}

/// The §7 detail of a printed value against a recomputed one, for a finding.
pub fn number_detail(
    x: &Num,
    p: &Printed,
    scale: Scale,
    formula: String,
    variant: &str,
) -> NumberDetail {
    let j = judge(x, p, &scale.factor());
    let places = (p.decimals.max(0) as u32) + 3;
    NumberDetail {
        formula: Some(formula),
        variant: Some(variant.to_string()),
        scale: Some(scale.name().to_string()),
        ..NumberDetail::judged(x, p, &scale.factor(), &j, Shown::Places(places))
    }
}

/// A column that repeats a source line item (`revenue`, `net_income`): each printed value must
/// be the source's, read at one power of a thousand (millions for a source in thousands) and
/// with either sign for a magnitude (capex). Blank cells claim nothing.
fn source_echo(
    ctx: &Context,
    truth: &crate::recompute::Truth,
    s: &RawSeries,
    name: &str,
    out: &mut Vec<Finding>,
) {
    let Some(i) = ctx.stmts.item_named(&fold(&s.label), ctx.spec) else {
        return;
    };
    let item = &ctx.stmts.items[i];
    let magnitude = item.is_magnitude(ctx.spec);
    let scales: [Num; 5] = [
        crate::numbers::one(),
        int(1000),
        int(1_000_000),
        Num::ratio(1, 1000),
        Num::ratio(1, 1_000_000),
    ];
    for c in &s.cells {
        let (Some(y), Some(printed)) = (c.year, parse_number(&c.text)) else {
            continue;
        };
        let Some(t) = truth.year_index(y) else {
            continue;
        };
        let Some(x) = item.value(t) else { continue };
        let signs = if magnitude {
            vec![x.clone(), -x.clone()]
        } else {
            vec![x.clone()]
        };
        let agreements: Vec<Agreement> = scales
            .iter()
            .flat_map(|f| {
                let pr = &printed;
                signs.iter().map(move |v| judge(v, pr, f).agreement)
            })
            .collect();
        if agreements.contains(&Agreement::Pass) || agreements.contains(&Agreement::Warn) {
            continue;
        }
        let j = judge(x, &printed, &crate::numbers::one());
        out.push(
            Finding::fail(
                "metrics.source_value",
                format!(
                    "`{}` {y}: `{}` is not the source's {} ({}) at any thousands scale; a misstated input",
                    s.label,
                    printed.raw,
                    item.name,
                    show_auto(x)
                ),
            )
            .artifact(name)
            .at(Location {
                year: Some(y),
                ..c.location.clone()
            })
            .number(NumberDetail {
                scale: Some("source units".into()),
                ..NumberDetail::judged(x, &printed, &crate::numbers::one(), &j, Shown::Auto)
            }),
        );
    }
}

fn is_ratio(unit: Unit) -> bool {
    matches!(unit, Unit::Ratio | Unit::Points)
}

pub fn check(ctx: &Context, out: &mut Vec<Finding>) -> MetricsReading {
    let spec = ctx.spec;
    let name = spec.artifacts.metrics.as_str();
    let mut reading = MetricsReading {
        metrics: vec![None; spec.metrics.len()],
        ..Default::default()
    };
    let Some(truth) = ctx.truth else {
        return reading;
    };
    let Some(text) = ctx.text(name, "metrics.unreadable", out) else {
        return reading;
    };
    let table = match layout::parse(text, spec) {
        Ok(t) => t,
        Err(LayoutError::Csv(e)) => {
            out.push(Finding::fail("metrics.layout", e).artifact(name));
            return reading;
        }
        Err(LayoutError::Empty) => {
            out.push(Finding::fail("metrics.layout", "the file has no rows").artifact(name));
            return reading;
        }
        Err(LayoutError::Unrecognised(why)) => {
            out.push(Finding::fail("metrics.layout", why).artifact(name));
            return reading;
        }
    };
    reading.readable = true;

    // Years.
    let mut seen_years = Vec::new();
    for yl in &table.year_labels {
        match yl.year {
            None => out.push(
                Finding::info(
                    "metrics.extra_label",
                    format!("label `{}` is not a year; ignored", yl.label),
                )
                .artifact(name)
                .at(yl.location.clone()),
            ),
            Some(y) if truth.year_index(y).is_none() => out.push(
                Finding::fail(
                    "metrics.extra_year",
                    format!(
                        "year {y} is not in the source ({}–{})",
                        truth.years[0],
                        truth.years[truth.years.len() - 1]
                    ),
                )
                .artifact(name)
                .at(yl.location.clone()),
            ),
            Some(y) => {
                if !seen_years.contains(&y) {
                    seen_years.push(y);
                }
            }
        }
    }
    for &y in &truth.years {
        if !seen_years.contains(&y) {
            out.push(
                Finding::fail(
                    "metrics.missing_year",
                    format!(
                        "source year {y} has no {} in the file",
                        match table.layout {
                            layout::Layout::Wide => "row",
                            layout::Layout::Transposed => "column",
                            layout::Layout::Long => "rows",
                        }
                    ),
                )
                .artifact(name)
                .at(Location {
                    year: Some(y),
                    ..Default::default()
                }),
            );
        }
    }
    reading.years = seen_years;

    // Series → metrics.
    // Contract §9: a header names a metric by its id or a synonym, followed only by descriptor
    // tokens; when several columns claim one metric the best-ranked (exact) name wins and the
    // others are extra columns; two of the same rank are duplicates.
    let mut assigned: Vec<Option<(&RawSeries, usize)>> = vec![None; spec.metrics.len()];
    let mut extra: Vec<(&RawSeries, Option<usize>)> = Vec::new();
    for s in &table.series {
        let folded = fold(&s.label);
        match spec.metric_for_header(&folded) {
            None => extra.push((s, None)),
            Some((m, rank)) => match assigned[m] {
                Some((first, r)) if r == rank => out.push(
                    Finding::fail(
                        "metrics.duplicate_metric",
                        format!(
                            "`{}` and `{}` both hold {}; only one is allowed",
                            first.label, s.label, spec.metrics[m].id
                        ),
                    )
                    .artifact(name)
                    .at(s.location.clone()),
                ),
                Some((first, r)) if r < rank => {
                    let _ = first;
                    extra.push((s, Some(m)));
                }
                Some((first, _)) => {
                    extra.push((first, Some(m)));
                    assigned[m] = Some((s, rank));
                }
                None => assigned[m] = Some((s, rank)),
            },
        }
    }
    extra.sort_by_key(|(s, _)| s.location.row.or(s.location.line));
    for (s, _) in extra.iter().filter(|(_, m)| m.is_none()) {
        source_echo(ctx, truth, s, name, out);
    }
    for (s, m) in extra {
        let message = match m {
            None => format!("`{}` is not a §2 metric; ignored", s.label),
            Some(m) => format!(
                "`{}` also names {}, but `{}` is the closer name for it; ignored",
                s.label,
                spec.metrics[m].id,
                assigned[m].map_or("", |(a, _)| a.label.as_str())
            ),
        };
        out.push(
            Finding::info("metrics.extra_metric", message)
                .artifact(name)
                .at(s.location.clone()),
        );
    }
    let assigned: Vec<Option<&RawSeries>> =
        assigned.into_iter().map(|a| a.map(|(s, _)| s)).collect();
    let scope = FileScope {
        spec,
        years: &truth.years,
        long: table.layout == layout::Layout::Long,
        name,
    };
    for (m, metric) in spec.metrics.iter().enumerate() {
        match assigned[m] {
            None => {
                if truth.metrics[m].any_defined() {
                    out.push(
                        Finding::fail(
                            "metrics.missing_metric",
                            format!(
                                "metric `{}` ({}) is missing",
                                metric.id, metric.variants[0].formula
                            ),
                        )
                        .artifact(name),
                    );
                }
            }
            Some(series) => {
                reading.metrics[m] = check_series(&scope, metric, &truth.metrics[m], series, out);
            }
        }
    }
    reading
}

/// A numeric cell of a series, placed at a source year.
struct NumCell<'a> {
    t: usize,
    printed: Printed,
    raw: &'a layout::RawCell,
}

/// What every series of one file shares.
struct FileScope<'a> {
    spec: &'a Spec,
    years: &'a [i32],
    /// Long layout: an absent (year, metric) row counts as a blank cell.
    long: bool,
    name: &'a str,
}

fn check_series(
    scope: &FileScope,
    metric: &MetricSpec,
    truth: &MetricTruth,
    series: &RawSeries,
    out: &mut Vec<Finding>,
) -> Option<MetricUse> {
    let FileScope {
        spec,
        years,
        long,
        name,
    } = *scope;
    let mut nums: Vec<NumCell> = Vec::new();
    let mut present = vec![false; years.len()];
    for raw in &series.cells {
        let Some(t) = raw.year.and_then(|y| years.iter().position(|&sy| sy == y)) else {
            continue;
        };
        if present[t] {
            out.push(
                Finding::fail(
                    "metrics.duplicate_metric",
                    format!("{} has two values for {}", metric.id, years[t]),
                )
                .artifact(name)
                .at(raw.location.clone()),
            );
            continue;
        }
        present[t] = true;
        let cell = truth.canonical(t);
        if spec.is_blank(&raw.text) {
            blank_cell(metric, truth, t, raw, name, out);
            continue;
        }
        let Some(printed) = parse_number(&raw.text) else {
            out.push(
                Finding::fail(
                    "metrics.non_numeric",
                    format!("`{}` is neither a number nor a blank", raw.text),
                )
                .artifact(name)
                .at(raw.location.clone()),
            );
            continue;
        };
        if let Cell::Undefined(why) = cell {
            if truth.cells.iter().all(|v| v[t].value().is_none()) {
                out.push(
                    Finding::fail(
                        "metrics.undefined_value",
                        format!(
                            "{} is undefined in {} ({why}); the cell must be blank, not `{}`",
                            metric.id, years[t], printed.raw
                        ),
                    )
                    .artifact(name)
                    .at(raw.location.clone()),
                );
                continue;
            }
        }
        nums.push(NumCell { t, printed, raw });
    }
    // A year absent from a long layout counts as a blank cell.
    for t in 0..years.len() {
        if long
            && !present[t]
            && series.cells.iter().all(|c| c.year != Some(years[t]))
            && truth.canonical(t).value().is_some()
            && !truth.not_meaningful[t]
        {
            out.push(
                Finding::fail(
                    "metrics.missing_value",
                    format!("{} has no value for {}", metric.id, years[t]),
                )
                .artifact(name)
                .at(Location {
                    year: Some(years[t]),
                    ..series.location.clone()
                }),
            );
        }
    }

    // Scale by fit over the canonical (or first defined) values.
    let reference = |t: usize| truth.cells.iter().find_map(|v| v[t].value());
    let pairs: Vec<(&Num, &Printed)> = nums
        .iter()
        .filter_map(|c| reference(c.t).map(|x| (x, &c.printed)))
        .collect();
    let scale = if is_ratio(metric.unit) {
        let choice = fit_scale(pairs.iter().copied(), percent_hint(&series.label));
        if choice.hint_contradicted {
            out.push(
                Finding::warn(
                    "metrics.scale_hint",
                    format!(
                        "`{}` hints at percents but its values fit the {} scale",
                        series.label,
                        choice.scale.name()
                    ),
                )
                .artifact(name)
                .at(series.location.clone()),
            );
        }
        choice.scale
    } else {
        Scale::Fraction
    };

    // Variant by majority: the variant explaining (k <= 1) the most cells; ties → earlier.
    let explains = |v: usize, c: &NumCell| -> Option<Agreement> {
        let x = truth.cells[v][c.t].value()?;
        Some(
            judge(
                x,
                &c.printed,
                &cell_scale(metric.unit, &c.printed, scale).factor(),
            )
            .agreement,
        )
    };
    let votes: Vec<usize> = (0..truth.cells.len())
        .map(|v| {
            nums.iter()
                .filter(|c| !(metric.not_meaningful_any_variant && truth.not_meaningful[c.t]))
                .filter(|c| explains(v, c).is_some_and(|a| a <= Agreement::Warn))
                .count()
        })
        .collect();
    let variant = (0..votes.len()).fold(0, |best, v| if votes[v] > votes[best] { v } else { best });
    let vname = &metric.variants[variant].name;

    let mut cells = Vec::new();
    for c in &nums {
        let cs = cell_scale(metric.unit, &c.printed, scale);
        let nm = truth.not_meaningful[c.t];
        let candidates: Vec<usize> = if nm && metric.not_meaningful_any_variant {
            (0..truth.cells.len()).collect()
        } else {
            vec![variant]
        };
        let best = candidates
            .iter()
            .filter_map(|&v| explains(v, c).map(|a| (a, v)))
            .min();
        let loc = c.raw.location.clone();
        cells.push(PrintedCell {
            t: c.t,
            printed: c.printed.clone(),
            scale: cs,
            location: loc.clone(),
        });
        let shown_v = best.map_or(variant, |(_, v)| v);
        let Some(x) = truth.cells[shown_v][c.t].value() else {
            // The chosen variant is undefined here but another is not: a different variant.
            out.push(
                Finding::fail(
                    "metrics.mixed_variant",
                    format!("{} in {}: `{}` uses a variant other than `{vname}` used by the other cells", metric.id, years[c.t], c.printed.raw),
                )
                .artifact(name)
                .at(loc),
            );
            continue;
        };
        // Only findings carry the detail: build it lazily, not for every passing cell.
        let detail = || {
            number_detail(
                x,
                &c.printed,
                cs,
                metric.variants[shown_v].formula.to_string(),
                &metric.variants[shown_v].name,
            )
        };
        match best.map(|(a, _)| a) {
            Some(Agreement::Pass) => {
                if nm {
                    out.push(
                        Finding::info(
                            "metrics.not_meaningful",
                            format!("{} in {} is not meaningful (negative denominator or base); its arithmetic value is accepted", metric.id, years[c.t]),
                        )
                        .artifact(name)
                        .at(loc.clone())
                        .number(detail()),
                    );
                }
            }
            Some(Agreement::Warn) => out.push(
                Finding::warn(
                    "metrics.value",
                    format!("{} in {}: `{}` is off by more than half a unit of its last digit (truncated or double-rounded?)", metric.id, years[c.t], c.printed.raw),
                )
                .artifact(name)
                .at(loc.clone())
                .number(detail()),
            ),
            _ => {
                let other_variant = (0..truth.cells.len())
                    .filter(|&v| v != variant)
                    .find(|&v| explains(v, c).is_some_and(|a| a <= Agreement::Warn));
                let other_scale = match cs {
                    Scale::Fraction => Scale::Hundred,
                    Scale::Hundred => Scale::Fraction,
                };
                let fits_other_scale = is_ratio(metric.unit)
                    && !c.printed.percent
                    && judge(x, &c.printed, &other_scale.factor()).agreement <= Agreement::Warn;
                let f = if let Some(ov) = other_variant {
                    Finding::fail(
                        "metrics.mixed_variant",
                        format!(
                            "{} in {}: `{}` matches variant `{}` ({}) but the metric's other cells use `{vname}`",
                            metric.id, years[c.t], c.printed.raw, metric.variants[ov].name, metric.variants[ov].formula
                        ),
                    )
                } else if fits_other_scale {
                    Finding::fail(
                        "metrics.mixed_scale",
                        format!(
                            "{} in {}: `{}` is on the {} scale but the metric's other cells are on the {} scale",
                            metric.id, years[c.t], c.printed.raw, other_scale.name(), cs.name()
                        ),
                    )
                } else {
                    Finding::fail(
                        "metrics.value",
                        format!("{} in {}: `{}` does not match the recomputed value", metric.id, years[c.t], c.printed.raw),
                    )
                };
                out.push(f.artifact(name).at(loc.clone()).number(detail()));
            }
        }
        if matches!(metric.unit, Unit::Ratio | Unit::Multiple | Unit::Points)
            && c.printed.significant < spec.metrics_file.min_significant_digits
            && !num_traits::Zero::is_zero(&c.printed.value)
        {
            out.push(
                Finding::warn(
                    "metrics.imprecise",
                    format!(
                        "{} in {}: `{}` has {} significant digit(s); print at least {}",
                        metric.id,
                        years[c.t],
                        c.printed.raw,
                        c.printed.significant,
                        spec.metrics_file.min_significant_digits
                    ),
                )
                .artifact(name)
                .at(loc),
            );
        }
    }
    Some(MetricUse {
        variant,
        scale,
        cells,
    })
}

fn blank_cell(
    metric: &MetricSpec,
    truth: &MetricTruth,
    t: usize,
    raw: &layout::RawCell,
    name: &str,
    out: &mut Vec<Finding>,
) {
    let Some(x) = truth.canonical(t).value() else {
        return;
    };
    if truth.not_meaningful[t] {
        out.push(
            Finding::info(
                "metrics.not_meaningful",
                format!(
                    "{} in {} is not meaningful (negative denominator or base); left blank",
                    metric.id,
                    raw.year.unwrap_or(0)
                ),
            )
            .artifact(name)
            .at(raw.location.clone()),
        );
        return;
    }
    out.push(
        Finding::fail(
            "metrics.missing_value",
            format!(
                "{} in {} is blank but defined",
                metric.id,
                raw.year.unwrap_or(0)
            ),
        )
        .artifact(name)
        .at(raw.location.clone())
        .number(NumberDetail {
            printed: raw.text.clone(),
            recomputed: Some(crate::numbers::show_auto(x)),
            formula: Some(metric.variants[0].formula.to_string()),
            variant: Some(metric.variants[0].name.clone()),
            ..Default::default()
        }),
    );
}
