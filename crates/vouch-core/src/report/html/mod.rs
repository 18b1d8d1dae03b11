//! `--format html`: self-contained HTML pages (inline CSS, no script, no network). Every piece
//! of bundle text goes through [`escape`]; the agent's chart is shown only as an `<img>` of a
//! sanitised copy (see `chart`), never as live SVG.

pub mod artifacts;
pub mod chart;
pub mod page;
pub mod verify;

pub use page::{base64, escape, page, Page};
