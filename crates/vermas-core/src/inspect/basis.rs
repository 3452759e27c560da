//! What an inspection rests on, settled before anything runs (see [`crate::trusted`]): the
//! settings as committed (with approvers, as signed), the test spec as committed and
//! whether its approval counts, and the Inspector's own records as committed. A spec whose
//! approval does not count reads as pending approval; records that are not as committed
//! make the inspection an ERROR.

use crate::bead::model::{Bead, Status};
use crate::error::Result;
use crate::trusted::{Approval, Trusted};
use crate::workspace::Workspace;

/// What an inspection rests on.
#[derive(Debug)]
pub(crate) struct Basis {
    /// The workspace with the settings a verdict reads.
    pub ws: Workspace,
    /// The test spec as committed.
    pub spec: Option<Bead>,
    /// Why nothing may be judged, when something it rests on does not hold.
    pub refused: Option<String>,
    /// What the approval rests on, in words, for the report.
    pub approval: String,
    /// What was left out, and why.
    pub warnings: Vec<String>,
}

/// Settles what inspecting work by `spec` (as loaded from the files) rests on in `ws`.
pub(crate) fn settle(ws: &Workspace, spec: Option<Bead>) -> Result<Basis> {
    let mut trusted = Trusted::of(ws)?;
    let mut basis_ws = ws.clone();
    basis_ws.config = trusted.config.clone();
    let mut refused = trusted.records_problem(ws)?;
    let mut approval = trusted.note();
    let spec = match spec {
        None => None,
        Some(s) => {
            let id = s.id.clone();
            match trusted.committed_bead(ws, s)? {
                None => {
                    refused.get_or_insert(format!(
                        "the test spec {id} is not committed: a verdict rests only on a \
                         committed, approved test spec"
                    ));
                    None
                }
                Some(mut s) => {
                    if s.status == Status::Closed {
                        match trusted.approval(&s)? {
                            Approval::Unauthenticated => {}
                            Approval::Signed { by, commit } => {
                                approval = format!(
                                    "approved by {by} in {} (signed)",
                                    &commit[..commit.len().min(12)]
                                );
                            }
                            Approval::NotSigned(why) => {
                                refused.get_or_insert(format!(
                                    "the test spec {} is pending approval: approvers are set, \
                                     and {why}; an approver approves it in a signed commit \
                                     (vermas inspect approve {} with commit.gpgsign)",
                                    s.id, s.id
                                ));
                                s.status = Status::Open;
                            }
                        }
                    }
                    Some(s)
                }
            }
        }
    };
    Ok(Basis {
        ws: basis_ws,
        spec,
        refused,
        approval,
        warnings: std::mem::take(&mut trusted.warnings),
    })
}
