//! Judge checks end to end (issue 3): rubric
//! files, the prompt, the LLM command (the scripted stand-in `fixtures/llm`), verdict
//! parsing, errors, the reply cache and sampling. Real repositories, the real binary.

use crate::common::*;
use crate::specs::support::*;
use std::path::PathBuf;
use std::time::Duration;

mod inputs;
mod llm;
mod verdicts;

/// The judged spec: its one criterion is on line 5.
const UI_SPEC: &str = "# UI\n\n## Success Criteria\n\n- [ ] The banner is shown\n  [judge](tests/judges/ui.sh#test_banner)\n";

const UI_RUBRIC: &str =
    "test_banner() {\n  judge_files src/ui.txt\n  judge_criterion \"The page shows a BANNER\"\n}\n";

/// A repository whose LLM is the fake, plus a scratch folder (outside the repository)
/// for the fake's call log, saved prompts and pid file.
struct Judged {
    repo: Repo,
    scratch: tempfile::TempDir,
}

impl Judged {
    /// The UI spec, its rubric and the judged file; `llm.command` is the fake.
    fn new() -> Judged {
        let repo = Repo::initialised();
        repo.use_llm(&fake_llm());
        repo.write("specs/ui.md", UI_SPEC);
        repo.write("tests/judges/ui.sh", UI_RUBRIC);
        repo.write("src/ui.txt", "line one\n<BANNER> Welcome\n");
        Judged {
            repo,
            scratch: tempfile::Builder::new()
                .prefix("vermas-llm")
                .tempdir()
                .expect("tempdir"),
        }
    }

    fn log(&self) -> PathBuf {
        self.scratch.path().join("calls.log")
    }

    fn prompts_dir(&self) -> PathBuf {
        self.scratch.path().join("prompts")
    }

    fn pidfile(&self) -> PathBuf {
        self.scratch.path().join("llm.pids")
    }

    /// LLM calls made so far.
    fn calls(&self) -> usize {
        line_count(&self.log())
    }

    /// Every prompt the fake was sent.
    fn prompts(&self) -> Vec<String> {
        std::fs::read_dir(self.prompts_dir())
            .into_iter()
            .flatten()
            .flatten()
            .map(|e| std::fs::read_to_string(e.path()).expect("prompt"))
            .collect()
    }

    /// Runs vermas with the fake in `mode` (and extra environment).
    fn run_with(&self, args: &[&str], mode: &str, extra: &[(&'static str, &str)]) -> Run {
        let mut env = vec![
            ("FAKE_LLM_MODE", mode.to_string()),
            ("FAKE_LLM_LOG", self.log().display().to_string()),
            ("FAKE_LLM_PROMPTS", self.prompts_dir().display().to_string()),
            ("FAKE_LLM_PIDFILE", self.pidfile().display().to_string()),
        ];
        env.extend(extra.iter().map(|(k, v)| (*k, v.to_string())));
        vermas(
            &self.repo,
            args,
            Opts {
                env,
                deadline: Some(Duration::from_secs(60)),
                ..Opts::default()
            },
        )
    }

    fn run(&self, args: &[&str], mode: &str) -> Run {
        self.run_with(args, mode, &[])
    }

    /// `status --judge --json` in `mode`, the criterion's outcome and reason.
    fn judge_json(&self, mode: &str, extra: &[&str]) -> (Run, String, String) {
        let mut args = vec!["status", "--judge", "--json"];
        args.extend_from_slice(extra);
        let r = self.run(&args, mode);
        let j = r.json();
        let (o, why) = (
            outcome(&j, "The banner is shown"),
            reason(&j, "The banner is shown"),
        );
        (r, o, why)
    }
}
