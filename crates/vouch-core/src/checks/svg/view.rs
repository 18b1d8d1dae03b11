//! What the chart's judges read and concluded, in canvas coordinates, for a report to draw over
//! the chart: each panel's area and title, each series' marks where vouch read them, where the
//! recomputed value would sit at the panel's own scale, and whether the mark was verified,
//! contradicted or left unverified. Built by the same pass that emits the `svg.*` findings.

use super::fidelity::{self, Miss, Reading, SeriesKind};
use crate::read::svg::geometry::BBox;
use crate::read::svg::panels::{year_of, Axis, Panel};
use crate::read::svg::scene::Scene;

#[derive(Clone, Debug, Default, PartialEq)]
pub struct ChartView {
    /// The rendered canvas, `[0, width] × [0, height]` px.
    pub width: f64,
    pub height: f64,
    pub panels: Vec<PanelView>,
    /// Areas that nearly were panels (a title or a series missing).
    pub near: Vec<BBox>,
}

#[derive(Clone, Debug, PartialEq)]
pub struct PanelView {
    pub area: BBox,
    pub title: String,
    pub series: Vec<SeriesView>,
}

#[derive(Clone, Debug, PartialEq)]
pub struct SeriesView {
    pub kind: SeriesKind,
    /// The quantity the series was judged as (`revenue growth`), when one was.
    pub quantity: Option<String>,
    pub marks: Vec<MarkView>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MarkStatus {
    Verified,
    Contradicted,
    Unverified,
}

impl MarkStatus {
    pub fn as_str(self) -> &'static str {
        match self {
            MarkStatus::Verified => "verified",
            MarkStatus::Contradicted => "fail",
            MarkStatus::Unverified => "unverified",
        }
    }
}

#[derive(Clone, Debug, PartialEq)]
pub struct MarkView {
    pub year: i32,
    /// The chart's line of the mark's element.
    pub line: usize,
    /// Where vouch read the mark (a bar's end, a point), in canvas px.
    pub at: (f64, f64),
    /// Where the recomputed value would be at the panel's scale.
    pub expected: Option<(f64, f64)>,
    /// The recomputed value of the judged quantity for this year.
    pub value: Option<f64>,
    pub status: MarkStatus,
}

/// Where a panel's series views go: built only when a report asked for the chart's view, so a
/// plain verification does none of this work.
pub struct Sink {
    on: bool,
    pub list: Vec<SeriesView>,
}

impl Sink {
    pub fn new(on: bool) -> Sink {
        Sink {
            on,
            list: Vec::new(),
        }
    }

    pub fn on(&self) -> bool {
        self.on
    }

    /// Adds the view `make` builds, when views are wanted.
    pub fn add(&mut self, make: impl FnOnce() -> SeriesView) {
        if self.on {
            self.list.push(make());
        }
    }
}

/// The judgement behind one series, as far as it went.
pub enum Judged<'a> {
    /// Not tied to any quantity: every mark unverified.
    No,
    /// Judged as `name` (values by year); `misses` are the marks found wrong.
    As {
        name: &'a str,
        value: &'a dyn Fn(i32) -> Option<f64>,
        misses: &'a [Miss],
    },
}

/// One series' view: marks placed at their year label along the category axis.
pub fn series(scene: &Scene, p: &Panel, r: &Reading, judged: Judged) -> SeriesView {
    let at_year = |year: i32| {
        p.year_labels.iter().find_map(|&t| {
            let text = &scene.texts[t];
            (year_of(&text.content) == Some(year)).then(|| p.axis.category(text.bbox.center()))
        })
    };
    let point = |category: f64, value_pos: f64| match p.axis {
        Axis::Horizontal => (category, -value_pos),
        Axis::Vertical => (value_pos, category),
    };
    let (quantity, fit, inverted) = match &judged {
        Judged::No => (None, None, false),
        Judged::As {
            name,
            value,
            misses,
        } => (
            Some(name.to_string()),
            fidelity::fit(r, *value),
            misses.iter().any(|m| matches!(m, Miss::Inverted)),
        ),
    };
    let marks = r
        .marks
        .iter()
        .filter_map(|&(year, v, line)| {
            let c = at_year(year)?;
            let (value, status) = match &judged {
                Judged::No => (None, MarkStatus::Unverified),
                Judged::As { value, misses, .. } => {
                    let x = value(year);
                    let wrong = misses.iter().any(|m| match m {
                        Miss::Value { year: y, .. } | Miss::Shape { year: y, .. } => *y == year,
                        _ => false,
                    });
                    let status = match (x, inverted, wrong) {
                        (None, ..) | (_, true, _) => MarkStatus::Unverified,
                        (Some(_), false, true) => MarkStatus::Contradicted,
                        (Some(_), false, false) => MarkStatus::Verified,
                    };
                    (x, status)
                }
            };
            let expected = match (fit, value) {
                (Some(f), Some(x)) if !inverted => Some(point(c, f.position(x))),
                _ => None,
            };
            Some(MarkView {
                year,
                line,
                at: point(c, v),
                expected,
                value,
                status,
            })
        })
        .collect();
    SeriesView {
        kind: r.kind,
        quantity,
        marks,
    }
}
