//! Which §2 metric or §1 line item a piece of prose names (contract §5 "Numbers").
//!
//! Names are matched as word sequences: every canonical name, alias and synonym with `_` read as
//! a space (`free cash flow`, `accounts receivable`, `return on equity`), plus the folded headers
//! of source columns the spec does not know. Text is split into words (runs of letters and digits,
//! lowercased), and at each word the longest name starting there wins and is consumed, so
//! "deferred revenue" is not "revenue" and "interest coverage" is not "interest". A line item's
//! name followed by a qualifier (`operating income margin`, `capex intensity`) names a measure
//! the contract does not define: a name, but not one vouch can hold a number to.

use crate::source::Statements;
use crate::spec::Spec;
use std::collections::HashMap;

/// A thing the memo can put a number on.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Entity {
    /// A source line item, by index in [`Statements::items`].
    Item(usize),
    /// A spec column the source does not have (its values are undefined).
    AbsentColumn(usize),
    /// A §2 metric, by spec index.
    Metric(usize),
    /// A measure derived from a line item that the contract does not define (`operating income
    /// margin`, `capex intensity`): it names something, but nothing vouch can check.
    Derived,
}

/// Words that, right after a line item's name, make the phrase a different measure.
const QUALIFIERS: &[&str] = &[
    "margin",
    "margins",
    "ratio",
    "intensity",
    "yield",
    "share",
    "mix",
    "days",
    "turnover",
    "multiple",
    "per",
];

/// A word of a text: lowercased, with its byte span.
#[derive(Clone, Debug)]
pub struct Word {
    pub lower: String,
    pub start: usize,
    pub end: usize,
}

pub fn words(text: &str) -> Vec<Word> {
    let mut out = Vec::new();
    let mut start = None;
    for (i, c) in text
        .char_indices()
        .chain(std::iter::once((text.len(), ' ')))
    {
        if c.is_alphanumeric() {
            start.get_or_insert(i);
        } else if let Some(s) = start.take() {
            out.push(Word {
                lower: text[s..i].to_lowercase(),
                start: s,
                end: i,
            });
        }
    }
    out
}

/// A name found in a text.
#[derive(Clone, Debug)]
pub struct Mention {
    pub entity: Entity,
    pub start: usize,
    pub end: usize,
}

pub struct Vocabulary {
    /// First word → names starting with it: (words, entity), longest first.
    by_first: HashMap<String, Vec<(Vec<String>, Entity)>>,
}

impl Vocabulary {
    pub fn new(spec: &Spec, stmts: &Statements) -> Vocabulary {
        let mut names: Vec<(String, Entity)> = Vec::new();
        for (c, col) in spec.source.columns.iter().enumerate() {
            if c == spec.source.year_column {
                continue;
            }
            let entity = stmts
                .item_index(c)
                .map_or(Entity::AbsentColumn(c), Entity::Item);
            for n in std::iter::once(&col.name).chain(col.aliases.iter()) {
                names.push((n.clone(), entity));
            }
        }
        for (i, item) in stmts.items.iter().enumerate() {
            if item.column.is_none() {
                names.push((item.name.clone(), Entity::Item(i)));
            }
        }
        for m in 0..spec.metrics.len() {
            for n in spec.metric_aliases(m) {
                names.push((n.to_string(), Entity::Metric(m)));
            }
        }
        let mut by_first: HashMap<String, Vec<(Vec<String>, Entity)>> = HashMap::new();
        for (name, entity) in names {
            let ws: Vec<String> = crate::names::fold(&name)
                .split('_')
                .filter(|w| !w.is_empty())
                .map(str::to_string)
                .collect();
            if let Some(first) = ws.first() {
                by_first
                    .entry(first.clone())
                    .or_default()
                    .push((ws, entity));
            }
        }
        for v in by_first.values_mut() {
            v.sort_by_key(|n| std::cmp::Reverse(n.0.len()));
        }
        Vocabulary { by_first }
    }

    /// The names in `words`, left to right, longest match first.
    pub fn mentions(&self, words: &[Word]) -> Vec<Mention> {
        let mut out = Vec::new();
        let mut i = 0;
        while i < words.len() {
            let found = self.by_first.get(&words[i].lower).and_then(|cands| {
                cands.iter().find(|(ws, _)| {
                    i + ws.len() <= words.len()
                        && ws.iter().zip(&words[i..]).all(|(a, b)| *a == b.lower)
                })
            });
            match found {
                Some((ws, entity)) => {
                    let qualified = !matches!(entity, Entity::Metric(_))
                        && words
                            .get(i + ws.len())
                            .is_some_and(|w| QUALIFIERS.contains(&w.lower.as_str()));
                    out.push(Mention {
                        entity: if qualified { Entity::Derived } else { *entity },
                        start: words[i].start,
                        end: words[i + ws.len() - 1].end,
                    });
                    i += ws.len();
                }
                None => i += 1,
            }
        }
        out
    }
}

/// Whether `words` contain the phrase `term` (matched as a word sequence; case-sensitive terms
/// compare the words as written in `text`).
pub fn contains_term(text: &str, words: &[Word], term: &str, case_sensitive: bool) -> bool {
    let tw: Vec<&str> = term
        .split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
        .collect();
    if tw.is_empty() {
        return false;
    }
    words.windows(tw.len()).any(|win| {
        win.iter().zip(&tw).all(|(w, t)| {
            if case_sensitive {
                &text[w.start..w.end] == *t
            } else {
                w.lower == t.to_lowercase()
            }
        })
    })
}
