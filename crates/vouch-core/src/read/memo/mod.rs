//! Readers of the memo (contract §5): [`parse`] turns the Markdown into blocks with line
//! numbers and links; [`years`], [`numbers`] and [`vocabulary`] read citations, years, numbers
//! and metric or item names out of a block's text; [`headings`] is the heading grammar;
//! [`claims`] reads which item, year and reading each number of a clause claims. Nothing here
//! compares a value with the truth: that is `checks::memo`.

pub mod claims;
pub mod headings;
pub mod lex;
pub mod numbers;
pub mod parse;
pub mod vocabulary;
pub mod years;

use parse::{Block, BlockKind};
use vocabulary::Word;
use years::{FileMention, YearMention};

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
pub fn blank(text: &str, spans: &[(usize, usize)]) -> String {
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
pub fn sentence_spans(text: &str) -> Vec<(usize, usize)> {
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
