//! The `approvers` setting: who may approve test specs, change the settings that decide
//! verdicts and answer the Inspector's questions, as git's allowed-signers list, either
//! inline (a list of `principal key-type key` lines) or as the path of such a file in the
//! repository. Unset: approvals are not authenticated.

use crate::text::yaml;
use serde::{Deserialize, Serialize};

/// Where the approvers list is.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum Approvers {
    /// A file in git's allowed-signers format, relative to the repository's root.
    File(String),
    /// The list's lines.
    Lines(Vec<String>),
}

/// The `approvers:` section of the rendered settings.
pub(super) fn section(approvers: &Option<Approvers>) -> String {
    let value = match approvers {
        None => " null".to_string(),
        Some(Approvers::File(path)) => format!(" {}", yaml::scalar(path)),
        Some(Approvers::Lines(lines)) if lines.is_empty() => " []".to_string(),
        Some(Approvers::Lines(lines)) => lines
            .iter()
            .map(|l| format!("\n  - {}", yaml::scalar(l)))
            .collect(),
    };
    format!(
        "# Who approves: git's allowed-signers list (\"principal key-type key\" lines), or the\n\
         # path of such a file. Set, a test spec's approval, a change to the settings that\n\
         # decide verdicts (verify, llm, judge, inspect, refinery, approvers, .beads/roles,\n\
         # .beads/hooks) and an answer to the Inspector count only from a commit an approver\n\
         # signed (git's ssh signing). null: approvals are not authenticated.\n\
         approvers:{value}\n"
    )
}
