//! Name folding: the one function that turns a header, label, metric or item name into the form
//! every comparison uses (contract preamble). Synonyms live in the spec, not here.

/// Fold a name: drop one trailing parenthesised/bracketed unit, lowercase, collapse every run of
/// non-alphanumerics into `_`, trim `_`, then drop one `_pct`/`_percent`/`_perc`/`_x`/`_times` ending.
pub fn fold(name: &str) -> String {
    let mut s = name.trim();
    if let Some(stripped) = strip_unit(s) {
        s = stripped.trim_end();
    }
    let mut out = String::with_capacity(s.len());
    let mut pending_sep = false;
    for ch in s.chars() {
        if ch.is_alphanumeric() {
            if pending_sep && !out.is_empty() {
                out.push('_');
            }
            pending_sep = false;
            out.extend(ch.to_lowercase());
        } else {
            pending_sep = true;
        }
    }
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

/// The folded tokens of a name (split on `_`).
pub fn tokens(folded: &str) -> impl Iterator<Item = &str> {
    folded.split('_').filter(|t| !t.is_empty())
}

#[cfg(test)]
mod tests {
    use super::*;

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
    fn detects_percent_hints() {
        assert!(percent_hint("Gross margin (%)"));
        assert!(percent_hint("roe_pct"));
        assert!(percent_hint("Margin percent"));
        assert!(!percent_hint("receivables_growth"));
        assert!(!percent_hint("capex"));
    }
}
