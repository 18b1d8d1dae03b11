//! `script.*`: the agent's `analyze_financials.py` (contract §6). It must parse as Python 3.12,
//! import only CPython 3.12's standard library, use no network or process access, and name the
//! five other artifacts in string literals.
//!
//! [`python`] parses the script with a real Python parser and collects imports, references to
//! `os` and string literals with their lines; this module only judges them against the spec's
//! `[script]` section and [`stdlib`]. Comments and strings are never code here: a comment
//! `# import socket` or a string `"subprocess"` is not an import.

use crate::report::CheckId;
pub mod stdlib;

use crate::read::python;

use crate::checks::Context;
use crate::report::registry::CheckDef;
use crate::report::{Family, Finding};
use crate::spec::Spec;
use python::{Import, ImportForm, OsVia, Reading, Script, Span};

pub const CHECKS: &[CheckDef] = crate::checks![Family::Script;
    CheckId::ScriptUnreadable, Fail, "The script is not valid UTF-8 (or holds a NUL byte).",
        why: "`analyze_financials.py` is not UTF-8 text (or holds a NUL byte), so it is not the plain Python source asked for and none of its imports or artifact names could be checked.",
        fix: "Save the script as UTF-8 Python source with nothing binary in it.";
    CheckId::ScriptSyntax, Fail, "The script does not parse as Python 3.12 source (the first error's line is shown).",
        why: "A script that does not parse as Python `script.python_version` cannot have produced the artifacts as it stands, and its imports were not checked.",
        fix: "Fix the error at the line shown, avoid syntax newer than `script.python_version`, and confirm with `python3.12 -m py_compile analyze_financials.py`.";
    CheckId::ScriptNonStdlibImport, Fail, "An import names a module outside CPython 3.12's `sys.stdlib_module_names`.",
        why: "The task allows the standard library only and the sandbox has no third-party packages, so a script importing one (e.g. `pandas`) could not run there as shipped.",
        fix: "Replace the import with standard-library code (`csv`, `decimal`, `json`, `statistics`); the allowed names are CPython 3.12's `sys.stdlib_module_names`.";
    CheckId::ScriptNetworkOrProcess, Fail, "A network or process module is imported, or `os`'s process functions (system, popen, exec*, spawn*, posix_spawn*, fork*) are referenced, however `os` is reached.",
        why: "Network or process access (e.g. `socket`, `subprocess`, `os.system`) lets the script send data out or run other programs, breaking the network-less sandbox the analysis must run in.",
        fix: "Remove the import or call and do the work in plain Python; the forbidden names are `script.forbidden_modules` and `script.forbidden_os_calls` in the spec.";
    CheckId::ScriptRelativeImport, Fail, "A relative import (`from . import x`): the script must be one self-contained file.",
        why: "A relative import needs other files that are not in the bundle, so the script is not self-contained and the run cannot be reproduced from it.",
        fix: "Inline the imported code into `analyze_financials.py` and delete the relative import.";
    CheckId::ScriptDynamicImport, Warn, "`__import__` or `importlib.import_module` with a module name that is not a string literal: what it imports cannot be checked.",
        why: "`__import__` or `importlib.import_module` with a computed name hides what is imported, so vouch cannot tell whether it stays in the standard library or reaches the network.",
        fix: "Use plain `import` statements, or pass the module name as a string literal.";
    CheckId::ScriptMissingArtifactName, Fail, "One of the five other artifacts' file names appears in no string literal of the script.",
        why: "If no string literal of the script names an artifact's file, the script probably did not write it, so the bundle's copy may come from elsewhere (hand-edited or another tool).",
        fix: "Have the script write that artifact itself, naming it in a string literal such as `'/mnt/data/calculated_metrics.csv'`.";
    CheckId::ScriptReproducible, Fail, "`--reexecute`: the script, re-run under bubblewrap on the source, writes a metrics or movements CSV value or a manifest contract field that differs from the bundle's (or does not write the file).",
        why: "Under `--reexecute`, the script re-run on the source writes other metrics or movements values or manifest contract fields (or no file), so the bundle was edited afterwards or came from another script or source.",
        fix: "Regenerate all artifacts with one run of the final script on the source, do not edit its outputs by hand, and remove anything nondeterministic from the values.";
    CheckId::ScriptReproducibleBytes, Warn, "`--reexecute`: the re-run writes a memo or chart whose sha256 differs from the bundle's.",
        why: "Under `--reexecute`, the re-run writes a memo or chart with another sha256; this may be an embedded date or id, but an edited memo or a chart drawn elsewhere looks the same.",
        fix: "Make memo and chart output deterministic (no timestamps or random ids; for matplotlib set `svg.hashsalt` and `metadata={'Date': None}`) and ship the files of the final run.";
    CheckId::ScriptReexecutionFailed, Fail, "`--reexecute`: the script, re-run under bubblewrap, fails, is killed by a limit (CPU, memory, file size, processes) or times out.",
        why: "Under `--reexecute`, the script fails, times out or hits a CPU, memory, file-size or process limit in the sandbox (or the bundle has no readable script), so it cannot have produced the bundle as it stands.",
        fix: "Run the script in a clean directory holding only the source, with no network, and fix the error its standard error shows (quoted in the finding); keep it within the limits.";
    CheckId::ScriptReexecuted, Info, "`--reexecute`: the script was re-run under bubblewrap; which artifacts it reproduced exactly.",
        why: "Reported so the reader knows the script was re-run under bubblewrap on a copy of the source and which artifacts it reproduced exactly; differences are reported as their own findings.",
        fix: "Nothing to fix: this records that the re-run happened; act on the `script.reproducible*` findings, if any.";
];

/// The names `from os import *` binds that could match a `forbidden_os_calls` pattern (CPython
/// 3.12: `[n for n in dir(os) if re.match(r"system|popen|fork|exec|spawn", n)]`). After a star
/// import a bare name is `os`'s only if `os` has it: a script's own `execute_query` is not.
const OS_PROCESS_NAMES: [&str; 22] = [
    "execl",
    "execle",
    "execlp",
    "execlpe",
    "execv",
    "execve",
    "execvp",
    "execvpe",
    "fork",
    "forkpty",
    "popen",
    "posix_spawn",
    "posix_spawnp",
    "spawnl",
    "spawnle",
    "spawnlp",
    "spawnlpe",
    "spawnv",
    "spawnve",
    "spawnvp",
    "spawnvpe",
    "system",
];

/// Findings of one id beyond this many are summarised in the last one.
const MAX_FINDINGS_PER_ID: usize = 20;

pub fn check(ctx: &Context, out: &mut Vec<Finding>) {
    check_bundle(ctx.spec, ctx.bundle, out);
}

/// The script family needs only the bundle (not the source): `verify_loading` starts it before
/// the source is read.
pub fn check_bundle(spec: &Spec, bundle: &crate::bundle::Bundle, out: &mut Vec<Finding>) {
    check_bundle_shared(spec, bundle, None, out);
}

/// [`check_bundle`], reading the script through a parse cache shared with other scripts (the
/// findings are the same; see [`python::ParseCache`]).
pub fn check_bundle_shared(
    spec: &Spec,
    bundle: &crate::bundle::Bundle,
    cache: Option<&python::ParseCache>,
    out: &mut Vec<Finding>,
) {
    let name = spec.artifacts.script.as_str();
    if let Some(text) = super::artifact_text(bundle, name, CheckId::ScriptUnreadable, out) {
        judge_with(spec, text, cache, out);
    }
}

/// All script checks on the script's text.
pub fn judge(spec: &Spec, text: &str, out: &mut Vec<Finding>) {
    judge_with(spec, text, None, out);
}

fn judge_with(spec: &Spec, text: &str, cache: Option<&python::ParseCache>, out: &mut Vec<Finding>) {
    let version = spec.script.python_version.as_str();
    let mut found = Findings::new(spec.artifacts.script.clone());
    let reading = match cache {
        Some(c) => python::read_shared(text, version, c),
        None => python::read(text, version),
    };
    match reading {
        Reading::Invalid(problems) => {
            let (line, shown, message) = match problems.first() {
                Some(p) => (p.at.line, p.at.text.clone(), p.message.clone()),
                None => (1, String::new(), "the parser rejected it".to_string()),
            };
            let more = match problems.len() {
                0 | 1 => String::new(),
                n => format!(" ({} more syntax errors follow)", n - 1),
            };
            found.push(
                Finding::fail(
                    CheckId::ScriptSyntax,
                    format!(
                        "the script does not parse as Python {version}: {message}, at `{shown}`{more}; \
                         a script that does not run cannot have produced the artifacts, and its imports \
                         were not checked"
                    ),
                ),
                Some(line),
            );
        }
        Reading::Valid(script) => judge_script(spec, &script, &mut found),
    }
    out.extend(found.finish());
}

fn judge_script(spec: &Spec, script: &Script, found: &mut Findings) {
    let version = spec.script.python_version.as_str();
    for p in &script.version_problems {
        found.push(
            Finding::fail(
                CheckId::ScriptSyntax,
                format!(
                    "`{}` is not Python {version} syntax: {}",
                    p.at.text, p.message
                ),
            ),
            Some(p.at.line),
        );
    }
    for import in &script.imports {
        judge_import(spec, import, found);
    }
    for at in &script.dynamic_imports {
        found.push(
            Finding::warn(
                CheckId::ScriptDynamicImport,
                format!(
                    "`{}` imports a module whose name is not a string literal; vouch cannot tell \
                     whether it is in the standard library or opens the network",
                    at.text
                ),
            ),
            Some(at.line),
        );
    }
    for r in &script.os_references {
        let Some(pattern) = forbidden_os_call(spec, &r.attr) else {
            continue;
        };
        if r.via == OsVia::StarImport && !OS_PROCESS_NAMES.contains(&r.attr.as_str()) {
            continue;
        }
        let how = match r.via {
            OsVia::Attribute => format!("`os.{}` is referenced", r.attr),
            OsVia::FromImport => format!("`{}` is imported from `os`", r.attr),
            OsVia::StarImport => format!("`{}` is used after `from os import *`", r.attr),
            OsVia::Getattr => format!("`os.{}` is looked up by name", r.attr),
        };
        found.push(
            Finding::fail(
                CheckId::ScriptNetworkOrProcess,
                format!(
                    "{how} in `{}` (forbidden: `{pattern}`); the script must not run or fork processes",
                    r.at.text
                ),
            ),
            Some(r.at.line),
        );
    }
    judge_artifact_names(spec, script, found);
}

fn judge_import(spec: &Spec, import: &Import, found: &mut Findings) {
    let at: &Span = &import.at;
    let shown = describe(import);
    if import.level > 0 {
        found.push(
            Finding::fail(
                CheckId::ScriptRelativeImport,
                format!(
                    "{shown} is a relative import in `{}`; the script must be a single file that \
                     imports only the standard library",
                    at.text
                ),
            ),
            Some(at.line),
        );
        return;
    }
    let top = import.top();
    if spec.script.forbidden_modules.iter().any(|m| m == top) {
        found.push(
            Finding::fail(
                CheckId::ScriptNetworkOrProcess,
                format!(
                    "{shown} in `{}` gives network or process access (`{top}`); the analysis runs \
                     in a network-less sandbox and must not need either",
                    at.text
                ),
            ),
            Some(at.line),
        );
    } else if !stdlib::is_stdlib(top) {
        found.push(
            Finding::fail(
                CheckId::ScriptNonStdlibImport,
                format!(
                    "{shown} in `{}`: `{top}` is not in CPython {}'s standard library \
                     (sys.stdlib_module_names); the task allows the standard library only",
                    at.text, spec.script.python_version
                ),
            ),
            Some(at.line),
        );
    }
}

/// How an import is named in a message.
fn describe(import: &Import) -> String {
    let dots = ".".repeat(import.level as usize);
    match import.form {
        ImportForm::Import => format!("`import {}`", import.module),
        ImportForm::From => format!(
            "`from {dots}{} import {}`",
            import.module,
            import.names.join(", ")
        ),
        ImportForm::DunderImport => format!("`__import__(\"{dots}{}\")`", import.module),
        ImportForm::ImportModule => format!("`import_module(\"{dots}{}\")`", import.module),
    }
}

/// The spec pattern an `os` attribute matches (`exec*` matches `execv`), if any.
fn forbidden_os_call<'s>(spec: &'s Spec, attr: &str) -> Option<&'s str> {
    spec.script
        .forbidden_os_calls
        .iter()
        .find(|p| match p.strip_suffix('*') {
            Some(prefix) => attr.starts_with(prefix),
            None => attr == p.as_str(),
        })
        .map(String::as_str)
}

fn judge_artifact_names(spec: &Spec, script: &Script, found: &mut Findings) {
    let own = spec.artifacts.script.as_str();
    for name in spec.artifacts.all().into_iter().filter(|n| *n != own) {
        if !script.literals.iter().any(|l| names_file(&l.value, name)) {
            found.push(
                Finding::fail(
                    CheckId::ScriptMissingArtifactName,
                    format!(
                        "no string literal in the script names `{name}`; the script is meant to \
                         write every artifact, so the bundle's `{name}` may not come from it"
                    ),
                ),
                None,
            );
        }
    }
}

/// Whether `literal` contains the file name `name` as a whole file name: `/mnt/data/x.csv` names
/// `x.csv`, `old_x.csv` and `x.csv.bak` do not.
fn names_file(literal: &str, name: &str) -> bool {
    let bytes = literal.as_bytes();
    literal.match_indices(name).any(|(i, m)| {
        let before_ok = i == 0 || !matches!(bytes[i - 1], b'a'..=b'z' | b'A'..=b'Z' | b'0'..=b'9' | b'_' | b'-' | b'.');
        let after = &bytes[i + m.len()..];
        let after_ok = match after {
            [] => true,
            [b'.', c, ..] => !c.is_ascii_alphanumeric(),
            [c, ..] => !c.is_ascii_alphanumeric() && *c != b'_',
        };
        before_ok && after_ok
    })
}

/// The family's findings, with the artifact and line set, at most [`MAX_FINDINGS_PER_ID`] per id.
struct Findings {
    artifact: String,
    list: Vec<Finding>,
    dropped: Vec<(CheckId, usize)>,
}

impl Findings {
    fn new(artifact: String) -> Findings {
        Findings {
            artifact,
            list: Vec::new(),
            dropped: Vec::new(),
        }
    }

    fn push(&mut self, finding: Finding, line: Option<usize>) {
        let id = finding.id;
        if self.list.iter().filter(|f| f.id == id).count() >= MAX_FINDINGS_PER_ID {
            match self.dropped.iter_mut().find(|(d, _)| *d == id) {
                Some((_, n)) => *n += 1,
                None => self.dropped.push((id, 1)),
            }
            return;
        }
        let mut finding = finding.artifact(self.artifact.clone());
        if let Some(line) = line {
            finding = finding.line(line);
        }
        self.list.push(finding);
    }

    fn finish(mut self) -> Vec<Finding> {
        for (id, n) in self.dropped {
            if let Some(last) = self.list.iter_mut().rev().find(|f| f.id == id) {
                last.message
                    .push_str(&format!(" ({n} more like this not shown)"));
            }
        }
        self.list
    }
}

#[cfg(test)]
mod tests;
