//! `vouch compare` (being written).
pub mod stats;
