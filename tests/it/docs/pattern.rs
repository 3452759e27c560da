//! How shown output is compared with real output. The document shows ids and hashes as a
//! reader would see them (`vm-k3f9`, `mq-7h2x`, `42c646ad49ed`); the first time one appears
//! in a command's output it stands for whatever real id or hash is there, and from then on
//! for that one alone, in outputs, in later commands and in written files. Times
//! (`2026-11-22T10:00:00Z`) and durations (`0.4s`, `12ms`, `3m`) match any; `[..]` matches
//! any text within a line, and a line `...` any number of lines.

use std::collections::BTreeMap;

/// Prefixes of record ids: beads, merge requests, messages, molecules.
const ID_PREFIXES: &[&str] = &["vm", "mq", "msg", "mol"];

/// A placeholder the document shows and what it stands for.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Kind {
    /// A record id: `vm-k3f9` (its prefix and whether it is a test spec's `vm-spec-`).
    Id(String),
    /// A commit hash of this many hex digits.
    Hash(usize),
    /// An RFC 3339 time.
    Time,
    /// A duration or an age.
    Duration,
}

/// A piece of a shown line.
#[derive(Debug)]
enum Tok {
    Lit(String),
    Any,
    Name(String, Kind),
}

/// The names bound so far: the document's spelling to the real one.
#[derive(Debug, Default)]
pub struct Names {
    bound: BTreeMap<String, String>,
}

impl Names {
    /// `text` with every bound name replaced by what it stands for; a name not yet bound
    /// (used before any output showed it) is an error.
    pub fn substitute(&self, text: &str) -> Result<String, String> {
        let mut out = String::new();
        for tok in tokenize(text, false) {
            match tok {
                Tok::Lit(s) => out.push_str(&s),
                Tok::Any => out.push_str("[..]"),
                Tok::Name(doc, kind @ (Kind::Id(_) | Kind::Hash(_))) => {
                    match self.bound.get(&doc) {
                        Some(real) => out.push_str(real),
                        // A hex word no output showed (`ed25519`) is a word, not a hash.
                        None if matches!(kind, Kind::Hash(_)) => out.push_str(&doc),
                        None => {
                            return Err(format!(
                                "`{doc}` is used before any output showed it (the tests bind a \
                             shown id to the real one where it first appears)"
                            ));
                        }
                    }
                }
                Tok::Name(doc, _) => out.push_str(&doc),
            }
        }
        Ok(out)
    }

    /// `text` (real output) with every bound real name put back as the document spells it.
    pub fn unsubstitute(&self, text: &str) -> String {
        let mut pairs: Vec<(&String, &String)> = self.bound.iter().collect();
        pairs.sort_by_key(|(_, real)| std::cmp::Reverse(real.len()));
        let mut out = text.to_string();
        for (doc, real) in pairs {
            out = out.replace(real.as_str(), doc);
        }
        out
    }

    /// Matches the shown lines `expected` against the real `actual` ones, binding the
    /// names they show; nothing is bound when they do not match.
    pub fn match_output(&mut self, expected: &[String], actual: &[&str]) -> bool {
        let mut acc = Vec::new();
        if !self.lines(expected, actual, &mut acc) {
            return false;
        }
        for (doc, real) in acc {
            self.insert(doc, real);
        }
        true
    }

    /// Binds `doc` to `real`; a work's id and its test spec's (`vm-k3f9`, `vm-spec-k3f9`)
    /// bind together, as vermas names the spec after the work.
    fn insert(&mut self, doc: String, real: String) {
        let twin = |s: &str| match s.split_once("-spec-") {
            Some((p, h)) => format!("{p}-{h}"),
            None => s.replacen('-', "-spec-", 1),
        };
        if ID_PREFIXES
            .iter()
            .any(|p| doc.starts_with(&format!("{p}-")))
        {
            let (d, r) = (twin(&doc), twin(&real));
            if !self.bound.contains_key(&d) && !self.bound.values().any(|v| *v == r) {
                self.bound.insert(d, r);
            }
        }
        self.bound.insert(doc, real);
    }

    /// For drafting a document (`VERMAS_DOC_DRAFT=1`): binds each name the shown lines hold
    /// and no rule bound yet to the real name of its kind that comes next in `actual`.
    pub fn bind_in_order(&mut self, expected: &[String], actual: &[&str]) {
        let mut reals = Vec::new();
        for line in actual {
            let b = line.as_bytes();
            let mut i = 0;
            while i < b.len() {
                let boundary = i == 0 || !is_word(b[i - 1]);
                match boundary.then(|| real_name(&line[i..])).flatten() {
                    Some(n) => {
                        reals.push(line[i..i + n].to_string());
                        i += n;
                    }
                    None => i += line[i..].chars().next().map_or(1, char::len_utf8),
                }
            }
        }
        for tok in expected.iter().flat_map(|l| tokenize(l, true)) {
            let Tok::Name(doc, kind @ (Kind::Id(_) | Kind::Hash(_))) = tok else {
                continue;
            };
            if self.bound.contains_key(&doc) {
                continue;
            }
            let taken: Vec<String> = self.bound.values().cloned().collect();
            if let Some(real) = reals
                .iter()
                .find(|r| !taken.contains(r) && real_len(&kind, r) == Some(r.len()))
            {
                self.insert(doc, real.clone());
            }
        }
    }

    fn lines(&self, expected: &[String], actual: &[&str], acc: &mut Vec<(String, String)>) -> bool {
        let Some((first, rest)) = expected.split_first() else {
            return actual.is_empty();
        };
        if first.trim() == "..." {
            let mark = acc.len();
            for skip in 0..=actual.len() {
                if self.lines(rest, &actual[skip..], acc) {
                    return true;
                }
                acc.truncate(mark);
            }
            return false;
        }
        let Some((line, others)) = actual.split_first() else {
            return false;
        };
        let mark = acc.len();
        let toks = tokenize(first, true);
        if self.line(&toks, line, acc) && self.lines(rest, others, acc) {
            return true;
        }
        acc.truncate(mark);
        false
    }

    /// True when the pieces `toks` match all of `s`, extending `acc` with new bindings.
    fn line(&self, toks: &[Tok], s: &str, acc: &mut Vec<(String, String)>) -> bool {
        let Some((tok, rest)) = toks.split_first() else {
            return s.is_empty();
        };
        let mark = acc.len();
        let ok = match tok {
            Tok::Lit(l) => s
                .strip_prefix(l.as_str())
                .is_some_and(|r| self.line(rest, r, acc)),
            Tok::Any => (0..=s.len()).filter(|&i| s.is_char_boundary(i)).any(|i| {
                acc.truncate(mark);
                self.line(rest, &s[i..], acc)
            }),
            Tok::Name(doc, kind) => {
                let Some(len) = real_len(kind, s) else {
                    return false;
                };
                let real = &s[..len];
                let named = matches!(kind, Kind::Id(_) | Kind::Hash(_));
                if named && !self.binds(doc, real, acc) {
                    return false;
                }
                if named && !self.bound.contains_key(doc) && !acc.iter().any(|(d, _)| d == doc) {
                    acc.push((doc.clone(), real.to_string()));
                }
                self.line(rest, &s[len..], acc)
            }
        };
        if !ok {
            acc.truncate(mark);
        }
        ok
    }

    /// True when `doc` may stand for `real`: bound to it already, or both still free.
    fn binds(&self, doc: &str, real: &str, acc: &[(String, String)]) -> bool {
        let all = || {
            self.bound
                .iter()
                .map(|(d, r)| (d.as_str(), r.as_str()))
                .chain(acc.iter().map(|(d, r)| (d.as_str(), r.as_str())))
        };
        match all().find(|(d, _)| *d == doc) {
            Some((_, r)) => r == real,
            None => !all().any(|(_, r)| r == real),
        }
    }
}

/// How many bytes at the start of `s` a placeholder of `kind` takes, if it fits there.
fn real_len(kind: &Kind, s: &str) -> Option<usize> {
    let b = s.as_bytes();
    let run = |from: usize, ok: fn(u8) -> bool| b[from..].iter().take_while(|c| ok(**c)).count();
    match kind {
        Kind::Id(prefix) => {
            let head = format!("{prefix}-");
            if !s.starts_with(&head) {
                return None;
            }
            let n = run(head.len(), |c| c.is_ascii_digit() || c.is_ascii_lowercase());
            let next = b.get(head.len() + n);
            ((3..=12).contains(&n) && next != Some(&b'-')).then_some(head.len() + n)
        }
        Kind::Hash(len) => {
            let n = run(0, |c| c.is_ascii_hexdigit() && !c.is_ascii_uppercase());
            (n == *len && !b.get(n).is_some_and(|c| c.is_ascii_alphanumeric())).then_some(n)
        }
        Kind::Time => is_time(b).then_some(20),
        Kind::Duration => duration_len(b),
    }
}

/// The length of a real id or hash at the start of `s`, for [`Names::bind_in_order`].
fn real_name(s: &str) -> Option<usize> {
    for prefix in ID_PREFIXES {
        for kind in [format!("{prefix}-spec"), prefix.to_string()] {
            if let Some(n) = real_len(&Kind::Id(kind), s) {
                return Some(n);
            }
        }
    }
    let b = s.as_bytes();
    let n = b
        .iter()
        .take_while(|c| c.is_ascii_digit() || (b'a'..=b'f').contains(c))
        .count();
    (7..=40)
        .contains(&n)
        .then_some(n)
        .filter(|&n| !b.get(n).is_some_and(|c| is_word(*c)))
}

/// Splits shown text into literal text, `[..]` (in output only) and placeholders.
fn tokenize(text: &str, output: bool) -> Vec<Tok> {
    let b = text.as_bytes();
    let mut toks = Vec::new();
    let mut lit = String::new();
    let mut i = 0;
    while i < b.len() {
        let boundary = i == 0 || !is_word(b[i - 1]);
        let found = if output && text[i..].starts_with("[..]") {
            Some((4, Tok::Any))
        } else if boundary {
            placeholder(&text[i..])
        } else {
            None
        };
        match found {
            Some((len, tok)) => {
                if !lit.is_empty() {
                    toks.push(Tok::Lit(std::mem::take(&mut lit)));
                }
                toks.push(tok);
                i += len;
            }
            None => {
                let ch = text[i..].chars().next().unwrap_or(' ');
                lit.push(ch);
                i += ch.len_utf8();
            }
        }
    }
    if !lit.is_empty() {
        toks.push(Tok::Lit(lit));
    }
    toks
}

/// A placeholder at the start of `s` (which starts at a word boundary): its length and token.
fn placeholder(s: &str) -> Option<(usize, Tok)> {
    let b = s.as_bytes();
    let end_ok = |n: usize| !b.get(n).is_some_and(|c| is_word(*c));
    for prefix in ID_PREFIXES {
        let head = format!("{prefix}-");
        if let Some(rest) = s.strip_prefix(&head) {
            let spec = rest.starts_with("spec-");
            let from = head.len() + if spec { 5 } else { 0 };
            let n = b[from..]
                .iter()
                .take_while(|c| c.is_ascii_digit() || c.is_ascii_lowercase())
                .count();
            let hash = &s[from..from + n];
            if (4..=6).contains(&n) && hash.bytes().any(|c| c.is_ascii_digit()) && end_ok(from + n)
            {
                let kind = Kind::Id(if spec {
                    format!("{prefix}-spec")
                } else {
                    prefix.to_string()
                });
                return Some((from + n, Tok::Name(s[..from + n].to_string(), kind)));
            }
        }
    }
    if is_time(b) {
        return Some((20, Tok::Name(s[..20].to_string(), Kind::Time)));
    }
    if let Some(n) = duration_len(b) {
        return Some((n, Tok::Name(s[..n].to_string(), Kind::Duration)));
    }
    let n = b
        .iter()
        .take_while(|c| c.is_ascii_digit() || (b'a'..=b'f').contains(c))
        .count();
    let hex = &b[..n];
    if (7..=40).contains(&n)
        && end_ok(n)
        && hex.iter().any(u8::is_ascii_digit)
        && hex.iter().any(u8::is_ascii_lowercase)
    {
        return Some((n, Tok::Name(s[..n].to_string(), Kind::Hash(n))));
    }
    None
}

/// A letter, digit or `_`.
fn is_word(c: u8) -> bool {
    c.is_ascii_alphanumeric() || c == b'_'
}

/// `2026-11-22T10:00:00Z`.
fn is_time(b: &[u8]) -> bool {
    const SHAPE: &[u8] = b"dddd-dd-ddTdd:dd:ddZ";
    b.len() >= SHAPE.len()
        && SHAPE.iter().zip(b).all(|(s, c)| {
            if *s == b'd' {
                c.is_ascii_digit()
            } else {
                s == c
            }
        })
}

/// `0.4s`, `12ms`, `3m`, `2h`, `1d`: its length, when followed by no word character.
fn duration_len(b: &[u8]) -> Option<usize> {
    let mut n = b.iter().take_while(|c| c.is_ascii_digit()).count();
    if n == 0 {
        return None;
    }
    if b.get(n) == Some(&b'.') {
        let frac = b[n + 1..].iter().take_while(|c| c.is_ascii_digit()).count();
        if frac == 0 {
            return None;
        }
        n += 1 + frac;
    }
    let unit = if b[n..].starts_with(b"ms") {
        2
    } else if matches!(b.get(n), Some(b's' | b'm' | b'h' | b'd')) {
        1
    } else {
        return None;
    };
    let end = n + unit;
    (!b.get(end).is_some_and(|c| is_word(*c))).then_some(end)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lines(s: &str) -> Vec<String> {
        s.lines().map(str::to_string).collect()
    }

    #[test]
    fn a_shown_id_binds_to_the_real_one_and_stays_bound() {
        let mut names = Names::default();
        assert!(names.match_output(
            &lines("Created vm-k3f9: X\n  spec vm-spec-k3f9"),
            &["Created vm-ab12: X", "  spec vm-spec-ab12"]
        ));
        assert_eq!(
            names.substitute("vermas show vm-k3f9.1").unwrap(),
            "vermas show vm-ab12.1"
        );
        assert!(
            !names.match_output(&lines("vm-k3f9"), &["vm-zz99"]),
            "bound to another"
        );
        assert!(
            !names.match_output(&lines("vm-c4d5"), &["vm-ab12"]),
            "two names, one id"
        );
        assert!(names.substitute("vermas show vm-q7q7").is_err());
        assert_eq!(
            names.unsubstitute("vm-ab12 and vm-spec-ab12"),
            "vm-k3f9 and vm-spec-k3f9"
        );
    }

    #[test]
    fn times_durations_hashes_and_wildcards_match_any() {
        let mut names = Names::default();
        let shown = lines(
            "first\n...\n[PASS] x (exit 0, 0.4s) at 2026-11-22T10:00:00Z\nmain is now 42c646ad49ed [..]",
        );
        let real = [
            "first",
            "a",
            "b",
            "[PASS] x (exit 0, 12ms) at 2031-01-02T03:04:05Z",
            "main is now 0123456789ab (merged)",
        ];
        assert!(names.match_output(&shown, &real));
        assert_eq!(
            names.substitute("git show 42c646ad49ed").unwrap(),
            "git show 0123456789ab"
        );
        assert!(!names.match_output(&lines("exit 0"), &["exit 1"]));
        assert!(!names.match_output(&lines("a"), &["a", "b"]));
    }

    #[test]
    fn words_that_look_like_names_are_text() {
        let toks = tokenize("pre-push mol-spec-planning deadbeefcafe added 1.2x", true);
        assert!(toks.iter().all(|t| matches!(t, Tok::Lit(_))), "{toks:?}");
    }
}
