//! Helpers for text: glob patterns, shell quoting, words for
//! people, and the YAML vermas writes and reads.

pub(crate) mod glob;
pub mod shell;
pub mod words;
pub(crate) mod yaml;
