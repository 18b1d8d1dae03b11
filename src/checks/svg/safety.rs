//! Is the chart safe to share (contract §4)? No scripts, no foreign content, no event handlers,
//! and no reference that would make a viewer fetch anything: only `#…` fragments and `data:`
//! images may be referenced.

use super::parse::Document;

/// One unsafe construct, with the line it is on.
#[derive(Clone, Debug, PartialEq)]
pub struct Hazard {
    pub id: &'static str,
    pub line: usize,
    pub message: String,
}

/// Every hazard in the document, in document order.
pub fn hazards(doc: &Document) -> Vec<Hazard> {
    let mut out = Vec::new();
    for pi in &doc.instructions {
        if pi.target.eq_ignore_ascii_case("xml-stylesheet") {
            out.push(Hazard {
                id: "svg.external_style",
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
        match el.name.as_str() {
            "script" => out.push(Hazard {
                id: "svg.script",
                line,
                message: "a <script> element runs code when the chart is opened".into(),
            }),
            "foreignObject" => out.push(Hazard {
                id: "svg.foreign_object",
                line,
                message: "a <foreignObject> embeds non-SVG (e.g. HTML) content".into(),
            }),
            "style" => {
                let css = el.own_text();
                if css.to_ascii_lowercase().contains("@import") {
                    out.push(Hazard {
                        id: "svg.external_style",
                        line,
                        message: "a <style> `@import` loads an outside stylesheet".into(),
                    });
                }
                for url in outside_urls(&css) {
                    out.push(Hazard {
                        id: "svg.external_style",
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
                    id: "svg.event_attribute",
                    line,
                    message: format!("event attribute `{}` on <{}> runs code", a.name, el.name),
                });
            } else if local == "href" || local == "src" {
                if !is_local_reference(&a.value) {
                    out.push(Hazard {
                        id: "svg.external_href",
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
                        id: "svg.external_style",
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

/// `#fragment` or a `data:image/…` URI.
fn is_local_reference(value: &str) -> bool {
    let v = value.trim();
    v.starts_with('#')
        || v.get(..11)
            .is_some_and(|p| p.eq_ignore_ascii_case("data:image/"))
}

/// The targets of `url(…)` in CSS or an attribute that are not local references.
fn outside_urls(text: &str) -> Vec<String> {
    let lower = text.to_ascii_lowercase();
    let mut out = Vec::new();
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

fn shorten(s: &str) -> String {
    let s = s.trim();
    if s.chars().count() > 60 {
        format!("{}…", s.chars().take(60).collect::<String>())
    } else {
        s.to_string()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::checks::svg::parse::parse;

    fn ids(svg: &str) -> Vec<&'static str> {
        hazards(&parse(svg).unwrap())
            .into_iter()
            .map(|h| h.id)
            .collect()
    }

    #[test]
    fn flags_scripts_foreign_objects_and_event_attributes() {
        assert_eq!(ids("<svg><script>alert(1)</script></svg>"), ["svg.script"]);
        assert_eq!(ids("<svg><foreignObject/></svg>"), ["svg.foreign_object"]);
        assert_eq!(
            ids("<svg onload=\"x()\"><rect onClick=\"y()\"/></svg>"),
            ["svg.event_attribute", "svg.event_attribute"]
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
            ["svg.external_href"]
        );
        assert_eq!(
            ids("<svg><a href=\"javascript:x()\"/></svg>"),
            ["svg.external_href"]
        );
        assert_eq!(
            ids("<svg><a href=\"data:text/html,x\"/></svg>"),
            ["svg.external_href"]
        );
    }

    #[test]
    fn flags_outside_urls_and_imports_in_styles() {
        assert_eq!(
            ids("<svg><style>@import 'a.css';</style></svg>"),
            ["svg.external_style"]
        );
        assert_eq!(
            ids("<svg><style>rect { fill: url(http://e.com/p.svg#g) }</style></svg>"),
            ["svg.external_style"]
        );
        assert!(ids("<svg><g clip-path=\"url(#p1)\" style=\"fill: url('#g')\"/></svg>").is_empty());
        assert_eq!(
            ids("<?xml-stylesheet href=\"a.css\"?><svg/>"),
            ["svg.external_style"]
        );
    }
}
