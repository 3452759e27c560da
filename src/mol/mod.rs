//! Formulas (Gas Town workflow templates) and the molecules cooked from them.

pub mod proto;

pub use proto::{Proto, ProtoStep};
