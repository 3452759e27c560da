//! What the server keeps between messages: the open buffers, the criteria run in this
//! session, and which documents are specs of the workspace.

use super::last::LastRun;
use super::position;
use super::uri;
use lsp_server::Message;
use lsp_types::{TextDocumentContentChangeEvent, Uri};
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use vermas_core::error::Result;
use vermas_core::spec;
use vermas_core::verify::Project;

/// Sends a message to the client (the connection's writer; any thread may use it).
pub type Outbox = Arc<dyn Fn(Message) + Send + Sync>;

/// One open buffer.
#[derive(Debug, Clone)]
struct Buffer {
    text: String,
    version: i32,
}

/// The server's state, shared with the threads that run criteria.
pub struct Server {
    /// The folder the workspace is looked for from (canonical when it exists).
    root: PathBuf,
    /// Open buffers by URI.
    buffers: Mutex<HashMap<Uri, Buffer>>,
    /// Criteria run in this session by `path:line`, newest run each.
    runs: Mutex<HashMap<String, LastRun>>,
    /// Where messages to the client go.
    pub outbox: Outbox,
}

/// A spec document with everything needed to answer about it.
pub struct SpecDoc {
    /// Its URI as the client names it.
    pub uri: Uri,
    /// Repository-relative path, e.g. `specs/login.md`.
    pub rel: String,
    /// The spec's name (its path under the specs folder without `.md`), as records use it.
    pub name: String,
    /// The buffer's text (the file's when it is not open).
    pub text: String,
    /// The buffer's version, when open.
    pub version: Option<i32>,
    /// The repository it belongs to.
    pub project: Project,
}

/// Locks `m`, also after a thread panicked while holding it (the data is plain values).
fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(PoisonError::into_inner)
}

impl Server {
    /// A server for the workspace around `root`.
    pub fn new(root: &Path, outbox: Outbox) -> Server {
        Server {
            root: root.canonicalize().unwrap_or_else(|_| root.to_path_buf()),
            buffers: Mutex::new(HashMap::new()),
            runs: Mutex::new(HashMap::new()),
            outbox,
        }
    }

    /// Sends `msg` to the client.
    pub fn send(&self, msg: impl Into<Message>) {
        (self.outbox)(msg.into());
    }

    /// Keeps the text of a newly opened buffer.
    pub fn open(&self, uri: Uri, text: String, version: i32) {
        lock(&self.buffers).insert(uri, Buffer { text, version });
    }

    /// Applies a client's changes to an open buffer, whole texts or ranged edits in order.
    pub fn change(&self, uri: &Uri, version: i32, changes: Vec<TextDocumentContentChangeEvent>) {
        let mut buffers = lock(&self.buffers);
        let mut text = buffers.get(uri).map(|b| b.text.clone());
        for change in changes {
            text = Some(match (change.range, text) {
                (Some(range), Some(old)) => position::apply_edit(&old, range, &change.text),
                // A whole text, or a ranged change to a buffer never sent: taken as it is
                // (the next whole text or save sets it right).
                _ => change.text,
            });
        }
        if let Some(text) = text {
            buffers.insert(uri.clone(), Buffer { text, version });
        }
    }

    /// Replaces a buffer's text with what was saved, when the client sent it.
    pub fn saved(&self, uri: &Uri, text: Option<String>) {
        if let Some(text) = text {
            let mut buffers = lock(&self.buffers);
            let version = buffers.get(uri).map_or(0, |b| b.version);
            buffers.insert(uri.clone(), Buffer { text, version });
        }
    }

    /// Every open buffer's URI.
    pub fn open_uris(&self) -> Vec<Uri> {
        lock(&self.buffers).keys().cloned().collect()
    }

    /// Forgets a closed buffer.
    pub fn close(&self, uri: &Uri) {
        lock(&self.buffers).remove(uri);
    }

    /// The last run of criterion `key` (`path:line`) in this session.
    pub fn session_run(&self, key: &str) -> Option<LastRun> {
        lock(&self.runs).get(key).cloned()
    }

    /// Keeps the run of criterion `key` (`path:line`).
    pub fn remember_run(&self, key: String, run: LastRun) {
        lock(&self.runs).insert(key, run);
    }

    /// The repository around the server's root.
    pub fn project(&self) -> Result<Project> {
        Project::locate(&self.root)
    }

    /// The spec `uri` names, with its current text: `None` when it is not a spec file under
    /// the workspace's specs folder (or cannot be read); an error when the workspace
    /// itself cannot be read.
    pub fn spec(&self, uri: &Uri) -> Result<Option<SpecDoc>> {
        let Some(path) = uri::to_path(uri) else {
            return Ok(None);
        };
        let project = self.project()?;
        let Some((rel, name)) = spec_location(&project, &path) else {
            return Ok(None);
        };
        let open = lock(&self.buffers).get(uri).cloned();
        let (text, version) = match open {
            Some(b) => (b.text, Some(b.version)),
            None => match std::fs::read_to_string(&path) {
                Ok(text) => (text, None),
                Err(_) => return Ok(None),
            },
        };
        Ok(Some(SpecDoc {
            uri: uri.clone(),
            rel,
            name,
            text,
            version,
            project,
        }))
    }

    /// True when `uri` is a markdown file under the server's root (where a broken
    /// workspace is worth reporting).
    pub fn is_markdown_here(&self, uri: &Uri) -> bool {
        uri::to_path(uri)
            .and_then(|p| real_path(&p))
            .is_some_and(|p| p.starts_with(&self.root) && p.extension().is_some_and(|e| e == "md"))
    }
}

/// `path` with symlinks resolved; for a file not on disk yet, its folder resolved.
fn real_path(path: &Path) -> Option<PathBuf> {
    path.canonicalize().ok().or_else(|| {
        let parent = path.parent()?.canonicalize().ok()?;
        Some(parent.join(path.file_name()?))
    })
}

/// The repository-relative path and spec name of `path`, when it is a spec file under
/// `project`'s specs folder (not a dot-folder, not a README or working file) that stays
/// inside the repository.
pub fn spec_location(project: &Project, path: &Path) -> Option<(String, String)> {
    let root = project
        .root
        .canonicalize()
        .unwrap_or_else(|_| project.root.clone());
    let real = real_path(path)?;
    vermas_core::sys::contain::resolve(&root, &real).ok()?;
    let rel = real.strip_prefix(&root).ok()?.to_str()?.to_string();
    let under = match spec::target::normalise(&project.config.specs.dir) {
        Some(dir) => rel.strip_prefix(&format!("{dir}/"))?.to_string(),
        None => rel.clone(),
    };
    let file = under.rsplit('/').next()?;
    if under.split('/').any(|part| part.starts_with('.')) || !spec::is_spec_file(file) {
        return None;
    }
    let name = under.strip_suffix(".md")?.to_string();
    Some((rel, name))
}
