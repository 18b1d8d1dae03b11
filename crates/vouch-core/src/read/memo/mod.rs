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
    scan_keyed(block, extensions, &[])
}

/// [`scan`], with each occurrence of a citation key (`[S]`, see [`citation_keys`]) read as a
/// mention of the file it stands for.
pub fn scan_keyed(block: &Block, extensions: &[String], keys: &[(String, String)]) -> Scan {
    let text = &block.text;
    let (mut files, urls) = years::files_and_urls(text, extensions);
    for (key, file) in keys {
        for (at, _) in text.match_indices(key.as_str()) {
            let end = at + key.len();
            if !files.iter().any(|f| f.start < end && at < f.end) {
                files.push(years::FileMention {
                    name: file.clone(),
                    start: at,
                    end,
                });
            }
        }
    }
    files.sort_by_key(|f| f.start);
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

/// The citation keys a memo defines, with the file each stands for: a short bracketed label
/// (`[S]`, `[1]`, `[M2]`) written right before a cited file name, with at most a sign or a few
/// linking words between (`[S] = `file.csv``, `[1]: source file.csv`, `[M] refers to
/// calculated_metrics.csv`). The first definition of a key holds.
pub fn citation_keys(doc: &parse::Doc, scans: &[Scan]) -> Vec<(String, String)> {
    const LINKS: [&str; 7] = [
        "source",
        "sources",
        "file",
        "is",
        "refers to",
        "denotes",
        "means",
    ];
    let mut keys: Vec<(String, String)> = Vec::new();
    for (b, s) in doc.blocks.iter().zip(scans) {
        for f in &s.files {
            let Some(mut before) = b.text.get(..f.start) else {
                continue;
            };
            loop {
                let t = before.trim_end_matches(|c: char| {
                    c.is_whitespace()
                        || matches!(
                            c,
                            '`' | '*' | '_' | '=' | ':' | '-' | '\u{2013}' | '\u{2014}' | '(' | '"'
                        )
                });
                let lower = t.to_ascii_lowercase();
                match LINKS.iter().find(|w| {
                    lower.ends_with(*w)
                        && !lower[..lower.len() - w.len()].ends_with(|c: char| c.is_alphanumeric())
                }) {
                    Some(w) => before = &t[..t.len() - w.len()],
                    None => {
                        before = t;
                        break;
                    }
                }
            }
            let Some(open) = before.strip_suffix(']').and_then(|t| t.rfind('[')) else {
                continue;
            };
            let key = &before[open..];
            let inner = &key[1..key.len() - 1];
            if (1..=8).contains(&inner.len())
                && inner
                    .chars()
                    .all(|c| c.is_ascii_alphanumeric() || matches!(c, '^' | '-' | '_'))
                && !keys.iter().any(|(k, _)| k == key)
            {
                keys.push((key.to_string(), f.name.clone()));
            }
        }
    }
    keys
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
