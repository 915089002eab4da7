//! The second phase of writing: where each buffer view's bytes go. Kept views are
//! compacted in their buffer (when pruning; in place otherwise), new views are appended
//! to buffer 0, and a buffer is copied whole when nothing of it may be dropped. The
//! bytes themselves are copied only when the output is emitted ([`Layout::bytes`],
//! [`Layout::append`]).

use super::plan::Plan;
use super::{ExportError, NewView, as_index};
use crate::load::Gltf;

/// Where a view's bytes come from.
#[derive(Clone, Copy, Debug)]
pub(super) enum Origin {
    /// `(offset, length)` in its source buffer.
    Source(u64, u64),
    /// A new view.
    New(usize),
}

/// A view placed in an output buffer.
#[derive(Clone, Copy, Debug)]
pub(super) struct Placed {
    /// The view's index in the JSON before removed views leave it.
    pub view: usize,
    /// The buffer it lies in (numbered as in the source).
    pub buffer: usize,
    /// Where its bytes come from.
    pub from: Origin,
    /// Its offset in the output buffer.
    pub offset: u64,
}

/// The output buffers' layout. Buffers are numbered as in the source; removed ones are
/// dropped when the output is emitted.
#[derive(Clone, Debug)]
pub(super) struct Layout {
    /// Per buffer, its output length in bytes.
    pub sizes: Vec<u64>,
    /// Every view written, kept source views first, then new views.
    pub placed: Vec<Placed>,
    /// Per buffer, whether it is copied whole, in place (every buffer when not pruning,
    /// and a buffer no view used: its bytes are nobody's to drop).
    pub whole: Vec<bool>,
    /// Per buffer, whether a kept view lies in it (buffer 0 also when the edit added
    /// views).
    pub keeps: Vec<bool>,
    /// Per buffer, whether a removed view lay in it.
    pub lost: Vec<bool>,
}

impl Layout {
    /// Places the views `plan` keeps and the edit's `new_views`.
    pub(super) fn new(
        gltf: &Gltf,
        plan: &Plan,
        new_views: &[NewView],
    ) -> Result<Layout, ExportError> {
        let n_buffers = gltf.buffer_count().max(1);
        let mut sizes = vec![0u64; n_buffers];
        let mut placed: Vec<Placed> = Vec::new();
        let src_views = &gltf.root.buffer_views;
        let mut order: Vec<usize> = (0..plan.n_src_views)
            .filter(|&v| !plan.view_removed(v))
            .collect();
        order.sort_by_key(|&v| src_views.get(v).map(|x| (x.buffer, x.byte_offset)));
        for v in order {
            let Some(bv) = src_views.get(v) else { continue };
            let b = as_index(bv.buffer);
            let Some(size) = sizes.get_mut(b) else {
                return Err(ExportError::Missing(format!(
                    "buffer {} does not exist",
                    bv.buffer
                )));
            };
            let (start, len) = match plan.trim.get(v).copied().flatten() {
                Some((a, e)) => (bv.byte_offset.saturating_add(a), e.saturating_sub(a)),
                None => (bv.byte_offset, bv.byte_length),
            };
            let offset = if plan.prune {
                size.next_multiple_of(4).saturating_add(start % 4)
            } else {
                bv.byte_offset
            };
            *size = (*size).max(offset.saturating_add(len));
            placed.push(Placed {
                view: v,
                buffer: b,
                from: Origin::Source(start, len),
                offset,
            });
        }
        // Per source buffer, in one pass over the views: whether a kept view lies in it,
        // whether a removed one did.
        let mut keeps = vec![false; n_buffers];
        let mut lost = vec![false; n_buffers];
        for (v, bv) in src_views.iter().enumerate() {
            let slot = if plan.view_removed(v) {
                &mut lost
            } else {
                &mut keeps
            };
            if let Some(x) = slot.get_mut(as_index(bv.buffer)) {
                *x = true;
            }
        }
        let bare: Vec<bool> = keeps.iter().zip(&lost).map(|(k, l)| !k && !l).collect();
        let whole: Vec<bool> = bare.iter().map(|&b| b || !plan.prune).collect();
        for (b, size) in sizes.iter_mut().enumerate() {
            if whole.get(b).copied().unwrap_or(false) {
                *size = (*size).max(
                    gltf.buffer(b)
                        .and_then(Result::ok)
                        .map_or(0, |d| d.len() as u64),
                );
            }
        }
        for (k, nv) in new_views.iter().enumerate() {
            // A view the edit itself replaced (influences set twice) is not written.
            if plan.view_removed(plan.n_src_views + k) {
                continue;
            }
            let size = sizes.first_mut().ok_or(ExportError::TooLarge)?;
            let offset = size.next_multiple_of(4);
            *size = offset + nv.bytes.len() as u64;
            placed.push(Placed {
                view: plan.n_src_views + k,
                buffer: 0,
                from: Origin::New(k),
                offset,
            });
        }
        if let Some(k) = keeps.first_mut() {
            *k |= !new_views.is_empty();
        }
        Ok(Layout {
            sizes,
            placed,
            whole,
            keeps,
            lost,
        })
    }

    /// Per buffer, whether it goes: buffers the pruning left without a view (a buffer
    /// must hold at least one byte). Buffers that had no view before stay, as they were.
    pub(super) fn removed_buffers(&self, prune: bool) -> Vec<bool> {
        (0..self.keeps.len())
            .map(|b| prune && self.lost.get(b) == Some(&true) && self.keeps.get(b) == Some(&false))
            .collect()
    }

    /// Whether any new view is written.
    pub(super) fn has_new(&self) -> bool {
        self.placed.iter().any(|p| matches!(p.from, Origin::New(_)))
    }

    /// Buffer `b`'s output length, as a `usize` (too large when it does not fit).
    pub(super) fn size(&self, b: usize) -> Result<usize, ExportError> {
        usize::try_from(self.sizes.get(b).copied().unwrap_or(0)).map_err(|_| ExportError::TooLarge)
    }

    /// Buffer `b`'s output bytes, zero-padded to its length.
    pub(super) fn bytes(
        &self,
        b: usize,
        gltf: &Gltf,
        pending: &mut [Option<NewView>],
    ) -> Result<Vec<u8>, ExportError> {
        let size = self.size(b)?;
        let mut out = Vec::with_capacity(size);
        self.append(&mut out, b, gltf, pending)?;
        out.resize(size, 0);
        Ok(out)
    }

    /// Appends buffer `b`'s output bytes to `out`, in offset order, zeros between views:
    /// the source buffer whole when kept in place (then only new views are placed), else
    /// view by view. Each new view's bytes are freed once copied, so the output grows
    /// while they shrink and the two are never held in full together. Fails (too large)
    /// only where an offset does not fit a usize.
    pub(super) fn append(
        &self,
        out: &mut Vec<u8>,
        b: usize,
        gltf: &Gltf,
        new_views: &mut [Option<NewView>],
    ) -> Result<(), ExportError> {
        let in_place = self.whole.get(b) == Some(&true);
        let base = out.len();
        let src = gltf.buffer(b).and_then(Result::ok).unwrap_or_default();
        if in_place {
            out.extend_from_slice(src);
        }
        let mut mine: Vec<&Placed> = self
            .placed
            .iter()
            .filter(|p| p.buffer == b && !(in_place && matches!(p.from, Origin::Source(..))))
            .collect();
        mine.sort_by_key(|p| p.offset);
        for p in mine {
            let at = base + usize::try_from(p.offset).map_err(|_| ExportError::TooLarge)?;
            if out.len() < at {
                out.resize(at, 0);
            }
            match p.from {
                Origin::Source(off, len) => {
                    let end = off.saturating_add(len);
                    out.extend_from_slice(
                        src.get(as_index(off)..as_index(end)).unwrap_or_default(),
                    );
                }
                Origin::New(k) => {
                    if let Some(nv) = new_views.get_mut(k).and_then(Option::take) {
                        out.extend_from_slice(&nv.bytes);
                    }
                }
            }
        }
        Ok(())
    }
}
