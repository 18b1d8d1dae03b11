//! The results table writers: one row per (run, check), streamed as results arrive.
//! `.jsonl` and `.csv` are written row by row; `.parquet` goes through polars in row groups.

use super::results::{CheckRow, RunResult};
use std::io::{BufWriter, Write};
use std::path::Path;

pub enum ResultsWriter {
    Jsonl(BufWriter<std::fs::File>),
    Csv(Box<csv::Writer<std::fs::File>>),
    #[cfg(feature = "parquet")]
    Parquet(super::table::ParquetSink),
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
            ResultsWriter::Csv(w) => {
                for row in rows {
                    w.serialize(row).map_err(|e| e.to_string())?;
                }
            }
            #[cfg(feature = "parquet")]
            ResultsWriter::Parquet(p) => p.push(rows)?,
        }
        Ok(())
    }

    pub fn finish(self) -> Result<(), String> {
        match self {
            ResultsWriter::Jsonl(mut w) => w.flush().map_err(|e| e.to_string()),
            ResultsWriter::Csv(mut w) => w.flush().map_err(|e| e.to_string()),
            #[cfg(feature = "parquet")]
            ResultsWriter::Parquet(p) => p.finish(),
        }
    }
}

/// Read a results file (`.jsonl` or `.csv`) back into per-run results.
pub fn read_results(path: &Path) -> Result<Vec<RunResult>, String> {
    let name = path.to_string_lossy().to_ascii_lowercase();
    let rows: Vec<CheckRow> = if name.ends_with(".jsonl") || name.ends_with(".ndjson") {
        let text = std::fs::read_to_string(path)
            .map_err(|e| format!("cannot read `{}`: {e}", path.display()))?;
        text.lines()
            .enumerate()
            .filter(|(_, l)| !l.trim().is_empty())
            .map(|(i, l)| {
                serde_json::from_str(l).map_err(|e| format!("{}:{}: {e}", path.display(), i + 1))
            })
            .collect::<Result<_, _>>()?
    } else if name.ends_with(".csv") {
        let mut r = csv::Reader::from_path(path)
            .map_err(|e| format!("cannot read `{}`: {e}", path.display()))?;
        r.deserialize()
            .collect::<Result<_, _>>()
            .map_err(|e| format!("{}: {e}", path.display()))?
    } else {
        return Err(format!(
            "`{}`: results files are .csv or .jsonl",
            path.display()
        ));
    };
    Ok(super::results::group_rows(rows))
}
