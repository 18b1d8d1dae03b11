//! Every check id vouch can emit, as one enum ([`CheckId`]). Findings carry a `CheckId`, never
//! a string, so a misspelt id does not compile; the string form (`metrics.value`) is what
//! reports print and what users pass to `vouch explain`. Each id is defined (severity, meaning,
//! why it matters, how to fix) once, in the rule table next to the code that emits it; the
//! registry test checks that every id here has exactly one definition.

use super::Family;

/// Generate [`CheckId`] from `Variant = "family.name", Family;` lines.
macro_rules! check_ids {
    ($($variant:ident = $id:literal, $family:ident;)*) => {
        /// A check id. Its string form is [`CheckId::as_str`].
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
        pub enum CheckId {
            $(
                #[doc = concat!("`", $id, "`")]
                $variant,
            )*
        }

        impl CheckId {
            /// Every id, in the catalogue's order (family by family, as the contract orders them).
            pub const ALL: &'static [CheckId] = &[$(CheckId::$variant,)*];

            /// The id as reports print it: `family.name`.
            pub const fn as_str(self) -> &'static str {
                match self { $(CheckId::$variant => $id,)* }
            }

            /// The family the id belongs to (its prefix).
            pub const fn family(self) -> Family {
                match self { $(CheckId::$variant => Family::$family,)* }
            }
        }
    };
}

check_ids! {
    BundleMissing = "bundle.missing", Bundle;
    BundleSymlink = "bundle.symlink", Bundle;
    BundleNotRegularFile = "bundle.not_regular_file", Bundle;
    BundleEmpty = "bundle.empty", Bundle;
    BundleTooLarge = "bundle.too_large", Bundle;
    BundleUnreadable = "bundle.unreadable", Bundle;
    BundleExtraFile = "bundle.extra_file", Bundle;
    SourceMissingColumn = "source.missing_column", Source;
    SourceDuplicateColumn = "source.duplicate_column", Source;
    SourceNonNumeric = "source.non_numeric", Source;
    SourceNumberTooLong = "source.number_too_long", Source;
    SourceYearInvalid = "source.year_invalid", Source;
    SourceYearDuplicate = "source.year_duplicate", Source;
    SourceYearOrder = "source.year_order", Source;
    SourceYearGap = "source.year_gap", Source;
    SourceTooFewRows = "source.too_few_rows", Source;
    SourceIdentity = "source.identity", Source;
    SourceGrossProfitMismatch = "source.gross_profit_mismatch", Source;
    SourceMagnitude = "source.magnitude", Source;
    SourceIgnoredColumn = "source.ignored_column", Source;
    MetricsUnreadable = "metrics.unreadable", Metrics;
    MetricsLayout = "metrics.layout", Metrics;
    MetricsMissingMetric = "metrics.missing_metric", Metrics;
    MetricsDuplicateMetric = "metrics.duplicate_metric", Metrics;
    MetricsExtraMetric = "metrics.extra_metric", Metrics;
    MetricsMissingYear = "metrics.missing_year", Metrics;
    MetricsExtraYear = "metrics.extra_year", Metrics;
    MetricsExtraLabel = "metrics.extra_label", Metrics;
    MetricsMissingValue = "metrics.missing_value", Metrics;
    MetricsNonNumeric = "metrics.non_numeric", Metrics;
    MetricsUndefinedValue = "metrics.undefined_value", Metrics;
    MetricsValue = "metrics.value", Metrics;
    MetricsMixedVariant = "metrics.mixed_variant", Metrics;
    MetricsMixedScale = "metrics.mixed_scale", Metrics;
    MetricsScaleHint = "metrics.scale_hint", Metrics;
    MetricsImprecise = "metrics.imprecise", Metrics;
    MetricsSourceValue = "metrics.source_value", Metrics;
    MetricsNotMeaningful = "metrics.not_meaningful", Metrics;
    MovementsUnreadable = "movements.unreadable", Movements;
    MovementsParse = "movements.parse", Movements;
    MovementsMissing = "movements.missing", Movements;
    MovementsSpurious = "movements.spurious", Movements;
    MovementsUnknownItem = "movements.unknown_item", Movements;
    MovementsRuleMismatch = "movements.rule_mismatch", Movements;
    MovementsDuplicateRow = "movements.duplicate_row", Movements;
    MovementsExtraFlag = "movements.extra_flag", Movements;
    MovementsChange = "movements.change", Movements;
    SvgUnreadable = "svg.unreadable", Svg;
    SvgMalformed = "svg.malformed", Svg;
    SvgTooComplex = "svg.too_complex", Svg;
    SvgUnmodelled = "svg.unmodelled", Svg;
    SvgDoctypeEntity = "svg.doctype_entity", Svg;
    SvgDoctype = "svg.doctype", Svg;
    SvgRoot = "svg.root", Svg;
    SvgSize = "svg.size", Svg;
    SvgScript = "svg.script", Svg;
    SvgForeignObject = "svg.foreign_object", Svg;
    SvgEventAttribute = "svg.event_attribute", Svg;
    SvgExternalHref = "svg.external_href", Svg;
    SvgExternalStyle = "svg.external_style", Svg;
    SvgPanelCount = "svg.panel_count", Svg;
    SvgPanelTitle = "svg.panel_title", Svg;
    SvgPanelSeries = "svg.panel_series", Svg;
    SvgPanelYears = "svg.panel_years", Svg;
    SvgPanelOverlap = "svg.panel_overlap", Svg;
    SvgPanelOutside = "svg.panel_outside", Svg;
    SvgFontSize = "svg.font_size", Svg;
    SvgTextOutside = "svg.text_outside", Svg;
    SvgFidelity = "svg.fidelity", Svg;
    MemoUnreadable = "memo.unreadable", Memo;
    MemoTooComplex = "memo.too_complex", Memo;
    MemoMissingSection = "memo.missing_section", Memo;
    MemoSectionOrder = "memo.section_order", Memo;
    MemoDuplicateSection = "memo.duplicate_section", Memo;
    MemoHeadingLookalike = "memo.heading_lookalike", Memo;
    MemoSectionTooShort = "memo.section_too_short", Memo;
    MemoKpiTableMissing = "memo.kpi_table_missing", Memo;
    MemoKpiUnmatchedLabel = "memo.kpi_unmatched_label", Memo;
    MemoKpiValue = "memo.kpi_value", Memo;
    MemoKpiUndefined = "memo.kpi_undefined", Memo;
    MemoKpiNotMeaningful = "memo.kpi_not_meaningful", Memo;
    MemoKpiNotANumber = "memo.kpi_not_a_number", Memo;
    MemoImprecise = "memo.imprecise", Memo;
    MemoMissingEvidence = "memo.missing_evidence", Memo;
    MemoUnknownFile = "memo.unknown_file", Memo;
    MemoYearOutOfRange = "memo.year_out_of_range", Memo;
    MemoNumberOutOfRange = "memo.number_out_of_range", Memo;
    MemoContradictedNumber = "memo.contradicted_number", Memo;
    MemoUnverifiedNumber = "memo.unverified_number", Memo;
    ManifestUnreadable = "manifest.unreadable", Manifest;
    ManifestParse = "manifest.parse", Manifest;
    ManifestDuplicateKey = "manifest.duplicate_key", Manifest;
    ManifestMissingKey = "manifest.missing_key", Manifest;
    ManifestInputFilename = "manifest.input_filename", Manifest;
    ManifestRowCount = "manifest.row_count", Manifest;
    ManifestYearRange = "manifest.year_range", Manifest;
    ManifestValidationResults = "manifest.validation_results", Manifest;
    ManifestIdentityClaim = "manifest.identity_claim", Manifest;
    ManifestClaim = "manifest.claim", Manifest;
    ManifestScriptNotListed = "manifest.script_not_listed", Manifest;
    ManifestGeneratedFilenames = "manifest.generated_filenames", Manifest;
    ManifestExecutionDirectory = "manifest.execution_directory", Manifest;
    ScriptUnreadable = "script.unreadable", Script;
    ScriptSyntax = "script.syntax", Script;
    ScriptNonStdlibImport = "script.non_stdlib_import", Script;
    ScriptNetworkOrProcess = "script.network_or_process", Script;
    ScriptRelativeImport = "script.relative_import", Script;
    ScriptDynamicImport = "script.dynamic_import", Script;
    ScriptMissingArtifactName = "script.missing_artifact_name", Script;
    ScriptReproducible = "script.reproducible", Script;
    ScriptReproducibleBytes = "script.reproducible_bytes", Script;
    ScriptReexecutionFailed = "script.reexecution_failed", Script;
    ScriptReexecuted = "script.reexecuted", Script;
    ConsistencyKpiVsMetrics = "consistency.kpi_vs_metrics", Consistency;
    ConsistencyMovementsVsMetrics = "consistency.movements_vs_metrics", Consistency;
    ConsistencyYearRange = "consistency.year_range", Consistency;
}

impl CheckId {
    /// The id whose string form is `s`.
    pub fn parse(s: &str) -> Option<CheckId> {
        CheckId::ALL.iter().copied().find(|c| c.as_str() == s)
    }
}

impl std::fmt::Display for CheckId {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.pad(self.as_str())
    }
}

impl PartialEq<str> for CheckId {
    fn eq(&self, other: &str) -> bool {
        self.as_str() == other
    }
}

impl PartialEq<&str> for CheckId {
    fn eq(&self, other: &&str) -> bool {
        self.as_str() == *other
    }
}

impl serde::Serialize for CheckId {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.as_str())
    }
}

impl<'de> serde::Deserialize<'de> for CheckId {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<CheckId, D::Error> {
        let s = <std::borrow::Cow<'de, str>>::deserialize(d)?;
        CheckId::parse(&s)
            .ok_or_else(|| serde::de::Error::custom(format!("unknown check id `{s}`")))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_are_unique_and_prefixed_by_their_family() {
        let mut seen = std::collections::HashSet::new();
        for id in CheckId::ALL {
            assert!(seen.insert(id.as_str()), "{id} twice");
            assert_eq!(id.as_str().split('.').next(), Some(id.family().as_str()));
            assert_eq!(CheckId::parse(id.as_str()), Some(*id));
        }
    }
}
