//! What `vermas report` shows, gathered from the committed ledger and its history only
//! (so every clone and CI runner sees the same): the overview of work, live specs with
//! each criterion's outcomes over the commits that recorded them, and inspected work with
//! its evidence. Values only: the `vermas` crate renders the page.

mod inspections;
mod ledger;
mod live;
mod model;
mod overview;
mod views;

pub use ledger::Source;
pub use model::*;

use crate::error::{Error, Result};
use crate::git::GitRepo;
use crate::verify::Project;
use crate::workspace::layout;
use std::collections::HashMap;

/// Items listed per group of work or merge requests (the count says how many more).
pub(crate) const LIST_CAP: usize = 100;
/// Recorded outcomes shown per criterion (the newest; the count says how many more).
pub(crate) const STRIP_CAP: usize = 50;

/// What to gather.
#[derive(Debug, Clone, Default)]
pub struct Request {
    /// History starts after this revision (`--since`).
    pub since: Option<String>,
}

/// Gathers the report of project `p`: from HEAD of the ledger's repository, or from the
/// files when there is no git history to read (no repository, no commit yet, or
/// `git.commit: false`); without a `.beads` folder, the live specs alone. `--since` needs
/// history: without it, it is a usage error.
pub fn gather(p: &Project, req: &Request) -> Result<Report> {
    let ledger_root =
        p.ws.as_ref()
            .and_then(|ws| ws.beads_dir.parent())
            .unwrap_or(&p.root);
    let repo = if p.config.git.commit {
        GitRepo::open(ledger_root)
    } else {
        None
    };
    let head = repo.as_ref().and_then(GitRepo::head_commit);
    let committed = repo.as_ref().zip(head.as_deref());
    let since = match (&req.since, committed) {
        (None, _) => None,
        (Some(rev), Some((repo, _))) => Some(repo.resolve_commit(rev)?),
        (Some(_), None) => {
            return Err(Error::usage(
                "--since reads git history, and these records have none (no git \
                 repository, no commit yet, or git.commit: false)",
            ));
        }
    };
    let ledger = ledger::read(p, committed)?;
    let (spec_runs, past) = match committed {
        Some((repo, commit)) => history(repo, commit, &ledger, since.as_deref())?,
        None => (HashMap::new(), HashMap::new()),
    };
    let root = committed
        .and_then(|(r, _)| p.root.strip_prefix(r.workdir()).ok())
        .map(|p| p.to_string_lossy().replace('\\', "/"))
        .unwrap_or_default();
    let mut past_specs = live::PastSpecs::new(committed.map(|(r, _)| r), root);
    let specs = ledger
        .specs
        .iter()
        .map(|s| {
            let stem = format!("spec-{}", s.name);
            live::live_spec(
                s,
                ledger.results.get(&stem),
                spec_runs.get(&stem).map_or(&[][..], Vec::as_slice),
                &mut past_specs,
                head.as_deref(),
            )
        })
        .collect();
    Ok(Report {
        project: project_name(&p.root, repo.as_ref()),
        as_of: committed.and_then(|(r, c)| r.commit_time(c).ok()),
        branch: repo.as_ref().and_then(GitRepo::head_branch),
        since,
        links: link_base(repo.as_ref(), head.as_deref()),
        overview: overview::overview(&ledger, LIST_CAP),
        specs,
        inspections: inspections::inspections(&ledger, &past, req.since.is_some()),
        problems: ledger.problems.clone(),
        approvers_set: p.config.approvers.is_some(),
        source: ledger.source,
    })
}

/// Spec runs by result file stem (oldest first) and, for every other result file, the
/// commit that wrote its current version and its earlier inspection verdicts.
fn history(
    repo: &GitRepo,
    commit: &str,
    ledger: &ledger::Ledger,
    since: Option<&str>,
) -> Result<(HashMap<String, Vec<live::Recorded>>, inspections::Past)> {
    let dir = ledger::join(&ledger.beads_rela, layout::RESULTS);
    let mut runs: HashMap<String, Vec<live::Recorded>> = HashMap::new();
    let mut past = inspections::Past::new();
    for change in repo.folder_history(commit, &dir, since)? {
        for (name, bytes) in change.files {
            let Some(stem) = name.strip_suffix(".yaml") else {
                continue;
            };
            let Some(record) = views::parse::<views::ResultView>(&bytes, &name) else {
                continue;
            };
            if stem.starts_with("spec-") {
                runs.entry(stem.to_string())
                    .or_default()
                    .push(live::Recorded {
                        commit: change.commit.clone(),
                        at: record.at.unwrap_or(change.at),
                        record,
                    });
            } else if !record.is_gate() {
                match past.get_mut(stem) {
                    None => {
                        past.insert(stem.to_string(), (change.commit.clone(), Vec::new()));
                    }
                    Some((_, earlier)) => earlier.push(PastVerdict {
                        verdict: record.verdict.unwrap_or_else(|| "unknown".into()),
                        at: record.at,
                        commit: change.commit.clone(),
                    }),
                }
            }
        }
    }
    // The walk went newest first; strips read oldest first.
    for list in runs.values_mut() {
        list.reverse();
    }
    Ok((runs, past))
}

/// The project's name: the last part of `origin`'s URL (so every clone says the same),
/// else the repository's folder name.
fn project_name(root: &std::path::Path, repo: Option<&GitRepo>) -> String {
    let from_origin = repo
        .and_then(|r| r.config_value("remote.origin.url"))
        .and_then(|url| {
            let url = url.trim_end_matches('/');
            let last = url.rsplit(['/', ':']).next()?;
            let last = last.strip_suffix(".git").unwrap_or(last);
            (!last.is_empty()).then(|| last.to_string())
        });
    if let Some(name) = from_origin {
        return name;
    }
    root.file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| "project".into())
}

/// GitHub links when `origin` is on GitHub and there is a commit to point at, else
/// relative paths.
fn link_base(repo: Option<&GitRepo>, head: Option<&str>) -> LinkBase {
    let url = repo.and_then(|r| r.config_value("remote.origin.url"));
    match (url.as_deref().and_then(github_repo), head) {
        (Some(repo_url), Some(commit)) => LinkBase::GitHub {
            repo_url,
            commit: commit.to_string(),
        },
        _ => LinkBase::Relative,
    }
}

/// `https://github.com/OWNER/REPO` for a remote URL on github.com (https, ssh or scp
/// form), when owner and name are plain names.
pub fn github_repo(url: &str) -> Option<String> {
    let rest = url
        .strip_prefix("https://github.com/")
        .or_else(|| url.strip_prefix("http://github.com/"))
        .or_else(|| url.strip_prefix("ssh://git@github.com/"))
        .or_else(|| url.strip_prefix("git@github.com:"))?;
    let rest = rest.trim_end_matches('/');
    let rest = rest.strip_suffix(".git").unwrap_or(rest);
    let (owner, name) = rest.split_once('/')?;
    let plain = |s: &str| {
        !s.is_empty()
            && !s.starts_with('.')
            && s.chars()
                .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.'))
    };
    (plain(owner) && plain(name)).then(|| format!("https://github.com/{owner}/{name}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn github_remotes_in_every_spelling_and_nothing_else() {
        for url in [
            "https://github.com/acme/vermas.git",
            "git@github.com:acme/vermas.git",
            "ssh://git@github.com/acme/vermas",
            "https://github.com/acme/vermas/",
        ] {
            assert_eq!(
                github_repo(url).as_deref(),
                Some("https://github.com/acme/vermas"),
                "{url}"
            );
        }
        for url in [
            "https://gitlab.com/acme/vermas.git",
            "https://github.com/acme/vermas/extra",
            "https://github.com/acme/<x>",
            "javascript:alert(1)//github.com/a/b",
            "/srv/git/vermas.git",
        ] {
            assert_eq!(github_repo(url), None, "{url}");
        }
    }
}
