//! JUnit XML: one testcase per check (grouped in one testsuite per family), failures and
//! warnings carrying their findings, for CI systems that display test reports.

use super::{Report, Status};
use quick_xml::escape::escape;
use std::fmt::Write;

pub fn render(report: &Report) -> String {
    let summary = report.check_summary();
    let mut out = String::from("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
    let failures = summary.iter().filter(|(_, s)| *s == Status::Fail).count();
    let _ = writeln!(
        out,
        "<testsuites name=\"vouch\" tests=\"{}\" failures=\"{}\" errors=\"0\">",
        summary.len(),
        failures
    );
    for family in super::Family::ALL {
        let cases: Vec<_> = summary.iter().filter(|(d, _)| d.family == family).collect();
        let _ = writeln!(
            out,
            "  <testsuite name=\"{}\" tests=\"{}\" failures=\"{}\" skipped=\"{}\">",
            family.as_str(),
            cases.len(),
            cases.iter().filter(|(_, s)| *s == Status::Fail).count(),
            if report.families_checked.contains(&family) {
                0
            } else {
                1
            }
        );
        if !report.families_checked.contains(&family) {
            let _ = writeln!(
                out,
                "    <testcase classname=\"vouch.{0}\" name=\"{0}\"><skipped message=\"not checked\"/></testcase>",
                family.as_str()
            );
        }
        for (def, status) in cases {
            let _ = write!(
                out,
                "    <testcase classname=\"vouch.{}\" name=\"{}\"",
                family.as_str(),
                def.id
            );
            let findings: Vec<_> = report
                .findings
                .iter()
                .filter(|f| f.id == def.id && f.status >= Status::Warn)
                .collect();
            if findings.is_empty() {
                out.push_str("/>\n");
                continue;
            }
            out.push_str(">\n");
            let text: String = findings
                .iter()
                .map(|f| {
                    let mut line = format!(
                        "{} {}",
                        f.status.as_str(),
                        f.artifact.clone().unwrap_or_default()
                    );
                    let loc = f.location.to_string();
                    if !loc.is_empty() {
                        line.push_str(&format!(" {loc}"));
                    }
                    line.push_str(&format!(": {}", f.message));
                    if let Some(n) = &f.number {
                        line.push_str(&format!(
                            " [printed {} recomputed {} k {}]",
                            n.printed,
                            n.recomputed.clone().unwrap_or_default(),
                            n.k.clone().unwrap_or_default()
                        ));
                    }
                    line
                })
                .collect::<Vec<_>>()
                .join("\n");
            let tag = if *status == Status::Fail {
                "failure"
            } else {
                "system-out"
            };
            if tag == "failure" {
                let _ = writeln!(
                    out,
                    "      <failure message=\"{}\" type=\"{}\">{}</failure>",
                    escape(findings[0].message.as_str()),
                    def.id,
                    escape(text.as_str())
                );
            } else {
                let _ = writeln!(
                    out,
                    "      <system-out>{}</system-out>",
                    escape(text.as_str())
                );
            }
            out.push_str("    </testcase>\n");
        }
        out.push_str("  </testsuite>\n");
    }
    out.push_str("</testsuites>\n");
    out
}
