//! Readers of the chart (contract §4): [`parse`] reads the SVG into a document tree (with its
//! own limits), [`style`] resolves CSS, [`scene`] flattens it into positioned marks and texts,
//! [`geometry`] holds boxes and transforms, and [`panels`] finds the panels, their titles, axes
//! and plotted series. Nothing here compares a value with the truth: that is `checks::svg`.

pub mod geometry;
pub mod panels;
pub mod parse;
pub mod sanitise;
pub mod scene;
pub mod style;

/// A value cut to 60 characters (and trimmed) for a message.
pub fn shorten(s: &str) -> String {
    let s = s.trim();
    if s.chars().count() > 60 {
        format!("{}…", s.chars().take(60).collect::<String>())
    } else {
        s.to_string()
    }
}
