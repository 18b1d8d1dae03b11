//! vouch's integration tests: one binary, one module per area.

mod agents;
mod architecture;
mod audit;
mod bundle;
mod catalogue;
mod cli;
mod compare;
mod core;
mod defects;
mod golden;
mod hostile;
mod html;
mod memo;
mod readme;
mod run;
mod script;
mod spec_contract;
mod spec_doc;
mod support;
mod svg;
