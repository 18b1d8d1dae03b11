//! The page shell shared by every HTML report (verify, audit, compare): one stylesheet, no
//! script, a Content-Security-Policy that forbids every fetch but inline styles and `data:`
//! images, and the escaping every renderer uses.

use std::fmt::Write as _;

/// Text made safe for HTML element content and attribute values (double- or single-quoted):
/// `& < > " '` become references, and control characters other than tab and line break become
/// visible `\u{…}` escapes (as [`crate::report::inert`] writes them).
pub fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + text.len() / 8);
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            '\t' | '\n' => out.push(c),
            c if c.is_control()
                || matches!(c, '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}') =>
            {
                let _ = write!(out, "\\u{{{:x}}}", c as u32);
            }
            c => out.push(c),
        }
    }
    out
}

/// Standard base64 (RFC 4648, with padding), for `data:` URLs.
pub fn base64(bytes: &[u8]) -> String {
    const ABC: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut out = String::with_capacity(bytes.len().div_ceil(3) * 4);
    for chunk in bytes.chunks(3) {
        let b = [
            chunk[0],
            *chunk.get(1).unwrap_or(&0),
            *chunk.get(2).unwrap_or(&0),
        ];
        let n = (u32::from(b[0]) << 16) | (u32::from(b[1]) << 8) | u32::from(b[2]);
        for i in 0..4 {
            if i <= chunk.len() {
                out.push(ABC[((n >> (18 - 6 * i)) & 63) as usize] as char);
            } else {
                out.push('=');
            }
        }
    }
    out
}

/// One HTML document being written: a title, then body markup appended by the renderer.
pub struct Page {
    title: String,
    body: String,
}

impl Page {
    pub fn new(title: &str) -> Page {
        Page {
            title: title.to_string(),
            body: String::new(),
        }
    }

    /// Appends markup (already escaped where it holds outside text).
    pub fn push(&mut self, markup: &str) {
        self.body.push_str(markup);
    }

    pub fn finish(self) -> String {
        page(&self.title, &self.body)
    }
}

/// The whole document around `body` (markup), titled `title` (plain text).
pub fn page(title: &str, body: &str) -> String {
    let mut out = String::with_capacity(body.len() + STYLE.len() + 512);
    out.push_str("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n");
    // No fetch of any kind: styles inline, images only as data: URLs, no script at all.
    out.push_str(
        "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; style-src 'unsafe-inline'; img-src data:\">\n",
    );
    out.push_str("<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n");
    let _ = writeln!(out, "<title>{}</title>", escape(title));
    out.push_str("<style>\n");
    out.push_str(STYLE);
    out.push_str("</style>\n</head>\n<body>\n");
    out.push_str(body);
    out.push_str("</body>\n</html>\n");
    out
}

/// The one stylesheet: readable without it, plain with it. Status colours: fail red, warn
/// amber, info blue-grey, pass green; the verdict banner uses the same.
pub const STYLE: &str = r#"
:root { --fail:#b3261e; --fail-bg:#fde7e5; --warn:#8a5a00; --warn-bg:#fff2d6; --info:#3b5b7a;
  --info-bg:#e6eef6; --pass:#1e6b35; --pass-bg:#e3f4e8; --line:#d7dbe0; --muted:#5d6670; }
* { box-sizing: border-box; }
body { font: 15px/1.5 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; color:#1b1f24;
  margin: 0 auto; max-width: 1180px; padding: 24px; }
h1 { font-size: 1.6em; margin: 0 0 .3em; } h2 { font-size: 1.25em; margin: 1.6em 0 .5em;
  border-bottom: 1px solid var(--line); padding-bottom: .2em; } h3 { font-size: 1.05em; margin: 1.2em 0 .4em; }
code, pre, .mono { font-family: ui-monospace, "SF Mono", Menlo, Consolas, monospace; font-size: .92em; }
.muted { color: var(--muted); }
.verdict { display:flex; gap:1em; align-items:center; padding: 14px 18px; border-radius: 8px; margin: 12px 0; }
.verdict.accept { background: var(--pass-bg); border: 1px solid var(--pass); }
.verdict.reject { background: var(--fail-bg); border: 1px solid var(--fail); }
.verdict .word { font-size: 1.5em; font-weight: 700; text-transform: uppercase; letter-spacing: .04em; }
.verdict.accept .word { color: var(--pass); } .verdict.reject .word { color: var(--fail); }
table { border-collapse: collapse; margin: .5em 0 1em; font-size: .92em; }
th, td { border: 1px solid var(--line); padding: 3px 8px; text-align: left; vertical-align: top; }
th { background: #f4f6f8; font-weight: 600; }
td.num { text-align: right; font-variant-numeric: tabular-nums; }
.badge { display:inline-block; padding: 0 6px; border-radius: 4px; font-size: .8em; font-weight: 700;
  text-transform: uppercase; }
.badge.fail { background: var(--fail); color: #fff; } .badge.warn { background: var(--warn); color: #fff; }
.badge.info { background: var(--info); color: #fff; } .badge.pass { background: var(--pass); color: #fff; }
.badge.skipped { background: #8b949e; color: #fff; }
td.fail, mark.fail, .cell-fail { background: var(--fail-bg); outline: 2px solid var(--fail); }
td.warn, mark.warn { background: var(--warn-bg); outline: 1px solid var(--warn); }
mark.unverified { background: var(--info-bg); border-bottom: 2px dotted var(--info); }
mark.verified { background: transparent; border-bottom: 2px solid var(--pass); }
mark { color: inherit; padding: 0 1px; }
.finding { border-left: 4px solid var(--line); padding: 4px 10px; margin: 6px 0; background: #fafbfc; }
.finding.fail { border-color: var(--fail); } .finding.warn { border-color: var(--warn); }
.finding.info { border-color: var(--info); }
.finding .where { color: var(--muted); font-size: .9em; }
.finding dl { display: grid; grid-template-columns: max-content 1fr; gap: 0 10px; margin: 4px 0 0; font-size: .9em; }
.finding dt { color: var(--muted); } .finding dd { margin: 0; }
details > summary { cursor: pointer; }
.chart { position: relative; width: 100%; max-width: 1100px; border: 1px solid var(--line); }
.chart img, .chart svg.overlay { display: block; width: 100%; height: auto; }
.chart svg.overlay { position: absolute; left: 0; top: 0; height: 100%; }
.legend span { margin-right: 1.2em; white-space: nowrap; }
.memo { border: 1px solid var(--line); padding: 4px 0; font-size: .92em; }
.memo .ln { display: grid; grid-template-columns: 4em 1fr; }
.memo .ln .no { color: var(--muted); text-align: right; padding-right: 1em; user-select: none; }
.memo .ln .tx { white-space: pre-wrap; overflow-wrap: anywhere; }
.memo .ln.fail { background: #fff6f5; } .memo .ln.warn { background: #fffaf0; }
.coverage td.num { min-width: 5em; }
.plot { max-width: 100%; height: auto; }
nav.toc a { margin-right: 1em; }
svg.plot { display: block; margin: .5em 0; font-family: system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; }
svg.plot text { fill: #1b1f24; font-size: 12px; }
svg.plot .tick, svg.plot .empty { fill: var(--muted); font-size: 11px; }
svg.plot .heading text { font-weight: 600; }
svg.plot .grid { stroke: var(--line); stroke-width: 1; }
svg.plot .zero { stroke: #1b1f24; stroke-width: 1.5; }
svg.plot .bar { fill: #8fb0d0; }
svg.plot .row.baseline .bar { fill: #b7c0ca; }
svg.plot .whisker { stroke: #1b1f24; stroke-width: 1.5; }
svg.plot .point { fill: #1b1f24; }
svg.plot .row.worse .whisker { stroke: var(--fail); } svg.plot .row.worse .point { fill: var(--fail); }
svg.plot .row.worse text { fill: var(--fail); } svg.plot .row.worse .label { font-weight: 600; }
svg.plot .row.better .whisker { stroke: var(--pass); } svg.plot .row.better .point { fill: var(--pass); }
svg.plot .row.better text { fill: var(--pass); } svg.plot .row.better .label { font-weight: 600; }
svg.plot .row.same .whisker { stroke: var(--muted); } svg.plot .row.same .point { fill: var(--muted); }
.legend .key.worse { color: var(--fail); } .legend .key.better { color: var(--pass); }
.legend .key.same { color: var(--muted); }
tr.worse td { background: var(--fail-bg); } tr.better td { background: var(--pass-bg); }
.verdict.inconclusive { background: var(--warn-bg); border: 1px solid var(--warn); }
.verdict.inconclusive .word { color: var(--warn); }
.verdict p { margin: 0; }
table.figures td.num, td.nowrap { white-space: nowrap; }
"#;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escape_neutralises_markup_quotes_and_controls() {
        assert_eq!(
            escape("<script>alert('x')</script> & \"q\""),
            "&lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt; &amp; &quot;q&quot;"
        );
        assert_eq!(escape("a\u{1b}[2Jb\u{202e}"), "a\\u{1b}[2Jb\\u{202e}");
    }

    #[test]
    fn base64_matches_rfc4648_vectors() {
        for (plain, coded) in [
            ("", ""),
            ("f", "Zg=="),
            ("fo", "Zm8="),
            ("foo", "Zm9v"),
            ("foob", "Zm9vYg=="),
            ("fooba", "Zm9vYmE="),
            ("foobar", "Zm9vYmFy"),
        ] {
            assert_eq!(base64(plain.as_bytes()), coded);
        }
    }
}
