//! What `vouch run --repair` did over a set of runs (docs/runs.md): the accept rate before any
//! repair (the first pass, as `run.json` records it) and after repair (the audit's own verdict
//! on the final bundle), and how many repair rounds the repaired runs took. The audit summary
//! shows it per label and `compare` per side, only when some run was repaired.

use super::results::{RunResult, RunVerdict};
use crate::compare::render::proportion_json;
use crate::compare::Proportion;

/// Runs counted for their first-pass and final verdicts and their repair rounds.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct RepairTally {
    pub runs: u64,
    /// Runs accepted after repair (the audit's verdict; a run not verified is not accepted).
    pub accepted: u64,
    /// Runs whose first-pass verdict is known (the first-pass rate's denominator).
    pub first_known: u64,
    /// Runs accepted on the first pass.
    pub first_accepted: u64,
    /// Runs that went through at least one repair round.
    pub repaired: u64,
    /// Repair rounds summed over the repaired runs.
    pub rounds: u64,
}

impl RepairTally {
    pub fn add(&mut self, r: &RunResult) {
        self.runs += 1;
        self.accepted += u64::from(r.verdict == RunVerdict::Accept);
        if let Some(first) = r.first_pass {
            self.first_known += 1;
            self.first_accepted += u64::from(first == RunVerdict::Accept);
        }
        if r.repaired() {
            self.repaired += 1;
            self.rounds += u64::from(r.repair_rounds.unwrap_or(0));
        }
    }

    /// The runs of `runs`, counted.
    pub fn of(runs: &[RunResult]) -> RepairTally {
        let mut t = RepairTally::default();
        for r in runs {
            t.add(r);
        }
        t
    }

    /// Runs accepted on the first pass, over the runs whose first pass is known.
    pub fn first_pass(&self) -> Proportion {
        Proportion::new(self.first_accepted, self.first_known)
    }

    /// Runs accepted after repair, over all runs: the accept rate.
    pub fn after_repair(&self) -> Proportion {
        Proportion::new(self.accepted, self.runs)
    }

    /// Mean repair rounds of the repaired runs; None when no run was repaired.
    pub fn mean_rounds(&self) -> Option<f64> {
        (self.repaired > 0).then(|| self.rounds as f64 / self.repaired as f64)
    }

    /// The repaired runs and their mean rounds in words: `2 runs, 1.50 rounds on average`
    /// (`none` when no run was repaired).
    pub fn repaired_text(&self) -> String {
        match self.mean_rounds() {
            Some(mean) => format!(
                "{}, {mean:.2} rounds on average",
                vouch_core::report::plural(self.repaired as usize, "run", "runs")
            ),
            None => "none".to_string(),
        }
    }

    /// The figures in the JSON documents: `runs`, `first_pass` and `after_repair` (proportions),
    /// `repaired_runs`, `mean_repair_rounds` (null when no run was repaired).
    pub fn json(&self) -> serde_json::Value {
        serde_json::json!({
            "runs": self.runs,
            "first_pass": proportion_json(&self.first_pass()),
            "after_repair": proportion_json(&self.after_repair()),
            "repaired_runs": self.repaired,
            "mean_repair_rounds": self.mean_rounds(),
        })
    }

    /// The mean repair rounds as printed in tables: two decimals, `—` when no run was
    /// repaired.
    pub fn mean_text(&self) -> String {
        self.mean_rounds()
            .map_or_else(|| "—".to_string(), |m| format!("{m:.2}"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(verdict: RunVerdict, first: Option<RunVerdict>, rounds: u32) -> RunResult {
        RunResult {
            run_id: "r".into(),
            path: "p".into(),
            label: None,
            trial: None,
            model: None,
            source_file: None,
            source_sha256: None,
            verdict,
            error: None,
            checks: Vec::new(),
            first_pass: first,
            repair_rounds: Some(rounds),
        }
    }

    #[test]
    fn first_pass_and_after_repair_rates_and_the_mean_rounds_of_repaired_runs() {
        use RunVerdict::*;
        let t = RepairTally::of(&[
            run(Accept, Some(Reject), 1),
            run(Accept, Some(Accept), 0),
            run(Reject, Some(Reject), 2),
            // Repaired, round 0's verdict not recorded: out of the first-pass denominator.
            run(Accept, None, 3),
            run(Error, Some(Error), 0),
        ]);
        assert_eq!(t.first_pass(), Proportion::new(1, 4));
        assert_eq!(t.after_repair(), Proportion::new(3, 5));
        assert_eq!((t.repaired, t.rounds), (3, 6));
        assert_eq!(t.mean_rounds(), Some(2.0));
        assert_eq!(t.repaired_text(), "3 runs, 2.00 rounds on average");
        let none = RepairTally::of(&[run(Accept, Some(Accept), 0)]);
        assert_eq!((none.mean_rounds(), none.mean_text()), (None, "—".into()));
        assert_eq!(none.repaired_text(), "none");
    }
}
