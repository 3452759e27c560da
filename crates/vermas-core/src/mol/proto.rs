//! A cooked formula ("proto"): validated steps in dependency order, variables resolved.
//! Cooking writes nothing; pouring turns a proto into a stored molecule.

use serde::Serialize;
use std::collections::BTreeMap;

/// A formula cooked with its variables: what a molecule is made from.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Proto {
    /// The formula's name.
    pub formula: String,
    /// The formula's version, if it has one.
    pub version: Option<String>,
    /// The formula's description, variables substituted.
    pub description: String,
    /// Every variable with its value (given, else default).
    pub vars: BTreeMap<String, String>,
    /// Steps in a topological order of `needs` (ties keep the formula's order).
    pub steps: Vec<ProtoStep>,
}

/// One step of a proto.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ProtoStep {
    /// Unique within the proto (children are `parent.child`).
    pub id: String,
    /// Short title, variables substituted.
    pub title: String,
    /// What to do, variables substituted.
    pub description: String,
    /// Ids of the steps that must complete first.
    pub needs: Vec<String>,
}

/// A small proto for unit tests: steps given as `(id, needs)`, titled `Do <id>`.
#[cfg(test)]
pub(crate) fn sample(vars: &[(&str, &str)], steps: &[(&str, &[&str])]) -> Proto {
    Proto {
        formula: "f".into(),
        version: None,
        description: String::new(),
        vars: vars
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect(),
        steps: steps
            .iter()
            .map(|(id, needs)| ProtoStep {
                id: id.to_string(),
                title: format!("Do {id}"),
                description: String::new(),
                needs: needs.iter().map(|s| s.to_string()).collect(),
            })
            .collect(),
    }
}
