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
use foldhash::{HashMap, HashMapExt};

/// A thing the memo can put a number on.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Entity {
    /// A source line item, by index in [`Statements::items`].
    Item(usize),
    /// A spec column the source does not have (its values are undefined).
    AbsentColumn(usize),
    /// A §2 metric, by spec index.
    Metric(usize),
    /// A quantity the contract does not define that vouch recomputes for the memo (days sales
    /// outstanding), by index in the spec's measures.
    Measure(usize),
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
    "flow",
    "flows",
    "generation",
    "burn",
    "coverage",
];

/// A word of a text: lowercased, with its byte span.
#[derive(Clone, Debug)]
pub struct Word {
    pub lower: String,
    pub start: usize,
    pub end: usize,
}

pub fn words(text: &str) -> Vec<Word> {
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len() / 6);
    let mut push = |s: usize, e: usize| {
        let w = &text[s..e];
        out.push(Word {
            lower: if w.is_ascii() {
                w.to_ascii_lowercase()
            } else {
                w.to_lowercase()
            },
            start: s,
            end: e,
        });
    };
    let mut start = None;
    let mut i = 0;
    while i < bytes.len() {
        // An ASCII byte is alphanumeric as a char exactly when it is an ASCII letter or digit.
        let (alnum, len) = if bytes[i].is_ascii() {
            (bytes[i].is_ascii_alphanumeric(), 1)
        } else {
            let c = text[i..].chars().next().unwrap_or(' ');
            (c.is_alphanumeric(), c.len_utf8())
        };
        if alnum {
            start.get_or_insert(i);
        } else if let Some(s) = start.take() {
            push(s, i);
        }
        i += len;
    }
    if let Some(s) = start {
        push(s, text.len());
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

#[derive(Debug)]
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
            let prose = spec.memo.names.get(&col.name).into_iter().flatten();
            for n in std::iter::once(&col.name)
                .chain(col.aliases.iter())
                .chain(prose)
            {
                names.push((n.clone(), entity));
            }
        }
        for (i, item) in stmts.items.iter().enumerate() {
            if item.column.is_none() {
                names.push((item.name.clone(), Entity::Item(i)));
            }
        }
        // A known column's own header names it in prose too (`Air Traffic Liability (Deferred
        // Revenue)` is deferred revenue, and the memo says `air traffic liability`), unless
        // that name is already another's.
        let mut known: std::collections::HashSet<String> =
            names.iter().map(|(n, _)| crate::names::fold(n)).collect();
        for (i, item) in stmts.items.iter().enumerate() {
            if let (Some(_), Some(h)) = (item.column, item.header.as_deref()) {
                let own = crate::names::fold(h);
                if !own.is_empty() && known.insert(own.clone()) {
                    names.push((own, Entity::Item(i)));
                }
            }
        }
        for m in 0..spec.metrics.len() {
            for n in spec.metric_aliases(m) {
                names.push((n.to_string(), Entity::Metric(m)));
            }
            for n in spec
                .memo
                .names
                .get(&spec.metrics[m].id)
                .into_iter()
                .flatten()
            {
                names.push((n.clone(), Entity::Metric(m)));
            }
        }
        for (k, m) in spec.measures.iter().enumerate() {
            for n in &m.names {
                names.push((n.clone(), Entity::Measure(k)));
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
            // The last word of a name may be written in the plural (`operating margins`,
            // `current ratios`); a one-word name must be written as it is.
            let same = |a: &String, b: &Word, last: bool, long: bool| {
                *a == b.lower || (last && long && b.lower.strip_suffix('s') == Some(a.as_str()))
            };
            let found = self.by_first.get(&words[i].lower).and_then(|cands| {
                cands.iter().find(|(ws, _)| {
                    i + ws.len() <= words.len()
                        && ws
                            .iter()
                            .zip(&words[i..])
                            .enumerate()
                            .all(|(k, (a, b))| same(a, b, k + 1 == ws.len(), ws.len() > 1))
                })
            });
            match found {
                Some((ws, entity)) => {
                    // After a metric only `coverage` makes another measure (`FCF coverage`
                    // is not interest coverage); `FCF margin` is read as the metric it names.
                    let qualified = words.get(i + ws.len()).is_some_and(|w| {
                        QUALIFIERS.contains(&w.lower.as_str())
                            && (!matches!(entity, Entity::Metric(_) | Entity::Measure(_))
                                || w.lower == "coverage")
                    });
                    // `FCF coverage` is one derived measure: its `coverage` is not a name.
                    let take = ws.len()
                        + usize::from(qualified && words[i + ws.len()].lower == "coverage");
                    out.push(Mention {
                        entity: if qualified { Entity::Derived } else { *entity },
                        start: words[i].start,
                        end: words[i + take - 1].end,
                    });
                    i += take;
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
    let parts = || {
        term.split(|c: char| !c.is_alphanumeric())
            .filter(|w| !w.is_empty())
    };
    let Some(first) = parts().next() else {
        return false;
    };
    let n = parts().count();
    if words.len() < n {
        return false;
    }
    // `w.lower` is the word lowercased; an ASCII term matches it ignoring ASCII case exactly
    // when it equals the term lowercased.
    let same = |w: &Word, t: &str| {
        if case_sensitive {
            &text[w.start..w.end] == t
        } else if t.is_ascii() {
            w.lower.eq_ignore_ascii_case(t)
        } else {
            w.lower == t.to_lowercase()
        }
    };
    // The first word is compared by its bytes, length first, at every position.
    let first_key: std::borrow::Cow<str> = if case_sensitive {
        first.into()
    } else if first.bytes().any(|c| c.is_ascii_uppercase()) || !first.is_ascii() {
        first.to_lowercase().into()
    } else {
        first.into()
    };
    (0..=words.len() - n).any(|i| {
        let w = &words[i];
        let head = if case_sensitive {
            &text[w.start..w.end]
        } else {
            w.lower.as_str()
        };
        head == first_key
            && parts()
                .zip(&words[i..i + n])
                .skip(1)
                .all(|(t, w)| same(w, t))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The char-at-a-time reading `words` replaced, as the oracle of its byte loop.
    fn words_by_chars(text: &str) -> Vec<(String, usize, usize)> {
        let mut out = Vec::new();
        let mut start = None;
        for (i, c) in text
            .char_indices()
            .chain(std::iter::once((text.len(), ' ')))
        {
            if c.is_alphanumeric() {
                start.get_or_insert(i);
            } else if let Some(s) = start.take() {
                out.push((text[s..i].to_lowercase(), s, i));
            }
        }
        out
    }

    /// The allocating matcher `contains_term` replaced, as its oracle.
    fn contains_term_by_vectors(text: &str, words: &[Word], term: &str, cs: bool) -> bool {
        let tw: Vec<&str> = term
            .split(|c: char| !c.is_alphanumeric())
            .filter(|w| !w.is_empty())
            .collect();
        if tw.is_empty() {
            return false;
        }
        if cs {
            words.windows(tw.len()).any(|win| {
                win.iter()
                    .zip(&tw)
                    .all(|(w, t)| &text[w.start..w.end] == *t)
            })
        } else {
            let lower: Vec<String> = tw.iter().map(|t| t.to_lowercase()).collect();
            words
                .windows(tw.len())
                .any(|win| win.iter().zip(&lower).all(|(w, t)| w.lower == *t))
        }
    }

    proptest::proptest! {
        #[test]
        fn words_read_as_the_char_reading_does(text in "(?s)[a-zA-Z0-9 .,%$()'\u{2019}\u{e9}\u{c9}\u{212a}\u{130}\u{661}\u{2014}\n-]{0,60}") {
            let got: Vec<(String, usize, usize)> =
                words(&text).into_iter().map(|w| (w.lower, w.start, w.end)).collect();
            proptest::prop_assert_eq!(got, words_by_chars(&text));
        }

        #[test]
        fn terms_match_as_the_allocating_matcher_did(
            text in "[a-cA-C \u{e9}\u{c9}\u{212a}k]{0,30}",
            term in "[a-cA-C \u{e9}\u{c9}\u{212a}k-]{0,8}",
            cs in proptest::bool::ANY,
        ) {
            let ws = words(&text);
            proptest::prop_assert_eq!(
                contains_term(&text, &ws, &term, cs),
                contains_term_by_vectors(&text, &ws, &term, cs)
            );
        }
    }

    fn names(text: &str) -> Vec<String> {
        let spec = Spec::default_spec();
        let csv = "year,revenue,deferred_revenue,interest_expense,accounts_receivable,operating_income\n2024,1,2,3,4,5\n";
        let stmts = Statements::read_bytes("s.csv", "s.csv", csv.as_bytes(), &spec).unwrap();
        let v = Vocabulary::new(&spec, &stmts);
        v.mentions(&words(text))
            .into_iter()
            .map(|m| match m.entity {
                Entity::Item(i) => stmts.items[i].name.clone(),
                Entity::AbsentColumn(c) => format!("absent {}", spec.source.columns[c].name),
                Entity::Metric(m) => format!("metric {}", spec.metrics[m].id),
                Entity::Measure(k) => format!("measure {}", spec.measures[k].id),
                Entity::Derived => "derived".into(),
            })
            .collect()
    }

    #[test]
    fn the_longest_name_wins() {
        assert_eq!(names("Deferred revenue rose"), vec!["deferred_revenue"]);
        assert_eq!(
            names("interest coverage and interest"),
            vec!["metric interest_coverage", "interest_expense"]
        );
        assert_eq!(
            names("Revenue growth; revenue"),
            vec!["metric revenue_growth", "revenue"]
        );
        assert_eq!(
            names("return on equity, ROE"),
            vec!["metric roe", "metric roe"]
        );
        assert_eq!(
            names("free cash flow and FCF margin"),
            vec!["metric free_cash_flow", "metric fcf_margin"]
        );
        assert_eq!(
            names("stock-based compensation"),
            vec!["absent stock_based_compensation"]
        );
    }

    #[test]
    fn a_qualified_item_is_a_derived_measure() {
        assert_eq!(names("operating income margin"), vec!["derived"]);
        assert_eq!(names("operating margin"), vec!["metric operating_margin"]);
    }

    #[test]
    fn terms_match_whole_words_and_case_sensitive_terms_match_case() {
        let t = "The AR build and sbc; stock-based compensation";
        let w = words(t);
        assert!(contains_term(t, &w, "AR", true));
        assert!(!contains_term(t, &w, "SBC", true));
        assert!(contains_term(t, &w, "stock-based compensation", false));
        assert!(!contains_term(t, &w, "capital expenditure", false));
        let t = "capital expenditures";
        assert!(!contains_term(t, &words(t), "capital expenditure", false));
    }
}
