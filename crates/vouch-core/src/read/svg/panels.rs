//! Panel detection (contract §4). A *panel* is a rectangular area holding a title text, at least
//! one data series and year labels along its category axis.
//!
//! Candidate areas come from two places, so grouped, flat and matplotlib charts all work: every
//! container element (`g`, nested `svg`, `a`) that draws something, and every *frame* rect (a rect
//! without fill, or one that encloses other marks). A candidate *qualifies* when it holds the three
//! ingredients; one with year labels and only one of the others is a *near miss*, kept so a broken
//! panel is named rather than silently uncounted. A candidate that holds two disjoint ones is a
//! container of panels (a figure, a background), not a panel; among the rest, one inside another
//! belongs to it, so the outermost are the panels (or near misses).

use super::geometry::BBox;
use super::scene::{Scene, ShapeKind};

/// At most this many candidates (panels and near misses) are compared (a chart has a handful).
const MAX_QUALIFYING: usize = 256;

/// A recognised year label: `2021`, `FY2021`, `FY 2021`, `FY21` (contract §5 forms).
pub fn year_of(text: &str) -> Option<i32> {
    let t = text.trim();
    let upper = t.to_ascii_uppercase();
    let digits = match upper.strip_prefix("FY") {
        Some(rest) => {
            let rest = rest.strip_prefix(' ').unwrap_or(rest);
            if rest.len() == 2 && rest.bytes().all(|b| b.is_ascii_digit()) {
                return rest.parse::<i32>().ok().map(|yy| 2000 + yy);
            }
            rest
        }
        None => t,
    };
    if digits.len() == 4
        && digits.bytes().all(|b| b.is_ascii_digit())
        && (digits.starts_with("19") || digits.starts_with("20"))
    {
        digits.parse().ok()
    } else {
        None
    }
}

/// Whether a text is a number as printed on an axis (`0`, `1,000`, `$1.2bn`, `-5%`, `(3)`, `1.5x`).
pub fn is_numeric(text: &str) -> bool {
    numeric_value(text).is_some()
}

/// The value of an axis number, ignoring currency signs, units and suffixes.
pub fn numeric_value(text: &str) -> Option<f64> {
    let t = text.trim();
    let core: String = t
        .trim_start_matches(['$', '€', '£', '¥', '(', '+'])
        .trim_end_matches(|c: char| c.is_alphabetic() || matches!(c, '%' | ')' | ' '))
        .replace([',', '\u{2009}', ' '], "")
        .replace('−', "-");
    let core = core.trim_start_matches(['$', '€', '£']);
    if core.is_empty() || !core.bytes().any(|b| b.is_ascii_digit()) {
        return None;
    }
    let v: f64 = core.parse().ok()?;
    Some(if t.starts_with('(') && t.ends_with(')') {
        -v
    } else {
        v
    })
}

/// A title candidate: a text with a letter that is neither a year label nor an axis number.
pub fn is_title_like(text: &str) -> bool {
    year_of(text).is_none() && !is_numeric(text) && text.chars().any(char::is_alphabetic)
}

/// Which way the category (year) axis runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Axis {
    /// Year labels in a row: years along x, values along y.
    Horizontal,
    /// Year labels in a column: years along y, values along x.
    Vertical,
}

impl Axis {
    /// A point's position along the category axis.
    pub fn category(self, p: (f64, f64)) -> f64 {
        match self {
            Axis::Horizontal => p.0,
            Axis::Vertical => p.1,
        }
    }
    /// A point's position along the value axis, growing with the value (SVG's y grows down).
    pub fn value(self, p: (f64, f64)) -> f64 {
        match self {
            Axis::Horizontal => -p.1,
            Axis::Vertical => p.0,
        }
    }
}

/// What counts as a data mark, per shape.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Role {
    /// A rect that encloses other marks or has no fill.
    Frame,
    /// A filled rect, circle, ellipse or use: one mark.
    PointMark,
    /// A path, polyline or polygon: each vertex is a mark.
    Vertices,
    /// A `line`: a rule or tick, never a mark.
    Rule,
}

/// Bounds the geometric searches (frame enclosure and frame membership) on hostile input: each
/// unit is one item compared. Real charts need a few thousand.
pub const WORK_BUDGET: u64 = 5_000_000;

struct Budget(u64);

impl Budget {
    /// Spend one unit; `false` once the budget is gone.
    fn spend(&mut self) -> bool {
        self.spend_n(1)
    }
    fn spend_n(&mut self, n: usize) -> bool {
        self.0 = self.0.saturating_sub(n as u64);
        self.0 > 0
    }
}

/// Indices of `keys` sorted by key, for range scans.
fn sorted_by(keys: &[f64]) -> Vec<usize> {
    let mut idx: Vec<usize> = (0..keys.len()).collect();
    idx.sort_by(|&a, &b| keys[a].total_cmp(&keys[b]));
    idx
}

/// The entries of `order` (sorted by `keys`) whose key lies in `[lo, hi]`.
fn in_range<'a>(order: &'a [usize], keys: &[f64], lo: f64, hi: f64) -> &'a [usize] {
    let start = order.partition_point(|&i| keys[i] < lo);
    let end = order.partition_point(|&i| keys[i] <= hi);
    &order[start..end.max(start)]
}

/// Classify every shape of the scene. Once the work budget is spent, a rect is judged by its
/// fill alone.
pub fn roles(scene: &Scene, tol: f64) -> Vec<Role> {
    let points: Vec<(usize, (f64, f64))> = scene
        .shapes
        .iter()
        .enumerate()
        .filter(|(_, s)| {
            matches!(
                s.kind,
                ShapeKind::Path | ShapeKind::Circle | ShapeKind::Ellipse | ShapeKind::Use
            )
        })
        .flat_map(|(i, s)| s.points.iter().map(move |p| (i, *p)))
        .collect();
    let point_x: Vec<f64> = points.iter().map(|p| p.1 .0).collect();
    let point_order = sorted_by(&point_x);
    let rects: Vec<usize> = (0..scene.shapes.len())
        .filter(|&i| scene.shapes[i].kind == ShapeKind::Rect)
        .collect();
    let rect_x: Vec<f64> = rects.iter().map(|&i| scene.shapes[i].bbox.x0).collect();
    let rect_order = sorted_by(&rect_x);
    let mut budget = Budget(WORK_BUDGET);
    scene
        .shapes
        .iter()
        .enumerate()
        .map(|(i, s)| match s.kind {
            ShapeKind::Line => Role::Rule,
            ShapeKind::Path => Role::Vertices,
            ShapeKind::Circle | ShapeKind::Ellipse | ShapeKind::Use => Role::PointMark,
            ShapeKind::Rect if !s.filled => Role::Frame,
            ShapeKind::Rect => {
                // Strictly inside: a tick on a bar's edge does not make the bar a frame.
                let inner = BBox {
                    x0: s.bbox.x0 + tol,
                    y0: s.bbox.y0 + tol,
                    x1: s.bbox.x1 - tol,
                    y1: s.bbox.y1 - tol,
                };
                let encloses_point = in_range(&point_order, &point_x, inner.x0, inner.x1)
                    .iter()
                    .take_while(|_| budget.spend())
                    .any(|&k| points[k].0 != i && inner.contains_point(points[k].1, 0.0));
                let encloses_rect = encloses_point
                    || in_range(&rect_order, &rect_x, s.bbox.x0 - tol, s.bbox.x1 + tol)
                        .iter()
                        .take_while(|_| budget.spend())
                        .map(|&k| rects[k])
                        .any(|k| {
                            k != i
                                && s.bbox.contains(&scene.shapes[k].bbox, tol)
                                && scene.shapes[k].bbox != s.bbox
                        });
                if encloses_rect {
                    Role::Frame
                } else {
                    Role::PointMark
                }
            }
        })
        .collect()
}

/// A detected panel.
#[derive(Clone, Debug, PartialEq)]
pub struct Panel {
    pub area: BBox,
    /// Index of its title text (the largest title-like text, then the topmost).
    pub title: usize,
    /// Indices of its year labels, along `axis`.
    pub year_labels: Vec<usize>,
    pub axis: Axis,
    /// Texts and shapes it holds (indices into the scene).
    pub texts: Vec<usize>,
    pub shapes: Vec<usize>,
    /// Line of the element that defines it (its group or frame).
    pub line: usize,
}

/// An area that has year labels but lacks a title or a series.
#[derive(Clone, Debug, PartialEq)]
pub struct NearPanel {
    pub area: BBox,
    pub line: usize,
    pub missing_title: bool,
    pub missing_series: bool,
}

#[derive(Clone, Debug, Default, PartialEq)]
pub struct Detection {
    pub panels: Vec<Panel>,
    pub near: Vec<NearPanel>,
    /// Whether more qualifying areas existed than were compared.
    pub truncated: bool,
}

struct Candidate {
    members: Bits,
    texts: Vec<usize>,
    shapes: Vec<usize>,
    frame: Option<usize>,
    line: usize,
    years: Option<(Axis, Vec<usize>)>,
    title: Option<usize>,
    series: bool,
}

impl Candidate {
    fn qualifies(&self) -> bool {
        self.years.is_some() && self.title.is_some() && self.series
    }
}

/// Detect the panels of a scene.
///
/// Groups and frames find the panels of grouped, framed and matplotlib charts. When they find
/// fewer than two panels, the chart may be flat and bare (no groups, no frames): the areas between
/// its gutters are added as candidates ([`gutter_candidates`]) and kept if they find more panels.
pub fn detect(scene: &Scene, roles: &[Role], tol: f64) -> Detection {
    let view = View {
        scene,
        roles,
        years: scene.texts.iter().map(|t| year_of(&t.content)).collect(),
        title_like: scene
            .texts
            .iter()
            .map(|t| is_title_like(&t.content))
            .collect(),
        tol,
    };
    let (candidates, truncated) = collect(&view);
    let found = select(&view, candidates, truncated);
    if found.panels.len() >= 2 || found.truncated {
        return found;
    }
    let mut budget = Budget(WORK_BUDGET);
    let extra = gutter_candidates(&view, &mut budget);
    if extra.is_empty() || budget.0 == 0 {
        return found;
    }
    let (mut candidates, truncated) = collect(&view);
    candidates.extend(extra);
    let flat = select(&view, candidates, truncated);
    if flat.panels.len() > found.panels.len() {
        flat
    } else {
        found
    }
}

/// Candidates from groups and frames, and whether the work budget ran out.
fn collect(view: &View) -> (Vec<Candidate>, bool) {
    let scene = view.scene;
    let (roles, tol) = (view.roles, view.tol);
    let mut candidates: Vec<Candidate> = Vec::new();
    // Groups: every item joins each of its enclosing containers.
    let slot: std::collections::HashMap<usize, usize> = scene
        .groups
        .iter()
        .enumerate()
        .map(|(k, &(g, _))| (g, k))
        .collect();
    let mut members: Vec<(Vec<usize>, Vec<usize>)> =
        vec![(Vec::new(), Vec::new()); scene.groups.len()];
    for (t, text) in scene.texts.iter().enumerate() {
        text.groups
            .iter()
            .filter_map(|g| slot.get(g))
            .for_each(|&k| members[k].0.push(t));
    }
    for (s, shape) in scene.shapes.iter().enumerate() {
        shape
            .groups
            .iter()
            .filter_map(|g| slot.get(g))
            .for_each(|&k| members[k].1.push(s));
    }
    for (&(_, line), (texts, shapes)) in scene.groups.iter().zip(members) {
        candidates.push(candidate(view, texts, shapes, None, line));
    }
    // Frames: every item whose box lies inside.
    let text_x: Vec<f64> = scene.texts.iter().map(|t| t.bbox.x0).collect();
    let text_order = sorted_by(&text_x);
    let shape_x: Vec<f64> = scene.shapes.iter().map(|s| s.bbox.x0).collect();
    let shape_order = sorted_by(&shape_x);
    let mut budget = Budget(WORK_BUDGET);
    let mut truncated = false;
    for (f, frame) in scene
        .shapes
        .iter()
        .enumerate()
        .filter(|(f, _)| roles[*f] == Role::Frame)
    {
        let b = frame.bbox;
        let mut texts: Vec<usize> = Vec::new();
        for &t in in_range(&text_order, &text_x, b.x0 - tol, b.x1 + tol) {
            truncated |= !budget.spend();
            if b.contains(&scene.texts[t].bbox, tol) {
                texts.push(t);
            }
        }
        let mut shapes: Vec<usize> = Vec::new();
        for &s in in_range(&shape_order, &shape_x, b.x0 - tol, b.x1 + tol) {
            truncated |= !budget.spend();
            if s == f || b.contains(&scene.shapes[s].bbox, tol) {
                shapes.push(s);
            }
        }
        // Classifying the candidate costs about a sort of its members.
        truncated |= !budget.spend_n(16 * (texts.len() + shapes.len()));
        if truncated {
            break;
        }
        texts.sort_unstable();
        shapes.sort_unstable();
        candidates.push(candidate(view, texts, shapes, Some(f), frame.line));
    }
    if !truncated {
        extend_frames(view, &mut candidates, &mut budget);
    }
    (candidates, truncated)
}

/// The panels among `candidates`: the outermost qualifying ones that are not containers of two.
fn select(view: &View, mut candidates: Vec<Candidate>, mut truncated: bool) -> Detection {
    let scene = view.scene;
    let (roles, tol) = (view.roles, view.tol);
    let n_texts = scene.texts.len();
    // The same content found as a group and as a frame is one candidate; keep the frame.
    candidates.retain(|c| c.years.is_some() && (c.title.is_some() || c.series));
    candidates.sort_by_key(|c| c.frame.is_none());
    let mut unique: Vec<Candidate> = Vec::new();
    let mut seen: std::collections::HashMap<u64, Vec<usize>> = std::collections::HashMap::new();
    for c in candidates {
        let key = {
            use std::hash::{Hash, Hasher};
            let mut h = std::collections::hash_map::DefaultHasher::new();
            (&c.texts, &c.shapes).hash(&mut h);
            h.finish()
        };
        let same = seen.entry(key).or_default();
        if !same
            .iter()
            .any(|&u| unique[u].texts == c.texts && unique[u].shapes == c.shapes)
        {
            same.push(unique.len());
            unique.push(c);
        }
        if unique.len() > MAX_QUALIFYING {
            truncated = true;
            break;
        }
    }
    for c in &mut unique {
        let mut bits = Bits::new(n_texts + scene.shapes.len());
        c.texts.iter().for_each(|&t| bits.set(t));
        c.shapes.iter().for_each(|&s| bits.set(n_texts + s));
        c.members = bits;
    }
    // The pool: qualifying candidates and near misses (year labels with a title or a series).
    let pool = unique;
    let is_container = |a: &Candidate| {
        let inside: Vec<&Candidate> = pool
            .iter()
            .filter(|b| b.members != a.members && b.members.subset_of(&a.members))
            .collect();
        inside.iter().enumerate().any(|(i, b)| {
            inside[i + 1..]
                .iter()
                .any(|c| b.members.disjoint(&c.members))
        })
    };
    let leaves: Vec<&Candidate> = pool.iter().filter(|c| !is_container(c)).collect();
    let outermost: Vec<&Candidate> = leaves
        .iter()
        .filter(|a| {
            !leaves
                .iter()
                .any(|b| b.members != a.members && a.members.subset_of(&b.members))
        })
        .copied()
        .collect();
    let panels: Vec<Panel> = outermost
        .iter()
        .filter(|c| c.qualifies())
        .map(|c| panel(scene, roles, c, tol))
        .collect();
    let near = outermost
        .iter()
        .filter(|c| !c.qualifies())
        .map(|c| NearPanel {
            area: area_of(scene, roles, c, tol),
            line: c.line,
            missing_title: c.title.is_none(),
            missing_series: !c.series,
        })
        .collect();
    Detection {
        panels,
        near,
        truncated,
    }
}

/// Flat charts often frame only the plot area, with the title above it and the year labels
/// below. Each text outside the frames of its own enclosing area (its *home*: the smallest frame
/// holding it, or the canvas) is attached to the nearest frame inside that home level with its
/// centre, across or along; each frame with attached texts becomes one more candidate: the
/// frame's content plus those texts, its area their bounding box. A text centred between frames
/// (a figure title), or as near to two frames as to either (a note under two panels), is
/// attached to none.
fn extend_frames(v: &View, candidates: &mut Vec<Candidate>, budget: &mut Budget) {
    let tol = v.tol;
    let frames: Vec<(usize, BBox)> = candidates
        .iter()
        .filter_map(|c| c.frame.map(|f| (f, v.scene.shapes[f].bbox)))
        .collect();
    let area = |b: &BBox| b.width() * b.height();
    let mut attached: Vec<Vec<usize>> = vec![Vec::new(); frames.len()];
    for (t, text) in v.scene.texts.iter().enumerate() {
        if !budget.spend_n(2 * frames.len()) {
            return;
        }
        let tb = text.bbox;
        let home = frames
            .iter()
            .filter(|(_, b)| b.contains(&tb, tol))
            .min_by(|a, b| area(&a.1).total_cmp(&area(&b.1)))
            .map(|h| h.1);
        let levels: Vec<(usize, f64)> = frames
            .iter()
            .enumerate()
            .filter(|(_, (_, b))| {
                !b.contains(&tb, tol) && home.is_none_or(|h| h.contains(b, tol) && h != *b)
            })
            .filter(|(_, (_, b))| {
                // Level with the frame: centred on its extent, overhanging it by at most an em
                // (an axis label at the frame's edge); a wide figure title is not.
                let (cx, cy) = tb.center();
                let em = text.font_px;
                let within_x = cx >= b.x0 - tol
                    && cx <= b.x1 + tol
                    && tb.x0 >= b.x0 - em
                    && tb.x1 <= b.x1 + em;
                let within_y = cy >= b.y0 - tol
                    && cy <= b.y1 + tol
                    && tb.y0 >= b.y0 - em
                    && tb.y1 <= b.y1 + em;
                within_x || within_y
            })
            .map(|(k, (_, b))| {
                let dx = (b.x0 - tb.x1).max(tb.x0 - b.x1).max(0.0);
                let dy = (b.y0 - tb.y1).max(tb.y0 - b.y1).max(0.0);
                (k, dx.max(dy))
            })
            .collect();
        let nearest = levels.iter().min_by(|a, b| a.1.total_cmp(&b.1));
        // As near to two frames (a source note centred under two panels): attached to none.
        let tied = nearest
            .is_some_and(|&(k, d)| levels.iter().any(|&(j, e)| j != k && (e - d).abs() <= tol));
        if let (Some(&(k, _)), false) = (nearest, tied) {
            attached[k].push(t);
        }
    }
    for ((f, _), extra) in frames.iter().zip(attached).filter(|(_, e)| !e.is_empty()) {
        let Some(base) = candidates.iter().find(|c| c.frame == Some(*f)) else {
            continue;
        };
        let mut texts: Vec<usize> = base.texts.iter().copied().chain(extra).collect();
        texts.sort_unstable();
        texts.dedup();
        let (shapes, line) = (base.shapes.clone(), base.line);
        candidates.push(candidate(v, texts, shapes, None, line));
    }
}

/// How deep the gutter split goes: a 2×2 chart needs 2 levels (3 with a figure title or legend
/// peeled off first); the limit bounds the work on hostile input.
const MAX_GUTTER_DEPTH: usize = 8;

/// A scene item placed by the gutter split: a text (`Ok`) or a non-frame shape (`Err`).
#[derive(Clone, Copy)]
struct Placed {
    item: Result<usize, usize>,
    bbox: BBox,
}

/// Candidates of a flat chart without groups or frames, by recursive gutter splitting (the XY-cut
/// of document layout analysis). An area is split along the widest empty band (a *gutter*) across
/// it, horizontal or vertical, whose two sides could each hold a panel (each has a year label and
/// a title-like text); bands inside a panel fail that test (one side lacks the title, or the year
/// labels). When no band splits an area so, a side without year labels (a figure title, a note, a
/// legend) is peeled off, if what remains then splits. Every area split off is a candidate; the
/// usual selection keeps the outermost that qualify and are not containers. Frames are left out of
/// the bands (they would bridge every gutter) and join the areas that enclose them.
fn gutter_candidates(v: &View, budget: &mut Budget) -> Vec<Candidate> {
    let scene = v.scene;
    let items: Vec<Placed> = (0..scene.texts.len())
        .map(|t| Placed {
            item: Ok(t),
            bbox: scene.texts[t].bbox,
        })
        .chain(
            (0..scene.shapes.len())
                .filter(|&s| v.roles[s] != Role::Frame)
                .map(|s| Placed {
                    item: Err(s),
                    bbox: scene.shapes[s].bbox,
                }),
        )
        .filter(|p| {
            [p.bbox.x0, p.bbox.y0, p.bbox.x1, p.bbox.y1]
                .iter()
                .all(|c| c.is_finite())
        })
        .collect();
    let mut out = Vec::new();
    split_area(v, items, 0, budget, &mut out);
    out
}

fn split_area(
    v: &View,
    items: Vec<Placed>,
    depth: usize,
    budget: &mut Budget,
    out: &mut Vec<Candidate>,
) {
    if depth > 0 {
        out.push(area_candidate(v, &items));
    }
    if depth >= MAX_GUTTER_DEPTH || items.len() < 2 || !budget.spend_n(8 * items.len()) {
        return;
    }
    if let Some((left, right)) = best_gutter(v, &items, false) {
        split_area(v, left, depth + 1, budget, out);
        split_area(v, right, depth + 1, budget, out);
        return;
    }
    // Peel off a side without year labels when the rest then splits into panels.
    if let Some((rest, _decoration)) = best_gutter(v, &items, true) {
        if best_gutter(v, &rest, false).is_some() {
            split_area(v, rest, depth + 1, budget, out);
        }
    }
}

/// The widest gutter across `items` and the items on either side. With `peel`, a gutter with year
/// labels on one side only, returned as (that side, the other); else one whose sides could each
/// hold a panel.
fn best_gutter(v: &View, items: &[Placed], peel: bool) -> Option<(Vec<Placed>, Vec<Placed>)> {
    let is_year = |p: &Placed| matches!(p.item, Ok(t) if v.years[t].is_some());
    let is_title = |p: &Placed| matches!(p.item, Ok(t) if v.title_like[t]);
    let mut best: Option<(f64, Vec<Placed>, Vec<Placed>)> = None;
    for vertical_band in [true, false] {
        let lo = |b: &BBox| {
            if vertical_band {
                (b.x0, b.x1)
            } else {
                (b.y0, b.y1)
            }
        };
        let mut sorted = items.to_vec();
        sorted.sort_by(|a, b| lo(&a.bbox).0.total_cmp(&lo(&b.bbox).0));
        let (years_total, titles_total) = (
            sorted.iter().filter(|p| is_year(p)).count(),
            sorted.iter().filter(|p| is_title(p)).count(),
        );
        let (mut years, mut titles) = (0, 0);
        let mut reach = f64::NEG_INFINITY;
        for i in 1..sorted.len() {
            let prev = &sorted[i - 1];
            reach = reach.max(lo(&prev.bbox).1);
            years += usize::from(is_year(prev));
            titles += usize::from(is_title(prev));
            let gap = lo(&sorted[i].bbox).0 - reach;
            if gap <= v.tol || best.as_ref().is_some_and(|b| gap <= b.0) {
                continue;
            }
            let (ry, rt) = (years_total - years, titles_total - titles);
            let (left, right) = (sorted[..i].to_vec(), sorted[i..].to_vec());
            let panels_both_sides = years > 0 && titles > 0 && ry > 0 && rt > 0;
            if (!peel && panels_both_sides) || (peel && years > 0 && ry == 0) {
                best = Some((gap, left, right));
            } else if peel && years == 0 && ry > 0 {
                best = Some((gap, right, left));
            }
        }
    }
    best.map(|(_, a, b)| (a, b))
}

/// The candidate of one area: its items, and the frames its items' box encloses.
fn area_candidate(v: &View, items: &[Placed]) -> Candidate {
    let scene = v.scene;
    let mut texts: Vec<usize> = items.iter().filter_map(|p| p.item.ok()).collect();
    let mut shapes: Vec<usize> = items.iter().filter_map(|p| p.item.err()).collect();
    if let Some(area) = items.iter().map(|p| p.bbox).reduce(|a, b| a.union(&b)) {
        shapes.extend(
            (0..scene.shapes.len()).filter(|&s| {
                v.roles[s] == Role::Frame && area.contains(&scene.shapes[s].bbox, v.tol)
            }),
        );
    }
    texts.sort_unstable();
    shapes.sort_unstable();
    let line = texts
        .iter()
        .map(|&t| scene.texts[t].line)
        .chain(shapes.iter().map(|&s| scene.shapes[s].line))
        .min()
        .unwrap_or(1);
    candidate(v, texts, shapes, None, line)
}

/// The scene with each text classified once (year label, title-like).
struct View<'a> {
    scene: &'a Scene,
    roles: &'a [Role],
    years: Vec<Option<i32>>,
    title_like: Vec<bool>,
    tol: f64,
}

fn candidate(
    v: &View,
    texts: Vec<usize>,
    shapes: Vec<usize>,
    frame: Option<usize>,
    line: usize,
) -> Candidate {
    let (scene, roles) = (v.scene, v.roles);
    let years = year_labels(v, &texts);
    let title = texts
        .iter()
        .copied()
        .filter(|&t| v.title_like[t])
        .max_by(|&a, &b| {
            let (ta, tb) = (&scene.texts[a], &scene.texts[b]);
            ta.font_px
                .total_cmp(&tb.font_px)
                .then(tb.bbox.y0.total_cmp(&ta.bbox.y0))
        });
    let point_marks = shapes
        .iter()
        .filter(|&&s| roles[s] == Role::PointMark)
        .count();
    let series = point_marks >= 2
        || shapes
            .iter()
            .any(|&s| roles[s] == Role::Vertices && scene.shapes[s].points.len() >= 2);
    Candidate {
        members: Bits::new(0),
        texts,
        shapes,
        frame,
        line,
        years,
        title,
        series,
    }
}

/// The largest aligned set of year labels (a row sharing a baseline, or a column sharing an
/// anchor x) among `texts`, when it names at least two distinct years.
fn year_labels(v: &View, texts: &[usize]) -> Option<(Axis, Vec<usize>)> {
    let (all, tol) = (&v.scene.texts, v.tol);
    let years: Vec<usize> = texts
        .iter()
        .copied()
        .filter(|&t| v.years[t].is_some())
        .collect();
    if years.len() < 2 {
        return None;
    }
    let mut best: Option<(usize, Axis, Vec<usize>)> = None;
    for axis in [Axis::Horizontal, Axis::Vertical] {
        // Aligned across the axis: a row shares y, a column shares x.
        let key = |t: usize| match axis {
            Axis::Horizontal => all[t].anchor.1,
            Axis::Vertical => all[t].anchor.0,
        };
        let mut sorted = years.clone();
        sorted.sort_by(|&a, &b| key(a).total_cmp(&key(b)));
        let mut start = 0;
        for i in 1..=sorted.len() {
            if i == sorted.len() || key(sorted[i]) - key(sorted[i - 1]) > 2.0 * tol {
                let run = sorted[start..i].to_vec();
                let mut distinct: Vec<i32> = run.iter().filter_map(|&t| v.years[t]).collect();
                distinct.sort_unstable();
                distinct.dedup();
                if distinct.len() >= 2 && best.as_ref().is_none_or(|(n, _, _)| distinct.len() > *n)
                {
                    best = Some((distinct.len(), axis, run));
                }
                start = i;
            }
        }
    }
    best.map(|(_, axis, mut run)| {
        run.sort_by(|&a, &b| {
            axis.category(all[a].anchor)
                .total_cmp(&axis.category(all[b].anchor))
        });
        (axis, run)
    })
}

/// A candidate's area: its frame, or a frame among its shapes that encloses all the rest, or the
/// bounding box of everything it holds.
fn area_of(scene: &Scene, roles: &[Role], c: &Candidate, tol: f64) -> BBox {
    if let Some(f) = c.frame {
        return scene.shapes[f].bbox;
    }
    let all = c
        .texts
        .iter()
        .map(|&t| scene.texts[t].bbox)
        .chain(c.shapes.iter().map(|&s| scene.shapes[s].bbox))
        .reduce(|a, b| a.union(&b));
    let Some(all) = all else {
        return BBox {
            x0: 0.0,
            y0: 0.0,
            x1: 0.0,
            y1: 0.0,
        };
    };
    c.shapes
        .iter()
        .filter(|&&s| roles[s] == Role::Frame && scene.shapes[s].bbox.contains(&all, tol))
        .map(|&s| scene.shapes[s].bbox)
        .next()
        .unwrap_or(all)
}

fn panel(scene: &Scene, roles: &[Role], c: &Candidate, tol: f64) -> Panel {
    let (axis, year_labels) = c.years.clone().unwrap_or((Axis::Horizontal, Vec::new()));
    Panel {
        area: area_of(scene, roles, c, tol),
        title: c.title.unwrap_or(0),
        year_labels,
        axis,
        texts: c.texts.clone(),
        shapes: c.shapes.clone(),
        line: c.line,
    }
}

/// A fixed-size bit set over scene items (texts, then shapes).
#[derive(Clone, Debug, PartialEq, Eq)]
struct Bits(Vec<u64>);

impl Bits {
    fn new(n: usize) -> Bits {
        Bits(vec![0; n.div_ceil(64)])
    }
    fn set(&mut self, i: usize) {
        self.0[i / 64] |= 1 << (i % 64);
    }
    fn subset_of(&self, o: &Bits) -> bool {
        self.0.iter().zip(&o.0).all(|(a, b)| a & !b == 0)
    }
    fn disjoint(&self, o: &Bits) -> bool {
        self.0.iter().zip(&o.0).all(|(a, b)| a & b == 0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn recognises_every_year_form() {
        assert_eq!(year_of("2021"), Some(2021));
        assert_eq!(year_of("FY2021"), Some(2021));
        assert_eq!(year_of("FY 2021"), Some(2021));
        assert_eq!(year_of("fy21"), Some(2021));
        assert_eq!(year_of("1,500"), None);
        assert_eq!(year_of("3021"), None);
        assert_eq!(year_of("2021E"), None);
    }

    #[test]
    fn axis_numbers_are_not_titles() {
        for n in ["0", "1,000", "$1.2bn", "-5%", "(3)", "1.5x", "−2.5%", "0.0"] {
            assert!(is_numeric(n), "{n}");
            assert!(!is_title_like(n), "{n}");
        }
        assert_eq!(numeric_value("(3)"), Some(-3.0));
        assert!(is_title_like("Revenue ($m)"));
        assert!(!is_title_like("FY2022"));
    }
}
