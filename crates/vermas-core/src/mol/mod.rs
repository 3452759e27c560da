//! Formulas (Gas Town workflow templates) and the molecules cooked from them.

pub(crate) mod aspect;
pub(crate) mod builtin;
pub(crate) mod catalog;
pub(crate) mod convoy;
pub mod cook;
pub mod formula;
pub mod inspect_run;
pub mod molecule;
pub mod ops;
pub(crate) mod plan;
pub(crate) mod proto;
pub mod run;
pub(crate) mod template;

pub use catalog::{AdviceInfo, FormulaInfo, FormulaSummary, VarInfo, formula_info, list_formulas};
pub use cook::{cook, parse_vars};
pub use proto::{Proto, ProtoStep};
