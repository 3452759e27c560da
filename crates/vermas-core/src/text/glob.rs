//! Glob patterns: `*` for any run of characters, `?` for one, everything else itself; and
//! path patterns whose `**` component stands for any number of folders.

/// Whether `text` matches `pattern` as a whole; `*` may cross `/`.
pub fn matches(pattern: &str, text: &str) -> bool {
    let p: Vec<char> = pattern.chars().collect();
    let t: Vec<char> = text.chars().collect();
    // Greedy with one backtrack point: the last `*` seen and where its run stopped.
    let (mut pi, mut ti) = (0, 0);
    let mut star: Option<(usize, usize)> = None;
    while ti < t.len() {
        match p.get(pi) {
            Some('*') => {
                star = Some((pi, ti));
                pi += 1;
            }
            Some(c) if *c == '?' || *c == t[ti] => {
                pi += 1;
                ti += 1;
            }
            _ => match star {
                Some((sp, st)) => {
                    pi = sp + 1;
                    ti = st + 1;
                    star = Some((sp, st + 1));
                }
                None => return false,
            },
        }
    }
    p[pi..].iter().all(|c| *c == '*')
}

/// Whether the folder and file names `path` match the pattern's `/`-separated components:
/// each component is a glob of one name, and `**` matches any number of names.
pub fn matches_path(pattern: &[String], path: &[&str]) -> bool {
    match pattern.split_first() {
        None => path.is_empty(),
        Some((p, rest)) if p == "**" => {
            (0..=path.len()).any(|skip| matches_path(rest, &path[skip..]))
        }
        Some((p, rest)) => match path.split_first() {
            Some((first, tail)) => matches(p, first) && matches_path(rest, tail),
            None => false,
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stars_and_question_marks() {
        assert!(matches("*.sh", "a.sh"));
        assert!(!matches("*.sh", "a.shx"));
        assert!(matches("tests/*.rb", "tests/x.rb"));
        assert!(matches("tests/*", "tests/a/b.rb"), "a star crosses folders");
        assert!(matches("t?.py", "t1.py"));
        assert!(!matches("t?.py", "t.py"));
        assert!(matches("a*b*c", "aXbYc"));
        assert!(!matches("a*b", "ab.c"));
        assert!(matches("exact", "exact"));
        assert!(!matches("exact", "exactly"));
        assert!(matches("*", ""));
        assert!(matches("**", "x"));
        assert!(matches("shiny.*", "shiny.x"));
        assert!(matches("*.implement", "a.implement"));
        assert!(matches("é?", "éü"), "characters, not bytes");
    }

    #[test]
    fn backtracking_stays_linear_enough() {
        let text = "a".repeat(200);
        assert!(!matches(&format!("{}b", "*a".repeat(30)), &text));
        assert!(matches(&"*a".repeat(30), &text));
    }

    #[test]
    fn path_patterns_match_by_component() {
        let g = |p: &str| p.split('/').map(str::to_string).collect::<Vec<_>>();
        assert!(matches_path(&g("packages/*"), &["packages", "a"]));
        assert!(!matches_path(&g("packages/*"), &["packages", "a", "b"]));
        assert!(matches_path(&g("apps/**"), &["apps", "a", "b"]));
        assert!(matches_path(&g("**/pkg-?"), &["x", "pkg-1"]));
        assert!(!matches_path(&g("libs/a*"), &["libs", "b"]));
    }
}
