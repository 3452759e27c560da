//! `vermas merge-file`: git's merge driver for vermas's records. A record changed on two
//! branches merges by what it means (a bead's fields, a message's read mark, a molecule's
//! steps, the later run of a result), never leaving conflict markers; a file vermas
//! cannot read on either side is refused, so git reports the conflict instead.

pub(crate) mod bead;
pub(crate) mod lines;
#[cfg(test)]
mod props;
#[cfg(test)]
mod props_body;
pub(crate) mod records;

use crate::error::{Error, Result};

/// The kinds of record the driver merges, told by their path under `.beads/`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Kind {
    /// `.beads/issues/<id>.md`.
    Bead,
    /// `.beads/mail/**/<id>.md`.
    Mail,
    /// `.beads/mols/<id>.yaml`.
    Molecule,
    /// `.beads/results/<key>.yaml`.
    Result,
    /// `.beads/mq/<id>.yaml`.
    MergeRequest,
}

impl Kind {
    /// The kind of the record at `path` (as git names it, relative to the repository), if
    /// vermas merges it.
    pub(crate) fn of(path: &str) -> Option<Kind> {
        let path = path.replace('\\', "/");
        let start = path
            .rfind(".beads/")
            .map(|i| i + ".beads/".len())
            .unwrap_or(0);
        let rel = &path[start..];
        let (top, rest) = rel.split_once('/')?;
        let name = rest.rsplit('/').next().unwrap_or(rest);
        let flat = !rest.contains('/');
        match (top, name) {
            ("issues", n) if flat && n.ends_with(".md") => Some(Kind::Bead),
            ("mail", n) if n.ends_with(".md") => Some(Kind::Mail),
            ("mols", n) if flat && n.ends_with(".yaml") => Some(Kind::Molecule),
            ("results", n) if flat && n.ends_with(".yaml") => Some(Kind::Result),
            ("mq", n) if flat && n.ends_with(".yaml") => Some(Kind::MergeRequest),
            _ => None,
        }
    }
}

/// The three-way merge of the record at `path`: `base` (empty when both sides added the
/// file), `ours` and `theirs`. Refused when vermas does not merge such a file or cannot
/// read a side.
pub fn merge_file(base: &str, ours: &str, theirs: &str, path: &str) -> Result<String> {
    let kind = Kind::of(path).ok_or_else(|| {
        Error::invalid_with_help(
            format!("{path} is not a record vermas merges"),
            "resolve the conflict by hand, or name only vermas's records for the `vermas` \
             merge driver in .gitattributes",
        )
    })?;
    // One side alone changed it, or both the same way: nothing to settle.
    if ours == theirs || base == theirs {
        return Ok(ours.to_string());
    }
    if base == ours {
        return Ok(theirs.to_string());
    }
    let base = (!base.is_empty()).then_some(base);
    let merged = match kind {
        Kind::Bead => bead::merge(base, ours, theirs, path),
        Kind::Mail => records::mail(base, ours, theirs, path),
        Kind::Molecule => records::molecule(base, ours, theirs, path),
        Kind::Result => records::result(base, ours, theirs, path),
        Kind::MergeRequest => records::merge_request(base, ours, theirs, path),
    };
    merged.map_err(|e| {
        Error::invalid_with_help(
            format!("cannot merge {path} by meaning: {e}"),
            "git reports the conflict: resolve it by hand, then `git add` the file",
        )
    })
}

/// The text of the side holding the record `file`'s name names (`<id><ext>`), when just
/// one side does: git paired a record deleted on one side with another added there (a
/// rename, to git), and the file holds the record its name names; the other was deleted,
/// and a delete wins. `None` when neither or both do.
pub(crate) fn named_by_path(file: &str, ext: &str, sides: [(&str, &str); 2]) -> Option<String> {
    let name = file.rsplit(['/', '\\']).next().unwrap_or(file);
    let id = name.strip_suffix(ext)?;
    match sides.map(|(side_id, _)| side_id == id) {
        [true, false] => Some(sides[0].1.to_string()),
        [false, true] => Some(sides[1].1.to_string()),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kinds_are_told_by_path() {
        assert_eq!(Kind::of(".beads/issues/vm-1.md"), Some(Kind::Bead));
        assert_eq!(Kind::of("sub/.beads/mail/mayor/msg-1.md"), Some(Kind::Mail));
        assert_eq!(
            Kind::of(".beads/mail/mayor/archive/msg-1.md"),
            Some(Kind::Mail)
        );
        assert_eq!(Kind::of(".beads/mols/mol-1.yaml"), Some(Kind::Molecule));
        assert_eq!(Kind::of(".beads/mols/archive/mol-1.yaml"), None);
        assert_eq!(Kind::of(".beads/results/vm-1.yaml"), Some(Kind::Result));
        assert_eq!(Kind::of(".beads/mq/mq-1.yaml"), Some(Kind::MergeRequest));
        assert_eq!(Kind::of(".beads/vermas.yaml"), None);
        assert_eq!(Kind::of("src/main.rs"), None);
    }

    #[test]
    fn an_unreadable_side_is_refused() {
        let good = "---\nid: vm-1\ntitle: Hi\nstatus: open\n---\n";
        let bad = "<<<<<<< ours\nid: vm-1\n";
        let other = "---\nid: vm-1\ntitle: Ho\nstatus: open\n---\n";
        assert!(merge_file(good, bad, other, ".beads/issues/vm-1.md").is_err());
    }
}
