//! The single registry of check ids. Each family declares its checks next to its code; this
//! module only collects them. `docs/checks.md` is tested against this list.

use super::{CheckId, Family, Status};

/// A stable check id with its family, default severity and one-line meaning.
#[derive(Debug, PartialEq, Eq)]
pub struct CheckDef {
    pub id: CheckId,
    pub family: Family,
    /// The status a violation normally gets (some checks also emit other levels, e.g. a warning
    /// for truncation next to a failure for a wrong value).
    pub severity: Status,
    /// What it checks (one line; `vouch checks` and `docs/checks.md` print it).
    pub meaning: &'static str,
    /// Why a finding matters to whoever relies on the bundle.
    pub why: &'static str,
    /// How the bundle's author fixes it.
    pub fix: &'static str,
}

/// Every check id vouch can emit, grouped by family in the contract's order.
pub fn all() -> &'static [&'static CheckDef] {
    static ALL: std::sync::OnceLock<Vec<&'static CheckDef>> = std::sync::OnceLock::new();
    ALL.get_or_init(|| {
        let tables: [&'static [CheckDef]; 9] = [
            crate::bundle::CHECKS,
            crate::checks::source::CHECKS,
            crate::checks::metrics::CHECKS,
            crate::checks::movements::CHECKS,
            crate::checks::svg::CHECKS,
            crate::checks::memo::CHECKS,
            crate::checks::manifest::CHECKS,
            crate::checks::script::CHECKS,
            crate::checks::consistency::CHECKS,
        ];
        tables.iter().flat_map(|t| t.iter()).collect()
    })
}

/// The definition of the id spelt `id` (user input, e.g. `vouch explain ID`).
pub fn find(id: &str) -> Option<&'static CheckDef> {
    CheckId::parse(id).map(def)
}

/// The definition of `id`. Every [`CheckId`] has exactly one (a test holds this), so the
/// lookup cannot fail.
pub fn def(id: CheckId) -> &'static CheckDef {
    static BY_ID: std::sync::OnceLock<Vec<&'static CheckDef>> = std::sync::OnceLock::new();
    let by_id = BY_ID.get_or_init(|| {
        CheckId::ALL
            .iter()
            .map(|id| {
                all()
                    .iter()
                    .copied()
                    .find(|c| c.id == *id)
                    .unwrap_or_else(|| panic!("{id} has no definition in a rule table"))
            })
            .collect()
    });
    by_id[id as usize]
}

/// Render the catalogue as Markdown (the body of `docs/checks.md`): per family its introduction
/// and a summary table, then one page per check — what it checks, why it matters, an example
/// (its defect fixture's finding) and how to fix it, the same parts `vouch explain` prints.
pub fn markdown() -> String {
    use std::fmt::Write;
    let mut out = String::from(
        "# Check catalogue\n\n\
         Every check id `vouch` can emit, generated from the rule tables in the code (each\n\
         family's `CHECKS`, collected by `crates/vouch-core/src/report/registry.rs`; the ids are the\n\
         `CheckId` enum of `report/check_id.rs`). A test fails when this file and the code\n\
         disagree; regenerate it with `VOUCH_BLESS=1 cargo test --test it catalogue`.\n\n\
         Severity is the status a violation normally gets: `fail` makes the verdict `reject`,\n\
         `warn` and `info` do not. Some checks also emit a lower level for borderline cases\n\
         (e.g. `metrics.value` warns when a value is off by more than half a unit but at most\n\
         one unit of its last digit). `vouch explain ID` prints one check's page.\n",
    );
    for family in Family::ALL {
        let (why, fix) = super::explain::family_text(family);
        let _ = write!(
            out,
            "\n## `{}`\n\n{why}\n\nIn general: {fix}\n\n| id | severity | meaning |\n|---|---|---|\n",
            family.as_str()
        );
        let defs: Vec<_> = all().iter().filter(|c| c.family == family).collect();
        for c in &defs {
            let anchor = c.id.as_str().replace('.', "");
            let _ = writeln!(
                out,
                "| [`{}`](#{anchor}) | {} | {} |",
                c.id,
                c.severity.as_str(),
                c.meaning
            );
        }
        for c in defs {
            let _ = write!(
                out,
                "\n### `{}`\n\n**What it checks.** {}\n\n**Why it matters.** {}\n\n",
                c.id, c.meaning, c.why
            );
            if let Some(ex) = super::explain::example(c.id.as_str()) {
                let _ = write!(out, "**Example.**\n\n```text\n{ex}```\n\n");
            }
            let _ = writeln!(out, "**How to fix.** {}", c.fix);
        }
    }
    out
}

/// The catalogue as text for reading in a terminal: per family, each id with its severity and
/// meaning (`vouch explain ID` says more).
pub fn text() -> String {
    let mut out = String::new();
    for family in Family::ALL {
        out.push_str(&format!("{}\n", family.as_str()));
        for c in all().iter().filter(|c| c.family == family) {
            out.push_str(&format!(
                "  {:<40} {:<5} {}\n",
                c.id,
                c.severity.as_str(),
                c.meaning
            ));
        }
        out.push('\n');
    }
    out.push_str(&format!(
        "{} checks. `vouch explain ID` explains one; `vouch checks --format markdown` prints \
         docs/checks.md.\n",
        all().len()
    ));
    out
}
