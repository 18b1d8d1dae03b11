//! Golden command-line tests: every case under `tests/cli/` is a command (its arguments, standard
//! input, environment and the files it starts with) and what it must print and return —
//! `NAME.toml` beside `NAME.stdout` and `NAME.stderr` (an absent file means nothing may be
//! printed there). The command runs in a fresh temporary directory; `[ROOT]` in its arguments
//! and files is the repository. The repository and the temporary directory are written `[ROOT]`
//! and `[TMP]` in the expected output. `VOUCH_BLESS=1` rewrites the expected files (review the
//! diff).

use crate::support::root;
use serde::Deserialize;
use std::collections::BTreeMap;
use std::io::Write as _;
use std::path::Path;
use std::process::{Command, Stdio};

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Case {
    /// What the case shows, one line.
    about: String,
    args: Vec<String>,
    /// The exit status it must return.
    status: i32,
    #[serde(default)]
    stdin: Option<String>,
    #[serde(default)]
    env: BTreeMap<String, String>,
    #[serde(default)]
    setup: Setup,
    /// Commands the case needs on the machine (`python3`, `bwrap`); without them it is skipped
    /// with a message.
    #[serde(default)]
    needs: Vec<String>,
}

#[derive(Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct Setup {
    /// `[from, to]`: a file or directory of the repository copied into the working directory.
    #[serde(default)]
    copy: Vec<[String; 2]>,
    /// Files written into the working directory, by path.
    #[serde(default)]
    write: BTreeMap<String, String>,
    /// Empty directories made in the working directory.
    #[serde(default)]
    mkdir: Vec<String>,
    /// Text appended to files of the working directory (after the copies), by path.
    #[serde(default)]
    append: BTreeMap<String, String>,
    /// `[dir, archive]`: a directory of the working directory packed as a .tar.gz (last).
    #[serde(default)]
    targz: Vec<[String; 2]>,
}

fn pack_targz(dir: &Path, archive: &Path) {
    let file = std::fs::File::create(archive).unwrap();
    let gz = flate2::write::GzEncoder::new(file, flate2::Compression::default());
    let mut tar = tar::Builder::new(gz);
    tar.append_dir_all(dir.file_name().unwrap(), dir).unwrap();
    tar.into_inner().unwrap().finish().unwrap();
}

fn copy_tree(from: &Path, to: &Path) {
    if from.is_dir() {
        std::fs::create_dir_all(to).unwrap();
        let mut entries: Vec<_> = std::fs::read_dir(from)
            .unwrap()
            .map(|e| e.unwrap())
            .collect();
        entries.sort_by_key(|e| e.file_name());
        for e in entries {
            copy_tree(&e.path(), &to.join(e.file_name()));
        }
    } else {
        if let Some(parent) = to.parent() {
            std::fs::create_dir_all(parent).unwrap();
        }
        std::fs::copy(from, to).unwrap_or_else(|e| panic!("copy {}: {e}", from.display()));
    }
}

fn has_command(name: &str) -> bool {
    Command::new("sh")
        .args(["-c", &format!("command -v {name}")])
        .stdout(Stdio::null())
        .status()
        .map(|s| s.success())
        .unwrap_or(false)
}

/// Runs one case; returns the differences from its expected files (empty when it matches).
fn run_case(dir: &Path, name: &str, bless: bool) -> Vec<String> {
    let text = std::fs::read_to_string(dir.join(format!("{name}.toml"))).unwrap();
    let case: Case = toml::from_str(&text).unwrap_or_else(|e| panic!("{name}.toml: {e}"));
    assert!(!case.about.is_empty(), "{name}.toml: `about` is empty");
    if let Some(missing) = case.needs.iter().find(|c| !has_command(c)) {
        eprintln!("golden {name}: skipped, `{missing}` is not installed");
        return Vec::new();
    }
    let root = root();
    let root_s = root.display().to_string();
    let tmp = tempfile::tempdir().unwrap();
    let work = tmp.path().canonicalize().unwrap();
    let work_s = work.display().to_string();
    let fill = |s: &str| s.replace("[ROOT]", &root_s);
    for [from, to] in &case.setup.copy {
        copy_tree(&root.join(from), &work.join(to));
    }
    for d in &case.setup.mkdir {
        std::fs::create_dir_all(work.join(d)).unwrap();
    }
    for (path, content) in &case.setup.write {
        let p = work.join(path);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(p, fill(content)).unwrap();
    }
    for (path, content) in &case.setup.append {
        let p = work.join(path);
        let mut text = std::fs::read_to_string(&p).unwrap_or_default();
        text.push_str(&fill(content));
        std::fs::write(p, text).unwrap();
    }
    for [dir, archive] in &case.setup.targz {
        pack_targz(&work.join(dir), &work.join(archive));
    }
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_vouch"));
    cmd.args(case.args.iter().map(|a| fill(a)))
        .current_dir(&work)
        .env_remove("NO_COLOR")
        .env_remove("CLICOLOR")
        .env_remove("CLICOLOR_FORCE")
        .env_remove("OPENAI_API_KEY")
        .env_remove("OPENAI_BASE_URL")
        .env("HOME", &work)
        .env("XDG_CACHE_HOME", work.join(".cache"))
        .env("COLUMNS", "100")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    for (k, v) in &case.env {
        cmd.env(k, fill(v));
    }
    let mut child = cmd.spawn().unwrap();
    {
        let mut stdin = child.stdin.take().unwrap();
        if let Some(input) = &case.stdin {
            stdin.write_all(fill(input).as_bytes()).unwrap();
        }
    }
    let out = child.wait_with_output().unwrap();
    let clean = |bytes: &[u8]| {
        String::from_utf8_lossy(bytes)
            .replace(&work_s, "[TMP]")
            .replace(&root_s, "[ROOT]")
    };
    let got = [
        ("stdout", clean(&out.stdout)),
        ("stderr", clean(&out.stderr)),
    ];
    let code = out.status.code().unwrap_or(-1);
    let mut diffs = Vec::new();
    if code != case.status {
        diffs.push(format!(
            "{name}: exit status {code}, expected {}\n--- stderr ---\n{}",
            case.status, got[1].1
        ));
    }
    for (stream, text) in &got {
        let path = dir.join(format!("{name}.{stream}"));
        if bless {
            if text.is_empty() {
                let _ = std::fs::remove_file(&path);
            } else {
                std::fs::write(&path, text).unwrap();
            }
            continue;
        }
        let want = std::fs::read_to_string(&path).unwrap_or_default();
        if *text != want {
            diffs.push(format!(
                "{name}: {stream} differs from {name}.{stream}\n--- expected ---\n{want}\n--- got ---\n{text}"
            ));
        }
    }
    diffs
}

#[test]
fn every_command_line_case_prints_and_returns_what_its_files_say() {
    let dir = root().join("tests/cli");
    let bless = std::env::var_os("VOUCH_BLESS").is_some();
    let mut names: Vec<String> = std::fs::read_dir(&dir)
        .unwrap()
        .filter_map(|e| {
            let name = e.unwrap().file_name().to_string_lossy().into_owned();
            name.strip_suffix(".toml").map(str::to_string)
        })
        .collect();
    names.sort();
    assert!(names.len() >= 20, "only {} cases", names.len());
    // Every expected file belongs to a case.
    for e in std::fs::read_dir(&dir).unwrap() {
        let file = e.unwrap().file_name().to_string_lossy().into_owned();
        let stem = file.rsplit_once('.').map(|(s, _)| s).unwrap_or(&file);
        assert!(
            names.iter().any(|n| n == stem),
            "tests/cli/{file} has no case"
        );
    }
    let diffs: Vec<String> = names
        .iter()
        .flat_map(|n| run_case(&dir, n, bless))
        .collect();
    assert!(
        diffs.is_empty(),
        "{} of {} cases differ (VOUCH_BLESS=1 rewrites the expected files):\n{}",
        diffs.len(),
        names.len(),
        diffs.join("\n")
    );
}

/// Every exit code a subcommand documents is returned by at least one case.
#[test]
fn the_cases_cover_every_documented_exit_code() {
    let dir = root().join("tests/cli");
    let mut seen: BTreeMap<String, Vec<i32>> = BTreeMap::new();
    for e in std::fs::read_dir(&dir).unwrap() {
        let path = e.unwrap().path();
        if path.extension().is_some_and(|x| x == "toml") {
            let case: Case = toml::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
            let sub = case.args.first().cloned().unwrap_or_default();
            seen.entry(sub).or_default().push(case.status);
        }
    }
    let documented: &[(&str, &[i32])] = &[
        ("verify", &[0, 1, 2]),
        ("audit", &[0, 1, 2]),
        ("compare", &[0, 1, 2, 3]),
        ("explain", &[0, 2]),
        ("completions", &[0, 2]),
        ("checks", &[0]),
        ("spec", &[0]),
        ("run", &[2]),
        ("emulate", &[2]),
    ];
    for (sub, codes) in documented {
        for c in *codes {
            assert!(
                seen.get(*sub).is_some_and(|s| s.contains(c)),
                "no case in tests/cli shows `vouch {sub}` exiting {c}"
            );
        }
    }
}
