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
        "<testsuites name=\"vouch\" tests=\"{}\" failures=\"{}\" errors=\"0\" skipped=\"{}\">",
        summary.len(),
        failures,
        summary
            .iter()
            .filter(|(_, s)| *s == Status::Skipped)
            .count()
    );
    for family in super::Family::ALL {
        let cases: Vec<_> = summary.iter().filter(|(d, _)| d.family == family).collect();
        let _ = writeln!(
            out,
            "  <testsuite name=\"{}\" tests=\"{}\" failures=\"{}\" skipped=\"{}\">",
            family.as_str(),
            cases.len(),
            cases.iter().filter(|(_, s)| *s == Status::Fail).count(),
            cases.iter().filter(|(_, s)| *s == Status::Skipped).count(),
        );
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
            if *status == Status::Skipped {
                let reason = report.skip_reason(def).unwrap_or_default();
                let _ = writeln!(
                    out,
                    "><skipped message=\"{}\"/></testcase>",
                    escape(reason.as_str())
                );
                continue;
            }
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
