//! `Makefile` targets and `justfile` recipes named like quality commands.

use super::{Collector, Kind, Rank};
use crate::error::ParseError;

/// Lines GNU make reads as directives rather than rules or recipe lines.
const DIRECTIVES: &[&str] = &[
    "include", "-include", "sinclude", "ifeq", "ifneq", "ifdef", "ifndef", "else", "endif",
    "define", "endef", "export", "unexport", "override", "private", "vpath", "undefine",
];

/// The kind of a target or recipe by its name, and whether the name is the kind's own.
fn target_kind(name: &str) -> Option<(Kind, bool)> {
    let head = name.split(['-', '_']).next().unwrap_or(name);
    let kind = match (name, head) {
        ("typecheck" | "type-check" | "type_check" | "check-types" | "types" | "mypy", _) => {
            Kind::Typecheck
        }
        ("fmt" | "format" | "fmt-check" | "format-check" | "fmtcheck", _) => Kind::Format,
        (_, "lint") => Kind::Lint,
        ("check", _) | (_, "test" | "tests") => Kind::Test,
        ("build", _) => Kind::Build,
        ("ci", _) => Kind::Ci,
        _ => return None,
    };
    Some((kind, name == kind.name()))
}

/// Scans `Makefile` (or `makefile`, `GNUmakefile`). A line make would refuse ("missing
/// separator", a recipe before the first target) makes the whole file a warning, since
/// make runs nothing from it then.
pub(super) fn scan_makefile(c: &mut Collector) {
    let Some(rel) = ["GNUmakefile", "makefile", "Makefile"]
        .into_iter()
        .find(|f| c.root().join(f).is_file())
    else {
        return;
    };
    let Some(text) = c.read(rel) else { return };
    match make_targets(&text) {
        Ok(targets) => {
            c.read_ok(rel);
            for (line, name) in targets {
                if let Some((kind, primary)) = target_kind(&name) {
                    c.add(kind, format!("make {name}"), rel, line, primary, Rank::Make);
                }
            }
        }
        Err((line, column, msg)) => c.warn(ParseError::at(rel, &text, line, column, msg)),
    }
}

/// The explicit targets of a makefile with their first line, or the first line make would
/// refuse (line, column, message).
fn make_targets(text: &str) -> Result<Vec<(usize, String)>, (usize, usize, String)> {
    let custom_prefix = text.contains(".RECIPEPREFIX");
    let mut targets: Vec<(usize, String)> = Vec::new();
    let mut in_define = false;
    let mut continued = false;
    let mut seen_rule = false;
    for (i, line) in text.lines().enumerate() {
        let n = i + 1;
        let was_continued = continued;
        continued = line.ends_with('\\');
        if was_continued {
            continue;
        }
        let trimmed = line.trim();
        let first = trimmed.split_whitespace().next().unwrap_or("");
        if in_define {
            in_define = first != "endef";
            continue;
        }
        if line.starts_with('\t') {
            if !seen_rule && !trimmed.is_empty() && !trimmed.starts_with('#') && !custom_prefix {
                return Err((n, 1, "recipe commences before first target".into()));
            }
            continue;
        }
        if trimmed.is_empty() || trimmed.starts_with('#') {
            continue;
        }
        if DIRECTIVES.contains(&first) {
            in_define = first == "define";
            continue;
        }
        let colon = trimmed.find(':');
        let equals = trimmed.find('=');
        let is_rule = match (colon, equals) {
            (Some(c), Some(e)) => c < e && !trimmed[c..].trim_start_matches(':').starts_with('='),
            (Some(_), None) => true,
            (None, Some(_)) => false,
            (None, None) => {
                if trimmed.starts_with('$') {
                    seen_rule = true; // $(eval ...) may define rules: stay lenient
                    continue;
                }
                if custom_prefix {
                    continue;
                }
                let hint = if line.starts_with(' ') && seen_rule {
                    "missing separator (recipe lines must start with a tab, not spaces)"
                } else {
                    "missing separator (expected a rule `target:` or an assignment `VAR = value`)"
                };
                let column = line.len() - line.trim_start().len() + 1;
                return Err((n, column, hint.into()));
            }
        };
        if !is_rule {
            continue;
        }
        seen_rule = true;
        let head = &trimmed[..colon.unwrap_or(0)];
        for name in head.split_whitespace() {
            let plain = !name.starts_with('.') && !name.contains(['%', '$', '/']);
            if plain && !targets.iter().any(|(_, t)| t == name) {
                targets.push((n, name.to_string()));
            }
        }
    }
    Ok(targets)
}

/// Scans `justfile` (or `Justfile`, `.justfile`) for recipes.
pub(super) fn scan_justfile(c: &mut Collector) {
    let Some(rel) = ["justfile", "Justfile", ".justfile"]
        .into_iter()
        .find(|f| c.root().join(f).is_file())
    else {
        return;
    };
    let Some(text) = c.read(rel) else { return };
    c.read_ok(rel);
    for (line, name) in just_recipes(&text) {
        if let Some((kind, primary)) = target_kind(&name) {
            c.add(kind, format!("just {name}"), rel, line, primary, Rank::Just);
        }
    }
}

/// Recipe names of a justfile with their lines: unindented `name params...:` lines that are
/// not assignments, settings, aliases or attributes.
fn just_recipes(text: &str) -> Vec<(usize, String)> {
    let mut out = Vec::new();
    for (i, line) in text.lines().enumerate() {
        if line.starts_with([' ', '\t', '#', '[']) {
            continue;
        }
        let line = line.strip_prefix('@').unwrap_or(line);
        let name: String = line
            .chars()
            .take_while(|c| c.is_ascii_alphanumeric() || *c == '_' || *c == '-')
            .collect();
        if name.is_empty() || ["alias", "set", "export", "import", "mod"].contains(&name.as_str()) {
            continue;
        }
        let rest = line[name.len()..].trim_start();
        if rest.starts_with(":=") || !rest.contains(':') {
            continue;
        }
        out.push((i + 1, name));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn makefile_targets_and_assignments() {
        let text = "CC := gcc\nX = a:b\n.PHONY: test lint\n\ntest lint: deps\n\tcargo test\n\nbuild::\n\tcargo build\n%.o: %.c\n\tcc\n";
        let t = make_targets(text).unwrap();
        assert_eq!(
            t,
            vec![(5, "test".into()), (5, "lint".into()), (8, "build".into())]
        );
    }

    #[test]
    fn spaces_instead_of_tab_is_refused() {
        let err = make_targets("test:\n    cargo test\n").unwrap_err();
        assert_eq!((err.0, err.1), (2, 5));
        assert!(err.2.contains("tab"), "{}", err.2);
        let err = make_targets("\tcargo test\ntest:\n").unwrap_err();
        assert_eq!(err.0, 1);
    }

    #[test]
    fn variable_targets_and_function_calls() {
        let text = "$(eval $(call tpl,x))\n\techo\n$(BIN): $(SRC:.c=.o)\n\tcc\nlint:\n";
        assert_eq!(make_targets(text).unwrap(), vec![(5, "lint".into())]);
    }

    #[test]
    fn continuation_and_define_are_skipped() {
        let text = "define X\nnot a rule\nendef\nY = a \\\n  b\nci:\n";
        assert_eq!(make_targets(text).unwrap(), vec![(6, "ci".into())]);
    }

    #[test]
    fn justfile_recipes() {
        let text = "set shell := [\"bash\"]\nalias t := test\nversion := \"1\"\n\n# run tests\ntest *ARGS:\n    cargo test {{ARGS}}\n[private]\n@lint:\n    cargo clippy\nbuild target='x': test\n";
        assert_eq!(
            just_recipes(text),
            vec![(6, "test".into()), (9, "lint".into()), (11, "build".into())]
        );
    }

    #[test]
    fn target_names() {
        assert_eq!(target_kind("check"), Some((Kind::Test, false)));
        assert_eq!(target_kind("test-unit"), Some((Kind::Test, false)));
        assert_eq!(target_kind("lint"), Some((Kind::Lint, true)));
        assert_eq!(target_kind("fmt"), Some((Kind::Format, false)));
        assert_eq!(target_kind("install"), None);
        assert_eq!(target_kind("latest"), None);
    }
}
