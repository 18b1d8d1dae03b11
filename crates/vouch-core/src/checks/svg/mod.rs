//! `svg.*`: the chart (contract §4). The pipeline is parse (`parse`: a bounded element tree,
//! never expanding entities) → safety (`safety`) → canvas and scene (`scene`, with `geometry` and
//! `style`) → panels (`panels`) → fidelity of the plotted values (`fidelity`). Each stage is typed
//! data; this module only compares and emits findings.

use crate::report::CheckId;
pub mod fidelity;
pub mod safety;
pub mod view;

use crate::read::svg::{geometry, panels, parse, scene, style};

use crate::checks::Context;
use crate::numbers::{show_auto, to_f64};
use crate::report::registry::CheckDef;
use crate::report::Coverage;
use crate::report::{Family, Finding, Location, NumberDetail, Status};
use fidelity::{Form, Miss, Target};
use geometry::{px, BBox};
use panels::{year_of, Axis, Detection, Panel};
use parse::ParseError;
use scene::{Scene, SizeProblem};

pub const CHECKS: &[CheckDef] = crate::checks![Family::Svg;
    CheckId::SvgUnreadable, Fail, "The chart is not valid UTF-8 (or holds a NUL byte).",
        why: "`financial_trends.svg` is not UTF-8 text (or holds a NUL byte), so none of the chart's safety, layout or plotted values was checked.",
        fix: "Write the SVG as UTF-8 text with nothing binary in it (matplotlib's `savefig(..., format='svg')` does this).";
    CheckId::SvgMalformed, Fail, "The chart is not well-formed XML (an undeclared entity counts: entities are never expanded).",
        why: "A chart that is not well-formed XML (an undeclared entity included) may not render or may render differently per viewer, and vouch cannot read its panels or values.",
        fix: "Fix the XML: close every element, escape `&` and `<` in text, use only XML's predefined entities; or generate the SVG with a plotting library.";
    CheckId::SvgTooComplex, Fail, "The chart nests elements more than 64 deep, holds more than 50,000 elements, 512 attributes on one element, 10,000 style rules, or needs more than 5,000,000 style-matching steps.",
        why: "Past vouch's nesting, element, attribute or style-rule limits the chart is not read further, so none of its panels or values is checked; a four-panel chart never needs that much.",
        fix: "Simplify the SVG: flatten nested groups and remove redundant elements, attributes and style rules.";
    CheckId::SvgUnmodelled, Warn, "The chart uses a style rule, transform, opacity or animation vouch does not evaluate for a property it reads (size, position, visibility): what vouch read may not be what a viewer sees, so the chart's checks are not certain.",
        why: "A style rule, transform, opacity or animation vouch does not evaluate changes size, position or visibility, so what a viewer sees may differ from what vouch read; the chart's findings are not certain.",
        fix: "Set font size, position and visibility with plain attributes or simple element, class or id style rules, and use only `translate`, `scale`, `matrix` or `rotate` transforms.";
    CheckId::SvgDoctypeEntity, Fail, "A DOCTYPE with an internal subset or ENTITY declaration; it is never expanded.",
        why: "A DOCTYPE with an internal subset or ENTITY declaration can expand into huge or external content when the chart is opened (entity bombs, file reads); vouch does not read the chart further.",
        fix: "Remove the internal subset and all ENTITY declarations from the SVG; write the text literally.";
    CheckId::SvgDoctype, Info, "A DOCTYPE without internal subset (as matplotlib writes); allowed, no DTD is fetched.",
        why: "Reported because the chart has a DOCTYPE without internal subset, as matplotlib writes; it is allowed, and vouch fetches no DTD.",
        fix: "Nothing to fix: a DOCTYPE without an internal subset is harmless; drop it if you want the note gone.";
    CheckId::SvgRoot, Fail, "The root element is not `svg`.",
        why: "A file whose root element is not `svg` is not an SVG image, so viewers will not show it as the chart the memo refers to, and vouch checks nothing in it.",
        fix: "Make an `svg` element in the SVG namespace the root of `financial_trends.svg`.";
    CheckId::SvgSize, Fail, "The root has no usable size: width and height, or a viewBox.",
        why: "Without a usable width and height or a viewBox the rendered size is unknown, so viewers may scale the chart arbitrarily and vouch cannot judge font sizes, panel placement or clipping.",
        fix: "Give the root `svg` element a valid `viewBox` and/or numeric `width` and `height` attributes.";
    CheckId::SvgScript, Fail, "A `script` element: opening the chart would run code.",
        why: "A `script` element runs code when the chart is opened in a browser, so sharing the chart would run whatever code it carries.",
        fix: "Remove every `script` element; the chart must be static.";
    CheckId::SvgForeignObject, Fail, "A `foreignObject` or HTML element (`iframe`, `img`, `object`, `link`, …) embeds non-SVG content.",
        why: "A `foreignObject`, or an HTML element such as `iframe`, `img` or `object`, embeds non-SVG content that can load or run things when the chart is shown in a page.",
        fix: "Remove the element and draw its content with SVG elements (`text`, `rect`, `path`, `image` with a `data:` URL).";
    CheckId::SvgEventAttribute, Fail, "An `on*` event attribute: opening or touching the chart would run code.",
        why: "An `on*` attribute (e.g. `onload`, `onclick`) runs script when the chart is opened or touched, so sharing the chart would run code.",
        fix: "Remove every `on*` attribute from the SVG.";
    CheckId::SvgExternalHref, Fail, "An `href`/`xlink:href`/`src` (or an animation setting one) other than a `#…` fragment or a `data:` image.",
        why: "An `href`, `xlink:href` or `src` pointing outside the chart (or an animation that sets one) makes a viewer fetch or open outside content, which vouch has not checked and which can track readers.",
        fix: "Use only `#id` fragment references and embedded `data:` images; inline any image the chart needs.";
    CheckId::SvgExternalStyle, Fail, "A stylesheet `@import`, a `url(…)` to outside the chart in a style or any attribute, or an `xml-stylesheet` instruction.",
        why: "A stylesheet `@import`, an `xml-stylesheet` instruction or a `url(...)` to outside the chart (in a style or any attribute) makes viewers fetch outside content that can restyle the chart or track readers.",
        fix: "Inline all styling in the SVG and use only `url(#id)` references to elements inside it.";
    CheckId::SvgPanelCount, Fail, "The chart does not have exactly four panels (title, data series and year labels each).",
        why: "The contract asks for exactly `chart.panels` panels, each with a title, a data series and year labels; any other count means a required view is missing, merged or duplicated.",
        fix: "Draw exactly `chart.panels` (4 by default) separate panels, each with its own title text, a line or at least two bars or markers, and source-year labels along its axis.";
    CheckId::SvgPanelTitle, Fail, "An area with year labels and a data series has no title text.",
        why: "An area with year labels and plotted data but no title leaves the reader guessing what it shows, and it does not count as a panel.",
        fix: "Add a title `text` inside that area naming the quantity plotted, e.g. `Revenue`.";
    CheckId::SvgPanelSeries, Fail, "An area with a title and year labels has no data series (no marks).",
        why: "An area with a title and year labels but no data series shows nothing to read, so the quantity its title names is not actually charted.",
        fix: "Plot the series in that panel: a `polyline` or `path` of two or more points, or two or more bars or markers.";
    CheckId::SvgPanelYears, Fail, "A panel's year labels name a year the source does not contain.",
        why: "A panel labelling a year the source does not contain shows data that cannot exist (a forecast or a wrong year), and vouch leaves that panel's values unverified.",
        fix: "Label the axis only with years in the source CSV, and plot only those years.";
    CheckId::SvgPanelOverlap, Fail, "Two panel areas overlap (by more than 0.5 px).",
        why: "Overlapping panels draw over each other's data, titles or labels, so a reader may read one panel's values against another's axis.",
        fix: "Place the panels in separate areas that do not overlap by more than `chart.tolerance_px`, e.g. a 2x2 grid with gaps.";
    CheckId::SvgPanelOutside, Fail, "A panel area extends beyond the canvas (by more than 0.5 px).",
        why: "A panel extending beyond the canvas is cut off when rendered, hiding part of its data or labels from the reader.",
        fix: "Keep every panel within the root's width and height or viewBox (slack `chart.tolerance_px`): shrink the panels or enlarge the canvas.";
    CheckId::SvgFontSize, Fail, "A text's effective font size at the rendered size is below 8 px.",
        why: "Text rendered below `chart.min_font_px` px is hard or impossible to read, so the titles, year labels or values it carries are effectively hidden.",
        fix: "Raise that text's font size to at least `chart.min_font_px` px at the chart's rendered size, allowing for viewBox scaling and `em` or `%` sizes.";
    CheckId::SvgTextOutside, Fail, "A text's extent (0.6 em per character × one em) leaves the canvas.",
        why: "A text whose estimated extent leaves the canvas is cut off when rendered, so part of a title, label or source note is lost to the reader.",
        fix: "Move, shorten or shrink the text so it fits in the canvas (vouch estimates `chart.char_width_em` em per character), or enlarge the canvas.";
    CheckId::SvgFidelity, Fail, "A panel whose plotted quantity is pinned down (one series; a title naming one quantity) misstates a value by more than 2 % at its own scale; year labels out of order or an inverted series warn; a series that fits none of the quantities its title allows is info (unverified).",
        why: "A panel whose quantity is pinned down plots a value more than `chart.fidelity_tolerance` off at its own scale, misstating the data at a glance; years out of order or an inverted axis warn, an unidentifiable series is info.",
        fix: "Plot the recomputed values on a linear axis with years in ascending order, and title each panel with the quantity it shows (e.g. `Revenue`, `Operating margin`).";
];

/// Most findings of one id listed individually; the rest are summarised.
const MAX_LISTED: usize = 12;

/// Checks the chart; returns how many plotted values were verified, contradicted and unverified.
pub fn check(ctx: &Context, out: &mut Vec<Finding>) -> Coverage {
    let name = ctx.spec.artifacts.chart.as_str();
    let Some(text) = ctx.text(name, CheckId::SvgUnreadable, out) else {
        return Coverage::default();
    };
    let mut findings = Vec::new();
    let cov = check_text(ctx, text, &mut findings, None);
    out.extend(findings.into_iter().map(|f| f.artifact(name)));
    cov
}

/// What the chart's checks read and concluded, for a report to draw (`None` when the chart is
/// absent or was not read as far as its panels). The same pass as [`check`]; its findings are
/// dropped.
pub fn view(ctx: &Context) -> Option<view::ChartView> {
    let name = ctx.spec.artifacts.chart.as_str();
    let text = ctx.text(name, CheckId::SvgUnreadable, &mut Vec::new())?;
    let mut v = None;
    check_text(ctx, text, &mut Vec::new(), Some(&mut v));
    v
}

fn check_text(
    ctx: &Context,
    text: &str,
    out: &mut Vec<Finding>,
    view: Option<&mut Option<view::ChartView>>,
) -> Coverage {
    let chart = &ctx.spec.chart;
    let tol = chart.tolerance_px;
    let char_width_em = chart.char_width_em;
    let doc = match parse::parse(text) {
        Ok(doc) => doc,
        Err(e) => {
            out.push(parse_finding(e));
            return Coverage::default();
        }
    };
    if let Some(d) = &doc.doctype {
        out.push(
            Finding::info(
                CheckId::SvgDoctype,
                "a DOCTYPE without internal subset; allowed, and no DTD is fetched",
            )
            .line(d.line),
        );
    }
    for h in safety::hazards(&doc) {
        out.push(
            Finding::fail(
                h.id,
                format!(
                    "{}; a shared chart must not run code or fetch anything",
                    h.message
                ),
            )
            .line(h.line),
        );
    }
    let canvas = match scene::canvas(doc.root()) {
        Ok(c) => c,
        Err(p) => {
            out.push(size_finding(p, doc.root().line));
            return Coverage::default();
        }
    };
    let scene = scene::build(&doc, &canvas, chart.default_font_px, char_width_em);
    if scene.style_rules > style::MAX_RULES || scene.style_exhausted {
        out.push(Finding::fail(
            CheckId::SvgTooComplex,
            if scene.style_exhausted {
                format!(
                    "matching the chart's style rules to its elements takes more than {} steps; the chart was not read further",
                    style::MAX_MATCH_STEPS
                )
            } else {
                format!(
                    "the chart's style sheets hold more than {} rules; the chart was not read further",
                    style::MAX_RULES
                )
            },
        ));
        return Coverage::default();
    }
    let unmodelled: Vec<Finding> = scene
        .unmodelled
        .iter()
        .map(|(line, what)| {
            let f = Finding::warn(
                CheckId::SvgUnmodelled,
                format!("{what}; what a viewer sees may differ from what vouch read"),
            );
            if *line > 0 {
                f.line(*line)
            } else {
                f
            }
        })
        .collect();
    listed_as(CheckId::SvgUnmodelled, Status::Warn, "", unmodelled, out);
    let canvas_box = canvas.bbox();
    text_findings(&scene, &canvas_box, chart.min_font_px, tol, out);
    let roles = panels::roles(&scene, tol);
    let detection = panels::detect(&scene, &roles, tol);
    panel_findings(ctx, &scene, &detection, &canvas_box, tol, out);
    let tolerance = chart.fidelity_tolerance;
    let mut cov = Coverage::default();
    let want = view.is_some();
    let mut chart_view = want.then(|| view::ChartView {
        width: canvas.width,
        height: canvas.height,
        panels: Vec::new(),
        near: detection.near.iter().map(|n| n.area).collect(),
    });
    for p in &detection.panels {
        let mut series = view::Sink::new(want);
        let c = fidelity_findings(ctx, &scene, &roles, p, (tolerance, tol), out, &mut series);
        if let Some(v) = chart_view.as_mut() {
            v.panels.push(view::PanelView {
                area: p.area,
                title: scene.texts[p.title].content.clone(),
                series: series.list,
            });
        }
        cov.verified += c.verified;
        cov.contradicted += c.contradicted;
        cov.unverified += c.unverified;
    }
    if let (Some(slot), Some(v)) = (view, chart_view) {
        *slot = Some(v);
    }
    cov
}

fn parse_finding(e: ParseError) -> Finding {
    match e {
        ParseError::Malformed { line, reason } => {
            Finding::fail(CheckId::SvgMalformed, format!("not well-formed XML: {reason}")).line(line)
        }
        ParseError::UnsafeDoctype { line, declares_entity } => Finding::fail(
            CheckId::SvgDoctypeEntity,
            format!(
                "the DOCTYPE has {}; entity expansion can exhaust memory or read files, so the chart was not read further",
                if declares_entity { "an ENTITY declaration" } else { "an internal subset" }
            ),
        )
        .line(line),
        ParseError::TooComplex { line, reason } => {
            Finding::fail(CheckId::SvgTooComplex, format!("{reason}; the chart was not read further")).line(line)
        }
    }
}

fn size_finding(p: SizeProblem, line: usize) -> Finding {
    match p {
        SizeProblem::NotSvg { name } => {
            Finding::fail(CheckId::SvgRoot, format!("the root element is <{name}>, not <svg>")).line(line)
        }
        SizeProblem::NoSize => Finding::fail(
            CheckId::SvgSize,
            "the root <svg> has neither width and height nor a viewBox, so its rendered size is unknown",
        )
        .line(line),
        SizeProblem::Invalid { attribute, value } => Finding::fail(
            CheckId::SvgSize,
            format!("the root's `{attribute}=\"{value}\"` is not a usable size"),
        )
        .line(line),
    }
}

fn quoted(s: &str) -> String {
    if s.chars().count() > 40 {
        format!("`{}…`", s.chars().take(40).collect::<String>())
    } else {
        format!("`{s}`")
    }
}

/// Push findings of one id, listing at most [`MAX_LISTED`] and summarising the rest.
fn listed(id: CheckId, found: Vec<Finding>, out: &mut Vec<Finding>) {
    listed_as(id, Status::Fail, "text(s) ", found, out)
}

fn listed_as(
    id: CheckId,
    status: Status,
    noun: &str,
    mut found: Vec<Finding>,
    out: &mut Vec<Finding>,
) {
    let extra = found.len().saturating_sub(MAX_LISTED);
    found.truncate(MAX_LISTED);
    out.extend(found);
    if extra > 0 {
        let message = format!("{extra} more {noun}like the above");
        out.push(match status {
            Status::Warn => Finding::warn(id, message),
            _ => Finding::fail(id, message),
        });
    }
}

fn text_findings(scene: &Scene, canvas: &BBox, min_font: f64, tol: f64, out: &mut Vec<Finding>) {
    let small: Vec<Finding> = scene
        .texts
        .iter()
        .filter(|t| t.font_px < min_font - 1e-9)
        .map(|t| {
            Finding::fail(
                CheckId::SvgFontSize,
                format!(
                    "text {} renders at {} px at the chart's rendered size; at least {} px is needed to be legible",
                    quoted(&t.content),
                    px(t.font_px),
                    px(min_font)
                ),
            )
            .line(t.line)
        })
        .collect();
    listed(CheckId::SvgFontSize, small, out);
    let outside: Vec<Finding> = scene
        .texts
        .iter()
        .filter(|t| !canvas.contains(&t.bbox, tol))
        .map(|t| {
            Finding::fail(
                CheckId::SvgTextOutside,
                format!(
                    "text {} spans {} but the canvas is {}; it would be cut off",
                    quoted(&t.content),
                    t.bbox,
                    canvas
                ),
            )
            .line(t.line)
        })
        .collect();
    listed(CheckId::SvgTextOutside, outside, out);
}

fn panel_name(scene: &Scene, p: &Panel) -> String {
    format!(
        "panel {} at {}",
        quoted(&scene.texts[p.title].content),
        p.area
    )
}

/// A panel's year labels, and with them every other text that reads as a year on the same row
/// (the labels' baseline, or their anchor column for a vertical axis) within an em of the panel's
/// extent along it: a label centred on the frame's edge (`2025` under its right side) that the
/// panel's own area leaves out is still a label of its axis. `loose` are the texts that read as
/// years and are no panel's labels; each is taken once, by the first panel whose row holds it.
fn row_labels(scene: &Scene, a: &Panel, tol: f64, loose: &mut Vec<usize>) -> Vec<usize> {
    let mut out: Vec<usize> = a.year_labels.clone();
    if let Some(&first) = a.year_labels.first() {
        let row = scene.texts[first].anchor;
        loose.retain(|&t| {
            let text = &scene.texts[t];
            let em = text.font_px;
            let (across, along, lo, hi) = match a.axis {
                Axis::Horizontal => (text.anchor.1 - row.1, text.anchor.0, a.area.x0, a.area.x1),
                Axis::Vertical => (text.anchor.0 - row.0, text.anchor.1, a.area.y0, a.area.y1),
            };
            let on_row = across.abs() <= 2.0 * tol && along >= lo - em && along <= hi + em;
            if on_row {
                out.push(t);
            }
            !on_row
        });
    }
    out
}

/// Beyond this many panels (the contract wants four) the year-label rows are not extended: the
/// chart already fails `svg.panel_count`, and the scan stays linear on hostile input.
const MAX_ROW_PANELS: usize = 16;

fn panel_findings(
    ctx: &Context,
    scene: &Scene,
    d: &Detection,
    canvas: &BBox,
    tol: f64,
    out: &mut Vec<Finding>,
) {
    let want = ctx.spec.chart.panels;
    // Texts that read as years but are no panel's labels, for the panels' label rows.
    let mut loose: Vec<usize> = Vec::new();
    if ctx.years().is_some() && d.panels.len() <= MAX_ROW_PANELS {
        let mut own = vec![false; scene.texts.len()];
        for p in &d.panels {
            for &t in &p.year_labels {
                own[t] = true;
            }
        }
        loose = (0..scene.texts.len())
            .filter(|&t| !own[t] && year_of(&scene.texts[t].content).is_some())
            .collect();
    }
    for n in &d.near {
        let (id, what) = if n.missing_series {
            (
                CheckId::SvgPanelSeries,
                "a title and year labels but no data series (no line, bars or markers)",
            )
        } else {
            (
                CheckId::SvgPanelTitle,
                "year labels and a data series but no title text",
            )
        };
        out.push(
            Finding::fail(
                id,
                format!("the area at {} has {what}, so it is not a panel", n.area),
            )
            .line(n.line),
        );
    }
    if d.panels.len() != want {
        let found: Vec<String> = d.panels.iter().map(|p| panel_name(scene, p)).collect();
        out.push(Finding::fail(
            CheckId::SvgPanelCount,
            format!(
                "found {} panel(s){}{}; the chart must have exactly {want}, each with a title, a data series and year labels",
                d.panels.len(),
                if found.is_empty() { String::new() } else { format!(": {}", found.join("; ")) },
                if d.truncated { " (more areas qualified than were compared)" } else { "" },
            ),
        ));
    }
    for (i, a) in d.panels.iter().enumerate() {
        for b in &d.panels[i + 1..] {
            if a.area.overlaps(&b.area, tol) {
                out.push(
                    Finding::fail(
                        CheckId::SvgPanelOverlap,
                        format!("{} overlaps {}", panel_name(scene, a), panel_name(scene, b)),
                    )
                    .line(b.line),
                );
            }
        }
        if !canvas.contains(&a.area, tol) {
            out.push(
                Finding::fail(
                    CheckId::SvgPanelOutside,
                    format!(
                        "{} extends beyond the canvas {}",
                        panel_name(scene, a),
                        canvas
                    ),
                )
                .line(a.line),
            );
        }
        if let Some(years) = ctx.years() {
            for t in row_labels(scene, a, tol, &mut loose) {
                let label = &scene.texts[t];
                if let Some(y) = year_of(&label.content).filter(|y| !years.contains(y)) {
                    out.push(
                        Finding::fail(
                            CheckId::SvgPanelYears,
                            format!(
                                "{} labels year {} but the source covers {}–{}; the chart shows a year the data does not contain",
                                panel_name(scene, a),
                                quoted(&label.content),
                                years.first().copied().unwrap_or_default(),
                                years.last().copied().unwrap_or_default()
                            ),
                        )
                        .at(Location { line: Some(label.line), year: Some(y), ..Default::default() }),
                    );
                }
            }
        }
    }
}

/// The recomputed value of one quantity a title may name, by year.
fn quantity_value<'a>(
    ctx: &'a Context,
    truth: &'a crate::recompute::Truth,
    target: Target,
    form: Form,
) -> (String, Box<dyn Fn(i32) -> Option<f64> + 'a>) {
    let level: Box<dyn Fn(usize) -> Option<f64> + 'a> = match target {
        Target::Metric(m) => {
            Box::new(move |t| truth.metrics[m].cells[0].get(t)?.value().map(to_f64))
        }
        Target::Item(i) => {
            let item = &ctx.stmts.items[i];
            Box::new(move |t| item.cells.get(t)?.as_ref().map(|v| to_f64(&v.value)))
        }
    };
    let name = match target {
        Target::Metric(m) => ctx.spec.metrics[m].id.clone(),
        Target::Item(i) => ctx.stmts.items[i].name.clone(),
    };
    match form {
        Form::Level => (name, Box::new(move |y| level(truth.year_index(y)?))),
        Form::Growth => (
            format!("{name} growth"),
            Box::new(move |y| {
                let t = truth.year_index(y)?;
                let (x, p) = (level(t)?, level(t.checked_sub(1)?)?);
                (p != 0.0).then(|| (x - p) / p.abs())
            }),
        ),
        Form::Change => (
            format!("{name} change"),
            Box::new(move |y| {
                let t = truth.year_index(y)?;
                Some(level(t)? - level(t.checked_sub(1)?)?)
            }),
        ),
    }
}

/// The longest text read as a legend entry (`Operating cash flow`, `Capex (magnitude)`).
const LEGEND_MAX_CHARS: usize = 40;

/// §9 §4: identify what a panel plots, then judge it. A panel with one series and a title that
/// pins down one quantity is judged: a value off the panel's scale is an error. Otherwise each
/// series is tried against every quantity the title names (levels, growth, change): one that fits
/// is verified; one that fits none is info (vouch cannot tell what it plots). Returns the plotted
/// values verified, contradicted and unverified.
fn fidelity_findings(
    ctx: &Context,
    scene: &Scene,
    roles: &[panels::Role],
    p: &Panel,
    (tolerance, tol): (f64, f64),
    out: &mut Vec<Finding>,
    views: &mut view::Sink,
) -> Coverage {
    let mut cov = Coverage::default();
    let title = &scene.texts[p.title].content;
    let readings = fidelity::read_all(scene, roles, p, tol);
    let unverified = |views: &mut view::Sink| {
        for r in &readings {
            views.add(|| view::series(scene, p, r, view::Judged::No));
        }
    };
    let Some(truth) = ctx.truth else {
        unverified(views);
        return cov;
    };
    let Some(first) = readings.first() else {
        return cov;
    };
    let panel = panel_name(scene, p);
    // Year labels the source does not have (`svg.panel_years`): what sits under which year is
    // not known, so nothing is judged.
    let off_source = p
        .year_labels
        .iter()
        .any(|&t| year_of(&scene.texts[t].content).is_none_or(|y| truth.year_index(y).is_none()));
    if off_source {
        cov.unverified += readings.iter().map(|r| r.marks.len()).sum::<usize>();
        unverified(views);
        return cov;
    }
    // Year order does not depend on what is plotted.
    if let Some(Miss::LabelOrder { years }) = fidelity::compare(first, &|_| None, tolerance, tol)
        .into_iter()
        .find(|m| matches!(m, Miss::LabelOrder { .. }))
    {
        out.push(
            Finding::warn(
                CheckId::SvgFidelity,
                format!(
                    "{panel}: year labels run {} along the axis, not in year order, so values sit under the wrong years",
                    years.iter().map(i32::to_string).collect::<Vec<_>>().join(", ")
                ),
            )
            .line(p.line),
        );
    }
    let (quantities, pinned) = fidelity::quantities(title, ctx.spec, ctx.stmts);
    // Legend entries (`Revenue`, `Operating cash flow`): short texts of the panel besides its
    // title and year labels. The quantities they name verify a series that fits one of them;
    // they never make a series wrong (a legend may sit beside marks of another panel's meaning).
    // (Only read where it can matter: a pinned panel with one series is judged by its title.)
    let mut legend: Vec<(Target, Form)> = Vec::new();
    let title_decides = pinned && readings.len() == 1 && !quantities.is_empty();
    for &t in p.texts.iter().filter(|_| !title_decides) {
        let text = &scene.texts[t].content;
        if t == p.title
            || p.year_labels.contains(&t)
            || text.chars().count() > LEGEND_MAX_CHARS
            || panels::is_numeric(text)
        {
            continue;
        }
        for q in fidelity::quantities(text, ctx.spec, ctx.stmts).0 {
            for f in [Form::Level, Form::Growth, Form::Change] {
                let q = (q.0, f);
                if !quantities.contains(&q) && !legend.contains(&q) {
                    legend.push(q);
                }
            }
        }
    }
    if quantities.is_empty() && legend.is_empty() {
        cov.unverified += readings.iter().map(|r| r.marks.len()).sum::<usize>();
        unverified(views);
        return cov;
    }
    if pinned && readings.len() == 1 && !quantities.is_empty() {
        let (target, form) = quantities[0];
        let (name, value) = quantity_value(ctx, truth, target, form);
        let misses: Vec<Miss> = fidelity::compare(first, &*value, tolerance, tol)
            .into_iter()
            .filter(|m| !matches!(m, Miss::LabelOrder { .. }))
            .collect();
        let judged = first.marks.iter().filter(|m| value(m.0).is_some()).count();
        let wrong = misses
            .iter()
            .filter(|m| matches!(m, Miss::Value { .. } | Miss::Shape { .. }))
            .count();
        if misses.iter().any(|m| matches!(m, Miss::Inverted)) {
            cov.unverified += judged;
        } else {
            cov.contradicted += wrong;
            cov.verified += judged.saturating_sub(wrong);
        }
        cov.unverified += first.marks.len() - judged;
        views.add(|| {
            view::series(
                scene,
                p,
                first,
                view::Judged::As {
                    name: &name,
                    value: &*value,
                    misses: &misses,
                },
            )
        });
        for miss in misses {
            out.push(miss_finding(&panel, &name, first, p, miss));
        }
        return cov;
    }
    // Not pinned down: every series against every form of every name.
    let mut forms: Vec<(Target, Form)> = quantities.clone();
    for &(t, _) in &quantities {
        for f in [Form::Level, Form::Growth, Form::Change] {
            if !forms.contains(&(t, f)) {
                forms.push((t, f));
            }
        }
    }
    let title_forms = forms.len();
    for q in &legend {
        if !forms.contains(q) {
            forms.push(*q);
        }
    }
    let fits_all: Vec<Vec<usize>> = readings
        .iter()
        .map(|r| {
            (0..forms.len())
                .filter(|&q| {
                    let (t, f) = forms[q];
                    let (_, value) = quantity_value(ctx, truth, t, f);
                    let judged = r.marks.iter().filter(|m| value(m.0).is_some()).count();
                    // Any two values fit a line: a legend's name needs three to verify.
                    let needed = if q < title_forms { 2 } else { 3 };
                    judged >= needed
                        && fidelity::compare(r, &*value, tolerance, tol)
                            .iter()
                            .all(|m| matches!(m, Miss::LabelOrder { .. }))
                })
                .collect()
        })
        .collect();
    // The title's own quantities decide what is certain; the legend's only verify.
    let fits: Vec<Vec<usize>> = fits_all
        .iter()
        .map(|f| f.iter().copied().filter(|&q| q < title_forms).collect())
        .collect();
    // One series per named quantity, every other series fitting its own one: the series left
    // is the quantity left, judged as a pinned panel (`Revenue and net income`, one moved bar).
    let unfit: Vec<usize> = (0..readings.len())
        .filter(|&i| fits[i].is_empty())
        .collect();
    if let ([lone], true) = (
        &unfit[..],
        readings.len() == quantities.len() && pinned_forms(&quantities),
    ) {
        let mut taken: Vec<usize> = Vec::new();
        let distinct = (0..readings.len()).filter(|i| i != lone).all(|i| {
            match fits[i]
                .iter()
                .find(|&&q| q < quantities.len() && !taken.contains(&q))
            {
                Some(&q) => {
                    taken.push(q);
                    true
                }
                None => false,
            }
        });
        let left: Vec<usize> = (0..quantities.len())
            .filter(|q| !taken.contains(q))
            .collect();
        if let (true, [q]) = (distinct, &left[..]) {
            for (i, r) in readings.iter().enumerate() {
                if i != *lone {
                    cov.verified += r.marks.len();
                }
            }
            let (target, form) = quantities[*q];
            let (name, value) = quantity_value(ctx, truth, target, form);
            let r = &readings[*lone];
            let misses: Vec<Miss> = fidelity::compare(r, &*value, tolerance, tol)
                .into_iter()
                .filter(|m| matches!(m, Miss::Value { .. } | Miss::Shape { .. }))
                .collect();
            for (i, other) in readings.iter().enumerate() {
                if i == *lone {
                    views.add(|| {
                        view::series(
                            scene,
                            p,
                            r,
                            view::Judged::As {
                                name: &name,
                                value: &*value,
                                misses: &misses,
                            },
                        )
                    });
                } else {
                    fitted_view(ctx, truth, scene, p, other, forms[fits[i][0]], views);
                }
            }
            let judged = r.marks.iter().filter(|m| value(m.0).is_some()).count();
            cov.contradicted += misses.len();
            cov.verified += judged.saturating_sub(misses.len());
            cov.unverified += r.marks.len() - judged;
            for miss in misses {
                out.push(miss_finding(&panel, &name, r, p, miss));
            }
            return cov;
        }
    }
    // The message names the title's quantities (the legend's when the title names none).
    let (named, by) = if quantities.is_empty() {
        (
            legend
                .iter()
                .filter(|q| q.1 == Form::Level)
                .copied()
                .collect(),
            "legend",
        )
    } else {
        (quantities.clone(), "title")
    };
    let mut names: Vec<String> = Vec::new();
    for &(t, f) in &named {
        let name = quantity_value(ctx, truth, t, f).0;
        if !names.contains(&name) {
            names.push(name);
        }
    }
    for (i, r) in readings.iter().enumerate() {
        if !fits_all[i].is_empty() {
            cov.verified += r.marks.len();
            fitted_view(ctx, truth, scene, p, r, forms[fits_all[i][0]], views);
            continue;
        }
        cov.unverified += r.marks.len();
        views.add(|| view::series(scene, p, r, view::Judged::No));
        out.push(
            Finding::info(
                CheckId::SvgFidelity,
                format!(
                    "{panel}: series {} of {} ({} {}s) fits none of the quantities its {by} allows ({}, as levels, growth or change); vouch cannot tell what it plots, so its values are unverified",
                    i + 1,
                    readings.len(),
                    r.marks.len(),
                    r.kind.noun(),
                    names.join(", ")
                ),
            )
            .at(Location {
                line: r.marks.first().map(|m| m.2).or(Some(p.line)),
                ..Default::default()
            }),
        );
    }
    cov
}

/// The view of a series that fits the quantity `(target, form)`: verified where it has a value.
fn fitted_view(
    ctx: &Context,
    truth: &crate::recompute::Truth,
    scene: &Scene,
    p: &Panel,
    r: &fidelity::Reading,
    (target, form): (Target, Form),
    views: &mut view::Sink,
) {
    if !views.on() {
        return;
    }
    let (name, value) = quantity_value(ctx, truth, target, form);
    views.add(|| {
        view::series(
            scene,
            p,
            r,
            view::Judged::As {
                name: &name,
                value: &*value,
                misses: &[],
            },
        )
    });
}

/// Every quantity's form is stated by the title (no margin whose change may be in points or
/// relative).
fn pinned_forms(quantities: &[(Target, Form)]) -> bool {
    let mut targets: Vec<Target> = quantities.iter().map(|q| q.0).collect();
    targets.dedup();
    targets.len() == quantities.len()
}

fn miss_finding(
    panel: &str,
    name: &str,
    reading: &fidelity::Reading,
    p: &Panel,
    miss: Miss,
) -> Finding {
    match miss {
        Miss::LabelOrder { years } => Finding::warn(
            CheckId::SvgFidelity,
            format!(
                "{panel}: year labels run {} along the axis, not in year order, so values sit under the wrong years",
                years.iter().map(i32::to_string).collect::<Vec<_>>().join(", ")
            ),
        )
        .line(p.line),
        Miss::Inverted => Finding::warn(
            CheckId::SvgFidelity,
            format!("{panel}: the plotted {name} series runs opposite to its values (larger values drawn lower)"),
        )
        .line(p.line),
        Miss::Value { year, line, plotted, expected, value } => {
            let relative = if expected != 0.0 { (plotted / expected - 1.0) * 100.0 } else { f64::INFINITY };
            Finding::fail(
                CheckId::SvgFidelity,
                format!(
                    "{panel}: the {year} {} is {} px from zero where {name} = {} implies {} px at the panel's scale ({}{} %); the plot misstates the value",
                    reading.kind.noun(),
                    px(plotted),
                    show_value(value),
                    px(expected),
                    if relative >= 0.0 { "+" } else { "" },
                    if relative.is_finite() { format!("{relative:.1}") } else { "∞".into() },
                ),
            )
            .at(Location { line: Some(line), year: Some(year), ..Default::default() })
            .number(NumberDetail {
                printed: format!("{} px", px(plotted)),
                recomputed: Some(show_value(value)),
                formula: Some(format!("{name}, plotted proportionally from zero")),
                scale: Some("px".into()),
                ..Default::default()
            })
        }
        Miss::Shape { year, line, residual, range } => Finding::fail(
            CheckId::SvgFidelity,
            format!(
                "{panel}: the {year} {} sits {} px off the best straight-line fit of the plot to {name} (plotted range {} px); the shape of the series is misdrawn",
                reading.kind.noun(),
                px(residual.abs()),
                px(range)
            ),
        )
        .at(Location { line: Some(line), year: Some(year), ..Default::default() }),
    }
}

/// A plotted quantity's recomputed value as findings (and the HTML overlay) print it.
pub fn show_value(v: f64) -> String {
    crate::numbers::parse_decimal(&format!("{v:.6}"))
        .map(|n| show_auto(&n))
        .unwrap_or_else(|| v.to_string())
}
