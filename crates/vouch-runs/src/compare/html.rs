//! `vouch compare --format html`: one self-contained page (the shell of
//! `vouch_core::report::html`: inline CSS, no script, no fetch) with the decision in words
//! (`#decision`, the sentences the human report opens with), the accept rates side by side with
//! their Wilson 95 % intervals (`#accept-rates`) — when some run was repaired (`vouch run
//! --repair`), with each side's first-pass and after-repair rates (`#repair-table`) and the
//! first-pass difference (`#first-pass-difference`, informational) — and every tested
//! endpoint's difference (candidate − baseline) with its 95 % interval as a forest plot
//! (`#forest`) and a table (`#differences`). Side names and check ids come from the runs and
//! are escaped.

use super::render::{
    decision_word, endpoint_name, first_pass_difference_text, method_text, p_value, pass_k_text,
    points, verdict_text, Names, FIRST_PASS_NOTE, LEGEND,
};
use super::stats::Interval;
use super::{Change, Comparison, Decision, Difference, Proportion, ACCEPT};
use crate::plot::{self, Axis, Mark, Row};
use std::fmt::Write as _;
use vouch_core::report::html::{escape, Page};

/// Newcombe's hybrid score interval for candidate − baseline (Newcombe 1998, method 10), from
/// the sides' Wilson 95 % intervals: `d − √((p_c − l_c)² + (u_b − p_b)²)` to
/// `d + √((u_c − p_c)² + (p_b − l_b)²)`. It treats the sides as independent samples; with
/// paired runs, which are positively correlated in practice, it is wider than a paired
/// interval. None when a side has no observations.
pub fn difference_interval(baseline: &Proportion, candidate: &Proportion) -> Option<Interval> {
    let (pb, pc) = (baseline.rate()?, candidate.rate()?);
    let (b, c) = (baseline.ci, candidate.ci);
    let d = pc - pb;
    Some(Interval {
        low: d - ((pc - c.low).powi(2) + (b.high - pb).powi(2)).sqrt(),
        high: d + ((c.high - pc).powi(2) + (pb - b.low).powi(2)).sqrt(),
    })
}

/// The CSS class of an endpoint's change: its colour on the page.
fn class_of(change: Change) -> &'static str {
    match change {
        Change::Worse => "worse",
        Change::Better => "better",
        Change::Same => "same",
    }
}

/// A difference and its interval in points: `−15.0 pt [−21.8, −8.0]`.
fn difference_text(d: &Difference) -> String {
    match difference_interval(&d.baseline, &d.candidate) {
        Some(i) => format!(
            "{} [{:+.1}, {:+.1}]",
            points(d.difference()),
            i.low * 100.0,
            i.high * 100.0
        ),
        None => points(d.difference()),
    }
}

fn forest_mark(d: &Difference) -> Mark {
    let interval = difference_interval(&d.baseline, &d.candidate);
    Mark {
        label: endpoint_name(d),
        value: d.difference().filter(|_| interval.is_some()),
        low: interval.map_or(0.0, |i| i.low),
        high: interval.map_or(0.0, |i| i.high),
        text: format!("{}  adj. p {}", difference_text(d), p_value(d.p_adjusted)),
        class: class_of(d.change),
    }
}

fn capitalise(text: &str) -> String {
    let mut chars = text.chars();
    match chars.next() {
        Some(first) => first.to_uppercase().chain(chars).collect(),
        None => String::new(),
    }
}

/// The page.
pub fn render(c: &Comparison, names: Names) -> String {
    let word = decision_word(c);
    let mut page = Page::new(&format!("vouch compare: {word}"));
    page.push("<h1>vouch compare</h1>\n");
    page.push(&format!(
        "<p class=\"muted\">baseline <code>{}</code> · candidate <code>{}</code></p>\n",
        escape(names.baseline),
        escape(names.candidate)
    ));
    let banner = match c.decision() {
        Decision::Worse => "reject",
        Decision::Inconclusive { .. } => "inconclusive",
        Decision::NotWorse => "accept",
    };
    page.push(&format!(
        "<div class=\"verdict {banner}\"><span class=\"word\">{}</span><p id=\"decision\">{}: {}. {}.</p></div>\n",
        escape(word),
        escape(&capitalise(word)),
        escape(&verdict_text(c)),
        escape(&capitalise(&method_text(c)))
    ));

    page.push("<h2>Accept rates</h2>\n");
    let sides = [
        ("baseline", names.baseline, &c.baseline),
        ("candidate", names.candidate, &c.candidate),
    ];
    let rows: Vec<Row> = sides
        .iter()
        .map(|(title, _, side)| Row::Mark(plot::proportion_mark(title, &side.accept, title)))
        .collect();
    page.push(&plot::chart(
        "accept-rates",
        "Accept rate of each side with its Wilson 95 % interval",
        Axis::Rate,
        &rows,
    ));
    let mut table = String::from(
        "<table id=\"accept-rate-table\" class=\"figures\">\n<tr><th>side</th><th>runs</th><th>accepted</th><th>rejected</th><th>not verifiable</th><th>accepted / runs</th><th>accept rate</th><th>95 % interval</th><th>pass^k</th></tr>\n",
    );
    for (title, name, side) in sides {
        let _ = writeln!(
            table,
            "<tr class=\"{title}\"><td>{title} <code>{}</code></td><td class=\"num\">{}</td><td class=\"num\">{}</td><td class=\"num\">{}</td><td class=\"num\">{}</td>{}<td>{}</td></tr>",
            escape(name),
            side.runs,
            side.accepted,
            side.rejected,
            side.errors,
            plot::proportion_cells(&side.accept),
            escape(&pass_k_text(side).unwrap_or_else(|| "—".to_string()))
        );
    }
    table.push_str("</table>\n");
    page.push(&table);
    if c.repaired() {
        page.push("<h2>First pass and after repair</h2>\n");
        let mut table = String::from(
            "<table id=\"repair-table\" class=\"figures\">\n<tr><th>side</th><th>first pass</th><th>after repair</th><th>repaired runs</th><th>mean repair rounds</th></tr>\n",
        );
        for (title, name, side) in sides {
            let _ = writeln!(
                table,
                "<tr class=\"{title}\"><td>{title} <code>{}</code></td>{}{}<td class=\"num\">{}</td><td class=\"num\">{}</td></tr>",
                escape(name),
                plot::proportion_cell(&side.repair.first_pass()),
                plot::proportion_cell(&side.repair.after_repair()),
                side.repair.repaired,
                side.repair.mean_text()
            );
        }
        table.push_str("</table>\n");
        page.push(&table);
        page.push(&format!(
            "<p id=\"first-pass-difference\">First-pass difference (candidate − baseline): {}; {}. After repair is the accept rate.</p>\n",
            escape(&first_pass_difference_text(c)),
            escape(FIRST_PASS_NOTE)
        ));
    }

    page.push("<h2>Differences (candidate − baseline)</h2>\n");
    let tested: Vec<&Difference> = c.checks.iter().filter(|d| d.in_family).collect();
    let mut marks: Vec<Mark> = vec![forest_mark(&c.accept)];
    marks.extend(tested.iter().map(|d| forest_mark(d)));
    let axis = Axis::difference_for(&marks.iter().collect::<Vec<_>>());
    let mut rows = vec![
        Row::Heading("accept rate (right of 0: more accepted)".into()),
        Row::Mark(marks[0].clone()),
    ];
    if !tested.is_empty() {
        rows.push(Row::Heading(
            "failure rates (right of 0: more failing)".into(),
        ));
        rows.extend(marks[1..].iter().cloned().map(Row::Mark));
    }
    page.push(&plot::chart(
        "forest",
        "Differences, candidate minus baseline, with 95 % intervals",
        axis,
        &rows,
    ));
    page.push(
        "<p class=\"legend\"><span class=\"key worse\">■ significantly worse</span><span class=\"key better\">■ significantly better</span><span class=\"key same\">■ no significant difference</span></p>\n",
    );
    let mut table = String::from(
        "<table id=\"differences\">\n<tr><th>endpoint</th><th>baseline</th><th>candidate</th><th>difference [95 % interval]</th><th>test</th><th>p</th><th>adj. p</th><th>change</th></tr>\n",
    );
    for d in std::iter::once(&c.accept).chain(tested.iter().copied()) {
        let interval = difference_interval(&d.baseline, &d.candidate);
        let data = match (d.difference(), interval) {
            (Some(v), Some(i)) => format!(
                " data-difference=\"{v}\" data-low=\"{}\" data-high=\"{}\"",
                i.low, i.high
            ),
            _ => String::new(),
        };
        let _ = writeln!(
            table,
            "<tr class=\"{}\" data-endpoint=\"{}\"><td>{}</td>{}{}<td class=\"num\"{data}>{}</td><td>{}</td><td class=\"num nowrap\" data-p=\"{}\">{}</td><td class=\"num nowrap\" data-p-adjusted=\"{}\">{}</td><td>{}</td></tr>",
            class_of(d.change),
            escape(&d.endpoint),
            if d.endpoint == ACCEPT {
                "<strong>accept rate</strong>".to_string()
            } else {
                format!("<code>{}</code> failures", escape(&d.endpoint))
            },
            plot::proportion_cell(&d.baseline),
            plot::proportion_cell(&d.candidate),
            escape(&difference_text(d)),
            d.test.as_str(),
            d.p,
            p_value(d.p),
            d.p_adjusted,
            p_value(d.p_adjusted),
            d.change.as_str()
        );
    }
    table.push_str("</table>\n");
    page.push(&table);
    let untested = c.checks.len() - tested.len();
    if untested > 0 {
        page.push(&format!(
            "<p class=\"muted\">{untested} other check{} not tested: no difference possible.</p>\n",
            if untested == 1 { "" } else { "s" }
        ));
    }
    let mut notes = String::from("<p class=\"muted notes\">");
    for line in LEGEND.lines() {
        let _ = write!(notes, "{}<br>", escape(line));
    }
    notes.push_str(
        "interval of a difference: Newcombe's hybrid score interval from the two Wilson 95 % intervals (it ignores pairing, so paired runs get a wider interval than a paired method gives).</p>\n",
    );
    page.push(&notes);
    page.finish()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_difference_interval_is_newcombes_hybrid_score_interval() {
        // Newcombe (1998), Statistics in Medicine 17:873, table II, example (a): 56/70 − 48/80,
        // method 10 gives 0.0524 to 0.3339.
        let i = difference_interval(&Proportion::new(48, 80), &Proportion::new(56, 70)).unwrap();
        assert!((i.low - 0.0524).abs() < 5e-5, "{i:?}");
        assert!((i.high - 0.3339).abs() < 5e-5, "{i:?}");
        // Example (e): 0/10 − 0/20 gives −0.1611 to 0.2775.
        let i = difference_interval(&Proportion::new(0, 20), &Proportion::new(0, 10)).unwrap();
        assert!((i.low + 0.1611).abs() < 5e-5, "{i:?}");
        assert!((i.high - 0.2775).abs() < 5e-5, "{i:?}");
        assert!(difference_interval(&Proportion::new(0, 0), &Proportion::new(1, 2)).is_none());
    }
}
