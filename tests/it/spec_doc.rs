//! `docs/spec.md` is generated from the `///` docs of the types the contract file deserialises
//! into (`crates/vouch-core/src/spec/mod.rs`): one section per TOML table, one row per key, with
//! its type, whether it may be left out, and its doc. The test fails when a field has no doc or
//! when the page and the code disagree (`VOUCH_BLESS=1` rewrites the page).

use crate::support::{assert_generated, root};
use std::collections::BTreeMap;

struct Field {
    name: String,
    ty: String,
    doc: String,
    optional: bool,
}

enum Item {
    Struct {
        doc: String,
        fields: Vec<Field>,
    },
    Enum {
        rename: String,
        variants: Vec<(String, String)>,
    },
}

/// The `Deserialize` structs and enums of a Rust source, by name (a line reader: the spec module
/// is written one field per line, as rustfmt leaves it).
fn items(src: &str) -> BTreeMap<String, Item> {
    let mut out = BTreeMap::new();
    let mut doc: Vec<String> = Vec::new();
    let mut attrs: Vec<String> = Vec::new();
    let mut lines = src.lines();
    while let Some(line) = lines.next() {
        let l = line.trim();
        if let Some(d) = l.strip_prefix("///") {
            doc.push(d.trim().to_string());
            continue;
        }
        if l.starts_with("#[") {
            attrs.push(l.to_string());
            continue;
        }
        let deser = attrs.iter().any(|a| a.contains("Deserialize"));
        let head = l.trim_start_matches("pub ");
        if deser && (head.starts_with("struct ") || head.starts_with("enum ")) {
            let is_enum = head.starts_with("enum ");
            let name = head
                .split_whitespace()
                .nth(1)
                .unwrap()
                .trim_end_matches('{')
                .to_string();
            let rename = attrs
                .iter()
                .find_map(|a| a.split("rename_all = \"").nth(1))
                .map(|r| r.split('"').next().unwrap().to_string())
                .unwrap_or_default();
            let item_doc = doc.join(" ");
            let (mut fdoc, mut fattrs) = (Vec::<String>::new(), Vec::<String>::new());
            let mut fields = Vec::new();
            let mut variants = Vec::new();
            for line in lines.by_ref() {
                let l = line.trim();
                if l == "}" {
                    break;
                }
                if let Some(d) = l.strip_prefix("///") {
                    fdoc.push(d.trim().to_string());
                } else if l.starts_with("#[") {
                    fattrs.push(l.to_string());
                } else if is_enum {
                    variants.push((l.trim_end_matches(',').to_string(), fdoc.join(" ")));
                    fdoc.clear();
                } else if let Some((n, ty)) = l.trim_start_matches("pub ").split_once(": ") {
                    fields.push(Field {
                        name: n.to_string(),
                        ty: ty.trim_end_matches(',').to_string(),
                        doc: fdoc.join(" "),
                        optional: fattrs.iter().any(|a| a.contains("default")),
                    });
                    fdoc.clear();
                    fattrs.clear();
                }
            }
            let item = if is_enum {
                Item::Enum { rename, variants }
            } else {
                Item::Struct {
                    doc: item_doc,
                    fields,
                }
            };
            out.insert(name, item);
        }
        doc.clear();
        attrs.clear();
    }
    out
}

fn inner(ty: &str) -> (&str, bool) {
    match ty.strip_prefix("Vec<").and_then(|t| t.strip_suffix('>')) {
        Some(t) => (t, true),
        None => (ty, false),
    }
}

fn snake(s: &str) -> String {
    let mut out = String::new();
    for (i, c) in s.chars().enumerate() {
        if c.is_uppercase() && i > 0 {
            out.push('_');
        }
        out.extend(c.to_lowercase());
    }
    out
}

fn type_name(ty: &str, all: &BTreeMap<String, Item>) -> String {
    let (t, vec) = inner(ty);
    let base = match t {
        "String" => "string".to_string(),
        "bool" => "boolean".to_string(),
        "usize" | "u32" | "u64" => "integer".to_string(),
        "f64" => "number".to_string(),
        "Vec<String>" => "array of strings".to_string(),
        t if t.contains("BTreeMap<String, Vec<String>>") => {
            "table of arrays of strings".to_string()
        }
        t => match all.get(t) {
            Some(Item::Enum { rename, variants }) => {
                let names: Vec<String> = variants
                    .iter()
                    .map(|(v, _)| {
                        let s = snake(v);
                        if rename == "lowercase" {
                            s.replace('_', "")
                        } else {
                            s
                        }
                    })
                    .map(|v| format!("`{v}`"))
                    .collect();
                format!("one of {}", names.join(", "))
            }
            Some(Item::Struct { .. }) => "table".to_string(),
            None => panic!("spec field type `{t}` is not known to the spec page"),
        },
    };
    if vec {
        match base.as_str() {
            "string" => "array of strings".into(),
            "array of strings" => "array of arrays of strings".into(),
            "table" => "array of tables".into(),
            _ => format!("array of ({base})"),
        }
    } else {
        base
    }
}

fn page(all: &BTreeMap<String, Item>) -> String {
    use std::fmt::Write;
    let mut out = String::from(
        "# The contract file\n\n\
         A contract is a TOML file (`verifiers/financial-analyst.toml` is the default, embedded in\n\
         the binary; `--spec FILE` on `verify`, `audit` and `compare` loads another). This page is\n\
         generated from the `///` docs of the types it is read into\n\
         (`crates/vouch-core/src/spec/mod.rs`); a test fails when a key has no doc or this page is\n\
         stale (`VOUCH_BLESS=1 cargo nextest run -E 'test(spec_doc)'` rewrites it). Every table is\n\
         required, an unknown key fails the load, and values are checked when the spec is compiled\n\
         (formulas parse and name known columns and metrics, thresholds are decimals, the KPI\n\
         section is a section, manifest facts and units are known names). `vouch spec` prints the\n\
         default file.\n",
    );
    let mut queue: Vec<(String, String, bool)> = vec![(String::new(), "RawSpec".into(), false)];
    while let Some((path, ty, array)) = queue.pop() {
        let Some(Item::Struct { doc, fields }) = all.get(&ty) else {
            continue;
        };
        if path.is_empty() {
            let _ = writeln!(out, "\n## Top level\n\n{doc}\n");
        } else {
            let title = if array {
                format!("[[{path}]]")
            } else {
                format!("[{path}]")
            };
            let _ = writeln!(out, "\n## `{title}`\n");
        }
        out.push_str("| key | type | required | meaning |\n|---|---|---|---|\n");
        let mut nested = Vec::new();
        for f in fields {
            assert!(
                !f.doc.is_empty(),
                "spec field `{ty}.{}` has no `///` doc",
                f.name
            );
            let _ = writeln!(
                out,
                "| `{}` | {} | {} | {} |",
                f.name,
                type_name(&f.ty, all),
                if f.optional { "no" } else { "yes" },
                f.doc.replace('|', "\\|")
            );
            let (t, vec) = inner(&f.ty);
            if matches!(all.get(t), Some(Item::Struct { .. })) {
                let p = if path.is_empty() {
                    f.name.clone()
                } else {
                    format!("{path}.{}", f.name)
                };
                nested.push((p, t.to_string(), vec));
            }
        }
        // Depth first, in field order.
        queue.extend(nested.into_iter().rev());
    }
    out.push_str("\n## Enumerations\n");
    for (name, item) in all {
        if let Item::Enum { rename, variants } = item {
            let _ = writeln!(out, "\n### `{name}`\n\n| value | meaning |\n|---|---|");
            for (v, doc) in variants {
                assert!(
                    !doc.is_empty(),
                    "spec enum value `{name}::{v}` has no `///` doc"
                );
                let s = snake(v);
                let s = if rename == "lowercase" {
                    s.replace('_', "")
                } else {
                    s
                };
                let _ = writeln!(out, "| `{s}` | {doc} |");
            }
        }
    }
    out
}

#[test]
fn spec_doc_page_is_generated_from_the_field_docs() {
    let src = std::fs::read_to_string(root().join("crates/vouch-core/src/spec/mod.rs")).unwrap();
    let all = items(&src);
    assert!(all.len() >= 20, "found {} spec types", all.len());
    assert_generated(
        "docs/spec.md",
        &page(&all),
        "VOUCH_BLESS=1 cargo nextest run -E 'test(spec_doc)'",
    );
}

/// The page covers every key of the default contract file: a key the reader does not list
/// would have failed the load (`deny_unknown_fields`), so this holds the reader's walk honest.
#[test]
fn every_key_of_the_default_contract_is_on_the_page() {
    let page = std::fs::read_to_string(root().join("docs/spec.md")).unwrap();
    let spec: toml::Table =
        std::fs::read_to_string(root().join("verifiers/financial-analyst.toml"))
            .unwrap()
            .parse()
            .unwrap();
    fn walk(t: &toml::Table, page: &str) {
        for (k, v) in t {
            assert!(
                page.contains(&format!("| `{k}` |")),
                "key `{k}` is not on docs/spec.md"
            );
            match v {
                // `memo.names` is keyed by column and metric names, not spec keys.
                toml::Value::Table(t) if k != "names" => walk(t, page),
                toml::Value::Array(a) => {
                    for x in a {
                        if let toml::Value::Table(t) = x {
                            walk(t, page);
                        }
                    }
                }
                _ => {}
            }
        }
    }
    walk(&spec, &page);
}
