//! Role contexts: the text each role of the workspace works from, written by `init --roles`
//! to `.beads/roles/<role>.md` (what the role does, its commands, how it asks a question).
//! An LLM role's file stands in for its built-in prompt, so those files keep the answer
//! format the Inspector reads. On request each role also gets a workspace to start its
//! agent in ([`workspace`]).

pub mod workspace;

use crate::error::Result;
use crate::store::Txn;
use crate::workspace::Workspace;
use std::path::PathBuf;

/// Every role with a context file, in the order they are written, and its text.
pub const ROLES: &[(&str, &str)] = &[
    ("mayor", include_str!("mayor.md")),
    ("inspector", include_str!("inspector.md")),
    ("auditor", include_str!("auditor.md")),
    ("advocate", include_str!("advocate.md")),
    ("critic", include_str!("critic.md")),
    ("judge", include_str!("judge.md")),
    ("designer", include_str!("designer.md")),
    ("strategist", include_str!("strategist.md")),
];

/// What `init --roles` does with a role file that exists already.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Existing {
    /// Leave it as it is (a person may have edited it).
    Keep,
    /// Write the built-in text over it (`--force`).
    Overwrite,
}

/// What happened to one role file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RoleFile {
    /// The role.
    pub role: &'static str,
    /// `.beads/roles/<role>.md`.
    pub path: PathBuf,
    /// True when written now; false when an existing file was kept.
    pub written: bool,
}

/// `.beads/roles/<role>.md`.
pub(crate) fn path(ws: &Workspace, role: &str) -> PathBuf {
    ws.path(crate::workspace::layout::ROLES)
        .join(format!("{role}.md"))
}

/// Writes every role file into the open change `txn`: missing ones always, existing ones
/// only with [`Existing::Overwrite`] (and then only when their text differs).
pub(crate) fn write_in(
    txn: &mut Txn<'_>,
    ws: &Workspace,
    existing: Existing,
) -> Result<Vec<RoleFile>> {
    let mut out = Vec::with_capacity(ROLES.len());
    for (role, text) in ROLES {
        let path = path(ws, role);
        let present = path.symlink_metadata().is_ok();
        let write = match (present, existing) {
            (false, _) => true,
            (true, Existing::Keep) => false,
            (true, Existing::Overwrite) => ws.read_record(&path).ok().as_deref() != Some(*text),
        };
        if write {
            txn.write(&path, text.as_bytes())?;
        }
        out.push(RoleFile {
            role,
            path,
            written: write,
        });
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::ROLES;

    #[test]
    fn a_context_file_for_every_role_the_config_knows() {
        let mut files: Vec<&str> = ROLES.iter().map(|(r, _)| *r).collect();
        let mut known = crate::config::SESSION_ROLES.to_vec();
        files.sort();
        known.sort();
        assert_eq!(files, known);
        assert_eq!(crate::config::LLM_ROLES[0], "judge");
    }

    #[test]
    fn every_role_says_what_it_does_its_commands_and_how_to_ask() {
        assert_eq!(ROLES.len(), 8);
        for (role, text) in ROLES {
            assert!(text.starts_with("# "), "{role}");
            for heading in [
                "## What you do",
                "## Your commands",
                "## When you are unsure",
            ] {
                assert!(text.contains(heading), "{role} lacks {heading}");
            }
            assert!(text.contains("vermas "), "{role} names no command");
        }
    }

    #[test]
    fn llm_roles_keep_the_answer_format_the_inspector_reads() {
        let text = |r: &str| {
            ROLES
                .iter()
                .find(|(n, _)| *n == r)
                .map(|(_, t)| *t)
                .unwrap()
        };
        assert!(text("judge").contains(r#"{"verdict": "PASS|FAIL|NEEDS_HUMAN""#));
        let auditor = text("auditor");
        for word in [
            "`<id>: met`",
            "`<id>: not met`",
            "`<id>: unverifiable`",
            "CRITERION <id>",
        ] {
            assert!(auditor.contains(word), "auditor lacks {word}");
        }
    }
}
