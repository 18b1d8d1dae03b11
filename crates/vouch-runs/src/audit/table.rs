//! The results table as polars DataFrames: rows are buffered into columns and flushed in
//! batches (row groups), so the writers' memory stays flat however many runs there are.
//! polars stays off the per-bundle verification path; it only sees the collected rows.

use super::results::CheckRow;
use polars::prelude::*;
use std::fs::File;
use std::path::Path;

/// Rows per batch written to the file.
const BATCH_ROWS: usize = 64 * 1024;

#[derive(Default)]
struct Columns {
    run_id: Vec<String>,
    path: Vec<String>,
    label: Vec<Option<String>>,
    trial: Vec<Option<u32>>,
    model: Vec<Option<String>>,
    source_file: Vec<Option<String>>,
    source_sha256: Vec<Option<String>>,
    verdict: Vec<String>,
    check: Vec<String>,
    family: Vec<String>,
    status: Vec<String>,
    findings: Vec<u32>,
    message: Vec<Option<String>>,
    first_pass_verdict: Vec<Option<String>>,
    repair_rounds: Vec<Option<u32>>,
}

impl Columns {
    fn push(&mut self, r: CheckRow) {
        self.run_id.push(r.run_id);
        self.path.push(r.path);
        self.label.push(r.label);
        self.trial.push(r.trial);
        self.model.push(r.model);
        self.source_file.push(r.source_file);
        self.source_sha256.push(r.source_sha256);
        self.verdict.push(r.verdict);
        self.check.push(r.check);
        self.family.push(r.family);
        self.status.push(r.status);
        self.findings.push(r.findings);
        self.message.push(r.message);
        self.first_pass_verdict.push(r.first_pass_verdict);
        self.repair_rounds.push(r.repair_rounds);
    }

    fn len(&self) -> usize {
        self.run_id.len()
    }

    /// Move the buffered rows into a DataFrame (the buffers are left empty).
    fn take_frame(&mut self) -> PolarsResult<DataFrame> {
        let c = std::mem::take(self);
        df!(
            "run_id" => c.run_id,
            "path" => c.path,
            "label" => c.label,
            "trial" => c.trial,
            "model" => c.model,
            "source_file" => c.source_file,
            "source_sha256" => c.source_sha256,
            "verdict" => c.verdict,
            "check" => c.check,
            "family" => c.family,
            "status" => c.status,
            "findings" => c.findings,
            "message" => c.message,
            "first_pass_verdict" => c.first_pass_verdict,
            "repair_rounds" => c.repair_rounds,
        )
    }
}

enum Writer {
    Parquet(Box<polars::io::parquet::write::BatchedWriter<File>>),
    Csv(Box<polars::io::csv::write::BatchedWriter<File>>),
}

/// Writes the results table to `.parquet` or `.csv` through polars, one batch at a time.
pub struct TableSink {
    file: Option<File>,
    csv: bool,
    writer: Option<Writer>,
    cols: Columns,
}

fn err(e: PolarsError) -> String {
    format!("results table: {e}")
}

impl TableSink {
    pub fn create(path: &Path, csv: bool) -> Result<TableSink, String> {
        let file =
            File::create(path).map_err(|e| format!("cannot create `{}`: {e}", path.display()))?;
        Ok(TableSink {
            file: Some(file),
            csv,
            writer: None,
            cols: Columns::default(),
        })
    }

    pub fn push(&mut self, rows: Vec<CheckRow>) -> Result<(), String> {
        for r in rows {
            self.cols.push(r);
        }
        if self.cols.len() >= BATCH_ROWS {
            self.flush()?;
        }
        Ok(())
    }

    fn flush(&mut self) -> Result<(), String> {
        if self.cols.len() == 0 && self.writer.is_some() {
            return Ok(());
        }
        let df = self.cols.take_frame().map_err(err)?;
        if self.writer.is_none() {
            let file = self.file.take().expect("file is taken once");
            let schema = df.schema().clone();
            self.writer = Some(if self.csv {
                Writer::Csv(Box::new(
                    CsvWriter::new(file).batched(&schema).map_err(err)?,
                ))
            } else {
                Writer::Parquet(Box::new(
                    ParquetWriter::new(file).batched(&schema).map_err(err)?,
                ))
            });
        }
        match self.writer.as_mut().expect("writer exists") {
            Writer::Parquet(w) => w.write_batch(&df).map_err(err)?,
            Writer::Csv(w) => w.write_batch(&df).map_err(err)?,
        }
        Ok(())
    }

    pub fn finish(mut self) -> Result<(), String> {
        self.flush()?;
        match self.writer.take() {
            Some(Writer::Parquet(w)) => {
                w.finish().map_err(err)?;
            }
            Some(Writer::Csv(mut w)) => {
                w.finish().map_err(err)?;
            }
            None => {}
        }
        Ok(())
    }
}

/// Read a `.parquet` results file back into rows.
pub fn read_parquet(path: &Path) -> Result<Vec<CheckRow>, String> {
    let file = File::open(path).map_err(|e| format!("cannot read `{}`: {e}", path.display()))?;
    let df = ParquetReader::new(file).finish().map_err(err)?;
    frame_rows(&df).map_err(err)
}

fn frame_rows(df: &DataFrame) -> PolarsResult<Vec<CheckRow>> {
    let s = |n: &str| -> PolarsResult<Vec<Option<String>>> {
        Ok(df
            .column(n)?
            .str()?
            .iter()
            .map(|v| v.map(str::to_string))
            .collect())
    };
    let u =
        |n: &str| -> PolarsResult<Vec<Option<u32>>> { Ok(df.column(n)?.u32()?.iter().collect()) };
    let (run_id, path, label, trial, model) = (
        s("run_id")?,
        s("path")?,
        s("label")?,
        u("trial")?,
        s("model")?,
    );
    let (source_file, source_sha256, verdict) =
        (s("source_file")?, s("source_sha256")?, s("verdict")?);
    let (check, family, status, findings, message) = (
        s("check")?,
        s("family")?,
        s("status")?,
        u("findings")?,
        s("message")?,
    );
    // Files written before these columns: the first pass is the verdict, no repair rounds.
    let has = |n: &str| df.column(n).is_ok();
    let first_pass = if has("first_pass_verdict") {
        s("first_pass_verdict")?
    } else {
        verdict.clone()
    };
    let repair_rounds = if has("repair_rounds") {
        u("repair_rounds")?
    } else {
        vec![Some(0); df.height()]
    };
    Ok((0..df.height())
        .map(|i| CheckRow {
            run_id: run_id[i].clone().unwrap_or_default(),
            path: path[i].clone().unwrap_or_default(),
            label: label[i].clone(),
            trial: trial[i],
            model: model[i].clone(),
            source_file: source_file[i].clone(),
            source_sha256: source_sha256[i].clone(),
            verdict: verdict[i].clone().unwrap_or_default(),
            check: check[i].clone().unwrap_or_default(),
            family: family[i].clone().unwrap_or_default(),
            status: status[i].clone().unwrap_or_default(),
            findings: findings[i].unwrap_or(0),
            message: message[i].clone(),
            first_pass_verdict: first_pass[i].clone(),
            repair_rounds: repair_rounds[i],
        })
        .collect())
}

/// Runs failing and warning each check: group-bys over the compact (run, check, fail) rows.
pub fn check_counts(
    run: &[u32],
    check: &[String],
    fail: &[bool],
) -> PolarsResult<(
    std::collections::BTreeMap<String, u64>,
    std::collections::BTreeMap<String, u64>,
)> {
    let df = df!("run" => run, "check" => check, "fail" => fail)?;
    let mask = df.column("fail")?.bool()?.clone();
    let count = |d: DataFrame| -> PolarsResult<std::collections::BTreeMap<String, u64>> {
        if d.height() == 0 {
            return Ok(Default::default());
        }
        let g = d.group_by(["check"])?.select(["run"]).count()?;
        let checks = g.column("check")?.str()?.clone();
        let counts = g.column("run_count")?.cast(&DataType::UInt64)?;
        let counts = counts.u64()?.clone();
        Ok(checks
            .iter()
            .zip(counts.iter())
            .filter_map(|(c, n)| Some((c?.to_string(), n?)))
            .collect())
    };
    Ok((count(df.filter(&mask)?)?, count(df.filter(&!mask)?)?))
}

/// Failing checks per run: a group-by over the compact rows.
pub fn fails_per_run(run: &[u32], fail: &[bool]) -> PolarsResult<Vec<(u32, u32)>> {
    let df = df!("run" => run, "fail" => fail)?;
    let fails = df.filter(&df.column("fail")?.bool()?.clone())?;
    if fails.height() == 0 {
        return Ok(Vec::new());
    }
    let g = fails.group_by(["run"])?.select(["fail"]).count()?;
    let runs = g.column("run")?.u32()?.clone();
    let counts = g.column("fail_count")?.cast(&DataType::UInt32)?;
    let counts = counts.u32()?.clone();
    Ok(runs
        .iter()
        .zip(counts.iter())
        .filter_map(|(r, n)| Some((r?, n?)))
        .collect())
}
