//! What a verdict may rest on: the ledger as it is committed, never a file a worker changed
//! and did not commit; and, where `approvers` is set, only what an approver signed. The
//! verdict settings (`verify`, `llm`, `judge`, `inspect`, `refinery`, `approvers`), the
//! role prompts and lifecycle hooks under `.beads/`, a test spec's approval stamp and a
//! person's answer are read through [`Trusted`]; everything else keeps reading the files.

mod history;
mod records;
mod settings;
pub(crate) mod signers;

pub(crate) use history::Version;
pub(crate) use signers::{Signed, Signers};

use crate::bead::model::Bead;
use crate::config::Config;
use crate::error::Result;
use crate::git::GitRepo;
use crate::workspace::Workspace;
use std::path::{Path, PathBuf};

/// The ledger as a verdict reads it.
#[derive(Debug, Clone)]
pub struct Trusted {
    /// The checkout that holds the ledger (the main worktree).
    ledger_dir: PathBuf,
    /// The ledger's folder in it, `/`-separated (`.beads`).
    records: String,
    /// The commit the ledger is at; `None` when it is not committed (no git, no commit).
    head: Option<String>,
    /// The approvers in effect, when set.
    signers: Option<Signers>,
    /// The commit that first set them: the ledger as it stood there counts as approved.
    since: Option<String>,
    /// The settings verdicts read: the files' settings with the verdict settings as
    /// committed (and, with approvers, as an approver last signed them).
    pub config: Config,
    /// What was not used, and why.
    pub warnings: Vec<String>,
}

/// Whether a test spec's approval counts.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Approval {
    /// No approvers are set: the stamp counts, but nothing says who made it.
    Unauthenticated,
    /// An approver's signed commit made the stamp.
    Signed {
        /// The approver (the allowed-signers list's principal).
        by: String,
        /// The commit.
        commit: String,
    },
    /// The stamp does not count, and why.
    NotSigned(String),
}

impl Trusted {
    /// The ledger of `ws` as a verdict reads it.
    pub fn of(ws: &Workspace) -> Result<Trusted> {
        let untrusted = |why: &str| Trusted {
            ledger_dir: ws.beads_dir.clone(),
            records: String::new(),
            head: None,
            signers: None,
            since: None,
            config: ws.config.clone(),
            warnings: vec![format!(
                "{why}: verdicts read the ledger's files as they are"
            )],
        };
        let Some(repo) = GitRepo::open(&ws.beads_dir) else {
            return Ok(untrusted("the ledger is not in a git repository"));
        };
        let beads = std::fs::canonicalize(&ws.beads_dir).unwrap_or_else(|_| ws.beads_dir.clone());
        let records = beads
            .strip_prefix(repo.workdir())
            .map(|r| r.to_string_lossy().replace('\\', "/"))
            .unwrap_or_default();
        let Some(head) = repo.head_commit() else {
            return Ok(untrusted("the ledger has no commit yet"));
        };
        let mut t = Trusted {
            ledger_dir: repo.workdir().to_path_buf(),
            records,
            head: Some(head),
            signers: None,
            since: None,
            config: ws.config.clone(),
            warnings: Vec::new(),
        };
        settings::settle(&mut t, ws, &repo)?;
        Ok(t)
    }

    /// True when approvers are set: approvals, verdict settings and answers count only
    /// from an approver's signed commit.
    pub fn authenticated(&self) -> bool {
        self.signers.is_some()
    }

    /// The approvers in effect, when set.
    pub fn signers(&self) -> Option<&Signers> {
        self.signers.as_ref()
    }

    /// The path of a ledger file (`rel` inside `.beads/`) in the ledger's checkout.
    fn ledger_path(&self, rel: &str) -> String {
        if self.records.is_empty() {
            rel.to_string()
        } else {
            format!("{}/{rel}", self.records)
        }
    }

    /// The content a verdict reads for the ledger file at `path` (a role prompt, a lifecycle
    /// hook): as committed (with approvers: as an approver last signed it), `None` when it
    /// is not there; with a warning when the file on disk differs or was changed unsigned.
    pub fn record(&self, path: &Path) -> Result<(Option<Vec<u8>>, Option<String>)> {
        let Some(head) = &self.head else {
            return Ok((std::fs::read(path).ok(), None));
        };
        let rel = path
            .strip_prefix(&self.ledger_dir)
            .map(|r| r.to_string_lossy().replace('\\', "/"))
            .unwrap_or_default();
        let repo = GitRepo::open(&self.ledger_dir);
        let at = |commit: &str| repo.as_ref().and_then(|r| r.file_at(commit, &rel));
        let (content, mut warning) = match &self.signers {
            None => (at(head), None),
            Some(signers) => {
                let versions = history::versions(&self.ledger_dir, &[&rel], signers)?;
                history::newest_signed(&versions, &rel, |c| at(c))
            }
        };
        let on_disk = std::fs::read(path).ok();
        if warning.is_none() && on_disk != content {
            warning = Some(format!(
                "{rel} has changes that are not committed{}: a verdict reads it as committed",
                if self.signers.is_some() {
                    " (or not signed by an approver)"
                } else {
                    ""
                }
            ));
        }
        Ok((content, warning))
    }

    /// `bead` as the ledger's commit holds it (the file's uncommitted changes left out, with
    /// a warning), `None` when it is not committed; the one given when the ledger is not
    /// committed at all.
    pub fn committed_bead(&mut self, ws: &Workspace, bead: Bead) -> Result<Option<Bead>> {
        let Some(head) = &self.head else {
            return Ok(Some(bead));
        };
        let rel = self.ledger_path(&format!("issues/{}.md", bead.id));
        let Some(repo) = GitRepo::open(&self.ledger_dir) else {
            return Ok(Some(bead));
        };
        let Some(bytes) = repo.file_at(head, &rel) else {
            return Ok(None);
        };
        let text = String::from_utf8_lossy(&bytes);
        let mut committed = crate::bead::parse_text(&text, &rel)?;
        crate::bead::approval::settle(&mut committed);
        let on_disk = std::fs::read_to_string(crate::bead::store::bead_path(ws, &bead.id))
            .unwrap_or_default();
        if on_disk != text {
            self.warnings.push(format!(
                "{} has changes that are not committed: a verdict reads it as committed",
                bead.id
            ));
        }
        Ok(Some(committed))
    }

    /// Whether the approval stamp `spec` carries counts: always without approvers; with
    /// them, only when the commit that made the stamp is an approver's signed commit.
    pub fn approval(&self, spec: &Bead) -> Result<Approval> {
        if self.signers.is_none() {
            return Ok(Approval::Unauthenticated);
        }
        let Some(stamp) = &spec.approved else {
            return Ok(Approval::NotSigned("it has no approval stamp".into()));
        };
        let rel = self.ledger_path(&format!("issues/{}.md", spec.id));
        let made = self.made_by(&rel, |bytes| {
            crate::bead::parse_text(&String::from_utf8_lossy(bytes), &rel)
                .is_ok_and(|b| b.approved.as_ref() == Some(stamp))
        })?;
        Ok(match made {
            None => Approval::NotSigned("its approval stamp is not committed".into()),
            Some(Version {
                commit,
                signed: Signed::By(by),
            }) => Approval::Signed { by, commit },
            Some(Version {
                commit,
                signed: Signed::Not(why),
            }) => Approval::NotSigned(format!(
                "the commit that approved it ({}) is {why}",
                &commit[..commit.len().min(12)]
            )),
        })
    }

    /// The commit that made the ledger file `rel` hold what `holds` looks for: the oldest
    /// of the newest run of its versions that hold it (`None` when the newest does not),
    /// with who signed it (with approvers set).
    pub fn made_by(&self, rel: &str, holds: impl Fn(&[u8]) -> bool) -> Result<Option<Version>> {
        let versions = self.versions(&[rel])?;
        let repo = GitRepo::open(&self.ledger_dir);
        let mut made = None;
        for v in versions {
            let content = repo.as_ref().and_then(|r| r.file_at(&v.commit, rel));
            if !content.is_some_and(|c| holds(&c)) {
                break;
            }
            made = Some(v);
        }
        Ok(made)
    }

    /// The commits that changed the ledger files `rels` (`.beads/...` as the ledger's
    /// checkout names them), newest first, with who signed each (with approvers set; else
    /// each reads as not signed).
    pub fn versions(&self, rels: &[&str]) -> Result<Vec<Version>> {
        let none = Signers::parse("");
        history::versions(
            &self.ledger_dir,
            rels,
            self.signers.as_ref().unwrap_or(&none),
        )
    }

    /// `path` (a record under the ledger) as the ledger's commits name it.
    pub fn rel(&self, ws: &Workspace, path: &Path) -> Option<String> {
        ws.ledger_relative(path)
    }

    /// Who signed `commit` of the ledger, when approvers are set: `Ok(None)` without them.
    pub fn signed(&self, commit: &str) -> Result<Option<Signed>> {
        let Some(signers) = &self.signers else {
            return Ok(None);
        };
        let mut all = signers.check(&self.ledger_dir, &[commit.to_string()])?;
        Ok(Some(all.remove(commit).unwrap_or_else(|| {
            Signed::Not(format!("{commit} is not a commit of the ledger"))
        })))
    }

    /// The sentence reports carry about what approvals rest on.
    pub fn note(&self) -> String {
        match &self.signers {
            Some(s) => format!(
                "approvals are authenticated: they count only from commits signed by an \
                 approver ({})",
                s.principals().join(", ")
            ),
            None => "approvals are not authenticated (anyone who can run vermas can approve): \
                     vermas config set approvers FILE, with signed commits, makes them count \
                     only from a person"
                .to_string(),
        }
    }

    /// Why a verdict cannot rest on the Inspector's own records under `.beads/` (`roles/`,
    /// `hooks/`): a symlink among them, a file that differs from what is committed, or, with
    /// approvers, a change no approver signed since they were set; `None` when they hold.
    pub fn records_problem(&self, ws: &Workspace) -> Result<Option<String>> {
        use crate::workspace::layout;
        let mut problems = Vec::new();
        for dir in [layout::ROLES, layout::HOOKS] {
            let on_disk = ws.path(dir);
            if std::fs::symlink_metadata(&on_disk).is_ok_and(|m| m.file_type().is_symlink()) {
                problems.push(format!("{} is a symlink", ws.display(&on_disk)));
                continue;
            }
            let Some(head) = &self.head else { continue };
            let rel = self.ledger_path(dir);
            problems.extend(records::differences(
                &self.ledger_dir,
                head,
                &rel,
                &on_disk,
            )?);
            if let Some(signers) = &self.signers {
                problems.extend(self.unsigned_change(&rel, signers)?);
            }
        }
        Ok((!problems.is_empty()).then(|| {
            format!(
                "the Inspector's own records are not as committed{}: {}; a verdict rests only \
                 on them as committed",
                if self.signers.is_some() {
                    " and signed"
                } else {
                    ""
                },
                problems.join("; ")
            )
        }))
    }

    /// The newest change under `rel` when no approver signed it and it came after approvers
    /// were set.
    fn unsigned_change(&self, rel: &str, signers: &Signers) -> Result<Option<String>> {
        let newest = history::versions(&self.ledger_dir, &[rel], signers)?;
        let Some(v) = newest.first() else {
            return Ok(None);
        };
        let Signed::Not(why) = &v.signed else {
            return Ok(None);
        };
        let blessed = self.since.as_ref().is_some_and(|since| {
            crate::git::cli::run(
                &self.ledger_dir,
                &["merge-base", "--is-ancestor", &v.commit, since],
            )
            .is_ok()
        });
        Ok((!blessed).then(|| {
            format!(
                "{rel} was changed by {}, which is {why}",
                &v.commit[..v.commit.len().min(12)]
            )
        }))
    }
}
