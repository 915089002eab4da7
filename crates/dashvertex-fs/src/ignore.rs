//! The `.gitignore` patterns a directory walk honours: `*`, `?`, `[...]`, `**`, a leading
//! or inner `/` (anchored to the file's folder), a trailing `/` (folders only), `!`
//! (re-include), `#` comments and `\` escapes. Matching is iterative (no recursion), at
//! most pattern × path steps.

/// One pattern line.
#[derive(Clone, Debug)]
struct Rule {
    glob: Vec<char>,
    negate: bool,
    dir_only: bool,
    anchored: bool,
}

/// The rules of one `.gitignore` file.
#[derive(Clone, Debug, Default)]
pub(crate) struct Rules {
    rules: Vec<Rule>,
}

impl Rules {
    /// Parses a `.gitignore` text.
    pub(crate) fn parse(text: &str) -> Rules {
        let mut rules = Vec::new();
        for line in text.lines() {
            let line = line.trim_end_matches('\r');
            let mut line = if line.ends_with("\\ ") {
                line
            } else {
                line.trim_end()
            };
            if line.is_empty() || line.starts_with('#') {
                continue;
            }
            let negate = line.starts_with('!');
            if negate {
                line = &line[1..];
            }
            let line = line.strip_prefix('\\').unwrap_or(line);
            let dir_only = line.ends_with('/');
            let line = line.trim_end_matches('/');
            if line.is_empty() {
                continue;
            }
            let anchored = line.contains('/');
            let line = line.strip_prefix('/').unwrap_or(line);
            rules.push(Rule {
                glob: line.chars().collect(),
                negate,
                dir_only,
                anchored,
            });
        }
        Rules { rules }
    }

    /// `Some(true)` when `rel` (relative to the `.gitignore`'s folder, `/`-separated) is
    /// ignored, `Some(false)` when re-included, `None` when no rule speaks of it.
    pub(crate) fn verdict(&self, rel: &str, is_dir: bool) -> Option<bool> {
        let base = rel.rsplit('/').next().unwrap_or(rel);
        let rel: Vec<char> = rel.chars().collect();
        let base: Vec<char> = base.chars().collect();
        let mut out = None;
        for r in &self.rules {
            if r.dir_only && !is_dir {
                continue;
            }
            let subject = if r.anchored { &rel } else { &base };
            if glob_match(&r.glob, subject) {
                out = Some(!r.negate);
            }
        }
        out
    }
}

/// Matches a class `[...]` at `p[i]` against `c`; returns the index after the class.
fn class(p: &[char], i: usize, c: char) -> Option<(bool, usize)> {
    let mut j = i + 1;
    let negate = matches!(p.get(j), Some('!' | '^'));
    if negate {
        j += 1;
    }
    let mut hit = false;
    let mut first = true;
    while let Some(&x) = p.get(j) {
        if x == ']' && !first {
            return Some((hit != negate && c != '/', j + 1));
        }
        first = false;
        if p.get(j + 1) == Some(&'-') && p.get(j + 2).is_some_and(|e| *e != ']') {
            let hi = p.get(j + 2).copied().unwrap_or(x);
            hit |= x <= c && c <= hi;
            j += 3;
        } else {
            hit |= x == c;
            j += 1;
        }
    }
    None
}

/// Glob match with backtracking over the last star (iterative). `**` crosses `/`.
fn glob_match(p: &[char], s: &[char]) -> bool {
    let (mut pi, mut si) = (0usize, 0usize);
    // (pattern index after the star, string index, star crosses '/')
    let mut star: Option<(usize, usize, bool)> = None;
    loop {
        if let Some(&pc) = p.get(pi) {
            if pc == '*' {
                let double = p.get(pi + 1) == Some(&'*');
                let mut next = pi + if double { 2 } else { 1 };
                // `**/` also matches zero folders.
                if double && p.get(next) == Some(&'/') {
                    next += 1;
                }
                star = Some((next, si, double));
                pi = next;
                continue;
            }
            if let Some(&sc) = s.get(si) {
                let step = match pc {
                    '?' if sc != '/' => Some(pi + 1),
                    '[' => match class(p, pi, sc) {
                        Some((true, after)) => Some(after),
                        Some((false, _)) => None,
                        None => (sc == '[').then_some(pi + 1),
                    },
                    '\\' if p.get(pi + 1) == Some(&sc) => Some(pi + 2),
                    c if c == sc && c != '?' && c != '\\' => Some(pi + 1),
                    _ => None,
                };
                if let Some(n) = step {
                    pi = n;
                    si += 1;
                    continue;
                }
            }
        } else if si == s.len() {
            return true;
        }
        // Mismatch: let the last star take one more character.
        match star {
            Some((after, from, crosses)) if from < s.len() => {
                if !crosses && s.get(from) == Some(&'/') {
                    return false;
                }
                star = Some((after, from + 1, crosses));
                pi = after;
                si = from + 1;
            }
            _ => return false,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::Rules;

    #[test]
    fn patterns() {
        let r = Rules::parse("# c\nnode_modules/\n*.tmp\n/build\n!keep.tmp\nlogs/**/x\nd[0-9]\n");
        assert_eq!(r.verdict("node_modules", true), Some(true));
        assert_eq!(r.verdict("a/node_modules", true), Some(true));
        assert_eq!(r.verdict("node_modules", false), None);
        assert_eq!(r.verdict("a/b.tmp", false), Some(true));
        assert_eq!(r.verdict("keep.tmp", false), Some(false));
        assert_eq!(r.verdict("build", true), Some(true));
        assert_eq!(r.verdict("a/build", true), None);
        assert_eq!(r.verdict("logs/x", false), Some(true));
        assert_eq!(r.verdict("logs/a/b/x", false), Some(true));
        assert_eq!(r.verdict("d7", false), Some(true));
        assert_eq!(r.verdict("dx", false), None);
        assert_eq!(r.verdict("a.json", false), None);
    }
}
