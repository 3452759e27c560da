//! Placeholders: `{{var}}` (the formula's variables, at cook time) and `{name}` (expansion
//! templates: `{target}`, `{target.title}`..., and the expansion's vars).

use super::formula::Loc;
use crate::error::{Error, Result};
use std::collections::{BTreeMap, HashMap};

/// A title or description with where it was written (for `{{var}}` errors).
#[derive(Debug, Clone)]
pub(crate) struct Text {
    /// The text (placeholders of expansions substituted, `{{var}}` not yet).
    pub value: String,
    /// Where it was written, when it was.
    pub at: Option<Loc>,
}

/// Replaces `{name}` by `vars[name]`; leaves `{{var}}` and unknown names alone.
pub(crate) fn placeholders(s: &str, vars: &HashMap<String, String>) -> String {
    let mut out = String::with_capacity(s.len());
    let mut rest = s;
    while let Some(pos) = rest.find('{') {
        out.push_str(&rest[..pos]);
        rest = &rest[pos..];
        if rest.starts_with("{{") {
            let end = rest.find("}}").map_or(rest.len(), |e| e + 2);
            out.push_str(&rest[..end]);
            rest = &rest[end..];
            continue;
        }
        let name_end = rest[1..]
            .find(|c: char| !(c.is_alphanumeric() || matches!(c, '_' | '-' | '.')))
            .map(|e| e + 1);
        match name_end {
            Some(e) if rest[e..].starts_with('}') && vars.contains_key(&rest[1..e]) => {
                out.push_str(&vars[&rest[1..e]]);
                rest = &rest[e + 1..];
            }
            _ => {
                out.push('{');
                rest = &rest[1..];
            }
        }
    }
    out.push_str(rest);
    out
}

/// Handlebars words that are never formula variables: `{{else}}`, `{{this}}`, and Go
/// template's `{{end}}`.
const TEMPLATE_KEYWORDS: [&str; 3] = ["else", "this", "end"];

/// `text` with every `{{name}}` replaced by its value. Everything else between double braces
/// is the text's own template language and is left as written, as Gas Town does: block
/// helpers (`{{#each items}}`, `{{/each}}`), `{{else}}`, `{{this}}`, paths (`{{dependent.id}}`),
/// `{{@index}}`, comments and partials. A bare name that is no variable stays too, as Gas
/// Town's cook leaves it (text for the agent, or a block's own field as in
/// `{{#each steps}}{{title}}{{/each}}`), unless, outside any block, it is one edit away from a
/// variable's name (`{{isue}}` for `issue`): that typo is an error at the placeholder.
pub(crate) fn fill(text: &Text, values: &BTreeMap<String, String>) -> Result<String> {
    let s = &text.value;
    let mut out = String::with_capacity(s.len());
    let mut rest = s.as_str();
    let mut depth = 0usize;
    while let Some(pos) = rest.find("{{") {
        out.push_str(&rest[..pos]);
        let after = &rest[pos + 2..];
        match after.as_bytes().first() {
            Some(b'#') => depth += 1,
            Some(b'/') => depth = depth.saturating_sub(1),
            _ => {}
        }
        let len = after
            .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
            .unwrap_or(after.len());
        let name = &after[..len];
        let is_name = !name.is_empty()
            && !name.starts_with(|c: char| c.is_ascii_digit())
            && after[len..].starts_with("}}")
            && !TEMPLATE_KEYWORDS.contains(&name);
        let value = if is_name { values.get(name) } else { None };
        match value {
            Some(v) => out.push_str(v),
            None if is_name && depth == 0 => {
                if let Some(meant) = values.keys().find(|v| one_edit_apart(name, v)) {
                    return Err(undefined(text, name, meant));
                }
                out.push_str("{{");
                rest = after;
                continue;
            }
            None => {
                out.push_str("{{");
                rest = after;
                continue;
            }
        }
        rest = &after[len + 2..];
    }
    out.push_str(rest);
    Ok(out)
}

/// Whether `a` becomes `b` by one inserted, deleted, replaced or swapped (adjacent) character.
fn one_edit_apart(a: &str, b: &str) -> bool {
    let (a, b): (Vec<char>, Vec<char>) = (a.chars().collect(), b.chars().collect());
    if a == b || a.len().abs_diff(b.len()) > 1 {
        return false;
    }
    let head = a.iter().zip(&b).take_while(|(x, y)| x == y).count();
    let (ra, rb) = (&a[head..], &b[head..]);
    let tail_eq = |x: &[char], y: &[char]| x == y;
    match ra.len().cmp(&rb.len()) {
        std::cmp::Ordering::Less => tail_eq(ra, &rb[1..]),
        std::cmp::Ordering::Greater => tail_eq(&ra[1..], rb),
        std::cmp::Ordering::Equal => {
            tail_eq(&ra[1..], &rb[1..])
                || (ra.len() >= 2 && ra[0] == rb[1] && ra[1] == rb[0] && ra[2..] == rb[2..])
        }
    }
}

/// The error for `{{name}}`, a typo of the variable `meant`, at the placeholder when it can
/// be found.
fn undefined(text: &Text, name: &str, meant: &str) -> Error {
    let msg = format!("`{{{{{name}}}}}` is not a variable of this formula");
    let help = format!(
        "did you mean `{{{{{meant}}}}}`? (else declare it under [vars] or pass --var {name}=VALUE)"
    );
    match &text.at {
        Some((src, span)) => {
            let needle = format!("{{{{{name}}}}}");
            let raw = src.text.get(span.clone()).unwrap_or("");
            let start = raw.find(&needle).map_or(span.start, |p| span.start + p);
            src.error(&(start..start + needle.len()), msg)
                .with_help(help)
                .into()
        }
        None => Error::invalid_with_help(msg, help),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Arc;

    #[test]
    fn placeholders_keep_double_braces() {
        let vars = HashMap::from([("target".to_string(), "impl".to_string())]);
        assert_eq!(
            placeholders("{target}.a {{target}} {x} {", &vars),
            "impl.a {{target}} {x} {"
        );
    }

    #[test]
    fn fill_substitutes_and_locates_unknown_names() {
        let values = BTreeMap::from([("a".to_string(), "1".to_string())]);
        let plain = |s: &str| Text {
            value: s.into(),
            at: None,
        };
        assert_eq!(
            fill(&plain("x {{a}} {{ a }} {{.A}} {{"), &values).unwrap(),
            "x 1 {{ a }} {{.A}} {{"
        );
        let src = Arc::new(crate::mol::formula::Source {
            name: "f".into(),
            text: "t = 'uses {{b}}'\n".into(),
        });
        let text = Text {
            value: "uses {{b}}".into(),
            at: Some((src, 4..16)),
        };
        let e = fill(&text, &values).unwrap_err().to_string();
        assert!(e.starts_with("f:1:11: `{{b}}` is not a variable"), "{e}");
    }

    #[test]
    fn fill_leaves_handlebars_and_far_names_alone_and_refuses_a_near_typo() {
        let values = BTreeMap::from([("rig".to_string(), "gastown".to_string())]);
        let plain = |s: &str| Text {
            value: s.into(),
            at: None,
        };
        let text = "{{#each items}}- {{title}} for {{rig}} ({{this}}, {{@index}}){{else}}none\
                    {{/each}} {{dependent.id}} {{{raw}}} {{!note}} {{> part}} {{end}}";
        assert_eq!(
            fill(&plain(text), &values).unwrap(),
            text.replace("{{rig}}", "gastown")
        );
        let e = fill(&plain("{{#if a}}x{{/if}} {{rgi}}"), &values)
            .unwrap_err()
            .to_string();
        assert!(e.contains("`{{rgi}}` is not a variable"), "{e}");
        let e = fill(&plain("{{/each}}{{/each}} {{rg}}"), &values)
            .unwrap_err()
            .to_string();
        assert!(e.contains("`{{rg}}` is not a variable"), "{e}");
        // A name far from every variable is the agent's text, left as written (Gas Town's cook).
        let text = "{{#if a}}x{{/if}} {{title}} {{who}} for {{rig}}";
        assert_eq!(
            fill(&plain(text), &values).unwrap(),
            "{{#if a}}x{{/if}} {{title}} {{who}} for gastown"
        );
    }

    #[test]
    fn one_edit_apart_counts_one_insert_delete_replace_or_swap() {
        for (a, b) in [
            ("isue", "issue"),
            ("issues", "issue"),
            ("isxue", "issue"),
            ("rgi", "rig"),
            ("b", "a"),
        ] {
            assert!(one_edit_apart(a, b), "{a} {b}");
        }
        for (a, b) in [
            ("rig", "rig"),
            ("scope", "rig"),
            ("ab", "bca"),
            ("abcd", "badc"),
        ] {
            assert!(!one_edit_apart(a, b), "{a} {b}");
        }
    }
}
