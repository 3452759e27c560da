//! Mail addresses (see docs/FORMATS.md): `mayor/`, `inspector/`, `inspector/<role>`,
//! `<name>/`, `<rig>/refinery`, `<rig>/<agent>`, and `@group` from config `mail.groups`.

use crate::error::{Error, Result};
use std::collections::BTreeMap;

/// The address forms, as listed in errors.
pub(crate) const FORMS: &str =
    "mayor/, inspector/, inspector/<role>, <name>/, <rig>/refinery, <rig>/<agent>, @<group>";

/// A folder name the mail store keeps for itself inside every mailbox.
pub(crate) const ARCHIVE: &str = "archive";

/// One deliverable address, in its normal spelling (`mayor/`, `inspector/critic`).
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Address(String);

impl Address {
    /// Parses one deliverable address (not a group). `mayor` and `inspector` without
    /// their slash are taken as `mayor/` and `inspector/`; any other single name needs its
    /// slash (`alice/`); a trailing `/` after `<rig>/<agent>` is dropped.
    pub fn parse(text: &str) -> Result<Address> {
        let t = text.trim();
        let bad = |why: &str| {
            Error::invalid_with_help(
                format!("'{text}' is not a mail address: {why}"),
                format!("valid addresses: {FORMS}"),
            )
        };
        if t.starts_with('@') {
            return Err(bad("a group cannot be used here"));
        }
        let trimmed = t.strip_suffix('/').unwrap_or(t);
        let parts: Vec<&str> = trimmed.split('/').collect();
        match parts.as_slice() {
            ["mayor"] => Ok(Address("mayor/".into())),
            ["inspector"] => Ok(Address("inspector/".into())),
            ["mayor", _] => Err(bad("the mayor has a single mailbox, `mayor/`")),
            [rig, agent] => {
                for part in [rig, agent] {
                    check_segment(part).map_err(|why| bad(&why))?;
                }
                Ok(Address(format!("{rig}/{agent}")))
            }
            [""] => Err(bad("it is empty")),
            [name] => match check_segment(name) {
                Ok(()) if t.ends_with('/') => Ok(Address(format!("{name}/"))),
                Ok(()) => Err(bad(&format!(
                    "a plain name has no mailbox; the mailbox of that name is `{name}/`"
                ))),
                Err(why) => Err(bad(&why)),
            },
            _ => Err(bad("it has more than two parts")),
        }
    }

    /// The address as written in messages.
    pub fn as_str(&self) -> &str {
        &self.0
    }

    /// The mailbox folder under `mail/`: the address without its trailing `/`.
    pub fn mailbox(&self) -> &str {
        self.0.strip_suffix('/').unwrap_or(&self.0)
    }

    /// The address whose mailbox folder is `mailbox` (the inverse of [`Address::mailbox`]).
    pub fn of_mailbox(mailbox: &str) -> Result<Address> {
        if mailbox.contains('/') {
            Address::parse(mailbox)
        } else {
            Address::parse(&format!("{mailbox}/"))
        }
    }

    /// The own mailbox of an actor (`--actor`, `VERMAS_ACTOR`, git's `user.name`): the
    /// actor itself when it is an address, else `<actor>/` when it is a valid name, else
    /// one made of it (`New Comer` → `new-comer/`, see [`derived_from_actor`]).
    /// `override_hint` says how to choose a sender instead, for the error.
    pub fn of_actor(actor: &str, override_hint: &str) -> Result<Address> {
        if let Ok(a) = Address::parse(actor) {
            return Ok(a);
        }
        let why = if actor.contains('/') {
            format!("'{actor}' is not a mail address")
        } else {
            match check_segment(actor) {
                Ok(()) => return Address::parse(&format!("{actor}/")),
                Err(why) => match mailbox_name_of(actor) {
                    Some(name) => return Ok(Address(format!("{name}/"))),
                    None => why,
                },
            }
        };
        Err(Error::invalid_with_help(
            format!("the actor '{actor}' is not a valid mailbox name: {why}"),
            format!(
                "{override_hint}, or set this repository's sender with \
                 `vermas config set mail.from ADDR`, or act as another name with \
                 --actor NAME; valid addresses: {FORMS}"
            ),
        ))
    }
}

/// True when [`Address::of_actor`] made the actor's mailbox name up from it (`New Comer`
/// → `new-comer/`) because the actor itself is no valid name: the caller says so.
pub(crate) fn derived_from_actor(actor: &str) -> bool {
    Address::parse(actor).is_err()
        && !actor.contains('/')
        && check_segment(actor).is_err()
        && mailbox_name_of(actor).is_some()
}

/// A valid mailbox name made of `actor` (a git `user.name` such as `New Comer`): lower
/// case, every run of other characters than ASCII letters and digits one `-`.
fn mailbox_name_of(actor: &str) -> Option<String> {
    let mut name = String::new();
    for c in actor.chars() {
        if c.is_ascii_alphanumeric() {
            name.push(c.to_ascii_lowercase());
        } else if !name.is_empty() && !name.ends_with('-') {
            name.push('-');
        }
    }
    name.truncate(64);
    let name = name.trim_end_matches('-').to_string();
    check_segment(&name).is_ok().then_some(name)
}

impl std::fmt::Display for Address {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

/// Why `s` cannot be one part of an address, if it cannot.
fn check_segment(s: &str) -> std::result::Result<(), String> {
    if s.is_empty() {
        return Err("a part is empty".into());
    }
    if s == ARCHIVE {
        return Err(format!("`{ARCHIVE}` is reserved for archived mail"));
    }
    let ok = s.len() <= 64
        && s.chars().next().is_some_and(|c| c.is_ascii_alphanumeric())
        && s.chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.'));
    if ok {
        Ok(())
    } else {
        Err(format!(
            "'{s}' may hold only letters, digits, `-`, `_` and `.`, starting with a letter or digit"
        ))
    }
}

/// Expands `text` (an address or `@group`) into deliverable addresses, appending those not
/// yet in `out`. Groups come from `groups` (config `mail.groups`) and may name other groups.
pub fn expand(
    text: &str,
    groups: &BTreeMap<String, Vec<String>>,
    out: &mut Vec<Address>,
) -> Result<()> {
    expand_in(text, groups, out, &mut Vec::new())
}

fn expand_in(
    text: &str,
    groups: &BTreeMap<String, Vec<String>>,
    out: &mut Vec<Address>,
    stack: &mut Vec<String>,
) -> Result<()> {
    let t = text.trim();
    let Some(name) = t.strip_prefix('@') else {
        let addr = Address::parse(t)?;
        if !out.contains(&addr) {
            out.push(addr);
        }
        return Ok(());
    };
    let Some(members) = groups.get(name) else {
        let known: Vec<String> = groups.keys().map(|g| format!("@{g}")).collect();
        let help = if known.is_empty() {
            "no groups are defined: add them to config `mail.groups`, e.g. \
             `vermas config set mail.groups.reviewers '[\"inspector/critic\", \"mayor/\"]'`"
                .to_string()
        } else {
            format!("groups in config `mail.groups`: {}", known.join(", "))
        };
        return Err(Error::invalid_with_help(
            format!("unknown mail group '{t}'"),
            help,
        ));
    };
    if stack.iter().any(|s| s == name) {
        stack.push(name.to_string());
        return Err(Error::config(format!(
            "mail group loop in config `mail.groups`: @{}",
            stack.join(" -> @")
        )));
    }
    stack.push(name.to_string());
    for member in members {
        expand_in(member, groups, out, stack).map_err(|e| match e {
            Error::InvalidWithHelp { message, help } if !message.contains("mail.groups") => {
                Error::InvalidWithHelp {
                    message: format!("{message} (in config `mail.groups.{name}`)"),
                    help,
                }
            }
            other => other,
        })?;
    }
    stack.pop();
    Ok(())
}

/// Normalises `text` for the `to`/`cc` fields: a group stays `@name` (checked to exist),
/// an address takes its normal spelling.
pub(crate) fn normalise(text: &str, groups: &BTreeMap<String, Vec<String>>) -> Result<String> {
    let t = text.trim();
    if t.starts_with('@') {
        expand(t, groups, &mut Vec::new())?;
        Ok(t.to_string())
    } else {
        Ok(Address::parse(t)?.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn addr(s: &str) -> String {
        Address::parse(s)
            .map(|a| a.0)
            .unwrap_or_else(|e| format!("ERR {e}"))
    }

    #[test]
    fn forms_and_mailboxes() {
        assert_eq!(addr("mayor/"), "mayor/");
        assert_eq!(addr("mayor"), "mayor/");
        assert_eq!(addr("inspector"), "inspector/");
        assert_eq!(addr("inspector/critic"), "inspector/critic");
        assert_eq!(addr("gastown/refinery"), "gastown/refinery");
        assert_eq!(addr("gastown/polecat-1/"), "gastown/polecat-1");
        for bad in [
            "alice",
            "",
            "a/b/c",
            "mayor/x",
            "../x",
            "rig/.hidden",
            "rig/archive",
            "@g",
            "archive/",
            "/",
            "Test User/",
        ] {
            assert!(addr(bad).starts_with("ERR"), "{bad}: {}", addr(bad));
        }
        let a = Address::parse("inspector/critic").unwrap();
        assert_eq!(a.mailbox(), "inspector/critic");
        assert_eq!(Address::parse("mayor/").unwrap().mailbox(), "mayor");
        assert_eq!(Address::of_mailbox("mayor").unwrap().as_str(), "mayor/");
        assert_eq!(addr("alice/"), "alice/");
        assert_eq!(Address::parse("alice/").unwrap().mailbox(), "alice");
        assert_eq!(Address::of_mailbox("alice").unwrap().as_str(), "alice/");
        assert!(addr("alice").contains("`alice/`"), "{}", addr("alice"));
    }

    #[test]
    fn an_actor_has_its_own_mailbox() {
        let own = |s: &str| Address::of_actor(s, "pass --from ADDR").map(|a| a.0);
        assert_eq!(own("alice").unwrap(), "alice/");
        assert_eq!(own("alice/").unwrap(), "alice/");
        assert_eq!(own("inspector").unwrap(), "inspector/");
        assert_eq!(own("gastown/polecat-1").unwrap(), "gastown/polecat-1");
        // A name with a space has a mailbox made from it.
        assert_eq!(own("Test User").unwrap(), "test-user/");
        for bad in ["a/b/c", "mayor/x", "archive", ""] {
            let e = own(bad).unwrap_err().to_string();
            assert!(e.contains("is not a valid mailbox name"), "{bad}: {e}");
        }
    }

    #[test]
    fn groups_expand_nested_without_duplicates() {
        let mut g = BTreeMap::new();
        g.insert(
            "review".to_string(),
            vec!["inspector/critic".to_string(), "@leads".to_string()],
        );
        g.insert(
            "leads".to_string(),
            vec!["mayor/".to_string(), "inspector/critic".to_string()],
        );
        let mut out = Vec::new();
        expand("@review", &g, &mut out).unwrap();
        let got: Vec<&str> = out.iter().map(Address::as_str).collect();
        assert_eq!(got, ["inspector/critic", "mayor/"]);
        let e = expand("@nope", &g, &mut Vec::new()).unwrap_err();
        assert!(e.to_string().contains("unknown mail group"), "{e}");
        g.insert("loop".to_string(), vec!["@loop".to_string()]);
        assert!(expand("@loop", &g, &mut Vec::new()).is_err());
    }
}
