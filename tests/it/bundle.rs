//! Bundle loading rules that cannot live in committed fixtures: links, FIFOs, size limits.

use crate::support::*;
use std::path::Path;
use vouch::bundle::{Bundle, BundleError};
use vouch::report::Status;
use vouch::Spec;

fn copy_good(dir: &Path) {
    for (name, bytes) in northstar_files() {
        std::fs::write(dir.join(name), bytes).unwrap();
    }
}

fn ids(b: &Bundle) -> Vec<(&'static str, Status)> {
    b.findings
        .iter()
        .map(|f| (f.id.as_str(), f.status))
        .collect()
}

#[test]
fn a_symlinked_artifact_is_an_error_and_is_never_followed() {
    let dir = tempfile::tempdir().unwrap();
    copy_good(dir.path());
    let secret = dir.path().join("secret.txt");
    std::fs::write(&secret, "do not read").unwrap();
    std::fs::remove_file(dir.path().join("investment_analysis.md")).unwrap();
    std::os::unix::fs::symlink(&secret, dir.path().join("investment_analysis.md")).unwrap();
    let b = Bundle::load_dir(dir.path(), &spec()).unwrap();
    assert!(ids(&b).contains(&("bundle.symlink", Status::Fail)));
    assert!(
        b.get("investment_analysis.md").is_none(),
        "the link target was never read"
    );
}

#[test]
fn a_fifo_or_directory_in_place_of_an_artifact_is_not_opened() {
    let dir = tempfile::tempdir().unwrap();
    copy_good(dir.path());
    let fifo = dir.path().join("unusual_movements.csv");
    std::fs::remove_file(&fifo).unwrap();
    let c = std::ffi::CString::new(fifo.to_str().unwrap()).unwrap();
    // SAFETY: mkfifo on a path we own; no memory is shared.
    assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o600) }, 0);
    let d = dir.path().join("financial_trends.svg");
    std::fs::remove_file(&d).unwrap();
    std::fs::create_dir(&d).unwrap();
    let b = Bundle::load_dir(dir.path(), &spec()).unwrap();
    let found = ids(&b);
    assert_eq!(
        found
            .iter()
            .filter(|(id, _)| *id == "bundle.not_regular_file")
            .count(),
        2,
        "{found:?}"
    );
}

#[test]
fn an_artifact_over_the_limit_is_rejected_from_metadata_alone() {
    let dir = tempfile::tempdir().unwrap();
    copy_good(dir.path());
    let text = vouch::spec::DEFAULT_SPEC
        .replace("max_artifact_bytes = 16777216", "max_artifact_bytes = 4096");
    let small = Spec::parse(&text).unwrap();
    let b = Bundle::load_dir(dir.path(), &small).unwrap();
    let big: Vec<_> = b
        .findings
        .iter()
        .filter(|f| f.id.as_str() == "bundle.too_large")
        .collect();
    assert!(!big.is_empty());
    for f in big {
        assert!(b.get(f.artifact.as_deref().unwrap()).is_none());
    }
}

#[test]
fn an_unreadable_artifact_is_reported_not_fatal() {
    // Root can read anything; simulate with a file that vanishes between listing and reading.
    let dir = tempfile::tempdir().unwrap();
    copy_good(dir.path());
    let p = dir.path().join("analysis_run.json");
    let mut perms = std::fs::metadata(&p).unwrap().permissions();
    std::os::unix::fs::PermissionsExt::set_mode(&mut perms, 0o000);
    std::fs::set_permissions(&p, perms).unwrap();
    let b = Bundle::load_dir(dir.path(), &spec()).unwrap();
    let is_root = unsafe { libc::geteuid() } == 0;
    if !is_root {
        assert!(ids(&b).contains(&("bundle.unreadable", Status::Fail)));
    }
}

#[test]
fn a_missing_bundle_directory_is_an_error_not_a_finding() {
    let err = Bundle::load_dir(Path::new("/nonexistent/bundle"), &spec()).unwrap_err();
    assert!(matches!(err, BundleError::NotFound(_)));
}

#[test]
fn the_report_carries_every_artifacts_sha256() {
    let b = Bundle::load_dir(&northstar_bundle_dir(), &spec()).unwrap();
    let d = b.digests();
    assert_eq!(d.len(), 6);
    assert!(d.iter().all(|a| a.sha256.len() == 64 && a.bytes > 0));
}
