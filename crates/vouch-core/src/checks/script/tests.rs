//! The script rules, one form at a time: each test is a few lines of Python and the findings
//! they must (or must not) produce.

use super::*;
use crate::report::Status;

/// A line naming the five other artifacts, so that only the rule under test speaks.
const NAMES_ALL: &str =
    "\nOUT = ['calculated_metrics.csv', 'unusual_movements.csv', 'financial_trends.svg', \
                         'investment_analysis.md', 'analysis_run.json']\n";

fn run(src: &str) -> Vec<Finding> {
    let mut out = Vec::new();
    judge(&Spec::default_spec(), src, &mut out);
    out
}

/// `(status, id, line)` of every finding for `src` (with the artifact names appended).
fn found(src: &str) -> Vec<(Status, CheckId, Option<usize>)> {
    run(&format!("{src}{NAMES_ALL}"))
        .iter()
        .map(|f| (f.status, f.id, f.location.line))
        .collect()
}

fn fails(src: &str, id: CheckId, line: usize) {
    let got = found(src);
    assert!(
        got.contains(&(Status::Fail, id, Some(line))),
        "expected fail {id} at line {line} for:\n{src}\ngot {got:?}"
    );
}

fn clean(src: &str) {
    let got = found(src);
    assert!(
        got.is_empty(),
        "expected no findings for:\n{src}\ngot {got:?}"
    );
}

// --- syntax ---------------------------------------------------------------------------------

#[test]
fn script_that_does_not_parse_is_a_syntax_error_with_its_line() {
    fails("import os\n\ndef f(:\n    pass\n", CheckId::ScriptSyntax, 3);
}

#[test]
fn syntax_error_skips_the_other_checks() {
    let got = found("import requests\nx = (\n");
    assert!(
        got.iter().all(|(_, id, _)| *id == CheckId::ScriptSyntax),
        "{got:?}"
    );
}

#[test]
fn syntax_newer_than_312_is_a_syntax_error() {
    // PEP 758 (3.14): `except A, B:` without parentheses.
    fails(
        "try:\n    pass\nexcept ValueError, TypeError:\n    pass\n",
        CheckId::ScriptSyntax,
        3,
    );
}

#[test]
fn syntax_of_312_is_accepted() {
    clean("type Point = tuple[float, float]\ndef f[T](x: T) -> T:\n    return x\nprint(f\"{'a' + \"b\"}\")\n");
}

#[test]
fn parenthesis_nesting_beyond_cpythons_limit_is_a_syntax_error() {
    let deep = format!("x = {}1{}\n", "(".repeat(250), ")".repeat(250));
    fails(&format!("import os\n{deep}"), CheckId::ScriptSyntax, 2);
}

#[test]
fn very_deep_expressions_are_refused_before_parsing_without_crashing() {
    let chain = format!("x = 1{}\n", " + 1".repeat(200_000));
    fails(&chain, CheckId::ScriptSyntax, 1);
    let unary = format!("x = {}1\n", "-".repeat(200_000));
    fails(&unary, CheckId::ScriptSyntax, 1);
    let nots = format!("x = {}y\n", "not ".repeat(100_000));
    fails(&nots, CheckId::ScriptSyntax, 1);
}

#[test]
fn long_flat_literals_are_not_deep() {
    let items: Vec<String> = (0..20_000).map(|i| format!("-{i}")).collect();
    clean(&format!("DATA = [{}]\n", items.join(", ")));
}

#[test]
fn indentation_beyond_cpythons_limit_is_a_syntax_error() {
    let mut src = String::new();
    for depth in 0..120 {
        src.push_str(&" ".repeat(depth));
        src.push_str("if x:\n");
    }
    src.push_str(&" ".repeat(120));
    src.push_str("pass\n");
    let got = found(&src);
    assert!(
        got.iter()
            .any(|(s, id, _)| *s == Status::Fail && *id == CheckId::ScriptSyntax),
        "{got:?}"
    );
}

#[test]
fn deep_nesting_fits_the_stack_estimate() {
    // The deepest ASTs per unit of the byte bound: one unary operator or keyword per level.
    for text in [
        format!("x = {}1\n", "-".repeat(2990)),
        format!("x = {}y\n", "not ".repeat(1490)),
        format!("x = {}y\n", "lambda: ".repeat(995)),
        format!("x = a{}\n", ".b".repeat(1490)),
    ] {
        let b = crate::read::python::bound::bound(&text).expect("the scan reads it");
        let red_zone =
            python::STACK_BASE_BYTES + (b.expression + b.indent) * python::STACK_BYTES_PER_LEVEL;
        // A thread just big enough that `read` stays on it rather than growing a new stack.
        let stack = red_zone + (256 << 10);
        let valid = std::thread::Builder::new()
            .stack_size(stack)
            .spawn(move || {
                assert!(stacker::remaining_stack().is_some_and(|r| r >= red_zone));
                matches!(python::read(&text, "3.12"), python::Reading::Valid(_))
            })
            .unwrap()
            .join()
            .unwrap();
        assert!(valid);
    }
}

// --- imports of every form ------------------------------------------------------------------

#[test]
fn stdlib_imports_of_every_form_are_fine() {
    clean(
        "import csv\nimport os.path\nimport xml.etree.ElementTree as ET\nfrom decimal import Decimal\n\
         from collections.abc import Mapping\nfrom __future__ import annotations\nimport importlib\n\
         m = importlib.import_module('json')\nn = __import__('math')\n",
    );
}

#[test]
fn plain_import_of_a_third_party_module_fails() {
    fails(
        "import csv\nimport numpy\n",
        CheckId::ScriptNonStdlibImport,
        2,
    );
}

#[test]
fn dotted_aliased_and_from_imports_of_third_party_modules_fail() {
    fails(
        "import pandas.io as pio\n",
        CheckId::ScriptNonStdlibImport,
        1,
    );
    fails("import numpy as np\n", CheckId::ScriptNonStdlibImport, 1);
    fails(
        "from matplotlib import pyplot\n",
        CheckId::ScriptNonStdlibImport,
        1,
    );
    fails(
        "from matplotlib.pyplot import plot\n",
        CheckId::ScriptNonStdlibImport,
        1,
    );
    fails("import os, requests\n", CheckId::ScriptNonStdlibImport, 1);
}

#[test]
fn imports_inside_functions_try_and_if_count() {
    fails(
        "def f():\n    import yaml\n    return yaml\n",
        CheckId::ScriptNonStdlibImport,
        2,
    );
    fails(
        "try:\n    import orjson as json\nexcept ImportError:\n    import json\n",
        CheckId::ScriptNonStdlibImport,
        2,
    );
    fails(
        "if True:\n    from scipy import stats\n",
        CheckId::ScriptNonStdlibImport,
        2,
    );
    fails(
        "class A:\n    def m(self):\n        with open('x'):\n            import attrs\n",
        CheckId::ScriptNonStdlibImport,
        4,
    );
}

#[test]
fn modules_removed_in_python_312_are_not_stdlib() {
    fails("import distutils.util\n", CheckId::ScriptNonStdlibImport, 1);
    fails("import imp\n", CheckId::ScriptNonStdlibImport, 1);
    fails("import asyncore\n", CheckId::ScriptNonStdlibImport, 1);
}

#[test]
fn literal_dynamic_imports_are_checked_like_imports() {
    fails(
        "x = __import__('requests')\n",
        CheckId::ScriptNonStdlibImport,
        1,
    );
    fails(
        "import importlib\nx = importlib.import_module('numpy')\n",
        CheckId::ScriptNonStdlibImport,
        2,
    );
    fails(
        "import importlib as il\nx = il.import_module('numpy.linalg')\n",
        CheckId::ScriptNonStdlibImport,
        2,
    );
    fails(
        "from importlib import import_module\nx = import_module('socket')\n",
        CheckId::ScriptNetworkOrProcess,
        2,
    );
    fails(
        "import importlib\nx = importlib.__import__('subprocess')\n",
        CheckId::ScriptNetworkOrProcess,
        2,
    );
    fails(
        "import builtins\nx = builtins.__import__('ssl')\n",
        CheckId::ScriptNetworkOrProcess,
        2,
    );
    fails(
        "x = __import__(name='urllib.request')\n",
        CheckId::ScriptNetworkOrProcess,
        1,
    );
}

#[test]
fn non_literal_dynamic_imports_warn() {
    let got = found("name = 'json'\nm = __import__(name)\n");
    assert!(
        got.contains(&(Status::Warn, CheckId::ScriptDynamicImport, Some(2))),
        "{got:?}"
    );
    let got = found("import importlib\nmods = ['json']\nm = importlib.import_module(mods[0])\n");
    assert!(
        got.contains(&(Status::Warn, CheckId::ScriptDynamicImport, Some(3))),
        "{got:?}"
    );
    let got = found("import importlib\nm = importlib.import_module(f'{x}')\n");
    assert!(
        got.contains(&(Status::Warn, CheckId::ScriptDynamicImport, Some(2))),
        "{got:?}"
    );
}

#[test]
fn an_unrelated_import_module_method_is_not_an_import() {
    clean("class L:\n    def import_module(self, n):\n        return n\nL().import_module(n)\n");
}

#[test]
fn relative_imports_fail() {
    fails("from . import helpers\n", CheckId::ScriptRelativeImport, 1);
    fails(
        "from .helpers import load\n",
        CheckId::ScriptRelativeImport,
        1,
    );
    fails("from ..pkg import x\n", CheckId::ScriptRelativeImport, 1);
    fails(
        "import importlib\nm = importlib.import_module('.helpers', 'pkg')\n",
        CheckId::ScriptRelativeImport,
        2,
    );
    fails(
        "m = __import__('helpers', globals(), locals(), [], 1)\n",
        CheckId::ScriptRelativeImport,
        1,
    );
}

// --- network and process modules ------------------------------------------------------------

#[test]
fn network_and_process_modules_fail_in_every_form() {
    for (src, line) in [
        ("import socket\n", 1),
        ("import ssl\n", 1),
        ("import http.client\n", 1),
        ("from http.server import HTTPServer\n", 1),
        ("import urllib.request\n", 1),
        ("from urllib import parse\n", 1),
        ("import ftplib, smtplib\n", 1),
        ("import poplib\nimport imaplib\n", 1),
        ("import telnetlib\n", 1),
        ("from xmlrpc.client import ServerProxy\n", 1),
        ("import subprocess as sp\n", 1),
        ("from multiprocessing import Pool\n", 1),
        ("import multiprocessing.pool\n", 1),
        ("from ctypes import CDLL\n", 1),
        ("def f():\n    import pty\n", 2),
    ] {
        fails(src, CheckId::ScriptNetworkOrProcess, line);
    }
}

#[test]
fn a_network_module_is_not_also_reported_as_non_stdlib() {
    let got = found("import socket\n");
    assert_eq!(
        got,
        vec![(Status::Fail, CheckId::ScriptNetworkOrProcess, Some(1))]
    );
}

#[test]
fn module_names_in_comments_and_strings_do_not_count() {
    clean(
        "# import socket\n# from subprocess import run\nX = 'subprocess'\nY = \"import requests\"\n\
         \"\"\"\nimport numpy\nos.system('ls')\n\"\"\"\nZ = f\"{'socket'}\"\n",
    );
}

#[test]
fn forbidden_modules_match_whole_top_level_names_only() {
    // `sockets`, `email` and `sqlite3` are not `socket`, nor in the spec's list.
    clean("import email.utils\nimport sqlite3\nimport selectors\n");
}

// --- os process functions -------------------------------------------------------------------

#[test]
fn os_process_calls_fail_in_every_form() {
    for (src, line) in [
        ("import os\nos.system('ls')\n", 2),
        ("import os\nos.popen('ls')\n", 2),
        ("import os\nos.execv('/bin/ls', ['ls'])\n", 2),
        ("import os\nos.execlp('ls', 'ls')\n", 2),
        ("import os\nos.spawnl(os.P_WAIT, '/bin/ls')\n", 2),
        ("import os\npid = os.fork()\n", 2),
        ("import os\nf = os.popen\n", 2),
        ("import os as o\no.system('ls')\n", 2),
        ("import os.path\nos.system('ls')\n", 2),
        ("from os import system\n", 1),
        ("from os import popen as p\np('ls')\n", 1),
        ("from os import *\n\nsystem('ls')\n", 3),
        ("o = __import__('os')\no.system('ls')\n", 2),
        ("__import__('os').system('ls')\n", 1),
        (
            "import importlib\nimportlib.import_module('os').execv('x', [])\n",
            2,
        ),
        ("import os\nrun = getattr(os, 'system')\n", 2),
        ("import os\nalias = os\nalias.fork()\n", 3),
        (
            "def f():\n    return myos.system('ls')\nimport os as myos\n",
            2,
        ),
        ("import posix\nposix.system('ls')\n", 2),
    ] {
        fails(src, CheckId::ScriptNetworkOrProcess, line);
    }
}

#[test]
fn side_doors_to_sockets_and_processes_fail() {
    // Round 2 (issue 11): private modules, asyncio, process pools, programs run by the
    // standard library, `os` reached through another module or looked up by name.
    for (src, line) in [
        (
            "import _socket
",
            1,
        ),
        (
            "import _posixsubprocess
",
            1,
        ),
        (
            "import asyncio
asyncio.run(asyncio.create_subprocess_exec('ls'))
",
            1,
        ),
        (
            "from concurrent.futures import ProcessPoolExecutor
",
            1,
        ),
        (
            "import socketserver
",
            1,
        ),
        (
            "import nntplib
",
            1,
        ),
        (
            "import webbrowser
",
            1,
        ),
        (
            "import ensurepip
",
            1,
        ),
        (
            "import pydoc
pydoc.pipepager('x', 'sh')
",
            1,
        ),
        (
            "import os
os.posix_spawn('/bin/ls', ['ls'], {})
",
            2,
        ),
        (
            "import os
os.forkpty()
",
            2,
        ),
        (
            "import shutil
shutil.os.system('ls')
",
            2,
        ),
        (
            "import posixpath
posixpath.os.popen('ls')
",
            2,
        ),
        (
            "import sys
sys.modules['os'].system('ls')
",
            2,
        ),
        (
            "import sys
sys.modules.get('os').system('ls')
",
            2,
        ),
        (
            "import os
vars(os)['system']('ls')
",
            2,
        ),
        (
            "import os
os.__dict__['execv']('/bin/ls', [])
",
            2,
        ),
        (
            "import shutil
o = shutil.os
o.system('ls')
",
            3,
        ),
    ] {
        fails(src, CheckId::ScriptNetworkOrProcess, line);
    }
    // What analyses do use stays clean.
    clean(
        "import os, platform, sys
print(platform.python_version(), os.path.join('a', 'b'), sys.argv)
",
    );
}

#[test]
fn bindings_made_after_their_use_still_count() {
    // Each needs more than one walk: the binding comes after a lookup of its name.
    for (src, id, line) in [
        (
            "def f():\n    o.system('ls')\no = os\nimport os\n",
            CheckId::ScriptNetworkOrProcess,
            2,
        ),
        (
            "def f():\n    p.fork()\np = o\no = os\nimport os\n",
            CheckId::ScriptNetworkOrProcess,
            2,
        ),
        (
            "def f():\n    system('ls')\nfrom os import *\n",
            CheckId::ScriptNetworkOrProcess,
            2,
        ),
        (
            "def f():\n    im('socket')\nfrom importlib import import_module as im\n",
            CheckId::ScriptNetworkOrProcess,
            2,
        ),
        (
            "def f():\n    il.import_module('yaml')\nimport importlib as il\n",
            CheckId::ScriptNonStdlibImport,
            2,
        ),
        (
            "def f():\n    q.popen('ls')\n    (q := o)\no = os\nimport os\n",
            CheckId::ScriptNetworkOrProcess,
            2,
        ),
    ] {
        fails(src, id, line);
    }
    // A chain longer than the four binding walks is followed no further.
    let got = found("def f():\n    d.system('ls')\nd = c\nc = b\nb = a\na = os\nimport os\n");
    assert!(
        !got.contains(&(Status::Fail, CheckId::ScriptNetworkOrProcess, Some(2))),
        "{got:?}"
    );
}

#[test]
fn harmless_os_uses_and_lookalikes_are_fine() {
    clean(
        "import os\nimport platform\nos.path.join('a', 'b')\nos.makedirs('x', exist_ok=True)\n\
         os.environ.get('X')\nsystem = platform.system()\nmysys = object()\nmysys.system()\n\
         def popen(x):\n    return x\npopen(1)\nfrom os import path, getcwd\nexecute = 1\n\
         os.path.exists('/mnt/data')\n",
    );
}

#[test]
fn os_names_in_comments_and_strings_do_not_count() {
    clean(
        "import os\n# os.system('rm -rf /')\nCMD = 'os.system'\nDOC = \"from os import system\"\n",
    );
}

#[test]
fn a_star_import_from_os_flags_only_forbidden_names() {
    clean("from os import *\nx = getcwd()\np = path.join('a', 'b')\n");
    clean("from os import *\ndef execute_query(q):\n    return q\nexecute_query(1)\nspawn_count = 2\n");
}

// --- artifact names -------------------------------------------------------------------------

#[test]
fn every_other_artifact_must_be_named_in_a_string_literal() {
    let got = run("import os\nOUT = 'calculated_metrics.csv'\n# unusual_movements.csv\n");
    let missing: Vec<&str> = got
        .iter()
        .filter(|f| f.id == CheckId::ScriptMissingArtifactName)
        .map(|f| f.message.as_str())
        .collect();
    assert_eq!(missing.len(), 4, "{got:?}");
    assert!(
        missing
            .iter()
            .any(|m| m.contains("`unusual_movements.csv`")),
        "a comment does not name a file"
    );
    assert!(!missing.iter().any(|m| m.contains("calculated_metrics")));
}

#[test]
fn artifact_names_count_in_paths_f_strings_concatenations_and_docstrings() {
    let src = "\"\"\"Writes analysis_run.json.\"\"\"\nimport os\n\
               A = '/mnt/data/calculated_metrics.csv'\nB = os.path.join(OUT, 'unusual_movements.csv')\n\
               C = f'{OUT}/financial_trends.svg'\nD = ('investment_' 'analysis.md')\n";
    let got = run(src);
    assert!(got.is_empty(), "{got:?}");
}

#[test]
fn a_longer_file_name_does_not_name_the_artifact() {
    let got = run(
        "A = ['old_calculated_metrics.csv', 'unusual_movements.csv.bak', 'financial_trends.svgz', \
                   'investment_analysis.md', 'analysis_run.json']\n",
    );
    let missing = got
        .iter()
        .filter(|f| f.id == CheckId::ScriptMissingArtifactName)
        .count();
    assert_eq!(missing, 3, "{got:?}");
}

#[test]
fn a_name_split_by_an_interpolation_is_missing() {
    let got = run(
        "import os\nstem = 'calculated_metrics'\nA = f'{stem}.csv'\nB = ['unusual_movements.csv', \
                   'financial_trends.svg', 'investment_analysis.md', 'analysis_run.json']\n",
    );
    assert_eq!(got.len(), 1, "{got:?}");
    assert!(got[0].message.contains("calculated_metrics.csv"));
}

// --- presentation ---------------------------------------------------------------------------

#[test]
fn findings_show_the_line_and_the_offending_text() {
    let got = run(&format!(
        "import csv\n\nimport requests as r  # HTTP{NAMES_ALL}"
    ));
    assert_eq!(got.len(), 1, "{got:?}");
    let f = &got[0];
    assert_eq!(f.location.line, Some(3));
    assert_eq!(f.artifact.as_deref(), Some("analyze_financials.py"));
    assert!(
        f.message.contains("`import requests as r`"),
        "{}",
        f.message
    );
}

#[test]
fn line_numbers_count_crlf_and_lone_cr_line_ends() {
    fails(
        "import csv\r\nimport numpy\r\n",
        CheckId::ScriptNonStdlibImport,
        2,
    );
    fails(
        "import csv\r\rimport numpy\r",
        CheckId::ScriptNonStdlibImport,
        3,
    );
}

#[test]
fn many_findings_of_one_kind_are_capped() {
    let src: String = (0..100).map(|i| format!("import mod{i}\n")).collect();
    let got = run(&format!("{src}{NAMES_ALL}"));
    assert_eq!(got.len(), MAX_FINDINGS_PER_ID);
    assert!(got.last().unwrap().message.contains("80 more"));
}

/// Each case with CPython 3.12.1's own verdict (`ast.parse`), recorded when this test was
/// written: vouch must agree.
#[test]
fn syntax_verdicts_agree_with_cpython_312() {
    let cases: [(&str, &str, bool); 14] = [
        (
            "nested format spec",
            "w=3\nx=1\nprint(f\"{x!r:>{w}}\")\n",
            true,
        ),
        (
            "same quotes in f-string",
            "d={'a':1}\nprint(f\"{d[\"a\"]}\")\n",
            true,
        ),
        (
            "match",
            "match x:\n    case [1, *rest]:\n        pass\n    case {'k': v}:\n        pass\n",
            true,
        ),
        ("walrus", "if (n := 10) > 5:\n    pass\n", true),
        ("type alias", "type X = int\n", true),
        ("generic class", "class A[T]:\n    pass\n", true),
        (
            "except*",
            "try:\n    pass\nexcept* ValueError:\n    pass\n",
            true,
        ),
        ("python 2 print", "print \"x\"\n", false),
        (
            "3.14 except list",
            "try:\n    pass\nexcept A, B:\n    pass\n",
            false,
        ),
        ("3.14 t-string", "x = t\"hi {1}\"\n", false),
        ("module-level return parses", "return 1\n", true),
        (
            "backslash in f-string expression",
            "print(f\"{'\\n'.join(['a'])}\")\n",
            true,
        ),
        (
            "parenthesised context managers",
            "with (open('a') as f, open('b') as g):\n    pass\n",
            true,
        ),
        (
            "inconsistent tabs",
            "if True:\n\tx = 1\n        y = 2\n",
            false,
        ),
    ];
    for (what, src, valid) in cases {
        let syntax = found(src)
            .iter()
            .any(|(_, id, _)| *id == CheckId::ScriptSyntax);
        assert_eq!(!syntax, valid, "{what}: {src}");
    }
}
