//! Differences between an artifact in the bundle and the one the script wrote again: the CSV
//! tables cell by cell (numbers as exact values, so `1.50` and `1.5` are the same number and
//! `0.4521` and `0.45210001` are not), the manifest's contract fields as JSON values (numbers
//! exactly, key order ignored). This module only lists differences; `reexecute` judges them.

use serde_json::Value;
use vouch_core::numbers::{parse_number, Num};

/// The manifest keys the contract defines (§6); other keys (timestamps, durations, notes) may
/// differ from run to run and are not compared.
pub const MANIFEST_FIELDS: [&str; 6] = [
    "input_filename",
    "row_count",
    "year_range",
    "validation_results",
    "generated_filenames",
    "execution_directory",
];

/// One difference: where, what the bundle says, what the script wrote.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Difference {
    /// `line 3, column 2` or a JSON path.
    pub place: String,
    /// 1-based line in the bundle's artifact, when known.
    pub line: Option<usize>,
    pub bundle: String,
    pub regenerated: String,
}

/// Cell-by-cell differences between two CSV texts. `Err` when either is not a readable table.
pub fn csv_differences(bundle: &str, regenerated: &str) -> Result<Vec<Difference>, String> {
    let ours = vouch_core::read::table::read_records(bundle)
        .map_err(|e| format!("the bundle's file: {e}"))?;
    let theirs = vouch_core::read::table::read_records(regenerated)
        .map_err(|e| format!("the regenerated file: {e}"))?;
    let mut out = Vec::new();
    if ours.len() != theirs.len() {
        out.push(Difference {
            place: "row count".into(),
            line: None,
            bundle: format!("{} rows", ours.len()),
            regenerated: format!("{} rows", theirs.len()),
        });
    }
    for (row, ((line, a), (_, b))) in ours.iter().zip(&theirs).enumerate() {
        for col in 0..a.len().max(b.len()) {
            let x = a.get(col).map_or("", String::as_str);
            let y = b.get(col).map_or("", String::as_str);
            if !same_cell(x, y) {
                out.push(Difference {
                    place: format!("row {}, column {}", row + 1, col + 1),
                    line: Some(*line),
                    bundle: shown(x),
                    regenerated: shown(y),
                });
            }
        }
    }
    Ok(out)
}

/// Two cells agree when both are the same number in the same unit, or the same text.
fn same_cell(a: &str, b: &str) -> bool {
    match (parse_number(a), parse_number(b)) {
        (Some(x), Some(y)) => x.value == y.value && x.percent == y.percent,
        _ => a == b,
    }
}

fn shown(cell: &str) -> String {
    if cell.is_empty() {
        "(blank)".into()
    } else {
        cell.chars().take(80).collect()
    }
}

/// Differences in the manifest's contract fields. `Err` when either is not a JSON object.
pub fn manifest_differences(bundle: &str, regenerated: &str) -> Result<Vec<Difference>, String> {
    let object = |text: &str, whose: &str| match serde_json::from_str::<Value>(text) {
        Ok(Value::Object(m)) => Ok(m),
        Ok(_) => Err(format!("{whose} manifest is not a JSON object")),
        Err(e) => Err(format!("{whose} manifest is not JSON: {e}")),
    };
    let ours = object(bundle, "the bundle's")?;
    let theirs = object(regenerated, "the regenerated")?;
    let mut out = Vec::new();
    for key in MANIFEST_FIELDS {
        let a = ours.get(key).unwrap_or(&Value::Null);
        let b = theirs.get(key).unwrap_or(&Value::Null);
        json_differences(key, a, b, &mut out);
    }
    Ok(out)
}

fn json_differences(path: &str, a: &Value, b: &Value, out: &mut Vec<Difference>) {
    match (a, b) {
        (Value::Object(x), Value::Object(y)) => {
            let keys: std::collections::BTreeSet<&String> = x.keys().chain(y.keys()).collect();
            for k in keys {
                json_differences(
                    &format!("{path}.{k}"),
                    x.get(k).unwrap_or(&Value::Null),
                    y.get(k).unwrap_or(&Value::Null),
                    out,
                );
            }
        }
        (Value::Array(x), Value::Array(y)) if x.len() == y.len() => {
            for (i, (p, q)) in x.iter().zip(y).enumerate() {
                json_differences(&format!("{path}[{i}]"), p, q, out);
            }
        }
        (Value::Number(x), Value::Number(y)) if exact(x).is_some() && exact(x) == exact(y) => {}
        _ if a == b => {}
        _ => out.push(Difference {
            place: path.to_string(),
            line: None,
            bundle: json_shown(a),
            regenerated: json_shown(b),
        }),
    }
}

fn exact(n: &serde_json::Number) -> Option<Num> {
    parse_number(&n.to_string()).map(|p| p.value)
}

fn json_shown(v: &Value) -> String {
    match v {
        Value::Null => "(absent)".into(),
        v => v.to_string().chars().take(80).collect(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_same_number_printed_differently_is_no_difference() {
        let d = csv_differences("year,m\n2021,1.50\n", "year,m\n2021,1.5\n").unwrap();
        assert!(d.is_empty(), "{d:?}");
    }

    #[test]
    fn a_difference_in_the_last_digit_is_a_difference() {
        let d = csv_differences("year,m\n2021,0.4521\n", "year,m\n2021,0.4522\n").unwrap();
        assert_eq!(d.len(), 1);
        assert_eq!(d[0].place, "row 2, column 2");
        assert_eq!(d[0].line, Some(2));
        assert_eq!(
            (d[0].bundle.as_str(), d[0].regenerated.as_str()),
            ("0.4521", "0.4522")
        );
    }

    #[test]
    fn a_percent_and_a_fraction_are_not_the_same_value() {
        let d = csv_differences("m\n45.21%\n", "m\n45.21\n").unwrap();
        assert_eq!(d.len(), 1);
    }

    #[test]
    fn an_extra_row_is_a_difference() {
        let d = csv_differences("m\n1\n", "m\n1\n2\n").unwrap();
        assert_eq!(d[0].place, "row count");
    }

    #[test]
    fn manifest_compares_only_contract_fields_and_numbers_exactly() {
        let a = r#"{"row_count": 5, "year_range": [2021, 2025], "generated_at": "today"}"#;
        let b = r#"{"row_count": 5.0, "year_range": [2021, 2025], "generated_at": "tomorrow"}"#;
        assert!(manifest_differences(a, b).unwrap().is_empty());
        let c = r#"{"row_count": 6, "year_range": [2021, 2025]}"#;
        let d = manifest_differences(a, c).unwrap();
        assert_eq!(d.len(), 1);
        assert_eq!(d[0].place, "row_count");
    }

    #[test]
    fn a_changed_validation_claim_is_a_difference() {
        let a = r#"{"validation_results": {"accounting_equation_passed_every_row": true}}"#;
        let b = r#"{"validation_results": {"accounting_equation_passed_every_row": false}}"#;
        let d = manifest_differences(a, b).unwrap();
        assert_eq!(
            d[0].place,
            "validation_results.accounting_equation_passed_every_row"
        );
    }
}
