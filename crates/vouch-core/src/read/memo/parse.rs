//! The memo's Markdown as blocks with line numbers (pulldown-cmark with tables).
//!
//! A *block* is a unit of prose the checks read: a heading, a paragraph, a list item (its nested
//! paragraphs included, nested lists excluded), a table row, or a code block. Every block keeps
//! where each piece of its text came from, so any offset in its text maps back to a 1-based line
//! of the memo. Link and image destinations are kept apart from the text. Limits: HTML is ignored;
//! YAML front matter is skipped (so it is not misread as a setext heading).

use pulldown_cmark::{Event, Options, Parser, Tag, TagEnd};

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BlockKind {
    Heading,
    Paragraph,
    ListItem,
    TableRow,
    Code,
}

/// A link or image destination, with the line it was written on.
#[derive(Clone, Debug)]
pub struct Link {
    pub dest: String,
    pub line: usize,
}

#[derive(Clone, Debug)]
pub struct Block {
    pub kind: BlockKind,
    /// The block's text; soft and hard breaks are `\n`, table cells are joined with ` | `.
    pub text: String,
    /// `(offset in text, memo line)` at the start of each piece of text, ascending.
    marks: Vec<(usize, usize)>,
    /// First line of the block.
    pub line: usize,
    pub links: Vec<Link>,
    /// Heading level (1–6) for headings.
    pub level: u8,
}

impl Block {
    fn new(kind: BlockKind, line: usize) -> Block {
        Block {
            kind,
            text: String::new(),
            marks: Vec::new(),
            line,
            links: Vec::new(),
            level: 0,
        }
    }

    fn push(&mut self, s: &str, line: usize) {
        self.marks.push((self.text.len(), line));
        self.text.push_str(s);
    }

    /// The memo line holding byte `offset` of the block's text.
    pub fn line_at(&self, offset: usize) -> usize {
        let i = self.marks.partition_point(|&(o, _)| o <= offset);
        if i == 0 {
            self.line
        } else {
            self.marks[i - 1].1
        }
    }
}

#[derive(Clone, Debug)]
pub struct TableCell {
    pub text: String,
    pub line: usize,
}

#[derive(Clone, Debug)]
pub struct TableRow {
    pub cells: Vec<TableCell>,
    pub line: usize,
}

/// A table; row 0 is the header row.
#[derive(Clone, Debug)]
pub struct Table {
    pub rows: Vec<TableRow>,
    pub line: usize,
}

#[derive(Clone, Debug, Default)]
pub struct Doc {
    pub blocks: Vec<Block>,
    pub tables: Vec<Table>,
    /// Byte offsets where each line starts.
    line_starts: Vec<usize>,
    /// The memo's lines as written (for messages and look-alike headings).
    pub lines: Vec<String>,
}

impl Doc {
    /// Indices of the heading blocks, in order.
    pub fn headings(&self) -> impl Iterator<Item = (usize, &Block)> {
        self.blocks
            .iter()
            .enumerate()
            .filter(|(_, b)| b.kind == BlockKind::Heading)
    }

    fn line_of(&self, offset: usize) -> usize {
        self.line_starts.partition_point(|&s| s <= offset).max(1)
    }
}

/// Deepest container nesting (block quotes and list items) a memo may open. pulldown-cmark's
/// time grows with the square of the nesting (100,000 nested `>` take minutes), and no memo
/// needs more than a handful of levels (docs/security.md).
pub const MAX_NESTING: usize = 64;

/// The memo's text with CommonMark's line ends: a lone `\r` ends a line as `\n` and `\r\n` do.
/// Each lone `\r` becomes a `\n` (one byte for one, so every offset stays where it was); the
/// text is borrowed when it has none.
pub fn normalise_line_ends(text: &str) -> std::borrow::Cow<'_, str> {
    let b = text.as_bytes();
    let lone = |i: usize| b[i] == b'\r' && b.get(i + 1) != Some(&b'\n');
    if !(0..b.len()).any(lone) {
        return std::borrow::Cow::Borrowed(text);
    }
    let out: Vec<u8> = (0..b.len())
        .map(|i| if lone(i) { b'\n' } else { b[i] })
        .collect();
    // Only ASCII `\r` bytes were replaced by ASCII `\n`: still UTF-8.
    std::borrow::Cow::Owned(String::from_utf8(out).unwrap_or_default())
}

/// The deepest container nesting any line opens, and that line (1-based): every `>`, list
/// marker and footnote definition (`[^note]:`) at the start of a line counts one level, and so
/// do each two columns of indentation before them (how nested list items are written). Lines
/// end where CommonMark ends them (`\n`, `\r\n` or a lone `\r`). A cheap upper bound, read
/// before parsing.
pub fn nesting_depth(text: &str) -> (usize, usize) {
    let mut deepest = (0, 0);
    let text = normalise_line_ends(text);
    for (i, line) in text.lines().enumerate() {
        let b = line.as_bytes();
        let (mut at, mut depth, mut columns) = (0, 0, 0);
        loop {
            while at < b.len() && (b[at] == b' ' || b[at] == b'\t') {
                // Only the indentation before the first marker stands for nesting.
                if depth == 0 {
                    columns += if b[at] == b'\t' { 4 } else { 1 };
                }
                at += 1;
            }
            let digits = b[at..].iter().take_while(|c| c.is_ascii_digit()).count();
            let marker = match b.get(at) {
                Some(b'>') => 1,
                Some(b'[') if b.get(at + 1) == Some(&b'^') => footnote_label(&b[at..]),
                Some(b'-' | b'*' | b'+') => 1,
                Some(_)
                    if (1..=9).contains(&digits)
                        && matches!(b.get(at + digits), Some(b'.' | b')')) =>
                {
                    digits + 1
                }
                _ => 0,
            };
            let spaced = marker > 0
                && (matches!(b[at], b'>' | b'[')
                    || matches!(b.get(at + marker), None | Some(b' ' | b'\t')));
            if !spaced {
                break;
            }
            depth += 1;
            at += marker;
        }
        let total = depth + columns / 2;
        if total > deepest.0 {
            deepest = (total, i + 1);
        }
    }
    deepest
}

/// The length of a footnote definition's label and colon at the start of `b` (`[^note]:`), 0
/// when there is none.
fn footnote_label(b: &[u8]) -> usize {
    match b.iter().position(|&c| c == b']') {
        Some(close) if close > 2 && b.get(close + 1) == Some(&b':') => close + 2,
        _ => 0,
    }
}

/// Parse the memo. Linear in its size; never fails. Callers bound its nesting first
/// ([`nesting_depth`]).
pub fn parse(text: &str) -> Doc {
    let mut doc = Doc {
        line_starts: std::iter::once(0)
            .chain(text.match_indices('\n').map(|(i, _)| i + 1))
            .collect(),
        lines: text.lines().map(str::to_string).collect(),
        ..Doc::default()
    };
    let mut options = Options::ENABLE_TABLES
        | Options::ENABLE_STRIKETHROUGH
        | Options::ENABLE_TASKLISTS
        | Options::ENABLE_FOOTNOTES
        | Options::ENABLE_YAML_STYLE_METADATA_BLOCKS;
    options.remove(Options::ENABLE_SMART_PUNCTUATION);
    // Open blocks, innermost last; `None` marks a paragraph folded into its list item.
    let mut open: Vec<Option<usize>> = Vec::new();
    let mut in_metadata = false;
    let mut in_html = 0usize;
    let mut in_sup = false;
    let mut cell: Option<TableCell> = None;
    let mut row: Option<(usize, TableRow)> = None;
    for (event, range) in Parser::new_ext(text, options).into_offset_iter() {
        let line = doc.line_of(range.start);
        let top = open.iter().rev().find_map(|b| *b);
        match event {
            Event::Start(Tag::MetadataBlock(_)) => in_metadata = true,
            Event::End(TagEnd::MetadataBlock(_)) => in_metadata = false,
            Event::Start(Tag::HtmlBlock) => in_html += 1,
            Event::End(TagEnd::HtmlBlock) => in_html = in_html.saturating_sub(1),
            Event::Start(Tag::Heading { level, .. }) => {
                let mut b = Block::new(BlockKind::Heading, line);
                b.level = level as u8;
                doc.blocks.push(b);
                open.push(Some(doc.blocks.len() - 1));
            }
            Event::Start(Tag::Paragraph) => {
                let folded = top.is_some_and(|i| doc.blocks[i].kind == BlockKind::ListItem)
                    && matches!(open.last(), Some(Some(i)) if doc.blocks[*i].kind == BlockKind::ListItem);
                if folded {
                    if let Some(i) = top {
                        if !doc.blocks[i].text.is_empty() {
                            // A paragraph end inside an item still ends a sentence.
                            doc.blocks[i].push("\n\n", line);
                        }
                    }
                    open.push(None);
                } else {
                    doc.blocks.push(Block::new(BlockKind::Paragraph, line));
                    open.push(Some(doc.blocks.len() - 1));
                }
            }
            Event::Start(Tag::Item) => {
                doc.blocks.push(Block::new(BlockKind::ListItem, line));
                open.push(Some(doc.blocks.len() - 1));
            }
            Event::Start(Tag::CodeBlock(_)) => {
                doc.blocks.push(Block::new(BlockKind::Code, line));
                open.push(Some(doc.blocks.len() - 1));
            }
            Event::Start(Tag::List(_)) | Event::Start(Tag::BlockQuote(_)) => open.push(None),
            Event::End(
                TagEnd::Heading(_) | TagEnd::Paragraph | TagEnd::Item | TagEnd::CodeBlock,
            )
            | Event::End(TagEnd::List(_) | TagEnd::BlockQuote(_)) => {
                open.pop();
                in_sup = false;
            }
            Event::Start(Tag::Table(_)) => doc.tables.push(Table {
                rows: Vec::new(),
                line,
            }),
            Event::Start(Tag::TableHead | Tag::TableRow) => {
                doc.blocks.push(Block::new(BlockKind::TableRow, line));
                row = Some((
                    doc.blocks.len() - 1,
                    TableRow {
                        cells: Vec::new(),
                        line,
                    },
                ));
            }
            Event::End(TagEnd::TableHead | TagEnd::TableRow) => {
                if let (Some((_, r)), Some(t)) = (row.take(), doc.tables.last_mut()) {
                    t.rows.push(r);
                }
            }
            Event::Start(Tag::TableCell) => {
                if let Some((b, r)) = &row {
                    if !r.cells.is_empty() {
                        doc.blocks[*b].push(" | ", line);
                    }
                }
                cell = Some(TableCell {
                    text: String::new(),
                    line,
                });
            }
            Event::End(TagEnd::TableCell) => {
                if let (Some(c), Some((_, r))) = (cell.take(), row.as_mut()) {
                    r.cells.push(TableCell {
                        text: c.text.trim().to_string(),
                        line: c.line,
                    });
                }
            }
            Event::Start(Tag::Link { dest_url, .. } | Tag::Image { dest_url, .. }) => {
                let target = row.as_ref().map(|(b, _)| *b).or(top);
                if let Some(b) = target {
                    doc.blocks[b].links.push(Link {
                        dest: dest_url.to_string(),
                        line,
                    });
                }
            }
            Event::Text(s) | Event::Code(s) | Event::InlineMath(s) | Event::DisplayMath(s) => {
                if in_metadata || in_html > 0 || in_sup {
                    continue;
                }
                if let Some(c) = cell.as_mut() {
                    c.text.push_str(&s);
                    if let Some((b, _)) = &row {
                        doc.blocks[*b].push(&s, line);
                    }
                } else if let Some(b) = top {
                    doc.blocks[b].push(&s, line);
                }
            }
            // Inline HTML separates the text around it; a superscript (a footnote mark) is dropped.
            Event::InlineHtml(h) => {
                let tag = h.trim().to_ascii_lowercase();
                if tag.starts_with("<sup") {
                    in_sup = true;
                } else if tag.starts_with("</sup") {
                    in_sup = false;
                }
                if let Some(c) = cell.as_mut() {
                    c.text.push(' ');
                } else if let Some(b) = top {
                    doc.blocks[b].push(" ", line);
                }
            }
            Event::SoftBreak | Event::HardBreak => {
                if let Some(c) = cell.as_mut() {
                    c.text.push(' ');
                } else if let Some(b) = top {
                    doc.blocks[b].push("\n", line);
                }
            }
            _ => {}
        }
    }
    doc
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn headings_keep_level_and_line_for_atx_and_setext() {
        let d =
            parse("# Title\n\nSome text\nmore\n\nKPI table\n---------\n\n### 3. Profitability:\n");
        let h: Vec<_> = d
            .headings()
            .map(|(_, b)| (b.level, b.text.clone(), b.line))
            .collect();
        assert_eq!(
            h,
            vec![
                (1, "Title".to_string(), 1),
                (2, "KPI table".to_string(), 6),
                (3, "3. Profitability:".to_string(), 9)
            ]
        );
    }

    #[test]
    fn offsets_map_to_lines_across_soft_breaks() {
        let d = parse("intro\n\nfirst line\nsecond `code.csv` line\n");
        let b = &d.blocks[1];
        assert_eq!(b.kind, BlockKind::Paragraph);
        assert_eq!(b.line_at(b.text.find("second").unwrap()), 4);
        assert_eq!(b.line_at(b.text.find("code.csv").unwrap()), 4);
        assert_eq!(b.line_at(0), 3);
    }

    #[test]
    fn list_items_are_blocks_and_tables_are_rows_of_cells() {
        let d = parse("- one [x](a.csv)\n- two\n\n| A | B |\n|---|---|\n| 1 | 2 |\n");
        let items: Vec<_> = d
            .blocks
            .iter()
            .filter(|b| b.kind == BlockKind::ListItem)
            .collect();
        assert_eq!(items.len(), 2);
        assert_eq!(items[0].links[0].dest, "a.csv");
        let t = &d.tables[0];
        assert_eq!(t.rows.len(), 2);
        assert_eq!(t.rows[1].cells[1].text, "2");
        assert_eq!(t.rows[1].line, 6);
        let rows: Vec<_> = d
            .blocks
            .iter()
            .filter(|b| b.kind == BlockKind::TableRow)
            .collect();
        assert_eq!(rows[1].text, "1 | 2");
    }

    #[test]
    fn loose_list_item_paragraphs_fold_into_the_item() {
        let d = parse("- first para\n\n  second para\n\n- next\n");
        let items: Vec<_> = d
            .blocks
            .iter()
            .filter(|b| b.kind == BlockKind::ListItem)
            .collect();
        assert_eq!(items.len(), 2);
        assert!(items[0].text.contains("first para") && items[0].text.contains("second para"));
        assert!(d.blocks.iter().all(|b| b.kind != BlockKind::Paragraph));
    }

    #[test]
    fn inline_html_separates_words() {
        let d = parse("Revenue in FY2025<sup>1</sup> grew.\n");
        assert_eq!(d.blocks[0].text, "Revenue in FY2025   grew.");
    }

    #[test]
    fn nesting_counts_quotes_list_markers_and_indentation() {
        assert_eq!(nesting_depth("plain\n> quote\n"), (1, 2));
        assert_eq!(nesting_depth("> > - 1. item\n"), (4, 1));
        assert_eq!(nesting_depth("- a\n  - b\n    - c\n"), (3, 3));
        assert_eq!(nesting_depth("-5 is a number\n*emphasis*\n"), (0, 0));
        assert_eq!(nesting_depth(&">".repeat(100_000)).0, 100_000);
        // A lone carriage return ends a line, as in CommonMark.
        assert_eq!(
            nesting_depth(&format!("x\r{}", ">".repeat(1000))),
            (1000, 2)
        );
        assert_eq!(nesting_depth("a\r\n> b\r\n"), (1, 2));
        // Footnote definitions are containers too.
        assert_eq!(nesting_depth(&"[^a]: ".repeat(100)).0, 100);
        assert_eq!(nesting_depth("[^a] is not a definition\n").0, 0);
        assert_eq!(normalise_line_ends("a\rb\r\nc"), "a\nb\r\nc");
    }

    #[test]
    fn front_matter_is_not_a_heading() {
        let d = parse("---\ntitle: x\n---\n\n## Executive view\n");
        assert_eq!(d.headings().count(), 1);
    }
}
