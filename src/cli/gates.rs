//! Handler of `gate`: run one deterministic gate phase and render its evidence.

use super::args::GateArgs;
use super::{Ctx, Outcome};
use crate::error::Error;

/// `gate PHASE ID`.
pub fn gate(_ctx: &Ctx, a: GateArgs) -> Outcome {
    Err(Error::Invalid(format!("gate {} is being built in this change", a.phase)))
}
