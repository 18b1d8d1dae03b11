//! vouch's integration tests: one binary, one module per area.

mod bundle;
mod catalogue;
mod cli;
mod core;
mod defects;
mod run;
mod script;
mod support;
