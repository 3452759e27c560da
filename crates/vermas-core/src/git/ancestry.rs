//! Questions about HEAD's history answered in-process: where two histories meet, and the
//! newest commit whose message has a line of some shape. What `git merge-base` and
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

    /// For each of `tests`, the newest commit reachable from HEAD (newest commit time
    /// first, as `git log` shows them) with a message line it holds for; the walk stops
    /// at the first commit the first test holds for (later tests are fallbacks).
    pub fn newest_with_line(&self, tests: &[&dyn Fn(&str) -> bool]) -> Vec<Option<String>> {
        let mut found: Vec<Option<String>> = vec![None; tests.len()];
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
        for info in walk {
            let Ok(info) = info else { break };
            let Ok(commit) = info.object() else { break };
            let message = commit.message_raw_sloppy();
            for (i, test) in tests.iter().enumerate() {
                if found[i].is_none() && message.lines().any(|l| test(&l.to_str_lossy())) {
                    found[i] = Some(commit.id.to_string());
                }
            }
            if found.first().is_some_and(Option::is_some) {
                break;
            }
        }
        found
    }
}
