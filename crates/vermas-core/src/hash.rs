//! Content hashes: git's blob hash of a text, which names cached replies, approved
//! criteria and a work's state, and which `git hash-object --stdin` gives too.

/// The hex blob hash of `text` (as `git hash-object --stdin` prints it).
pub fn blob(text: &str) -> String {
    gix::objs::compute_hash(
        gix::hash::Kind::Sha1,
        gix::objs::Kind::Blob,
        text.as_bytes(),
    )
    .map(|id| id.to_string())
    .unwrap_or_default()
}
