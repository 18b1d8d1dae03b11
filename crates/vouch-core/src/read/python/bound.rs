//! A cheap upper bound on a script's nesting, from its bytes alone, so that the exact token-level
//! nesting check in [`super`] (a second full lex of the file) runs only when a script
//! could come near CPython's limits.
//!
//! The exact check counts, per logical line, open brackets and operator/keyword tokens, and
//! counts indentation levels. Here a single byte scan finds positions that are certainly ends of
//! logical lines (a newline outside strings, comments and brackets, not continued by a
//! backslash), and bounds each stretch between two of them by its bytes: every bracket token is
//! one of its `([{` bytes, every operator token holds at least one punctuation byte and every
//! keyword is a whole word. An indentation level needs one more leading whitespace character than
//! the level it opens in (ruff compares character counts), so the widest leading whitespace of any
//! line bounds the levels.
//!
//! The bound is sound only if every claimed line end really is one, so the scan gives up (returns
//! `None`, and the exact check runs) on anything whose lexing it does not mirror exactly: carriage
//! returns, form feeds, NUL and other control bytes, non-ASCII text outside strings and comments,
//! unterminated strings, a closing bracket without an opening one, a backslash that is not a line
//! continuation after code, and f-/t-string interpolations holding quotes, backslashes, comments,
//! newlines or unbalanced brackets.

/// Upper bounds on what the exact nesting check measures.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Bound {
    /// Indentation levels open at once.
    pub indent: usize,
    /// Brackets open at once within one logical line.
    pub brackets: usize,
    /// The exact check's expression-depth measure (open brackets plus operator and keyword tokens
    /// since the last comma at each level, plus one), within one logical line.
    pub expression: usize,
}

/// A bound on the script's nesting, or `None` when the scan cannot vouch for its own reading.
pub fn bound(text: &str) -> Option<Bound> {
    scan(text, None)
}

/// [`bound`], and in `starts` the byte offsets of the lines that certainly start a statement at
/// column 0: they follow a certain end of a logical line and start with an ASCII letter, `_` or
/// `@`. Only meaningful when the bound is `Some`.
pub fn bound_with_starts(text: &str, starts: &mut Vec<usize>) -> Option<Bound> {
    scan(text, Some(starts))
}

fn scan(text: &str, mut starts: Option<&mut Vec<usize>>) -> Option<Bound> {
    let b = text.as_bytes();
    let mut found = Bound::default();
    let mut depth = 0usize;
    let mut segment_start = 0usize;
    // Bracket tokens in the current stretch: `([{` in code and in f-string interpolations.
    let mut opens = 0usize;
    let mut i = leading_whitespace(b, 0, &mut found);
    while i < b.len() {
        match CODE[usize::from(b[i])] {
            Class::Plain => {
                // Runs of plain bytes in a loop of their own: one branch per byte rather than
                // the dispatch on the class.
                i += 1;
                while i < b.len() && CODE[usize::from(b[i])] == Class::Plain {
                    i += 1;
                }
            }
            Class::Newline => {
                i += 1;
                if depth == 0 {
                    end_segment(&b[segment_start..i], opens, &mut found);
                    segment_start = i;
                    opens = 0;
                    if let (Some(starts), Some(c)) = (starts.as_deref_mut(), b.get(i)) {
                        if c.is_ascii_alphabetic() || *c == b'_' || *c == b'@' {
                            starts.push(i);
                        }
                    }
                }
                i = leading_whitespace(b, i, &mut found);
            }
            Class::Hash => i = skip_comment(b, i)?,
            Class::Quote => {
                let (end, inner) = skip_string(b, i)?;
                opens += inner;
                i = end;
            }
            Class::Open => {
                depth += 1;
                opens += 1;
                i += 1;
            }
            Class::Close => {
                depth = depth.checked_sub(1)?;
                i += 1;
            }
            Class::Backslash => {
                // A continuation after code on the same line; one at a line's start continues
                // the indentation, which the bound does not model.
                let line_start = b[..i]
                    .iter()
                    .rposition(|&c| c == b'\n')
                    .map_or(0, |p| p + 1);
                let after_code = b[line_start..i].iter().any(|&c| c != b' ' && c != b'\t');
                if b.get(i + 1) != Some(&b'\n') || !after_code {
                    return None;
                }
                i += 2;
            }
            Class::Unmodelled => return None,
        }
    }
    end_segment(&b[segment_start..], opens, &mut found);
    Some(found)
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Class {
    Plain,
    Newline,
    Hash,
    Quote,
    Open,
    Close,
    Backslash,
    Unmodelled,
}

/// How the scan treats each byte outside strings and comments.
const CODE: [Class; 256] = {
    let mut t = [Class::Unmodelled; 256];
    let mut c = 0x20;
    while c < 0x7f {
        t[c] = Class::Plain;
        c += 1;
    }
    t[b'\t' as usize] = Class::Plain;
    t[b'\n' as usize] = Class::Newline;
    t[b'#' as usize] = Class::Hash;
    t[b'"' as usize] = Class::Quote;
    t[b'\'' as usize] = Class::Quote;
    t[b'(' as usize] = Class::Open;
    t[b'[' as usize] = Class::Open;
    t[b'{' as usize] = Class::Open;
    t[b')' as usize] = Class::Close;
    t[b']' as usize] = Class::Close;
    t[b'}' as usize] = Class::Close;
    t[b'\\' as usize] = Class::Backslash;
    t
};

/// Bytes that need a look inside a string literal: quotes, backslashes, braces, newlines and
/// the bytes the scan does not model.
const IN_STRING: [bool; 256] = {
    let mut t = [false; 256];
    t[b'"' as usize] = true;
    t[b'\'' as usize] = true;
    t[b'\\' as usize] = true;
    t[b'{' as usize] = true;
    t[b'}' as usize] = true;
    t[b'\n' as usize] = true;
    t[b'\r' as usize] = true;
    t[0x0c] = true;
    t[0] = true;
    t
};

/// Skip a line's leading spaces and tabs from `start`, widening the indentation bound.
fn leading_whitespace(b: &[u8], start: usize, found: &mut Bound) -> usize {
    let mut i = start;
    while i < b.len() && matches!(b[i], b' ' | b'\t') {
        i += 1;
    }
    found.indent = found.indent.max(i - start);
    i
}

/// Widen `found` by one stretch of whole lines between two certain logical-line ends, holding
/// `opens` bracket tokens. Every counted token takes at least one byte, so a short stretch is
/// bounded by its length; a long one by its punctuation bytes and words.
fn end_segment(segment: &[u8], opens: usize, found: &mut Bound) {
    found.brackets = found.brackets.max(opens);
    let expression = if segment.len() < TIGHTEN_ABOVE {
        1 + segment.len()
    } else {
        1 + tokens_at_most(segment)
    };
    found.expression = found.expression.max(expression);
}

/// Stretches at least this long are counted token by token rather than by length.
const TIGHTEN_ABOVE: usize = 512;

/// Skip a comment up to (not including) its newline.
fn skip_comment(b: &[u8], start: usize) -> Option<usize> {
    let mut i = start;
    while i < b.len() && b[i] != b'\n' {
        if is_unmodelled(b[i]) {
            return None;
        }
        i += 1;
    }
    Some(i)
}

/// Bytes whose handling by the lexer the scan does not mirror, anywhere in the text.
fn is_unmodelled(c: u8) -> bool {
    matches!(c, b'\r' | 0x0c | 0)
}

/// Skip the string literal whose opening quote is at `quote` (its prefix is the word before it):
/// the offset after it, and the brackets opened in its interpolations.
fn skip_string(b: &[u8], quote: usize) -> Option<(usize, usize)> {
    let word_start = b[..quote]
        .iter()
        .rposition(|c| !(c.is_ascii_alphanumeric() || *c == b'_'))
        .map_or(0, |p| p + 1);
    let prefix = &b[word_start..quote];
    // `1f"…"` is a number and an f-string: a word that starts with a digit is not modelled.
    if prefix.first().is_some_and(u8::is_ascii_digit) {
        return None;
    }
    let interpolated = is_prefix(prefix)
        && prefix
            .iter()
            .any(|c| matches!(c, b'f' | b'F' | b't' | b'T'));
    let q = b[quote];
    let triple = b.get(quote + 1) == Some(&q) && b.get(quote + 2) == Some(&q);
    let mut i = if triple { quote + 3 } else { quote + 1 };
    let mut opens = 0usize;
    loop {
        let c = *b.get(i)?;
        if !IN_STRING[usize::from(c)] {
            i += 1;
            continue;
        }
        if is_unmodelled(c) {
            return None;
        }
        match c {
            b'\\' => {
                if interpolated && matches!(b.get(i + 1), Some(b'{' | b'}')) {
                    return None;
                }
                if is_unmodelled(*b.get(i + 1)?) {
                    return None;
                }
                i += 2;
            }
            b'\n' if !triple => return None,
            c if c == q => {
                if !triple {
                    return Some((i + 1, opens));
                }
                if b.get(i + 1) == Some(&q) && b.get(i + 2) == Some(&q) {
                    return Some((i + 3, opens));
                }
                i += 1;
            }
            b'{' if interpolated => {
                if b.get(i + 1) == Some(&b'{') {
                    i += 2;
                } else {
                    let (end, inner) = skip_interpolation(b, i)?;
                    opens += inner;
                    i = end;
                }
            }
            b'}' if interpolated => {
                if b.get(i + 1) != Some(&b'}') {
                    return None;
                }
                i += 2;
            }
            _ => i += 1,
        }
    }
}

/// Skip an f-string interpolation `{…}` that holds no quote, backslash, comment or newline (the
/// format spec included), with balanced brackets: the offset after it, and its bracket tokens
/// (its own braces included).
fn skip_interpolation(b: &[u8], open: usize) -> Option<(usize, usize)> {
    let mut depth = 0usize;
    let mut opens = 1usize;
    let mut i = open + 1;
    loop {
        match *b.get(i)? {
            b'(' | b'[' | b'{' => {
                depth += 1;
                opens += 1;
            }
            b'}' if depth == 0 => return Some((i + 1, opens)),
            b')' | b']' | b'}' => depth = depth.checked_sub(1)?,
            b'"' | b'\'' | b'\\' | b'#' | b'\n' | b'\r' | 0x0c | 0 => return None,
            _ => {}
        }
        i += 1;
    }
}

/// Whether `word` is a string prefix (`r`, `b`, `u`, `f`, `t`, `rb`, `fr`, `tr`, … in any case).
/// Any other word before a quote is a name or keyword token of its own.
fn is_prefix(word: &[u8]) -> bool {
    match word {
        [a] => matches!(a.to_ascii_lowercase(), b'r' | b'u' | b'b' | b'f' | b't'),
        [a, b] => matches!(
            [a.to_ascii_lowercase(), b.to_ascii_lowercase()],
            [b'r', b'b' | b'f' | b't'] | [b'b' | b'f' | b't', b'r']
        ),
        _ => false,
    }
}

/// At most how many bracket, operator and keyword tokens `segment` holds: each bracket or
/// operator token holds a punctuation byte, and each keyword is a whole word.
fn tokens_at_most(segment: &[u8]) -> usize {
    // Branch-free over a byte-class table: words and punctuation alternate too often for
    // branches to predict.
    let mut count = 0usize;
    let mut in_word = false;
    for &c in segment {
        let class = TOKEN_CLASS[usize::from(c)];
        let word = class == WORD;
        count += usize::from(class == PUNCTUATION) + usize::from(word & !in_word);
        in_word = word;
    }
    count
}

const WORD: u8 = 1;
const PUNCTUATION: u8 = 2;

/// [`tokens_at_most`]'s byte classes: ASCII letters, digits and `_` are word bytes; space, tab
/// and newline separate; every other byte is punctuation (counted once each).
const TOKEN_CLASS: [u8; 256] = {
    let mut t = [PUNCTUATION; 256];
    let mut c = 0;
    while c < 256 {
        let b = c as u8;
        if b.is_ascii_alphanumeric() || b == b'_' {
            t[c] = WORD;
        } else if b == b' ' || b == b'\t' || b == b'\n' {
            t[c] = 0;
        }
        c += 1;
    }
    t
};

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// The branching count `tokens_at_most` replaced, as its oracle.
    fn tokens_by_branches(segment: &[u8]) -> usize {
        let mut count = 0usize;
        let mut in_word = false;
        for &c in segment {
            let word = c.is_ascii_alphanumeric() || c == b'_';
            if word {
                count += usize::from(!in_word);
            } else if !matches!(c, b' ' | b'\t' | b'\n') {
                count += 1;
            }
            in_word = word;
        }
        count
    }

    proptest! {
        #[test]
        fn the_token_count_is_the_branching_count(segment in proptest::collection::vec(any::<u8>(), 0..300)) {
            prop_assert_eq!(tokens_at_most(&segment), tokens_by_branches(&segment));
        }
    }
    use ruff_python_ast::token::TokenKind;
    use ruff_python_parser::lexer::lex;
    use ruff_python_parser::Mode;

    /// What the exact check in `python` measures, as maxima over the whole text.
    fn exact(text: &str) -> Bound {
        let mut lexer = lex(text, Mode::Module);
        let mut counters: Vec<usize> = vec![0];
        let mut indent = 0usize;
        let mut found = Bound::default();
        loop {
            match lexer.next_token() {
                TokenKind::EndOfFile => return found,
                TokenKind::Newline => counters = vec![0],
                TokenKind::Indent => {
                    indent += 1;
                    found.indent = found.indent.max(indent);
                }
                TokenKind::Dedent => indent = indent.saturating_sub(1),
                TokenKind::Lpar | TokenKind::Lsqb | TokenKind::Lbrace => {
                    counters.push(0);
                    found.brackets = found.brackets.max(counters.len() - 1);
                }
                TokenKind::Rpar | TokenKind::Rsqb | TokenKind::Rbrace => {
                    // Pop, but never the line's own level.
                    counters.truncate(counters.len().max(2) - 1);
                }
                TokenKind::Comma => *counters.last_mut().unwrap() = 0,
                k if k.is_operator() || k.is_keyword() => {
                    *counters.last_mut().unwrap() += 1;
                }
                _ => {}
            }
            let depth = counters.iter().sum::<usize>() + counters.len();
            found.expression = found.expression.max(depth);
        }
    }

    fn assert_bounds(text: &str) {
        if let Some(b) = bound(text) {
            let e = exact(text);
            assert!(
                e.indent <= b.indent && e.brackets <= b.brackets && e.expression <= b.expression,
                "bound {b:?} below exact {e:?} for {text:?}"
            );
        }
    }

    #[test]
    fn the_northstar_script_is_bounded_well_inside_the_limits() {
        let path = concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../../fixtures/northstar/bundle/analyze_financials.py"
        );
        let text = std::fs::read_to_string(path).unwrap();
        let b = bound(&text).expect("the scan reads the Northstar script");
        eprintln!("northstar bound {b:?}");
        assert!(
            b.indent <= 100 && b.brackets <= 200 && b.expression <= 3000,
            "{b:?}"
        );
        assert_bounds(&text);
    }

    #[test]
    fn strings_comments_and_continuations_are_read_like_the_lexer() {
        for text in [
            "x = (1,\n 2)\ny = [a for a in b]\n",
            "s = 'a(b' + \"c)d\" + '''e\n(f''' + \"\"\"g\"h\"\"\"\n",
            r"s = 'it\'s (' + r'\\' + ')' + b'\x28'
",
            "t = f\"{a} and {b:,.2f} {{x}} {c!r}\" + f'''{d}\n{e}'''\n",
            "u = rb'(' + Rb\"[\" + BR'{'\n",
            "x = 1 + \\\n    2\n",
            "# comment (\nx = 1  # ((((\n",
            "if a:\n    if b:\n        pass\n    c\n",
            "x = print\"(\"\n",
            "x = \"a\"f\"{b}\"\n",
            "def f(x=(1, [2, {3: 4}])):\n    return x\n",
        ] {
            assert!(bound(text).is_some(), "{text:?}");
            assert_bounds(text);
        }
    }

    #[test]
    fn what_the_scan_does_not_model_is_left_to_the_exact_check() {
        for text in [
            "x = 1\r\n",
            "x = f\"{d['a']}\"\n",
            "x = f\"{d[\"a\"]}\"\n",
            "x = f\"{x:#x}\"\n",
            "x = f\"a}\"\n",
            "x = f\"\\{a}\"\n",
            "x = 'abc\n",
            "x = \"\"\"abc\n",
            "x = )\n",
            "if a:\n    \\\n        b\n",
            "x = 1 \\ 2\n",
            "caf\u{e9} = 1\n",
            "x = 1f'(('\n",
            "x = 1\x0c\n",
        ] {
            assert_eq!(bound(text), None, "{text:?}");
        }
    }

    const PIECES: &[&str] = &[
        "(", ")", "[", "]", "{", "}", "\"", "'", "\"\"\"", "'''", "f\"", "f'", "rb'", "F\"\"\"",
        "t'", "\\", "\n", "\\\n", " ", "    ", "\t", "#", "x", "if", "not", "1", "+", "-", ",",
        ":", "=", ".", "{{", "}}", "\\{", "lambda", "1f'", "u", "r", "b", "\\'", "\\\"", "!r",
        "else", "é", "\r",
    ];

    /// Mostly well-formed pieces, so that the scan usually reads the text and the bound is tested.
    const CODE_PIECES: &[&str] = &[
        "(a, b)",
        "[1]",
        "{x: y}",
        "'s'",
        "\"t\"",
        "f\"{a}\"",
        "f'{b:,.2f} {{c}}'",
        r"rb'\x'",
        "\"\"\"doc\nmore\"\"\"",
        "'''x\n'''",
        "\n",
        "\n    ",
        "\n\t",
        "# c (",
        "x = ",
        "if a:",
        "not ",
        "+",
        "-",
        "lambda: ",
        " \\\n",
        "(",
        ")",
        "[",
        "]",
        "{",
        "}",
        ",",
        "a.b",
        "f(x)",
        "f'{(a, [b])}'",
        "F\"\"\"{x}\n\"\"\"",
        "u'('",
        " ",
        "1if x else 2",
    ];

    #[test]
    fn code_like_text_is_mostly_read_by_the_scan() {
        let mut seed = 0x2545_f491_4f6c_dd1du64;
        let mut read = 0;
        for _ in 0..1000 {
            let mut text = String::new();
            seed = seed.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1);
            for _ in 0..(seed >> 33) % 40 {
                seed = seed.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1);
                let piece = CODE_PIECES[(seed >> 33) as usize % CODE_PIECES.len()];
                // Keep brackets balanced enough that most texts are read.
                if !matches!(piece, ")" | "]" | "}") {
                    text.push_str(piece);
                }
            }
            read += usize::from(bound(&text).is_some());
            assert_bounds(&text);
        }
        assert!(read > 500, "only {read} of 1000 read");
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(4000))]

        #[test]
        fn the_bound_is_never_below_what_the_lexer_counts_in_code_like_text(
            pieces in proptest::collection::vec(0..CODE_PIECES.len(), 0..120)
        ) {
            let text: String = pieces.iter().map(|&i| CODE_PIECES[i]).collect();
            assert_bounds(&text);
        }

        #[test]
        fn the_bound_is_never_below_what_the_lexer_counts(
            pieces in proptest::collection::vec(0..PIECES.len(), 0..80)
        ) {
            let text: String = pieces.iter().map(|&i| PIECES[i]).collect();
            assert_bounds(&text);
        }
    }
}
