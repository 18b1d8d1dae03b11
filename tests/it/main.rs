//! vouch's integration tests: one binary, one module per area.

mod catalogue;
mod defects;
mod memo;
mod support;
