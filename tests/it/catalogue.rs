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
        assert!(seen.insert(c.id), "duplicate check id {}", c.id);
        let (family, rest) = c.id.split_once('.').expect("family.name");
        assert_eq!(family, c.family.as_str(), "{}", c.id);
        assert!(
            !rest.is_empty()
                && rest
                    .chars()
                    .all(|ch| ch.is_ascii_lowercase() || ch == '_' || ch.is_ascii_digit()),
            "{}",
            c.id
        );
    }
}
