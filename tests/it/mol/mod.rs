//! Formulas and molecules: cook, pour, run, Gas Town's formulas, the inspection molecule.

mod commands;
mod formula;
mod formula_errors;
mod gastown_formulas;
mod inspect;
