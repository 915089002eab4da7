//! The names of members a DashVertex document has that the model does not: kept in a
//! hash set, with the count of lookups a test holds to linear work.

/// The names of a document's members dash does not model, hashed as they are read: a
/// repeated name is found in one lookup, so a document with any number of members
/// decodes in time linear in its length (a search through the earlier names per member
/// was quadratic: 160,000 names took half a minute).
#[derive(Default)]
pub(super) struct MemberNames(std::collections::HashSet<MemberName>);

impl MemberNames {
    /// Adds `name`; false when the document already had it.
    pub(super) fn insert(&mut self, name: &str) -> bool {
        probe::count();
        self.0.insert(MemberName(name.into()))
    }
}

/// A member name as [`MemberNames`] keys it: the comparisons its hash table makes are
/// the ones the tests count.
#[derive(Eq)]
struct MemberName(Box<str>);

impl std::hash::Hash for MemberName {
    fn hash<H: std::hash::Hasher>(&self, h: &mut H) {
        self.0.hash(h);
    }
}

impl PartialEq for MemberName {
    fn eq(&self, other: &Self) -> bool {
        probe::count();
        self.0 == other.0
    }
}

/// Counts the lookups and name comparisons of [`MemberNames`] on this thread, in tests
/// only, so that a test can hold decoding to linear work by counting, not by timing.
pub(crate) mod probe {
    #[cfg(test)]
    thread_local! {
        static COUNT: std::cell::Cell<u64> = const { std::cell::Cell::new(0) };
    }

    /// One lookup or comparison.
    #[inline(always)]
    pub(crate) fn count() {
        #[cfg(test)]
        COUNT.with(|c| c.set(c.get() + 1));
    }

    /// The count so far, set back to zero.
    #[cfg(test)]
    pub(crate) fn take() -> u64 {
        COUNT.with(|c| c.replace(0))
    }
}
