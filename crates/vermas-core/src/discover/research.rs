//! The discovered commands as smart-ralph's research.md records them: a `## Quality
//! Commands` table (Type, Command, Source; `Not found` for a type the project lacks) and
//! its `**Local CI**:` line, written into a spec's `research.md` (the section replaced
//! when it is there, else added at the end).

use super::{Discovery, Found, Kind};
use std::path::{Path, PathBuf};

/// The section's heading.
pub(crate) const HEADING: &str = "## Quality Commands";

/// The `research.md` of smart-ralph's spec `spec` (a name under `specs/`, or a path), else
/// of its current spec (`specs/.current-spec`); `None` when neither names one.
pub fn research_path(root: &Path, spec: Option<&str>) -> Option<PathBuf> {
    let named = match spec {
        Some(s) => s.trim().to_string(),
        None => std::fs::read_to_string(root.join("specs/.current-spec"))
            .ok()?
            .trim()
            .to_string(),
    };
    if named.is_empty() {
        return None;
    }
    // A bare name lives under specs/; a path (smart-ralph writes one for other folders)
    // is taken as written, from the root.
    let dir = if named.contains('/') {
        PathBuf::from(named.trim_start_matches("./"))
    } else {
        Path::new("specs").join(named)
    };
    Some(dir.join("research.md"))
}

/// The `## Quality Commands` section for `d`: smart-ralph's rows, then vermas's other
/// kinds that were found, then the `**Local CI**:` line.
pub fn section(d: &Discovery) -> String {
    let tests: Vec<&Found> = d.commands.iter().filter(|f| f.kind == Kind::Test).collect();
    let named = |word: &str| tests.iter().copied().find(|f| f.command.contains(word));
    let mut rows: Vec<(&str, Option<&Found>)> = vec![
        ("Lint", d.best(Kind::Lint)),
        ("TypeCheck", d.best(Kind::Typecheck)),
        ("Unit Test", named("unit")),
        ("Integration Test", named("integration")),
        ("E2E Test", named("e2e")),
        ("Test (all)", d.best(Kind::Test)),
        ("Build", d.best(Kind::Build)),
    ];
    if let Some(f) = d.best(Kind::Format) {
        rows.push(("Format", Some(f)));
    }
    let mut out =
        format!("{HEADING}\n\n| Type | Command | Source |\n|------|---------|--------|\n");
    for (kind, found) in &rows {
        let line = match found {
            Some(f) => format!(
                "| {kind} | `{}` | {}:{} |\n",
                f.command.replace('|', "\\|"),
                f.source,
                f.line
            ),
            None => format!("| {kind} | Not found | - |\n"),
        };
        out.push_str(&line);
    }
    out.push_str(&format!("\n**Local CI**: {}\n", local_ci(d)));
    out
}

/// The project's own CI command, else lint, typecheck, test and build joined by `&&`
/// (`Not found` when there is none of them).
fn local_ci(d: &Discovery) -> String {
    if let Some(ci) = d.best(Kind::Ci) {
        return format!("`{}`", ci.command);
    }
    let parts: Vec<&str> = [Kind::Lint, Kind::Typecheck, Kind::Test, Kind::Build]
        .into_iter()
        .filter_map(|k| d.best(k).map(|f| f.command.as_str()))
        .collect();
    if parts.is_empty() {
        "Not found".into()
    } else {
        format!("`{}`", parts.join(" && "))
    }
}

/// `text` (a research.md, possibly empty) with its Quality Commands section replaced by
/// `section` (up to the next heading of level 1 or 2), else `section` added at the end.
pub fn with_section(text: &str, section: &str) -> String {
    let lines: Vec<&str> = text.split_inclusive('\n').collect();
    let Some(start) = lines
        .iter()
        .position(|l| l.trim_end().eq_ignore_ascii_case(HEADING))
    else {
        let mut out = text.to_string();
        if !out.is_empty() && !out.ends_with('\n') {
            out.push('\n');
        }
        if !out.trim().is_empty() {
            out.push('\n');
        }
        out.push_str(section);
        return out;
    };
    let end = lines[start + 1..]
        .iter()
        .position(|l| l.starts_with("# ") || l.starts_with("## "))
        .map_or(lines.len(), |i| start + 1 + i);
    let mut out: String = lines[..start].concat();
    out.push_str(section);
    if end < lines.len() {
        out.push('\n');
        out.push_str(&lines[end..].concat());
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_section_is_replaced_in_place_or_added() {
        let s = "## Quality Commands\n\nnew\n";
        assert_eq!(with_section("", s), s);
        assert_eq!(
            with_section("# Research: x\n\nText.", s),
            format!("# Research: x\n\nText.\n\n{s}")
        );
        let old = "# R\n\n## Quality Commands\n\nold\n| a |\n\n## Open Questions\n\n- q\n";
        assert_eq!(
            with_section(old, s),
            format!("# R\n\n{s}\n## Open Questions\n\n- q\n")
        );
    }
}
