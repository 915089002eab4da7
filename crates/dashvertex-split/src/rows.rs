//! Compressed rows ([`Rows`]): the split's tables of joints per vertex and per element,
//! and of elements per vertex, each a list of rows held in two flat vectors.

/// Compressed rows: row `i` is `items[start[i]..start[i + 1]]`. Starts are `u32`, which
/// halves the table's overhead on large primitives; a table refuses to grow past
/// `u32::MAX` items ([`TableFull`]) rather than wrap.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Rows<T = u32> {
    /// Row starts, one more than the rows.
    pub(crate) start: Vec<u32>,
    /// The items of every row, one row after another.
    pub(crate) items: Vec<T>,
}

/// A table of [`Rows`] would hold more than `u32::MAX` items: the primitive is too large
/// for the split (4,294,967,295 vertex indices, or joints summed over its vertices or
/// elements).
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
#[error(
    "more than 4294967295 entries in one table (vertex indices, or joints summed over the vertices or elements): split the primitive into smaller ones first"
)]
pub struct TableFull;

impl<T: Copy> Default for Rows<T> {
    fn default() -> Self {
        Rows::new()
    }
}

impl<T: Copy> Rows<T> {
    /// An empty table (no rows).
    pub fn new() -> Rows<T> {
        Rows::with_capacity(0, 0)
    }

    /// An empty table with room for `rows` rows of `items` items in all.
    pub fn with_capacity(rows: usize, items: usize) -> Rows<T> {
        let mut start = Vec::with_capacity(rows.saturating_add(1));
        start.push(0);
        Rows {
            start,
            items: Vec::with_capacity(items),
        }
    }

    /// Appends a row; refused (the table unchanged) when the table would pass `u32::MAX`
    /// items.
    pub fn push(&mut self, row: impl IntoIterator<Item = T>) -> Result<(), TableFull> {
        let before = self.items.len();
        self.items.extend(row);
        match u32::try_from(self.items.len()) {
            Ok(end) => {
                self.start.push(end);
                Ok(())
            }
            Err(_) => {
                self.items.truncate(before);
                Err(TableFull)
            }
        }
    }

    /// Number of rows.
    pub fn len(&self) -> usize {
        self.start.len().saturating_sub(1)
    }

    /// Whether there is no row.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Every item, row after row.
    pub fn items(&self) -> &[T] {
        &self.items
    }

    /// The length of the longest row (0 when there is none).
    pub fn widest(&self) -> usize {
        self.start
            .windows(2)
            .map(|w| match w {
                [a, b] => b.saturating_sub(*a) as usize,
                _ => 0,
            })
            .max()
            .unwrap_or(0)
    }

    /// Row `i` (empty beyond the last).
    pub fn row(&self, i: usize) -> &[T] {
        match (self.start.get(i), self.start.get(i + 1)) {
            (Some(&a), Some(&b)) => self.items.get(a as usize..b as usize).unwrap_or_default(),
            _ => &[],
        }
    }
}
