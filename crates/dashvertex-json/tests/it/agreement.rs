//! The JSON Schema and the decoder agree: a proptest builds valid texts, mutates them,
//! and checks that both give the same verdict.

use dashvertex_core::Limits;
use proptest::prelude::*;
use proptest::strategy::ValueTree;
use serde_json::{Value, json};

fn num() -> impl Strategy<Value = Value> {
    prop_oneof![
        (0u32..5).prop_map(|n| json!(n)),
        (0u32..1000).prop_map(|n| json!(n as f64 / 1000.0)),
        Just(json!(-2.5)),
    ]
}

fn skin_pair() -> impl Strategy<Value = (Value, Value)> {
    (0usize..=4).prop_flat_map(|n| {
        (
            proptest::collection::vec((0u32..40).prop_map(|i| json!(i)), n),
            proptest::collection::vec(num(), n),
        )
            .prop_map(|(i, w)| (Value::Array(i), Value::Array(w)))
    })
}

fn vertex() -> impl Strategy<Value = Value> {
    (
        num(),
        num(),
        num(),
        proptest::option::of((skin_pair(), proptest::collection::vec(skin_pair(), 0..3))),
    )
        .prop_map(|(x, y, z, skin)| {
            let mut v = json!({"x": x, "y": y, "z": z});
            if let Some(((i, w), sets)) = skin {
                v["skinIndex"] = i;
                v["skinWeight"] = w;
                if !sets.is_empty() {
                    v["skinSets"] = Value::Array(
                        sets.into_iter()
                            .map(|(i, w)| json!({"skinIndex": i, "skinWeight": w}))
                            .collect(),
                    );
                }
            }
            v
        })
}

fn bone() -> impl Strategy<Value = Value> {
    ("[a-z]{1,6}", proptest::option::of(0u32..4), any::<bool>()).prop_map(|(name, parent, tr)| {
        let mut b = json!({"name": name, "parentIndex": parent});
        if tr {
            b["position"] = json!({"x": 0, "y": 1, "z": 0});
            b["rotation"] = json!({"x": 0, "y": 0, "z": 0, "w": 1});
            b["scale"] = json!({"x": 1, "y": 1, "z": 1});
        }
        b
    })
}

fn valid_text() -> impl Strategy<Value = Value> {
    prop_oneof![
        vertex(),
        proptest::collection::vec(vertex(), 0..4).prop_map(Value::Array),
        (
            proptest::collection::vec(vertex(), 0..4),
            proptest::option::of(proptest::collection::vec(bone(), 0..3)),
            any::<bool>()
        )
            .prop_map(|(vs, bones, extra)| {
                let mut d = json!({"type": "DashModelExchange", "vertex": vs});
                if let Some(b) = bones {
                    d["bone"] = Value::Array(b);
                }
                if extra {
                    d["material"] = json!([{"name": "m"}]);
                    d["face"] = json!([]);
                }
                d
            }),
    ]
}

/// Every place in a value, as a path of keys / indices.
fn places(v: &Value, path: &mut Vec<Value>, out: &mut Vec<Vec<Value>>) {
    out.push(path.clone());
    match v {
        Value::Object(m) => {
            for (k, c) in m {
                path.push(json!(k));
                places(c, path, out);
                path.pop();
            }
        }
        Value::Array(a) => {
            for (i, c) in a.iter().enumerate() {
                path.push(json!(i));
                places(c, path, out);
                path.pop();
            }
        }
        _ => {}
    }
}

fn at<'a>(v: &'a mut Value, path: &[Value]) -> &'a mut Value {
    let mut cur = v;
    for p in path {
        cur = match p {
            Value::String(k) => cur.get_mut(k.as_str()).unwrap(),
            Value::Number(n) => cur.get_mut(n.as_u64().unwrap() as usize).unwrap(),
            _ => unreachable!(),
        };
    }
    cur
}

const REPLACEMENTS: &[&str] = &[
    "\"1\"",
    "null",
    "1e39",
    "-1e39",
    "-1",
    "1.5",
    "4294967296",
    "4294967295",
    "true",
    "-0.0",
    "2.0",
    "3.4028235677973366e38",
    "3.4028235e38",
    "[]",
    "{}",
    "\"DashModelExchange\"",
    "[0,0,0,0,0]",
    "[0.5]",
    "5e-324",
];
const KEYS: &[&str] = &[
    "x",
    "y",
    "z",
    "skinIndex",
    "skinWeight",
    "skinSets",
    "type",
    "vertex",
    "bone",
    "name",
    "parentIndex",
    "position",
    "bogus",
    "w",
];

fn mutate(v: &mut Value, kind: u8, a: usize, b: usize) {
    let mut all = Vec::new();
    places(v, &mut Vec::new(), &mut all);
    let path = all[a % all.len()].clone();
    let target = at(v, &path);
    match kind % 4 {
        0 => *target = serde_json::from_str(REPLACEMENTS[b % REPLACEMENTS.len()]).unwrap(),
        1 => {
            if let Value::Object(m) = target {
                let key = KEYS[b % KEYS.len()];
                if m.contains_key(key) {
                    m.remove(key);
                } else {
                    m.insert(
                        key.into(),
                        serde_json::from_str(REPLACEMENTS[b % REPLACEMENTS.len()]).unwrap(),
                    );
                }
            }
        }
        2 => {
            if let Value::Array(arr) = target {
                if b.is_multiple_of(2) {
                    arr.pop();
                } else {
                    let item = arr.first().cloned().unwrap_or(json!(0));
                    arr.push(item);
                }
            }
        }
        _ => {
            if let Value::Object(m) = target
                && let Some(k) = m.keys().nth(b % m.len().max(1)).cloned()
            {
                m.remove(&k);
            }
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 3000, failure_persistence: None, ..ProptestConfig::default() })]

    /// The schema and the decoder return the same verdict on valid and mutated texts.
    #[test]
    fn schema_and_decoder_agree(mut value in valid_text(), muts in proptest::collection::vec((any::<u8>(), any::<usize>(), any::<usize>()), 0..3)) {
        for (k, a, b) in muts {
            mutate(&mut value, k, a, b);
        }
        let text = serde_json::to_string(&value).unwrap();
        let validator = crate::common::schema_validator();
        let by_schema = crate::common::schema_accepts(&validator, &text);
        let by_decoder = dashvertex_json::decode(&text, &Limits::default());
        prop_assert_eq!(by_schema, by_decoder.is_ok(), "{}\ndecoder: {:?}", text, by_decoder.err());
    }
}

#[test]
fn valid_texts_are_accepted_by_both() {
    let validator = crate::common::schema_validator();
    let mut runner = proptest::test_runner::TestRunner::deterministic();
    for _ in 0..300 {
        let v = valid_text().new_tree(&mut runner).unwrap().current();
        let text = serde_json::to_string(&v).unwrap();
        assert!(crate::common::schema_accepts(&validator, &text), "{text}");
        assert!(
            dashvertex_json::decode(&text, &Limits::default()).is_ok(),
            "{text}"
        );
    }
}
