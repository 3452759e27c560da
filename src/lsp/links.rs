//! `textDocument/documentLink`: each `[verify]`/`[judge]` link of a spec opens its check
//! file at the function's line (`file:///repo/tests/x.sh#L7`).

use super::position;
use super::state::SpecDoc;
use super::uri;
use lsp_types::DocumentLink;
use std::path::Path;
use vermas_core::spec::{self, Annotation};

/// The links of `doc`: one per annotation whose file exists inside the repository (a
/// broken one is left to the diagnostics).
pub fn links(doc: &SpecDoc) -> Vec<DocumentLink> {
    let spec = spec::parse(&doc.text, &doc.rel);
    let root = &doc.project.root;
    spec.criteria
        .iter()
        .flat_map(|c| &c.annotations)
        .filter(|a| a.error.is_none())
        .filter_map(|a| {
            let real = vermas_core::check::contained(root, &a.file).ok()?;
            let line = function_line(&real, a);
            let fragment = line.map(|l| format!("L{l}"));
            let target = uri::from_path(&root.join(&a.file), fragment.as_deref())?;
            let tooltip = match line {
                Some(l) => format!(
                    "{}#{} (line {l})",
                    a.file,
                    a.function.as_deref().unwrap_or("")
                ),
                None => a.file.clone(),
            };
            Some(DocumentLink {
                range: position::of_span(&doc.text, a.span),
                target: Some(target),
                tooltip: Some(tooltip),
                data: None,
            })
        })
        .collect()
}

/// The line defining the annotation's function in its file `real`; `None` when the link
/// names no function, or the file cannot be read, is in a language vermas cannot read, or
/// lacks the function (the link then opens the file at its top).
fn function_line(real: &Path, a: &Annotation) -> Option<usize> {
    let function = a.function.as_deref()?;
    let text = String::from_utf8_lossy(&std::fs::read(real).ok()?).into_owned();
    // `Class::method` and `test[param]` open at the last part's definition; a shell
    // function defined twice at the one bash runs.
    vermas_core::check::functions::definition_line(&a.file, &text, function)
}
