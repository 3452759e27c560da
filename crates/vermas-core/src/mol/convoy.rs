//! Convoys: parallel `[[legs]]` whose results a `[synthesis]` step collects, cooked into
//! ordinary steps as Gas Town runs them.
//!
//! Each leg is a step that needs nothing, so a poured convoy has all its legs ready at
//! once; the `synthesis` step needs every leg. A leg's description is followed by the
//! formula's `[prompts] base` text (as Gas Town's leg beads are), with `{{.leg.id}}`,
//! `{{.leg.title}}`, `{{.leg.focus}}`, `{{.leg.description}}` and `{{.formula_name}}`
//! filled in. `[inputs]` are the convoy's variables: `{{.name}}` of a declared input is
//! filled like `{{name}}`; the rest of Gas Town's Go template text (`{{if .x}}`,
//! `{{.output_path}}`...) is left for the agent that reads it. An analysis aspect
//! (`[[aspects]]` entries, no advice) cooks the same way, without a synthesis.

use super::formula::{At, Formula, Leg, StepDef};

/// Id of the step that collects a convoy's legs.
pub(crate) const SYNTHESIS_ID: &str = "synthesis";

/// The steps a convoy (or analysis aspect) cooks into: its legs, then the synthesis
/// needing them all.
pub(crate) fn steps(f: &Formula) -> Vec<StepDef> {
    let inputs: Vec<&str> = f.vars.iter().map(|v| v.name.as_str()).collect();
    let go = |s: &str| go_inputs(s, &inputs);
    let mut out: Vec<StepDef> = f
        .legs
        .iter()
        .map(|leg| {
            let mut description = leg.description.clone().map(|d| At {
                value: go(&d.value),
                span: d.span,
            });
            if let Some(base) = &f.base_prompt {
                let prompt = go(&leg_fields(&base.value, leg, &f.name));
                let d = description.get_or_insert_with(|| At {
                    value: String::new(),
                    span: base.span.clone(),
                });
                d.value = format!("{}\n\n---\nBase Prompt:\n{prompt}", d.value);
            }
            StepDef {
                id: leg.id.clone(),
                title: leg.title.clone().map(|t| At {
                    value: go(&t.value),
                    span: t.span,
                }),
                description,
                needs: Vec::new(),
                children: Vec::new(),
                expand: None,
                span: leg.id.span.clone(),
            }
        })
        .collect();
    if let Some(syn) = &f.synthesis {
        let here = |value: String| At {
            value,
            span: syn.span.clone(),
        };
        out.push(StepDef {
            id: here(SYNTHESIS_ID.to_string()),
            title: Some(match &syn.title {
                Some(t) => At {
                    value: go(&t.value),
                    span: t.span.clone(),
                },
                None => here("Synthesis".to_string()),
            }),
            description: syn.description.as_ref().map(|d| At {
                value: go(&d.value),
                span: d.span.clone(),
            }),
            needs: f.legs.iter().map(|l| here(l.id.value.clone())).collect(),
            children: Vec::new(),
            expand: None,
            span: syn.span.clone(),
        });
    }
    out
}

/// `text` with the leg's own fields and the formula's name filled in.
fn leg_fields(text: &str, leg: &Leg, formula: &str) -> String {
    let get = |v: &Option<At<String>>| v.as_ref().map_or("", |a| a.value.as_str()).to_string();
    [
        ("{{.leg.id}}", leg.id.value.clone()),
        ("{{.leg.title}}", get(&leg.title)),
        ("{{.leg.focus}}", leg.focus.clone().unwrap_or_default()),
        ("{{.leg.description}}", get(&leg.description)),
        ("{{.formula_name}}", formula.to_string()),
    ]
    .iter()
    .fold(text.to_string(), |acc, (k, v)| acc.replace(k, v))
}

/// `text` with Go template's `{{.name}}` of each declared input written `{{name}}`, the
/// form cooking fills.
fn go_inputs(text: &str, inputs: &[&str]) -> String {
    inputs.iter().fold(text.to_string(), |acc, name| {
        acc.replace(&format!("{{{{.{name}}}}}"), &format!("{{{{{name}}}}}"))
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mol::formula::{Source, parse};
    use std::sync::Arc;

    #[test]
    fn legs_then_a_synthesis_needing_them_all() {
        let f = parse(Arc::new(Source {
            name: "c.formula.toml".into(),
            text: "formula = 'c'\ntype = 'convoy'\n[inputs.topic]\nrequired = true\n\
                   [prompts]\nbase = 'Leg {{.leg.id}} ({{.leg.focus}}) of {{.formula_name}} on {{.topic}} to {{.output_path}}'\n\
                   [[legs]]\nid = 'a'\ntitle = 'A {{.topic}}'\nfocus = 'speed'\ndescription = 'Look.'\n\
                   [[legs]]\nid = 'b'\n[synthesis]\ntitle = 'Join'\ndepends_on = ['a']\n"
                .into(),
        }))
        .unwrap();
        let s = steps(&f);
        let ids: Vec<&str> = s.iter().map(|s| s.id.value.as_str()).collect();
        assert_eq!(ids, ["a", "b", "synthesis"]);
        assert_eq!(s[0].title.as_ref().unwrap().value, "A {{topic}}");
        assert_eq!(
            s[0].description.as_ref().unwrap().value,
            "Look.\n\n---\nBase Prompt:\nLeg a (speed) of c on {{topic}} to {{.output_path}}"
        );
        assert!(s[0].needs.is_empty() && s[1].needs.is_empty());
        let needs: Vec<&str> = s[2].needs.iter().map(|n| n.value.as_str()).collect();
        assert_eq!(needs, ["a", "b"]);
    }
}
