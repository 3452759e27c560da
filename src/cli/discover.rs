//! Handler of `discover`: find the project's quality commands.

use super::{Ctx, Outcome};
use crate::error::Error;

/// `discover [--write]`.
pub fn discover(_ctx: &Ctx, _write: bool) -> Outcome {
    Err(Error::Invalid("discover is being built in this change".into()))
}
