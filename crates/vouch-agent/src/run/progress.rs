//! The progress display of `vouch run`: one line per trial showing its stage, drawn with indicatif
//! only when stderr is a terminal; elsewhere nothing is drawn (the summary is printed at the end).

use indicatif::{MultiProgress, ProgressBar, ProgressDrawTarget, ProgressStyle};
use std::time::Duration;

/// Where a trial is.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Stage {
    Queued,
    Uploading,
    CreatingContainer,
    Turn { turn: u32, max: u32 },
    Downloading,
    Verifying,
    CleaningUp,
    Done(String),
}

impl std::fmt::Display for Stage {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Stage::Queued => f.write_str("queued"),
            Stage::Uploading => f.write_str("uploading the source"),
            Stage::CreatingContainer => f.write_str("creating the container"),
            Stage::Turn { turn, max } => write!(f, "agent turn {turn}/{max}"),
            Stage::Downloading => f.write_str("downloading the artifacts"),
            Stage::Verifying => f.write_str("verifying"),
            Stage::CleaningUp => f.write_str("cleaning up"),
            Stage::Done(outcome) => f.write_str(outcome),
        }
    }
}

/// The display of all trials.
pub struct Progress {
    multi: Option<MultiProgress>,
}

/// One trial's line.
#[derive(Clone)]
pub struct TrialLine {
    bar: Option<ProgressBar>,
}

impl Progress {
    pub fn new(draw: bool) -> Progress {
        Progress {
            multi: draw.then(|| MultiProgress::with_draw_target(ProgressDrawTarget::stderr())),
        }
    }

    pub fn trial(&self, index: u32) -> TrialLine {
        let bar = self.multi.as_ref().map(|m| {
            let bar = m.add(ProgressBar::new_spinner());
            bar.set_style(
                ProgressStyle::with_template("{spinner} trial {prefix}: {msg} ({elapsed})")
                    .unwrap_or_else(|_| ProgressStyle::default_spinner()),
            );
            bar.set_prefix(index.to_string());
            bar.enable_steady_tick(Duration::from_millis(120));
            bar
        });
        let line = TrialLine { bar };
        line.stage(Stage::Queued);
        line
    }

    /// Print a line above the bars (or plainly when there are none).
    pub fn println(&self, text: &str) {
        match &self.multi {
            Some(m) => {
                let _ = m.println(text);
            }
            None => eprintln!("{text}"),
        }
    }
}

impl TrialLine {
    pub fn stage(&self, stage: Stage) {
        if let Some(bar) = &self.bar {
            if let Stage::Done(_) = stage {
                bar.finish_with_message(stage.to_string());
            } else {
                bar.set_message(stage.to_string());
            }
        }
    }
}
