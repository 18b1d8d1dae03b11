//! The check families. Each family reads its artifact through its own parser, compares what it
//! parsed with the recomputed truth, and emits findings; a family never parses another's artifact.

pub mod consistency;
pub mod manifest;
pub mod memo;
pub mod metrics;
pub mod movements;
pub mod script;
pub mod source;
pub mod svg;

use crate::bundle::{Artifact, Bundle};
use crate::recompute::Truth;
use crate::report::CheckId;
use crate::report::Finding;
use crate::source::Statements;
use crate::spec::Spec;

/// What every family may read.
pub struct Context<'a> {
    pub spec: &'a Spec,
    pub stmts: &'a Statements,
    /// `None` when the source's years are unusable (nothing can be recomputed).
    pub truth: Option<&'a Truth>,
    pub bundle: &'a Bundle,
    /// The manifest's `input_filename` when it names the source otherwise than the user's copy
    /// is named: that mismatch is one finding (`manifest.input_filename`), and citations of the
    /// manifest's name are then judged as citations of the source.
    pub source_alias: Option<&'a str>,
}

impl<'a> Context<'a> {
    /// The source years, when valid.
    pub fn years(&self) -> Option<&'a [i32]> {
        self.truth.map(|t| t.years.as_slice())
    }

    /// An artifact's text; see [`artifact_text`].
    pub fn text(
        &self,
        name: &str,
        unreadable_id: CheckId,
        out: &mut Vec<Finding>,
    ) -> Option<&'a str> {
        artifact_text(self.bundle, name, unreadable_id, out)
    }
}

/// The 1-based line of byte `at` in `text`.
pub fn line_at(text: &str, at: usize) -> usize {
    text[..at].matches('\n').count() + 1
}

/// An artifact's text, or a `<family>.unreadable` finding when it is not UTF-8. `None` without a
/// finding when the artifact is absent (bundle.* already reported it).
pub fn artifact_text<'a>(
    bundle: &'a Bundle,
    name: &str,
    unreadable_id: CheckId,
    out: &mut Vec<Finding>,
) -> Option<&'a str> {
    let artifact: &'a Artifact = bundle.get(name)?;
    match artifact.text() {
        // No CSV, Markdown, SVG, JSON or Python text holds a NUL (XML, JSON and CPython refuse
        // it); one means binary content, which no parser should be asked to read.
        Ok(t) if t.contains('\0') => {
            let line = line_at(t, t.find('\0').unwrap_or(0));
            out.push(
                Finding::fail(
                    unreadable_id,
                    format!("`{name}` holds a NUL byte (line {line}): it is not a text file"),
                )
                .artifact(name)
                .line(line),
            );
            None
        }
        Ok(t) => Some(t),
        Err(e) => {
            out.push(
                Finding::fail(
                    unreadable_id,
                    format!(
                        "`{name}` is not valid UTF-8 (first bad byte at offset {})",
                        e.valid_up_to()
                    ),
                )
                .artifact(name),
            );
            None
        }
    }
}

/// Declare a family's rule table: one entry per check id, with the four parts of its doc —
/// `meaning` (what it checks), `why` (why it matters), `fix` (how to fix it); the example is the
/// finding its defect fixture produces (`docs/check-examples.md`).
///
/// ```text
/// checks![Family::X;
///     CheckId::XName, Fail, "what it checks",
///         why: "why it matters",
///         fix: "how to fix it";
/// ]
/// ```
#[macro_export]
macro_rules! checks {
    ($family:expr; $($id:path, $sev:ident, $meaning:literal, why: $why:literal, fix: $fix:literal;)*) => {
        &[$($crate::report::registry::CheckDef {
            id: $id,
            family: $family,
            severity: $crate::report::Status::$sev,
            meaning: $meaning,
            why: $why,
            fix: $fix,
        },)*]
    };
}
