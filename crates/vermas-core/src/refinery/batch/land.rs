//! Landing a verified stack: the target moves once, from the tip the stack was built on to
//! its top, by compare-and-swap, after every request's intent (`merging`, with the tip and
//! the candidate) is written, so a run killed once the target moved is finished by the
//! next. Checkouts of the target come along as `git merge --ff-only` would bring them.

use super::stack::Stack;
use crate::error::Result;
use crate::git::Git;
use crate::refinery::request::{self, State};
use crate::store::Txn;
use crate::workspace::Workspace;

/// What moving the target came to.
pub enum Landing {
    /// The target moved to the candidate; checkouts of it came along (or say why not).
    Landed {
        /// Checkouts that could not be brought along.
        warnings: Vec<String>,
    },
    /// The target is no longer at the tip the candidate was built on.
    TargetMoved,
    /// A checkout of the target has local changes the move would overwrite.
    Blocked(String),
}

/// Moves the stack's target from its tip to its top only if it is still at the tip. Holds
/// the workspace's write lock meanwhile, so no vermas commit of this workspace runs in
/// between.
pub fn land(ws: &Workspace, git: &Git, stack: &Stack) -> Result<Landing> {
    let (Some(first), Some(top)) = (stack.parts.first(), stack.top()) else {
        return Ok(Landing::Blocked("nothing to land".into()));
    };
    let (target, tip) = (&first.req.target, stack.tip.as_str());
    let _writers = Txn::begin(ws)?;
    if git.branch_tip(target)?.as_deref() != Some(tip) {
        return Ok(Landing::TargetMoved);
    }
    let checkouts = git.checkouts_of(target)?;
    for dir in &checkouts {
        if let Err(e) = git.can_bring_along(dir, tip, top) {
            return Ok(Landing::Blocked(format!(
                "{target} is checked out at {} with local changes the merge would overwrite \
                 ({e}); commit or stash them and submit again",
                dir.display()
            )));
        }
    }
    // The intents first: a run killed once the target moved finds them and finishes.
    for (i, part) in stack.parts.iter().enumerate() {
        let mut intent = part.req.clone();
        intent.state = State::Merging;
        intent.target_tip = Some(tip.to_string());
        intent.candidate = Some(top.to_string());
        intent.batch = stack.place(i);
        request::write_intent(ws, &intent)?;
    }
    let why = match stack.parts.as_slice() {
        [one] => format!("vermas refinery: land {} ({})", one.req.id, one.req.branch),
        all => format!(
            "vermas refinery: land a batch of {} ({})",
            all.len(),
            all.iter()
                .map(|p| p.req.id.as_str())
                .collect::<Vec<_>>()
                .join(" ")
        ),
    };
    if !git.move_branch(target, top, tip, &why)? {
        return Ok(Landing::TargetMoved);
    }
    let mut warnings = Vec::new();
    for dir in &checkouts {
        if let Err(e) = git.bring_along(dir, tip, top) {
            warnings.push(format!(
                "{target} moved, but its checkout at {} could not follow ({e}): run `git \
                 read-tree -m -u {tip} {top}` there",
                dir.display()
            ));
        }
    }
    Ok(Landing::Landed { warnings })
}
