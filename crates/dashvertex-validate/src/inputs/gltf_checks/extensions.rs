//! Extension declarations (`GLTF_EXTENSIONS`, `GLTF_DEPENDENCY`): `extensionsUsed` and
//! `extensionsRequired` list each name once, every required extension is used, and every
//! `extensions` object (anywhere outside `extras`) names only used extensions. The walk
//! is iterative, over the JSON once.

use std::collections::BTreeSet;

use dashvertex_json::pointer::push_token;
use serde_json::Value;

use super::{Tok, array, push_as};
use crate::codes::Code;
use crate::inputs::gltf::Doc;
use crate::sink::Sink;
use dashvertex_json::Members;

/// Runs the checks of the module comment.
pub(crate) fn check_all(root: &Value, doc: &Doc, sink: &mut Sink) {
    let mut used = BTreeSet::new();
    for key in ["extensionsUsed", "extensionsRequired"] {
        let mut seen = BTreeSet::new();
        for (k, name) in array(root, key).iter().enumerate() {
            let Some(name) = name.as_str() else { continue };
            if !seen.insert(name) {
                push_as(
                    doc,
                    sink,
                    Code::GLTF_EXTENSIONS,
                    "DUPLICATE_ELEMENTS",
                    &format!("/{key}/{k}"),
                    || format!("{key} lists {name} twice"),
                );
            }
        }
        if key == "extensionsUsed" {
            used = seen;
        }
    }
    if root.member("extensionsRequired").is_some() && root.member("extensionsUsed").is_none() {
        push_as(
            doc,
            sink,
            Code::GLTF_DEPENDENCY,
            "UNSATISFIED_DEPENDENCY",
            "/extensionsRequired",
            || "extensionsRequired without extensionsUsed".to_owned(),
        );
    }
    for (k, name) in array(root, "extensionsRequired").iter().enumerate() {
        if let Some(name) = name.as_str().filter(|n| !used.contains(n)) {
            push_as(
                doc,
                sink,
                Code::GLTF_EXTENSIONS,
                "UNUSED_EXTENSION_REQUIRED",
                &format!("/extensionsRequired/{k}"),
                || format!("{name} is required but not in extensionsUsed"),
            );
        }
    }
    // Every `extensions` object, outside `extras`. The walk keeps, per container it
    // enters, its parent and the token that leads to it; a pointer is spelled only for
    // a finding (most documents have none, and spelling one per member cost more than
    // the whole walk).
    let mut steps: Vec<(usize, Tok)> = vec![(0, Tok::Root)];
    let mut stack: Vec<(&Value, usize)> = vec![(root, 0)];
    while let Some((v, at)) = stack.pop() {
        match v {
            Value::Object(o) => {
                for (key, child) in o {
                    if key == "extras" {
                        continue;
                    }
                    if key == "extensions"
                        && let Some(ext) = child.as_object()
                    {
                        for name in ext.keys().filter(|n| !used.contains(n.as_str())) {
                            let mut p = pointer_of(&steps, at);
                            push_token(&mut p, key);
                            push_token(&mut p, name);
                            push_as(
                                doc,
                                sink,
                                Code::GLTF_EXTENSIONS,
                                "UNDECLARED_EXTENSION",
                                &p,
                                || format!("extension {name} is not declared in extensionsUsed"),
                            );
                        }
                        continue;
                    }
                    if child.is_object() || child.is_array() {
                        steps.push((at, Tok::Key(key)));
                        stack.push((child, steps.len() - 1));
                    }
                }
            }
            Value::Array(a) => {
                for (k, child) in a.iter().enumerate() {
                    if child.is_object() || child.is_array() {
                        steps.push((at, Tok::Index(k)));
                        stack.push((child, steps.len() - 1));
                    }
                }
            }
            _ => {}
        }
    }
}

/// The JSON Pointer of walk step `at` (step 0 is the root), from its chain of parents.
fn pointer_of(steps: &[(usize, Tok)], mut at: usize) -> String {
    let mut tokens = Vec::new();
    while at != 0 {
        let Some(&(parent, token)) = steps.get(at) else {
            break;
        };
        tokens.push(token);
        at = parent;
    }
    tokens.reverse();
    super::spell(&tokens)
}
