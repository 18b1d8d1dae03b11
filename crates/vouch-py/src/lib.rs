//! `vouch._native`: the verifier behind the Python package `vouch` (python/vouch/). It decides
//! what to verify with the same library code as the CLI (`vouch_runs::target`, the audit's
//! discovery and runner), renders the same reports, and raises `VouchError` with the message
//! the CLI prints after `vouch: error: `. The Python layer (python/vouch/__init__.py) builds the
//! public `Report`, `Finding` and the pyarrow table on top.

use pyo3::prelude::*;
use pyo3::sync::PyOnceLock;
use pyo3::types::{PyDict, PyType};
use std::path::PathBuf;
use vouch_core::bundle::Bundle;
use vouch_core::report::{human, json, Report, Verdict};
use vouch_core::source::Statements;
use vouch_core::spec::Spec;
use vouch_runs::audit::dedup::{Dedup, Seen};
use vouch_runs::audit::{cache, discover, runner::Auditor, CheckRow, RunResult, RunVerdict};
use vouch_runs::target::{error_chain, load_spec, verify_target};

/// `vouch.VouchError` (python/vouch/_errors.py: a Python class, so that it pickles by name and
/// a Dask worker's error reaches the client as itself) carrying `message`.
fn vouch_error(py: Python<'_>, message: String) -> PyErr {
    static VOUCH_ERROR: PyOnceLock<Py<PyType>> = PyOnceLock::new();
    match VOUCH_ERROR.import(py, "vouch._errors", "VouchError") {
        Ok(ty) => PyErr::from_type(ty.clone(), message),
        Err(e) => e,
    }
}

/// One verification: the report and what it was made from (the HTML page shows the artifacts
/// and the source again).
#[pyclass(module = "vouch._native", frozen)]
struct NativeReport {
    spec: Spec,
    stmts: Statements,
    bundle: Bundle,
    report: Report,
}

#[pymethods]
impl NativeReport {
    /// `accept` or `reject`.
    fn verdict(&self) -> &'static str {
        match self.report.verdict() {
            Verdict::Accept => "accept",
            Verdict::Reject => "reject",
        }
    }

    /// The CLI's `--format json` text (schema `vouch.report` v2).
    fn json(&self) -> String {
        json::render(&self.report)
    }

    /// The CLI's `--format html` page.
    fn html(&self, py: Python<'_>) -> String {
        py.detach(|| {
            vouch_core::report::html::verify::render(
                &self.spec,
                &self.stmts,
                &self.bundle,
                &self.report,
            )
        })
    }

    /// The CLI's human report (never coloured).
    #[pyo3(signature = (verbose=false, max_findings=None))]
    fn human(&self, verbose: bool, max_findings: Option<usize>) -> String {
        human::render(
            &self.report,
            &human::Style {
                color: false,
                verbose,
                max_findings,
            },
        )
    }

    /// The CLI's `--format markdown` text.
    fn markdown(&self) -> String {
        vouch_core::report::markdown::render(&self.report)
    }
}

/// `vouch verify BUNDLE [--source FILE] [--source-name NAME] [--spec FILE]`, without
/// `--reexecute`.
#[pyfunction]
#[pyo3(signature = (bundle, source=None, source_name=None, spec=None))]
fn verify(
    py: Python<'_>,
    bundle: PathBuf,
    source: Option<PathBuf>,
    source_name: Option<String>,
    spec: Option<PathBuf>,
) -> PyResult<NativeReport> {
    py.detach(|| {
        vouch_core::verify::init_pool(None);
        let spec = load_spec(spec.as_deref())?;
        let target = verify_target(&bundle, source.as_deref(), source_name.as_deref(), &spec)?;
        let loaded = Bundle::load_dir(&target.bundle_dir, &spec).map_err(|e| error_chain(&e))?;
        let (stmts, report) =
            vouch_core::verify::verify_loading(&spec, &loaded, || target.read_source(&spec))
                .map_err(|e| error_chain(&e))?;
        Ok(NativeReport {
            spec,
            stmts,
            bundle: loaded,
            report,
        })
    })
    .map_err(|m| vouch_error(py, m))
}

/// The results of an audit: the rows of `vouch audit --out` by column, the verdict counts and
/// the warnings the CLI prints about runs found twice.
struct Audited {
    rows: Vec<CheckRow>,
    runs: usize,
    accept: usize,
    reject: usize,
    error: usize,
    warnings: Vec<String>,
}

/// `vouch audit PATH... [--source FILE] [--spec FILE] [--cache DIR | --no-cache] --out`: one
/// row per (run, check), in the order runs finish (as the CLI writes them).
#[pyfunction]
#[pyo3(signature = (paths, source=None, spec=None, cache=None))]
fn audit<'py>(
    py: Python<'py>,
    paths: Vec<PathBuf>,
    source: Option<PathBuf>,
    spec: Option<PathBuf>,
    cache: Option<PathBuf>,
) -> PyResult<Bound<'py, PyDict>> {
    let audited = py
        .detach(|| run_audit(&paths, source, spec, cache))
        .map_err(|m| vouch_error(py, m))?;
    columns(py, audited)
}

fn run_audit(
    paths: &[PathBuf],
    source: Option<PathBuf>,
    spec: Option<PathBuf>,
    cache_dir: Option<PathBuf>,
) -> Result<Audited, String> {
    let spec = std::sync::Arc::new(load_spec(spec.as_deref())?);
    vouch_core::verify::init_pool(None);
    let found = discover::discover(paths, &spec)?;
    let auditor = Auditor::new(spec, source.as_deref(), cache_dir)?;
    let mut out = Audited {
        rows: Vec::new(),
        runs: 0,
        accept: 0,
        reject: 0,
        error: 0,
        warnings: Vec::new(),
    };
    // A run found twice (a folder and an archive of it) is counted once, as the CLI counts it.
    let mut dedup = Dedup::default();
    auditor.run(&found, |r: RunResult| {
        if let Seen::Repeat(warning) = dedup.admit(&r) {
            out.warnings.extend(warning);
            return;
        }
        out.runs += 1;
        match r.verdict {
            RunVerdict::Accept => out.accept += 1,
            RunVerdict::Reject => out.reject += 1,
            RunVerdict::Error => out.error += 1,
        }
        out.rows.extend(r.rows());
    });
    out.warnings.extend(dedup.rest());
    if out.runs == 0 {
        return Err(format!(
            "nothing to verify: no run directory, bundle or archive holding one was found in {}",
            paths
                .iter()
                .map(|p| format!("`{}`", p.display()))
                .collect::<Vec<_>>()
                .join(", ")
        ));
    }
    Ok(out)
}

/// The audit as a dict: `columns` (name to list, the `audit --out` columns in their order),
/// `runs`, `accept`, `reject`, `error` and `warnings`.
fn columns(py: Python<'_>, a: Audited) -> PyResult<Bound<'_, PyDict>> {
    let n = a.rows.len();
    let mut run_id = Vec::with_capacity(n);
    let mut path = Vec::with_capacity(n);
    let mut label = Vec::with_capacity(n);
    let mut trial = Vec::with_capacity(n);
    let mut model = Vec::with_capacity(n);
    let mut source_file = Vec::with_capacity(n);
    let mut source_sha256 = Vec::with_capacity(n);
    let mut verdict = Vec::with_capacity(n);
    let mut check = Vec::with_capacity(n);
    let mut family = Vec::with_capacity(n);
    let mut status = Vec::with_capacity(n);
    let mut findings = Vec::with_capacity(n);
    let mut message = Vec::with_capacity(n);
    let mut first_pass_verdict = Vec::with_capacity(n);
    let mut repair_rounds = Vec::with_capacity(n);
    for r in a.rows {
        run_id.push(r.run_id);
        path.push(r.path);
        label.push(r.label);
        trial.push(r.trial);
        model.push(r.model);
        source_file.push(r.source_file);
        source_sha256.push(r.source_sha256);
        verdict.push(r.verdict);
        check.push(r.check);
        family.push(r.family);
        status.push(r.status);
        findings.push(r.findings);
        message.push(r.message);
        first_pass_verdict.push(r.first_pass_verdict);
        repair_rounds.push(r.repair_rounds);
    }
    let cols = PyDict::new(py);
    cols.set_item("run_id", run_id)?;
    cols.set_item("path", path)?;
    cols.set_item("label", label)?;
    cols.set_item("trial", trial)?;
    cols.set_item("model", model)?;
    cols.set_item("source_file", source_file)?;
    cols.set_item("source_sha256", source_sha256)?;
    cols.set_item("verdict", verdict)?;
    cols.set_item("check", check)?;
    cols.set_item("family", family)?;
    cols.set_item("status", status)?;
    cols.set_item("findings", findings)?;
    cols.set_item("message", message)?;
    cols.set_item("first_pass_verdict", first_pass_verdict)?;
    cols.set_item("repair_rounds", repair_rounds)?;
    let out = PyDict::new(py);
    out.set_item("columns", cols)?;
    out.set_item("runs", a.runs)?;
    out.set_item("accept", a.accept)?;
    out.set_item("reject", a.reject)?;
    out.set_item("error", a.error)?;
    out.set_item("warnings", a.warnings)?;
    Ok(out)
}

/// What `vouch audit PATHS` would verify: run directories, bare bundles and archives (an
/// archive may hold several runs), each as a path that an audit of it alone finds again.
#[pyfunction]
#[pyo3(signature = (paths, spec=None))]
fn discover_units(
    py: Python<'_>,
    paths: Vec<PathBuf>,
    spec: Option<PathBuf>,
) -> PyResult<Vec<PathBuf>> {
    py.detach(|| {
        let spec = load_spec(spec.as_deref())?;
        let found = discover::discover(&paths, &spec)?;
        Ok(found.iter().map(|f| f.path().to_path_buf()).collect())
    })
    .map_err(|m| vouch_error(py, m))
}

/// The verdict cache directory `vouch audit` uses by default (e.g. ~/.cache/vouch/verdicts).
#[pyfunction]
fn default_cache_dir() -> PathBuf {
    cache::default_dir()
}

#[pymodule]
fn _native(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    m.add_class::<NativeReport>()?;
    m.add_function(wrap_pyfunction!(verify, m)?)?;
    m.add_function(wrap_pyfunction!(audit, m)?)?;
    m.add_function(wrap_pyfunction!(discover_units, m)?)?;
    m.add_function(wrap_pyfunction!(default_cache_dir, m)?)?;
    Ok(())
}
