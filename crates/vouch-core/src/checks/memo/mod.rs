//! `memo.*`: the investment memo (contract §5).
//!
//! [`parse`] turns the Markdown into blocks with line numbers; [`years`], [`numbers`] and
//! [`vocabulary`] read citations, numbers and metric/item names out of a block's text. The checks
//! — [`sections`], [`kpi`], [`citations`], [`evidence`], [`tied`] — compare what was read with
//! the spec and the recomputed truth. Every finding names the memo line it is about.

pub mod citations;
pub mod claims;
pub mod evidence;
pub mod kpi;
pub mod lex;
pub mod numbers;
pub mod parse;
pub mod sections;
pub mod tied;
pub mod vocabulary;
pub mod years;

use crate::checks::metrics::MetricsReading;
use crate::checks::Context;
use crate::numbers::{Printed, Scale};
use crate::report::registry::CheckDef;
use crate::report::{Family, Finding, Location};
use parse::{Block, BlockKind, Doc};
use vocabulary::Word;
use years::{FileMention, YearMention};

pub const CHECKS: &[CheckDef] = crate::checks![Family::Memo;
    "memo.unreadable", Fail, "the memo is not UTF-8 text (or holds a NUL byte)";
    "memo.too_complex", Fail, "the memo nests block quotes or lists deeper than 64 levels (it was not read further), or holds more than 20,000 numbers (none was judged)";
    "memo.missing_section", Fail, "a required section has no heading";
    "memo.section_order", Warn, "a required section comes before one the contract puts earlier";
    "memo.duplicate_section", Warn, "a required section's heading appears twice; the first is read as the section";
    "memo.heading_lookalike", Warn, "a bold or plain line reads like a section name but is not a Markdown heading";
    "memo.section_too_short", Fail, "a required section holds fewer than the minimum number of words";
    "memo.kpi_table_missing", Fail, "the KPI section holds no table with years as columns or rows";
    "memo.kpi_unmatched_label", Info, "a KPI table label matches no metric or line item";
    "memo.kpi_value", Fail, "a KPI table value disagrees with the recomputed value (warn within one unit of its last digit)";
    "memo.kpi_undefined", Fail, "a KPI table shows a number where the value is undefined";
    "memo.kpi_not_meaningful", Info, "a KPI table cell where the value is not meaningful (blank or the arithmetic value accepted)";
    "memo.kpi_not_a_number", Warn, "a KPI table cell of a matched label is neither a number nor a blank";
    "memo.imprecise", Warn, "a KPI ratio or multiple is printed so coarsely that its interval is wider than `memo.kpi_max_relative_interval` of its magnitude";
    "memo.missing_evidence", Fail, "an evidence topic is not discussed in a paragraph that cites a source year and a file";
    "memo.unknown_file", Fail, "a cited file name is neither the source CSV nor one of the six artifacts";
    "memo.year_out_of_range", Warn, "a cited year is outside the source's years";
    "memo.number_out_of_range", Fail, "a number is tied to a year the source does not contain";
    "memo.contradicted_number", Fail, "a number tied with certainty to a metric, line item or ratio and a year matches none of its admissible values (value, prior value, change, difference)";
    "memo.unverified_number", Info, "a number vouch cannot tie with certainty to one item and year (an undefined quantity, an aggregate, no item or year named); counted, never a failure";
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

/// What the scanners read out of one block.
pub struct Scan {
    /// File names cited in the text.
    pub files: Vec<FileMention>,
    /// Years cited in the text (outside file names and URLs).
    pub years: Vec<YearMention>,
    /// File names in link destinations, with their lines.
    pub link_files: Vec<(String, usize)>,
    /// Years in link destinations, with their lines.
    pub link_years: Vec<(i32, usize)>,
    /// The text with file names, URLs and years blanked (same byte offsets), for numbers and names.
    pub masked: String,
    /// The words of `masked`, in text order.
    pub words: Vec<Word>,
}

pub fn scan(block: &Block, extensions: &[String]) -> Scan {
    let text = &block.text;
    let (files, urls) = years::files_and_urls(text, extensions);
    let mut spans: Vec<(usize, usize)> = files.iter().map(|f| (f.start, f.end)).collect();
    spans.extend(urls);
    let unyeared = blank(text, &spans);
    let years = years::years(&unyeared);
    spans.extend(years.iter().map(|y| (y.start, y.end)));
    let masked = blank(text, &spans);
    let mut link_files = Vec::new();
    let mut link_years = Vec::new();
    for l in &block.links {
        if let Some(f) = years::file_in_destination(&l.dest, extensions) {
            link_files.push((f, l.line));
        }
        if !years::is_url(&l.dest) {
            link_years.extend(years::years(&l.dest).into_iter().map(|y| (y.year, l.line)));
        }
    }
    let words = vocabulary::words(&masked);
    Scan {
        files,
        years,
        link_files,
        link_years,
        masked,
        words,
    }
}

/// `text` with the byte spans replaced by spaces (spans lie on char boundaries).
pub(super) fn blank(text: &str, spans: &[(usize, usize)]) -> String {
    let mut bytes = text.as_bytes().to_vec();
    for &(s, e) in spans {
        for b in &mut bytes[s..e.min(text.len())] {
            *b = b' ';
        }
    }
    String::from_utf8(bytes).unwrap_or_else(|_| text.to_string())
}

/// Sentence spans of a block's text: a sentence ends at `.`, `!` or `?` followed by white space,
/// at a blank line, and at the end of the block (a table row is one sentence).
pub fn sentences(block: &Block, text: &str) -> Vec<(usize, usize)> {
    if block.kind == BlockKind::TableRow {
        return vec![(0, text.len())];
    }
    sentence_spans(text)
}

/// Sentence spans of prose (a paragraph, a list item, a table cell read as prose).
pub(super) fn sentence_spans(text: &str) -> Vec<(usize, usize)> {
    let mut out = Vec::new();
    let mut start = 0;
    let bytes = text.as_bytes();
    for (i, c) in text.char_indices() {
        let next = bytes.get(i + 1).copied();
        let ends = match c {
            '.' => next.is_none_or(|n| n.is_ascii_whitespace()) && !abbreviation(&text[..i]),
            '!' | '?' => next.is_none_or(|n| n.is_ascii_whitespace()),
            '\n' => next == Some(b'\n'),
            _ => false,
        };
        if ends {
            out.push((start, i + 1));
            start = i + 1;
        }
    }
    if start < text.len() {
        out.push((start, text.len()));
    }
    out.retain(|(s, e)| !text[*s..*e].trim().is_empty());
    out
}

/// Whether the text before a `.` ends in an abbreviation that does not end a sentence (`i.e.`,
/// `e.g.`, `vs.`, `approx.`, `incl.`, `ca.`, `cf.`).
fn abbreviation(before: &str) -> bool {
    let word = before
        .rsplit(|c: char| c.is_whitespace() || c == '(')
        .next()
        .unwrap_or("")
        .to_ascii_lowercase();
    matches!(
        word.as_str(),
        "i.e" | "e.g" | "vs" | "approx" | "incl" | "excl" | "ca" | "cf" | "est" | "avg"
    )
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
    let Some(text) = ctx.text(&name, "memo.unreadable", out) else {
        return MemoReading::default();
    };
    // A lone `\r` ends a line for the parser; the reader's lines must end there too.
    let normalised = parse::normalise_line_ends(text);
    let text: &str = &normalised;
    let (depth, line) = parse::nesting_depth(text);
    if depth > parse::MAX_NESTING {
        out.push(
            Finding::fail(
                "memo.too_complex",
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
    let scans: Vec<Scan> = doc
        .blocks
        .iter()
        .map(|b| scan(b, &ctx.spec.memo.file_extensions))
        .collect();
    let mut found = Vec::new();
    let spans = sections::check(ctx.spec, &doc, &mut found);
    let mut reading = MemoReading::default();
    citations::check(ctx, &doc, &scans, &mut found);
    evidence::check(ctx, &doc, &scans, &mut found);
    if let Some(truth) = ctx.truth {
        let vocab = vocabulary::Vocabulary::new(ctx.spec, ctx.stmts);
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
                "memo.too_complex",
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
