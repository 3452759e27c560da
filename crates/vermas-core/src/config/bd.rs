//! bd's files beside vermas's in `.beads/`: telling bd's `config.yaml` from the settings
//! an older vermas kept under that name, and reading bd's issue prefix. Only text is
//! looked at here (the workspace reads the files); nothing here is ever an error, since a
//! bd file vermas cannot make sense of is simply not vermas's.

use super::Config;
use crate::text::yaml;
use std::collections::BTreeMap;

/// The file bd keeps its settings in, and where vermas kept its own before `vermas.yaml`.
pub const SHARED_CONFIG_FILE: &str = "config.yaml";

/// bd's metadata file, naming its database and its JSONL export.
pub const BD_METADATA_FILE: &str = "metadata.json";

/// bd's JSONL export when its metadata names none.
pub const BD_JSONL_FILE: &str = "issues.jsonl";

/// The top-level keys of `text` read as YAML: `None` when it is not a mapping (or not
/// YAML at all), an empty list for a file of comments only.
fn top_level_keys(text: &str) -> Option<Vec<String>> {
    let map: Option<BTreeMap<String, serde::de::IgnoredAny>> =
        yaml::parse(text, SHARED_CONFIG_FILE, text, 1).ok()?;
    Some(map.unwrap_or_default().into_keys().collect())
}

/// True when a `.beads/config.yaml` holds an older vermas's settings: at least one
/// top-level key, and only keys vermas's settings have. bd's file (bd's keys such as
/// `issue-prefix`, or, as bd ships it, nothing but comments) is not.
pub fn is_vermas_settings(text: &str) -> bool {
    let Ok(serde_json::Value::Object(known)) = serde_json::to_value(Config::default()) else {
        return false;
    };
    top_level_keys(text)
        .is_some_and(|keys| !keys.is_empty() && keys.iter().all(|k| known.contains_key(k)))
}

/// The prefix bd gives new issues: `issue-prefix` in its `config.yaml` (a trailing `-`
/// dropped, as bd does), when vermas accepts it as an id prefix.
pub fn issue_prefix(config_text: &str) -> Option<String> {
    let map = yaml::parse::<Option<BTreeMap<String, serde_json::Value>>>(
        config_text,
        SHARED_CONFIG_FILE,
        config_text,
        1,
    )
    .ok()
    .flatten()?;
    let value = map.get("issue-prefix")?.as_str()?.trim();
    accepted(value.trim_end_matches('-'))
}

/// The name of bd's JSONL export under `.beads/`: `jsonl_export` in its `metadata.json`
/// when that is a plain file name, else `issues.jsonl`.
pub fn jsonl_file(metadata_text: Option<&str>) -> String {
    metadata_text
        .and_then(|t| serde_json::from_str::<serde_json::Value>(t).ok())
        .and_then(|v| v.get("jsonl_export")?.as_str().map(str::to_string))
        .filter(|name| {
            !name.is_empty() && !name.contains('/') && !name.starts_with('.') && name != ".."
        })
        .unwrap_or_else(|| BD_JSONL_FILE.to_string())
}

/// The prefix of the issue on one line of bd's JSONL export (`{"id":"wx-a1b2",...}`):
/// what comes before the id's last `-` (children's `.N` left out).
pub fn prefix_of_jsonl_line(line: &str) -> Option<String> {
    let v: serde_json::Value = serde_json::from_str(line.trim()).ok()?;
    let id = v.get("id")?.as_str()?;
    let top = id.split('.').next()?;
    let (prefix, _) = top.rsplit_once('-')?;
    accepted(prefix)
}

/// `prefix` when vermas can make ids with it.
fn accepted(prefix: &str) -> Option<String> {
    super::validate_prefix(prefix)
        .is_ok()
        .then(|| prefix.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// bd's `config.yaml` as `bd init` writes it: every setting commented out.
    const BD_TEMPLATE: &str =
        "# Beads Configuration File\n# issue-prefix: \"\"\n# no-db: false\n# json: false\n";

    #[test]
    fn an_older_vermas_config_is_told_from_bds() {
        assert!(is_vermas_settings("prefix: vm\ngit:\n  commit: true\n"));
        assert!(is_vermas_settings(&Config::default().render()));
        // bd's keys, or bd's template of comments only, are never vermas's.
        assert!(!is_vermas_settings("issue-prefix: wx\nno-db: false\n"));
        assert!(!is_vermas_settings("prefix: vm\nsync-branch: beads-sync\n"));
        assert!(!is_vermas_settings(BD_TEMPLATE));
        assert!(!is_vermas_settings(""));
        assert!(!is_vermas_settings("- a list\n"));
        assert!(!is_vermas_settings("{not: [yaml"));
    }

    #[test]
    fn bds_issue_prefix_is_read_when_vermas_accepts_it() {
        assert_eq!(issue_prefix("issue-prefix: wx\n").as_deref(), Some("wx"));
        assert_eq!(
            issue_prefix("no-db: true\nissue-prefix: \"wx-\"\n").as_deref(),
            Some("wx")
        );
        assert_eq!(issue_prefix(BD_TEMPLATE), None);
        assert_eq!(issue_prefix("issue-prefix: \"\"\n"), None);
        assert_eq!(issue_prefix("issue-prefix: My-Project\n"), None);
        assert_eq!(issue_prefix("issue-prefix: [a]\n"), None);
        assert_eq!(issue_prefix(": : :"), None);
    }

    #[test]
    fn the_jsonl_export_tells_the_prefix_too() {
        assert_eq!(jsonl_file(None), "issues.jsonl");
        assert_eq!(
            jsonl_file(Some(
                r#"{"database":"beads.db","jsonl_export":"beads.jsonl"}"#
            )),
            "beads.jsonl"
        );
        assert_eq!(
            jsonl_file(Some(r#"{"jsonl_export":"../x.jsonl"}"#)),
            "issues.jsonl"
        );
        assert_eq!(jsonl_file(Some("not json")), "issues.jsonl");
        assert_eq!(
            prefix_of_jsonl_line(r#"{"id":"wx-a1b2","title":"t"}"#).as_deref(),
            Some("wx")
        );
        assert_eq!(
            prefix_of_jsonl_line(r#"{"id":"wx-a1b2.3"}"#).as_deref(),
            Some("wx")
        );
        assert_eq!(prefix_of_jsonl_line(r#"{"id":"nodash"}"#), None);
        assert_eq!(prefix_of_jsonl_line("garbage"), None);
    }
}
