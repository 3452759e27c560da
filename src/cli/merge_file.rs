//! `merge-file`, the handler git runs as the `vermas` merge driver: reads the three
//! versions, merges them by meaning and writes the result over ours.

use super::CmdResult;
use std::path::Path;
use vermas_core::error::{Error, Result};

/// `merge-file BASE OURS THEIRS PATH`: exit 0 with the result in OURS; an error (exit
/// non-zero, OURS untouched) lets git report the conflict.
pub fn merge_file(base: &Path, ours: &Path, theirs: &Path, path: &str) -> CmdResult {
    let merged = vermas_core::merge::merge_file(&text(base)?, &text(ours)?, &text(theirs)?, path)?;
    // Through a temporary file and a rename: git never reads half a result.
    let mut tmp = ours.as_os_str().to_owned();
    tmp.push(".vermas-merge");
    let tmp = std::path::PathBuf::from(tmp);
    std::fs::write(&tmp, merged).map_err(|e| Error::io(&tmp, e))?;
    std::fs::rename(&tmp, ours).map_err(|e| Error::io(ours, e))?;
    Ok(0)
}

/// One version's text; a file that is not UTF-8 is not a record vermas wrote.
fn text(path: &Path) -> Result<String> {
    let bytes = std::fs::read(path).map_err(|e| Error::io(path, e))?;
    String::from_utf8(bytes)
        .map_err(|_| Error::Invalid(format!("{} is not UTF-8 text", path.display())))
}
