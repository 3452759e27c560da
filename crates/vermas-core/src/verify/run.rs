//! The one run of a verification: specs selected (and sharded), every check run, a
//! baseline compared, the results recorded.

use super::live::{self, Counts, Kinds, SpecRun};
use super::{Project, baseline, results};
use crate::check;
use crate::error::{Error, Result};
use crate::spec::{self, Spec, shard::Shard};
use crate::store::Recorded;
use std::collections::HashMap;

/// Which specs a run verifies.
pub enum Selection {
    /// The project's checkable specs these names select (all when empty).
    Named(Vec<String>),
    /// Specs the caller has already read (a pushed tree's, an editor's buffer, a work's
    /// linked spec).
    Given(Vec<Spec>),
}

/// What to verify and how.
pub struct Request {
    /// Which specs.
    pub specs: Selection,
    /// Which kinds of checks.
    pub kinds: Kinds,
    /// Parallel checks (`verify.jobs`, else the core count, when `None`).
    pub jobs: Option<usize>,
    /// Whether judge replies may come from the reply cache.
    pub use_cache: bool,
    /// An earlier revision whose verify checks flag what passed before the change.
    pub baseline: Option<String>,
    /// Record the results as this actor (`.beads/results/spec-<name>.yaml`).
    pub record: Option<String>,
    /// Only this shard of the criteria.
    pub shard: Option<Shard>,
}

impl Request {
    /// A run of `kinds` over `specs`, everything else as by default.
    pub fn new(specs: Selection, kinds: Kinds) -> Request {
        Request {
            specs,
            kinds,
            jobs: None,
            use_cache: true,
            baseline: None,
            record: None,
            shard: None,
        }
    }
}

/// What a front end hears while a verification runs. Progress comes from the pool's
/// threads, so it takes `&self`.
pub trait Observer: Sync {
    /// A spec that cannot be verified, or a link that never runs: the run goes on.
    fn warning(&mut self, _message: &str) {}
    /// A check started or finished; `label` is its target.
    fn progress(&self, _event: check::Progress, _label: &str) {}
}

/// An observer that hears nothing.
impl Observer for () {}

/// What a verification found.
pub struct Verification {
    /// Each spec's run, in the order of the specs.
    pub runs: Vec<SpecRun>,
    /// The kinds of checks that ran.
    pub kinds: Kinds,
    /// What recording did, when it was asked for (the run's result stands either way).
    pub recorded: Option<Result<Recorded>>,
}

impl Verification {
    /// Every criterion's outcome counted.
    pub fn counts(&self) -> Counts {
        self.runs
            .iter()
            .fold(Counts::default(), |t, r| t.plus(r.counts))
    }

    /// True when no criterion had a check that ran.
    pub fn nothing_verified(&self) -> bool {
        self.counts().nothing_verified()
    }

    /// The exit code: 1 on FAIL or UNSTABLE, else 3 on ERROR or when nothing was verified,
    /// else 0.
    pub fn exit_code(&self) -> i32 {
        let counts = self.counts();
        if counts.nothing_verified() {
            counts.exit_code().max(3)
        } else {
            counts.exit_code()
        }
    }
}

/// The checkable specs of `project` that `names` select (all when empty); refused specs and
/// links that belong to no criterion are told to `observer`.
pub fn select(
    project: &Project,
    names: &[String],
    observer: &mut impl Observer,
) -> Result<Vec<Spec>> {
    let specs = project.specs()?;
    for why in specs.iter().filter_map(|s| s.refused.as_deref()) {
        observer.warning(why);
    }
    let selected = spec::checkable(project.select_named(specs, names)?);
    for s in &selected {
        for p in s.problems.iter().filter(|p| !p.error) {
            observer.warning(&format!(
                "{}:{}:{}: {}",
                s.path, p.line, p.column, p.message
            ));
        }
    }
    Ok(selected)
}

/// Verifies what `request` asks of `project`: selects the specs, runs their checks (the
/// observer hears each start and end), flags what passed at the baseline, records.
/// Errors come before anything runs (an unknown spec name, a baseline revision that does
/// not resolve); a failed recording is in `Verification::recorded`.
pub fn run(
    project: &Project,
    request: Request,
    observer: &mut impl Observer,
) -> Result<Verification> {
    let mut specs = match request.specs {
        Selection::Named(names) => select(project, &names, observer)?,
        Selection::Given(specs) => specs,
    };
    if let Some(part) = request.shard {
        specs = shard(project, specs, part);
    }
    let baseline_rev = request
        .baseline
        .as_deref()
        .map(|rev| baseline::resolve(&project.root, rev))
        .transpose()?;
    // A result that is recorded is a verdict: its settings are the committed ones (with
    // approvers, the signed ones), never a change in the work tree.
    let trusted_project;
    let project = match (&request.record, &project.ws) {
        (Some(_), Some(ws)) => {
            let trusted = crate::trusted::Trusted::of(ws)?;
            for w in &trusted.warnings {
                observer.warning(w);
            }
            let mut p = project.clone();
            p.config = trusted.config.clone();
            if let Some(w) = p.ws.as_mut() {
                w.config = trusted.config;
            }
            trusted_project = p;
            &trusted_project
        }
        _ => project,
    };
    let settings = project.settings(request.kinds, request.jobs, request.use_cache);
    let heard = &*observer;
    let mut runs = live::run(&project.root, &specs, &settings, |event, label| {
        heard.progress(event, label)
    });
    if let Some(rev) = &baseline_rev {
        let verify_only = live::RunSettings {
            kinds: Kinds {
                verify: true,
                judge: false,
            },
            ..settings
        };
        let before = baseline::run_at(&project.root, rev, &specs, &verify_only)?;
        baseline::flag(&mut runs, &before);
    }
    let recorded = request.record.map(|actor| match &project.ws {
        Some(ws) => results::record_specs(ws, &runs, &actor),
        None => Err(Error::NoWorkspace(project.root.clone())),
    });
    Ok(Verification {
        runs,
        kinds: request.kinds,
        recorded,
    })
}

/// The criteria of `specs` in `shard`, balanced by the durations recorded in the
/// workspace's spec results (`status --verify --record`), when there are any.
pub fn shard(project: &Project, specs: Vec<Spec>, shard: Shard) -> Vec<Spec> {
    let mut took: HashMap<String, u64> = HashMap::new();
    if let Some(ws) = &project.ws {
        for record in results::load_all(ws)
            .into_iter()
            .filter(|r| r.key.starts_with("spec:"))
        {
            for check in record.checks {
                *took.entry(check.criterion).or_default() += check.duration_ms;
            }
        }
    }
    spec::shard::select(specs, shard, |key| took.get(key).copied())
}
