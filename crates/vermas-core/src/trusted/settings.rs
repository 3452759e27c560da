//! The settings a verdict reads. The verdict settings (`verify`, `llm`, `judge`, `inspect`,
//! `refinery`, `approvers`) come from `vermas.yaml` as committed; once approvers are set,
//! from the newest version an approver signed, and the approvers list itself changes only
//! by a commit an approver of the list before signed (the first list, by one of its own).
//! An uncommitted or unsigned change to them is a warning, never a setting.

use super::Trusted;
use super::history::{self, Version};
use super::signers::{Signed, Signers};
use crate::config::{Approvers, Config};
use crate::error::Result;
use crate::git::GitRepo;
use crate::workspace::Workspace;

/// The sections of the settings that decide verdicts.
const VERDICT_SECTIONS: &[&str] = &["verify", "llm", "judge", "inspect", "refinery", "approvers"];

/// Fills `t`'s approvers and settings from the ledger's commits in `repo`.
pub(super) fn settle(t: &mut Trusted, ws: &Workspace, repo: &GitRepo) -> Result<()> {
    let head = t.head.clone().unwrap_or_default();
    let file = t.ledger_path(crate::config::SETTINGS_FILE);
    let read = |commit: &str| -> Option<Config> {
        let bytes = repo.file_at(commit, &file)?;
        Config::parse(&String::from_utf8_lossy(&bytes), &file).ok()
    };
    let committed = match repo.file_at(&head, &file) {
        Some(_) => read(&head).unwrap_or_else(|| ws.config.clone()),
        None => {
            t.warnings.push(format!(
                "{file} is not committed: verdicts use the default settings"
            ));
            Config::default()
        }
    };
    let used = match approvers_in_effect(t, repo, &file, &committed)? {
        None => committed,
        Some(signers) => {
            let all = history::versions(&t.ledger_dir, &[&file], &signers)?;
            let (config, warning) = newest_signed_config(&all, &file, read);
            t.warnings.extend(warning);
            t.signers = Some(signers);
            config
        }
    };
    let differs = changed_sections(&ws.config, &used);
    if !differs.is_empty() {
        t.warnings.push(format!(
            "{} in {} differ from what {}: a verdict uses {}",
            differs.join(", "),
            ws.display(&ws.config_path()),
            if t.signers.is_some() {
                "an approver last signed"
            } else {
                "is committed"
            },
            if t.signers.is_some() {
                "the signed settings"
            } else {
                "the committed settings"
            }
        ));
    }
    let mut config = ws.config.clone();
    take_verdict_sections(&mut config, &used);
    t.config = config;
    Ok(())
}

/// The approvers in effect: walks every version of the settings (and of the approvers file
/// HEAD names) oldest first, taking a change of the list only when an approver of the list
/// before signed it. `None` when no version ever set approvers.
fn approvers_in_effect(
    t: &mut Trusted,
    repo: &GitRepo,
    file: &str,
    committed: &Config,
) -> Result<Option<Signers>> {
    let mut paths = vec![file.to_string()];
    if let Some(Approvers::File(path)) = &committed.approvers {
        paths.push(path.clone());
    }
    let shown: Vec<&str> = paths.iter().map(String::as_str).collect();
    let mut args = vec!["log", "--reverse", "--format=%H", "--"];
    args.extend(&shown);
    let commits = crate::git::cli::run(&t.ledger_dir, &args)?;
    let list_at = |commit: &str| -> Option<Signers> {
        let bytes = repo.file_at(commit, file)?;
        let config = Config::parse(&String::from_utf8_lossy(&bytes), file).ok()?;
        Some(match config.approvers? {
            Approvers::Lines(lines) => Signers::of_lines(&lines),
            Approvers::File(path) => repo
                .file_at(commit, &path)
                .map(|b| Signers::parse(&String::from_utf8_lossy(&b)))
                .unwrap_or_else(|| Signers::parse("")),
        })
    };
    let mut accepted: Option<Signers> = None;
    let mut ever = false;
    for commit in commits.lines().filter(|c| !c.is_empty()) {
        let now = list_at(commit);
        if now == accepted {
            continue;
        }
        ever |= now.is_some();
        // The first list is taken from a commit one of its own signers signed; every later
        // change (a removal included) from one an approver of the list before signed.
        let judge = match (&accepted, &now) {
            (Some(before), _) => before.clone(),
            (None, Some(first)) => first.clone(),
            (None, None) => continue,
        };
        match judge
            .check(&t.ledger_dir, &[commit.to_string()])?
            .remove(commit)
        {
            Some(Signed::By(_)) => {
                if accepted.is_none() {
                    t.since = Some(commit.to_string());
                }
                accepted = now;
            }
            other => {
                let why = match other {
                    Some(Signed::Not(why)) => why,
                    _ => "not signed".to_string(),
                };
                t.warnings.push(format!(
                    "{} changed approvers in {file}, but it is {why}: the change is ignored",
                    &commit[..commit.len().min(12)]
                ));
            }
        }
    }
    Ok(if ever {
        Some(accepted.unwrap_or_else(|| Signers::parse("")))
    } else {
        None
    })
}

/// The settings of the newest version an approver signed (the defaults when none did),
/// with a warning when newer, unsigned versions changed the verdict settings.
fn newest_signed_config(
    versions: &[Version],
    file: &str,
    read: impl Fn(&str) -> Option<Config>,
) -> (Config, Option<String>) {
    let (_, passed) = history::newest_signed(versions, file, |_| None);
    let signed = versions
        .iter()
        .find(|v| matches!(v.signed, Signed::By(_)))
        .and_then(|v| read(&v.commit));
    let config = signed.unwrap_or_default();
    // A newer unsigned version matters only when it changed what decides a verdict.
    let newest = versions.first().and_then(|v| read(&v.commit));
    let warning = match (passed, newest) {
        (Some(w), Some(n)) if !changed_sections(&n, &config).is_empty() => Some(w),
        _ => None,
    };
    (config, warning)
}

/// The verdict sections whose values differ between `a` and `b`.
fn changed_sections(a: &Config, b: &Config) -> Vec<&'static str> {
    VERDICT_SECTIONS
        .iter()
        .copied()
        .filter(|key| a.get(key).ok() != b.get(key).ok())
        .collect()
}

/// Puts `from`'s verdict sections into `to`.
fn take_verdict_sections(to: &mut Config, from: &Config) {
    to.verify = from.verify.clone();
    to.llm = from.llm.clone();
    to.judge = from.judge.clone();
    to.inspect = from.inspect.clone();
    to.refinery = from.refinery.clone();
    to.approvers = from.approvers.clone();
}
