//! Handler of `mail`.

use super::args::MailCmd;
use super::{Ctx, Outcome};
use crate::error::Error;

/// `mail ...`.
pub fn mail(_ctx: &Ctx, _cmd: MailCmd) -> Outcome {
    Err(Error::Invalid("mail is being built in this change".into()))
}
