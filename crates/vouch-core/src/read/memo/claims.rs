//! The memo's numbers as claims (contract §9 "§5 numbers, at the clause level"): a reader.
//!
//! Every number of the memo's prose and of its tables outside the KPI section becomes a
//! [`Claim`]: what it is said of (a [`Subject`]: a §1 line item, a §2 metric or the ratio of two
//! of them), the years it may be of, the roles it may have (value, prior value, change, the
//! difference from another subject) — or, when vouch cannot tie it with certainty, *unverified*
//! with the reason. Nothing is judged here; [`crate::checks::memo::tied`] compares the tied claims with the
//! truth.
//!
//! Reading a sentence: it is split into clauses at `;`, at the comparison words of the spec
//! (`vs`, `versus`, `against`, `compared with` …) and at a `,`, `and`, `but` or `while` that
//! starts a new item (an item is named after it before the next number). A number belongs to the
//! item named nearest before it in its clause (`net income of 1,736`); with none before, to an
//! item named right after it (`1,498.3 million in revenue`); a comparison clause with no item of
//! its own compares the clause before's item. A quantity the contract does not define (days sales
//! outstanding, a tax rate, `after SBC`, a range or an average …) named nearer than any item makes
//! the number unverified, as does a unit that does not fit the item (`1.28x` of a money item).
//! `A/B` of two items, and `X% of B`, are the ratio of the two, which vouch recomputes.
//!
//! Years: the year written right before the number (`FY2022 71.6%`) or right after it (`71.6% in
//! FY2022`), else the clause's years, else the sentence's. A span of years (`FY2021-FY2025`)
//! makes the numbers of its clause aggregates (unverified) unless they are the two ends of a
//! `from … to …` change.
//!
//! Certainty: a tied number is *certain* when its years are its clause's own, no undefined
//! quantity stands in its clause, and its subject is the clause's only item or is written right
//! next to it (`revenue of 1,498.3`, `15.1% revenue growth`); a percent of a money item needs a
//! word of change in its clause. Each sentence (or table row) also yields its [`Plausible`]
//! readings: every subject it names, their shares, in every year it names. The judge verifies a
//! number that matches its own reading or any plausible one, contradicts it only when it matches
//! none and its reading was certain, and leaves it unverified otherwise.

use super::headings::numbering_len;
use super::numbers::{numbers, NumberMention, Unit};
use super::parse::{Block, BlockKind, Doc, Table};
use super::vocabulary::{Entity, Vocabulary, Word};
use super::years::YearMention;
use super::{sentences, Scan};
use crate::checks::Context;
use crate::names::{fold, parse_year_label};
use foldhash::{HashMap, HashMapExt};
use std::sync::Arc;

/// What a number is said of.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Subject {
    One(Entity),
    /// `A / B`, `A-to-B`, `X% of B`: the ratio of two items or money metrics in the same year.
    Ratio(Entity, Entity),
    /// `cash + STI`, `FCF - SBC`, `FCF after SBC`: the sum or difference of two money names.
    Combined(Entity, Op, Entity),
}

/// How a [`Subject::Combined`] joins its two names.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Op {
    Plus,
    Minus,
}

/// What a table column restricts a number to (a prose number may be any role).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Only {
    #[default]
    Any,
    /// Only the value in the year before (a `Prior` column).
    Prior,
    /// Only the value (a `Current` column).
    Value,
    /// Only a change (a `Change` column, a difference).
    Change,
}

/// The roles a tied number may have besides its subject's value in its year.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Roles {
    /// The value in the year before is admissible (`from 2,600 to 3,100`).
    pub prior: bool,
    /// A column's restriction.
    pub only: Only,
    /// Differences in points from these subjects are admissible (`30.0% against 20.0%`, `gap`).
    pub against: Vec<Subject>,
    /// The change over a span of years is admissible (`expanded by 225 bps between FY21 and
    /// FY25`).
    pub span: Option<(i32, i32)>,
    /// The number is the sum of the values over `span` (`cumulative FCF over FY2020 to FY2024`),
    /// and nothing else.
    pub aggregate: bool,
    /// The number is a compound annual rate over `span` (`a 10.4% CAGR`): a single year's
    /// value or growth its sentence makes plausible is not what it says.
    pub compound: bool,
}

#[derive(Clone, Debug, PartialEq)]
pub enum Target {
    Tied {
        subject: Subject,
        /// One year, or several when the number may be of any of them.
        years: Vec<i32>,
        roles: Roles,
        /// Nothing else its sentence says could be what the number is of: its years were named
        /// in its own clause, row or column, and its subject is the only item of its clause or
        /// is written right next to it, with no undefined quantity in the clause. A mismatch is
        /// then a contradiction; otherwise it is unverified.
        certain: bool,
        /// Its years were named in its own clause, row or column (a year outside the source is
        /// then `memo.number_out_of_range` whatever its subject).
        own_years: bool,
    },
    /// Not tied: the reason. Of a quantity the contract does not define, or otherwise unreadable.
    Unverified(String),
    /// Not tied because its sentence leaves open which item or year it is of (several items
    /// joined, a parenthesis after several items, no year): verified when one of its sentence's
    /// [`Plausible`] readings matches, else unverified with this reason.
    Ambiguous(String),
}

/// Every reading a number's sentence (or table row) makes plausible: the subjects it names and
/// their shares of each other, in the years it names. Tried when the number's own reading
/// fails: a match shows the number traced to the source under a reading its sentence allows; no
/// match is a contradiction only when the own reading was certain.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Plausible {
    pub subjects: Vec<Subject>,
    pub years: Vec<i32>,
    /// The sentence describes a move from an earlier value (`from 59.5% to 53.1%`) without
    /// naming the earlier year: any earlier year's value is plausible.
    pub earlier: bool,
    /// The sentence compares (differences in points between its subjects are plausible).
    pub against: bool,
    pub span: Option<(i32, i32)>,
}

#[derive(Clone, Debug)]
pub struct Claim {
    pub line: usize,
    pub number: NumberMention,
    /// The sentence or table row, as written (for messages), shared by its claims.
    pub context: Arc<str>,
    pub target: Target,
    pub plausible: Arc<Plausible>,
}

/// A name or undefined quantity found in a text.
#[derive(Clone, Debug)]
enum MarkKind {
    Known(Entity),
    Ratio(Entity, Entity),
    Combined(Entity, Op, Entity),
    Unknown(String),
}

#[derive(Clone, Debug)]
struct Mark {
    kind: MarkKind,
    start: usize,
    end: usize,
}

/// The memo vocabulary of §9, compiled once per spec (`Spec::memo_cues`).
#[derive(Debug)]
pub struct Cues {
    undefined: Phrases,
    descriptors: Vec<String>,
    comparison: Phrases,
    prior: Phrases,
    breaks: Vec<String>,
    heads: Vec<String>,
    hypothetical: Vec<String>,
    difference: Phrases,
    change: Phrases,
}

/// Word-sequence phrases, indexed by their first word, longest first (as [`Vocabulary`] does
/// for names): a look-up at a word compares only the phrases that start with it.
#[derive(Debug)]
struct Phrases {
    by_first: HashMap<String, Vec<Vec<String>>>,
}

impl Phrases {
    fn new(list: &[String]) -> Phrases {
        let mut by_first: HashMap<String, Vec<Vec<String>>> = HashMap::new();
        for p in list {
            let ws: Vec<String> = super::vocabulary::words(p)
                .into_iter()
                .map(|w| w.lower)
                .collect();
            if let Some(first) = ws.first() {
                by_first.entry(first.clone()).or_default().push(ws);
            }
        }
        for v in by_first.values_mut() {
            v.sort_by_key(|p| std::cmp::Reverse(p.len()));
        }
        Phrases { by_first }
    }

    /// The phrase starting at word `i`, if any: its length in words.
    fn at(&self, ws: &[Word], i: usize) -> Option<usize> {
        self.by_first
            .get(&ws.get(i)?.lower)?
            .iter()
            .find(|p| i + p.len() <= ws.len() && p.iter().zip(&ws[i..]).all(|(a, b)| *a == b.lower))
            .map(Vec::len)
    }

    fn any(&self, ws: &[Word]) -> bool {
        (0..ws.len()).any(|i| self.at(ws, i).is_some())
    }
}

impl Cues {
    /// The first quantity the contract does not define (`memo.undefined_quantities`) that `text`
    /// names, as its words: the memo's own phrase match, for names outside the memo too
    /// (`implied_operating_expenses` in a movements row).
    pub fn undefined_in(&self, text: &str) -> Option<String> {
        let ws = super::vocabulary::words(text);
        (0..ws.len()).find_map(|i| {
            let n = self.undefined.at(&ws, i)?;
            Some(
                ws[i..i + n]
                    .iter()
                    .map(|w| w.lower.as_str())
                    .collect::<Vec<_>>()
                    .join(" "),
            )
        })
    }

    pub fn new(m: &crate::spec::MemoSpec) -> Cues {
        Cues {
            undefined: Phrases::new(&m.undefined_quantities),
            descriptors: m.metric_descriptors.clone(),
            comparison: Phrases::new(&m.comparison_cues),
            prior: Phrases::new(&m.prior_cues),
            breaks: m.clause_breaks.clone(),
            heads: m.clause_heads.clone(),
            hypothetical: m.hypothetical_cues.clone(),
            difference: Phrases::new(&m.difference_cues),
            change: Phrases::new(&m.change_cues),
        }
    }
}

/// Whether `text` between two marks only joins them as a ratio (`/`, `to`, `-to-`, `over`, `%
/// of`).
fn ratio_joint(text: &str) -> bool {
    let t = text.trim().to_ascii_lowercase();
    matches!(
        t.as_str(),
        "/" | "÷" | "to" | "-to-" | "over" | "%" | "% of" | "as % of" | "as a % of" | "% of total"
    )
}

/// Whether `text` between two marks joins them as a sum or difference (`cash + STI`, `FCF less
/// SBC`, `OCF - capex`): a combination the contract does not define.
fn combination_joint(text: &str) -> bool {
    let t = text.trim().to_ascii_lowercase();
    matches!(
        t.as_str(),
        "+" | "plus" | "-" | "−" | "–" | "less" | "minus" | "net of" | "after"
    )
}

/// Whether `before` ends with a noun of change (`memo.change_nouns`: `change in`, `increase
/// in` …), which leaves the scope of a sum or difference after it open.
fn after_change_noun(ctx: &Context, before: &str) -> bool {
    let tail: Vec<String> = before
        .split_whitespace()
        .rev()
        .take(3)
        .map(|w| w.to_lowercase())
        .collect();
    ctx.spec.memo.change_nouns.iter().any(|n| {
        let words: Vec<&str> = n.split_whitespace().collect();
        words.len() <= tail.len()
            && words
                .iter()
                .rev()
                .zip(tail.iter())
                .all(|(a, b)| a.eq_ignore_ascii_case(b))
    })
}

/// Money-valued subjects (a ratio of them is meaningful): line items and money metrics.
fn money(ctx: &Context, e: Entity) -> bool {
    match e {
        Entity::Item(_) => true,
        Entity::Metric(m) => ctx.spec.metrics[m].unit == crate::spec::Unit::Money,
        _ => false,
    }
}

/// The marks of a span of words of `text`: names of the vocabulary, undefined quantities (which
/// win over a name they overlap), ratios of two money names, and metric descriptors absorbed
/// (`ROE (average equity)`, `average-asset ROA`).
fn marks(ctx: &Context, vocab: &Vocabulary, cues: &Cues, text: &str, ws: &[Word]) -> Vec<Mark> {
    let mut unknown: Vec<Mark> = Vec::new();
    let mut i = 0;
    while i < ws.len() {
        // A phrase does not run across punctuation (or masked years: `in FY2021, …; total`).
        let n = cues.undefined.at(ws, i).filter(|&n| {
            !text[ws[i].start..ws[i + n - 1].end].contains([',', ';', ':', '.', '(', ')'])
                && ws[i..i + n]
                    .windows(2)
                    .all(|w| text[w[0].end..w[1].start].trim().len() <= 1)
        });
        if let Some(n) = n {
            unknown.push(Mark {
                kind: MarkKind::Unknown(text[ws[i].start..ws[i + n - 1].end].to_string()),
                start: ws[i].start,
                end: ws[i + n - 1].end,
            });
            i += n;
        } else {
            i += 1;
        }
    }
    // A number's unit word (`43.4 days`, `3 times`) is part of the number, not a quantity.
    // (Numbers are read over the words' own span: `text` may be a whole paragraph.)
    if let (Some(first), Some(last)) = (ws.first(), ws.last()) {
        if !unknown.is_empty() {
            let (a, b) = (
                text[..first.start]
                    .rfind(|c: char| c.is_whitespace())
                    .map_or(0, |i| i + 1),
                last.end,
            );
            let nums = numbers(&text[a..b]);
            unknown.retain(|u| {
                !nums
                    .iter()
                    .any(|n| a + n.start <= u.start && u.end <= a + n.end)
            });
        }
    }
    let mut known: Vec<Mark> = vocab
        .mentions(ws)
        .into_iter()
        .filter(|m| {
            !unknown.iter().any(|u| {
                u.start < m.end && m.start < u.end && !(m.start <= u.start && u.end <= m.end)
            })
        })
        .map(|m| Mark {
            kind: MarkKind::Known(m.entity),
            start: m.start,
            end: m.end,
        })
        .collect();
    // `equity_rollforward_gap`: an identifier with a word that is neither part of a name in it
    // nor a descriptor names a quantity of its own; the names inside it are not mentions
    // (`total_equity`, `roe_avg_equity_pct` and `free_cash_flow_usd_m` stay their names).
    if let (Some(first), Some(last)) = (ws.first(), ws.last()) {
        let descriptors = &ctx.spec.metrics_file.header_descriptors;
        for (s, e) in identifiers(text, first.start, last.end) {
            let inner = |m: &Mark| s <= m.start && m.end <= e;
            if !known.iter().any(inner) {
                continue;
            }
            let own = span_words(ws, s, e);
            let named_or_describing = |w: &Word| {
                known
                    .iter()
                    .any(|m| inner(m) && m.start <= w.start && w.end <= m.end)
                    || cues.descriptors.contains(&w.lower)
                    || descriptors.contains(&w.lower)
            };
            if own.iter().all(named_or_describing) {
                continue;
            }
            known.retain(|m| !inner(m));
            unknown.retain(|u| u.end <= s || e <= u.start);
            unknown.push(Mark {
                kind: MarkKind::Unknown(text[s..e].to_string()),
                start: s,
                end: e,
            });
        }
    }
    // A known name that covers an undefined word (`income tax`, `total equity`) wins.
    unknown.retain(|u| !known.iter().any(|m| m.start <= u.start && u.end <= m.end));
    // Descriptors next to a metric (`(average equity)`, `average-asset`) describe it.
    // `ws` are the words of `text` in order, so the words of a span are a slice of them.
    let is_desc = |s: usize, e: usize| {
        ws[ws.partition_point(|w| w.start < s)..ws.partition_point(|w| w.end <= e)]
            .iter()
            .all(|w| cues.descriptors.contains(&w.lower))
    };
    let metric_spans: Vec<(usize, usize)> = known
        .iter()
        .filter(|m| matches!(m.kind, MarkKind::Known(Entity::Metric(_))))
        .map(|m| (m.start, m.end))
        .collect();
    let near_metric = |s: usize, e: usize| {
        metric_spans.iter().any(|&(ms, me)| {
            (me <= s && is_desc(me, s) && text[me..s].len() < 24)
                || (e <= ms && is_desc(e, ms) && text[e..ms].len() < 24)
        })
    };
    known.retain(|m| {
        matches!(m.kind, MarkKind::Known(Entity::Metric(_)))
            || !(is_desc(m.start, m.end) && near_metric(m.start, m.end))
    });
    unknown.retain(|m| !(is_desc(m.start, m.end) && near_metric(m.start, m.end)));
    // `A / B` of two money names; `A + B`, `A less (B + C)`: a combination; an undefined
    // quantity right before a name qualifies it (`incremental operating margin`, `non-current
    // liabilities`).
    let mut all: Vec<Mark> = known;
    all.extend(unknown);
    all.sort_by_key(|m| m.start);
    let mut merged: Vec<Mark> = Vec::new();
    for m in all {
        if let Some(prev) = merged.last() {
            let joint = &text[prev.end..m.start];
            if let (MarkKind::Known(a), MarkKind::Known(b)) = (&prev.kind, &m.kind) {
                if money(ctx, *a) && money(ctx, *b) && ratio_joint(joint) {
                    let (a, b, start) = (*a, *b, prev.start);
                    merged.pop();
                    merged.push(Mark {
                        kind: MarkKind::Ratio(a, b),
                        start,
                        end: m.end,
                    });
                    continue;
                }
            }
            // (An aggregate word is not a qualifier: `cumulative FCF` is a sum of FCF.)
            // (`residuals: equity -470,513`: a quantity heading a list of the items it is of.)
            let qualifier = matches!(&prev.kind, MarkKind::Unknown(t)
                    if !AGGREGATES.contains(&t.to_lowercase().as_str()))
                && (joint.chars().all(|c| c == ' ' || c == '-') || joint.trim() == ":");
            let joint_word = joint.trim_end_matches(['(', ' ']);
            if let (MarkKind::Known(a), MarkKind::Known(b), true) =
                (&prev.kind, &m.kind, combination_joint(joint_word))
            {
                if money(ctx, *a)
                    && money(ctx, *b)
                    && !joint.contains('(')
                    && !after_change_noun(ctx, &text[..prev.start])
                {
                    let op = if matches!(joint_word.trim(), "+" | "plus") {
                        Op::Plus
                    } else {
                        Op::Minus
                    };
                    let (a, b, start) = (*a, *b, prev.start);
                    merged.pop();
                    merged.push(Mark {
                        kind: MarkKind::Combined(a, op, b),
                        start,
                        end: m.end,
                    });
                    continue;
                }
            }
            if combination_joint(joint_word) || qualifier {
                let start = prev.start;
                merged.pop();
                merged.push(Mark {
                    kind: MarkKind::Unknown(text[start..m.end].to_string()),
                    start,
                    end: m.end,
                });
                continue;
            }
        }
        merged.push(m);
    }
    merged.sort_by_key(|m| m.start);
    // `OCF - NI`, `cash + STI`, `FCF less buybacks`: a combination with a word vouch does not
    // know is a combination still.
    let names_at: Vec<usize> = merged.iter().map(|m| m.start).collect();
    for m in &mut merged {
        if matches!(m.kind, MarkKind::Unknown(_)) {
            continue;
        }
        let rest = &text[m.end..];
        let t = rest.trim_start();
        let (op, tail) = if let Some(r) = t.strip_prefix(['+', '−', '/']) {
            (true, r)
        } else if let Some(r) = t.strip_prefix("- ").or_else(|| t.strip_prefix("– ")) {
            // `OCF - NI`: an abbreviation after a spaced dash; `Interest expense - Fact` is a
            // label.
            let word: String = r
                .trim_start()
                .chars()
                .take_while(|c| c.is_alphanumeric())
                .collect();
            (
                rest.starts_with(' ')
                    && word.len() >= 2
                    && word.chars().all(|c| c.is_uppercase() || c.is_ascii_digit()),
                r,
            )
        } else if let Some(r) = [
            "plus ",
            "less ",
            "minus ",
            "after ",
            "net of ",
            "excluding ",
            "before ",
        ]
        .iter()
        .find_map(|w| t.strip_prefix(w))
        {
            (true, r)
        } else if let Some(r) = ["and ", "& "].iter().find_map(|w| t.strip_prefix(w)) {
            // `cash and investments`: joined to a word that names no item, a combination;
            // `revenue and net income` stays two names.
            let at = text.len() - r.trim_start().len();
            (!names_at.contains(&at), r)
        } else {
            (false, t)
        };
        if op && tail.trim_start().starts_with(|c: char| c.is_alphabetic()) {
            let word_end = {
                let tl = tail.trim_start();
                let at = text.len() - tl.len();
                at + tl
                    .find(|c: char| !(c.is_alphanumeric() || c == '&' || c == '-'))
                    .unwrap_or(tl.len())
            };
            m.kind = MarkKind::Unknown(text[m.start..word_end].to_string());
            m.end = word_end;
        }
    }
    merged
}

/// Text between two offsets holds only glue: white space, punctuation, unit and scale words, and
/// `in`/`of`/`the`/`for`.
fn glue_only(text: &str) -> bool {
    super::vocabulary::words(text).iter().all(|w| {
        matches!(
            w.lower.as_str(),
            "in" | "of" | "the" | "for" | "million" | "millions" | "mn" | "m" | "usd" | "x"
        )
    }) && !text.contains(['.', ';'])
}

/// Text right before a number that binds it to the year before it (`FY2022 71.6%`, `FY2025:
/// 11.6%`, `in FY2024 was 3.1`): white space, `:`, `=`, `(` and a few linking words only.
fn binds(text: &str) -> bool {
    text.len() <= 12
        && text
            .chars()
            .all(|c| c.is_whitespace() || c.is_alphabetic() || matches!(c, ':' | '=' | '('))
        && super::vocabulary::words(text).iter().all(|w| {
            matches!(
                w.lower.as_str(),
                "in" | "of" | "was" | "at" | "is" | "for" | "were"
            )
        })
}

/// The sentence's words that lie within `a..b` (the words are in text order).
fn span_words(ws: &[Word], a: usize, b: usize) -> &[Word] {
    let s = ws.partition_point(|w| w.start < a);
    let e = ws.partition_point(|w| w.end <= b).max(s);
    &ws[s..e]
}

/// Text between a year and the number right after it that makes the year that number's
/// (`FY2022 21.0%`, `FY2021: 1.25x`).
fn leads(text: &str) -> bool {
    // `below 2019's 8.08x`: a possessive year is the figure's after it.
    matches!(text.trim(), "" | ":" | "=" | "'s" | "’s")
}

/// Text between a name and a number that binds the number to that name alone, whatever else its
/// clause names (`revenue of 1,498.3`, `FCF: 246.7`, `ROE FY2025 12.2%`, `revenue grew by
/// 10.7%`): linking words and year labels, no other number and no clause punctuation.
const VERBS: &[&str] = &[
    "grew",
    "rose",
    "fell",
    "increased",
    "decreased",
    "declined",
    "expanded",
    "contracted",
    "dropped",
    "improved",
    // Other verbs of movement: none names an item (`OCF went from 131.6 (FY2021) to 279.6`).
    "went",
    "moved",
    "climbed",
    "jumped",
    "surged",
    "soared",
    "slipped",
    "slid",
    "dipped",
    "eased",
    "edged",
    "plunged",
    "tumbled",
    "shrank",
    "shrunk",
    "widened",
    "narrowed",
    "compressed",
    "softened",
    "recovered",
    "rebounded",
    "deteriorated",
    "slowed",
    "accelerated",
    "decelerated",
    "swung",
];
const LINKS: &[&str] = &[
    "in", "of", "the", "for", "was", "were", "is", "are", "at", "to", "reached", "stood", "up",
    "down", "million", "millions", "mn", "m", "usd", "fy", "had", "has", "have", "been", "from",
];

/// Words between a name and its number, past another number, that only carry the same item on
/// (`revenue was 1,498.3 in FY2025, up 10.7%`, `margin expanded from 9.1% to 11.6%`); any other
/// word (`cash conversion 1.64x, leverage down to 1.41x`) may name what the number is of.
fn carries_on(text: &str) -> bool {
    super::vocabulary::words(text).iter().all(|w| {
        let l = w.lower.as_str();
        l.starts_with(|c: char| c.is_ascii_digit())
            || parse_year_label(l).is_some()
            || LINKS.contains(&l)
            || VERBS.contains(&l)
            || matches!(
                l,
                "from"
                    | "a"
                    | "an"
                    | "and"
                    | "then"
                    | "by"
                    | "x"
                    | "pp"
                    | "bps"
                    | "pts"
                    | "points"
                    | "change"
                    | "increase"
                    | "decrease"
                    | "growth"
                    | "decline"
                    | "rise"
                    | "gain"
                    | "drop"
                    | "year"
                    | "prior"
                    | "previous"
                    | "yoy"
                    | "on"
                    | "versus"
                    | "vs"
                    // `Deferred revenue - Fact (file): 2019: 31.3, 2020: 14.0`: a memo's own
                    // label of what kind of statement follows.
                    | "fact"
                    | "facts"
            )
    })
}

fn tight(text: &str) -> bool {
    let ws = super::vocabulary::words(text);
    let verb = ws.iter().any(|w| VERBS.contains(&w.lower.as_str()));
    !text.contains([';', ',', '.', ')'])
        && ws.iter().all(|w| {
            let l = w.lower.as_str();
            parse_year_label(l).is_some()
                || LINKS.contains(&l)
                || VERBS.contains(&l)
                || (l == "by" && verb)
        })
}

/// Nouns and verbs that make a percent of a money item a change (`grew 10.7%`, `10.7% growth`).
const CHANGE_WORDS_PROSE: &[&str] = &[
    "growth",
    "grow",
    "growing",
    "yoy",
    "increase",
    "increases",
    "decrease",
    "decreases",
    "decline",
    "change",
    "changed",
    "higher",
    "lower",
    "rise",
    "rising",
    "fall",
    "falling",
    "gain",
    "drop",
    "jump",
    "jumped",
    "surged",
    "slowed",
    "accelerated",
    "decelerated",
    "faster",
    "slower",
    "outgrew",
    "outpaced",
    "compounded",
    "annual",
];

/// Words that make the figures after them in their clause sums over years.
const AGGREGATES: &[&str] = &[
    "cumulative",
    "cumulatively",
    "combined",
    "aggregate",
    "aggregated",
    "sum",
    "summed",
    "totalled",
    "totaled",
    "totalling",
    "totaling",
    "altogether",
];

/// `added up to 523.4`, `adds up to`: a sum, as the aggregate words say.
fn adds_up(ws: &[Word]) -> bool {
    ws.windows(2).any(|w| {
        matches!(w[0].lower.as_str(), "add" | "adds" | "added" | "adding") && w[1].lower == "up"
    })
}

/// Words that make a figure the highest or lowest value of a series (`peaked at 3,010`).
const EXTREMES: &[&str] = &[
    "peak", "peaked", "peaking", "low", "lowest", "high", "highest", "trough", "troughed", "max",
    "min", "maximum", "minimum",
];

/// Words that, opening a sentence, make its subject something named elsewhere.
const PRONOUNS: &[&str] = &[
    "it", "its", "they", "their", "this", "these", "those", "that", "which", "both", "each",
    "latter", "former", "he", "she", "we",
];

/// Nouns right after an item that make the phrase its change (`AR increase of 1,260`).
const CHANGE_NOUNS: &[&str] = &[
    "increase", "decrease", "change", "build", "release", "drawdown", "swing", "movement",
    "growth", "decline", "rise", "fall", "drop", "jump", "gain", "loss", "step-up", "outflow",
    "inflow",
];

/// The readings a sentence makes plausible (see [`Plausible`]): its subjects, the shares `X% of
/// B` and margins its words allow, in its years (or the row's).
#[allow(clippy::too_many_arguments)]
fn plausible_of(
    ctx: &Context,
    text: Option<&str>,
    cue_text: &str,
    ms: &[Mark],
    ys: &[YearMention],
    default_years: &[i32],
    earlier: bool,
    against: bool,
    span: Option<(i32, i32)>,
) -> Plausible {
    let mut subjects: Vec<Subject> = Vec::new();
    let add = |s: Subject, subjects: &mut Vec<Subject>| {
        if !subjects.contains(&s) {
            subjects.push(s);
        }
    };
    for m in ms {
        match m.kind {
            MarkKind::Known(e) if !matches!(e, Entity::Derived | Entity::AbsentColumn(_)) => {
                add(Subject::One(e), &mut subjects)
            }
            MarkKind::Combined(a, op, b) => {
                add(Subject::Combined(a, op, b), &mut subjects);
                add(Subject::One(a), &mut subjects);
                add(Subject::One(b), &mut subjects);
            }
            MarkKind::Ratio(a, b) => {
                add(Subject::Ratio(a, b), &mut subjects);
                add(Subject::One(a), &mut subjects);
                add(Subject::One(b), &mut subjects);
            }
            _ => {}
        }
    }
    let moneys: Vec<Entity> = subjects
        .iter()
        .filter_map(|s| match s {
            Subject::One(e) if money(ctx, *e) => Some(*e),
            _ => None,
        })
        .collect();
    // Shares: `X% of B`, `B's share`; margins: a money item over revenue.
    let mut bases: Vec<Entity> = ms
        .iter()
        .filter_map(|m| match m.kind {
            MarkKind::Known(b)
                if money(ctx, b)
                    && text
                        .and_then(|t| t.get(..m.start))
                        .is_some_and(ends_with_word_of) =>
            {
                Some(b)
            }
            _ => None,
        })
        .collect();
    let lower = cue_text.to_ascii_lowercase();
    if lower.contains("margin") || lower.contains("of revenue") || lower.contains("% of") {
        bases.extend(revenue(ctx));
    }
    for &b in &bases {
        for &a in &moneys {
            if a != b {
                add(Subject::Ratio(a, b), &mut subjects);
            }
        }
    }
    let mut years: Vec<i32> = dedup(ys.iter().map(|y| y.year));
    for &y in default_years {
        if !years.contains(&y) {
            years.push(y);
        }
    }
    Plausible {
        subjects,
        years,
        earlier,
        against,
        span,
    }
}

/// Whether `t`, trimmed, ends in `of` in any case (read from its end: `t` may be a paragraph).
fn ends_with_word_of(t: &str) -> bool {
    let b = t.trim_end().as_bytes();
    b.len() >= 2 && b[b.len() - 2..].eq_ignore_ascii_case(b"of")
}

/// The year a number is written next to, if any: in parentheses or after `in` right after it
/// (`31.5% (FY2018)`, `71.6% in FY2022`), else right before it (`FY2022 71.6%`). A year that
/// starts or ends a span (`FY2021-FY2025`) is not one number's year.
fn adjacent_year<'a>(
    text: &str,
    years: &'a [YearMention],
    ranged: &[(usize, usize)],
    nums: &[NumberMention],
    n: &NumberMention,
) -> Option<&'a YearMention> {
    let free = |y: &&YearMention| !ranged.iter().any(|&(s, e)| y.start >= s && y.end <= e);
    // A year written right before another number is that number's (`(FY2021: 1.25x)`).
    let owns_next = |y: &YearMention| {
        nums.iter()
            .find(|m| m.start >= y.end)
            .is_some_and(|m| leads(&text[y.end..m.start]))
    };
    let after = years
        .iter()
        .find(|y| y.start >= n.end)
        .filter(free)
        .filter(|y| !owns_next(y))
        .filter(|y| {
            let gap = text[n.end..y.start].trim().to_ascii_lowercase();
            matches!(
                gap.as_str(),
                "in" | "(" | "for" | "in the" | "(in" | "(for" | "during"
            )
        });
    if let Some(y) = after {
        return Some(y);
    }
    years
        .iter()
        .rev()
        .find(|y| y.end <= n.start)
        .filter(free)
        .filter(|y| binds(&text[y.end..n.start]))
}

/// Spans of years written as a range (`FY2021-FY2025`, `2021 to 2025`, `2021–25` counts as two
/// mentions already).
fn year_ranges(text: &str, years: &[YearMention]) -> Vec<(i32, i32, usize, usize)> {
    years
        .windows(2)
        .filter(|w| {
            let gap = text[w[0].end..w[1].start].trim().to_ascii_lowercase();
            let between = text[..w[0].start]
                .trim_end()
                .to_ascii_lowercase()
                .ends_with("between");
            matches!(
                gap.as_str(),
                "-" | "–" | "—" | "to" | "through" | "thru" | ".."
            ) || (gap == "and" && between)
        })
        .map(|w| (w[0].year, w[1].year, w[0].start, w[1].end))
        .collect()
}

struct Clause {
    start: usize,
    end: usize,
    /// Starts with a comparison word.
    comparison: bool,
}

/// The clauses of a sentence `s..e` of `text`.
fn clauses(
    text: &str,
    s: usize,
    e: usize,
    ws: &[Word],
    marks: &[Mark],
    nums: &[NumberMention],
    cues: &Cues,
) -> Vec<Clause> {
    // Candidate cut points: (offset where the next clause starts, is a comparison).
    let mut cuts: Vec<(usize, bool)> = Vec::new();
    for (i, c) in text[s..e].char_indices() {
        if c == ';' {
            cuts.push((s + i + 1, false));
        }
    }
    // A `,`, `:` or `and` starts a new item when a name follows before the next number and a
    // number came earlier in the clause (`net income of 1,736 and SBC of 700`, `86.5% of FCF, and
    // receivables …`, not `capex and revenue were …`).
    // A colon with a name after it ends a label even with no number before (`**Receivables -
    // fact (files):** accounts receivable growth 2022 +15.6%, …`): the label's words are not
    // the figures' item.
    let mut soft: Vec<(usize, usize)> = Vec::new(); // (where the next clause starts, where to test)
    let mut colons: Vec<usize> = Vec::new();
    for (i, c) in text[s..e].char_indices() {
        if c == ',' || c == ':' {
            soft.push((s + i + 1, s + i + 1));
        }
        if c == ':' {
            colons.push(s + i + 1);
        }
    }
    for (i, w) in ws.iter().enumerate() {
        if cues.comparison.at(ws, i).is_some() {
            cuts.push((w.start, true));
        } else if cues.heads.contains(&w.lower) {
            // `ROE is high because the balance sheet carries 1.98x …`: what follows has a
            // subject of its own.
            cuts.push((w.start, false));
        } else if cues.breaks.contains(&w.lower) {
            soft.push((w.start, w.end));
        }
    }
    soft.sort();
    let mut segment = s;
    for (start, at) in soft {
        if let Some(&(c, _)) = cuts.iter().filter(|c| c.0 <= start).max_by_key(|c| c.0) {
            segment = segment.max(c);
        }
        let next_mark = marks.iter().find(|m| m.start >= at).map(|m| m.start);
        let next_num = nums.iter().find(|n| n.start >= at).map(|n| n.start);
        let number_before = nums.iter().any(|n| n.start >= segment && n.end <= start);
        // (The name must open what follows the colon: `Stock compensation: grant policy,
        // dilution, …` is one topic.)
        let label = colons.contains(&start)
            && marks.iter().any(|m| m.start >= segment && m.end < start)
            && next_mark.is_some_and(|m| {
                text[start..m]
                    .trim_matches(|c: char| c.is_whitespace() || c == '*' || c == '_')
                    .is_empty()
            });
        // (A name with no figure after it opens a clause of its own too: `the 2025 cut in
        // operating expenses (1,113.3 -> 470.1) and the rise in cost of revenue`.)
        let name_next = match (next_mark, next_num) {
            (Some(m), Some(n)) => m < n,
            (Some(_), None) => true,
            _ => false,
        };
        if (number_before || label) && name_next {
            cuts.push((start, false));
            segment = start;
        }
    }
    cuts.sort();
    cuts.dedup_by_key(|c| c.0);
    let mut out = Vec::new();
    let mut start = s;
    let mut comparison = false;
    for (at, cmp) in cuts {
        if at > start && at < e {
            out.push(Clause {
                start,
                end: at,
                comparison,
            });
            start = at;
            comparison = cmp;
        } else if at == start {
            comparison |= cmp;
        }
    }
    out.push(Clause {
        start,
        end: e,
        comparison,
    });
    out
}

/// Whether a number is one of the contract's own thresholds as they are written (`15%`, `2
/// points`, `0.15`): with no decimals. `15.0%` is one only where its clause speaks of thresholds
/// ([`threshold_talk`]); elsewhere it is a figure that happens to equal one.
fn is_threshold(ctx: &Context, n: &NumberMention) -> bool {
    n.printed.decimals <= 0 && equals_threshold(ctx, n)
}

/// Words of a clause that speak of the contract's thresholds.
fn threshold_talk(ws: &[Word], text: &str) -> bool {
    text.contains('≥')
        || text.contains(">=")
        || ws.iter().any(|w| {
            matches!(
                w.lower.as_str(),
                "least"
                    | "threshold"
                    | "thresholds"
                    | "exceed"
                    | "exceeds"
                    | "exceeding"
                    | "flag"
                    | "flagged"
                    | "flags"
                    | "rule"
                    | "rules"
                    | "trigger"
                    | "triggered"
                    | "over"
                    | "above"
                    | "more"
                    | "beyond"
                    | "cutoff"
                    | "cut"
            )
        })
}

fn equals_threshold(ctx: &Context, n: &NumberMention) -> bool {
    use crate::spec::ThresholdUnit;
    ctx.spec.threshold_numbers.iter().any(|th| {
        let unit_ok = match th.unit {
            ThresholdUnit::Percent => n.unit == Unit::Percent,
            ThresholdUnit::Points => n.unit == Unit::Points,
            ThresholdUnit::Bare => n.unit == Unit::Bare,
        };
        unit_ok && th.value == n.printed.value
    })
}

/// Byte spans of identifiers in `text[a..b]`: runs of ASCII letters, digits and `_` in which an
/// underscore joins two letters or digits (`equity_rollforward_gap`).
fn identifiers(text: &str, a: usize, b: usize) -> Vec<(usize, usize)> {
    let bytes = &text.as_bytes()[..b];
    if !bytes[a..].contains(&b'_') {
        return Vec::new();
    }
    let ident = |c: u8| c.is_ascii_alphanumeric() || c == b'_';
    let mut out = Vec::new();
    let mut i = a;
    while i < b {
        if !ident(bytes[i]) {
            i += 1;
            continue;
        }
        let start = i;
        while i < b && ident(bytes[i]) {
            i += 1;
        }
        let run = &bytes[start..i];
        let joined = run
            .windows(3)
            .any(|w| w[1] == b'_' && w[0].is_ascii_alphanumeric() && w[2].is_ascii_alphanumeric());
        // A run that starts inside a word (`é_x`) is not an identifier of its own.
        let clean_start = start == 0
            || text.is_char_boundary(start) && !text[..start].ends_with(char::is_alphanumeric);
        if joined && clean_start {
            out.push((start, i));
        }
    }
    out
}

/// Plural nouns that a whole number before them counts: `58 flags`, `5 operating-margin moves`,
/// `3 consecutive years`.
const COUNT_NOUNS: &[&str] = &[
    "flags",
    "moves",
    "movements",
    "rows",
    "years",
    "items",
    "metrics",
    "ratios",
    "instances",
    "cases",
    "times",
    "occasions",
    "quarters",
    "periods",
    "gaps",
    "breaches",
    "panels",
    "sections",
    "events",
    "swings",
    "changes",
    "declines",
    "increases",
    "rises",
    "falls",
    "drops",
    "checks",
    "columns",
    "observations",
    "line-items",
];

/// Words that tie a number to what follows them rather than describe the things it counts.
const COUNT_BREAKERS: &[&str] = &[
    "in", "of", "for", "to", "from", "by", "over", "at", "on", "with", "and", "or", "vs", "versus",
    "than", "the", "a", "an", "during", "across", "since", "after", "before", "per", "is", "was",
    "were", "are", "into", "through", "within", "until", "as",
];

/// A bare whole number followed, after one to three describing words (hyphenated compounds are
/// one word), by a plural noun of things counted: the number is a count, not a figure of the item
/// those words may name (`5 operating-margin moves of at least 2 pp`).
fn counts_things(n: &NumberMention, after: &str) -> bool {
    if n.unit != Unit::Bare
        || n.printed.decimals != 0
        || n.printed.currency
        || n.printed.percent
        || n.printed.multiple
        || n.parenthesised
        || n.printed.value < crate::numbers::int(1)
        || !after.starts_with(char::is_whitespace)
    {
        return false;
    }
    for (i, tok) in after.split_whitespace().take(4).enumerate() {
        let core = tok.trim_end_matches([',', ';', ':', '.', ')']);
        let lower = core.to_ascii_lowercase();
        if COUNT_NOUNS.contains(&lower.as_str()) {
            // Right after the number (`58 flags`) the noun is read as what the number is next
            // to, as before; the rule is for the words between that may name an item.
            return i > 0;
        }
        let describing = core.len() == tok.len()
            && !core.is_empty()
            && core.chars().all(|c| c.is_alphabetic() || c == '-')
            && !COUNT_BREAKERS.contains(&lower.as_str());
        if !describing || i == 3 {
            return false;
        }
    }
    false
}

/// `(1)`-style enumeration markers in prose.
fn is_marker(n: &NumberMention) -> bool {
    n.parenthesised
        && n.unit == Unit::Bare
        && n.printed.decimals == 0
        && !n.printed.currency
        && n.printed.value < crate::numbers::int(100)
}

/// Numbers that are not figures at all: skipped, not counted.
fn skipped(ctx: &Context, n: &NumberMention) -> bool {
    is_threshold(ctx, n) || is_marker(n)
}

fn subject_of(kind: &MarkKind) -> Result<Subject, String> {
    match kind {
        MarkKind::Known(Entity::Derived) => {
            Err("next to a measure the contract does not define".into())
        }
        MarkKind::Known(Entity::AbsentColumn(_)) => {
            Err("next to an item the source does not have".into())
        }
        MarkKind::Known(e) => Ok(Subject::One(*e)),
        MarkKind::Ratio(a, b) => Ok(Subject::Ratio(*a, *b)),
        MarkKind::Combined(a, op, b) => Ok(Subject::Combined(*a, *op, *b)),
        MarkKind::Unknown(t) => Err(format!(
            "next to a quantity the contract does not define: {}",
            t.to_lowercase()
        )),
    }
}

/// Reads every claim of the memo's prose (the KPI section's tables excluded: they are `kpi`'s).
pub fn read(
    ctx: &Context,
    doc: &Doc,
    scans: &[Scan],
    kpi_tables: &[usize],
    vocab: &Vocabulary,
) -> Vec<Claim> {
    let cues = &*ctx.spec.memo_cues;
    let mut out = Vec::new();
    for (block, scan) in doc.blocks.iter().zip(scans) {
        if matches!(block.kind, BlockKind::Code | BlockKind::TableRow) {
            continue;
        }
        read_block(ctx, vocab, cues, block, scan, &mut out);
    }
    for (ti, table) in doc.tables.iter().enumerate() {
        if !kpi_tables.contains(&ti) {
            read_table(ctx, vocab, cues, table, &mut out);
        }
    }
    out
}

fn read_block(
    ctx: &Context,
    vocab: &Vocabulary,
    cues: &Cues,
    block: &Block,
    scan: &Scan,
    out: &mut Vec<Claim>,
) {
    let text = &scan.masked;
    let skip_before = if block.kind == BlockKind::Heading {
        numbering_len(text)
    } else {
        0
    };
    // What the paragraph's sentences so far named: a sentence naming no item (`Growth slowed to
    // 11.5%`) or no year may be read with them, for verification only.
    let mut context = Plausible::default();
    for (s, e) in sentences(block, text) {
        let ws = &scan.words[scan.words.partition_point(|w| w.start < s)
            ..scan.words.partition_point(|w| w.end <= e)];
        let ys = &scan.years[scan.years.partition_point(|y| y.start < s)
            ..scan.years.partition_point(|y| y.end <= e)];
        if !ys.is_empty() {
            context.years = dedup(ys.iter().map(|y| y.year));
        }
        let mut nums: Vec<NumberMention> = numbers(&text[s..e])
            .into_iter()
            .map(|mut n| {
                n.start += s;
                n.end += s;
                n
            })
            .filter(|n| n.start >= skip_before)
            .collect();
        let ms = marks(ctx, vocab, cues, text, ws);
        let own: Vec<Subject> = dedup(ms.iter().filter_map(|m| subject_of(&m.kind).ok()));
        if nums.is_empty() {
            if !own.is_empty() {
                context.subjects = own;
            }
            continue;
        }
        let quoted: Arc<str> = Arc::from(&block.text[s..e]);
        read_sentence(
            ctx,
            cues,
            text,
            ws,
            ys,
            &ms,
            &mut nums,
            &[],
            &[],
            &context,
            |n, target, plausible| {
                out.push(Claim {
                    line: block.line_at(n.start),
                    number: n,
                    context: quoted.clone(),
                    target,
                    plausible: plausible.clone(),
                })
            },
        );
        if !own.is_empty() {
            context.subjects = own;
        }
    }
}

/// The parenthesised groups (`(open, close)` byte offsets) opened in `text[s..open_before]` and
/// closed before `e` and at most [`GROUP_REACH`] bytes past `open_before`: the scan stops there,
/// so a sentence never reads the rest of its paragraph.
fn groups_until(text: &str, s: usize, e: usize, open_before: usize) -> Vec<(usize, usize)> {
    let mut out = Vec::new();
    let mut stack = Vec::new();
    let stop = e.min(open_before.saturating_add(GROUP_REACH));
    for (i, c) in text[s..e].char_indices() {
        let at = s + i;
        if at >= open_before && (stack.is_empty() || at >= stop) {
            break;
        }
        match c {
            '(' => stack.push(s + i),
            ')' => {
                if let Some(o) = stack.pop().filter(|&o| o < open_before) {
                    out.push((o, s + i + 1));
                }
            }
            _ => {}
        }
    }
    out
}

/// Most numbers, years or names in one sentence that vouch attributes.
const MAX_SENTENCE_MENTIONS: usize = 64;

/// How far past a sentence a parenthesis opened in it may close and still count.
const GROUP_REACH: usize = 1_000;

/// Whether byte `at` lies inside the group.
fn inside(g: (usize, usize), at: usize) -> bool {
    g.0 < at && at < g.1
}

/// Attribute each number of one sentence (or table cell) to a subject and years.
/// `default_years` stand in for the sentence's years when it names none (a table row's year).
#[allow(clippy::too_many_arguments)]
fn read_sentence(
    ctx: &Context,
    cues: &Cues,
    text: &str,
    ws: &[Word],
    ys: &[YearMention],
    ms: &[Mark],
    nums: &mut [NumberMention],
    default_years: &[i32],
    row_subjects: &[Subject],
    paragraph: &Plausible,
    mut emit: impl FnMut(NumberMention, Target, &Arc<Plausible>),
) {
    // Attribution compares each number with the sentence's other numbers, years and names; past
    // these counts (no real sentence comes near them) its numbers are left unverified.
    if nums.len() > MAX_SENTENCE_MENTIONS
        || ys.len() > MAX_SENTENCE_MENTIONS
        || ms.len() > MAX_SENTENCE_MENTIONS
    {
        let p = Arc::new(paragraph.clone());
        for n in nums.iter() {
            emit(
                n.clone(),
                Target::Ambiguous(format!(
                    "in a sentence with more than {MAX_SENTENCE_MENTIONS} numbers, years or names, which vouch does not attribute"
                )),
                &p,
            );
        }
        return;
    }
    let (s, e) = (
        ws.first()
            .map_or(nums[0].start, |w| w.start.min(nums[0].start)),
        ws.last().map_or(nums[nums.len() - 1].end, |w| {
            w.end.max(nums[nums.len() - 1].end)
        }),
    );
    let s = ys.first().map_or(s, |y| y.start.min(s));
    let e = ys.last().map_or(e, |y| y.end.max(e));
    // The first word of supposition, if any (`would`, `if` …).
    let hypothetical_at = ws
        .iter()
        .find(|w| cues.hypothetical.contains(&w.lower))
        .map(|w| w.start);
    // A number right after another and a dash is a range's upper end, not a negative; so are
    // the two ends of `between 30 and 41`.
    let mut range_end = vec![false; nums.len()];
    for i in 1..nums.len() {
        let gap = &text[nums[i - 1].end..nums[i].start];
        let glued = gap.is_empty()
            && nums[i].printed.value < crate::numbers::int(0)
            && text[nums[i].start..].starts_with(['-', '–']);
        let between = matches!(gap.trim().to_ascii_lowercase().as_str(), "and" | "to")
            && ends_with_word(&text[..nums[i - 1].start], "between");
        if glued || between || matches!(gap.trim(), "-" | "–" | "—") {
            range_end[i - 1] = true;
            range_end[i] = true;
        }
    }
    // Groups opened in the sentence (one closing after its last word still counts).
    let groups: Vec<(usize, usize)> = groups_until(text, s, text.len(), e);
    // The year a parenthesis holding the number follows right after, when it names none itself.
    let paren_year = |at: usize| -> Option<i32> {
        let g = groups
            .iter()
            .filter(|&&g| inside(g, at))
            .min_by_key(|g| g.1 - g.0)?;
        if ys.iter().any(|y| inside(*g, y.start)) {
            return None;
        }
        let y = ys.iter().rev().find(|y| y.end <= g.0)?;
        text[y.end..g.0].trim().is_empty().then_some(y.year)
    };
    let cls = clauses(text, s, e, ws, ms, nums, cues);
    let comparison_sentence = cues.comparison.any(ws) || cues.difference.any(ws);
    let arrows = |t: &str| t.contains('→') || t.contains("->") || t.contains('⇒');
    let prior_sentence = cues.prior.any(ws) || arrows(&text[s..e]);
    let change_sentence = cues.change.any(ws);
    let ranges = year_ranges(text, ys);
    let ranged: Vec<(usize, usize)> = ranges.iter().map(|r| (r.2, r.3)).collect();
    let sentence_years: Vec<i32> = dedup(ys.iter().map(|y| y.year));
    let mut plausible = plausible_of(
        ctx,
        Some(&text[..e]),
        &text[s..e],
        ms,
        ys,
        default_years,
        prior_sentence,
        comparison_sentence,
        ranges.first().map(|r| (r.0, r.1)),
    );
    // A table cell's row names what its sentence compares (`vs revenue growth +0.5 pp`).
    for r in row_subjects {
        if !plausible.subjects.contains(r) {
            plausible.subjects.push(*r);
        }
    }
    // A sentence naming no item or no year is read with its paragraph's.
    if plausible.subjects.is_empty() {
        plausible.subjects = paragraph.subjects.clone();
    }
    if plausible.years.is_empty() {
        plausible.years = paragraph.years.clone();
    }
    // The one money item the sentence names (else its paragraph's only subject), for a clause
    // that speaks of `growth` without naming what grew.
    // Only items named before the clause count: a later clause's item is its own.
    let sole_money = |clause_start: usize| -> Option<Subject> {
        let own: Vec<Subject> = dedup(ms.iter().filter(|m| m.end <= clause_start).filter_map(
            |m| match m.kind {
                MarkKind::Known(x) if money(ctx, x) => Some(Subject::One(x)),
                _ => None,
            },
        ));
        let any_own = ms.iter().any(|m| subject_of(&m.kind).is_ok());
        match (&own[..], &paragraph.subjects[..]) {
            ([one], _) => Some(*one),
            ([], [Subject::One(x)]) if !any_own && money(ctx, *x) => Some(Subject::One(*x)),
            _ => None,
        }
    };
    let bare_list = |a: usize, b: usize| {
        ws.iter().filter(|w| w.start >= a && w.end <= b).all(|w| {
            w.lower.starts_with(|c: char| c.is_ascii_digit())
                || parse_year_label(&w.lower).is_some()
                || matches!(w.lower.as_str(), "fy" | "x" | "pp" | "m" | "and" | "in")
        })
    };
    let bare_growth = |a: usize, b: usize| {
        ws.iter()
            .filter(|w| w.start >= a && w.end <= b)
            .any(|w| matches!(w.lower.as_str(), "growth" | "grew" | "growing"))
            && !ms.iter().any(|m| m.start >= a && m.end <= b)
    };
    let plausible = Arc::new(plausible);
    let mut previous_subject: Option<Result<Subject, String>> = None;
    let mut previous_comparison = false;
    let mut known_subjects: Vec<Subject> =
        ms.iter().filter_map(|m| subject_of(&m.kind).ok()).collect();
    known_subjects.extend(row_subjects.iter().copied());
    // `X% of B`: the mark right after `of` (masked years and white space between allowed).
    let share_of = |end: usize, limit: usize| -> Option<Result<Option<MarkKind>, ()>> {
        let after = text.get(end..limit)?;
        let t = after.trim_start().trim_start_matches(')').trim_start();
        let rest = t.strip_prefix("of ").or_else(|| t.strip_prefix("of\n"))?;
        let at = limit - rest.len();
        let m = ms.iter().find(|m| m.start >= at);
        match m {
            Some(m) if text[at..m.start].trim().is_empty() => Some(Ok(Some(m.kind.clone()))),
            _ => Some(Err(())),
        }
    };
    for cl in &cls {
        let in_clause = |a: usize, b: usize| a >= cl.start && b <= cl.end;
        let cms: Vec<&Mark> = ms.iter().filter(|m| in_clause(m.start, m.end)).collect();
        let cw = span_words(ws, cl.start, cl.end);
        let cys: Vec<YearMention> = ys
            .iter()
            .filter(|y| in_clause(y.start, y.end))
            .cloned()
            .collect();
        let cnums: Vec<NumberMention> = nums
            .iter()
            .filter(|n| in_clause(n.start, n.end))
            .cloned()
            .collect();
        let mut clause_subject: Option<Result<Subject, String>> = None;
        for ni in 0..nums.len() {
            let n = nums[ni].clone();
            if !in_clause(n.start, n.end) || skipped(ctx, &n) {
                continue;
            }
            if equals_threshold(ctx, &n) && threshold_talk(cw, &text[cl.start..cl.end]) {
                continue;
            }
            // `08:56:20`, `12:30`: a time of day, not a figure.
            let colon_digit =
                |t: &str| t.starts_with(':') && t[1..].starts_with(|c: char| c.is_ascii_digit());
            if colon_digit(&text[n.end..])
                || text[..n.start].ends_with(':')
                    && text[..n.start.saturating_sub(1)].ends_with(|c: char| c.is_ascii_digit())
            {
                continue;
            }
            if n.unit == Unit::Unresolved {
                emit(n, unresolved(), &plausible);
                continue;
            }
            // `operating income would be about 1,326, an operating margin of 22.4%`: a figure
            // after a word of supposition is what would be, not what was.
            // `growing revenue 9.7% a year`: a rate per year over a span the sentence does not
            // pin down (a CAGR or an average), not one year's change.
            if n.unit == Unit::Percent && per_year(&text[n.end..]) {
                emit(
                    n,
                    Target::Unverified("a rate per year over a span (`a year`, `annually`)".into()),
                    &plausible,
                );
                continue;
            }
            if hypothetical_at.is_some_and(|h| h < n.start) {
                emit(
                    n,
                    Target::Unverified("a hypothetical figure (after `would`, `if` …)".into()),
                    &plausible,
                );
                continue;
            }
            if range_end[ni] {
                // `ranged 0.79x-1.48x`: each end is the value in one of the years of the item
                // named before it; for verification only.
                let item = cms
                    .iter()
                    .rev()
                    .find(|m| m.end <= n.start)
                    .and_then(|m| subject_of(&m.kind).ok());
                let years: Vec<i32> = ctx.years().map(<[i32]>::to_vec).unwrap_or_default();
                let target = item
                    .and_then(|s| value_in_some_year(s, years, false))
                    .unwrap_or_else(|| Target::Unverified("one end of a range of values".into()));
                emit(n, target, &plausible);
                continue;
            }
            // `3 of 4 years`, `243.0 of 574.2`: a count or a part of another figure.
            // (`3 of the last 4 years`, `2 out of the past 5`: determiners between.)
            let of_number = nums.get(ni + 1).is_some_and(|m| {
                let gap = text[n.end..m.start].trim().to_ascii_lowercase();
                let words: Vec<&str> = gap.split_whitespace().collect();
                let rest = match words.as_slice() {
                    ["of", rest @ ..] | ["out", "of", rest @ ..] => rest,
                    _ => return false,
                };
                rest.len() <= 2
                    && rest.iter().all(|w| {
                        matches!(
                            *w,
                            "the"
                                | "a"
                                | "last"
                                | "past"
                                | "first"
                                | "next"
                                | "previous"
                                | "prior"
                                | "latest"
                                | "recent"
                                | "final"
                        )
                    })
            });
            // `rank 2 of 5`, `3 of 4`: the whole after a count is a count too, when both are
            // bare whole numbers.
            let whole = |m: &NumberMention| m.unit == Unit::Bare && m.printed.decimals == 0;
            let of_whole = whole(&n)
                && ni
                    .checked_sub(1)
                    .and_then(|p| nums.get(p))
                    .is_some_and(|m| {
                        whole(m)
                            && m.printed.value <= n.printed.value
                            && text
                                .get(m.end..n.start)
                                .is_some_and(|g| g.trim().eq_ignore_ascii_case("of"))
                    });
            if of_number || of_whole {
                emit(
                    n,
                    Target::Unverified("a part or count of another figure (`3 of 4`)".into()),
                    &plausible,
                );
                continue;
            }
            // `residuals: equity -470,513; cash -45,340`: figures of a list headed by a quantity
            // the contract does not define are of that quantity, item by item.
            // (The heading may carry its year: `residuals in FY2025: equity -12.4`.)
            let headed = ms.iter().any(|m| {
                if m.end > n.start {
                    return false;
                }
                match &m.kind {
                    MarkKind::Unknown(t) if t.contains(':') => true,
                    MarkKind::Unknown(_) => text[m.end..n.start].find(':').is_some_and(|c| {
                        // Only its year may stand between the heading and its colon.
                        let colon = m.end + c;
                        !ms.iter().any(|o| o.start >= m.end && o.start < colon)
                            && span_words(ws, m.end, colon).iter().all(|w| {
                                matches!(w.lower.as_str(), "in" | "for")
                                    || parse_year_label(&w.lower).is_some()
                            })
                            && text[m.end..colon]
                                .chars()
                                .all(|c| c.is_alphanumeric() || matches!(c, ' ' | '(' | ')'))
                    }),
                    _ => false,
                }
            });
            if headed {
                emit(
                    n,
                    Target::Unverified(
                        "in a list headed by a quantity the contract does not define".into(),
                    ),
                    &plausible,
                );
                continue;
            }
            // `exceed the listed components by 210,870`: an amount by which one thing differs
            // from another, not the value of either.
            let before_n = span_words(ws, cl.start, n.start);
            if n.unit == Unit::Bare
                && before_n.last().is_some_and(|w| w.lower == "by")
                && (0..before_n.len()).any(|i| cues.difference.at(before_n, i).is_some())
            {
                emit(
                    n,
                    Target::Unverified("an amount by which one thing differs from another".into()),
                    &plausible,
                );
                continue;
            }
            if counts_things(&n, &text[n.end..cl.end]) {
                emit(
                    n,
                    Target::Unverified("a count of things (`5 operating-margin moves`)".into()),
                    &plausible,
                );
                continue;
            }
            // `the 634.9 rise in total liabilities`: a change of what is named right after it,
            // whatever was named before; which change (a year's, a span's) is not certain.
            let next_two = span_words(ws, n.end, cl.end.max(n.end));
            // (`the +149.5 change in FY2025`: a year after it names when, not what.)
            let change_of_next = next_two.len() >= 3
                && CHANGE_NOUNS.contains(&next_two[0].lower.as_str())
                && matches!(next_two[1].lower.as_str(), "in" | "of")
                && !text[n.end..next_two[1].end].contains([',', ';', '(', ')'])
                && !(next_two[1].lower == "in"
                    && ys.iter().any(|y| {
                        y.start >= next_two[1].end
                            && text[next_two[1].end..y.start].trim().is_empty()
                    }));
            if change_of_next {
                emit(
                    n,
                    Target::Ambiguous(
                        "a change of what is named after it, over a period not certain".into(),
                    ),
                    &plausible,
                );
                continue;
            }
            // `Cumulatively FY2019-FY2024, FCF of 1,525`: a sum over years, not one year's value.
            let before_n = span_words(ws, cl.start, n.start);
            let aggregate = before_n
                .iter()
                .any(|w| AGGREGATES.contains(&w.lower.as_str()))
                || adds_up(before_n);
            let clause_range = ranges.iter().find(|r| r.2 >= cl.start && r.3 <= cl.end);
            if aggregate {
                // Over a span its clause names, the sum of a money subject is recomputed.
                let subject = cms
                    .iter()
                    .rev()
                    .find(|m| m.end <= n.start)
                    .or_else(|| cms.iter().find(|m| m.start >= n.end))
                    .and_then(|m| subject_of(&m.kind).ok())
                    .filter(|s| matches!(s, Subject::One(e) if money(ctx, *e)));
                // Certain only when its span is the figure's own: heading the clause before it
                // (`Cumulatively FY2019-FY2024, FCF of 1,525 … SBC of 1,470`), or after it with
                // no other figure between (`cumulative FCF of 835.1 by 644.2, close to the 634.9
                // rise in total liabilities over FY2020–FY2024` is not 644.2's span).
                let ne = n.end;
                let own_span = |r: &(i32, i32, usize, usize)| {
                    r.3 <= ne || !cnums.iter().any(|m| m.start >= ne && m.end <= r.2)
                };
                match (subject, clause_range) {
                    (Some(subject), Some(r)) if n.unit == Unit::Bare => emit(
                        n,
                        Target::Tied {
                            subject,
                            years: vec![r.1],
                            roles: Roles {
                                only: Only::Value,
                                span: Some((r.0, r.1)),
                                aggregate: true,
                                ..Default::default()
                            },
                            certain: cms
                                .iter()
                                .filter_map(|m| subject_of(&m.kind).ok())
                                .all(|s| s == subject)
                                && own_span(r),
                            own_years: true,
                        },
                        &plausible,
                    ),
                    _ => emit(
                        n,
                        Target::Unverified(
                            "an aggregate over years (cumulative, total, combined)".into(),
                        ),
                        &plausible,
                    ),
                }
                continue;
            }
            // `AR / revenue × 365`: a constant of a formula the sentence writes out.
            let lead_op = text[..n.start].trim_end();
            let operand_before = lead_op.ends_with(['×', '*', '/', '÷'])
                || lead_op.ends_with(" x") && !lead_op.ends_with("  x");
            let operand_after = {
                let t = text[n.end..].trim_start();
                t.starts_with(['×', '*', '/', '÷'])
                    && t[1..].trim_start().starts_with(|c: char| c.is_alphabetic())
            };
            if operand_before || operand_after {
                emit(
                    n,
                    Target::Unverified("a constant of a formula (`× 365`)".into()),
                    &plausible,
                );
                continue;
            }
            // `below 1.0x`, `at least 15%`, `more than 2 points`: a bound, not a value.
            let before_words = span_words(ws, cl.start.min(n.start), n.start);
            let bound_word = before_words.last().is_some_and(|w| {
                matches!(
                    w.lower.as_str(),
                    "below"
                        | "above"
                        | "under"
                        | "over"
                        | "beyond"
                        | "exceeding"
                        | "least"
                        | "most"
                        | "than"
                        | "near"
                        | "nearly"
                        | "almost"
                        | "around"
                        | "about"
                        | "approximately"
                        | "roughly"
                        | "circa"
                        | "within"
                )
            }) || {
                let t = text[..n.start].trim_end();
                (t.ends_with(['<', '>', '≥', '≤', '~', '≈', '≠'])
                    && !t.ends_with("->")
                    && !t.ends_with("=>"))
                    // `net income <= 0`: a condition, not a figure.
                    || ["<=", ">=", "=<", "!="].iter().any(|op| t.ends_with(op))
            };
            if bound_word {
                emit(
                    n,
                    Target::Unverified(
                        "a bound or an approximation (`below 1.0x`, `about 50`)".into(),
                    ),
                    &plausible,
                );
                continue;
            }
            // `DIO 110.1`, `EPS: 3.2`: an abbreviation vouch does not know, right before it.
            let mut lead = text[..n.start].trim_end_matches([' ', ':', '=', '(']);
            // Past a year label (`DIO FY2020 111.3`).
            if let Some(y) = ys.iter().rev().find(|y| y.end == lead.len()) {
                lead = text[..y.start].trim_end_matches([' ', ':', '=', '(']);
            }
            let before_word = lead
                .rsplit(|c: char| !c.is_alphanumeric())
                .next()
                .unwrap_or("");
            let known_there = ms.iter().any(|m| m.end == lead.len());
            // A currency code is the figure's unit (`USD 3,941.2m`), not a quantity.
            let currency = matches!(
                before_word,
                "USD" | "EUR" | "GBP" | "CAD" | "AUD" | "JPY" | "CHF" | "CNY" | "INR" | "US"
            );
            if before_word.len() >= 2
                && !currency
                && before_word.chars().all(|c| c.is_ascii_uppercase())
                && !known_there
            {
                emit(
                    n,
                    Target::Unverified(format!(
                        "next to an abbreviation vouch does not know: {before_word}"
                    )),
                    &plausible,
                );
                continue;
            }
            // The subject: the mark nearest before (marks in a parenthesis the number is not in
            // are asides and skipped); else one right after; else the clause before's, in a
            // comparison clause.
            let aside = |m: &Mark| {
                groups
                    .iter()
                    .any(|&g| inside(g, m.start) && !inside(g, n.start))
            };
            let before = cms.iter().rev().find(|m| m.end <= n.start && !aside(m));
            // A number in a parenthesis with no name of its own, after several names: ambiguous.
            let own_group = groups
                .iter()
                .filter(|&&g| inside(g, n.start))
                .min_by_key(|g| g.1 - g.0)
                .copied();
            if let (Some(g), Some(_)) = (own_group, before) {
                let named_inside = cms.iter().any(|m| inside(g, m.start) && m.end <= n.start);
                let names_before: Vec<Subject> = dedup(
                    cms.iter()
                        .filter(|m| m.end <= g.0 && !aside(m))
                        .filter_map(|m| subject_of(&m.kind).ok()),
                );
                // `SBC (161.8) exceeded net income (121.8)`: a parenthesis holding the figure
                // alone, right after a name, is that name's.
                let alone_after_name = text[g.0 + 1..n.start].trim().is_empty()
                    && text[n.end..g.1].trim() == ")"
                    && before.is_some_and(|m| text[m.end..g.0].trim().is_empty());
                if !named_inside && !alone_after_name && names_before.len() >= 2 {
                    emit(
                        n,
                        Target::Ambiguous(
                            "in a parenthesis after several items, so which one it is of is not certain"
                                .into(),
                        ),
                        &plausible,
                    );
                    continue;
                }
            }
            // `Capex and revenue were 99.9`: several names joined, then one number.
            let joined = before.is_some_and(|m| {
                cms.iter().any(|o| {
                    o.end <= m.start
                        && matches!(
                            text[o.end..m.start].trim().to_ascii_lowercase().as_str(),
                            "and" | "or" | "," | "&" | "and/or"
                        )
                })
            });
            if joined {
                emit(
                    n,
                    Target::Ambiguous(
                        "after several items joined, so which one it is of is not certain".into(),
                    ),
                    &plausible,
                );
                continue;
            }
            let before_tight = before.is_some_and(|m| tight(&text[m.end..n.start]));
            // A name right after the number (`15.1% revenue growth`, `$4,756m of net income`)
            // is its subject when the one before is not bound to it.
            let after = cms.iter().find(|m| m.start >= n.end).filter(|m| {
                let gap = &text[n.end..m.start];
                gap.chars().all(|c| c.is_alphabetic() || c == ' ')
                    && super::vocabulary::words(gap)
                        .iter()
                        .all(|w| matches!(w.lower.as_str(), "of" | "in"))
            });
            let forward = after.filter(|_| {
                let share_follows = n.unit == Unit::Percent && share_of(n.end, cl.end).is_some();
                !before_tight && !share_follows
            });
            let own_mark = forward.or(before).or(after);
            // `a 10.4% CAGR`, `18.2% revenue CAGR`: the compound annual growth of the money item
            // named before it, over the sentence's years (else the source's), for verification.
            let cagr_mark = [after, before].into_iter().flatten().find(|m| {
                matches!(&m.kind, MarkKind::Unknown(t) if {
                    let t = t.to_lowercase();
                    t == "cagr" || t.starts_with("compound") || t.contains("annual growth")
                })
            });
            if let (Some(cm), Unit::Percent) = (cagr_mark, n.unit) {
                let item = ms
                    .iter()
                    .rev()
                    .find(|m| m.end <= cm.start.max(n.start))
                    .and_then(|m| match m.kind {
                        MarkKind::Known(e) if money(ctx, e) => Some(Subject::One(e)),
                        _ => None,
                    });
                // Years after a `;` that follows the figure are another clause's (`… (3.6%
                // CAGR), unevenly; it declined in FY2023, FY2024`).
                let own: Vec<i32> = dedup(
                    ys.iter()
                        .filter(|y| !(y.start > n.end && text[n.end..y.start].contains(';')))
                        .map(|y| y.year),
                );
                let stated = match (own.iter().min(), own.iter().max()) {
                    (Some(&lo), Some(&hi)) if lo < hi => Some((lo, hi)),
                    _ => None,
                };
                // Exactly two years written before it (`from 1,820 (FY2019) to 2,980 (FY2024),
                // a 10.4% CAGR, but peaked … in FY2022`): the span it follows.
                let before: Vec<i32> =
                    dedup(ys.iter().filter(|y| y.end <= n.start).map(|y| y.year));
                // Only for the two ends of a `from … to …` move, at least two years apart, with
                // no year of its own after the figure.
                let from_to = span_words(ws, s, n.start).iter().any(|w| w.lower == "from")
                    || arrows(&text[s..n.start]);
                let next_figure = cnums
                    .iter()
                    .find(|m| m.start >= n.end)
                    .map_or(cl.end, |m| m.start);
                // A year that heads the next figure (`…, a 19.5% CAGR, but: FY2020 16.0%, …`) is
                // that figure's, not this one's.
                let year_after = cys.iter().any(|y| {
                    y.start >= n.end
                        && y.end <= next_figure
                        && !(next_figure < cl.end && leads(&text[y.end..next_figure]))
                });
                let lead_span = match before[..] {
                    [a, b] if a.abs_diff(b) >= 2 && from_to && !year_after => {
                        Some((a.min(b), a.max(b)))
                    }
                    _ => None,
                };
                let stated = lead_span.or(stated);
                let span =
                    stated.or_else(|| ctx.years().and_then(|ys| Some((*ys.first()?, *ys.last()?))));
                // Certain when its span is the sentence's own two years and one item is named
                // before it (`Revenue grew from 9,030 (FY2018) to 17,606 (FY2022), an 18.2% CAGR`).
                let one_item = dedup(
                    ms.iter()
                        .filter(|m| m.end <= cm.start.max(n.start))
                        .filter_map(|m| subject_of(&m.kind).ok()),
                )
                .len()
                    == 1;
                // So is one right after the two years of its span.
                let certain_cagr = one_item
                    && (lead_span.is_some()
                        || (stated.is_some() && sentence_years.len() == 2 && own.len() == 2));
                if let (Some(subject), Some((lo, hi))) = (item, span) {
                    emit(
                        n,
                        Target::Tied {
                            subject,
                            years: vec![hi],
                            roles: Roles {
                                only: Only::Change,
                                span: Some((lo, hi)),
                                compound: true,
                                ..Default::default()
                            },
                            certain: certain_cagr,
                            own_years: false,
                        },
                        &plausible,
                    );
                    continue;
                }
            }
            // `peaked at 3,010 in FY2022`, `a low of 1.20x`: an extreme is the value in one of
            // the years (its own when written next to it), of the item named before; for
            // verification only.
            let extreme = [before, forward].into_iter().flatten().find(|m| {
                matches!(&m.kind, MarkKind::Unknown(t)
                    if EXTREMES.contains(&t.to_lowercase().as_str()))
            });
            if let Some(xm) = extreme {
                let item = ms
                    .iter()
                    .rev()
                    .find(|m| m.end <= xm.start)
                    .and_then(|m| subject_of(&m.kind).ok());
                let own = adjacent_year(text, &cys, &ranged, &cnums, &n);
                // `peaked in FY2019 at 5,570.2`: with its year written next to it, the extreme
                // is that year's value for certain.
                if let (Some(y), Some(subject)) = (own, item) {
                    emit(
                        n,
                        Target::Tied {
                            subject,
                            years: vec![y.year],
                            roles: Roles {
                                only: Only::Value,
                                ..Default::default()
                            },
                            certain: true,
                            own_years: true,
                        },
                        &plausible,
                    );
                    continue;
                }
                let years: Vec<i32> = ctx.years().map(<[i32]>::to_vec).unwrap_or_default();
                // `Total liabilities/equity 0.95x (FY2017) to 1.16x (FY2024), peaking at
                // 1.18x`: when every name before the extreme in its sentence is that one item,
                // the extreme is certainly the item's value in one of the years (a figure that
                // is its value in none is wrong, whichever year was meant).
                let sole = item.is_some()
                    && ms
                        .iter()
                        .filter(|m| m.end <= xm.start)
                        .filter(|m| {
                            !matches!(&m.kind, MarkKind::Unknown(t)
                                if EXTREMES.contains(&t.to_lowercase().as_str()))
                        })
                        .all(|m| subject_of(&m.kind).ok() == item);
                if let Some(target) = item.and_then(|s| value_in_some_year(s, years, sole)) {
                    emit(n, target, &plausible);
                    continue;
                }
            }
            let grown = bare_growth(cl.start, cl.end)
                .then(|| sole_money(cl.start))
                .flatten();
            let mut subject: Result<Subject, String> = match (forward, before) {
                (Some(m), _) | (None, Some(m)) => subject_of(&m.kind),
                (None, None) => match cms.iter().find(|m| m.start >= n.end) {
                    Some(m) if glue_only(&text[n.end..m.start]) => subject_of(&m.kind),
                    _ => match (&previous_subject, cl.comparison) {
                        (Some(p), true) => p.clone(),
                        // `Cash conversion: FY2020 1.45x; FY2021 1.49x; …`: a clause of years
                        // and figures only continues the list of the clause before.
                        // Not after a comparison (`FY2019 16.7% vs revenue 23.7%; FY2020
                        // -8.9% vs …`): which side the list continues is not certain.
                        (Some(p @ Ok(_)), false)
                            if cms.is_empty()
                                && bare_list(cl.start, cl.end)
                                && !previous_comparison =>
                        {
                            p.clone()
                        }
                        // `Revenue rose …; FY2025 growth was 15.1%`: a bare `growth` is the
                        // growth of the one money item its sentence (or paragraph) names.
                        _ if grown.is_some() => Ok(grown.expect("checked")),
                        _ => {
                            emit(
                                n,
                                Target::Ambiguous(
                                    "no item or metric is named before it in its clause".into(),
                                ),
                                &plausible,
                            );
                            continue;
                        }
                    },
                },
            };
            let bound = forward.is_some() || before_tight;
            // `X% of B` (also for the first number of `from X% to Y% of B`): a share of B.
            let share = (n.unit == Unit::Percent)
                .then(|| {
                    share_of(n.end, cl.end).or_else(|| {
                        let next = nums.get(ni + 1)?;
                        let gap = text[n.end..next.start].trim().to_ascii_lowercase();
                        if matches!(gap.as_str(), "to" | "->" | "→" | "and") {
                            share_of(next.end, cl.end)
                        } else {
                            None
                        }
                    })
                })
                .flatten();
            let mut share_base: Option<Entity> = None;
            // `0.5% of revenue, 2.2% of OCF and 9.7% of net income`: the item before a share is
            // the base of the share before it, not this one's numerator (named elsewhere); so
            // for a percent that continues it (`from 92.7% of revenue in 2023 to 86.8% in 2024`).
            if let (Ok(Subject::One(a)), true) =
                (&subject, share.is_some() || n.unit == Unit::Percent)
            {
                let base_of_earlier_share = ms
                    .iter()
                    .rfind(|m| m.end <= n.start && matches!(m.kind, MarkKind::Known(x) if x == *a))
                    .is_some_and(|m| {
                        let before = text[..m.start].trim_end().to_ascii_lowercase();
                        before.ends_with("% of") || before.ends_with("percent of")
                    });
                if base_of_earlier_share {
                    emit(
                        n,
                        Target::Unverified(
                            "a share in a list of shares whose numerator is named elsewhere".into(),
                        ),
                        &plausible,
                    );
                    continue;
                }
            }
            if let (Ok(Subject::One(a)), Some(sh)) = (&subject, share) {
                subject = match sh {
                    Ok(Some(MarkKind::Known(b))) if *a == b => {
                        emit(
                            n,
                            Target::Ambiguous(
                                "a share of the item its clause names, of something named elsewhere"
                                    .into(),
                            ),
                            &plausible,
                        );
                        continue;
                    }
                    Ok(Some(MarkKind::Known(b))) if money(ctx, *a) && money(ctx, b) => {
                        share_base = Some(b);
                        Ok(Subject::Ratio(*a, b))
                    }
                    Ok(Some(MarkKind::Unknown(t))) => Err(format!(
                        "a share of a quantity the contract does not define: {}",
                        t.to_lowercase()
                    )),
                    _ => Err("a share or count of something vouch does not read".into()),
                };
            }
            // `12.5% margin` of a money item: its ratio to revenue.
            if let Ok(Subject::One(a)) = subject {
                let from = forward.map_or(n.end, |m| m.end);
                let after = text[from..cl.end].trim_start().to_ascii_lowercase();
                if money(ctx, a) && (after.starts_with("margin") || after.starts_with("of revenue"))
                {
                    if let Some(rev) = revenue(ctx) {
                        if rev != a {
                            subject = Ok(Subject::Ratio(a, rev));
                            share_base = Some(rev);
                        }
                    }
                }
            }
            clause_subject = Some(subject.clone());
            let subject = match subject {
                Ok(s) => s,
                Err(why) => {
                    emit(n, Target::Unverified(why), &plausible);
                    continue;
                }
            };
            // Certain of the subject: the only item of its clause (asides apart), or bound to
            // it, with no undefined quantity in the clause.
            let own: Vec<Entity> = match subject {
                Subject::One(a) => vec![a],
                Subject::Ratio(a, b) | Subject::Combined(a, _, b) => vec![a, b],
            };
            // `…, 1.07x of D&A and 4.26% of revenue`: the base of another figure's share is
            // that share's, not a rival subject of this figure.
            let base_of_other_share = |m: &Mark| {
                let before = text[..m.start].trim_end();
                (before.ends_with("% of") || before.ends_with("percent of"))
                    && !(n.end <= m.start && text[n.end..m.start].trim() == "of")
            };
            let others = cms
                .iter()
                .filter(|m| !aside(m) && !base_of_other_share(m))
                .any(|m| match m.kind {
                    MarkKind::Known(x) => !own.contains(&x) && Some(x) != share_base,
                    MarkKind::Ratio(a, b) => Subject::Ratio(a, b) != subject,
                    MarkKind::Combined(a, op, b) => Subject::Combined(a, op, b) != subject,
                    MarkKind::Unknown(_) => false,
                });
            // An undefined quantity right after the number (`12% of billings`, `45 days`), or
            // qualifying its subject (`cumulative reported net income of 1,105.3`).
            let unknown_near = cms.iter().any(|m| {
                matches!(m.kind, MarkKind::Unknown(_))
                    && ((m.start >= n.end
                        && glue_only(&text[n.end..m.start])
                        && !text[n.end..m.start].contains(','))
                        || own_mark.is_some_and(|o| {
                            m.end <= o.start
                                && !text[m.end..o.start].contains([',', ';', ':', '.', '(', ')'])
                                && !cnums.iter().any(|x| x.start >= m.end && x.end <= o.start)
                        }))
            });
            // `362.3 less than net income`, `2 points above`: a difference from something else.
            let after_words = span_words(ws, n.end, cl.end);
            // … unless the word opens a parenthesis holding a figure of its own (`sales +10.3%
            // (gap 10.8 pp)`): the gap is that figure.
            let aside_after = || {
                let rest = &text[n.end..];
                let open = n.end + (rest.len() - rest.trim_start().len());
                groups.iter().any(|&(gs, ge)| {
                    gs == open && cnums.iter().any(|m| m.start > gs && m.end <= ge)
                })
            };
            let differs = (cues.difference.at(after_words, 0).is_some() && !aside_after())
                || after_words.first().is_some_and(|w| {
                    matches!(
                        w.lower.as_str(),
                        "less" | "more" | "higher" | "lower" | "short"
                    )
                });
            // `Receivables growth outran revenue growth by 13.22 points`: the difference of the
            // clause's two subjects, which its roles hold.
            let pair: Vec<Subject> = dedup(
                cms.iter()
                    .filter(|m| !aside(m))
                    .filter_map(|m| subject_of(&m.kind).ok()),
            );
            let difference_pair = pair.len() == 2
                && cues.difference.any(cw)
                && matches!(n.unit, Unit::Points | Unit::BasisPoints | Unit::Percent)
                && pair.contains(&subject);
            // Past another number, an unknown word may be what this one is of.
            let carried = own_mark.is_none_or(|o| {
                if o.start >= n.end || !cnums.iter().any(|x| x.start >= o.end && x.end <= n.start) {
                    return true;
                }
                // Asides (parentheses the number is not in) are skipped.
                let mut between = String::new();
                let mut at = o.end;
                for &(gs, ge) in groups.iter().filter(|&&g| g.0 >= o.end && g.1 <= n.start) {
                    if gs >= at {
                        between.push_str(&text[at..gs]);
                        between.push(' ');
                        at = ge;
                    }
                }
                between.push_str(&text[at.min(n.start)..n.start]);
                carries_on(&between)
            });
            // `-1.0% versus that peak`: a comparison with something that is no item.
            let after_sentence = span_words(ws, n.end, e.max(n.end));
            let own_past = after_sentence.iter().skip(1).take(3).any(|w| {
                matches!(w.lower.as_str(), "prior" | "previous" | "last" | "earlier")
                    || parse_year_label(&w.lower).is_some()
            });
            let vs_unknown = cues.comparison.at(after_sentence, 0).is_some() && !own_past && {
                let next_num = nums
                    .iter()
                    .find(|m| m.start >= n.end)
                    .map_or(usize::MAX, |m| m.start);
                let next_cut = cls.iter().find(|c| c.start > n.end).map_or(e, |c| c.end);
                !ms.iter().any(|m| {
                    m.start >= n.end
                        && m.start < next_num
                        && m.end <= next_cut
                        && !matches!(m.kind, MarkKind::Unknown(_))
                }) && next_num > next_cut
            };
            // `It fell 3.3% …, then rose 15.7%`: a sentence whose subject is a pronoun speaks of
            // something vouch cannot see; only a figure written right next to its item is
            // certain.
            let pronoun_led = ws
                .first()
                .is_some_and(|w| PRONOUNS.contains(&w.lower.as_str()));
            let mut certain = carried
                && (!pronoun_led || bound)
                && !vs_unknown
                && !unknown_near
                && !differs
                && (bound || !others || difference_pair)
                && (own_mark.is_some() || cms.is_empty());
            // A percent of a money item can only be its change; with no word of change in its
            // clause (`capex was 260 (5.8%)`) it may be a share of something unnamed.
            let changey = cw
                .iter()
                .any(|w| CHANGE_WORDS_PROSE.contains(&w.lower.as_str()))
                || cues.change.any(cw)
                || n.printed.raw.starts_with(['+', '-', '−']);
            let money_subject = match subject {
                Subject::One(a) => money(ctx, a),
                Subject::Combined(..) => true,
                Subject::Ratio(..) => false,
            };
            if money_subject && n.unit == Unit::Percent && !changey {
                certain = false;
            }
            // `the change in equity less net income`: a combination said of a change is not the
            // combination of the values.
            if matches!(subject, Subject::Combined(..)) && changey {
                certain = false;
            }
            // `FCF not retained in cash + STI: 40.7`: a name after a preposition, another before
            // it in the clause, may be the complement, not what the figure is of.
            if let Some(o) = own_mark {
                let before_words = span_words(ws, cl.start, o.start);
                let prep = before_words.last().is_some_and(|w| {
                    matches!(
                        w.lower.as_str(),
                        "in" | "on" | "of" | "into" | "from" | "over" | "per" | "to" | "against"
                    )
                });
                let head_before = cms.iter().any(|m| {
                    m.end <= o.start && !aside(m) && !matches!(m.kind, MarkKind::Unknown(_))
                });
                if prep && head_before && share_base.is_none() {
                    certain = false;
                }
            }
            // `AR increase of 1,260 equals 22.4% of OCF`: a share of a change.
            if let (Some(_), Some(m)) = (share_base, own_mark) {
                let next = span_words(ws, m.end, cl.end.max(m.end));
                if next
                    .first()
                    .is_some_and(|w| CHANGE_NOUNS.contains(&w.lower.as_str()))
                {
                    certain = false;
                }
            }
            // The years.
            let adjacent = adjacent_year(text, &cys, &ranged, &cnums, &n);
            // A clause year written right before another number is that number's.
            // So is one written right after an extreme that stands between it and this one
            // (`down to 110.1 from a 141.6 peak in 2023`: 2023 is the peak's; in `rose 6.9% to
            // 211,915 in FY2023` the year is both figures').
            let owned_after = |y: &YearMention| {
                cnums.iter().any(|m| {
                    m.start >= n.end && m.end <= y.start && {
                        let gap = &text[m.end..y.start];
                        // Three words at most: a longer gap is not tokenised.
                        let gw = (gap.len() <= 256 && !gap.contains([',', ';']))
                            .then(|| super::vocabulary::words(gap))
                            .filter(|gw| gw.len() <= 3);
                        let lead = span_words(ws, n.end, m.start);
                        gw.is_some_and(|gw| {
                            (gw.iter().chain(lead.iter().rev().take(2)))
                                .any(|w| EXTREMES.contains(&w.lower.as_str()))
                        }) && !cnums.iter().any(|o| o.start >= m.end && o.end <= y.start)
                    }
                })
            };
            // The run of figures this one stands in (slashes, commas, arrows), if any.
            let run = series_run(text, &cnums, &n);
            let in_run = run.is_some();
            let free_years: Vec<i32> = dedup(
                cys.iter()
                    .filter(|y| {
                        !cnums.iter().any(|m| {
                            m.start != n.start && m.start >= y.end && leads(&text[y.end..m.start])
                        })
                    })
                    .filter(|y| !owned_after(y))
                    // A year in a parenthesis opened right after another figure is that
                    // figure's (`3.54x -> 2.63x (FY2023 low) -> 3.03x`: FY2023 is not 3.03x's);
                    // one after `in` may be the clause's (`rose 6.9% to 211,915 in FY2023`).
                    .filter(|y| {
                        !cnums.iter().any(|m| {
                            m.start != n.start
                                && m.end <= y.start
                                && text[m.end..y.start].trim_start().starts_with('(')
                                && adjacent_year(text, &cys, &ranged, &cnums, m)
                                    .is_some_and(|a| a.start == y.start)
                        })
                    })
                    // `was 1.43x, down from 1.74x in 2021`: the year of a prior value after
                    // `from` is that value's, not the figure's before it.
                    .filter(|y| {
                        !cnums.iter().any(|m| {
                            m.start > n.end
                                && m.end <= y.start
                                && ends_with_word(&text[..m.start], "from")
                                && adjacent_year(text, &cys, &ranged, &cnums, m)
                                    .is_some_and(|a| a.start == y.start)
                        })
                    })
                    // A year in a parenthesis that holds another figure and not this one is
                    // that figure's (`ROA was 6.2% (2.5% in 2024)`: 2024 is not 6.2%'s). A run
                    // of figures (`5.0 / 4.2 / 6.8 (0.19% of 2024 revenue)`) takes its years
                    // below.
                    .filter(|y| {
                        in_run
                            || !groups.iter().any(|&g| {
                                inside(g, y.start)
                                    && !inside(g, n.start)
                                    && cnums
                                        .iter()
                                        .any(|m| m.start != n.start && inside(g, m.start))
                            })
                    })
                    // A year after a word of supposition belongs to the supposition, not to a
                    // fact before it (`coverage of 5.49x leaves little cushion if operating
                    // income reverts to the 2021 level`).
                    .filter(|y| !hypothetical_at.is_some_and(|h| n.start < h && y.start > h))
                    .map(|y| y.year),
            );
            let mut span = None;
            let mut own_years = true;
            // `Quick ratio 1.02x (2024: 1.25x; series low 1.01x in 2022)`: years each written
            // next to another figure are theirs, none this one's (a year heading the sentence,
            // `2022: OCF 168.4, …`, is every figure's).
            let sentence_years_taken = || {
                ys.len() >= 2
                    && ys.iter().all(|y| {
                        nums.iter().any(|m| {
                            m.start != n.start
                                && ((m.start >= y.end && leads(&text[y.end..m.start]))
                                    || adjacent_year(text, ys, &ranged, nums, m)
                                        .is_some_and(|a| a.start == y.start))
                        })
                    })
            };
            let mut years: Vec<i32> = if let Some(y) = adjacent {
                vec![y.year]
            } else if let Some(y) = paren_year(n.start) {
                // `in 2025 (operating margin 8.3%, FCF 280)`: the year the parenthesis follows.
                vec![y]
            } else if clause_range.is_some() || (cys.is_empty() && !ranges.is_empty()) {
                let r = clause_range.or(ranges.first()).expect("a range");
                let moves = cues.change.any(cw)
                    || cw.iter().any(|w| w.lower == "from")
                    || arrows(&text[cl.start..cl.end]);
                if moves || (clause_range.is_none() && (prior_sentence || change_sentence)) {
                    // `from X to Y (FY2021-FY2025)`: the two ends; `expanded by 225 bps between
                    // FY21 and FY25`: the change over the span.
                    certain &= clause_range.is_some();
                    own_years = clause_range.is_some();
                    span = Some((r.0, r.1));
                    vec![r.0, r.1]
                } else {
                    emit(
                        n,
                        Target::Unverified("a figure over a span of years".into()),
                        &plausible,
                    );
                    continue;
                }
            } else if !free_years.is_empty() {
                free_years
            } else if !sentence_years.is_empty() && !sentence_years_taken() {
                // One year heading the sentence (`FY2020: income_tax +96.8%; …`) is every
                // clause's; otherwise a year of another clause is borrowed. A threshold or a
                // marker before it (`Flag (≥10 pp gap): FY2022 receivables +21.0% vs sales
                // +10.3%`) is no figure, so it does not stand before the year.
                let first_figure = nums.iter().find(|m| !skipped(ctx, m)).unwrap_or(&nums[0]);
                let heads = sentence_years.len() == 1
                    && ys.first().is_some_and(|y| y.start < first_figure.start);
                certain &= heads;
                own_years = heads;
                sentence_years.clone()
            } else if !default_years.is_empty() {
                default_years.to_vec()
            } else if let Some(all) = ctx
                .years()
                .filter(|all| run.is_some_and(|(_, len)| len == all.len()))
            {
                // A run as long as the source's years names them in order (below).
                all.to_vec()
            } else {
                emit(
                    n,
                    Target::Ambiguous("no year is named in its sentence".into()),
                    &plausible,
                );
                continue;
            };
            // `fell 16.9% from $133,819m (FY2019) to $111,262m (FY2023)`: the change between the
            // first and last year its clause names.
            if span.is_none() && (prior_sentence || change_sentence) && years.len() >= 2 {
                let (lo, hi) = (
                    *years.iter().min().expect("two years"),
                    *years.iter().max().expect("two years"),
                );
                span = Some((lo, hi));
            }
            // `5.0 / 4.2 / 6.8 (… of 2024 revenue)`: figures joined by slashes list a series
            // over years they do not name one by one, so a year of the clause is not this
            // figure's: unless one is written right next to it, it may be of any source year
            // (verified when it is one of them, never contradicted).
            if let (None, Some((pos, len))) = (adjacent, run) {
                // Its years written as a run of the same length (`(2022/2023/2024)`), or a run
                // as long as the source's years, list them in order: the figure at position i
                // is of the i-th year. Otherwise any source year, for verification only.
                let clause_years: Vec<i32> = dedup(cys.iter().map(|y| y.year));
                let source_years: Vec<i32> = ctx.years().map(<[i32]>::to_vec).unwrap_or_default();
                let in_order = if clause_years.len() == len {
                    Some(clause_years)
                } else if source_years.len() == len {
                    Some(source_years.clone())
                } else {
                    None
                };
                span = None;
                match in_order {
                    Some(run_years) => {
                        years = vec![run_years[pos]];
                        own_years = true;
                    }
                    None => {
                        certain = false;
                        own_years = false;
                        if !source_years.is_empty() {
                            years = source_years;
                        }
                    }
                }
            }
            // `well above FY2021 levels (AR 102.8 vs 67.6)`: a year after a word of comparison is
            // the baseline's; a figure not written next to it may be of the later year.
            if adjacent.is_none()
                && !years.is_empty()
                && years.iter().all(|&y| {
                    // The clause's mentions of the year, else the sentence's (a heading year).
                    let pool = if cys.iter().any(|m| m.year == y) {
                        &cys[..]
                    } else {
                        ys
                    };
                    let mut of_y = pool.iter().filter(|m| m.year == y).peekable();
                    of_y.peek().is_some() && of_y.all(|m| baseline_year(text, m.start))
                })
            {
                certain = false;
            }
            // A clause's years all written after a comma that follows the figure belong to the
            // phrase the comma opens (`Coverage fell to 1.92x, with a rise only in FY2021`), not
            // certainly to the figure: verified when they fit, never contradicted.
            if adjacent.is_none()
                && !cys.is_empty()
                && cys.iter().all(|y| {
                    y.start >= n.end
                        && text[n.end..y.start].contains(',')
                        && !cnums.iter().any(|m| m.start >= n.end && m.end <= y.start)
                })
            {
                certain = false;
            }
            // `the 40.0 of current assets that the file does not itemise`: a figure written
            // before `of` and its item is an amount of it (a part, a residual), not certainly
            // its value.
            if text[n.end..]
                .trim_start()
                .get(..3)
                .is_some_and(|w| w.eq_ignore_ascii_case("of "))
                && cms.iter().any(|m| {
                    m.start > n.end
                        && text[n.end..m.start]
                            .trim()
                            .strip_prefix("of")
                            .is_some_and(|gap| gap.split_whitespace().count() <= 1)
                })
            {
                certain = false;
            }
            let against: Vec<Subject> = if comparison_sentence {
                dedup(known_subjects.iter().copied().filter(|o| *o != subject))
            } else {
                Vec::new()
            };
            emit(
                n,
                Target::Tied {
                    subject,
                    years,
                    roles: Roles {
                        prior: prior_sentence,
                        against,
                        span,
                        ..Default::default()
                    },
                    certain,
                    own_years,
                },
                &plausible,
            );
        }
        previous_comparison = cl.comparison;
        if let Some(cs) = clause_subject {
            previous_subject = Some(cs);
        } else if let Some(m) = cms.last() {
            previous_subject = Some(subject_of(&m.kind));
        } else if !cnums.is_empty() {
            // Figures of nothing vouch could name (`DIO FY2020 111.3`) break the chain.
            previous_subject = None;
        }
    }
}

/// A figure that is its subject's value in one of `years` (an extreme, a range's end): tied for
/// verification only, never contradicted, unless `certain` (the subject is sure: a value in none
/// of the years is then wrong). `None` without years.
fn value_in_some_year(subject: Subject, years: Vec<i32>, certain: bool) -> Option<Target> {
    (!years.is_empty()).then_some(Target::Tied {
        subject,
        years,
        roles: Roles {
            only: Only::Value,
            ..Default::default()
        },
        certain,
        own_years: false,
    })
}

/// When `n` is one of two or more figures joined only by slashes (`5.0 / 4.2 / 6.8`): its
/// position in the run and the run's length.
fn slash_run(text: &str, nums: &[NumberMention], n: &NumberMention) -> Option<(usize, usize)> {
    joined_run(text, nums, n, "/").filter(|&(_, len)| len >= 2)
}

/// When `n` is one of three or more figures joined only by commas, a list of values over years
/// (`Interest coverage: 7.52x, 9.91x, 15.76x, blank for FY2024, 29.44x`): as [`slash_run`].
fn comma_list(text: &str, nums: &[NumberMention], n: &NumberMention) -> Option<(usize, usize)> {
    joined_run(text, nums, n, ",").filter(|&(_, len)| len >= 3)
}

/// Whether `t`, trimmed, ends in the whole word `w` (an ASCII word, any case): no letter or
/// digit right before it.
fn ends_with_word(t: &str, w: &str) -> bool {
    let t = t.trim_end();
    t.len() >= w.len()
        && t.as_bytes()[t.len() - w.len()..].eq_ignore_ascii_case(w.as_bytes())
        && !t[..t.len() - w.len()]
            .chars()
            .next_back()
            .is_some_and(char::is_alphanumeric)
}

/// Whether the year written at `at` follows a word of comparison (`above FY2021 levels`, `than
/// in 2019`, `below the 2021 level`): a baseline.
fn baseline_year(text: &str, at: usize) -> bool {
    let words: Vec<String> = text[..at]
        .rsplit(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
        .take(3)
        .map(str::to_ascii_lowercase)
        .collect();
    let mut it = words.iter().map(String::as_str);
    let mut w = it.next();
    while matches!(w, Some("the" | "its" | "in" | "their")) {
        w = it.next();
    }
    matches!(w, Some("above" | "below" | "than" | "beyond" | "under"))
}

/// Whether `after` (the text right after a percent) opens with `a year`, `per year`, `per
/// annum`, `annually` or `each year`, not followed by `ago`, `earlier`, `before`, `prior` or
/// `on`.
fn per_year(after: &str) -> bool {
    if !after
        .trim_start()
        .starts_with(|ch: char| ch.is_alphabetic())
    {
        return false;
    }
    let mut ws = after
        .split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
        .map(str::to_ascii_lowercase);
    let (a, b, c) = (ws.next(), ws.next(), ws.next());
    let rate = match (a.as_deref(), b.as_deref()) {
        (Some("annually" | "annualised" | "annualized"), _) => return true,
        (Some("a" | "per" | "each"), Some("year" | "yr" | "annum")) => true,
        _ => false,
    };
    rate && !matches!(
        c.as_deref(),
        Some("ago" | "earlier" | "before" | "prior" | "on")
    )
}

/// When `n` is one of three or more figures joined only by arrows, a path over years
/// (`1.05x -> 1.67x -> 1.71x -> 1.20x`): as [`slash_run`].
fn arrow_run(text: &str, nums: &[NumberMention], n: &NumberMention) -> Option<(usize, usize)> {
    ["->", "→", "=>"]
        .iter()
        .filter_map(|sep| joined_run(text, nums, n, sep))
        .find(|&(_, len)| len >= 3)
}

/// `n`'s place in a slash run, a comma list or an arrow path, and the run's length.
fn series_run(text: &str, nums: &[NumberMention], n: &NumberMention) -> Option<(usize, usize)> {
    slash_run(text, nums, n)
        .or_else(|| comma_list(text, nums, n))
        .or_else(|| arrow_run(text, nums, n))
}

/// `n`'s position in the run of figures around it joined only by `sep`, and the run's length.
fn joined_run(
    text: &str,
    nums: &[NumberMention],
    n: &NumberMention,
    sep: &str,
) -> Option<(usize, usize)> {
    let joined = |a: &NumberMention, b: &NumberMention| {
        a.end <= b.start && text[a.end..b.start].trim() == sep
    };
    let mut sorted: Vec<&NumberMention> = nums.iter().collect();
    sorted.sort_by_key(|m| m.start);
    let i = sorted.iter().position(|m| m.start == n.start)?;
    let mut first = i;
    while first > 0 && joined(sorted[first - 1], sorted[first]) {
        first -= 1;
    }
    let mut last = i;
    while last + 1 < sorted.len() && joined(sorted[last], sorted[last + 1]) {
        last += 1;
    }
    Some((i - first, last - first + 1))
}

/// The revenue line item, for `X% margin`.
fn revenue(ctx: &Context) -> Option<Entity> {
    let c = ctx.spec.column_index("revenue")?;
    ctx.stmts.item_index(c).map(Entity::Item)
}

/// A number scaled by a word vouch cannot resolve.
fn unresolved() -> Target {
    Target::Unverified("in a unit vouch cannot resolve (billion, thousand, days …)".into())
}

fn dedup<T: PartialEq>(it: impl Iterator<Item = T>) -> Vec<T> {
    let mut out: Vec<T> = Vec::new();
    for x in it {
        if !out.contains(&x) {
            out.push(x);
        }
    }
    out
}

/// What a table column holds, read from its header.
#[derive(Clone, Debug, PartialEq)]
enum Column {
    /// The row's year (`Year`, `FY`, or year labels in its cells).
    Year,
    /// Values in one year (a year label as header).
    InYear(i32),
    Prior,
    Current,
    Change,
    /// A difference from the subjects its header names (`vs revenue growth`).
    Against(Vec<Subject>),
    /// Names the row's subject (`Item`, `Metric`, `Line item`, `Rule`).
    Label,
    /// A header naming an undefined quantity, or nothing vouch reads.
    Unknown(String),
}

/// The words of a header outside the names it holds (`growth` in `Receivables growth` is part of
/// the metric's name, not a change column).
fn header_words(h: &str, marks: &[Mark]) -> Vec<String> {
    super::vocabulary::words(h)
        .into_iter()
        .filter(|w| {
            !marks.iter().any(|m| {
                !matches!(m.kind, MarkKind::Unknown(_)) && m.start <= w.start && w.end <= m.end
            })
        })
        .map(|w| w.lower)
        .collect()
}

const PRIOR_WORDS: &[&str] = &[
    "prior", "previous", "from", "prev", "start", "opening", "before", "base",
];
const CHANGE_WORDS: &[&str] = &[
    "change", "chg", "δ", "delta", "yoy", "growth", "move", "movement", "diff", "pct", "var",
    "variance",
];
const CURRENT_WORDS: &[&str] = &[
    "current", "latest", "to", "value", "amount", "end", "closing", "after", "now", "this",
];
/// Words of a header that say nothing about what its numbers are (units, scale, glue).
const PLAIN_WORDS: &[&str] = &[
    "m", "mn", "million", "millions", "usd", "x", "in", "of", "the", "fy", "bn", "percent",
];

fn classify(ctx: &Context, header: &str, hms: &[Mark], body: &[&str]) -> Column {
    if let Some(y) = parse_year_label(header) {
        return Column::InYear(y);
    }
    let key = fold(header);
    let year_names = &ctx.spec.movements.year_columns;
    if year_names.contains(&key) || key == "fiscal_year" || key == "fy" {
        return Column::Year;
    }
    let years_in_body = body
        .iter()
        .filter(|c| parse_year_label(c).is_some())
        .count();
    if years_in_body > 0 && years_in_body == body.iter().filter(|c| !c.trim().is_empty()).count() {
        return Column::Year;
    }
    let hw = header_words(header, hms);
    let has = |w: &[&str]| hw.iter().any(|x| w.contains(&x.as_str()));
    if has(&[
        "vs", "versus", "against", "gap", "minus", "spread", "excess", "relative",
    ]) {
        let subs: Vec<Subject> = hms
            .iter()
            .filter_map(|m| subject_of(&m.kind).ok())
            .collect();
        return if subs.is_empty() {
            Column::Unknown(header.to_string())
        } else {
            Column::Against(subs)
        };
    }
    if has(PRIOR_WORDS) {
        return Column::Prior;
    }
    if has(CHANGE_WORDS) || header.contains('Δ') || header.trim() == "%" {
        return Column::Change;
    }
    if has(CURRENT_WORDS) {
        return Column::Current;
    }
    if has(&[
        "item", "metric", "line", "account", "kpi", "measure", "name", "rule", "flag", "series",
        "category", "type", "driver",
    ]) {
        return Column::Label;
    }
    Column::Unknown(header.to_string())
}

/// A header says exactly what its column holds: beyond its one name, only words of a column
/// role, descriptors and units (`Cash + STI`, `SBC % rev` say more than their name).
fn header_exact(cues: &Cues, header: &str, hms: &[Mark]) -> bool {
    let known = hms
        .iter()
        .filter(|m| !matches!(m.kind, MarkKind::Unknown(_)))
        .count();
    known == 1
        && hms.len() == 1
        && !header.contains(['+', '%', '/', '&', '*', '-', '−'])
        && header_words(header, hms).iter().all(|w| {
            PRIOR_WORDS.contains(&w.as_str())
                || CHANGE_WORDS.contains(&w.as_str())
                || CURRENT_WORDS.contains(&w.as_str())
                || PLAIN_WORDS.contains(&w.as_str())
                || cues.descriptors.contains(w)
        })
}

/// A table outside the KPI section. Years as columns (or as the first column's rows): each cell is
/// the value of its label's subject in its year. Otherwise, rows with a year column: each cell is
/// read through its column's header (prior, current, change, a difference) for the row's subject.
fn read_table(ctx: &Context, vocab: &Vocabulary, cues: &Cues, table: &Table, out: &mut Vec<Claim>) {
    let Some(header) = table.rows.first() else {
        return;
    };
    let ncols = header.cells.len();
    let body: Vec<Vec<&str>> = (0..ncols)
        .map(|j| {
            table.rows[1..]
                .iter()
                .map(|r| r.cells.get(j).map_or("", |c| c.text.as_str()))
                .collect()
        })
        .collect();
    // The names each header holds, read once per column.
    let header_marks: Vec<Vec<Mark>> = header
        .cells
        .iter()
        .map(|h| {
            let hws = super::vocabulary::words(&h.text);
            marks(ctx, vocab, cues, &h.text, &hws)
        })
        .collect();
    let cols: Vec<Column> = header
        .cells
        .iter()
        .enumerate()
        .map(|(j, h)| classify(ctx, &h.text, &header_marks[j], &body[j]))
        .collect();
    let exact: Vec<bool> = header
        .cells
        .iter()
        .enumerate()
        .map(|(j, h)| header_exact(cues, &h.text, &header_marks[j]))
        .collect();
    let year_cols: Vec<i32> = cols
        .iter()
        .filter_map(|c| match c {
            Column::InYear(y) => Some(*y),
            _ => None,
        })
        .collect();
    // Years as rows: a year column first, no year columns, and no column naming each row's item.
    let years_as_rows = cols.first() == Some(&Column::Year)
        && year_cols.is_empty()
        && !cols.contains(&Column::Label);
    let all_header_marks: Vec<Mark> = header_marks.iter().flatten().cloned().collect();
    // The one subject every naming header of the table names (`Prior op. margin | Op. margin |
    // Change`): a role column with no name of its own is of it.
    let table_subject: Option<Subject> = {
        let subs: Vec<Subject> = dedup(
            all_header_marks
                .iter()
                .filter_map(|m| subject_of(&m.kind).ok()),
        );
        let unknown = all_header_marks
            .iter()
            .any(|m| matches!(m.kind, MarkKind::Unknown(_)));
        match subs[..] {
            [one] if !unknown => Some(one),
            _ => None,
        }
    };
    // The header row's text (its cue words) and whether a column compares, for every row.
    let headers: String = header
        .cells
        .iter()
        .map(|h| h.text.as_str())
        .collect::<Vec<_>>()
        .join(" | ");
    let compares = cols.iter().any(|c| matches!(c, Column::Against(_)));
    for row in &table.rows[1..] {
        let context: Arc<str> = Arc::from(
            row.cells
                .iter()
                .map(|c| c.text.as_str())
                .collect::<Vec<_>>()
                .join(" | "),
        );
        // The row's year.
        let row_year = cols
            .iter()
            .zip(&row.cells)
            .find(|(c, _)| **c == Column::Year)
            .and_then(|(_, cell)| parse_year_label(&cell.text));
        // The row's subject: from its label cells (or, years as rows, none: the header names it).
        let mut label_subjects: Vec<Result<Subject, String>> = Vec::new();
        let mut label_marks: Vec<Mark> = Vec::new();
        for (j, cell) in row.cells.iter().enumerate() {
            let col = cols
                .get(j)
                .cloned()
                .unwrap_or(Column::Unknown(String::new()));
            let first_label = j == 0 && !year_cols.is_empty();
            if !(first_label
                || col == Column::Label
                || matches!(col, Column::Unknown(_)) && !has_number(&cell.text))
            {
                continue;
            }
            let ws = super::vocabulary::words(&cell.text);
            let ms = marks(ctx, vocab, cues, &cell.text, &ws);
            for m in ms {
                label_subjects.push(subject_of(&m.kind));
                label_marks.push(m);
            }
        }
        // What the row makes plausible: the names of its header and labels, in its years.
        let row_plausible = {
            let mut ms = all_header_marks.clone();
            ms.extend(label_marks.iter().cloned());
            let years: Vec<i32> = row_year
                .into_iter()
                .chain(year_cols.iter().copied())
                .collect();
            Arc::new(plausible_of(
                ctx,
                None,
                &headers,
                &ms,
                &[],
                &years,
                false,
                compares,
                None,
            ))
        };
        let distinct: Vec<Result<Subject, String>> = dedup(label_subjects.into_iter());
        let row_subjects: Vec<Subject> = distinct.iter().filter_map(|s| s.clone().ok()).collect();
        let row_subject: Result<Subject, String> =
            match distinct.iter().filter(|s| s.is_ok()).count() {
                1 if distinct.len() == 1 => distinct[0].clone(),
                0 if !distinct.is_empty() => distinct[0].clone(),
                0 => Err("its row names no item or metric".into()),
                _ => Err("its row names several items or metrics".into()),
            };
        for (j, cell) in row.cells.iter().enumerate() {
            let col = cols
                .get(j)
                .cloned()
                .unwrap_or(Column::Unknown(String::new()));
            if matches!(col, Column::Year | Column::Label) || (j == 0 && !year_cols.is_empty()) {
                continue;
            }
            let nums = numbers(&cell.text);
            if nums.is_empty() {
                continue;
            }
            let line = cell.line;
            let mut emit = |n: NumberMention, target: Target, plausible: &Arc<Plausible>| {
                out.push(Claim {
                    line,
                    number: n,
                    context: context.clone(),
                    target,
                    plausible: plausible.clone(),
                })
            };
            // A cell with words of its own is read as prose, in the row's year: its years masked
            // (a year is not a figure), sentence by sentence.
            let cell_years = super::years::years(&cell.text);
            let spans: Vec<(usize, usize)> = cell_years.iter().map(|y| (y.start, y.end)).collect();
            let masked = super::blank(&cell.text, &spans);
            let ws = super::vocabulary::words(&masked);
            let ms = marks(ctx, vocab, cues, &masked, &ws);
            if !ms.is_empty() {
                let default: Vec<i32> = row_year
                    .or(match col {
                        Column::InYear(y) => Some(y),
                        _ => None,
                    })
                    .into_iter()
                    .collect();
                let all: Vec<NumberMention> = numbers(&masked)
                    .into_iter()
                    .filter(|n| !skipped(ctx, n))
                    .collect();
                for (a, b) in super::sentence_spans(&masked) {
                    let mut nums: Vec<NumberMention> = all
                        .iter()
                        .filter(|n| n.start >= a && n.end <= b)
                        .cloned()
                        .collect();
                    if nums.is_empty() {
                        continue;
                    }
                    let sws: Vec<Word> = ws
                        .iter()
                        .filter(|w| w.start >= a && w.end <= b)
                        .cloned()
                        .collect();
                    let sys: Vec<YearMention> = cell_years
                        .iter()
                        .filter(|y| y.start >= a && y.end <= b)
                        .cloned()
                        .collect();
                    let sms: Vec<Mark> = ms
                        .iter()
                        .filter(|m| m.start >= a && m.end <= b)
                        .cloned()
                        .collect();
                    read_sentence(
                        ctx,
                        cues,
                        &masked,
                        &sws,
                        &sys,
                        &sms,
                        &mut nums,
                        &default,
                        &row_subjects,
                        &Plausible::default(),
                        &mut emit,
                    );
                }
                continue;
            }
            let hms = header_marks.get(j).map_or(&[][..], Vec::as_slice);
            // A cell of year-figure pairs (`2022 +23.2%; 2023 +17.7%`): its years are not
            // figures, and each figure is of the year written next to it.
            let nums = if cell_years.is_empty() {
                nums
            } else {
                numbers(&masked)
            };
            let cell_ranged: Vec<(usize, usize)> = year_ranges(&masked, &cell_years)
                .iter()
                .map(|r| (r.2, r.3))
                .collect();
            for n in &nums {
                let paired =
                    adjacent_year(&masked, &cell_years, &cell_ranged, &nums, n).map(|y| y.year);
                let n = n.clone();
                if skipped(ctx, &n) {
                    continue;
                }
                if n.unit == Unit::Unresolved {
                    emit(n, unresolved(), &row_plausible);
                    continue;
                }
                let mut certain = true;
                let (subject, year) = if years_as_rows {
                    // Years as rows: the header names the subject.
                    let s = match hms {
                        [m] => subject_of(&m.kind),
                        [] => match (table_subject, &col) {
                            (Some(t), Column::Change | Column::Prior | Column::Current) => Ok(t),
                            _ => Err("its column names no item or metric".into()),
                        },
                        _ => {
                            emit(
                                n,
                                Target::Ambiguous(
                                    "its column names several items or metrics".into(),
                                ),
                                &row_plausible,
                            );
                            continue;
                        }
                    };
                    certain = exact[j];
                    (s, row_year)
                } else {
                    let y = match col {
                        Column::InYear(y) => Some(y),
                        _ => row_year,
                    };
                    (row_subject.clone(), paired.or(y))
                };
                let subject = match subject {
                    Ok(s) => s,
                    Err(why) if why.contains("several") => {
                        emit(n, Target::Ambiguous(why), &row_plausible);
                        continue;
                    }
                    Err(why) => {
                        emit(n, Target::Unverified(why), &row_plausible);
                        continue;
                    }
                };
                let Some(year) = year else {
                    emit(
                        n,
                        Target::Ambiguous("its row and column name no year".into()),
                        &row_plausible,
                    );
                    continue;
                };
                let mut roles = Roles::default();
                match &col {
                    Column::Prior => roles.only = Only::Prior,
                    Column::Current => roles.only = Only::Value,
                    Column::Change => roles.only = Only::Change,
                    Column::Against(subs) => {
                        roles.against = subs.iter().copied().filter(|o| *o != subject).collect();
                        if roles.against.is_empty() {
                            emit(
                                n,
                                Target::Unverified("a difference from its own subject".into()),
                                &row_plausible,
                            );
                            continue;
                        }
                        roles.only = Only::Change;
                    }
                    Column::Unknown(h) if !years_as_rows => {
                        if let Some(m) = hms.iter().find(|m| matches!(m.kind, MarkKind::Unknown(_)))
                        {
                            emit(
                                n,
                                Target::Unverified(subject_of(&m.kind).err().unwrap_or_default()),
                                &row_plausible,
                            );
                            continue;
                        }
                        if !h.trim().is_empty() && hms.is_empty() {
                            emit(
                                n,
                                Target::Unverified(format!(
                                    "its column `{}` says nothing vouch reads",
                                    h.trim()
                                )),
                                &row_plausible,
                            );
                            continue;
                        }
                        // A header naming an item over a row naming another: not certain.
                        certain = hms.is_empty();
                    }
                    _ => {}
                }
                emit(
                    n,
                    Target::Tied {
                        subject,
                        years: vec![year],
                        roles,
                        certain,
                        own_years: true,
                    },
                    &row_plausible,
                );
            }
        }
    }
}

fn has_number(text: &str) -> bool {
    !numbers(text).is_empty()
}
