//! Required sections (contract §5): Markdown headings (ATX or setext, any level) whose text, after
//! leading numbering (`3.`, `3)`, `III.`, `A.`, `Section 3:`) is removed and `&` is read as `and`,
//! folds to a section name;
//! in the spec's order; each spanning to the next heading of the same or a higher level and
//! holding at least `min_section_words` words (tokens with a letter or digit).

use crate::names::fold;
use crate::read::memo::headings::{heading_key, numbering_end};
use crate::read::memo::parse::{BlockKind, Doc};
use crate::report::CheckId;
use crate::report::Finding;
use crate::spec::Spec;

/// Where a required section sits: its heading block and the blocks up to the next heading of the
/// same or a higher level.
#[derive(Clone, Debug)]
pub struct SectionSpan {
    pub heading: usize,
    /// Block index one past the section's last block.
    pub end: usize,
    pub line: usize,
}

/// Whether `line`'s heading key can be at most `longest` characters long, not counting `_`: a
/// cheap, exact bound that spares folding every line of prose. Each letter or digit left after the
/// numbering and a trailing bracket survives folding as at least one character, each `&` as
/// `and`, and at most a 7-letter unit suffix (`_percent`) is dropped.
fn may_fold_within(line: &str, longest: usize) -> bool {
    let t = line.trim();
    let t = numbering_end(t).map_or(t, |e| &t[e..]).trim();
    let core = match t.chars().last() {
        Some(')') => t.rfind('(').map_or(t, |i| &t[..i]),
        Some(']') => t.rfind('[').map_or(t, |i| &t[..i]),
        _ => t,
    };
    // Counting stops as soon as the bound is exceeded: prose lines are long.
    let limit = longest + 7;
    let mut least = 0;
    for c in core.chars() {
        if c.is_alphanumeric() {
            least += 1;
        } else if c == '&' {
            least += 3;
        }
        if least > limit {
            return false;
        }
    }
    true
}

pub fn check(spec: &Spec, doc: &Doc, out: &mut Vec<Finding>) -> Vec<Option<SectionSpan>> {
    let keys: Vec<String> = spec.memo.sections.iter().map(|s| fold(s)).collect();
    let headings: Vec<(usize, u8, String, usize)> = doc
        .headings()
        .map(|(i, b)| (i, b.level, heading_key(&b.text), b.line))
        .collect();
    let mut spans: Vec<Option<SectionSpan>> = vec![None; keys.len()];
    for (s, key) in keys.iter().enumerate() {
        let Some(hpos) = headings.iter().position(|h| &h.2 == key) else {
            continue;
        };
        let (block, level, _, line) = headings[hpos];
        if let Some(again) = headings[hpos + 1..].iter().find(|h| &h.2 == key) {
            out.push(
                Finding::warn(
                    CheckId::MemoDuplicateSection,
                    format!(
                        "section `{}` has a second heading (line {}; the first is on line {line}); vouch reads \
                         the first as the section, and a reader cannot tell which one holds the analysis",
                        spec.memo.sections[s], again.3
                    ),
                )
                .line(again.3),
            );
        }
        let end = headings[hpos + 1..]
            .iter()
            .find(|h| h.1 <= level)
            .map_or(doc.blocks.len(), |h| h.0);
        spans[s] = Some(SectionSpan {
            heading: block,
            end,
            line,
        });
    }

    // Look-alikes: paragraph lines (and, for a section with no heading, list items) whose whole
    // text reads as a section name. A list item that merely names a present section is a table of
    // contents, not a mistake.
    let mut lookalike: Vec<Option<usize>> = vec![None; keys.len()];
    let longest = keys
        .iter()
        .map(|k| k.chars().filter(|&c| c != '_').count())
        .max()
        .unwrap_or(0);
    for b in &doc.blocks {
        let list = match b.kind {
            BlockKind::Paragraph => false,
            BlockKind::ListItem => true,
            _ => continue,
        };
        let mut offset = 0;
        for line_text in b.text.split('\n') {
            let here = offset;
            offset += line_text.len() + 1;
            if !may_fold_within(line_text, longest) {
                continue;
            }
            let key = heading_key(line_text);
            let Some(s) = keys.iter().position(|k| *k == key) else {
                continue;
            };
            if list && spans[s].is_some() {
                continue;
            }
            let line = b.line_at(here);
            let raw = doc.lines.get(line - 1).map_or("", |l| l.trim());
            let what = if list {
                "a list item"
            } else if raw.starts_with("**") || raw.starts_with("__") {
                "a bold line"
            } else {
                "a plain line"
            };
            lookalike[s].get_or_insert(line);
            out.push(
                Finding::warn(
                    CheckId::MemoHeadingLookalike,
                    format!(
                        "`{raw}` is {what}, not a Markdown heading, though it reads like the section `{0}`; \
                         write it as a heading (`## {0}`) so readers and tools can find the section",
                        spec.memo.sections[s]
                    ),
                )
                .line(line),
            );
        }
    }

    for (s, span) in spans.iter().enumerate() {
        let name = &spec.memo.sections[s];
        match span {
            None => {
                let mut f = Finding::fail(
                    CheckId::MemoMissingSection,
                    format!(
                        "the memo has no `{name}` heading (any level, ATX `##` or setext); the contract requires \
                         this section so the memo covers every part of the analysis"
                    ),
                );
                if let Some(l) = lookalike[s] {
                    f = f.line(l);
                }
                out.push(f);
            }
            Some(span) => {
                let words: usize = doc.blocks[span.heading + 1..span.end]
                    .iter()
                    .map(|b| {
                        b.text
                            .split_whitespace()
                            .filter(|t| t.chars().any(char::is_alphanumeric))
                            .count()
                    })
                    .sum();
                if words < spec.memo.min_section_words {
                    out.push(
                        Finding::fail(
                            CheckId::MemoSectionTooShort,
                            format!(
                                "section `{name}` holds {words} word(s), fewer than the {} the contract requires",
                                spec.memo.min_section_words
                            ),
                        )
                        .line(span.line),
                    );
                }
            }
        }
    }

    // Order: the sections in the longest run that is in the contract's order stay; each other
    // one is out of order (moving one section misplaces one section, not all after it).
    let found: Vec<(usize, usize)> = spans
        .iter()
        .enumerate()
        .filter_map(|(s, sp)| sp.as_ref().map(|sp| (s, sp.line)))
        .collect();
    for i in out_of_order(&found.iter().map(|f| f.1).collect::<Vec<_>>()) {
        let (s, line) = found[i];
        let after = found[..i].iter().rev().find(|f| f.1 > line);
        let why = match after {
            Some((ps, pl)) => format!(" but comes after `{}` (line {pl})", spec.memo.sections[*ps]),
            None => String::new(),
        };
        out.push(
            Finding::warn(
                CheckId::MemoSectionOrder,
                format!(
                    "section `{}` (line {line}) is out of order{why}; the contract orders the sections {}",
                    spec.memo.sections[s],
                    spec.memo.sections.join(", ")
                ),
            )
            .line(line),
        );
    }
    spans
}

/// Indices of `lines` outside one longest increasing subsequence (n is the number of sections).
fn out_of_order(lines: &[usize]) -> Vec<usize> {
    let n = lines.len();
    let mut len = vec![1usize; n];
    let mut prev = vec![usize::MAX; n];
    for i in 0..n {
        for j in 0..i {
            if lines[j] < lines[i] && len[j] + 1 > len[i] {
                len[i] = len[j] + 1;
                prev[i] = j;
            }
        }
    }
    let mut keep = vec![false; n];
    let mut i = (0..n)
        .max_by_key(|&i| (len[i], std::cmp::Reverse(i)))
        .unwrap_or(usize::MAX);
    while i != usize::MAX {
        keep[i] = true;
        i = prev[i];
    }
    (0..n).filter(|&i| !keep[i]).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use regex::Regex;

    /// The regular expression the scanner replaced, kept as an oracle.
    fn regex_numbering_end(t: &str) -> Option<usize> {
        static RE: std::sync::OnceLock<Regex> = std::sync::OnceLock::new();
        RE.get_or_init(|| {
            Regex::new(
                r"(?ix)^\s*
                (?:(?:section|part|chapter)\s+|§\s*)?
                (?: \(?\d+(?:\.\d+)*[.):]? | \(?[ivxlcdm]+[.):] | \(?[a-z][.)] )
                \s*[-–—:]?\s+",
            )
            .unwrap()
        })
        .find(t)
        .map(|m| m.end())
    }

    const TOKENS: &[&str] = &[
        "1",
        "12",
        "3",
        ".",
        ")",
        "(",
        ":",
        " ",
        "\t",
        "\u{a0}",
        "-",
        "–",
        "—",
        "§",
        "Section",
        "part",
        "CHAPTER",
        "I",
        "iv",
        "X",
        "m",
        "Mix",
        "a",
        "B",
        "z",
        "\u{212A}",
        "\u{17F}",
        "é",
        "Profitability",
        "&",
        "%",
        "_",
    ];

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(20_000))]
        #[test]
        fn the_fold_bound_never_rejects_a_line_whose_key_fits(
            parts in prop::collection::vec(prop::sample::select(TOKENS), 0..10),
            longest in 0usize..20,
        ) {
            let text: String = parts.concat();
            let key = heading_key(&text);
            if key.chars().filter(|&c| c != '_').count() <= longest {
                prop_assert!(may_fold_within(&text, longest), "{:?} -> {:?}", text, key);
            }
        }

        #[test]
        fn the_numbering_scanner_reads_what_the_regex_read(
            parts in prop::collection::vec(prop::sample::select(TOKENS), 0..10)
        ) {
            let text: String = parts.concat();
            prop_assert_eq!(numbering_end(&text), regex_numbering_end(&text), "{:?}", text);
        }
    }

    #[test]
    fn one_moved_section_is_the_only_one_out_of_order() {
        assert_eq!(out_of_order(&[10, 20, 30, 40]), Vec::<usize>::new());
        assert_eq!(out_of_order(&[90, 20, 30, 40]), vec![0]);
        assert_eq!(out_of_order(&[10, 30, 20, 40]).len(), 1);
        assert_eq!(out_of_order(&[]), Vec::<usize>::new());
    }

    #[test]
    fn numbering_and_trailing_colon_are_removed_before_folding() {
        for h in [
            "3. Profitability",
            "III. Profitability:",
            "3) Profitability",
            "(3) Profitability",
            "3.1 Profitability",
            "3 - Profitability",
            "Section 3: Profitability",
            "A. Profitability",
            "Profitability:",
        ] {
            assert_eq!(heading_key(h), "profitability", "{h}");
        }
        assert_eq!(heading_key("KPI Table (USD m)"), "kpi_table");
        assert_eq!(
            heading_key("Cash flow and earnings quality"),
            "cash_flow_and_earnings_quality"
        );
        assert_eq!(heading_key("Conclusion"), "conclusion");
        assert_eq!(
            heading_key("Liquidity & Leverage"),
            "liquidity_and_leverage"
        );
        assert_eq!(heading_key("Data limitations"), "data_limitations");
    }
}
