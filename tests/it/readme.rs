//! The README's examples run as written: every command line of its `sh` blocks is run in order
//! (in a scratch directory that sees the repository's fixtures), `cargo run … --` standing for
//! the vouch binary these tests built and `cargo run --example NAME --` for that example; the
//! DuckDB query runs through DuckDB's Python package. A block whose info string says `api` needs
//! an API key and is only checked to say so. The example rejection report is what vouch prints.

use crate::support::root;
use std::path::Path;
use std::process::Command;

struct Block {
    info: String,
    /// 1-based line of the opening fence.
    line: usize,
    text: String,
}

fn blocks(readme: &str) -> Vec<Block> {
    let mut out = Vec::new();
    let mut open: Option<Block> = None;
    for (i, line) in readme.lines().enumerate() {
        if let Some(info) = line.strip_prefix("```") {
            match open.take() {
                Some(b) => out.push(b),
                None => {
                    open = Some(Block {
                        info: info.trim().to_string(),
                        line: i + 1,
                        text: String::new(),
                    })
                }
            }
        } else if let Some(b) = open.as_mut() {
            b.text.push_str(line);
            b.text.push('\n');
        }
    }
    out
}

/// How to run an example: `cargo run --example NAME` on this checkout, in the test build's
/// profile and features, so its dependencies are the ones already built. (The binaries
/// `cargo test --all-targets` leaves under `examples/` are test harnesses, not the programs.)
fn example(name: &str) -> String {
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    let features = if cfg!(feature = "tables") {
        " --features tables"
    } else {
        ""
    };
    format!(
        "'{cargo}' run --quiet --manifest-path '{}' --example {name}{features} --",
        root().join("Cargo.toml").display()
    )
}

/// A README command line as the shell command that runs it here, or why it is not run.
fn translate(line: &str) -> Result<String, String> {
    let vouch = env!("CARGO_BIN_EXE_vouch");
    if line.starts_with("cargo nextest") {
        return Err("the test command itself".into());
    }
    if let Some(rest) = line.strip_prefix("cargo run") {
        let (flags, args) = rest
            .split_once(" -- ")
            .ok_or_else(|| format!("`{line}`: no `--`"))?;
        if flags.contains("--features tables") && !cfg!(feature = "tables") {
            return Err(
                "needs the `tables` feature (the tests run with --all-features in CI)".into(),
            );
        }
        let flags: Vec<&str> = flags.split_whitespace().collect();
        return Ok(match flags.iter().position(|f| *f == "--example") {
            Some(i) => format!("{} {args}", example(flags[i + 1])),
            None => format!("'{vouch}' {args}"),
        });
    }
    if let Some(args) = line.strip_prefix("vouch ") {
        return Ok(format!("'{vouch}' {args}"));
    }
    if let Some(query) = line.strip_prefix("duckdb -c ") {
        let python = std::env::var("VOUCH_TEST_PYTHON").unwrap_or_else(|_| "python3".into());
        let probe = Command::new(&python).args(["-c", "import duckdb"]).status();
        if !probe.is_ok_and(|s| s.success()) {
            return Err(format!(
                "the duckdb Python package is not installed for `{python}`"
            ));
        }
        return Ok(format!(
            "'{python}' -c 'import duckdb, sys; duckdb.sql(sys.argv[1]).show()' {query}"
        ));
    }
    Err(format!(
        "`{line}` is not a command this test knows how to run"
    ))
}

/// Runs a block's lines in `dir`; each must exit 0 (an audit may exit 1: seeded runs include
/// rejected ones). Returns the problems.
fn run_block(block: &Block, dir: &Path) -> Vec<String> {
    let mut problems = Vec::new();
    // A line after one that did not run may need what it would have made: not run either.
    let mut skipping = false;
    for raw in block.text.lines() {
        let line = match raw.find("  #") {
            Some(i) => raw[..i].trim(),
            None => raw.trim(),
        };
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        if skipping {
            eprintln!("README line `{line}`: not run, the line before it did not run");
            continue;
        }
        if line.contains("--emulator") && vouch::reexecute::available().is_err() {
            eprintln!("README line `{line}`: not run, bubblewrap or python3 is missing");
            skipping = true;
            continue;
        }
        let cmd = match translate(line) {
            Ok(c) => c,
            Err(why) if std::env::var_os("VOUCH_CI").is_some() && !why.contains("test command") => {
                problems.push(format!("README line `{line}` cannot run: {why}"));
                continue;
            }
            Err(why) => {
                eprintln!("README line `{line}`: not run: {why}");
                skipping = !why.contains("test command");
                continue;
            }
        };
        let out = Command::new("sh")
            .args(["-c", &cmd])
            .current_dir(dir)
            .env("NO_COLOR", "1")
            .env("XDG_CACHE_HOME", dir.join(".cache"))
            .output()
            .unwrap();
        let code = out.status.code().unwrap_or(-1);
        let allowed = code == 0 || (code == 1 && line.contains(" audit "));
        if !allowed {
            problems.push(format!(
                "README line {} block: `{line}` exited {code}\n{}{}",
                block.line,
                String::from_utf8_lossy(&out.stdout),
                String::from_utf8_lossy(&out.stderr)
            ));
        }
    }
    problems
}

#[test]
fn every_readme_example_runs_as_written() {
    let readme = std::fs::read_to_string(root().join("README.md")).unwrap();
    let tmp = tempfile::tempdir().unwrap();
    std::os::unix::fs::symlink(root().join("fixtures"), tmp.path().join("fixtures")).unwrap();
    let mut problems = Vec::new();
    let mut ran = 0;
    for b in blocks(&readme).iter().filter(|b| b.info.starts_with("sh")) {
        if b.info.contains("api") {
            assert!(
                b.text.contains("OPENAI_API_KEY"),
                "README block at line {} is marked `api` but sets no API key",
                b.line
            );
            continue;
        }
        problems.extend(run_block(b, tmp.path()));
        ran += 1;
    }
    assert!(ran >= 3, "only {ran} sh blocks");
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

#[test]
fn the_readme_example_rejection_is_what_vouch_prints() {
    let readme = std::fs::read_to_string(root().join("README.md")).unwrap();
    let at = readme
        .find("Example of a rejection:")
        .expect("the example is in the README");
    let block = blocks(&readme[at..]).into_iter().next().unwrap();
    let tmp = tempfile::tempdir().unwrap();
    let bundle = tmp.path().join("bundle");
    std::fs::create_dir(&bundle).unwrap();
    for (name, bytes) in crate::support::northstar_files() {
        std::fs::write(bundle.join(name), bytes).unwrap();
    }
    std::fs::copy(
        root().join("fixtures/defects/metrics.value/calculated_metrics.csv"),
        bundle.join("calculated_metrics.csv"),
    )
    .unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_vouch"))
        .arg("verify")
        .arg(&bundle)
        .arg("--source")
        .arg(crate::support::northstar_source_path())
        .env("NO_COLOR", "1")
        .output()
        .unwrap();
    let printed = String::from_utf8_lossy(&out.stdout)
        .replace(&bundle.display().to_string(), "fixtures/…/bundle");
    assert_eq!(block.text, printed);
}
