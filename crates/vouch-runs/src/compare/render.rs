//! Renderers for a [`Comparison`]: a human report for the terminal, the versioned JSON document
//! (schema `vouch.compare`), and Markdown to paste into a pull request.
//!
//! All three show the same facts: the verdict, each side's rates with Wilson 95 % intervals, and
//! the differences with raw and Holm-adjusted p-values. Checks that never failed on either side
//! are summarised by count in the human and Markdown outputs and listed in full in JSON. When
//! some run was repaired (`vouch run --repair`), each side's first-pass and after-repair accept
//! rates side by side, and the first-pass difference for information.

use super::{Change, Comparison, Design, Difference, Proportion, Side};
use crate::plot;
use serde_json::{json, Value};
use std::fmt::Write;

/// Bump when a field changes meaning or disappears; adding fields keeps the version.
pub const SCHEMA_VERSION: u32 = 1;

/// What to call the two sides (usually the paths given on the command line).
#[derive(Clone, Copy, Debug)]
pub struct Names<'a> {
    pub baseline: &'a str,
    pub candidate: &'a str,
}

/// "1 error", "2 errors".
fn count(n: u64, noun: &str) -> String {
    format!("{n} {noun}{}", if n == 1 { "" } else { "s" })
}

/// How an endpoint is named in tables.
fn row_name(id: &str) -> String {
    match id {
        super::ACCEPT => "**accept rate**".to_string(),
        super::RUN_ERROR => format!("`{}` (could not verify)", cell(id)),
        _ => format!("`{}` failures", cell(id)),
    }
}

pub(crate) fn percent(p: Option<f64>) -> String {
    p.map_or_else(|| "n/a".to_string(), |p| format!("{:.1}%", p * 100.0))
}

pub(crate) fn points(d: Option<f64>) -> String {
    d.map_or_else(|| "n/a".to_string(), |d| format!("{:+.1} pt", d * 100.0))
}

/// p-values: three decimals, or scientific notation below 0.001 so small ones stay readable.
pub(crate) fn p_value(p: f64) -> String {
    if p >= 0.001 {
        format!("{p:.3}")
    } else {
        format!("{p:.1e}")
    }
}

pub(crate) fn interval(p: &Proportion) -> String {
    format!(
        "[{}, {}]",
        percent(Some(p.ci.low)),
        percent(Some(p.ci.high))
    )
}

pub(crate) fn design_text(c: &Comparison) -> String {
    let asymptotic = |t: super::Test| c.checks.iter().chain([&c.accept]).any(|d| d.test == t);
    match &c.design {
        Design::Paired { pairs } => format!(
            "paired by (source, trial): {}, McNemar's {}",
            count(*pairs, "pair"),
            if asymptotic(super::Test::McNemarChiSquare) {
                "exact test (chi-square above the exact limit)"
            } else {
                "exact test"
            }
        ),
        Design::Independent { reason } => format!(
            "independent samples ({reason}), Fisher's {}",
            if asymptotic(super::Test::TwoProportionZ) {
                "exact test (two-proportion z above the exact limit)"
            } else {
                "exact test"
            }
        ),
    }
}

/// How the sides were tested and corrected: the second line of the human report.
pub(crate) fn method_text(c: &Comparison) -> String {
    format!(
        "{}, Holm–Bonferroni over {} endpoint{} at alpha {}",
        design_text(c),
        c.family_size,
        if c.family_size == 1 { "" } else { "s" },
        c.alpha
    )
}

pub(crate) fn verdict_text(c: &Comparison) -> String {
    let regressions = c.regressions();
    if let super::Decision::Inconclusive { needed } = c.decision() {
        format!(
            "{} and {} runs cannot rule out a {}-point drop in the accept rate at alpha {}; about {needed} runs per side can",
            c.accept.baseline.n,
            c.accept.candidate.n,
            show_points(c.min_effect),
            c.alpha
        )
    } else if regressions.is_empty() {
        "no significant regression".to_string()
    } else {
        let names: Vec<String> = regressions.iter().map(|d| endpoint_name(d)).collect();
        format!("candidate is significantly worse on {}", names.join(", "))
    }
}

/// A fraction as points (`0.1` → `10`, `0.025` → `2.5`).
fn show_points(f: f64) -> String {
    let p = (f * 1000.0).round() / 10.0;
    if p.fract() == 0.0 {
        format!("{p:.0}")
    } else {
        format!("{p}")
    }
}

/// The decision's word.
pub(crate) fn decision_word(c: &Comparison) -> &'static str {
    match c.decision() {
        super::Decision::Worse => "worse",
        super::Decision::Inconclusive { .. } => "inconclusive",
        super::Decision::NotWorse => "not worse",
    }
}

pub(crate) fn endpoint_name(d: &Difference) -> String {
    if d.endpoint == super::ACCEPT {
        "accept rate".to_string()
    } else {
        d.endpoint.clone()
    }
}

fn mark(change: Change) -> &'static str {
    match change {
        Change::Worse => "WORSE",
        Change::Better => "better",
        Change::Same => "",
    }
}

/// Checks that failed at least once on this side, by id.
fn failing(side: &Side) -> Vec<&(String, Proportion)> {
    side.checks.iter().filter(|(_, p)| p.count > 0).collect()
}

pub(crate) fn pass_k_text(side: &Side) -> Option<String> {
    if side.pass_k.is_empty() {
        return None;
    }
    let figures: Vec<String> = side
        .pass_k
        .iter()
        .map(|(k, v)| format!("k={k} {v:.3}"))
        .collect();
    Some(format!(
        "{} (over {} input{})",
        figures.join("  "),
        side.inputs,
        if side.inputs == 1 { "" } else { "s" }
    ))
}

/// The first-pass difference (candidate − baseline) with Newcombe's 95 % interval:
/// `+33.3 pt [-31.4, +74.2]`.
pub(crate) fn first_pass_difference_text(c: &Comparison) -> String {
    let (b, k) = c.first_pass();
    let d = k.rate().zip(b.rate()).map(|(k, b)| k - b);
    match super::html::difference_interval(&b, &k) {
        Some(i) => format!(
            "{} [{:+.1}, {:+.1}]",
            points(d),
            i.low * 100.0,
            i.high * 100.0
        ),
        None => points(d),
    }
}

/// What the first-pass difference is, after its figures.
pub(crate) const FIRST_PASS_NOTE: &str =
    "informational, not tested: the decision is on the final verdicts";

/// The sides' first pass and after repair, side by side (human report).
fn repair_human(out: &mut String, c: &Comparison) {
    let cells = |side: &Side| {
        [
            plot::proportion_text(&side.repair.first_pass()),
            plot::proportion_text(&side.repair.after_repair()),
            side.repair.repaired_text(),
        ]
    };
    let (b, k) = (cells(&c.baseline), cells(&c.candidate));
    let width = b.iter().map(|s| s.chars().count()).max().unwrap_or(0);
    let _ = writeln!(out, "\nfirst pass and after repair (vouch run --repair):");
    let _ = writeln!(out, "  {:<12}  {:<width$}  candidate", "", "baseline");
    for (i, name) in ["first pass", "after repair", "repaired"]
        .iter()
        .enumerate()
    {
        let _ = writeln!(out, "  {name:<12}  {:<width$}  {}", b[i], k[i]);
    }
    let _ = writeln!(
        out,
        "  first-pass difference (candidate − baseline): {}; {FIRST_PASS_NOTE}",
        first_pass_difference_text(c)
    );
}

/// The terminal report.
pub fn human(c: &Comparison, names: Names) -> String {
    let mut out = String::new();
    let verdict = verdict_text(c);
    let _ = writeln!(out, "{}: {verdict}", decision_word(c));
    let _ = writeln!(out, "  {}", method_text(c));
    for (title, name, side) in [
        ("baseline", names.baseline, &c.baseline),
        ("candidate", names.candidate, &c.candidate),
    ] {
        let _ = writeln!(
            out,
            "\n{title} {name}: {}, {} accepted, {} rejected, {}",
            count(side.runs, "run"),
            side.accepted,
            side.rejected,
            count(side.errors, "error")
        );
        let _ = writeln!(
            out,
            "  accept rate {} {}",
            percent(side.accept.rate()),
            interval(&side.accept)
        );
        if let Some(text) = pass_k_text(side) {
            let _ = writeln!(out, "  pass^k {text}");
        }
        let rows = failing(side);
        let width = rows.iter().map(|(id, _)| id.len()).max().unwrap_or(0);
        for (id, p) in &rows {
            let _ = writeln!(
                out,
                "  {id:<width$}  {:>11}  {:>6}  {}",
                format!("{}/{}", p.count, p.n),
                percent(p.rate()),
                interval(p)
            );
        }
        let quiet = side.checks.len() - rows.len();
        if quiet > 0 {
            let _ = writeln!(
                out,
                "  ({quiet} other check{} never failed)",
                if quiet == 1 { "" } else { "s" }
            );
        }
    }
    if c.repaired() {
        repair_human(&mut out, c);
    }

    let _ = writeln!(out, "\ndifferences (candidate − baseline), by adjusted p:");
    let rows: Vec<&Difference> = std::iter::once(&c.accept)
        .chain(c.checks.iter().filter(|d| d.in_family))
        .collect();
    let width = rows
        .iter()
        .map(|d| endpoint_name(d).len())
        .max()
        .unwrap_or(0)
        .max("endpoint".len());
    let _ = writeln!(
        out,
        "  {:<width$}  {:>8}  {:>9}  {:>10}  {:>8}  {:>8}",
        "endpoint", "baseline", "candidate", "difference", "p", "adj. p"
    );
    for d in rows {
        let line = format!(
            "  {:<width$}  {:>8}  {:>9}  {:>10}  {:>8}  {:>8}  {}",
            endpoint_name(d),
            percent(d.baseline.rate()),
            percent(d.candidate.rate()),
            points(d.difference()),
            p_value(d.p),
            p_value(d.p_adjusted),
            mark(d.change)
        );
        let _ = writeln!(out, "{}", line.trim_end());
    }
    let untested = c.checks.iter().filter(|d| !d.in_family).count();
    if untested > 0 {
        let _ = writeln!(
            out,
            "  ({untested} check{} not tested: no difference possible)",
            if untested == 1 { "" } else { "s" }
        );
    }
    out.push('\n');
    out.push_str(LEGEND);
    out
}

/// What the two less common figures mean, one line each (human and Markdown reports).
pub const LEGEND: &str = "\
p: the chance of a difference at least this large if the sides were the same (two-sided).
adj. p: p after the Holm–Bonferroni correction over every endpoint tested (the decision uses it).
pass^k: the share of sources (or trials) whose k repeated runs all passed (reliability, not average).
";

/// A proportion in the JSON documents: `{count, n, rate, ci95: [low, high]}`, `rate` null
/// without observations.
pub(crate) fn proportion_json(p: &Proportion) -> Value {
    json!({ "count": p.count, "n": p.n, "rate": p.rate(), "ci95": [p.ci.low, p.ci.high] })
}

fn side_json(side: &Side, name: &str) -> Value {
    json!({
        "name": name,
        "runs": side.runs,
        "accepted": side.accepted,
        "rejected": side.rejected,
        "errors": side.errors,
        "accept_rate": proportion_json(&side.accept),
        "inputs": side.inputs,
        "pass_k": side.pass_k.iter().map(|(k, v)| json!({ "k": k, "value": v })).collect::<Vec<_>>(),
        "checks": side.checks.iter().map(|(id, p)| json!({ "check": id, "failures": proportion_json(p) })).collect::<Vec<_>>(),
    })
}

fn difference_json(d: &Difference) -> Value {
    json!({
        "endpoint": d.endpoint,
        "baseline": proportion_json(&d.baseline),
        "candidate": proportion_json(&d.candidate),
        "difference": d.difference(),
        "test": d.test.as_str(),
        "discordant": d.discordant.map(|(b, c)| json!({ "baseline_only": b, "candidate_only": c })),
        "p": d.p,
        "p_adjusted": d.p_adjusted,
        "in_family": d.in_family,
        "change": d.change.as_str(),
    })
}

/// The JSON document (schema `vouch.compare`).
pub fn json(c: &Comparison, names: Names) -> String {
    let design = match &c.design {
        Design::Paired { pairs } => json!({ "paired": true, "pairs": pairs }),
        Design::Independent { reason } => json!({ "paired": false, "reason": reason }),
    };
    let mut doc = json!({
        "schema": "vouch.compare",
        "schema_version": SCHEMA_VERSION,
        "vouch_version": env!("CARGO_PKG_VERSION"),
        "verdict": decision_word(c).replace(' ', "_"),
        "min_effect": c.min_effect,
        "exit_code": c.exit_code(),
        "alpha": c.alpha,
        "correction": "holm",
        "family_size": c.family_size,
        "design": design,
        "baseline": side_json(&c.baseline, names.baseline),
        "candidate": side_json(&c.candidate, names.candidate),
        "accept": difference_json(&c.accept),
        "checks": c.checks.iter().map(difference_json).collect::<Vec<_>>(),
    });
    if c.repaired() {
        let (b, k) = c.first_pass();
        let interval = super::html::difference_interval(&b, &k);
        doc["repair"] = json!({
            "baseline": c.baseline.repair.json(),
            "candidate": c.candidate.repair.json(),
            "first_pass_difference": k.rate().zip(b.rate()).map(|(k, b)| k - b),
            "first_pass_difference_ci95": interval.map(|i| [i.low, i.high]),
            "first_pass_tested": false,
        });
    }
    let mut text = serde_json::to_string_pretty(&doc).expect("comparison serializes");
    text.push('\n');
    text
}

fn cell(text: &str) -> String {
    text.replace('|', "\\|")
}

/// Markdown for a pull request: a verdict line, the table of differences, and the per-side
/// intervals in a collapsed section.
pub fn markdown(c: &Comparison, names: Names) -> String {
    let mut out = String::new();
    let headline = match c.decision() {
        super::Decision::Worse => "Regression",
        super::Decision::Inconclusive { .. } => "Inconclusive: too few runs",
        super::Decision::NotWorse => "No significant regression",
    };
    let _ = writeln!(out, "### vouch compare: {headline}\n");
    let _ = writeln!(
        out,
        "**{}.** Accept rate {} → {} ({}), {} vs {} runs. {}; Holm–Bonferroni over {} endpoint{} at α = {}.\n",
        capitalise(&verdict_text(c)),
        percent(c.accept.baseline.rate()),
        percent(c.accept.candidate.rate()),
        points(c.accept.difference()),
        c.baseline.runs,
        c.candidate.runs,
        capitalise(&design_text(c)),
        c.family_size,
        if c.family_size == 1 { "" } else { "s" },
        c.alpha
    );
    let _ = writeln!(
        out,
        "| | baseline | candidate | difference | p | adjusted p | |"
    );
    let _ = writeln!(out, "|---|---:|---:|---:|---:|---:|---|");
    for d in std::iter::once(&c.accept).chain(c.checks.iter().filter(|d| d.in_family)) {
        let name = row_name(&d.endpoint);
        let _ = writeln!(
            out,
            "| {name} | {} | {} | {} | {} | {} | {} |",
            percent(d.baseline.rate()),
            percent(d.candidate.rate()),
            points(d.difference()),
            p_value(d.p),
            p_value(d.p_adjusted),
            match d.change {
                Change::Worse => "**worse**",
                Change::Better => "better",
                Change::Same => "",
            }
        );
    }
    let untested = c.checks.iter().filter(|d| !d.in_family).count();
    if untested > 0 {
        let _ = writeln!(
            out,
            "\n{untested} other check{} never differed (not tested).",
            if untested == 1 { "" } else { "s" }
        );
    }
    if c.repaired() {
        let _ = writeln!(
            out,
            "\n**First pass and after repair** (`vouch run --repair`):\n"
        );
        let _ = writeln!(out, "| | baseline | candidate |");
        let _ = writeln!(out, "|---|---|---|");
        let (b, k) = (&c.baseline.repair, &c.candidate.repair);
        for (name, b, k) in [
            ("first pass", b.first_pass(), k.first_pass()),
            ("after repair", b.after_repair(), k.after_repair()),
        ] {
            let _ = writeln!(
                out,
                "| {name} | {} | {} |",
                plot::proportion_text(&b),
                plot::proportion_text(&k)
            );
        }
        let _ = writeln!(
            out,
            "| repaired runs | {} | {} |",
            b.repaired_text(),
            k.repaired_text()
        );
        let _ = writeln!(
            out,
            "\nFirst-pass difference (candidate − baseline): {}; {FIRST_PASS_NOTE}.",
            first_pass_difference_text(c)
        );
    }

    let _ = writeln!(
        out,
        "\n<details><summary>Per-side rates with Wilson 95 % intervals</summary>\n"
    );
    let _ = writeln!(
        out,
        "Baseline: `{}` ({}: {} accepted, {} rejected, {}). Candidate: `{}` ({}: {} accepted, {} rejected, {}).\n",
        cell(names.baseline),
        count(c.baseline.runs, "run"),
        c.baseline.accepted,
        c.baseline.rejected,
        count(c.baseline.errors, "error"),
        cell(names.candidate),
        count(c.candidate.runs, "run"),
        c.candidate.accepted,
        c.candidate.rejected,
        count(c.candidate.errors, "error"),
    );
    let _ = writeln!(out, "| | baseline | candidate |");
    let _ = writeln!(out, "|---|---|---|");
    let both = |b: &Proportion, c: &Proportion| {
        format!(
            "{}/{} = {} {} | {}/{} = {} {}",
            b.count,
            b.n,
            percent(b.rate()),
            interval(b),
            c.count,
            c.n,
            percent(c.rate()),
            interval(c)
        )
    };
    let _ = writeln!(
        out,
        "| {} | {} |",
        row_name(super::ACCEPT),
        both(&c.baseline.accept, &c.candidate.accept)
    );
    for ((id, b), (_, k)) in c.baseline.checks.iter().zip(&c.candidate.checks) {
        if b.count > 0 || k.count > 0 {
            let _ = writeln!(out, "| {} | {} |", row_name(id), both(b, k));
        }
    }
    for (title, side) in [("baseline", &c.baseline), ("candidate", &c.candidate)] {
        if let Some(text) = pass_k_text(side) {
            let _ = writeln!(out, "\npass^k, {title}: {text}");
        }
    }
    let _ = writeln!(out, "\n</details>\n");
    for line in LEGEND.lines() {
        let _ = writeln!(out, "<sub>{line}</sub><br>");
    }
    out
}

fn capitalise(text: &str) -> String {
    let mut chars = text.chars();
    match chars.next() {
        Some(first) => first.to_uppercase().chain(chars).collect(),
        None => String::new(),
    }
}
