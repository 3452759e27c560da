//! Content hashes: git's blob hash of a text, which names cached replies, approved
//! criteria and a work's state, and which `git hash-object --stdin` gives too.

/// The hex blob hash of `text` (as `git hash-object --stdin` prints it).
pub fn blob(text: &str) -> String {
    blob_bytes(text.as_bytes())
}

/// The hex blob hash of `bytes` (as `git hash-object` prints it for a file of them).
pub fn blob_bytes(bytes: &[u8]) -> String {
    gix::objs::compute_hash(gix::hash::Kind::Sha1, gix::objs::Kind::Blob, bytes)
        .map(|id| id.to_string())
        .unwrap_or_default()
}
