//! The first phase of writing: what the output keeps. Which replaced accessors go (none
//! when an extension outside [`PRUNE_SAFE_EXTENSIONS`] is used), which buffer views only
//! they used, and which kept views shrink to the bytes their kept accessors cover; then
//! the same decisions applied to the JSON (offsets shifted, accessors removed, every
//! reference renumbered). Buffers are laid out afterwards, by [`super::place`].

use std::collections::BTreeSet;

use serde_json::{Value, json};

use super::refs::{
    extensions_used, for_each_accessor_ref, for_each_image_view_ref, for_each_view_ref_of_accessor,
    remap, renumber,
};
use super::{PRUNE_SAFE_EXTENSIONS, as_index};
use crate::load::Gltf;

/// What the output keeps of the accessors and buffer views, decided before any index
/// changes. Views are numbered as in the edited JSON: the source's, then the new ones.
#[derive(Clone, Debug)]
pub(super) struct Plan {
    /// Whether replaced data may be removed (only prune-safe extensions are used).
    pub prune: bool,
    /// Buffer views of the source.
    pub n_src_views: usize,
    /// Accessors of the edited JSON.
    pub n_acc: usize,
    /// Buffer views of the edited JSON: the source's and the new ones.
    pub n_views: usize,
    /// Accessors removed: replaced ones nothing uses any more.
    pub removed_acc: BTreeSet<usize>,
    /// Per view, whether it is removed (only removed accessors used it).
    pub removed_view: Vec<bool>,
    /// Per source view, the `(start, end)` span its kept accessors cover, when it is
    /// smaller than the view.
    pub trim: Vec<Option<(u64, u64)>>,
}

impl Plan {
    /// Decides what stays of `value` (the edited JSON of `gltf`, with `n_new_views`
    /// views added and the accessors `replaced` no longer wanted by the edit).
    pub(super) fn new(
        gltf: &Gltf,
        value: &mut Value,
        replaced: &BTreeSet<usize>,
        n_new_views: usize,
    ) -> Plan {
        let n_src_views = gltf.root.buffer_views.len();
        let prune = extensions_used(value)
            .iter()
            .all(|e| PRUNE_SAFE_EXTENSIONS.contains(&e.as_str()));
        // Which accessors and views stay.
        let n_acc = value
            .get("accessors")
            .and_then(Value::as_array)
            .map_or(0, Vec::len);
        let mut used = vec![false; n_acc];
        for_each_accessor_ref(value, &mut |i| {
            if let Some(u) = used.get_mut(as_index(*i)) {
                *u = true;
            }
        });
        let removed_acc: BTreeSet<usize> = if prune {
            replaced
                .iter()
                .copied()
                .filter(|&i| !used.get(i).copied().unwrap_or(true))
                .collect()
        } else {
            BTreeSet::new()
        };
        let n_views = n_src_views + n_new_views;
        let mut view_used = vec![false; n_views];
        let mut view_of_removed = vec![false; n_views];
        if let Some(accs) = value.get_mut("accessors").and_then(Value::as_array_mut) {
            for (i, a) in accs.iter_mut().enumerate() {
                let gone = removed_acc.contains(&i);
                for_each_view_ref_of_accessor(a, &mut |v| {
                    let slot = if gone {
                        &mut view_of_removed
                    } else {
                        &mut view_used
                    };
                    if let Some(x) = slot.get_mut(as_index(*v)) {
                        *x = true;
                    }
                });
            }
        }
        for_each_image_view_ref(value, &mut |v| {
            if let Some(x) = view_used.get_mut(as_index(*v)) {
                *x = true;
            }
        });
        let removed_view: Vec<bool> = (0..n_views)
            .map(|v| {
                view_of_removed.get(v).copied().unwrap_or(false)
                    && !view_used.get(v).copied().unwrap_or(false)
            })
            .collect();
        // Trim kept views whose leading or trailing bytes only removed accessors used
        // (an attribute block shared by JOINTS and TEXCOORD, say): `(start, end)` of
        // the span the kept accessors cover, when smaller than the view.
        let trim = if prune && !removed_acc.is_empty() {
            trims(gltf, value, &removed_acc, &removed_view, &view_of_removed)
        } else {
            vec![None; n_src_views]
        };
        Plan {
            prune,
            n_src_views,
            n_acc,
            n_views,
            removed_acc,
            removed_view,
            trim,
        }
    }

    /// Whether view `v` is removed.
    pub(super) fn view_removed(&self, v: usize) -> bool {
        self.removed_view.get(v).copied().unwrap_or(false)
    }

    /// Applies the plan to the JSON: accessors in trimmed views move with the view's
    /// start, removed accessors leave the array, and every reference to an accessor or
    /// a view takes its new number. The views themselves stay in the array (numbered as
    /// before) until [`super::emit`] has written their offsets.
    pub(super) fn apply(&self, value: &mut Value) {
        if let Some(accs) = value.get_mut("accessors").and_then(Value::as_array_mut) {
            for a in accs.iter_mut() {
                let view = a.get("bufferView").and_then(Value::as_u64);
                if let Some(Some((start, _))) = view.and_then(|v| self.trim.get(as_index(v)))
                    && let Some(o) = a.as_object_mut()
                {
                    let off = o.get("byteOffset").and_then(Value::as_u64).unwrap_or(0);
                    o.insert("byteOffset".into(), json!(off.saturating_sub(*start)));
                }
            }
        }
        let acc_map: Vec<Option<u64>> = renumber(self.n_acc, |i| self.removed_acc.contains(&i));
        let view_map: Vec<Option<u64>> = renumber(self.n_views, |v| self.view_removed(v));
        if let Some(accs) = value.get_mut("accessors").and_then(Value::as_array_mut) {
            let mut i = 0;
            accs.retain(|_| {
                let keep = !self.removed_acc.contains(&i);
                i += 1;
                keep
            });
            for a in accs.iter_mut() {
                for_each_view_ref_of_accessor(a, &mut |v| remap(v, &view_map));
            }
        }
        for_each_image_view_ref(value, &mut |v| remap(v, &view_map));
        for_each_accessor_ref(value, &mut |i| remap(i, &acc_map));
    }
}

/// For each source view, the byte span its kept accessors cover when that is smaller
/// than the view; `None` to keep it whole (a view used by an image or by sparse data, or
/// by no kept accessor directly, is kept whole).
fn trims(
    gltf: &Gltf,
    value: &Value,
    removed_acc: &BTreeSet<usize>,
    removed_view: &[bool],
    lost: &[bool],
) -> Vec<Option<(u64, u64)>> {
    let n = gltf.root.buffer_views.len();
    let mut span: Vec<Option<(u64, u64)>> = vec![None; n];
    let mut whole = vec![false; n];
    if let Some(images) = value.get("images").and_then(Value::as_array) {
        for i in images {
            if let Some(v) = i.get("bufferView").and_then(Value::as_u64)
                && let Some(w) = whole.get_mut(as_index(v))
            {
                *w = true;
            }
        }
    }
    for (i, a) in gltf.root.accessors.iter().enumerate() {
        if removed_acc.contains(&i) {
            continue;
        }
        if let Some(sp) = &a.sparse {
            for v in [sp.indices.buffer_view, sp.values.buffer_view] {
                if let Some(w) = whole.get_mut(as_index(v)) {
                    *w = true;
                }
            }
        }
        let Some(v) = a.buffer_view else { continue };
        let Some(bv) = gltf.root.buffer_views.get(as_index(v)) else {
            continue;
        };
        let elem = crate::document::element_layout(a.component_type, &a.kind).map(|l| l.0);
        let Some(elem) = elem else {
            if let Some(w) = whole.get_mut(as_index(v)) {
                *w = true;
            }
            continue;
        };
        let stride = bv.byte_stride.unwrap_or(elem);
        // At least one stride: a view must not be shorter than its byteStride.
        let end = (a.count.max(1) - 1)
            .checked_mul(stride)
            .and_then(|x| x.checked_add(elem.max(stride)))
            .and_then(|x| x.checked_add(a.byte_offset));
        let Some(end) = end else {
            if let Some(w) = whole.get_mut(as_index(v)) {
                *w = true;
            }
            continue;
        };
        if let Some(s) = span.get_mut(as_index(v)) {
            *s = Some(match *s {
                Some((lo, hi)) => (lo.min(a.byte_offset), hi.max(end)),
                None => (a.byte_offset, end),
            });
        }
    }
    (0..n)
        .map(|v| {
            let bv = gltf.root.buffer_views.get(v)?;
            if whole.get(v).copied().unwrap_or(true)
                || removed_view.get(v).copied().unwrap_or(false)
                || !lost.get(v).copied().unwrap_or(false)
            {
                return None;
            }
            let (lo, hi) = span.get(v).copied().flatten()?;
            // The start stays 4-aligned, so every kept accessor stays aligned to its
            // component size after the shift.
            let lo = lo - lo % 4;
            // Element bytes a stride pads past the last element are kept with it; a span
            // outside the view (a broken file) keeps the view whole.
            let hi = hi.min(bv.byte_length);
            (lo <= hi && (lo > 0 || hi < bv.byte_length)).then_some((lo, hi))
        })
        .collect()
}
