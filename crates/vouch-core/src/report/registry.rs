//! The single registry of check ids. Each family declares its checks next to its code; this
//! module only collects them. `docs/checks.md` is tested against this list.

use super::{Family, Status};

/// A stable check id with its family, default severity and one-line meaning.
#[derive(Debug, PartialEq, Eq)]
pub struct CheckDef {
    pub id: &'static str,
    pub family: Family,
    /// The status a violation normally gets (some checks also emit other levels, e.g. a warning
    /// for truncation next to a failure for a wrong value).
    pub severity: Status,
    pub meaning: &'static str,
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

pub fn find(id: &str) -> Option<&'static CheckDef> {
    all().iter().copied().find(|c| c.id == id)
}

/// Render the catalogue as Markdown (the body of `docs/checks.md`).
pub fn markdown() -> String {
    let mut out = String::from(
        "# Check catalogue\n\n\
         Every check id `vouch` can emit, generated from the registry in the code\n\
         (`crates/vouch-core/src/report/registry.rs` collects each family's `CHECKS` table). A test fails when this\n\
         file and the code disagree; regenerate it with\n\
         `VOUCH_BLESS=1 cargo test --test it catalogue`.\n\n\
         Severity is the status a violation normally gets: `fail` makes the verdict `reject`,\n\
         `warn` and `info` do not. Some checks also emit a lower level for borderline cases\n\
         (e.g. `metrics.value` warns when a value is off by more than half a unit but at most\n\
         one unit of its last digit).\n",
    );
    for family in Family::ALL {
        out.push_str(&format!(
            "\n## `{}`\n\n| id | severity | meaning |\n|---|---|---|\n",
            family.as_str()
        ));
        for c in all().iter().filter(|c| c.family == family) {
            out.push_str(&format!(
                "| `{}` | {} | {} |\n",
                c.id,
                c.severity.as_str(),
                c.meaning
            ));
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
