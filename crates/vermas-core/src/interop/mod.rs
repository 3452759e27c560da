//! Moving beads to and from other trackers: bd's JSONL export (`import bd`, `export bd`).
//!
//! [`bd`] reads one bd issue into a bead and [`to_bd`] writes a bead back as one;
//! [`sections`] lays bd's texts out in a bead body and [`gojson`] writes JSON as bd does;
//! [`import`] and [`export`] are the two commands.

pub mod bd;
pub mod export;
mod gojson;
pub mod import;
pub(crate) mod sections;
pub(crate) mod to_bd;
