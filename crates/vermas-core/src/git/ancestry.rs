//! Questions about HEAD's history answered in-process: where two histories meet, and the
//! newest commit vermas made for a record with some verb. What `git merge-base` and
//! `git log -1 --grep` would say, without starting git.

use super::GitRepo;
use gix::bstr::ByteSlice;

impl GitRepo {
    /// The best common ancestor of HEAD and the reference `name` (`main`, `origin/main`,
    /// `origin/HEAD`: the names `git merge-base HEAD NAME` takes), when both resolve.
    pub fn merge_base_with_head(&self, name: &str) -> Option<String> {
        let head = self.repo.head_id().ok()?.detach();
        let mut other = self.repo.find_reference(name).ok()?;
        let other = other.peel_to_id().ok()?.detach();
        let base = self.repo.merge_base(head, other).ok()??;
        Some(base.to_string())
    }

    /// For each of `verbs`, the newest commit reachable from HEAD (newest commit time
    /// first, as `git log` shows them) that vermas made for record `id` with that verb: its
    /// subject is `vermas VERB: ID ...`, it carries the trailer `Vermas-Id: ID`, and it
    /// changed the record's file `path` against its first parent. A commit whose message
    /// only says so (an empty commit titled like it) is not one. The walk stops at the first
    /// commit of the first verb (later verbs are fallbacks).
    pub fn newest_record_commit(
        &self,
        verbs: &[&str],
        id: &str,
        path: &str,
    ) -> Vec<Option<String>> {
        let mut found: Vec<Option<String>> = vec![None; verbs.len()];
        let Ok(head) = self.repo.head_id() else {
            return found;
        };
        let Ok(walk) = self
            .repo
            .rev_walk([head.detach()])
            .sorting(gix::revision::walk::Sorting::ByCommitTime(
                gix::traverse::commit::simple::CommitTimeOrder::NewestFirst,
            ))
            .all()
        else {
            return found;
        };
        let trailer = format!("Vermas-Id: {id}");
        let blob = |commit: &gix::Commit<'_>| {
            commit
                .tree()
                .ok()?
                .lookup_entry_by_path(path)
                .ok()?
                .map(|e| e.object_id())
        };
        for info in walk {
            let Ok(info) = info else { break };
            let Ok(commit) = info.object() else { break };
            let message = commit.message_raw_sloppy().to_str_lossy().into_owned();
            let subject = message.lines().next().unwrap_or("");
            let Some(i) = verbs.iter().position(|verb| {
                subject
                    .strip_prefix(&format!("vermas {verb}: {id}"))
                    .is_some_and(|rest| rest.is_empty() || rest.starts_with(' '))
            }) else {
                continue;
            };
            if found[i].is_some() || !message.lines().any(|l| l.trim() == trailer) {
                continue;
            }
            let before = info
                .parent_ids()
                .next()
                .and_then(|p| p.object().ok())
                .and_then(|p| blob(&p.into_commit()));
            if blob(&commit) == before {
                continue;
            }
            found[i] = Some(commit.id.to_string());
            if found.first().is_some_and(Option::is_some) {
                break;
            }
        }
        found
    }
}
