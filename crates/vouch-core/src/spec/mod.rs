//! The contract as data: `verifiers/*.toml` parsed once and compiled (formulas parsed and
//! resolved, name tables folded) into a [`Spec`] that every verification reuses.

pub mod formula;

use crate::names::fold;
use crate::numbers::{parse_decimal, Num};
use formula::{Expr, Ref};
use serde::Deserialize;
use std::collections::HashMap;

/// The default contract, embedded in the binary.
pub const DEFAULT_SPEC: &str = include_str!("../../../../verifiers/financial-analyst.toml");
/// [`DEFAULT_SPEC`] converted to JSON by the build script (empty if it is not valid TOML).
const DEFAULT_SPEC_JSON: &str = include_str!(concat!(env!("OUT_DIR"), "/financial-analyst.json"));
/// The agent prompt that goes with the default contract.
pub const DEFAULT_PROMPT: &str = include_str!("../../../../verifiers/financial-analyst.prompt.md");

#[derive(Debug, thiserror::Error)]
pub enum SpecError {
    #[error("spec is not valid TOML for the vouch schema: {0}")]
    Toml(#[from] toml::de::Error),
    #[error(transparent)]
    Formula(#[from] formula::FormulaError),
    #[error("spec: {0}")]
    Invalid(String),
}

// ---------------------------------------------------------------------------------------------
// Raw TOML shape.

/// A contract file (`verifiers/*.toml`): every table is required; an unknown key fails the load.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawSpec {
    /// Which contract this is, and its human statement.
    contract: Contract,
    /// How cells and names are read.
    names: RawNames,
    /// The six artifact file names.
    artifacts: Artifacts,
    /// Size limits on what vouch reads.
    limits: Limits,
    /// §1: the source CSV's columns, identity and derivations.
    source: RawSource,
    /// §2: the metrics, one table per metric.
    metrics: Vec<RawMetric>,
    /// §2: how `calculated_metrics.csv` may be laid out.
    metrics_file: MetricsFileSpec,
    /// §3: the unusual-movement rules and `unusual_movements.csv`'s columns.
    movements: RawMovements,
    /// §5: the memo's sections, cues and evidence topics.
    memo: MemoSpec,
    /// §4: the chart's panels and geometry.
    chart: RawChart,
    /// §6: the manifest's required keys and claims.
    manifest: ManifestSpec,
    /// §6: what the script may import and call.
    script: ScriptSpec,
}

#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Contract {
    /// The contract's id (reports print `id vVERSION`).
    pub id: String,
    /// Its version; a change of meaning is a new version.
    pub version: u32,
    /// The human statement of the same rules, beside this file (a test holds them together).
    pub document: String,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawNames {
    /// Cells that mean blank, compared case-insensitively after trimming (`n/a`, `—` …).
    blanks: Vec<String>,
}

#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Artifacts {
    /// The analysis script (§6).
    pub script: String,
    /// The metrics table (§2).
    pub metrics: String,
    /// The unusual-movements table (§3).
    pub movements: String,
    /// The chart (§4).
    pub chart: String,
    /// The memo (§5).
    pub memo: String,
    /// The run manifest (§6).
    pub manifest: String,
}

impl Artifacts {
    /// The six artifact names in the contract's order.
    pub fn all(&self) -> [&str; 6] {
        [
            &self.script,
            &self.metrics,
            &self.movements,
            &self.chart,
            &self.memo,
            &self.manifest,
        ]
    }
}

#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Limits {
    /// Largest artifact or source vouch reads, in bytes (judged from metadata first).
    pub max_artifact_bytes: u64,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawSource {
    /// Fewest data rows a usable source has (`source.too_few_rows`).
    min_rows: usize,
    /// The column (a `columns` name) that holds the year.
    year_column: String,
    /// `total = sum of parts` in every row, judged as an interval overlap (`source.identity`).
    identity: RawIdentity,
    /// Groups of columns of which at least one must be present.
    one_of: Vec<Vec<String>>,
    /// Per row, a missing column computed from others (and, when both are printed, checked).
    derived: Vec<RawDerived>,
    /// Columns read as magnitudes: a negative value is its absolute value everywhere.
    magnitudes: Vec<String>,
    /// The columns vouch knows, with their aliases.
    columns: Vec<RawColumn>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawIdentity {
    /// The column that is the total.
    total: String,
    /// The columns that sum to it.
    parts: Vec<String>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawDerived {
    /// The column derived when it is missing.
    column: String,
    /// Its formula, in vouch's formula language, over other columns.
    formula: String,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawColumn {
    /// The canonical name formulas use.
    name: String,
    /// Other headers that mean this column (folded before comparing).
    aliases: Vec<String>,
    /// Whether a source without it is faulty (`source.missing_column`).
    required: bool,
    /// Whether a missing column or blank cell counts as zero in formulas (`opt(...)`).
    #[serde(default)]
    missing_as_zero: bool,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawMetric {
    /// The metric's id: its column or row name in `calculated_metrics.csv`.
    id: String,
    /// What its values are: `ratio`, `multiple`, `money` or `points`.
    unit: Unit,
    /// Its canonical formula.
    formula: String,
    /// Other formulas an analyst may use, accepted when all of a metric's cells fit one.
    #[serde(default)]
    variants: Vec<RawVariant>,
    /// Other names for it in headers, KPI labels and prose.
    synonyms: Vec<String>,
    /// Inputs (columns or metrics) whose negative value makes the metric not meaningful.
    #[serde(default)]
    not_meaningful_if_negative: Vec<String>,
    /// Whether a not-meaningful value may be printed under any variant's arithmetic.
    #[serde(default)]
    not_meaningful_any_variant: bool,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawVariant {
    /// The variant's name, shown in findings.
    name: String,
    /// Its formula.
    formula: String,
}

#[derive(Clone, Copy, Debug, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
pub enum Unit {
    /// A fraction, printable as a fraction or a percent.
    Ratio,
    /// A multiple (x).
    Multiple,
    /// Money in source units.
    Money,
    /// A difference of ratios, printable as a fraction or in points.
    Points,
}

#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MetricsFileSpec {
    /// Headers of a long layout's year column.
    pub long_year_columns: Vec<String>,
    /// Headers of a long layout's metric-name column.
    pub long_metric_columns: Vec<String>,
    /// Headers of a long layout's value column.
    pub long_value_columns: Vec<String>,
    /// Fewest significant digits a ratio or multiple is printed with (`metrics.imprecise`).
    pub min_significant_digits: u32,
    /// Tokens (or `_`-joined token phrases) that only describe a metric named before them in a
    /// header: averaging words, the base named, units (contract §9 "§2 headers").
    pub header_descriptors: Vec<String>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawMovements {
    /// Headers of `unusual_movements.csv`'s year column.
    year_columns: Vec<String>,
    /// Headers of its item column.
    item_columns: Vec<String>,
    /// Headers of its rule column.
    rule_columns: Vec<String>,
    /// Headers of its change column.
    change_columns: Vec<String>,
    /// Extra flags on metrics and derived columns are accepted (info) when |change| is at least
    /// this (a decimal string).
    extra_growth_threshold: String,
    /// The change formula of such an extra flag, over the placeholder `x`.
    extra_growth_change: String,
    /// The flag rules, one table per rule.
    rules: Vec<RawRule>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawRule {
    /// The rule's id, as a rule cell may name it.
    id: String,
    /// What it judges: `line_items` (every source line item) or a metric id.
    items: String,
    /// The change formula over the placeholder `x` (the item).
    change: String,
    /// Other change formulas a change cell may print.
    alternatives: Vec<String>,
    /// The threshold, a decimal string; decisions are exact and inclusive.
    threshold: String,
    /// Whether |change| (true) or the signed change is compared.
    absolute: bool,
    /// Word sequences that name the rule in a rule cell (`year over year`).
    tokens: Vec<Vec<String>>,
    /// How the change is printed: `ratio` (percent) or `points`.
    unit: Unit,
}

#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MemoSpec {
    /// The required sections, in order (headings are folded and matched with synonyms).
    pub sections: Vec<String>,
    /// Fewest words a section's body holds (`memo.thin_section`).
    pub min_section_words: usize,
    /// The section that holds the KPI table (one of `sections`).
    pub kpi_section: String,
    /// Extensions that make a token a file name (a citation).
    pub file_extensions: Vec<String>,
    /// A KPI ratio or multiple whose printed interval is wider than this share of its magnitude
    /// is imprecise (a decimal string, contract §9).
    pub kpi_max_relative_interval: String,
    /// §9: quantities the contract does not define; a number next to one is unverified.
    pub undefined_quantities: Vec<String>,
    /// §9: words that, next to a metric, describe it (`average equity`): not items of their own.
    pub metric_descriptors: Vec<String>,
    /// §9: words that end a clause and compare two things (`vs`, `against` …).
    pub comparison_cues: Vec<String>,
    /// §9: words that make a prior-year value admissible (`from`, `up from` …).
    pub prior_cues: Vec<String>,
    /// §9: words that end a clause when a new item follows (`and`, `but` …).
    pub clause_breaks: Vec<String>,
    /// §9: words that always open a new clause with a subject of its own (`because` …).
    #[serde(default)]
    pub clause_heads: Vec<String>,
    /// §9: words after which a sentence's figures are hypothetical (`would`, `if` …).
    #[serde(default)]
    pub hypothetical_cues: Vec<String>,
    /// §9: words that make a difference of two rates admissible (`gap`, `ahead of` …).
    pub difference_cues: Vec<String>,
    /// §9: verbs of change that make the change over a span of years admissible.
    pub change_cues: Vec<String>,
    /// Nouns of change (`change in`, `increase in` …): before a sum or difference of two items
    /// (`change in equity minus net income`) they leave its scope open — the change of the
    /// difference, or the difference of a change and a value — so a number tied to it is
    /// unverified.
    #[serde(default)]
    pub change_nouns: Vec<String>,
    /// Names prose uses for a source column or a metric beyond its header aliases and synonyms
    /// (`OCF`, `op. margin`): read in the memo (and chart titles) only, never as headers. Keyed
    /// by column name or metric id.
    #[serde(default)]
    pub names: std::collections::BTreeMap<String, Vec<String>>,
    /// §9: quantities the contract does not define that vouch recomputes for the memo (days
    /// sales outstanding …): a number tied to one is judged against every formula listed.
    #[serde(default)]
    pub measures: Vec<RawMeasure>,
    /// §5: the evidence topics, each discussed in a paragraph that cites a year and a file.
    pub evidence: Vec<EvidenceTopic>,
}

#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawMeasure {
    /// The measure's id, shown in findings.
    pub id: String,
    /// How prose names it (matched as word sequences, like the other names).
    pub names: Vec<String>,
    /// What its values are: `days`, `ratio` or `multiple`.
    pub unit: MeasureUnit,
    /// Every formula a careful analyst may use (year-end or average balance, 365 or 360 days):
    /// a figure matching any of them is verified; one matching none, with certainty, is wrong.
    pub formulas: Vec<String>,
}

/// What a measure's values are.
#[derive(Clone, Copy, Debug, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum MeasureUnit {
    /// A number of days (`45.2 days`, or bare).
    Days,
    /// A fraction, printed in percent.
    Ratio,
    /// A multiple (`2.1x`).
    Multiple,
}

/// A compiled [`RawMeasure`].
#[derive(Clone, Debug)]
pub struct MeasureSpec {
    pub id: String,
    pub names: Vec<String>,
    pub unit: MeasureUnit,
    pub formulas: Vec<Variant>,
}

/// A number that is one of the contract's own thresholds (a memo quoting "the 15% threshold" is
/// not making a claim about the data): derived from the movement rules in `compile`, never
/// written twice.
#[derive(Clone, Debug, PartialEq)]
pub struct ThresholdNumber {
    pub value: Num,
    pub unit: ThresholdUnit,
}

/// How a threshold is written in prose: `15%`, `2 points`, or the bare fraction `0.15`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ThresholdUnit {
    Percent,
    Points,
    Bare,
}

#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct EvidenceTopic {
    /// The topic's name, shown in findings.
    pub topic: String,
    /// Terms that mention it, matched case-insensitively as whole words.
    pub terms: Vec<String>,
    /// Terms matched in upper case only (`AR`, `SBC`).
    pub case_sensitive_terms: Vec<String>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawChart {
    /// How many panels the chart has (`svg.panel_count`).
    panels: usize,
    /// Smallest readable font size, in px at the chart's rendered size (`svg.font_size`).
    min_font_px: f64,
    /// The font size of text that sets none (SVG's default).
    default_font_px: f64,
    /// Estimated advance of one character, in em (text boxes for `svg.text_outside`), a
    /// decimal string.
    char_width_em: String,
    /// Geometric slack in px for overlap and containment, a decimal string.
    tolerance_px: String,
    /// Fewest marks (points or bars) a plotted series has to be read.
    min_series_marks: usize,
    /// How far a plotted value may be from the recomputed one, as a share of its panel's
    /// scale (`svg.fidelity`), a decimal string.
    fidelity_tolerance: String,
}

/// The compiled `[chart]` table: its decimal strings parsed once, here.
#[derive(Clone, Debug)]
pub struct ChartSpec {
    pub panels: usize,
    pub min_font_px: f64,
    pub default_font_px: f64,
    pub char_width_em: f64,
    pub tolerance_px: f64,
    pub min_series_marks: usize,
    pub fidelity_tolerance: f64,
}

#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ManifestSpec {
    /// The directory the manifest's `execution_directory` must name.
    pub execution_directory: String,
    /// The key of the manifest's claim that the identity held in every row.
    pub identity_claim: String,
    /// Optional claims, each tested against a source fact.
    pub claims: Vec<Claim>,
}

#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Claim {
    /// The manifest keys (folded) that make this claim.
    pub names: Vec<String>,
    /// The source fact the claim asserts.
    pub fact: Fact,
}

/// A fact about the source a manifest claim is tested against (an unknown name fails the spec's
/// load, instead of leaving the claim untested).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Fact {
    /// Every required column (after aliases) is in the source.
    RequiredColumnsPresent,
    /// Every required cell is a plain decimal number (undetermined when a column was ignored for
    /// its text, or a number is too long to read).
    NumericValuesValid,
    /// The years are integers, unique, ascending and consecutive.
    YearsUniqueAndOrdered,
}

#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ScriptSpec {
    /// The Python whose grammar the script is parsed with (and whose stdlib is allowed).
    pub python_version: String,
    /// Modules that open sockets or run processes (`script.network_or_process`).
    pub forbidden_modules: Vec<String>,
    /// Attributes of `os` that run or fork processes; a trailing `*` matches a prefix.
    pub forbidden_os_calls: Vec<String>,
}

// ---------------------------------------------------------------------------------------------
// Compiled shape.

#[derive(Clone, Debug)]
pub struct ColumnSpec {
    pub name: String,
    pub aliases: Vec<String>,
    pub required: bool,
    pub missing_as_zero: bool,
    pub magnitude: bool,
}

#[derive(Clone, Debug)]
pub struct Derived {
    pub column: usize,
    pub formula: Expr,
}

#[derive(Clone, Debug)]
pub struct SourceSpec {
    pub min_rows: usize,
    pub year_column: usize,
    pub columns: Vec<ColumnSpec>,
    pub identity_total: usize,
    pub identity_parts: Vec<usize>,
    pub one_of: Vec<Vec<usize>>,
    pub derived: Vec<Derived>,
}

#[derive(Clone, Debug)]
pub struct Variant {
    /// `canonical` for the contract's formula, else the variant's name.
    pub name: String,
    pub formula: Expr,
}

#[derive(Clone, Debug)]
pub struct MetricSpec {
    pub id: String,
    pub unit: Unit,
    /// Index 0 is the canonical formula.
    pub variants: Vec<Variant>,
    pub synonyms: Vec<String>,
    pub not_meaningful_if_negative: Vec<Expr>,
    pub not_meaningful_any_variant: bool,
    /// The words of the names its formulas use (`net`, `income`, `total`, `assets` for roa): in a
    /// header after the metric's name they name its base, so they only describe it (§9 "§2
    /// headers": `roe_pct_avg_total_equity`, `debt_to_equity_liabilities_over_equity`).
    pub base_tokens: Vec<String>,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum RuleItems {
    LineItems,
    Metric(usize),
}

#[derive(Clone, Debug)]
pub struct RuleSpec {
    pub id: String,
    pub items: RuleItems,
    pub change: Expr,
    pub alternatives: Vec<Expr>,
    pub threshold: Num,
    pub absolute: bool,
    pub tokens: Vec<Vec<String>>,
    pub unit: Unit,
}

#[derive(Clone, Debug)]
pub struct MovementsSpec {
    pub year_columns: Vec<String>,
    pub item_columns: Vec<String>,
    pub rule_columns: Vec<String>,
    pub change_columns: Vec<String>,
    pub extra_growth_threshold: Num,
    pub extra_growth_change: Expr,
    pub rules: Vec<RuleSpec>,
}

/// The compiled contract.
#[derive(Clone, Debug)]
pub struct Spec {
    /// The spec file's bytes, for reports and cache keys.
    pub text: String,
    pub contract: Contract,
    pub blanks: Vec<String>,
    pub artifacts: Artifacts,
    pub limits: Limits,
    pub source: SourceSpec,
    pub metrics: Vec<MetricSpec>,
    /// §9: the memo's recomputed quantities beyond the metrics ([`MeasureSpec`]).
    pub measures: Vec<MeasureSpec>,
    pub metrics_file: MetricsFileSpec,
    pub movements: MovementsSpec,
    pub memo: MemoSpec,
    /// The movement thresholds as the memo may quote them (derived from `movements`).
    pub threshold_numbers: Vec<ThresholdNumber>,
    pub chart: ChartSpec,
    pub manifest: ManifestSpec,
    pub script: ScriptSpec,
    column_names: HashMap<String, usize>,
    metric_names: HashMap<String, usize>,
    /// `metrics_file.header_descriptors`, each split into its tokens once.
    descriptor_phrases: Vec<Vec<String>>,
    /// The memo's cue phrases (`memo.*_cues` and the undefined quantities), indexed once here
    /// rather than per memo.
    pub(crate) memo_cues: std::sync::Arc<crate::read::memo::claims::Cues>,
    /// This compilation's number in the process (clones share it): what tables built from a
    /// spec and kept elsewhere are keyed by (`Statements::memo_vocabulary`).
    pub(crate) serial: u64,
}

static SPEC_SERIAL: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);

impl Spec {
    /// The embedded default contract.
    pub fn default_spec() -> Spec {
        // The build script's JSON form of the same TOML deserialises several times faster.
        match serde_json::from_str::<RawSpec>(DEFAULT_SPEC_JSON) {
            Ok(raw) => compile(DEFAULT_SPEC, raw),
            Err(_) => Spec::parse(DEFAULT_SPEC),
        }
        .expect("the embedded spec compiles (tested)")
    }

    pub fn parse(text: &str) -> Result<Spec, SpecError> {
        let raw: RawSpec = toml::from_str(text)?;
        compile(text, raw)
    }

    /// Whether a cell's text means blank. A blank marker with a note in parentheses after it
    /// (`n/a (no data)`, `n/m (net loss)`) is that marker; a note alone (`(12.3)`) is not.
    pub fn is_blank(&self, cell: &str) -> bool {
        let t = cell.trim();
        let marker = |t: &str| self.blanks.iter().any(|b| b.eq_ignore_ascii_case(t));
        if marker(t) {
            return true;
        }
        let Some(inner) = t.strip_suffix(')') else {
            return false;
        };
        let Some(open) = inner.rfind('(') else {
            return false;
        };
        let head = inner[..open].trim();
        !head.is_empty() && marker(head)
    }

    /// A source column by folded header, canonical name or alias.
    pub fn column_named(&self, folded: &str) -> Option<usize> {
        self.column_names.get(folded).copied()
    }

    /// A metric by folded id or synonym.
    pub fn metric_named(&self, folded: &str) -> Option<usize> {
        self.metric_names.get(folded).copied()
    }

    pub fn column_index(&self, canonical: &str) -> Option<usize> {
        self.source.columns.iter().position(|c| c.name == canonical)
    }

    pub fn metric_index(&self, id: &str) -> Option<usize> {
        self.metrics.iter().position(|m| m.id == id)
    }

    pub fn rule_index(&self, id: &str) -> Option<usize> {
        self.movements.rules.iter().position(|r| r.id == id)
    }

    /// A label written as a ratio of two names (`Total liabilities / total equity (x)`,
    /// `CFO / net income`, `Net income / avg total assets`): its numerator and denominator texts,
    /// when it has one `/` (or `÷`) outside parentheses with a word of two letters or more on each
    /// side (so `A/R` is no ratio). A trailing parenthesis (a unit, or the formula itself) is set
    /// aside first; a label that is only a name with its formula in parentheses is no ratio.
    pub fn ratio_sides(label: &str) -> Option<(&str, &str)> {
        let mut head = label.trim();
        while let Some(stripped) = head
            .strip_suffix(')')
            .and_then(|h| h.rfind('(').map(|o| &h[..o]))
        {
            head = stripped.trim_end();
        }
        let mut depth = 0i32;
        let mut at = None;
        for (i, c) in head.char_indices() {
            match c {
                '(' => depth += 1,
                ')' => depth -= 1,
                '/' | '\u{f7}' if depth == 0 => {
                    if at.is_some() {
                        return None;
                    }
                    at = Some((i, c.len_utf8()));
                }
                _ => {}
            }
        }
        let (i, n) = at?;
        let (num, den) = (head[..i].trim(), head[i + n..].trim());
        let worded = |t: &str| {
            t.split(|c: char| !c.is_alphabetic())
                .any(|w| w.chars().count() >= 2)
        };
        (worded(num) && worded(den)).then_some((num, den))
    }

    /// The canonical source column or metric one side of a ratio label names: its folded
    /// tokens, less descriptor words at either end (`avg`, `average`, `ending` …) until the rest
    /// is a name.
    pub fn ratio_side(&self, side: &str) -> Option<String> {
        let folded = crate::names::fold(side);
        let toks: Vec<&str> = crate::names::tokens(&folded).collect();
        let named = |t: &[&str]| -> Option<String> {
            let key = t.join("_");
            if let Some(c) = self.column_named(&key) {
                return Some(self.source.columns[c].name.clone());
            }
            if let Some(m) = self.metric_named(&key) {
                return Some(self.metrics[m].id.clone());
            }
            self.memo
                .names
                .iter()
                .find(|(_, ns)| ns.iter().any(|n| crate::names::fold(n) == key))
                .map(|(canonical, _)| canonical.clone())
        };
        let describes = |w: &str| {
            self.memo.metric_descriptors.iter().any(|d| d == w)
                || self.metrics_file.header_descriptors.iter().any(|d| d == w)
        };
        let (mut a, mut b) = (0, toks.len());
        loop {
            if a < b {
                if let Some(n) = named(&toks[a..b]) {
                    return Some(n);
                }
            }
            if a < b && describes(toks[a]) {
                a += 1;
            } else if a < b && describes(toks[b - 1]) {
                b -= 1;
            } else {
                return None;
            }
        }
    }

    /// The metric a ratio label names: the one whose formula (any variant) divides the
    /// numerator's name by the denominator's (or by its average), e.g. `total_liabilities /
    /// total_equity` for `Liabilities / equity`.
    pub fn metric_for_ratio(&self, num: &str, den: &str) -> Option<usize> {
        let n = self.ratio_side(num)?;
        let d = self.ratio_side(den)?;
        fn name(e: &Expr) -> Option<&str> {
            match e {
                Expr::Name { name, .. } => Some(name.as_str()),
                Expr::Call(formula::Func::Avg, inner) => name(inner),
                _ => None,
            }
        }
        let found: Vec<usize> = (0..self.metrics.len())
            .filter(|&m| {
                self.metrics[m].variants.iter().any(|v| match &v.formula {
                    Expr::Bin(formula::Op::Div, a, b) => {
                        name(a) == Some(n.as_str()) && name(b) == Some(d.as_str())
                    }
                    _ => false,
                })
            })
            .collect();
        match found[..] {
            [m] => Some(m),
            _ => None,
        }
    }

    /// The metric a folded header names (contract §9 "§2 headers"), with its rank: 0 for an exact
    /// id or synonym, else 1 + the number of descriptor tokens after the name. A header names a
    /// metric when its tokens start with the tokens of an id or synonym and every remaining token
    /// is a descriptor (`roa_avg_assets`, `free_cash_flow_usd_m`); the longest name wins.
    pub fn metric_for_header(&self, folded: &str) -> Option<(usize, usize)> {
        if let Some(m) = self.metric_named(folded) {
            return Some((m, 0));
        }
        let tokens: Vec<&str> = crate::names::tokens(folded).collect();
        for cut in (1..tokens.len()).rev() {
            let Some(m) = self.metric_named(&tokens[..cut].join("_")) else {
                continue;
            };
            let rest = &tokens[cut..];
            if let Some(n) = self.descriptor_tokens(m, rest) {
                return Some((m, 1 + n));
            }
            return None;
        }
        None
    }

    /// How many tokens `rest` has when it is made of descriptor phrases and words of metric
    /// `m`'s own formula names only, else `None`.
    fn descriptor_tokens(&self, m: usize, rest: &[&str]) -> Option<usize> {
        let base = &self.metrics[m].base_tokens;
        let mut i = 0;
        'outer: while i < rest.len() {
            if base.iter().any(|t| t == rest[i]) {
                i += 1;
                continue;
            }
            for dt in &self.descriptor_phrases {
                if rest[i..].len() >= dt.len() && rest[i..].iter().zip(dt).all(|(a, b)| a == b) {
                    i += dt.len();
                    continue 'outer;
                }
            }
            return None;
        }
        Some(rest.len())
    }

    /// Every name a metric is known by (id, then synonyms), folded.
    pub fn metric_aliases(&self, m: usize) -> impl Iterator<Item = &str> {
        let spec = &self.metrics[m];
        std::iter::once(spec.id.as_str()).chain(spec.synonyms.iter().map(String::as_str))
    }
}

fn invalid(msg: impl Into<String>) -> SpecError {
    SpecError::Invalid(msg.into())
}

fn compile(text: &str, raw: RawSpec) -> Result<Spec, SpecError> {
    let mut column_names = HashMap::new();
    let columns: Vec<ColumnSpec> = raw
        .source
        .columns
        .iter()
        .map(|c| ColumnSpec {
            name: c.name.clone(),
            aliases: c.aliases.clone(),
            required: c.required,
            missing_as_zero: c.missing_as_zero,
            magnitude: raw.source.magnitudes.contains(&c.name),
        })
        .collect();
    for (i, c) in columns.iter().enumerate() {
        for n in std::iter::once(&c.name).chain(c.aliases.iter()) {
            if column_names.insert(fold(n), i).is_some() {
                return Err(invalid(format!("source name `{n}` is listed twice")));
            }
        }
    }
    let col = |n: &str| -> Result<usize, SpecError> {
        columns
            .iter()
            .position(|c| c.name == n)
            .ok_or_else(|| invalid(format!("unknown source column `{n}`")))
    };
    for m in &raw.source.magnitudes {
        col(m)?;
    }
    let mut metric_names = HashMap::new();
    for (i, m) in raw.metrics.iter().enumerate() {
        for n in std::iter::once(&m.id).chain(m.synonyms.iter()) {
            if metric_names.insert(fold(n), i).is_some() {
                return Err(invalid(format!("metric name `{n}` is listed twice")));
            }
        }
    }
    let metric_ids: Vec<String> = raw.metrics.iter().map(|m| m.id.clone()).collect();
    let resolve_plain = |name: &str| -> Option<Ref> {
        columns
            .iter()
            .position(|c| c.name == name)
            .map(Ref::Column)
            .or_else(|| metric_ids.iter().position(|m| m == name).map(Ref::Metric))
    };
    let compile_expr = |src: &str, allow_item: bool| -> Result<Expr, SpecError> {
        let mut e = Expr::parse(src)?;
        e.resolve(&mut |n| {
            if allow_item && n == "x" {
                Some(Ref::Item)
            } else {
                resolve_plain(n)
            }
        })
        .map_err(|n| invalid(format!("formula `{src}` names unknown `{n}`")))?;
        Ok(e)
    };

    let mut derived = Vec::new();
    for d in &raw.source.derived {
        derived.push(Derived {
            column: col(&d.column)?,
            formula: compile_expr(&d.formula, false)?,
        });
    }
    let source = SourceSpec {
        min_rows: raw.source.min_rows,
        year_column: col(&raw.source.year_column)?,
        identity_total: col(&raw.source.identity.total)?,
        identity_parts: raw
            .source
            .identity
            .parts
            .iter()
            .map(|p| col(p))
            .collect::<Result<_, _>>()?,
        one_of: raw
            .source
            .one_of
            .iter()
            .map(|g| g.iter().map(|p| col(p)).collect::<Result<Vec<_>, _>>())
            .collect::<Result<_, _>>()?,
        derived,
        columns: columns.clone(),
    };

    let mut metrics = Vec::new();
    for m in &raw.metrics {
        let mut variants = vec![Variant {
            name: "canonical".into(),
            formula: compile_expr(&m.formula, false)?,
        }];
        for v in &m.variants {
            variants.push(Variant {
                name: v.name.clone(),
                formula: compile_expr(&v.formula, false)?,
            });
        }
        let mut names = Vec::new();
        for v in &variants {
            v.formula.names(&mut names);
        }
        let mut base_tokens: Vec<String> = names
            .iter()
            .flat_map(|n| n.split('_'))
            .filter(|t| !t.is_empty())
            .map(str::to_owned)
            .collect();
        base_tokens.sort();
        base_tokens.dedup();
        metrics.push(MetricSpec {
            id: m.id.clone(),
            unit: m.unit,
            variants,
            base_tokens,
            synonyms: m.synonyms.clone(),
            not_meaningful_if_negative: m
                .not_meaningful_if_negative
                .iter()
                .map(|s| compile_expr(s, false))
                .collect::<Result<_, _>>()?,
            not_meaningful_any_variant: m.not_meaningful_any_variant,
        });
    }
    check_metric_cycles(&metrics)?;
    if let Some(k) =
        raw.memo.names.keys().find(|k| {
            !columns.iter().any(|c| &c.name == *k) && !metrics.iter().any(|m| &m.id == *k)
        })
    {
        return Err(invalid(format!(
            "[memo] names: `{k}` is neither a source column nor a metric"
        )));
    }

    let undefined: std::collections::HashSet<String> = raw
        .memo
        .undefined_quantities
        .iter()
        .map(|q| fold(q))
        .collect();
    let mut measures = Vec::new();
    for m in &raw.memo.measures {
        if m.formulas.is_empty() || m.names.is_empty() {
            return Err(invalid(format!(
                "[[memo.measures]] `{}` needs names and formulas",
                m.id
            )));
        }
        if let Some(n) = m.names.iter().find(|n| undefined.contains(&fold(n))) {
            return Err(invalid(format!(
                "[[memo.measures]] `{}`: `{n}` is also an undefined quantity",
                m.id
            )));
        }
        measures.push(MeasureSpec {
            id: m.id.clone(),
            names: m.names.clone(),
            unit: m.unit,
            formulas: m
                .formulas
                .iter()
                .map(|f| {
                    Ok(Variant {
                        name: f.clone(),
                        formula: compile_expr(f, false)?,
                    })
                })
                .collect::<Result<_, SpecError>>()?,
        });
    }

    let threshold = |s: &str| parse_decimal(s).ok_or_else(|| invalid(format!("bad number `{s}`")));
    let mut rules = Vec::new();
    for r in &raw.movements.rules {
        let items =
            if r.items == "line_items" {
                RuleItems::LineItems
            } else {
                RuleItems::Metric(metric_ids.iter().position(|m| *m == r.items).ok_or_else(
                    || invalid(format!("rule `{}`: unknown item `{}`", r.id, r.items)),
                )?)
            };
        rules.push(RuleSpec {
            id: r.id.clone(),
            items,
            change: compile_expr(&r.change, true)?,
            alternatives: r
                .alternatives
                .iter()
                .map(|a| compile_expr(a, true))
                .collect::<Result<_, _>>()?,
            threshold: threshold(&r.threshold)?,
            absolute: r.absolute,
            tokens: r.tokens.clone(),
            unit: r.unit,
        });
    }
    let movements = MovementsSpec {
        year_columns: raw.movements.year_columns,
        item_columns: raw.movements.item_columns,
        rule_columns: raw.movements.rule_columns,
        change_columns: raw.movements.change_columns,
        extra_growth_threshold: threshold(&raw.movements.extra_growth_threshold)?,
        extra_growth_change: compile_expr(&raw.movements.extra_growth_change, true)?,
        rules,
    };
    let threshold_numbers = threshold_numbers(&movements);
    let descriptor_phrases: Vec<Vec<String>> = raw
        .metrics_file
        .header_descriptors
        .iter()
        .map(|d| {
            d.split('_')
                .filter(|t| !t.is_empty())
                .map(str::to_owned)
                .collect()
        })
        .filter(|dt: &Vec<String>| !dt.is_empty())
        .collect();
    if raw.memo.sections.is_empty() || !raw.memo.sections.contains(&raw.memo.kpi_section) {
        return Err(invalid("memo.kpi_section must be one of memo.sections"));
    }
    let decimal = |key: &str, s: &str| -> Result<f64, SpecError> {
        threshold(s)?;
        s.parse::<f64>()
            .map_err(|_| invalid(format!("chart.{key} `{s}` is not a decimal")))
    };
    let chart = ChartSpec {
        panels: raw.chart.panels,
        min_font_px: raw.chart.min_font_px,
        default_font_px: raw.chart.default_font_px,
        char_width_em: decimal("char_width_em", &raw.chart.char_width_em)?,
        tolerance_px: decimal("tolerance_px", &raw.chart.tolerance_px)?,
        min_series_marks: raw.chart.min_series_marks,
        fidelity_tolerance: decimal("fidelity_tolerance", &raw.chart.fidelity_tolerance)?,
    };

    let memo_cues = std::sync::Arc::new(crate::read::memo::claims::Cues::new(&raw.memo));
    Ok(Spec {
        memo_cues,
        serial: SPEC_SERIAL.fetch_add(1, std::sync::atomic::Ordering::Relaxed),
        text: text.to_string(),
        contract: raw.contract,
        blanks: raw.names.blanks,
        artifacts: raw.artifacts,
        limits: raw.limits,
        source,
        metrics,
        measures,
        metrics_file: raw.metrics_file,
        movements,
        memo: raw.memo,
        threshold_numbers,
        chart,
        manifest: raw.manifest,
        script: raw.script,
        column_names,
        metric_names,
        descriptor_phrases,
    })
}

/// Each movement threshold as prose may quote it: a ratio threshold `t` as `100·t %` and as the
/// bare `t`; a points threshold as `100·t points` and as the bare `t` (the extra-growth threshold
/// is a ratio).
fn threshold_numbers(movements: &MovementsSpec) -> Vec<ThresholdNumber> {
    let hundred = crate::numbers::int(100);
    let mut out: Vec<ThresholdNumber> = Vec::new();
    let ratio = std::iter::once((&movements.extra_growth_threshold, Unit::Ratio));
    let rules = movements.rules.iter().map(|r| (&r.threshold, r.unit));
    for (t, unit) in ratio.chain(rules) {
        let scaled = match unit {
            Unit::Points => ThresholdUnit::Points,
            _ => ThresholdUnit::Percent,
        };
        for n in [
            ThresholdNumber {
                value: t * &hundred,
                unit: scaled,
            },
            ThresholdNumber {
                value: t.clone(),
                unit: ThresholdUnit::Bare,
            },
        ] {
            if !out.contains(&n) {
                out.push(n);
            }
        }
    }
    out
}

fn check_metric_cycles(metrics: &[MetricSpec]) -> Result<(), SpecError> {
    fn visit(m: usize, metrics: &[MetricSpec], state: &mut [u8]) -> Result<(), SpecError> {
        match state[m] {
            1 => {
                return Err(invalid(format!(
                    "metric `{}` depends on itself",
                    metrics[m].id
                )))
            }
            2 => return Ok(()),
            _ => {}
        }
        state[m] = 1;
        let mut refs = Vec::new();
        for v in &metrics[m].variants {
            v.formula.refs(&mut refs);
        }
        for e in &metrics[m].not_meaningful_if_negative {
            e.refs(&mut refs);
        }
        for r in refs {
            if let Ref::Metric(d) = r {
                visit(d, metrics, state)?;
            }
        }
        state[m] = 2;
        Ok(())
    }
    let mut state = vec![0u8; metrics.len()];
    for m in 0..metrics.len() {
        visit(m, metrics, &mut state)?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_ratio_label_names_the_metric_with_that_formula_or_none() {
        let s = Spec::default_spec();
        let m = |label: &str| {
            Spec::ratio_sides(label)
                .and_then(|(n, d)| s.metric_for_ratio(n, d))
                .map(|m| s.metrics[m].id.as_str())
        };
        assert_eq!(
            m("Total liabilities / total equity (x)"),
            Some("liabilities_to_equity")
        );
        assert_eq!(m("Liabilities / equity"), Some("liabilities_to_equity"));
        assert_eq!(m("Net income / avg total assets"), Some("roa"));
        assert_eq!(m("CFO / net income"), Some("cash_conversion"));
        assert_eq!(
            m("Current assets ÷ current liabilities"),
            Some("current_ratio")
        );
        assert_eq!(m("Capex / revenue"), None);
        // `A/R` is a name, not a ratio; so is a name with its formula in parentheses.
        assert_eq!(Spec::ratio_sides("A/R growth"), None);
        assert_eq!(
            Spec::ratio_sides("Cash conversion (CFO / net income, x)"),
            None
        );
        assert_eq!(Spec::ratio_sides("a / b / c"), None);
    }

    #[test]
    fn embedded_spec_compiles() {
        let s = Spec::default_spec();
        assert_eq!(s.metrics.len(), 15);
        assert_eq!(
            s.metric_named("acid_test_ratio"),
            s.metric_index("quick_ratio")
        );
        assert_eq!(
            s.column_named("capex"),
            s.column_index("capital_expenditures")
        );
        assert!(s.is_blank(" N/A "));
        // A marker with a note is the marker; a parenthesised figure or a note alone is not.
        assert!(s.is_blank("n/a (no data)"));
        assert!(s.is_blank("— (net loss)"));
        assert!(!s.is_blank("(12.3)"));
        assert!(!s.is_blank("(no data)"));
        assert!(!s.is_blank("-5.2 (loss)"));
    }

    #[test]
    fn the_build_time_json_spec_is_the_toml_spec() {
        let from_json: RawSpec = serde_json::from_str(DEFAULT_SPEC_JSON).unwrap();
        let from_toml: RawSpec = toml::from_str(DEFAULT_SPEC).unwrap();
        assert_eq!(format!("{from_json:?}"), format!("{from_toml:?}"));
    }

    #[test]
    fn rejects_a_formula_with_an_unknown_name() {
        let bad = DEFAULT_SPEC.replace("growth(revenue)\"", "growth(revenu)\"");
        let err = Spec::parse(&bad).unwrap_err().to_string();
        assert!(err.contains("revenu"), "{err}");
    }

    #[test]
    fn rejects_a_metric_cycle() {
        let bad = DEFAULT_SPEC.replace(
            "formula = \"operating_cash_flow - capital_expenditures\"",
            "formula = \"fcf_margin * revenue\"",
        );
        let err = Spec::parse(&bad).unwrap_err().to_string();
        assert!(err.contains("depends on itself"), "{err}");
    }
}
