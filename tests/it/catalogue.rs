//! `docs/checks.md` is the registry rendered; this test keeps them in sync.

use crate::support::assert_generated;

#[test]
fn checks_catalogue_matches_the_registry() {
    assert_generated(
        "docs/checks.md",
        &vouch::report::registry::markdown(),
        "VOUCH_BLESS=1 cargo nextest run -E 'test(catalogue)'",
    );
}

#[test]
fn check_ids_are_unique_and_well_formed() {
    let mut seen = std::collections::HashSet::new();
    for c in vouch::report::registry::all() {
        assert!(
            seen.insert(c.id.as_str()),
            "duplicate check id {}",
            c.id.as_str()
        );
        let (family, rest) = c.id.as_str().split_once('.').expect("family.name");
        assert_eq!(family, c.family.as_str(), "{}", c.id.as_str());
        assert!(
            !rest.is_empty()
                && rest
                    .chars()
                    .all(|ch| ch.is_ascii_lowercase() || ch == '_' || ch.is_ascii_digit()),
            "{}",
            c.id.as_str()
        );
    }
}

/// Every `CheckId` is defined exactly once, in the family rule table its prefix names, with all
/// four parts of its doc; no table defines an id the enum lacks (it could not: the tables name
/// enum variants).
#[test]
fn every_check_id_has_exactly_one_complete_definition() {
    use vouch::report::CheckId;
    let all = vouch::report::registry::all();
    assert_eq!(all.len(), CheckId::ALL.len(), "rule tables vs CheckId");
    for id in CheckId::ALL {
        let defs: Vec<_> = all.iter().filter(|c| c.id == *id).collect();
        assert_eq!(defs.len(), 1, "{id} defined {} times", defs.len());
        let d = defs[0];
        assert_eq!(d.family, id.family(), "{id}");
        assert!(std::ptr::eq(vouch::report::registry::def(*id), *d), "{id}");
        assert!(d.meaning.len() >= 10, "{id}: `meaning` is too short");
        for (part, text) in [("why", d.why), ("fix", d.fix)] {
            assert!(
                text.len() >= 20 && text.ends_with(['.', ')']),
                "{id}: `{part}` should be a sentence: {text:?}"
            );
        }
        assert_ne!(d.why, d.fix, "{id}");
    }
}
