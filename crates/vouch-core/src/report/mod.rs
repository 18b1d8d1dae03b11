//! Findings, the verdict, and the renderers.
//!
//! A finding is a normal result, not an error: a bad bundle produces findings and a `reject`
//! verdict. Check ids are stable; every id a family can emit is declared in its `CHECKS` table
//! and collected by [`registry`].

pub mod agent;
pub mod check_id;
pub mod explain;
pub mod github;
pub mod html;
pub mod human;
pub mod json;
pub mod junit;
pub mod markdown;
pub mod registry;
pub mod sarif;

pub use check_id::CheckId;
use serde::Serialize;
use std::fmt;

/// The outcome of one check on one location.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Status {
    /// Only in a check summary: the check did not run (see [`Report::skip_reason`]). No finding
    /// carries it.
    Skipped,
    Pass,
    Info,
    Warn,
    Fail,
}

impl Status {
    pub fn as_str(self) -> &'static str {
        match self {
            Status::Skipped => "skipped",
            Status::Pass => "pass",
            Status::Info => "info",
            Status::Warn => "warn",
            Status::Fail => "fail",
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Family {
    Bundle,
    Source,
    Metrics,
    Movements,
    Svg,
    Memo,
    Manifest,
    Script,
    Consistency,
}

impl Family {
    pub const ALL: [Family; 9] = [
        Family::Bundle,
        Family::Source,
        Family::Metrics,
        Family::Movements,
        Family::Svg,
        Family::Memo,
        Family::Manifest,
        Family::Script,
        Family::Consistency,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            Family::Bundle => "bundle",
            Family::Source => "source",
            Family::Metrics => "metrics",
            Family::Movements => "movements",
            Family::Svg => "svg",
            Family::Memo => "memo",
            Family::Manifest => "manifest",
            Family::Script => "script",
            Family::Consistency => "consistency",
        }
    }
}

/// Where in an artifact a finding points.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct Location {
    /// 1-based line in the artifact's text.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub line: Option<usize>,
    /// 1-based data row (CSV records after the header).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub row: Option<usize>,
    /// The column (header as printed) or the field name.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub column: Option<String>,
    /// The year the cell belongs to, when there is one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub year: Option<i32>,
}

impl Location {
    pub fn line(line: usize) -> Location {
        Location {
            line: Some(line),
            ..Default::default()
        }
    }
    pub fn field(name: impl Into<String>) -> Location {
        Location {
            column: Some(name.into()),
            ..Default::default()
        }
    }
    pub fn is_empty(&self) -> bool {
        *self == Location::default()
    }
}

impl fmt::Display for Location {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut parts = Vec::new();
        if let Some(l) = self.line {
            parts.push(format!("line {l}"));
        }
        if let Some(r) = self.row {
            parts.push(format!("row {r}"));
        }
        if let Some(c) = &self.column {
            parts.push(format!("column `{c}`"));
        }
        if let Some(y) = self.year {
            parts.push(format!("year {y}"));
        }
        f.write_str(&parts.join(", "))
    }
}

/// The numbers behind a finding on a printed value (contract §7).
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct NumberDetail {
    pub printed: String,
    /// The printed value's interval, in its own unit.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub interval: Option<String>,
    /// What vouch recomputed, in the printed value's unit.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub recomputed: Option<String>,
    /// Distance from the printed value in units of its last digit.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub k: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub formula: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub variant: Option<String>,
    /// `fraction`, `percent`, `multiple`, `money`, `points`…
    #[serde(skip_serializing_if = "Option::is_none")]
    pub scale: Option<String>,
}

/// How a finding prints what vouch recomputed: to a number of places, or as many as it needs.
#[derive(Clone, Copy, Debug)]
pub enum Shown {
    Places(u32),
    Auto,
}

impl NumberDetail {
    /// The one writing of a printed-versus-recomputed judgement (§7): the printed text, the
    /// interval it stands for, what vouch recomputed (`x` read at `factor`, in the printed
    /// unit) and the distance `k` of `judgement` (`numbers::judge`). Callers add the formula,
    /// variant and scale they know.
    pub fn judged(
        x: &crate::numbers::Num,
        printed: &crate::numbers::Printed,
        factor: &crate::numbers::Num,
        judgement: &crate::numbers::Judgement,
        shown: Shown,
    ) -> NumberDetail {
        let value = x * factor;
        NumberDetail {
            printed: printed.raw.clone(),
            interval: Some(printed.interval().to_string()),
            recomputed: Some(match shown {
                Shown::Places(places) => crate::numbers::show(&value, places),
                Shown::Auto => crate::numbers::show_auto(&value),
            }),
            k: Some(crate::numbers::show_k(&judgement.k)),
            ..Default::default()
        }
    }

    /// `printed …, interval …, recomputed …, k = …` (and `scale …` with `scale`), values wrapped
    /// in `quote` (a Markdown code span, or nothing), for every renderer that writes them inline.
    pub fn parts(&self, quote: &str, interval: bool, scale: bool) -> Vec<String> {
        let mut parts = Vec::new();
        if !self.printed.is_empty() {
            parts.push(format!("printed {quote}{}{quote}", self.printed));
        }
        if let Some(i) = self.interval.as_ref().filter(|_| interval) {
            parts.push(format!("interval {i}"));
        }
        if let Some(r) = &self.recomputed {
            parts.push(format!("recomputed {quote}{r}{quote}"));
        }
        if let Some(k) = &self.k {
            parts.push(format!("k = {k}"));
        }
        if let Some(s) = self.scale.as_ref().filter(|_| scale) {
            parts.push(format!("scale {s}"));
        }
        parts
    }
}

#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Finding {
    pub id: CheckId,
    pub status: Status,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub artifact: Option<String>,
    #[serde(skip_serializing_if = "Location::is_empty")]
    pub location: Location,
    pub message: String,
    #[serde(flatten, skip_serializing_if = "Option::is_none")]
    pub number: Option<NumberDetail>,
    /// The text the finding is about, as the artifact prints it (a memo number vouch left
    /// unverified), for renderers that mark it in place; not part of any serialised report.
    #[serde(skip)]
    pub quoted: Option<String>,
}

impl Finding {
    pub fn new(id: CheckId, status: Status, message: impl Into<String>) -> Finding {
        Finding {
            id,
            status,
            artifact: None,
            location: Location::default(),
            message: message.into(),
            number: None,
            quoted: None,
        }
    }
    pub fn fail(id: CheckId, message: impl Into<String>) -> Finding {
        Finding::new(id, Status::Fail, message)
    }
    pub fn warn(id: CheckId, message: impl Into<String>) -> Finding {
        Finding::new(id, Status::Warn, message)
    }
    pub fn info(id: CheckId, message: impl Into<String>) -> Finding {
        Finding::new(id, Status::Info, message)
    }
    pub fn artifact(mut self, name: impl Into<String>) -> Finding {
        self.artifact = Some(name.into());
        self
    }
    pub fn at(mut self, location: Location) -> Finding {
        self.location = location;
        self
    }
    pub fn line(mut self, line: usize) -> Finding {
        self.location.line = Some(line);
        self
    }
    pub fn number(mut self, detail: NumberDetail) -> Finding {
        self.number = Some(detail);
        self
    }
    /// The artifact's own text the finding is about (see [`Finding::quoted`]).
    pub fn quoting(mut self, text: impl Into<String>) -> Finding {
        self.quoted = Some(text.into());
        self
    }
    pub fn family(&self) -> &str {
        self.id.family().as_str()
    }
}

/// The overall decision.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Verdict {
    Accept,
    Reject,
}

impl Verdict {
    pub fn exit_code(self) -> i32 {
        match self {
            Verdict::Accept => 0,
            Verdict::Reject => 1,
        }
    }
}

/// An artifact as loaded: its name, size and digest.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct ArtifactDigest {
    pub name: String,
    pub bytes: u64,
    pub sha256: String,
}

/// Everything one verification found.
/// How many claims of one artifact vouch traced to the source (contract §9): verified,
/// contradicted, or unverified (could not be tied with certainty).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub struct Coverage {
    pub verified: usize,
    pub contradicted: usize,
    pub unverified: usize,
}

impl Coverage {
    pub fn total(&self) -> usize {
        self.verified + self.contradicted + self.unverified
    }

    pub fn add(&mut self, other: Coverage) {
        self.verified += other.verified;
        self.contradicted += other.contradicted;
        self.unverified += other.unverified;
    }
}

/// Bundle text quoted in a finding, made safe for every renderer: control characters (terminal
/// escapes, carriage returns, line breaks, NUL), C1 controls and the bidirectional overrides
/// that reorder a line become visible escapes (`\u{1b}`), so a message cannot clear a screen,
/// forge a line of the report or a Markdown heading, or make JUnit XML invalid.
pub fn inert(text: &str) -> std::borrow::Cow<'_, str> {
    let bad = |c: char| {
        (c.is_control() && c != ' ')
            || matches!(c, '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}' | '\u{200e}' | '\u{200f}')
    };
    if !text.chars().any(bad) {
        return std::borrow::Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len() + 8);
    for c in text.chars() {
        if bad(c) {
            out.push_str(&c.escape_unicode().to_string());
        } else {
            out.push(c);
        }
    }
    std::borrow::Cow::Owned(out)
}

/// [`inert`] over a finding's message and the column it names.
pub fn make_inert(findings: &mut [Finding]) {
    for f in findings {
        if let std::borrow::Cow::Owned(m) = inert(&f.message) {
            f.message = m;
        }
        if let Some(c) = &f.location.column {
            if let std::borrow::Cow::Owned(m) = inert(c) {
                f.location.column = Some(m);
            }
        }
    }
}

/// A byte count for people: `512 bytes`, `16 MiB`, `20.5 MiB` (binary units, one decimal
/// unless exact).
pub fn human_bytes(n: u64) -> String {
    const UNITS: [&str; 4] = ["KiB", "MiB", "GiB", "TiB"];
    if n < 1024 {
        return plural(n as usize, "byte", "bytes");
    }
    let mut unit = 0;
    let mut scale = 1024u64;
    while unit + 1 < UNITS.len() && n >= scale * 1024 {
        scale *= 1024;
        unit += 1;
    }
    if n % scale == 0 {
        format!("{} {}", n / scale, UNITS[unit])
    } else {
        format!("{:.1} {}", n as f64 / scale as f64, UNITS[unit])
    }
}

/// The spec key that raises the size limit of artifacts and sources.
pub const ARTIFACT_LIMIT_KEY: &str = "limits.max_artifact_bytes";

/// Skipped check ids named briefly: all of them up to three, else a count and the first two.
pub fn name_checks(ids: &[CheckId]) -> String {
    let names: Vec<&str> = ids.iter().map(|c| c.as_str()).collect();
    if names.len() > 3 {
        format!("{} checks ({}, …)", names.len(), names[..2].join(", "))
    } else {
        names.join(", ")
    }
}

/// `n` and the word for it: `1 check`, `2 checks`.
pub fn plural(n: usize, one: &str, many: &str) -> String {
    format!("{n} {}", if n == 1 { one } else { many })
}

/// Most findings a report lists for one check; the rest are counted in one summary finding
/// (a hostile bundle can make a check fire millions of times).
pub const MAX_FINDINGS_PER_CHECK: usize = 500;

/// Keeps the first [`MAX_FINDINGS_PER_CHECK`] findings of each check, in order, and puts after
/// the last one kept a finding that says how many more there were (with the worst status among
/// them, so the verdict is unchanged).
pub fn cap_findings(findings: Vec<Finding>) -> Vec<Finding> {
    let mut counts: std::collections::HashMap<CheckId, usize> = Default::default();
    for f in &findings {
        *counts.entry(f.id).or_default() += 1;
    }
    if counts.values().all(|&n| n <= MAX_FINDINGS_PER_CHECK) {
        return findings;
    }
    let mut seen: std::collections::HashMap<CheckId, usize> = Default::default();
    let mut dropped: std::collections::HashMap<CheckId, (usize, Status)> = Default::default();
    let mut out = Vec::with_capacity(findings.len().min(counts.len() * MAX_FINDINGS_PER_CHECK));
    let mut summary_at: Vec<(usize, CheckId, Option<String>)> = Vec::new();
    for f in findings {
        let k = seen.entry(f.id).or_default();
        *k += 1;
        if *k <= MAX_FINDINGS_PER_CHECK {
            if *k == MAX_FINDINGS_PER_CHECK && counts[&f.id] > MAX_FINDINGS_PER_CHECK {
                summary_at.push((out.len() + 1, f.id, f.artifact.clone()));
            }
            out.push(f);
        } else {
            let d = dropped.entry(f.id).or_insert((0, f.status));
            d.0 += 1;
            d.1 = d.1.max(f.status);
        }
    }
    for (at, id, artifact) in summary_at.into_iter().rev() {
        let (n, status) = dropped[&id];
        let mut f = Finding::new(
            id,
            status,
            format!(
                "{n} more `{id}` findings are not listed (a report lists at most \
                 {MAX_FINDINGS_PER_CHECK} per check)"
            ),
        );
        f.artifact = artifact;
        out.insert(at, f);
    }
    out
}

#[derive(Clone, Debug, Serialize)]
pub struct Report {
    pub bundle: String,
    pub source: String,
    pub source_sha256: String,
    pub spec: String,
    pub artifacts: Vec<ArtifactDigest>,
    /// Families that were checked (the others are listed as not checked).
    pub families_checked: Vec<Family>,
    /// Every non-pass finding, in the order the checks ran.
    pub findings: Vec<Finding>,
    /// Claims traced per artifact (the memo's numbers), in artifact order.
    pub coverage: Vec<(String, Coverage)>,
    /// Checks of checked families that did not run, and why.
    pub skipped: Vec<Skip>,
    /// Whether the script was re-run (`--reexecute`): the `script.reproducible*` checks run only then.
    pub reexecuted: bool,
}

/// Checks that did not run: `checks` of `family` (every one of its checks that reported nothing,
/// when empty), for `reason`.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Skip {
    pub family: Family,
    pub checks: Vec<CheckId>,
    /// Checks of the family that ran all the same (before the point that stopped it).
    pub except: Vec<CheckId>,
    pub reason: String,
}

impl Skip {
    fn covers(&self, def: &registry::CheckDef) -> bool {
        def.family == self.family
            && (self.checks.is_empty() || self.checks.contains(&def.id))
            && !self.except.contains(&def.id)
    }
}

/// The checks that run only with `--reexecute`.
pub const REEXECUTE_CHECKS: [CheckId; 2] = [
    CheckId::ScriptReproducible,
    CheckId::ScriptReproducibleBytes,
];

impl Report {
    pub fn verdict(&self) -> Verdict {
        if self.findings.iter().any(|f| f.status == Status::Fail) {
            Verdict::Reject
        } else {
            Verdict::Accept
        }
    }

    /// Whether the source itself is faulty (a failing `source.*` check).
    pub fn source_faulty(&self) -> bool {
        self.findings
            .iter()
            .any(|f| f.status == Status::Fail && f.family() == "source")
    }

    pub fn count(&self, status: Status) -> usize {
        self.findings.iter().filter(|f| f.status == status).count()
    }

    /// Why a check reported nothing because it did not run; `None` when it ran.
    pub fn skip_reason(&self, def: &registry::CheckDef) -> Option<String> {
        if !self.families_checked.contains(&def.family) {
            return Some(if self.source_faulty() {
                "the source is faulty".into()
            } else {
                "the source's years are unusable".into()
            });
        }
        if REEXECUTE_CHECKS.contains(&def.id) && !self.reexecuted {
            return Some("`--reexecute` was not asked".into());
        }
        self.skipped
            .iter()
            .find(|s| s.covers(def))
            .map(|s| s.reason.clone())
    }

    /// The skipped checks of the checked families, grouped by reason in registry order (the
    /// families the source kept from running are named apart); the `--reexecute` reason only
    /// when `with_reexecute`.
    pub fn skip_groups(
        &self,
        summary: &[(&'static registry::CheckDef, Status)],
        with_reexecute: bool,
    ) -> Vec<(String, Vec<CheckId>)> {
        let mut groups: Vec<(String, Vec<CheckId>)> = Vec::new();
        for (def, status) in summary {
            if *status != Status::Skipped
                || !self.families_checked.contains(&def.family)
                || (!with_reexecute && REEXECUTE_CHECKS.contains(&def.id))
            {
                continue;
            }
            let Some(reason) = self.skip_reason(def) else {
                continue;
            };
            match groups.iter_mut().find(|(r, _)| *r == reason) {
                Some((_, ids)) => ids.push(def.id),
                None => groups.push((reason, vec![def.id])),
            }
        }
        groups
    }

    /// One entry per registered check: the worst status it reached, `Pass` when it ran and found
    /// nothing, `Skipped` when it did not run.
    pub fn check_summary(&self) -> Vec<(&'static registry::CheckDef, Status)> {
        registry::all()
            .iter()
            .copied()
            .map(|c| {
                let worst = self
                    .findings
                    .iter()
                    .filter(|f| f.id == c.id)
                    .map(|f| f.status)
                    .max();
                let status = match worst {
                    Some(w) => w,
                    None if self.skip_reason(c).is_some() => Status::Skipped,
                    None => Status::Pass,
                };
                (c, status)
            })
            .collect()
    }

    pub fn families_not_checked(&self) -> Vec<Family> {
        Family::ALL
            .iter()
            .copied()
            .filter(|f| !self.families_checked.contains(f))
            .collect()
    }
}
