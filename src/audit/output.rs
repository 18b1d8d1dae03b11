//! The results table writers: one row per (run, check), streamed as results arrive.
//! `.jsonl` and `.csv` are written row by row; `.parquet` goes through polars in row groups.

use super::results::{CheckRow, RunResult};
use std::io::{BufWriter, Write};
use std::path::Path;

pub enum ResultsWriter {
    Jsonl(BufWriter<std::fs::File>),
    /// `.parquet` and `.csv` through polars' batched writers.
    Table(super::table::TableSink),
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
        } else if name.ends_with(".csv") {
            Ok(ResultsWriter::Csv(Box::new(csv::Writer::from_writer(
                file()?,
            ))))
        } else if name.ends_with(".parquet") {
            #[cfg(feature = "parquet")]
            {
                return Ok(ResultsWriter::Parquet(super::table::ParquetSink::create(
                    path,
                )?));
            }
            #[cfg(not(feature = "parquet"))]
            Err("this build of vouch has no parquet support (feature `parquet`); use .csv or .jsonl".into())
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
            ResultsWriter::Table(t) => t.push(rows)?,
        }
        Ok(())
    }

    pub fn finish(self) -> Result<(), String> {
        match self {
            ResultsWriter::Jsonl(mut w) => w.flush().map_err(|e| e.to_string()),
            ResultsWriter::Table(t) => t.finish(),
        }
    }
}
