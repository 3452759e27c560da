//! Where messages live and how they are read: mailbox folders under `.beads/mail/` and
//! `.beads/wisps/mail/`, each with an `archive/` folder, read through an index cache.

use super::address::ARCHIVE;
use super::message::Message;
use crate::error::{Error, Result};
use crate::store::index::{self, Loaded, Snapshot};
use crate::workspace::{Workspace, layout};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// One folder of messages.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Dir {
    /// The folder.
    pub path: PathBuf,
    /// The mailbox it belongs to (`mayor`, `inspector/critic`).
    pub mailbox: String,
    /// True for a mailbox's `archive/` folder.
    pub archived: bool,
    /// True under `.beads/wisps/mail/`: never committed.
    pub ephemeral: bool,
}

impl Dir {
    /// The folder of `mailbox` in `ws`: live or archived, committed or ephemeral.
    pub fn new(ws: &Workspace, mailbox: &str, archived: bool, ephemeral: bool) -> Dir {
        let mut path = root(ws, ephemeral);
        path.extend(mailbox.split('/'));
        if archived {
            path.push(ARCHIVE);
        }
        Dir {
            path,
            mailbox: mailbox.to_string(),
            archived,
            ephemeral,
        }
    }

    /// The file of message `id` in this folder.
    pub fn file(&self, id: &str) -> PathBuf {
        self.path.join(format!("{id}.md"))
    }

    /// The archive folder of the same mailbox.
    pub fn archive(&self, ws: &Workspace) -> Dir {
        Dir::new(ws, &self.mailbox, true, self.ephemeral)
    }

    /// This folder's index in `.beads/.cache/mail/`.
    pub fn index_path(&self, ws: &Workspace) -> PathBuf {
        let rel = self
            .path
            .strip_prefix(&ws.beads_dir)
            .unwrap_or(&self.path)
            .to_string_lossy()
            .replace('/', "~");
        ws.cache_dir().join("mail").join(rel)
    }
}

/// `.beads/mail` or `.beads/wisps/mail`.
pub(crate) fn root(ws: &Workspace, ephemeral: bool) -> PathBuf {
    ws.path(if ephemeral {
        layout::WISP_MAIL
    } else {
        layout::MAIL
    })
}

/// The live (not archived) folders of `mailbox`: committed, then ephemeral.
pub fn live_dirs(ws: &Workspace, mailbox: &str) -> [Dir; 2] {
    [
        Dir::new(ws, mailbox, false, false),
        Dir::new(ws, mailbox, false, true),
    ]
}

/// Every folder that can hold messages, found by walking both mail roots.
pub(crate) fn all_dirs(ws: &Workspace) -> Vec<Dir> {
    let mut out = dirs_under(ws, false);
    out.extend(dirs_under(ws, true));
    out
}

/// The folders that can hold messages under one mail root (`.beads/wisps/mail/` when
/// `ephemeral`), found by walking it.
pub(crate) fn dirs_under(ws: &Workspace, ephemeral: bool) -> Vec<Dir> {
    let mut out = Vec::new();
    let base = root(ws, ephemeral);
    let walk = walkdir::WalkDir::new(&base)
        .min_depth(1)
        .sort_by_file_name()
        .into_iter()
        .filter_entry(|e| {
            e.file_type().is_dir() && !e.file_name().to_string_lossy().starts_with('.')
        });
    for entry in walk.flatten() {
        let Ok(rel) = entry.path().strip_prefix(&base) else {
            continue;
        };
        let mut parts: Vec<String> = rel
            .components()
            .map(|c| c.as_os_str().to_string_lossy().into_owned())
            .collect();
        let archived = parts.last().is_some_and(|p| p == ARCHIVE);
        if archived {
            parts.pop();
        }
        if parts.is_empty() || parts.iter().any(|p| p == ARCHIVE) {
            continue;
        }
        out.push(Dir {
            path: entry.path().to_path_buf(),
            mailbox: parts.join("/"),
            archived,
            ephemeral,
        });
    }
    out
}

/// Reads and parses one message file of `dir`; refused when the folder or the file is a
/// symlink leading outside the repository.
pub(crate) fn read_message(ws: &Workspace, dir: &Dir, path: &Path) -> Result<Message> {
    ws.contain(&dir.path)?;
    read_in_checked(ws, dir, path)
}

/// [`read_message`] for a folder already checked (the parse step of [`load_dir`]).
fn read_in_checked(ws: &Workspace, dir: &Dir, path: &Path) -> Result<Message> {
    let text = ws.read_record(path)?;
    let mut msg = Message::parse(&text, &ws.display(path))?;
    crate::store::frontmatter::check_file_name(&ws.display(path), &text, path, &msg.id)?;
    place(&mut msg, dir);
    Ok(msg)
}

/// Sets the fields a message takes from its folder.
fn place(msg: &mut Message, dir: &Dir) {
    msg.mailbox.clone_from(&dir.mailbox);
    msg.archived = dir.archived;
    msg.ephemeral = dir.ephemeral;
}

/// Every message of `dir` (through its index), plus the files that did not parse; refused
/// when the folder is reached through a symlink leading outside the repository.
pub(crate) fn load_dir(ws: &Workspace, dir: &Dir) -> Result<Loaded<Message>> {
    ws.contain(&dir.path)?;
    let mut loaded =
        index::load::<Message>(&dir.path, &dir.index_path(ws), &ws.cache_dir(), |path| {
            read_in_checked(ws, dir, path)
        })?;
    for msg in &mut loaded.records {
        place(msg, dir);
    }
    Ok(loaded)
}

/// The current messages of `dir` as index lines and parsed files (see
/// [`crate::mail::index::Entry`]).
pub(crate) fn snapshot_dir(ws: &Workspace, dir: &Dir) -> Result<Snapshot<Message>> {
    ws.contain(&dir.path)?;
    index::snapshot::<Message>(&dir.path, &dir.index_path(ws), &ws.cache_dir(), |path| {
        read_in_checked(ws, dir, path)
    })
}

/// Every message of every folder.
pub(crate) fn load_all(ws: &Workspace) -> Result<Loaded<Message>> {
    let mut all = Loaded::default();
    for dir in all_dirs(ws) {
        let loaded = load_dir(ws, &dir)?;
        all.records.extend(loaded.records);
        all.broken.extend(loaded.broken);
    }
    Ok(all)
}

/// Reads the full body of messages loaded from the index without it.
pub fn complete(ws: &Workspace, msgs: &mut [Message]) -> Result<()> {
    for msg in msgs.iter_mut().filter(|m| m.partial) {
        let dir = Dir::new(ws, &msg.mailbox, msg.archived, msg.ephemeral);
        *msg = read_message(ws, &dir, &dir.file(&msg.id))?;
    }
    Ok(())
}

/// The ids (file names) of every message in `dirs`, without parsing anything.
pub(crate) fn ids_in(dirs: &[Dir]) -> Vec<(String, usize)> {
    let mut out = Vec::new();
    for (i, dir) in dirs.iter().enumerate() {
        let Ok(rd) = std::fs::read_dir(&dir.path) else {
            continue;
        };
        for e in rd.flatten() {
            let name = e.file_name();
            if let Some(id) = name.to_str().and_then(|n| n.strip_suffix(".md"))
                && !id.starts_with('.')
            {
                out.push((id.to_string(), i));
            }
        }
    }
    out
}

/// A message file found by id.
#[derive(Debug, Clone)]
pub(crate) struct Located {
    /// The full id.
    pub id: String,
    /// Its folder.
    pub dir: Dir,
}

impl Located {
    /// The message file.
    pub(crate) fn path(&self) -> PathBuf {
        self.dir.file(&self.id)
    }

    /// Reads and parses it.
    pub(crate) fn read(&self, ws: &Workspace) -> Result<Message> {
        read_message(ws, &self.dir, &self.path())
    }
}

/// Finds message `query`: an exact id, else a unique prefix of an id or of its part after
/// `msg-`.
pub(crate) fn find(ws: &Workspace, query: &str) -> Result<Located> {
    let dirs = all_dirs(ws);
    let q = query.trim();
    if crate::store::id::is_valid(q) {
        let hits: Vec<&Dir> = dirs.iter().filter(|d| d.file(q).is_file()).collect();
        if let [one] = hits.as_slice() {
            return Ok(Located {
                id: q.to_string(),
                dir: (*one).clone(),
            });
        }
        if hits.len() > 1 {
            return Err(duplicate(ws, q, &hits));
        }
    }
    let ids = ids_in(&dirs);
    let mut found: BTreeMap<&str, Vec<usize>> = BTreeMap::new();
    for (id, i) in &ids {
        if !q.is_empty() && id.starts_with(q) {
            found.entry(id).or_default().push(*i);
        }
    }
    if found.is_empty() && !q.is_empty() {
        for (id, i) in &ids {
            if id.split_once('-').is_some_and(|(_, h)| h.starts_with(q)) {
                found.entry(id).or_default().push(*i);
            }
        }
    }
    let mut found = found.into_iter();
    match (found.next(), found.next()) {
        (None, _) => Err(Error::NoMessage(query.to_string())),
        (Some((id, places)), None) => {
            if let [one] = places.as_slice() {
                Ok(Located {
                    id: id.to_string(),
                    dir: dirs[*one].clone(),
                })
            } else {
                let hits: Vec<&Dir> = places.iter().map(|i| &dirs[*i]).collect();
                Err(duplicate(ws, id, &hits))
            }
        }
        (Some((a, _)), Some((b, _))) => {
            let mut candidates = vec![a.to_string(), b.to_string()];
            candidates.extend(found.map(|(id, _)| id.to_string()));
            Err(Error::Ambiguous {
                prefix: query.to_string(),
                candidates,
            })
        }
    }
}

/// The error for one id stored in several folders.
fn duplicate(ws: &Workspace, id: &str, dirs: &[&Dir]) -> Error {
    let files: Vec<String> = dirs.iter().map(|d| ws.display(&d.file(id))).collect();
    Error::invalid_with_help(
        format!(
            "message {id} is stored more than once: {}",
            files.join(", ")
        ),
        "remove the copies that should not be there",
    )
}
