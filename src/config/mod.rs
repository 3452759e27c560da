//! `.beads/config.yaml`: the settings, their defaults, and dotted-key get/set.

use crate::error::{Error, Result};
use crate::yaml;

mod render;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::collections::BTreeMap;
use std::time::Duration;

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
}

/// `mail.*` settings.
#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields, default)]
pub struct MailConfig {
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
    pub timeout: String,
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
    pub timeout: String,
    /// A different command per role (judge, auditor, advocate, critic, designer, strategist).
    pub roles: BTreeMap<String, String>,
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
    pub timeout: String,
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
            timeout: "120s".to_string(),
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
            timeout: "120s".to_string(),
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
            timeout: "300s".to_string(),
            roles: BTreeMap::new(),
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

    /// Checks values serde cannot: prefix spelling, durations, scope names.
    fn validate(&self) -> std::result::Result<(), (String, String)> {
        validate_prefix(&self.prefix).map_err(|m| ("prefix".to_string(), m))?;
        for (key, value) in [
            ("timeout", &self.verify.timeout),
            ("timeout", &self.llm.timeout),
            ("timeout", &self.gates.timeout),
        ] {
            parse_duration(value).map_err(|m| (key.to_string(), m))?;
        }
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
        let root = serde_json::to_value(self).map_err(|e| Error::Invalid(e.to_string()))?;
        let mut node = &root;
        for part in key.split('.') {
            node = node.get(part).ok_or_else(|| unknown_key(key))?;
        }
        Ok(node.clone())
    }

    /// A copy with the dotted `key` set from the command-line text `raw`, validated.
    pub fn with(&self, key: &str, raw: &str) -> Result<Config> {
        let root = serde_json::to_value(self).map_err(|e| Error::Invalid(e.to_string()))?;
        let parts: Vec<&str> = key.split('.').collect();
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
                return Err(Error::invalid_with_help(
                    format!("'{key}' is a section, not a single value"),
                    "set one of its keys, such as `vermas config set git.commit false`",
                ));
            }
            *node = candidate;
            match serde_json::from_value::<Config>(tree) {
                Ok(config) => match config.validate() {
                    Ok(()) => return Ok(config),
                    Err((_, msg)) => {
                        refused.get_or_insert(Error::Invalid(msg));
                    }
                },
                Err(e) => {
                    let msg = e.to_string();
                    if msg.contains("unknown field") {
                        return Err(unknown_key(key));
                    }
                    last_error = Some(Error::Invalid(format!("{key}: {msg}")));
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

/// Checks that an id prefix is short, starts with a letter and holds only `a-z0-9_`.
pub fn validate_prefix(prefix: &str) -> std::result::Result<(), String> {
    let ok = !prefix.is_empty()
        && prefix.len() <= 16
        && prefix.starts_with(|c: char| c.is_ascii_lowercase())
        && prefix
            .chars()
            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_');
    if ok {
        Ok(())
    } else {
        Err(format!(
            "prefix '{prefix}' must be 1-16 characters of a-z, 0-9 and _, starting with a letter"
        ))
    }
}

/// Checks that every skip code is an exit status in 2..=255: 0 means pass and 1 fail, so
/// neither may turn into SKIP.
pub fn check_skip_codes(codes: &[i32]) -> std::result::Result<(), String> {
    match codes.iter().find(|c| !(2..=255).contains(*c)) {
        None => Ok(()),
        Some(c @ (0 | 1)) => Err(format!(
            "verify.skip_codes cannot hold {c}: exit {c} means {}, never SKIP; use codes \
             from 2 to 255 such as 77",
            if *c == 0 { "PASS" } else { "FAIL" }
        )),
        Some(c) => Err(format!(
            "verify.skip_codes cannot hold {c}: an exit status is 0 to 255 and skip codes \
             must be 2 to 255, such as 77"
        )),
    }
}

/// Parses `500ms`, `30s`, `5m`, `2h` or a bare number of seconds.
pub fn parse_duration(text: &str) -> std::result::Result<Duration, String> {
    let t = text.trim();
    let (num, unit) = t
        .find(|c: char| !c.is_ascii_digit() && c != '.')
        .map_or((t, "s"), |i| (&t[..i], &t[i..]));
    let value: f64 = num
        .parse()
        .map_err(|_| format!("'{text}' is not a duration such as 30s, 5m or 2h"))?;
    let secs = match unit {
        "ms" => value / 1000.0,
        "s" | "" => value,
        "m" => value * 60.0,
        "h" => value * 3600.0,
        _ => return Err(format!("'{text}' is not a duration such as 30s, 5m or 2h")),
    };
    Ok(Duration::from_secs_f64(secs))
}

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

/// The error for a key no setting has.
fn unknown_key(key: &str) -> Error {
    Error::invalid_with_help(
        format!("unknown config key '{key}'"),
        "keys: prefix, git.commit, git.author, verify.jobs, verify.timeout, verify.output_cap, \
         verify.skip_codes, verify.runners.PATTERN, llm.command, llm.timeout, llm.roles.ROLE, \
         judge.max_file_bytes, judge.samples, specs.dir, gates.red, gates.green, \
         gates.refactor, gates.implement, gates.timeout, gates.green_runs, \
         gates.failure_patterns, gates.syntax_patterns, hooks.pre_push.scope, \
         hooks.pre_push.judge, watch.agent_log, mail.groups.NAME",
    )
}

/// One-based line and column of the first line that sets `key`, for error positions.
fn find_key_line(text: &str, key: &str) -> (usize, usize) {
    for (i, line) in text.lines().enumerate() {
        let trimmed = line.trim_start();
        if trimmed.starts_with(&format!("{key}:")) {
            return (i + 1, line.len() - trimmed.len() + key.len() + 3);
        }
    }
    (1, 1)
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
        c.mail.groups.insert(
            "reviewers".into(),
            vec!["inspector/critic".into(), "mayor/".into()],
        );
        let back = Config::parse(&c.render(), "config.yaml").unwrap();
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
    }

    #[test]
    fn durations() {
        assert_eq!(parse_duration("30s").unwrap(), Duration::from_secs(30));
        assert_eq!(parse_duration("5m").unwrap(), Duration::from_secs(300));
        assert_eq!(parse_duration("250ms").unwrap(), Duration::from_millis(250));
        assert_eq!(parse_duration("2").unwrap(), Duration::from_secs(2));
        assert!(parse_duration("3 weeks").is_err());
    }
}
