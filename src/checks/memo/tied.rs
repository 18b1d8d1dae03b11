//! Tied numbers (contract §5 "Numbers"). A number is tied when its sentence (or table row) names
//! exactly one §2 metric or §1 line item (longest match) and cites exactly one year. A tied number
//! must match, under §7, the named thing's value in that year, its change from the year before
//! (absolute, or relative with either base; a change may be written as its magnitude), or — for a
//! metric — its value under the variant the metrics file uses. A tied number to a year outside the
//! source is `memo.number_out_of_range`; to an undefined value, contradicted. The contract's own
//! thresholds and enumeration markers like `(1)` are not checked. In a table with year columns
//! (or year rows) outside the KPI section, each cell is tied to its year and to what its label
//! names, as a sentence naming both would be (the KPI table itself is `kpi`'s).

use super::kpi::{cells, entity_for_label, variants};
use super::numbers::{numbers, NumberMention, Unit};
use super::parse::{BlockKind, Doc};
use super::sections::numbering_len;
use super::vocabulary::{Entity, Vocabulary};
use super::{quote, sentences, Scan};
use crate::checks::metrics::MetricsReading;
use crate::checks::Context;
use crate::numbers::{int, judge, parse_decimal, show_auto, show_k, Agreement, Judgement, Num};
use crate::recompute::Truth;
use crate::report::{Finding, Location, NumberDetail};
use num_traits::{Signed, Zero};
use std::collections::{BTreeSet, HashMap};

#[derive(Clone, Copy, PartialEq, Eq)]
enum Kind {
    Value,
    Change,
    Relative,
}

/// One value a tied number may stand for.
struct Candidate {
    what: String,
    kind: Kind,
    value: Num,
}

impl Candidate {
    /// The candidate as a reader would write it: ratios and relative changes in percent,
    /// changes of a ratio in points, everything else plain.
    fn show(&self, ratio: bool) -> String {
        match (self.kind, ratio) {
            (Kind::Relative, _) | (Kind::Value, true) => {
                format!("{}%", show_auto(&(&self.value * int(100))))
            }
            (Kind::Change, true) => format!("{} points", show_auto(&(&self.value * int(100)))),
            _ => show_auto(&self.value),
        }
    }
}

fn entity_name(ctx: &Context, e: Entity) -> String {
    match e {
        Entity::Item(i) => ctx.stmts.items[i].name.replace('_', " "),
        Entity::AbsentColumn(c) => ctx.spec.source.columns[c].name.replace('_', " "),
        Entity::Derived => "a derived measure".to_string(),
        Entity::Metric(m) => ctx.spec.metrics[m].id.replace('_', " "),
    }
}

/// The series an entity is read from: `(label, values by year index)`, one per variant in use.
fn series(
    ctx: &Context,
    truth: &Truth,
    metrics: &MetricsReading,
    e: Entity,
    t: usize,
) -> Vec<(String, Vec<Option<Num>>)> {
    match e {
        Entity::Item(i) => vec![(
            String::new(),
            ctx.stmts.items[i]
                .cells
                .iter()
                .map(|c| c.as_ref().map(|v| v.value.clone()))
                .collect(),
        )],
        Entity::AbsentColumn(_) | Entity::Derived => Vec::new(),
        Entity::Metric(m) => {
            let any = truth.metrics[m].not_meaningful[t]
                && ctx.spec.metrics[m].not_meaningful_any_variant;
            variants(ctx, metrics, m, any)
                .into_iter()
                .map(|v| {
                    let name = if v == 0 {
                        String::new()
                    } else {
                        format!(" ({})", ctx.spec.metrics[m].variants[v].name)
                    };
                    (
                        name,
                        truth.metrics[m].cells[v]
                            .iter()
                            .map(|c| c.value().cloned())
                            .collect(),
                    )
                })
                .collect()
        }
    }
}

fn candidates(
    ctx: &Context,
    truth: &Truth,
    metrics: &MetricsReading,
    e: Entity,
    t: usize,
) -> Vec<Candidate> {
    let mut out = Vec::new();
    for (variant, s) in series(ctx, truth, metrics, e, t) {
        let Some(Some(x)) = s.get(t) else { continue };
        out.push(Candidate {
            what: format!("value{variant}"),
            kind: Kind::Value,
            value: x.clone(),
        });
        let Some(Some(p)) = t.checked_sub(1).and_then(|u| s.get(u)) else {
            continue;
        };
        let diff = x - p;
        let mut changes = vec![("change", Kind::Change, diff.clone())];
        if !p.is_zero() {
            changes.push(("relative change", Kind::Relative, &diff / p.abs()));
            if p.is_negative() {
                changes.push(("relative change (signed base)", Kind::Relative, &diff / p));
            }
        }
        for (what, kind, c) in changes {
            // The magnitude first, then the signed change when it differs.
            out.push(Candidate {
                what: format!("{what}{variant}"),
                kind,
                value: c.abs(),
            });
            if c.is_negative() {
                out.push(Candidate {
                    what: format!("{what}{variant}"),
                    kind,
                    value: c,
                });
            }
        }
    }
    out
}

/// Whether a mention is one of the contract's own thresholds (`15%`, `2 points`, `0.15`…).
fn is_threshold(ctx: &Context, n: &NumberMention) -> bool {
    ctx.spec.memo.threshold_numbers.iter().any(|th| {
        let unit_ok = match th.unit.as_str() {
            "percent" => n.unit == Unit::Percent,
            "points" => n.unit == Unit::Points,
            "bare" => n.unit == Unit::Bare,
            _ => false,
        };
        unit_ok && parse_decimal(&th.value).is_some_and(|v| v == n.printed.value)
    })
}

/// `(1)`-style enumeration markers in prose.
fn is_marker(n: &NumberMention) -> bool {
    n.parenthesised
        && n.unit == Unit::Bare
        && n.printed.decimals == 0
        && !n.printed.currency
        && n.printed.value < int(100)
}

/// What the tied-numbers check reads: the parsed memo, each block's scan, the indices of the KPI
/// section's tables (checked under `memo.kpi_*` instead) and the names to look for.
pub struct Reading<'a> {
    pub doc: &'a Doc,
    pub scans: &'a [Scan],
    pub kpi_tables: &'a [usize],
    pub vocab: &'a Vocabulary,
}

pub fn check(
    ctx: &Context,
    truth: &Truth,
    metrics: &MetricsReading,
    read: &Reading,
    out: &mut Vec<Finding>,
) {
    let Reading {
        doc,
        scans,
        kpi_tables,
        vocab,
    } = *read;
    let mut reported: BTreeSet<(usize, usize)> = BTreeSet::new();
    let mut cache: HashMap<(Entity, usize), Vec<Candidate>> = HashMap::new();
    for (block, scan) in doc.blocks.iter().zip(scans) {
        if block.kind == BlockKind::Code {
            continue;
        }
        let text = &scan.masked;
        let all_words = &scan.words;
        // A heading's own numbering (`3.`, `Section 2:`) is not a figure.
        let skip_before = if block.kind == BlockKind::Heading {
            numbering_len(text)
        } else {
            0
        };
        for (s, e) in sentences(block, text) {
            // Words and years are in text order: slice them by binary search.
            let ws = &all_words[all_words.partition_point(|w| w.start < s)
                ..all_words.partition_point(|w| w.end <= e)];
            let entities: BTreeSet<Entity> =
                vocab.mentions(ws).into_iter().map(|m| m.entity).collect();
            let ys = &scan.years[scan.years.partition_point(|y| y.start < s)
                ..scan.years.partition_point(|y| y.end <= e)];
            let years: BTreeSet<i32> = ys.iter().map(|y| y.year).collect();
            if entities.len() != 1 || years.len() != 1 || entities.contains(&Entity::Derived) {
                continue;
            }
            let (Some(&entity), Some(&year)) = (entities.first(), years.first()) else {
                continue;
            };
            let sentence = &block.text[s..e];
            for mut n in numbers(&text[s..e]) {
                n.start += s;
                n.end += s;
                if n.start < skip_before
                    || n.unit == Unit::Unresolved
                    || is_threshold(ctx, &n)
                    || is_marker(&n)
                {
                    continue;
                }
                let line = block.line_at(n.start);
                if !reported.insert((block.line, n.start)) {
                    continue;
                }
                let tie = Tie {
                    entity,
                    year,
                    line,
                    sentence,
                };
                judge_number(ctx, truth, metrics, &tie, &n, &mut cache, out);
            }
        }
    }
    // Tables outside the KPI section: a cell under a year column (or in a year row) is tied to
    // that year and to what its row (or column) label names, like a sentence naming both.
    for (ti, table) in doc.tables.iter().enumerate() {
        if kpi_tables.contains(&ti) {
            continue;
        }
        let Some(cells) = cells(table) else { continue };
        for c in cells {
            let Some(entity) = entity_for_label(ctx, vocab, c.label) else {
                continue;
            };
            let [n] = &numbers(c.text)[..] else { continue };
            if n.unit == Unit::Unresolved || is_threshold(ctx, n) || is_marker(n) {
                continue;
            }
            let sentence = format!("{} | {} | {}", c.label, c.year, c.text);
            let tie = Tie {
                entity,
                year: c.year,
                line: c.line,
                sentence: &sentence,
            };
            judge_number(ctx, truth, metrics, &tie, n, &mut cache, out);
        }
    }
}

/// A number's tie: the one thing and the one year its sentence names.
struct Tie<'a> {
    entity: Entity,
    year: i32,
    line: usize,
    /// The sentence as written.
    sentence: &'a str,
}

fn judge_number(
    ctx: &Context,
    truth: &Truth,
    metrics: &MetricsReading,
    tie: &Tie,
    n: &NumberMention,
    cache: &mut HashMap<(Entity, usize), Vec<Candidate>>,
    out: &mut Vec<Finding>,
) {
    let (entity, year, line) = (tie.entity, tie.year, tie.line);
    let sentence = || quote(tie.sentence);
    let p = &n.printed;
    let location = Location {
        line: Some(line),
        year: Some(year),
        ..Default::default()
    };
    // The name and the number's detail are built only for a finding: most numbers pass.
    let name = || entity_name(ctx, entity);
    let detail = || NumberDetail {
        printed: p.raw.clone(),
        interval: Some(p.interval().to_string()),
        scale: Some(n.unit.name().into()),
        ..Default::default()
    };
    let Some(t) = truth.year_index(year) else {
        let name = name();
        out.push(
            Finding::fail(
                "memo.number_out_of_range",
                format!(
                    "“{}” ties `{}` to {name} in {year}, a year the source does not contain; the data cannot \
                     support a figure for it",
                    sentence(),
                    p.raw
                ),
            )
            .at(location)
            .number(detail()),
        );
        return;
    };
    let cands: &[Candidate] = cache
        .entry((entity, t))
        .or_insert_with(|| candidates(ctx, truth, metrics, entity, t));
    if cands.is_empty() {
        let name = name();
        let mut detail = detail();
        detail.recomputed = Some("undefined".into());
        out.push(
            Finding::fail(
                "memo.contradicted_number",
                format!(
                    "“{}” ties `{}` to {name} in {year}, but that value is undefined in the source (a missing \
                     input, no prior year or a zero denominator)",
                    sentence(),
                    p.raw
                ),
            )
            .at(location)
            .number(detail),
        );
        return;
    }
    let negative = n.parenthesised.then(|| {
        let mut neg = p.clone();
        neg.value = -neg.value.clone();
        neg
    });
    let readings: Vec<&crate::numbers::Printed> =
        std::iter::once(p).chain(negative.as_ref()).collect();
    let mut best: Option<(Judgement, &Candidate, i64)> = None;
    for c in cands {
        for &scale in n.unit.scales() {
            for &r in &readings {
                let j = judge(&c.value, r, &int(scale));
                if j.agreement == Agreement::Pass {
                    return;
                }
                let better = best
                    .as_ref()
                    .is_none_or(|(b, _, _)| (j.agreement, &j.k) < (b.agreement, &b.k));
                if better {
                    best = Some((j, c, scale));
                }
            }
        }
    }
    let Some((j, c, scale)) = best else { return };
    let ratio =
        matches!(entity, Entity::Metric(m) if ctx.spec.metrics[m].unit == crate::spec::Unit::Ratio);
    // Changes are listed signed (the magnitude is accepted too).
    let listed: Vec<String> = cands
        .iter()
        .enumerate()
        .filter(|(i, c)| c.kind == Kind::Value || cands.get(i + 1).is_none_or(|n| n.what != c.what))
        .map(|(_, c)| format!("{} {}", c.what, c.show(ratio)))
        .collect();
    let name = name();
    let mut detail = detail();
    detail.recomputed = Some(show_auto(&(&c.value * int(scale))));
    detail.k = Some(show_k(&j.k));
    let msg = format!(
        "“{}” ties `{}` to {name} in {year}, but it matches none of its recomputed values ({}); \
         nearest is the {} {} (k = {} in units of the printed number's last digit)",
        sentence(),
        p.raw,
        listed.join(", "),
        c.what,
        c.show(ratio),
        show_k(&j.k)
    );
    let f = if j.agreement == Agreement::Warn {
        Finding::warn("memo.contradicted_number", msg)
    } else {
        Finding::fail("memo.contradicted_number", msg)
    };
    out.push(f.at(location).number(detail));
}
