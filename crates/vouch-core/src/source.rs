//! Reading the trusted source statements (contract §1) into exact values that remember their
//! printed precision. Reading never decides the verdict: structural problems become `source.*`
//! findings (emitted by `checks::source`), and only an unreadable file is an error (exit 2).

use crate::names::fold;
use crate::numbers::{parse_number, Interval, Num};
use crate::spec::formula::{Env, Expr, IntervalEnv, Ref, Undefined};
use crate::spec::Spec;
use num_traits::Signed;
use std::path::Path;

#[derive(Debug, thiserror::Error)]
pub enum SourceError {
    #[error("cannot read source `{path}`: {why}")]
    Io { path: String, why: String },
    #[error("source `{path}` is not UTF-8 text (first bad byte at offset {at})")]
    NotUtf8 { path: String, at: usize },
    #[error("source `{path}` is not a CSV table: {why}")]
    NotCsv { path: String, why: String },
}

/// A source value: exact, with the digits after the point it was printed with.
#[derive(Clone, Debug, PartialEq)]
pub struct SourceValue {
    pub value: Num,
    pub decimals: i32,
    /// Derived per row from other columns (§1 pairs), not printed.
    pub derived: bool,
}

impl SourceValue {
    pub fn interval(&self) -> Interval {
        if self.derived {
            return Interval::point(self.value.clone());
        }
        let half = crate::numbers::pow10(-self.decimals) / crate::numbers::int(2);
        Interval {
            lo: &self.value - &half,
            hi: &self.value + &half,
        }
    }
}

/// A numeric column of the statements.
#[derive(Clone, Debug)]
pub struct LineItem {
    /// Canonical name, or the folded header for a column the spec does not know.
    pub name: String,
    /// The header as printed; `None` for a column wholly derived from others.
    pub header: Option<String>,
    /// Index of the spec column, when it is one.
    pub column: Option<usize>,
    pub cells: Vec<Option<SourceValue>>,
}

impl LineItem {
    pub fn is_derived_column(&self) -> bool {
        self.header.is_none()
    }

    /// The value in year index `t`, when present.
    pub fn value(&self, t: usize) -> Option<&Num> {
        self.cells.get(t)?.as_ref().map(|v| &v.value)
    }

    /// Whether the spec reads this column as a magnitude (capex, interest: §1), so that its
    /// sign is a convention.
    pub fn is_magnitude(&self, spec: &Spec) -> bool {
        self.column
            .is_some_and(|c| spec.source.columns[c].magnitude)
    }
}

/// Problems found while reading, judged by `checks::source`.
#[derive(Clone, Debug, PartialEq)]
pub enum Problem {
    MissingColumn {
        column: String,
    },
    MissingOneOf {
        columns: Vec<String>,
    },
    DuplicateColumn {
        canonical: String,
        headers: Vec<String>,
    },
    NonNumeric {
        row: usize,
        header: String,
        cell: String,
        year: Option<i32>,
    },
    /// A well-formed decimal longer than vouch reads (`numbers::MAX_NUMBER_LEN`).
    TooLong {
        row: usize,
        header: String,
        len: usize,
        year: Option<i32>,
    },
    YearInvalid {
        row: usize,
        cell: String,
    },
    YearDuplicate {
        row: usize,
        year: i32,
    },
    YearOrder {
        row: usize,
        year: i32,
        previous: i32,
    },
    YearGap {
        row: usize,
        year: i32,
        previous: i32,
    },
    TooFewRows {
        rows: usize,
        min: usize,
    },
    Identity {
        row: usize,
        year: i32,
        total: Interval,
        parts: Interval,
        total_printed: String,
        parts_printed: Vec<String>,
    },
    DerivedMismatch {
        row: usize,
        year: i32,
        column: String,
        printed: String,
        interval: Interval,
        derived: Interval,
        formula: String,
    },
    Magnitude {
        row: usize,
        header: String,
        cell: String,
        year: Option<i32>,
    },
    /// A column whose header is blank but which holds values (first at `row`).
    UnnamedColumn {
        column: usize,
        row: usize,
    },
    IgnoredColumn {
        header: String,
        cell: String,
    },
}

/// The statements as vouch reads them.
#[derive(Clone, Debug)]
pub struct Statements {
    pub path: String,
    /// Base name of the source file: what the manifest and memo must cite.
    pub file_name: String,
    pub sha256: String,
    pub rows: usize,
    /// One per row; `None` where the year cell is neither an integer nor a fiscal-year label.
    pub years: Vec<Option<i32>>,
    pub items: Vec<LineItem>,
    /// spec column index → item index.
    canonical: Vec<Option<usize>>,
    pub problems: Vec<Problem>,
    /// Rows (1-based) where the identity cannot be tested: its total or a part is missing or not
    /// a number. Such a row neither holds nor breaks it.
    pub identity_untested: Vec<usize>,
    /// The memo's name table for these statements under one spec (its `serial`), built on the
    /// first memo read: an audit reads many memos against one source.
    memo_vocabulary: std::sync::OnceLock<(
        u64,
        std::sync::Arc<crate::read::memo::vocabulary::Vocabulary>,
    )>,
}

/// Facts about the source that a manifest may claim.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SourceFacts {
    /// `None` when no row breaks the identity but some row cannot be tested.
    pub identity_every_row: Option<bool>,
    pub required_columns_present: bool,
    /// `None` when every cell is a decimal but some are too long for vouch to read.
    pub numeric_values_valid: Option<bool>,
    pub years_unique_and_ordered: bool,
}

/// A file the user named (`--source`): links are followed (the user chose the path), but only a
/// regular file of at most `limit` bytes is read, and the read itself is bounded, so a FIFO, a
/// device or `/dev/zero` never blocks or fills memory.
pub fn read_user_file(path: &Path, limit: u64) -> Result<Vec<u8>, String> {
    let meta = std::fs::metadata(path).map_err(|e| e.to_string())?;
    if !meta.is_file() {
        return Err("not a regular file".into());
    }
    if meta.len() > limit {
        return Err(format!(
            "{} ({} bytes), larger than the {} limit (the spec's `{}` raises it)",
            crate::report::human_bytes(meta.len()),
            meta.len(),
            crate::report::human_bytes(limit),
            crate::report::ARTIFACT_LIMIT_KEY
        ));
    }
    let file = std::fs::File::open(path).map_err(|e| e.to_string())?;
    crate::bundle::read_opened(file, limit)
}

impl Statements {
    /// The memo's name table ([`Vocabulary`](crate::read::memo::vocabulary::Vocabulary)) for
    /// these statements under `spec`, built once per spec and kept.
    pub fn memo_vocabulary(
        &self,
        spec: &Spec,
    ) -> std::sync::Arc<crate::read::memo::vocabulary::Vocabulary> {
        use crate::read::memo::vocabulary::Vocabulary;
        let (serial, vocab) = self.memo_vocabulary.get_or_init(|| {
            (
                spec.serial,
                std::sync::Arc::new(Vocabulary::new(spec, self)),
            )
        });
        if *serial == spec.serial {
            vocab.clone()
        } else {
            std::sync::Arc::new(Vocabulary::new(spec, self))
        }
    }

    pub fn read_path(path: &Path, spec: &Spec) -> Result<Statements, SourceError> {
        let shown = path.display().to_string();
        let bytes = read_user_file(path, spec.limits.max_artifact_bytes).map_err(|why| {
            SourceError::Io {
                path: shown.clone(),
                why,
            }
        })?;
        let name = path
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_else(|| shown.clone());
        Statements::read_bytes(&shown, &name, &bytes, spec)
    }

    pub fn read_bytes(
        path: &str,
        file_name: &str,
        bytes: &[u8],
        spec: &Spec,
    ) -> Result<Statements, SourceError> {
        let text = std::str::from_utf8(bytes).map_err(|e| SourceError::NotUtf8 {
            path: path.to_string(),
            at: e.valid_up_to(),
        })?;
        let text = text.strip_prefix('\u{feff}').unwrap_or(text);
        let not_csv = |why: String| SourceError::NotCsv {
            path: path.to_string(),
            why,
        };
        let records: Vec<Vec<String>> = crate::read::table::read_records(text)
            .map_err(|e| not_csv(e.to_string()))?
            .into_iter()
            .map(|(_, cells)| cells)
            .collect();
        let Some(header) = records.first().cloned() else {
            return Err(not_csv("the file is empty".into()));
        };
        if header.len() < 2 {
            return Err(not_csv(format!(
                "the header has {} column(s); expected a year column and line items",
                header.len()
            )));
        }
        let data = &records[1..];
        Ok(build(path, file_name, bytes, &header, data, spec))
    }

    pub fn item(&self, spec_column: usize) -> Option<&LineItem> {
        self.canonical
            .get(spec_column)
            .copied()
            .flatten()
            .map(|i| &self.items[i])
    }

    pub fn item_index(&self, spec_column: usize) -> Option<usize> {
        self.canonical.get(spec_column).copied().flatten()
    }

    /// Years in order, when every year is a valid integer.
    pub fn valid_years(&self) -> Option<Vec<i32>> {
        self.years.iter().copied().collect()
    }

    /// Find a line item by a folded name: header, canonical name or alias.
    pub fn item_named(&self, folded: &str, spec: &Spec) -> Option<usize> {
        if let Some(c) = spec.column_named(folded) {
            if let Some(i) = self.item_index(c) {
                return Some(i);
            }
        }
        self.items.iter().position(|it| {
            it.name == folded || it.header.as_deref().map(fold).as_deref() == Some(folded)
        })
    }

    pub fn facts(&self) -> SourceFacts {
        let p = &self.problems;
        SourceFacts {
            identity_every_row: if p.iter().any(|x| matches!(x, Problem::Identity { .. })) {
                Some(false)
            } else if self.identity_untested.is_empty() {
                Some(true)
            } else {
                None
            },
            required_columns_present: !p.iter().any(|x| {
                matches!(
                    x,
                    Problem::MissingColumn { .. } | Problem::MissingOneOf { .. }
                )
            }),
            numeric_values_valid: if p.iter().any(|x| matches!(x, Problem::NonNumeric { .. })) {
                Some(false)
            } else if p.iter().any(|x| {
                // A number vouch cannot read, or a column ignored for its text (`n/a` in an
                // optional column, a notes column): whether "every value is numeric" holds then
                // depends on what the claim counts, so vouch cannot tell.
                matches!(x, Problem::TooLong { .. } | Problem::IgnoredColumn { .. })
            }) {
                None
            } else {
                Some(true)
            },
            years_unique_and_ordered: !p.iter().any(|x| {
                matches!(
                    x,
                    Problem::YearInvalid { .. }
                        | Problem::YearDuplicate { .. }
                        | Problem::YearOrder { .. }
                )
            }),
        }
    }
}

/// Reads source values by spec column for formula evaluation.
pub struct SourceEnv<'a> {
    pub stmts: &'a Statements,
}

impl Env for SourceEnv<'_> {
    fn value(&self, r: Ref, t: usize) -> Result<Num, Undefined> {
        match r {
            Ref::Column(c) => match self.stmts.item(c) {
                Some(item) => item
                    .cells
                    .get(t)
                    .and_then(|v| v.as_ref())
                    .map(|v| v.value.clone())
                    .ok_or_else(|| Undefined::Missing(item.name.clone())),
                None => Err(Undefined::Missing(format!("column {c}"))),
            },
            _ => Err(Undefined::Missing("non-column reference".into())),
        }
    }
}

/// A sign, digits and at most one point, longer than vouch reads as a number.
fn is_long_decimal(raw: &str) -> bool {
    let s = raw.trim();
    let body = s.strip_prefix(['-', '+']).unwrap_or(s);
    let (int, frac) = body.split_once('.').unwrap_or((body, ""));
    s.len() > crate::numbers::MAX_NUMBER_LEN
        && int.bytes().all(|b| b.is_ascii_digit())
        && frac.bytes().all(|b| b.is_ascii_digit())
}

fn is_plain_number(raw: &str) -> bool {
    !raw.contains(['e', 'E', '$', '%', '(', 'x', 'X'])
}

fn build(
    path: &str,
    file_name: &str,
    bytes: &[u8],
    header: &[String],
    data: &[Vec<String>],
    spec: &Spec,
) -> Statements {
    let mut problems = Vec::new();
    let ncols = spec.source.columns.len();
    // Map headers to spec columns.
    let mut header_col: Vec<Option<usize>> = Vec::with_capacity(header.len());
    let mut seen: Vec<Vec<usize>> = vec![Vec::new(); ncols];
    for (h, raw) in header.iter().enumerate() {
        let c = spec.column_named(&fold(raw));
        if let Some(c) = c {
            seen[c].push(h);
        }
        header_col.push(c);
    }
    // A header whose main name is no contract column may name one in its trailing parentheses
    // (`Air Traffic Liability (Deferred Revenue)`); it is read so only when no header names that
    // column outright, and only one header does so.
    let mut by_parenthetical: Vec<Vec<usize>> = vec![Vec::new(); ncols];
    for (h, raw) in header.iter().enumerate() {
        if header_col[h].is_none() {
            if let Some(c) =
                crate::names::fold_parenthetical(raw).and_then(|f| spec.column_named(&f))
            {
                by_parenthetical[c].push(h);
            }
        }
    }
    for (c, hs) in by_parenthetical.iter().enumerate() {
        if let [h] = hs[..] {
            if seen[c].is_empty() && c != spec.source.year_column {
                seen[c].push(h);
                header_col[h] = Some(c);
            }
        }
    }
    for (c, hs) in seen.iter().enumerate() {
        if hs.len() > 1 {
            problems.push(Problem::DuplicateColumn {
                canonical: spec.source.columns[c].name.clone(),
                headers: hs.iter().map(|&h| header[h].clone()).collect(),
            });
        }
    }
    let col_header: Vec<Option<usize>> = seen.iter().map(|hs| hs.first().copied()).collect();
    for (c, col) in spec.source.columns.iter().enumerate() {
        if col.required && col_header[c].is_none() {
            problems.push(Problem::MissingColumn {
                column: col.name.clone(),
            });
        }
    }
    for group in &spec.source.one_of {
        if group.iter().all(|&c| col_header[c].is_none()) {
            problems.push(Problem::MissingOneOf {
                columns: group
                    .iter()
                    .map(|&c| spec.source.columns[c].name.clone())
                    .collect(),
            });
        }
    }
    let year_col = spec.source.year_column;
    let rows = data.len();
    fn cell(row: &[String], h: usize) -> &str {
        row.get(h).map(String::as_str).unwrap_or("")
    }

    // Years.
    let mut years = Vec::with_capacity(rows);
    if let Some(h) = col_header[year_col] {
        for (r, row) in data.iter().enumerate() {
            let raw = cell(row, h);
            // A fiscal-year label (`FY2021`, `FY 2021`, `FY21`) names its year as plainly.
            let y = parse_number(raw)
                .filter(|p| p.value.is_integer() && is_plain_number(raw) && !raw.contains(','))
                .and_then(|p| num_traits::ToPrimitive::to_i32(&p.value.to_integer()))
                .or_else(|| crate::names::parse_fy_label(raw));
            if y.is_none() {
                problems.push(Problem::YearInvalid {
                    row: r + 1,
                    cell: raw.to_string(),
                });
            }
            years.push(y);
        }
        let mut prev: Option<i32> = None;
        let mut seen = std::collections::HashSet::new();
        for (r, y) in years.iter().enumerate() {
            let Some(y) = *y else { continue };
            if !seen.insert(y) {
                problems.push(Problem::YearDuplicate {
                    row: r + 1,
                    year: y,
                });
            } else if let Some(p) = prev {
                if y < p {
                    problems.push(Problem::YearOrder {
                        row: r + 1,
                        year: y,
                        previous: p,
                    });
                } else if y != p + 1 {
                    problems.push(Problem::YearGap {
                        row: r + 1,
                        year: y,
                        previous: p,
                    });
                }
            }
            prev = Some(prev.map_or(y, |p| p.max(y)));
        }
    } else {
        years = vec![None; rows];
    }
    if rows < spec.source.min_rows {
        problems.push(Problem::TooFewRows {
            rows,
            min: spec.source.min_rows,
        });
    }

    let derivable: Vec<usize> = spec.source.derived.iter().map(|d| d.column).collect();
    let required_cell = |c: usize| {
        spec.source.columns[c].required || spec.source.one_of.iter().any(|g| g.contains(&c))
    };

    // Numeric columns.
    let mut items: Vec<LineItem> = Vec::new();
    let mut canonical = vec![None; ncols];
    for (h, raw_header) in header.iter().enumerate() {
        let c = header_col[h];
        if c == Some(year_col) {
            continue;
        }
        if let Some(c) = c {
            if col_header[c] != Some(h) {
                continue; // a duplicate; the first one is used
            }
        }
        if c.is_none() && raw_header.trim().is_empty() {
            // No flag, metric or memo can name this column: it is not a line item.
            if let Some(r) = data.iter().position(|row| !cell(row, h).is_empty()) {
                problems.push(Problem::UnnamedColumn {
                    column: h + 1,
                    row: r + 1,
                });
            }
            continue;
        }
        let magnitude = c.is_some_and(|c| spec.source.columns[c].magnitude);
        let mut cells = Vec::with_capacity(rows);
        let mut bad: Option<String> = None;
        for (r, row) in data.iter().enumerate() {
            let raw = cell(row, h);
            if raw.is_empty() {
                if let Some(c) = c {
                    if required_cell(c) && !derivable.contains(&c) {
                        problems.push(Problem::NonNumeric {
                            row: r + 1,
                            header: raw_header.clone(),
                            cell: String::new(),
                            year: years[r],
                        });
                    }
                }
                cells.push(None);
                continue;
            }
            match parse_number(raw).filter(|_| is_plain_number(raw)) {
                Some(p) => {
                    let mut value = p.value;
                    if magnitude && value.is_negative() {
                        value = value.abs();
                        problems.push(Problem::Magnitude {
                            row: r + 1,
                            header: raw_header.clone(),
                            cell: raw.to_string(),
                            year: years[r],
                        });
                    }
                    cells.push(Some(SourceValue {
                        value,
                        decimals: p.decimals,
                        derived: false,
                    }));
                }
                None => {
                    if c.is_some() && is_long_decimal(raw) {
                        problems.push(Problem::TooLong {
                            row: r + 1,
                            header: raw_header.clone(),
                            len: raw.trim().len(),
                            year: years[r],
                        });
                    } else if c.is_some_and(required_cell) {
                        problems.push(Problem::NonNumeric {
                            row: r + 1,
                            header: raw_header.clone(),
                            cell: raw.to_string(),
                            year: years[r],
                        });
                    } else if bad.is_none() {
                        // §1: a column that is not required and holds a non-numeric cell is
                        // ignored (info), a known optional one (`inventory` with `n/a`) too: it
                        // is then absent, as if the file had no such column.
                        bad = Some(raw.to_string());
                    }
                    cells.push(None);
                }
            }
        }
        if let Some(cell) = bad {
            problems.push(Problem::IgnoredColumn {
                header: raw_header.clone(),
                cell,
            });
            continue;
        }
        let name = match c {
            Some(c) => spec.source.columns[c].name.clone(),
            None => fold(raw_header),
        };
        if let Some(c) = c {
            canonical[c] = Some(items.len());
        }
        items.push(LineItem {
            name,
            header: Some(raw_header.clone()),
            column: c,
            cells,
        });
    }

    let mut stmts = Statements {
        path: path.to_string(),
        file_name: file_name.to_string(),
        sha256: crate::bundle::sha256_hex(bytes),
        rows,
        years,
        items,
        canonical,
        problems,
        identity_untested: Vec::new(),
        memo_vocabulary: std::sync::OnceLock::new(),
    };
    derive_pairs(&mut stmts, spec);
    check_identity(&mut stmts, spec);
    stmts
}

/// Fill each derivable column per row from its formula, and check agreement where both are printed.
fn derive_pairs(stmts: &mut Statements, spec: &Spec) {
    // First pass: compute derived values from printed inputs only.
    let mut fills: Vec<(usize, usize, SourceValue)> = Vec::new();
    let mut mismatches = Vec::new();
    for d in &spec.source.derived {
        for t in 0..stmts.rows {
            let existing = stmts.item(d.column).and_then(|it| it.cells[t].clone());
            let Some(derived) = derive(&d.formula, stmts, t) else {
                continue;
            };
            match existing {
                Some(v) if !v.derived => {
                    if !v.interval().overlaps(&derived.1) {
                        mismatches.push(Problem::DerivedMismatch {
                            row: t + 1,
                            year: stmts.years[t].unwrap_or(0),
                            column: spec.source.columns[d.column].name.clone(),
                            printed: crate::numbers::show(&v.value, v.decimals.max(0) as u32),
                            interval: v.interval(),
                            derived: derived.1.clone(),
                            formula: d.formula.to_string(),
                        });
                    }
                }
                Some(_) => {}
                None => fills.push((d.column, t, derived.0)),
            }
        }
    }
    for (c, t, v) in fills {
        let idx = match stmts.item_index(c) {
            Some(i) => i,
            None => {
                stmts.items.push(LineItem {
                    name: spec.source.columns[c].name.clone(),
                    header: None,
                    column: Some(c),
                    cells: vec![None; stmts.rows],
                });
                stmts.canonical[c] = Some(stmts.items.len() - 1);
                stmts.items.len() - 1
            }
        };
        if stmts.items[idx].cells[t].is_none() {
            stmts.items[idx].cells[t] = Some(v);
        }
    }
    stmts.problems.extend(mismatches);
    // A row where a one-of group has no value even after deriving.
    for group in &spec.source.one_of {
        if group.iter().all(|&c| stmts.item(c).is_none()) {
            continue; // reported as MissingOneOf
        }
        for t in 0..stmts.rows {
            let any = group
                .iter()
                .any(|&c| stmts.item(c).is_some_and(|it| it.cells[t].is_some()));
            if !any {
                let c = group
                    .iter()
                    .copied()
                    .find(|&c| stmts.item(c).is_some())
                    .unwrap_or(group[0]);
                stmts.problems.push(Problem::NonNumeric {
                    row: t + 1,
                    header: stmts
                        .item(c)
                        .and_then(|i| i.header.clone())
                        .unwrap_or_default(),
                    cell: String::new(),
                    year: stmts.years[t],
                });
            }
        }
    }
}

/// Printed values' intervals by spec column; derived cells are not printed and are absent.
struct PrintedIntervals<'a> {
    stmts: &'a Statements,
}

impl IntervalEnv for PrintedIntervals<'_> {
    fn interval(&self, r: Ref, t: usize) -> Option<Interval> {
        let Ref::Column(c) = r else { return None };
        let v = self.stmts.item(c)?.cells.get(t)?.as_ref()?;
        (!v.derived).then(|| v.interval())
    }
}

/// A derived value from printed inputs: exact value, its decimals, and its interval.
fn derive(e: &Expr, stmts: &Statements, t: usize) -> Option<(SourceValue, Interval)> {
    let iv = e.eval_interval(&PrintedIntervals { stmts }, t)?;
    let value = e.eval(&SourceEnv { stmts }, t).ok()?;
    let mut refs = Vec::new();
    e.refs(&mut refs);
    let decimals = refs
        .iter()
        .filter_map(|r| match r {
            Ref::Column(c) => stmts.item(*c)?.cells.get(t)?.as_ref().map(|v| v.decimals),
            _ => None,
        })
        .max()
        .unwrap_or(0);
    Some((
        SourceValue {
            value,
            decimals,
            derived: true,
        },
        iv,
    ))
}

fn check_identity(stmts: &mut Statements, spec: &Spec) {
    let total_c = spec.source.identity_total;
    let parts = &spec.source.identity_parts;
    let mut found = Vec::new();
    let mut untested = Vec::new();
    for t in 0..stmts.rows {
        let Some(total) = stmts.item(total_c).and_then(|i| i.cells[t].clone()) else {
            untested.push(t + 1);
            continue;
        };
        let mut sum: Option<Interval> = Some(Interval::point(crate::numbers::zero()));
        let mut printed = Vec::new();
        for &p in parts {
            match stmts.item(p).and_then(|i| i.cells[t].clone()) {
                Some(v) => {
                    printed.push(crate::numbers::show(&v.value, v.decimals.max(0) as u32));
                    sum = sum.map(|s| s.add(&v.interval()));
                }
                None => sum = None,
            }
        }
        let Some(sum) = sum else {
            untested.push(t + 1);
            continue;
        };
        if !total.interval().overlaps(&sum) {
            found.push(Problem::Identity {
                row: t + 1,
                year: stmts.years[t].unwrap_or(0),
                total: total.interval(),
                parts: sum,
                total_printed: crate::numbers::show(&total.value, total.decimals.max(0) as u32),
                parts_printed: printed,
            });
        }
    }
    stmts.problems.extend(found);
    stmts.identity_untested = untested;
}
