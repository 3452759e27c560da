//! `.beads/vermas.yaml`: the settings, their defaults, and dotted-key get/set.

use crate::error::{Error, Result};
use crate::text::yaml;
pub(crate) use keys::key_parts;
use keys::{find_key_line, unknown_key};

mod approvers;
pub mod bd;
mod checks;
mod keys;
mod llm;
mod refinery;
mod render;
mod session;
mod sling;
mod timeouts;
mod unset;
pub use approvers::Approvers;
pub use llm::{LLM_ROLES, check_runnable, is_llm_command_key, program_exists};
pub use refinery::{RefineryConfig, Strategy};
pub use session::{LayoutConfig, PaneConfig, RolesConfig, SESSION_ROLES};
pub use sling::SlingConfig;
use timeouts::spelled;
pub use timeouts::{COMMAND_TIMEOUT, HOOK_TIMEOUT, LLM_TIMEOUT};

use crate::time::duration::HumanDuration;

/// The file under `.beads/` vermas keeps its settings in (bd keeps its own in
/// `config.yaml`, see [`bd`]).
pub const SETTINGS_FILE: &str = "vermas.yaml";
use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::collections::BTreeMap;

/// All settings; every key has a default, unknown keys are refused.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields, default)]
pub struct Config {
    /// Prefix of new bead ids.
    pub prefix: String,
    /// Git recording.
    pub git: GitConfig,
    /// Verify checks.
    pub verify: VerifyConfig,
    /// The LLM command.
    pub llm: LlmConfig,
    /// Judge checks.
    pub judge: JudgeConfig,
    /// Live specs.
    pub specs: SpecsConfig,
    /// Deterministic gate commands.
    pub gates: GatesConfig,
    /// Git hook behaviour.
    pub hooks: HooksConfig,
    /// `status --watch`.
    pub watch: WatchConfig,
    /// Agent mail.
    pub mail: MailConfig,
    /// The Inspector.
    pub inspect: InspectConfig,
    /// The Refinery (merge requests).
    pub refinery: RefineryConfig,
    /// `sling`: workers' worktrees.
    pub sling: SlingConfig,
    /// The panes of `vermas start`.
    pub layout: LayoutConfig,
    /// The agent command each role runs in its pane.
    pub agents: BTreeMap<String, String>,
    /// The roles' context files and workspaces.
    pub roles: RolesConfig,
    /// Who approves (see [`Approvers`]); `None`: approvals are not authenticated.
    pub approvers: Option<Approvers>,
}

/// `inspect.*` settings.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields, default)]
pub struct InspectConfig {
    /// A judge's PASS with less confidence than this (0 to 1) needs a person.
    pub min_confidence: f64,
    /// Longest one lifecycle hook (`.beads/hooks/<Point>`) may run.
    #[serde(deserialize_with = "timeouts::hook")]
    pub hook_timeout: HumanDuration,
}

impl Default for InspectConfig {
    fn default() -> Self {
        InspectConfig {
            min_confidence: 0.7,
            hook_timeout: spelled(HOOK_TIMEOUT),
        }
    }
}

/// `mail.*` settings.
#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields, default)]
pub struct MailConfig {
    /// The sender (and inbox) when `--from` is not given; none: the actor's own mailbox.
    pub from: Option<String>,
    /// Groups: `@name` expands to these addresses.
    pub groups: BTreeMap<String, Vec<String>>,
}

/// `watch.*` settings.
#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields, default)]
pub struct WatchConfig {
    /// The agent's log file, tailed in the lower tmux pane of `status --watch`.
    pub agent_log: Option<String>,
}

/// `git.*` settings.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields, default)]
pub struct GitConfig {
    /// Commit every change under `.beads/`.
    pub commit: bool,
    /// Author of vermas commits as `Name <email>`; none: git's identity.
    pub author: Option<String>,
}

/// `verify.*` settings.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields, default)]
pub struct VerifyConfig {
    /// Checks run at once; none: the number of cores.
    pub jobs: Option<usize>,
    /// Longest a check may run, such as `120s` or `5m`.
    #[serde(deserialize_with = "timeouts::verify")]
    pub timeout: HumanDuration,
    /// Bytes of output kept per check.
    pub output_cap: u64,
    /// Exit codes that mean SKIP.
    pub skip_codes: Vec<i32>,
    /// Interpreter command per file pattern for targets that are not executable.
    pub runners: BTreeMap<String, String>,
}

/// `llm.*` settings.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields, default)]
pub struct LlmConfig {
    /// Command that reads a prompt on stdin and answers on stdout.
    pub command: String,
    /// Longest an LLM call may take.
    #[serde(deserialize_with = "timeouts::llm")]
    pub timeout: HumanDuration,
    /// A different command per role (judge, auditor, advocate, critic, designer, strategist).
    pub roles: BTreeMap<String, String>,
    /// New asks after a designer's or strategist's reply that does not parse.
    pub retries: u32,
}

/// `judge.*` settings.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields, default)]
pub struct JudgeConfig {
    /// Bytes of each judged file put in the prompt.
    pub max_file_bytes: u64,
    /// Replies asked for per judge check; the majority decides.
    pub samples: u32,
}

/// `specs.*` settings.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields, default)]
pub struct SpecsConfig {
    /// Folder of live specs, relative to the repository root.
    pub dir: String,
    /// Create a test-spec bead with each new task, feature or bug.
    pub auto_create: bool,
}

/// `gates.*` settings: the command of each phase and how results are classified.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields, default)]
pub struct GatesConfig {
    /// RED: the new test must fail.
    pub red: Option<String>,
    /// GREEN: the tests must pass.
    pub green: Option<String>,
    /// REFACTOR: the tests must still pass.
    pub refactor: Option<String>,
    /// IMPLEMENT: the build must succeed.
    pub implement: Option<String>,
    /// Longest a gate command may run.
    #[serde(deserialize_with = "timeouts::gates")]
    pub timeout: HumanDuration,
    /// Times GREEN runs its command; runs that disagree are flaky.
    pub green_runs: u32,
    /// Extra output substrings that mean "a test failed" (beyond the built-in ones).
    pub failure_patterns: Vec<String>,
    /// Extra output substrings that mean "it did not compile or import".
    pub syntax_patterns: Vec<String>,
}

impl Default for GatesConfig {
    fn default() -> Self {
        GatesConfig {
            red: None,
            green: None,
            refactor: None,
            implement: None,
            timeout: spelled(COMMAND_TIMEOUT),
            green_runs: 3,
            failure_patterns: Vec::new(),
            syntax_patterns: Vec::new(),
        }
    }
}

/// `hooks.*` settings.
#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields, default)]
pub struct HooksConfig {
    /// The pre-push gate.
    pub pre_push: PrePushConfig,
}

/// `hooks.pre_push.*` settings.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields, default)]
pub struct PrePushConfig {
    /// `changed` (specs touched by the push) or `all`.
    pub scope: String,
    /// Also run judge checks before a push.
    pub judge: bool,
}

impl Default for Config {
    fn default() -> Self {
        Config {
            prefix: "bd".to_string(),
            git: GitConfig::default(),
            verify: VerifyConfig::default(),
            llm: LlmConfig::default(),
            judge: JudgeConfig::default(),
            specs: SpecsConfig::default(),
            gates: GatesConfig::default(),
            hooks: HooksConfig::default(),
            watch: WatchConfig::default(),
            mail: MailConfig::default(),
            inspect: InspectConfig::default(),
            refinery: RefineryConfig::default(),
            sling: SlingConfig::default(),
            layout: LayoutConfig::default(),
            agents: BTreeMap::new(),
            roles: RolesConfig::default(),
            approvers: None,
        }
    }
}

impl Default for GitConfig {
    fn default() -> Self {
        GitConfig {
            commit: true,
            author: None,
        }
    }
}

impl Default for VerifyConfig {
    fn default() -> Self {
        VerifyConfig {
            jobs: None,
            timeout: spelled(COMMAND_TIMEOUT),
            output_cap: 1024 * 1024,
            skip_codes: vec![77, 78],
            runners: BTreeMap::new(),
        }
    }
}

impl Default for LlmConfig {
    fn default() -> Self {
        LlmConfig {
            command: "claude -p".to_string(),
            timeout: spelled(LLM_TIMEOUT),
            roles: BTreeMap::new(),
            retries: 2,
        }
    }
}

impl Default for JudgeConfig {
    fn default() -> Self {
        JudgeConfig {
            max_file_bytes: 64 * 1024,
            samples: 1,
        }
    }
}

impl Default for SpecsConfig {
    fn default() -> Self {
        SpecsConfig {
            dir: "specs".to_string(),
            auto_create: true,
        }
    }
}

impl Default for PrePushConfig {
    fn default() -> Self {
        PrePushConfig {
            scope: "changed".to_string(),
            judge: false,
        }
    }
}

impl Config {
    /// Parses config text; `file` names it in errors.
    pub fn parse(text: &str, file: &str) -> Result<Config> {
        if text.trim().is_empty() {
            return Ok(Config::default());
        }
        let config: Config = yaml::parse(text, file, text, 1)?;
        config.validate().map_err(|msg| {
            let (line, col) = find_key_line(text, &msg.0);
            Error::from(crate::error::ParseError::at(file, text, line, col, msg.1))
        })?;
        Ok(config)
    }

    /// Checks values serde cannot: prefix spelling, scope names, ranges (durations were
    /// parsed as they were read).
    fn validate(&self) -> std::result::Result<(), (String, String)> {
        validate_prefix(&self.prefix).map_err(|m| ("prefix".to_string(), m))?;
        if !matches!(self.hooks.pre_push.scope.as_str(), "changed" | "all") {
            return Err((
                "scope".to_string(),
                format!(
                    "hooks.pre_push.scope must be 'changed' or 'all', not '{}'",
                    self.hooks.pre_push.scope
                ),
            ));
        }
        check_skip_codes(&self.verify.skip_codes).map_err(|m| ("skip_codes".to_string(), m))?;
        session::validate(&self.layout, &self.agents)?;
        if self.refinery.batch == 0 {
            return Err((
                "batch".to_string(),
                "refinery.batch must be at least 1 (1: one request at a time)".to_string(),
            ));
        }
        if !(0.0..=1.0).contains(&self.inspect.min_confidence) {
            return Err((
                "min_confidence".to_string(),
                format!(
                    "inspect.min_confidence must be from 0 to 1, not {}",
                    self.inspect.min_confidence
                ),
            ));
        }
        if let Some(role) = self
            .llm
            .roles
            .keys()
            .find(|r| !LLM_ROLES.contains(&r.as_str()))
        {
            return Err((
                role.clone(),
                format!(
                    "unknown LLM role '{role}' in llm.roles: the roles are {}",
                    LLM_ROLES.join(", ")
                ),
            ));
        }
        if self.judge.samples == 0 {
            return Err((
                "samples".to_string(),
                "judge.samples must be at least 1".to_string(),
            ));
        }
        Ok(())
    }

    /// The value at a dotted key such as `git.commit` or `llm.roles.judge`.
    pub fn get(&self, key: &str) -> Result<Value> {
        let root = serde_json::to_value(self).map_err(|e| Error::config(e.to_string()))?;
        let mut node = &root;
        for part in key_parts(key) {
            node = node.get(part).ok_or_else(|| unknown_key(key))?;
        }
        Ok(node.clone())
    }

    /// A copy with the dotted `key` set from the command-line text `raw`, validated.
    pub fn with(&self, key: &str, raw: &str) -> Result<Config> {
        let root = serde_json::to_value(self).map_err(|e| Error::config(e.to_string()))?;
        let parts = key_parts(key);
        if parts.iter().any(|p| p.is_empty()) {
            return Err(unknown_key(key));
        }
        let mut last_error = None;
        // A value of the right type that fails validation says more than a type mismatch.
        let mut refused = None;
        for candidate in scalar_candidates(raw) {
            let mut tree = root.clone();
            let mut node = &mut tree;
            for (i, part) in parts.iter().enumerate() {
                let is_last = i + 1 == parts.len();
                let obj = node.as_object_mut().ok_or_else(|| unknown_key(key))?;
                if !is_last && !obj.contains_key(*part) {
                    return Err(unknown_key(key));
                }
                node = obj.entry(part.to_string()).or_insert(Value::Null);
            }
            if node.is_object() {
                return Err(
                    Error::config(format!("'{key}' is a section, not a single value")).with_help(
                        "set one of its keys, such as `vermas config set git.commit false`",
                    ),
                );
            }
            *node = candidate;
            match serde_json::from_value::<Config>(tree) {
                Ok(config) => match config.validate() {
                    Ok(()) => return Ok(config),
                    Err((_, msg)) => {
                        refused.get_or_insert(Error::config(msg));
                    }
                },
                Err(e) => {
                    let msg = e.to_string();
                    if msg.contains("unknown field") {
                        return Err(unknown_key(key));
                    }
                    // A duration's own message already names its key.
                    let msg = if msg.starts_with(&format!("{key}: ")) {
                        msg
                    } else {
                        format!("{key}: {msg}")
                    };
                    last_error = Some(Error::config(msg));
                }
            }
        }
        Err(refused.or(last_error).unwrap_or_else(|| unknown_key(key)))
    }

    /// The command the LLM `role` uses (its own, else `llm.command`).
    pub fn llm_command(&self, role: &str) -> &str {
        self.llm
            .roles
            .get(role)
            .map_or(self.llm.command.as_str(), String::as_str)
    }
}

pub use checks::{check_skip_codes, sets_prefix, validate_prefix};

/// Durations are parsed (and range-checked) in [`crate::time::duration`].
pub use crate::time::duration::parse_duration;

/// The values a command-line string may mean, most specific first.
fn scalar_candidates(raw: &str) -> Vec<Value> {
    let mut out = Vec::new();
    match raw {
        "true" => out.push(Value::Bool(true)),
        "false" => out.push(Value::Bool(false)),
        "null" | "~" => out.push(Value::Null),
        _ => {}
    }
    if let Ok(n) = raw.parse::<i64>() {
        out.push(Value::from(n));
    } else if let Ok(x) = raw.parse::<f64>()
        && x.is_finite()
    {
        out.push(Value::from(x));
    }
    if raw.starts_with('[')
        && let Ok(v) = serde_json::from_str::<Value>(raw)
    {
        out.push(v);
    } else if raw.contains(',') && raw.split(',').all(|p| p.trim().parse::<i64>().is_ok()) {
        let list = raw
            .split(',')
            .map(|p| Value::from(p.trim().parse::<i64>().unwrap_or(0)));
        out.push(Value::Array(list.collect()));
    }
    out.push(Value::String(raw.to_string()));
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rendered_defaults_parse_back() {
        let mut c = Config {
            prefix: "vm".into(),
            ..Config::default()
        };
        c.llm
            .roles
            .insert("judge".into(), "claude -p --model x".into());
        c.verify.runners.insert("*.rb".into(), "ruby".into());
        assert_eq!(
            key_parts("verify.runners.*.nix"),
            ["verify", "runners", "*.nix"]
        );
        c.mail.groups.insert(
            "reviewers".into(),
            vec!["inspector/critic".into(), "mayor/".into()],
        );
        let back = Config::parse(&c.render(), "vermas.yaml").unwrap();
        assert_eq!(back, c);
    }

    #[test]
    fn set_validates_types_and_keys() {
        let c = Config::default();
        assert!(!c.with("git.commit", "false").unwrap().git.commit);
        assert_eq!(c.with("verify.jobs", "4").unwrap().verify.jobs, Some(4));
        assert_eq!(c.with("prefix", "ab").unwrap().prefix, "ab");
        assert_eq!(
            c.with("llm.roles.critic", "my-llm")
                .unwrap()
                .llm_command("critic"),
            "my-llm"
        );
        assert_eq!(
            c.with("verify.skip_codes", "77,2")
                .unwrap()
                .verify
                .skip_codes,
            vec![77, 2]
        );
        for bad in ["77,1", "0", "[0, 1]", "256", "-1"] {
            let e = c.with("verify.skip_codes", bad).unwrap_err().to_string();
            assert!(e.contains("verify.skip_codes"), "{bad}: {e}");
        }
        assert!(c.with("git.comit", "false").is_err());
        assert!(c.with("git.commit", "maybe").is_err());
        assert!(c.with("prefix", "Bad Prefix").is_err());
        assert!(c.with("verify.timeout", "soon").is_err());
        assert!(c.with("git", "x").is_err());
        let e = c.with("llm.roles.poet", "my-llm").unwrap_err().to_string();
        assert!(e.contains("unknown LLM role 'poet'"), "{e}");
    }

    #[test]
    fn unset_restores_defaults_and_removes_map_entries() {
        let c = Config::default()
            .with("git.commit", "false")
            .and_then(|c| c.with("llm.roles.judge", "x"))
            .and_then(|c| c.with("verify.runners.Rakefile", "ruby"))
            .unwrap();
        assert!(c.without("git.commit").unwrap().git.commit);
        assert!(c.without("llm.roles.judge").unwrap().llm.roles.is_empty());
        assert!(
            c.without("verify.runners.Rakefile")
                .unwrap()
                .verify
                .runners
                .is_empty()
        );
        assert_eq!(c.without("llm.roles.critic").unwrap(), c);
        for bad in ["git.comit", "llm.roles.poet", "git", "nope.x", "prefix", ""] {
            assert!(c.without(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn a_duration_error_names_its_key_and_line() {
        let text = "verify:\n  timeout: 120s\nllm:\n  command: x\n  timeout: 1e23s\n";
        let e = Config::parse(text, "vermas.yaml").unwrap_err().to_string();
        assert_eq!(
            e,
            "vermas.yaml:5:12: llm.timeout: duration 1e23s is too long (at most 365d)"
        );
        let e = Config::default().with("gates.timeout", "400d").unwrap_err();
        assert_eq!(
            e.to_string(),
            "gates.timeout: duration 400d is too long (at most 365d)"
        );
    }
}
