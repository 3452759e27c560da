//! Formulas (Gas Town workflow templates) and the molecules cooked from them.

pub mod builtin;
pub mod cook;
pub mod formula;
pub mod molecule;
pub mod ops;
pub mod plan;
pub mod proto;
pub mod run;
pub mod template;

pub use cook::{
    FormulaInfo, FormulaSummary, VarInfo, cook, formula_info, list_formulas, parse_vars,
};
pub use proto::{Proto, ProtoStep};
