//! Horizontal interval charts drawn by vouch as inline SVG, for the audit and compare HTML pages:
//! one row per estimate, its label on the left, the estimate and its interval in the middle and
//! the figures printed on the right. Two axes: a rate in [0, 1] (a bar from zero with the
//! interval as a whisker) and a difference in [−span, span] (a point with the interval as a
//! line, and a zero line: a forest plot). Every piece of text is escaped; labels too long for
//! their column are shortened, with the full text in the row's `<title>`. Beside the charts,
//! [`proportion_cells`] prints the same figures in a table, with the exact values in `data-`
//! attributes for tools that read the page.

use crate::compare::render::{interval, percent};
use crate::compare::Proportion;
use std::fmt::Write as _;
use vouch_core::report::html::escape;

/// How a proportion is printed on the pages: `count/n = rate [low, high]`.
pub fn proportion_text(p: &Proportion) -> String {
    format!(
        "{}/{} = {} {}",
        p.count,
        p.n,
        percent(p.rate()),
        interval(p)
    )
}

/// A rate chart's row for `p`, labelled `label`.
pub fn proportion_mark(label: &str, p: &Proportion, class: &'static str) -> Mark {
    Mark {
        label: label.to_string(),
        value: p.rate(),
        low: p.ci.low,
        high: p.ci.high,
        text: proportion_text(p),
        class,
    }
}

/// One table cell printing `p` as [`proportion_text`] does, with the exact figures in the
/// `data-` attributes [`proportion_cells`] gives.
pub fn proportion_cell(p: &Proportion) -> String {
    format!(
        "<td class=\"num\"{}>{}</td>",
        data_attributes(p),
        escape(&proportion_text(p))
    )
}

fn data_attributes(p: &Proportion) -> String {
    let rate = p
        .rate()
        .map_or_else(String::new, |r| format!(" data-rate=\"{r}\""));
    format!(
        " data-count=\"{}\" data-n=\"{}\"{rate} data-low=\"{}\" data-high=\"{}\"",
        p.count, p.n, p.ci.low, p.ci.high
    )
}

/// Three table cells for `p` — `count/n`, the rate, its Wilson 95 % interval — the first
/// carrying the exact figures as `data-count`, `data-n`, `data-rate` (absent without runs),
/// `data-low` and `data-high`.
pub fn proportion_cells(p: &Proportion) -> String {
    format!(
        "<td class=\"num\"{}>{}/{}</td><td class=\"num\">{}</td><td class=\"num\">{}</td>",
        data_attributes(p),
        p.count,
        p.n,
        percent(p.rate()),
        interval(p)
    )
}

/// One row of a chart.
#[derive(Clone, Debug)]
pub enum Row {
    /// A heading over the rows that follow it (plain text).
    Heading(String),
    /// An estimate with its interval.
    Mark(Mark),
}

/// An estimate, its interval and what to print beside it.
#[derive(Clone, Debug)]
pub struct Mark {
    /// Plain text, left of the plot.
    pub label: String,
    /// The estimate, in the axis' unit; None when there is nothing to estimate (no runs).
    pub value: Option<f64>,
    pub low: f64,
    pub high: f64,
    /// Plain text, right of the plot (the figures).
    pub text: String,
    /// CSS class of the row (`rate`, `worse`, `better`, `same`): its colour.
    pub class: &'static str,
}

/// What the horizontal axis shows.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Axis {
    /// A proportion, 0 % to 100 %: bars from zero.
    Rate,
    /// A difference of proportions from −span to +span (span ≤ 1), in points: points on a zero
    /// line.
    Difference { span: f64 },
}

impl Axis {
    /// The difference axis that holds every interval of `marks`: a round span (2, 5, 10, 20,
    /// 25, 50 or 100 points) at least as wide as the widest end.
    pub fn difference_for(marks: &[&Mark]) -> Axis {
        let widest = marks
            .iter()
            .filter(|m| m.value.is_some())
            .flat_map(|m| [m.low.abs(), m.high.abs()])
            .filter(|x| x.is_finite())
            .fold(0.0f64, f64::max);
        let span = [0.02, 0.05, 0.1, 0.2, 0.25, 0.5]
            .into_iter()
            .find(|&s| widest <= s)
            .unwrap_or(1.0);
        Axis::Difference { span }
    }

    fn range(self) -> (f64, f64) {
        match self {
            Axis::Rate => (0.0, 1.0),
            Axis::Difference { span } => (-span, span),
        }
    }

    /// Tick positions and their labels.
    fn ticks(self) -> Vec<(f64, String)> {
        match self {
            Axis::Rate => (0..=4)
                .map(|i| {
                    let v = f64::from(i) / 4.0;
                    (v, format!("{}%", i * 25))
                })
                .collect(),
            Axis::Difference { span } => [-1.0, -0.5, 0.0, 0.5, 1.0]
                .into_iter()
                .map(|f| {
                    let v = f * span;
                    let pt = v * 100.0;
                    let text = if pt == 0.0 {
                        "0".to_string()
                    } else {
                        format!("{}{} pt", if pt > 0.0 { "+" } else { "−" }, trim(pt.abs()))
                    };
                    (v, text)
                })
                .collect(),
        }
    }
}

/// A number of points without trailing zeros (`12.5`, `10`).
fn trim(x: f64) -> String {
    let s = format!("{x:.1}");
    s.strip_suffix(".0").map_or(s.clone(), str::to_string)
}

const WIDTH: f64 = 1000.0;
const LABEL_RIGHT: f64 = 292.0;
const PLOT_LEFT: f64 = 300.0;
const PLOT_WIDTH: f64 = 400.0;
const TEXT_LEFT: f64 = 712.0;
const ROW: f64 = 22.0;
const TOP: f64 = 6.0;
const AXIS: f64 = 30.0;
/// Characters of a label shown before it is shortened.
const LABEL_CHARS: usize = 44;
/// Characters of the printed figures shown before they are shortened.
const TEXT_CHARS: usize = 46;

/// Text of at most `max` characters: longer text keeps its first `max − 1` and an ellipsis.
fn shorten(text: &str, max: usize) -> String {
    if text.chars().count() <= max {
        return text.to_string();
    }
    let mut s: String = text.chars().take(max - 1).collect();
    s.push('…');
    s
}

/// An `<svg id="{id}">` chart of `rows` on `axis`, described by `caption` (plain text, the
/// chart's accessible name).
pub fn chart(id: &str, caption: &str, axis: Axis, rows: &[Row]) -> String {
    let height = TOP + ROW * rows.len().max(1) as f64 + AXIS;
    let (lo, hi) = axis.range();
    let x = |v: f64| PLOT_LEFT + (v.clamp(lo, hi) - lo) / (hi - lo) * PLOT_WIDTH;
    let bottom = TOP + ROW * rows.len().max(1) as f64;
    let mut out = String::new();
    let _ = writeln!(
        out,
        "<svg id=\"{}\" class=\"plot {}\" viewBox=\"0 0 {WIDTH} {height}\" width=\"{WIDTH}\" height=\"{height}\" role=\"img\" aria-labelledby=\"{0}-title\">",
        escape(id),
        match axis {
            Axis::Rate => "rates",
            Axis::Difference { .. } => "forest",
        }
    );
    let _ = writeln!(
        out,
        "<title id=\"{}-title\">{}</title>",
        escape(id),
        escape(caption)
    );
    // Grid and ticks under the marks.
    for (v, text) in axis.ticks() {
        let class = if v == 0.0 && axis != Axis::Rate {
            "zero"
        } else {
            "grid"
        };
        let _ = writeln!(
            out,
            "<line class=\"{class}\" x1=\"{at:.1}\" y1=\"{TOP}\" x2=\"{at:.1}\" y2=\"{bottom:.1}\"/><text class=\"tick\" x=\"{at:.1}\" y=\"{:.1}\" text-anchor=\"middle\">{}</text>",
            bottom + 16.0,
            escape(&text),
            at = x(v),
        );
    }
    if rows.is_empty() {
        let _ = writeln!(
            out,
            "<text class=\"empty\" x=\"{:.1}\" y=\"{:.1}\" text-anchor=\"middle\">nothing to show</text>",
            PLOT_LEFT + PLOT_WIDTH / 2.0,
            TOP + ROW * 0.7
        );
    }
    for (i, row) in rows.iter().enumerate() {
        let top = TOP + ROW * i as f64;
        let middle = top + ROW / 2.0;
        let baseline = middle + 4.0;
        match row {
            Row::Heading(text) => {
                let _ = writeln!(
                    out,
                    "<g class=\"heading\"><title>{}</title><text x=\"4\" y=\"{baseline:.1}\">{}</text></g>",
                    escape(text),
                    escape(&shorten(text, LABEL_CHARS + 4))
                );
            }
            Row::Mark(m) => {
                let _ = write!(
                    out,
                    "<g class=\"row {}\"><title>{}: {}</title><text class=\"label\" x=\"{LABEL_RIGHT}\" y=\"{baseline:.1}\" text-anchor=\"end\">{}</text>",
                    m.class,
                    escape(&m.label),
                    escape(&m.text),
                    escape(&shorten(&m.label, LABEL_CHARS))
                );
                if let Some(v) = m.value.filter(|v| v.is_finite()) {
                    let (l, h) = (x(m.low), x(m.high));
                    if axis == Axis::Rate {
                        let _ = write!(
                            out,
                            "<rect class=\"bar\" x=\"{:.1}\" y=\"{:.1}\" width=\"{:.1}\" height=\"{:.1}\"/>",
                            x(0.0),
                            top + 5.0,
                            x(v) - x(0.0),
                            ROW - 10.0
                        );
                    }
                    let _ = write!(
                        out,
                        "<line class=\"whisker\" x1=\"{l:.1}\" y1=\"{middle:.1}\" x2=\"{h:.1}\" y2=\"{middle:.1}\"/><line class=\"whisker\" x1=\"{l:.1}\" y1=\"{:.1}\" x2=\"{l:.1}\" y2=\"{:.1}\"/><line class=\"whisker\" x1=\"{h:.1}\" y1=\"{:.1}\" x2=\"{h:.1}\" y2=\"{:.1}\"/>",
                        middle - 4.0,
                        middle + 4.0,
                        middle - 4.0,
                        middle + 4.0
                    );
                    if axis != Axis::Rate {
                        let _ = write!(
                            out,
                            "<circle class=\"point\" cx=\"{:.1}\" cy=\"{middle:.1}\" r=\"4.5\"/>",
                            x(v)
                        );
                    }
                }
                let _ = writeln!(
                    out,
                    "<text class=\"figures\" x=\"{TEXT_LEFT}\" y=\"{baseline:.1}\">{}</text></g>",
                    escape(&shorten(&m.text, TEXT_CHARS))
                );
            }
        }
    }
    out.push_str("</svg>\n");
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn mark(label: &str, value: Option<f64>, low: f64, high: f64) -> Mark {
        Mark {
            label: label.into(),
            value,
            low,
            high,
            text: format!("{label} figures"),
            class: "rate",
        }
    }

    #[test]
    fn a_rate_chart_draws_a_bar_and_whisker_per_row_and_escapes_its_labels() {
        let rows = vec![
            Row::Heading("<b>group</b>".into()),
            Row::Mark(mark("a\"<script>", Some(0.5), 0.25, 0.75)),
            Row::Mark(mark("none", None, 0.0, 1.0)),
        ];
        let svg = chart("accept-rate", "rates & more", Axis::Rate, &rows);
        assert!(svg.starts_with("<svg id=\"accept-rate\" class=\"plot rates\""));
        assert!(!svg.contains("<script") && !svg.contains("<b>"), "{svg}");
        assert!(svg.contains("a&quot;&lt;script&gt;"));
        assert!(svg.contains("rates &amp; more"));
        // 50 % is half of the 400-pixel plot; the whisker spans 25 % to 75 %.
        assert!(svg.contains("<rect class=\"bar\" x=\"300.0\" y=\"33.0\" width=\"200.0\""));
        assert!(svg.contains("x1=\"400.0\" y1=\"39.0\" x2=\"600.0\" y2=\"39.0\""));
        // A row without an estimate has its label and figures but no mark.
        assert_eq!(svg.matches("<rect").count(), 1);
        assert!(svg.contains(">none figures</text>"));
    }

    #[test]
    fn a_difference_axis_is_round_symmetric_and_clamps_what_lies_outside() {
        let m = [
            mark("a", Some(0.03), -0.01, 0.07),
            mark("b", Some(-0.1), -0.12, -0.08),
        ];
        let axis = Axis::difference_for(&m.iter().collect::<Vec<_>>());
        assert_eq!(axis, Axis::Difference { span: 0.2 });
        let ticks: Vec<String> = axis.ticks().into_iter().map(|t| t.1).collect();
        assert_eq!(ticks, ["−20 pt", "−10 pt", "0", "+10 pt", "+20 pt"]);
        assert_eq!(
            Axis::difference_for(&[&mark("c", Some(0.9), 0.6, 1.0)]),
            Axis::Difference { span: 1.0 }
        );
        let svg = chart(
            "forest",
            "f",
            Axis::Difference { span: 0.05 },
            &[Row::Mark(mark("wide", Some(0.0), -0.3, 0.3))],
        );
        assert!(svg.contains("class=\"zero\""));
        assert!(svg.contains("<circle class=\"point\" cx=\"500.0\""));
        assert!(
            svg.contains("x1=\"300.0\" y1=\"17.0\" x2=\"700.0\""),
            "{svg}"
        );
    }

    #[test]
    fn long_labels_are_shortened_with_the_whole_text_in_the_title() {
        let long = "x".repeat(100);
        let svg = chart(
            "c",
            "c",
            Axis::Rate,
            &[Row::Mark(mark(&long, Some(0.1), 0.0, 0.2))],
        );
        assert!(svg.contains(&format!("<title>{long}: ")));
        assert!(svg.contains(&format!(">{}…</text>", "x".repeat(LABEL_CHARS - 1))));
    }
}
