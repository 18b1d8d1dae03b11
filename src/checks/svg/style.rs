//! Simple CSS for charts: `<style>` rules with element, `.class` and `#id` selectors (compounds
//! like `text.title` too), declarations, the `font` shorthand, and the cascade of the few
//! properties the checks need (contract §4). Rules with combinators or pseudo-classes are ignored:
//! they are rare in generated charts, and guessing their reach would be worse than skipping them.

use super::geometry::{parse_length, Length};
use super::parse::Element;

/// The properties the checks read.
pub const PROPERTIES: [&str; 6] = [
    "font-size",
    "fill",
    "fill-opacity",
    "text-anchor",
    "display",
    "visibility",
];

#[derive(Clone, Debug, Default, PartialEq)]
struct Compound {
    element: Option<String>,
    id: Option<String>,
    classes: Vec<String>,
}

impl Compound {
    fn parse(s: &str) -> Option<Compound> {
        let s = s.trim();
        if s.is_empty() || s.contains(|c: char| c.is_whitespace() || ">+~:[".contains(c)) {
            return None;
        }
        let mut out = Compound::default();
        let mut parts = Vec::new();
        let mut start = 0;
        for (i, c) in s.char_indices() {
            if (c == '.' || c == '#') && i > 0 {
                parts.push(&s[start..i]);
                start = i;
            }
        }
        parts.push(&s[start..]);
        for p in parts {
            if let Some(class) = p.strip_prefix('.') {
                out.classes.push(class.to_string());
            } else if let Some(id) = p.strip_prefix('#') {
                out.id = Some(id.to_string());
            } else if p != "*" {
                out.element = Some(p.to_string());
            }
        }
        Some(out)
    }

    fn specificity(&self) -> (usize, usize, usize) {
        (
            self.id.is_some() as usize,
            self.classes.len(),
            self.element.is_some() as usize,
        )
    }

    fn matches(&self, el: &Element) -> bool {
        if self.element.as_deref().is_some_and(|n| n != el.name) {
            return false;
        }
        if self
            .id
            .as_deref()
            .is_some_and(|id| el.attr("id") != Some(id))
        {
            return false;
        }
        let classes = el.attr("class").unwrap_or("");
        self.classes
            .iter()
            .all(|c| classes.split_whitespace().any(|k| k == c))
    }
}

#[derive(Clone, Debug)]
struct Rule {
    selector: Compound,
    specificity: (usize, usize, usize),
    order: usize,
    declarations: Vec<(String, String)>,
}

/// Every `<style>` element's rules, in document order.
#[derive(Clone, Debug, Default)]
pub struct StyleSheet {
    rules: Vec<Rule>,
}

impl StyleSheet {
    /// Add the rules of one `<style>` element's text.
    pub fn add(&mut self, css: &str) {
        let css = strip_comments(css);
        let mut rest = css.as_str();
        while let Some(open) = rest.find('{') {
            let prelude = rest[..open].trim();
            let Some(close) = matching_brace(&rest[open..]).map(|c| c + open) else {
                break;
            };
            let body = &rest[open + 1..close];
            rest = &rest[close + 1..];
            if prelude.starts_with('@') {
                continue;
            }
            let declarations = parse_declarations(body);
            for sel in prelude.split(',') {
                if let Some(selector) = Compound::parse(sel) {
                    let order = self.rules.len();
                    self.rules.push(Rule {
                        specificity: selector.specificity(),
                        selector,
                        order,
                        declarations: declarations.clone(),
                    });
                }
            }
        }
    }

    /// The declarations that apply to `el`, weakest first (the contract's precedence: the
    /// `font-size` and other presentation attributes, then `<style>` rules by specificity and
    /// order, then the `font` attribute, then the `style` attribute).
    pub fn declarations(&self, el: &Element) -> Vec<(String, String)> {
        let mut out: Vec<(String, String)> = PROPERTIES
            .iter()
            .filter_map(|p| el.attr(p).map(|v| (p.to_string(), v.to_string())))
            .collect();
        let mut matching: Vec<&Rule> = self
            .rules
            .iter()
            .filter(|r| r.selector.matches(el))
            .collect();
        matching.sort_by_key(|r| (r.specificity, r.order));
        for r in matching {
            out.extend(r.declarations.iter().cloned());
        }
        if let Some(font) = el.attr("font") {
            out.push(("font".into(), font.to_string()));
        }
        if let Some(style) = el.attr("style") {
            out.extend(parse_declarations(style));
        }
        out
    }
}

fn strip_comments(css: &str) -> String {
    let mut out = String::with_capacity(css.len());
    let mut rest = css;
    while let Some(i) = rest.find("/*") {
        out.push_str(&rest[..i]);
        match rest[i + 2..].find("*/") {
            Some(j) => rest = &rest[i + 2 + j + 2..],
            None => return out,
        }
    }
    out.push_str(rest);
    out
}

/// Index of the `}` closing the block that opens at `s[0]`.
fn matching_brace(s: &str) -> Option<usize> {
    let mut depth = 0usize;
    for (i, c) in s.char_indices() {
        match c {
            '{' => depth += 1,
            '}' => {
                depth = depth.checked_sub(1)?;
                if depth == 0 {
                    return Some(i);
                }
            }
            _ => {}
        }
    }
    None
}

/// `a: b; c: d` → `[(a, b), (c, d)]`, names lowercased, `!important` dropped.
pub fn parse_declarations(s: &str) -> Vec<(String, String)> {
    s.split(';')
        .filter_map(|d| {
            let (name, value) = d.split_once(':')?;
            let value = value.trim().trim_end_matches("!important").trim();
            Some((name.trim().to_ascii_lowercase(), value.to_string()))
        })
        .filter(|(n, v)| !n.is_empty() && !v.is_empty())
        .collect()
}

/// The font size a `font` shorthand sets (`bold 12px/1.2 'DejaVu Sans'`). In the shorthand a
/// size needs a unit, so a weight like `400` is not mistaken for one.
pub fn font_shorthand_size(value: &str) -> Option<String> {
    value.split_whitespace().find_map(|token| {
        let size = token.split('/').next().unwrap_or(token);
        if keyword_size(size).is_some() {
            return Some(size.to_string());
        }
        let has_unit = size.ends_with(|c: char| c.is_ascii_alphabetic() || c == '%');
        (has_unit
            && size.starts_with(|c: char| c.is_ascii_digit() || c == '.')
            && parse_length(size).is_some())
        .then(|| size.to_string())
    })
}

fn keyword_size(s: &str) -> Option<f64> {
    Some(match s.to_ascii_lowercase().as_str() {
        "xx-small" => 9.0,
        "x-small" => 10.0,
        "small" => 13.0,
        "medium" => 16.0,
        "large" => 18.0,
        "x-large" => 24.0,
        "xx-large" => 32.0,
        _ => return None,
    })
}

/// A computed font size (user units) from its declared value and the inherited size; `em` and
/// `%` are relative to the inherited size. An unusable value inherits.
pub fn font_size(declared: &str, inherited: f64) -> f64 {
    let d = declared.trim();
    if let Some(k) = keyword_size(d) {
        return k;
    }
    match d.to_ascii_lowercase().as_str() {
        "larger" => return inherited * 1.2,
        "smaller" => return inherited / 1.2,
        _ => {}
    }
    match parse_length(d) {
        Some(Length::Px(v)) if v >= 0.0 => v,
        Some(Length::Em(v)) if v >= 0.0 => v * inherited,
        Some(Length::Percent(v)) if v >= 0.0 => v / 100.0 * inherited,
        _ => inherited,
    }
}

/// The winning declared value of each property the checks read (the `font` shorthand counts as a
/// `font-size` declaration where it names a size).
pub fn winning(declarations: &[(String, String)]) -> Vec<(&'static str, String)> {
    let mut out: Vec<(&'static str, String)> = Vec::new();
    for (name, value) in declarations {
        let (prop, value) = if name == "font" {
            match font_shorthand_size(value) {
                Some(size) => ("font-size", size),
                None => continue,
            }
        } else if let Some(p) = PROPERTIES.iter().find(|p| **p == name) {
            (*p, value.clone())
        } else {
            continue;
        };
        out.retain(|(p, _)| *p != prop);
        out.push((prop, value));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::checks::svg::parse::parse;

    fn size_of(svg: &str, index: usize) -> Option<String> {
        let doc = parse(svg).unwrap();
        let mut sheet = StyleSheet::default();
        for e in &doc.elements {
            if e.name == "style" {
                sheet.add(&e.own_text());
            }
        }
        let decls = sheet.declarations(&doc.elements[index]);
        winning(&decls)
            .into_iter()
            .find(|(p, _)| *p == "font-size")
            .map(|(_, v)| v)
    }

    #[test]
    fn style_attribute_beats_font_beats_rule_beats_attribute() {
        let svg = r#"<svg><style>text { font-size: 10px }</style><text font-size="20" font="bold 30px serif" style="font-size: 40px">a</text></svg>"#;
        assert_eq!(size_of(svg, 2).as_deref(), Some("40px"));
        let svg = r#"<svg><style>text { font-size: 10px }</style><text font-size="20" font="bold 30px serif">a</text></svg>"#;
        assert_eq!(size_of(svg, 2).as_deref(), Some("30px"));
        let svg =
            r#"<svg><style>text { font-size: 10px }</style><text font-size="20">a</text></svg>"#;
        assert_eq!(size_of(svg, 2).as_deref(), Some("10px"));
    }

    #[test]
    fn rules_apply_by_specificity_then_order() {
        let svg = r#"<svg><style>#t { font-size: 9px } .c { font-size: 7px } text { font-size: 5px } .c { font-size: 6px }</style><text id="t" class="c">a</text></svg>"#;
        assert_eq!(size_of(svg, 2).as_deref(), Some("9px"));
        let svg = r#"<svg><style>.c { font-size: 7px } text { font-size: 5px } .c { font-size: 6px }</style><text class="x c">a</text></svg>"#;
        assert_eq!(size_of(svg, 2).as_deref(), Some("6px"));
    }

    #[test]
    fn ignores_rules_with_combinators_and_at_rules() {
        let svg = r#"<svg><style>/* c */ @media print { text { font-size: 1px } } g text { font-size: 2px }</style><text>a</text></svg>"#;
        assert_eq!(size_of(svg, 2), None);
    }

    #[test]
    fn reads_the_font_shorthand_size_but_not_a_weight() {
        assert_eq!(
            font_shorthand_size("400 12px/1.2 'DejaVu Sans'").as_deref(),
            Some("12px")
        );
        assert_eq!(
            font_shorthand_size("bold 9pt Arial").as_deref(),
            Some("9pt")
        );
        assert_eq!(
            font_shorthand_size("italic small serif").as_deref(),
            Some("small")
        );
        assert_eq!(font_shorthand_size("Arial"), None);
    }

    #[test]
    fn relative_sizes_follow_the_inherited_size() {
        assert_eq!(font_size("0.5em", 20.0), 10.0);
        assert_eq!(font_size("150%", 10.0), 15.0);
        assert_eq!(font_size("9pt", 10.0), 12.0);
        assert_eq!(font_size("nonsense", 10.0), 10.0);
    }
}
