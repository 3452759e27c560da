//! `config unset`: a key back to its default, or a map entry removed.

use super::{Config, LLM_ROLES, unknown_key};
use crate::error::{Error, Result};

impl Config {
    /// A copy with the dotted `key` back at its default, or, for an entry of a map such as
    /// `llm.roles.judge`, without that entry. The id prefix cannot be unset.
    pub fn without(&self, key: &str) -> Result<Config> {
        if key == "prefix" {
            return Err(
                Error::config("the id prefix cannot be unset: new bead ids need one")
                    .with_help("change it instead: `vermas config set prefix NAME`"),
            );
        }
        let defaults =
            serde_json::to_value(Config::default()).map_err(|e| Error::config(e.to_string()))?;
        let mut tree = serde_json::to_value(self).map_err(|e| Error::config(e.to_string()))?;
        let parts = super::key_parts(key);
        let (last, parents) = parts.split_last().ok_or_else(|| unknown_key(key))?;
        let (mut node, mut default) = (&mut tree, Some(&defaults));
        for part in parents {
            node = node.get_mut(*part).ok_or_else(|| unknown_key(key))?;
            default = default.and_then(|d| d.get(*part));
        }
        let default = default.ok_or_else(|| unknown_key(key))?;
        let obj = node.as_object_mut().ok_or_else(|| unknown_key(key))?;
        match default.get(*last) {
            Some(d) if d.is_object() && !d.as_object().is_some_and(|m| m.is_empty()) => {
                return Err(
                    Error::config(format!("'{key}' is a section, not a single value")).with_help(
                        "unset one of its keys, such as `vermas config unset git.author`",
                    ),
                );
            }
            Some(d) => {
                obj.insert(last.to_string(), d.clone());
            }
            // An entry of a map (empty by default): a known role, or any name elsewhere.
            None if default.as_object().is_some_and(|m| m.is_empty())
                && (key != format!("llm.roles.{last}") || LLM_ROLES.contains(last)) =>
            {
                obj.remove(*last);
            }
            None => return Err(unknown_key(key)),
        }
        let config: Config =
            serde_json::from_value(tree).map_err(|e| Error::config(e.to_string()))?;
        Ok(config)
    }
}
