//! File and year citations (contract §5 "Citations"): every cited file's base name must be the
//! source CSV or one of the six artifacts; a cited year outside the source's years warns (the
//! error for a *number* tied to such a year is `tied`'s).

use crate::checks::Context;
use crate::read::memo::parse::Doc;
use crate::read::memo::vocabulary::Word;
use crate::read::memo::Scan;
use crate::report::CheckId;
use crate::report::Finding;
use std::collections::BTreeSet;

/// Whether a cited file name (path and upload prefix allowed) is one the memo may cite.
pub fn known_file(ctx: &Context, name: &str) -> bool {
    let base = crate::read::memo::years::base_name(name);
    crate::names::same_upload(name, &ctx.stmts.file_name)
        || ctx
            .source_alias
            .is_some_and(|alias| crate::names::same_upload(name, alias))
        || ctx.spec.artifacts.all().contains(&base)
}

/// The last three words of `before`, nearest first. Three words fit in its last 48 bytes; the
/// rest of the paragraph is not read.
fn last_words(before: &str) -> Vec<Word> {
    let mut from = before.len().saturating_sub(48);
    while !before.is_char_boundary(from) {
        from += 1;
    }
    let mut ws = crate::read::memo::vocabulary::words(&before[from..]);
    ws.reverse();
    ws.truncate(3);
    ws
}

/// The words of the first `bytes` bytes of `after` (cut back to a character boundary).
fn first_words(after: &str, bytes: usize) -> Vec<Word> {
    let mut to = after.len().min(bytes);
    while !after.is_char_boundary(to) {
        to -= 1;
    }
    crate::read::memo::vocabulary::words(&after[..to])
}

/// Whether the words right before a year say there is none of it (`no FY2019 data`, `without
/// a FY2019 base`; what comes after is [`said_absent_after`]).
fn said_absent(before: &str) -> bool {
    last_words(before).iter().any(|w| {
        matches!(
            w.lower.as_str(),
            "no" | "not" | "without" | "lacks" | "lack" | "lacking" | "absent" | "missing"
        )
    })
}

/// Whether the words right after a year say the data lack it (`FY2019 is not in the file`,
/// `FY2020 is not available`, `2019 data are missing`): a verb of being, then `not` and a word of
/// presence, or a word of absence. A claim about the year (`2026 may not repeat`) is not one.
fn said_absent_after(after: &str) -> bool {
    let ws = first_words(after, 40);
    let w: Vec<&str> = ws.iter().take(5).map(|w| w.lower.as_str()).collect();
    let be = |x: &str| matches!(x, "is" | "was" | "are" | "were");
    let absent = |x: &str| matches!(x, "missing" | "absent" | "unavailable" | "excluded");
    let present = |x: &str| {
        matches!(
            x,
            "in" | "available"
                | "included"
                | "covered"
                | "provided"
                | "present"
                | "part"
                | "reported"
        )
    };
    // Skip one noun of data (`2019 data are missing`, `FY2020 balances are not in the file`).
    let start = usize::from(w.first().is_some_and(|x| {
        matches!(
            *x,
            "data" | "figures" | "balances" | "values" | "numbers" | "statements" | "row"
        )
    }));
    match &w.get(start..).unwrap_or_default() {
        [b, n, p, ..] if be(b) && *n == "not" && present(p) => true,
        [b, a, ..] if be(b) && absent(a) => true,
        _ => false,
    }
}

/// Whether the words around a file name say it is a name pattern, not a file (`does not end in
/// the expected financial_statements.csv suffix`, `a file matching *_statements.csv`, `named
/// like x.csv`): the instructions' own pattern quoted is no citation.
fn names_a_pattern(before: &str, after: &str) -> bool {
    let ws = last_words(before);
    let last: Vec<&str> = ws.iter().map(|w| w.lower.as_str()).collect();
    let before_cue = last.windows(2).any(|w| {
        matches!(w[1], "end" | "ends" | "ending" | "ended") && matches!(w[0], "in" | "with")
    }) || last.iter().any(|w| {
        matches!(
            *w,
            "matching" | "match" | "matches" | "pattern" | "suffix" | "like"
        )
    });
    let next = first_words(after, 24);
    let after_cue = next.first().is_some_and(|w| {
        matches!(
            w.lower.as_str(),
            "suffix" | "pattern" | "convention" | "naming" | "glob" | "ending"
        )
    });
    before_cue || after_cue
}

pub fn check(ctx: &Context, doc: &Doc, scans: &[Scan], out: &mut Vec<Finding>) {
    let mut files: Vec<(String, usize, &str)> = Vec::new();
    let mut years: BTreeSet<(usize, i32)> = BTreeSet::new();
    let source_years = ctx.years().filter(|y| !y.is_empty());
    let in_range = |y: i32| source_years.is_none_or(|r| r.contains(&y));
    for (b, s) in doc.blocks.iter().zip(scans) {
        files.extend(
            s.files
                .iter()
                .filter(|f| !names_a_pattern(&b.text[..f.start], &b.text[f.end..]))
                .map(|f| (f.name.clone(), b.line_at(f.start), "text")),
        );
        files.extend(
            s.link_files
                .iter()
                .map(|(f, l)| (f.clone(), *l, "link destination")),
        );
        // `the file has no FY2019 data`: a year said to be absent is not cited as data. Only a
        // year outside the source's can be reported, so only such a year's words are read.
        years.extend(
            s.years
                .iter()
                .filter(|y| !in_range(y.year))
                .filter(|y| {
                    !said_absent(&b.text[..y.start]) && !said_absent_after(&b.text[y.end..])
                })
                .map(|y| (b.line_at(y.start), y.year)),
        );
        years.extend(s.link_years.iter().map(|(y, l)| (*l, *y)));
    }
    let mut seen = BTreeSet::new();
    for (name, line, whence) in files {
        if known_file(ctx, &name) || !seen.insert((name.clone(), line)) {
            continue;
        }
        let mut allowed = vec![ctx.stmts.file_name.as_str()];
        allowed.extend(ctx.spec.artifacts.all());
        out.push(
            Finding::fail(
                CheckId::MemoUnknownFile,
                format!(
                    "the memo cites `{name}` (in its {whence}), which is neither the source file nor an artifact \
                     of this run ({}); a citation must point at a file the reader has",
                    allowed.join(", ")
                ),
            )
            .line(line),
        );
    }
    if let Some(range) = ctx.years().filter(|y| !y.is_empty()) {
        let (first, last) = (range[0], range[range.len() - 1]);
        for (line, year) in years {
            if !range.contains(&year) {
                out.push(
                    Finding::warn(
                        CheckId::MemoYearOutOfRange,
                        format!(
                            "the memo cites {year}, outside the source's years {first}–{last}; the data say nothing \
                             about that year"
                        ),
                    )
                    .line(line),
                );
            }
        }
    }
}
