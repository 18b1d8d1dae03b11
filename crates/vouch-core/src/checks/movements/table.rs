//! Parse `unusual_movements.csv`: find the year, item, rule and change columns by folded header
//! names and return one raw row per flag. No judgement here.

use crate::names::fold;
use crate::spec::Spec;

#[derive(Clone, Debug)]
pub struct Row {
    pub line: usize,
    /// 1-based data row.
    pub row: usize,
    pub year: String,
    pub item: String,
    pub rule: Option<String>,
    pub change: Option<String>,
}

#[derive(Clone, Debug)]
pub struct Table {
    pub rows: Vec<Row>,
    pub change_header: Option<String>,
}

#[derive(Debug, PartialEq)]
pub enum TableError {
    Csv(String),
    MissingColumn(&'static str, String),
}

pub fn parse(text: &str, spec: &Spec) -> Result<Table, TableError> {
    let records =
        crate::read::table::read_records(text).map_err(|e| TableError::Csv(e.to_string()))?;
    let Some((_, header)) = records.first() else {
        return Err(TableError::MissingColumn(
            "year",
            "the file is empty".into(),
        ));
    };
    let mv = &spec.movements;
    // The first name of the list that a header has wins, wherever the column stands: with both
    // `category` and `rule` columns, `rule` holds the rule.
    let folded_header: Vec<String> = header.iter().map(|h| fold(h)).collect();
    let find = |names: &[String]| {
        names
            .iter()
            .find_map(|n| folded_header.iter().position(|h| *h == fold(n)))
    };
    let is_year = |h: &String| spec.column_named(&fold(h)) == Some(spec.source.year_column);
    let year = find(&mv.year_columns)
        .or_else(|| header.iter().position(is_year))
        .ok_or_else(|| TableError::MissingColumn("year", header.join(",")))?;
    let item = find(&mv.item_columns)
        .ok_or_else(|| TableError::MissingColumn("item", header.join(",")))?;
    let rule = find(&mv.rule_columns);
    let change = find(&mv.change_columns);
    let get = |r: &[String], i: usize| r.get(i).cloned().unwrap_or_default();
    let rows = records[1..]
        .iter()
        .enumerate()
        .map(|(i, (line, r))| Row {
            line: *line,
            row: i + 1,
            year: get(r, year),
            item: get(r, item),
            rule: rule.map(|c| get(r, c)),
            change: change.map(|c| get(r, c)),
        })
        .collect();
    Ok(Table {
        rows,
        change_header: change.map(|c| header[c].clone()),
    })
}
