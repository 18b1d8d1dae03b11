//! `movements.*`: the flags in `unusual_movements.csv` against the expected set (contract §3):
//! every expected (year, item) present, no spurious or unknown rows, change values right under
//! §7 with their scale detected per column.

use crate::report::CheckId;
mod table;

use crate::checks::metrics::MetricsReading;
use crate::checks::Context;
use crate::names::{fold, parse_year_label, percent_hint, tokens};
use crate::numbers::{fit_scale, judge, parse_number, show, Agreement, Num, Printed, Scale};
use crate::recompute::{Basis, Flag, ItemRef, Truth};
use crate::report::registry::CheckDef;
use crate::report::{Family, Finding, Location, NumberDetail, Shown};
use crate::source::Statements;
use crate::spec::{RuleItems, Spec};
use num_traits::{Signed, Zero};
use std::collections::{HashMap, HashSet};

pub const CHECKS: &[CheckDef] = crate::checks![Family::Movements;
    CheckId::MovementsUnreadable, Fail, "unusual_movements.csv is not UTF-8 text (or holds a NUL byte).",
        why: "`unusual_movements.csv` is not UTF-8 text (or holds a NUL byte), so no flag was checked and a reader cannot tell whether material movements were caught.",
        fix: "Have the script write the file as UTF-8 text with the `csv` module (`encoding='utf-8'`), and nothing binary.";
    CheckId::MovementsParse, Fail, "unusual_movements.csv is not a CSV table with year and item columns.",
        why: "Without parseable CSV with a year column and an item column, no row can be matched to a movement, so the whole flag list goes unchecked.",
        fix: "Give the file a header with a year and an item column named as in `movements.year_columns` and `movements.item_columns`, e.g. `year,item,rule,change`.";
    CheckId::MovementsMissing, Fail, "An expected flag (year, item) is absent.",
        why: "A change that crosses a contract rule's threshold is not flagged, so a reader relying on `unusual_movements.csv` misses a material movement.",
        fix: "Add a row for that year and item; evaluate every rule in `movements.rules` in exact decimal arithmetic with inclusive thresholds, so a move of exactly the threshold is flagged.";
    CheckId::MovementsSpurious, Fail, "A listed (year, item) is not supported by any rule (or is dated in the first source year or outside the source).",
        why: "A row no rule supports, or one dated in the first source year or outside the source, flags a movement that did not happen and sends the reader chasing noise.",
        fix: "Remove the row or correct its year or item; check the script's threshold test (inclusive, exact arithmetic, growth on the absolute prior value).";
    CheckId::MovementsUnknownItem, Fail, "A row's item is neither a source line item nor a §2 metric (a warning when its year and change are those of a flag that is otherwise missing: the flag under another name; an extra flag, info, when its name says it is a quantity the contract does not define, such as `implied_operating_expenses`).",
        why: "An item that is neither a source line item nor a contract metric cannot be traced to any data, so a reader cannot check what moved; it only warns when its year and change match an expected flag.",
        fix: "Name the item by its source header, canonical name or alias, or by a metric id or synonym (e.g. `accounts_receivable`, `operating_margin`).";
    CheckId::MovementsRuleMismatch, Warn, "A row names a rule that does not fire, while another rule supports the pair.",
        why: "The row names a rule that does not fire for its year and item while another rule does, so the stated reason for the flag is wrong and a reader misjudges why the item moved.",
        fix: "Put the rule that fires (named in the finding) in the rule column, with one row per rule that fires.";
    CheckId::MovementsDuplicateRow, Warn, "A row repeats an earlier row's year, item and rule: the file lists one movement twice, so its count overstates the flags.",
        why: "The same year, item and rule listed twice makes the file overstate how many unusual movements there are.",
        fix: "Remove the repeated row; have the script deduplicate flags on year, item and rule before writing `unusual_movements.csv`.";
    CheckId::MovementsExtraFlag, Info, "A row is supported only by an accepted extra rule (a move of a metric or derived column of at least `movements.extra_growth_threshold`, 15 % by default).",
        why: "Reported because the row is supported only by an accepted extra rule, a move of at least `movements.extra_growth_threshold` in a metric or derived column, or a move from a zero base, not by a required rule.",
        fix: "Nothing to fix: such extra flags are allowed. Drop them if the file should list only the contract's required flags.";
    CheckId::MovementsChange, Fail, "A printed change value disagrees with the rule's change (wrong value or sign); warns within one unit.",
        why: "A change with the wrong size or sign misstates how far and which way the item moved, and a reader would size the risk on it; a non-numeric change fails too, and within one unit it warns.",
        fix: "Print the change of the rule that fires (formula in the finding): growth as (x - prev)/|prev|, margin moves as the point difference, the receivables gap; one scale per column.";
];

/// A row's item once resolved.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Resolved {
    item: ItemRef,
    /// The item was written as a rule id, which then refers to that rule only.
    only_rule: Option<usize>,
}

/// Contract §9 "§3 items": under a mapped rule that judges one metric, an item whose tokens
/// contain the rule's own words (`receivable`, `receivables`, `ar` under receivables_vs_revenue;
/// `margin` under operating_margin_move) is read through the rule: it is that rule's metric
/// (`receivables_growth_vs_revenue_growth`, `accounts_receivable_vs_revenue`).
fn resolve_through_rule(name: &str, rule: Option<&str>, spec: &Spec) -> Option<Resolved> {
    let r = resolve_rule(rule?, spec)?;
    let RuleItems::Metric(m) = spec.movements.rules[r].items else {
        return None;
    };
    let folded = fold(name);
    let toks: Vec<&str> = tokens(&folded).collect();
    names_rule(&spec.movements.rules[r], &toks).then_some(Resolved {
        item: ItemRef::Metric(m),
        only_rule: Some(r),
    })
}

fn resolve_item(name: &str, spec: &Spec, stmts: &Statements) -> Option<Resolved> {
    // A ratio of two names (`Liabilities / equity`) is the metric that ratio is, or nothing:
    // never the line item its numerator names.
    if let Some((num, den)) = Spec::ratio_sides(name) {
        return spec.metric_for_ratio(num, den).map(|m| Resolved {
            item: ItemRef::Metric(m),
            only_rule: None,
        });
    }
    let folded = fold(name);
    if let Some(r) = spec.rule_index(&folded) {
        if let RuleItems::Metric(m) = spec.movements.rules[r].items {
            return Some(Resolved {
                item: ItemRef::Metric(m),
                only_rule: Some(r),
            });
        }
    }
    if let Some(i) = stmts.item_named(&folded, spec) {
        return Some(Resolved {
            item: ItemRef::Line(i),
            only_rule: None,
        });
    }
    if let Some(m) = spec.metric_named(&folded) {
        return Some(Resolved {
            item: ItemRef::Metric(m),
            only_rule: None,
        });
    }
    abbreviated(&folded, spec, stmts).map(|item| Resolved {
        item,
        only_rule: None,
    })
}

/// §9 token matching: the one item or metric an abbreviated name (`op_income`, `deferred_rev`,
/// `ocf`, `ar`) or a prose name of the spec (`[memo] names`) stands for; none when several fit.
fn abbreviated(folded: &str, spec: &Spec, stmts: &Statements) -> Option<ItemRef> {
    let one = |found: Vec<ItemRef>| -> Option<ItemRef> {
        let mut d: Vec<ItemRef> = Vec::new();
        for f in found {
            if !d.contains(&f) {
                d.push(f);
            }
        }
        match d[..] {
            [x] => Some(x),
            _ => None,
        }
    };
    let prose = |key: &str| {
        spec.memo
            .names
            .get(key)
            .into_iter()
            .flatten()
            .any(|n| fold(n) == folded)
    };
    // The spec's own prose names first (`ar` is accounts receivable), then abbreviations.
    let mut named = Vec::new();
    let mut short = Vec::new();
    for (c, col) in spec.source.columns.iter().enumerate() {
        let Some(i) = stmts.item_index(c) else {
            continue;
        };
        if prose(&col.name) {
            named.push(ItemRef::Line(i));
        }
        if std::iter::once(&col.name)
            .chain(&col.aliases)
            .any(|n| crate::names::abbreviates(folded, &fold(n)))
        {
            short.push(ItemRef::Line(i));
        }
    }
    for (i, item) in stmts.items.iter().enumerate() {
        if item.column.is_none() && crate::names::abbreviates(folded, &item.name) {
            short.push(ItemRef::Line(i));
        }
    }
    for m in 0..spec.metrics.len() {
        if prose(&spec.metrics[m].id) {
            named.push(ItemRef::Metric(m));
        }
        if spec
            .metric_aliases(m)
            .any(|n| crate::names::abbreviates(folded, &fold(n)))
        {
            short.push(ItemRef::Metric(m));
        }
    }
    if !named.is_empty() {
        return one(named);
    }
    if let Some(found) = one(short) {
        return Some(found);
    }
    // `capex_spend`, `revenue_usd_m`: a name followed by words that only describe it.
    let toks: Vec<&str> = crate::names::tokens(folded).collect();
    let describes = |w: &str| {
        matches!(
            w,
            "spend" | "amount" | "value" | "level" | "balance" | "total"
        ) || spec.metrics_file.header_descriptors.iter().any(|d| d == w)
    };
    let mut n = toks.len();
    while n > 1 && describes(toks[n - 1]) {
        n -= 1;
        let head = toks[..n].join("_");
        if let Some(i) = stmts.item_named(&head, spec) {
            return Some(ItemRef::Line(i));
        }
        if let Some(m) = spec.metric_named(&head) {
            return Some(ItemRef::Metric(m));
        }
    }
    // A metric named as a metrics header may name it (§9 "§2 headers"):
    // `cash_conversion_ocf_to_net_income_x`, `roe_pct_avg_total_equity`.
    spec.metric_for_header(folded)
        .map(|(m, _)| ItemRef::Metric(m))
}

/// Map a rule cell to a rule id: folds to an id, else the first rule whose token sequence the
/// folded tokens contain.
fn resolve_rule(text: &str, spec: &Spec) -> Option<usize> {
    let folded = fold(text);
    if let Some(r) = spec.rule_index(&folded) {
        return Some(r);
    }
    let toks: Vec<&str> = tokens(&folded).collect();
    spec.movements
        .rules
        .iter()
        .position(|rule| names_rule(rule, &toks))
}

/// Whether folded tokens contain one of a rule's token sequences (`receivables`, `margin` …).
fn names_rule(rule: &crate::spec::RuleSpec, toks: &[&str]) -> bool {
    rule.tokens.iter().any(|seq| {
        let seq: Vec<&str> = seq.iter().map(String::as_str).collect();
        !seq.is_empty() && toks.windows(seq.len()).any(|w| w == seq.as_slice())
    })
}

/// Contract §9: a change column may hold the absolute change (`x − prev`, in source units for a
/// line item, in the metric's own scale for a metric), and a magnitude column's change may be
/// computed on its signs as printed in the source (capex written as a negative outflow).
fn other_reading(
    ctx: &Context,
    truth: &crate::recompute::Truth,
    flag: &Flag,
    p: &Printed,
    s: Scale,
) -> bool {
    let t = flag.t;
    if t == 0 {
        return false;
    }
    let pair = match flag.item {
        ItemRef::Line(i) => {
            let item = &ctx.stmts.items[i];
            item.value(t - 1).cloned().zip(item.value(t).cloned())
        }
        ItemRef::Metric(m) => {
            let c = &truth.metrics[m].cells[0];
            c[t - 1].value().cloned().zip(c[t].value().cloned())
        }
    };
    let Some((prev, x)) = pair else { return false };
    let diff = &x - &prev;
    // An absolute change is in the item's own units: money as printed, a ratio at the
    // column's scale.
    let unit_scale = match flag.item {
        ItemRef::Line(_) => Scale::Fraction,
        ItemRef::Metric(m) if ctx.spec.metrics[m].unit == crate::spec::Unit::Money => {
            Scale::Fraction
        }
        ItemRef::Metric(_) => s,
    };
    if [diff.clone(), -diff.clone()]
        .iter()
        .any(|d| judge(d, p, &unit_scale.factor()).agreement == Agreement::Pass)
    {
        return true;
    }
    let magnitude =
        matches!(flag.item, ItemRef::Line(i) if ctx.stmts.items[i].is_magnitude(ctx.spec));
    magnitude
        && !prev.is_zero()
        && judge(&(-&diff / prev.abs()), p, &s.factor()).agreement == Agreement::Pass
}

/// A change written in points (`+12.56 pp`, `-9.4 pts`, `3.1 points`): read as a percent, the
/// scale it is printed at.
fn points(cell: &str) -> Option<Printed> {
    let t = cell.trim();
    let lower = t.to_ascii_lowercase();
    let body = ["percentage points", "points", "pts", "ppts", "ppt", "pp"]
        .iter()
        .find_map(|u| lower.strip_suffix(u))?;
    let n = t[..body.len()].trim_end();
    let mut p = parse_number(n)?;
    if p.percent || p.multiple {
        return None;
    }
    p.percent = true;
    p.raw = t.to_string();
    Some(p)
}

/// A change cell's figure: a number, a number of points, or either followed by a note the agent
/// added (`30.9% (vs prior)`, `+22.5 pp gap`): the leading figure is the claim, the words after
/// it describe it. The figure keeps the whole cell as its printed text.
fn change_number(cell: &str) -> Option<Printed> {
    let direct = |t: &str| parse_number(t).or_else(|| points(t));
    if let Some(p) = direct(cell) {
        return Some(p);
    }
    let t = cell.trim();
    // The longest run of leading words that is a figure, with words left over.
    let cuts: Vec<usize> = t
        .char_indices()
        .filter(|(_, c)| c.is_whitespace() || *c == '(')
        .map(|(i, _)| i)
        .collect();
    let p = cuts.iter().rev().find_map(|&i| {
        let head = t[..i].trim_end();
        (!head.is_empty()).then(|| direct(head)).flatten()
    })?;
    let mut p = p;
    p.raw = t.to_string();
    Some(p)
}

/// A line item that is zero in year `t - 1` and non-zero in `t`.
fn zero_base(stmts: &Statements, item: ItemRef, t: usize) -> bool {
    let ItemRef::Line(i) = item else { return false };
    let item = &stmts.items[i];
    matches!((item.value(t - 1), item.value(t)), (Some(p), Some(x)) if p.is_zero() && !x.is_zero())
}

fn rule_applies(spec: &Spec, r: usize, item: ItemRef) -> bool {
    match (&spec.movements.rules[r].items, item) {
        (RuleItems::LineItems, ItemRef::Line(_)) => true,
        (RuleItems::Metric(m), ItemRef::Metric(i)) => *m == i,
        _ => false,
    }
}

fn item_name(spec: &Spec, stmts: &Statements, item: ItemRef) -> String {
    match item {
        ItemRef::Line(i) => stmts.items[i].name.clone(),
        ItemRef::Metric(m) => spec.metrics[m].id.clone(),
    }
}

fn basis_name(spec: &Spec, b: Basis) -> String {
    match b {
        Basis::Rule(r) => spec.movements.rules[r].id.clone(),
        Basis::MetricGrowth { .. } => format!(
            "{} % move of a metric",
            crate::numbers::show_exact(
                &(&spec.movements.extra_growth_threshold * crate::numbers::int(100))
            )
        ),
    }
}

/// The flags that support a row's pair, given the variants the metrics file uses.
fn supporting<'a>(
    truth: &'a Truth,
    metrics: &MetricsReading,
    t: usize,
    item: ItemRef,
) -> Vec<&'a Flag> {
    truth
        .flags
        .iter()
        .filter(|f| f.t == t && f.item == item)
        .filter(|f| match (f.basis, f.item) {
            (Basis::MetricGrowth { variant }, ItemRef::Metric(m)) => variant == metrics.variant(m),
            _ => true,
        })
        .collect()
}

/// A printed change value matched to the flag it was judged against.
#[derive(Clone, Debug)]
pub struct PrintedChange {
    pub t: usize,
    pub flag: Flag,
    pub printed: Printed,
    pub scale: Scale,
    pub location: Location,
    /// Matched only as another reading of the column (an absolute change, a magnitude's
    /// signs), not the rule's change: the metrics file's rule change does not apply.
    pub other_reading: bool,
}

/// What the movements file said, for the consistency family.
#[derive(Clone, Debug, Default)]
pub struct MovementsReading {
    pub changes: Vec<PrintedChange>,
}

struct Judged<'a> {
    row: &'a table::Row,
    t: usize,
    flags: Vec<&'a Flag>,
    printed: Option<Printed>,
}

pub fn check(ctx: &Context, metrics: &MetricsReading, out: &mut Vec<Finding>) -> MovementsReading {
    let mut reading = MovementsReading::default();
    let name = ctx.spec.artifacts.movements.as_str();
    let Some(truth) = ctx.truth else {
        return reading;
    };
    let Some(text) = ctx.text(name, CheckId::MovementsUnreadable, out) else {
        return reading;
    };
    let Some(table) = read_table(text, ctx.spec, name, out) else {
        return reading;
    };
    let mut rows = Rows::default();
    for row in &table.rows {
        judge_row(ctx, truth, metrics, row, &mut rows, out);
    }
    judge_changes(ctx, truth, &table, &rows.judged, &mut reading, out);
    report_missing(ctx, truth, &rows.listed, &mut rows.unknown, out);
    report_unknown(ctx.spec, metrics, name, rows.unknown, out);
    reading
}

/// What the rows of `unusual_movements.csv` said, gathered before the expected flags are
/// matched against them.
#[derive(Default)]
struct Rows<'a> {
    /// Rows whose item vouch could not name (judged after the expected flags: one may be a flag
    /// under a name vouch does not know).
    unknown: Vec<Unknown>,
    /// The (year, item) pairs the file lists.
    listed: HashSet<(usize, ItemRef)>,
    /// (year, item, folded rule) → the row that first listed it.
    first_rows: HashMap<(usize, ItemRef, String), Option<usize>>,
    /// Rows a rule supports, whose printed change is judged next.
    judged: Vec<Judged<'a>>,
}

/// The movements table, or a `movements.parse` finding.
fn read_table(text: &str, spec: &Spec, name: &str, out: &mut Vec<Finding>) -> Option<table::Table> {
    match table::parse(text, spec) {
        Ok(t) => Some(t),
        Err(table::TableError::Csv(e)) => {
            out.push(Finding::fail(CheckId::MovementsParse, e).artifact(name));
            None
        }
        Err(table::TableError::MissingColumn(what, header)) => {
            out.push(
                Finding::fail(
                    CheckId::MovementsParse,
                    format!("no {what} column found in header `{header}`"),
                )
                .artifact(name),
            );
            None
        }
    }
}

/// Which item (and rule) a row names, and its year index (`None` for the first source year or a
/// year outside the source).
fn read_row_item(
    ctx: &Context,
    truth: &Truth,
    metrics: &MetricsReading,
    row: &table::Row,
) -> (Option<Resolved>, Option<usize>) {
    let (spec, stmts) = (ctx.spec, ctx.stmts);
    // Read through the rule when the item is nothing else, or when only that reading has a
    // rule that fires (an `accounts_receivable` row under a receivables rule that fires).
    let through = resolve_through_rule(&row.item, row.rule.as_deref(), spec);
    let plain = resolve_item(&row.item, spec, stmts);
    let row_t = parse_year_label(&row.year)
        .and_then(|y| truth.year_index(y))
        .filter(|&t| t > 0);
    let fires = |r: &Resolved| {
        row_t.is_some_and(|t| {
            let mut f = supporting(truth, metrics, t, r.item);
            if let Some(rule) = r.only_rule {
                f.retain(|x| x.basis == Basis::Rule(rule));
            }
            !f.is_empty()
        })
    };
    // A row naming a rule is read the way that rule fires (`accounts_receivable` under the
    // receivables rule is receivables growth, though its own yoy move fires another rule).
    let named_rule = row.rule.as_deref().and_then(|r| resolve_rule(r, spec));
    let fires_named = |r: &Resolved| {
        named_rule.is_some_and(|nr| {
            row_t.is_some_and(|t| {
                supporting(truth, metrics, t, r.item)
                    .iter()
                    .any(|f| f.basis == Basis::Rule(nr))
            })
        })
    };
    let chosen = match (through, plain) {
        (Some(th), Some(p)) if fires(&th) && !fires(&p) => Some(th),
        (Some(th), Some(p)) if fires_named(&th) && !fires_named(&p) => Some(th),
        (_, Some(p)) => Some(p),
        (th, None) => th,
    };
    (chosen, row_t)
}

/// One row of `unusual_movements.csv`: what it names, whether a rule supports it, and its
/// printed change, gathered in `rows` (its printed change is judged once the column's scale is
/// known).
fn judge_row<'a>(
    ctx: &Context,
    truth: &'a Truth,
    metrics: &MetricsReading,
    row: &'a table::Row,
    rows: &mut Rows<'a>,
    out: &mut Vec<Finding>,
) {
    let (spec, stmts) = (ctx.spec, ctx.stmts);
    let name = spec.artifacts.movements.as_str();
    let loc = Location {
        line: Some(row.line),
        row: Some(row.row),
        ..Default::default()
    };
    let (chosen, row_t) = read_row_item(ctx, truth, metrics, row);
    let Some(res) = chosen else {
        // Judged after the expected flags: it may be one of them under a name vouch does
        // not know (`st_investments`).
        rows.unknown.push(Unknown {
            t: row_t,
            change: row
                .change
                .as_deref()
                .filter(|c| !spec.is_blank(c))
                .and_then(change_number),
            item: row.item.clone(),
            location: Location {
                column: Some("item".into()),
                ..loc
            },
        });
        return;
    };
    let Some(t) = row_t else {
        out.push(
            Finding::fail(
                CheckId::MovementsSpurious,
                format!(
                    "`{}` is not a year after the first source year ({}–{}); no movement can be flagged for it",
                    row.year,
                    truth.years[0],
                    truth.years[truth.years.len() - 1]
                ),
            )
            .artifact(name)
            .at(Location { column: Some("year".into()), ..loc }),
        );
        return;
    };
    let loc = Location {
        year: Some(truth.years[t]),
        ..loc
    };
    rows.listed.insert((t, res.item));
    // Without a rule column, two rows of one item and year that print different changes state
    // different movements (a 15 % move of a margin and its 2-point move), not one twice.
    let rule_key = match row.rule.as_deref() {
        Some(r) => fold(r),
        None => format!("\u{0}{}", row.change.as_deref().unwrap_or_default()),
    };
    if let Some(first) = rows.first_rows.get(&(t, res.item, rule_key.clone())) {
        out.push(
            Finding::warn(
                CheckId::MovementsDuplicateRow,
                format!(
                    "{} in {} is listed again{}",
                    item_name(spec, stmts, res.item),
                    truth.years[t],
                    first
                        .map(|r| format!(" (first in row {r})"))
                        .unwrap_or_default()
                ),
            )
            .artifact(name)
            .at(loc.clone()),
        );
    } else {
        rows.first_rows.insert((t, res.item, rule_key), loc.row);
    }
    let Some(flags) = row_flags(ctx, truth, metrics, row, &res, t, &loc, out) else {
        return;
    };
    let printed = printed_change(spec, row, &loc, out);
    rows.judged.push(Judged {
        row,
        t,
        flags,
        printed,
    });
}

/// The flags that support a listed (year, item), narrowed to the rule the row names when that
/// rule fires; `None`, with its finding, when none does (or the move is from a zero base).
#[allow(clippy::too_many_arguments)]
fn row_flags<'a>(
    ctx: &Context,
    truth: &'a Truth,
    metrics: &MetricsReading,
    row: &table::Row,
    res: &Resolved,
    t: usize,
    loc: &Location,
    out: &mut Vec<Finding>,
) -> Option<Vec<&'a Flag>> {
    let (spec, stmts) = (ctx.spec, ctx.stmts);
    let name = spec.artifacts.movements.as_str();
    let loc = loc.clone();
    let mut flags = supporting(truth, metrics, t, res.item);
    if let Some(r) = res.only_rule {
        flags.retain(|f| f.basis == Basis::Rule(r));
    }
    let item = item_name(spec, stmts, res.item);
    // Contract §9: a flag for a move from a zero base to a non-zero value is an accepted
    // extra, whatever its change says.
    if flags.is_empty() && zero_base(stmts, res.item, t) {
        out.push(
            Finding::info(
                CheckId::MovementsExtraFlag,
                format!(
                    "{item} in {} moves from a zero base to a non-zero value: an accepted extra flag (no rule's \
                     percentage is defined, its change is not judged)",
                    truth.years[t]
                ),
            )
            .artifact(name)
            .at(loc),
        );
        return None;
    }
    if flags.is_empty() {
        out.push(
            Finding::fail(
                CheckId::MovementsSpurious,
                format!(
                    "{item} in {} is flagged but no rule fires for it",
                    truth.years[t]
                ),
            )
            .artifact(name)
            .at(loc),
        );
        return None;
    }
    let named = row
        .rule
        .as_deref()
        .filter(|r| !r.is_empty())
        .and_then(|r| resolve_rule(r, spec))
        .filter(|&r| rule_applies(spec, r, res.item));
    if let Some(r) = named {
        if flags.iter().any(|f| f.basis == Basis::Rule(r)) {
            flags.retain(|f| f.basis == Basis::Rule(r));
        } else {
            out.push(
                Finding::warn(
                    CheckId::MovementsRuleMismatch,
                    format!(
                        "{item} in {}: rule `{}` does not fire, but {} does",
                        truth.years[t],
                        spec.movements.rules[r].id,
                        basis_name(spec, flags[0].basis)
                    ),
                )
                .artifact(name)
                .at(loc.clone()),
            );
        }
    }
    if flags.iter().all(|f| !f.required) {
        out.push(
            Finding::info(
                CheckId::MovementsExtraFlag,
                format!(
                    "{item} in {} is supported by an accepted extra rule ({})",
                    truth.years[t],
                    basis_name(spec, flags[0].basis)
                ),
            )
            .artifact(name)
            .at(loc.clone()),
        );
    }
    Some(flags)
}

/// A row's printed change, or a `movements.change` finding when it is not a number.
fn printed_change(
    spec: &Spec,
    row: &table::Row,
    loc: &Location,
    out: &mut Vec<Finding>,
) -> Option<Printed> {
    let name = spec.artifacts.movements.as_str();
    row.change
        .as_deref()
        .filter(|c| !spec.is_blank(c))
        .and_then(|c| {
            let p = change_number(c);
            if p.is_none() {
                out.push(
                    Finding::fail(
                        CheckId::MovementsChange,
                        format!("change `{c}` is not a number"),
                    )
                    .artifact(name)
                    .at(loc.clone()),
                );
            }
            p
        })
}

/// Each listed row's printed change against its supporting flags' changes, at the scale that
/// fits the whole column.
fn judge_changes(
    ctx: &Context,
    truth: &Truth,
    table: &table::Table,
    judged: &[Judged],
    reading: &mut MovementsReading,
    out: &mut Vec<Finding>,
) {
    // Scale of the change column by fit over all rows' candidate values.
    let pairs: Vec<(Num, Printed)> = judged
        .iter()
        .filter_map(|j| {
            let p = j.printed.as_ref()?;
            let best = j
                .flags
                .iter()
                .flat_map(|f| f.changes.iter())
                .min_by_key(|x| {
                    let a = judge(x, p, &Scale::Fraction.factor()).agreement;
                    let b = judge(x, p, &Scale::Hundred.factor()).agreement;
                    a.min(b)
                })?;
            Some((best.clone(), p.clone()))
        })
        .collect();
    let hint = table.change_header.as_deref().is_some_and(percent_hint);
    let scale = fit_scale(pairs.iter().map(|(x, p)| (x, p)), hint).scale;
    for j in judged {
        let Some(p) = &j.printed else { continue };
        let mut s = if p.percent { Scale::Hundred } else { scale };
        let candidates: Vec<(&Num, &Flag)> = j
            .flags
            .iter()
            .flat_map(|f| f.changes.iter().map(move |c| (c, *f)))
            .collect();
        let best = |s: Scale| {
            candidates
                .iter()
                .map(|(x, f)| (judge(x, p, &s.factor()).agreement, *x, *f))
                .min_by_key(|(a, _, _)| *a)
        };
        let Some((mut best_a, mut x, mut flag)) = best(s) else {
            continue;
        };
        // §9: a row may state its change at the other scale (yoy moves as fractions, point
        // moves in points, in one column); with no `%` written, either is a plausible reading.
        if best_a != Agreement::Pass && !p.percent {
            let other = match s {
                Scale::Fraction => Scale::Hundred,
                Scale::Hundred => Scale::Fraction,
            };
            if let Some((a, x2, f2)) = best(other).filter(|b| b.0 == Agreement::Pass) {
                (best_a, x, flag, s) = (a, x2, f2, other);
            }
        }
        let alternative = best_a != Agreement::Pass && other_reading(ctx, truth, flag, p, s);
        let location = Location {
            line: Some(j.row.line),
            row: Some(j.row.row),
            column: table.change_header.clone(),
            year: Some(truth.years[j.t]),
        };
        reading.changes.push(PrintedChange {
            t: j.t,
            flag: flag.clone(),
            printed: p.clone(),
            scale: s,
            location: location.clone(),
            other_reading: alternative,
        });
        if best_a == Agreement::Pass || alternative {
            continue;
        }
        let f = change_finding(ctx, flag, p, x, s, best_a, truth.years[j.t]);
        let name = ctx.spec.artifacts.movements.as_str();
        out.push(f.artifact(name).at(location));
    }
}

/// The finding for a printed change that matches no supporting flag's change.
fn change_finding(
    ctx: &Context,
    flag: &Flag,
    p: &Printed,
    x: &Num,
    s: Scale,
    best_a: Agreement,
    year: i32,
) -> Finding {
    let (spec, stmts) = (ctx.spec, ctx.stmts);
    let jd = judge(x, p, &s.factor());
    let places = p.decimals.max(0) as u32 + 3;
    let detail = NumberDetail {
        formula: Some(match flag.basis {
            Basis::Rule(r) => spec.movements.rules[r].change.to_string(),
            Basis::MetricGrowth { .. } => spec.movements.extra_growth_change.to_string(),
        }),
        variant: Some(basis_name(spec, flag.basis)),
        scale: Some(s.name().into()),
        ..NumberDetail::judged(x, p, &s.factor(), &jd, Shown::Places(places))
    };
    let item = item_name(spec, stmts, flag.item);
    let negated = judge(&-x.clone(), p, &s.factor()).agreement == Agreement::Pass;
    let f = if best_a == Agreement::Warn {
        Finding::warn(
            CheckId::MovementsChange,
            format!(
                "{item} in {year}: change `{}` is off by more than half a unit of its last digit",
                p.raw
            ),
        )
    } else if negated {
        Finding::fail(
            CheckId::MovementsChange,
            format!("{item} in {year}: change `{}` has the wrong sign", p.raw),
        )
    } else {
        Finding::fail(
            CheckId::MovementsChange,
            format!(
                "{item} in {year}: change `{}` does not match the recomputed change",
                p.raw
            ),
        )
    };
    f.number(detail)
}

/// Every expected (year, item) the file does not list: missing, or (a row of an unknown name
/// with that year and change) the flag under another name.
fn report_missing(
    ctx: &Context,
    truth: &Truth,
    listed: &HashSet<(usize, ItemRef)>,
    unknown: &mut Vec<Unknown>,
    out: &mut Vec<Finding>,
) {
    let (spec, stmts) = (ctx.spec, ctx.stmts);
    let name = spec.artifacts.movements.as_str();
    // Every expected pair must be listed.
    let mut reported: std::collections::HashSet<(usize, ItemRef)> = Default::default();
    for f in truth.expected() {
        if listed.contains(&(f.t, f.item)) || !reported.insert((f.t, f.item)) {
            continue;
        }
        let Basis::Rule(r) = f.basis else { continue };
        let rule = &spec.movements.rules[r];
        let x = &f.changes[0];
        // A row of an unknown name in the same year whose change is this flag's: the flag under
        // a name vouch does not know. Neither missing nor wrong for certain: a warning.
        // (Only the first rows of a year are tried: a hostile file of unknown rows stays linear.)
        let alias = unknown.iter().take(MAX_ALIAS_ROWS).position(|u| {
            u.t == Some(f.t)
                && u.change.as_ref().is_some_and(|p| {
                    f.changes.iter().any(|c| {
                        [Scale::Fraction, Scale::Hundred]
                            .iter()
                            .any(|s| judge(c, p, &s.factor()).agreement <= Agreement::Warn)
                    })
                })
        });
        if let Some(i) = alias {
            let u = unknown.swap_remove(i);
            out.push(
                Finding::warn(
                    CheckId::MovementsUnknownItem,
                    format!(
                        "`{}` is not a name vouch knows, but its year and change `{}` are those \
                         of the flag expected for {} in {}: read as that flag (name the item as \
                         the source does)",
                        u.item,
                        u.change.as_ref().map(|p| p.raw.as_str()).unwrap_or(""),
                        item_name(spec, stmts, f.item),
                        f.year
                    ),
                )
                .artifact(name)
                .at(u.location),
            );
            continue;
        }
        out.push(
            Finding::fail(
                CheckId::MovementsMissing,
                format!(
                    "{} in {} should be flagged by `{}`: change {} {unit}, threshold {}{} {unit}",
                    item_name(spec, stmts, f.item),
                    f.year,
                    rule.id,
                    show(&(x * Scale::Hundred.factor()), 2),
                    if rule.absolute {
                        "|change| ≥ "
                    } else {
                        "change ≥ "
                    },
                    show(&(rule.threshold.clone() * Scale::Hundred.factor()), 0),
                    unit = if matches!(rule.unit, crate::spec::Unit::Points) {
                        "points"
                    } else {
                        "%"
                    },
                ),
            )
            .artifact(name)
            .at(Location {
                year: Some(f.year),
                ..Default::default()
            })
            .number(NumberDetail {
                printed: String::new(),
                recomputed: Some(show(x, 6)),
                formula: Some(rule.change.to_string()),
                variant: Some(rule.id.clone()),
                ..Default::default()
            }),
        );
    }
}

/// The rows whose item is neither a source line item nor a §2 metric, in row order. An item
/// whose name says it is a quantity the contract does not define (`implied_operating_expenses`,
/// `dso_days`: a word of `memo.undefined_quantities`), or that is one of the bundle's own extra
/// metrics (a column of its metrics file that names no §2 metric, `capex_to_revenue_pct`), is
/// not checked (info): its flag may be right, and vouch does not recompute it.
fn report_unknown(
    spec: &Spec,
    metrics: &MetricsReading,
    name: &str,
    mut unknown: Vec<Unknown>,
    out: &mut Vec<Finding>,
) {
    unknown.sort_by_key(|u| u.location.row);
    for u in unknown {
        let folded = crate::names::fold(&u.item);
        let not_checked = if metrics.extra_labels.contains(&folded) {
            Some(format!(
                "`{}` is one of {}'s own extra metrics, which the contract does not define: its \
                 flag is not checked",
                u.item, spec.artifacts.metrics
            ))
        } else if let Some((num, den)) = Spec::ratio_sides(&u.item)
            .filter(|(n, d)| spec.ratio_side(n).is_some() && spec.ratio_side(d).is_some())
        {
            Some(format!(
                "`{}` is a ratio of `{num}` to `{den}` that the contract does not define: its flag \
                 is not checked",
                u.item
            ))
        } else {
            // The label's parentheses are read too (`Operating expenses (derived: …)`).
            let whole = crate::names::fold(&u.item.replace(['(', ')', '[', ']'], " "));
            spec.memo_cues
                .undefined_in(&folded)
                .or_else(|| spec.memo_cues.undefined_in(&whole))
                .map(|q| {
                    format!(
                        "`{}` is a quantity the contract does not define (`{q}`): its flag is not \
                     checked",
                        u.item
                    )
                })
        };
        if let Some(message) = not_checked {
            out.push(
                Finding::info(CheckId::MovementsExtraFlag, message)
                    .artifact(name)
                    .at(u.location),
            );
            continue;
        }
        out.push(
            Finding::fail(
                CheckId::MovementsUnknownItem,
                format!("`{}` is neither a source line item nor a §2 metric", u.item),
            )
            .artifact(name)
            .at(u.location),
        );
    }
}

/// Unknown-item rows tried as aliases of a missing flag (more are plain unknown items).
const MAX_ALIAS_ROWS: usize = 64;

/// A row whose item vouch could not name, kept until the expected flags are matched.
struct Unknown {
    t: Option<usize>,
    change: Option<Printed>,
    item: String,
    location: Location,
}
