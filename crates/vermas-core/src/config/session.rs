//! `layout.*`, `agents.*` and `roles.*` settings: how `vermas start` lays out its two tmux
//! panes, which agent command each role runs, and whether roles get workspaces.

use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// The roles a pane (`layout.left.role`, `layout.right.role`) or an agent
/// (`agents.<role>`) may name: every role (see [`super::llm::ROLES`]).
pub const SESSION_ROLES: &[&str] = super::llm::ROLES;

/// `roles.*` settings.
#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields, default)]
pub struct RolesConfig {
    /// `init --roles` also writes each role's workspace (`.beads/roles/<role>/`: its
    /// `CLAUDE.md` and `.claude/settings.json`), as `--workspaces` asks.
    pub workspaces: bool,
}

/// `layout.*` settings.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields, default)]
pub struct LayoutConfig {
    /// Width of the left pane, in percent of the window (10 to 90).
    pub ratio: u32,
    /// The left pane.
    pub left: PaneConfig,
    /// The right pane.
    pub right: PaneConfig,
}

/// One pane of the session.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields, default)]
pub struct PaneConfig {
    /// Whose pane it is: mayor, inspector, or an inspector role.
    pub role: String,
    /// The pane's start-up command (a shell line); none: the role's watch, then
    /// `agents.<role>` when set.
    pub command: Option<String>,
}

impl Default for LayoutConfig {
    fn default() -> Self {
        LayoutConfig {
            ratio: 50,
            left: PaneConfig::of("mayor"),
            right: PaneConfig::of("inspector"),
        }
    }
}

impl Default for PaneConfig {
    fn default() -> Self {
        PaneConfig::of("mayor")
    }
}

impl PaneConfig {
    /// The pane of `role` with the role's default command.
    fn of(role: &str) -> PaneConfig {
        PaneConfig {
            role: role.to_string(),
            command: None,
        }
    }
}

/// Checks the values serde cannot: the ratio's range and the role names. Errors are
/// `(key to point at, message)`.
pub(super) fn validate(
    layout: &LayoutConfig,
    agents: &BTreeMap<String, String>,
) -> Result<(), (String, String)> {
    if !(10..=90).contains(&layout.ratio) {
        return Err((
            "layout.ratio".to_string(),
            format!(
                "layout.ratio must be from 10 to 90 (percent of the window), not {}",
                layout.ratio
            ),
        ));
    }
    for (side, pane) in [("left", &layout.left), ("right", &layout.right)] {
        if !SESSION_ROLES.contains(&pane.role.as_str()) {
            return Err((
                format!("layout.{side}.role"),
                format!(
                    "unknown role '{}' in layout.{side}.role: the roles are {}",
                    pane.role,
                    SESSION_ROLES.join(", ")
                ),
            ));
        }
        if pane.command.as_deref().is_some_and(|c| c.trim().is_empty()) {
            return Err((
                format!("layout.{side}.command"),
                format!("layout.{side}.command is empty (null: the role's default)"),
            ));
        }
    }
    if let Some(role) = agents.keys().find(|r| !SESSION_ROLES.contains(&r.as_str())) {
        return Err((
            format!("agents.{role}"),
            format!(
                "unknown role '{role}' in agents: the roles are {}",
                SESSION_ROLES.join(", ")
            ),
        ));
    }
    if let Some((role, _)) = agents.iter().find(|(_, c)| c.trim().is_empty()) {
        return Err((
            format!("agents.{role}"),
            format!("agents.{role} is empty (unset it to run no agent)"),
        ));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::Config;

    #[test]
    fn layout_and_agents_render_and_parse_back() {
        let mut c = Config::default();
        c.layout.ratio = 35;
        c.layout.right = PaneConfig {
            role: "critic".into(),
            command: Some("htop --tree".into()),
        };
        c.agents
            .insert("mayor".into(), "claude --model 'big one'".into());
        let back = Config::parse(&c.render(), "vermas.yaml").unwrap();
        assert_eq!(back, c);
        assert!(c.without("agents.mayor").unwrap().agents.is_empty());
        assert_eq!(c.without("layout.ratio").unwrap().layout.ratio, 50);
    }

    #[test]
    fn defaults_pass_and_bad_values_name_their_key() {
        let ok = LayoutConfig::default();
        assert_eq!(validate(&ok, &BTreeMap::new()), Ok(()));
        let mut wide = ok.clone();
        wide.ratio = 95;
        assert_eq!(
            validate(&wide, &BTreeMap::new()).unwrap_err().0,
            "layout.ratio"
        );
        let mut poet = ok.clone();
        poet.right.role = "poet".into();
        assert_eq!(
            validate(&poet, &BTreeMap::new()).unwrap_err().0,
            "layout.right.role"
        );
        let agents = BTreeMap::from([("poet".to_string(), "x".to_string())]);
        assert_eq!(validate(&ok, &agents).unwrap_err().0, "agents.poet");
        let blank = BTreeMap::from([("mayor".to_string(), " ".to_string())]);
        assert_eq!(validate(&ok, &blank).unwrap_err().0, "agents.mayor");
    }
}
