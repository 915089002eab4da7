//! Data parallelism when the `parallel` feature is on, the same calls on one thread when
//! it is off.
//!
//! The dash crates split work into chunks whose results are joined in chunk order, so
//! their output is the same at any thread count, one thread included. With `parallel`
//! this module re-exports rayon's [`prelude`] and [`join`]; without it (a WebAssembly
//! module, a tool that wants no thread pool) it provides the subset of rayon's methods
//! the dash crates use, run in order on the calling thread, and nothing links rayon.
//!
//! ```
//! use dashvertex_core::par::prelude::*;
//! let squares: Vec<u64> = (0..4u64).into_par_iter().map(|x| x * x).collect();
//! assert_eq!(squares, [0, 1, 4, 9]);
//! let (a, b) = dashvertex_core::par::join(|| 1, || 2);
//! assert_eq!(a + b, 3);
//! ```

#[cfg(feature = "parallel")]
pub use rayon::{current_num_threads, join};

/// The traits behind `into_par_iter`, `par_iter`, `par_iter_mut` and `par_chunks_mut`.
#[cfg(feature = "parallel")]
pub mod prelude {
    pub use rayon::prelude::*;
}

#[cfg(not(feature = "parallel"))]
pub use sequential::{Seq, current_num_threads, join, prelude};

#[cfg(not(feature = "parallel"))]
mod sequential {
    /// One: the calling thread is the only one.
    pub fn current_num_threads() -> usize {
        1
    }

    /// Runs `a` then `b` on this thread (rayon's `join` runs them side by side).
    pub fn join<A, B, RA, RB>(a: A, b: B) -> (RA, RB)
    where
        A: FnOnce() -> RA,
        B: FnOnce() -> RB,
    {
        let ra = a();
        (ra, b())
    }

    /// An iterator with rayon's method names and signatures, run in order on this
    /// thread. It deliberately does not implement [`Iterator`], whose `fold` and
    /// `reduce` have other signatures than rayon's.
    #[derive(Clone, Debug)]
    pub struct Seq<I>(I);

    impl<I: Iterator> Seq<I> {
        /// Each item through `f`.
        pub fn map<B, F: FnMut(I::Item) -> B>(self, f: F) -> Seq<std::iter::Map<I, F>> {
            Seq(self.0.map(f))
        }

        /// Each item through `f` with a scratch value made once by `init` (rayon makes
        /// one per worker job).
        pub fn map_init<S, B>(
            self,
            init: impl FnOnce() -> S,
            mut f: impl FnMut(&mut S, I::Item) -> B,
        ) -> Seq<impl Iterator<Item = B>> {
            let mut scratch = init();
            Seq(self.0.map(move |x| f(&mut scratch, x)))
        }

        /// The items `f` maps to `Some`.
        pub fn filter_map<B, F: FnMut(I::Item) -> Option<B>>(
            self,
            f: F,
        ) -> Seq<std::iter::FilterMap<I, F>> {
            Seq(self.0.filter_map(f))
        }

        /// Each item with its index.
        pub fn enumerate(self) -> Seq<std::iter::Enumerate<I>> {
            Seq(self.0.enumerate())
        }

        /// Pairs of this and `other`'s items.
        pub fn zip<J: Iterator>(self, other: Seq<J>) -> Seq<std::iter::Zip<I, J>> {
            Seq(self.0.zip(other.0))
        }

        /// No effect on one thread (rayon's smallest piece of work).
        pub fn with_min_len(self, _: usize) -> Self {
            self
        }

        /// Folds every item into one value started by `identity` (rayon yields one
        /// value per piece of work; here there is one piece).
        pub fn fold<T>(
            self,
            identity: impl Fn() -> T,
            op: impl FnMut(T, I::Item) -> T,
        ) -> Seq<std::iter::Once<T>> {
            Seq(std::iter::once(self.0.fold(identity(), op)))
        }

        /// Joins the items with `op`, from `identity()`.
        pub fn reduce(
            self,
            identity: impl Fn() -> I::Item,
            op: impl FnMut(I::Item, I::Item) -> I::Item,
        ) -> I::Item {
            self.0.fold(identity(), op)
        }

        /// The items in order.
        pub fn collect<C: FromIterator<I::Item>>(self) -> C {
            self.0.collect()
        }

        /// The sum of the items.
        pub fn sum<S: std::iter::Sum<I::Item>>(self) -> S {
            self.0.sum()
        }

        /// The largest item.
        pub fn max(self) -> Option<I::Item>
        where
            I::Item: Ord,
        {
            self.0.max()
        }

        /// Calls `f` on every item.
        pub fn for_each(self, f: impl FnMut(I::Item)) {
            self.0.for_each(f)
        }
    }

    impl<T, I: Iterator<Item = Option<T>>> Seq<I> {
        /// `None` when an item is `None` or `op` returns `None`; else the items joined
        /// with `op` from `identity()` (rayon's `try_reduce` over options).
        pub fn try_reduce(
            self,
            identity: impl Fn() -> T,
            mut op: impl FnMut(T, T) -> Option<T>,
        ) -> Option<T> {
            let mut acc = identity();
            for x in self.0 {
                acc = op(acc, x?)?;
            }
            Some(acc)
        }
    }

    /// The traits behind `into_par_iter`, `par_iter`, `par_iter_mut` and
    /// `par_chunks_mut`, on one thread.
    pub mod prelude {
        use super::Seq;

        /// `into_par_iter` on anything that iterates.
        pub trait IntoParallelIterator: IntoIterator + Sized {
            /// The items, in order.
            fn into_par_iter(self) -> Seq<Self::IntoIter> {
                Seq(self.into_iter())
            }
        }
        impl<T: IntoIterator> IntoParallelIterator for T {}

        /// `par_iter` and `par_chunks` on a slice.
        pub trait ParallelSlice<T> {
            /// The elements, in order.
            fn par_iter(&self) -> Seq<std::slice::Iter<'_, T>>;
            /// Pieces of `n` elements (the last may be shorter).
            fn par_chunks(&self, n: usize) -> Seq<std::slice::Chunks<'_, T>>;
        }
        impl<T> ParallelSlice<T> for [T] {
            fn par_iter(&self) -> Seq<std::slice::Iter<'_, T>> {
                Seq(self.iter())
            }
            fn par_chunks(&self, n: usize) -> Seq<std::slice::Chunks<'_, T>> {
                Seq(self.chunks(n))
            }
        }

        /// `par_iter_mut` and `par_chunks_mut` on a slice.
        pub trait ParallelSliceMut<T> {
            /// The elements, in order.
            fn par_iter_mut(&mut self) -> Seq<std::slice::IterMut<'_, T>>;
            /// Pieces of `n` elements (the last may be shorter).
            fn par_chunks_mut(&mut self, n: usize) -> Seq<std::slice::ChunksMut<'_, T>>;
        }
        impl<T> ParallelSliceMut<T> for [T] {
            fn par_iter_mut(&mut self) -> Seq<std::slice::IterMut<'_, T>> {
                Seq(self.iter_mut())
            }
            fn par_chunks_mut(&mut self, n: usize) -> Seq<std::slice::ChunksMut<'_, T>> {
                Seq(self.chunks_mut(n))
            }
        }
    }
}
