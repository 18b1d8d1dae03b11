//! Is the chart safe to share (contract §4)? No scripts, no foreign content, no event handlers,
//! and no reference that would make a viewer fetch anything: only `#…` fragments and `data:`
//! images may be referenced.

use crate::read::svg::parse::Document;
use crate::read::svg::shorten;
use crate::report::CheckId;

/// One unsafe construct, with the line it is on.
#[derive(Clone, Debug, PartialEq)]
pub struct Hazard {
    pub id: CheckId,
    pub line: usize,
    pub message: String,
}

/// Every hazard in the document, in document order.
pub fn hazards(doc: &Document) -> Vec<Hazard> {
    let mut out = Vec::new();
    for pi in &doc.instructions {
        if pi.target.eq_ignore_ascii_case("xml-stylesheet") {
            out.push(Hazard {
                id: CheckId::SvgExternalStyle,
                line: pi.line,
                message: format!(
                    "`<?xml-stylesheet {}?>` makes a viewer load a stylesheet",
                    pi.content.trim()
                ),
            });
        }
    }
    for el in &doc.elements {
        let line = el.line;
        // Names compare case-insensitively: `<SCRIPT>` is inert in XML but live when the chart
        // is inlined into HTML.
        let name = el.name.to_ascii_lowercase();
        if HTML_ONLY.contains(&name.as_str()) {
            out.push(Hazard {
                id: CheckId::SvgForeignObject,
                line,
                message: format!(
                    "<{}> is an HTML element: inlined into a page it leaves the SVG and loads or runs content",
                    el.name
                ),
            });
        }
        if ANIMATIONS.contains(&name.as_str()) {
            // `<set attributeName="href" to="javascript:…">` sets a link as surely as `href`.
            let animated = el
                .attrs
                .iter()
                .find(|a| a.local().eq_ignore_ascii_case("attributeName"))
                .map(|a| {
                    a.value
                        .rsplit(':')
                        .next()
                        .unwrap_or("")
                        .trim()
                        .to_ascii_lowercase()
                });
            if matches!(animated.as_deref(), Some("href" | "src")) {
                for a in &el.attrs {
                    let local = a.local().to_ascii_lowercase();
                    if !matches!(local.as_str(), "to" | "from" | "values" | "by") {
                        continue;
                    }
                    for v in a.value.split(';').filter(|v| !v.trim().is_empty()) {
                        if !is_local_reference(v) {
                            out.push(Hazard {
                                id: CheckId::SvgExternalHref,
                                line,
                                message: format!(
                                    "<{}> animates `href` to `{}`, outside the chart",
                                    el.name,
                                    shorten(v)
                                ),
                            });
                        }
                    }
                }
            }
        }
        match name.as_str() {
            "script" => out.push(Hazard {
                id: CheckId::SvgScript,
                line,
                message: "a <script> element runs code when the chart is opened".into(),
            }),
            "foreignobject" => out.push(Hazard {
                id: CheckId::SvgForeignObject,
                line,
                message: "a <foreignObject> embeds non-SVG (e.g. HTML) content".into(),
            }),
            "style" => {
                let css = css_plain(&el.own_text());
                if css.to_ascii_lowercase().contains("@import") {
                    out.push(Hazard {
                        id: CheckId::SvgExternalStyle,
                        line,
                        message: "a <style> `@import` loads an outside stylesheet".into(),
                    });
                }
                for url in outside_urls(&css) {
                    out.push(Hazard {
                        id: CheckId::SvgExternalStyle,
                        line,
                        message: format!(
                            "a <style> rule loads `url({url})` from outside the chart"
                        ),
                    });
                }
            }
            _ => {}
        }
        for a in &el.attrs {
            let local = a.local().to_ascii_lowercase();
            if local.starts_with("on") && local.len() > 2 {
                out.push(Hazard {
                    id: CheckId::SvgEventAttribute,
                    line,
                    message: format!("event attribute `{}` on <{}> runs code", a.name, el.name),
                });
            } else if local == "href" || local == "src" {
                if !is_local_reference(&a.value) {
                    out.push(Hazard {
                        id: CheckId::SvgExternalHref,
                        line,
                        message: format!(
                            "`{}=\"{}\"` on <{}> refers outside the chart (only `#…` fragments and `data:` images are allowed)",
                            a.name,
                            shorten(&a.value),
                            el.name
                        ),
                    });
                }
            } else {
                for url in outside_urls(&a.value) {
                    out.push(Hazard {
                        id: CheckId::SvgExternalStyle,
                        line,
                        message: format!(
                            "`{}` on <{}> loads `url({url})` from outside the chart",
                            a.name, el.name
                        ),
                    });
                }
            }
        }
    }
    out
}

/// Elements of HTML that an HTML parser takes out of inline SVG (or that load content there).
const HTML_ONLY: &[&str] = &[
    "iframe", "embed", "object", "img", "frame", "frameset", "link", "meta", "base", "form",
    "input", "button", "audio", "video", "source", "body", "head", "html",
];

/// SVG animation elements, which can set any attribute.
const ANIMATIONS: &[&str] = &["set", "animate", "animatetransform", "animatemotion"];

/// CSS as its tokenizer reads it: comments removed and escapes decoded (`@\69mport` is
/// `@import`, `\75rl(` is `url(`), so a disguised rule is matched like a plain one.
fn css_plain(css: &str) -> String {
    let mut out = String::with_capacity(css.len());
    let mut chars = css.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '/' if chars.peek() == Some(&'*') => {
                chars.next();
                let mut prev = ' ';
                for d in chars.by_ref() {
                    if prev == '*' && d == '/' {
                        break;
                    }
                    prev = d;
                }
            }
            '\\' => {
                let mut hex = String::new();
                while hex.len() < 6 && chars.peek().is_some_and(char::is_ascii_hexdigit) {
                    hex.push(chars.next().expect("peeked"));
                }
                if hex.is_empty() {
                    if let Some(d) = chars.next() {
                        if d != '\n' {
                            out.push(d);
                        }
                    }
                } else {
                    if chars.peek().is_some_and(|d| d.is_whitespace()) {
                        chars.next();
                    }
                    let code = u32::from_str_radix(&hex, 16).unwrap_or(0xFFFD);
                    out.push(
                        char::from_u32(code)
                            .filter(|&d| d != '\0')
                            .unwrap_or('\u{fffd}'),
                    );
                }
            }
            c => out.push(c),
        }
    }
    out
}

/// `#fragment` or a `data:image/…` URI.
fn is_local_reference(value: &str) -> bool {
    let v = value.trim();
    v.starts_with('#')
        || v.get(..11)
            .is_some_and(|p| p.eq_ignore_ascii_case("data:image/"))
}

/// The targets of `url(…)` in CSS or an attribute that are not local references.
fn outside_urls(text: &str) -> Vec<String> {
    // Both `url(` and `image-set(` need a `(` (an escaped one opens no function): most attribute
    // values have none and are not decoded at all.
    if !text.contains('(') {
        return Vec::new();
    }
    let text = &css_plain(text);
    let lower = text.to_ascii_lowercase();
    let mut out = Vec::new();
    // `image-set("a.png" 1x)` fetches its strings without `url(`.
    let mut at = 0;
    while let Some(i) = lower[at..].find("image-set(") {
        let start = at + i + "image-set(".len();
        let end = lower[start..].find(')').map_or(text.len(), |j| start + j);
        for quoted in text[start..end].split(['"', '\'']).skip(1).step_by(2) {
            if !is_local_reference(quoted) {
                out.push(shorten(quoted));
            }
        }
        at = end;
        if at >= text.len() {
            break;
        }
    }
    let mut from = 0;
    while let Some(i) = lower[from..].find("url(") {
        let start = from + i + 4;
        let end = lower[start..].find(')').map_or(text.len(), |j| start + j);
        let target = text[start..end].trim().trim_matches(['"', '\'']).trim();
        if !is_local_reference(target) {
            out.push(shorten(target));
        }
        from = end.min(text.len());
        if from >= text.len() {
            break;
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::read::svg::parse::parse;

    fn ids(svg: &str) -> Vec<CheckId> {
        hazards(&parse(svg).unwrap())
            .into_iter()
            .map(|h| h.id)
            .collect()
    }

    #[test]
    fn flags_scripts_foreign_objects_and_event_attributes() {
        assert_eq!(
            ids("<svg><script>alert(1)</script></svg>"),
            [CheckId::SvgScript]
        );
        assert_eq!(
            ids("<svg><foreignObject/></svg>"),
            [CheckId::SvgForeignObject]
        );
        assert_eq!(
            ids("<svg onload=\"x()\"><rect onClick=\"y()\"/></svg>"),
            [CheckId::SvgEventAttribute, CheckId::SvgEventAttribute]
        );
    }

    #[test]
    fn allows_fragments_and_data_images_only() {
        assert!(ids(
            "<svg xmlns:xlink=\"x\"><use xlink:href=\"#m1\"/><image href=\"data:image/png;base64,AA\"/></svg>"
        )
        .is_empty());
        assert_eq!(
            ids("<svg><image href=\"https://e.com/a.png\"/></svg>"),
            [CheckId::SvgExternalHref]
        );
        assert_eq!(
            ids("<svg><a href=\"javascript:x()\"/></svg>"),
            [CheckId::SvgExternalHref]
        );
        assert_eq!(
            ids("<svg><a href=\"data:text/html,x\"/></svg>"),
            [CheckId::SvgExternalHref]
        );
    }

    #[test]
    fn disguises_are_seen_through() {
        // CSS escapes and comments, image-set, animated links, upper-case and HTML elements.
        assert_eq!(
            ids("<svg><style>@\\69mport 'a.css';</style></svg>"),
            [CheckId::SvgExternalStyle]
        );
        assert_eq!(
            ids("<svg><style>rect { fill: \\75rl(http://e.com/x) }</style></svg>"),
            [CheckId::SvgExternalStyle]
        );
        assert_eq!(
            ids("<svg><rect style=\"background: \\000075 rl(//e.com/x)\"/></svg>"),
            [CheckId::SvgExternalStyle]
        );
        assert_eq!(
            ids("<svg><rect style=\"background: image-set('http://e.com/a.png' 1x)\"/></svg>"),
            [CheckId::SvgExternalStyle]
        );
        assert_eq!(
            ids("<svg><a><set attributeName=\"href\" to=\"javascript:alert(1)\"/></a></svg>"),
            [CheckId::SvgExternalHref]
        );
        assert_eq!(
            ids("<svg><a><animate attributeName=\"xlink:href\" values=\"#a;https://e.com\"/></a></svg>"),
            [CheckId::SvgExternalHref]
        );
        assert!(ids("<svg><set attributeName=\"fill\" to=\"red\"/></svg>").is_empty());
        assert_eq!(
            ids("<svg><SCRIPT>alert(1)</SCRIPT></svg>"),
            [CheckId::SvgScript]
        );
        assert_eq!(
            ids("<svg><foreignobject/></svg>"),
            [CheckId::SvgForeignObject]
        );
        assert_eq!(ids("<svg><iframe/></svg>"), [CheckId::SvgForeignObject]);
    }

    #[test]
    fn flags_outside_urls_and_imports_in_styles() {
        assert_eq!(
            ids("<svg><style>@import 'a.css';</style></svg>"),
            [CheckId::SvgExternalStyle]
        );
        assert_eq!(
            ids("<svg><style>rect { fill: url(http://e.com/p.svg#g) }</style></svg>"),
            [CheckId::SvgExternalStyle]
        );
        assert!(ids("<svg><g clip-path=\"url(#p1)\" style=\"fill: url('#g')\"/></svg>").is_empty());
        assert_eq!(
            ids("<?xml-stylesheet href=\"a.css\"?><svg/>"),
            [CheckId::SvgExternalStyle]
        );
    }
}
