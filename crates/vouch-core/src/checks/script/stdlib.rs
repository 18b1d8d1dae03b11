//! CPython 3.12's `sys.stdlib_module_names`, committed as data in
//! `verifiers/python312-stdlib.txt` (the file's header says how it was produced) and embedded.

use std::collections::HashSet;
use std::sync::OnceLock;

const LIST: &str = include_str!("../../../../../verifiers/python312-stdlib.txt");

fn names() -> &'static HashSet<&'static str> {
    static NAMES: OnceLock<HashSet<&'static str>> = OnceLock::new();
    NAMES.get_or_init(|| {
        LIST.lines()
            .map(str::trim)
            .filter(|l| !l.is_empty() && !l.starts_with('#'))
            .collect()
    })
}

/// Whether a top-level module name is in CPython 3.12's standard library.
pub fn is_stdlib(top: &str) -> bool {
    names().contains(top)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn holds_exactly_the_312_names() {
        assert_eq!(names().len(), 300);
        for present in [
            "os",
            "csv",
            "json",
            "__future__",
            "tomllib",
            "_pydatetime",
            "xml",
            "urllib",
        ] {
            assert!(is_stdlib(present), "{present}");
        }
    }

    #[test]
    fn modules_removed_in_312_are_not_stdlib() {
        for gone in ["asynchat", "asyncore", "distutils", "imp", "smtpd"] {
            assert!(!is_stdlib(gone), "{gone}");
        }
    }

    #[test]
    fn third_party_and_submodule_names_are_not_top_level_stdlib() {
        for name in [
            "numpy",
            "pandas",
            "requests",
            "os.path",
            "setuptools",
            "pip",
            "",
        ] {
            assert!(!is_stdlib(name), "{name}");
        }
    }
}
