//! Placeholders: `{{var}}` (the formula's variables, at cook time) and `{name}` (expansion
//! templates: `{target}`, `{target.title}`..., and the expansion's vars).

use super::formula::Loc;
use crate::error::{Error, Result};
use std::collections::{BTreeMap, HashMap};

/// A title or description with where it was written (for `{{var}}` errors).
#[derive(Debug, Clone)]
pub struct Text {
    /// The text (placeholders of expansions substituted, `{{var}}` not yet).
    pub value: String,
    /// Where it was written, when it was.
    pub at: Option<Loc>,
}

/// Replaces `{name}` by `vars[name]`; leaves `{{var}}` and unknown names alone.
pub fn placeholders(s: &str, vars: &HashMap<String, String>) -> String {
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
/// `{{@index}}`, comments and partials. Inside a block a bare name that is no variable is the
/// block's own field (`{{#each steps}}{{title}}{{/each}}`) and stays; outside any block it is
/// an error at the placeholder.
pub fn fill(text: &Text, values: &BTreeMap<String, String>) -> Result<String> {
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
            None if is_name && depth == 0 => return Err(undefined(text, name, values)),
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

/// The error for `{{name}}` naming no variable, at the placeholder when it can be found.
fn undefined(text: &Text, name: &str, values: &BTreeMap<String, String>) -> Error {
    let msg = format!("`{{{{{name}}}}}` is not a variable of this formula");
    let known: Vec<&str> = values.keys().map(String::as_str).collect();
    let help = if known.is_empty() {
        format!("declare it under [vars] or pass --var {name}=VALUE")
    } else {
        format!(
            "declare it under [vars] or pass --var {name}=VALUE (variables: {})",
            known.join(", ")
        )
    };
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
    fn fill_leaves_handlebars_alone_and_still_refuses_a_bare_unknown_name() {
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
        let e = fill(&plain("{{#if a}}x{{/if}} {{title}}"), &values)
            .unwrap_err()
            .to_string();
        assert!(e.contains("`{{title}}` is not a variable"), "{e}");
        let e = fill(&plain("{{/each}}{{/each}} {{who}}"), &values)
            .unwrap_err()
            .to_string();
        assert!(e.contains("`{{who}}` is not a variable"), "{e}");
    }
}
