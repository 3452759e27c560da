//! Reading Gas Town formula files (`<name>.formula.toml`) unchanged, keeping where every
//! value was written so cook errors can point at `file:line:col`. Honoured: `formula`,
//! `description`, `version`, `type`, `extends`, `[vars]` (`name = "default"` and
//! `[vars.name]` with `description`, `required`, `default`), `[[steps]]` (`id`, `title`,
//! `description`, `needs`, `depends_on`, `[[steps.children]]`, `expand`, `expand_vars`,
//! `gate`), `[[template]]`, `[[compose.expand]]` / `[[compose.map]]`,
//! `compose.aspects`, the aspects' `[[advice]]` and `[[pointcuts]]` ([`crate::mol::aspect`])
//! and the convoys' `[inputs]`, `[prompts]`, `[[legs]]` and `[synthesis]`
//! ([`crate::mol::convoy`]). Every other key is kept and ignored (top-level
//! and `compose.*` ones are listed in `unknown_keys`); features that would change the steps
//! and are not run here (`compose.branch`, `compose.gate`) are recorded in `unsupported`,
//! and a step `loop` is refused at once.

mod advice;
mod gate;
mod legs;

pub use advice::AdviceRule;
pub use legs::{Leg, Synthesis};

use crate::error::textpos::line_col;
use crate::error::{Error, ParseError};
use std::collections::BTreeMap;
use std::ops::Range;
use std::sync::Arc;
use toml::Spanned;
use toml::de::{DeTable, DeValue};

/// A formula file's text and the name errors show for it.
#[derive(Debug)]
pub struct Source {
    /// Shown in errors: a path relative to the repository root, or `builtin/<file>`.
    pub name: String,
    /// The whole file.
    pub text: String,
}

impl Source {
    /// An input error at a byte range of this file (`file:line:col: message`).
    pub fn error(&self, span: &Range<usize>, message: impl Into<String>) -> ParseError {
        let (line, column) = line_col(&self.text, span.start);
        ParseError::at(&self.name, &self.text, line, column, message)
    }
}

/// A value with the byte range it was written at.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct At<T> {
    /// The value.
    pub value: T,
    /// Where in the file.
    pub span: Range<usize>,
}

/// Where a value was written: a file and a byte range.
pub type Loc = (Arc<Source>, Range<usize>);

/// What kind of formula a file is (`type`, else inferred from its content).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum FormulaType {
    /// Steps with dependencies (the default).
    Workflow,
    /// `[[template]]` steps applied to a target step by `compose.expand`.
    Expansion,
    /// Parallel legs whose results a synthesis step collects.
    Convoy,
    /// Cross-cutting advice woven around other formulas' steps (`compose.aspects`).
    Aspect,
    /// Any other `type` value.
    Other(String),
}

impl FormulaType {
    /// The name as written in `type`.
    pub fn as_str(&self) -> &str {
        match self {
            FormulaType::Workflow => "workflow",
            FormulaType::Expansion => "expansion",
            FormulaType::Convoy => "convoy",
            FormulaType::Aspect => "aspect",
            FormulaType::Other(s) => s,
        }
    }

    fn from_name(name: &str) -> FormulaType {
        match name {
            "workflow" => FormulaType::Workflow,
            "expansion" => FormulaType::Expansion,
            "convoy" => FormulaType::Convoy,
            "aspect" => FormulaType::Aspect,
            other => FormulaType::Other(other.to_string()),
        }
    }
}

/// A declared variable (`[vars.name]` or `[vars] name = "default"`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct VarDef {
    /// The variable's name.
    pub name: String,
    /// What it is for.
    pub description: String,
    /// Cooking fails without a value for it.
    pub required: bool,
    /// The value used when none is given.
    pub default: Option<String>,
    /// Where it is declared.
    pub span: Range<usize>,
}

/// One `[[steps]]` (or `[[template]]`, or `[[steps.children]]`) entry as written.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StepDef {
    /// `id`.
    pub id: At<String>,
    /// `title`.
    pub title: Option<At<String>>,
    /// `description`.
    pub description: Option<At<String>>,
    /// `needs` then `depends_on`, as written.
    pub needs: Vec<At<String>>,
    /// `[[steps.children]]`.
    pub children: Vec<StepDef>,
    /// `expand = "formula"` (with `expand_vars`): replace this step by an expansion.
    pub expand: Option<ExpandRule>,
    /// The table's header.
    pub span: Range<usize>,
}

/// `[[compose.expand]]` (or a step's own `expand`): replace `target` by `with`'s template.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ExpandRule {
    /// The step replaced (for `[[compose.map]]`, a glob over step ids).
    pub target: At<String>,
    /// The expansion formula's name.
    pub with: At<String>,
    /// `vars`: values for the expansion's `{name}` placeholders.
    pub vars: BTreeMap<String, String>,
}

/// A parsed formula file.
#[derive(Debug, Clone)]
pub struct Formula {
    /// The file it was read from.
    pub source: Arc<Source>,
    /// `formula` (empty when absent).
    pub name: String,
    /// `description`.
    pub description: Option<At<String>>,
    /// `version`, as text.
    pub version: Option<String>,
    /// `type`, else inferred (`legs` convoy, `aspects`/`advice` aspect, only `template`
    /// expansion, else workflow); the span is that of `type` (empty when inferred).
    pub kind: At<FormulaType>,
    /// `extends`: parent formulas, in order.
    pub extends: Vec<At<String>>,
    /// Declared variables, by name.
    pub vars: Vec<VarDef>,
    /// `[[steps]]`.
    pub steps: Vec<StepDef>,
    /// `[[template]]` (expansion formulas).
    pub template: Vec<StepDef>,
    /// `[[compose.expand]]`.
    pub expand: Vec<ExpandRule>,
    /// `[[compose.map]]` (`target` holds the `select` glob).
    pub map: Vec<ExpandRule>,
    /// `compose.aspects`: the aspect formulas woven into this one, in order.
    pub aspects: Vec<At<String>>,
    /// `[[advice]]`: steps an aspect inserts around the steps its targets match.
    pub advice: Vec<AdviceRule>,
    /// `[[pointcuts]]` globs: the steps an aspect may advise (none: every step).
    pub pointcuts: Vec<At<String>>,
    /// `[[legs]]` of a convoy (or `[[aspects]]` of an analysis aspect): parallel steps.
    pub legs: Vec<Leg>,
    /// `[synthesis]` of a convoy: the step that collects the legs' results.
    pub synthesis: Option<Synthesis>,
    /// `[prompts] base`: the text every leg's description is followed by.
    pub base_prompt: Option<At<String>>,
    /// Features present that vermas does not run, e.g. `compose.gate`.
    pub unsupported: Vec<At<String>>,
    /// Keys vermas does not use, kept and ignored (dotted paths).
    pub unknown_keys: Vec<String>,
}

/// A TOML value with its place in the file.
pub(super) type Value<'i> = Spanned<DeValue<'i>>;

/// Parses a formula file; a TOML syntax error or a value of the wrong type is an error at
/// its place.
pub fn parse(source: Arc<Source>) -> Result<Formula, Error> {
    let text = source.text.clone();
    let doc = DeTable::parse(&text).map_err(|e| {
        let span = e.span().unwrap_or(0..0);
        source.error(&span, format!("invalid TOML: {}", e.message().trim()))
    })?;
    let p = Parser { src: &source };
    let mut f = Formula {
        source: source.clone(),
        name: String::new(),
        description: None,
        version: None,
        kind: At {
            value: FormulaType::Workflow,
            span: 0..0,
        },
        extends: Vec::new(),
        vars: Vec::new(),
        steps: Vec::new(),
        template: Vec::new(),
        expand: Vec::new(),
        map: Vec::new(),
        aspects: Vec::new(),
        advice: Vec::new(),
        pointcuts: Vec::new(),
        legs: Vec::new(),
        synthesis: None,
        base_prompt: None,
        unsupported: Vec::new(),
        unknown_keys: Vec::new(),
    };
    let mut explicit_kind = None;
    let mut inferred = None;
    let mut inputs = Vec::new();
    for (key, value) in doc.get_ref().iter() {
        let k: &str = key.get_ref();
        match k {
            "formula" => f.name = p.string(value, k)?.value,
            "description" => f.description = Some(p.string(value, k)?),
            "version" => f.version = Some(p.scalar(value, k)?),
            "type" => {
                let t = p.string(value, k)?;
                explicit_kind = Some(At {
                    value: FormulaType::from_name(&t.value),
                    span: t.span,
                });
            }
            "extends" => f.extends = p.strings(value, k)?,
            "vars" => f.vars = p.vars(value, k)?,
            "steps" => f.steps = p.steps(value, k)?,
            "template" => f.template = p.steps(value, k)?,
            "compose" => p.compose(value, &mut f)?,
            "advice" => {
                inferred.get_or_insert(FormulaType::Aspect);
                f.advice = p.advice(value)?;
            }
            "pointcuts" => {
                inferred.get_or_insert(FormulaType::Aspect);
                p.pointcuts(value, &mut f)?;
            }
            "legs" => {
                inferred = Some(FormulaType::Convoy);
                f.legs.extend(p.legs(value, k)?);
            }
            "synthesis" => {
                inferred = Some(FormulaType::Convoy);
                f.synthesis = Some(p.synthesis(value)?);
            }
            "aspects" => {
                inferred.get_or_insert(FormulaType::Aspect);
                f.legs.extend(p.legs(value, k)?);
            }
            "inputs" => inputs = p.vars(value, k)?,
            "prompts" => f.base_prompt = p.base_prompt(value)?,
            _ => f.unknown_keys.push(k.to_string()),
        }
    }
    // A convoy's `[inputs]` are its variables.
    for input in inputs {
        if !f.vars.iter().any(|v| v.name == input.name) {
            f.vars.push(input);
        }
    }
    f.kind = explicit_kind.unwrap_or_else(|| At {
        value: inferred.unwrap_or(if f.steps.is_empty() && !f.template.is_empty() {
            FormulaType::Expansion
        } else {
            FormulaType::Workflow
        }),
        span: 0..0,
    });
    Ok(f)
}

/// Reads typed values out of the document, with errors at their place.
pub(super) struct Parser<'a> {
    /// The file being read.
    pub(super) src: &'a Source,
}

impl Parser<'_> {
    pub(super) fn wrong(&self, value: &Value<'_>, what: &str, expected: &str) -> Error {
        let found = value.get_ref().type_str();
        self.src
            .error(
                &value.span(),
                format!("`{what}` must be {expected}, not {found}"),
            )
            .into()
    }

    /// A string value.
    pub(super) fn string(&self, value: &Value<'_>, what: &str) -> Result<At<String>, Error> {
        match value.get_ref() {
            DeValue::String(s) => Ok(At {
                value: s.to_string(),
                span: value.span(),
            }),
            _ => Err(self.wrong(value, what, "a string")),
        }
    }

    /// A string, integer, float or boolean, as text (`version = 1`, `default = 3`).
    fn scalar(&self, value: &Value<'_>, what: &str) -> Result<String, Error> {
        match value.get_ref() {
            DeValue::String(s) => Ok(s.to_string()),
            DeValue::Integer(i) => Ok(i.as_str().replace('_', "")),
            DeValue::Float(x) => Ok(x.as_str().to_string()),
            DeValue::Boolean(b) => Ok(b.to_string()),
            _ => Err(self.wrong(value, what, "a string or a number")),
        }
    }

    /// A string or an array of strings.
    pub(super) fn strings(&self, value: &Value<'_>, what: &str) -> Result<Vec<At<String>>, Error> {
        match value.get_ref() {
            DeValue::String(_) => Ok(vec![self.string(value, what)?]),
            DeValue::Array(items) => items.iter().map(|v| self.string(v, what)).collect(),
            _ => Err(self.wrong(value, what, "an array of strings")),
        }
    }

    /// A table of scalars as text (`vars = { k = "v" }`, `expand_vars`).
    fn string_map(&self, value: &Value<'_>, what: &str) -> Result<BTreeMap<String, String>, Error> {
        let table = self.table(value, what)?;
        let mut out = BTreeMap::new();
        for (k, v) in table.iter() {
            out.insert(k.get_ref().to_string(), self.scalar(v, what)?);
        }
        Ok(out)
    }

    pub(super) fn table<'t, 'i>(
        &self,
        value: &'t Value<'i>,
        what: &str,
    ) -> Result<&'t DeTable<'i>, Error> {
        value
            .get_ref()
            .as_table()
            .ok_or_else(|| self.wrong(value, what, "a table"))
    }

    /// An array of tables (`[[steps]]`), also accepting a single table.
    pub(super) fn tables<'t, 'i>(
        &self,
        value: &'t Value<'i>,
        what: &str,
    ) -> Result<Vec<(&'t DeTable<'i>, Range<usize>)>, Error> {
        match value.get_ref() {
            DeValue::Array(items) => items
                .iter()
                .map(|v| Ok((self.table(v, what)?, v.span())))
                .collect(),
            DeValue::Table(t) => Ok(vec![(t, value.span())]),
            _ => Err(self.wrong(value, what, "an array of tables")),
        }
    }

    /// `[vars]` (or a convoy's `[inputs]`, `what`): `name = "default"` or `[vars.name]`
    /// tables.
    fn vars(&self, value: &Value<'_>, what: &str) -> Result<Vec<VarDef>, Error> {
        let mut out = Vec::new();
        for (key, v) in self.table(value, what)?.iter() {
            let name = key.get_ref().to_string();
            let mut def = VarDef {
                name: name.clone(),
                description: String::new(),
                required: false,
                default: None,
                span: key.span(),
            };
            match v.get_ref() {
                DeValue::Table(t) => {
                    def.span = v.span().start.min(key.span().start)..key.span().end;
                    for (k, field) in t.iter() {
                        let what = format!("{what}.{name}.{}", k.get_ref());
                        match k.get_ref().as_ref() {
                            "description" => def.description = self.string(field, &what)?.value,
                            "required" => {
                                def.required = field
                                    .get_ref()
                                    .as_bool()
                                    .ok_or_else(|| self.wrong(field, &what, "true or false"))?
                            }
                            "default" => def.default = Some(self.scalar(field, &what)?),
                            _ => {}
                        }
                    }
                }
                _ => def.default = Some(self.scalar(v, &format!("{what}.{name}"))?),
            }
            out.push(def);
        }
        Ok(out)
    }

    /// An array of step tables at `path` (`steps`, `template`, `steps.children`).
    pub(super) fn steps(&self, value: &Value<'_>, path: &str) -> Result<Vec<StepDef>, Error> {
        let mut out: Vec<StepDef> = Vec::new();
        for (table, span) in self.tables(value, path)? {
            let step = self.step(table, span, path)?;
            if let Some(first) = out.iter().find(|s| s.id.value == step.id.value) {
                let (line, _) = line_col(&self.src.text, first.id.span.start);
                let msg = format!(
                    "duplicate step id '{}' (first at line {line})",
                    step.id.value
                );
                return Err(self.src.error(&step.id.span, msg).into());
            }
            self.push_gated(&mut out, table, step, path)?;
        }
        Ok(out)
    }

    pub(super) fn step(
        &self,
        t: &DeTable<'_>,
        span: Range<usize>,
        path: &str,
    ) -> Result<StepDef, Error> {
        let mut id = None;
        let mut step = StepDef {
            id: At {
                value: String::new(),
                span: span.clone(),
            },
            title: None,
            description: None,
            needs: Vec::new(),
            children: Vec::new(),
            expand: None,
            span: span.clone(),
        };
        let mut depends_on = Vec::new();
        let mut expand = None;
        let mut expand_vars = BTreeMap::new();
        for (key, v) in t.iter() {
            let k: &str = key.get_ref();
            let what = format!("{path}.{k}");
            match k {
                "id" => id = Some(self.string(v, &what)?),
                "title" => step.title = Some(self.string(v, &what)?),
                "description" => step.description = Some(self.string(v, &what)?),
                "needs" => step.needs = self.strings(v, &what)?,
                "depends_on" => depends_on = self.strings(v, &what)?,
                "children" => step.children = self.steps(v, &format!("{path}.children"))?,
                "expand" => expand = Some(self.string(v, &what)?),
                "expand_vars" => expand_vars = self.string_map(v, &what)?,
                "loop" => {
                    let msg = format!("`{what}` (loops) is not supported by vermas");
                    return Err(self.src.error(&key.span(), msg).into());
                }
                _ => {}
            }
        }
        step.id = id.ok_or_else(|| {
            self.src
                .error(&span, format!("a `[[{path}]]` entry has no `id`"))
        })?;
        if step.id.value.trim().is_empty() {
            return Err(self
                .src
                .error(&step.id.span, "a step id cannot be empty")
                .into());
        }
        step.needs.extend(depends_on);
        step.expand = expand.map(|with| ExpandRule {
            target: step.id.clone(),
            with,
            vars: expand_vars,
        });
        Ok(step)
    }

    /// `[compose]`: `expand` and `map` rules, `aspects`; `branch` and `gate` are unsupported.
    fn compose(&self, value: &Value<'_>, f: &mut Formula) -> Result<(), Error> {
        for (key, v) in self.table(value, "compose")?.iter() {
            let k: &str = key.get_ref();
            let what = format!("compose.{k}");
            match k {
                "expand" | "map" => {
                    for (t, span) in self.tables(v, &what)? {
                        let target_key = if k == "expand" { "target" } else { "select" };
                        let rule = self.rule(t, span, &what, target_key)?;
                        if k == "expand" {
                            f.expand.push(rule);
                        } else {
                            f.map.push(rule);
                        }
                    }
                }
                "aspects" => f.aspects = self.strings(v, &what)?,
                "branch" | "gate" => {
                    let empty = v.get_ref().as_array().is_some_and(|a| a.is_empty());
                    if !empty {
                        f.unsupported.push(At {
                            value: what,
                            span: key.span(),
                        });
                    }
                }
                _ => f.unknown_keys.push(what),
            }
        }
        Ok(())
    }

    fn rule(
        &self,
        t: &DeTable<'_>,
        span: Range<usize>,
        what: &str,
        target_key: &str,
    ) -> Result<ExpandRule, Error> {
        let field = |name: &str| -> Result<At<String>, Error> {
            let v = t.get(name).ok_or_else(|| {
                self.src
                    .error(&span, format!("a `[[{what}]]` entry has no `{name}`"))
            })?;
            self.string(v, &format!("{what}.{name}"))
        };
        let vars = match t.get("vars") {
            Some(v) => self.string_map(v, &format!("{what}.vars"))?,
            None => BTreeMap::new(),
        };
        Ok(ExpandRule {
            target: field(target_key)?,
            with: field("with")?,
            vars,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parsed(text: &str) -> Result<Formula, Error> {
        parse(Arc::new(Source {
            name: "f.formula.toml".into(),
            text: text.into(),
        }))
    }

    #[test]
    fn reads_gas_town_shapes() {
        let f = parsed(
            "formula = 'x'\nversion = 2\ntier = 'opus'\n[vars]\nshort = 'd'\n[vars.long]\n\
             description = 'L'\nrequired = true\n[[steps]]\nid = 'a'\ntitle = 'A'\n\
             [[steps]]\nid = 'b'\nneeds = ['a']\ndepends_on = 'c'\nfoo = 1\n\
             [[steps.children]]\nid = 'k'\n[[compose.expand]]\ntarget = 'b'\nwith = 'e'\n",
        )
        .unwrap();
        assert_eq!(f.name, "x");
        assert_eq!(f.version.as_deref(), Some("2"));
        assert_eq!(f.kind.value, FormulaType::Workflow);
        assert_eq!(f.unknown_keys, vec!["tier".to_string()]);
        assert_eq!(f.vars.len(), 2);
        let long = f.vars.iter().find(|v| v.name == "long").unwrap();
        assert!(long.required);
        let short = f.vars.iter().find(|v| v.name == "short").unwrap();
        assert_eq!(short.default.as_deref(), Some("d"));
        let needs: Vec<_> = f.steps[1].needs.iter().map(|n| n.value.as_str()).collect();
        assert_eq!(needs, ["a", "c"]);
        assert_eq!(f.steps[1].children[0].id.value, "k");
        assert_eq!(f.expand[0].with.value, "e");
    }

    #[test]
    fn errors_point_at_the_value() {
        let e = parsed("formula = 'x'\n[[steps]]\nid = 'a'\nneeds = 3\n").unwrap_err();
        assert!(e.to_string().starts_with("f.formula.toml:4:9:"), "{e}");
        let e = parsed("[[steps]]\nid = 'a'\n[[steps]]\nid = 'a'\n").unwrap_err();
        assert!(e.to_string().starts_with("f.formula.toml:4:6:"), "{e}");
        assert!(e.to_string().contains("duplicate step id 'a'"), "{e}");
        let e = parsed("x = \n").unwrap_err();
        assert!(e.to_string().contains("invalid TOML"), "{e}");
    }

    #[test]
    fn infers_kinds() {
        let kind = |t: &str| parsed(t).unwrap().kind.value;
        assert_eq!(
            kind("[[template]]\nid = '{target}.a'\n"),
            FormulaType::Expansion
        );
        assert_eq!(kind("[[legs]]\nid = 'a'\n"), FormulaType::Convoy);
        assert_eq!(kind("type = 'aspect'\n"), FormulaType::Aspect);
    }
}
