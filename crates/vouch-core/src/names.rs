//! Name folding: the one function that turns a header, label, metric or item name into the form
//! every comparison uses (contract preamble). Synonyms live in the spec, not here.

/// Fold a name: drop one trailing parenthesised/bracketed unit, lowercase, read `&` as the word
/// `and` (`Cash & Equivalents` is `cash_and_equivalents`), collapse every run of other
/// non-alphanumerics into `_`, trim `_`, then drop one `_pct`/`_percent`/`_perc`/`_x`/`_times`
/// ending.
pub fn fold(name: &str) -> String {
    let mut s = name.trim();
    if let Some(stripped) = strip_unit(s) {
        s = stripped.trim_end();
    }
    let mut out = if s.is_ascii() {
        fold_ascii(s.as_bytes())
    } else {
        fold_chars(s)
    };
    for suffix in ["_percent", "_times", "_perc", "_pct", "_x"] {
        if let Some(base) = out.strip_suffix(suffix) {
            if !base.is_empty() {
                out.truncate(base.len());
                break;
            }
        }
    }
    out
}

/// [`fold_chars`] for ASCII text, a byte at a time (names are nearly always ASCII, and the
/// folding of a name runs thousands of times per memo).
fn fold_ascii(s: &[u8]) -> String {
    let mut out = Vec::with_capacity(s.len() + 8);
    let mut pending_sep = false;
    for &b in s {
        if b == b'&' {
            if !out.is_empty() {
                out.push(b'_');
            }
            out.extend_from_slice(b"and");
            pending_sep = true;
        } else if b.is_ascii_alphanumeric() {
            if pending_sep && !out.is_empty() {
                out.push(b'_');
            }
            pending_sep = false;
            out.push(b.to_ascii_lowercase());
        } else {
            pending_sep = true;
        }
    }
    // Only ASCII bytes were pushed.
    String::from_utf8(out).unwrap_or_default()
}

/// The fold's body before its suffix rule: `&` as `and`, alphanumerics lowercased, every run of
/// other characters one `_` between words.
fn fold_chars(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut pending_sep = false;
    for ch in s.chars() {
        if ch == '&' {
            // The word `and`, with separators around it.
            if !out.is_empty() {
                out.push('_');
            }
            out.push_str("and");
            pending_sep = true;
            continue;
        }
        if ch.is_alphanumeric() {
            if pending_sep && !out.is_empty() {
                out.push('_');
            }
            pending_sep = false;
            if ch.is_ascii() {
                out.push(ch.to_ascii_lowercase());
            } else {
                out.extend(ch.to_lowercase());
            }
        } else {
            pending_sep = true;
        }
    }
    out
}

/// The text of a name's one trailing parenthesised or bracketed part, folded, when there is
/// one and something precedes it: `Air Traffic Liability (Deferred Revenue)` gives
/// `deferred_revenue`. A header whose main name matches nothing may name a contract column
/// there.
pub fn fold_parenthetical(name: &str) -> Option<String> {
    let s = name.trim();
    let head = strip_unit(s)?;
    let inner = s[head.len()..].get(1..s.len() - head.len() - 1)?;
    let folded = fold(inner);
    (!folded.is_empty()).then_some(folded)
}

fn strip_unit(s: &str) -> Option<&str> {
    let (open, close) = match s.chars().last()? {
        ')' => ('(', ')'),
        ']' => ('[', ']'),
        _ => return None,
    };
    let _ = close;
    let start = s.rfind(open)?;
    let head = &s[..start];
    // A name that is only a unit, e.g. "(%)", keeps its text.
    if head.trim().is_empty() {
        return None;
    }
    Some(head)
}

/// Whether a raw header hints that its values are percents: a `%` sign, or a `pct`, `perc` or
/// `percent` token.
pub fn percent_hint(raw: &str) -> bool {
    if raw.contains('%') {
        return true;
    }
    let lower = raw.to_lowercase();
    lower
        .split(|c: char| !c.is_alphanumeric())
        .any(|t| matches!(t, "pct" | "perc" | "percent"))
}

/// The base name of a path (`/` or `\\` separated) with one leading upload prefix removed
/// (contract §9, §5/§6 file names): `<hex digits>-` (`3fa9c0-`), or `file-<letters and digits>-`
/// (`file-C6Pb6RhZrVPR4Fiq9tZ6Hn-`): how the manifest, the memo and the run name an uploaded file.
pub fn upload_base_name(name: &str) -> &str {
    let base = name.rsplit(['/', '\\']).next().unwrap_or(name);
    strip_upload_prefix(base)
}

/// `base` without one leading upload prefix (see [`upload_base_name`]); unchanged when it has none
/// or when nothing would remain. Besides `<hex>-` and `file-<id>-`, a tool's own spelling with
/// underscores is a prefix when its id mixes letters and digits (`upload_3c9e1f_`, `file_8kQ2_`,
/// `9c41e0_`): a word or a year (`cafe_`, `old_data_`, `acme_2024_`) is part of the name.
pub fn strip_upload_prefix(base: &str) -> &str {
    // An id mixes letters and digits (`3c9e1f`, `8kQ2`): `2024` or `fy` is part of the name.
    let id_with_digit = |id: &str| {
        id.len() >= 4
            && parse_year_label(id).is_none()
            && id.bytes().all(|b| b.is_ascii_alphanumeric())
            && id.bytes().any(|b| b.is_ascii_digit())
            && id.bytes().any(|b| b.is_ascii_alphabetic())
    };
    for sep in ['-', '_'] {
        // `file-<id>-` (any id) and `<word><sep><id with a digit><sep>`.
        if let Some((word, rest)) = base.split_once(sep) {
            if !word.is_empty() && word.len() <= 12 && word.bytes().all(|b| b.is_ascii_alphabetic())
            {
                if let Some((id, tail)) = rest.split_once(sep) {
                    let any_id = sep == '-'
                        && word == "file"
                        && !id.is_empty()
                        && id.bytes().all(|b| b.is_ascii_alphanumeric());
                    if !tail.is_empty() && (any_id || id_with_digit(id)) {
                        return tail;
                    }
                }
            }
        }
    }
    match base.split_once('-') {
        Some((prefix, rest))
            if !prefix.is_empty()
                && !rest.is_empty()
                && prefix.bytes().all(|b| b.is_ascii_hexdigit()) =>
        {
            return rest;
        }
        _ => {}
    }
    match base.split_once('_') {
        Some((prefix, rest))
            if !rest.is_empty()
                && id_with_digit(prefix)
                && prefix.bytes().all(|b| b.is_ascii_hexdigit()) =>
        {
            rest
        }
        _ => base,
    }
}

/// Whether two file names name the same upload: equal base names once a leading upload prefix is
/// removed from either (the user's own copy may carry one too), and a browser's copy number
/// before the extension (`statements (1).csv`, a second download of `statements.csv`).
pub fn same_upload(a: &str, b: &str) -> bool {
    let (ab, bb) = (
        a.rsplit(['/', '\\']).next().unwrap_or(a),
        b.rsplit(['/', '\\']).next().unwrap_or(b),
    );
    // The prefix may be on either side, or on both.
    [
        (ab, bb),
        (upload_base_name(ab), bb),
        (ab, upload_base_name(bb)),
        (upload_base_name(ab), upload_base_name(bb)),
    ]
    .iter()
    .any(|&(x, y)| x == y || without_copy_number(x) == without_copy_number(y))
}

/// `(stem, extension)` of `base` with a trailing ` (N)` of the stem removed.
fn without_copy_number(base: &str) -> (&str, &str) {
    let (stem, ext) = base.rsplit_once('.').unwrap_or((base, ""));
    let trimmed = stem
        .strip_suffix(')')
        .and_then(|s| s.rsplit_once('('))
        .filter(|(head, n)| {
            !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()) && !head.trim_end().is_empty()
        })
        .map_or(stem, |(head, _)| head.trim_end());
    (trimmed, ext)
}

/// The folded tokens of a name (split on `_`).
/// Whether folded `short` abbreviates folded `long` (§9 token matching): token by token, each a
/// prefix of two or more letters (`op_income` of `operating_income`, `cur_liab` of
/// `current_liabilities`), or one token of the initials of three or more (`ocf`, `sti`) or two
/// (`ar`) of its tokens.
pub fn abbreviates(short: &str, long: &str) -> bool {
    let s: Vec<&str> = tokens(short).collect();
    let l: Vec<&str> = tokens(long).collect();
    if s == l || s.is_empty() || l.is_empty() {
        return false;
    }
    let prefixes = s.len() == l.len()
        && s.iter()
            .zip(&l)
            .all(|(a, b)| b.starts_with(a) && (a.len() >= 2 || a == b));
    let initials = s.len() == 1
        && l.len() >= 2
        && s[0].len() == l.len()
        && s[0].chars().zip(&l).all(|(c, w)| w.starts_with(c));
    prefixes || initials
}

pub fn tokens(folded: &str) -> impl Iterator<Item = &str> {
    folded.split('_').filter(|t| !t.is_empty())
}

/// A fiscal-year label, `FY` first (`FY2021`, `FY 2021`, `FY21`): its year. A bare number is not
/// one (a caller reading integers reads those itself).
pub fn parse_fy_label(label: &str) -> Option<i32> {
    label
        .trim()
        .get(..2)
        .is_some_and(|p| p.eq_ignore_ascii_case("fy"))
        .then(|| parse_year_label(label))
        .flatten()
}

/// A year label in a table header or cell: `2021`, `FY2021`, `FY 2021`, `FY21` (= 2021),
/// `FY-2021`; case-insensitive, surrounding spaces ignored.
pub fn parse_year_label(label: &str) -> Option<i32> {
    let t = label.trim();
    let digits = match t.get(..2) {
        Some(p) if p.eq_ignore_ascii_case("fy") => t[2..].trim_start_matches([' ', '-', '\'']),
        _ => t,
    };
    if !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    let fy = digits.len() != t.len();
    match digits.len() {
        4 if digits.starts_with("19") || digits.starts_with("20") => digits.parse().ok(),
        2 if fy => digits.parse::<i32>().ok().map(|y| 2000 + y),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    proptest::proptest! {
        #[test]
        fn the_ascii_fold_is_the_char_fold(s in "[ -~]{0,40}") {
            proptest::prop_assert_eq!(fold_ascii(s.as_bytes()), fold_chars(&s));
        }
    }

    #[test]
    fn an_ampersand_is_the_word_and_and_a_parenthetical_can_be_read() {
        assert_eq!(fold("Cash & Equivalents"), "cash_and_equivalents");
        assert_eq!(fold("Cash&Cash Equivalents"), "cash_and_cash_equivalents");
        assert_eq!(fold("& more"), "and_more");
        assert_eq!(fold("a &b"), "a_and_b");
        assert_eq!(fold("Revenue (USD m)"), "revenue");
        assert_eq!(
            fold_parenthetical("Air Traffic Liability (Deferred Revenue)").as_deref(),
            Some("deferred_revenue")
        );
        assert_eq!(fold_parenthetical("Revenue"), None);
        assert_eq!(fold_parenthetical("(%)"), None);
    }

    #[test]
    fn abbreviations_are_token_prefixes_or_initials() {
        for (short, long) in [
            ("op_income", "operating_income"),
            ("deferred_rev", "deferred_revenue"),
            ("cur_liab", "current_liabilities"),
            ("ocf", "operating_cash_flow"),
            ("ar", "accounts_receivable"),
        ] {
            assert!(abbreviates(short, long), "{short} of {long}");
        }
        for (short, long) in [
            ("revenue", "revenue"),
            ("o_income", "operating_income"),
            ("income", "operating_income"),
            ("oc", "operating_cash_flow"),
            ("ocfx", "operating_cash_flow"),
        ] {
            assert!(!abbreviates(short, long), "{short} of {long}");
        }
    }

    #[test]
    fn folds_the_contract_examples() {
        assert_eq!(fold("Revenue Growth (%)"), "revenue_growth");
        assert_eq!(fold("ROE_pct"), "roe");
        assert_eq!(fold("FCF ($m)"), "fcf");
        assert_eq!(fold("capex"), "capex");
        assert_eq!(fold("  Gross-Margin [%] "), "gross_margin");
        assert_eq!(fold("Interest coverage (x)"), "interest_coverage");
        assert_eq!(fold("current_ratio_x"), "current_ratio");
        assert_eq!(fold("__Net  margin__"), "net_margin");
    }

    #[test]
    fn upload_prefixes_are_removed_from_either_side() {
        assert_eq!(
            upload_base_name("file-C6Pb6RhZrVPR4Fiq9tZ6Hn-northstar.csv"),
            "northstar.csv"
        );
        assert_eq!(upload_base_name("/mnt/data/9c41e07b2a-ms.csv"), "ms.csv");
        assert_eq!(upload_base_name("file-report.csv"), "file-report.csv");
        assert_eq!(upload_base_name("not-hex.csv"), "not-hex.csv");
        assert!(same_upload("3fa9c0-a.csv", "file-Xy12-a.csv"));
        assert!(same_upload("a.csv", "/mnt/data/file-Xy12-a.csv"));
        assert!(!same_upload("a.csv", "b.csv"));
        assert_eq!(
            upload_base_name("upload_3c9e1f_k_statements.csv"),
            "k_statements.csv"
        );
        assert_eq!(upload_base_name("file_8kQ2_k.csv"), "k.csv");
        assert_eq!(upload_base_name("9c41e0_k.csv"), "k.csv");
        assert_eq!(upload_base_name("cafe_sales.csv"), "cafe_sales.csv");
        assert_eq!(upload_base_name("old_data_sales.csv"), "old_data_sales.csv");
        assert_eq!(
            upload_base_name("acme_2024_sales.csv"),
            "acme_2024_sales.csv"
        );
        assert!(!same_upload("acme_2023_sales.csv", "acme_2024_sales.csv"));
        assert_eq!(
            upload_base_name("adobe_fy2018_2022_statements.csv"),
            "adobe_fy2018_2022_statements.csv"
        );
        assert!(same_upload(
            "file-7Hq2LmX9-adobe_fy2018_2022_statements.csv",
            "adobe_fy2018_2022_statements.csv"
        ));
        assert!(same_upload("a (1).csv", "a.csv"));
        assert!(same_upload("3fa9c0-a (12).csv", "a (2).csv"));
        assert!(!same_upload("a (1).csv", "a.json"));
        assert!(!same_upload("(1).csv", "a.csv"));
        assert!(!same_upload("a (x).csv", "a.csv"));
    }

    #[test]
    fn reads_year_labels() {
        assert_eq!(parse_year_label("2021"), Some(2021));
        assert_eq!(parse_year_label("FY2021"), Some(2021));
        assert_eq!(parse_year_label("FY 2021"), Some(2021));
        assert_eq!(parse_year_label("fy21"), Some(2021));
        assert_eq!(parse_year_label("21"), None);
        assert_eq!(parse_year_label("Average"), None);
        assert_eq!(parse_year_label("3021"), None);
    }

    #[test]
    fn detects_percent_hints() {
        assert!(percent_hint("Gross margin (%)"));
        assert!(percent_hint("roe_pct"));
        assert!(percent_hint("Margin percent"));
        assert!(!percent_hint("receivables_growth"));
        assert!(!percent_hint("capex"));
    }
}
