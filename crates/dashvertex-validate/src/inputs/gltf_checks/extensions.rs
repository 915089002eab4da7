//! Extension declarations (`GLTF_EXTENSIONS`, `GLTF_DEPENDENCY`): `extensionsUsed` and
//! `extensionsRequired` list each name once, every required extension is used, and every
//! `extensions` object (anywhere outside `extras`) names only used extensions. The walk
//! is iterative, over the JSON once.

use std::collections::BTreeSet;

use dashvertex_json::pointer::push_token;
use serde_json::Value;

use super::{array, push_as};
use crate::codes::Code;
use crate::inputs::gltf::Doc;
use crate::sink::Sink;

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
    if root.get("extensionsRequired").is_some() && root.get("extensionsUsed").is_none() {
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
    // Every `extensions` object, outside `extras`: (value, its pointer).
    let mut stack: Vec<(&Value, String)> = vec![(root, String::new())];
    while let Some((v, ptr)) = stack.pop() {
        match v {
            Value::Object(o) => {
                for (key, child) in o {
                    if key == "extras" {
                        continue;
                    }
                    let mut at = ptr.clone();
                    push_token(&mut at, key);
                    if key == "extensions"
                        && let Some(ext) = child.as_object()
                    {
                        for name in ext.keys().filter(|n| !used.contains(n.as_str())) {
                            let mut p = at.clone();
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
                        stack.push((child, at));
                    }
                }
            }
            Value::Array(a) => {
                for (k, child) in a.iter().enumerate() {
                    if child.is_object() || child.is_array() {
                        stack.push((child, format!("{ptr}/{k}")));
                    }
                }
            }
            _ => {}
        }
    }
}
