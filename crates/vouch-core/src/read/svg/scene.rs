//! From the element tree to what is drawn: the canvas, every text with its effective font size
//! and extent, and every shape, all in rendered px after transforms and the viewBox (contract §4).
//! Definitions and other non-rendered content are skipped. Nothing here judges.

use super::geometry::{
    coordinate, numbers, parse_css_transform, parse_length, parse_path, parse_transform, BBox,
    Length, Transform,
};
use super::parse::{Child, Document, Element};
use super::shorten;
use super::style::{font_size, winning, StyleSheet, PROPERTIES as STYLE_PROPERTIES};

/// Most path vertices read across the chart (bounds time and memory).
pub const MAX_VERTICES: usize = 500_000;

/// Elements whose content is never rendered where it stands.
const NOT_RENDERED: [&str; 17] = [
    "defs",
    "symbol",
    "clipPath",
    "mask",
    "marker",
    "pattern",
    "linearGradient",
    "radialGradient",
    "filter",
    "title",
    "desc",
    "metadata",
    "style",
    "script",
    "foreignObject",
    "font",
    "font-face",
];

/// Animation elements: what they animate is not what vouch reads at rest.
const ANIMATIONS: [&str; 4] = ["animate", "set", "animateTransform", "animateMotion"];

/// Attributes whose animation moves or resizes what the checks read.
const ANIMATED_GEOMETRY: [&str; 15] = [
    "x", "y", "width", "height", "cx", "cy", "r", "rx", "ry", "d", "points", "x1", "y1", "x2", "y2",
];

/// `0.5` or `50%`, clamped to [0, 1] as CSS does; `None` if not a number.
fn opacity(v: &str) -> Option<f64> {
    let v = v.trim();
    let o = match v.strip_suffix('%') {
        Some(p) => p.trim().parse::<f64>().ok()? / 100.0,
        None => v.parse::<f64>().ok()?,
    };
    o.is_finite().then(|| o.clamp(0.0, 1.0))
}

/// `transform-origin` in px (`10px 20px`, `0 0`, `left top`); `None` for what depends on a box
/// vouch does not compute (`center`, percentages).
fn transform_origin(v: &str) -> Option<(f64, f64)> {
    let mut xy = [0.0f64; 2];
    let parts: Vec<&str> = v.split_whitespace().collect();
    if parts.is_empty() || parts.len() > 3 {
        return None;
    }
    for (k, p) in parts.iter().take(2).enumerate() {
        xy[k] = match p.to_ascii_lowercase().as_str() {
            "left" | "top" => 0.0,
            _ => match parse_length(p) {
                Some(Length::Px(px)) if p.ends_with("px") || px == 0.0 => px,
                _ => return None,
            },
        };
    }
    if parts.len() == 3 && parse_length(parts[2]) != Some(Length::Px(0.0)) {
        return None;
    }
    Some((xy[0], xy[1]))
}

/// The rendered canvas: `[0, width] × [0, height]` px, and the map from root user units to px.
#[derive(Clone, Debug, PartialEq)]
pub struct Canvas {
    pub width: f64,
    pub height: f64,
    pub root: Transform,
}

impl Canvas {
    pub fn bbox(&self) -> BBox {
        BBox {
            x0: 0.0,
            y0: 0.0,
            x1: self.width,
            y1: self.height,
        }
    }
}

/// Why the canvas has no usable size.
#[derive(Clone, Debug, PartialEq)]
pub enum SizeProblem {
    NotSvg {
        name: String,
    },
    NoSize,
    Invalid {
        attribute: &'static str,
        value: String,
    },
}

#[derive(Clone, Debug, PartialEq)]
pub struct Text {
    /// Whitespace-collapsed content.
    pub content: String,
    /// The anchor point `(x, y)` in px.
    pub anchor: (f64, f64),
    /// The contract's text box (0.6 em per character × [y − size, y]) in px.
    pub bbox: BBox,
    /// Effective font size at the rendered size, px.
    pub font_px: f64,
    pub element: usize,
    pub line: usize,
    /// Container elements (`svg`, `g`, `a`, `switch`) enclosing it, outermost first.
    pub groups: Vec<usize>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ShapeKind {
    /// `path`, `polyline` or `polygon`: its vertices are marks.
    Path,
    /// A `rect`, or a closed path or polygon that draws an axis-aligned rectangle.
    Rect,
    Circle,
    Ellipse,
    /// A `use` of a local `#id`.
    Use,
    /// A `line` element (a rule or tick, never a data mark).
    Line,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Shape {
    pub kind: ShapeKind,
    /// Path vertices, a centre, a use's point, or a line's ends, in px.
    pub points: Vec<(f64, f64)>,
    pub bbox: BBox,
    pub filled: bool,
    /// The fill as declared (to tell a chart's bars from a legend swatch).
    pub fill: String,
    pub href: Option<String>,
    pub element: usize,
    pub line: usize,
    pub groups: Vec<usize>,
}

#[derive(Clone, Debug, Default, PartialEq)]
pub struct Scene {
    pub texts: Vec<Text>,
    pub shapes: Vec<Shape>,
    /// Container elements that hold something drawn, by element index, with their line.
    pub groups: Vec<(usize, usize)>,
    /// What vouch does not model that may change what a viewer sees: a style rule it does not
    /// evaluate, a transform or opacity it cannot resolve, an animation of a property it reads.
    /// Each with the line it is on (0: a `<style>` rule) and a description.
    pub unmodelled: Vec<(usize, String)>,
    /// Style rules seen (see [`super::style::MAX_RULES`]).
    pub style_rules: usize,
    /// Selector matching ran out of its budget ([`super::style::MAX_MATCH_STEPS`]).
    pub style_exhausted: bool,
}

/// The root's canvas (contract §4: min(width/vb_width, height/vb_height); with `%` or absent
/// sizes, 1 user unit = 1 px).
pub fn canvas(root: &Element) -> Result<Canvas, SizeProblem> {
    if root.name != "svg" {
        return Err(SizeProblem::NotSvg {
            name: root.name.clone(),
        });
    }
    let size = |attribute: &'static str| -> Result<Option<f64>, SizeProblem> {
        match root.attr(attribute).map(str::trim) {
            None | Some("") | Some("auto") => Ok(None),
            Some(v) => match parse_length(v) {
                Some(Length::Px(px)) if px > 0.0 && px.is_finite() => Ok(Some(px)),
                Some(Length::Percent(_)) => Ok(None),
                _ => Err(SizeProblem::Invalid {
                    attribute,
                    value: v.to_string(),
                }),
            },
        }
    };
    let (w, h) = (size("width")?, size("height")?);
    let view_box = match root.attr("viewBox") {
        None => None,
        Some(v) => match numbers(v).as_deref() {
            Some(&[x, y, vw, vh]) if vw > 0.0 && vh > 0.0 => Some((x, y, vw, vh)),
            _ => {
                return Err(SizeProblem::Invalid {
                    attribute: "viewBox",
                    value: v.to_string(),
                })
            }
        },
    };
    let Some((vx, vy, vw, vh)) = view_box else {
        return match (w, h) {
            (Some(width), Some(height)) => Ok(Canvas {
                width,
                height,
                root: Transform::IDENTITY,
            }),
            _ => Err(SizeProblem::NoSize),
        };
    };
    let (width, height) = match (w, h) {
        (Some(w), Some(h)) => (w, h),
        (Some(w), None) => (w, w * vh / vw),
        (None, Some(h)) => (h * vw / vh, h),
        (None, None) => (vw, vh),
    };
    let par = root
        .attr("preserveAspectRatio")
        .unwrap_or("")
        .trim()
        .to_string();
    let (sx, sy) = if par.starts_with("none") {
        (width / vw, height / vh)
    } else {
        let s = (width / vw).min(height / vh);
        (s, s)
    };
    let align = |free: f64, min: &str, max: &str| {
        if par.contains(min) {
            0.0
        } else if par.contains(max) {
            free
        } else {
            free / 2.0
        }
    };
    let tx = align(width - vw * sx, "xMin", "xMax") - vx * sx;
    let ty = align(height - vh * sy, "YMin", "YMax") - vy * sy;
    Ok(Canvas {
        width,
        height,
        root: Transform::translate(tx, ty).then(&Transform::scale(sx, sy)),
    })
}

/// Inherited state while walking the tree.
#[derive(Clone)]
struct State {
    ctm: Transform,
    font: f64,
    fill: String,
    fill_opacity: String,
    anchor: String,
    hidden: bool,
    /// Group opacity so far (a child cannot raise it).
    opacity: f64,
    groups: Vec<usize>,
}

struct Builder<'a> {
    doc: &'a Document,
    sheet: StyleSheet,
    char_width_em: f64,
    scene: Scene,
    vertices: usize,
}

/// Build the scene under the canvas map.
pub fn build(doc: &Document, canvas: &Canvas, default_font_px: f64, char_width_em: f64) -> Scene {
    let mut sheet = StyleSheet::default();
    for e in doc.elements.iter().filter(|e| e.name == "style") {
        sheet.add(&e.own_text());
    }
    let unmodelled = sheet
        .unmodelled
        .iter()
        .map(|u| {
            (
                0,
                format!(
                    "the style rule `{}` sets `{}`, and vouch does not evaluate such rules",
                    shorten(&u.rule),
                    u.property
                ),
            )
        })
        .collect();
    let style_rules = sheet.seen;
    let mut b = Builder {
        doc,
        sheet,
        char_width_em,
        scene: Scene {
            unmodelled,
            style_rules,
            ..Scene::default()
        },
        vertices: 0,
    };
    let state = State {
        ctm: canvas.root,
        font: default_font_px,
        fill: "black".into(),
        fill_opacity: "1".into(),
        anchor: "start".into(),
        hidden: false,
        opacity: 1.0,
        groups: Vec::new(),
    };
    for el in &doc.elements {
        if !ANIMATIONS.contains(&el.name.as_str()) {
            continue;
        }
        let target = match el.name.as_str() {
            "animateTransform" => Some("transform"),
            "animateMotion" => Some("position"),
            _ => el.attr("attributeName").map(str::trim),
        };
        if let Some(t) = target.filter(|t| {
            *t == "position" || STYLE_PROPERTIES.contains(t) || ANIMATED_GEOMETRY.contains(t)
        }) {
            b.unmodel(el.line, format!("<{}> animates `{t}`", el.name));
        }
    }
    b.walk(0, &state);
    b.scene.style_exhausted = b.sheet.exhausted();
    b.scene
}

impl Builder<'_> {
    /// The element's own state: inherited values overridden by its declarations.
    fn state(&mut self, i: usize, parent: &State) -> Option<State> {
        let el = &self.doc.elements[i];
        let mut s = parent.clone();
        let mut transform = None;
        let mut origin = None;
        for (prop, value) in winning(&self.sheet.declarations(self.doc, i)) {
            let v = value.trim();
            if v == "inherit" {
                continue;
            }
            match prop {
                "font-size" => s.font = font_size(v, parent.font),
                "fill" => s.fill = v.to_string(),
                "fill-opacity" => s.fill_opacity = v.to_string(),
                "text-anchor" => s.anchor = v.to_string(),
                "display" if v == "none" => return None,
                "visibility" => s.hidden = v == "hidden" || v == "collapse",
                "opacity" => match opacity(v) {
                    Some(o) => s.opacity *= o,
                    None => self.unmodel(
                        el.line,
                        format!("opacity `{}` on <{}>", shorten(v), el.name),
                    ),
                },
                "transform" => transform = Some(value.clone()),
                "transform-origin" => origin = Some(value.clone()),
                _ => {}
            }
        }
        if let Some(t) = transform {
            // The attribute is SVG syntax; a style sheet's value is CSS syntax.
            let m = if el.attr("transform") == Some(t.as_str()) {
                Some(parse_transform(&t))
            } else {
                parse_css_transform(&t)
            };
            let o = match origin.as_deref().map(str::trim) {
                None => Some((0.0, 0.0)),
                Some(o) => transform_origin(o),
            };
            match (m, o) {
                (Some(m), Some((ox, oy))) => {
                    let m = Transform::translate(ox, oy)
                        .then(&m)
                        .then(&Transform::translate(-ox, -oy));
                    s.ctm = s.ctm.then(&m);
                }
                (None, _) => self.unmodel(
                    el.line,
                    format!("transform `{}` on <{}>", shorten(&t), el.name),
                ),
                (_, None) => self.unmodel(
                    el.line,
                    format!(
                        "transform-origin `{}` on <{}>",
                        shorten(origin.as_deref().unwrap_or("")),
                        el.name
                    ),
                ),
            }
        }
        if s.opacity <= 0.0 {
            s.hidden = true;
        }
        Some(s)
    }

    fn unmodel(&mut self, line: usize, what: String) {
        if self.scene.unmodelled.len() < super::style::MAX_RULES {
            self.scene.unmodelled.push((line, what));
        }
    }

    fn walk(&mut self, i: usize, parent: &State) {
        let el = &self.doc.elements[i];
        if NOT_RENDERED.contains(&el.name.as_str()) {
            return;
        }
        let Some(mut s) = self.state(i, parent) else {
            return;
        };
        match el.name.as_str() {
            "svg" | "g" | "a" | "switch" => {
                if i != 0 && el.name == "svg" {
                    let (x, y) = (coordinate(el.attr("x")), coordinate(el.attr("y")));
                    s.ctm = s.ctm.then(&Transform::translate(x, y));
                }
                s.groups.push(i);
                let before = (self.scene.texts.len(), self.scene.shapes.len());
                for c in &el.children {
                    if let Child::Element(k) = c {
                        self.walk(*k, &s);
                    }
                }
                if (self.scene.texts.len(), self.scene.shapes.len()) != before {
                    self.scene.groups.push((i, el.line));
                }
            }
            "text" => self.text(i, &s, None),
            _ => {
                if !s.hidden {
                    self.shape(i, &s);
                }
            }
        }
    }

    /// A `text` (or a positioned `tspan`) and, separately, its positioned `tspan`s.
    fn text(&mut self, i: usize, s: &State, origin: Option<(f64, f64)>) {
        let el = &self.doc.elements[i];
        let (px, py) = origin.unwrap_or((0.0, 0.0));
        let x = el.attr("x").map(|v| coordinate(Some(v))).unwrap_or(px);
        let y = el.attr("y").map(|v| coordinate(Some(v))).unwrap_or(py);
        let mut content = String::new();
        let mut positioned = Vec::new();
        self.gather(i, &mut content, &mut positioned, s);
        let content = content.split_whitespace().collect::<Vec<_>>().join(" ");
        if !content.is_empty() && !s.hidden {
            let w = self.char_width_em * s.font * content.chars().count() as f64;
            let left = match s.anchor.as_str() {
                "middle" => x - w / 2.0,
                "end" => x - w,
                _ => x,
            };
            let user = BBox {
                x0: left,
                y0: y - s.font,
                x1: left + w,
                y1: y,
            };
            self.scene.texts.push(Text {
                content,
                anchor: s.ctm.apply((x, y)),
                bbox: s.ctm.apply_box(&user),
                font_px: s.font * s.ctm.length_scale(),
                element: i,
                line: el.line,
                groups: s.groups.clone(),
            });
        }
        for (k, ks) in positioned {
            self.text(k, &ks, Some((x, y)));
        }
    }

    /// Collect character data of `i` and its unpositioned tspans; positioned ones are returned.
    fn gather(
        &mut self,
        i: usize,
        content: &mut String,
        positioned: &mut Vec<(usize, State)>,
        s: &State,
    ) {
        for c in &self.doc.elements[i].children {
            match c {
                Child::Text(t) => content.push_str(t),
                Child::Element(k) => {
                    let child = &self.doc.elements[*k];
                    if NOT_RENDERED.contains(&child.name.as_str()) {
                        continue;
                    }
                    let Some(cs) = self.state(*k, s) else {
                        continue;
                    };
                    if child.name == "tspan"
                        && (child.attr("x").is_some() || child.attr("y").is_some())
                    {
                        positioned.push((*k, cs));
                    } else {
                        self.gather(*k, content, positioned, &cs);
                    }
                }
            }
        }
    }

    fn shape(&mut self, i: usize, s: &State) {
        let el = &self.doc.elements[i];
        let num = |a: &str| coordinate(el.attr(a));
        let filled = !matches!(s.fill.trim(), "none" | "transparent")
            && s.fill_opacity
                .trim()
                .parse::<f64>()
                .map_or(true, |o| o > 0.0);
        let (kind, points, bbox) = match el.name.as_str() {
            "rect" => {
                let (x, y, w, h) = (num("x"), num("y"), num("width"), num("height"));
                let b = s.ctm.apply_box(&BBox {
                    x0: x,
                    y0: y,
                    x1: x + w.max(0.0),
                    y1: y + h.max(0.0),
                });
                (ShapeKind::Rect, vec![b.center()], b)
            }
            "circle" | "ellipse" => {
                let (cx, cy) = (num("cx"), num("cy"));
                let (rx, ry) = if el.name == "circle" {
                    (num("r"), num("r"))
                } else {
                    (num("rx"), num("ry"))
                };
                let b = s.ctm.apply_box(&BBox {
                    x0: cx - rx,
                    y0: cy - ry,
                    x1: cx + rx,
                    y1: cy + ry,
                });
                let kind = if el.name == "circle" {
                    ShapeKind::Circle
                } else {
                    ShapeKind::Ellipse
                };
                (kind, vec![s.ctm.apply((cx, cy))], b)
            }
            "line" => {
                let pts = vec![
                    s.ctm.apply((num("x1"), num("y1"))),
                    s.ctm.apply((num("x2"), num("y2"))),
                ];
                (ShapeKind::Line, pts.clone(), BBox::around(pts))
            }
            "use" => {
                let href = el.attr("href").unwrap_or("").trim();
                if !href.starts_with('#') || href.len() < 2 {
                    return;
                }
                let p = s.ctm.apply((num("x"), num("y")));
                (ShapeKind::Use, vec![p], BBox::around([p]))
            }
            "polyline" | "polygon" | "path" => {
                let budget = MAX_VERTICES.saturating_sub(self.vertices);
                let subpaths = if el.name == "path" {
                    parse_path(el.attr("d").unwrap_or(""), budget).subpaths
                } else {
                    let nums = numbers(el.attr("points").unwrap_or("")).unwrap_or_default();
                    let pts: Vec<(f64, f64)> = nums
                        .chunks_exact(2)
                        .take(budget)
                        .map(|p| (p[0], p[1]))
                        .collect();
                    vec![(pts, el.name == "polygon")]
                };
                let pts: Vec<(f64, f64)> = subpaths
                    .iter()
                    .flat_map(|(v, _)| v.iter().map(|p| s.ctm.apply(*p)))
                    .collect();
                if pts.is_empty() {
                    return;
                }
                self.vertices += pts.len();
                let bbox = BBox::around(pts.iter().copied());
                match subpaths.as_slice() {
                    [(v, closed)]
                        if (*closed || el.name == "polygon")
                            && is_rectangle(&pts)
                            && v.len() >= 4 =>
                    {
                        (ShapeKind::Rect, vec![bbox.center()], bbox)
                    }
                    _ => (ShapeKind::Path, pts, bbox),
                }
            }
            _ => return,
        };
        if !bbox.is_finite() {
            return;
        }
        self.scene.shapes.push(Shape {
            kind,
            points,
            bbox,
            filled,
            fill: s.fill.clone(),
            href: el.attr("href").map(str::to_string),
            element: i,
            line: el.line,
            groups: s.groups.clone(),
        });
    }
}

/// Whether rendered vertices draw an axis-aligned rectangle (4 corners, optionally closed by
/// repeating the first).
fn is_rectangle(pts: &[(f64, f64)]) -> bool {
    let mut v: Vec<(f64, f64)> = pts.to_vec();
    if v.len() == 5 && close(v[0], v[4]) {
        v.pop();
    }
    if v.len() != 4 {
        return false;
    }
    let b = BBox::around(v.iter().copied());
    v.iter()
        .all(|&(x, y)| (near(x, b.x0) || near(x, b.x1)) && (near(y, b.y0) || near(y, b.y1)))
        && (0..4).all(|k| {
            let (a, c) = (v[k], v[(k + 1) % 4]);
            near(a.0, c.0) || near(a.1, c.1)
        })
}

fn near(a: f64, b: f64) -> bool {
    (a - b).abs() < 1e-6 * (1.0 + a.abs().max(b.abs()))
}

fn close(a: (f64, f64), b: (f64, f64)) -> bool {
    near(a.0, b.0) && near(a.1, b.1)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::read::svg::parse::parse;

    fn scene(svg: &str) -> (Canvas, Scene) {
        let doc = parse(svg).unwrap();
        let c = canvas(doc.root()).unwrap();
        let s = build(&doc, &c, 16.0, 0.6);
        (c, s)
    }

    #[test]
    fn view_box_scales_by_the_smaller_ratio() {
        let (c, s) = scene(
            r#"<svg width="1920" height="1440" viewBox="0 0 960 720"><text x="10" y="20" font-size="6">a</text></svg>"#,
        );
        assert_eq!((c.width, c.height), (1920.0, 1440.0));
        assert_eq!(s.texts[0].font_px, 12.0);
        let (_, s) = scene(
            r#"<svg width="480" height="400" viewBox="0 0 960 720"><text font-size="12">a</text></svg>"#,
        );
        assert_eq!(s.texts[0].font_px, 6.0);
    }

    #[test]
    fn percent_or_absent_sizes_use_one_px_per_unit() {
        let (c, _) = scene(r#"<svg width="100%" viewBox="10 10 300 200"/>"#);
        assert_eq!((c.width, c.height), (300.0, 200.0));
        assert_eq!(c.root.apply((10.0, 10.0)), (0.0, 0.0));
    }

    #[test]
    fn a_size_is_required() {
        let doc = parse("<svg width=\"10\"/>").unwrap();
        assert_eq!(canvas(doc.root()), Err(SizeProblem::NoSize));
        let doc = parse("<html/>").unwrap();
        assert!(matches!(
            canvas(doc.root()),
            Err(SizeProblem::NotSvg { .. })
        ));
    }

    #[test]
    fn font_size_inherits_through_groups_and_scales_with_transforms() {
        let (_, s) = scene(
            r#"<svg width="100" height="100"><g font-size="10pt" transform="scale(0.5)"><text font-size="1.2em">abc</text></g></svg>"#,
        );
        let t = &s.texts[0];
        assert!((t.font_px - 8.0).abs() < 1e-9, "{}", t.font_px);
    }

    #[test]
    fn text_box_is_placed_by_anchor() {
        let (_, s) = scene(
            r#"<svg width="100" height="100"><text x="50" y="20" font-size="10" text-anchor="middle">abcd</text></svg>"#,
        );
        assert_eq!(
            s.texts[0].bbox,
            BBox {
                x0: 38.0,
                y0: 10.0,
                x1: 62.0,
                y1: 20.0
            }
        );
    }

    #[test]
    fn a_positioned_tspan_is_its_own_text() {
        let (_, s) = scene(
            r#"<svg width="100" height="100"><text x="5" y="20">Rev<tspan>enue</tspan><tspan x="5" y="40" font-size="6">2021</tspan></text></svg>"#,
        );
        let contents: Vec<&str> = s.texts.iter().map(|t| t.content.as_str()).collect();
        assert_eq!(contents, ["Revenue", "2021"]);
        assert_eq!(s.texts[1].font_px, 6.0);
    }

    #[test]
    fn closed_rectangular_paths_are_rects() {
        let (_, s) = scene(
            r#"<svg width="100" height="100"><path d="M 1 1 L 5 1 L 5 9 L 1 9 z"/><path d="M 1 1 L 5 1 L 5 9"/></svg>"#,
        );
        assert_eq!(s.shapes[0].kind, ShapeKind::Rect);
        assert_eq!(s.shapes[1].kind, ShapeKind::Path);
    }
}
