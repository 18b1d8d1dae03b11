//! Evidence topics (contract §5 "Evidence"): each topic of the spec's `[[memo.evidence]]` must be
//! discussed in one paragraph (a blank-line block or a list item) that also cites a source year
//! and a file name (in its text or a link destination). Terms match as whole words,
//! case-insensitively, except the topic's case-sensitive terms (`AR`, `SBC`).
//!
//! A table row is such a paragraph when it names the topic and a year (in the row, or in the
//! header of a table with years as columns), and the file is cited in the row, in the table's
//! header row, in the paragraph right before the table (its caption) or right after it (its
//! source note):
//! an evidence tie-out table (`| Receivables | AR 301.2 (2020) → 420.3 (2024) |` under `Fact
//! (source: calculated_metrics.csv, years)`) traces the claim as well as prose does. Likewise a
//! list item whose list is introduced by a paragraph that cites a file and ends in a colon; when
//! that lead-in also names a source year, it dates the items too.

use crate::checks::Context;
use crate::read::memo::parse::{BlockKind, Doc};
use crate::read::memo::vocabulary::contains_term;
use crate::read::memo::Scan;
use crate::report::CheckId;
use crate::report::Finding;

pub fn check(ctx: &Context, doc: &Doc, scans: &[Scan], out: &mut Vec<Finding>) {
    let years = ctx.years().unwrap_or(&[]);
    let cites = |s: &Scan| !s.files.is_empty() || !s.link_files.is_empty();
    // For each table row block: whether its table's header or caption cites a file, and whether
    // its header names a source year (years as columns).
    let mut table_cites = vec![false; doc.blocks.len()];
    let mut table_years = vec![false; doc.blocks.len()];
    let mut i = 0;
    while i < doc.blocks.len() {
        if doc.blocks[i].kind != BlockKind::TableRow {
            i += 1;
            continue;
        }
        let start = i;
        while i < doc.blocks.len() && doc.blocks[i].kind == BlockKind::TableRow {
            i += 1;
        }
        let caption = start
            .checked_sub(1)
            .is_some_and(|p| doc.blocks[p].kind == BlockKind::Paragraph && cites(&scans[p]));
        // A source note right under the table (`*Source: calculated_metrics.csv.*`) cites it too.
        let note = doc
            .blocks
            .get(i)
            .is_some_and(|b| b.kind == BlockKind::Paragraph)
            && scans.get(i).is_some_and(&cites);
        let caption = caption || note;
        let header = cites(&scans[start]);
        let header_years = scans[start].years.iter().any(|y| years.contains(&y.year));
        for c in &mut table_cites[start..i] {
            *c = caption || header;
        }
        for c in &mut table_years[start..i] {
            *c = header_years;
        }
    }
    // A list introduced by a paragraph that cites a file and ends in a colon (`Facts
    // (`source.csv`; `calculated_metrics.csv`):`): its items are cited by their introduction.
    // A lead-in that names a source year (`Most material 2025 flags (`unusual_movements.csv`,
    // 2025):`) dates its items as a table's year header does its rows.
    let mut list_cites = vec![false; doc.blocks.len()];
    let mut list_years = vec![false; doc.blocks.len()];
    let mut i = 0;
    while i < doc.blocks.len() {
        if doc.blocks[i].kind != BlockKind::ListItem {
            i += 1;
            continue;
        }
        let start = i;
        while i < doc.blocks.len() && doc.blocks[i].kind == BlockKind::ListItem {
            i += 1;
        }
        let lead = start.checked_sub(1).filter(|&p| {
            doc.blocks[p].kind == BlockKind::Paragraph
                && doc.blocks[p].text.trim_end().ends_with(':')
                && cites(&scans[p])
        });
        let lead_in = lead.is_some();
        let lead_in_years =
            lead.is_some_and(|p| scans[p].years.iter().any(|y| years.contains(&y.year)));
        for c in &mut list_cites[start..i] {
            *c = lead_in;
        }
        for c in &mut list_years[start..i] {
            *c = lead_in_years;
        }
    }
    let paragraphs = || {
        doc.blocks
            .iter()
            .zip(scans)
            .enumerate()
            .filter(|(_, (b, _))| {
                matches!(
                    b.kind,
                    BlockKind::Paragraph | BlockKind::ListItem | BlockKind::TableRow
                )
            })
    };
    let cites_both = |index: usize, b: &crate::read::memo::parse::Block, s: &Scan| {
        let cites_year = s.years.iter().any(|y| years.contains(&y.year))
            || s.link_years.iter().any(|(y, _)| years.contains(y))
            || (b.kind == BlockKind::TableRow && table_years[index])
            || (b.kind == BlockKind::ListItem && list_years[index]);
        let cites_file = cites(s)
            || (b.kind == BlockKind::TableRow && table_cites[index])
            || (b.kind == BlockKind::ListItem && list_cites[index]);
        cites_year && cites_file
    };
    for topic in &ctx.spec.memo.evidence {
        let names = |s: &Scan| {
            let ws = &s.words;
            topic
                .terms
                .iter()
                .any(|t| contains_term(&s.masked, ws, t, false))
                || topic
                    .case_sensitive_terms
                    .iter()
                    .any(|t| contains_term(&s.masked, ws, t, true))
        };
        // The citations are cheaper to test than the terms, so they go first.
        if paragraphs().any(|(index, (b, s))| cites_both(index, b, s) && names(s)) {
            continue;
        }
        let mentioned_at = paragraphs()
            .find(|(_, (_, s))| names(s))
            .map(|(_, (b, _))| b.line);
        let why = match mentioned_at {
            Some(l) => format!(
                "it is mentioned (first at line {l}) but never in a paragraph that also cites"
            ),
            None => "no paragraph mentions it together with".to_string(),
        };
        let mut f = Finding::fail(
            CheckId::MemoMissingEvidence,
            format!(
                "evidence topic `{}` ({}) is not backed: {why} a source year and a file name; a claim the \
                 reader cannot trace to the data is not evidence",
                topic.topic,
                topic.terms.iter().chain(&topic.case_sensitive_terms).cloned().collect::<Vec<_>>().join(", ")
            ),
        );
        if let Some(l) = mentioned_at {
            f = f.line(l);
        }
        out.push(f);
    }
}
