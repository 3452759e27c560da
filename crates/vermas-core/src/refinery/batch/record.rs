//! How the requests of one verification ended, recorded in one commit: each inspection
//! recorded and routed as `inspect run` routes it (or only recorded, when a verified
//! candidate could not land), each request in its new state with the refinery's own mail
//! (see [`crate::refinery::settle`]), and the re-queued ones back in the queue.

use crate::error::Result;
use crate::inspect::Outcome;
use crate::inspect::run::{self, Proceed};
use crate::refinery::request::{self, MergeRequest, State};
use crate::refinery::settle::{self, End, Taken};
use crate::text::words::plural;
use crate::workspace::Workspace;

/// How one request of a verification ended, before it is recorded.
pub struct Ended {
    /// The request.
    pub req: MergeRequest,
    /// Its inspection, when one was made.
    pub out: Option<Outcome>,
    /// How it ended.
    pub end: End,
    /// What is done with its inspection.
    pub proceed: Proceed,
}

/// Records `ended` and `requeued` (with why) as `actor` in one commit; returns each as it
/// was left, in the order given.
pub fn record(
    ws: &Workspace,
    actor: &str,
    ended: Vec<Ended>,
    requeued: Vec<(MergeRequest, String)>,
) -> Result<Vec<Taken>> {
    let message = message(&ended, &requeued);
    let mut outs: Vec<(Outcome, Proceed)> = Vec::new();
    let mut rest = Vec::new();
    for e in ended {
        let at = e.out.map(|o| {
            outs.push((o, e.proceed));
            outs.len() - 1
        });
        rest.push((e.req, e.end, at, Vec::new()));
    }
    let mut back: Vec<MergeRequest> = Vec::new();
    let recorded = run::record_together(
        ws,
        actor,
        &mut outs,
        |txn, now| {
            let mut ids = Vec::new();
            for (req, end, _, mailed) in &mut rest {
                let (written, sent) = settle::write_in(txn, ws, req, end, now)?;
                ids.extend(written);
                *mailed = sent;
            }
            for (mut req, why) in requeued {
                req.state = State::Queued;
                req.reason = Some(why);
                req.updated_at = now;
                txn.write(
                    &request::path(ws, &req.id),
                    request::render(&req)?.as_bytes(),
                )?;
                ids.push(req.id.clone());
                back.push(req);
            }
            Ok(ids)
        },
        message,
    )?;
    let mut outs: Vec<Option<Outcome>> = outs.into_iter().map(|(o, _)| Some(o)).collect();
    let mut taken: Vec<Taken> = rest
        .into_iter()
        .map(|(req, end, at, mailed)| {
            let out = at.and_then(|i| outs[i].take());
            taken_of(req, out, end, mailed)
        })
        .collect();
    taken.extend(back.into_iter().map(|req| Taken {
        request: req,
        inspection: None,
        routed: None,
        mailed: Vec::new(),
        warnings: Vec::new(),
        recorded: Some(recorded.clone()),
    }));
    for t in &mut taken {
        t.recorded = Some(recorded.clone());
    }
    Ok(taken)
}

/// A request's end as recorded, with its inspection's routing and hook warnings.
fn taken_of(req: MergeRequest, out: Option<Outcome>, end: End, own: Vec<String>) -> Taken {
    let (inspection, routed, hook_warnings) = match out {
        Some(o) => (Some(o.inspection), o.routed, o.hook_warnings),
        None => (None, None, Vec::new()),
    };
    let mut mailed = routed
        .as_ref()
        .map(|r| r.mailed.clone())
        .unwrap_or_default();
    mailed.extend(own);
    let mut warnings = end.warnings;
    warnings.extend(hook_warnings);
    Taken {
        request: req,
        inspection,
        routed,
        mailed,
        warnings,
        recorded: None,
    }
}

/// The verb and title of the commit: as a lone request's has always been, else the
/// batch's size, target and what its requests came to.
fn message(ended: &[Ended], requeued: &[(MergeRequest, String)]) -> (String, String) {
    if let ([one], []) = (ended, requeued) {
        let mut req = one.req.clone();
        req.state = one.end.state;
        let m = settle::commit_message(&req, Vec::new(), "");
        return (m.verb, m.title);
    }
    let mut counts: Vec<(&str, usize)> = Vec::new();
    let states = ended
        .iter()
        .map(|e| e.end.state.name())
        .chain(requeued.iter().map(|_| "re-queued"));
    for s in states {
        match counts.iter_mut().find(|(name, _)| *name == s) {
            Some((_, n)) => *n += 1,
            None => counts.push((s, 1)),
        }
    }
    let target = ended
        .first()
        .map(|e| e.req.target.as_str())
        .or_else(|| requeued.first().map(|(r, _)| r.target.as_str()))
        .unwrap_or("");
    let said: Vec<String> = counts.iter().map(|(s, n)| format!("{n} {s}")).collect();
    (
        "refinery".into(),
        format!(
            "{} -> {target}: {}",
            plural(ended.len() + requeued.len(), "request"),
            said.join(", ")
        ),
    )
}
