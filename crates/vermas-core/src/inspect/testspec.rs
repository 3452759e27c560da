//! Test-spec beads: created with their work (`<prefix>-spec-<suffix>`, a `blocks`
//! dependency from the work, a "NEW SPEC NEEDED" mail to `inspector/`), given criteria,
//! and approved (closed) before the work may be slung.

use crate::bead::approval::{self, Approval};
use crate::bead::model::{AcceptanceCriterion, Bead, DepType, Dependency, IssueType, Status};
use crate::bead::ops::{self, Changed, NewBead};
use crate::bead::store::{BeadSet, bead_path, load_one};
use crate::error::{Error, Result};
use crate::mail::ops::Outgoing;
use crate::mail::{Address, MsgType, Priority};
use crate::store::{CommitMessage, Recorded, Txn};
use crate::time::Timestamp;
use crate::workspace::Workspace;

/// Creates a bead (with its test spec when config `specs.auto_create` and its type want
/// one, unless `new.no_spec`) and commits it.
pub fn create(ws: &Workspace, actor: &str, new: NewBead) -> Result<Changed> {
    ops::check_new(actor, &new)?;
    let mut txn = Txn::begin(ws)?;
    let (written, msg) = create_in(&mut txn, ws, actor, new)?;
    let recorded = txn.commit(&msg)?;
    Ok(Changed {
        beads: written,
        unchanged: Vec::new(),
        recorded,
    })
}

/// Writes a new bead (and its test spec, as [`create`] does) into the open change `txn`,
/// for a command that records more in the same commit; returns the beads written, the new
/// one first, and the commit message `create` would use.
pub fn create_in(
    txn: &mut Txn<'_>,
    ws: &Workspace,
    actor: &str,
    new: NewBead,
) -> Result<(Vec<Bead>, CommitMessage)> {
    let no_spec = new.no_spec;
    let (mut bead, mut msg) = ops::build_new(txn, actor, new)?;
    let mut written = vec![];
    if !no_spec && ws.config.specs.auto_create && wants_spec(&bead) {
        let now = bead.created_at.unwrap_or_else(Timestamp::now);
        let spec = attach(txn, ws, &mut bead, actor, now)?;
        msg.ids.push(spec.id.clone());
        written.push(spec);
    }
    ops::write_new(txn, ws, &bead)?;
    written.insert(0, bead);
    Ok((written, msg))
}

/// True for work that gets a test spec: tasks, features and bugs.
pub fn wants_spec(work: &Bead) -> bool {
    matches!(
        work.issue_type,
        IssueType::Task | IssueType::Feature | IssueType::Bug
    )
}

/// The test-spec id of work `id`: `vm-abc` → `vm-spec-abc`.
pub fn spec_id(id: &str) -> String {
    match id.split_once('-') {
        Some((prefix, rest)) => format!("{prefix}-spec-{rest}"),
        None => format!("spec-{id}"),
    }
}

/// Writes the test spec of `work` into `txn`, makes the work wait for it (a `blocks`
/// dependency, on `work` itself: the caller writes it) and mails `inspector/`.
pub fn attach(
    txn: &mut Txn<'_>,
    ws: &Workspace,
    work: &mut Bead,
    actor: &str,
    now: Timestamp,
) -> Result<Bead> {
    use super::lifecycle::{self, HookPoint};
    let payload =
        serde_json::json!({"bead_id": work.id, "title": work.title, "type": work.issue_type});
    if let Some(stop) = lifecycle::run(ws, HookPoint::PreAuditPlan, &payload).stopped {
        return Err(Error::Invalid(format!(
            "no test spec for {}: {stop}",
            work.id
        )));
    }
    let mut spec = Bead::new(spec_id(&work.id), format!("Test spec: {}", work.title));
    if bead_path(ws, &spec.id).exists() {
        return Err(Error::conflict(format!(
            "{} exists already: a test spec is never written over",
            spec.id
        ))
        .with_help(format!("see it: vermas show {}", spec.id)));
    }
    spec.issue_type = IssueType::TestSpec;
    spec.parent = Some(work.id.clone());
    spec.priority = work.priority;
    spec.created_at = Some(now);
    spec.updated_at = Some(now);
    spec.created_by = Some(actor.to_string());
    work.dependencies
        .push(Dependency::new(spec.id.clone(), DepType::Blocks));
    txn.write(&bead_path(ws, &spec.id), spec.render().as_bytes())?;
    crate::mail::ops::send_in(
        txn,
        ws,
        notice(
            ws,
            actor,
            "inspector/",
            format!("NEW SPEC NEEDED: {}", work.title),
            format!(
                "{} needs acceptance criteria before it can be slung.\n\nAdd them: vermas inspect add-criteria {} -d \"...\" --cmd \"...\"\nThen: vermas inspect approve {}",
                work.id, spec.id, spec.id
            ),
        ),
    )?;
    let planned = serde_json::json!({"bead_id": work.id, "spec_id": spec.id});
    lifecycle::run(ws, HookPoint::PostAuditPlan, &planned);
    Ok(spec)
}

/// A notification from the actor's own mailbox (else `mayor/`).
pub fn notice(ws: &Workspace, actor: &str, to: &str, subject: String, body: String) -> Outgoing {
    let from = crate::mail::ops::own_address(ws, Some(actor), "")
        .or_else(|_| Address::parse("mayor/"))
        .expect("mayor/ is an address");
    Outgoing {
        to: to.into(),
        cc: Vec::new(),
        subject,
        body: Some(body),
        from,
        msg_type: MsgType::Notification,
        priority: Priority::Normal,
        reply_to: None,
        ephemeral: false,
    }
}

/// The test spec of work `work_id`, if it has one (read whole).
pub fn of_work(ws: &Workspace, work_id: &str) -> Result<Option<Bead>> {
    let set = BeadSet::load(ws)?;
    let canonical = spec_id(work_id);
    let mut specs = set
        .beads
        .values()
        .filter(|b| b.issue_type == IssueType::TestSpec && b.parent.as_deref() == Some(work_id));
    // The one made with the work decides; another spec naming the work as its parent
    // (made by hand later) never stands in for it.
    let found = match set.beads.get(&canonical) {
        Some(b) if b.issue_type == IssueType::TestSpec && b.parent.as_deref() == Some(work_id) => {
            Some(b)
        }
        _ => specs.next(),
    };
    found.map(|b| load_one(ws, &b.id)).transpose()
}

/// `inspect create-spec ID`: a test spec for existing work, in one commit.
pub fn create_for(ws: &Workspace, actor: &str, id: &str) -> Result<(Bead, Recorded)> {
    let mut txn = Txn::begin(ws)?;
    let mut work = load_one(ws, id)?;
    if work.issue_type == IssueType::TestSpec {
        return Err(Error::Invalid(format!("{} is itself a test spec", work.id)));
    }
    if let Some(s) = of_work(ws, &work.id)? {
        return Err(Error::wrong_state(format!(
            "{} already has test spec {}",
            work.id, s.id
        )));
    }
    let now = Timestamp::now();
    let spec = attach(&mut txn, ws, &mut work, actor, now)?;
    work.updated_at = Some(now);
    txn.write(&bead_path(ws, &work.id), work.render().as_bytes())?;
    let recorded = txn.commit(&CommitMessage {
        verb: "inspect create-spec".into(),
        ids: vec![spec.id.clone(), work.id.clone()],
        title: work.title.clone(),
        actor: actor.to_string(),
    })?;
    Ok((spec, recorded))
}

/// How a new criterion is checked.
#[derive(Debug, Clone)]
pub enum Check {
    /// A shell command whose exit code decides.
    Command(String),
    /// A `path#function` test.
    Verify(String),
    /// A `path#function` judge rubric.
    Judge(String),
}

/// How criterion `c` is checked and what it runs: `("cmd" | "verify" | "judge", target)`.
pub fn kind_of(c: &AcceptanceCriterion) -> (&'static str, &str) {
    if let Some(cmd) = &c.verify_command {
        ("cmd", cmd)
    } else if let Some(t) = &c.verify {
        ("verify", t)
    } else {
        ("judge", c.judge.as_deref().unwrap_or(""))
    }
}

/// The open test spec `id` (a work id stands for its spec).
fn open_spec(ws: &Workspace, id: &str) -> Result<Bead> {
    let b = load_one(ws, id)?;
    let spec = if b.issue_type == IssueType::TestSpec {
        b
    } else {
        of_work(ws, &b.id)?.ok_or_else(|| {
            Error::wrong_state(format!("{} has no test spec", b.id))
                .with_help(format!("create one: vermas inspect create-spec {}", b.id))
        })?
    };
    Ok(spec)
}

/// A criterion (its id left empty) of `description` checked by `check`, refused unless the
/// description is one line and the command parses as shell or the target is a valid
/// `path#function`.
pub fn criterion(description: &str, check: Check) -> Result<AcceptanceCriterion> {
    let description = description.trim();
    if description.is_empty() || description.contains('\n') {
        return Err(Error::Invalid(
            "the description must be one non-empty line".into(),
        ));
    }
    let mut c = AcceptanceCriterion {
        id: String::new(),
        description: description.to_string(),
        verify_command: None,
        verify: None,
        judge: None,
    };
    match check {
        Check::Command(cmd) => {
            let parses = std::process::Command::new("sh")
                .args(["-n", "-c", &cmd])
                .output()
                .map_err(|e| Error::Invalid(format!("cannot run sh to check the command: {e}")))?;
            if !parses.status.success() {
                return Err(Error::Invalid(format!(
                    "the command `{cmd}` does not parse as shell: {}",
                    String::from_utf8_lossy(&parses.stderr).trim()
                )));
            }
            c.verify_command = Some(cmd);
        }
        Check::Verify(t) | Check::Judge(t) if crate::spec::target::resolve(&t, "").is_err() => {
            let why = crate::spec::target::resolve(&t, "")
                .err()
                .unwrap_or_default();
            return Err(Error::Invalid(format!("target '{t}': {why}")));
        }
        Check::Judge(t) if !t.contains('#') && !t.contains("::") => {
            return Err(Error::invalid_with_help(
                format!("--judge '{t}' names no rubric: a judge criterion runs a rubric function"),
                "give the rubric as --judge FILE#FUNCTION (a bash function calling judge_files \
                 and judge_criterion), or a command that decides as --cmd \"COMMAND\"; the \
                 criterion's words go in -d",
            ));
        }
        Check::Verify(t) => c.verify = Some(t),
        Check::Judge(t) => c.judge = Some(t),
    }
    Ok(c)
}

/// Refuses a `--verify`/`--judge` target of `c` whose file is not in the repository, or
/// that does not define the function it names (in a language vermas can read).
pub fn check_target(ws: &Workspace, c: &AcceptanceCriterion) -> Result<()> {
    let Some(raw) = c.verify.as_deref().or(c.judge.as_deref()) else {
        return Ok(());
    };
    let target = crate::spec::target::resolve(raw, "")
        .map_err(|why| Error::Invalid(format!("target '{raw}': {why}")))?;
    let path = crate::check::contained(&ws.root, &target.file).map_err(|why| {
        Error::invalid_with_help(
            format!("target '{raw}': {why}"),
            "write the check first (paths are from the repository root), then add the criterion",
        )
    })?;
    let Some(function) = &target.function else {
        return Ok(());
    };
    let text = std::fs::read_to_string(&path).map_err(|e| Error::io(&target.file, e))?;
    match crate::check::functions::defined_functions(&target.file, &text) {
        Some(defined) if !crate::check::functions::is_defined(function, &defined) => {
            Err(Error::invalid_with_help(
                format!(
                    "target '{raw}': {} defines no function {function}",
                    target.file
                ),
                format!(
                    "define {function} in {} (or name a function it defines), then add the criterion",
                    target.file
                ),
            ))
        }
        _ => Ok(()),
    }
}

/// The number of the next `ac-N` id of `spec`: one more than the highest there.
pub fn next_number(spec: &Bead) -> u32 {
    spec.acceptance_criteria
        .iter()
        .filter_map(|c| c.id.strip_prefix("ac-")?.parse::<u32>().ok())
        .max()
        .unwrap_or(0)
        + 1
}

/// Refuses to change the criteria of an approved spec.
pub fn check_open(spec: &Bead) -> Result<()> {
    if spec.status == Status::Closed {
        return Err(Error::wrong_state(format!(
            "{} is approved: its criteria cannot change under the approval",
            spec.id
        ))
        .with_help(format!(
            "reopen it first (vermas reopen {}), add the criterion, then approve it again",
            spec.id
        )));
    }
    Ok(())
}

/// `inspect add-criteria SPEC -d TEXT (--cmd|--verify|--judge)`: the next `ac-N`.
pub fn add_criterion(
    ws: &Workspace,
    actor: &str,
    id: &str,
    description: &str,
    check: Check,
) -> Result<(Bead, String, Recorded)> {
    let mut c = criterion(description, check)?;
    check_target(ws, &c)?;
    let mut txn = Txn::begin(ws)?;
    let mut spec = open_spec(ws, id)?;
    check_open(&spec)?;
    c.id = format!("ac-{}", next_number(&spec));
    let new_id = c.id.clone();
    let title = format!("{new_id} {}", c.description);
    spec.acceptance_criteria.push(c);
    spec.updated_at = Some(Timestamp::now());
    txn.write(&bead_path(ws, &spec.id), spec.render().as_bytes())?;
    let recorded = txn.commit(&CommitMessage {
        verb: "inspect add-criteria".into(),
        ids: vec![spec.id.clone()],
        title,
        actor: actor.to_string(),
    })?;
    Ok((spec, new_id, recorded))
}

/// `inspect approve SPEC [--freeze PATH]...`: closes it (approved), freezing its check
/// files, and mails `mayor/`, in one commit.
pub fn approve(
    ws: &Workspace,
    actor: &str,
    id: &str,
    freeze: &[String],
) -> Result<(Bead, Recorded)> {
    let mut txn = Txn::begin(ws)?;
    let mut spec = open_spec(ws, id)?;
    approve_in(&mut txn, ws, actor, &mut spec, freeze)?;
    let recorded = txn.commit(&CommitMessage {
        verb: "inspect approve".into(),
        ids: vec![spec.id.clone()],
        title: spec.title.clone(),
        actor: actor.to_string(),
    })?;
    Ok((spec, recorded))
}

/// Approves `spec` inside the open change `txn`: stamps its criteria and the committed
/// blobs of the check files they run (and of `freeze`), closes it, writes it and mails
/// `mayor/`. The stamp names the committer, not a free-text actor. Refused without
/// criteria, when a check file is missing or uncommitted, or when it is approved already
/// with every frozen file as approved.
pub fn approve_in(
    txn: &mut Txn<'_>,
    ws: &Workspace,
    actor: &str,
    spec: &mut Bead,
    freeze: &[String],
) -> Result<()> {
    if spec.acceptance_criteria.is_empty() {
        return Err(
            Error::wrong_state(format!("{} has no criteria to approve", spec.id)).with_help(
                format!(
                    "add one: vermas inspect add-criteria {} -d \"...\" --cmd \"...\"",
                    spec.id
                ),
            ),
        );
    }
    let work = match &spec.parent {
        Some(p) => load_one(ws, p)?,
        None => Bead::new(String::new(), String::new()),
    };
    let (files, live) = super::frozen::linked(ws, spec, &work, freeze)?;
    let stamped = super::frozen::stamp(ws, &files)?;
    let repo = crate::git::GitRepo::open(&ws.root);
    let head = repo.as_ref().and_then(|r| r.head_commit());
    if spec.status == Status::Closed
        && spec
            .approved
            .as_ref()
            .is_some_and(|a| a.files == stamped && a.spec == live)
        && !matches!(
            crate::trusted::Trusted::of(ws)?.approval(spec)?,
            crate::trusted::Approval::NotSigned(_)
        )
    {
        return Err(Error::wrong_state(format!(
            "{} is approved already",
            spec.id
        )));
    }
    let by = repo
        .as_ref()
        .and_then(|r| r.committer(ws.config.git.author.as_deref()))
        .unwrap_or_else(|| actor.to_string());
    let now = Timestamp::now();
    spec.approved = Some(Approval::of(
        &spec.acceptance_criteria,
        stamped,
        live,
        &by,
        head,
    ));
    spec.status = Status::Closed;
    spec.closed_at = Some(now);
    spec.close_reason = Some("approved".into());
    spec.updated_at = Some(now);
    txn.write(&bead_path(ws, &spec.id), spec.render().as_bytes())?;
    crate::mail::ops::send_in(
        txn,
        ws,
        notice(
            ws,
            actor,
            "mayor/",
            format!("SPEC APPROVED: {}", spec.title),
            format!(
                "{} ({}) is approved.",
                spec.id,
                crate::text::words::counted(
                    spec.acceptance_criteria.len(),
                    "criterion",
                    "criteria"
                )
            ),
        ),
    )?;
    Ok(())
}

/// Why `spec` (not approved) is not approved, and the command that moves it on: add
/// criteria when it has none, else approve them (again, when they changed since).
pub fn not_approved(spec: &Bead) -> (String, String) {
    if spec.acceptance_criteria.is_empty() {
        return (
            format!("its test spec {} has no criteria yet", spec.id),
            format!(
                "add one: vermas inspect add-criteria {} -d \"...\" --cmd \"...\" (or let the \
                 strategist propose them: vermas strategize {}), then vermas inspect approve {}",
                spec.id,
                spec.parent.as_deref().unwrap_or("WORK"),
                spec.id
            ),
        );
    }
    match approval::changed_since_approval(spec) {
        Some(why) => (
            format!("test spec {} is pending approval again: {why}", spec.id),
            format!(
                "review them (vermas inspect show {}) and approve them again: vermas inspect \
                 approve {}",
                spec.id, spec.id
            ),
        ),
        None => (
            format!("its test spec {} is not approved", spec.id),
            format!("approve it: vermas inspect approve {}", spec.id),
        ),
    }
}

/// Open test specs, oldest first.
pub fn pending(ws: &Workspace) -> Result<Vec<Bead>> {
    let set = BeadSet::load(ws)?;
    let mut specs: Vec<Bead> = set
        .beads
        .into_values()
        .filter(|b| b.issue_type == IssueType::TestSpec && b.status != Status::Closed)
        .collect();
    specs.sort_by(|a, b| a.created_at.cmp(&b.created_at).then(a.id.cmp(&b.id)));
    Ok(specs)
}
