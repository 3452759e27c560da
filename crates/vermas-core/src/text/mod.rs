//! Helpers for text: glob patterns, shell quoting, words for
//! people, and the YAML vermas writes and reads.

pub mod glob;
pub mod shell;
pub mod words;
pub mod yaml;
