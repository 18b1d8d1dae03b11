//! `metrics.*`: every value in `calculated_metrics.csv` against the recomputed truth (contract §2
//! and §7): layout, names and synonyms, one variant and one scale per metric, undefined and
//! not-meaningful cells, missing metrics, years and values.

use crate::report::CheckId;
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
    CheckId::MetricsUnreadable, Fail, "calculated_metrics.csv is not UTF-8 text (or holds a NUL byte).",
        why: "`calculated_metrics.csv` is not UTF-8 text (or holds a NUL byte), so no metric in it was checked, and the memo and movements that quote it have no verified table behind them.",
        fix: "Have the script write the file as UTF-8 text, e.g. `open(path, 'w', encoding='utf-8', newline='')` with the `csv` module, and nothing binary.";
    CheckId::MetricsLayout, Fail, "No wide, long or transposed layout could be recognised.",
        why: "When the file is not CSV, is empty, or has no recognisable wide, long or transposed layout, no metric value can be located, so the whole table goes unchecked.",
        fix: "Write a `year` column plus a column per metric (wide), or year, metric and value columns named as in `metrics_file.long_year_columns`, `metrics_file.long_metric_columns` and `metrics_file.long_value_columns`, or a row per metric under year headers.";
    CheckId::MetricsMissingMetric, Fail, "A §2 metric with defined values has no column/row in the file.",
        why: "A contract metric with defined values is absent from `calculated_metrics.csv`, so a reader lacks it and memo claims about it have no table to trace to.",
        fix: "Add a column or row for it, computed with the formula in the finding and named by its id or a synonym from the spec's `[[metrics]]` (words in `metrics_file.header_descriptors` may follow).";
    CheckId::MetricsDuplicateMetric, Fail, "Two columns or rows (or long-layout rows for one year) hold the same metric.",
        why: "Two equally good names for one metric, or two values for one year, make the table say two things about the same figure; vouch judges only the first and a reader cannot tell which is meant.",
        fix: "Keep one column or row per metric and one value per metric and year: drop the duplicate header, repeated year row or repeated long-layout row.";
    CheckId::MetricsExtraMetric, Info, "A column or row names no §2 metric (allowed).",
        why: "Reported so the reader knows this column or row is not a contract metric (or is a less exact second name for one) and its values were not checked against the source.",
        fix: "Nothing to fix: extra columns are allowed. Rename it to a metric id or synonym if it was meant to be one, or remove a redundant second copy.";
    CheckId::MetricsMissingYear, Fail, "A source year is absent from the file.",
        why: "A source year absent from `calculated_metrics.csv` hides that year's metrics from the reader and anything quoting the table, and makes the table's years disagree with the source.",
        fix: "Write a row (wide), column (transposed) or rows (long) for every source year; leave undefined first-year cells blank instead of dropping the year.";
    CheckId::MetricsExtraYear, Fail, "The file has a year that is not in the source.",
        why: "A year the source does not contain has no data behind it, so its figures are invented or come from another source, yet a reader would take them as computed.",
        fix: "Remove that year from `calculated_metrics.csv`; print only years present in the source CSV.";
    CheckId::MetricsExtraLabel, Info, "A row or column label is not a year (e.g. an average); ignored.",
        why: "Reported because a row or column label is not a year (e.g. `Average`); vouch ignores it, so its values are not checked and should not be read as verified.",
        fix: "Nothing to fix: summary rows or columns are allowed. Move them out if the table should hold years only.";
    CheckId::MetricsMissingValue, Fail, "A cell is blank where the metric is defined (and meaningful).",
        why: "A blank cell where the metric is defined and meaningful withholds a figure the reader needs, and may hide a value the script failed to compute.",
        fix: "Fill the cell with the metric computed by the formula in the finding; leave cells blank only where the metric is undefined or not meaningful.";
    CheckId::MetricsNonNumeric, Fail, "A value cell is neither a number nor a blank token.",
        why: "A cell that is neither a number nor a blank token (e.g. `high`) cannot be checked or reused, and the reader gets words where a figure belongs.",
        fix: "Print a number (`0.4521`, `45.21%`, `1.53x`) or a blank token from `names.blanks` (empty, `n/a`, `nm`) in that cell.";
    CheckId::MetricsUndefinedValue, Fail, "A number is printed where the metric is undefined (first year, missing input, zero denominator).",
        why: "A number where the metric is undefined (first year of a growth or average-based metric, missing input, zero denominator) is made up, yet a reader would trust it as computed from the source.",
        fix: "Leave the cell blank (or a token from `names.blanks`) where every formula variant is undefined; never fill the first year with 0 or a guess.";
    CheckId::MetricsValue, Fail, "A printed value disagrees with the recomputed value beyond one unit of its last digit (warns between half a unit and one unit).",
        why: "A value more than one unit of its last digit from the recomputed one misstates that metric for that year, and the memo, chart or any reader of the table inherits the error; within one unit it only warns.",
        fix: "Recompute with the formula shown in the finding from the source values, in decimal arithmetic, and round to the nearest last digit rather than truncating.";
    CheckId::MetricsMixedVariant, Fail, "Cells of one metric are explained only by different accepted variants.",
        why: "Cells of one metric explained only by different accepted formulas (e.g. two quick-ratio definitions) make the series inconsistent, so a year-to-year change may come from the switch of formula.",
        fix: "Compute every year of the metric with the same variant: the one the finding says the other cells use (or switch them all).";
    CheckId::MetricsMixedScale, Fail, "Cells of one ratio metric are printed on different scales (fraction vs percent).",
        why: "Fractions and percents mixed in one ratio metric (`0.72` next to `72.19`) make some years look 100 times larger than others, misleading anyone comparing years.",
        fix: "Print every cell of the metric on one scale: all fractions (`0.7219`) or all percents (`72.19` or `72.19%`).";
    CheckId::MetricsScaleHint, Warn, "A percent hint (header or % signs) contradicts the scale the values fit.",
        why: "A header or `%` hint says percent while the values fit fractions (or the reverse), so a reader may misread the ratio by a factor of 100.",
        fix: "Make the header agree with the values: drop `%`, `pct` or `percent` from the header when printing fractions, or print percents under it.";
    CheckId::MetricsImprecise, Warn, "A ratio or multiple is printed with fewer significant digits than `metrics_file.min_significant_digits` (3 by default).",
        why: "A ratio or multiple with fewer significant digits than `metrics_file.min_significant_digits` (e.g. `0.72`) stands for a wide interval, hiding real year-to-year differences and letting a wrong value pass.",
        fix: "Print ratios and multiples with at least `metrics_file.min_significant_digits` significant digits, e.g. `0.7219` or `72.19%` rather than `0.72`.";
    CheckId::MetricsSourceValue, Fail, "A column named after a source line item prints a value that is not the source's, at any thousands scale (a misstated input).",
        why: "A column named after a source line item (e.g. `revenue`) whose value matches the source at no thousands scale misstates an input, and a reader would take it as the company's reported figure.",
        fix: "Copy the line item's values from the source CSV unchanged (one consistent scale such as thousands is accepted), or rename the column if it holds something else.";
    CheckId::MetricsNotMeaningful, Info, "A not-meaningful cell (negative denominator or base) is blank or holds its arithmetic value.",
        why: "Reported because the metric's denominator or base is negative that year (negative equity, a net loss, a negative prior value), so the ratio is not meaningful; a blank or its arithmetic value are both accepted.",
        fix: "Nothing to fix. Consider leaving such cells blank and saying in the memo why the ratio is not meaningful for that year.";
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
    /// The folded labels of its columns or rows that name no §2 metric (its own extra
    /// quantities, `capex_to_revenue_pct`), for the movements rows that flag them.
    pub extra_labels: Vec<String>,
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
                CheckId::MetricsSourceValue,
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
    let Some(text) = ctx.text(name, CheckId::MetricsUnreadable, out) else {
        return reading;
    };
    let table = match layout::parse(text, spec) {
        Ok(t) => t,
        Err(LayoutError::Csv(e)) => {
            out.push(Finding::fail(CheckId::MetricsLayout, e).artifact(name));
            return reading;
        }
        Err(LayoutError::Empty) => {
            out.push(Finding::fail(CheckId::MetricsLayout, "the file has no rows").artifact(name));
            return reading;
        }
        Err(LayoutError::Unrecognised(why)) => {
            out.push(Finding::fail(CheckId::MetricsLayout, why).artifact(name));
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
                    CheckId::MetricsExtraLabel,
                    format!("label `{}` is not a year; ignored", yl.label),
                )
                .artifact(name)
                .at(yl.location.clone()),
            ),
            Some(y) if truth.year_index(y).is_none() => out.push(
                Finding::fail(
                    CheckId::MetricsExtraYear,
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
                    CheckId::MetricsMissingYear,
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
        // A header written as its formula (`Total liabilities / total equity (x)`) names the
        // metric that ratio is, ranked after every name-based header.
        let by_ratio = || {
            Spec::ratio_sides(&s.label)
                .and_then(|(n, d)| spec.metric_for_ratio(n, d))
                .map(|m| (m, usize::MAX))
        };
        match spec.metric_for_header(&folded).or_else(by_ratio) {
            None => extra.push((s, None)),
            Some((m, rank)) => match assigned[m] {
                Some((first, r)) if r == rank => out.push(
                    Finding::fail(
                        CheckId::MetricsDuplicateMetric,
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
        reading.extra_labels.push(fold(&s.label));
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
            Finding::info(CheckId::MetricsExtraMetric, message)
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
                            CheckId::MetricsMissingMetric,
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
    let nums = read_cells(scope, metric, truth, series, out);
    let scale = series_scale(scope, metric, truth, series, &nums, out);
    let variant = majority_variant(metric, truth, &nums, scale);
    let mut cells = Vec::new();
    for c in &nums {
        cells.push(PrintedCell {
            t: c.t,
            printed: c.printed.clone(),
            scale: cell_scale(metric.unit, &c.printed, scale),
            location: c.raw.location.clone(),
        });
        judge_cell(scope, metric, truth, c, scale, variant, out);
    }
    Some(MetricUse {
        variant,
        scale,
        cells,
    })
}

/// The series' number cells, one per source year; a duplicated year, a blank where the metric
/// is defined, a non-number or a number where it is undefined is its finding here (and, for a
/// long layout, a year with no row where the metric is defined).
fn read_cells<'a>(
    scope: &FileScope,
    metric: &MetricSpec,
    truth: &MetricTruth,
    series: &'a RawSeries,
    out: &mut Vec<Finding>,
) -> Vec<NumCell<'a>> {
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
                    CheckId::MetricsDuplicateMetric,
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
                    CheckId::MetricsNonNumeric,
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
                        CheckId::MetricsUndefinedValue,
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
                    CheckId::MetricsMissingValue,
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
    nums
}

/// The scale of a ratio series, by fit over the canonical (or first defined) values; a header
/// hint the values contradict warns.
fn series_scale(
    scope: &FileScope,
    metric: &MetricSpec,
    truth: &MetricTruth,
    series: &RawSeries,
    nums: &[NumCell],
    out: &mut Vec<Finding>,
) -> Scale {
    let name = scope.name;
    let reference = |t: usize| truth.cells.iter().find_map(|v| v[t].value());
    let pairs: Vec<(&Num, &Printed)> = nums
        .iter()
        .filter_map(|c| reference(c.t).map(|x| (x, &c.printed)))
        .collect();
    if is_ratio(metric.unit) {
        let choice = fit_scale(pairs.iter().copied(), percent_hint(&series.label));
        if choice.hint_contradicted {
            out.push(
                Finding::warn(
                    CheckId::MetricsScaleHint,
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
    }
}

/// How well variant `v`'s value explains a printed cell at the series' scale (`None` where the
/// variant is undefined).
fn explains(
    metric: &MetricSpec,
    truth: &MetricTruth,
    scale: Scale,
    v: usize,
    c: &NumCell,
) -> Option<Agreement> {
    let x = truth.cells[v][c.t].value()?;
    Some(
        judge(
            x,
            &c.printed,
            &cell_scale(metric.unit, &c.printed, scale).factor(),
        )
        .agreement,
    )
}

/// The variant explaining (k <= 1) the most cells; ties go to the earlier (canonical first).
fn majority_variant(
    metric: &MetricSpec,
    truth: &MetricTruth,
    nums: &[NumCell],
    scale: Scale,
) -> usize {
    let votes: Vec<usize> = (0..truth.cells.len())
        .map(|v| {
            nums.iter()
                .filter(|c| !(metric.not_meaningful_any_variant && truth.not_meaningful[c.t]))
                .filter(|c| {
                    explains(metric, truth, scale, v, c).is_some_and(|a| a <= Agreement::Warn)
                })
                .count()
        })
        .collect();
    (0..votes.len()).fold(0, |best, v| if votes[v] > votes[best] { v } else { best })
}

/// One printed cell against the majority variant (any variant where the value is not
/// meaningful and the metric allows it): its value, variant and scale findings, and the
/// precision warning.
fn judge_cell(
    scope: &FileScope,
    metric: &MetricSpec,
    truth: &MetricTruth,
    c: &NumCell,
    scale: Scale,
    variant: usize,
    out: &mut Vec<Finding>,
) {
    let FileScope {
        spec, years, name, ..
    } = *scope;
    let vname = &metric.variants[variant].name;
    let cs = cell_scale(metric.unit, &c.printed, scale);
    let nm = truth.not_meaningful[c.t];
    let candidates: Vec<usize> = if nm && metric.not_meaningful_any_variant {
        (0..truth.cells.len()).collect()
    } else {
        vec![variant]
    };
    let best = candidates
        .iter()
        .filter_map(|&v| explains(metric, truth, scale, v, c).map(|a| (a, v)))
        .min();
    let loc = c.raw.location.clone();
    let shown_v = best.map_or(variant, |(_, v)| v);
    let Some(x) = truth.cells[shown_v][c.t].value() else {
        // The chosen variant is undefined here but another is not: a different variant.
        out.push(
            Finding::fail(
                CheckId::MetricsMixedVariant,
                format!(
                    "{} in {}: `{}` uses a variant other than `{vname}` used by the other cells",
                    metric.id, years[c.t], c.printed.raw
                ),
            )
            .artifact(name)
            .at(loc),
        );
        return;
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
                        CheckId::MetricsNotMeaningful,
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
                CheckId::MetricsValue,
                format!("{} in {}: `{}` is off by more than half a unit of its last digit (truncated or double-rounded?)", metric.id, years[c.t], c.printed.raw),
            )
            .artifact(name)
            .at(loc.clone())
            .number(detail()),
        ),
        _ => {
            let other_variant = (0..truth.cells.len())
                .filter(|&v| v != variant)
                .find(|&v| explains(metric, truth, scale, v, c).is_some_and(|a| a <= Agreement::Warn));
            let other_scale = match cs {
                Scale::Fraction => Scale::Hundred,
                Scale::Hundred => Scale::Fraction,
            };
            let fits_other_scale = is_ratio(metric.unit)
                && !c.printed.percent
                && judge(x, &c.printed, &other_scale.factor()).agreement <= Agreement::Warn;
            let f = if let Some(ov) = other_variant {
                Finding::fail(
                    CheckId::MetricsMixedVariant,
                    format!(
                        "{} in {}: `{}` matches variant `{}` ({}) but the metric's other cells use `{vname}`",
                        metric.id, years[c.t], c.printed.raw, metric.variants[ov].name, metric.variants[ov].formula
                    ),
                )
            } else if fits_other_scale {
                Finding::fail(
                    CheckId::MetricsMixedScale,
                    format!(
                        "{} in {}: `{}` is on the {} scale but the metric's other cells are on the {} scale",
                        metric.id, years[c.t], c.printed.raw, other_scale.name(), cs.name()
                    ),
                )
            } else {
                Finding::fail(
                    CheckId::MetricsValue,
                    format!("{} in {}: `{}` does not match the recomputed value", metric.id, years[c.t], c.printed.raw),
                )
            };
            out.push(f.artifact(name).at(loc.clone()).number(detail()));
        }
    }
    if matches!(metric.unit, Unit::Ratio | Unit::Multiple | Unit::Points)
        && c.printed.significant < spec.metrics_file.min_significant_digits
        && !num_traits::Zero::is_zero(&c.printed.value)
        && !prints_exact_value(truth, shown_v, c, cs)
    {
        out.push(
            Finding::warn(
                CheckId::MetricsImprecise,
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

/// The cell prints its variant's exact value (`-0.1` for inventory falling from 380 to 342): few
/// digits then hide nothing, so the cell is not imprecise.
fn prints_exact_value(truth: &MetricTruth, variant: usize, c: &NumCell, scale: Scale) -> bool {
    truth.cells[variant][c.t]
        .value()
        .is_some_and(|x| c.printed.value == x * &scale.factor())
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
                CheckId::MetricsNotMeaningful,
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
            CheckId::MetricsMissingValue,
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
