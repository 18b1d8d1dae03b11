//! `script.*` end to end: the good Northstar script passes every script check, each
//! `fixtures/defects/script.*` fixture (the good script with one change) produces exactly its
//! expected script finding, and the check stays fast.

use crate::support::*;
use std::collections::BTreeSet;
use std::time::{Duration, Instant};
use vouch::report::{Finding, Status};

const SCRIPT: &str = "analyze_financials.py";

fn script_findings(files: Vec<(String, Vec<u8>)>) -> Vec<Finding> {
    verify_northstar(files)
        .findings
        .into_iter()
        .filter(|f| f.id.as_str().starts_with("script."))
        .collect()
}

#[test]
fn the_northstar_script_passes_every_script_check() {
    let found = script_findings(northstar_files());
    assert!(found.is_empty(), "{found:#?}");
}

#[test]
fn each_script_defect_fixture_yields_only_its_own_finding() {
    let dir = root().join("fixtures/defects");
    let mut seen = 0;
    for entry in std::fs::read_dir(&dir).unwrap() {
        let path = entry.unwrap().path();
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        if !name.starts_with("script.") {
            continue;
        }
        seen += 1;
        let expected: BTreeSet<(String, String)> = std::fs::read_to_string(path.join("expect.txt"))
            .unwrap()
            .lines()
            .filter(|l| !l.trim().is_empty() && !l.starts_with('#'))
            .map(|l| {
                let (s, id) = l.split_once(' ').unwrap();
                (s.to_string(), id.trim().to_string())
            })
            .collect();
        let bytes = std::fs::read(path.join(SCRIPT)).unwrap();
        let found = script_findings(with_file(northstar_files(), SCRIPT, bytes));
        let got: BTreeSet<(String, String)> = found
            .iter()
            .map(|f| (f.status.as_str().to_string(), f.id.as_str().to_string()))
            .collect();
        assert_eq!(got, expected, "{name}: {found:#?}");
        for f in &found {
            assert_eq!(f.artifact.as_deref(), Some(SCRIPT), "{name}");
            if f.id.as_str() != "script.missing_artifact_name"
                && f.id.as_str() != "script.unreadable"
            {
                assert!(
                    f.location.line.is_some(),
                    "{name}: every finding on code shows its line"
                );
            }
        }
    }
    assert!(seen >= 7, "the script fixtures are present");
}

#[test]
fn findings_point_at_the_changed_line() {
    let text = northstar_text(SCRIPT).replace("import re\n", "import re\nimport socket\n");
    let line = text.lines().position(|l| l == "import socket").unwrap() + 1;
    let found = script_findings(with_file(northstar_files(), SCRIPT, text));
    assert_eq!(found.len(), 1, "{found:#?}");
    assert_eq!(found[0].status, Status::Fail);
    assert_eq!(found[0].id, "script.network_or_process");
    assert_eq!(found[0].location.line, Some(line));
    assert!(
        found[0].message.contains("`import socket`"),
        "{}",
        found[0].message
    );
}

#[test]
fn checking_the_northstar_script_is_fast() {
    let spec = spec();
    let text = northstar_text(SCRIPT);
    // Warm up (the stdlib set is built once), then take the best of a few runs; debug builds are
    // several times slower than release, so the bound is generous.
    let mut best = Duration::MAX;
    for _ in 0..5 {
        let start = Instant::now();
        let mut out = Vec::new();
        vouch::checks::script::judge(&spec, &text, &mut out);
        best = best.min(start.elapsed());
        assert!(out.is_empty());
    }
    eprintln!(
        "script checks on the Northstar script ({} bytes): {best:?}",
        text.len()
    );
    assert!(best < Duration::from_millis(50), "took {best:?}");
}

mod shared_parses {
    //! The audit reads scripts through a [`ParseCache`] of top-level chunks, and `read` parses
    //! and walks them one chunk at a time: both readings must be the whole file's parse
    //! (`read_whole`) exactly, cold and warm, on every script the fixtures hold and on edits of
    //! them that keep most chunks (what repeated runs look like), and on the places a cut could
    //! go wrong.
    use super::*;
    use vouch::read::python::{read, read_shared, read_whole, ParseCache};

    fn same(text: &str, cache: &ParseCache, what: &str) {
        let whole = format!("{:?}", read_whole(text, "3.12"));
        assert_eq!(
            format!("{:?}", read(text, "3.12")),
            whole,
            "{what} (streamed)"
        );
        for pass in ["cold", "warm"] {
            let shared = format!("{:?}", read_shared(text, "3.12", cache));
            assert_eq!(shared, whole, "{what} ({pass} cache)");
        }
    }

    fn scripts() -> Vec<(String, String)> {
        let mut out = Vec::new();
        let mut stack = vec![root().join("fixtures")];
        while let Some(dir) = stack.pop() {
            for e in std::fs::read_dir(&dir).unwrap().map(|e| e.unwrap().path()) {
                if e.is_dir() {
                    stack.push(e);
                } else if e.extension().is_some_and(|x| x == "py") {
                    if let Ok(text) = std::fs::read_to_string(&e) {
                        out.push((e.display().to_string(), text));
                    }
                }
            }
        }
        out.sort();
        out
    }

    #[test]
    fn every_fixture_script_reads_the_same_through_shared_chunks() {
        let cache = ParseCache::default();
        let all = scripts();
        assert!(all.len() >= 60, "{} scripts", all.len());
        for (path, text) in &all {
            same(text, &cache, path);
        }
    }

    #[test]
    fn edited_scripts_read_the_same_with_their_neighbours_chunks_cached() {
        let cache = ParseCache::default();
        let base = northstar_text(SCRIPT);
        same(&base, &cache, "northstar");
        // It was read in chunks (one per function and class, and the statements between).
        let defs = base.matches("\ndef ").count() + base.matches("\nclass ").count();
        assert!(
            cache.len() > defs,
            "{} chunks for {defs} definitions",
            cache.len()
        );
        let held = cache.len();
        let guard = base.rfind("if __name__").unwrap();
        let first_def = base.find("\ndef ").unwrap() + 1;
        let edits = [
            // A helper added, a header comment, a function removed.
            format!(
                "{}def _extra(values):\n    return sum(values)\n\n\n{}",
                &base[..guard],
                &base[guard..]
            ),
            format!("# run 7\n{base}"),
            {
                let next = first_def + base[first_def + 1..].find("\ndef ").unwrap() + 2;
                format!("{}{}", &base[..first_def], &base[next..])
            },
            // A forbidden import and an os alias in a late chunk, used in an early one.
            format!(
                "{}import socket\nimport os as _o\n\n\n{}",
                &base[..guard],
                &base[guard..]
            )
            .replacen(
                "def fold(name):\n",
                "def fold(name):\n    _o.system('x')\n",
                1,
            ),
            // A syntax error in one function: every error comes from the whole file.
            base.replacen("def fold(name):\n", "def fold(name:\n", 1),
            // Syntax newer than 3.12 in a later chunk: its line is the file's.
            format!(
                "{}def g[T = int](x): pass\n\n\n{}",
                &base[..guard],
                &base[guard..]
            ),
        ];
        for (k, text) in edits.iter().enumerate() {
            same(text, &cache, &format!("edit {k}"));
        }
        // The edits added a few chunks of their own and reused the rest.
        assert!(
            cache.len() < held + 16,
            "{} chunks after the edits",
            cache.len()
        );
    }

    #[test]
    fn cuts_that_would_change_the_reading_are_never_made() {
        let cache = ParseCache::default();
        let cases = [
            // Top-level else / except / finally after a cut candidate.
            "import os\nif os.name:\n    x = 1\nelse:\n    x = 2\ndef f():\n    return os.system\n",
            "try:\n    import json\nexcept ImportError:\n    json = None\nfinally:\n    pass\ndef g():\n    pass\n",
            // Decorators stay with their function.
            "import functools\n@functools.cache\ndef h():\n    return 1\n@functools.cache\n@functools.wraps(h)\ndef k():\n    return 2\n",
            // Column-0 text inside strings and brackets.
            "DOC = \"\"\"\ndef not_code():\n    import socket\n\"\"\"\nx = (\n1)\ndef f():\n    return DOC\n",
            "x = [\ndef_ for def_ in range(3)\n]\ndef f():\n    pass\n",
            // A continuation line.
            "x = 1 + \\\n2\ndef f():\n    return x\n",
            // f-strings across the cut.
            "name = 'calculated_metrics.csv'\ndef f():\n    return f\"/mnt/data/{name}\"\nclass C:\n    y = f'{1}'\n",
            // Bindings after use, across chunks.
            "def f():\n    return o.system('ls')\nimport os as o\n",
            "def f():\n    return imp('socket')\nfrom importlib import import_module as imp\n",
            // A syntax error in the last chunk only.
            "def f():\n    pass\ndef g(:\n    pass\n",
            // An unterminated string at the end.
            "def f():\n    pass\nx = '''\ndef g():\n",
        ];
        for (k, text) in cases.iter().enumerate() {
            same(text, &cache, &format!("case {k}: {text:?}"));
        }
    }

    /// Statements (and broken pieces) a script may hold at top level, each ending in a newline.
    const PIECES: &[&str] = &[
        "import os\n",
        "import os as o\n",
        "from os import system\n",
        "from os import *\n",
        "import socket\n",
        "from importlib import import_module as im\n",
        "x = im('subprocess')\n",
        "y = __import__(name)\n",
        "def f():\n    return o.system('ls')\n",
        "def g(a, b=1):\n    if a:\n        return b\n    else:\n        return a\n",
        "@decorator\n",
        "@decorator\ndef h():\n    pass\n",
        "class C:\n    def m(self):\n        return getattr(os, 'popen')\n",
        "async def k():\n    await thing()\n",
        "if x:\n    pass\n",
        "else:\n    pass\n",
        "try:\n    import json\n",
        "except ImportError:\n    json = None\n",
        "finally:\n    pass\n",
        "DOC = \"\"\"\ndef inside():\n    import socket\n\"\"\"\n",
        "T = '''\nclass X:\n",
        "'''\n",
        "z = (1,\n2)\n",
        "w = [\n",
        "]\n",
        "v = 1 + \\\n2\n",
        "path = f'/mnt/data/{name}.csv'\n",
        "name = 'investment_analysis.md'\n",
        "# a comment at column 0\n",
        "\n",
        "    indented = 1\n",
        "def broken(:\n    pass\n",
        "type Alias = int\n",
        "def generic[T = int](x): pass\n",
        "match x:\n    case 1:\n        pass\n",
        "print(os.execv)\n",
        "def late():\n    return imp2('socket')\n",
        "from importlib import import_module as imp2\n",
    ];

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(2000))]
        #[test]
        fn any_sequence_of_top_level_pieces_reads_the_same_through_shared_chunks(
            picks in proptest::collection::vec(0..PIECES.len(), 1..14),
            warm in proptest::collection::vec(0..PIECES.len(), 0..14),
        ) {
            let cache = ParseCache::default();
            // Another script first, so some chunks come from the cache.
            let other: String = warm.iter().map(|&i| PIECES[i]).collect();
            let _ = read_shared(&other, "3.12", &cache);
            let text: String = picks.iter().map(|&i| PIECES[i]).collect();
            let whole = format!("{:?}", read_whole(&text, "3.12"));
            proptest::prop_assert_eq!(format!("{:?}", read(&text, "3.12")), whole.clone());
            proptest::prop_assert_eq!(format!("{:?}", read_shared(&text, "3.12", &cache)), whole.clone());
            proptest::prop_assert_eq!(format!("{:?}", read_shared(&text, "3.12", &cache)), whole);
        }
    }
}
