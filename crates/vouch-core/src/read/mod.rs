//! Readers: each turns an artifact's text into typed values with their locations (lines, rows,
//! columns, byte offsets). A reader never looks at the recomputed truth and emits no finding;
//! the families in `checks` compare what was read with the truth and the spec.
//!
//! - [`table`]: CSV records (the source, the metrics and movements tables).
//! - [`memo`]: the memo's blocks, citations, numbers, names and claims.
//! - [`svg`]: the chart's document, style, scene, geometry and panels.
//! - [`python`]: the script's tokens, statements and the facts the script rules need.

pub mod memo;
pub mod python;
pub mod svg;
pub mod table;
