//! The element budget (spec/security.md \[L2\]): how many accessor elements a document may
//! make dash read, tied to the input's size, so that no declared `count` (of an accessor
//! without a buffer view, whose elements are zeros; of a sparse block; of an accessor
//! read through many primitives) drives time, memory or output beyond what the file
//! carries.
//!
//! Each accessor is charged `(count + sparse.count)` once for every place a reader of
//! dash takes it from: a mesh primitive's `POSITION`, `JOINTS_n`, `WEIGHTS_n` and `_`
//! attributes, a skin's `inverseBindMatrices`, an animation sampler's `input` and
//! `output`. The charges accumulate in accessor index order; an accessor whose charge
//! takes the total past [`allowance`] of the input's bytes (and every accessor after
//! it) is refused by [`crate::accessor::read`], whichever command reads it.

use serde_json::Value;

use crate::document::Root;

/// Elements every document may declare, whatever its size.
pub const FLOOR: u64 = 1 << 20;

/// Elements allowed per byte of input (the file and the external buffers it loads).
pub const PER_BYTE: u64 = 4;

/// The elements a document of `input_bytes` bytes may make dash read:
/// `FLOOR + PER_BYTE × input_bytes`.
pub fn allowance(input_bytes: u64) -> u64 {
    FLOOR.saturating_add(PER_BYTE.saturating_mul(input_bytes))
}

/// An accessor refused by the budget.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error(
    "accessor {index} (/accessors/{index}/count, {line}:{column}): its {count} elements, read \
     from {uses} place(s), take the elements the document's accessors declare to {total}, past \
     its budget of {budget} (2^20 + {PER_BYTE} per byte of its {input_bytes}-byte input; \
     spec/security.md [L2]; first passed at accessor {first}): dash reads none of its \
     elements; give the accessors buffer views that hold their data, or smaller counts"
)]
pub struct BudgetError {
    /// The accessor.
    pub index: u64,
    /// 1-based line of its `count` in the JSON text.
    pub line: u64,
    /// 1-based column.
    pub column: u64,
    /// Its `count` plus its sparse count.
    pub count: u64,
    /// The places dash reads it from (1 for an accessor no reader names, read anyway).
    pub uses: u64,
    /// The charges of accessors 0 ..= `index`.
    pub total: u64,
    /// The allowance.
    pub budget: u64,
    /// The input's bytes.
    pub input_bytes: u64,
    /// The accessor whose charge first took the total past the budget (this one, for an
    /// accessor no reader names whose own charge passes it).
    pub first: u64,
}

/// Each accessor's verdict, decided once when the document loads.
#[derive(Clone, Debug, Default)]
pub(crate) struct Budget {
    /// Per accessor, why it may not be read (`None`: it may).
    refused: Vec<Option<BudgetError>>,
    /// The refused accessors a reader names (those dash would read), in index order.
    named: Vec<u64>,
}

/// `(elements, uses, running total through this accessor)` per accessor of `root`.
fn charges(root: &Root, value: &Value) -> Vec<(u64, u64, u64)> {
    let mut uses = vec![0u64; root.accessors.len()];
    let mut charge = |a: Option<u64>| {
        if let Some(u) = a
            .and_then(|a| usize::try_from(a).ok())
            .and_then(|a| uses.get_mut(a))
        {
            *u = u.saturating_add(1);
        }
    };
    for mesh in &root.meshes {
        for p in &mesh.primitives {
            for (name, v) in &p.attributes {
                if name == "POSITION"
                    || name.starts_with("JOINTS_")
                    || name.starts_with("WEIGHTS_")
                    || name.starts_with('_')
                {
                    charge(v.as_u64());
                }
            }
        }
    }
    for s in &root.skins {
        charge(s.inverse_bind_matrices);
    }
    let samplers = value
        .get("animations")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(|a| a.get("samplers").and_then(Value::as_array))
        .flatten();
    for s in samplers {
        charge(s.get("input").and_then(Value::as_u64));
        charge(s.get("output").and_then(Value::as_u64));
    }
    let mut total = 0u64;
    root.accessors
        .iter()
        .zip(uses)
        .map(|(a, u)| {
            let elements = a
                .count
                .saturating_add(a.sparse.as_ref().map_or(0, |s| s.count));
            total = total.saturating_add(elements.saturating_mul(u));
            (elements, u, total)
        })
        .collect()
}

impl Budget {
    /// The budget of `root` (with the raw JSON `value`, for animations) loaded from
    /// `input_bytes` bytes; `locate` gives the line and column of a JSON Pointer (called
    /// for refused accessors only). An accessor no reader names, when read anyway, is
    /// charged once.
    pub(crate) fn new(
        root: &Root,
        value: &Value,
        input_bytes: u64,
        locate: impl Fn(&str) -> Option<(usize, usize)>,
    ) -> Budget {
        let budget = allowance(input_bytes);
        let mut first = None;
        let mut named = Vec::new();
        let refused = charges(root, value)
            .into_iter()
            .enumerate()
            .map(|(index, (elements, uses, through))| {
                let total = if uses == 0 {
                    through.saturating_add(elements)
                } else {
                    through
                };
                if total <= budget {
                    return None;
                }
                let passed_at = if uses > 0 {
                    named.push(index as u64);
                    *first.get_or_insert(index as u64)
                } else {
                    first.unwrap_or(index as u64)
                };
                let (line, column) = locate(&format!("/accessors/{index}/count")).unwrap_or((1, 1));
                Some(BudgetError {
                    first: passed_at,
                    index: index as u64,
                    line: line as u64,
                    column: column as u64,
                    count: elements,
                    uses: uses.max(1),
                    total,
                    budget,
                    input_bytes,
                })
            })
            .collect();
        Budget { refused, named }
    }

    /// The refused accessors dash's readers name, in index order.
    pub(crate) fn named(&self) -> impl Iterator<Item = &BudgetError> {
        self.named.iter().filter_map(|&i| {
            usize::try_from(i)
                .ok()
                .and_then(|i| self.refused.get(i))
                .and_then(Option::as_ref)
        })
    }

    /// Why accessor `index` may not be read, if it may not.
    pub(crate) fn check(&self, index: u64) -> Result<(), BudgetError> {
        match usize::try_from(index)
            .ok()
            .and_then(|i| self.refused.get(i))
        {
            Some(Some(e)) => Err(e.clone()),
            _ => Ok(()),
        }
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::indexing_slicing)]
mod tests {
    use super::*;

    fn root(counts: &[u64]) -> (Root, Value) {
        let accessors: Vec<Value> = counts
            .iter()
            .map(|c| serde_json::json!({"componentType": 5126, "count": c, "type": "VEC4"}))
            .collect();
        let value = serde_json::json!({
            "accessors": accessors,
            "meshes": [{"primitives": [
                {"attributes": {"POSITION": 0, "WEIGHTS_0": 1, "NORMAL": 2}},
                {"attributes": {"POSITION": 0, "WEIGHTS_0": 1}}
            ]}],
            "animations": [{"samplers": [{"input": 3, "output": 3}]}],
        });
        (serde_json::from_value(value.clone()).unwrap(), value)
    }

    #[test]
    fn each_use_is_charged_in_index_order() {
        let (r, v) = root(&[10, 20, 1_000_000_000, 30]);
        // POSITION and WEIGHTS_0 twice each, NORMAL never, the sampler accessor twice.
        assert_eq!(
            charges(&r, &v),
            vec![
                (10, 2, 20),
                (20, 2, 60),
                (1_000_000_000, 0, 60),
                (30, 2, 120)
            ]
        );
        let b = Budget::new(&r, &v, 0, |_| Some((4, 7)));
        assert!(b.check(0).is_ok());
        // Read although no reader names it: charged once, past the floor.
        let e = b.check(2).unwrap_err();
        assert_eq!(
            (e.line, e.column, e.uses, e.total),
            (4, 7, 1, 1_000_000_060)
        );
        assert!(b.check(3).is_ok() && b.check(99).is_ok());
        // Refused only if read: not among those the validator reports.
        assert_eq!(b.named().count(), 0);
    }

    #[test]
    fn the_allowance_grows_with_the_input() {
        let (r, v) = root(&[FLOOR, 1, 0, 0]);
        // 2 × FLOOR + 2 elements: past the floor; within it plus 4 per byte of FLOOR / 4.
        assert!(Budget::new(&r, &v, 0, |_| None).check(0).is_err());
        let b = Budget::new(&r, &v, FLOOR / 4, |_| None);
        assert!(b.check(0).is_ok());
        let e = b.check(1).unwrap_err();
        assert_eq!((e.first, e.total), (1, 2 * FLOOR + 2));
        assert_eq!(b.named().map(|e| e.index).collect::<Vec<_>>(), [1, 3]);
        assert_eq!(allowance(u64::MAX), u64::MAX);
    }
}
