//! `source.*`: the trusted statements are still validated (contract §1). A failure here means the
//! source data itself is faulty, not the agent.

use crate::report::registry::CheckDef;
use crate::report::{Family, Finding, Location, NumberDetail};
use crate::source::{Problem, Statements};

pub const CHECKS: &[CheckDef] = crate::checks![Family::Source;
    "source.missing_column", Fail, "A required column (after aliases) is absent from the source.";
    "source.duplicate_column", Fail, "Two source columns map to the same canonical name.";
    "source.non_numeric", Fail, "A required source cell is blank or not a plain decimal number.";
    "source.number_too_long", Fail, "A source cell is a decimal longer than vouch reads as a number (512 characters): vouch cannot use the source, and says so rather than call the number malformed.";
    "source.year_invalid", Fail, "A year cell is not an integer.";
    "source.year_duplicate", Fail, "A year appears in more than one row.";
    "source.year_order", Fail, "Years are not strictly ascending.";
    "source.year_gap", Fail, "Years are not consecutive.";
    "source.too_few_rows", Fail, "The source has fewer than 2 data rows.";
    "source.identity", Fail, "total_assets = total_liabilities + total_equity fails as an interval overlap in a row.";
    "source.gross_profit_mismatch", Fail, "gross_profit and revenue - cost_of_revenue are both printed and disagree as intervals.";
    "source.magnitude", Info, "A negative capex or interest expense was read as its magnitude.";
    "source.ignored_column", Info, "A non-required column was ignored: it has non-numeric cells, or no header.";
];

pub fn check(stmts: &Statements, out: &mut Vec<Finding>) {
    let art = stmts.file_name.clone();
    for p in &stmts.problems {
        let f = match p {
            Problem::MissingColumn { column } => Finding::fail(
                "source.missing_column",
                format!("required column `{column}` (or one of its aliases) is missing"),
            ),
            Problem::MissingOneOf { columns } => Finding::fail(
                "source.missing_column",
                format!("at least one of {} is required", columns.iter().map(|c| format!("`{c}`")).collect::<Vec<_>>().join(" and ")),
            ),
            Problem::DuplicateColumn { canonical, headers } => Finding::fail(
                "source.duplicate_column",
                format!(
                    "columns {} all map to `{canonical}`",
                    headers.iter().map(|h| format!("`{h}`")).collect::<Vec<_>>().join(", ")
                ),
            )
            .at(Location::field(headers.join(", "))),
            Problem::NonNumeric { row, header, cell, year } => Finding::fail(
                "source.non_numeric",
                if cell.is_empty() {
                    format!("required cell is blank in column `{header}`")
                } else {
                    format!("`{cell}` in column `{header}` is not a plain decimal number")
                },
            )
            .at(Location { row: Some(*row), column: Some(header.clone()), year: *year, ..Default::default() }),
            Problem::TooLong { row, header, len, year } => Finding::fail(
                "source.number_too_long",
                format!(
                    "a decimal of {len} characters in column `{header}` is longer than the {} vouch reads as a number",
                    crate::numbers::MAX_NUMBER_LEN
                ),
            )
            .at(Location { row: Some(*row), column: Some(header.clone()), year: *year, ..Default::default() }),
            Problem::YearInvalid { row, cell } => Finding::fail(
                "source.year_invalid",
                format!("year `{cell}` is not an integer"),
            )
            .at(Location { row: Some(*row), ..Default::default() }),
            Problem::YearDuplicate { row, year } => Finding::fail(
                "source.year_duplicate",
                format!("year {year} appears more than once"),
            )
            .at(Location { row: Some(*row), year: Some(*year), ..Default::default() }),
            Problem::YearOrder { row, year, previous } => Finding::fail(
                "source.year_order",
                format!("year {year} follows {previous}; years must be strictly ascending"),
            )
            .at(Location { row: Some(*row), year: Some(*year), ..Default::default() }),
            Problem::YearGap { row, year, previous } => Finding::fail(
                "source.year_gap",
                format!("year {year} follows {previous}; years must be consecutive"),
            )
            .at(Location { row: Some(*row), year: Some(*year), ..Default::default() }),
            Problem::TooFewRows { rows, min } => Finding::fail(
                "source.too_few_rows",
                format!("{rows} data row(s); at least {min} are needed for year-over-year metrics"),
            ),
            Problem::Identity { row, year, total, parts, total_printed, parts_printed } => Finding::fail(
                "source.identity",
                format!(
                    "total_assets {total_printed} {total} does not overlap total_liabilities + total_equity = {} {parts}",
                    parts_printed.join(" + ")
                ),
            )
            .at(Location { row: Some(*row), year: Some(*year), ..Default::default() })
            .number(NumberDetail {
                printed: total_printed.clone(),
                interval: Some(total.to_string()),
                recomputed: Some(parts.to_string()),
                formula: Some("total_assets = total_liabilities + total_equity".into()),
                ..Default::default()
            }),
            Problem::DerivedMismatch { row, year, column, printed, interval, derived, formula } => Finding::fail(
                "source.gross_profit_mismatch",
                format!("`{column}` {printed} {interval} disagrees with {formula} = {derived}"),
            )
            .at(Location { row: Some(*row), column: Some(column.clone()), year: Some(*year), ..Default::default() })
            .number(NumberDetail {
                printed: printed.clone(),
                interval: Some(interval.to_string()),
                recomputed: Some(derived.to_string()),
                formula: Some(formula.clone()),
                ..Default::default()
            }),
            Problem::Magnitude { row, header, cell, year } => Finding::info(
                "source.magnitude",
                format!("`{cell}` in `{header}` read as its magnitude {}", cell.trim_start_matches(['-', '−'])),
            )
            .at(Location { row: Some(*row), column: Some(header.clone()), year: *year, ..Default::default() }),
            Problem::UnnamedColumn { column, row } => Finding::info(
                "source.ignored_column",
                format!("column {column} has no header but holds values (first in row {row}); ignored: no flag or metric can name it"),
            )
            .at(Location { row: Some(*row), ..Default::default() }),
            Problem::IgnoredColumn { header, cell } => Finding::info(
                "source.ignored_column",
                format!("column `{header}` has non-numeric cells (e.g. `{cell}`) and is not required; ignored"),
            )
            .at(Location::field(header.clone())),
        };
        out.push(f.artifact(art.clone()));
    }
}
