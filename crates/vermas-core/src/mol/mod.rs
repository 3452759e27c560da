//! Formulas (Gas Town workflow templates) and the molecules cooked from them.

pub mod aspect;
pub mod builtin;
pub mod catalog;
pub mod convoy;
pub mod cook;
pub mod formula;
pub mod inspect_run;
pub mod molecule;
pub mod ops;
pub mod plan;
pub mod proto;
pub mod run;
pub mod template;

pub use catalog::{AdviceInfo, FormulaInfo, FormulaSummary, VarInfo, formula_info, list_formulas};
pub use cook::{cook, parse_vars};
pub use proto::{Proto, ProtoStep};
