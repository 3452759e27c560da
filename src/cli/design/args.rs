//! Arguments of `design`, `strategize` and `plan`.

use clap::Args;

/// Options of `design`.
#[derive(Debug, Args)]
pub struct DesignArgs {
    /// What you want built, in your own words.
    pub request: String,
    /// Write the requirements into this bead's description instead of creating a feature.
    #[arg(long, value_name = "ID", add = crate::cli::complete::bead_id())]
    pub bead: Option<String>,
    /// Accept the proposal without asking (needed when stdin is not a terminal).
    #[arg(short, long)]
    pub yes: bool,
}

/// Options of `strategize`.
#[derive(Debug, Args)]
pub struct StrategizeArgs {
    /// The work (or its test spec).
    #[arg(add = crate::cli::complete::bead_id())]
    pub id: String,
    /// Accept the proposal without asking (needed when stdin is not a terminal).
    #[arg(short, long)]
    pub yes: bool,
    /// Also approve the test spec, so the work may be slung.
    #[arg(long)]
    pub approve: bool,
}

/// Options of `plan`.
#[derive(Debug, Args)]
#[command(group = clap::ArgGroup::new("what").required(true).multiple(true))]
pub struct PlanArgs {
    /// What you want built; the same request again resumes its unfinished plan.
    #[arg(group = "what")]
    pub request: Option<String>,
    /// Resume this plan molecule (`plan --list` shows the unfinished ones).
    #[arg(long, value_name = "MOL", group = "what")]
    pub resume: Option<String>,
    /// List the unfinished plans: molecule, next step, request.
    #[arg(long, group = "what", conflicts_with_all = ["request", "resume", "yes", "approve"])]
    pub list: bool,
    /// Accept every proposal without asking (needed when stdin is not a terminal).
    #[arg(short, long)]
    pub yes: bool,
    /// Also approve the test spec at the end, so the work may be slung.
    #[arg(long)]
    pub approve: bool,
}
