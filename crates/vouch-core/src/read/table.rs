//! Reading a CSV text into trimmed records with their line numbers, under limits, for every CSV
//! vouch reads (the source, the metrics file, the movements file). Blank records are dropped.

/// Limits on any CSV vouch reads (docs/security.md).
pub const MAX_COLUMNS: usize = 1_000;
pub const MAX_ROWS: usize = 100_000;
pub const MAX_FIELD_BYTES: usize = 64 * 1024;
/// Cells in all: a run's tables hold a few thousand. Each cell read costs a string and, in a
/// metrics file, an exact number; 16 MiB of one-digit cells would be 8 million of them (1.4 GB).
pub const MAX_CELLS: usize = 250_000;

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

thread_local! {
    /// The csv parser, built once per thread: building one (its state machine) cost more than
    /// reading a metrics or movements file with it.
    static PARSER: std::cell::RefCell<csv_core::Reader> =
        std::cell::RefCell::new(csv_core::Reader::new());
}

/// Every non-blank record of `text`, with the line it starts on, its cells trimmed.
///
/// This is the `csv` crate's record loop (`csv::ReaderBuilder::new().flexible(true)
/// .has_headers(false)`, which a test compares it with) run on a reused `csv_core` parser.
pub fn read_records(text: &str) -> Result<Vec<Record>, CsvError> {
    PARSER.with(|p| match p.try_borrow_mut() {
        Ok(mut parser) => {
            parser.reset();
            read_with(&mut parser, text)
        }
        Err(_) => read_with(&mut csv_core::Reader::new(), text),
    })
}

fn read_with(parser: &mut csv_core::Reader, text: &str) -> Result<Vec<Record>, CsvError> {
    use csv_core::ReadRecordResult as R;
    let mut input = text.as_bytes();
    let mut fields = vec![0u8; 1024];
    let mut ends = vec![0usize; 32];
    let mut out = Vec::new();
    let mut cells_read = 0usize;
    // A record's line is 1 + the line ends before its first byte (`\n`, `\r\n` or a lone `\r`),
    // counted here: the parser's own count lags a line behind after a `\r\n` (it ends the record
    // at `\r`) and counts the blank lines it skips before a record as the record's.
    let bytes = text.as_bytes();
    let (mut counted_to, mut line_ends) = (0usize, 0usize);
    loop {
        let from = bytes.len() - input.len();
        let first = from
            + bytes[from..]
                .iter()
                .take_while(|&&b| b == b'\n' || b == b'\r')
                .count();
        line_ends += count_line_ends(&bytes[counted_to..first]);
        counted_to = first;
        let start_line = line_ends + 1;
        let (mut outlen, mut endlen) = (0, 0);
        let done = loop {
            let (res, nin, nout, nend) =
                parser.read_record(input, &mut fields[outlen..], &mut ends[endlen..]);
            input = &input[nin..];
            outlen += nout;
            endlen += nend;
            match res {
                R::InputEmpty => continue,
                R::OutputFull => fields.resize(fields.len() * 2, 0),
                R::OutputEndsFull => ends.resize(ends.len() * 2, 0),
                R::Record => break false,
                R::End => break true,
            }
        };
        if done {
            return Ok(out);
        }
        if endlen > MAX_COLUMNS {
            return Err(CsvError::TooLarge(format!(
                "line {start_line} has {endlen} columns (limit {MAX_COLUMNS})"
            )));
        }
        let mut cells = Vec::with_capacity(endlen);
        let mut from = 0;
        for &end in &ends[..endlen] {
            let cell = std::str::from_utf8(&fields[from..end])
                .map_err(|e| CsvError::Malformed(format!("line {start_line}: {e}")))?;
            if cell.len() > MAX_FIELD_BYTES {
                return Err(CsvError::TooLarge(format!(
                    "line {start_line} has a {}-byte field (limit {MAX_FIELD_BYTES})",
                    cell.len()
                )));
            }
            cells.push(cell);
            from = end;
        }
        if cells.iter().all(|c| c.trim().is_empty()) {
            continue;
        }
        if out.len() == MAX_ROWS {
            return Err(CsvError::TooLarge(format!("more than {MAX_ROWS} rows")));
        }
        cells_read += cells.len();
        if cells_read > MAX_CELLS {
            return Err(CsvError::TooLarge(format!(
                "more than {MAX_CELLS} cells by line {start_line}"
            )));
        }
        out.push((
            start_line,
            cells.iter().map(|c| c.trim().to_string()).collect(),
        ));
    }
}

/// The line ends in `b`: each `\r`, and each `\n` not right after a `\r` (a `\r\n` is one).
/// The slices counted start at a record's first byte, never inside a `\r\n`.
fn count_line_ends(b: &[u8]) -> usize {
    b.iter()
        .enumerate()
        .filter(|&(i, &c)| c == b'\r' || (c == b'\n' && (i == 0 || b[i - 1] != b'\r')))
        .count()
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// The `csv` crate's reading, which [`read_records`] reproduces.
    fn with_csv_crate(text: &str) -> Result<Vec<Record>, CsvError> {
        let mut reader = csv::ReaderBuilder::new()
            .flexible(true)
            .has_headers(false)
            .from_reader(text.as_bytes());
        let mut out = Vec::new();
        for rec in reader.records() {
            let rec = rec.map_err(|e| CsvError::Malformed(e.to_string()))?;
            if rec.iter().all(|c| c.trim().is_empty()) {
                continue;
            }
            let line = rec.position().map_or(0, |p| p.line() as usize);
            out.push((line, rec.iter().map(|c| c.trim().to_string()).collect()));
        }
        Ok(out)
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(5_000))]
        #[test]
        fn reads_what_the_csv_crate_reads(
            text in "([a-c1 ,\"\n\r]|\"\"|é|\r\n){0,60}",
        ) {
            prop_assert_eq!(cells(read_records(&text)), cells(with_csv_crate(&text)));
        }

        /// Each record's line is where its first cell starts: the line ends before it, whatever
        /// their kind, plus one.
        #[test]
        fn a_record_is_on_the_line_it_starts_on(
            end in "(\n|\r\n|\r)",
            rows in proptest::collection::vec(("[a-c1 ]{1,4}", 0..3usize), 1..8),
        ) {
            let mut text = String::new();
            let mut want = Vec::new();
            let mut line = 1;
            for (cell, blanks) in &rows {
                for _ in 0..*blanks {
                    text.push_str(&end);
                    line += 1;
                }
                if !cell.trim().is_empty() {
                    want.push(line);
                }
                text.push_str(cell);
                text.push_str(&end);
                line += 1;
            }
            let got: Vec<usize> = read_records(&text).unwrap().iter().map(|r| r.0).collect();
            prop_assert_eq!(got, want);
        }

        #[test]
        fn a_reused_parser_reads_each_text_afresh(a in "[a,\"\n]{0,20}", b in "[a,\"\n]{0,20}") {
            let _ = read_records(&a);
            prop_assert_eq!(cells(read_records(&b)), cells(with_csv_crate(&b)));
        }
    }

    fn cells(r: Result<Vec<Record>, CsvError>) -> Result<Vec<Vec<String>>, CsvError> {
        r.map(|rs| rs.into_iter().map(|(_, c)| c).collect())
    }

    #[test]
    fn counts_lines_under_every_line_end() {
        let lines =
            |t: &str| -> Vec<usize> { read_records(t).unwrap().iter().map(|r| r.0).collect() };
        assert_eq!(lines("a\r\nb\r\nc\r\n"), vec![1, 2, 3]);
        assert_eq!(lines("a\rb\rc"), vec![1, 2, 3]);
        assert_eq!(lines("a\n\nb\r\n\r\nc\n"), vec![1, 3, 5]);
        // A quoted line end is inside the record; the next record starts after it.
        assert_eq!(lines("\"x\r\ny\",1\r\nb\r\n"), vec![1, 3]);
    }

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
