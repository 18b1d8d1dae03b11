//! `svg.*`: not yet implemented (in progress).

use crate::checks::Context;
use crate::report::registry::CheckDef;
use crate::report::Finding;

pub const CHECKS: &[CheckDef] = &[];

pub fn check(_ctx: &Context, _out: &mut Vec<Finding>) {}
