//! Parse `calculated_metrics.csv` in any of the three layouts into labelled series of raw cells.
//! Nothing here judges values; the check compares the series with the truth.

use crate::names::{fold, parse_year_label};
use crate::report::Location;
use crate::spec::Spec;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Layout {
    /// A row per year, a column per metric.
    Wide,
    /// One row per (year, metric, value).
    Long,
    /// A row per metric, a column per year.
    Transposed,
}

impl Layout {
    pub fn name(self) -> &'static str {
        match self {
            Layout::Wide => "wide",
            Layout::Long => "long",
            Layout::Transposed => "transposed",
        }
    }
}

/// A raw cell with where it was printed.
#[derive(Clone, Debug)]
pub struct RawCell {
    pub year_label: String,
    pub year: Option<i32>,
    pub text: String,
    pub location: Location,
}

/// One labelled series (a metric column, a metric row, or a metric's rows in long layout).
#[derive(Clone, Debug)]
pub struct RawSeries {
    pub label: String,
    pub location: Location,
    pub cells: Vec<RawCell>,
}

/// A year label (column header, row label or long-layout value) and where it appeared first.
#[derive(Clone, Debug)]
pub struct YearLabel {
    pub label: String,
    pub year: Option<i32>,
    pub location: Location,
}

#[derive(Clone, Debug)]
pub struct Table {
    pub layout: Layout,
    pub series: Vec<RawSeries>,
    pub year_labels: Vec<YearLabel>,
    /// Headers of long-layout columns that are not year/metric/value (allowed, info).
    pub ignored_columns: Vec<String>,
}

#[derive(Debug, PartialEq)]
pub enum LayoutError {
    Csv(String),
    Empty,
    Unrecognised(String),
}

pub fn parse(text: &str, spec: &Spec) -> Result<Table, LayoutError> {
    let rows =
        crate::read::table::read_records(text).map_err(|e| LayoutError::Csv(e.to_string()))?;
    let Some((header_line, header)) = rows.first().cloned() else {
        return Err(LayoutError::Empty);
    };
    let data = &rows[1..];
    let is_year_col = |h: &str| spec.column_named(&fold(h)) == Some(spec.source.year_column);
    let find = |names: &[String]| {
        header
            .iter()
            .position(|h| names.iter().any(|n| fold(n) == fold(h)))
    };

    let year_headers = header
        .iter()
        .skip(1)
        .filter(|h| parse_year_label(h).is_some())
        .count();
    if year_headers >= 2 || (header.len() == 2 && year_headers == 1) {
        return Ok(transposed(&header, header_line, data));
    }
    let mf = &spec.metrics_file;
    if let (Some(y), Some(m), Some(v)) = (
        find(&mf.long_year_columns),
        find(&mf.long_metric_columns),
        find(&mf.long_value_columns),
    ) {
        return Ok(long(&header, data, y, m, v));
    }
    if let Some(y) = header.iter().position(|h| is_year_col(h)) {
        return Ok(wide(&header, header_line, data, y));
    }
    Err(LayoutError::Unrecognised(format!(
        "header `{}` has no year column (wide), no year/metric/value columns (long), and no year headers (transposed)",
        header.join(",")
    )))
}

fn cell(row: &[String], i: usize) -> String {
    row.get(i).cloned().unwrap_or_default()
}

fn wide(header: &[String], header_line: usize, data: &[(usize, Vec<String>)], y: usize) -> Table {
    let year_labels: Vec<YearLabel> = data
        .iter()
        .enumerate()
        .map(|(r, (line, row))| YearLabel {
            label: cell(row, y),
            year: parse_year_label(&cell(row, y)),
            location: Location {
                line: Some(*line),
                row: Some(r + 1),
                column: Some(header[y].clone()),
                year: None,
            },
        })
        .collect();
    let series = header
        .iter()
        .enumerate()
        .filter(|(i, _)| *i != y)
        .map(|(i, h)| RawSeries {
            label: h.clone(),
            location: Location {
                line: Some(header_line),
                column: Some(h.clone()),
                ..Default::default()
            },
            cells: data
                .iter()
                .enumerate()
                .map(|(r, (line, row))| RawCell {
                    year_label: year_labels[r].label.clone(),
                    year: year_labels[r].year,
                    text: cell(row, i),
                    location: Location {
                        line: Some(*line),
                        row: Some(r + 1),
                        column: Some(h.clone()),
                        year: year_labels[r].year,
                    },
                })
                .collect(),
        })
        .collect();
    Table {
        layout: Layout::Wide,
        series,
        year_labels,
        ignored_columns: Vec::new(),
    }
}

fn transposed(header: &[String], header_line: usize, data: &[(usize, Vec<String>)]) -> Table {
    let year_labels: Vec<YearLabel> = header
        .iter()
        .skip(1)
        .map(|h| YearLabel {
            label: h.clone(),
            year: parse_year_label(h),
            location: Location {
                line: Some(header_line),
                column: Some(h.clone()),
                ..Default::default()
            },
        })
        .collect();
    let series = data
        .iter()
        .enumerate()
        .map(|(r, (line, row))| RawSeries {
            label: cell(row, 0),
            location: Location {
                line: Some(*line),
                row: Some(r + 1),
                ..Default::default()
            },
            cells: year_labels
                .iter()
                .enumerate()
                .map(|(c, yl)| RawCell {
                    year_label: yl.label.clone(),
                    year: yl.year,
                    text: cell(row, c + 1),
                    location: Location {
                        line: Some(*line),
                        row: Some(r + 1),
                        column: Some(yl.label.clone()),
                        year: yl.year,
                    },
                })
                .collect(),
        })
        .collect();
    Table {
        layout: Layout::Transposed,
        series,
        year_labels,
        ignored_columns: Vec::new(),
    }
}

fn long(header: &[String], data: &[(usize, Vec<String>)], y: usize, m: usize, v: usize) -> Table {
    let mut series: Vec<RawSeries> = Vec::new();
    let mut year_labels: Vec<YearLabel> = Vec::new();
    for (r, (line, row)) in data.iter().enumerate() {
        let label = cell(row, m);
        let year_label = cell(row, y);
        let year = parse_year_label(&year_label);
        let location = Location {
            line: Some(*line),
            row: Some(r + 1),
            column: Some(header[v].clone()),
            year,
        };
        if !year_labels.iter().any(|yl| yl.label == year_label) {
            year_labels.push(YearLabel {
                label: year_label.clone(),
                year,
                location: location.clone(),
            });
        }
        let raw = RawCell {
            year_label,
            year,
            text: cell(row, v),
            location: location.clone(),
        };
        // Rows of one metric are grouped by their label as printed (folded), so two spellings
        // of one metric stay two series and are caught as duplicates.
        match series.iter_mut().find(|s| fold(&s.label) == fold(&label)) {
            Some(s) => s.cells.push(raw),
            None => series.push(RawSeries {
                label,
                location: Location {
                    line: Some(*line),
                    row: Some(r + 1),
                    column: Some(header[m].clone()),
                    year: None,
                },
                cells: vec![raw],
            }),
        }
    }
    let ignored_columns = header
        .iter()
        .enumerate()
        .filter(|(i, _)| ![y, m, v].contains(i))
        .map(|(_, h)| h.clone())
        .collect();
    Table {
        layout: Layout::Long,
        series,
        year_labels,
        ignored_columns,
    }
}
