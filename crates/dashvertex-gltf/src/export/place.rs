//! The second phase of writing: where each buffer view's bytes go. Kept views are
//! compacted in their buffer (when pruning; in place otherwise), new views are appended
//! to buffer 0, and a buffer is copied whole when nothing of it may be dropped. The
//! bytes themselves are copied only when the output is emitted ([`Layout::bytes`],
//! [`Layout::fill`]), ranges a sparse load left unread as holes the writer fills.

use super::plan::Plan;
use super::{ExportError, NewView, as_index};
use crate::load::Gltf;
use dashvertex_core::file::Hole;

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
    /// Whether [`Layout::fill`] makes a hole of every source range a file kept open for
    /// the output can fill ([`super::Editor::splice_carried`]), not only unread ones.
    pub splice_carried: bool,
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
            splice_carried: false,
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

    /// Buffer `b`'s output bytes, zero-padded to its length. Ranges a sparse load left
    /// unread are read from the input file here.
    pub(super) fn bytes(
        &self,
        b: usize,
        gltf: &Gltf,
        pending: &mut [Option<NewView>],
    ) -> Result<Vec<u8>, ExportError> {
        let mut out = vec![0u8; self.size(b)?];
        self.fill(&mut out, 0, b, gltf, pending, None)?;
        Ok(out)
    }

    /// Writes buffer `b`'s output bytes into `out` (zeros, at least the buffer's
    /// length), at `base`: the source buffer whole when kept in place (then only new
    /// views are placed), else view by view. Each new view's bytes are freed once copied,
    /// so the output grows while they shrink and the two are never held in full together.
    /// A source range a sparse load left unread becomes a hole of `holes` (an offset in
    /// `out`), or, without `holes`, is read from the input file; with
    /// [`Layout::splice_carried`] and `holes`, so does every source range of at least
    /// `MIN_HOLE` bytes the load's file can fill. Fails (too large) only
    /// where an offset does not fit a usize, or when an unread range cannot be read.
    pub(super) fn fill(
        &self,
        out: &mut [u8],
        base: usize,
        b: usize,
        gltf: &Gltf,
        new_views: &mut [Option<NewView>],
        mut holes: Option<&mut Vec<Hole>>,
    ) -> Result<(), ExportError> {
        let in_place = self.whole.get(b) == Some(&true);
        let every = self.splice_carried;
        let src = gltf.buffer(b).and_then(Result::ok).unwrap_or_default();
        let place = |offset: u64| {
            usize::try_from(offset)
                .ok()
                .and_then(|o| base.checked_add(o))
                .ok_or(ExportError::TooLarge)
        };
        if in_place {
            let whole = Span {
                off: 0,
                len: src.len() as u64,
                at: base,
                every,
            };
            copy_source(gltf, b, src, whole, out, holes.as_deref_mut())?;
        }
        let mut mine: Vec<&Placed> = self
            .placed
            .iter()
            .filter(|p| p.buffer == b && !(in_place && matches!(p.from, Origin::Source(..))))
            .collect();
        mine.sort_by_key(|p| p.offset);
        for p in mine {
            let at = place(p.offset)?;
            match p.from {
                Origin::Source(off, len) => {
                    let span = Span {
                        off,
                        len,
                        at,
                        every,
                    };
                    copy_source(gltf, b, src, span, out, holes.as_deref_mut())?;
                }
                Origin::New(k) => {
                    if let Some(nv) = new_views.get_mut(k).and_then(Option::take) {
                        let end = at
                            .checked_add(nv.bytes.len())
                            .ok_or(ExportError::TooLarge)?;
                        out.get_mut(at..end)
                            .ok_or(ExportError::TooLarge)?
                            .copy_from_slice(&nv.bytes);
                    }
                }
            }
        }
        Ok(())
    }
}

/// A range of a source buffer and where it goes in the output.
#[derive(Clone, Copy)]
struct Span {
    /// Its offset in the source buffer.
    off: u64,
    /// Its length.
    len: u64,
    /// Its offset in the output.
    at: usize,
    /// Whether all of it becomes a hole, read or not, when it is long enough and the
    /// load kept its file ([`Layout::splice_carried`]).
    every: bool,
}

/// Copies `span` of source buffer `b` (`src`) to `out`: what a sparse load read from
/// memory, what it left unread as holes (offsets in `out`) or, without `holes`, read
/// from the input file now. With `span.every`, a span of at least
/// `MIN_HOLE` bytes is one hole however it was loaded.
fn copy_source(
    gltf: &Gltf,
    b: usize,
    src: &[u8],
    span: Span,
    out: &mut [u8],
    mut holes: Option<&mut Vec<Hole>>,
) -> Result<(), ExportError> {
    let Span { off, len, at, .. } = span;
    let end = off.saturating_add(len).min(src.len() as u64);
    if span.every
        && let (Some(h), Some(bin_offset)) = (holes.as_deref_mut(), gltf.splice_offset(b))
        && end.saturating_sub(off) >= crate::load::MIN_HOLE
    {
        h.push(Hole {
            at: at as u64,
            from: bin_offset + off,
            len: end - off,
        });
        return Ok(());
    }
    // Source bytes `from..to` land at `at + (from - off)`.
    fn dst(out: &mut [u8], at: usize, from: u64, to: u64) -> Result<&mut [u8], ExportError> {
        let a = at
            .checked_add(as_index(from))
            .ok_or(ExportError::TooLarge)?;
        let e = a
            .checked_add(as_index(to - from))
            .ok_or(ExportError::TooLarge)?;
        out.get_mut(a..e).ok_or(ExportError::TooLarge)
    }
    let mut pos = off;
    let unread = gltf.unread(b);
    let first = unread.partition_point(|r| r.end <= off);
    for r in unread.get(first..).unwrap_or_default() {
        if r.start >= end {
            break;
        }
        let (u0, u1) = (r.start.max(pos), r.end.min(end));
        if u0 > pos {
            dst(out, at, pos - off, u0 - off)?
                .copy_from_slice(src.get(as_index(pos)..as_index(u0)).unwrap_or_default());
        }
        let bin_offset = gltf.splice_offset(b).ok_or(ExportError::TooLarge)?;
        match holes.as_deref_mut() {
            Some(h) => h.push(Hole {
                at: (at as u64) + (u0 - off),
                from: bin_offset + u0,
                len: u1 - u0,
            }),
            None => gltf
                .read_unread(b, dst(out, at, u0 - off, u1 - off)?, u0)
                .map_err(|e| ExportError::Unread(std::sync::Arc::new(e)))?,
        }
        pos = u1;
    }
    if end > pos {
        dst(out, at, pos - off, end - off)?
            .copy_from_slice(src.get(as_index(pos)..as_index(end)).unwrap_or_default());
    }
    Ok(())
}
