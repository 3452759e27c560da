//! One verification of a stack: its top checked out once in a temporary worktree, and each
//! request inspected there through [`crate::inspect::run`] (which settles what the verdict
//! rests on: the settings, the test spec as committed and its approval, the Inspector's
//! records): the checks of its approved test spec (and of its live spec) run in the
//! combined tree, and its LLM roles judge its own diff, its merge against the commit it was
//! built on; several requests at once, up to the configured jobs. Nothing is recorded here:
//! each inspection's run is discarded to the batch, which decides on them together.

use super::stack::Part;
use crate::error::Result;
use crate::git::{Git, TempWorktree};
use crate::inspect::pipeline::{Inspection, Upto};
use crate::inspect::run::Proceed;
use crate::inspect::{self, Outcome};
use crate::workspace::Workspace;

/// Inspects every part in a worktree of `top`, as `actor`; each part's inspection, or why it
/// could not be made, in the parts' order. Errs only when the worktree cannot be made.
pub fn inspect_all(
    ws: &Workspace,
    git: &Git,
    actor: &str,
    parts: &[Part],
    top: &str,
    use_cache: bool,
) -> Result<Vec<Result<Outcome>>> {
    let tree = TempWorktree::add(git, top)?;
    let jobs = ws
        .config
        .verify
        .jobs
        .unwrap_or_else(crate::sys::par::cores)
        .max(1);
    let outs = crate::sys::par::pool(parts.len(), jobs, |i| {
        let p = &parts[i];
        let request = inspect::Request {
            base: Some(p.base.clone()),
            diff_head: Some(p.commit.clone()),
            use_cache,
            tree: Some(tree.dir().to_path_buf()),
            work_head: Some(p.head.clone()),
            ..inspect::Request::new(p.req.bead.clone(), Upto::Run)
        };
        inspect::run(ws, Some(actor), &request, &mut Deciding)
    });
    drop(tree);
    Ok(outs)
}

/// True when `out` is an inspection that passed.
pub fn passed(out: &Result<Outcome>) -> bool {
    matches!(out, Ok(o) if o.inspection.verdict == inspect::pipeline::Verdict::Pass)
}

/// The refinery's part in each inspection of a batch: nothing is recorded by the run, the
/// batch decides.
struct Deciding;

impl inspect::Observer for Deciding {
    fn inspected(&mut self, _ins: &Inspection) -> Result<Proceed> {
        Ok(Proceed::Discard)
    }
}
