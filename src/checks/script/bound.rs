//! A cheap upper bound on a script's nesting, from its bytes alone, so that the exact token-level
//! nesting check in [`super::python`] (a second full lex of the file) runs only when a script
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
    let b = text.as_bytes();
    let mut found = Bound::default();
    let mut depth = 0usize;
    let mut segment_start = 0usize;
    let mut i = 0usize;
    while i < b.len() {
        match b[i] {
            b'\n' => {
                i += 1;
                if depth == 0 {
                    measure(&b[segment_start..i], &mut found);
                    segment_start = i;
                }
            }
            b'#' => i = skip_comment(b, i)?,
            b'"' | b'\'' => i = skip_string(b, i)?,
            b'(' | b'[' | b'{' => {
                depth += 1;
                i += 1;
            }
            b')' | b']' | b'}' => {
                depth = depth.checked_sub(1)?;
                i += 1;
            }
            b'\\' => {
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
            b' ' | b'\t' | 0x21..=0x7e => i += 1,
            _ => return None,
        }
    }
    measure(&b[segment_start..], &mut found);
    Some(found)
}

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

/// Skip the string literal whose opening quote is at `quote`; its prefix is the word before it.
fn skip_string(b: &[u8], quote: usize) -> Option<usize> {
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
    loop {
        let c = *b.get(i)?;
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
                    return Some(i + 1);
                }
                if b.get(i + 1) == Some(&q) && b.get(i + 2) == Some(&q) {
                    return Some(i + 3);
                }
                i += 1;
            }
            b'{' if interpolated => {
                if b.get(i + 1) == Some(&b'{') {
                    i += 2;
                } else {
                    i = skip_interpolation(b, i)?;
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
/// format spec included), with balanced brackets.
fn skip_interpolation(b: &[u8], open: usize) -> Option<usize> {
    let mut depth = 0usize;
    let mut i = open + 1;
    loop {
        match *b.get(i)? {
            b'(' | b'[' | b'{' => depth += 1,
            b'}' if depth == 0 => return Some(i + 1),
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

/// Widen `found` by one stretch of whole lines between two certain logical-line ends.
fn measure(segment: &[u8], found: &mut Bound) {
    let mut opens = 0usize;
    let mut punctuation = 0usize;
    let mut words = 0usize;
    let mut in_word = false;
    let mut at_line_start = true;
    let mut leading = 0usize;
    for &c in segment {
        match c {
            b' ' | b'\t' => {
                in_word = false;
                if at_line_start {
                    leading += 1;
                }
            }
            b'\n' => {
                in_word = false;
                found.indent = found.indent.max(leading);
                at_line_start = true;
                leading = 0;
            }
            c if c.is_ascii_alphanumeric() || c == b'_' => {
                at_line_start = false;
                if !in_word {
                    words += 1;
                    in_word = true;
                }
            }
            c => {
                at_line_start = false;
                in_word = false;
                punctuation += 1;
                if matches!(c, b'(' | b'[' | b'{') {
                    opens += 1;
                }
            }
        }
    }
    found.indent = found.indent.max(leading);
    found.brackets = found.brackets.max(opens);
    found.expression = found.expression.max(1 + punctuation + words);
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
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
                    if counters.len() > 1 {
                        counters.pop();
                    }
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
            "/fixtures/northstar/bundle/analyze_financials.py"
        );
        let text = std::fs::read_to_string(path).unwrap();
        let b = bound(&text).expect("the scan reads the Northstar script");
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

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(4000))]

        #[test]
        fn the_bound_is_never_below_what_the_lexer_counts(
            pieces in proptest::collection::vec(0..PIECES.len(), 0..80)
        ) {
            let text: String = pieces.iter().map(|&i| PIECES[i]).collect();
            assert_bounds(&text);
        }
    }
}
