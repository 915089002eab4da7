//! Unit tests of the manifest: numbering, updates, renames, names, differences.

use super::*;

fn b(name: &str, parent: Option<&str>) -> BoneRef {
    BoneRef {
        name: name.into(),
        parent: parent.map(Into::into),
    }
}

#[test]
fn new_bones_are_numbered_parents_first_siblings_by_name() {
    let sk = [
        b("spine", Some("root")),
        b("arm_r", Some("spine")),
        b("root", None),
        b("arm_l", Some("spine")),
        b("head", Some("spine")),
        b("tail", Some("root")),
    ];
    assert_eq!(
        canonical_order(&sk),
        ["root", "spine", "arm_l", "arm_r", "head", "tail"]
    );
    let m = Manifest::init(&sk).unwrap();
    assert_eq!(m.index_of("head"), Some(4));
}

#[test]
fn removed_bones_keep_their_index_and_compact_renumbers() {
    let mut m = Manifest::init(&[b("a", None), b("b", Some("a")), b("c", Some("a"))]).unwrap();
    let ch = m
        .update(&[b("a", None), b("c", Some("a")), b("d", Some("c"))], true)
        .unwrap();
    assert_eq!(ch.removed, vec![("b".to_owned(), 1)]);
    assert_eq!(ch.added, vec![("d".to_owned(), 3)]);
    assert_eq!(m.index_of("c"), Some(2));
    let ch = m.update(&[b("a", None), b("b", Some("a"))], false).unwrap();
    assert_eq!(ch.revived, vec![("b".to_owned(), 1)]);
    m.bones[2].removed = true;
    assert_eq!(m.compact(), vec![("d".to_owned(), 3, 2)]);
    assert_eq!(Manifest::from_json(&m.to_json()).unwrap(), m);
}

#[test]
fn only_version_1_manifests_with_ordered_indices_and_distinct_names_are_read() {
    for (text, says) in [
        (r#"{"version": 2, "bones": []}"#, "version 2"),
        (
            r#"{"version": 1, "bones": [{"index": 1, "name": "a"}]}"#,
            "index 1",
        ),
        (
            r#"{"version": 1, "bones": [{"index": 0, "name": "a"}, {"index": 1, "name": "a"}]}"#,
            "\"a\" is the name of bone 0 (/bones/0/name) and the name of bone 1",
        ),
        (
            r#"{"version": 1, "bones": [{"index": 0, "name": ""}]}"#,
            "empty",
        ),
        (r#"[1, 2]"#, "invalid manifest"),
    ] {
        let err = Manifest::from_json(text).unwrap_err();
        assert!(err.to_string().contains(says), "{text}: {err}");
    }
    let json = Manifest::from_json("{").unwrap_err();
    assert!(
        std::error::Error::source(&json).is_some(),
        "the JSON error is the source"
    );
    let m = Manifest::from_json(
        r#"{"version": 1, "bones": [{"index": 0, "name": "root"},
            {"index": 1, "name": "gone", "removed": true}, {"index": 2, "name": "arm"}]}"#,
    )
    .unwrap();
    assert_eq!((m.len(), m.removed_indices()), (3, vec![1]));
}

#[test]
fn renames_keep_the_index() {
    let mut m = Manifest::init(&[b("a", None), b("b", Some("a"))]).unwrap();
    m.rename(&[("b".into(), "B".into())]).unwrap();
    assert_eq!(m.index_of("B"), Some(1));
    assert_eq!(m.bones[1].aliases, ["b"]);
    assert!(m.rename(&[("zz".into(), "y".into())]).is_err());
    assert!(m.rename(&[("a".into(), "B".into())]).is_err());
}

/// The issue-23 rig: a bone renamed in the manifest, an older asset still using the
/// old name.
fn renamed_rig() -> Manifest {
    let mut m = Manifest::init(&[
        b("root", None),
        b("hand_l", Some("root")),
        b("fingers_l", Some("hand_l")),
        b("tip_l", Some("fingers_l")),
    ])
    .unwrap();
    m.rename(&[("fingers_l".into(), "fingers.L".into())])
        .unwrap();
    m
}

#[test]
fn an_old_name_finds_the_bone_and_adds_nothing() {
    let mut m = renamed_rig();
    assert_eq!(
        m.bones[3].parent.as_deref(),
        Some("fingers.L"),
        "children follow"
    );
    let before = m.clone();
    let old_asset = [
        b("root", None),
        b("hand_l", Some("root")),
        b("fingers_l", Some("hand_l")),
        b("tip_l", Some("fingers_l")),
    ];
    let ch = m.update(&old_asset, true).unwrap();
    assert!(ch.is_empty(), "{:?}", ch.describe());
    assert_eq!(m, before);
    assert_eq!(m.index_of("fingers_l"), Some(2));
    assert_eq!(m.lookup().index_of("fingers_l"), Some(2));
    assert_eq!(
        m.first_out_of_order(&["root", "hand_l", "fingers_l", "tip_l"], false),
        None
    );
    // A parent recorded under the old name is the same parent.
    m.bones[3].parent = Some("fingers_l".into());
    assert!(m.update(&old_asset, false).unwrap().is_empty());
    // Both names in one skeleton are one bone twice.
    let both = [b("fingers_l", None), b("fingers.L", None)];
    let err = m.update(&both, false).unwrap_err();
    assert!(matches!(err, ManifestError::SameBone { .. }), "{err}");
    assert!(
        err.to_string().contains("\"fingers_l\" and \"fingers.L\""),
        "{err}"
    );
}

#[test]
fn update_all_is_update_in_turn() {
    let sk1 = [b("a", None), b("b", Some("a"))];
    let sk2 = [b("a", None), b("b", None), b("c", Some("b"))];
    let sk3 = [b("c", Some("a")), b("d", None)];
    let mut one = Manifest::init(&[b("a", None)]).unwrap();
    one.bones[0].removed = true;
    let mut turn = one.clone();
    let mut all = Changes::default();
    for sk in [&sk1[..], &sk2, &sk3] {
        let c = turn.update(sk, false).unwrap();
        all.added.extend(c.added);
        all.revived.extend(c.revived);
        all.reparented.extend(c.reparented);
    }
    let ch = one.update_all(&[&sk1, &sk2, &sk3], false).unwrap();
    assert_eq!(one, turn);
    assert_eq!(ch, all);
    assert_eq!(ch.reparented.len(), 2, "b loses its parent, c changes it");
}

#[test]
fn a_blank_name_never_enters_a_manifest() {
    // spec: M7
    for blank in ["", " ", "\t\n", "\u{3000}"] {
        // From a skeleton (reduce, manifest update, Python's assign).
        let mut m = Manifest::new();
        let err = m
            .update(&[b("root", None), b(blank, Some("root"))], false)
            .unwrap_err();
        assert!(
            matches!(&err, ManifestError::BlankBone { position: 1, name } if name == blank),
            "{blank:?}: {err}"
        );
        assert!(m.is_empty(), "nothing added");
        // By a rename.
        let mut m = Manifest::init(&[b("root", None)]).unwrap();
        let err = m.rename(&[("root".into(), blank.into())]).unwrap_err();
        assert!(err.to_string().contains("whitespace"), "{err}");
        // Read from a file.
        let text = format!(
            r#"{{"version": 1, "bones": [{{"index": 0, "name": {}}}]}}"#,
            serde_json::to_string(blank).unwrap()
        );
        let err = Manifest::from_json(&text).unwrap_err();
        assert_eq!(err.pointer().as_deref(), Some("/bones/0/name"), "{err}");
        let text = format!(
            r#"{{"version": 1, "bones": [{{"index": 0, "name": "a", "aliases": ["b", {}]}}]}}"#,
            serde_json::to_string(blank).unwrap()
        );
        let err = Manifest::from_json(&text).unwrap_err();
        assert_eq!(
            err.pointer().as_deref(),
            Some("/bones/0/aliases/1"),
            "{err}"
        );
    }
}

#[test]
fn duplicate_aliases_are_refused_naming_both_bones() {
    for (bones, says) in [
        (
            r#"{"index": 0, "name": "a"}, {"index": 1, "name": "b", "aliases": ["a"]}"#,
            "\"a\" is the name of bone 0 (/bones/0/name) and an alias of bone 1 \"b\" (/bones/1/aliases/0)",
        ),
        (
            r#"{"index": 0, "name": "a", "aliases": ["x"]}, {"index": 1, "name": "b", "aliases": ["x"]}"#,
            "an alias of bone 0 \"a\" (/bones/0/aliases/0) and an alias of bone 1 \"b\" (/bones/1/aliases/0)",
        ),
        (
            r#"{"index": 0, "name": "a", "aliases": ["x", "x"]}"#,
            "(/bones/0/aliases/0) and an alias of bone 0 \"a\" (/bones/0/aliases/1)",
        ),
        (
            r#"{"index": 0, "name": "a", "aliases": ["a"]}"#,
            "the name of bone 0 (/bones/0/name) and an alias of bone 0",
        ),
        (
            r#"{"index": 0, "name": "a", "aliases": [""]}"#,
            "/bones/0/aliases/0) is empty",
        ),
    ] {
        let text = format!(r#"{{"version": 1, "bones": [{bones}]}}"#);
        let err = Manifest::from_json(&text).unwrap_err();
        assert!(err.to_string().contains(says), "{text}: {err}");
        assert!(err.pointer().is_some(), "{err}");
    }
}

#[test]
fn renames_keep_every_string_to_one_bone() {
    let mut m = renamed_rig();
    let refuse = |m: &mut Manifest, from: &str, to: &str, says: &str| {
        let before = m.clone();
        let err = m.rename(&[(from.into(), to.into())]).unwrap_err();
        assert!(err.to_string().contains(says), "{from}->{to}: {err}");
        assert_eq!(*m, before, "nothing applied");
    };
    refuse(
        &mut m,
        "root",
        "fingers_l",
        "former name (an alias) of bone 2 (\"fingers.L\")",
    );
    refuse(&mut m, "root", "hand_l", "already the name of bone 1");
    refuse(
        &mut m,
        "fingers_l",
        "f",
        "a former name of bone 2 (now \"fingers.L\")",
    );
    refuse(&mut m, "root", "root", "the same");
    // Back to the old name: the alias leaves the list.
    m.rename(&[("fingers.L".into(), "fingers_l".into())])
        .unwrap();
    assert_eq!(
        (m.bones[2].name.as_str(), &m.bones[2].aliases[..]),
        ("fingers_l", &["fingers.L".to_owned()][..])
    );
    // A chain in one call.
    m.rename(&[("root".into(), "r1".into()), ("r1".into(), "r2".into())])
        .unwrap();
    assert_eq!(m.bones[0].aliases, ["root", "r1"]);
    assert_eq!(m.bones[1].parent.as_deref(), Some("r2"));
    m.check_names().unwrap();
    let err = m
        .rename(&[("hand_l".into(), "x".into()), ("tip_l".into(), "x".into())])
        .unwrap_err();
    assert!(
        err.to_string()
            .contains("new name (an earlier rename) of bone 1"),
        "{err}"
    );
}

#[test]
fn a_rename_is_one_difference() {
    let old = Manifest::init(&[b("root", None), b("fingers_l", Some("root"))]).unwrap();
    let mut new = old.clone();
    new.rename(&[("fingers_l".into(), "fingers.L".into())])
        .unwrap();
    // The older asset reduced against the renamed manifest changes nothing.
    assert!(
        new.update(&[b("root", None), b("fingers_l", Some("root"))], false)
            .unwrap()
            .is_empty()
    );
    let d = old.diff(&new);
    assert_eq!(
        d,
        [Difference::Renamed {
            from: "fingers_l".into(),
            to: "fingers.L".into(),
            index: 1
        }]
    );
    assert_eq!(
        d[0].to_string(),
        "renamed bone \"fingers_l\" to \"fingers.L\""
    );
    let mut later = new.clone();
    later
        .update(&[b("root", None), b("toe", Some("root"))], true)
        .unwrap();
    later.bones[0].removed = true;
    let back = later.diff(&old);
    let text: Vec<String> = old.diff(&later).iter().map(ToString::to_string).collect();
    assert_eq!(
        text,
        [
            "retired bone \"root\" (index 0)",
            "renamed bone \"fingers_l\" to \"fingers.L\"",
            "retired bone \"fingers.L\" (index 1)",
            "added bone \"toe\" at index 2",
        ]
    );
    assert!(
        back.contains(&Difference::Removed {
            name: "toe".into(),
            index: 2
        }),
        "{back:?}"
    );
    let mut compacted = later.clone();
    compacted.compact();
    assert!(later.diff(&compacted).contains(&Difference::Moved {
        name: "toe".into(),
        from: 2,
        to: 0
    }));
}

#[test]
fn a_manifest_beyond_the_bone_bound_is_refused_while_read() {
    let m = Manifest::init(&[b("a", None), b("b", Some("a")), b("c", Some("a"))]).unwrap();
    let text = m.to_json();
    assert_eq!(Manifest::from_json_within(&text, 3).unwrap(), m);
    let err = Manifest::from_json_within(&text, 2).unwrap_err();
    assert!(
        matches!(err, ManifestError::TooManyBones { limit: 2 }),
        "{err}"
    );
    for (bad, says) in [
        (r#"{"version": 1, "bones": [], "x": 1}"#, "unknown field"),
        (
            r#"{"version": 1, "version": 1, "bones": []}"#,
            "duplicate field",
        ),
        (r#"{"bones": []}"#, "missing field"),
        (r#"{"version": 1, "bones": []} []"#, "trailing"),
        (
            r#"{"version": 1, "bones": [{"index": 0, "name": "a", "y": 2}]}"#,
            "unknown field",
        ),
    ] {
        let err = Manifest::from_json(bad).unwrap_err();
        assert!(err.to_string().contains(says), "{bad}: {err}");
    }
}

#[test]
fn lookups_are_fast_on_a_large_manifest() {
    let n = 200_000u32;
    let m = Manifest {
        version: VERSION,
        bones: (0..n)
            .map(|i| Entry {
                index: i,
                name: format!("b{i}"),
                parent: None,
                removed: false,
                aliases: vec![format!("old{i}")],
            })
            .collect(),
    };
    m.check_names().unwrap();
    let l = m.lookup();
    assert_eq!(l.index_of("old199999"), Some(199_999));
    let names: Vec<String> = (0..n).map(|i| format!("old{i}")).collect();
    assert_eq!(l.first_out_of_order(&names, false), None);
}

#[test]
fn overlap_counts_names_aliases_and_retired_bones_once() {
    let mut m = Manifest::init(&[
        b("root", None),
        b("spine", Some("root")),
        b("head", Some("spine")),
        b("tail", Some("root")),
    ])
    .unwrap();
    m.rename(&[("head".into(), "skull".into())]).unwrap();
    m.update(&[b("root", None), b("spine", Some("root"))], true)
        .unwrap();
    // Live: root, spine; retired: skull (alias head), tail.
    let same = m.overlap(["root", "spine", "head", "tail", "root"]);
    assert_eq!(
        same,
        Overlap {
            input: 4,
            shared: 4,
            manifest: 2
        }
    );
    assert!(!same.is_foreign());
    // Another rig: none of its 3 bones shared.
    let other = m.overlap(["wing_l", "wing_r", "beak"]);
    assert_eq!((other.shared, other.input), (0, 3));
    assert!(other.is_foreign());
    // 1 of 3 shared, but that is half of the manifest's live bones: not foreign.
    assert!(!m.overlap(["root", "wing_l", "wing_r"]).is_foreign());
    // Exactly half is not foreign; an empty manifest or input never is.
    assert!(!m.overlap(["root", "wing"]).is_foreign());
    // A manifest mostly inside the input (part of the rig, grown since) is not foreign.
    assert!(
        !m.overlap(["root", "spine", "a", "b", "c", "d", "e"])
            .is_foreign()
    );
    assert!(!Manifest::new().overlap(["a", "b"]).is_foreign());
    assert!(!m.overlap([]).is_foreign());
}

#[test]
fn the_default_manifest_is_a_new_one_its_reader_accepts() {
    let m = Manifest::default();
    assert_eq!(m, Manifest::new());
    assert_eq!(Manifest::from_json(&m.to_json()).unwrap(), m);
}
