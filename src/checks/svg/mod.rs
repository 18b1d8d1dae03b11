//! `svg.*`: the chart (contract §4).
pub mod geometry;
pub mod panels;
pub mod parse;
pub mod safety;
pub mod scene;
pub mod style;

use crate::checks::Context;
use crate::report::registry::CheckDef;
use crate::report::{Family, Finding};

pub const CHECKS: &[CheckDef] = crate::checks![Family::Svg;
];

pub fn check(_ctx: &Context, _out: &mut Vec<Finding>) {}
