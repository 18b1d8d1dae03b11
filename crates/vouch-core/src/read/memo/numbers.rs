//! Number mentions in memo prose, with the unit words that follow them (contract §5 "Numbers").
//!
//! `%`, `percent`, `pct` → percent; `points`, `pts`, `pp`, `percentage points` → points (percent
//! units); `bps`, `basis points` → basis points; `x`, `×`, `times` → multiple; anything else is
//! bare. `million`, `mn` and `m` are read as plain numbers in the source's own units (the memo
//! cannot tell vouch what unit the source uses, and agents echo it: `$1,038.4 million`);
//! `billion`, `bn`, `thousand` and `k` change the unit by a factor vouch cannot know, so such
//! numbers are not checked; nor are durations (`3 years`, `6 weeks`), which no line item or metric
//! measures. `days` is a unit of its own: only a days measure (days sales outstanding, a spec
//! `[[memo.measures]]` entry) is measured in it. A number glued to a letter (`Q4`, `3rd`, `10-K`) or joined to other
//! digits by `,`/`.` is not a number. Parentheses around a number alone make it a candidate
//! negative (prose also uses them as plain brackets, so both readings are kept). A day of the
//! month next to a month name (`December 31, 2025`, `31 Dec`) is part of a date, not a figure.

use super::lex::{char_at, digits, is_ws, literal, word_ends};
use crate::numbers::{parse_number, Printed};

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Unit {
    Percent,
    Points,
    BasisPoints,
    Multiple,
    Bare,
    /// A number of days (`45.2 days`): only a days measure's value or change.
    Days,
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
            Unit::Days | Unit::Unresolved => &[],
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            Unit::Percent => "percent",
            Unit::Points => "points",
            Unit::BasisPoints => "bps",
            Unit::Multiple => "multiple",
            Unit::Bare => "bare",
            Unit::Days => "days",
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

/// One match of the number grammar, as byte ranges into the text. The grammar, in the order its
/// choices are tried (the first that fits wins, and repetitions take as much as they can):
///
/// ```text
/// sign?  cur?  sign2?  num  unit?
/// sign  = - | − | +          cur = $ ws?          sign2 = - | −
/// num   = d{1,3} (,ddd)+ (.d+)?  |  d+ (.d+)?  |  .d+            (d: an ASCII digit)
/// unit  = ws? %
///       | ws? (percentage␣points? | percent | per␣cent | pct | points? | pts | ppts? | pp | bps
///              | basis␣points?) ⟂
///       | ws? x ⟂  |  ws? ×
///       | ws times ⟂
///       | ws? (million | mn | m) ⟂
///       | ws? (billion | bn | thousand | k) ⟂
///       | ws (days? | weeks? | months? | quarters? | years?) ⟂
/// ```
///
/// `ws` is one white-space character, `␣` one or more, `⟂` the end of a word (no letter, digit or
/// `_` follows), and unit words compare case-insensitively ([`super::lex`]).
struct Raw {
    start: usize,
    sign: Option<(usize, usize)>,
    cur: Option<usize>,
    sign2: Option<(usize, usize)>,
    num: (usize, usize),
    unit: Option<(usize, usize)>,
    end: usize,
}

/// Bytes of a sign at `i`: `-`, `−` and, when `plus`, `+`.
fn sign_len(text: &str, i: usize, plus: bool) -> usize {
    match text.as_bytes().get(i) {
        Some(b'-') => 1,
        Some(b'+') if plus => 1,
        Some(0xE2) if text[i..].starts_with('−') => '−'.len_utf8(),
        _ => 0,
    }
}

/// Bytes of a `.ddd` fraction at `i`, 0 when none.
fn fraction_len(text: &str, i: usize) -> usize {
    if text.as_bytes().get(i) == Some(&b'.') {
        let d = digits(text, i + 1);
        if d > 0 {
            return 1 + d;
        }
    }
    0
}

/// Bytes of the number itself at `i`, 0 when none.
fn num_len(text: &str, i: usize) -> usize {
    let d = digits(text, i);
    if (1..=3).contains(&d) {
        // Thousands groups: `1,038.4`; a group is a comma and three digits, whatever follows.
        let mut e = i + d;
        while text.as_bytes().get(e) == Some(&b',') && digits(text, e + 1) >= 3 {
            e += 4;
        }
        if e > i + d {
            return e + fraction_len(text, e) - i;
        }
    }
    if d > 0 {
        return d + fraction_len(text, i + d);
    }
    fraction_len(text, i)
}

/// The end of the unit that starts at `i` (right after the number), if any.
fn unit_end(text: &str, i: usize) -> Option<usize> {
    let ws = char_at(text, i)
        .filter(|c| is_ws(*c))
        .map_or(0, char::len_utf8);
    let at = i + ws;
    let word = |lits: &[&str]| {
        lits.iter()
            .find_map(|l| literal(text, at, l).filter(|&e| word_ends(text, e)))
    };
    if char_at(text, at) == Some('%') {
        return Some(at + 1);
    }
    if let Some(e) = word(&[
        "percentage points",
        "percentage point",
        "percent",
        "per cent",
        "pct",
        "points",
        "point",
        "pts",
        "ppts",
        "ppt",
        "pp",
        "bps",
        "basis points",
        "basis point",
    ]) {
        return Some(e);
    }
    if let Some(e) = word(&["x"]) {
        return Some(e);
    }
    if char_at(text, at) == Some('×') {
        return Some(at + '×'.len_utf8());
    }
    if ws > 0 {
        if let Some(e) = word(&["times"]) {
            return Some(e);
        }
    }
    if let Some(e) = word(&["million", "mn", "m", "billion", "bn", "thousand", "k"]) {
        return Some(e);
    }
    if ws > 0 {
        return word(&[
            "days", "day", "weeks", "week", "months", "month", "quarters", "quarter", "years",
            "year",
        ]);
    }
    None
}

/// The match of the grammar starting exactly at `p`, trying its choices in order.
fn match_at(text: &str, p: usize) -> Option<Raw> {
    let s = sign_len(text, p, true);
    let signs: &[Option<usize>] = if s > 0 { &[Some(s), None] } else { &[None] };
    for &sign in signs {
        let q0 = p + sign.unwrap_or(0);
        // `$` with its optional space, `$` alone, no currency: in that order.
        let w = char_at(text, q0 + 1)
            .filter(|c| is_ws(*c))
            .map_or(0, char::len_utf8);
        let curs: &[Option<usize>] = match (text.as_bytes().get(q0) == Some(&b'$'), w > 0) {
            (true, true) => &[Some(1 + w), Some(1), None],
            (true, false) => &[Some(1), None],
            (false, _) => &[None],
        };
        for &cur in curs {
            let q1 = q0 + cur.unwrap_or(0);
            let s2 = sign_len(text, q1, false);
            let sign2s: &[Option<usize>] = if s2 > 0 { &[Some(s2), None] } else { &[None] };
            for &sign2 in sign2s {
                let q2 = q1 + sign2.unwrap_or(0);
                let n = num_len(text, q2);
                if n == 0 {
                    continue;
                }
                let num_end = q2 + n;
                let unit = unit_end(text, num_end).map(|e| (num_end, e));
                return Some(Raw {
                    start: p,
                    sign: sign.map(|l| (p, p + l)),
                    cur: cur.map(|_| q0),
                    sign2: sign2.map(|l| (q1, q1 + l)),
                    num: (q2, num_end),
                    unit,
                    end: unit.map_or(num_end, |u| u.1),
                });
            }
        }
    }
    None
}

/// The leftmost match starting at or after byte `from`.
fn find_from(text: &str, from: usize) -> Option<Raw> {
    let bytes = text.as_bytes();
    (from..bytes.len())
        .filter(|&p| matches!(bytes[p], b'-' | b'+' | b'$' | b'.' | b'0'..=b'9' | 0xE2))
        .find_map(|p| match_at(text, p))
}

fn unit_of(word: &str) -> Unit {
    let w = word.trim().to_lowercase();
    match w.as_str() {
        "" => Unit::Bare,
        "%" | "percent" | "pct" => Unit::Percent,
        "x" | "×" | "times" => Unit::Multiple,
        "million" | "mn" | "m" => Unit::Bare,
        "billion" | "bn" | "thousand" | "k" => Unit::Unresolved,
        "day" | "days" => Unit::Days,
        w if w.starts_with("week")
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
    let mut from = 0;
    while let Some(m) = find_from(text, from) {
        from = m.end;
        out.extend(mention(text, &m));
    }
    out
}

/// What a match of the grammar reads as, if it is a figure at all.
fn mention(text: &str, m: &Raw) -> Option<NumberMention> {
    let num = &text[m.num.0..m.num.1];
    let mut start = m.start;
    let mut sign = m.sign.map(|(s, e)| &text[s..e]);
    let before = text[..start].chars().next_back();
    // A sign glued to a word is a hyphen (`line-2`), not a sign.
    if sign.is_some() && before.is_some_and(|c| c.is_alphanumeric()) {
        sign = None;
        start = m.cur.unwrap_or(m.num.0);
    }
    let before = text[..start].chars().next_back();
    if before.is_some_and(|c| c.is_alphanumeric() || c == '_' || c == '$' || c == '.' || c == ',') {
        return None;
    }
    let end = m.end;
    let mut after = text[end..].chars();
    match (after.next(), after.next()) {
        (Some(c), _) if c.is_alphanumeric() || c == '_' => return None,
        (Some('.' | ','), Some(d)) if d.is_ascii_digit() => return None,
        (Some('-'), Some(c)) if c.is_alphabetic() => return None,
        _ => {}
    }
    if is_day_of_month(text, start, end, num) || is_leading_zero_label(num) {
        return None;
    }
    let unit_text = m.unit.map_or("", |(s, e)| &text[s..e]);
    let unit = unit_of(unit_text);
    let mut canonical = String::new();
    canonical.push_str(sign.or(m.sign2.map(|(s, e)| &text[s..e])).unwrap_or(""));
    if m.cur.is_some() {
        canonical.push('$');
    }
    canonical.push_str(num);
    match unit {
        Unit::Percent | Unit::Points | Unit::BasisPoints if unit_text.trim() == "%" => {
            canonical.push('%')
        }
        Unit::Multiple => canonical.push('x'),
        _ => {}
    }
    let mut printed = parse_number(&canonical)?;
    printed.raw = text[start..end].trim().to_string();
    if unit == Unit::Percent {
        printed.percent = true;
    }
    let parenthesised = before == Some('(') && text[end..].starts_with(')');
    Some(NumberMention {
        printed,
        parenthesised,
        unit,
        start,
        end,
    })
}

/// An integer written with a leading zero (`000`, `007`, `0,000`) is a label, not a quantity:
/// `$000` and `($000)` are how statements say "in thousands of dollars", and no figure is printed
/// with a leading zero before further digits (a decimal such as `0.45` is read as usual).
fn is_leading_zero_label(num: &str) -> bool {
    let int = num.split('.').next().unwrap_or("");
    !num.contains('.') && int.len() >= 2 && int.starts_with('0')
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
    use proptest::prelude::*;

    // The regular expression the scanner replaced, kept as an oracle (with `×` read as a
    // multiple whatever follows it, a deliberate fix: the regex wanted a word character after it).
    use regex::Regex;
    use std::sync::OnceLock;

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
                  | \s?(?:x(?:\b|$)|×)
                  | \s(?:times)\b
                  | \s?(?:million|mn|m)\b
                  | \s?(?:billion|bn|thousand|k)\b
                  | \s(?:days?|weeks?|months?|quarters?|years?)\b
                )?",
            )
            .expect("number pattern compiles")
        })
    }

    /// The regex's matches, read by the same [`mention`].
    fn regex_numbers(text: &str) -> Vec<NumberMention> {
        let span = |m: regex::Match| (m.start(), m.end());
        pattern()
            .captures_iter(text)
            .filter_map(|c| {
                let whole = c.get(0).unwrap();
                let raw = Raw {
                    start: whole.start(),
                    sign: c.name("sign").map(span),
                    cur: c.name("cur").map(|m| m.start()),
                    sign2: c.name("sign2").map(span),
                    num: span(c.name("num").unwrap()),
                    unit: c.name("unit").map(span),
                    end: whole.end(),
                };
                mention(text, &raw)
            })
            .collect()
    }

    const TOKENS: &[&str] = &[
        "0",
        "1",
        "12",
        "123",
        "1234",
        "31",
        "2025",
        ",",
        ".",
        " ",
        "  ",
        "\t",
        "\n",
        "\u{a0}",
        "%",
        "-",
        "−",
        "+",
        "$",
        "$ ",
        "(",
        ")",
        "_",
        "é",
        "a",
        "e",
        "s",
        "Q",
        "x",
        "X",
        "×",
        "K",
        "\u{212A}",
        "\u{17F}",
        "percent",
        "Per Cent",
        "percentage points",
        "point",
        "pts",
        "ppt",
        "pp",
        "bps",
        "basis point",
        "times",
        "million",
        "mn",
        "m",
        "M",
        "billion",
        "bn",
        "thousand",
        "k",
        "days",
        "Year",
        "quarters",
        "Dec",
        "December",
        "May",
        "-year",
        "10-K",
    ];

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(20_000))]
        #[test]
        fn the_scanner_reads_what_the_regex_read(
            parts in prop::collection::vec(prop::sample::select(TOKENS), 0..24)
        ) {
            let text: String = parts.concat();
            prop_assert_eq!(
                format!("{:?}", numbers(&text)),
                format!("{:?}", regex_numbers(&text)),
                "{:?}", text
            );
        }
    }

    #[test]
    fn a_multiplication_sign_is_a_multiple_whatever_follows() {
        for t in ["cover of 2.5× at", "cover of 2.5×, at", "2.5×"] {
            assert_eq!(one(t).unit, Unit::Multiple, "{t}");
        }
        assert!(numbers("2.5×EBITDA").is_empty());
    }

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
        assert_eq!(one("DSO of 64.2 days").unit, Unit::Days);
        assert_eq!(one("within 6 weeks").unit, Unit::Unresolved);
    }

    #[test]
    fn leading_zero_integers_are_labels() {
        for t in [
            "(15,414 to 52,826, $000)",
            "in $000s",
            "code 007 here",
            "$0,000",
        ] {
            assert!(
                numbers(t).iter().all(|n| !n.printed.raw.contains("00")),
                "{t}"
            );
        }
        assert_eq!(numbers("(15,414 to 52,826, $000)").len(), 2);
        assert_eq!(one("margin 0.45 in").printed.raw, "0.45");
        assert_eq!(one("was 0 in").printed.raw, "0");
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
