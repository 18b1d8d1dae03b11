//! Character classes and case-insensitive literals shared by the memo's hand-written scanners
//! ([`super::numbers`] and the heading numbering in [`crate::checks::memo::sections`]).
//!
//! The scanners replaced two regular expressions whose compilation alone cost a millisecond per
//! process (docs/performance.md). Their classes are defined here once:
//! - white space is Unicode `White_Space` ([`char::is_whitespace`], what `\s` meant);
//! - a digit is an ASCII digit: a number printed with other decimal digits (`٣`) is not read as a
//!   figure, and such digits count as letters next to one (docs/decisions.md);
//! - a word character is a letter or digit of any script, or `_`;
//! - letters compare under Unicode simple case folding, so `K` (KELVIN SIGN) reads as `k` and `ſ`
//!   (LONG S) as `s`, as a case-insensitive regular expression would.

/// The character starting at byte `i`, if any.
#[inline]
pub fn char_at(text: &str, i: usize) -> Option<char> {
    text.get(i..).and_then(|s| s.chars().next())
}

#[inline]
pub fn is_ws(c: char) -> bool {
    c.is_whitespace()
}

#[inline]
pub fn is_word(c: char) -> bool {
    c.is_alphanumeric() || c == '_'
}

/// Whether `c` matches the ASCII lowercase letter or symbol `l` under simple case folding.
#[inline]
pub fn eq_fold(c: char, l: u8) -> bool {
    if c.is_ascii() {
        return c.to_ascii_lowercase() as u32 == l as u32;
    }
    matches!((c, l), ('\u{212A}', b'k') | ('\u{17F}', b's'))
}

/// Bytes of white space starting at `i`.
pub fn ws_len(text: &str, i: usize) -> usize {
    let rest = &text[i..];
    rest.len() - rest.trim_start_matches(is_ws).len()
}

/// Matches the ASCII pattern `lit` at byte `i` case-insensitively, where a space in `lit` stands for
/// one or more white-space characters (taken greedily). Returns the end of the match.
pub fn literal(text: &str, mut i: usize, lit: &str) -> Option<usize> {
    for &l in lit.as_bytes() {
        if l == b' ' {
            let n = ws_len(text, i);
            if n == 0 {
                return None;
            }
            i += n;
        } else {
            let c = char_at(text, i)?;
            if !eq_fold(c, l) {
                return None;
            }
            i += c.len_utf8();
        }
    }
    Some(i)
}

/// Whether a word ends at byte `i`: the next character is not a word character (or there is none).
#[inline]
pub fn word_ends(text: &str, i: usize) -> bool {
    !char_at(text, i).is_some_and(is_word)
}

/// Bytes of ASCII digits starting at `i`.
#[inline]
pub fn digits(text: &str, i: usize) -> usize {
    text.as_bytes()[i.min(text.len())..]
        .iter()
        .take_while(|b| b.is_ascii_digit())
        .count()
}
