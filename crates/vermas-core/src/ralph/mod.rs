//! The ralph front end: what `vermas ralph spec|status|annotations` (and a `ralph`
//! symlink to vermas) computes for users of wrapix's ralph. ralph's state files, its
//! pinned-context spec table, its annotation records and index, and a verification
//! regrouped in ralph's terms. Parsing, running and judging are vermas's own
//! ([`crate::spec`], [`crate::verify`], [`crate::judge`]); nothing here prints.

pub mod annotations;
pub mod clarify;
pub mod index;
pub mod pinned;
pub mod progress;
pub mod run;
pub mod state;

use state::RalphDir;

/// The molecule of the spec named `name` from the spec table of ralph's pinned-context
/// file (`None` when the file or the row is missing).
pub fn table_molecule(root: &std::path::Path, ralph: &RalphDir, name: &str) -> Option<String> {
    let file = root.join(ralph.pinned_context_file());
    let text = std::fs::read_to_string(file).ok()?;
    pinned::molecule_for(&text, &format!("{name}.md"))
}
