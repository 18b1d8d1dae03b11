//! The KPI table (contract §5 "KPI table"): a table in the KPI section with years as columns or
//! as rows. Labels are folded and matched to §2 metrics (with synonyms) and §1 line items; each
//! value must agree under §7 with the recomputed value — under the variant the metrics file uses,
//! else any accepted variant — with ratio values without `%` scaled by fit per label (§2).

use super::sections::SectionSpan;
use super::KpiCell;
use crate::checks::metrics::MetricsReading;
use crate::checks::Context;
use crate::names::{fold, percent_hint};
use crate::numbers::{
    fit_scale, int, judge, parse_decimal, parse_number, show_auto, show_exact, show_k, Agreement,
    Judgement, Num, Printed, Scale,
};
use crate::read::memo::parse::{Doc, Table};
use crate::read::memo::vocabulary::{words, Entity, Vocabulary};
use crate::read::memo::years::year_label;
use crate::recompute::Truth;
use crate::report::CheckId;
use crate::report::{Coverage, Finding, Location, NumberDetail, Shown};
use crate::spec::Unit;
use num_traits::Signed;
use std::collections::BTreeSet;

/// One value cell of a KPI table, with its label and year.
pub struct Cell<'a> {
    pub label: &'a str,
    pub year: i32,
    pub text: &'a str,
    pub line: usize,
}

/// The cells of a table read with years as columns (header row) or as rows (first column),
/// whichever has more year labels; `None` when neither has any.
pub fn cells(table: &Table) -> Option<Vec<Cell<'_>>> {
    let header = table.rows.first()?;
    let col_years: Vec<Option<i32>> = header.cells.iter().map(|c| year_label(&c.text)).collect();
    let n_cols = col_years.iter().skip(1).flatten().count();
    let n_rows = table.rows[1..]
        .iter()
        .filter(|r| r.cells.first().and_then(|c| year_label(&c.text)).is_some())
        .count();
    if n_cols == 0 && n_rows == 0 {
        return None;
    }
    let mut out = Vec::new();
    if n_cols >= n_rows {
        for row in &table.rows[1..] {
            let Some(label) = row.cells.first() else {
                continue;
            };
            for (j, c) in row.cells.iter().enumerate().skip(1) {
                if let Some(Some(year)) = col_years.get(j) {
                    out.push(Cell {
                        label: &label.text,
                        year: *year,
                        text: &c.text,
                        line: row.line,
                    });
                }
            }
        }
    } else {
        for row in &table.rows[1..] {
            let Some(year) = row.cells.first().and_then(|c| year_label(&c.text)) else {
                continue;
            };
            for (j, c) in row.cells.iter().enumerate().skip(1) {
                if let Some(h) = header.cells.get(j) {
                    out.push(Cell {
                        label: &h.text,
                        year,
                        text: &c.text,
                        line: row.line,
                    });
                }
            }
        }
    }
    Some(out)
}

/// Indices of the tables inside the KPI section.
pub fn kpi_tables(doc: &Doc, span: &SectionSpan) -> Vec<usize> {
    let end_line = doc.blocks.get(span.end).map_or(usize::MAX, |b| b.line);
    (0..doc.tables.len())
        .filter(|&i| doc.tables[i].line > span.line && doc.tables[i].line < end_line)
        .collect()
}

/// What a KPI label names.
/// Labels are folded and matched by name first; a label that folds to no name (`Free cash flow,
/// $m`) is matched when it names exactly one metric or item as words (see [`Vocabulary`]).
pub fn entity_for_label(ctx: &Context, vocab: &Vocabulary, label: &str) -> Option<Entity> {
    let key = fold(label);
    if key.is_empty() {
        return None;
    }
    if let Some(m) = ctx.spec.metric_named(&key) {
        return Some(Entity::Metric(m));
    }
    if let Some(i) = ctx.stmts.item_named(&key, ctx.spec) {
        return Some(Entity::Item(i));
    }
    match ctx.spec.column_named(&key) {
        Some(c) if c != ctx.spec.source.year_column => return Some(Entity::AbsentColumn(c)),
        _ => {}
    }
    // Fall back to names as words, when every other word of the label is a unit word
    // (`Free cash flow, $m`; but not `Net revenue retention`).
    let ws = words(label);
    let found = vocab.mentions(&ws);
    let covered = |w: &crate::read::memo::vocabulary::Word| {
        found.iter().any(|m| m.start <= w.start && w.end <= m.end)
    };
    if !ws
        .iter()
        .all(|w| covered(w) || UNIT_WORDS.contains(&w.lower.as_str()))
    {
        return None;
    }
    let mentioned: BTreeSet<Entity> = found.into_iter().map(|m| m.entity).collect();
    match mentioned.into_iter().collect::<Vec<_>>()[..] {
        [e] if e != Entity::Derived => Some(e),
        _ => None,
    }
}

/// Words a KPI label may carry besides a name: units and currency.
const UNIT_WORDS: &[&str] = &[
    "m",
    "mm",
    "mn",
    "bn",
    "k",
    "usd",
    "eur",
    "gbp",
    "million",
    "millions",
    "thousand",
    "thousands",
    "pct",
    "percent",
    "x",
    "times",
    "in",
];

/// A KPI cell as a number: footnote marks are dropped, and a `m`/`mn`/`million` suffix is read
/// as the source's own units (as in prose, see [`crate::read::memo::numbers`]).
pub fn cell_number(text: &str) -> Option<Printed> {
    let t = trimmed(text);
    if let Some(p) = parse_number(t) {
        return Some(p);
    }
    let mut p = parse_number(without_magnitude(t)?)?;
    p.raw = text.trim().to_string();
    Some(p)
}

/// A cell's text without surrounding space and trailing footnote marks.
fn trimmed(text: &str) -> &str {
    text.trim().trim_end_matches(['*', '†', '‡']).trim_end()
}

/// `t` without its trailing magnitude word (see [`MAGNITUDE_SUFFIXES`]), if it has one.
fn without_magnitude(t: &str) -> Option<&str> {
    let lower = t.to_ascii_lowercase();
    MAGNITUDE_SUFFIXES
        .iter()
        .find(|s| lower.ends_with(*s))
        .map(|s| &t[..t.len() - s.len()])
}

/// Words and letters after a money figure that name its unit of magnitude (`$48,210k`,
/// `1.2 bn`), read as a label: the number is compared as printed, then at the other powers of a
/// thousand (the source's own unit is not known).
const MAGNITUDE_SUFFIXES: [&str; 14] = [
    " million",
    "million",
    " mn",
    "mn",
    " m",
    "m",
    " thousand",
    "thousand",
    " k",
    "k",
    " billion",
    "billion",
    " bn",
    "bn",
];

/// Whether a cell's text ends with a magnitude word (see [`MAGNITUDE_SUFFIXES`]).
fn has_magnitude(raw: &str) -> bool {
    without_magnitude(trimmed(raw)).is_some()
}

/// The recomputed values an entity may be printed as in year `t`: `(variant name, value)`;
/// empty when undefined. `any_variant` widens a metric to all its variants.
pub fn values(
    ctx: &Context,
    truth: &Truth,
    metrics: &MetricsReading,
    e: Entity,
    t: usize,
    any_variant: bool,
) -> Vec<(String, Num)> {
    match e {
        Entity::Item(i) => ctx.stmts.items[i]
            .cells
            .get(t)
            .and_then(|c| c.as_ref())
            .map(|v| vec![(String::new(), v.value.clone())])
            .unwrap_or_default(),
        // A measure's KPI row is not judged: the KPI table's units are the metrics'.
        Entity::AbsentColumn(_) | Entity::Derived | Entity::Measure(_) => Vec::new(),
        Entity::Metric(m) => variants(ctx, metrics, m, any_variant)
            .into_iter()
            .filter_map(|v| {
                truth.metrics[m].cells[v][t]
                    .value()
                    .map(|x| (ctx.spec.metrics[m].variants[v].name.clone(), x.clone()))
            })
            .collect(),
    }
}

/// The variants to compare a metric with: the one the metrics file uses, else all.
pub fn variants(
    ctx: &Context,
    metrics: &MetricsReading,
    m: usize,
    any_variant: bool,
) -> Vec<usize> {
    let known = metrics.metrics.get(m).is_some_and(|u| u.is_some());
    if known && !any_variant {
        vec![metrics.variant(m)]
    } else {
        (0..ctx.spec.metrics[m].variants.len()).collect()
    }
}

fn unit_of(ctx: &Context, e: Entity) -> Unit {
    match e {
        Entity::Metric(m) => ctx.spec.metrics[m].unit,
        _ => Unit::Money,
    }
}

/// The best judgement of `p` among `(variant, value)` candidates at `scale`.
fn best<'a>(
    cands: &'a [(String, Num)],
    p: &Printed,
    scale: &Num,
) -> Option<(&'a (String, Num), Judgement)> {
    cands
        .iter()
        .map(|c| (c, judge(&c.1, p, scale)))
        .min_by(|a, b| a.1.agreement.cmp(&b.1.agreement).then(a.1.k.cmp(&b.1.k)))
}

#[allow(clippy::too_many_arguments)]
pub fn check(
    ctx: &Context,
    truth: &Truth,
    metrics: &MetricsReading,
    doc: &Doc,
    spans: &[Option<SectionSpan>],
    vocab: &Vocabulary,
    coverage: &mut Coverage,
    out: &mut Vec<Finding>,
) -> Vec<KpiCell> {
    let spec = ctx.spec;
    let Some(s) = spec
        .memo
        .sections
        .iter()
        .position(|n| *n == spec.memo.kpi_section)
    else {
        return Vec::new();
    };
    // A missing KPI section is `memo.missing_section`'s finding.
    let Some(span) = &spans[s] else {
        return Vec::new();
    };
    let tables: Vec<Vec<Cell>> = kpi_tables(doc, span)
        .into_iter()
        .filter_map(|i| cells(&doc.tables[i]))
        .collect();
    if tables.is_empty() {
        out.push(
            Finding::fail(
                CheckId::MemoKpiTableMissing,
                format!(
                    "section `{}` holds no table with years as its columns or rows; the contract requires the \
                     key figures as a table a reader can check year by year",
                    spec.memo.kpi_section
                ),
            )
            .line(span.line),
        );
        return Vec::new();
    }
    let mut kpi = Vec::new();
    for table in &tables {
        // Group by label, keeping first-seen order.
        let mut labels: Vec<&str> = Vec::new();
        for c in table {
            if !labels.contains(&c.label) {
                labels.push(c.label);
            }
        }
        for label in labels {
            let group: Vec<&Cell> = table.iter().filter(|c| c.label == label).collect();
            let Some(entity) = entity_for_label(ctx, vocab, label) else {
                coverage.unverified += group
                    .iter()
                    .filter(|c| cell_number(c.text).is_some())
                    .count();
                if !label.trim().is_empty() {
                    out.push(
                        Finding::info(
                            CheckId::MemoKpiUnmatchedLabel,
                            format!("KPI label `{label}` matches no §2 metric or source line item; its values are not checked"),
                        )
                        .line(group[0].line),
                    );
                }
                continue;
            };
            coverage.add(check_label(
                ctx, truth, metrics, label, entity, &group, &mut kpi, out,
            ));
        }
    }
    kpi
}

#[allow(clippy::too_many_arguments)]
fn check_label(
    ctx: &Context,
    truth: &Truth,
    metrics: &MetricsReading,
    label: &str,
    entity: Entity,
    group: &[&Cell],
    kpi: &mut Vec<KpiCell>,
    out: &mut Vec<Finding>,
) -> Coverage {
    let before = out.len();
    let unit = unit_of(ctx, entity);
    let share = parse_decimal(&ctx.spec.memo.kpi_max_relative_interval).unwrap_or_else(|| int(0));
    // Parse every cell first: the scale is chosen over the whole label.
    let mut parsed: Vec<(&Cell, Option<usize>, Printed)> = Vec::new();
    let mut unreadable = 0;
    for c in group {
        if ctx.spec.is_blank(c.text) {
            if let (Entity::Metric(m), Some(t)) = (entity, truth.year_index(c.year)) {
                if truth.metrics[m].not_meaningful[t] {
                    out.push(
                        Finding::info(
                            CheckId::MemoKpiNotMeaningful,
                            format!("KPI `{label}` {}: left blank where the value is not meaningful (§2)", c.year),
                        )
                        .at(loc(c, label)),
                    );
                }
            }
            continue;
        }
        let Some(p) = cell_number(c.text) else {
            if !matches!(entity, Entity::Item(_) | Entity::Metric(_)) {
                // A row vouch does not judge (days sales outstanding, a derived ratio): its
                // text, number or not, is unverified.
                unreadable += 1;
                out.push(
                    Finding::info(
                        CheckId::MemoUnverifiedNumber,
                        format!(
                            "KPI `{label}` {}: `{}` is unverified: vouch does not check this row's values",
                            c.year, c.text
                        ),
                    )
                    .at(loc(c, label)),
                );
                continue;
            }
            out.push(
                Finding::warn(
                    CheckId::MemoKpiNotANumber,
                    format!("KPI `{label}` {}: `{}` is neither a number nor a blank, so it cannot be checked", c.year, c.text),
                )
                .at(loc(c, label)),
            );
            continue;
        };
        // A percent or a multiple under a money name (`FCF m.` for FCF margin): the label
        // names something else than vouch reads; unverified, not wrong.
        if unit == Unit::Money && (p.percent || p.multiple) {
            unreadable += 1;
            out.push(
                Finding::info(
                    CheckId::MemoUnverifiedNumber,
                    format!(
                        "KPI `{label}` {}: `{}` is unverified: a {} under a label vouch reads as a money item, so the label names something else",
                        c.year,
                        p.raw,
                        if p.percent { "percent" } else { "multiple" }
                    ),
                )
                .at(loc(c, label))
                .quoting(p.raw.clone()),
            );
            continue;
        }
        parsed.push((c, truth.year_index(c.year), p));
    }
    // Ratios (always metrics) are scaled by fit over the label's cells; the rest read as printed.
    let scale = match entity {
        Entity::Metric(m) if unit == Unit::Ratio => {
            let v = variants(ctx, metrics, m, false)[0];
            let pairs: Vec<(&Num, &Printed)> = parsed
                .iter()
                .filter(|(_, _, p)| !p.percent)
                .filter_map(|(_, t, p)| {
                    t.and_then(|t| truth.metrics[m].cells[v][t].value())
                        .map(|x| (x, p))
                })
                .collect();
            fit_scale(pairs.iter().copied(), percent_hint(label)).scale
        }
        _ => Scale::Fraction,
    };
    let numeric = parsed.len();
    for (c, t, p) in parsed {
        let cell_scale = if p.percent { Scale::Hundred } else { scale };
        let Some(t) = t else {
            out.push(
                Finding::fail(
                    CheckId::MemoNumberOutOfRange,
                    format!(
                        "KPI `{label}` prints `{}` for {}, a year the source does not contain; the data cannot support it",
                        p.raw, c.year
                    ),
                )
                .at(loc(c, label))
                .number(NumberDetail { printed: p.raw.clone(), interval: Some(p.interval().to_string()), ..Default::default() }),
            );
            continue;
        };
        if let Entity::Metric(m) = entity {
            kpi.push(KpiCell {
                metric: m,
                t,
                printed: p.clone(),
                scale: cell_scale,
                location: loc(c, label),
            });
        }
        let not_meaningful =
            matches!(entity, Entity::Metric(m) if truth.metrics[m].not_meaningful[t]);
        let any_variant = matches!(entity, Entity::Metric(m) if not_meaningful && ctx.spec.metrics[m].not_meaningful_any_variant);
        let cands = values(ctx, truth, metrics, entity, t, any_variant);
        let mut factor = cell_scale.factor();
        let mut found = best(&cands, &p, &factor);
        if unit == Unit::Money && has_magnitude(&p.raw) {
            // `$48.2m` for a source in thousands: the best fit over the powers of a thousand.
            for f in [
                int(1000),
                int(1_000_000),
                Num::ratio(1, 1000),
                Num::ratio(1, 1_000_000),
            ] {
                let alt = best(&cands, &p, &f);
                let better = match (&alt, &found) {
                    (Some(a), Some(b)) => (a.1.agreement, &a.1.k) < (b.1.agreement, &b.1.k),
                    (Some(_), None) => true,
                    _ => false,
                };
                if better {
                    found = alt;
                    factor = f;
                }
            }
        }
        let Some(((variant, x), j)) = found else {
            out.push(
                Finding::fail(
                    CheckId::MemoKpiUndefined,
                    format!(
                        "KPI `{label}` {}: prints `{}` where the value is undefined (no prior year, a missing input or a \
                         zero denominator); the cell must be blank",
                        c.year, p.raw
                    ),
                )
                .at(loc(c, label))
                .number(NumberDetail {
                    printed: p.raw.clone(),
                    interval: Some(p.interval().to_string()),
                    recomputed: Some("undefined".into()),
                    ..Default::default()
                }),
            );
            continue;
        };
        // Contract §9: imprecise only when the printed interval is wider than a set share of the
        // value's magnitude (`4.0%` and `0.98x` can be checked; `4%` for 3.6 % cannot tell
        // plausible values apart).
        if matches!(entity, Entity::Metric(_)) && matches!(unit, Unit::Ratio | Unit::Multiple) {
            let width = p.unit();
            let exact = x * &factor;
            let magnitude = std::cmp::max(p.value.abs(), exact.abs());
            // A printed value that is the exact value (`-60.0%` for a fall from 60 to 24) hides
            // nothing, however few its digits.
            if width > &share * magnitude && p.value != exact {
                out.push(
                    Finding::warn(
                        CheckId::MemoImprecise,
                        format!(
                            "KPI `{label}` {}: `{}` stands for an interval {} wide, more than {}% of the value; too coarse \
                             to tell plausible values apart",
                            c.year,
                            p.raw,
                            show_exact(&width),
                            show_exact(&(&share * int(100)))
                        ),
                    )
                    .at(loc(c, label)),
                );
            }
        }
        // Built only for a finding: most cells pass.
        let detail = || NumberDetail {
            variant: (!variant.is_empty()).then(|| variant.clone()),
            scale: Some(scale_name(unit, cell_scale).into()),
            ..NumberDetail::judged(x, &p, &factor, &j, Shown::Auto)
        };
        let status_text = match j.agreement {
            Agreement::Pass => None,
            Agreement::Warn => Some(
                "is off by more than half a unit of its last digit (truncated or double-rounded)",
            ),
            Agreement::Fail => Some("disagrees with the recomputed value"),
        };
        if not_meaningful && j.agreement == Agreement::Pass {
            out.push(
                Finding::info(
                    CheckId::MemoKpiNotMeaningful,
                    format!("KPI `{label}` {}: `{}` is the arithmetic value of a not-meaningful cell (§2)", c.year, p.raw),
                )
                .at(loc(c, label))
                .number(detail()),
            );
            continue;
        }
        let Some(why) = status_text else { continue };
        let msg = format!(
            "KPI `{label}` {}: `{}` {why}: vouch recomputed {} ({}, k = {})",
            c.year,
            p.raw,
            show_auto(&(x * &factor)),
            scale_name(unit, cell_scale),
            show_k(&j.k)
        );
        let f = if j.agreement == Agreement::Warn && !not_meaningful {
            Finding::warn(CheckId::MemoKpiValue, msg)
        } else {
            Finding::fail(CheckId::MemoKpiValue, msg)
        };
        out.push(f.at(loc(c, label)).number(detail()));
    }
    // The label's cells are counted as verified unless one of its failing findings is theirs.
    let failed = out[before..]
        .iter()
        .filter(|f| f.status == crate::report::Status::Fail)
        .count()
        .min(numeric);
    Coverage {
        verified: numeric - failed,
        contradicted: failed,
        unverified: unreadable,
    }
}

fn scale_name(unit: Unit, scale: Scale) -> &'static str {
    match unit {
        Unit::Ratio | Unit::Points => scale.name(),
        Unit::Multiple => "multiple",
        Unit::Money => "source units",
    }
}

fn loc(c: &Cell, label: &str) -> Location {
    Location {
        line: Some(c.line),
        row: None,
        column: Some(label.to_string()),
        year: Some(c.year),
    }
}
