//! The designer: a short, vague request turned into requirements (functional,
//! non-functional, constraints, examples) by the `designer` LLM role. Its JSON reply is read
//! and checked here; people see and edit the requirements as markdown, which becomes the
//! work's description in one commit.

use crate::bead::model::{Bead, IssueType};
use crate::bead::ops::NewBead;
use crate::bead::store::{bead_path, load_one};
use crate::error::{Error, ParseError, Result};
use crate::inspect::roles::{self, Role};
use crate::inspect::testspec::create_in;
use crate::store::{CommitMessage, Recorded, Txn};
use crate::time::Timestamp;
use crate::workspace::Workspace;
use serde::{Deserialize, Serialize};

/// Longest title the designer may propose, in characters.
pub(crate) const MAX_TITLE: usize = 100;

/// The sections of the requirements: JSON key, markdown heading.
const SECTIONS: [(&str, &str); 4] = [
    ("functional", "Functional"),
    ("non_functional", "Non-functional"),
    ("constraints", "Constraints"),
    ("examples", "Examples"),
];

/// What a piece of work must do, as the designer proposed it and a person approved it.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Requirements {
    /// A short title for new work (unused when the work exists).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// What it must do (at least one).
    pub functional: Vec<String>,
    /// How well: speed, quality, style.
    #[serde(default)]
    pub non_functional: Vec<String>,
    /// What it must not do.
    #[serde(default)]
    pub constraints: Vec<String>,
    /// Concrete inputs and outputs.
    #[serde(default)]
    pub examples: Vec<String>,
}

impl Requirements {
    /// The items of the section with JSON key `key`.
    fn section_mut(&mut self, key: &str) -> &mut Vec<String> {
        match key {
            "functional" => &mut self.functional,
            "non_functional" => &mut self.non_functional,
            "constraints" => &mut self.constraints,
            _ => &mut self.examples,
        }
    }

    /// The items of the section with JSON key `key`.
    fn section(&self, key: &str) -> &[String] {
        match key {
            "functional" => &self.functional,
            "non_functional" => &self.non_functional,
            "constraints" => &self.constraints,
            _ => &self.examples,
        }
    }
}

/// What the designer is asked about.
#[derive(Debug, Clone)]
pub struct DesignInput {
    /// The request as the person put it.
    pub request: String,
    /// The work whose description the requirements will replace, if any.
    pub work: Option<Bead>,
}

/// A person's answer to a proposal: what they were shown and what to change.
#[derive(Debug, Clone)]
pub struct Revision {
    /// The proposal as shown.
    pub previous: String,
    /// What the person wants different.
    pub feedback: String,
}

impl Revision {
    /// The part of a prompt that shows the earlier proposal and asks for the feedback.
    pub fn prompt_section(&self) -> String {
        format!(
            "\nPREVIOUS PROPOSAL\n{}\n\nFEEDBACK FROM A PERSON\n{}\nRevise the proposal so it follows the feedback.\n",
            self.previous.trim(),
            self.feedback.trim()
        )
    }
}

impl DesignInput {
    /// The request for `bead` (id or prefix; its description will be replaced), or for new
    /// work. Refused when the request is empty or the bead cannot carry requirements.
    pub fn new(ws: &Workspace, request: &str, bead: Option<&str>) -> Result<DesignInput> {
        let request = request.trim();
        if request.is_empty() {
            return Err(Error::Invalid(
                "the request is empty: say what you want built".into(),
            ));
        }
        let work = bead.map(|id| load_one(ws, id)).transpose()?;
        if let Some(w) = &work
            && matches!(w.issue_type, IssueType::TestSpec | IssueType::Message)
        {
            return Err(Error::Invalid(format!(
                "{} is a {}: requirements belong on the work itself",
                w.id, w.issue_type
            )));
        }
        Ok(DesignInput {
            request: request.to_string(),
            work,
        })
    }

    /// True when a new bead will be created (so the text carries its title).
    pub fn creates(&self) -> bool {
        self.work.is_none()
    }
}

/// Asks the designer (with `llm.retries` new asks for a reply that does not parse).
pub fn propose(
    ws: &Workspace,
    input: &DesignInput,
    revision: Option<&Revision>,
) -> Result<Requirements> {
    let mut reqs = roles::ask_checked(ws, Role::Designer, &task(input, revision), parse_reply)?;
    if !input.creates() {
        reqs.title = None;
    } else if reqs.title.is_none() {
        reqs.title = Some(title_from(&input.request));
    }
    Ok(reqs)
}

/// The designer's task: the request, the work it is for, a person's feedback, and the reply
/// format.
pub(crate) fn task(input: &DesignInput, revision: Option<&Revision>) -> String {
    let mut t = format!("REQUEST\n{}\n", input.request);
    if let Some(w) = &input.work {
        t.push_str(&format!(
            "\nWORK {} ({}): {}\nThe requirements will replace its description, which is now:\n{}\n",
            w.id,
            w.issue_type,
            w.title,
            if w.description.trim().is_empty() {
                "(empty)"
            } else {
                w.description.trim()
            }
        ));
    }
    if let Some(r) = revision {
        t.push_str(&r.prompt_section());
    }
    t.push_str(
        "\nAnswer with one JSON object and nothing else:\n\
         {\"title\": \"...\", \"functional\": [\"...\"], \"non_functional\": [\"...\"], \
         \"constraints\": [\"...\"], \"examples\": [\"...\"]}\n\
         title: a short title for the work (one line). functional: what it must do (at least \
         one item). non_functional: speed, quality, style. constraints: what it must not do. \
         examples: concrete input and output. Every item is one string.\n",
    );
    t
}

/// Reads the designer's reply: one JSON object (alone, in a ```json fence, or amid prose)
/// with the keys of [`Requirements`]; says what is wrong otherwise.
pub(crate) fn parse_reply(reply: &str) -> std::result::Result<Requirements, String> {
    let value = json_in(reply, '{', '}')?;
    let obj = value
        .as_object()
        .ok_or("the reply's JSON is not an object")?;
    let mut reqs = Requirements::default();
    for (key, v) in obj {
        match key.as_str() {
            "title" => reqs.title = title_of(v)?,
            k if SECTIONS.iter().any(|(s, _)| *s == k) => {
                *reqs.section_mut(k) = items(k, v)?;
            }
            other => {
                return Err(format!(
                    "unknown key '{other}': the keys are title, functional, non_functional, \
                     constraints and examples"
                ));
            }
        }
    }
    if reqs.functional.is_empty() {
        return Err("\"functional\" must list at least one requirement".into());
    }
    Ok(reqs)
}

/// The JSON value between the first `open` and the last `close` of `reply` (a fenced block
/// or the whole reply first).
pub(crate) fn json_in(
    reply: &str,
    open: char,
    close: char,
) -> std::result::Result<serde_json::Value, String> {
    let text = reply.trim();
    if let Ok(v) = serde_json::from_str(text) {
        return Ok(v);
    }
    let fenced = text
        .split_once("```")
        .and_then(|(_, rest)| rest.split_once("```"))
        .map(|(inside, _)| inside.trim_start_matches("json").trim());
    if let Some(inside) = fenced
        && let Ok(v) = serde_json::from_str(inside)
    {
        return Ok(v);
    }
    let (Some(start), Some(end)) = (text.find(open), text.rfind(close)) else {
        return Err(format!(
            "the reply holds no JSON {}; it began: {}",
            if open == '{' { "object" } else { "array" },
            crate::judge::verdict::tail(&text.chars().take(200).collect::<String>(), 200)
        ));
    };
    if end < start {
        return Err("the reply's JSON is cut short".into());
    }
    serde_json::from_str(&text[start..=end])
        .map_err(|e| format!("the reply's JSON does not parse: {e}"))
}

/// The proposed title: one line of at most [`MAX_TITLE`] characters.
fn title_of(v: &serde_json::Value) -> std::result::Result<Option<String>, String> {
    let Some(t) = v.as_str() else {
        return Err("\"title\" must be a string".into());
    };
    let t = t.trim();
    if t.is_empty() {
        return Ok(None);
    }
    crate::bead::model::check_single_line("title", t)?;
    if t.chars().count() > MAX_TITLE {
        return Err(format!(
            "the title is {} characters long; keep it under {MAX_TITLE}",
            t.chars().count()
        ));
    }
    Ok(Some(t.to_string()))
}

/// The items of section `key`: non-empty strings (an example may be `{input, output}`).
fn items(key: &str, v: &serde_json::Value) -> std::result::Result<Vec<String>, String> {
    let list = v
        .as_array()
        .ok_or_else(|| format!("\"{key}\" must be a list of strings"))?;
    let mut out = Vec::new();
    for (i, item) in list.iter().enumerate() {
        let text = match item {
            serde_json::Value::String(s) => s.trim().to_string(),
            serde_json::Value::Object(o) if key == "examples" => {
                match (o.get("input"), o.get("output")) {
                    (Some(i), Some(o)) => format!("{} → {}", plain(i), plain(o)),
                    _ => String::new(),
                }
            }
            _ => String::new(),
        };
        if text.is_empty() {
            return Err(format!(
                "\"{key}\"[{i}] must be a non-empty string, not {item}"
            ));
        }
        out.push(text);
    }
    Ok(out)
}

/// A JSON value as text: a string without its quotes, anything else as JSON.
fn plain(v: &serde_json::Value) -> String {
    v.as_str().map_or_else(|| v.to_string(), str::to_string)
}

/// A title from the request itself: its first line, cut to 80 characters.
pub(crate) fn title_from(request: &str) -> String {
    let line = request.lines().next().unwrap_or("").trim();
    let cut: String = line.chars().take(80).collect();
    cut.trim_end().to_string()
}

/// The requirements as the markdown of a bead's description: a `## ` heading per section
/// that has items, one `- ` item each (further lines of an item indented two spaces).
pub(crate) fn to_markdown(reqs: &Requirements) -> String {
    let mut out = String::new();
    for (key, heading) in SECTIONS {
        let items = reqs.section(key);
        if items.is_empty() {
            continue;
        }
        if !out.is_empty() {
            out.push('\n');
        }
        out.push_str(&format!("## {heading}\n"));
        for item in items {
            out.push_str(&format!("- {}\n", item.replace('\n', "\n  ")));
        }
    }
    out
}

/// The text a person approves or edits: `# title` first when new work is created, then
/// [`to_markdown`].
pub fn to_text(reqs: &Requirements) -> String {
    match &reqs.title {
        Some(t) => format!("# {t}\n\n{}", to_markdown(reqs)),
        None => to_markdown(reqs),
    }
}

/// Reads requirements back from text a person edited (the layout of [`to_text`]); a
/// problem points at its line. `with_title`: the text must open with `# title`.
pub fn parse_text(text: &str, with_title: bool) -> Result<Requirements> {
    let at = |line: usize, msg: String| -> Error {
        ParseError::at("requirements", text, line, 1, msg)
            .with_help(
                "sections: ## Functional (at least one item), ## Non-functional, \
                 ## Constraints, ## Examples; one `- ` item per requirement",
            )
            .into()
    };
    let mut reqs = Requirements::default();
    let mut section: Option<&str> = None;
    let mut seen: Vec<&str> = Vec::new();
    for (n, raw) in text.lines().enumerate() {
        let line_no = n + 1;
        let line = raw.trim_end();
        if line.trim().is_empty() || line.trim_start().starts_with("<!--") {
            continue;
        }
        if let Some(title) = line.strip_prefix("# ") {
            if !with_title {
                return Err(at(
                    line_no,
                    "a `# ` title line is only for new work; the bead keeps its title".into(),
                ));
            }
            if reqs.title.is_some() || section.is_some() {
                return Err(at(line_no, "the `# ` title must be the first line".into()));
            }
            let t = title_of(&serde_json::Value::String(title.to_string()))
                .map_err(|m| at(line_no, m))?;
            reqs.title = Some(t.ok_or_else(|| at(line_no, "the title is empty".into()))?);
        } else if let Some(heading) = line.strip_prefix("## ") {
            let key = section_key(heading).ok_or_else(|| {
                at(
                    line_no,
                    format!(
                        "unknown section '{}': the sections are Functional, Non-functional, \
                         Constraints and Examples",
                        heading.trim()
                    ),
                )
            })?;
            if seen.contains(&key) {
                return Err(at(
                    line_no,
                    format!("section '{}' appears twice", heading.trim()),
                ));
            }
            seen.push(key);
            section = Some(key);
        } else if let Some(item) = line.strip_prefix("- ").or_else(|| line.strip_prefix("* ")) {
            let key = section
                .ok_or_else(|| at(line_no, "an item before any `## ` section heading".into()))?;
            if item.trim().is_empty() {
                return Err(at(line_no, "an empty item".into()));
            }
            reqs.section_mut(key).push(item.trim().to_string());
        } else if let Some(more) = line.strip_prefix("  ")
            && let Some(last) = section.and_then(|k| reqs.section_mut(k).last_mut())
        {
            last.push('\n');
            last.push_str(more);
        } else {
            return Err(at(
                line_no,
                "expected a `- ` item, a `## ` section heading or a blank line".into(),
            ));
        }
    }
    if with_title && reqs.title.is_none() {
        return Err(at(
            1,
            "the text must open with the work's title: `# Title`".into(),
        ));
    }
    if reqs.functional.is_empty() {
        return Err(at(
            text.lines().count().max(1),
            "no functional requirement: add at least one `- ` item under ## Functional".into(),
        ));
    }
    Ok(reqs)
}

/// The JSON key of a `## ` heading (any case; `Non-functional`, `Non functional`,
/// `non_functional` alike).
fn section_key(heading: &str) -> Option<&'static str> {
    let norm: String = heading
        .trim()
        .to_ascii_lowercase()
        .chars()
        .filter(|c| c.is_ascii_alphanumeric())
        .collect();
    SECTIONS
        .iter()
        .map(|(k, _)| *k)
        .find(|k| k.replace('_', "") == norm)
}

/// What `record` wrote.
#[derive(Debug, Clone)]
pub struct Designed {
    /// The work with its new description.
    pub work: Bead,
    /// Its test spec, when one was created with it.
    pub spec: Option<Bead>,
    /// The commit.
    pub recorded: Recorded,
}

/// Writes approved requirements, in one commit: as the description of `input.work`, or
/// as a new feature bead (with its test spec, as `create` makes one).
pub fn record(
    ws: &Workspace,
    actor: &str,
    input: &DesignInput,
    reqs: &Requirements,
) -> Result<Designed> {
    let mut txn = Txn::begin(ws)?;
    let (beads, msg) = match &input.work {
        Some(w) => {
            // Read again under the lock: it may have changed while a person read.
            let mut work = load_one(ws, &w.id)?;
            work.description = to_markdown(reqs).trim_end().to_string();
            work.updated_at = Some(Timestamp::now());
            txn.write(&bead_path(ws, &work.id), work.render().as_bytes())?;
            let msg = CommitMessage {
                verb: "design".into(),
                ids: vec![work.id.clone()],
                title: work.title.clone(),
                actor: actor.to_string(),
            };
            (vec![work], msg)
        }
        None => create_new_in(&mut txn, ws, actor, input, reqs)?,
    };
    let recorded = txn.commit(&msg)?;
    let mut beads = beads.into_iter();
    let work = beads
        .next()
        .ok_or_else(|| Error::Invalid("nothing was written".into()))?;
    Ok(Designed {
        work,
        spec: beads.next(),
        recorded,
    })
}

/// Writes a new feature bead carrying `reqs` (and its test spec) into `txn`; returns the
/// beads written, the work first, and the commit message (verb `design`).
pub(crate) fn create_new_in(
    txn: &mut Txn<'_>,
    ws: &Workspace,
    actor: &str,
    input: &DesignInput,
    reqs: &Requirements,
) -> Result<(Vec<Bead>, CommitMessage)> {
    let title = reqs
        .title
        .clone()
        .unwrap_or_else(|| title_from(&input.request));
    let new = NewBead {
        title,
        issue_type: IssueType::Feature,
        priority: 2,
        description: to_markdown(reqs),
        ..NewBead::default()
    };
    let (beads, mut msg) = create_in(txn, ws, actor, new)?;
    msg.verb = "design".into();
    Ok((beads, msg))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample() -> Requirements {
        Requirements {
            title: Some("FizzBuzz".into()),
            functional: vec!["prints 1 to n".into(), "15 prints FizzBuzz".into()],
            non_functional: vec![],
            constraints: vec!["no network".into()],
            examples: vec!["input:\n3".into()],
        }
    }

    #[test]
    fn reads_json_alone_fenced_or_amid_prose() {
        let json = r#"{"title": "FizzBuzz", "functional": ["prints 1 to n"], "examples": [{"input": "3", "output": "Fizz"}]}"#;
        for reply in [
            json.to_string(),
            format!("Here you go:\n```json\n{json}\n```\n"),
            format!("Sure. {json} Hope it helps."),
        ] {
            let r = parse_reply(&reply).unwrap();
            assert_eq!(r.title.as_deref(), Some("FizzBuzz"));
            assert_eq!(r.examples, ["3 → Fizz"]);
        }
    }

    #[test]
    fn refuses_replies_it_cannot_use_and_says_why() {
        for (reply, why) in [
            (
                "I would rather talk about the weather.",
                "holds no JSON object",
            ),
            (r#"{"functional": []}"#, "at least one requirement"),
            (
                r#"{"functional": ["a"], "extra": 1}"#,
                "unknown key 'extra'",
            ),
            (
                r#"{"functional": [3]}"#,
                "\"functional\"[0] must be a non-empty string",
            ),
            (r#"{"functional": "a"}"#, "must be a list of strings"),
            (r#"{"functional": ["a"], "title": "a\nb"}"#, "single line"),
            (r#"["a"]"#, "not an object"),
        ] {
            let e = parse_reply(reply).unwrap_err();
            assert!(e.contains(why), "{reply}: {e}");
        }
    }

    #[test]
    fn text_round_trips_and_edits_are_checked_by_line() {
        let r = sample();
        let text = to_text(&r);
        assert!(
            text.starts_with("# FizzBuzz\n\n## Functional\n- prints 1 to n\n"),
            "{text}"
        );
        assert!(!text.contains("Non-functional"), "{text}");
        assert!(text.contains("- input:\n  3\n"), "{text}");
        assert_eq!(parse_text(&text, true).unwrap(), r);
        let mut plain = r.clone();
        plain.title = None;
        assert_eq!(parse_text(&to_text(&plain), false).unwrap(), plain);

        let e = parse_text("# T\n\n## Functional\n- a\n## Wishes\n- b\n", true).unwrap_err();
        assert!(
            e.to_string()
                .starts_with("requirements:5:1: unknown section 'Wishes'"),
            "{e}"
        );
        let e = parse_text("# T\n\n## Constraints\n- a\n", true).unwrap_err();
        assert!(e.to_string().contains("no functional requirement"), "{e}");
        let e = parse_text("## Functional\n- a\n", true).unwrap_err();
        assert!(e.to_string().contains("open with the work's title"), "{e}");
        let e = parse_text("# T\n## Functional\n- a\n", false).unwrap_err();
        assert!(e.to_string().contains("requirements:1:1"), "{e}");
        let e = parse_text("# T\nloose words\n", true).unwrap_err();
        assert!(e.to_string().contains("requirements:2:1: expected"), "{e}");
        let r = parse_text("# T\n## non functional\n- fast\n## FUNCTIONAL\n* a\n", true).unwrap();
        assert_eq!(
            (r.functional, r.non_functional),
            (vec!["a".to_string()], vec!["fast".to_string()])
        );
    }
}
