//! wrapix's ralph commands as vermas serves them.

mod commands;
mod plain;
mod status;
pub mod support;
