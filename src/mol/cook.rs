//! Cooking: a formula (`.beads/formulas/<name>.formula.toml`, else a built-in) with its
//! variables becomes a validated [`Proto`], steps in dependency order. Nothing is written.
//!
//! `extends`: the parents' variables, steps and compose rules are inherited, in the order
//! listed; the formula's own variables win, its steps replace parent steps of the same id
//! in place and the others come after. A formula in `.beads/formulas/` that extends its own
//! name extends the built-in of that name. Variables: a given `--var` wins, else the
//! default; a required variable without either is an error, an optional one is empty.
//! `{{name}}` in the description, titles and step descriptions must name a declared or
//! given variable.

use super::builtin::{builtin, builtin_names};
use super::formula::{self, At, ExpandRule, Formula, FormulaType, Source, StepDef, VarDef};
use super::plan::{Graph, PlanStep, Sourced, var_map};
use super::proto::{Proto, ProtoStep};
use super::template::Text;
use super::template::fill;
use crate::error::{Error, Result};
use serde::Serialize;
use std::collections::{BTreeMap, HashMap, HashSet};
use std::path::Path;
use std::sync::Arc;

/// Suffix of formula files in `.beads/formulas/`.
pub const FORMULA_SUFFIX: &str = ".formula.toml";

/// One line of `formula list`.
#[derive(Debug, Clone, Serialize, PartialEq, Eq)]
pub struct FormulaSummary {
    /// The name to cook it by (the file name without `.formula.toml`).
    pub name: String,
    /// `file` (in `.beads/formulas/`) or `builtin`.
    pub source: String,
    /// The file, relative to the repository root, for `file` formulas.
    pub path: Option<String>,
    /// `workflow`, `expansion`, `convoy`, `aspect`...
    #[serde(rename = "type")]
    pub kind: String,
    /// `version`, if given.
    pub version: Option<String>,
    /// The description's first line.
    pub description: String,
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
    /// The name it is cooked by.
    pub name: String,
    /// `file` or `builtin`.
    pub source: String,
    /// The file, relative to the repository root, for `file` formulas.
    pub path: Option<String>,
    /// `workflow` or `expansion`.
    #[serde(rename = "type")]
    pub kind: String,
    /// `version`, if given.
    pub version: Option<String>,
    /// Description as written.
    pub description: String,
    /// `extends`, as written.
    pub extends: Vec<String>,
    /// Declared variables (inherited ones included), by name.
    pub vars: Vec<VarInfo>,
    /// Steps in dependency order, `{{var}}` not substituted.
    pub steps: Vec<ProtoStep>,
    /// Keys of the file vermas keeps but does not use.
    pub unknown_keys: Vec<String>,
}

/// A loaded formula with where it came from.
struct Loaded {
    name: String,
    builtin: bool,
    path: Option<String>,
    formula: Arc<Formula>,
}

/// Finds formulas by name: `.beads/formulas/` first, then the built-ins; parses each once.
struct Loader<'a> {
    beads_dir: Option<&'a Path>,
    cache: HashMap<(String, bool), Arc<Loaded>>,
}

impl<'a> Loader<'a> {
    fn new(beads_dir: Option<&'a Path>) -> Self {
        Loader {
            beads_dir,
            cache: HashMap::new(),
        }
    }

    /// The formula `name` (`builtin_only`: skip `.beads/formulas/`), `None` if there is none.
    fn load(&mut self, name: &str, builtin_only: bool) -> Result<Option<Arc<Loaded>>> {
        if name.is_empty() || name.starts_with('.') || name.contains(['/', '\\']) {
            return Err(Error::Invalid(format!("'{name}' is not a formula name")));
        }
        if let Some(l) = self.cache.get(&(name.to_string(), builtin_only)) {
            return Ok(Some(l.clone()));
        }
        let mut found = None;
        if let (Some(dir), false) = (self.beads_dir, builtin_only) {
            let path = dir
                .join(crate::workspace::layout::FORMULAS)
                .join(format!("{name}{FORMULA_SUFFIX}"));
            // A symlink only when it stays inside the repository.
            let root = dir.parent().unwrap_or(dir);
            match crate::contain::read_to_string(&path, |p| crate::contain::resolve(root, p)) {
                Ok(text) => {
                    let shown = display(dir, &path);
                    found = Some((text, shown.clone(), false, Some(shown)));
                }
                Err(Error::Io { source, .. }) if source.kind() == std::io::ErrorKind::NotFound => {}
                Err(e) => return Err(e),
            }
        }
        if found.is_none()
            && let Some(text) = builtin(name)
        {
            let shown = format!("builtin/{name}{FORMULA_SUFFIX}");
            found = Some((text.to_string(), shown, true, None));
        }
        let Some((text, shown, is_builtin, path)) = found else {
            return Ok(None);
        };
        let formula = formula::parse(Arc::new(Source { name: shown, text }))?;
        let loaded = Arc::new(Loaded {
            name: name.to_string(),
            builtin: is_builtin,
            path,
            formula: Arc::new(formula),
        });
        self.cache
            .insert((name.to_string(), builtin_only), loaded.clone());
        Ok(Some(loaded))
    }

    /// Like [`Loader::load`], but a missing formula is an error.
    fn require(&mut self, name: &str) -> Result<Arc<Loaded>> {
        self.load(name, false)?.ok_or_else(|| {
            Error::Missing {
                message: format!("no formula named '{name}'"),
                help: "`vermas formula list` shows the formulas (.beads/formulas/*.formula.toml, then the built-ins)".into(),
            }
        })
    }
}

/// A path under the repository root as the user should see it.
fn display(beads_dir: &Path, path: &Path) -> String {
    let root = beads_dir.parent().unwrap_or(beads_dir);
    path.strip_prefix(root)
        .unwrap_or(path)
        .to_string_lossy()
        .into_owned()
}

/// A formula with its `extends` applied.
struct Resolved {
    top: Arc<Loaded>,
    description: Option<Sourced<At<String>>>,
    version: Option<String>,
    vars: Vec<Sourced<VarDef>>,
    steps: Vec<Sourced<StepDef>>,
    expand: Vec<Sourced<ExpandRule>>,
    map: Vec<Sourced<ExpandRule>>,
}

/// Refuses formula types and features vermas does not run, pointing at them.
fn check_supported(l: &Loaded) -> Result<()> {
    let f = &l.formula;
    if let FormulaType::Convoy | FormulaType::Aspect | FormulaType::Other(_) = f.kind.value {
        let msg = format!(
            "'{}' is a formula of type '{}', which vermas does not support: it runs workflow and expansion formulas",
            l.name,
            f.kind.value.as_str()
        );
        return Err(f.source.error(&f.kind.span, msg).into());
    }
    if let Some(u) = f.unsupported.first() {
        let msg = format!("`{}` is not supported by vermas", u.value);
        return Err(f.source.error(&u.span, msg).into());
    }
    Ok(())
}

/// How deep an `extends` chain may go: deeper is refused, not a stack overflow.
pub const MAX_EXTENDS_DEPTH: usize = 64;

/// Applies `extends`, depth first; `chain` holds the formulas being resolved (cycles).
fn resolve(loader: &mut Loader<'_>, l: Arc<Loaded>, chain: &mut Vec<String>) -> Result<Resolved> {
    check_supported(&l)?;
    let f = l.formula.clone();
    let src = &f.source;
    let key =
        |name: &str, builtin: bool| format!("{}{name}", if builtin { "builtin:" } else { "" });
    chain.push(key(&l.name, l.builtin));
    let mut r = Resolved {
        top: l.clone(),
        description: None,
        version: None,
        vars: Vec::new(),
        steps: Vec::new(),
        expand: Vec::new(),
        map: Vec::new(),
    };
    let mut parent_vars = Vec::new();
    for parent in &f.extends {
        let builtin_only = parent.value == l.name && !l.builtin;
        let p = loader.load(&parent.value, builtin_only)?.ok_or_else(|| {
            src.error(&parent.span, format!("no formula named '{}'", parent.value))
        })?;
        if chain.len() >= MAX_EXTENDS_DEPTH {
            let msg = format!(
                "extends chain deeper than {MAX_EXTENDS_DEPTH} formulas (from {} down to {})",
                chain[0].trim_start_matches("builtin:"),
                p.name
            );
            return Err(src.error(&parent.span, msg).into());
        }
        if chain.contains(&key(&p.name, p.builtin)) {
            let mut names: Vec<&str> = chain
                .iter()
                .map(|k| k.trim_start_matches("builtin:"))
                .collect();
            names.push(&p.name);
            let msg = format!("extends cycle: {}", names.join(" -> "));
            return Err(src.error(&parent.span, msg).into());
        }
        let pr = resolve(loader, p, chain)?;
        parent_vars.extend(pr.vars);
        r.steps.extend(pr.steps);
        r.expand.extend(pr.expand);
        r.map.extend(pr.map);
        r.description = r.description.or(pr.description);
        r.version = r.version.or(pr.version);
    }
    chain.pop();
    r.vars = f.vars.iter().map(|v| (v.clone(), src.clone())).collect();
    r.vars.extend(parent_vars);
    let index: HashMap<String, usize> = r
        .steps
        .iter()
        .enumerate()
        .map(|(i, (s, _))| (s.id.value.clone(), i))
        .collect();
    for s in &f.steps {
        match index.get(&s.id.value) {
            Some(&i) => r.steps[i] = (s.clone(), src.clone()),
            None => r.steps.push((s.clone(), src.clone())),
        }
    }
    r.expand
        .extend(f.expand.iter().map(|e| (e.clone(), src.clone())));
    r.map.extend(f.map.iter().map(|e| (e.clone(), src.clone())));
    if let Some(d) = &f.description {
        r.description = Some((d.clone(), src.clone()));
    }
    if f.version.is_some() {
        r.version = f.version.clone();
    }
    Ok(r)
}

/// Resolves `name` and builds its ordered step graph (no variables applied).
fn plan(loader: &mut Loader<'_>, name: &str) -> Result<(Resolved, Vec<PlanStep>)> {
    let top = loader.require(name)?;
    let r = resolve(loader, top.clone(), &mut Vec::new())?;
    let mut steps = r.steps.clone();
    let f = &top.formula;
    if steps.is_empty() && f.kind.value == FormulaType::Expansion {
        // An expansion cooked on its own expands a step named after it.
        let here = |v: &str| At {
            value: v.to_string(),
            span: 0..0,
        };
        let target = StepDef {
            id: here(name),
            title: Some(here(name)),
            description: f.description.clone(),
            needs: Vec::new(),
            children: Vec::new(),
            expand: Some(ExpandRule {
                target: here(name),
                with: here(name),
                vars: BTreeMap::new(),
            }),
            span: 0..0,
        };
        steps.push((target, f.source.clone()));
    }
    if steps.is_empty() {
        return Err(f
            .source
            .error(&(0..0), format!("formula '{name}' has no steps"))
            .with_help("add [[steps]] entries with an id, a title and needs")
            .into());
    }
    let mut load = |n: &str| -> Result<Option<Arc<Formula>>> {
        Ok(loader.load(n, false)?.map(|l| l.formula.clone()))
    };
    let mut graph = Graph::new(&steps, &mut load)?;
    graph.expand_all(&r.expand, &r.map)?;
    let ordered = graph.finish()?;
    Ok((r, ordered))
}

/// Cooks formula `name` with `vars` into a proto: validated, steps in dependency order,
/// `{{var}}` substituted. Looks in `<beads_dir>/formulas/` first, then the built-ins.
pub fn cook(
    beads_dir: Option<&Path>,
    name: &str,
    vars: &BTreeMap<String, String>,
) -> Result<Proto> {
    let mut loader = Loader::new(beads_dir);
    let (r, steps) = plan(&mut loader, name)?;
    let decls = var_map(&r.vars);
    let mut values = BTreeMap::new();
    let mut missing = Vec::new();
    for (var, (def, src)) in &decls {
        match (vars.get(var), &def.default) {
            (Some(v), _) | (None, Some(v)) => {
                values.insert(var.clone(), v.clone());
            }
            (None, None) if def.required => missing.push((def, src)),
            (None, None) => {
                values.insert(var.clone(), String::new());
            }
        }
    }
    if let Some((first, src)) = missing.first() {
        let names: Vec<&str> = missing.iter().map(|(d, _)| d.name.as_str()).collect();
        let msg = match names.as_slice() {
            [one] if !first.description.is_empty() => {
                format!("missing required variable '{one}' ({})", first.description)
            }
            [one] => format!("missing required variable '{one}'"),
            many => format!("missing required variables: {}", many.join(", ")),
        };
        let help: Vec<String> = names.iter().map(|n| format!("--var {n}=VALUE")).collect();
        return Err(src
            .error(&first.span, msg)
            .with_help(format!("pass {}", help.join(" ")))
            .into());
    }
    for (k, v) in vars {
        values.entry(k.clone()).or_insert_with(|| v.clone());
    }
    let description = match &r.description {
        Some((d, src)) => fill(
            &Text {
                value: d.value.clone(),
                at: Some((src.clone(), d.span.clone())),
            },
            &values,
        )?,
        None => String::new(),
    };
    let mut out = Vec::with_capacity(steps.len());
    for s in steps {
        out.push(ProtoStep {
            title: fill(&s.title, &values)?,
            description: fill(&s.description, &values)?,
            id: s.id,
            needs: s.needs,
        });
    }
    Ok(Proto {
        formula: name.to_string(),
        version: r.version,
        description,
        vars: values,
        steps: out,
    })
}

/// `formula show NAME`: the formula resolved and validated, without variables applied.
pub fn formula_info(beads_dir: Option<&Path>, name: &str) -> Result<FormulaInfo> {
    let mut loader = Loader::new(beads_dir);
    let (r, steps) = plan(&mut loader, name)?;
    let f = &r.top.formula;
    Ok(FormulaInfo {
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
                name: name.clone(),
                source: "file".into(),
                path,
                kind: String::new(),
                version: None,
                description: String::new(),
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
        steps: count(&f.steps) + count(&f.template),
        vars: f.vars.len(),
        overrides_builtin,
        error: None,
    }
}

/// Parses `--var KEY=VALUE` arguments (a later value for the same key wins).
pub fn parse_vars(args: &[String]) -> Result<BTreeMap<String, String>> {
    let mut out = BTreeMap::new();
    for arg in args {
        let ok_key = |k: &str| {
            k.starts_with(|c: char| c.is_ascii_alphabetic() || c == '_')
                && k.chars()
                    .all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.'))
        };
        match arg.split_once('=') {
            Some((k, v)) if ok_key(k) => {
                out.insert(k.to_string(), v.to_string());
            }
            _ => {
                return Err(Error::invalid_with_help(
                    format!("--var expects KEY=VALUE, got '{arg}'"),
                    "for example --var bead_id=vm-k3f9",
                ));
            }
        }
    }
    Ok(out)
}
