//! The page in a real browser: headless Chromium driven over its DevTools pipe by
//! tests/browser/page.py. Each test skips with a printed note only when no Chromium is
//! installed (`.ci/run` installs Debian's `chromium`, so CI always runs them).

use super::scripted::*;
use crate::common::Repo;
use crate::specs::support::*;
use serde_json::Value;
use std::path::{Path, PathBuf};

/// The Chromium to use: `CHROMIUM`, else `chromium` or `chromium-headless-shell` on PATH.
fn chromium() -> Option<PathBuf> {
    if let Some(named) = std::env::var_os("CHROMIUM") {
        return Some(PathBuf::from(named));
    }
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path)
        .flat_map(|dir| ["chromium", "chromium-headless-shell"].map(|n| dir.join(n)))
        .find(|p| p.is_file())
}

/// True when the browser tests can run; else prints why they are skipped.
fn have_chromium(test: &str) -> bool {
    if chromium().is_some() {
        return true;
    }
    eprintln!(
        "note: {test} SKIPPED: no Chromium found (install Debian's chromium: apt-get install chromium)"
    );
    false
}

/// Loads `page` in Chromium; `args` are page.py's (`--selector CSS`, `--text CSS`,
/// `--screenshot PNG`, `--dark`). Returns what the browser saw.
fn load(page: &Path, args: &[&str]) -> Value {
    let driver = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/browser/page.py");
    let mut cmd = std::process::Command::new("python3");
    cmd.arg(&driver).arg(page).args(args);
    if let Some(c) = chromium() {
        cmd.env("CHROMIUM", c);
    }
    let out = cmd.output().expect("run tests/browser/page.py");
    assert!(
        out.status.success(),
        "page.py failed ({:?}): {}",
        out.status.code(),
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).expect("page.py prints JSON")
}

/// Writes the report of `repo` to `report.html` in its temp folder; returns the path.
fn report(repo: &Repo) -> PathBuf {
    let out = repo.path().join(".beads/.cache/page.html");
    run(repo, &["report", "--out", &out.display().to_string()]).expect_code(0);
    out
}

/// The number of elements `selector` matched.
fn count(seen: &Value, selector: &str) -> u64 {
    seen["count"][selector]
        .as_u64()
        .unwrap_or_else(|| panic!("no count for {selector}: {seen}"))
}

/// The texts of the elements `selector` matched.
fn texts(seen: &Value, selector: &str) -> Vec<String> {
    seen["texts"][selector]
        .as_array()
        .unwrap_or_else(|| panic!("no texts for {selector}: {seen}"))
        .iter()
        .map(|t| t.as_str().unwrap_or_default().to_string())
        .collect()
}

/// Asserts the browser ran nothing and logged no error.
fn assert_quiet(seen: &Value) {
    assert_eq!(seen["console"], serde_json::json!([]), "console errors");
    assert_eq!(
        seen["dialogs"],
        serde_json::json!([]),
        "a script opened a dialog"
    );
    assert_eq!(seen["scripts"], 0, "script elements");
    assert_eq!(seen["handlers"], 0, "on* attributes");
    assert_eq!(seen["js_links"], 0, "javascript: links");
    assert!(seen["pwned"]["attr"].is_null(), "{}", seen["pwned"]);
}

#[test]
fn the_scripted_repository_renders_every_section_with_its_counts_and_no_console_error() {
    if !have_chromium("the_scripted_repository_renders...") {
        return;
    }
    let s = scripted();
    let page = report(&s.repo);
    let shot = s.repo.path().join("report.png");
    let flaky = "tr.criterion[data-flaky=true] ol.strip svg";
    let selectors = [
        "#overview",
        "#specs",
        "#inspections",
        "#pending-specs tbody tr",
        "#questions tbody tr",
        "#mq-merged tbody tr",
        "article.spec",
        "tr.criterion",
        "tr.criterion[data-flaky=true]",
        "tr.criterion[data-latest=FAIL]",
        "a[href*='tests/health.sh']",
        "article.inspection",
        "article.inspection[data-verdict=FAIL] details.failure-report",
    ];
    let text = [
        "h2",
        "#work-counts tbody tr",
        "#spec-totals li",
        "#inspection-totals li",
        flaky,
        "tr.output pre",
        "#questions tbody tr",
        "article.inspection[data-verdict=FAIL] details.failure-report",
        "article.inspection[data-verdict=NEEDS_HUMAN] dl.qa",
        "article.inspection[data-verdict=PASS] dl.facts",
    ];
    let mut args: Vec<&str> = vec!["--dark", "--screenshot"];
    let shot_arg = shot.display().to_string();
    args.push(&shot_arg);
    for s in &selectors {
        args.extend(["--selector", s]);
    }
    for t in &text {
        args.extend(["--text", t]);
    }
    let seen = load(&page, &args);
    assert_quiet(&seen);
    assert!(seen["first_paint"].as_f64().is_some(), "painted: {seen}");
    assert_ne!(seen["light"], seen["dark"], "a dark theme");

    assert_eq!(
        texts(&seen, "h2"),
        ["Overview", "Live specs", "Inspections"]
    );
    for section in ["#overview", "#specs", "#inspections"] {
        assert_eq!(count(&seen, section), 1, "{section}");
    }
    // Overview: every work item in one state.
    let states = texts(&seen, "#work-counts tbody tr").join("\n");
    for want in [
        "Ready1",
        "Awaiting input1",
        "Blocked2",
        "Rejected1",
        "Closed, inspected1",
    ] {
        assert!(
            states
                .lines()
                .any(|l| l.replace(char::is_whitespace, "") == want.replace(' ', "")),
            "{want} in\n{states}"
        );
    }
    assert_eq!(count(&seen, "#pending-specs tbody tr"), 1);
    assert_eq!(count(&seen, "#questions tbody tr"), 1);
    assert!(texts(&seen, "#questions tbody tr")[0].contains(QUESTION));
    assert_eq!(count(&seen, "#mq-merged tbody tr"), 1);

    // Live specs: PASS, FAIL with its output, one criterion flaky over five commits.
    let totals = squeeze(&texts(&seen, "#spec-totals li"));
    for want in ["1specs", "3criteria", "2PASS", "1FAIL", "1flaky"] {
        assert!(totals.contains(&want.to_string()), "{want} in {totals:?}");
    }
    assert_eq!(count(&seen, "tr.criterion"), 3);
    assert_eq!(count(&seen, "tr.criterion[data-flaky=true]"), 1);
    let strip: Vec<String> = texts(&seen, flaky)
        .iter()
        .map(|t| t.split_whitespace().next().unwrap_or_default().to_string())
        .collect();
    assert_eq!(strip, ["PASS", "FAIL", "PASS", "FAIL", "PASS"]);
    assert_eq!(count(&seen, "tr.criterion[data-latest=FAIL]"), 1);
    assert!(texts(&seen, "tr.output pre")[0].contains("rotation missing"));
    assert_eq!(
        count(&seen, "a[href*='tests/health.sh']"),
        3,
        "a link per check"
    );

    // Inspections: PASS, FAIL with its failure report, NEEDS_HUMAN with its question.
    let totals = squeeze(&texts(&seen, "#inspection-totals li"));
    for want in ["3inspected", "1PASS", "1FAIL", "1NEEDS_HUMAN", "0ERROR"] {
        assert!(totals.contains(&want.to_string()), "{want} in {totals:?}");
    }
    assert_eq!(count(&seen, "article.inspection"), 3);
    let report = texts(
        &seen,
        "article.inspection[data-verdict=FAIL] details.failure-report",
    );
    assert_eq!(report.len(), 1);
    assert!(
        report[0].contains("Verification failed: Ship the config"),
        "{report:?}"
    );
    assert!(report[0].contains("ac-1 [FAIL]"), "{report:?}");
    let qa = &texts(&seen, "article.inspection[data-verdict=NEEDS_HUMAN] dl.qa")[0];
    assert!(
        qa.contains(QUESTION) && qa.contains("not answered yet"),
        "{qa}"
    );
    let facts = &texts(&seen, "article.inspection[data-verdict=PASS] dl.facts")[0];
    assert!(facts.contains("approved by Test User"), "{facts}");

    let png = std::fs::read(&shot).expect("screenshot");
    assert!(
        png.starts_with(b"\x89PNG\r\n\x1a\n") && png.len() > 20_000,
        "a PNG"
    );
    // `VERMAS_UPDATE_SCREENSHOT=1 cargo test --test it report::page_tests::browser` renews the
    // picture in docs/report.md.
    if std::env::var_os("VERMAS_UPDATE_SCREENSHOT").is_some() {
        let docs = Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/report.png");
        std::fs::write(docs, png).expect("write docs/report.png");
    }
}

/// Each text with its white space taken out.
fn squeeze(texts: &[String]) -> Vec<String> {
    texts
        .iter()
        .map(|t| t.replace(char::is_whitespace, ""))
        .collect()
}

#[test]
fn hostile_titles_output_and_replies_run_nothing_and_show_as_text() {
    if !have_chromium("hostile_titles_output_and_replies...") {
        return;
    }
    let (repo, work) = hostile();
    let page = report(&repo);
    let seen = load(
        &page,
        &[
            "--selector",
            "img",
            "--selector",
            "a[href^='javascript']",
            "--text",
            "main",
            "--text",
            "details.brief[data-role=critic] pre",
            "--text",
            "tr[data-outcome=FAIL] pre",
        ],
    );
    assert_quiet(&seen);
    assert!(
        seen["pwned"]["title"]
            .as_str()
            .is_some_and(|t| t.starts_with("vermas report: ")),
        "the title was not rewritten: {}",
        seen["pwned"]
    );
    assert_eq!(count(&seen, "img"), 0, "no markup became an image");
    assert_eq!(count(&seen, "a[href^='javascript']"), 0);
    let shown = texts(&seen, "main").join("\n");
    for text in [
        "<script>alert(1)</script>",
        "Runs <img src=x onerror=alert(1)>",
        "[click](javascript:alert(2))",
    ] {
        assert!(shown.contains(text), "{text} shows as text");
    }
    let critic = texts(&seen, "details.brief[data-role=critic] pre").join("\n");
    assert!(
        critic.contains("<img src=x onerror=") && critic.contains("javascript:alert(4)"),
        "the reply shows as text: {critic}"
    );
    let output = texts(&seen, "tr[data-outcome=FAIL] pre").join("\n");
    assert!(
        output.contains("<script>document.title"),
        "{output} ({work})"
    );
}

#[test]
fn the_browser_check_sees_a_script_that_runs() {
    // The assertions above mean something only if the driver catches a page that does run
    // a script: this one does, in each of the ways the hostile repository tries.
    if !have_chromium("the_browser_check_sees_a_script_that_runs") {
        return;
    }
    let dir = tempfile::tempdir().expect("tmp");
    let page = dir.path().join("bad.html");
    std::fs::write(
        &page,
        "<!DOCTYPE html><title>t</title><script>alert('ran')</script>\
         <img src=x onerror=\"document.documentElement.setAttribute('data-pwned','img')\">\
         <a href=\"javascript:alert(2)\">x</a>",
    )
    .expect("write");
    let seen = load(&page, &[]);
    assert_eq!(seen["dialogs"], serde_json::json!(["ran"]));
    assert_eq!(seen["pwned"]["attr"], "img");
    assert_eq!(seen["scripts"], 1);
    assert_eq!(seen["js_links"], 1);
    assert!(!seen["console"].as_array().expect("list").is_empty());
}
