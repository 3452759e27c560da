//! Live specs end to end (issue 3), the verify side: `status` with and
//! without `--verify`, its reports (human, JSON, JUnit, TAP), `--record`, and
//! `spec list/show/check`. Every test builds a real repository with specs and test
//! scripts, runs the real binary, and checks output, exit codes, files and git.

use crate::common::*;
use crate::specs::support::*;
use std::time::Duration;

mod limits;
mod parsing;
mod reports;
mod running;
mod spec_commands;
mod targets;

/// The example spec, with the PASS check at line 10.
const NOTIFICATIONS: &str = "---
bead: vm-k3f9
---
# Notifications

Some intro text.

## Success Criteria

- [ ] Notification appears within 2s
  [verify](tests/notify-test.sh#test_notification_timing)
- [ ] Clear visibility into current state
  [judge](tests/judges/notify.sh#test_clear_visibility)
- [ ] Works on both Linux and macOS
";

/// A repository with the example spec, its (sourced, not executable) test script and a
/// rubric that leaves a marker if it is ever run.
fn notifications_repo() -> Repo {
    let repo = Repo::initialised();
    repo.write("specs/notifications.md", NOTIFICATIONS);
    repo.write(
        "tests/notify-test.sh",
        "test_notification_timing() {\n  echo \"notified in 0.4s\"\n}\n",
    );
    repo.write(
        "tests/judges/notify.sh",
        "test_clear_visibility() {\n  touch judge-rubric-ran\n  judge_files specs/notifications.md\n  judge_criterion \"The state is VISIBLE\"\n}\n",
    );
    repo
}

/// A loose well-formedness check: tags nest and close, attribute values are quoted,
/// `<` never appears in text or values, every `&` starts a known entity.
fn assert_xml_well_formed(xml: &str) {
    let mut stack: Vec<String> = Vec::new();
    let mut rest = xml.trim_start();
    assert!(rest.starts_with("<?xml"), "no XML declaration");
    let check_text = |t: &str| {
        let mut s = t;
        while let Some(i) = s.find('&') {
            let after = &s[i..];
            assert!(
                ["&amp;", "&lt;", "&gt;", "&quot;", "&apos;", "&#"]
                    .iter()
                    .any(|e| after.starts_with(e)),
                "bare & in XML: {:?}",
                &after[..after.len().min(20)]
            );
            s = &s[i + 1..];
        }
    };
    while let Some(open) = rest.find('<') {
        check_text(&rest[..open]);
        rest = &rest[open..];
        if rest.starts_with("<?") {
            let end = rest.find("?>").expect("unclosed <?");
            rest = &rest[end + 2..];
            continue;
        }
        if rest.starts_with("<!--") {
            let end = rest.find("-->").expect("unclosed comment");
            rest = &rest[end + 3..];
            continue;
        }
        // Find the end of the tag, skipping quoted attribute values.
        let bytes = rest.as_bytes();
        let mut i = 1;
        let mut quote: Option<u8> = None;
        while i < bytes.len() {
            match (quote, bytes[i]) {
                (Some(q), b) if b == q => quote = None,
                (Some(_), b'<') => panic!("'<' inside an attribute value"),
                (Some(_), _) => {}
                (None, b'"' | b'\'') => quote = Some(bytes[i]),
                (None, b'>') => break,
                (None, b'<') => panic!("'<' inside a tag: {}", &rest[..i.min(80)]),
                _ => {}
            }
            i += 1;
        }
        assert!(i < bytes.len(), "unterminated tag");
        let tag = &rest[1..i];
        check_text(tag);
        if let Some(name) = tag.strip_prefix('/') {
            let top = stack
                .pop()
                .unwrap_or_else(|| panic!("</{name}> closes nothing"));
            assert_eq!(top, name.trim(), "mismatched closing tag");
        } else {
            let self_closing = tag.ends_with('/');
            let name: String = tag
                .trim_end_matches('/')
                .split_whitespace()
                .next()
                .expect("tag name")
                .to_string();
            // Attributes: name="value" pairs.
            let attrs = tag.trim_end_matches('/')[name.len()..].trim();
            let mut a = attrs;
            while !a.is_empty() {
                let eq = a
                    .find('=')
                    .unwrap_or_else(|| panic!("attribute without value: {a}"));
                let q = a[eq + 1..].chars().next().expect("value");
                assert!(q == '"' || q == '\'', "unquoted attribute in <{name}>");
                let close = a[eq + 2..].find(q).expect("closing quote") + eq + 2;
                a = a[close + 1..].trim_start();
            }
            if !self_closing {
                stack.push(name);
            }
        }
        rest = &rest[i + 1..];
    }
    check_text(rest);
    assert!(rest.trim().is_empty(), "text after the root element");
    assert!(stack.is_empty(), "unclosed elements: {stack:?}");
}
