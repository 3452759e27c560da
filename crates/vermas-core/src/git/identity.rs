//! Who a commit is by and when: the author and committer from git's configuration (or
//! vermas's `git.author`), and the time now with the local offset, as git finds them.

use crate::error::{Error, Result};

/// The author and committer of a commit: the author is `git.author` (`configured`), else
/// git's author identity; the committer is git's committer identity, else `git.author`.
/// Refused, as git refuses, when either is unknown.
pub(super) fn identity(
    repo: &gix::Repository,
    configured: Option<&str>,
) -> Result<(gix::actor::Signature, gix::actor::Signature)> {
    let now = now_local();
    let configured = match configured {
        Some(text) => {
            let (name, email) = parse_identity(text).ok_or_else(|| {
                Error::config(format!(
                    "git.author '{text}' must look like 'Name <email@example.com>'"
                ))
            })?;
            Some(gix::actor::Signature {
                name: name.into(),
                email: email.into(),
                time: now,
            })
        }
        None => None,
    };
    let from_git = |role: Role| {
        persona(repo, role).map(|(name, email)| gix::actor::Signature {
            name,
            email,
            time: now,
        })
    };
    let author = configured.clone().or_else(|| from_git(Role::Author));
    let committer = from_git(Role::Committer).or(configured);
    match (author, committer) {
        (Some(a), Some(c)) => Ok((a, c)),
        (a, _) => Err(Error::invalid_with_help(
            format!(
                "{} identity unknown: git has no user.name and user.email to commit as \
                 (nor GIT_{}_NAME and GIT_{}_EMAIL), and git.author is not set",
                if a.is_none() { "author" } else { "committer" },
                if a.is_none() { "AUTHOR" } else { "COMMITTER" },
                if a.is_none() { "AUTHOR" } else { "COMMITTER" },
            ),
            "tell git who you are:\n  git config --global user.name \"Your Name\"\n  \
             git config --global user.email \"you@example.com\"\nor give vermas an author: \
             `vermas config set git.author \"Your Name <you@example.com>\"`",
        )),
    }
}

/// Whose identity git's configuration is asked for.
#[derive(Clone, Copy)]
enum Role {
    /// `author.*`, then `user.*`, then gitoxide's author fallbacks.
    Author,
    /// `committer.*`, then `user.*`, then gitoxide's committer fallbacks.
    Committer,
}

/// The name and email git's configuration (and `GIT_AUTHOR_*`/`GIT_COMMITTER_*`, `EMAIL`)
/// give `role`, looked up in the order gix's `author()`/`committer()` do. Read here because
/// those also work out the time of day through jiff's zone database, which lists every
/// folder of it (about 100 system calls); vermas sets the time itself.
fn persona(repo: &gix::Repository, role: Role) -> Option<(gix::bstr::BString, gix::bstr::BString)> {
    use gix::config::tree::{Author, Committer, User, gitoxide};
    let config = repo.config_snapshot();
    let (name, email, name_fallback, email_fallback) = match role {
        Role::Author => (
            Author::NAME,
            Author::EMAIL,
            gitoxide::Author::NAME_FALLBACK,
            gitoxide::Author::EMAIL_FALLBACK,
        ),
        Role::Committer => (
            Committer::NAME,
            Committer::EMAIL,
            gitoxide::Committer::NAME_FALLBACK,
            gitoxide::Committer::EMAIL_FALLBACK,
        ),
    };
    let name = config
        .string(name)
        .or_else(|| config.string(User::NAME))
        .or_else(|| config.string(name_fallback))?;
    let email = config
        .string(email)
        .or_else(|| config.string(User::EMAIL))
        .or_else(|| config.string(gitoxide::User::EMAIL_FALLBACK))
        .or_else(|| config.string(email_fallback))?;
    Some((name, email))
}

/// The time now with the local offset from UTC, as git finds it (the C library's
/// `localtime_r`: `TZ`, else `/etc/localtime`). gix's own `now_local_or_utc` asks jiff,
/// which lists every folder of the zone database before it answers (about 100 system
/// calls per commit).
fn now_local() -> gix::date::Time {
    let seconds = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs() as i64);
    // time_t is 64 bits wide on every target vermas is built for.
    let t = seconds as libc::time_t;
    // SAFETY: `tm` is plain data that localtime_r fills; both pointers are valid for the
    // call, and vermas changes its environment only in `main`, before any thread starts.
    let offset = unsafe {
        let mut tm: libc::tm = std::mem::zeroed();
        if libc::localtime_r(&t, &mut tm).is_null() {
            return gix::date::Time::now_local_or_utc();
        }
        tm.tm_gmtoff
    };
    gix::date::Time {
        seconds,
        offset: i32::try_from(offset).unwrap_or(0),
    }
}

/// Splits `Name <email>` into its parts.
fn parse_identity(text: &str) -> Option<(String, String)> {
    let open = text.find('<')?;
    let close = text.rfind('>')?;
    let name = text[..open].trim();
    let email = text[open + 1..close].trim();
    (close > open && !name.is_empty() && !email.is_empty())
        .then(|| (name.to_string(), email.to_string()))
}

impl super::GitRepo {
    /// Who a commit made here now is by, as `Name <email>`: git's committer identity, else
    /// `configured` (`git.author`); `None` when neither is known.
    pub fn committer(&self, configured: Option<&str>) -> Option<String> {
        let (_, c) = identity(&self.repo, configured).ok()?;
        Some(format!("{} <{}>", c.name, c.email))
    }
}
