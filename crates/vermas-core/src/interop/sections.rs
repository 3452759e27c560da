//! The body of a bead imported from bd: the description, then a marked section each for
//! bd's design, acceptance criteria and notes, then one line holding the bd fields vermas
//! has no place of its own for.
//!
//! ```text
//! Free description.
//!
//! <!-- bd:design -->
//! ## Design
//!
//! How it is built.
//!
//! <!-- bd: {"external_ref":"gh-12"} -->
//! ```
//!
//! The markers are HTML comments, so rendered markdown shows only the headings.

use super::gojson;
use serde_json::{Map, Value};

/// A JSON object.
pub(crate) type Object = Map<String, Value>;

/// bd's free texts of one issue, each without surrounding blank lines.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct Texts {
    /// `description`.
    pub description: String,
    /// `design`.
    pub design: String,
    /// `acceptance_criteria`.
    pub acceptance_criteria: String,
    /// `notes` (bd's free-text notes, not vermas's timestamped notes).
    pub notes: String,
}

/// The marked sections: bd's key and the heading written under the marker.
const SECTIONS: [(&str, &str); 3] = [
    ("design", "## Design"),
    ("acceptance_criteria", "## Acceptance Criteria"),
    ("notes", "## Notes"),
];

/// How the line of leftover bd fields starts and ends.
const EXTRAS_OPEN: &str = "<!-- bd: ";
const EXTRAS_CLOSE: &str = " -->";

impl Texts {
    /// The section text bd keeps under `key` (`description` included).
    pub(crate) fn get(&self, key: &str) -> &str {
        match key {
            "design" => &self.design,
            "acceptance_criteria" => &self.acceptance_criteria,
            "notes" => &self.notes,
            _ => &self.description,
        }
    }

    fn slot(&mut self, key: &str) -> &mut String {
        match key {
            "design" => &mut self.design,
            "acceptance_criteria" => &mut self.acceptance_criteria,
            "notes" => &mut self.notes,
            _ => &mut self.description,
        }
    }
}

/// A text as a bead body keeps it: without leading or trailing line breaks.
pub(crate) fn canonical(text: &str) -> String {
    text.trim_matches(['\n', '\r']).to_string()
}

/// The marker line of section `key`.
fn marker(key: &str) -> String {
    format!("<!-- bd:{key} -->")
}

/// The bead body for `texts` and the leftover bd fields `extras` (none when empty).
pub(crate) fn compose(texts: &Texts, extras: &Object) -> String {
    let mut parts = Vec::new();
    let description = canonical(&texts.description);
    if !description.is_empty() {
        parts.push(description);
    }
    for (key, heading) in SECTIONS {
        let text = canonical(texts.get(key));
        if !text.is_empty() {
            parts.push(format!("{}\n{heading}\n\n{text}", marker(key)));
        }
    }
    if !extras.is_empty() {
        let json = gojson::to_line(&Value::Object(extras.clone()));
        parts.push(format!("{EXTRAS_OPEN}{json}{EXTRAS_CLOSE}"));
    }
    parts.join("\n\n")
}

/// Reads a bead body back into bd's texts and the leftover bd fields. A body vermas did
/// not compose is all description.
pub(crate) fn split(body: &str) -> (Texts, Object) {
    let (rest, extras) = take_extras(body);
    let markers: Vec<String> = SECTIONS.iter().map(|(k, _)| marker(k)).collect();
    let mut texts = Texts::default();
    let mut current = "description";
    let mut heading_next = false;
    let mut lines: Vec<&str> = Vec::new();
    for line in rest.split('\n') {
        let bare = line.trim_end_matches('\r');
        if let Some(i) = markers.iter().position(|m| m == bare) {
            flush(&mut texts, current, &mut lines);
            current = SECTIONS[i].0;
            heading_next = true;
            continue;
        }
        if std::mem::take(&mut heading_next) && heading_of(current) == Some(bare) {
            continue;
        }
        lines.push(line);
    }
    flush(&mut texts, current, &mut lines);
    (texts, extras)
}

/// The heading written under section `key`'s marker.
fn heading_of(key: &str) -> Option<&'static str> {
    SECTIONS.iter().find(|(k, _)| *k == key).map(|(_, h)| *h)
}

/// Adds the collected `lines` to section `key` (a section marked twice gets both parts).
fn flush(texts: &mut Texts, key: &str, lines: &mut Vec<&str>) {
    let text = canonical(&lines.join("\n"));
    lines.clear();
    if text.is_empty() {
        return;
    }
    let slot = texts.slot(key);
    if !slot.is_empty() {
        slot.push_str("\n\n");
    }
    slot.push_str(&text);
}

/// The body without its last line when that line holds leftover bd fields, and those fields.
fn take_extras(body: &str) -> (&str, Object) {
    let (head, last) = body.rsplit_once('\n').unwrap_or(("", body));
    let json = last
        .trim_end_matches('\r')
        .strip_prefix(EXTRAS_OPEN)
        .and_then(|l| l.strip_suffix(EXTRAS_CLOSE));
    match json.and_then(|j| serde_json::from_str::<Object>(j).ok()) {
        Some(extras) => (head, extras),
        None => (body, Object::new()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn texts(d: &str, g: &str, a: &str, n: &str) -> Texts {
        Texts {
            description: d.into(),
            design: g.into(),
            acceptance_criteria: a.into(),
            notes: n.into(),
        }
    }

    #[test]
    fn compose_split_round_trip() {
        let extras: Object = json!({"external_ref": "gh-9", "x": "a --> b"})
            .as_object()
            .unwrap()
            .clone();
        for t in [
            texts("Desc\n\n## Design\nnot a section", "", "", ""),
            texts(
                "",
                "## Design\nfirst line is a heading",
                "- [ ] works",
                "n\r\nm",
            ),
            texts("d", "g", "a", "n"),
            texts("", "", "", ""),
        ] {
            for e in [Object::new(), extras.clone()] {
                let body = compose(&t, &e);
                assert_eq!(split(&body), (t.clone(), e.clone()), "{body}");
            }
        }
        let body = compose(&texts("d", "g", "", ""), &extras);
        assert!(body.starts_with("d\n\n<!-- bd:design -->\n## Design\n\ng\n\n<!-- bd: {"));
        assert!(body.contains("--\\u003e"), "{body}");
    }

    #[test]
    fn a_plain_body_is_all_description() {
        let (t, e) = split("Just text\n<!-- bd: not json -->");
        assert_eq!(t.description, "Just text\n<!-- bd: not json -->");
        assert!(e.is_empty());
    }
}
