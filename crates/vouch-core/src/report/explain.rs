//! `vouch explain CHECK_ID`: a check's page — what it checks, why it matters and how to fix it
//! (the three texts of its rule-table entry), and an example finding (the one its defect
//! fixture produces, kept in `docs/check-examples.md`, which a test regenerates and compares).

use super::{registry, Family, Status};
use std::fmt::Write;

/// `docs/check-examples.md`: `## <id>` headings, each followed by a fenced block holding the
/// human report's lines for the first finding of that id on its defect fixture.
pub const EXAMPLES: &str = include_str!("../../../../docs/check-examples.md");

/// Why a family's checks matter and how their findings are fixed, in general (the
/// introduction of the family's section in `docs/checks.md`).
pub fn family_text(family: Family) -> (&'static str, &'static str) {
    match family {
        Family::Bundle => (
            "The six artifacts are the agent's deliverable: a missing, empty, oversized or \
             unexpected file means the run did not finish as asked, and every claim that file \
             should hold cannot be checked.",
            "Make the script write all six files into the output directory (no others), then \
             re-run it.",
        ),
        Family::Source => (
            "Every figure is judged against the source. When the source itself is faulty (an \
             identity that does not hold, a value that is not a number, a duplicated year) the \
             bundle cannot be vouched for, and the fault is not the agent's.",
            "Fix the statements CSV (or ask whoever supplied it), then verify again. \
             Nothing in the bundle needs to change.",
        ),
        Family::Metrics => (
            "calculated_metrics.csv is the table every later artifact quotes: a wrong, missing \
             or undefined metric misleads the memo, the chart and anyone who reads the table.",
            "Recompute the metric from the source with the contract's formula (shown in the \
             finding), print it to the contract's precision, and re-run the script.",
        ),
        Family::Movements => (
            "unusual_movements.csv is what a reader acts on: a change that crossed the threshold \
             and was not flagged is a risk missed; one flagged that did not is noise.",
            "Recompute every line item's year-over-year change from the source, flag exactly \
             those over the threshold, and re-run the script.",
        ),
        Family::Svg => (
            "A chart is read faster than a table: a panel that plots wrong values, wrong years \
             or the wrong series misleads at a glance.",
            "Plot the recomputed series in the four contract panels (titles, axes, years) and \
             re-render the SVG.",
        ),
        Family::Memo => (
            "The memo is what a decision is taken on: every number it prints must trace to the \
             source or the metrics, every section must be there, and every file it cites must \
             exist.",
            "Correct the printed number (the finding gives what vouch recomputed), or cite the \
             figure it came from; add the missing section; re-render the memo.",
        ),
        Family::Manifest => (
            "analysis_run.json is the run's own account: if it misstates the input, the rows, \
             the years or the checks it claims passed, nothing else it says can be trusted.",
            "Write the manifest from what the script actually read and computed, not from \
             expectations.",
        ),
        Family::Script => (
            "The script is how the figures were made: it must be stdlib-only, stay in its \
             sandbox and produce the artifacts it ships with, so the run can be reproduced.",
            "Remove the forbidden import or call, name every artifact the script writes, and \
             check that re-running it reproduces the bundle (`vouch verify --reexecute`).",
        ),
        Family::Consistency => (
            "Artifacts that disagree with each other cannot all be right: the memo's KPI table, \
             the metrics and the movements must tell one story.",
            "Generate every artifact from the same computed values, in one run of the script.",
        ),
    }
}

/// The example block of `id` in [`EXAMPLES`], when its fixture produced one.
pub fn example(id: &str) -> Option<&'static str> {
    let heading = format!("## `{id}`\n");
    let at = EXAMPLES.find(&heading)? + heading.len();
    let rest = &EXAMPLES[at..];
    let end = rest.find("\n## ").unwrap_or(rest.len());
    let block = rest[..end].trim();
    let inner = block.strip_prefix("```text\n")?.strip_suffix("```")?;
    Some(inner)
}

/// The ids nearest to `id` (sharing its family or its name), for an unknown id's error.
fn nearest(id: &str) -> Vec<&'static str> {
    let (fam, name) = id.split_once('.').unwrap_or(("", id));
    let mut v: Vec<&'static str> = registry::all()
        .iter()
        .filter(|c| {
            let (f, n) = c.id.as_str().split_once('.').unwrap_or(("", c.id.as_str()));
            (!name.is_empty() && (n.contains(name) || name.contains(n)))
                || (!fam.is_empty() && f == fam && name.is_empty())
        })
        .map(|c| c.id.as_str())
        .collect();
    if v.is_empty() {
        v = registry::all()
            .iter()
            .filter(|c| c.id.as_str().starts_with(fam) && !fam.is_empty())
            .map(|c| c.id.as_str())
            .collect();
    }
    v.truncate(8);
    v
}

pub fn explain(id: &str) -> Result<String, String> {
    let Some(def) = registry::find(id) else {
        let near = nearest(id);
        return Err(if near.is_empty() {
            format!(
                "unknown check id `{}`; `vouch checks` lists them",
                id.escape_debug()
            )
        } else {
            format!(
                "unknown check id `{}`; did you mean {}? (`vouch checks` lists them all)",
                id.escape_debug(),
                near.iter()
                    .map(|n| format!("`{n}`"))
                    .collect::<Vec<_>>()
                    .join(", ")
            )
        });
    };
    let effect = match def.severity {
        Status::Fail => "a finding rejects the bundle",
        Status::Warn => "a finding warns; the verdict is unchanged",
        _ => "a finding is information; the verdict is unchanged",
    };
    let mut out = String::new();
    let _ = writeln!(
        out,
        "{} ({} family; severity {}: {effect})\n",
        def.id,
        def.family.as_str(),
        def.severity.as_str()
    );
    let _ = writeln!(out, "What it checks\n  {}\n", def.meaning);
    let _ = writeln!(out, "Why it matters\n  {}\n", def.why);
    match example(def.id.as_str()) {
        Some(ex) => {
            let _ = writeln!(out, "Example (from fixtures/defects/{})", def.id);
            for line in ex.lines() {
                let _ = writeln!(out, "  {line}");
            }
            out.push('\n');
        }
        None => {
            let _ = writeln!(
                out,
                "Example\n  (none recorded: no file fixture shows it — its defect is a link, a \
                 device or an oversized file, or it needs --reexecute — or it only informs)\n"
            );
        }
    }
    let _ = writeln!(out, "How to fix\n  {}", def.fix);
    Ok(out)
}
