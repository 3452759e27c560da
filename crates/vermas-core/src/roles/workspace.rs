//! Role workspaces: a folder per role, `.beads/roles/<role>/`, where that role's agent
//! starts. Its `CLAUDE.md` is the role's context (a copy of `.beads/roles/<role>.md`, the
//! one source, written again whenever it changed) and its `.claude/settings.json` lets the
//! agent run the vermas commands the role needs and nothing that writes the Inspector's
//! records: no hand edits under `.beads/`, no approval, no settings. Being under
//! `.beads/roles/`, a branch that changes them is never merged by the refinery.

use super::{Existing, ROLES};
use crate::error::Result;
use crate::store::Txn;
use crate::workspace::Workspace;
use serde_json::json;
use std::path::PathBuf;

/// The first line of a workspace's `CLAUDE.md`, before the role's context.
fn banner(role: &str) -> String {
    format!(
        "<!-- vermas: the {role}'s context, copied from .beads/roles/{role}.md by `vermas init \
         --roles --workspaces`. Edit that file, then run it again; this copy is rewritten. -->\n"
    )
}

/// `.beads/roles/<role>/`.
pub fn dir(ws: &Workspace, role: &str) -> PathBuf {
    ws.path(crate::workspace::layout::ROLES).join(role)
}

/// `.beads/roles/<role>/CLAUDE.md`.
pub(crate) fn claude_md(ws: &Workspace, role: &str) -> PathBuf {
    dir(ws, role).join("CLAUDE.md")
}

/// `.beads/roles/<role>/.claude/settings.json`.
pub(crate) fn settings(ws: &Workspace, role: &str) -> PathBuf {
    dir(ws, role).join(".claude").join("settings.json")
}

/// True when `role` has a workspace (its `CLAUDE.md` is there).
pub fn exists(ws: &Workspace, role: &str) -> bool {
    claude_md(ws, role).is_file()
}

/// The `CLAUDE.md` of a role whose context is `context`.
pub(crate) fn claude_text(role: &str, context: &str) -> String {
    format!("{}{context}", banner(role))
}

/// vermas commands every role may run: reading beads, specs and results, and mail.
const READ: &[&str] = &[
    "vermas show",
    "vermas list",
    "vermas ready",
    "vermas blocked",
    "vermas status",
    "vermas history",
    "vermas inspect pending",
    "vermas inspect show",
    "vermas inspect verdicts",
    "vermas inspect status",
    "vermas inspect feedback",
    "vermas mail",
];

/// What a role may run beyond [`READ`].
fn own_commands(role: &str) -> &'static [&'static str] {
    match role {
        "mayor" => &[
            "vermas q",
            "vermas create",
            "vermas update",
            "vermas close",
            "vermas dep",
            "vermas label",
            "vermas sling",
            "vermas clarify",
            "vermas answer",
            "vermas plan",
            "vermas design",
            "vermas refinery submit",
            "vermas refinery queue",
            "vermas refinery status",
        ],
        "inspector" => &[
            "vermas inspect verify",
            "vermas inspect audit",
            "vermas inspect review",
            "vermas inspect run",
            "vermas inspect loop",
            "vermas inspector run",
            "vermas strategize",
            "vermas refinery run",
            "vermas refinery queue",
            "vermas refinery status",
            "vermas mol",
        ],
        "auditor" => &["vermas inspect verify", "vermas inspect audit"],
        "advocate" | "critic" | "judge" => &["vermas inspect verify", "vermas inspect review"],
        "designer" => &["vermas design"],
        "strategist" => &["vermas strategize"],
        _ => &[],
    }
}

/// Commands no role's agent may run: what writes the Inspector's records or settings
/// (approving a spec is a person's act).
const DENIED_TO_ALL: &[&str] = &[
    "vermas inspect approve",
    "vermas inspect add-criteria",
    "vermas inspect create-spec",
    "vermas config set",
    "vermas config unset",
    "vermas init",
    "vermas hooks",
    "vermas git-hooks",
    "vermas import",
    "vermas delete",
];

/// Commands that record a verdict or merge: only the Inspector runs them.
const INSPECTOR_ONLY: &[&str] = &[
    "vermas inspect run",
    "vermas inspect loop",
    "vermas inspector run",
    "vermas refinery run",
];

/// The `.claude/settings.json` of `role`: its commands allowed, the records' folder closed
/// to edits, and the commands that write the Inspector's records denied.
pub fn settings_text(role: &str) -> String {
    let bash = |c: &&str| format!("Bash({c}:*)");
    let allow: Vec<String> = READ.iter().chain(own_commands(role)).map(bash).collect();
    let mut deny: Vec<String> = DENIED_TO_ALL.iter().map(bash).collect();
    if role != "inspector" {
        deny.extend(INSPECTOR_ONLY.iter().map(bash));
    }
    for tool in ["Edit", "Write", "MultiEdit", "NotebookEdit"] {
        deny.push(format!("{tool}(**/.beads/**)"));
    }
    let v = json!({
        "permissions": {
            "allow": allow,
            "deny": deny,
            // The repository's root, from .beads/roles/<role>/.
            "additionalDirectories": ["../../.."],
        }
    });
    let mut text = serde_json::to_string_pretty(&v).unwrap_or_default();
    text.push('\n');
    text
}

/// What happened to one role's workspace.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WorkspaceFiles {
    /// The role.
    pub role: &'static str,
    /// `.beads/roles/<role>/`.
    pub dir: PathBuf,
    /// Files written now (`CLAUDE.md`, `.claude/settings.json`).
    pub written: Vec<PathBuf>,
    /// Files kept as they were (a settings file a person edited, without `--force`).
    pub kept: Vec<PathBuf>,
}

/// Writes every role's workspace into the open change `txn`: `CLAUDE.md` from the role's
/// context as it is on disk now (so it follows a person's edits), whenever it differs;
/// `settings.json` when missing, or over an existing one only with
/// [`Existing::Overwrite`].
pub(crate) fn write_in(
    txn: &mut Txn<'_>,
    ws: &Workspace,
    existing: Existing,
) -> Result<Vec<WorkspaceFiles>> {
    let mut out = Vec::with_capacity(ROLES.len());
    for (role, builtin) in ROLES {
        let context = ws
            .read_record(&super::path(ws, role))
            .unwrap_or_else(|_| builtin.to_string());
        let mut files = WorkspaceFiles {
            role,
            dir: dir(ws, role),
            written: Vec::new(),
            kept: Vec::new(),
        };
        let md = claude_md(ws, role);
        let text = claude_text(role, &context);
        if ws.read_record(&md).ok().as_deref() != Some(text.as_str()) {
            txn.write(&md, text.as_bytes())?;
            files.written.push(md);
        }
        let json = settings(ws, role);
        let want = settings_text(role);
        match ws.read_record(&json).ok() {
            Some(have) if have == want => {}
            Some(_) if existing == Existing::Keep => files.kept.push(json),
            _ => {
                txn.write(&json, want.as_bytes())?;
                files.written.push(json);
            }
        }
        out.push(files);
    }
    Ok(out)
}

/// The roles whose workspace's `CLAUDE.md` no longer holds their context (the role file
/// changed since): what `doctor` reports.
pub(crate) fn stale(ws: &Workspace) -> Vec<&'static str> {
    ROLES
        .iter()
        .filter(|(role, _)| exists(ws, role))
        .filter(|(role, builtin)| {
            let context = ws
                .read_record(&super::path(ws, role))
                .unwrap_or_else(|_| builtin.to_string());
            ws.read_record(&claude_md(ws, role)).ok() != Some(claude_text(role, &context))
        })
        .map(|(role, _)| *role)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn settings_allow_the_roles_commands_and_deny_the_inspectors_records() {
        for (role, _) in ROLES {
            let v: serde_json::Value = serde_json::from_str(&settings_text(role)).unwrap();
            let list = |k: &str| -> Vec<String> {
                v["permissions"][k]
                    .as_array()
                    .unwrap()
                    .iter()
                    .map(|x| x.as_str().unwrap().to_string())
                    .collect()
            };
            let (allow, deny) = (list("allow"), list("deny"));
            assert!(allow.contains(&"Bash(vermas mail:*)".to_string()), "{role}");
            assert!(deny.contains(&"Edit(**/.beads/**)".to_string()), "{role}");
            assert!(
                deny.contains(&"Bash(vermas inspect approve:*)".to_string()),
                "{role}"
            );
            assert!(
                !allow.iter().any(|a| deny.contains(a)),
                "{role}: allowed and denied: {allow:?} {deny:?}"
            );
        }
        let judge = settings_text("judge");
        assert!(judge.contains("Bash(vermas inspect review:*)"));
        assert!(judge.contains("\"Bash(vermas inspect run:*)\""));
        let inspector: serde_json::Value =
            serde_json::from_str(&settings_text("inspector")).unwrap();
        assert!(
            inspector["permissions"]["allow"]
                .as_array()
                .unwrap()
                .iter()
                .any(|a| a == "Bash(vermas inspect run:*)")
        );
    }
}
