//! The chart section: the agent's chart as an `<img>` of its sanitised copy, and vouch's reading
//! drawn over it as vouch's own SVG: the panels it found, each mark where it read it, where the
//! recomputed value would sit at the panel's scale, the misstated marks ringed in red.

use super::escape;
use crate::checks::svg::show_value;
use crate::checks::svg::view::{ChartView, MarkStatus, SeriesView};
use crate::read::svg::{parse, sanitise};
use std::fmt::Write as _;

/// `<section id="chart">…</section>`.
pub fn section(chart_name: &str, text: Option<&str>, view: Option<&ChartView>) -> String {
    let mut out = String::new();
    out.push_str("<section id=\"chart\">\n<h2>Chart</h2>\n");
    let _ = writeln!(
        out,
        "<p class=\"muted\"><code>{}</code>",
        escape(chart_name)
    );
    let Some(text) = text else {
        out.push_str(" is absent or not text: nothing to show.</p>\n</section>\n");
        return out;
    };
    let size = view.map(|v| (v.width, v.height));
    let copy = parse::parse(text)
        .ok()
        .and_then(|doc| sanitise::sanitise(&doc, size));
    let Some(copy) = copy else {
        out.push_str(
            " could not be read as SVG (see the findings): it is not shown.</p>\n</section>\n",
        );
        return out;
    };
    out.push_str(
        ", shown as an image of a sanitised copy (scripts, event handlers and outside references \
         removed); vouch's reading is drawn over it.</p>\n",
    );
    out.push_str(LEGEND);
    let (w, h) = size.unwrap_or((0.0, 0.0));
    let _ = write!(
        out,
        "<div class=\"chart\"{}>\n<img class=\"chart-image\" alt=\"the agent's chart (sanitised copy)\" src=\"data:image/svg+xml;base64,{}\"",
        if w > 0.0 && h > 0.0 { format!(" style=\"aspect-ratio: {} / {}\"", num(w), num(h)) } else { String::new() },
        super::base64(copy.as_bytes()),
    );
    if w > 0.0 && h > 0.0 {
        let _ = write!(out, " width=\"{}\" height=\"{}\"", num(w), num(h));
    }
    out.push_str(">\n");
    if let Some(v) = view.filter(|_| w > 0.0 && h > 0.0) {
        out.push_str(&overlay(v));
    }
    out.push_str("</div>\n");
    if let Some(v) = view {
        out.push_str(&readings_table(v));
    }
    out.push_str("</section>\n");
    out
}

const LEGEND: &str = "<p class=\"legend\">\
<span><svg width=\"14\" height=\"14\" aria-hidden=\"true\"><circle cx=\"7\" cy=\"7\" r=\"5\" fill=\"none\" stroke=\"#1e6b35\" stroke-width=\"2\"/></svg> verified mark</span>\
<span><svg width=\"14\" height=\"14\" aria-hidden=\"true\"><circle cx=\"7\" cy=\"7\" r=\"5\" fill=\"#b3261e\" fill-opacity=\"0.35\" stroke=\"#b3261e\" stroke-width=\"2.5\"/></svg> misstated mark</span>\
<span><svg width=\"14\" height=\"14\" aria-hidden=\"true\"><circle cx=\"7\" cy=\"7\" r=\"5\" fill=\"none\" stroke=\"#6b7785\" stroke-width=\"1.5\" stroke-dasharray=\"2 2\"/></svg> unverified mark</span>\
<span><svg width=\"14\" height=\"14\" aria-hidden=\"true\"><path d=\"M7 2 L12 7 L7 12 L2 7 Z\" fill=\"none\" stroke=\"#b3261e\" stroke-width=\"1.5\"/></svg> where the recomputed value would be</span>\
<span><svg width=\"14\" height=\"14\" aria-hidden=\"true\"><rect x=\"1\" y=\"1\" width=\"12\" height=\"12\" fill=\"none\" stroke=\"#3b5b7a\" stroke-dasharray=\"3 2\"/></svg> a panel vouch found</span>\
</p>\n";

/// A coordinate for SVG markup: two decimals, no trailing zeros.
fn num(x: f64) -> String {
    let s = format!("{x:.2}");
    let s = s.trim_end_matches('0').trim_end_matches('.');
    if s == "-0" {
        "0".into()
    } else {
        s.to_string()
    }
}

fn overlay(v: &ChartView) -> String {
    let mut out = String::new();
    let r = (v.width.max(v.height) / 140.0).max(2.0);
    let _ = writeln!(
        out,
        "<svg class=\"overlay\" viewBox=\"0 0 {} {}\" preserveAspectRatio=\"none\" role=\"img\" aria-label=\"vouch's reading of the chart\">",
        num(v.width),
        num(v.height)
    );
    for a in &v.near {
        let _ = writeln!(
            out,
            "<rect class=\"near-panel\" x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\" fill=\"none\" stroke=\"#8a5a00\" stroke-width=\"1.5\" stroke-dasharray=\"6 4\" vector-effect=\"non-scaling-stroke\"/>",
            num(a.x0), num(a.y0), num(a.width()), num(a.height())
        );
    }
    for (i, p) in v.panels.iter().enumerate() {
        let _ = writeln!(
            out,
            "<g class=\"panel\" data-panel=\"{}\"><title>panel {}: {}</title><rect x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\" fill=\"none\" stroke=\"#3b5b7a\" stroke-width=\"1.2\" stroke-dasharray=\"6 4\" vector-effect=\"non-scaling-stroke\"/></g>",
            i + 1,
            i + 1,
            escape(&p.title),
            num(p.area.x0), num(p.area.y0), num(p.area.width()), num(p.area.height())
        );
        for s in &p.series {
            series_marks(s, r, &mut out);
        }
    }
    out.push_str("</svg>\n");
    out
}

fn series_marks(s: &SeriesView, r: f64, out: &mut String) {
    for m in &s.marks {
        let tip = format!(
            "{} {}: {}{}",
            m.year,
            s.kind.noun(),
            match m.status {
                MarkStatus::Verified => "verified",
                MarkStatus::Contradicted => "misstated",
                MarkStatus::Unverified => "unverified",
            },
            match (&s.quantity, m.value) {
                (Some(q), Some(x)) => format!(" (recomputed {q} = {})", show_value(x)),
                _ => String::new(),
            }
        );
        if let (Some(e), MarkStatus::Contradicted) = (m.expected, m.status) {
            // From the mark to where the value belongs, and a bar across the axis there.
            let (dx, dy) = (e.0 - m.at.0, e.1 - m.at.1);
            let len = (dx * dx + dy * dy).sqrt();
            let (px, py) = if len > 0.0 {
                (-dy / len, dx / len)
            } else {
                (1.0, 0.0)
            };
            let half = r * 2.5;
            let _ = writeln!(
                out,
                "<line class=\"miss\" x1=\"{}\" y1=\"{}\" x2=\"{}\" y2=\"{}\" stroke=\"#b3261e\" stroke-width=\"2\" stroke-dasharray=\"4 3\" vector-effect=\"non-scaling-stroke\"/>\n<line class=\"expected-level\" x1=\"{}\" y1=\"{}\" x2=\"{}\" y2=\"{}\" stroke=\"#b3261e\" stroke-width=\"3\" vector-effect=\"non-scaling-stroke\"/>",
                num(m.at.0), num(m.at.1), num(e.0), num(e.1),
                num(e.0 - px * half), num(e.1 - py * half), num(e.0 + px * half), num(e.1 + py * half)
            );
        }
        if let Some(e) = m.expected {
            let colour = if m.status == MarkStatus::Contradicted {
                "#b3261e"
            } else {
                "#1e6b35"
            };
            let d = r * 0.9;
            let _ = writeln!(
                out,
                "<path class=\"expected\" data-year=\"{}\" d=\"M{} {} L{} {} L{} {} L{} {} Z\" fill=\"none\" stroke=\"{colour}\" stroke-width=\"1.5\" vector-effect=\"non-scaling-stroke\"><title>{}: recomputed value at the panel's scale</title></path>",
                m.year,
                num(e.0), num(e.1 - d), num(e.0 + d), num(e.1), num(e.0), num(e.1 + d), num(e.0 - d), num(e.1),
                escape(&format!("{} {}", m.year, s.quantity.as_deref().unwrap_or("")))
            );
        }
        let (radius, style) = match m.status {
            MarkStatus::Verified => (r, "fill=\"none\" stroke=\"#1e6b35\" stroke-width=\"2\""),
            MarkStatus::Contradicted => (
                r * 1.6,
                "fill=\"#b3261e\" fill-opacity=\"0.35\" stroke=\"#b3261e\" stroke-width=\"3\"",
            ),
            MarkStatus::Unverified => (
                r,
                "fill=\"none\" stroke=\"#6b7785\" stroke-width=\"1.5\" stroke-dasharray=\"3 2\"",
            ),
        };
        let _ = writeln!(
            out,
            "<circle class=\"mark\" data-year=\"{}\" data-status=\"{}\" cx=\"{}\" cy=\"{}\" r=\"{}\" {style} vector-effect=\"non-scaling-stroke\"><title>{}</title></circle>",
            m.year,
            m.status.as_str(),
            num(m.at.0),
            num(m.at.1),
            num(radius),
            escape(&tip)
        );
    }
}

fn readings_table(v: &ChartView) -> String {
    let mut out = String::new();
    let _ = writeln!(
        out,
        "<details{}><summary>What vouch read in each panel ({} panel{})</summary>\n<table class=\"chart-readings\"><thead><tr><th>Panel</th><th>Series</th><th>Judged as</th><th>Year</th><th>Recomputed</th><th>Status</th></tr></thead><tbody>",
        if v.panels.iter().flat_map(|p| &p.series).flat_map(|s| &s.marks).any(|m| m.status == MarkStatus::Contradicted) { " open" } else { "" },
        v.panels.len(),
        if v.panels.len() == 1 { "" } else { "s" }
    );
    for (i, p) in v.panels.iter().enumerate() {
        for (k, s) in p.series.iter().enumerate() {
            for m in &s.marks {
                let _ = writeln!(
                    out,
                    "<tr class=\"{}\"><td>{}. {}</td><td>{} ({}s)</td><td>{}</td><td class=\"num\">{}</td><td class=\"num\">{}</td><td><span class=\"badge {}\">{}</span></td></tr>",
                    if m.status == MarkStatus::Contradicted { "cell-fail" } else { "" },
                    i + 1,
                    escape(&p.title),
                    k + 1,
                    s.kind.noun(),
                    escape(s.quantity.as_deref().unwrap_or("—")),
                    m.year,
                    m.value.map(show_value).unwrap_or_else(|| "—".into()),
                    match m.status { MarkStatus::Verified => "pass", MarkStatus::Contradicted => "fail", MarkStatus::Unverified => "info" },
                    match m.status { MarkStatus::Verified => "verified", MarkStatus::Contradicted => "misstated", MarkStatus::Unverified => "unverified" },
                );
            }
        }
    }
    out.push_str("</tbody></table></details>\n");
    out
}
