//! The molecule of a spec from the spec table of ralph's pinned-context file
//! (`| Spec | Code | Beads | Purpose |`): the Beads cell of the row whose Spec cell names
//! the spec's file.

/// The molecule id in `text`'s spec table for the spec file `file_name` (`notify.md`, or
/// `auth/tokens.md` for a spec in a subfolder): the first table row whose first cell
/// names the file, its third cell trimmed (backquotes dropped). `None` when no row names
/// it or the cell is empty or a dash (`-`, `—`), as ralph reads the table.
pub fn molecule_for(text: &str, file_name: &str) -> Option<String> {
    for line in text.lines() {
        let row = line.trim();
        if !row.contains('|') {
            continue;
        }
        let row = row.strip_prefix('|').unwrap_or(row);
        let cells: Vec<&str> = row.split('|').map(str::trim).collect();
        let Some(spec_cell) = cells.first() else {
            continue;
        };
        if !names_file(spec_cell, file_name) {
            continue;
        }
        let beads = cells.get(2).map_or("", |c| c.trim_matches('`').trim());
        return match beads {
            "" | "-" | "—" => None,
            id => Some(id.to_string()),
        };
    }
    None
}

/// True when `cell` mentions `file_name` as a whole file name (not as the end of a longer
/// one: `notify.md` is not named by `old-notify.md`).
fn names_file(cell: &str, file_name: &str) -> bool {
    cell.match_indices(file_name).any(|(at, _)| {
        let before = cell[..at].chars().next_back();
        let after = cell[at + file_name.len()..].chars().next();
        let edge = |c: Option<char>| c.is_none_or(|c| !(c.is_alphanumeric() || "-_.".contains(c)));
        edge(before) && edge(after)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    const README: &str = "# Project\n\n| Spec | Code | Beads | Purpose |\n|------|------|-------|---------|\n| [old-notify.md](../specs/old-notify.md) | x | wx-old | Old |\n| [notify.md](../specs/notify.md) | `lib/` | wx-q6x | Notifications |\n| [login.md](../specs/login.md) | lib/ | — | Login |\n| `ci.md` | | `wx-ci` | CI |\n";

    #[test]
    fn reads_the_beads_cell_of_the_spec_row() {
        assert_eq!(molecule_for(README, "notify.md").as_deref(), Some("wx-q6x"));
        assert_eq!(
            molecule_for(README, "old-notify.md").as_deref(),
            Some("wx-old")
        );
        assert_eq!(molecule_for(README, "ci.md").as_deref(), Some("wx-ci"));
        assert_eq!(molecule_for(README, "login.md"), None);
        assert_eq!(molecule_for(README, "absent.md"), None);
        assert_eq!(
            molecule_for("notify.md is mentioned in prose\n", "notify.md"),
            None
        );
    }
}
