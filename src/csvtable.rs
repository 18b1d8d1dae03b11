//! Reading a CSV text into trimmed records with their line numbers, under limits, for every CSV
//! vouch reads (the source, the metrics file, the movements file). Blank records are dropped.

/// Limits on any CSV vouch reads (docs/security.md).
pub const MAX_COLUMNS: usize = 1_000;
pub const MAX_ROWS: usize = 100_000;
pub const MAX_FIELD_BYTES: usize = 64 * 1024;

/// A record: its 1-based line and its trimmed cells.
pub type Record = (usize, Vec<String>);

#[derive(Debug, PartialEq, Eq)]
pub enum CsvError {
    /// The csv reader refused the text.
    Malformed(String),
    /// A limit was exceeded.
    TooLarge(String),
}

impl std::fmt::Display for CsvError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            CsvError::Malformed(e) => write!(f, "not a readable CSV table: {e}"),
            CsvError::TooLarge(e) => write!(f, "too large: {e}"),
        }
    }
}

pub fn read_records(text: &str) -> Result<Vec<Record>, CsvError> {
    let mut reader = csv::ReaderBuilder::new()
        .flexible(true)
        .has_headers(false)
        .from_reader(text.as_bytes());
    let mut out = Vec::new();
    for rec in reader.records() {
        let rec = rec.map_err(|e| CsvError::Malformed(e.to_string()))?;
        let line = rec.position().map_or(0, |p| p.line() as usize);
        if rec.len() > MAX_COLUMNS {
            return Err(CsvError::TooLarge(format!(
                "line {line} has {} columns (limit {MAX_COLUMNS})",
                rec.len()
            )));
        }
        if let Some(long) = rec.iter().find(|c| c.len() > MAX_FIELD_BYTES) {
            return Err(CsvError::TooLarge(format!(
                "line {line} has a {}-byte field (limit {MAX_FIELD_BYTES})",
                long.len()
            )));
        }
        if rec.iter().all(|c| c.trim().is_empty()) {
            continue;
        }
        if out.len() == MAX_ROWS {
            return Err(CsvError::TooLarge(format!("more than {MAX_ROWS} rows")));
        }
        out.push((line, rec.iter().map(|c| c.trim().to_string()).collect()));
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_million_columns_is_refused_quickly() {
        let header = "a,".repeat(1_000_000);
        assert!(matches!(read_records(&header), Err(CsvError::TooLarge(_))));
    }

    #[test]
    fn keeps_line_numbers_and_drops_blank_records() {
        let r = read_records("a,b\n\n , \n1, 2\n").unwrap();
        assert_eq!(
            r,
            vec![
                (1, vec!["a".into(), "b".into()]),
                (4, vec!["1".into(), "2".into()])
            ]
        );
    }
}
