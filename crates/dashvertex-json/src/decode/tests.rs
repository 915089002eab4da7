//! Unit tests of the decoder: linear work on unknown members, and what it keeps.

#![allow(clippy::unwrap_used, clippy::indexing_slicing)]

use super::*;

/// A DMX document with `n` top-level members dash does not model (`k0`, `k1`, …), or
/// with them one level down when `nested`.
fn document(n: usize, nested: bool) -> String {
    let members: Vec<String> = (0..n).map(|i| format!("\"k{i}\":0")).collect();
    let members = members.join(",");
    if nested {
        format!("{{\"type\":\"{DOCUMENT_TYPE}\",\"vertex\":[],\"extra\":{{{members}}}}}")
    } else {
        format!("{{\"type\":\"{DOCUMENT_TYPE}\",\"vertex\":[],{members}}}")
    }
}

/// The lookups and name comparisons decoding `text` takes.
fn work(text: &str) -> u64 {
    probe::take();
    let file = decode(text, &Limits::default()).unwrap();
    assert_eq!(file.form, Form::Document);
    probe::take()
}

/// Issue: unknown top-level members were kept with a search through the earlier ones
/// per member, so 160,000 of them took 36 s. Counted, not timed: 8× the members may
/// take at most 8× the work (and a little), where the search took 64×.
#[test]
fn unknown_members_decode_in_linear_work() {
    let n = 2_000;
    let (small, large) = (work(&document(n, false)), work(&document(8 * n, false)));
    assert!(small >= n as u64, "every member is looked up once: {small}");
    assert!(
        large <= 8 * small + 1_000,
        "{n} members took {small} comparisons, {} took {large}",
        8 * n
    );
    // Members one level down are kept whole with the one member holding them.
    assert_eq!(work(&document(8 * n, true)), 1);
}

#[test]
fn a_repeated_unknown_member_is_still_refused_where_it_repeats() {
    let text = format!("{{\"type\":\"{DOCUMENT_TYPE}\",\"vertex\":[],\"a\":1,\"b\":2,\"a\":3}}");
    let e = decode(&text, &Limits::default()).unwrap_err();
    assert_eq!(e.pointer, "/a");
    assert!(e.message.contains("duplicate field `a`"), "{}", e.message);
}

#[test]
fn many_unknown_members_keep_their_order_when_written_back() {
    let text = document(3_000, false);
    let file = decode(&text, &Limits::default()).unwrap();
    assert_eq!(file.foreign.len(), 3_000);
    let out = crate::encode(&file).unwrap();
    let again = decode(&out, &Limits::default()).unwrap();
    let names = |f: &JsonFile| f.foreign.iter().map(|(k, _)| k.clone()).collect::<Vec<_>>();
    assert_eq!(names(&again), names(&file));
    // Members the order does not name are written after those it does.
    let mut partial = file.clone();
    partial
        .order
        .retain(|k| !matches!(k, DocKey::Foreign(i) if i % 2 == 0));
    let out = crate::encode(&partial).unwrap();
    let again = decode(&out, &Limits::default()).unwrap();
    let expect: Vec<String> = (0..3_000)
        .filter(|i| i % 2 == 1)
        .chain((0..3_000).filter(|i| i % 2 == 0))
        .map(|i| format!("k{i}"))
        .collect();
    assert_eq!(names(&again), expect);
}
