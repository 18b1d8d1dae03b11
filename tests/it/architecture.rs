//! The workspace's layering holds (docs/architecture.md): vouch-core depends on none of the
//! async runtime, HTTP or dataframe crates, and on no other vouch crate; vouch-runs and
//! vouch-agent do not depend on each other. Read from Cargo.lock: every package reachable
//! from a crate through its normal dependencies (dev- and build-dependencies are not in the lock's
//! per-package lists separately, so this is an over-approximation: it can only fail too often).

use crate::support::root;
use std::collections::{BTreeSet, HashMap};

/// Package name → the names of its dependencies, from Cargo.lock.
fn lock_graph() -> HashMap<String, Vec<String>> {
    let text = std::fs::read_to_string(root().join("Cargo.lock")).unwrap();
    let lock: toml::Table = toml::from_str(&text).unwrap();
    let mut graph = HashMap::new();
    for p in lock["package"].as_array().unwrap() {
        let name = p["name"].as_str().unwrap().to_string();
        let deps: Vec<String> = p
            .get("dependencies")
            .and_then(|d| d.as_array())
            .map(|d| {
                d.iter()
                    // "name", or "name version" when two versions are locked.
                    .map(|s| s.as_str().unwrap().split(' ').next().unwrap().to_string())
                    .collect()
            })
            .unwrap_or_default();
        graph.entry(name).or_insert_with(Vec::new).extend(deps);
    }
    graph
}

fn reachable(graph: &HashMap<String, Vec<String>>, from: &str) -> BTreeSet<String> {
    let mut seen = BTreeSet::new();
    let mut stack = vec![from.to_string()];
    while let Some(p) = stack.pop() {
        for d in graph.get(&p).into_iter().flatten() {
            if seen.insert(d.clone()) {
                stack.push(d.clone());
            }
        }
    }
    seen
}

/// The normal (non-dev) dependencies a crate's manifest declares.
fn declared(krate: &str) -> BTreeSet<String> {
    let text = std::fs::read_to_string(root().join(format!("crates/{krate}/Cargo.toml"))).unwrap();
    let manifest: toml::Table = toml::from_str(&text).unwrap();
    manifest["dependencies"]
        .as_table()
        .unwrap()
        .keys()
        .cloned()
        .collect()
}

#[test]
fn the_verifier_core_pulls_in_no_runtime_http_or_dataframes() {
    let graph = lock_graph();
    // The lock lists dev-dependencies too; follow only what the manifest declares as normal.
    let mut core: BTreeSet<String> = BTreeSet::new();
    for d in declared("vouch-core") {
        core.insert(d.clone());
        core.extend(reachable(&graph, &d));
    }
    for banned in [
        "tokio",
        "axum",
        "reqwest",
        "hyper",
        "polars",
        "vouch-runs",
        "vouch-agent",
    ] {
        assert!(!core.contains(banned), "vouch-core depends on {banned}");
    }
    for (a, b) in [("vouch-runs", "vouch-agent"), ("vouch-agent", "vouch-runs")] {
        assert!(!declared(a).contains(b), "{a} depends on {b}");
    }
    assert!(declared("vouch-runs").contains("vouch-core"));
    // The walk sees through the graph: the agent crate does reach hyper (through reqwest).
    let agent: BTreeSet<String> = declared("vouch-agent")
        .iter()
        .flat_map(|d| reachable(&graph, d))
        .collect();
    assert!(agent.contains("hyper"), "{agent:?}");
}

/// Readers apart from judges: no file under `vouch-core/src/read/` emits a finding, names a
/// check id, or touches the recomputed truth (it may read the source's years through
/// `Context::years`); the judges in `checks/` do that.
#[test]
fn readers_emit_no_findings_and_never_see_the_truth() {
    fn walk(dir: &std::path::Path, out: &mut Vec<std::path::PathBuf>) {
        for e in std::fs::read_dir(dir).unwrap() {
            let p = e.unwrap().path();
            if p.is_dir() {
                walk(&p, out);
            } else if p.extension().is_some_and(|x| x == "rs") {
                out.push(p);
            }
        }
    }
    let mut files = Vec::new();
    walk(&root().join("crates/vouch-core/src/read"), &mut files);
    assert!(files.len() >= 10, "{} reader files", files.len());
    for f in files {
        let text = std::fs::read_to_string(&f).unwrap();
        for (i, line) in text.lines().enumerate() {
            let code = line.split("//").next().unwrap_or("");
            for banned in ["Finding", "CheckId", "Truth", ".truth", "recompute::"] {
                assert!(
                    !code.contains(banned),
                    "{}:{}: a reader uses `{banned}`: {line}",
                    f.display(),
                    i + 1
                );
            }
        }
    }
}
