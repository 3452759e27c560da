//! What `formula list` and `formula show` report: each formula's summary, and one formula
//! resolved (extends, expansions and aspects applied) with its variables, steps and advice.

use super::builtin::{builtin, builtin_names};
use super::cook::{FORMULA_SUFFIX, Loaded, Loader, display, plan, resolve};
use super::formula::{FormulaType, StepDef};
use super::plan::var_map;
use super::proto::ProtoStep;
use crate::error::{Error, Result};
use serde::Serialize;
use std::collections::HashSet;
use std::path::Path;

/// What names a formula and where it comes from: the head of both `formula list`'s lines
/// and `formula show`.
#[derive(Debug, Clone, Serialize, PartialEq, Eq)]
pub struct FormulaHead {
    /// The name to cook it by (the file name without `.formula.toml`).
    pub name: String,
    /// `file` (in `.beads/formulas/`) or `builtin`.
    pub source: String,
    /// The file, relative to the repository root, for `file` formulas.
    pub path: Option<String>,
    /// `workflow`, `expansion`, `convoy` or `aspect`.
    #[serde(rename = "type")]
    pub kind: String,
    /// `version`, if given.
    pub version: Option<String>,
    /// The description: its first line in `formula list`, as written in `formula show`.
    pub description: String,
}

/// One line of `formula list`.
#[derive(Debug, Clone, Serialize, PartialEq, Eq)]
pub struct FormulaSummary {
    /// Its name, source, type, version and description's first line.
    #[serde(flatten)]
    pub head: FormulaHead,
    /// Number of steps written (children included).
    pub steps: usize,
    /// Number of declared variables.
    pub vars: usize,
    /// A file formula with the name of a built-in (which it hides).
    pub overrides_builtin: bool,
    /// Why the file could not be read, when it could not.
    pub error: Option<String>,
}

/// A declared variable, for `formula show`.
#[derive(Debug, Clone, Serialize, PartialEq, Eq)]
pub struct VarInfo {
    /// Name.
    pub name: String,
    /// What it is for.
    pub description: String,
    /// Cooking fails without a value.
    pub required: bool,
    /// Value used when none is given.
    pub default: Option<String>,
}

/// Everything `formula show` prints: the formula resolved (extends and expansions applied,
/// steps in order) but with `{{var}}` left as written.
#[derive(Debug, Clone, Serialize, PartialEq, Eq)]
pub struct FormulaInfo {
    /// Its name, source, type, version and description as written.
    #[serde(flatten)]
    pub head: FormulaHead,
    /// `extends`, as written.
    pub extends: Vec<String>,
    /// Declared variables (inherited ones included), by name.
    pub vars: Vec<VarInfo>,
    /// Steps in dependency order, `{{var}}` not substituted.
    pub steps: Vec<ProtoStep>,
    /// `compose.aspects` (inherited ones included): aspects woven into the steps.
    pub aspects: Vec<String>,
    /// An aspect's `[[advice]]` (inherited included): the steps it adds around others.
    pub advice: Vec<AdviceInfo>,
    /// An aspect's `[[pointcuts]]` globs: the steps it may advise (none: any).
    pub pointcuts: Vec<String>,
    /// Keys of the file vermas keeps but does not use.
    pub unknown_keys: Vec<String>,
}

/// One `[[advice]]` rule, for `formula show`.
#[derive(Debug, Clone, Serialize, PartialEq, Eq)]
pub struct AdviceInfo {
    /// The glob over step ids it advises.
    pub target: String,
    /// Ids (with `{step.id}`) of the steps inserted before each match.
    pub before: Vec<String>,
    /// Ids (with `{step.id}`) of the steps inserted after each match.
    pub after: Vec<String>,
}

/// `formula show NAME`: the formula resolved and validated, without variables applied.
pub fn formula_info(beads_dir: Option<&Path>, name: &str) -> Result<FormulaInfo> {
    let mut loader = Loader::new(beads_dir);
    let top = loader.require(name)?;
    let t = &top.formula;
    // An aspect of advice alone has no steps: it shows what it adds to others.
    let (r, steps) =
        if t.kind.value == FormulaType::Aspect && t.legs.is_empty() && t.steps.is_empty() {
            (
                resolve(&mut loader, top.clone(), &mut Vec::new())?,
                Vec::new(),
            )
        } else {
            plan(&mut loader, name)?
        };
    let f = &r.top.formula;
    let ids = |steps: &[StepDef]| steps.iter().map(|s| s.id.value.clone()).collect();
    Ok(FormulaInfo {
        head: FormulaHead {
            name: name.to_string(),
            source: source_kind(&r.top).into(),
            path: r.top.path.clone(),
            kind: f.kind.value.as_str().to_string(),
            version: r.version.clone(),
            description: r
                .description
                .as_ref()
                .map(|(d, _)| d.value.clone())
                .unwrap_or_default(),
        },
        extends: f.extends.iter().map(|e| e.value.clone()).collect(),
        vars: var_map(&r.vars)
            .into_values()
            .map(|(v, _)| VarInfo {
                name: v.name,
                description: v.description,
                required: v.required,
                default: v.default,
            })
            .collect(),
        steps: steps
            .into_iter()
            .map(|s| ProtoStep {
                id: s.id,
                title: s.title.value,
                description: s.description.value,
                needs: s.needs,
            })
            .collect(),
        aspects: r.aspects.iter().map(|(a, _)| a.value.clone()).collect(),
        advice: r
            .advice
            .iter()
            .map(|(a, _)| AdviceInfo {
                target: a.target.value.clone(),
                before: ids(&a.before),
                after: ids(&a.after),
            })
            .collect(),
        pointcuts: f.pointcuts.iter().map(|p| p.value.clone()).collect(),
        unknown_keys: f.unknown_keys.clone(),
    })
}

fn source_kind(l: &Loaded) -> &'static str {
    if l.builtin { "builtin" } else { "file" }
}

/// `formula list`: the formulas in `<beads_dir>/formulas/` (by name), then the built-ins
/// they do not hide. A file that does not parse is listed with its `error`.
pub fn list_formulas(beads_dir: Option<&Path>) -> Result<Vec<FormulaSummary>> {
    let mut names = Vec::new();
    if let Some(dir) = beads_dir {
        let fdir = dir.join(crate::workspace::layout::FORMULAS);
        match std::fs::read_dir(&fdir) {
            Ok(entries) => {
                for entry in entries {
                    let entry = entry.map_err(|e| Error::io(&fdir, e))?;
                    let file = entry.file_name().to_string_lossy().into_owned();
                    if let Some(name) = file.strip_suffix(FORMULA_SUFFIX)
                        && !name.is_empty()
                        && !name.starts_with('.')
                    {
                        names.push(name.to_string());
                    }
                }
            }
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
            Err(e) => return Err(Error::io(&fdir, e)),
        }
    }
    names.sort();
    let mut loader = Loader::new(beads_dir);
    let mut out = Vec::new();
    let files: HashSet<String> = names.iter().cloned().collect();
    for name in &names {
        let path = beads_dir.map(|d| {
            display(
                d,
                &d.join(crate::workspace::layout::FORMULAS)
                    .join(format!("{name}{FORMULA_SUFFIX}")),
            )
        });
        out.push(match loader.load(name, false) {
            Ok(Some(l)) => summary(&l, builtin(name).is_some()),
            Ok(None) => continue,
            Err(e) => FormulaSummary {
                head: FormulaHead {
                    name: name.clone(),
                    source: "file".into(),
                    path,
                    kind: String::new(),
                    version: None,
                    description: String::new(),
                },
                steps: 0,
                vars: 0,
                overrides_builtin: builtin(name).is_some(),
                error: Some(e.to_string()),
            },
        });
    }
    for name in builtin_names().filter(|n| !files.contains(*n)) {
        if let Some(l) = loader.load(name, true)? {
            out.push(summary(&l, false));
        }
    }
    Ok(out)
}

fn summary(l: &Loaded, overrides_builtin: bool) -> FormulaSummary {
    let f = &l.formula;
    fn count(steps: &[StepDef]) -> usize {
        steps.iter().map(|s| 1 + count(&s.children)).sum()
    }
    FormulaSummary {
        head: FormulaHead {
            name: l.name.clone(),
            source: source_kind(l).into(),
            path: l.path.clone(),
            kind: f.kind.value.as_str().to_string(),
            version: f.version.clone(),
            description: f
                .description
                .as_ref()
                .and_then(|d| d.value.lines().find(|l| !l.trim().is_empty()))
                .unwrap_or("")
                .trim()
                .to_string(),
        },
        steps: count(&f.steps)
            + count(&f.template)
            + f.legs.len()
            + usize::from(f.synthesis.is_some()),
        vars: f.vars.len(),
        overrides_builtin,
        error: None,
    }
}
