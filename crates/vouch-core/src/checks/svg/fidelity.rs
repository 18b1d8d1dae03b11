//! Chart fidelity (contract §4, warning level): read the plotted values of a panel back from its
//! geometry and compare them with the recomputed series the title names.
//!
//! Reading: the panel's year labels give the category axis; each mark goes to the nearest label
//! (within half the label spacing). The series read is the one matching the most labels: bars
//! (filled non-frame rects of one fill and width), a path/polyline, or a set of point marks;
//! paths and point sets that are flat (gridlines, tick rows) are skipped.
//!
//! Comparing: when the value axis starts at zero — bars from their common baseline, unless a "0"
//! axis label sits elsewhere; points when a "0"/"0%" axis label gives the baseline — plotted
//! distances must be proportional to the values: each year's distance is compared with the median
//! px-per-unit ratio, and a miss beyond the tolerance (and beyond 0.5 px, so pixel rounding of
//! small values is not a miss) is reported. Without a zero baseline only the shape can be judged:
//! an affine least-squares fit of plotted position on value, with a miss reported when a year's
//! residual exceeds the tolerance times the plotted range (a clear misfit, not rounding). The year
//! labels must run in one direction along the axis.

use crate::names::{fold, tokens};
use crate::read::svg::panels::{is_numeric, numeric_value, year_of, Axis, Panel, Role};
use crate::read::svg::scene::{Scene, ShapeKind};
use crate::source::Statements;
use crate::spec::Spec;

/// What a panel title names.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Target {
    Metric(usize),
    Item(usize),
}

/// The metric or line item a title names: the longest run of its folded words that is a metric
/// id or synonym, or a source column name or alias. Two different targets of that length: none.
pub fn target_of(title: &str, spec: &Spec, stmts: &Statements) -> Option<Target> {
    let folded = fold(title);
    let words: Vec<&str> = tokens(&folded).collect();
    for len in (1..=words.len()).rev() {
        let mut found: Vec<Target> = Vec::new();
        for target in (0..=words.len() - len).filter_map(|s| {
            let run = words[s..s + len].join("_");
            spec.metric_named(&run)
                .map(Target::Metric)
                .or_else(|| stmts.item_named(&run, spec).map(Target::Item))
        }) {
            if !found.contains(&target) {
                found.push(target);
            }
        }
        match found.as_slice() {
            [] => continue,
            [one] => return Some(*one),
            _ => return None,
        }
    }
    None
}

/// Every metric or line item a title names, left to right, each the longest run of its words
/// that names one (`Revenue vs receivables growth` names revenue and receivables_growth).
pub fn targets_in(title: &str, spec: &Spec, stmts: &Statements) -> Vec<Target> {
    let folded = fold(title);
    let words: Vec<&str> = tokens(&folded).collect();
    let named = |run: &str| -> Option<Target> {
        spec.metric_named(run)
            .map(Target::Metric)
            .or_else(|| stmts.item_named(run, spec).map(Target::Item))
            .or_else(|| {
                // The memo's prose names (`OCF`) read titles too.
                let col = spec
                    .memo
                    .names
                    .iter()
                    .find(|(_, ns)| ns.iter().any(|n| fold(n) == run))?
                    .0;
                let c = spec.column_index(col)?;
                stmts.item_index(c).map(Target::Item)
            })
    };
    let mut out: Vec<Target> = Vec::new();
    let mut used = vec![false; words.len()];
    let mut s = 0;
    while s < words.len() {
        let found = (1..=words.len() - s).rev().find_map(|len| {
            let t = named(&words[s..s + len].join("_"))?;
            // `cash flow` is not cash: a line item's name followed by a qualifier.
            let qualified = matches!(t, Target::Item(_))
                && words.get(s + len).is_some_and(|w| {
                    matches!(
                        *w,
                        "flow"
                            | "flows"
                            | "margin"
                            | "margins"
                            | "ratio"
                            | "conversion"
                            | "coverage"
                    )
                });
            (!qualified).then_some((t, len))
        });
        match found {
            Some((t, len)) => {
                if !out.contains(&t) {
                    out.push(t);
                }
                used[s..s + len].iter_mut().for_each(|u| *u = true);
                s += len;
            }
            None => s += 1,
        }
    }
    // Elided heads: `gross, operating and net margin`, `current and quick ratio`.
    let heads: Vec<String> = out
        .iter()
        .filter_map(|t| match t {
            Target::Metric(m) => spec.metrics[*m]
                .id
                .rsplit_once('_')
                .map(|(_, h)| h.to_string()),
            Target::Item(_) => None,
        })
        .collect();
    for (i, w) in words.iter().enumerate() {
        if used[i] {
            continue;
        }
        for h in &heads {
            if let Some(t) = spec.metric_named(&format!("{w}_{h}")).map(Target::Metric) {
                if !out.contains(&t) {
                    out.push(t);
                }
            }
        }
    }
    out
}

/// What a panel may plot of a named target.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Form {
    /// Its values.
    Level,
    /// Its year-over-year relative change.
    Growth,
    /// Its year-over-year change (a margin's change in points).
    Change,
}

/// Words of a title that state a money unit (its levels are in it).
const MONEY_WORDS: &[&str] = &[
    "usd",
    "eur",
    "gbp",
    "m",
    "mn",
    "mm",
    "millions",
    "bn",
    "thousands",
    "000",
];

/// Words of a title that make its items' growth the plotted quantity.
const GROWTH_WORDS: &[&str] = &["growth", "yoy", "change", "changes", "grew", "delta"];

/// The quantities a panel's title makes plausible, and whether the title pins down exactly one
/// (one name; its form stated: levels, or the growth of a line item, or a metric that is itself
/// a rate of change).
pub fn quantities(title: &str, spec: &Spec, stmts: &Statements) -> (Vec<(Target, Form)>, bool) {
    let targets = targets_in(title, spec, stmts);
    let folded = fold(title);
    let words: Vec<&str> = tokens(&folded).collect();
    // Growth words outside the names themselves (`revenue_growth` is a metric's own name).
    let names_growth = |t: &Target| match t {
        Target::Metric(m) => {
            let id = &spec.metrics[*m].id;
            GROWTH_WORDS.iter().any(|g| id.split('_').any(|w| w == *g))
        }
        Target::Item(_) => false,
    };
    let growth_words = words.iter().filter(|w| GROWTH_WORDS.contains(w)).count();
    let own_growth = targets.iter().filter(|t| names_growth(t)).count();
    let growth = growth_words > own_growth;
    // A money unit beside the growth words (`Revenue ($m) with YoY growth`): the levels are
    // plotted too, perhaps with the growth as labels; either form, not pinned.
    let money = title.contains(['$', '€', '£']) || words.iter().any(|w| MONEY_WORDS.contains(w));
    let mut out = Vec::new();
    let mut pinned = targets.len() == 1;
    for t in &targets {
        match (t, growth) {
            (_, false) => out.push((*t, Form::Level)),
            (Target::Metric(_), true) if names_growth(t) => out.push((*t, Form::Level)),
            (Target::Item(_), true) if money => {
                out.push((*t, Form::Level));
                out.push((*t, Form::Growth));
                pinned = false;
            }
            (Target::Item(_), true) => out.push((*t, Form::Growth)),
            (Target::Metric(_), true) => {
                // A margin's "change": in points or relative; not pinned.
                out.push((*t, Form::Change));
                out.push((*t, Form::Growth));
                pinned = false;
            }
        }
    }
    // Names joined by arithmetic (`FCF = operating cash flow - capex`) or several series.
    if title.contains('=') {
        pinned = false;
    }
    (out, pinned)
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SeriesKind {
    Bars,
    Line,
    Points,
}

impl SeriesKind {
    pub fn noun(self) -> &'static str {
        match self {
            SeriesKind::Bars => "bar",
            SeriesKind::Line => "point",
            SeriesKind::Points => "marker",
        }
    }
}

/// Marks by year: (year, position along the value axis in px, line).
type YearMarks = Vec<(i32, f64, usize)>;

/// A panel's plotted series, read back.
#[derive(Clone, Debug, PartialEq)]
pub struct Reading {
    pub kind: SeriesKind,
    /// (year, position along the value axis in px, growing with the value, line).
    pub marks: Vec<(i32, f64, usize)>,
    /// The value axis position of zero, when known.
    pub baseline: Option<f64>,
    /// Years of the labels in their order along the category axis.
    pub label_order: Vec<i32>,
}

/// Read a panel's series. `None` when no series lines up with two or more year labels.
pub fn read(scene: &Scene, roles: &[Role], panel: &Panel, tol: f64) -> Option<Reading> {
    read_all(scene, roles, panel, tol).into_iter().next()
}

/// Every distinct series of a panel, the one matching the most labels first (bars before a line
/// before markers at equal count). Markers drawn on a line's vertices are that line.
pub fn read_all(scene: &Scene, roles: &[Role], panel: &Panel, tol: f64) -> Vec<Reading> {
    let axis = panel.axis;
    let labels: Vec<(i32, f64)> = panel
        .year_labels
        .iter()
        .filter_map(|&t| {
            Some((
                year_of(&scene.texts[t].content)?,
                axis.category(scene.texts[t].bbox.center()),
            ))
        })
        .collect();
    let mut positions: Vec<f64> = labels.iter().map(|l| l.1).collect();
    positions.sort_by(f64::total_cmp);
    let spacing = positions
        .windows(2)
        .map(|w| w[1] - w[0])
        .fold(f64::INFINITY, f64::min);
    if !(spacing.is_finite() && spacing > tol) {
        return Vec::new();
    }
    let radius = spacing / 2.0;
    // Each label keeps the nearest mark within `radius`.
    let assign = |marks: &[((f64, f64), f64, usize)]| -> Vec<(i32, f64, usize)> {
        let mut best: Vec<Option<(f64, f64, usize)>> = vec![None; labels.len()];
        for &(p, value, line) in marks {
            let c = axis.category(p);
            let nearest = labels
                .iter()
                .enumerate()
                .map(|(i, l)| (i, (l.1 - c).abs()))
                .min_by(|a, b| a.1.total_cmp(&b.1));
            if let Some((i, d)) = nearest {
                if d <= radius && best[i].is_none_or(|(bd, _, _)| d < bd) {
                    best[i] = Some((d, value, line));
                }
            }
        }
        labels
            .iter()
            .zip(best)
            .filter_map(|(l, b)| b.map(|(_, v, line)| (l.0, v, line)))
            .collect()
    };
    let flat = |marks: &[(i32, f64, usize)]| {
        let (lo, hi) = marks
            .iter()
            .fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), m| {
                (lo.min(m.1), hi.max(m.1))
            });
        hi - lo <= tol
    };

    let mut options: Vec<(SeriesKind, YearMarks, Option<f64>)> = Vec::new();
    // Bars, by fill and width across the category axis.
    let mut bar_groups: Vec<(String, i64, Vec<usize>)> = Vec::new();
    for &s in panel
        .shapes
        .iter()
        .filter(|&&s| roles[s] == Role::PointMark && scene.shapes[s].kind == ShapeKind::Rect)
    {
        let sh = &scene.shapes[s];
        let width = match axis {
            Axis::Horizontal => sh.bbox.width(),
            Axis::Vertical => sh.bbox.height(),
        };
        let key = (
            sh.fill.trim().to_ascii_lowercase(),
            (width * 2.0).round() as i64,
        );
        match bar_groups.iter_mut().find(|g| g.0 == key.0 && g.1 == key.1) {
            Some(g) => g.2.push(s),
            None => bar_groups.push((key.0, key.1, vec![s])),
        }
    }
    for (_, _, bars) in bar_groups.iter().filter(|g| g.2.len() >= 2) {
        let edges: Vec<(f64, f64)> = bars
            .iter()
            .map(|&s| {
                let b = scene.shapes[s].bbox;
                let (a, c) = (axis.value((b.x0, b.y0)), axis.value((b.x1, b.y1)));
                (a.min(c), a.max(c))
            })
            .collect();
        let Some(base) = common_edge(&edges, tol) else {
            continue;
        };
        let marks: Vec<((f64, f64), f64, usize)> = bars
            .iter()
            .zip(&edges)
            .map(|(&s, &(lo, hi))| {
                let sh = &scene.shapes[s];
                let height = if (lo - base).abs() <= tol {
                    hi - base
                } else {
                    lo - base
                };
                (sh.bbox.center(), base + height, sh.line)
            })
            .collect();
        options.push((SeriesKind::Bars, assign(&marks), Some(base)));
    }
    // Lines: each path's vertices.
    for &s in panel.shapes.iter().filter(|&&s| roles[s] == Role::Vertices) {
        let sh = &scene.shapes[s];
        let marks: Vec<((f64, f64), f64, usize)> = sh
            .points
            .iter()
            .map(|&p| (p, axis.value(p), sh.line))
            .collect();
        let got = assign(&marks);
        if !flat(&got) {
            options.push((SeriesKind::Line, got, None));
        }
    }
    // Point marks: circles and ellipses by fill, uses by reference.
    let mut point_groups: Vec<(String, Vec<usize>)> = Vec::new();
    for &s in panel
        .shapes
        .iter()
        .filter(|&&s| roles[s] == Role::PointMark && scene.shapes[s].kind != ShapeKind::Rect)
    {
        let sh = &scene.shapes[s];
        let key = match sh.kind {
            ShapeKind::Use => format!("use {}", sh.href.as_deref().unwrap_or("")),
            _ => format!("fill {}", sh.fill.trim().to_ascii_lowercase()),
        };
        match point_groups.iter_mut().find(|g| g.0 == key) {
            Some(g) => g.1.push(s),
            None => point_groups.push((key, vec![s])),
        }
    }
    for (_, group) in &point_groups {
        let marks: Vec<((f64, f64), f64, usize)> = group
            .iter()
            .map(|&s| {
                let sh = &scene.shapes[s];
                (sh.points[0], axis.value(sh.points[0]), sh.line)
            })
            .collect();
        let got = assign(&marks);
        if !flat(&got) {
            options.push((SeriesKind::Points, got, None));
        }
    }
    let rank = |k: SeriesKind| match k {
        SeriesKind::Bars => 2,
        SeriesKind::Line => 1,
        SeriesKind::Points => 0,
    };
    let mut options: Vec<(SeriesKind, YearMarks, Option<f64>)> =
        options.into_iter().filter(|o| o.1.len() >= 2).collect();
    // Stable: the earliest drawn wins among equals.
    options.sort_by_key(|o| std::cmp::Reverse((o.1.len(), rank(o.0))));
    let zero = zero_position(scene, panel, tol);
    let mut order = labels.clone();
    order.sort_by(|a, b| a.1.total_cmp(&b.1));
    let label_order: Vec<i32> = order.into_iter().map(|l| l.0).collect();
    let mut out: Vec<Reading> = Vec::new();
    for (kind, mut marks, bar_base) in options {
        marks.sort_by_key(|m| m.0);
        let same = |r: &Reading| {
            r.marks.len() == marks.len()
                && r.marks
                    .iter()
                    .zip(&marks)
                    .all(|(a, b)| a.0 == b.0 && (a.1 - b.1).abs() <= tol.max(0.5))
        };
        if out.iter().any(same) {
            continue;
        }
        let baseline = match (kind, bar_base, zero) {
            // Bars from a baseline that is not the axis zero are not proportional to their values.
            (SeriesKind::Bars, Some(b), Some(z)) if (b - z).abs() > 2.0 * tol.max(0.5) => None,
            (SeriesKind::Bars, b, _) => b,
            (_, _, z) => z,
        };
        out.push(Reading {
            kind,
            marks,
            baseline,
            label_order: label_order.clone(),
        });
    }
    out
}

/// The value shared by an edge of every bar, if any.
fn common_edge(edges: &[(f64, f64)], tol: f64) -> Option<f64> {
    let covers = |v: f64| {
        edges
            .iter()
            .all(|&(lo, hi)| (lo - v).abs() <= tol || (hi - v).abs() <= tol)
    };
    edges
        .iter()
        .flat_map(|&(lo, hi)| [lo, hi])
        .find(|&v| covers(v))
}

/// Where zero sits on the value axis: an axis label reading 0 (`0`, `0%`, `$0`), snapped to a
/// rule or tick mark level with it.
fn zero_position(scene: &Scene, panel: &Panel, tol: f64) -> Option<f64> {
    let axis = panel.axis;
    // Digits sit about 0.35 em above the baseline at their middle.
    let level = |t: &crate::read::svg::scene::Text| match axis {
        Axis::Horizontal => axis.value((0.0, t.anchor.1 - 0.35 * t.font_px)),
        Axis::Vertical => axis.value(t.bbox.center()),
    };
    let labels: Vec<&crate::read::svg::scene::Text> = panel
        .texts
        .iter()
        .map(|&t| &scene.texts[t])
        .filter(|t| is_numeric(&t.content) && year_of(&t.content).is_none())
        .collect();
    // `-0%` is a small negative rounded, not zero.
    let label = labels.iter().copied().find(|t| {
        numeric_value(&t.content) == Some(0.0)
            && !t.content.trim_start().starts_with(['-', '−', '('])
    })?;
    if rounded_labels(&labels, &level, tol) {
        return None;
    }
    let estimate = level(label);
    let reach = (0.5 * label.font_px).max(tol);
    panel
        .shapes
        .iter()
        .map(|&s| &scene.shapes[s])
        .filter_map(|sh| {
            let level = match sh.kind {
                ShapeKind::Line | ShapeKind::Path if sh.points.len() == 2 => {
                    let (a, b) = (axis.value(sh.points[0]), axis.value(sh.points[1]));
                    ((a - b).abs() <= tol).then_some(a)
                }
                ShapeKind::Use => Some(axis.value(sh.points[0])),
                _ => None,
            }?;
            ((level - estimate).abs() <= reach).then_some(level)
        })
        .min_by(|a, b| (a - estimate).abs().total_cmp(&(b - estimate).abs()))
        .or(Some(estimate))
}

/// Whether the value labels are rounded: evenly spaced on the axis but stepped unevenly in
/// value (`38%, 28%, 19%, 9%, -0%, -10%` 62 px apart). Their zero is then only near zero, so it is
/// no baseline.
fn rounded_labels(
    labels: &[&crate::read::svg::scene::Text],
    level: &dyn Fn(&crate::read::svg::scene::Text) -> f64,
    tol: f64,
) -> bool {
    let mut at: Vec<(f64, f64)> = labels
        .iter()
        .filter_map(|t| Some((level(t), numeric_value(&t.content)?)))
        .collect();
    if at.len() < 3 {
        return false;
    }
    at.sort_by(|a, b| a.0.total_cmp(&b.0));
    let gaps: Vec<(f64, f64)> = at
        .windows(2)
        .map(|w| (w[1].0 - w[0].0, w[1].1 - w[0].1))
        .collect();
    let even = gaps.iter().all(|g| (g.0 - gaps[0].0).abs() <= tol.max(1.0));
    let span = gaps.iter().map(|g| g.1.abs()).fold(0.0, f64::max);
    let stepped = gaps
        .iter()
        .all(|g| (g.1 - gaps[0].1).abs() <= 1e-9 * span.max(1.0));
    even && !stepped
}

/// A disagreement between the plot and the recomputed series.
#[derive(Clone, Debug, PartialEq)]
pub enum Miss {
    /// Year labels do not run in one direction.
    LabelOrder { years: Vec<i32> },
    /// A distance from zero off the common px-per-unit ratio.
    Value {
        year: i32,
        line: usize,
        plotted: f64,
        expected: f64,
        value: f64,
    },
    /// Drawn in the opposite direction of the values.
    Inverted,
    /// Off the best affine fit (no zero baseline).
    Shape {
        year: i32,
        line: usize,
        residual: f64,
        range: f64,
    },
}

/// How a panel's plotted positions map the recomputed values: proportionally from a zero
/// baseline (`base + k·value`), or, without a baseline, by the least-squares straight line.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Fit {
    Proportional { base: f64, k: f64 },
    Affine { mx: f64, my: f64, slope: f64 },
}

impl Fit {
    /// Where `value` would sit along the value axis at this scale.
    pub fn position(&self, value: f64) -> f64 {
        match *self {
            Fit::Proportional { base, k } => base + k * value,
            Fit::Affine { mx, my, slope } => my + slope * (value - mx),
        }
    }

    fn inverted(&self) -> bool {
        match *self {
            Fit::Proportional { k, .. } => k < 0.0,
            Fit::Affine { slope, .. } => slope < 0.0,
        }
    }
}

/// (year, plotted position, recomputed value, line) of every mark whose year has a value.
fn pairs(reading: &Reading, truth: &dyn Fn(i32) -> Option<f64>) -> Vec<(i32, f64, f64, usize)> {
    reading
        .marks
        .iter()
        .filter_map(|&(y, v, line)| truth(y).map(|x| (y, v, x, line)))
        .collect()
}

/// The panel's scale: the median px-per-unit ratio from the baseline, or the straight-line fit
/// of three or more marks. `None` when neither is determined.
pub fn fit(reading: &Reading, truth: &dyn Fn(i32) -> Option<f64>) -> Option<Fit> {
    let pairs = pairs(reading, truth);
    match reading.baseline {
        Some(base) => {
            let mut ratios: Vec<f64> = pairs
                .iter()
                .filter(|p| p.2 != 0.0)
                .map(|p| (p.1 - base) / p.2)
                .collect();
            ratios.sort_by(f64::total_cmp);
            median(&ratios).map(|k| Fit::Proportional { base, k })
        }
        None if pairs.len() >= 3 => {
            let n = pairs.len() as f64;
            let (mx, my) = (
                pairs.iter().map(|p| p.2).sum::<f64>() / n,
                pairs.iter().map(|p| p.1).sum::<f64>() / n,
            );
            let sxx: f64 = pairs.iter().map(|p| (p.2 - mx).powi(2)).sum();
            let sxy: f64 = pairs.iter().map(|p| (p.2 - mx) * (p.1 - my)).sum();
            (sxx != 0.0).then(|| Fit::Affine {
                mx,
                my,
                slope: sxy / sxx,
            })
        }
        None => None,
    }
}

/// Compare a reading with the recomputed values by year (`None` where undefined).
pub fn compare(
    reading: &Reading,
    truth: &dyn Fn(i32) -> Option<f64>,
    tolerance: f64,
    tol_px: f64,
) -> Vec<Miss> {
    let mut out = Vec::new();
    let o = &reading.label_order;
    let ascending = o.windows(2).all(|w| w[0] < w[1]);
    let descending = o.windows(2).all(|w| w[0] > w[1]);
    if !ascending && !descending {
        out.push(Miss::LabelOrder { years: o.clone() });
    }
    let Some(fit) = fit(reading, truth) else {
        return out;
    };
    if fit.inverted() {
        out.push(Miss::Inverted);
        return out;
    }
    let pairs = pairs(reading, truth);
    match fit {
        Fit::Proportional { base, k } => {
            for &(year, v, value, line) in &pairs {
                let plotted = v - base;
                let expected = k * value;
                let diff = plotted - expected;
                let relative_miss = expected == 0.0 || (diff / expected).abs() > tolerance;
                if relative_miss && diff.abs() > tol_px {
                    out.push(Miss::Value {
                        year,
                        line,
                        plotted,
                        expected,
                        value,
                    });
                }
            }
        }
        Fit::Affine { .. } => {
            let (lo, hi) = pairs
                .iter()
                .fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), p| {
                    (lo.min(p.1), hi.max(p.1))
                });
            let range = hi - lo;
            for &(year, v, x, line) in &pairs {
                let residual = v - fit.position(x);
                if residual.abs() > tolerance * range && residual.abs() > tol_px {
                    out.push(Miss::Shape {
                        year,
                        line,
                        residual,
                        range,
                    });
                }
            }
        }
    }
    out
}

fn median(sorted: &[f64]) -> Option<f64> {
    let n = sorted.len();
    match n {
        0 => None,
        _ if n % 2 == 1 => Some(sorted[n / 2]),
        _ => Some((sorted[n / 2 - 1] + sorted[n / 2]) / 2.0),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn reading(baseline: Option<f64>, marks: &[(i32, f64)]) -> Reading {
        Reading {
            kind: SeriesKind::Bars,
            marks: marks.iter().map(|&(y, v)| (y, v, 1)).collect(),
            baseline,
            label_order: marks.iter().map(|m| m.0).collect(),
        }
    }

    fn truth(y: i32) -> Option<f64> {
        Some([100.0, 120.0, 150.0, 160.0][(y - 2021) as usize])
    }

    #[test]
    fn proportional_bars_pass() {
        let r = reading(
            Some(-300.0),
            &[
                (2021, -200.0),
                (2022, -180.0),
                (2023, -150.0),
                (2024, -140.0),
            ],
        );
        assert!(compare(&r, &truth, 0.02, 0.5).is_empty());
    }

    #[test]
    fn a_bar_five_percent_too_tall_is_a_miss_for_its_year_only() {
        let r = reading(
            Some(0.0),
            &[(2021, 100.0), (2022, 120.0), (2023, 157.5), (2024, 160.0)],
        );
        let misses = compare(&r, &truth, 0.02, 0.5);
        assert_eq!(misses.len(), 1);
        assert!(matches!(misses[0], Miss::Value { year: 2023, .. }));
    }

    #[test]
    fn swapped_year_labels_are_out_of_order() {
        let mut r = reading(
            Some(0.0),
            &[(2021, 100.0), (2022, 120.0), (2023, 150.0), (2024, 160.0)],
        );
        r.label_order = vec![2021, 2023, 2022, 2024];
        assert!(compare(&r, &truth, 0.02, 0.5).contains(&Miss::LabelOrder {
            years: vec![2021, 2023, 2022, 2024]
        }));
    }

    #[test]
    fn without_a_baseline_only_a_clear_misfit_of_shape_is_reported() {
        let r = reading(
            None,
            &[(2021, 10.0), (2022, 30.0), (2023, 60.0), (2024, 70.0)],
        );
        assert!(compare(&r, &truth, 0.02, 0.5).is_empty());
        let r = reading(
            None,
            &[(2021, 10.0), (2022, 60.0), (2023, 30.0), (2024, 70.0)],
        );
        assert!(!compare(&r, &truth, 0.02, 0.5).is_empty());
    }
}
