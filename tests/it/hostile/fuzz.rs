//! Fuzzing every parser with proptest (issue 6; docs/security.md says why not afl.rs here):
//! arbitrary bytes and structured mutations of the good Northstar artifacts go through the whole
//! verification (so every parser and every check behind it), and arbitrary or mutated archives
//! through the archive reader. The property is only "never panics, always a report"; a panic
//! fails with the shrunk input. `PROPTEST_CASES` raises the case count for longer runs.

use crate::support::*;
use proptest::prelude::*;
use vouch::audit::archive::{self, ArchiveLimits};

const ARTIFACTS: [&str; 6] = [
    "analyze_financials.py",
    "calculated_metrics.csv",
    "unusual_movements.csv",
    "financial_trends.svg",
    "investment_analysis.md",
    "analysis_run.json",
];

/// Tokens that matter to some parser: delimiters, quotes, markup, numbers, keywords.
const TOKENS: [&str; 32] = [
    ",",
    "\"",
    "\n",
    "\r\n",
    "<",
    ">",
    "</g>",
    "<g>",
    "&",
    ";",
    "<!DOCTYPE svg [",
    "]>",
    "{",
    "}",
    "[",
    "]",
    ":",
    "(",
    ")",
    "%",
    "-",
    "1e308",
    "0.0000",
    "NaN",
    "# ",
    "| ",
    "> ",
    "- ",
    "1. ",
    "import ",
    "\u{FEFF}",
    "\t",
];

#[derive(Clone, Debug)]
enum Edit {
    Delete(usize, usize),
    Duplicate(usize, usize),
    Insert(usize, Vec<u8>),
    Token(usize, usize),
    Flip(usize, u8),
}

fn edit() -> impl Strategy<Value = Edit> {
    prop_oneof![
        (any::<usize>(), 0usize..64).prop_map(|(a, n)| Edit::Delete(a, n)),
        (any::<usize>(), 0usize..256).prop_map(|(a, n)| Edit::Duplicate(a, n)),
        (
            any::<usize>(),
            proptest::collection::vec(any::<u8>(), 0..16)
        )
            .prop_map(|(a, b)| Edit::Insert(a, b)),
        (any::<usize>(), 0usize..TOKENS.len()).prop_map(|(a, t)| Edit::Token(a, t)),
        (any::<usize>(), any::<u8>()).prop_map(|(a, b)| Edit::Flip(a, b)),
    ]
}

fn apply(mut bytes: Vec<u8>, edits: &[Edit]) -> Vec<u8> {
    for e in edits {
        let len = bytes.len().max(1);
        match e {
            Edit::Delete(a, n) => {
                let a = a % len;
                let b = (a + n).min(bytes.len());
                if a < b {
                    bytes.drain(a..b);
                }
            }
            Edit::Duplicate(a, n) => {
                let a = a % len;
                let b = (a + n).min(bytes.len());
                if a < b {
                    let piece = bytes[a..b].to_vec();
                    bytes.splice(b..b, piece);
                }
            }
            Edit::Insert(a, ins) => {
                let a = a % (bytes.len() + 1);
                bytes.splice(a..a, ins.iter().copied());
            }
            Edit::Token(a, t) => {
                let a = a % (bytes.len() + 1);
                bytes.splice(a..a, TOKENS[*t].bytes());
            }
            Edit::Flip(a, v) => {
                if !bytes.is_empty() {
                    let a = a % bytes.len();
                    bytes[a] = *v;
                }
            }
        }
    }
    bytes
}

fn verify_with_artifact(name: &str, bytes: Vec<u8>) {
    let report = verify_northstar(with_file(northstar_files(), name, bytes));
    // Any verdict is fine; a report must exist and name its checks.
    assert!(report.findings.iter().all(|f| !f.id.as_str().is_empty()));
}

fn small_archives() -> Vec<(&'static str, Vec<u8>)> {
    use std::io::Write;
    let files = northstar_files();
    let mut zip = zip::ZipWriter::new(std::io::Cursor::new(Vec::new()));
    let opts = zip::write::SimpleFileOptions::default();
    for (name, bytes) in files.iter().take(2) {
        zip.start_file(format!("bundle/{name}"), opts).unwrap();
        zip.write_all(&bytes[..bytes.len().min(300)]).unwrap();
    }
    let zip = zip.finish().unwrap().into_inner();
    let mut tar = tar::Builder::new(Vec::new());
    for (name, bytes) in files.iter().take(2) {
        let b = &bytes[..bytes.len().min(300)];
        let mut h = tar::Header::new_gnu();
        h.set_size(b.len() as u64);
        h.set_mode(0o644);
        h.set_cksum();
        tar.append_data(&mut h, format!("bundle/{name}"), b)
            .unwrap();
    }
    let tar = tar.into_inner().unwrap();
    let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
    gz.write_all(&tar).unwrap();
    vec![("a.zip", zip), ("a.tar.gz", gz.finish().unwrap())]
}

/// 48 per property in CI; `PROPTEST_CASES` for a long run.
fn cases() -> u32 {
    std::env::var("PROPTEST_CASES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(48)
}

fn limits() -> ArchiveLimits {
    ArchiveLimits::new(spec().limits.max_artifact_bytes)
}

proptest! {
    #![proptest_config(ProptestConfig { cases: cases(), failure_persistence: None, ..ProptestConfig::default() })]

    #[test]
    fn any_bytes_in_any_artifact_give_a_report(which in 0usize..6, bytes in proptest::collection::vec(any::<u8>(), 0..2048)) {
        verify_with_artifact(ARTIFACTS[which], bytes);
    }

    #[test]
    fn mutated_northstar_artifacts_give_a_report(which in 0usize..6, edits in proptest::collection::vec(edit(), 1..12)) {
        let name = ARTIFACTS[which];
        let bytes = apply(northstar_text(name).into_bytes(), &edits);
        verify_with_artifact(name, bytes);
    }

    #[test]
    fn mutated_sources_give_a_report_or_an_error(edits in proptest::collection::vec(edit(), 1..8)) {
        let spec = spec();
        let bytes = apply(northstar_source_text().into_bytes(), &edits);
        if let Ok(stmts) = vouch::source::Statements::read_bytes("s.csv", "s.csv", &bytes, &spec) {
            let bundle = vouch::bundle::Bundle::from_files("memory", northstar_files(), &spec);
            let _ = vouch::verify::verify(&spec, &stmts, &bundle);
        }
    }

    #[test]
    fn any_archive_bytes_are_read_or_refused(zip in any::<bool>(), bytes in proptest::collection::vec(any::<u8>(), 0..4096)) {
        let name = if zip { "x.zip" } else { "x.tar.gz" };
        let _ = archive::read(name, &bytes, limits());
    }

    #[test]
    fn mutated_archives_are_read_or_refused(which in 0usize..2, edits in proptest::collection::vec(edit(), 1..6)) {
        let (name, bytes) = small_archives().swap_remove(which);
        let _ = archive::read(name, &apply(bytes, &edits), limits());
    }
}
