//! The memo and the two tables as the agent wrote them, with what vouch found marked in place:
//! a memo number vouch contradicted (`mark.fail`), one it warns about (`mark.warn`), one it could
//! not tie with certainty (`mark.unverified`); a table cell whose value is wrong (`td.fail`).

use super::escape;
use crate::report::{Finding, Status};
use std::fmt::Write as _;

/// Most memo lines and table rows shown; a real memo has a few hundred lines.
const MAX_LINES: usize = 5_000;
const MAX_ROWS: usize = 2_000;

fn class(s: Status) -> &'static str {
    match s {
        Status::Fail => "fail",
        Status::Warn => "warn",
        _ => "unverified",
    }
}

/// `<section id="memo">`: every line, numbered, with the printed numbers of findings marked.
pub fn memo(name: &str, text: Option<&str>, findings: &[&Finding]) -> String {
    let mut out = String::new();
    out.push_str("<section id=\"memo\">\n<h2>Memo</h2>\n");
    let Some(text) = text else {
        let _ = writeln!(
            out,
            "<p class=\"muted\"><code>{}</code> is absent or not text.</p>\n</section>",
            escape(name)
        );
        return out;
    };
    let (mut fail, mut warn, mut unverified) = (0, 0, 0);
    for f in findings.iter().filter(|f| printed(f).is_some()) {
        match f.status {
            Status::Fail => fail += 1,
            Status::Warn => warn += 1,
            _ => unverified += 1,
        }
    }
    let _ = writeln!(
        out,
        "<p class=\"legend\"><code>{}</code>: <span><mark class=\"fail key\">{fail}</mark> contradicted</span><span><mark class=\"warn key\">{warn}</mark> off by up to a unit</span><span><mark class=\"unverified key\">{unverified}</mark> unverified (vouch could not tie them with certainty)</span></p>",
        escape(name)
    );
    out.push_str("<div class=\"memo\">\n");
    // The findings by line, gathered once (a memo has hundreds of lines and of findings).
    let mut by_line: std::collections::HashMap<usize, Vec<&&Finding>> = Default::default();
    for f in findings {
        if let Some(l) = f.location.line {
            by_line.entry(l).or_default().push(f);
        }
    }
    for (i, line) in text.lines().take(MAX_LINES).enumerate() {
        let no = i + 1;
        let here = by_line.remove(&no).unwrap_or_default();
        let worst = here
            .iter()
            .map(|f| f.status)
            .filter(|s| *s >= Status::Warn)
            .max();
        let _ = writeln!(
            out,
            "<div class=\"ln{}\" id=\"memo-l{no}\"><span class=\"no\">{no}</span><span class=\"tx\">{}</span></div>",
            worst.map(|s| format!(" {}", class(s))).unwrap_or_default(),
            marked(line, &here)
        );
    }
    let total = text.lines().count();
    if total > MAX_LINES {
        let _ = writeln!(
            out,
            "<p class=\"muted\">{} more lines not shown.</p>",
            total - MAX_LINES
        );
    }
    out.push_str("</div>\n</section>\n");
    out
}

/// `line` escaped, each finding's printed number wrapped in a `<mark>` at its first free
/// occurrence (the worst status first, so a number both warned and failed shows as failed).
fn marked(line: &str, findings: &[&&Finding]) -> String {
    let mut spans: Vec<(usize, usize, Status, String)> = Vec::new();
    let mut ordered: Vec<&&&Finding> = findings.iter().collect();
    ordered.sort_by_key(|f| std::cmp::Reverse(f.status));
    for f in ordered {
        let Some(printed) = printed(f) else {
            continue;
        };
        let mut from = 0;
        while let Some(at) = line[from..].find(printed).map(|a| a + from) {
            let end = at + printed.len();
            if spans.iter().all(|s| end <= s.0 || at >= s.1) {
                spans.push((at, end, f.status, f.message.clone()));
                break;
            }
            from = end;
        }
    }
    spans.sort_by_key(|s| s.0);
    let mut out = String::new();
    let mut at = 0;
    for (start, end, status, message) in spans {
        out.push_str(&escape(&line[at..start]));
        let _ = write!(
            out,
            "<mark class=\"{}\" title=\"{}\">{}</mark>",
            class(status),
            escape(&message),
            escape(&line[start..end])
        );
        at = end;
    }
    out.push_str(&escape(&line[at..]));
    out
}

/// The artifact's text a finding is about: the printed number it judged, or the text it quotes.
fn printed(f: &Finding) -> Option<&str> {
    f.number
        .as_ref()
        .map(|n| n.printed.as_str())
        .filter(|p| !p.is_empty())
        .or(f.quoted.as_deref())
}

/// `<section id="{id}">`: a CSV artifact as a table, cells with findings marked.
pub fn table(
    id: &str,
    heading: &str,
    name: &str,
    bytes: Option<&[u8]>,
    findings: &[&Finding],
) -> String {
    let mut out = String::new();
    let _ = writeln!(out, "<section id=\"{id}\">\n<h2>{}</h2>", escape(heading));
    let Some(bytes) = bytes else {
        let _ = writeln!(
            out,
            "<p class=\"muted\"><code>{}</code> is absent.</p>\n</section>",
            escape(name)
        );
        return out;
    };
    let mut reader = csv::ReaderBuilder::new()
        .has_headers(false)
        .flexible(true)
        .from_reader(bytes);
    let mut records = reader.records();
    let header: Vec<String> = match records.next() {
        Some(Ok(r)) => r.iter().map(str::to_string).collect(),
        _ => {
            let _ = writeln!(
                out,
                "<p class=\"muted\"><code>{}</code> has no readable header row.</p>\n</section>",
                escape(name)
            );
            return out;
        }
    };
    // A data cell: the findings on its row (and its column, or on no column); a header cell:
    // the findings on its column but no row.
    let worst = |row: Option<usize>, column: &str| {
        findings
            .iter()
            .filter(|f| f.status >= Status::Warn && f.location.row == row)
            .filter(|f| match &f.location.column {
                Some(c) => c.trim() == column.trim(),
                None => row.is_some(),
            })
            .max_by_key(|f| f.status)
            .copied()
    };
    let failing = findings.iter().filter(|f| f.status == Status::Fail).count();
    let _ = writeln!(
        out,
        "<p class=\"muted\"><code>{}</code>: {failing} failing finding{}; failing cells are outlined in red, warnings in amber (hover a cell for the finding).</p>",
        escape(name),
        if failing == 1 { "" } else { "s" }
    );
    out.push_str(
        "<div style=\"overflow-x:auto\"><table class=\"artifact\"><thead><tr><th>row</th>",
    );
    for h in &header {
        let f = worst(None, h);
        let _ = write!(out, "<th{}>{}</th>", cell_attrs(f), escape(h));
    }
    out.push_str("</tr></thead><tbody>\n");
    for (i, rec) in records.enumerate() {
        let Ok(rec) = rec else { break };
        if i == MAX_ROWS {
            let _ = writeln!(
                out,
                "<tr><td colspan=\"{}\" class=\"muted\">more rows not shown</td></tr>",
                header.len() + 1
            );
            break;
        }
        let row = i + 1;
        let _ = write!(out, "<tr><td class=\"num muted\">{row}</td>");
        for (k, cell) in rec.iter().enumerate() {
            let column = header.get(k).map(String::as_str);
            let f = column.and_then(|c| worst(Some(row), c));
            let numeric = cell.trim().parse::<f64>().is_ok();
            let _ = write!(
                out,
                "<td{}{}>{}</td>",
                if numeric { " data-num" } else { "" },
                cell_attrs(f),
                escape(cell)
            );
        }
        out.push_str("</tr>\n");
    }
    out.push_str("</tbody></table></div>\n</section>\n");
    out
}

fn cell_attrs(f: Option<&Finding>) -> String {
    match f {
        Some(f) => format!(
            " class=\"{}\" title=\"{}\"",
            if f.status == Status::Fail {
                "fail"
            } else {
                "warn"
            },
            escape(&format!("{}: {}", f.id, f.message))
        ),
        None => String::new(),
    }
}
