//! A ledger file's committed versions, newest first, each with who signed the commit that
//! made it; and the newest version an approver signed.

use super::signers::{Signed, Signers};
use crate::error::Result;
use std::path::Path;

/// One commit that changed a file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Version {
    /// The commit.
    pub commit: String,
    /// Whether an approver signed it.
    pub signed: Signed,
}

/// The commits reachable from HEAD of the checkout at `dir` that changed `paths`, newest
/// first, each read against `signers`.
pub(super) fn versions(dir: &Path, paths: &[&str], signers: &Signers) -> Result<Vec<Version>> {
    let mut args = vec!["--"];
    args.extend(paths);
    Ok(signers
        .log(dir, &args)?
        .into_iter()
        .map(|(commit, signed)| Version { commit, signed })
        .collect())
}

/// The content of `path` as the newest version an approver signed holds it (`at` reads a
/// commit's copy), with a warning when a newer, unsigned version was passed over.
pub(super) fn newest_signed(
    versions: &[Version],
    path: &str,
    at: impl Fn(&str) -> Option<Vec<u8>>,
) -> (Option<Vec<u8>>, Option<String>) {
    let signed = versions
        .iter()
        .position(|v| matches!(v.signed, Signed::By(_)));
    let passed = |upto: usize| {
        versions[..upto].first().map(|v| {
            let why = match &v.signed {
                Signed::Not(why) => why.as_str(),
                Signed::By(_) => "signed",
            };
            format!(
                "{path} was changed by {}, which is {why}: a verdict reads the version \
                     an approver signed",
                &v.commit[..v.commit.len().min(12)]
            )
        })
    };
    match signed {
        Some(i) => (at(&versions[i].commit), passed(i)),
        None if versions.is_empty() => (None, None),
        None => (None, passed(versions.len())),
    }
}
