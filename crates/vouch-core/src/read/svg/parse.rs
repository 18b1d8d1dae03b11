//! Safe streaming parse of the chart into an element tree (contract §4).
//!
//! quick-xml never expands custom entities and never fetches a DTD; a DOCTYPE with an internal
//! subset or an ENTITY declaration stops the parse before any content is read, so nothing declared
//! there can ever be expanded. Depth and element count are capped so hostile input stays bounded.
//! This module only records what the file says; it never judges it.

use quick_xml::events::{BytesStart, Event};
use quick_xml::Reader;

/// Deepest element nesting read; charts nest a handful of groups deep.
pub const MAX_DEPTH: usize = 64;
/// Most elements read; a four-panel chart of a few years needs a few thousand at most.
pub const MAX_ELEMENTS: usize = 50_000;
/// More attributes on one element than any chart needs: too complex (quick-xml checks duplicates
/// pairwise, so an element with 150,000 took seconds before this bound).
pub const MAX_ATTRIBUTES: usize = 512;

#[derive(Clone, Debug, PartialEq)]
pub struct Attr {
    /// The qualified name as written (`xlink:href`).
    pub name: String,
    /// Where the local name starts in `name`.
    local_at: usize,
    pub value: String,
}

impl Attr {
    /// The name without its prefix (`href`).
    pub fn local(&self) -> &str {
        &self.name[self.local_at..]
    }
}

#[derive(Clone, Debug, PartialEq)]
pub enum Child {
    Element(usize),
    Text(String),
}

#[derive(Clone, Debug, PartialEq)]
pub struct Element {
    /// Local name (`svg:rect` → `rect`).
    pub name: String,
    pub attrs: Vec<Attr>,
    pub children: Vec<Child>,
    pub parent: Option<usize>,
    /// 1-based line of the start tag.
    pub line: usize,
}

impl Element {
    /// An attribute by local name (`href` finds `xlink:href` too).
    pub fn attr(&self, local: &str) -> Option<&str> {
        self.attrs
            .iter()
            .find(|a| a.local() == local)
            .map(|a| a.value.as_str())
    }

    /// The element's direct character data, concatenated.
    pub fn own_text(&self) -> String {
        self.children
            .iter()
            .filter_map(|c| match c {
                Child::Text(t) => Some(t.as_str()),
                Child::Element(_) => None,
            })
            .collect()
    }
}

/// A DOCTYPE declaration as written.
#[derive(Clone, Debug, PartialEq)]
pub struct Doctype {
    pub line: usize,
    pub internal_subset: bool,
    pub declares_entity: bool,
}

/// A processing instruction (`<?xml-stylesheet href="…"?>`), by target and content.
#[derive(Clone, Debug, PartialEq)]
pub struct Instruction {
    pub line: usize,
    pub target: String,
    pub content: String,
}

/// The parsed document: elements in document order, the root first.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Document {
    pub elements: Vec<Element>,
    pub doctype: Option<Doctype>,
    pub instructions: Vec<Instruction>,
}

impl Document {
    pub fn root(&self) -> &Element {
        &self.elements[0]
    }

    /// Element indices under `i` (inclusive), depth first in document order.
    pub fn subtree(&self, i: usize) -> Vec<usize> {
        let mut out = Vec::new();
        let mut stack = vec![i];
        while let Some(e) = stack.pop() {
            out.push(e);
            for c in self.elements[e].children.iter().rev() {
                if let Child::Element(k) = c {
                    stack.push(*k);
                }
            }
        }
        out
    }
}

/// Why the file could not be read as a document.
#[derive(Clone, Debug, PartialEq)]
pub enum ParseError {
    /// Not well-formed XML.
    Malformed { line: usize, reason: String },
    /// A DOCTYPE with an internal subset or ENTITY declaration (never expanded).
    UnsafeDoctype { line: usize, declares_entity: bool },
    /// Nesting deeper than [`MAX_DEPTH`] or more than [`MAX_ELEMENTS`] elements.
    TooComplex { line: usize, reason: String },
}

/// Byte offsets of line starts, to turn reader positions into line numbers.
struct Lines(Vec<usize>);

impl Lines {
    fn new(text: &str) -> Lines {
        let mut starts = vec![0];
        starts.extend(text.match_indices('\n').map(|(i, _)| i + 1));
        Lines(starts)
    }
    fn at(&self, offset: u64) -> usize {
        let offset = usize::try_from(offset).unwrap_or(usize::MAX);
        self.0.partition_point(|&s| s <= offset).max(1)
    }
}

fn local_name(qualified: &str) -> &str {
    qualified.rsplit(':').next().unwrap_or(qualified)
}

/// Parse the chart. Every failure is a [`ParseError`]; nothing panics and nothing is expanded.
pub fn parse(text: &str) -> Result<Document, ParseError> {
    let lines = Lines::new(text);
    let mut reader = Reader::from_str(text);
    let config = reader.config_mut();
    config.trim_text(false);
    config.check_end_names = true;
    config.check_comments = true;
    config.expand_empty_elements = false;

    let mut doc = Document::default();
    let mut stack: Vec<usize> = Vec::new();
    let mut root_closed = false;
    loop {
        let start = reader.buffer_position();
        let line = lines.at(start);
        let malformed = |reason: String| ParseError::Malformed { line, reason };
        let event = reader.read_event().map_err(|e| ParseError::Malformed {
            line: lines.at(reader.error_position()),
            reason: e.to_string(),
        })?;
        match event {
            Event::DocType(d) => {
                let raw = String::from_utf8_lossy(d.as_ref()).into_owned();
                let internal_subset = raw.contains('[');
                let declares_entity =
                    raw.contains("<!ENTITY") || raw.to_ascii_uppercase().contains("ENTITY");
                if internal_subset || declares_entity {
                    return Err(ParseError::UnsafeDoctype {
                        line,
                        declares_entity,
                    });
                }
                doc.doctype = Some(Doctype {
                    line,
                    internal_subset,
                    declares_entity,
                });
            }
            Event::Start(e) | Event::Empty(e) if root_closed => {
                return Err(malformed(format!(
                    "element <{}> after the root element closed",
                    String::from_utf8_lossy(e.name().as_ref())
                )));
            }
            Event::Start(e) => {
                let i = push_element(&mut doc, &stack, &e, line)?;
                stack.push(i);
                if stack.len() > MAX_DEPTH {
                    return Err(ParseError::TooComplex {
                        line,
                        reason: format!("elements nest more than {MAX_DEPTH} deep"),
                    });
                }
            }
            Event::Empty(e) => {
                let i = push_element(&mut doc, &stack, &e, line)?;
                if stack.is_empty() {
                    let _ = i;
                    root_closed = true;
                }
            }
            Event::End(_) => {
                stack.pop();
                if stack.is_empty() {
                    root_closed = true;
                }
            }
            Event::Text(t) => {
                let s = t.decode().map_err(|e| malformed(e.to_string()))?;
                match stack.last() {
                    Some(&p) => push_text(&mut doc.elements[p].children, &s),
                    None if s.trim().is_empty() => {}
                    None => return Err(malformed("text outside the root element".into())),
                }
            }
            // A reference in text comes as its own event: the five XML entities and character
            // references are resolved into the text around them; no other entity is expanded.
            Event::GeneralRef(r) => {
                let name = r.decode().map_err(|e| malformed(e.to_string()))?;
                let resolved: String = if r.is_char_ref() {
                    match r.resolve_char_ref() {
                        Ok(Some(c)) => c.to_string(),
                        _ => {
                            return Err(malformed(format!(
                                "invalid character reference `&{name};`"
                            )))
                        }
                    }
                } else {
                    match quick_xml::escape::resolve_predefined_entity(&name) {
                        Some(v) => v.to_string(),
                        None => {
                            return Err(malformed(format!(
                                "unknown entity `&{name};` (entities other than the five XML \
                                 ones are never expanded)"
                            )))
                        }
                    }
                };
                match stack.last() {
                    Some(&p) => push_text(&mut doc.elements[p].children, &resolved),
                    None => return Err(malformed("text outside the root element".into())),
                }
            }
            Event::CData(t) => {
                let s = String::from_utf8_lossy(t.as_ref()).into_owned();
                match stack.last() {
                    Some(&p) => doc.elements[p].children.push(Child::Text(s)),
                    None => return Err(malformed("CDATA outside the root element".into())),
                }
            }
            Event::PI(p) => {
                let raw = String::from_utf8_lossy(p.as_ref()).into_owned();
                let (target, content) = raw
                    .split_once(char::is_whitespace)
                    .unwrap_or((raw.as_str(), ""));
                doc.instructions.push(Instruction {
                    line,
                    target: target.to_string(),
                    content: content.to_string(),
                });
            }
            Event::Decl(_) | Event::Comment(_) => {}
            Event::Eof => {
                if let Some(&open) = stack.last() {
                    let e = &doc.elements[open];
                    return Err(ParseError::Malformed {
                        line: e.line,
                        reason: format!("<{}> is never closed", e.name),
                    });
                }
                if doc.elements.is_empty() {
                    return Err(malformed("no root element".into()));
                }
                return Ok(doc);
            }
        }
    }
}

/// Appends text to an element's children, joining it to the text right before it (text and
/// references arrive as separate events).
fn push_text(children: &mut Vec<Child>, s: &str) {
    if let Some(Child::Text(t)) = children.last_mut() {
        t.push_str(s);
    } else {
        children.push(Child::Text(s.to_string()));
    }
}

fn push_element(
    doc: &mut Document,
    stack: &[usize],
    e: &BytesStart,
    line: usize,
) -> Result<usize, ParseError> {
    if doc.elements.len() >= MAX_ELEMENTS {
        return Err(ParseError::TooComplex {
            line,
            reason: format!("more than {MAX_ELEMENTS} elements"),
        });
    }
    let mut local = String::from_utf8_lossy(e.name().as_ref()).into_owned();
    local.drain(..local.len() - local_name(&local).len());
    let mut attrs = Vec::new();
    for a in e.attributes().with_checks(true) {
        if attrs.len() >= MAX_ATTRIBUTES {
            return Err(ParseError::TooComplex {
                line,
                reason: format!("an element with more than {MAX_ATTRIBUTES} attributes"),
            });
        }
        let a = a.map_err(|err| ParseError::Malformed {
            line,
            reason: err.to_string(),
        })?;
        let name = String::from_utf8_lossy(a.key.as_ref()).into_owned();
        let value = a
            .normalized_value(quick_xml::XmlVersion::Implicit1_0)
            .map_err(|err| ParseError::Malformed {
                line,
                reason: format!("attribute `{name}`: {err} (entities are never expanded)"),
            })?;
        attrs.push(Attr {
            local_at: name.len() - local_name(&name).len(),
            name,
            value: value.into_owned(),
        });
    }
    let i = doc.elements.len();
    let parent = stack.last().copied();
    doc.elements.push(Element {
        name: local,
        attrs,
        children: Vec::new(),
        parent,
        line,
    });
    if let Some(p) = parent {
        doc.elements[p].children.push(Child::Element(i));
    }
    Ok(i)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_elements_attributes_and_text_with_lines() {
        let doc = parse("<svg width=\"10\">\n  <text x=\"1\">a &amp; b</text>\n</svg>").unwrap();
        assert_eq!(doc.root().name, "svg");
        assert_eq!(doc.elements[1].name, "text");
        assert_eq!(doc.elements[1].line, 2);
        assert_eq!(doc.elements[1].own_text(), "a & b");
        assert_eq!(doc.root().attr("width"), Some("10"));
    }

    #[test]
    fn never_expands_an_entity_declared_in_an_internal_subset() {
        let bomb = "<?xml version=\"1.0\"?>\n<!DOCTYPE svg [\n <!ENTITY a \"aaaaaaaaaa\">\n <!ENTITY b \"&a;&a;&a;&a;&a;&a;\">\n]>\n<svg><text>&b;</text></svg>";
        assert_eq!(
            parse(bomb),
            Err(ParseError::UnsafeDoctype {
                line: 2,
                declares_entity: true
            })
        );
    }

    #[test]
    fn accepts_a_plain_doctype_and_records_it() {
        let doc = parse("<!DOCTYPE svg PUBLIC \"-//W3C//DTD SVG 1.1//EN\" \"http://www.w3.org/Graphics/SVG/1.1/DTD/svg11.dtd\">\n<svg/>").unwrap();
        assert_eq!(doc.doctype.as_ref().map(|d| d.internal_subset), Some(false));
    }

    #[test]
    fn rejects_an_undeclared_entity_without_expanding_it() {
        assert!(matches!(
            parse("<svg><text>&lol;</text></svg>"),
            Err(ParseError::Malformed { .. })
        ));
    }

    #[test]
    fn rejects_unclosed_mismatched_and_trailing_elements() {
        assert!(matches!(
            parse("<svg><g></svg>"),
            Err(ParseError::Malformed { .. })
        ));
        assert!(matches!(
            parse("<svg><g>"),
            Err(ParseError::Malformed { .. })
        ));
        assert!(matches!(
            parse("<svg/><svg/>"),
            Err(ParseError::Malformed { .. })
        ));
        assert!(matches!(parse(""), Err(ParseError::Malformed { .. })));
        assert!(matches!(
            parse("<svg a=\"1\" a=\"2\"/>"),
            Err(ParseError::Malformed { .. })
        ));
    }

    #[test]
    fn caps_nesting_depth() {
        let deep = "<g>".repeat(MAX_DEPTH + 1) + &"</g>".repeat(MAX_DEPTH + 1);
        assert!(matches!(parse(&deep), Err(ParseError::TooComplex { .. })));
    }
}
