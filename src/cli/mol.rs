//! Handler of `mol`.

use super::args::MolCmd;
use super::{Ctx, Outcome};
use crate::error::Error;

/// `mol ...`.
pub fn mol(_ctx: &Ctx, _cmd: MolCmd) -> Outcome {
    Err(Error::Invalid("molecules are being built in this change".into()))
}
