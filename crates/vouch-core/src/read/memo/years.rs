//! Year and file-name citations in memo text (contract §5 "Citations").
//!
//! A year is `YYYY` (19xx/20xx), `FYYYYY`, `FY YYYY` or `FYyy` (20yy), not adjacent to a letter,
//! a digit, `$` or `%`, and not joined to digits by `,` or `.` (`1,2019`, `$2065`, `2065.5` are
//! numbers). A range `2019–2024` (or `2019–24`) cites both ends. A file name is a maximal run of
//! non-space characters, stripped of surrounding punctuation and backticks, ending in one of the
//! contract's extensions; URLs are not file names.

/// A year cited at `start..end` (byte offsets) of a text.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct YearMention {
    pub year: i32,
    pub start: usize,
    pub end: usize,
}

fn is_word(c: char) -> bool {
    c.is_alphanumeric()
}

/// Whether the text after a year's digits lets it stand as a year.
fn free_after(chars: &[(usize, char)], j: usize) -> bool {
    match chars.get(j).map(|c| c.1) {
        None => true,
        Some(c) if is_word(c) || c == '$' || c == '%' => false,
        Some(',' | '.') => !chars.get(j + 1).is_some_and(|c| c.1.is_ascii_digit()),
        Some(_) => true,
    }
}

/// Whether the text before position `i` lets a year start there.
fn free_before(chars: &[(usize, char)], i: usize) -> bool {
    if i == 0 {
        return true;
    }
    match chars[i - 1].1 {
        c if is_word(c) || c == '$' || c == '%' => false,
        ',' | '.' => !(i >= 2 && chars[i - 2].1.is_ascii_digit()),
        _ => true,
    }
}

fn digit_run(chars: &[(usize, char)], i: usize) -> usize {
    chars[i..]
        .iter()
        .take_while(|c| c.1.is_ascii_digit())
        .count()
}

fn number_at(chars: &[(usize, char)], i: usize, n: usize) -> i32 {
    chars[i..i + n].iter().fold(0i32, |acc, c| {
        acc * 10 + c.1.to_digit(10).unwrap_or(0) as i32
    })
}

fn end_offset(text: &str, chars: &[(usize, char)], j: usize) -> usize {
    chars.get(j).map_or(text.len(), |c| c.0)
}

/// Every year cited in `text`, in order.
/// `2019–24` or `FY2021-22`: the two-digit end of a range whose first year ends at `at`, and the
/// index after it. The end must be later than the start (`2019-18` is not a range).
fn short_range_end(
    text: &str,
    chars: &[(usize, char)],
    at: usize,
    year: i32,
) -> Option<(YearMention, usize)> {
    let j = at + 1;
    if !chars
        .get(at)
        .is_some_and(|d| matches!(d.1, '-' | '–' | '—'))
        || j >= chars.len()
        || digit_run(chars, j) != 2
        || !free_after(chars, j + 2)
    {
        return None;
    }
    let end = year / 100 * 100 + number_at(chars, j, 2);
    (end > year).then(|| {
        (
            YearMention {
                year: end,
                start: chars[j].0,
                end: end_offset(text, chars, j + 2),
            },
            j + 2,
        )
    })
}

/// Whether a four-digit run ending at `at` is the year of an ISO date (`2026-12-01`): a date
/// stamp, not a year the memo cites as data.
fn iso_date(chars: &[(usize, char)], at: usize) -> bool {
    let dash = |k: usize| chars.get(k).is_some_and(|c| c.1 == '-');
    dash(at)
        && digit_run(chars, at + 1) == 2
        && dash(at + 3)
        && digit_run(chars, at + 4) == 2
        && !chars.get(at + 6).is_some_and(|c| c.1.is_ascii_digit())
}

pub fn years(text: &str) -> Vec<YearMention> {
    // Every form holds ASCII digits.
    if !text.bytes().any(|b| b.is_ascii_digit()) {
        return Vec::new();
    }
    let chars: Vec<(usize, char)> = text.char_indices().collect();
    let mut out = Vec::new();
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i].1;
        // FY forms.
        if matches!(c, 'F' | 'f')
            && chars.get(i + 1).is_some_and(|n| matches!(n.1, 'Y' | 'y'))
            && free_before(&chars, i)
        {
            let mut j = i + 2;
            if chars.get(j).is_some_and(|n| n.1 == ' ' || n.1 == '\u{a0}') {
                j += 1;
            }
            let run = if j < chars.len() {
                digit_run(&chars, j)
            } else {
                0
            };
            let year = match run {
                4 => Some(number_at(&chars, j, 4)).filter(|y| (1900..2100).contains(y)),
                2 => Some(2000 + number_at(&chars, j, 2)),
                _ => None,
            };
            if let Some(year) = year {
                if free_after(&chars, j + run) {
                    out.push(YearMention {
                        year,
                        start: chars[i].0,
                        end: end_offset(text, &chars, j + run),
                    });
                    i = match short_range_end(text, &chars, j + run, year) {
                        Some((end, next)) => {
                            out.push(end);
                            next
                        }
                        None => j + run,
                    };
                    continue;
                }
            }
            i += 2;
            continue;
        }
        if c.is_ascii_digit() {
            let run = digit_run(&chars, i);
            if run == 4
                && free_before(&chars, i)
                && free_after(&chars, i + 4)
                && !iso_date(&chars, i + 4)
            {
                let year = number_at(&chars, i, 4);
                if (1900..2100).contains(&year) {
                    out.push(YearMention {
                        year,
                        start: chars[i].0,
                        end: end_offset(text, &chars, i + 4),
                    });
                    if let Some((end, next)) = short_range_end(text, &chars, i + 4, year) {
                        out.push(end);
                        i = next;
                        continue;
                    }
                }
            }
            i += run;
            continue;
        }
        i += 1;
    }
    out
}

/// A table label that is exactly one year (`2021`, `FY2021`, `FY 2021`, `FY21`).
pub fn year_label(text: &str) -> Option<i32> {
    let t = text.trim();
    match years(t).as_slice() {
        [y] if y.start == 0 && y.end == t.len() => Some(y.year),
        _ => None,
    }
}

/// A file name cited at `start..end` of a text, as written (path and prefix included).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FileMention {
    pub name: String,
    pub start: usize,
    pub end: usize,
}

/// Whether a token is a URL (or another scheme-qualified reference), which is never a file name.
pub fn is_url(token: &str) -> bool {
    let starts = |p: &[u8]| {
        token
            .as_bytes()
            .get(..p.len())
            .is_some_and(|t| t.eq_ignore_ascii_case(p))
    };
    token.contains("://") || starts(b"www.") || starts(b"mailto:") || starts(b"data:")
}

/// Punctuation trimmed from a token's ends before it is read as a URL or file name.
fn strip(c: char) -> bool {
    matches!(
        c,
        '`' | '"'
            | '\''
            | '('
            | ')'
            | '['
            | ']'
            | '{'
            | '}'
            | '<'
            | '>'
            | ','
            | ';'
            | ':'
            | '!'
            | '?'
            | '.'
            | '*'
            | '“'
            | '”'
            | '‘'
            | '’'
            | '«'
            | '»'
    )
}

/// Every file name cited in `text`.
pub fn files(text: &str, extensions: &[String]) -> Vec<FileMention> {
    files_and_urls(text, extensions).0
}

/// The file names cited in `text` and the spans of its URL tokens, from one pass over its
/// white-space separated tokens.
pub fn files_and_urls(
    text: &str,
    extensions: &[String],
) -> (Vec<FileMention>, Vec<(usize, usize)>) {
    let mut files = Vec::new();
    let mut urls = Vec::new();
    // A code span with spaces that ends in a file extension is one name (`statements (1).csv`,
    // as a browser names a second download): its tokens are not read apart.
    let spans = spaced_code_spans(text, extensions);
    let in_span = |s: usize, e: usize| spans.iter().copied().find(|&(a, b)| s < b && e > a);
    // A URL holds `:` or (`www.`) a dot, and a file name's extension a dot: only the white-space
    // separated tokens that hold one are read, found from those bytes rather than by splitting
    // the whole text.
    let bytes = text.as_bytes();
    let mut from = 0;
    while let Some(k) = bytes[from..].iter().position(|&b| b == b'.' || b == b':') {
        let (s, e) = token_around(text, from + k);
        from = e.max(from + k + 1);
        if let Some((a, b)) = in_span(s, e) {
            if files.last().is_none_or(|f: &FileMention| f.start != a) {
                files.push(FileMention {
                    name: text[a..b].to_string(),
                    start: a,
                    end: b,
                });
            }
            continue;
        }
        let raw = &text[s..e];
        let lead = raw.len() - raw.trim_start_matches(strip).len();
        if is_url(&raw[lead..]) {
            urls.push((s, e));
            continue;
        }
        let name = raw[lead..].trim_end_matches(strip);
        if name.is_empty() || !has_extension(name, extensions) {
            continue;
        }
        // `statements (1).csv` written bare: the copy number joins the word before it (not one
        // inside a code span).
        let before = || token_before(text, s).filter(|&(ps, pe)| in_span(ps, pe).is_none());
        if let Some((ps, pe)) = is_copy_suffix(raw.trim_end_matches(strip))
            .then(before)
            .flatten()
        {
            let word = &text[ps..pe];
            let plead = word.len() - word.trim_start_matches(strip).len();
            if plead < word.len() && !word[plead..].ends_with(strip) {
                let start = ps + plead;
                let end = s + raw.trim_end_matches(strip).len();
                files.push(FileMention {
                    name: text[start..end].to_string(),
                    start,
                    end,
                });
                continue;
            }
        }
        files.push(FileMention {
            name: name.to_string(),
            start: s + lead,
            end: s + lead + name.len(),
        });
    }
    (files, urls)
}

/// The white-space separated token of `text` that holds byte `p` (an ASCII byte).
fn token_around(text: &str, p: usize) -> (usize, usize) {
    let e = text[p..]
        .char_indices()
        .find(|(_, c)| c.is_whitespace())
        .map_or(text.len(), |(k, _)| p + k);
    (token_start(text, p), e)
}

/// The token before the one that starts at `s`, if any.
fn token_before(text: &str, s: usize) -> Option<(usize, usize)> {
    let pe = text[..s].trim_end().len();
    (pe > 0).then(|| (token_start(text, pe), pe))
}

/// Where the token running up to byte `at` starts: just past the last white space before it.
fn token_start(text: &str, at: usize) -> usize {
    text[..at]
        .char_indices()
        .rev()
        .find(|(_, c)| c.is_whitespace())
        .map_or(0, |(i, c)| i + c.len_utf8())
}

/// `(1).csv`: a browser's copy number before the extension, all of a token.
fn is_copy_suffix(token: &str) -> bool {
    let Some(rest) = token.strip_prefix('(') else {
        return false;
    };
    let digits = rest.bytes().take_while(u8::is_ascii_digit).count();
    digits > 0 && rest[digits..].starts_with(").")
}

/// The spans (without the backticks) of one-line code spans that hold white space and end in a
/// file extension.
fn spaced_code_spans(text: &str, extensions: &[String]) -> Vec<(usize, usize)> {
    let mut out = Vec::new();
    let mut rest = 0;
    while let Some(open) = text[rest..].find('`').map(|k| rest + k) {
        let Some(close) = text[open + 1..].find('`').map(|k| open + 1 + k) else {
            break;
        };
        let inner = &text[open + 1..close];
        if inner.contains(' ') && !inner.contains('\n') && has_extension(inner.trim(), extensions) {
            let lead = inner.len() - inner.trim_start().len();
            out.push((open + 1 + lead, open + 1 + lead + inner.trim().len()));
        }
        rest = close + 1;
    }
    out
}

/// A link destination that names a file (not a URL, not a fragment), without query or fragment.
pub fn file_in_destination(dest: &str, extensions: &[String]) -> Option<String> {
    let d = dest.trim();
    if d.is_empty() || d.starts_with('#') || is_url(d) {
        return None;
    }
    // Any other `scheme:` (but not a Windows drive letter) is not a file.
    if let Some(i) = d.find(':') {
        if i > 1
            && d[..i]
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || c == '+' || c == '-')
        {
            return None;
        }
    }
    let d = d.split(['?', '#']).next().unwrap_or(d);
    has_extension(d, extensions).then(|| d.to_string())
}

fn has_extension(name: &str, extensions: &[String]) -> bool {
    // As `name.to_ascii_lowercase()` ends with `.` and `e`, without the lowercase copy.
    let name = name.as_bytes();
    extensions.iter().any(|e| {
        let e = e.as_bytes();
        name.len() > e.len() + 1
            && name[name.len() - e.len()..]
                .iter()
                .zip(e)
                .all(|(n, e)| n.to_ascii_lowercase() == *e)
            && name[name.len() - e.len() - 1] == b'.'
    })
}

/// The base name a citation refers to: the last path component, without a `<hex>-` upload prefix.
pub fn base_name(name: &str) -> &str {
    crate::names::upload_base_name(name)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ys(t: &str) -> Vec<i32> {
        years(t).into_iter().map(|y| y.year).collect()
    }

    // The token scan as it was (every token split out), kept to hold the faster scan to it.
    fn reference_files_and_urls(
        text: &str,
        extensions: &[String],
    ) -> (Vec<FileMention>, Vec<(usize, usize)>) {
        let mut files = Vec::new();
        let mut urls = Vec::new();
        // A code span with spaces that ends in a file extension is one name (`statements (1).csv`,
        // as a browser names a second download): its tokens are not read apart.
        let spans = spaced_code_spans(text, extensions);
        let mut prev: Option<(usize, usize)> = None;
        for (s, e) in reference_tokens(text) {
            if let Some(&(a, b)) = spans.iter().find(|&&(a, b)| s < b && e > a) {
                if files.last().is_none_or(|f: &FileMention| f.start != a) {
                    files.push(FileMention {
                        name: text[a..b].to_string(),
                        start: a,
                        end: b,
                    });
                }
                prev = None;
                continue;
            }
            let raw = &text[s..e];
            let before = prev.replace((s, e));
            // A URL holds `:` or (`www.`) a dot, and a file name's extension a dot.
            if !raw.bytes().any(|b| b == b'.' || b == b':') {
                continue;
            }
            let lead = raw.len() - raw.trim_start_matches(strip).len();
            if is_url(&raw[lead..]) {
                urls.push((s, e));
                continue;
            }
            let name = raw[lead..].trim_end_matches(strip);
            if name.is_empty() || !has_extension(name, extensions) {
                continue;
            }
            // `statements (1).csv` written bare: the copy number joins the word before it.
            if let Some((ps, pe)) = before.filter(|_| is_copy_suffix(raw.trim_end_matches(strip))) {
                let word = &text[ps..pe];
                let plead = word.len() - word.trim_start_matches(strip).len();
                if plead < word.len() && !word[plead..].ends_with(strip) {
                    let start = ps + plead;
                    let end = s + raw.trim_end_matches(strip).len();
                    files.push(FileMention {
                        name: text[start..end].to_string(),
                        start,
                        end,
                    });
                    continue;
                }
            }
            files.push(FileMention {
                name: name.to_string(),
                start: s + lead,
                end: s + lead + name.len(),
            });
        }
        (files, urls)
    }

    /// The white-space separated tokens of `text`, as byte spans.
    fn reference_tokens(text: &str) -> impl Iterator<Item = (usize, usize)> + '_ {
        let bytes = text.as_bytes();
        let mut i = 0;
        std::iter::from_fn(move || {
            let rest = &text[i..];
            let start = i + (rest.len() - rest.trim_start().len());
            if start == bytes.len() {
                i = start;
                return None;
            }
            let tail = &text[start..];
            let end = tail
                .char_indices()
                .find(|(_, c)| c.is_whitespace())
                .map_or(bytes.len(), |(k, _)| start + k);
            i = end;
            Some((start, end))
        })
    }

    proptest::proptest! {
        #[test]
        fn the_byte_scan_finds_what_the_token_split_found(
            t in "([a-z]{1,6}|[ .:`()1]|\\.csv|\\.md|https://x\\.io|mailto:a|data:x|\u{a0}|é){0,40}"
        ) {
            let ext = vec!["csv".to_string(), "md".to_string()];
            let (f, u) = files_and_urls(&t, &ext);
            let (rf, ru) = reference_files_and_urls(&t, &ext);
            let key = |v: &[FileMention]| v.iter().map(|m| (m.name.clone(), m.start, m.end)).collect::<Vec<_>>();
            proptest::prop_assert_eq!(key(&f), key(&rf));
            proptest::prop_assert_eq!(u, ru);
        }
    }

    fn names(t: &str) -> Vec<String> {
        files(t, &["csv".to_string(), "md".to_string()])
            .into_iter()
            .map(|f| f.name)
            .collect()
    }

    #[test]
    fn a_file_name_with_a_copy_number_is_one_name() {
        assert_eq!(
            names("Source: `larkspur_statements (1).csv` (6 rows)."),
            vec!["larkspur_statements (1).csv"]
        );
        assert_eq!(
            names("Source: larkspur_statements (1).csv, six rows."),
            vec!["larkspur_statements (1).csv"]
        );
        assert_eq!(names("see `memo.md` and `a.csv`"), vec!["memo.md", "a.csv"]);
        // A parenthesis after a sentence's end is not a copy number.
        assert_eq!(names("done. (1).csv"), vec!["1).csv"]);
    }

    #[test]
    fn finds_every_year_form() {
        assert_eq!(ys("in 2021, revenue"), vec![2021]);
        assert_eq!(
            ys("FY2022 and FY 2023 and FY24 and fy2025"),
            vec![2022, 2023, 2024, 2025]
        );
        assert_eq!(ys("(2021)"), vec![2021]);
        assert_eq!(ys("fiscal 2022."), vec![2022]);
    }

    #[test]
    fn numbers_that_look_like_years_are_not_years() {
        assert!(ys("1,2019").is_empty());
        assert!(ys("$2065").is_empty());
        assert!(ys("2065.5").is_empty());
        assert!(ys("2021%").is_empty());
        assert!(ys("A2021 2021E 12021 20215").is_empty());
        assert!(ys("FY2021A").is_empty());
        assert!(ys("3,2021.5").is_empty());
    }

    #[test]
    fn a_range_cites_both_ends() {
        assert_eq!(ys("2019–2024"), vec![2019, 2024]);
        assert_eq!(ys("2019-24"), vec![2019, 2024]);
        assert_eq!(ys("FY2021–FY2025"), vec![2021, 2025]);
        assert_eq!(ys("the FY2021-22 step-up"), vec![2021, 2022]);
        assert_eq!(ys("FY2021–22"), vec![2021, 2022]);
        assert_eq!(ys("FY2021-20"), vec![2021]);
        assert_eq!(
            ys("Generated 2026-12-01 23:58 UTC, on FY2024 data"),
            vec![2024]
        );
    }

    #[test]
    fn year_labels_are_whole_cells() {
        assert_eq!(year_label(" FY2021 "), Some(2021));
        assert_eq!(year_label("FY21"), Some(2021));
        assert_eq!(year_label("2021 (est)"), None);
        assert_eq!(year_label("Metric"), None);
    }

    #[test]
    fn file_names_are_stripped_of_punctuation_and_urls_are_not_files() {
        let exts: Vec<String> = ["csv", "md", "json"]
            .iter()
            .map(|s| s.to_string())
            .collect();
        let f = files(
            "see (`data.csv`), https://x.org/a.csv and /mnt/data/ab12-run.json.",
            &exts,
        );
        let names: Vec<_> = f.iter().map(|m| m.name.as_str()).collect();
        assert_eq!(names, vec!["data.csv", "/mnt/data/ab12-run.json"]);
        assert_eq!(base_name("/mnt/data/ab12-run.json"), "run.json");
        assert_eq!(base_name("not-hex.csv"), "not-hex.csv");
        assert_eq!(
            file_in_destination("a/b.csv#x", &exts).as_deref(),
            Some("a/b.csv")
        );
        assert_eq!(file_in_destination("https://e.com/b.csv", &exts), None);
        assert_eq!(file_in_destination("#kpi", &exts), None);
    }
}
