//! Handlers of `formula` and `mol`.

use super::args::{FormulaCmd, MolCmd};
use super::{Ctx, Outcome};
use crate::error::Error;

/// `formula ...`.
pub fn formula(_ctx: &Ctx, _cmd: FormulaCmd) -> Outcome {
    Err(Error::Invalid(
        "formulas are being built in this change".into(),
    ))
}

/// `mol ...`.
pub fn mol(_ctx: &Ctx, _cmd: MolCmd) -> Outcome {
    Err(Error::Invalid(
        "molecules are being built in this change".into(),
    ))
}
