//! Finding where a JSON Pointer's value sits in the source text.
//!
//! Decoding keeps no spans, so diagnostics that are found after decoding (validation
//! rules) are located afterwards: [`Locator`] walks the text along the pointer. Large
//! arrays get an element-offset table the first time they are walked, so locating many
//! diagnostics in a big file stays linear.

use std::collections::HashMap;
use std::sync::{Mutex, MutexGuard, PoisonError};

/// Arrays with at least this many elements get a cached offset table.
const INDEX_THRESHOLD: usize = 64;

/// Locates JSON Pointers in one JSON text.
pub struct Locator<'a> {
    text: &'a str,
    // Caches filled on first use; behind mutexes so that one locator serves checks
    // running on several threads (only diagnostics, which are rare, take the locks).
    line_starts: Mutex<Option<Vec<usize>>>,
    arrays: Mutex<HashMap<usize, Vec<usize>>>,
}

/// A cache's lock; a poisoned one is still a valid cache (it is only ever extended).
fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(PoisonError::into_inner)
}

impl<'a> Locator<'a> {
    /// A locator over `text`. Nothing is scanned until a pointer is located.
    pub fn new(text: &'a str) -> Self {
        Locator {
            text,
            line_starts: Mutex::new(None),
            arrays: Mutex::new(HashMap::new()),
        }
    }

    /// Byte offset of the value `pointer` names, or `None` when the text has no such
    /// value (or is not well-formed JSON along the way).
    pub fn offset(&self, pointer: &str) -> Option<usize> {
        let bytes = self.text.as_bytes();
        let mut pos = skip_ws(bytes, 0);
        if pointer.is_empty() {
            return Some(pos);
        }
        let rest = pointer.strip_prefix('/')?;
        for raw in rest.split('/') {
            let token = raw.replace("~1", "/").replace("~0", "~");
            match bytes.get(pos)? {
                b'{' => pos = member(bytes, pos, &token)?,
                b'[' => {
                    let index: usize = token.parse().ok()?;
                    pos = self.element(pos, index)?;
                }
                _ => return None,
            }
        }
        Some(pos)
    }

    /// The 1-based (line, column) of `pointer`'s value; the column counts characters.
    pub fn line_col(&self, pointer: &str) -> Option<(usize, usize)> {
        self.offset(pointer).map(|o| self.line_col_at(o))
    }

    /// The (line, column) of `pointer`'s value or, when the text has no such value (a
    /// padded array slot, a member of a damaged object), of its nearest ancestor.
    pub fn line_col_nearest(&self, pointer: &str) -> (usize, usize) {
        let mut probe = pointer;
        loop {
            if let Some(lc) = self.line_col(probe) {
                return lc;
            }
            match probe.rfind('/') {
                Some(i) => probe = probe.get(..i).unwrap_or(""),
                None => return (1, 1),
            }
        }
    }

    /// The 1-based (line, column) of a byte offset; the column counts characters.
    pub fn line_col_at(&self, offset: usize) -> (usize, usize) {
        let mut cache = lock(&self.line_starts);
        let starts = cache.get_or_insert_with(|| {
            std::iter::once(0)
                .chain(
                    self.text
                        .bytes()
                        .enumerate()
                        .filter(|(_, b)| *b == b'\n')
                        .map(|(i, _)| i + 1),
                )
                .collect()
        });
        let line = starts.partition_point(|&s| s <= offset).max(1);
        let start = starts.get(line - 1).copied().unwrap_or(0);
        let col = self
            .text
            .get(start..offset.min(self.text.len()))
            .map_or(offset - start, |s| s.chars().count());
        (line, col + 1)
    }

    /// Converts a (line, byte column) pair, as serde_json reports it, to a character
    /// column on the same line.
    pub fn char_column(&self, line: usize, byte_column: usize) -> usize {
        let Some(line_text) = self.text.split('\n').nth(line.saturating_sub(1)) else {
            return byte_column;
        };
        let end = byte_column.min(line_text.len());
        let mut cut = end;
        while cut > 0 && !line_text.is_char_boundary(cut) {
            cut -= 1;
        }
        line_text
            .get(..cut)
            .map_or(byte_column, |s| s.chars().count() + (end - cut))
    }

    fn element(&self, array_pos: usize, index: usize) -> Option<usize> {
        let bytes = self.text.as_bytes();
        if let Some(table) = lock(&self.arrays).get(&array_pos) {
            return table.get(index).copied();
        }
        let mut table = Vec::new();
        let mut pos = skip_ws(bytes, array_pos + 1);
        if bytes.get(pos) == Some(&b']') {
            return None;
        }
        loop {
            table.push(pos);
            if table.len() > index && table.len() < INDEX_THRESHOLD {
                return Some(pos);
            }
            pos = skip_ws(bytes, skip_value(bytes, pos)?);
            match bytes.get(pos)? {
                b',' => pos = skip_ws(bytes, pos + 1),
                b']' => break,
                _ => return None,
            }
        }
        let found = table.get(index).copied();
        if table.len() >= INDEX_THRESHOLD {
            lock(&self.arrays).insert(array_pos, table);
        }
        found
    }
}

/// Offset of the value of member `key` in the object starting at `pos` (the first
/// occurrence; the text after it need not be well-formed, so truncated documents can be
/// located too).
fn member(bytes: &[u8], pos: usize, key: &str) -> Option<usize> {
    let mut pos = skip_ws(bytes, pos + 1);
    if bytes.get(pos) == Some(&b'}') {
        return None;
    }
    loop {
        let (name, after) = string(bytes, pos)?;
        pos = skip_ws(bytes, after);
        if bytes.get(pos) != Some(&b':') {
            return None;
        }
        pos = skip_ws(bytes, pos + 1);
        if name == key {
            return Some(pos);
        }
        pos = skip_ws(bytes, skip_value(bytes, pos)?);
        match bytes.get(pos)? {
            b',' => pos = skip_ws(bytes, pos + 1),
            _ => return None,
        }
    }
}

fn skip_ws(bytes: &[u8], mut pos: usize) -> usize {
    while matches!(bytes.get(pos), Some(b' ' | b'\t' | b'\n' | b'\r')) {
        pos += 1;
    }
    pos
}

/// Parses the string starting at `pos` (which must be `"`); returns its decoded text and
/// the offset just past the closing quote.
fn string(bytes: &[u8], pos: usize) -> Option<(String, usize)> {
    if bytes.get(pos) != Some(&b'"') {
        return None;
    }
    let end = string_end(bytes, pos)?;
    let raw = std::str::from_utf8(bytes.get(pos..end)?).ok()?;
    let decoded: String = serde_json::from_str(raw).ok()?;
    Some((decoded, end))
}

/// Offset just past the closing quote of the string starting at `pos`.
fn string_end(bytes: &[u8], pos: usize) -> Option<usize> {
    let mut i = pos + 1;
    loop {
        match bytes.get(i)? {
            b'"' => return Some(i + 1),
            b'\\' => i += 2,
            _ => i += 1,
        }
    }
}

/// Offset just past the value starting at `pos`.
fn skip_value(bytes: &[u8], pos: usize) -> Option<usize> {
    match bytes.get(pos)? {
        b'"' => string_end(bytes, pos),
        b'{' | b'[' => {
            let mut depth = 0usize;
            let mut i = pos;
            loop {
                match bytes.get(i)? {
                    b'"' => {
                        i = string_end(bytes, i)?;
                        continue;
                    }
                    b'{' | b'[' => depth += 1,
                    b'}' | b']' => {
                        depth -= 1;
                        if depth == 0 {
                            return Some(i + 1);
                        }
                    }
                    _ => {}
                }
                i += 1;
            }
        }
        _ => {
            let mut i = pos;
            while let Some(b) = bytes.get(i) {
                if matches!(b, b',' | b'}' | b']' | b' ' | b'\t' | b'\n' | b'\r') {
                    break;
                }
                i += 1;
            }
            (i > pos).then_some(i)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_nested_values() {
        let text =
            "{\n  \"a/b\": 1,\n  \"vertex\": [ {\"x\": 1}, {\"x\": 2, \"s\": [5, \"]\", 7]} ]\n}";
        let l = Locator::new(text);
        assert_eq!(l.line_col("/a~1b"), Some((2, 10)));
        assert_eq!(l.line_col("/vertex/1/s/2"), Some((3, 48)));
        assert_eq!(l.line_col("/vertex/2"), None);
        assert_eq!(l.line_col(""), Some((1, 1)));
    }

    #[test]
    fn large_arrays_are_indexed_once() {
        let items: Vec<String> = (0..500).map(|i| format!("{{\"v\": {i}}}")).collect();
        let text = format!("[{}]", items.join(",\n"));
        let l = Locator::new(&text);
        for i in [499usize, 3, 250, 0] {
            let off = l.offset(&format!("/{i}/v")).unwrap();
            assert!(text[off..].starts_with(&i.to_string()));
        }
        assert_eq!(lock(&l.arrays).len(), 1);
        assert_eq!(l.offset("/500"), None);
    }

    #[test]
    fn columns_count_characters() {
        let text = "{\"é\": \"ü\", \"k\": 1}";
        let l = Locator::new(text);
        assert_eq!(l.line_col("/k"), Some((1, 17)));
        assert_eq!(l.char_column(1, 19), 17);
    }
}
