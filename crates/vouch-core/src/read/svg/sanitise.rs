//! A copy of the chart that is safe to show: rebuilt from the parsed element tree (so nothing
//! the parser did not read survives: no DOCTYPE, no entity, no processing instruction, no
//! comment), keeping only static SVG drawing elements, and only attributes that neither run
//! code nor reference anything outside the chart. The HTML report shows this copy as an `<img>`
//! (where browsers run no script and fetch nothing anyway): the copy is defence in depth, not
//! the only wall.

use super::parse::{Child, Document, Element};
use std::fmt::Write as _;

/// SVG elements kept (case-sensitive, as SVG is); any other element is dropped with its subtree.
const KEPT: &[&str] = &[
    "svg",
    "g",
    "defs",
    "symbol",
    "use",
    "title",
    "desc",
    "style",
    "rect",
    "circle",
    "ellipse",
    "line",
    "polyline",
    "polygon",
    "path",
    "text",
    "tspan",
    "textPath",
    "clipPath",
    "mask",
    "marker",
    "pattern",
    "linearGradient",
    "radialGradient",
    "stop",
    "image",
    "metadata",
];

/// Raster images a kept `<image>` may embed (never `image/svg+xml`: no nested documents).
const DATA_IMAGES: &[&str] = &[
    "data:image/png;",
    "data:image/jpeg;",
    "data:image/gif;",
    "data:image/webp;",
];

/// The sanitised chart, or `None` when the root is not an `svg` element. With `size`, the root's
/// `width` and `height` are replaced by that rendered size in px (so an `<img>` of the copy has
/// the size vouch measured).
pub fn sanitise(doc: &Document, size: Option<(f64, f64)>) -> Option<String> {
    let root = doc.elements.first()?;
    if root.name != "svg" {
        return None;
    }
    let mut out = String::with_capacity(4096);
    write_element(doc, 0, Some(size), &mut out);
    Some(out)
}

fn write_element(doc: &Document, i: usize, root: Option<Option<(f64, f64)>>, out: &mut String) {
    let el = &doc.elements[i];
    out.push('<');
    out.push_str(&el.name);
    if let Some(size) = root {
        out.push_str(
            " xmlns=\"http://www.w3.org/2000/svg\" xmlns:xlink=\"http://www.w3.org/1999/xlink\"",
        );
        if let Some((w, h)) = size {
            let _ = write!(out, " width=\"{w}\" height=\"{h}\"");
        }
    }
    for a in &el.attrs {
        let sized =
            root.is_some_and(|s| s.is_some()) && matches!(a.name.as_str(), "width" | "height");
        if !sized && keep_attribute(el, &a.name, a.local(), &a.value) {
            let _ = write!(out, " {}=\"{}\"", a.name, attr_escape(&a.value));
        }
    }
    out.push('>');
    let style = el.name == "style";
    for c in &el.children {
        match c {
            Child::Element(k) => {
                let child = &doc.elements[*k];
                if KEPT.contains(&child.name.as_str()) {
                    write_element(doc, *k, None, out);
                }
            }
            Child::Text(t) => {
                if style && !safe_css(t) {
                    continue;
                }
                out.push_str(&text_escape(t));
            }
        }
    }
    let _ = write!(out, "</{}>", el.name);
}

fn keep_attribute(el: &Element, name: &str, local: &str, value: &str) -> bool {
    let lower = local.to_ascii_lowercase();
    let foreign_prefix =
        name.contains(':') && !name.starts_with("xlink:") && !name.starts_with("xml:");
    if lower.starts_with("on") || name.starts_with("xmlns") || foreign_prefix {
        return false;
    }
    let v = value.trim().to_ascii_lowercase();
    if v.contains("javascript:") || v.contains("@import") || v.contains("expression(") {
        return false;
    }
    if lower == "href" || lower == "src" {
        return v.starts_with('#')
            || (el.name == "image" && DATA_IMAGES.iter().any(|d| v.starts_with(d)));
    }
    safe_css(value)
}

/// No `url(…)` but to a fragment of the chart, no `@import`.
fn safe_css(text: &str) -> bool {
    let lower = text.to_ascii_lowercase();
    if lower.contains("@import") || lower.contains("javascript:") || lower.contains("expression(") {
        return false;
    }
    let mut rest = lower.as_str();
    while let Some(at) = rest.find("url(") {
        rest = &rest[at + 4..];
        let target = rest.trim_start_matches([' ', '\t', '\n', '\r', '"', '\'']);
        if !target.starts_with('#') {
            return false;
        }
    }
    true
}

fn text_escape(t: &str) -> String {
    t.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
}

fn attr_escape(t: &str) -> String {
    text_escape(t).replace('"', "&quot;")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::read::svg::parse::parse;

    fn clean(svg: &str) -> String {
        sanitise(&parse(svg).unwrap(), None).unwrap()
    }

    #[test]
    fn drawing_survives_and_code_and_fetches_do_not() {
        let out = clean(
            r##"<svg xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink" width="10" height="10" onload="alert(1)">
<script>alert(2)</script>
<foreignObject><div xmlns="http://www.w3.org/1999/xhtml">x</div></foreignObject>
<style>@import url(http://evil.example/x.css); rect { fill: red }</style>
<style>.a { fill: url(#grad) }</style>
<rect x="1" y="1" width="2" height="3" fill="url(http://evil.example/p)" onclick="x()"/>
<rect class="a" x="1" width="2" height="3" style="fill:url(#grad)"/>
<image href="http://evil.example/t.png"/><image xlink:href="data:image/png;base64,AAAA"/>
<use href="#a"/><a href="https://evil.example"><text>hi &amp; &lt;b&gt;</text></a>
<set attributeName="href" to="javascript:alert(3)"/>
</svg>"##,
        );
        for gone in [
            "script",
            "alert",
            "foreignObject",
            "div",
            "@import",
            "evil",
            "onclick",
            "<a ",
            "<set",
            "javascript",
        ] {
            assert!(!out.contains(gone), "{gone} survived: {out}");
        }
        for kept in [
            "<rect x=\"1\" y=\"1\" width=\"2\" height=\"3\">",
            "style=\"fill:url(#grad)\"",
            ".a { fill: url(#grad) }",
            "xlink:href=\"data:image/png;base64,AAAA\"",
            "<use href=\"#a\">",
        ] {
            assert!(out.contains(kept), "{kept} lost: {out}");
        }
        // The link's text is dropped with the link (an `<a>` is not kept).
        assert!(!out.contains("hi &amp;"));
        assert!(out.starts_with("<svg xmlns=\"http://www.w3.org/2000/svg\""));
    }

    #[test]
    fn text_and_attributes_are_escaped_again() {
        let out = clean(
            r#"<svg xmlns="http://www.w3.org/2000/svg" width="10" height="10"><text x="1" data-x="&quot;&gt;">a &lt;script&gt; b</text></svg>"#,
        );
        assert!(out.contains("data-x=\"&quot;&gt;\""), "{out}");
        assert!(out.contains("a &lt;script&gt; b"), "{out}");
    }
}
