//! Formulas (Gas Town workflow templates) and the molecules cooked from them.
