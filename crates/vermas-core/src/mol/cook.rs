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

use super::builtin::builtin;
use super::formula::{
    self, AdviceRule, At, ExpandRule, Formula, FormulaType, Source, StepDef, VarDef,
};
use super::plan::{Graph, PlanStep, Sourced, var_map};
use super::proto::{Proto, ProtoStep};
use super::template::Text;
use super::template::fill;
use crate::error::{Error, Result};
use std::collections::{BTreeMap, HashMap};
use std::path::Path;
use std::sync::Arc;

/// Suffix of formula files in `.beads/formulas/`.
pub const FORMULA_SUFFIX: &str = ".formula.toml";

/// A loaded formula with where it came from.
pub(super) struct Loaded {
    pub(super) name: String,
    pub(super) builtin: bool,
    pub(super) path: Option<String>,
    pub(super) formula: Arc<Formula>,
}

/// Finds formulas by name: `.beads/formulas/` first, then the built-ins; parses each once.
pub(super) struct Loader<'a> {
    beads_dir: Option<&'a Path>,
    cache: HashMap<(String, bool), Arc<Loaded>>,
}

impl<'a> Loader<'a> {
    pub(super) fn new(beads_dir: Option<&'a Path>) -> Self {
        Loader {
            beads_dir,
            cache: HashMap::new(),
        }
    }

    /// The formula `name` (`builtin_only`: skip `.beads/formulas/`), `None` if there is none.
    pub(super) fn load(&mut self, name: &str, builtin_only: bool) -> Result<Option<Arc<Loaded>>> {
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
            match crate::sys::contain::read_to_string(&path, |p| {
                crate::sys::contain::resolve(root, p)
            }) {
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
    pub(super) fn require(&mut self, name: &str) -> Result<Arc<Loaded>> {
        self.load(name, false)?.ok_or_else(|| {
            Error::Missing {
                message: format!("no formula named '{name}'"),
                help: "`vermas formula list` shows the formulas (.beads/formulas/*.formula.toml, then the built-ins)".into(),
            }
        })
    }
}

/// A path under the repository root as the user should see it.
pub(super) fn display(beads_dir: &Path, path: &Path) -> String {
    let root = beads_dir.parent().unwrap_or(beads_dir);
    path.strip_prefix(root)
        .unwrap_or(path)
        .to_string_lossy()
        .into_owned()
}

/// A formula with its `extends` applied.
pub(super) struct Resolved {
    pub(super) top: Arc<Loaded>,
    pub(super) description: Option<Sourced<At<String>>>,
    pub(super) version: Option<String>,
    pub(super) vars: Vec<Sourced<VarDef>>,
    steps: Vec<Sourced<StepDef>>,
    expand: Vec<Sourced<ExpandRule>>,
    map: Vec<Sourced<ExpandRule>>,
    pub(super) advice: Vec<Sourced<AdviceRule>>,
    pub(super) aspects: Vec<Sourced<At<String>>>,
}

/// Refuses formula types and features vermas does not run, pointing at them.
fn check_supported(l: &Loaded) -> Result<()> {
    let f = &l.formula;
    if let FormulaType::Other(kind) = &f.kind.value {
        let msg = format!(
            "'{}' is a formula of type '{kind}', which vermas does not know: it runs workflow, expansion, convoy and aspect formulas",
            l.name,
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
pub(super) fn resolve(
    loader: &mut Loader<'_>,
    l: Arc<Loaded>,
    chain: &mut Vec<String>,
) -> Result<Resolved> {
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
        advice: Vec::new(),
        aspects: Vec::new(),
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
        r.advice.extend(pr.advice);
        r.aspects.extend(pr.aspects);
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
    r.advice
        .extend(f.advice.iter().map(|a| (a.clone(), src.clone())));
    r.aspects
        .extend(f.aspects.iter().map(|a| (a.clone(), src.clone())));
    if let Some(d) = &f.description {
        r.description = Some((d.clone(), src.clone()));
    }
    if f.version.is_some() {
        r.version = f.version.clone();
    }
    Ok(r)
}

/// Resolves `name` and builds its ordered step graph (no variables applied).
pub(super) fn plan(loader: &mut Loader<'_>, name: &str) -> Result<(Resolved, Vec<PlanStep>)> {
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
    if !f.legs.is_empty() || f.synthesis.is_some() {
        let src = f.source.clone();
        steps.extend(
            super::convoy::steps(f)
                .into_iter()
                .map(|s| (s, src.clone())),
        );
    }
    if steps.is_empty() && f.kind.value == FormulaType::Aspect {
        return Err(f
            .source
            .error(
                &f.kind.span,
                format!("'{name}' is an aspect: it has no steps of its own, it adds steps around other formulas' steps"),
            )
            .with_help(format!(
                "apply it to a workflow formula with `[compose] aspects = ['{name}']` and cook that; `vermas formula show {name}` shows its advice"
            ))
            .into());
    }
    if steps.is_empty() {
        return Err(f
            .source
            .error(&(0..0), format!("formula '{name}' has no steps"))
            .with_help("add [[steps]] entries with an id, a title and needs")
            .into());
    }
    let aspects = load_aspects(loader, &r.aspects)?;
    let mut load = |n: &str| -> Result<Option<Arc<Formula>>> {
        Ok(loader.load(n, false)?.map(|l| l.formula.clone()))
    };
    let mut graph = Graph::new(&steps, &mut load)?;
    graph.weave(&r.advice, &f.pointcuts, name)?;
    graph.expand_all(&r.expand, &r.map)?;
    for a in &aspects {
        let rules: Vec<_> = a
            .advice
            .iter()
            .map(|r| (r.clone(), a.source.clone()))
            .collect();
        graph.weave(&rules, &a.pointcuts, &a.name)?;
    }
    let ordered = graph.finish()?;
    Ok((r, ordered))
}

/// Refuses a `.beads/formulas/` file that takes the place of a built-in a vermas command
/// runs (`vermas plan` runs `mol-spec-planning`) but drops a step the command drives or
/// requires a variable the command does not give, saying why the command needs them.
fn keeps_contract(r: &Resolved, steps: &[PlanStep]) -> Result<()> {
    let top = &r.top;
    let Some(c) = super::builtin::contract(&top.name).filter(|_| !top.builtin) else {
        return Ok(());
    };
    let f = &top.formula;
    let missing: Vec<&str> = c
        .steps
        .iter()
        .copied()
        .filter(|id| !steps.iter().any(|s| s.id == *id))
        .collect();
    let decls = var_map(&r.vars);
    let extra: Vec<&VarDef> = decls
        .values()
        .map(|(v, _)| v)
        .filter(|v| v.required && v.default.is_none() && !c.vars.contains(&v.name.as_str()))
        .collect();
    if missing.is_empty() && extra.is_empty() {
        return Ok(());
    }
    let mut broken = Vec::new();
    if !extra.is_empty() {
        let names: Vec<&str> = extra.iter().map(|v| v.name.as_str()).collect();
        broken.push(format!("it requires {}", names.join(", ")));
    }
    if !missing.is_empty() {
        broken.push(format!("it has no step {}", missing.join(", ")));
    }
    let span = extra.first().map_or(0..0, |v| v.span.clone());
    let msg = format!(
        "this file takes the place of the built-in {name}, which `{runner}` runs with the variable{s} {vars} and the steps {steps}: {broken}; {why}",
        name = top.name,
        runner = c.runner,
        s = if c.vars.len() == 1 { "" } else { "s" },
        vars = c.vars.join(", "),
        steps = c.steps.join(", "),
        broken = broken.join(" and "),
        why = c.why,
    );
    Err(f
        .source
        .error(&span, msg)
        .with_help(format!(
            "rename the file to keep it as a formula of your own (`vermas mol pour <new-name>`), or keep the steps {} and require no other variable",
            c.steps.join(", ")
        ))
        .into())
}

/// The aspect formulas `compose.aspects` names, in order; each must be an aspect.
fn load_aspects(
    loader: &mut Loader<'_>,
    names: &[Sourced<At<String>>],
) -> Result<Vec<Arc<Formula>>> {
    let mut out = Vec::with_capacity(names.len());
    for (name, src) in names {
        let l = loader.load(&name.value, false)?.ok_or_else(|| {
            src.error(&name.span, format!("no formula named '{}'", name.value))
                .with_help("`vermas formula list` shows the formulas")
        })?;
        check_supported(&l)?;
        if l.formula.kind.value != FormulaType::Aspect {
            let msg = format!(
                "'{}' is not an aspect formula (type '{}'): compose.aspects names aspects",
                name.value,
                l.formula.kind.value.as_str()
            );
            return Err(src.error(&name.span, msg).into());
        }
        out.push(l.formula.clone());
    }
    Ok(out)
}

/// Cooks formula `name` with `vars` into a proto: validated, steps in dependency order,
/// `{{var}}` substituted. Looks in `<beads_dir>/formulas/` first, then the built-ins. A
/// file in the place of a built-in that a vermas command runs must keep what the command
/// relies on (see [`super::builtin::CONTRACTS`]): this is the cooking that command does.
pub fn cook(
    beads_dir: Option<&Path>,
    name: &str,
    vars: &BTreeMap<String, String>,
) -> Result<Proto> {
    cook_checked(beads_dir, name, vars, true)
}

/// [`cook`] of the formula as written, for `mol cook`, `mol pour` and `mol wisp`: a file in
/// a built-in's place is a formula of its own there, whatever the command that runs the
/// built-in needs.
pub fn cook_as_written(
    beads_dir: Option<&Path>,
    name: &str,
    vars: &BTreeMap<String, String>,
) -> Result<Proto> {
    cook_checked(beads_dir, name, vars, false)
}

/// Cooks, refusing a broken contract when `contract` is set.
fn cook_checked(
    beads_dir: Option<&Path>,
    name: &str,
    vars: &BTreeMap<String, String>,
    contract: bool,
) -> Result<Proto> {
    let mut loader = Loader::new(beads_dir);
    let (r, steps) = plan(&mut loader, name)?;
    if contract {
        keeps_contract(&r, &steps)?;
    }
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
