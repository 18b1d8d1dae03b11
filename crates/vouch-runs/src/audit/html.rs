//! `vouch audit --format html`: one self-contained page (the shell of `vouch_core::report::html`:
//! inline CSS, no script, no fetch) with the totals and the accept rate, the accept rate per label
//! (`#accept-rate`), when some run went through `vouch run --repair` the first-pass and
//! after-repair accept rates per label (`#repair`), the most frequent failing checks per label
//! (`#failing-checks`) — every rate with its Wilson 95 % interval, drawn by vouch as inline SVG and
//! printed in a table — the worst runs linked to their own verify reports (`#worst-runs
//! a.run-report`), and the runs that could not be verified.
//!
//! Run ids, labels, paths, check ids and error messages come from the run directories and are
//! escaped. The worst runs' reports are written beside the page by [`write_reports`]: for
//! `DIR/NAME.html`, `DIR/NAME-reports/<run>-<hash>.html`, file names made of `[A-Za-z0-9._-]`
//! only, so that nothing is written outside that directory (docs/decisions.md).

use super::discover::Found;
use super::repair::RepairTally;
use super::results::{RunResult, RunVerdict};
use super::runner::Auditor;
use super::summary::{Summary, WorstRun, NO_LABEL};
use crate::compare::render::{interval, percent};
use crate::compare::Proportion;
use crate::plot::{self, Axis, Row};
use std::collections::{BTreeMap, HashMap};
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use vouch_core::report::html::{escape, Page};

/// Labels drawn and listed in the accept-rate chart and table (the ones with the most runs).
pub const LABELS_SHOWN: usize = 20;
/// Labels drawn per failing check (the ones with the most runs).
pub const LABELS_PER_CHECK: usize = 8;
/// Failing checks drawn and listed (the summary's most frequent).
pub const CHECKS_SHOWN: usize = 10;
/// Runs that could not be verified listed by path.
pub const NOT_VERIFIED_SHOWN: usize = 100;

/// The runs of one label.
#[derive(Clone, Debug, Default)]
struct Group {
    runs: u64,
    accepted: u64,
    rejected: u64,
    errors: u64,
    /// Check id → runs in which it failed (only checks that failed somewhere: sparse).
    failed: HashMap<String, u64>,
    /// Check id → verified runs in which it did not run (rates exclude them).
    skipped: HashMap<String, u64>,
}

impl Group {
    /// Runs in which `check` failed, over the verified runs in which it ran (the summary's
    /// denominator, per label).
    fn failing(&self, check: &str) -> Proportion {
        let ran = (self.accepted + self.rejected)
            .saturating_sub(self.skipped.get(check).copied().unwrap_or(0));
        Proportion::new(self.failed.get(check).copied().unwrap_or(0), ran)
    }

    /// Accepted runs over all runs (a run that could not be verified is not accepted).
    fn accept(&self) -> Proportion {
        Proportion::new(self.accepted, self.runs)
    }
}

/// The audit's results grouped by the label their `run.json` records, as they stream in: per
/// label the verdict counts and the runs failing (and skipping) each check.
#[derive(Clone, Debug, Default)]
pub struct Labels {
    groups: BTreeMap<Option<String>, Group>,
}

impl Labels {
    pub fn add(&mut self, r: &RunResult) {
        let g = self.groups.entry(r.label.clone()).or_default();
        g.runs += 1;
        match r.verdict {
            RunVerdict::Accept => g.accepted += 1,
            RunVerdict::Reject => g.rejected += 1,
            RunVerdict::Error => g.errors += 1,
        }
        for c in &r.checks {
            match c.status.as_str() {
                "fail" => *g.failed.entry(c.check.clone()).or_default() += 1,
                "skipped" => *g.skipped.entry(c.check.clone()).or_default() += 1,
                _ => {}
            }
        }
    }

    /// The labels with the most runs first (then by label), at most `max`.
    fn largest(&self, max: usize) -> Vec<(&Option<String>, &Group)> {
        let mut v: Vec<(&Option<String>, &Group)> = self.groups.iter().collect();
        v.sort_by(|a, b| b.1.runs.cmp(&a.1.runs).then_with(|| a.0.cmp(b.0)));
        v.truncate(max);
        v
    }
}

fn label_text(label: &Option<String>) -> &str {
    label.as_deref().unwrap_or(NO_LABEL)
}

/// How the page reaches the worst runs' reports.
#[derive(Clone, Debug)]
pub enum Reports {
    /// The page goes to standard output: no reports are written, the runs are not linked.
    NotWritten,
    /// Per worst run (by path): the link to its report, relative to the page, or why there is
    /// none.
    Written(HashMap<String, Result<String, String>>),
}

/// `text` as a file-name part of `[A-Za-z0-9._-]` only (anything else becomes `_`), at most
/// `max` characters, never starting with a dot.
fn safe_name_part(text: &str, max: usize) -> String {
    let mut s: String = text
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '-') {
                c
            } else {
                '_'
            }
        })
        .take(max)
        .collect();
    if s.starts_with('.') || s.is_empty() {
        s.insert(0, '_');
    }
    s
}

/// The file name of a run's report: its run id made safe, and the first 12 hex digits of the
/// sha256 of its path (two runs whose ids read alike after that never share a file).
pub fn report_file_name(run_id: &str, path: &str) -> String {
    let hash = vouch_core::bundle::sha256_hex(path.as_bytes());
    format!("{}-{}.html", safe_name_part(run_id, 80), &hash[..12])
}

/// The directory the worst runs' reports go in for a page written to `page`, and its name as
/// the page links it: `DIR/NAME.html` → `DIR/NAME-reports` (NAME made safe as a file name, so
/// the link needs no escaping).
pub fn reports_dir(page: &Path) -> (PathBuf, String) {
    let stem = page
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_else(|| "audit".to_string());
    let name = format!("{}-reports", safe_name_part(&stem, 80));
    let dir = match page.parent() {
        Some(p) => p.join(&name),
        None => PathBuf::from(&name),
    };
    (dir, name)
}

/// Verifies the worst runs again in full and writes each one's HTML verify report into the
/// reports directory of `page` ([`reports_dir`]). A run that can no longer be loaded or
/// verified gets no report, and the page says why; failing to write is an error.
pub fn write_reports(
    auditor: &Auditor,
    found: &[Found],
    worst: &[WorstRun],
    page: &Path,
) -> Result<Reports, String> {
    let (dir, link_dir) = reports_dir(page);
    let mut links: HashMap<String, Result<String, String>> = HashMap::new();
    if worst.is_empty() {
        return Ok(Reports::Written(links));
    }
    std::fs::create_dir_all(&dir).map_err(|e| format!("cannot create `{}`: {e}", dir.display()))?;
    let paths: Vec<&str> = worst.iter().map(|w| w.path.as_str()).collect();
    let mut failure: Option<String> = None;
    auditor.reverify(found, &paths, |path, result| {
        let Some(w) = worst.iter().find(|w| w.path == path) else {
            return;
        };
        let link = match result {
            Ok(full) => {
                let name = report_file_name(&w.run_id, &w.path);
                let html = vouch_core::report::html::verify::render(
                    full.spec,
                    full.stmts,
                    full.bundle,
                    full.report,
                );
                let file = dir.join(&name);
                if let Err(e) = std::fs::write(&file, html) {
                    failure.get_or_insert(format!("cannot write `{}`: {e}", file.display()));
                }
                Ok(format!("{link_dir}/{name}"))
            }
            Err(e) => Err(format!("could not be verified again: {e}")),
        };
        links.insert(path.to_string(), link);
    });
    if let Some(e) = failure {
        return Err(e);
    }
    for w in worst {
        links
            .entry(w.path.clone())
            .or_insert_with(|| Err("not found again when its report was written".to_string()));
    }
    Ok(Reports::Written(links))
}

/// The page: `summary` and `labels` of the same runs, found in `inputs` (the paths audited).
pub fn render(summary: &Summary, labels: &Labels, reports: &Reports, inputs: &[String]) -> String {
    let mut page = Page::new(&format!(
        "vouch audit: {}",
        vouch_core::report::plural(summary.runs as usize, "run", "runs")
    ));
    page.push("<h1>vouch audit</h1>\n");
    let inputs: Vec<String> = inputs
        .iter()
        .map(|p| format!("<code>{}</code>", escape(p)))
        .collect();
    page.push(&format!(
        "<p class=\"muted\">audited {}</p>\n",
        inputs.join(", ")
    ));
    totals(&mut page, summary);
    accept_rates(&mut page, labels);
    if summary.repaired() {
        repair(&mut page, summary);
    }
    failing_checks(&mut page, summary, labels);
    worst_runs(&mut page, summary, reports);
    not_verified(&mut page, summary);
    page.push(
        "<p class=\"muted notes\">Rates carry Wilson 95 % score intervals. The accept rate counts every run, a run that could not be verified as not accepted; a check's failure rate counts the verified runs in which it ran.</p>\n",
    );
    page.finish()
}

fn totals(page: &mut Page, s: &Summary) {
    let accept = Proportion::new(s.accept, s.runs);
    // The exit status's verdict: 0 only when every run was accepted.
    let (class, word) = if s.reject == 0 && s.error == 0 {
        ("accept", "all accepted")
    } else {
        ("reject", "not all accepted")
    };
    page.push(&format!(
        "<div class=\"verdict {class}\" id=\"totals\"><span class=\"word\">{word}</span><span>{}: {} accepted, {} rejected, {} not verifiable — accept rate {} {}</span></div>\n",
        vouch_core::report::plural(s.runs as usize, "run", "runs"),
        s.accept,
        s.reject,
        s.error,
        percent(accept.rate()),
        interval(&accept)
    ));
    page.push(&format!(
        "<table id=\"totals-table\" class=\"figures\">\n<tr><th>runs</th><th>accepted</th><th>rejected</th><th>not verifiable</th><th>accepted / runs</th><th>accept rate</th><th>95 % interval</th></tr>\n<tr class=\"totals\"><td class=\"num\">{}</td><td class=\"num\">{}</td><td class=\"num\">{}</td><td class=\"num\">{}</td>{}</tr>\n</table>\n",
        s.runs,
        s.accept,
        s.reject,
        s.error,
        plot::proportion_cells(&accept)
    ));
}

fn accept_rates(page: &mut Page, labels: &Labels) {
    page.push("<h2>Accept rate per label</h2>\n");
    let shown = labels.largest(LABELS_SHOWN);
    let rows: Vec<Row> = shown
        .iter()
        .map(|(label, g)| {
            Row::Mark(plot::proportion_mark(
                label_text(label),
                &g.accept(),
                "rate",
            ))
        })
        .collect();
    page.push(&plot::chart(
        "accept-rate",
        "Accept rate per label with its Wilson 95 % interval",
        Axis::Rate,
        &rows,
    ));
    let mut table = String::from(
        "<table id=\"accept-rate-table\" class=\"figures\">\n<tr><th>label</th><th>runs</th><th>accepted</th><th>rejected</th><th>not verifiable</th><th>accepted / runs</th><th>accept rate</th><th>95 % interval</th></tr>\n",
    );
    for (label, g) in &shown {
        let _ = writeln!(
            table,
            "<tr data-label=\"{}\"><td>{}</td><td class=\"num\">{}</td><td class=\"num\">{}</td><td class=\"num\">{}</td><td class=\"num\">{}</td>{}</tr>",
            escape(label.as_deref().unwrap_or("")),
            label_cell(label),
            g.runs,
            g.accepted,
            g.rejected,
            g.errors,
            plot::proportion_cells(&g.accept())
        );
    }
    table.push_str("</table>\n");
    page.push(&table);
    let more = labels.groups.len().saturating_sub(shown.len());
    if more > 0 {
        page.push(&format!(
            "<p class=\"muted\">{} more not shown (the {LABELS_SHOWN} with the most runs are); their runs are in the totals.</p>\n",
            vouch_core::report::plural(more, "label", "labels")
        ));
    }
}

/// First pass and after repair per label, as a chart (`#repair`) and a table (`#repair-table`).
fn repair(page: &mut Page, summary: &Summary) {
    page.push("<h2>First pass and after repair</h2>\n");
    let labels = summary.repair_by_label();
    let shown = &labels[..labels.len().min(LABELS_SHOWN)];
    let mut rows = Vec::new();
    for (label, t) in shown {
        rows.push(Row::Heading(label_text(label).to_string()));
        rows.push(Row::Mark(plot::proportion_mark(
            "first pass",
            &t.first_pass(),
            "rate",
        )));
        rows.push(Row::Mark(plot::proportion_mark(
            "after repair",
            &t.after_repair(),
            "rate",
        )));
    }
    page.push(&plot::chart(
        "repair",
        "Accept rate per label on the first pass and after repair, with Wilson 95 % intervals",
        Axis::Rate,
        &rows,
    ));
    let mut table = String::from(
        "<table id=\"repair-table\" class=\"figures\">\n<tr><th>label</th><th>runs</th><th>first pass</th><th>after repair</th><th>repaired runs</th><th>mean repair rounds</th></tr>\n",
    );
    let row = |table: &mut String, attributes: String, label: String, t: &RepairTally| {
        let _ = writeln!(
            table,
            "<tr{attributes}><td>{label}</td><td class=\"num\">{}</td>{}{}<td class=\"num\">{}</td><td class=\"num\">{}</td></tr>",
            t.runs,
            plot::proportion_cell(&t.first_pass()),
            plot::proportion_cell(&t.after_repair()),
            t.repaired,
            t.mean_text()
        );
    };
    for (label, t) in shown {
        let attributes = format!(" data-label=\"{}\"", escape(label.as_deref().unwrap_or("")));
        row(&mut table, attributes, label_cell(label), t);
    }
    if labels.len() > 1 {
        let total = summary.repair_total();
        row(
            &mut table,
            " class=\"all\"".to_string(),
            "all runs".to_string(),
            &total,
        );
    }
    table.push_str("</table>\n");
    page.push(&table);
    page.push(
        "<p class=\"muted\">First pass: the verdict <code>run.json</code> records for round 0 of a repaired run (its repairs replaced that bundle), else the audit's own. After repair: the audit's verdict on the final bundle, the accept rate above. Mean repair rounds: over the runs repaired.</p>\n",
    );
}

fn label_cell(label: &Option<String>) -> String {
    match label {
        Some(l) => format!("<code>{}</code>", escape(l)),
        None => format!("<span class=\"muted\">{NO_LABEL}</span>"),
    }
}

fn failing_checks(page: &mut Page, summary: &Summary, labels: &Labels) {
    page.push("<h2>Most frequent failing checks</h2>\n");
    let top: Vec<_> = summary
        .top_checks()
        .into_iter()
        .filter(|c| c.failed_runs > 0)
        .take(CHECKS_SHOWN)
        .collect();
    let shown = labels.largest(LABELS_PER_CHECK);
    let by_label = labels.groups.len() > 1;
    let mut rows = Vec::new();
    for c in &top {
        let all = Proportion::new(c.failed_runs, c.ran_runs);
        if by_label {
            rows.push(Row::Heading(c.check.clone()));
            rows.push(Row::Mark(plot::proportion_mark("all runs", &all, "rate")));
            // A label none of whose verified runs ran the check has nothing to show.
            for (label, g) in &shown {
                let p = g.failing(&c.check);
                if p.n > 0 {
                    rows.push(Row::Mark(plot::proportion_mark(
                        label_text(label),
                        &p,
                        "rate",
                    )));
                }
            }
        } else {
            rows.push(Row::Mark(plot::proportion_mark(&c.check, &all, "rate")));
        }
    }
    page.push(&plot::chart(
        "failing-checks",
        "Runs failing each of the most frequent failing checks, per label, with Wilson 95 % intervals",
        Axis::Rate,
        &rows,
    ));
    if top.is_empty() {
        page.push("<p>No check failed in any run.</p>\n");
        return;
    }
    let mut table = String::from(
        "<table id=\"failing-checks-table\" class=\"figures\">\n<tr><th>check</th><th>label</th><th>failed / ran</th><th>failure rate</th><th>95 % interval</th><th>warned</th></tr>\n",
    );
    for c in &top {
        let all = Proportion::new(c.failed_runs, c.ran_runs);
        let _ = writeln!(
            table,
            "<tr class=\"all\" data-check=\"{0}\"><td><code>{0}</code></td><td>all runs</td>{1}<td class=\"num\">{2}</td></tr>",
            escape(&c.check),
            plot::proportion_cells(&all),
            c.warned_runs
        );
        if by_label {
            for (label, g) in &shown {
                let p = g.failing(&c.check);
                if p.n == 0 {
                    continue;
                }
                let _ = writeln!(
                    table,
                    "<tr data-check=\"{}\" data-label=\"{}\"><td></td><td>{}</td>{}<td></td></tr>",
                    escape(&c.check),
                    escape(label.as_deref().unwrap_or("")),
                    label_cell(label),
                    plot::proportion_cells(&p)
                );
            }
        }
    }
    table.push_str("</table>\n");
    page.push(&table);
    let more = labels.groups.len().saturating_sub(shown.len());
    if by_label && more > 0 {
        page.push(&format!(
            "<p class=\"muted\">{} more not shown per check (the {LABELS_PER_CHECK} with the most runs are).</p>\n",
            vouch_core::report::plural(more, "label", "labels")
        ));
    }
}

fn worst_runs(page: &mut Page, summary: &Summary, reports: &Reports) {
    page.push("<h2>Worst runs</h2>\n");
    let worst = summary.worst_runs();
    if worst.is_empty() {
        page.push("<p>No run failed a check.</p>\n");
        return;
    }
    if matches!(reports, Reports::NotWritten) {
        page.push(
            "<p class=\"muted\">The runs are not linked to their reports: this page went to standard output. <code>vouch audit … --format html --summary FILE.html</code> writes each worst run's verify report beside it.</p>\n",
        );
    }
    let mut table = String::from(
        "<table id=\"worst-runs\">\n<tr><th>run</th><th>path</th><th>failing checks</th><th>first failure</th></tr>\n",
    );
    for w in &worst {
        let run = match reports {
            Reports::Written(links) => match links.get(&w.path) {
                Some(Ok(href)) => format!(
                    "<a class=\"run-report\" href=\"{}\">{}</a>",
                    escape(href),
                    escape(&w.run_id)
                ),
                Some(Err(why)) => format!(
                    "{}<br><span class=\"muted\">no report: {}</span>",
                    escape(&w.run_id),
                    escape(why)
                ),
                None => escape(&w.run_id),
            },
            Reports::NotWritten => escape(&w.run_id),
        };
        let _ = writeln!(
            table,
            "<tr><td>{run}</td><td><code>{}</code></td><td class=\"num\">{}</td><td><code>{}</code></td></tr>",
            escape(&w.path),
            w.failed_checks,
            escape(&w.first_failure)
        );
    }
    table.push_str("</table>\n");
    page.push(&table);
}

fn not_verified(page: &mut Page, summary: &Summary) {
    if summary.errors().is_empty() {
        return;
    }
    page.push("<h2>Could not verify</h2>\n");
    let mut table = String::from("<table id=\"errors\">\n<tr><th>runs</th><th>why</th></tr>\n");
    for (why, n) in summary.errors() {
        let _ = writeln!(
            table,
            "<tr><td class=\"num\">{n}</td><td>{}</td></tr>",
            escape(why)
        );
    }
    table.push_str("</table>\n");
    page.push(&table);
    let runs = summary.not_verified();
    let mut table =
        String::from("<table id=\"not-verified\">\n<tr><th>run</th><th>why</th></tr>\n");
    for r in runs.iter().take(NOT_VERIFIED_SHOWN) {
        let _ = writeln!(
            table,
            "<tr><td><code>{}</code></td><td>{}</td></tr>",
            escape(&r.path),
            escape(&r.error)
        );
    }
    table.push_str("</table>\n");
    page.push(&table);
    if summary.error > NOT_VERIFIED_SHOWN as u64 {
        page.push(&format!(
            "<p class=\"muted\">… and {} more (every run is in the results file, <code>-o FILE</code>).</p>\n",
            summary.error - NOT_VERIFIED_SHOWN as u64
        ));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn report_names_are_plain_file_names_whatever_the_run_id() {
        for id in [
            "../../etc/passwd",
            "/abs/path",
            "..",
            ".hidden",
            "",
            "a\\b",
            "run\u{0}nul",
            "<script>alert(1)</script>",
            "ünïcode",
            "CON",
        ] {
            let name = report_file_name(id, &format!("runs/{id}"));
            assert!(
                vouch_core::bundle::is_plain_file_name(&name),
                "{id:?} → {name:?}"
            );
            assert!(
                name.chars()
                    .all(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '-')),
                "{name}"
            );
            assert!(!name.starts_with('.') && name.ends_with(".html"), "{name}");
        }
        // Ids that read alike once made safe still get two files.
        assert_ne!(
            report_file_name("a/b", "runs/a/b"),
            report_file_name("a_b", "runs/a_b")
        );
    }

    #[test]
    fn the_reports_go_beside_the_page_in_a_directory_named_after_it() {
        let (dir, link) = reports_dir(Path::new("out/audit.html"));
        assert_eq!(dir, Path::new("out/audit-reports"));
        assert_eq!(link, "audit-reports");
        let (dir, link) = reports_dir(Path::new("my \"audit\" #1.html"));
        assert_eq!(link, "my__audit___1-reports");
        assert_eq!(dir, Path::new("my__audit___1-reports"));
    }

    #[test]
    fn labels_count_runs_and_failures_per_label() {
        use crate::audit::CheckOutcome;
        let run = |label: Option<&str>, verdict, checks: &[(&str, &str)]| RunResult {
            run_id: "r".into(),
            path: "p".into(),
            label: label.map(str::to_string),
            trial: None,
            model: None,
            source_file: None,
            source_sha256: None,
            verdict,
            error: None,
            checks: checks
                .iter()
                .map(|(c, s)| CheckOutcome {
                    check: c.to_string(),
                    status: s.to_string(),
                    findings: 0,
                    message: None,
                })
                .collect(),
            first_pass: Some(verdict),
            repair_rounds: Some(0),
        };
        let mut labels = Labels::default();
        labels.add(&run(Some("v1"), RunVerdict::Accept, &[("a", "pass")]));
        labels.add(&run(Some("v1"), RunVerdict::Reject, &[("a", "fail")]));
        labels.add(&run(Some("v1"), RunVerdict::Reject, &[("a", "skipped")]));
        labels.add(&run(Some("v1"), RunVerdict::Error, &[]));
        labels.add(&run(None, RunVerdict::Accept, &[("a", "warn")]));
        let v1 = &labels.groups[&Some("v1".to_string())];
        assert_eq!(v1.accept(), Proportion::new(1, 4));
        // Of the three verified runs, one skipped `a`: one failure in two.
        assert_eq!(v1.failing("a"), Proportion::new(1, 2));
        assert_eq!(labels.groups[&None].failing("a"), Proportion::new(0, 1));
        let order: Vec<&str> = labels
            .largest(5)
            .into_iter()
            .map(|(l, _)| label_text(l))
            .collect();
        assert_eq!(order, ["v1", NO_LABEL]);
    }
}
