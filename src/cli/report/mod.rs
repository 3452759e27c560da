//! `vermas report`: the committed ledger and its history as one self-contained HTML page
//! (inline CSS and SVG, no script, a Content-Security-Policy that forbids loading
//! anything), written atomically and printed as a `file://` link. Every text from the
//! ledger goes through maud, which escapes it.

pub(super) mod args;
mod inspections;
mod links;
mod marks;
mod overview;
mod page;
mod specs;

use super::CmdResult;
use super::ui::{Ui, outln};
use args::ReportArgs;
use std::path::{Path, PathBuf};
use vermas_core::error::Error;
use vermas_core::report::{Request, gather};

/// `report [--out FILE] [--since REV]`.
pub fn report(ui: &mut Ui, a: ReportArgs) -> CmdResult {
    let p = super::project()?;
    let report = gather(&p, &Request { since: a.since })?;
    let cwd = std::env::current_dir().map_err(|e| Error::io(".", e))?;
    let out = match (a.out, &p.ws) {
        (Some(file), _) => cwd.join(file),
        (None, Some(ws)) => {
            let dir = ws.cache_dir();
            std::fs::create_dir_all(&dir).map_err(|e| Error::io(&dir, e))?;
            dir.join("report.html")
        }
        // No ledger, no cache folder: beside other temporary files.
        (None, None) => std::env::temp_dir().join(format!("vermas-report-{}.html", report.project)),
    };
    let dir = folder_of(&out)?;
    let root = std::fs::canonicalize(&p.root).unwrap_or_else(|_| p.root.clone());
    let links = links::Links::new(report.links.clone(), &dir, &root);
    let html = page::render(&report, &links).into_string();
    let out = dir.join(out.file_name().unwrap_or_default());
    write_atomic(&out, html.as_bytes())?;
    let url = file_url(&out);
    let specs = report.specs.len();
    let inspected = report.inspections.len();
    if ui.json {
        ui.json(&serde_json::json!({
            "schema_version": 1,
            "path": out,
            "url": url,
            "bytes": html.len(),
            "work": report.overview.work,
            "specs": specs,
            "inspections": inspected,
        }));
    } else {
        outln!(ui, "{url}");
        use vermas_core::text::words::plural;
        eprintln!(
            "vermas report: {}, {}, {} ({} KB)",
            plural(report.overview.work, "work item"),
            plural(specs, "live spec"),
            plural(inspected, "inspection"),
            html.len().div_ceil(1024)
        );
    }
    Ok(0)
}

/// The folder `out` goes into, canonical; refused when `out` is a folder or its folder
/// does not exist.
fn folder_of(out: &Path) -> Result<PathBuf, Error> {
    if out.is_dir() {
        return Err(Error::invalid_with_help(
            format!("cannot write {}: it is a folder", out.display()),
            "--out takes the page's file name, e.g. --out report.html",
        ));
    }
    let parent = out.parent().unwrap_or(Path::new("."));
    std::fs::canonicalize(parent).map_err(|_| {
        Error::Invalid(format!(
            "cannot write {}: folder {} does not exist",
            out.display(),
            parent.display()
        ))
    })
}

/// Writes `bytes` to `path` through a temporary file beside it, so a reader (a browser
/// refreshing) never sees half a page.
fn write_atomic(path: &Path, bytes: &[u8]) -> Result<(), Error> {
    let tmp = path.with_file_name(format!(
        ".{}.{}.tmp",
        path.file_name().unwrap_or_default().to_string_lossy(),
        std::process::id()
    ));
    std::fs::write(&tmp, bytes).map_err(|e| Error::io(&tmp, e))?;
    std::fs::rename(&tmp, path).map_err(|e| {
        let _ = std::fs::remove_file(&tmp);
        Error::io(path, e)
    })
}

/// `file://` and the absolute path, percent-encoded.
fn file_url(path: &Path) -> String {
    format!("file://{}", links::encode(&path.to_string_lossy()))
}

/// The first 12 characters of a commit id.
fn short(commit: &str) -> &str {
    &commit[..commit.len().min(12)]
}
