//! What an annotation link asks for: `[verify]`, `[judge]` or `[verify:NAME]`.

use serde::{Serialize, Serializer};
use std::fmt;

/// The kind of an annotation, spelled in JSON and text as the link is (`verify`, `judge`,
/// `verify:NAME`).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum AnnotationKind {
    /// `[verify]`: run the target as a test.
    Verify,
    /// `[judge]`: ask the judge with the target rubric.
    Judge,
    /// `[verify:NAME]`: run the target with the runner `verify.runners."verify:NAME"`.
    VerifyWith(String),
}

impl AnnotationKind {
    /// The kind a link's text names (any case), if it names one; a runner name is letters,
    /// digits, `_` and `-`.
    pub fn parse(label: &str) -> Option<AnnotationKind> {
        let lower = label.to_ascii_lowercase();
        match lower.as_str() {
            "verify" => Some(AnnotationKind::Verify),
            "judge" => Some(AnnotationKind::Judge),
            _ => {
                let name = lower.strip_prefix("verify:")?;
                let ok = !name.is_empty()
                    && name
                        .chars()
                        .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-');
                ok.then(|| AnnotationKind::VerifyWith(name.to_string()))
            }
        }
    }

    /// True for `verify` and `verify:NAME`.
    pub fn is_verify(&self) -> bool {
        !matches!(self, AnnotationKind::Judge)
    }

    /// True for `judge`.
    pub fn is_judge(&self) -> bool {
        matches!(self, AnnotationKind::Judge)
    }

    /// The `verify.runners` key of a named verify kind (`verify:NAME`).
    pub fn runner_key(&self) -> Option<String> {
        match self {
            AnnotationKind::VerifyWith(_) => Some(self.to_string()),
            _ => None,
        }
    }
}

impl fmt::Display for AnnotationKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            AnnotationKind::Verify => f.write_str("verify"),
            AnnotationKind::Judge => f.write_str("judge"),
            AnnotationKind::VerifyWith(name) => write!(f, "verify:{name}"),
        }
    }
}

impl Serialize for AnnotationKind {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(self)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kinds_read_and_print_as_the_link_spells_them() {
        for (label, shown) in [
            ("verify", "verify"),
            ("JUDGE", "judge"),
            ("Verify:Lint-2", "verify:lint-2"),
        ] {
            let k = AnnotationKind::parse(label).unwrap();
            assert_eq!(k.to_string(), shown);
            assert_eq!(serde_json::to_string(&k).unwrap(), format!("\"{shown}\""));
        }
        for bad in ["verify:", "verify:a b", "check", "judge:x"] {
            assert_eq!(AnnotationKind::parse(bad), None, "{bad}");
        }
        let named = AnnotationKind::parse("verify:nix").unwrap();
        assert!(named.is_verify() && !named.is_judge());
        assert_eq!(named.runner_key().as_deref(), Some("verify:nix"));
        assert_eq!(AnnotationKind::Verify.runner_key(), None);
    }
}
