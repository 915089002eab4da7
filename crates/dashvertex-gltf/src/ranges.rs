//! Buffer view ranges, checked once when a document loads: `byteOffset + byteLength`
//! against the buffer's `byteLength`, in 128-bit arithmetic (both are JSON integers up to
//! 2^64 − 1, their sum is not). Every reader ([`crate::accessor::read`], the exporter)
//! refuses a view that fails, and the validator reports it (`GLTF_BUFFER_VIEW_RANGE`).

use crate::document::Root;

/// A buffer view that does not lie inside its buffer.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error(
    "buffer view {view} (/bufferViews/{view}, {line}:{column}): byteOffset {byte_offset} + \
     byteLength {byte_length} = {end} is past the end of buffer {buffer} (byteLength \
     {buffer_length}); give the view a range inside its buffer"
)]
pub struct ViewRangeError {
    /// The view.
    pub view: u64,
    /// 1-based line of the view in the JSON text.
    pub line: u64,
    /// 1-based column.
    pub column: u64,
    /// Its buffer.
    pub buffer: u64,
    /// Its byteOffset.
    pub byte_offset: u64,
    /// Its byteLength.
    pub byte_length: u64,
    /// byteOffset + byteLength, exactly.
    pub end: u128,
    /// The buffer's byteLength.
    pub buffer_length: u64,
}

/// The views of `root` that end past their buffer's declared byteLength, by view (views
/// naming a missing buffer are left to the reference check). `locate` gives the line and
/// column of a JSON Pointer.
pub(crate) fn check_views(
    root: &Root,
    locate: impl Fn(&str) -> Option<(usize, usize)>,
) -> Vec<Option<ViewRangeError>> {
    root.buffer_views
        .iter()
        .enumerate()
        .map(|(v, bv)| {
            let buffer = usize::try_from(bv.buffer)
                .ok()
                .and_then(|b| root.buffers.get(b))?;
            let end = u128::from(bv.byte_offset) + u128::from(bv.byte_length);
            if end <= u128::from(buffer.byte_length) {
                return None;
            }
            let (line, column) = locate(&format!("/bufferViews/{v}")).unwrap_or((1, 1));
            Some(ViewRangeError {
                view: v as u64,
                line: line as u64,
                column: column as u64,
                buffer: bv.buffer,
                byte_offset: bv.byte_offset,
                byte_length: bv.byte_length,
                end,
                buffer_length: buffer.byte_length,
            })
        })
        .collect()
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::indexing_slicing)]
mod tests {
    use super::*;

    #[test]
    fn ranges_are_checked_without_overflow() {
        let root: Root = serde_json::from_value(serde_json::json!({
            "buffers": [{"byteLength": 224}],
            "bufferViews": [
                {"buffer": 0, "byteOffset": 200, "byteLength": 24},
                {"buffer": 0, "byteOffset": 200, "byteLength": 25},
                {"buffer": 0, "byteLength": 9_223_372_036_854_775_808_u64},
                {"buffer": 0, "byteOffset": 18_446_744_073_709_551_608_u64, "byteLength": 16},
                {"buffer": 3, "byteLength": 1},
            ],
        }))
        .unwrap();
        let got = check_views(&root, |_| None);
        assert!(got[0].is_none() && got[4].is_none());
        assert_eq!(got[1].as_ref().unwrap().end, 225);
        assert_eq!(got[2].as_ref().unwrap().end, 1 << 63);
        assert_eq!(got[3].as_ref().unwrap().end, u128::from(u64::MAX) - 7 + 16);
    }
}
