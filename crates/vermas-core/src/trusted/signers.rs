//! Approvers as git knows signers: the allowed-signers list (`principal key-type key` per
//! line, git's `gpg.ssh.allowedSignersFile` format), and which commits an approver signed,
//! checked as `git verify-commit` checks them (git runs `ssh-keygen`). Only ssh signatures
//! count: git judges a gpg signature by the user's own keyring, which is not the list. A commit counts only
//! when git calls its signature good (`G`) against this list: unsigned, signed by another
//! key, or not checkable (no `ssh-keygen`) counts as not signed.

use crate::error::{Error, Result};
use std::collections::BTreeMap;
use std::io::Write;
use std::path::Path;

/// The people whose signed commits approve, as an allowed-signers list.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Signers {
    /// The list's lines, comments and blank lines left out.
    lines: Vec<String>,
}

/// What git made of one commit's signature.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Signed {
    /// A good signature by this approver (the list's principal).
    By(String),
    /// No signature an approver made, and why.
    Not(String),
}

impl Signers {
    /// The signers of an allowed-signers text.
    pub fn parse(text: &str) -> Signers {
        Signers {
            lines: text
                .lines()
                .map(str::trim)
                .filter(|l| !l.is_empty() && !l.starts_with('#'))
                .map(str::to_string)
                .collect(),
        }
    }

    /// The signers of inline lines.
    pub fn of_lines(lines: &[String]) -> Signers {
        Signers::parse(&lines.join("\n"))
    }

    /// True when the list names nobody.
    pub fn is_empty(&self) -> bool {
        self.lines.is_empty()
    }

    /// The principals listed (the first word of each line).
    pub fn principals(&self) -> Vec<&str> {
        self.lines
            .iter()
            .filter_map(|l| l.split_whitespace().next())
            .collect()
    }

    /// Who signed each of `commits` of the repository at `dir`, as far as this list goes.
    pub fn check(&self, dir: &Path, commits: &[String]) -> Result<BTreeMap<String, Signed>> {
        if commits.is_empty() {
            return Ok(BTreeMap::new());
        }
        let mut args = vec!["--no-walk=unsorted"];
        args.extend(commits.iter().map(String::as_str));
        args.push("--");
        Ok(self.log(dir, &args)?.into_iter().collect())
    }

    /// `git log ARGS` in `dir`, each commit it lists (newest first) with who of this list
    /// signed it.
    pub fn log(&self, dir: &Path, args: &[&str]) -> Result<Vec<(String, Signed)>> {
        if self.is_empty() {
            // Nobody to have signed: no signature need be checked.
            let mut all = vec!["log", "--format=%H"];
            all.extend(args);
            let text = crate::git::cli::run(dir, &all)?;
            return Ok(text
                .lines()
                .filter(|l| !l.is_empty())
                .map(|id| (id.to_string(), self.reading("N", "")))
                .collect());
        }
        let mut file = tempfile::NamedTempFile::new().map_err(|e| Error::io(Path::new("."), e))?;
        file.write_all(self.lines.join("\n").as_bytes())
            .and_then(|()| file.write_all(b"\n"))
            .map_err(|e| Error::io(file.path(), e))?;
        let allowed = format!("gpg.ssh.allowedSignersFile={}", file.path().display());
        let mut all = vec!["-c", &allowed, "log", "--format=%H%x1f%G?%x1f%GS%x1f%GF"];
        all.extend(args);
        let text = crate::git::cli::run(dir, &all)?;
        Ok(text
            .lines()
            .filter_map(|line| {
                let mut parts = line.split('\x1f');
                let id = parts.next()?;
                let status = parts.next()?;
                let principal = parts.next().unwrap_or_default();
                let fingerprint = parts.next().unwrap_or_default();
                // git calls a gpg signature good against the user's own keyring, which a
                // worker's key may be in: only an ssh key of the list approves.
                let status = if status == "G" && !fingerprint.starts_with("SHA256:") {
                    "gpg"
                } else {
                    status
                };
                Some((id.to_string(), self.reading(status, principal)))
            })
            .collect())
    }

    /// What git's signature status letter (`%G?`) and principal (`%GS`) mean here.
    fn reading(&self, status: &str, principal: &str) -> Signed {
        match status {
            "G" if !self.is_empty() => Signed::By(principal.to_string()),
            _ if self.is_empty() => {
                Signed::Not("not signed by an approver: the approvers list is empty".into())
            }
            "N" => Signed::Not("not signed".into()),
            "U" | "G" => Signed::Not("signed by a key that is not an approver's".into()),
            "B" => Signed::Not("signed, but its signature is bad".into()),
            "E" => Signed::Not(
                "signed, but its signature cannot be checked (is ssh-keygen installed?)".into(),
            ),
            "gpg" => Signed::Not(
                "signed with gpg: approvals count only from the ssh keys approvers lists".into(),
            ),
            other => Signed::Not(format!("signed, but not well ({other})")),
        }
    }
}
