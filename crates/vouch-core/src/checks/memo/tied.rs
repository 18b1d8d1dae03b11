//! Tied numbers (contract §5 "Numbers", revised by §9): the judge of the claims
//! [`crate::read::memo::claims`] read. A tied claim must match, under §7, one of its subject's admissible
//! values in one of its years: the value (under the variant the metrics file uses); the value in
//! the year before when its clause or column says so; its change (absolute, relative with either
//! base, points, magnitude); and, against another subject of a comparison, the difference of
//! their rates in points. Candidates that the printed unit cannot stand for are left out (a `%`
//! is not a money value; an `x` is only a multiple or a ratio); when none is left the claim is
//! unverified, not contradicted. A claim tied to a year outside the source is
//! `memo.number_out_of_range`; to an undefined value, contradicted. Every claim ends verified,
//! contradicted or unverified, and is counted in the memo's [`Coverage`].

use super::kpi::variants;
use super::quote;
use crate::checks::metrics::MetricsReading;
use crate::checks::Context;
use crate::numbers::{int, judge, show_auto, show_k, Agreement, Judgement, Num};
use crate::read::memo::claims::{Claim, Only, Op, Roles, Subject, Target};
use crate::read::memo::numbers::Unit;
use crate::read::memo::vocabulary::Entity;
use crate::recompute::Truth;
use crate::report::CheckId;
use crate::report::{Coverage, Finding, Location, NumberDetail};
use num_traits::{Signed, Zero};
use std::collections::HashMap;

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Kind {
    Value,
    Prior,
    Change,
    Relative,
    /// A difference of two rates, in points.
    Difference,
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
            (Kind::Relative, _) | (Kind::Value | Kind::Prior, true) => {
                format!("{}%", show_auto(&(&self.value * int(100))))
            }
            (Kind::Change, true) | (Kind::Difference, _) => {
                format!("{} points", show_auto(&(&self.value * int(100))))
            }
            _ => show_auto(&self.value),
        }
    }
}

fn entity_name(ctx: &Context, e: Entity) -> String {
    match e {
        Entity::Item(i) => ctx.stmts.items[i].name.replace('_', " "),
        Entity::AbsentColumn(c) => ctx.spec.source.columns[c].name.replace('_', " "),
        Entity::Derived => "a derived measure".to_string(),
        Entity::Measure(k) => ctx.spec.measures[k].id.replace('_', " "),
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
        Entity::Measure(k) => ctx.spec.measures[k]
            .formulas
            .iter()
            .zip(&truth.measures[k])
            .map(|(f, cells)| {
                (
                    format!(" ({})", f.name),
                    cells.iter().map(|c| c.value().cloned()).collect(),
                )
            })
            .collect(),
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

/// What a subject's values are: rates (ratio metrics and ratios of two items), multiples, or
/// money.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Nature {
    Rate,
    Multiple,
    Money,
    Days,
}

fn nature(ctx: &Context, s: Subject) -> Nature {
    match s {
        Subject::Ratio(..) => Nature::Rate,
        Subject::Combined(..) => Nature::Money,
        Subject::One(Entity::Metric(m)) => match ctx.spec.metrics[m].unit {
            crate::spec::Unit::Ratio | crate::spec::Unit::Points => Nature::Rate,
            crate::spec::Unit::Multiple => Nature::Multiple,
            crate::spec::Unit::Money => Nature::Money,
        },
        Subject::One(Entity::Measure(k)) => match ctx.spec.measures[k].unit {
            crate::spec::MeasureUnit::Days => Nature::Days,
            crate::spec::MeasureUnit::Ratio => Nature::Rate,
            crate::spec::MeasureUnit::Multiple => Nature::Multiple,
        },
        Subject::One(_) => Nature::Money,
    }
}

fn subject_name(ctx: &Context, s: Subject) -> String {
    match s {
        Subject::One(e) => entity_name(ctx, e),
        Subject::Ratio(a, b) => format!("{} / {}", entity_name(ctx, a), entity_name(ctx, b)),
        Subject::Combined(a, op, b) => format!(
            "{} {} {}",
            entity_name(ctx, a),
            if op == Op::Plus { "+" } else { "−" },
            entity_name(ctx, b)
        ),
    }
}

/// A magnitude column the source writes with negative values (read as their magnitudes).
fn written_negative(ctx: &Context, s: Subject) -> bool {
    let Subject::One(Entity::Item(i)) = s else {
        return false;
    };
    let item = &ctx.stmts.items[i];
    item.is_magnitude(ctx.spec)
        && ctx.stmts.problems.iter().any(|p| {
            matches!(p, crate::source::Problem::Magnitude { header, .. }
                if item.header.as_deref() == Some(header.as_str()))
        })
}

/// A magnitude column (capex, interest): its sign is a convention, so either sign is the value.
fn magnitude(ctx: &Context, s: Subject) -> bool {
    matches!(s, Subject::One(Entity::Item(i)) if ctx.stmts.items[i].is_magnitude(ctx.spec))
}

/// The series of a subject: one per variant in use (a ratio is the ratio of the two first ones).
fn subject_series(
    ctx: &Context,
    truth: &Truth,
    metrics: &MetricsReading,
    s: Subject,
    t: usize,
) -> Vec<(String, Vec<Option<Num>>)> {
    match s {
        Subject::One(e) => series(ctx, truth, metrics, e, t),
        // A measure is not combined with anything: such a figure has no candidate.
        Subject::Combined(Entity::Measure(_), ..)
        | Subject::Combined(_, _, Entity::Measure(_))
        | Subject::Ratio(Entity::Measure(_), _)
        | Subject::Ratio(_, Entity::Measure(_)) => Vec::new(),
        Subject::Combined(a, op, b) => {
            let (Some((_, sa)), Some((_, sb))) = (
                series(ctx, truth, metrics, a, t).into_iter().next(),
                series(ctx, truth, metrics, b, t).into_iter().next(),
            ) else {
                return Vec::new();
            };
            // A magnitude column (capex) enters with its sign as a convention: `OCF - capex`
            // subtracts the outflow whichever sign the source gives it.
            let (ma, mb) = (
                magnitude(ctx, Subject::One(a)),
                magnitude(ctx, Subject::One(b)),
            );
            let combined = sa
                .iter()
                .zip(&sb)
                .map(|(x, y)| match (x, y) {
                    (Some(x), Some(y)) => {
                        let x = if ma { x.abs() } else { x.clone() };
                        let y = if mb { y.abs() } else { y.clone() };
                        Some(if op == Op::Plus { &x + &y } else { &x - &y })
                    }
                    _ => None,
                })
                .collect();
            vec![(String::new(), combined)]
        }
        Subject::Ratio(a, b) => {
            let (Some((_, sa)), Some((_, sb))) = (
                series(ctx, truth, metrics, a, t).into_iter().next(),
                series(ctx, truth, metrics, b, t).into_iter().next(),
            ) else {
                return Vec::new();
            };
            let ratio = sa
                .iter()
                .zip(&sb)
                .map(|(x, y)| match (x, y) {
                    (Some(x), Some(y)) if !y.is_zero() => Some(x / y),
                    _ => None,
                })
                .collect();
            vec![(String::new(), ratio)]
        }
    }
}

/// A subject's rates in year `t`: its value when it is a rate, and its relative change.
fn rates(ctx: &Context, truth: &Truth, metrics: &MetricsReading, s: Subject, t: usize) -> Vec<Num> {
    let mut out = Vec::new();
    for (_, v) in subject_series(ctx, truth, metrics, s, t) {
        let Some(Some(x)) = v.get(t) else { continue };
        if nature(ctx, s) == Nature::Rate {
            out.push(x.clone());
        }
        if let Some(Some(p)) = t.checked_sub(1).and_then(|u| v.get(u)) {
            if !p.is_zero() {
                out.push((x - p) / p.abs());
            }
        }
    }
    out
}

fn push_signed(out: &mut Vec<Candidate>, what: String, kind: Kind, c: Num) {
    // The magnitude first, then the signed value when it differs.
    let neg = c.is_negative();
    out.push(Candidate {
        what: what.clone(),
        kind,
        value: c.abs(),
    });
    if neg {
        out.push(Candidate {
            what,
            kind,
            value: c,
        });
    }
}

fn candidates(
    ctx: &Context,
    truth: &Truth,
    metrics: &MetricsReading,
    s: Subject,
    t: usize,
    roles: &Roles,
) -> Vec<Candidate> {
    let mut out = Vec::new();
    if roles.aggregate {
        // The sum of the values over the span, when every year of it is defined.
        if let Some((a, b)) = roles.span {
            if let (Some(ta), Some(tb)) = (truth.year_index(a), truth.year_index(b)) {
                for (variant, series) in subject_series(ctx, truth, metrics, s, t) {
                    let total = series[ta.min(tb)..=tb.max(ta)]
                        .iter()
                        .try_fold(Num::zero(), |acc, v| v.as_ref().map(|v| &acc + v));
                    if let Some(total) = total {
                        out.push(Candidate {
                            what: format!("sum {a}–{b}{variant}"),
                            kind: Kind::Value,
                            value: total,
                        });
                    }
                }
            }
        }
        return out;
    }
    let values = matches!(roles.only, Only::Any | Only::Value);
    let changes = matches!(roles.only, Only::Any | Only::Change);
    let prior = match roles.only {
        Only::Any => roles.prior,
        Only::Prior => true,
        Only::Value | Only::Change => false,
    };
    let flip = magnitude(ctx, s);
    for (variant, series) in subject_series(ctx, truth, metrics, s, t) {
        let x = series.get(t).cloned().flatten();
        let p = t
            .checked_sub(1)
            .and_then(|u| series.get(u))
            .cloned()
            .flatten();
        // The value and the prior-year value, each also as a negative outflow for a magnitude.
        let levels = [
            (values, &x, Kind::Value, "value"),
            (prior, &p, Kind::Prior, "prior-year value"),
        ];
        for (wanted, v, kind, what) in levels {
            let (true, Some(v)) = (wanted, v) else {
                continue;
            };
            out.push(Candidate {
                what: format!("{what}{variant}"),
                kind,
                value: v.clone(),
            });
            if flip && !v.is_zero() {
                out.push(Candidate {
                    what: format!("{what}{variant} (as a negative outflow)"),
                    kind,
                    value: -v.clone(),
                });
            }
        }
        if !changes {
            continue;
        }
        let (Some(x), Some(p)) = (x, p) else { continue };
        let diff = &x - &p;
        // A magnitude the source writes negative (outflows as `-120.0`): its change in the
        // source's own signs is the opposite of the magnitude's.
        if written_negative(ctx, s) && !diff.is_zero() {
            out.push(Candidate {
                what: format!("change{variant} (of the outflow)"),
                kind: Kind::Change,
                value: -diff.clone(),
            });
            if !p.is_zero() {
                out.push(Candidate {
                    what: format!("relative change{variant} (of the outflow)"),
                    kind: Kind::Relative,
                    value: -(&diff / p.abs()),
                });
            }
        }
        push_signed(
            &mut out,
            format!("change{variant}"),
            Kind::Change,
            diff.clone(),
        );
        if !p.is_zero() {
            push_signed(
                &mut out,
                format!("relative change{variant}"),
                Kind::Relative,
                &diff / p.abs(),
            );
            if p.is_negative() {
                push_signed(
                    &mut out,
                    format!("relative change (signed base){variant}"),
                    Kind::Relative,
                    &diff / &p,
                );
            }
        }
    }
    if let (true, Some((a, b))) = (changes, roles.span) {
        if let (Some(ta), Some(tb)) = (truth.year_index(a), truth.year_index(b)) {
            if tb == t {
                for (variant, series) in subject_series(ctx, truth, metrics, s, t) {
                    if let (Some(Some(xa)), Some(Some(xb))) = (series.get(ta), series.get(tb)) {
                        let d = xb - xa;
                        push_signed(
                            &mut out,
                            format!("change {a}–{b}{variant}"),
                            Kind::Change,
                            d.clone(),
                        );
                        if !xa.is_zero() {
                            push_signed(
                                &mut out,
                                format!("relative change {a}–{b}{variant}"),
                                Kind::Relative,
                                &d / xa.abs(),
                            );
                        }
                        // `across FY2021-FY2024`: from the span's opening balance (the year
                        // before its first) to its last.
                        if let Some(Some(x0)) = ta.checked_sub(1).and_then(|u| series.get(u)) {
                            push_signed(
                                &mut out,
                                format!("change from the opening of {a}–{b}{variant}"),
                                Kind::Change,
                                xb - x0,
                            );
                        }
                        if let Some(r) = compound_rate(xa, xb, tb.abs_diff(ta)) {
                            push_signed(
                                &mut out,
                                format!("compound annual growth {a}–{b}{variant}"),
                                Kind::Relative,
                                r,
                            );
                        }
                    }
                }
            }
        }
    }
    if changes {
        let mine = if roles.against.is_empty() {
            Vec::new()
        } else {
            rates(ctx, truth, metrics, s, t)
        };
        for &o in &roles.against {
            let theirs = rates(ctx, truth, metrics, o, t);
            for a in &mine {
                for b in &theirs {
                    push_signed(
                        &mut out,
                        format!("difference from {}", subject_name(ctx, o)),
                        Kind::Difference,
                        a - b,
                    );
                }
            }
        }
    }
    out
}

/// The compound annual growth rate from `a` to `b` over `years` years, `(b/a)^(1/years) − 1`:
/// defined when both are positive. Irrational in general, so computed in floating point and
/// kept to 12 decimal places (far finer than any printed rate).
fn compound_rate(a: &Num, b: &Num, years: usize) -> Option<Num> {
    use num_traits::ToPrimitive;
    if years < 2 || !a.is_positive() || !b.is_positive() {
        return None;
    }
    let q = b / a;
    let f = q.numer().to_f64()? / q.denom().to_f64()?;
    let r = f.powf(1.0 / years as f64) - 1.0;
    let scaled = (r * 1e12).round();
    scaled
        .is_finite()
        .then(|| Num::ratio(scaled as i128, 1_000_000_000_000))
}

/// The scales under which a printed unit may stand for a candidate of a subject's nature; empty
/// when it cannot (a `%` is not a money value; an `x` only a multiple or a ratio).
fn scales(unit: Unit, kind: Kind, nature: Nature) -> &'static [i64] {
    use Kind::*;
    use Nature::*;
    match (unit, kind, nature) {
        (Unit::Unresolved, _, _) => &[],
        (Unit::Days, Value | Prior | Change, Days) => &[1],
        (Unit::Days, _, _) => &[],
        (Unit::Bare, Value | Prior | Change, Days) => &[1],
        (Unit::Percent, Value | Prior | Change, Rate) => &[100],
        (Unit::Percent, Relative | Difference, _) => &[100],
        (Unit::Percent, _, _) => &[],
        (Unit::Points, Change, Rate) | (Unit::Points, Difference, _) => &[100],
        (Unit::BasisPoints, Change, Rate) | (Unit::BasisPoints, Difference, _) => &[10_000],
        (Unit::Points | Unit::BasisPoints, _, _) => &[],
        (Unit::Multiple, Value | Prior | Change, Multiple | Rate) => &[1],
        (Unit::Multiple, _, _) => &[],
        (Unit::Bare, Value | Prior | Change, Money | Multiple) => &[1],
        (Unit::Bare, _, _) => &[1, 100],
    }
}

/// The result of judging one claim.
enum Outcome {
    Verified,
    Contradicted,
    Unverified(String),
}

/// Judges every claim; unverified ones are listed as info with their reason.
pub fn check(
    ctx: &Context,
    truth: &Truth,
    metrics: &MetricsReading,
    claims: &[Claim],
    coverage: &mut Coverage,
    out: &mut Vec<Finding>,
) {
    let mut cache: Cache = HashMap::new();
    for c in claims {
        let outcome = match &c.target {
            Target::Unverified(why) => Outcome::Unverified(why.clone()),
            Target::Ambiguous(why) => {
                if plausibly(ctx, truth, metrics, c, &mut cache) {
                    Outcome::Verified
                } else {
                    Outcome::Unverified(why.clone())
                }
            }
            Target::Tied {
                subject,
                years,
                roles,
                certain,
                own_years,
            } => {
                let mut found = Vec::new();
                let o = judge_claim(
                    ctx, truth, metrics, c, *subject, years, roles, &mut cache, &mut found,
                );
                let out_of_range =
                    *own_years && found.iter().any(|f| f.id == CheckId::MemoNumberOutOfRange);
                match o {
                    Outcome::Verified if found.is_empty() => Outcome::Verified,
                    // A certain compound rate is judged on its own reading: the single years'
                    // values and growth its sentence makes plausible are not what it says.
                    _ if !(out_of_range || *certain && roles.compound)
                        && plausibly(ctx, truth, metrics, c, &mut cache) =>
                    {
                        Outcome::Verified
                    }
                    Outcome::Contradicted if !certain && !out_of_range => Outcome::Unverified(
                        "it matches none of the readings its sentence allows, but which item or \
                         year it is of is not certain (other items or an undefined quantity in \
                         its clause, or a year named elsewhere)"
                            .into(),
                    ),
                    o => {
                        out.extend(found);
                        o
                    }
                }
            }
        };
        match outcome {
            Outcome::Verified => coverage.verified += 1,
            Outcome::Contradicted => coverage.contradicted += 1,
            Outcome::Unverified(why) => {
                coverage.unverified += 1;
                out.push(
                    Finding::info(
                        CheckId::MemoUnverifiedNumber,
                        format!(
                            "`{}` in “{}” is unverified: {why}",
                            c.number.printed.raw,
                            quote(&c.context)
                        ),
                    )
                    .line(c.line)
                    .quoting(c.number.printed.raw.clone()),
                );
            }
        }
    }
}

/// Whether one of the readings the claim's sentence makes plausible matches it exactly.
fn plausibly(
    ctx: &Context,
    truth: &Truth,
    metrics: &MetricsReading,
    c: &Claim,
    cache: &mut Cache,
) -> bool {
    let p = &c.plausible;
    let mut years = p.years.clone();
    if p.earlier {
        let last = years.iter().copied().max().unwrap_or(i32::MAX);
        for &y in &truth.years {
            if y <= last && !years.contains(&y) {
                years.push(y);
            }
        }
    }
    years.retain(|&y| truth.year_index(y).is_some());
    // Nothing in its paragraph names a year: the latest year, the memo's present.
    if years.is_empty() && p.years.is_empty() {
        years.extend(truth.years.last());
    }
    if years.is_empty() {
        return false;
    }
    p.subjects.iter().any(|s| {
        let roles = Roles {
            prior: true,
            only: Only::Any,
            // Differences of rates only stand for rates.
            against: if p.against
                && matches!(
                    c.number.unit,
                    Unit::Percent | Unit::Points | Unit::BasisPoints
                ) {
                p.subjects.iter().copied().filter(|o| o != s).collect()
            } else {
                Vec::new()
            },
            span: p.span,
            aggregate: false,
            compound: false,
        };
        let mut scratch = Vec::new();
        let o = judge_claim(
            ctx,
            truth,
            metrics,
            c,
            *s,
            &years,
            &roles,
            cache,
            &mut scratch,
        );
        matches!(o, Outcome::Verified) && scratch.is_empty()
    })
}

type CacheKey = (
    Subject,
    usize,
    (bool, Only, bool),
    Option<(i32, i32)>,
    Vec<Subject>,
);
type Cache = HashMap<CacheKey, Vec<Candidate>>;

#[allow(clippy::too_many_arguments)]
fn judge_claim(
    ctx: &Context,
    truth: &Truth,
    metrics: &MetricsReading,
    claim: &Claim,
    subject: Subject,
    years: &[i32],
    roles: &Roles,
    cache: &mut Cache,
    out: &mut Vec<Finding>,
) -> Outcome {
    let n = &claim.number;
    let p = &n.printed;
    let name = || subject_name(ctx, subject);
    let sentence = || quote(&claim.context);
    let detail = || NumberDetail {
        printed: p.raw.clone(),
        interval: Some(p.interval().to_string()),
        scale: Some(n.unit.name().into()),
        ..Default::default()
    };
    let located: Vec<(i32, usize)> = years
        .iter()
        .filter_map(|&y| truth.year_index(y).map(|t| (y, t)))
        .collect();
    if located.is_empty() {
        if let [year] = years {
            let year = *year;
            out.push(
                Finding::fail(
                    CheckId::MemoNumberOutOfRange,
                    format!(
                        "“{}” ties `{}` to {} in {year}, a year the source does not contain; the data cannot \
                         support a figure for it",
                        sentence(),
                        p.raw,
                        name()
                    ),
                )
                .at(Location {
                    line: Some(claim.line),
                    year: Some(year),
                    ..Default::default()
                })
                .number(detail()),
            );
            return Outcome::Contradicted;
        }
        return Outcome::Unverified("none of its years is in the source".into());
    }
    let nat = nature(ctx, subject);
    let negative = n.parenthesised.then(|| {
        let mut neg = p.clone();
        neg.value = -neg.value.clone();
        neg
    });
    let readings: Vec<&crate::numbers::Printed> =
        std::iter::once(p).chain(negative.as_ref()).collect();
    let mut any_raw = false;
    let mut any_fit = false;
    // The nearest candidate so far: (judgement, year, year index, candidate index, scale). Its
    // words are written only when a finding needs them.
    let mut best: Option<(Judgement, i32, usize, usize, i64)> = None;
    let key_of = |t: usize| {
        (
            subject,
            t,
            (roles.prior, roles.only, roles.aggregate),
            roles.span,
            roles.against.clone(),
        )
    };
    for &(year, t) in &located {
        let cands = cache
            .entry(key_of(t))
            .or_insert_with(|| candidates(ctx, truth, metrics, subject, t, roles));
        any_raw |= !cands.is_empty();
        for (ci, c) in cands.iter().enumerate() {
            let sc = scales(n.unit, c.kind, nat);
            if sc.is_empty() {
                continue;
            }
            any_fit = true;
            for &scale in sc {
                for &r in &readings {
                    let j = judge(&c.value, r, &int(scale));
                    if j.agreement == Agreement::Pass {
                        return Outcome::Verified;
                    }
                    let better = best
                        .as_ref()
                        .is_none_or(|(b, ..)| (j.agreement, &j.k) < (b.agreement, &b.k));
                    if better {
                        best = Some((j, year, t, ci, scale));
                    }
                }
            }
        }
    }
    // What the message lists: every candidate that fits the unit, once.
    let listed = || {
        let mut listed: Vec<String> = Vec::new();
        for &(year, t) in &located {
            let Some(cands) = cache.get(&key_of(t)) else {
                continue;
            };
            for c in cands
                .iter()
                .filter(|c| !scales(n.unit, c.kind, nat).is_empty())
            {
                let prefix = if located.len() > 1 {
                    format!("{year}: ")
                } else {
                    String::new()
                };
                let entry = format!("{prefix}{} {}", c.what, c.show(nat == Nature::Rate));
                let signed_change =
                    c.value.is_negative() && c.kind != Kind::Value && c.kind != Kind::Prior;
                if !signed_change && !listed.contains(&entry) {
                    listed.push(entry);
                }
            }
        }
        listed
    };
    if !any_raw {
        // Undefined in every year: a single-year claim on a defined subject is wrong for certain.
        if let ([(year, _)], Subject::One(_)) = (&located[..], subject) {
            if roles.against.is_empty() {
                let mut d = detail();
                d.recomputed = Some("undefined".into());
                out.push(
                    Finding::fail(
                        CheckId::MemoContradictedNumber,
                        format!(
                            "“{}” ties `{}` to {} in {year}, but that value is undefined in the source (a missing \
                             input, no prior year or a zero denominator)",
                            sentence(),
                            p.raw,
                            name()
                        ),
                    )
                    .at(Location {
                        line: Some(claim.line),
                        year: Some(*year),
                        ..Default::default()
                    })
                    .number(d),
                );
                return Outcome::Contradicted;
            }
        }
        return Outcome::Unverified(format!("{} is undefined in its years", name()));
    }
    if !any_fit {
        return Outcome::Unverified(format!(
            "a {} figure next to {}, which is not measured in that unit",
            n.unit.name(),
            name()
        ));
    }
    let Some((j, year, bt, bi, scale)) = best else {
        return Outcome::Unverified("nothing to compare it with".into());
    };
    let bc = &cache[&key_of(bt)][bi];
    let (what, shown, best_value) = (
        bc.what.clone(),
        bc.show(nat == Nature::Rate),
        bc.value.clone(),
    );
    let listed = listed();
    let mut d = detail();
    d.k = Some(show_k(&j.k));
    d.recomputed = Some(show_auto(&(&best_value * int(scale))));
    let years_text = if located.len() > 1 {
        format!(
            "in {}",
            located
                .iter()
                .map(|(y, _)| y.to_string())
                .collect::<Vec<_>>()
                .join(" or ")
        )
    } else {
        format!("in {year}")
    };
    let msg = format!(
        "“{}” ties `{}` to {} {years_text}, but it matches none of its recomputed values ({}); \
         nearest is the {what} {shown} (k = {} in units of the printed number's last digit)",
        sentence(),
        p.raw,
        name(),
        listed.join(", "),
        show_k(&j.k)
    );
    let f = if j.agreement == Agreement::Warn {
        Finding::warn(CheckId::MemoContradictedNumber, msg)
    } else {
        Finding::fail(CheckId::MemoContradictedNumber, msg)
    };
    out.push(
        f.at(Location {
            line: Some(claim.line),
            year: Some(year),
            ..Default::default()
        })
        .number(d),
    );
    if j.agreement == Agreement::Warn {
        Outcome::Verified
    } else {
        Outcome::Contradicted
    }
}
