//! Simple CSS for charts: `<style>` rules with element, `.class` and `#id` selectors (compounds
//! like `text.title` too) joined by descendant and child combinators, declarations with
//! `!important`, the `font` shorthand, and the cascade of the few properties the checks read
//! (contract §4). A rule vouch cannot evaluate (sibling combinators, pseudo-classes, attribute
//! selectors, rules inside `@media` and other at-rules, `@keyframes`) is never guessed at: when
//! it sets a property the checks read, it is recorded so the chart's reading can be said to be
//! uncertain.

use super::geometry::{parse_length, Length};
use super::parse::{Document, Element};
use std::cell::Cell;
use std::collections::HashSet;

/// The properties the checks read.
pub const PROPERTIES: [&str; 9] = [
    "font-size",
    "fill",
    "fill-opacity",
    "text-anchor",
    "display",
    "visibility",
    "opacity",
    "transform",
    "transform-origin",
];

/// Most style rules read; a chart with more is too complex to read.
pub const MAX_RULES: usize = 10_000;

/// Most ancestor steps spent matching selectors across one chart.
pub const MAX_MATCH_STEPS: usize = 5_000_000;

/// Most compounds in one selector that vouch evaluates.
const MAX_COMPOUNDS: usize = 8;

/// One declaration: a lowercased property name, its value, and whether it is `!important`.
#[derive(Clone, Debug, PartialEq)]
pub struct Declaration {
    pub name: String,
    pub value: String,
    pub important: bool,
}

#[derive(Clone, Copy, Debug, PartialEq)]
enum Combinator {
    Descendant,
    Child,
}

/// A selector: its subject and, nearest first, the compounds its ancestors must match.
#[derive(Clone, Debug, PartialEq)]
struct Selector {
    subject: Compound,
    ancestors: Vec<(Combinator, Compound)>,
}

impl Selector {
    /// `None` for anything vouch does not evaluate.
    fn parse(s: &str) -> Option<Selector> {
        let s = s.trim();
        if s.is_empty() || s.contains(|c: char| "+~:[()\\".contains(c)) {
            return None;
        }
        let spaced = s.replace('>', " > ");
        let mut compounds: Vec<(Combinator, Compound)> = Vec::new();
        let mut pending = Combinator::Descendant;
        for token in spaced.split_whitespace() {
            if token == ">" {
                if compounds.is_empty() || pending == Combinator::Child {
                    return None;
                }
                pending = Combinator::Child;
                continue;
            }
            compounds.push((pending, Compound::parse(token)?));
            pending = Combinator::Descendant;
        }
        if pending == Combinator::Child || compounds.is_empty() || compounds.len() > MAX_COMPOUNDS {
            return None;
        }
        // compounds[i].0 joins compounds[i - 1] to compounds[i]; ancestors go nearest first,
        // each with the combinator joining it to the compound on its right.
        let ancestors = (0..compounds.len() - 1)
            .rev()
            .map(|j| (compounds[j + 1].0, compounds[j].1.clone()))
            .collect();
        let (_, subject) = compounds.pop()?;
        Some(Selector { subject, ancestors })
    }

    fn specificity(&self) -> (usize, usize, usize) {
        let mut sp = self.subject.specificity();
        for (_, c) in &self.ancestors {
            let (a, b, d) = c.specificity();
            sp = (sp.0 + a, sp.1 + b, sp.2 + d);
        }
        sp
    }

    /// Whether the selector matches element `i`; the test and each ancestor step spend one unit
    /// of `budget`
    /// (none left: no match, and the caller reports the chart as too complex).
    fn matches(&self, doc: &Document, i: usize, budget: &Cell<usize>) -> bool {
        let left = budget.get();
        if left == 0 {
            return false;
        }
        budget.set(left - 1);
        if !self.subject.matches(&doc.elements[i]) {
            return false;
        }
        let mut failed = HashSet::new();
        self.ancestors_match(doc, i, 0, budget, &mut failed)
    }

    /// Whether `ancestors[k..]` match above element `i`. A (compound, element) pair that failed
    /// once is not tried again, so the search is at most compounds × depth pairs, each scanning
    /// at most the depth (64) — never the combinations of a backtracking search.
    fn ancestors_match(
        &self,
        doc: &Document,
        i: usize,
        k: usize,
        budget: &Cell<usize>,
        failed: &mut HashSet<(usize, usize)>,
    ) -> bool {
        let Some((join, compound)) = self.ancestors.get(k) else {
            return true;
        };
        if failed.contains(&(k, i)) {
            return false;
        }
        let mut up = doc.elements[i].parent;
        while let Some(a) = up {
            let left = budget.get();
            if left == 0 {
                return false;
            }
            budget.set(left - 1);
            if compound.matches(&doc.elements[a])
                && self.ancestors_match(doc, a, k + 1, budget, failed)
            {
                return true;
            }
            if *join == Combinator::Child {
                break;
            }
            up = doc.elements[a].parent;
        }
        failed.insert((k, i));
        false
    }
}

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
    selector: Selector,
    specificity: (usize, usize, usize),
    order: usize,
    declarations: Vec<Declaration>,
}

/// A style rule vouch does not evaluate that sets a property the checks read.
#[derive(Clone, Debug, PartialEq)]
pub struct Unmodelled {
    /// The selector or at-rule prelude, as written.
    pub rule: String,
    pub property: String,
}

/// Every `<style>` element's rules, in document order.
#[derive(Clone, Debug)]
pub struct StyleSheet {
    rules: Vec<Rule>,
    pub unmodelled: Vec<Unmodelled>,
    /// Rules seen, read or not; more than [`MAX_RULES`] is too complex.
    pub seen: usize,
    /// Selector-matching steps left (see [`MAX_MATCH_STEPS`]); 0 means the chart is too complex.
    budget: Cell<usize>,
}

impl Default for StyleSheet {
    fn default() -> StyleSheet {
        StyleSheet {
            rules: Vec::new(),
            unmodelled: Vec::new(),
            seen: 0,
            budget: Cell::new(MAX_MATCH_STEPS),
        }
    }
}

/// Whether a declaration sets a property the checks read (the `font` shorthand sets a size).
fn reads(d: &Declaration) -> bool {
    PROPERTIES.contains(&d.name.as_str()) || d.name == "font"
}

impl StyleSheet {
    /// Add the rules of one `<style>` element's text.
    pub fn add(&mut self, css: &str) {
        let css = strip_comments(css);
        self.add_block(&css, None);
    }

    /// Rules of a block; `within` is the at-rule around it, whose rules are not evaluated.
    fn add_block(&mut self, css: &str, within: Option<&str>) {
        let mut rest = css;
        while let Some(open) = rest.find('{') {
            let prelude = rest[..open].trim();
            // A statement at-rule (`@import …;`) before the block is not part of its prelude.
            let prelude = prelude.rsplit(';').next().unwrap_or(prelude).trim();
            let Some(close) = matching_brace(&rest[open..]).map(|c| c + open) else {
                break;
            };
            let body = &rest[open + 1..close];
            rest = &rest[close + 1..];
            self.seen += 1;
            if self.seen > MAX_RULES {
                return;
            }
            if prelude.starts_with('@') {
                // `@font-face` and `@page` set nothing the checks read; anything else may.
                self.add_block(body, Some(within.unwrap_or(prelude)));
                if !body.contains('{') {
                    self.unmodelled_in(prelude, &parse_declarations(body));
                }
                continue;
            }
            if body.contains('{') {
                // CSS nesting: the nested rules are not evaluated, nor is this one.
                self.add_block(body, Some(within.unwrap_or(prelude)));
                self.unmodelled_in(prelude, &parse_declarations(body));
                continue;
            }
            let declarations: Vec<Declaration> =
                parse_declarations(body).into_iter().filter(reads).collect();
            if declarations.is_empty() {
                continue;
            }
            if let Some(at) = within {
                self.unmodelled_in(&format!("{at} {{ {prelude} }}"), &declarations);
                continue;
            }
            for sel in prelude.split(',') {
                match Selector::parse(sel) {
                    Some(selector) => {
                        let order = self.rules.len();
                        self.rules.push(Rule {
                            specificity: selector.specificity(),
                            selector,
                            order,
                            declarations: declarations.clone(),
                        });
                    }
                    None => self.unmodelled_in(sel.trim(), &declarations),
                }
            }
        }
    }

    /// Whether selector matching ran out of its budget.
    pub fn exhausted(&self) -> bool {
        self.budget.get() == 0
    }

    fn unmodelled_in(&mut self, rule: &str, declarations: &[Declaration]) {
        if let Some(d) = declarations.iter().find(|d| reads(d)) {
            if self.unmodelled.len() < MAX_RULES {
                self.unmodelled.push(Unmodelled {
                    rule: rule.to_string(),
                    property: d.name.clone(),
                });
            }
        }
    }

    /// The declarations that apply to element `i`, weakest first (the contract's precedence:
    /// presentation attributes, then `<style>` rules by specificity and order, then the `font`
    /// attribute, then the `style` attribute; then, in the same order, `!important` ones).
    pub fn declarations(&self, doc: &Document, i: usize) -> Vec<(String, String)> {
        if self.exhausted() {
            return Vec::new(); // the chart is reported too complex; nothing more is matched
        }
        let el = &doc.elements[i];
        let mut all: Vec<Declaration> = PROPERTIES
            .iter()
            .filter_map(|p| {
                el.attr(p).map(|v| Declaration {
                    name: p.to_string(),
                    value: v.to_string(),
                    important: false,
                })
            })
            .collect();
        let mut matching: Vec<&Rule> = self
            .rules
            .iter()
            .filter(|r| r.selector.matches(doc, i, &self.budget))
            .collect();
        matching.sort_by_key(|r| (r.specificity, r.order));
        for r in matching {
            // Applying a declaration costs like a matching step.
            let left = self.budget.get();
            if left < r.declarations.len() {
                self.budget.set(0);
                return Vec::new();
            }
            self.budget.set(left - r.declarations.len());
            all.extend(r.declarations.iter().cloned());
        }
        if let Some(font) = el.attr("font") {
            all.push(Declaration {
                name: "font".into(),
                value: font.to_string(),
                important: false,
            });
        }
        if let Some(style) = el.attr("style") {
            all.extend(parse_declarations(style));
        }
        let (important, normal): (Vec<Declaration>, Vec<Declaration>) =
            all.into_iter().partition(|d| d.important);
        normal
            .into_iter()
            .chain(important)
            .map(|d| (d.name, d.value))
            .collect()
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

/// `a: b; c: d !important` → declarations, names lowercased, importance noted (`! IMPORTANT`
/// too: CSS allows space and any case after the `!`).
pub fn parse_declarations(s: &str) -> Vec<Declaration> {
    s.split(';')
        .filter_map(|d| {
            let (name, value) = d.split_once(':')?;
            let mut value = value.trim();
            let mut important = false;
            if let Some(bang) = value.rfind('!') {
                if value[bang + 1..].trim().eq_ignore_ascii_case("important") {
                    important = true;
                    value = value[..bang].trim_end();
                }
            }
            Some(Declaration {
                name: name.trim().to_ascii_lowercase(),
                value: value.to_string(),
                important,
            })
        })
        .filter(|d| !d.name.is_empty() && !d.value.is_empty())
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
    use crate::read::svg::parse::parse;

    fn size_of(svg: &str, index: usize) -> Option<String> {
        let doc = parse(svg).unwrap();
        let mut sheet = StyleSheet::default();
        for e in &doc.elements {
            if e.name == "style" {
                sheet.add(&e.own_text());
            }
        }
        let decls = sheet.declarations(&doc, index);
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
    fn descendant_and_child_combinators_apply_to_the_right_elements() {
        let svg = r#"<svg><style>g.p text { font-size: 3px } svg > text { font-size: 4px } g > g > text { font-size: 5px }</style><g class="p"><g><text>a</text></g></g><text>b</text><g><text>c</text></g></svg>"#;
        // Elements: 0 svg, 1 style, 2 g.p, 3 g, 4 text a, 5 text b, 6 g, 7 text c.
        assert_eq!(
            size_of(svg, 4).as_deref(),
            Some("3px"),
            "g.p text beats g > g > text by specificity"
        );
        assert_eq!(size_of(svg, 5).as_deref(), Some("4px"));
        assert_eq!(size_of(svg, 7), None);
    }

    #[test]
    fn important_declarations_win_over_later_and_more_specific_ones() {
        let svg = r#"<svg><style>text { font-size: 5px ! IMPORTANT } #t { font-size: 30px }</style><text id="t" font-size="20" style="font-size: 40px">a</text></svg>"#;
        assert_eq!(size_of(svg, 2).as_deref(), Some("5px"));
        let svg = r#"<svg><style>text { font-size: 5px !important }</style><text style="font-size: 9px !important">a</text></svg>"#;
        assert_eq!(
            size_of(svg, 2).as_deref(),
            Some("9px"),
            "inline important beats sheet important"
        );
    }

    #[test]
    fn rules_vouch_does_not_evaluate_are_recorded_when_they_set_what_it_reads() {
        let mut sheet = StyleSheet::default();
        sheet.add("text:nth-child(2) { font-size: 2px } a + b { stroke: red } @media screen { .t { opacity: 0 } } @keyframes k { from { transform: scale(0) } } g { text { fill: none } }");
        let rules: Vec<&str> = sheet.unmodelled.iter().map(|u| u.rule.as_str()).collect();
        assert_eq!(
            rules,
            [
                "text:nth-child(2)",
                "@media screen { .t }",
                "@keyframes k { from }",
                "g { text }"
            ]
        );
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
