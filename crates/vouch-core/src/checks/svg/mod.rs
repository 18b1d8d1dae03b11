//! `svg.*`: the chart (contract §4). The pipeline is parse (`parse`: a bounded element tree,
//! never expanding entities) → safety (`safety`) → canvas and scene (`scene`, with `geometry` and
//! `style`) → panels (`panels`) → fidelity of the plotted values (`fidelity`). Each stage is typed
//! data; this module only compares and emits findings.

pub mod fidelity;
pub mod geometry;
pub mod panels;
pub mod parse;
pub mod safety;
pub mod scene;
pub mod style;

use crate::checks::Context;
use crate::numbers::{show_auto, to_f64};
use crate::report::registry::CheckDef;
use crate::report::Coverage;
use crate::report::{Family, Finding, Location, NumberDetail, Status};
use fidelity::{Form, Miss, Target};
use geometry::{px, BBox};
use panels::{year_of, Detection, Panel};
use parse::ParseError;
use scene::{Scene, SizeProblem};

pub const CHECKS: &[CheckDef] = crate::checks![Family::Svg;
    "svg.unreadable", Fail, "The chart is not valid UTF-8 (or holds a NUL byte).";
    "svg.malformed", Fail, "The chart is not well-formed XML (an undeclared entity counts: entities are never expanded).";
    "svg.too_complex", Fail, "The chart nests elements more than 64 deep, holds more than 50,000 elements, or more than 10,000 style rules.";
    "svg.unmodelled", Warn, "The chart uses a style rule, transform, opacity or animation vouch does not evaluate for a property it reads (size, position, visibility): what vouch read may not be what a viewer sees, so the chart's checks are not certain.";
    "svg.doctype_entity", Fail, "A DOCTYPE with an internal subset or ENTITY declaration; it is never expanded.";
    "svg.doctype", Info, "A DOCTYPE without internal subset (as matplotlib writes); allowed, no DTD is fetched.";
    "svg.root", Fail, "The root element is not `svg`.";
    "svg.size", Fail, "The root has no usable size: width and height, or a viewBox.";
    "svg.script", Fail, "A `script` element: opening the chart would run code.";
    "svg.foreign_object", Fail, "A `foreignObject` element embeds non-SVG content.";
    "svg.event_attribute", Fail, "An `on*` event attribute: opening or touching the chart would run code.";
    "svg.external_href", Fail, "An `href`/`xlink:href` other than a `#…` fragment or a `data:` image.";
    "svg.external_style", Fail, "A stylesheet `@import`, or a `url(…)` to outside the chart, or an `xml-stylesheet` instruction.";
    "svg.panel_count", Fail, "The chart does not have exactly four panels (title, data series and year labels each).";
    "svg.panel_title", Fail, "An area with year labels and a data series has no title text.";
    "svg.panel_series", Fail, "An area with a title and year labels has no data series (no marks).";
    "svg.panel_years", Fail, "A panel's year labels name a year the source does not contain.";
    "svg.panel_overlap", Fail, "Two panel areas overlap (by more than 0.5 px).";
    "svg.panel_outside", Fail, "A panel area extends beyond the canvas (by more than 0.5 px).";
    "svg.font_size", Fail, "A text's effective font size at the rendered size is below 8 px.";
    "svg.text_outside", Fail, "A text's extent (0.6 em per character × one em) leaves the canvas.";
    "svg.fidelity", Fail, "A panel whose plotted quantity is pinned down (one series; a title naming one quantity) misstates a value by more than 2 % at its own scale; year labels out of order or an inverted series warn; a series that fits none of the quantities its title allows is info (unverified).";
];

/// Most findings of one id listed individually; the rest are summarised.
const MAX_LISTED: usize = 12;

/// Checks the chart; returns how many plotted values were verified, contradicted and unverified.
pub fn check(ctx: &Context, out: &mut Vec<Finding>) -> Coverage {
    let name = ctx.spec.artifacts.chart.as_str();
    let Some(text) = ctx.text(name, "svg.unreadable", out) else {
        return Coverage::default();
    };
    let mut findings = Vec::new();
    let cov = check_text(ctx, text, &mut findings);
    out.extend(findings.into_iter().map(|f| f.artifact(name)));
    cov
}

fn check_text(ctx: &Context, text: &str, out: &mut Vec<Finding>) -> Coverage {
    let chart = &ctx.spec.chart;
    let tol: f64 = chart.tolerance_px.parse().unwrap_or(0.5);
    let char_width_em: f64 = chart.char_width_em.parse().unwrap_or(0.6);
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
                "svg.doctype",
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
            "svg.too_complex",
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
                "svg.unmodelled",
                format!("{what}; what a viewer sees may differ from what vouch read"),
            );
            if *line > 0 {
                f.line(*line)
            } else {
                f
            }
        })
        .collect();
    listed_as("svg.unmodelled", Status::Warn, "", unmodelled, out);
    let canvas_box = canvas.bbox();
    text_findings(&scene, &canvas_box, chart.min_font_px, tol, out);
    let roles = panels::roles(&scene, tol);
    let detection = panels::detect(&scene, &roles, tol);
    panel_findings(ctx, &scene, &detection, &canvas_box, tol, out);
    let tolerance: f64 = chart.fidelity_tolerance.parse().unwrap_or(0.02);
    let mut cov = Coverage::default();
    for p in &detection.panels {
        let c = fidelity_findings(ctx, &scene, &roles, p, tolerance, tol, out);
        cov.verified += c.verified;
        cov.contradicted += c.contradicted;
        cov.unverified += c.unverified;
    }
    cov
}

fn parse_finding(e: ParseError) -> Finding {
    match e {
        ParseError::Malformed { line, reason } => {
            Finding::fail("svg.malformed", format!("not well-formed XML: {reason}")).line(line)
        }
        ParseError::UnsafeDoctype { line, declares_entity } => Finding::fail(
            "svg.doctype_entity",
            format!(
                "the DOCTYPE has {}; entity expansion can exhaust memory or read files, so the chart was not read further",
                if declares_entity { "an ENTITY declaration" } else { "an internal subset" }
            ),
        )
        .line(line),
        ParseError::TooComplex { line, reason } => {
            Finding::fail("svg.too_complex", format!("{reason}; the chart was not read further")).line(line)
        }
    }
}

fn size_finding(p: SizeProblem, line: usize) -> Finding {
    match p {
        SizeProblem::NotSvg { name } => {
            Finding::fail("svg.root", format!("the root element is <{name}>, not <svg>")).line(line)
        }
        SizeProblem::NoSize => Finding::fail(
            "svg.size",
            "the root <svg> has neither width and height nor a viewBox, so its rendered size is unknown",
        )
        .line(line),
        SizeProblem::Invalid { attribute, value } => Finding::fail(
            "svg.size",
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
fn listed(id: &'static str, found: Vec<Finding>, out: &mut Vec<Finding>) {
    listed_as(id, Status::Fail, "text(s) ", found, out)
}

fn listed_as(
    id: &'static str,
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
                "svg.font_size",
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
    listed("svg.font_size", small, out);
    let outside: Vec<Finding> = scene
        .texts
        .iter()
        .filter(|t| !canvas.contains(&t.bbox, tol))
        .map(|t| {
            Finding::fail(
                "svg.text_outside",
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
    listed("svg.text_outside", outside, out);
}

fn panel_name(scene: &Scene, p: &Panel) -> String {
    format!(
        "panel {} at {}",
        quoted(&scene.texts[p.title].content),
        p.area
    )
}

fn panel_findings(
    ctx: &Context,
    scene: &Scene,
    d: &Detection,
    canvas: &BBox,
    tol: f64,
    out: &mut Vec<Finding>,
) {
    let want = ctx.spec.chart.panels;
    for n in &d.near {
        let (id, what) = if n.missing_series {
            (
                "svg.panel_series",
                "a title and year labels but no data series (no line, bars or markers)",
            )
        } else {
            (
                "svg.panel_title",
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
            "svg.panel_count",
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
                        "svg.panel_overlap",
                        format!("{} overlaps {}", panel_name(scene, a), panel_name(scene, b)),
                    )
                    .line(b.line),
                );
            }
        }
        if !canvas.contains(&a.area, tol) {
            out.push(
                Finding::fail(
                    "svg.panel_outside",
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
            for &t in &a.year_labels {
                let label = &scene.texts[t];
                if let Some(y) = year_of(&label.content).filter(|y| !years.contains(y)) {
                    out.push(
                        Finding::fail(
                            "svg.panel_years",
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
    tolerance: f64,
    tol: f64,
    out: &mut Vec<Finding>,
) -> Coverage {
    let mut cov = Coverage::default();
    let Some(truth) = ctx.truth else { return cov };
    let title = &scene.texts[p.title].content;
    let readings = fidelity::read_all(scene, roles, p, tol);
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
        return cov;
    }
    // Year order does not depend on what is plotted.
    if let Some(Miss::LabelOrder { years }) = fidelity::compare(first, &|_| None, tolerance, tol)
        .into_iter()
        .find(|m| matches!(m, Miss::LabelOrder { .. }))
    {
        out.push(
            Finding::warn(
                "svg.fidelity",
                format!(
                    "{panel}: year labels run {} along the axis, not in year order, so values sit under the wrong years",
                    years.iter().map(i32::to_string).collect::<Vec<_>>().join(", ")
                ),
            )
            .line(p.line),
        );
    }
    let (quantities, pinned) = fidelity::quantities(title, ctx.spec, ctx.stmts);
    if quantities.is_empty() {
        cov.unverified += readings.iter().map(|r| r.marks.len()).sum::<usize>();
        return cov;
    }
    if pinned && readings.len() == 1 {
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
    let fits: Vec<Vec<usize>> = readings
        .iter()
        .map(|r| {
            (0..forms.len())
                .filter(|&q| {
                    let (t, f) = forms[q];
                    let (_, value) = quantity_value(ctx, truth, t, f);
                    let judged = r.marks.iter().filter(|m| value(m.0).is_some()).count();
                    judged >= 2
                        && fidelity::compare(r, &*value, tolerance, tol)
                            .iter()
                            .all(|m| matches!(m, Miss::LabelOrder { .. }))
                })
                .collect()
        })
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
    let names: Vec<String> = quantities
        .iter()
        .map(|&(t, f)| quantity_value(ctx, truth, t, f).0)
        .collect();
    for (i, r) in readings.iter().enumerate() {
        if !fits[i].is_empty() {
            cov.verified += r.marks.len();
            continue;
        }
        cov.unverified += r.marks.len();
        out.push(
            Finding::info(
                "svg.fidelity",
                format!(
                    "{panel}: series {} of {} ({} {}s) fits none of the quantities its title allows ({}, as levels, growth or change); vouch cannot tell what it plots, so its values are unverified",
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
            "svg.fidelity",
            format!(
                "{panel}: year labels run {} along the axis, not in year order, so values sit under the wrong years",
                years.iter().map(i32::to_string).collect::<Vec<_>>().join(", ")
            ),
        )
        .line(p.line),
        Miss::Inverted => Finding::warn(
            "svg.fidelity",
            format!("{panel}: the plotted {name} series runs opposite to its values (larger values drawn lower)"),
        )
        .line(p.line),
        Miss::Value { year, line, plotted, expected, value } => {
            let relative = if expected != 0.0 { (plotted / expected - 1.0) * 100.0 } else { f64::INFINITY };
            Finding::fail(
                "svg.fidelity",
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
            "svg.fidelity",
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

fn show_value(v: f64) -> String {
    crate::numbers::parse_decimal(&format!("{v:.6}"))
        .map(|n| show_auto(&n))
        .unwrap_or_else(|| v.to_string())
}
