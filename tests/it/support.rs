//! Shared test support: the Northstar fixture, overlays, and verification in memory.

use std::path::{Path, PathBuf};
use vouch::bundle::Bundle;
use vouch::report::{Report, Status};
use vouch::source::Statements;
use vouch::Spec;

pub fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

pub fn northstar_source_path() -> PathBuf {
    root().join("fixtures/northstar/northstar_cloud_financial_statements.csv")
}

pub fn northstar_bundle_dir() -> PathBuf {
    root().join("fixtures/northstar/bundle")
}

pub fn spec() -> Spec {
    Spec::default_spec()
}

/// The good bundle's files, by name.
pub fn northstar_files() -> Vec<(String, Vec<u8>)> {
    read_dir_files(&northstar_bundle_dir())
}

pub fn read_dir_files(dir: &Path) -> Vec<(String, Vec<u8>)> {
    let mut files: Vec<(String, Vec<u8>)> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap())
        .filter(|e| e.file_type().unwrap().is_file())
        .map(|e| {
            (
                e.file_name().to_string_lossy().into_owned(),
                std::fs::read(e.path()).unwrap(),
            )
        })
        .collect();
    files.sort();
    files
}

/// Replace (or add) one artifact of a file set.
pub fn with_file(
    mut files: Vec<(String, Vec<u8>)>,
    name: &str,
    bytes: impl Into<Vec<u8>>,
) -> Vec<(String, Vec<u8>)> {
    files.retain(|(n, _)| n != name);
    files.push((name.to_string(), bytes.into()));
    files
}

/// The text of one artifact of the good bundle.
pub fn northstar_text(name: &str) -> String {
    String::from_utf8(std::fs::read(northstar_bundle_dir().join(name)).unwrap()).unwrap()
}

pub fn northstar_source_text() -> String {
    std::fs::read_to_string(northstar_source_path()).unwrap()
}

/// A copy of the good bundle in a temp dir, for cases that need a real directory.
pub fn bundle_dir() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    for (name, bytes) in northstar_files() {
        std::fs::write(dir.path().join(name), bytes).unwrap();
    }
    dir
}

/// Verify in memory against a source given as text.
pub fn verify_files(files: Vec<(String, Vec<u8>)>, source_name: &str, source: &str) -> Report {
    let spec = spec();
    let stmts = Statements::read_bytes(source_name, source_name, source.as_bytes(), &spec)
        .expect("source reads");
    let bundle = Bundle::from_files("memory", files, &spec);
    vouch::verify::verify(&spec, &stmts, &bundle)
}

/// The audit's way to the same report — the two halves ([`vouch::verify::script_half`] with a
/// shared parse cache, [`vouch::verify::rest_half`]) joined — must give `report` byte for byte
/// (its JSON). The cache is warmed with the script first, so the second reading is from shared
/// chunks where it can be.
pub fn assert_halves_agree(
    files: &[(String, Vec<u8>)],
    source_name: &str,
    source: &str,
    report: &Report,
) {
    let spec = spec();
    let stmts = Statements::read_bytes(source_name, source_name, source.as_bytes(), &spec)
        .expect("source reads");
    let bundle = Bundle::from_files("memory", files.to_vec(), &spec);
    let truth = stmts
        .valid_years()
        .map(|y| vouch::recompute::Truth::compute(&spec, &stmts, &y));
    let cache = vouch::read::python::ParseCache::default();
    for _ in 0..2 {
        let script = vouch::verify::script_half(&spec, &bundle, Some(&cache));
        let rest = vouch::verify::rest_half(&spec, &stmts, truth.as_ref(), &bundle);
        let joined = vouch::verify::join_halves(&spec, &stmts, &bundle, rest, script);
        assert_eq!(
            vouch::report::json::render(&joined),
            vouch::report::json::render(report),
            "the halves disagree with verify"
        );
    }
}

/// Verify a file set against the Northstar source.
pub fn verify_northstar(files: Vec<(String, Vec<u8>)>) -> Report {
    verify_files(
        files,
        "northstar_cloud_financial_statements.csv",
        &northstar_source_text(),
    )
}

/// Findings of one id at or above `status`.
pub fn has(report: &Report, id: &str, status: Status) -> bool {
    report
        .findings
        .iter()
        .any(|f| f.id.as_str() == id && f.status == status)
}

/// A readable dump of the non-pass findings, for assertion messages.
pub fn dump(report: &Report) -> String {
    report
        .findings
        .iter()
        .map(|f| {
            format!(
                "{} {} {:?} {}",
                f.status.as_str(),
                f.id.as_str(),
                f.location,
                f.message
            )
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// A generated file is what the code generates now: `VOUCH_BLESS=1` rewrites it, else a
/// difference fails with `how` (the command that regenerates it).
pub fn assert_generated(relative: &str, expected: &str, how: &str) {
    let path = root().join(relative);
    if std::env::var_os("VOUCH_BLESS").is_some() {
        std::fs::write(&path, expected).unwrap();
    }
    let actual = std::fs::read_to_string(&path).unwrap_or_default();
    assert!(
        actual == expected,
        "{relative} is out of date; run `{how}` and review the diff"
    );
}
