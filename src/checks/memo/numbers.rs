//! Number mentions in memo prose, with the unit words that follow them (contract §5 "Numbers").
//!
//! `%`, `percent`, `pct` → percent; `points`, `pts`, `pp`, `percentage points` → points (percent
//! units); `bps`, `basis points` → basis points; `x`, `×`, `times` → multiple; anything else is
//! bare. `million`, `mn` and `m` are read as plain numbers in the source's own units (the memo
//! cannot tell vouch what unit the source uses, and agents echo it: `$1,038.4 million`);
//! `billion`, `bn`, `thousand` and `k` change the unit by a factor vouch cannot know, so such
//! numbers are not checked; nor are durations (`64 days`, `3 years`), which no line item or metric
//! measures. A number glued to a letter (`Q4`, `3rd`, `10-K`) or joined to other
//! digits by `,`/`.` is not a number. Parentheses around a number alone make it a candidate
//! negative (prose also uses them as plain brackets, so both readings are kept). A day of the
//! month next to a month name (`December 31, 2025`, `31 Dec`) is part of a date, not a figure.

use crate::numbers::{parse_number, Printed};
use regex::Regex;
use std::sync::OnceLock;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Unit {
    Percent,
    Points,
    BasisPoints,
    Multiple,
    Bare,
    /// Scaled by a word vouch cannot resolve (`billion`, `k`): not checked.
    Unresolved,
}

impl Unit {
    /// The factors under which a recomputed value (a fraction or plain number) is compared.
    pub fn scales(self) -> &'static [i64] {
        match self {
            Unit::Percent | Unit::Points => &[100],
            Unit::BasisPoints => &[10_000],
            Unit::Multiple => &[1],
            Unit::Bare => &[1, 100],
            Unit::Unresolved => &[],
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            Unit::Percent => "percent",
            Unit::Points => "points",
            Unit::BasisPoints => "bps",
            Unit::Multiple => "multiple",
            Unit::Bare => "bare",
            Unit::Unresolved => "unresolved",
        }
    }
}

#[derive(Clone, Debug)]
pub struct NumberMention {
    /// The number as printed, without parentheses (value in its own unit).
    pub printed: Printed,
    /// Wrapped in parentheses alone: also readable as a negative.
    pub parenthesised: bool,
    pub unit: Unit,
    pub start: usize,
    pub end: usize,
}

fn pattern() -> &'static Regex {
    static RE: OnceLock<Regex> = OnceLock::new();
    RE.get_or_init(|| {
        Regex::new(
            r"(?xi)
            (?P<sign>[-−+])?
            (?P<cur>\$\s?)?
            (?P<sign2>[-−])?
            (?P<num>\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?|\.\d+)
            (?P<unit>
                \s?%
              | \s?(?:percentage\s+points?|percent|per\s+cent|pct|points?|pts|ppts?|pp|bps|basis\s+points?)\b
              | \s?(?:x|×)(?:\b|$)
              | \s(?:times)\b
              | \s?(?:million|mn|m)\b
              | \s?(?:billion|bn|thousand|k)\b
              | \s(?:days?|weeks?|months?|quarters?|years?)\b
            )?",
        )
        .expect("number pattern compiles")
    })
}

fn unit_of(word: &str) -> Unit {
    let w = word.trim().to_lowercase();
    match w.as_str() {
        "" => Unit::Bare,
        "%" | "percent" | "pct" => Unit::Percent,
        "x" | "×" | "times" => Unit::Multiple,
        "million" | "mn" | "m" => Unit::Bare,
        "billion" | "bn" | "thousand" | "k" => Unit::Unresolved,
        w if w.starts_with("day")
            || w.starts_with("week")
            || w.starts_with("month")
            || w.starts_with("quarter")
            || w.starts_with("year") =>
        {
            Unit::Unresolved
        }
        "bps" => Unit::BasisPoints,
        w if w.starts_with("basis") => Unit::BasisPoints,
        w if w.starts_with("per") && w.ends_with("cent") => Unit::Percent,
        _ => Unit::Points,
    }
}

/// Every number in `text` (which the caller has masked: years, file names and URLs blanked).
pub fn numbers(text: &str) -> Vec<NumberMention> {
    let mut out = Vec::new();
    for caps in pattern().captures_iter(text) {
        let whole = caps.get(0).expect("group 0");
        let num = caps.name("num").expect("num group");
        let mut start = whole.start();
        let mut sign = caps.name("sign").map(|m| m.as_str());
        let before = text[..start].chars().next_back();
        // A sign glued to a word is a hyphen (`line-2`), not a sign.
        if sign.is_some() && before.is_some_and(|c| c.is_alphanumeric()) {
            sign = None;
            start = caps.name("cur").map_or(num.start(), |c| c.start());
        }
        let before = text[..start].chars().next_back();
        if before
            .is_some_and(|c| c.is_alphanumeric() || c == '_' || c == '$' || c == '.' || c == ',')
        {
            continue;
        }
        let end = whole.end();
        let after: Vec<char> = text[end..].chars().take(2).collect();
        match after.as_slice() {
            [c, ..] if c.is_alphanumeric() || *c == '_' => continue,
            ['.' | ',', d, ..] if d.is_ascii_digit() => continue,
            ['-', c, ..] if c.is_alphabetic() => continue,
            _ => {}
        }
        if is_day_of_month(text, start, end, num.as_str()) {
            continue;
        }
        let unit_text = caps.name("unit").map_or("", |m| m.as_str());
        let unit = unit_of(unit_text);
        let mut canonical = String::new();
        canonical.push_str(
            sign.or(caps.name("sign2").map(|m| m.as_str()))
                .unwrap_or(""),
        );
        if caps.name("cur").is_some() {
            canonical.push('$');
        }
        canonical.push_str(num.as_str());
        match unit {
            Unit::Percent | Unit::Points | Unit::BasisPoints if unit_text.trim() == "%" => {
                canonical.push('%')
            }
            Unit::Multiple => canonical.push('x'),
            _ => {}
        }
        let Some(mut printed) = parse_number(&canonical) else {
            continue;
        };
        printed.raw = text[start..end].trim().to_string();
        if unit == Unit::Percent {
            printed.percent = true;
        }
        let parenthesised = before == Some('(') && text[end..].starts_with(')');
        out.push(NumberMention {
            printed,
            parenthesised,
            unit,
            start,
            end,
        });
    }
    out
}

const MONTHS: &[&str] = &[
    "january",
    "february",
    "march",
    "april",
    "may",
    "june",
    "july",
    "august",
    "september",
    "october",
    "november",
    "december",
    "jan",
    "feb",
    "mar",
    "apr",
    "jun",
    "jul",
    "aug",
    "sep",
    "sept",
    "oct",
    "nov",
    "dec",
];

/// A 1–31 integer directly after or before a month name.
fn is_day_of_month(text: &str, start: usize, end: usize, num: &str) -> bool {
    if !(num.len() <= 2 && num.parse::<u32>().is_ok_and(|d| (1..=31).contains(&d))) {
        return false;
    }
    let before = text[..start]
        .trim_end()
        .rsplit(|c: char| !c.is_alphabetic())
        .next()
        .unwrap_or("");
    let after = text[end..]
        .trim_start()
        .split(|c: char| !c.is_alphabetic())
        .next()
        .unwrap_or("");
    [before, after]
        .iter()
        .any(|w| MONTHS.contains(&w.to_lowercase().as_str()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::numbers::parse_decimal;

    fn one(t: &str) -> NumberMention {
        let n = numbers(t);
        assert_eq!(n.len(), 1, "{t}: {n:?}");
        n.into_iter().next().unwrap()
    }

    #[test]
    fn reads_units() {
        assert_eq!(one("rose 22.67% in").unit, Unit::Percent);
        assert_eq!(one("rose 22.67 percent").unit, Unit::Percent);
        assert_eq!(one("by 2.12 points").unit, Unit::Points);
        assert_eq!(one("by 212 bps").unit, Unit::BasisPoints);
        assert_eq!(one("was 1.53x in").unit, Unit::Multiple);
        assert_eq!(one("was 0.2267 in").unit, Unit::Bare);
        assert_eq!(one("was $1,038.4 million").unit, Unit::Bare);
        assert_eq!(
            one("was $1,038.4m.").printed.value,
            parse_decimal("1038.4").unwrap()
        );
        assert_eq!(one("was $1.04 billion").unit, Unit::Unresolved);
        assert_eq!(one("DSO of 64.2 days").unit, Unit::Unresolved);
    }

    #[test]
    fn keeps_decimals_and_signs() {
        let n = one("margin was -3.50% then");
        assert_eq!(n.printed.value, parse_decimal("-3.50").unwrap());
        assert_eq!(n.printed.decimals, 2);
        let n = one("net loss (12.3) in");
        assert!(n.parenthesised);
    }

    #[test]
    fn words_with_digits_are_not_numbers() {
        assert!(numbers("Q4 and 3rd and 10-K and H1 and CO2").is_empty());
        assert!(numbers("1,23").is_empty());
        assert_eq!(numbers("a 5-year plan at 12%").len(), 1);
    }

    #[test]
    fn days_of_the_month_are_not_figures() {
        assert!(numbers("the year ended December 31, 2025")
            .iter()
            .all(|n| n.printed.raw != "31"));
        assert!(numbers("as of 31 Dec").is_empty());
        assert_eq!(numbers("grew 31% in May").len(), 1);
    }

    #[test]
    fn sentence_end_dot_is_not_a_decimal() {
        let n = one("revenue was 12. Next");
        assert_eq!(n.printed.decimals, 0);
    }
}
