//! A run found twice (a folder and an archive of it) is counted once: runs are known by the
//! `run_id` their run.json records (a bare bundle, whose id is its path, is never a repeat).

use super::results::RunResult;
use std::collections::HashMap;

/// Repeats named one by one; the rest are counted in [`Dedup::rest`].
const NAMED: usize = 10;

#[derive(Default)]
pub struct Dedup {
    seen: HashMap<String, String>,
    repeats: usize,
}

/// What to do with one result.
pub enum Seen {
    /// The first time: count it.
    New,
    /// A repeat, skipped; the warning to show, for the first [`NAMED`] repeats.
    Repeat(Option<String>),
}

impl Dedup {
    pub fn admit(&mut self, r: &RunResult) -> Seen {
        if r.run_id == r.path {
            return Seen::New;
        }
        let Some(first) = self.seen.get(&r.run_id) else {
            self.seen.insert(r.run_id.clone(), r.path.clone());
            return Seen::New;
        };
        self.repeats += 1;
        if self.repeats > NAMED {
            return Seen::Repeat(None);
        }
        let (a, b) = if *first <= r.path {
            (first.as_str(), r.path.as_str())
        } else {
            (r.path.as_str(), first.as_str())
        };
        Seen::Repeat(Some(format!(
            "run `{}` found twice, at `{}` and `{}`; counted once",
            vouch_core::report::inert(&r.run_id),
            vouch_core::report::inert(a),
            vouch_core::report::inert(b)
        )))
    }

    /// The warning for the repeats not named one by one, if any.
    pub fn rest(&self) -> Option<String> {
        (self.repeats > NAMED).then(|| {
            format!(
                "{} more runs found twice; each counted once",
                self.repeats - NAMED
            )
        })
    }
}
