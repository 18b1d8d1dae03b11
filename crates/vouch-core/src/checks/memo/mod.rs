//! `memo.*`: the investment memo (contract §5).
//!
//! The memo is read by [`crate::read::memo`] (blocks with line numbers; citations, years,
//! numbers, names and the claims its clauses make). The checks here — [`sections`], [`kpi`],
//! [`citations`], [`evidence`], [`tied`] — compare what was read with the spec and the
//! recomputed truth. Every finding names the memo line it is about.

use crate::report::CheckId;
pub mod citations;
pub mod evidence;
pub mod kpi;
pub mod sections;
pub mod tied;

use crate::read::memo::{claims, parse, scan, Scan};

use crate::checks::metrics::MetricsReading;
use crate::checks::Context;
use crate::numbers::{Printed, Scale};
use crate::report::registry::CheckDef;
use crate::report::{Family, Finding, Location};
use parse::Doc;

pub const CHECKS: &[CheckDef] = crate::checks![Family::Memo;
    CheckId::MemoUnreadable, Fail, "the memo is not UTF-8 text (or holds a NUL byte)",
        why: "`investment_analysis.md` is not UTF-8 text (or holds a NUL byte), so no section, KPI or number in the memo was checked, though the memo is what a decision is taken on.",
        fix: "Write the memo as UTF-8 text (`encoding='utf-8'`) with nothing binary in it.";
    CheckId::MemoTooComplex, Fail, "the memo nests block quotes or lists deeper than 64 levels (it was not read further), or holds more than 20,000 numbers (none was judged)",
        why: "Block quotes or lists nested over 64 levels stop vouch reading the memo, and over 20,000 numbers leaves all of them unjudged, so the memo's claims go unverified; no real memo needs either.",
        fix: "Flatten the deep nesting, and move bulk figures to the CSV artifacts so the memo stays a readable document with a few hundred numbers at most.";
    CheckId::MemoMissingSection, Fail, "a required section has no heading",
        why: "A required section without a heading means that part of the analysis (e.g. bear case, data limitations) is missing or cannot be found, so a reader may decide without it.",
        fix: "Add a Markdown heading (ATX `##` or setext, any level) whose text is the section name from `memo.sections`, followed by its content.";
    CheckId::MemoSectionOrder, Warn, "a required section comes before one the contract puts earlier",
        why: "A section out of the contract's order makes the memo harder to follow and compare across runs; a reader looking in the expected place may miss it.",
        fix: "Move the section so the headings follow the order of `memo.sections`.";
    CheckId::MemoDuplicateSection, Warn, "a required section's heading appears twice; the first is read as the section",
        why: "Two headings for one section leave the reader unsure which holds the analysis; vouch reads only the first as the section.",
        fix: "Merge the two under one heading, or rename the second so it is not a required section name.";
    CheckId::MemoHeadingLookalike, Warn, "a bold or plain line reads like a section name but is not a Markdown heading",
        why: "A bold or plain line (or a list item) that reads like a section name is not a heading, so readers, tools and vouch do not find the section there and may report it missing.",
        fix: "Turn the line into a Markdown heading, e.g. `## Conclusion` instead of `**Conclusion**`.";
    CheckId::MemoSectionTooShort, Fail, "a required section holds fewer than the minimum number of words",
        why: "A section with fewer than `memo.min_section_words` words is a placeholder, not analysis: the reader gets a heading without the substance the contract asks for.",
        fix: "Write at least `memo.min_section_words` words of real content under that heading (table cells count; pipes and rule rows do not).";
    CheckId::MemoKpiTableMissing, Fail, "the KPI section holds no table with years as columns or rows",
        why: "Without a table with years as columns or rows in the KPI section, the key figures cannot be read or checked year by year, and the KPI-versus-metrics consistency check cannot run.",
        fix: "Put a Markdown table in the `memo.kpi_section` section, one row per metric and one column per source year (or the transpose), labelled with metric names.";
    CheckId::MemoKpiUnmatchedLabel, Info, "a KPI table label matches no metric or line item",
        why: "Reported because a KPI table label names no contract metric or source line item, so vouch did not check its values; a reader should not take them as verified.",
        fix: "Nothing to fix if the row is deliberate. To have it checked, label it with a metric id or synonym or a source column name (e.g. `Net margin`, `Revenue`).";
    CheckId::MemoKpiValue, Fail, "a KPI table value disagrees with the recomputed value (warn within one unit of its last digit)",
        why: "A KPI table value more than one unit of its last digit from the recomputed value misstates a key figure in the memo's summary table, the one readers quote most; within one unit it warns.",
        fix: "Fill the KPI table from the same computed values the script writes to `calculated_metrics.csv` (the finding shows vouch's value and scale), rounded correctly.";
    CheckId::MemoKpiUndefined, Fail, "a KPI table shows a number where the value is undefined",
        why: "A number in the KPI table where the value is undefined (first year of a growth or average-based ratio, missing input, zero denominator) presents an invented figure as a key metric.",
        fix: "Leave that cell blank or write a blank token from `names.blanks` (e.g. `n/a`).";
    CheckId::MemoKpiNotMeaningful, Info, "a KPI table cell where the value is not meaningful (blank or the arithmetic value accepted)",
        why: "Reported because the metric's denominator or base is negative that year, so its value is not meaningful; the KPI cell is blank or holds the arithmetic value, both accepted.",
        fix: "Nothing to fix. Consider stating in the memo why the ratio is not meaningful for that year.";
    CheckId::MemoKpiNotANumber, Warn, "a KPI table cell of a matched label is neither a number nor a blank",
        why: "A KPI cell under a recognised label holding words (e.g. `about 71%`) cannot be checked, so the key table gives the reader a vague, unverified figure.",
        fix: "Print a plain figure (`71.2%`, `0.712`, `1.53x`, `$1,234`) or a blank token in the cell, and put commentary outside the table.";
    CheckId::MemoImprecise, Warn, "a KPI ratio or multiple is printed so coarsely that its interval is wider than `memo.kpi_max_relative_interval` of its magnitude",
        why: "A KPI ratio or multiple so coarse that its interval is wider than `memo.kpi_max_relative_interval` of its size (e.g. `4%` for 3.6%) cannot tell plausible values apart, so a wrong figure can pass.",
        fix: "Print more digits (e.g. `3.6%`, `0.98x`) so the printed interval stays within `memo.kpi_max_relative_interval` of the value.";
    CheckId::MemoMissingEvidence, Fail, "an evidence topic is not discussed in a paragraph that cites a source year and a file",
        why: "An evidence topic (receivables, deferred revenue, stock compensation, capex, interest expense) is never discussed together with a source year and a file, so the reader cannot trace that claim to the data.",
        fix: "Discuss the topic in a paragraph, list item or table row that also names a source year and a file, e.g. `calculated_metrics.csv`; topics and their terms are in `memo.evidence`.";
    CheckId::MemoUnknownFile, Fail, "a cited file name is neither the source CSV nor one of the six artifacts",
        why: "Citing a file that is neither the source CSV nor one of the six artifacts (e.g. a 10-K PDF) points the reader at evidence they do not have and vouch did not check.",
        fix: "Cite only the source CSV by its file name and the six artifacts (a path or upload prefix is fine), or remove the citation.";
    CheckId::MemoYearOutOfRange, Warn, "a cited year is outside the source's years",
        why: "The memo cites a year outside the source's years, which hints at claims the data cannot support (a forecast, a typo); a year alone claims no figure, so it only warns.",
        fix: "Correct the year, or make clear the data lack it (e.g. `no FY2019 data`).";
    CheckId::MemoNumberOutOfRange, Fail, "a number is tied to a year the source does not contain",
        why: "A figure tied to a year the source does not contain (e.g. revenue in 2026) cannot come from the data, so the memo presents a projection or an error as fact.",
        fix: "Remove the figure, or correct its year to one in the source CSV.";
    CheckId::MemoContradictedNumber, Fail, "a number tied with certainty to a metric, line item or ratio and a year matches none of its admissible values (value, prior value, change, difference)",
        why: "A number the memo ties with certainty to a metric or line item and a year matches none of its admissible values (value, prior value, change, difference), so the prose misstates the data; within one unit it warns.",
        fix: "Correct the number to the recomputed value the finding lists, or fix the item or year its clause names so the number is attributed to what it measures.";
    CheckId::MemoUnverifiedNumber, Info, "a number vouch cannot tie with certainty to one item and year (an undefined quantity, an aggregate, no item or year named); counted, never a failure",
        why: "Reported so the reader sees how much of the memo went unchecked: vouch could not tie this number with certainty to one item and year (an aggregate, an undefined quantity, no item or year named).",
        fix: "Nothing to fix. To have a figure verified, name its metric or line item and one source year in the same clause.";
];

/// A value printed in the memo's KPI table, matched to a metric.
#[derive(Clone, Debug)]
pub struct KpiCell {
    /// Spec metric index.
    pub metric: usize,
    /// Year index into the truth's years.
    pub t: usize,
    pub printed: Printed,
    /// The scale the value was read at.
    pub scale: Scale,
    pub location: Location,
}

#[derive(Clone, Debug, Default)]
pub struct MemoReading {
    pub kpi: Vec<KpiCell>,
    /// The memo's numbers (KPI cells included): verified, contradicted, unverified.
    pub coverage: crate::report::Coverage,
}

/// A short quote of a sentence for messages.
pub fn quote(s: &str) -> String {
    // Built word by word and stopped at the limit: a sentence may be the whole memo.
    const LIMIT: usize = 140;
    let mut out = String::new();
    let mut chars = 0;
    let words = s.split_whitespace();
    for (i, w) in words.enumerate() {
        let sep = (i > 0).then_some(' ');
        for c in sep.into_iter().chain(w.chars()) {
            if chars == LIMIT {
                out.push('…');
                return out;
            }
            out.push(c);
            chars += 1;
        }
    }
    out
}

/// Most numbers judged in one memo (a real memo has a few hundred).
pub const MAX_NUMBERS: usize = 20_000;

pub fn check(ctx: &Context, metrics: &MetricsReading, out: &mut Vec<Finding>) -> MemoReading {
    let name = ctx.spec.artifacts.memo.clone();
    let Some(text) = ctx.text(&name, CheckId::MemoUnreadable, out) else {
        return MemoReading::default();
    };
    // A lone `\r` ends a line for the parser; the reader's lines must end there too.
    let normalised = parse::normalise_line_ends(text);
    let text: &str = &normalised;
    let (depth, line) = parse::nesting_depth(text);
    if depth > parse::MAX_NESTING {
        out.push(
            Finding::fail(
                CheckId::MemoTooComplex,
                format!(
                    "the memo nests block quotes or lists {depth} levels deep (limit {}); no memo \
                     needs that, and reading it would take time that grows with the square of the \
                     depth, so it was not read further",
                    parse::MAX_NESTING
                ),
            )
            .artifact(name.as_str())
            .line(line),
        );
        return MemoReading::default();
    }
    let doc: Doc = parse::parse(text);
    let mut scans: Vec<Scan> = doc
        .blocks
        .iter()
        .map(|b| scan(b, &ctx.spec.memo.file_extensions))
        .collect();
    // A key the memo defines (`[S] = `statements.csv``) cites its file wherever it is written.
    let keys = crate::read::memo::citation_keys(&doc, &scans);
    if !keys.is_empty() {
        for (b, s) in doc.blocks.iter().zip(scans.iter_mut()) {
            if keys.iter().any(|(k, _)| b.text.contains(k.as_str())) {
                *s = crate::read::memo::scan_keyed(b, &ctx.spec.memo.file_extensions, &keys);
            }
        }
    }
    let mut found = Vec::new();
    let spans = sections::check(ctx.spec, &doc, &mut found);
    let mut reading = MemoReading::default();
    citations::check(ctx, &doc, &scans, &mut found);
    evidence::check(ctx, &doc, &scans, &mut found);
    if let Some(truth) = ctx.truth {
        let vocab = ctx.stmts.memo_vocabulary(ctx.spec);
        reading.kpi = kpi::check(
            ctx,
            truth,
            metrics,
            &doc,
            &spans,
            &vocab,
            &mut reading.coverage,
            &mut found,
        );
        let kpi_section = ctx
            .spec
            .memo
            .sections
            .iter()
            .position(|n| *n == ctx.spec.memo.kpi_section);
        let kpi_tables = kpi_section
            .and_then(|s| spans[s].as_ref())
            .map(|span| kpi::kpi_tables(&doc, span))
            .unwrap_or_default();
        let claims = claims::read(ctx, &doc, &scans, &kpi_tables, &vocab);
        if claims.len() > MAX_NUMBERS {
            found.push(Finding::fail(
                CheckId::MemoTooComplex,
                format!(
                    "the memo holds {} numbers (limit {MAX_NUMBERS}); no memo needs that, and judging \
                     each against every recomputed value would take minutes, so none was judged",
                    claims.len()
                ),
            ));
            reading.coverage.unverified += claims.len();
        } else {
            tied::check(
                ctx,
                truth,
                metrics,
                &claims,
                &mut reading.coverage,
                &mut found,
            );
        }
    }
    for f in &mut found {
        f.artifact = Some(name.clone());
    }
    out.extend(found);
    reading
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::read::memo::{numbers, sentences};
    use proptest::prelude::*;

    proptest! {
        #[test]
        fn scanning_any_text_never_panics_and_keeps_offsets_on_char_boundaries(s in "\\PC{0,300}") {
            let doc = parse::parse(&s);
            let exts: Vec<String> = ["csv", "md"].iter().map(|e| e.to_string()).collect();
            for b in &doc.blocks {
                let sc = scan(b, &exts);
                prop_assert_eq!(sc.masked.len(), b.text.len());
                for (st, en) in sentences(b, &sc.masked) {
                    for n in numbers::numbers(&sc.masked[st..en]) {
                        prop_assert!(sc.masked.is_char_boundary(st + n.start));
                    }
                }
                let _ = b.line_at(b.text.len());
            }
        }

        #[test]
        fn markdown_like_noise_never_panics(s in "([#>*_|`\\-=\\[\\]()0-9FY. \\n]|20[0-9][0-9]|\\$|%){0,200}") {
            let doc = parse::parse(&s);
            let exts: Vec<String> = vec!["csv".into()];
            for b in &doc.blocks {
                let sc = scan(b, &exts);
                for (st, en) in sentences(b, &sc.masked) {
                    let _ = numbers::numbers(&sc.masked[st..en]);
                }
            }
        }
    }

    #[test]
    fn sentences_end_at_terminal_punctuation_followed_by_space() {
        let d = parse::parse(
            "Revenue was $1,038.4 million in FY2022. Net margin was 2.69%! Why? e.g.x\n",
        );
        let b = &d.blocks[0];
        let s: Vec<&str> = sentences(b, &b.text)
            .into_iter()
            .map(|(a, e)| b.text[a..e].trim())
            .collect();
        assert_eq!(
            s,
            vec![
                "Revenue was $1,038.4 million in FY2022.",
                "Net margin was 2.69%!",
                "Why?",
                "e.g.x"
            ]
        );
    }

    #[test]
    fn a_footnote_reference_is_not_a_number() {
        let d =
            parse::parse("Revenue was $1,498.3 million in FY2025[^1].\n\n[^1]: From the source.\n");
        let b = &d.blocks[0];
        let n = numbers::numbers(&scan(b, &[]).masked);
        assert_eq!(n.len(), 1, "{n:?}");
    }
}
