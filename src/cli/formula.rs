//! Handler of `formula`.

use super::args::FormulaCmd;
use super::{Ctx, Outcome};
use crate::error::Error;

/// `formula ...`.
pub fn formula(_ctx: &Ctx, _cmd: FormulaCmd) -> Outcome {
    Err(Error::Invalid("formulas are being built in this change".into()))
}
