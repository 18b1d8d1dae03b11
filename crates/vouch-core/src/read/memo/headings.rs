//! The heading grammar of the memo (contract §5 "Sections"): a heading's leading numbering
//! (`3.`, `3)`, `III.`, `A.`, `Section 3:`) and the key a heading folds to.

use super::lex::{char_at, digits, eq_fold, literal, ws_len};
use crate::names::fold;

/// The end of a heading's leading numbering, if it has one. The grammar, choices tried in order:
///
/// ```text
/// ws* (section␣ | part␣ | chapter␣ | § ws*)?  token  ws* [-–—:]? ws+
/// token = (? d+ (.d+)* [.):]?   |   (? [ivxlcdm]+ [.):]   |   (? letter [.)]
/// ```
///
/// (`␣` one or more white-space characters, `d` an ASCII digit, letters case-insensitive; see
/// [`super::lex`]). The trailing white space is what tells `3. Profitability` from `3.5%`.
pub fn numbering_end(t: &str) -> Option<usize> {
    let at = ws_len(t, 0);
    let prefixed = ["section ", "part ", "chapter "]
        .iter()
        .find_map(|l| literal(t, at, l))
        .or_else(|| {
            t[at..]
                .starts_with('§')
                .then(|| at + '§'.len_utf8() + ws_len(t, at + '§'.len_utf8()))
        });
    prefixed
        .into_iter()
        .chain([at])
        .find_map(|p| numbering_token(t, p))
}

/// A numbering token at `p` followed by its separator; the end of both.
fn numbering_token(t: &str, p: usize) -> Option<usize> {
    let b = t.as_bytes();
    let p = p + usize::from(b.get(p) == Some(&b'('));
    let closes = |e: usize, set: &[u8]| b.get(e).is_some_and(|c| set.contains(c));
    // Arabic: `3`, `3.1`, `3.`, `3)`, `3:`.
    let d = digits(t, p);
    if d > 0 {
        let mut e = p + d;
        while b.get(e) == Some(&b'.') && digits(t, e + 1) > 0 {
            e += 1 + digits(t, e + 1);
        }
        if closes(e, b".):") {
            e += 1;
        }
        if let Some(end) = separator(t, e) {
            return Some(end);
        }
    }
    // Roman: `III.`, `iv)`.
    let r = b[p..]
        .iter()
        .take_while(|c| b"ivxlcdm".contains(&c.to_ascii_lowercase()))
        .count();
    if r > 0 && closes(p + r, b".):") {
        if let Some(end) = separator(t, p + r + 1) {
            return Some(end);
        }
    }
    // A letter: `A.`, `b)`.
    let c = char_at(t, p)?;
    if (c.is_ascii_alphabetic() || eq_fold(c, b'k') || eq_fold(c, b's'))
        && closes(p + c.len_utf8(), b".)")
    {
        return separator(t, p + c.len_utf8() + 1);
    }
    None
}

/// `ws* [-–—:]? ws+` at `e`: the end of the separator after a numbering token.
fn separator(t: &str, e: usize) -> Option<usize> {
    let w = ws_len(t, e);
    if let Some(c) = char_at(t, e + w).filter(|c| matches!(c, '-' | '–' | '—' | ':')) {
        let after = e + w + c.len_utf8();
        let w2 = ws_len(t, after);
        if w2 > 0 {
            return Some(after + w2);
        }
    }
    (w > 0).then_some(e + w)
}

/// The length of a heading's leading numbering (`3. `, `III. `, `Section 3: `), 0 when none.
pub fn numbering_len(text: &str) -> usize {
    let lead = text.len() - text.trim_start().len();
    numbering_end(text.trim_start()).map_or(0, |e| lead + e)
}

/// The folded name a heading (or a line that looks like one) stands for.
pub fn heading_key(text: &str) -> String {
    let t = text.trim();
    let t = numbering_end(t).map_or(t, |e| &t[e..]);
    // `&` reads as `and` (`Liquidity & leverage`): folding does that.
    fold(t)
}
