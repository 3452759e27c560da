//! A rebuildable index of parsed beads in `.beads/.cache/index` (see [`crate::store::index`]).
//!
//! Entries leave out descriptions and notes (most of the bytes); such beads are marked
//! `partial` and completed from their files when a command shows them.

use super::model::{Bead, Dependency};
use super::store::{BeadSet, read_bead};
use crate::error::Result;
use crate::store::index::{
    self, Indexed, PART, choice, esc, esc_list, esc_opt, unesc, unesc_list, unesc_opt,
};
use crate::time::Timestamp;
use crate::workspace::Workspace;

/// Loads every bead, parsing only the files the index does not already hold.
pub fn load_all(ws: &Workspace) -> Result<BeadSet> {
    let cache_dir = ws.cache_dir();
    let loaded = index::load::<Bead>(
        &ws.issues_dir(),
        &cache_dir.join("index"),
        &cache_dir,
        |path| read_bead(ws, path),
    )?;
    let mut set = BeadSet {
        broken: loaded.broken,
        ..BeadSet::default()
    };
    for bead in loaded.records {
        set.beads.insert(bead.id.clone(), bead);
    }
    Ok(set)
}

impl Indexed for Bead {
    const HEADER: &'static str = "vermas-index 3";

    fn encode(&self, out: &mut String) {
        let b = self;
        let partial = b.partial
            || !b.description.is_empty()
            || !b.notes.is_empty()
            || !b.acceptance_criteria.is_empty();
        let time = |t: &Option<Timestamp>| t.map_or(String::new(), |t| t.0.to_string());
        let deps: Vec<String> = b
            .dependencies
            .iter()
            .map(|d| format!("{}{PART}{}", esc(&d.depends_on_id), d.dep_type))
            .collect();
        let fields = [
            u8::from(partial).to_string(),
            esc(&b.title),
            b.status.to_string(),
            b.priority.to_string(),
            b.issue_type.to_string(),
            esc_list(&b.labels),
            esc_opt(b.assignee.as_deref()),
            time(&b.created_at),
            esc_opt(b.created_by.as_deref()),
            time(&b.updated_at),
            time(&b.closed_at),
            esc_opt(b.close_reason.as_deref()),
            esc_opt(b.parent.as_deref()),
            esc_opt(b.spec.as_deref()),
            // Dependency items are already escaped part by part.
            deps.join(&index::ITEM.to_string()),
        ];
        out.push_str(&fields.join("\t"));
    }

    fn decode(id: &str, rest: &str) -> Option<Bead> {
        let f: Vec<&str> = rest.split('\t').collect();
        if f.len() != 15 {
            return None;
        }
        let time = |s: &str| -> Option<Option<Timestamp>> {
            if s.is_empty() {
                Some(None)
            } else {
                s.parse().ok().map(|n| Some(Timestamp(n)))
            }
        };
        let mut b = Bead::new(unesc(id), unesc(f[1]));
        b.partial = f[0] == "1";
        b.status = choice(f[2])?;
        b.priority = f[3].parse().ok()?;
        b.issue_type = choice(f[4])?;
        b.labels = unesc_list(f[5]);
        b.assignee = unesc_opt(f[6]);
        b.created_at = time(f[7])?;
        b.created_by = unesc_opt(f[8]);
        b.updated_at = time(f[9])?;
        b.closed_at = time(f[10])?;
        b.close_reason = unesc_opt(f[11]);
        b.parent = unesc_opt(f[12]);
        b.spec = unesc_opt(f[13]);
        for item in f[14].split(index::ITEM).filter(|s| !s.is_empty()) {
            let (target, kind) = item.split_once(PART)?;
            b.dependencies.push(Dependency {
                depends_on_id: unesc(target),
                dep_type: choice(kind)?,
            });
        }
        Some(b)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bead::model::{DepType, Status};
    use crate::store::index::{FileStamp, decode_index, encode_line};

    #[test]
    fn lines_round_trip() {
        let mut b = Bead::new(
            "vm-1".into(),
            "Tab\there, newline\nthere \\ and \u{1f}".into(),
        );
        b.status = Status::InProgress;
        b.labels = vec!["a:b".into(), "c".into()];
        b.assignee = Some(String::new());
        b.created_at = Some(Timestamp(1_700_000_000));
        b.dependencies.push(Dependency {
            depends_on_id: "vm-2".into(),
            dep_type: DepType::DiscoveredFrom,
        });
        let stamp = FileStamp {
            size: 1,
            mtime_ns: 2,
            ctime_ns: 3,
            ino: 4,
        };
        let mut text = format!("{}\n", Bead::HEADER);
        encode_line(&mut text, &b.id, stamp, &b);
        let index = decode_index(&text, Bead::HEADER);
        let (s, rest) = index["vm-1"];
        assert_eq!(s, stamp);
        assert_eq!(Bead::decode("vm-1", rest).unwrap(), b);
        assert!(decode_index("other header\n", Bead::HEADER).is_empty());
    }
}
