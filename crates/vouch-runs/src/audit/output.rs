//! The results table writers: one row per (run, check), streamed as results arrive.
//! `.jsonl` is written row by row with serde; `.parquet` and `.csv` go through polars in batches.

use super::results::{CheckRow, RunResult};
use std::io::{BufWriter, Write};
use std::path::Path;

pub enum ResultsWriter {
    Jsonl(BufWriter<std::fs::File>),
    /// `.parquet` and `.csv` through polars' batched writers.
    #[cfg(feature = "tables")]
    Table(Box<super::table::TableSink>),
}

impl ResultsWriter {
    pub fn create(path: &Path) -> Result<ResultsWriter, String> {
        let name = path.to_string_lossy().to_ascii_lowercase();
        let file = || {
            std::fs::File::create(path)
                .map_err(|e| format!("cannot create `{}`: {e}", path.display()))
        };
        if name.ends_with(".jsonl") || name.ends_with(".ndjson") {
            Ok(ResultsWriter::Jsonl(BufWriter::new(file()?)))
        } else if name.ends_with(".csv") || name.ends_with(".parquet") {
            table_writer(path, name.ends_with(".csv"))
        } else {
            Err(format!(
                "`{}`: --out must end in .parquet, .csv or .jsonl",
                path.display()
            ))
        }
    }

    pub fn write(&mut self, r: &RunResult) -> Result<(), String> {
        let rows: Vec<CheckRow> = r.rows();
        match self {
            ResultsWriter::Jsonl(w) => {
                for row in rows {
                    serde_json::to_writer(&mut *w, &row).map_err(|e| e.to_string())?;
                    w.write_all(b"\n").map_err(|e| e.to_string())?;
                }
            }
            #[cfg(feature = "tables")]
            ResultsWriter::Table(t) => t.push(rows)?,
        }
        Ok(())
    }

    pub fn finish(self) -> Result<(), String> {
        match self {
            ResultsWriter::Jsonl(mut w) => w.flush().map_err(|e| e.to_string()),
            #[cfg(feature = "tables")]
            ResultsWriter::Table(t) => t.finish(),
        }
    }
}

#[cfg(feature = "tables")]
fn table_writer(path: &Path, csv: bool) -> Result<ResultsWriter, String> {
    Ok(ResultsWriter::Table(Box::new(
        super::table::TableSink::create(path, csv)?,
    )))
}

#[cfg(not(feature = "tables"))]
fn table_writer(_path: &Path, _csv: bool) -> Result<ResultsWriter, String> {
    Err("this vouch was built without the `tables` feature (polars): write .jsonl, or rebuild with `--features tables`".into())
}
