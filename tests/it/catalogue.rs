//! `docs/checks.md` is the registry rendered; this test keeps them in sync.

use crate::support::root;

#[test]
fn checks_catalogue_matches_the_registry() {
    let path = root().join("docs/checks.md");
    let expected = vouch::report::registry::markdown();
    if std::env::var_os("VOUCH_BLESS").is_some() {
        std::fs::write(&path, &expected).unwrap();
    }
    let actual = std::fs::read_to_string(&path).unwrap_or_default();
    assert!(
        actual == expected,
        "docs/checks.md is out of date; run `VOUCH_BLESS=1 cargo test --test it catalogue` and review the diff"
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
