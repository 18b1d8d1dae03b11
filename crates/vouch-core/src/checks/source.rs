//! `source.*`: the trusted statements are still validated (contract §1). A failure here means the
//! source data itself is faulty, not the agent.

use crate::report::registry::CheckDef;
use crate::report::CheckId;
use crate::report::{Family, Finding, Location, NumberDetail};
use crate::source::{Problem, Statements};

pub const CHECKS: &[CheckDef] = crate::checks![Family::Source;
    CheckId::SourceMissingColumn, Fail, "A required column (after aliases) is absent from the source.",
        why: "Without this column vouch cannot recompute the metrics, identity or memo evidence topics that need it, so the bundle cannot be judged; the fault lies in the source statements, not the agent.",
        fix: "Add the column to the source CSV under its canonical name or an alias listed in `source.columns` (at least one of `cost_of_revenue` and `gross_profit`), or rename the header that holds it.";
    CheckId::SourceDuplicateColumn, Fail, "Two source columns map to the same canonical name.",
        why: "Two headers that map to one line item (e.g. `revenue` and `sales`) leave it unclear which figures are real; vouch uses the first, so a bundle built from the other would be judged against different numbers.",
        fix: "Keep one column per line item in the source CSV: delete or rename the duplicate so no two headers map to the same name in `source.columns` (aliases included).";
    CheckId::SourceNonNumeric, Fail, "A required source cell is blank or not a plain decimal number.",
        why: "A blank required cell, or text, `$`, `%` or parentheses in a column the spec knows, cannot be read as a value, so the metrics and flags using it cannot be recomputed; the source is faulty, not the agent.",
        fix: "Write a plain decimal in that cell of the source CSV (`-1234.5`, `1234` or `1,234`), filling blanks in required columns with the actual figure.";
    CheckId::SourceNumberTooLong, Fail, "A source cell is a decimal longer than vouch reads as a number (512 characters): vouch cannot use the source, and says so rather than call the number malformed.",
        why: "A decimal longer than 512 characters is beyond what vouch reads as a number, so figures that depend on it cannot be recomputed; vouch says so instead of calling a possibly valid number malformed.",
        fix: "Write the value in the source CSV at a normal precision (a few decimals is plenty for statements) and verify again.";
    CheckId::SourceYearInvalid, Fail, "A year cell is neither an integer nor a fiscal-year label (`FY2021`, `FY 2021`, `FY21`).",
        why: "A year cell that is not a plain integer (e.g. `2023.5`, `Q3 2023`) cannot place its row in time, so year-over-year metrics, movement flags and the manifest's year range cannot be recomputed.",
        fix: "Write every cell of the source CSV's year column as a plain integer such as `2023`.";
    CheckId::SourceYearDuplicate, Fail, "A year appears in more than one row.",
        why: "Two rows for one year are two different statements for the same period; growth, averages and flags around that year would depend on which row is read.",
        fix: "Keep one row per fiscal year in the source CSV: remove the duplicate row or correct its year.";
    CheckId::SourceYearOrder, Fail, "Years are not strictly ascending.",
        why: "Growth, averages and movement flags compare each year with the year before; rows out of ascending order mean those comparisons cannot be made reliably from the source.",
        fix: "Sort the source CSV's rows by year, oldest first.";
    CheckId::SourceYearGap, Fail, "Years are not consecutive.",
        why: "A missing year between rows would make a two-year change look like a year-over-year one, so growth rates, average-based ratios and flags for the year after the gap would be misstated.",
        fix: "Add the missing year's row to the source CSV, or verify against statements that cover consecutive years only.";
    CheckId::SourceTooFewRows, Fail, "The source has fewer than 2 data rows.",
        why: "With fewer data rows than `source.min_rows` there is no prior year, so no growth, average-based ratio or movement flag can be computed and most of the bundle cannot be judged.",
        fix: "Supply statements with at least `source.min_rows` fiscal years (2 by default) in the source CSV.";
    CheckId::SourceIdentity, Fail, "total_assets = total_liabilities + total_equity fails as an interval overlap in a row.",
        why: "If `total_assets` is not `total_liabilities` + `total_equity` within rounding, the balance sheet is internally inconsistent, so leverage and return figures built on it are unreliable whatever the agent did.",
        fix: "Correct that row's `total_assets`, `total_liabilities` or `total_equity` in the source CSV (the finding shows both intervals), or ask whoever supplied the statements.";
    CheckId::SourceGrossProfitMismatch, Fail, "gross_profit and revenue - cost_of_revenue are both printed and disagree as intervals.",
        why: "When printed `gross_profit` and `revenue - cost_of_revenue` disagree beyond rounding, the source holds two gross profits, so gross margin and flags on these lines depend on which one is used.",
        fix: "Correct `gross_profit`, `cost_of_revenue` or `revenue` in that row of the source CSV so they agree, or drop one column of the pair and let vouch derive it (`source.derived`).";
    CheckId::SourceMagnitude, Info, "A negative capex or interest expense was read as its magnitude.",
        why: "Reported because the source writes capex or interest expense as a negative number, and vouch reads it as a positive magnitude everywhere (`source.magnitudes`), so bundle figures are judged with the positive value.",
        fix: "Nothing to fix: the sign convention is accepted. Write these columns as positive magnitudes in the source CSV if you want the note gone.";
    CheckId::SourceIgnoredColumn, Info, "A non-required column was ignored: it has non-numeric cells, or no header.",
        why: "Reported because a column the contract does not need was left out: it has non-numeric cells or no header, so it is not a line item and no flag, metric or memo figure can refer to it.",
        fix: "Nothing to fix if the column holds notes. If it holds figures that should count, give it a header and make every cell a plain decimal.";
];

pub fn check(stmts: &Statements, out: &mut Vec<Finding>) {
    let art = stmts.file_name.clone();
    for p in &stmts.problems {
        let f = match p {
            Problem::MissingColumn { column } => Finding::fail(
                CheckId::SourceMissingColumn,
                format!("required column `{column}` (or one of its aliases) is missing"),
            ),
            Problem::MissingOneOf { columns } => Finding::fail(
                CheckId::SourceMissingColumn,
                format!("at least one of {} is required", columns.iter().map(|c| format!("`{c}`")).collect::<Vec<_>>().join(" and ")),
            ),
            Problem::DuplicateColumn { canonical, headers } => Finding::fail(
                CheckId::SourceDuplicateColumn,
                format!(
                    "columns {} all map to `{canonical}`",
                    headers.iter().map(|h| format!("`{h}`")).collect::<Vec<_>>().join(", ")
                ),
            )
            .at(Location::field(headers.join(", "))),
            Problem::NonNumeric { row, header, cell, year } => Finding::fail(
                CheckId::SourceNonNumeric,
                if cell.is_empty() {
                    format!("required cell is blank in column `{header}`")
                } else {
                    format!("`{cell}` in column `{header}` is not a plain decimal number")
                },
            )
            .at(Location { row: Some(*row), column: Some(header.clone()), year: *year, ..Default::default() }),
            Problem::TooLong { row, header, len, year } => Finding::fail(
                CheckId::SourceNumberTooLong,
                format!(
                    "a decimal of {len} characters in column `{header}` is longer than the {} vouch reads as a number",
                    crate::numbers::MAX_NUMBER_LEN
                ),
            )
            .at(Location { row: Some(*row), column: Some(header.clone()), year: *year, ..Default::default() }),
            Problem::YearInvalid { row, cell } => Finding::fail(
                CheckId::SourceYearInvalid,
                format!("year `{cell}` is neither an integer nor a fiscal-year label"),
            )
            .at(Location { row: Some(*row), ..Default::default() }),
            Problem::YearDuplicate { row, year } => Finding::fail(
                CheckId::SourceYearDuplicate,
                format!("year {year} appears more than once"),
            )
            .at(Location { row: Some(*row), year: Some(*year), ..Default::default() }),
            Problem::YearOrder { row, year, previous } => Finding::fail(
                CheckId::SourceYearOrder,
                format!("year {year} follows {previous}; years must be strictly ascending"),
            )
            .at(Location { row: Some(*row), year: Some(*year), ..Default::default() }),
            Problem::YearGap { row, year, previous } => Finding::fail(
                CheckId::SourceYearGap,
                format!("year {year} follows {previous}; years must be consecutive"),
            )
            .at(Location { row: Some(*row), year: Some(*year), ..Default::default() }),
            Problem::TooFewRows { rows, min } => Finding::fail(
                CheckId::SourceTooFewRows,
                format!("{rows} data row(s); at least {min} are needed for year-over-year metrics"),
            ),
            Problem::Identity { row, year, total, parts, total_printed, parts_printed } => Finding::fail(
                CheckId::SourceIdentity,
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
                CheckId::SourceGrossProfitMismatch,
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
                CheckId::SourceMagnitude,
                format!("`{cell}` in `{header}` read as its magnitude {}", cell.trim_start_matches(['-', '−'])),
            )
            .at(Location { row: Some(*row), column: Some(header.clone()), year: *year, ..Default::default() }),
            Problem::UnnamedColumn { column, row } => Finding::info(
                CheckId::SourceIgnoredColumn,
                format!("column {column} has no header but holds values (first in row {row}); ignored: no flag or metric can name it"),
            )
            .at(Location { row: Some(*row), ..Default::default() }),
            Problem::IgnoredColumn { header, cell } => Finding::info(
                CheckId::SourceIgnoredColumn,
                format!("column `{header}` has non-numeric cells (e.g. `{cell}`) and is not required; ignored"),
            )
            .at(Location::field(header.clone())),
        };
        out.push(f.artifact(art.clone()));
    }
}
