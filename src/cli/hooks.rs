//! Handler of `hooks install|uninstall|run`.

use super::args::HooksCmd;
use super::{Ctx, Outcome};
use crate::error::Error;

/// `hooks ...`.
pub fn hooks(_ctx: &Ctx, _cmd: HooksCmd) -> Outcome {
    Err(Error::Invalid("hooks are being built in this change".into()))
}
