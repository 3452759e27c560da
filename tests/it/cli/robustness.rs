//! No panic, no abort: durations that do not fit are refused where they are read (command
//! line, config, spec links), expiries stay readable, and property tests feed the parsers
//! arbitrary and mutated input.

use crate::common::{Repo, stderr, stdout};
use proptest::prelude::*;
use proptest::test_runner::Config as PropConfig;
use std::sync::Arc;
use std::time::Duration;
use vermas_core::config::Config;
use vermas_core::error::{Error, ParseError};
use vermas_core::mol::formula::{self, Source};
use vermas_core::store::frontmatter;
use vermas_core::time::Timestamp;
use vermas_core::time::duration::{MAX_DURATION, parse_duration};

/// Exit status of a Rust panic; none of these commands may ever end with it.
const PANIC_EXIT: i32 = 101;

/// Runs vermas with `env`, asserts it failed with exit 2 (not a panic), returns stderr.
fn refused(repo: &Repo, args: &[&str], env: &[(&str, &str)]) -> String {
    let mut cmd = repo.cmd(args);
    for (k, v) in env {
        cmd.env(k, v);
    }
    let out = cmd.output().unwrap();
    let err = stderr(&out);
    assert_ne!(
        out.status.code(),
        Some(PANIC_EXIT),
        "{args:?} panicked: {err}"
    );
    assert_eq!(out.status.code(), Some(2), "{args:?}: {err}");
    assert!(!err.contains("panicked"), "{err}");
    err
}

/// A one-step formula named `flat`.
const FLAT: &str = "formula = \"flat\"\n\n[[steps]]\nid = \"s1\"\ntitle = \"Step 1\"\n";

/// The wisp files on disk.
fn wisp_files(repo: &Repo) -> Vec<String> {
    match std::fs::read_dir(repo.join(".beads/wisps/mols")) {
        Ok(dir) => dir
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect(),
        Err(_) => Vec::new(),
    }
}

#[test]
fn config_set_refuses_a_duration_that_does_not_fit_and_stores_nothing() {
    let repo = Repo::initialised();
    let before = repo.read(".beads/vermas.yaml");
    let commits = repo.commit_count();
    for (key, value) in [
        ("verify.timeout", "1e23s"),
        ("llm.timeout", "100000000000000000000000"),
        ("gates.timeout", "366d"),
    ] {
        let err = refused(&repo, &["config", "set", key, value], &[]);
        assert!(
            err.contains(&format!(
                "{key}: duration {value} is too long (at most 365d)"
            )),
            "{err}"
        );
    }
    assert_eq!(repo.read(".beads/vermas.yaml"), before);
    assert_eq!(repo.commit_count(), commits);
    assert_eq!(repo.ok(&["config", "get", "verify.timeout"]).trim(), "120s");
    // The longest allowed value is taken.
    repo.ok(&["config", "set", "verify.timeout", "365d"]);
    assert_eq!(repo.ok(&["config", "get", "verify.timeout"]).trim(), "365d");
}

#[test]
fn a_hand_edited_huge_duration_is_a_config_error_with_its_place() {
    let repo = Repo::initialised();
    let text = repo.read(".beads/vermas.yaml");
    let (line, _) = text
        .lines()
        .enumerate()
        .skip_while(|(_, l)| !l.starts_with("llm:"))
        .find(|(_, l)| l.trim_start().starts_with("timeout:"))
        .expect("llm.timeout in the rendered config");
    let edited: Vec<String> = text
        .lines()
        .enumerate()
        .map(|(i, l)| {
            if i == line {
                "  timeout: 1e23s".to_string()
            } else {
                l.to_string()
            }
        })
        .collect();
    repo.write(".beads/vermas.yaml", &(edited.join("\n") + "\n"));
    for args in [
        &["list"][..],
        &["status"],
        &["config", "get", "llm.timeout"],
    ] {
        let err = refused(&repo, args, &[]);
        assert!(
            err.contains(&format!(
                ".beads/vermas.yaml:{}:12: llm.timeout: duration 1e23s is too long (at most 365d)",
                line + 1
            )),
            "{args:?}: {err}"
        );
    }
}

#[test]
fn mail_wait_refuses_a_timeout_that_does_not_fit() {
    let repo = Repo::initialised();
    let sent = repo.json(&[
        "mail", "send", "mayor/", "-s", "question", "-m", "?", "--from", "polecat/",
    ]);
    let id = sent["id"].as_str().unwrap();
    for timeout in ["1e23s", "18446744073709551616s", "9000000h"] {
        let err = refused(&repo, &["mail", "wait", id, "--timeout", timeout], &[]);
        assert!(
            err.contains(&format!(
                "bad --timeout: duration {timeout} is too long (at most 365d)"
            )),
            "{err}"
        );
    }
}

#[test]
fn mol_wisp_refuses_a_ttl_that_does_not_fit_and_writes_nothing() {
    let repo = Repo::initialised();
    repo.write(".beads/formulas/flat.formula.toml", FLAT);
    for ttl in ["9e18s", "9000000000000000000s", "1e400h"] {
        let err = refused(&repo, &["mol", "wisp", "flat", "--ttl", ttl], &[]);
        assert!(
            err.contains(&format!("--ttl: duration {ttl} is too long (at most 365d)")),
            "{err}"
        );
    }
    // A lifetime that fits but would end past the last time a record may hold.
    let err = refused(
        &repo,
        &["mol", "wisp", "flat", "--ttl", "2h"],
        &[("VERMAS_NOW", "9999-12-30T21:00:00Z")],
    );
    assert!(
        err.contains("would expire after 9999-12-30T22:00:00Z"),
        "{err}"
    );
    assert_eq!(wisp_files(&repo), Vec::<String>::new());
    assert_eq!(repo.json(&["mol", "list"]), serde_json::json!([]));
}

#[test]
fn mol_list_reads_every_expiry_wisp_can_write() {
    let repo = Repo::initialised();
    repo.write(".beads/formulas/flat.formula.toml", FLAT);
    let now = [("VERMAS_NOW", "9999-12-30T21:00:00Z")];
    let mut cmd = repo.cmd(&["mol", "wisp", "flat", "--ttl", "1h", "--json"]);
    let out = cmd.envs(now).output().unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    let wisp: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(wisp["expires_at"], "9999-12-30T22:00:00Z");
    // The longest lifetime from today; listed today, neither has expired.
    repo.ok(&["mol", "wisp", "flat", "--ttl", "365d"]);
    let out = repo.run(&["mol", "list", "--json"]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(stderr(&out), "", "mol list could not read a wisp");
    let listed: serde_json::Value = serde_json::from_str(&stdout(&out)).unwrap();
    let expiries: Vec<&str> = listed
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["expires_at"].as_str().unwrap())
        .collect();
    assert_eq!(expiries.len(), 2, "{listed}");
    assert!(expiries.contains(&"9999-12-30T22:00:00Z"), "{expiries:?}");
    // A clock that cannot be written (out of range seconds) is ignored, not stored.
    let out = repo
        .cmd(&["mol", "wisp", "flat", "--ttl", "1h", "--json"])
        .env("VERMAS_NOW", i64::MAX.to_string())
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    let wisp: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let at = Timestamp::parse(wisp["expires_at"].as_str().unwrap()).expect("readable expiry");
    assert!(at < Timestamp::MAX, "{at}");
}

#[test]
fn a_spec_link_with_a_huge_timeout_is_that_criterions_error() {
    let repo = Repo::initialised();
    repo.write("tests/ok.sh", "#!/bin/sh\nexit 0\n");
    repo.write(
        "specs/big.md",
        "# Big\n\n## Success Criteria\n\n\
         - [ ] Too long [verify](tests/ok.sh \"timeout=1e23s\")\n\
         - [ ] Fine [verify](tests/ok.sh \"timeout=30s\")\n",
    );
    let out = repo.run(&["status", "--verify", "--json"]);
    assert_eq!(out.status.code(), Some(3), "{}", stderr(&out));
    let report: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let criteria = report["specs"][0]["criteria"].as_array().unwrap();
    assert_eq!(criteria[0]["outcome"], "ERROR");
    assert_eq!(
        criteria[0]["reason"],
        "invalid option timeout=1e23s: duration 1e23s is too long (at most 365d)"
    );
    assert_eq!(criteria[1]["outcome"], "PASS");
    let out = repo.run(&["spec", "check"]);
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    assert!(
        stderr(&out).contains(
            "specs/big.md:5:16: link option timeout=1e23s: duration 1e23s is too long (at most 365d)"
        ),
        "{}",
        stderr(&out)
    );
}

// ---- Property tests: the parsers never panic and point inside their input. ----

/// 256 cases per property (`PROPTEST_CASES` sets more for a deeper run), so the whole
/// file stays a matter of seconds. A failure prints its smallest input (to be kept as a
/// named test); nothing is written into the tree.
fn cases() -> PropConfig {
    let cases = std::env::var("PROPTEST_CASES")
        .ok()
        .and_then(|n| n.parse().ok())
        .unwrap_or(256);
    PropConfig {
        failure_persistence: None,
        ..PropConfig::with_cases(cases)
    }
}

/// Found by the spec property: a link after non-ASCII text was placed by byte, not
/// character, so `spec check` pointed past it.
#[test]
fn a_link_after_non_ascii_text_is_placed_by_character() {
    let text = "## Success Criteria\n\n- [ ] \u{e9}t\u{e9} [verify](t.sh#f)\n";
    let spec = vermas_core::spec::parse(text, "specs/x.md");
    let a = &spec.criteria[0].annotations[0];
    assert_eq!((a.line, a.column), (3, 11));
    assert_eq!(char_at(text, a.line, a.column), Some('['));
}

/// True when one-based `line`/`column` (in characters) is a place in `text`: a line it
/// has, at most one past that line's last character.
fn inside(text: &str, line: usize, column: usize) -> bool {
    let lines: Vec<&str> = text.split('\n').collect();
    line >= 1 && line <= lines.len() && column >= 1 && column <= lines[line - 1].chars().count() + 1
}

/// The character at one-based `line`/`column` (in characters) of `text`.
fn char_at(text: &str, line: usize, column: usize) -> Option<char> {
    text.split('\n')
        .nth(line.checked_sub(1)?)?
        .chars()
        .nth(column.checked_sub(1)?)
}

/// Asserts a parse error points inside `text`.
fn assert_inside(text: &str, e: &ParseError) {
    assert!(
        inside(text, e.line, e.column),
        "{}:{} is outside the input {text:?}: {}",
        e.line,
        e.column,
        e.message
    );
}

/// Pieces of markdown, YAML and TOML syntax that random inputs are built from.
const TOKENS: &[&str] = &[
    "---\n",
    "---",
    "...\n",
    "\n",
    "\r\n",
    " ",
    "\t",
    "- [ ] ",
    "- [x] ",
    "## Success Criteria\n",
    "# T\n",
    "[verify](",
    "[judge](",
    "[verify:x](",
    "tests/a.sh",
    "../",
    "./",
    "#",
    "::",
    ")",
    "(",
    "]",
    "[",
    "\"",
    "'",
    "timeout=",
    "1e23s",
    "30s",
    "```\n",
    "`",
    "bead: ",
    "covers: [",
    "title: ",
    "id: ",
    ":",
    "{",
    "}",
    "=",
    "[[steps]]\n",
    "[vars]\n",
    "needs = [",
    "formula = ",
    "\u{e9}",
    "\u{e9}\u{e9}\u{e9}\u{e9}\u{e9}\u{e9}\u{e9}\u{e9}\u{e9}\u{e9}\u{e9}\u{e9}",
    "\u{65e5}\u{672c}\u{8a9e}\u{306e}\u{30c6}\u{30ad}\u{30b9}\u{30c8}",
    "\u{1f600}",
    "\u{feff}",
    "\0",
    "&a ",
    "*a",
    "!!",
    "|",
    ">",
    ",",
];

/// Random text: arbitrary strings, or strings of syntax tokens.
fn random_text() -> impl Strategy<Value = String> {
    prop_oneof![
        any::<String>(),
        prop::collection::vec(prop::sample::select(TOKENS), 0..48).prop_map(|t| t.concat()),
    ]
}

/// One edit of a text: where (a fraction of its length), what kind, and what to put in.
type Edit = (prop::sample::Index, u8, &'static str);

/// Applies `edits` to `text`, always at character boundaries.
fn mutate(text: &str, edits: &[Edit]) -> String {
    let mut s = text.to_string();
    for (at, kind, token) in edits {
        let bounds: Vec<usize> = (0..=s.len()).filter(|i| s.is_char_boundary(*i)).collect();
        let start = bounds[at.index(bounds.len())];
        let end =
            bounds[(at.index(bounds.len()) + 1 + usize::from(*kind) % 7).min(bounds.len() - 1)];
        match kind % 4 {
            0 => s.insert_str(start, token),
            1 => s.replace_range(start..end, ""),
            2 => s.replace_range(start..end, token),
            _ => {
                let copy = s[start..end].to_string();
                s.insert_str(start, &copy);
            }
        }
    }
    s
}

/// A valid example with a few random edits.
fn mutated(examples: &'static [&'static str]) -> impl Strategy<Value = String> {
    (
        prop::sample::select(examples),
        prop::collection::vec(
            (
                any::<prop::sample::Index>(),
                any::<u8>(),
                prop::sample::select(TOKENS),
            ),
            1..6,
        ),
    )
        .prop_map(|(text, edits)| mutate(text, &edits))
}

/// Random text or a mutated example.
fn input(examples: &'static [&'static str]) -> impl Strategy<Value = String> {
    prop_oneof![random_text(), mutated(examples)]
}

/// Text from syntax tokens, for inside a line.
fn words() -> impl Strategy<Value = String> {
    prop::collection::vec(prop::sample::select(TOKENS), 0..5)
        .prop_map(|t| t.concat().replace(['\n', '\r'], " "))
}

/// A spec built the way people write them: criteria items with random text around links.
fn structured_spec() -> impl Strategy<Value = String> {
    let link = (
        prop::sample::select(&["verify", "judge", "verify:lint", "link"][..]),
        words(),
        words(),
    )
        .prop_map(|(kind, target, title)| format!("[{kind}]({target} \"{title}\")"));
    let item = (any::<bool>(), words(), link, words(), any::<bool>()).prop_map(
        |(checked, before, link, after, next_line)| {
            let mark = if checked { 'x' } else { ' ' };
            let gap = if next_line { "\n  " } else { "" };
            format!("- [{mark}] {before}{gap}{link}{after}\n")
        },
    );
    (words(), prop::collection::vec(item, 1..6)).prop_map(|(intro, items)| {
        format!("# {intro}\n\n## Success Criteria\n\n{}", items.concat())
    })
}

const SPECS: &[&str] = &[
    "---\nbead: vm-k3f9\ncovers: [\"src/*\"]\n---\n# Notifications\n\n## Success Criteria\n\n\
     - [ ] Appears within 2s\n  [verify](../tests/notify.sh#test_timing \"timeout=30s\")\n\
     - [x] Clear [judge](tests/judges/n.sh::test_clear)\n- [ ] Two [verify](./a.sh#one) \
     [verify:lint](b.sh#two)\n  ```\n  [verify](ignored.sh#in_code)\n  ```\n",
    "# Plain\n\nNo criteria here, just [a link](x.md).\n",
];

const BEADS: &[&str] = &[
    "---\nid: vm-k3f9\ntitle: Fix it\nstatus: open\nlabels: [a, b]\n---\n\nThe body.\n",
    "\u{feff}---\r\nid: vm-1\r\n...\r\nbody\r\n",
];

const FORMULAS: &[&str] = &[
    "formula = \"work\"\ndescription = \"Do it\"\nversion = 1\n\n[vars]\nbead_id = \"\"\n\n\
     [vars.target]\ndescription = \"what\"\nrequired = true\n\n[[steps]]\nid = \"a\"\n\
     title = \"A {{target}}\"\n\n[[steps]]\nid = \"b\"\ntitle = \"B\"\nneeds = [\"a\"]\n",
    "formula = \"exp\"\ntype = \"expansion\"\n\n[[template]]\nid = \"{target}.x\"\n\
     title = \"X\"\n\n[[compose.expand]]\ntarget = \"a\"\nwith = \"exp\"\n",
];

const DURATIONS: &[&str] = &["30s", "250ms", "1.5h", "2d", "365d", "1e2s", "5"];

proptest! {
    #![proptest_config(cases())]

    #[test]
    fn durations_never_panic_and_never_exceed_the_maximum(text in input(DURATIONS)) {
        if let Ok(d) = parse_duration(&text) {
            prop_assert!(d <= MAX_DURATION, "{text:?} gave {d:?}");
        }
    }

    #[test]
    fn a_duration_is_taken_exactly_when_it_fits(
        n in prop_oneof![0u64..1_000_000, any::<u64>()],
        unit in prop::sample::select(&["ms", "s", "m", "h", "d", ""][..]),
    ) {
        let per_unit = match unit { "ms" => 0.001, "m" => 60.0, "h" => 3600.0, "d" => 86_400.0, _ => 1.0 };
        let text = format!("{n}{unit}");
        let secs = n as f64 * per_unit;
        match parse_duration(&text) {
            Ok(d) => prop_assert!((d.as_secs_f64() - secs).abs() < 1e-3, "{text}: {d:?}"),
            Err(e) => {
                prop_assert!(secs > MAX_DURATION.as_secs_f64(), "{text}: {e}");
                prop_assert_eq!(e, format!("duration {text} is too long (at most 365d)"));
            }
        }
    }

    #[test]
    fn expiries_stay_writable(start in any::<i64>(), secs in any::<u64>(), nanos in 0u32..1_000_000_000) {
        let now = Timestamp(start.clamp(Timestamp::MIN.0, Timestamp::MAX.0));
        if let Some(at) = now.checked_add(Duration::new(secs, nanos)) {
            prop_assert_eq!(Timestamp::parse(&at.to_string()), Some(at));
        }
    }

    #[test]
    fn timestamps_never_panic_and_round_trip(text in input(&["2026-11-22T10:00:00Z", "2000-02-29", "1999-12-31T23:59:60.5+01:30"])) {
        if let Some(t) = Timestamp::parse(&text) {
            prop_assert_eq!(Timestamp::parse(&t.to_string()), Some(t));
        }
    }

    #[test]
    fn the_spec_parser_never_panics_and_points_inside(
        text in prop_oneof![input(SPECS), structured_spec()],
    ) {
        let spec = vermas_core::spec::parse(&text, "specs/x.md");
        for c in &spec.criteria {
            prop_assert!(inside(&text, c.line, 1), "criterion line {} in {text:?}", c.line);
            for a in &c.annotations {
                // A link's place is its opening bracket.
                prop_assert_eq!(char_at(&text, a.line, a.column), Some('['), "link at {}:{} in {:?}", a.line, a.column, text);
            }
        }
        for p in &spec.problems {
            prop_assert!(inside(&text, p.line, p.column), "problem at {}:{} in {text:?}: {}", p.line, p.column, p.message);
        }
    }

    #[test]
    fn the_front_matter_split_never_panics_and_points_inside(text in input(BEADS)) {
        match frontmatter::split(&text, "x.md") {
            Ok(split) => prop_assert!(text.contains(split.yaml) && text.contains(split.body)),
            Err(e) => assert_inside(&text, &e),
        }
    }

    #[test]
    fn the_formula_parser_never_panics_and_points_inside(text in input(FORMULAS)) {
        let source = Arc::new(Source { name: "f.formula.toml".into(), text: text.clone() });
        if let Err(Error::Parse(e)) = formula::parse(source) {
            assert_inside(&text, &e);
        }
    }

    #[test]
    fn the_config_parser_never_panics_and_points_inside(
        text in input(&["prefix: vm\nverify:\n  timeout: 30s\nllm:\n  timeout: 5m\n"]),
    ) {
        if let Err(Error::Parse(e)) = Config::parse(&text, "vermas.yaml") {
            assert_inside(&text, &e);
        }
    }
}
