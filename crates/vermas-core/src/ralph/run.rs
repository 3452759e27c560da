//! A `ralph spec --verify/--judge` run in ralph's terms: the checked specs grouped under a
//! header each, every criterion reduced to ralph's PASS, FAIL or SKIP (a check that could
//! not run is a FAIL with its reason, never a PASS), and the tally. The checks themselves
//! run through [`crate::verify`]; this module only regroups their results.
//!
//! `ralph spec` leaves out criteria whose links are all of the kind not run; `ralph status`
//! shows them as the live-spec document does: `[SKIP] TEXT (verify only)` under `--judge`,
//! `(judge only)` under `--verify`, and a criterion without links `(no check defined)`.

use crate::check::Outcome;
use crate::verify::live::{AnnotationRun, Kinds, SpecRun};

/// Which checks a run includes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mode {
    /// `--verify`: `[verify]` links.
    Verify,
    /// `--judge`: `[judge]` links.
    Judge,
    /// `--all` (or both flags): every link.
    Both,
}

impl Mode {
    /// The mode the flags ask for; `None` when neither (the index, nothing runs).
    pub fn from_flags(verify: bool, judge: bool) -> Option<Mode> {
        match (verify, judge) {
            (true, true) => Some(Mode::Both),
            (true, false) => Some(Mode::Verify),
            (false, true) => Some(Mode::Judge),
            (false, false) => None,
        }
    }

    /// ralph's word for it in headers: `Verify`, `Judge`, `Verify+Judge`.
    pub fn label(self) -> &'static str {
        match self {
            Mode::Verify => "Verify",
            Mode::Judge => "Judge",
            Mode::Both => "Verify+Judge",
        }
    }

    /// The kinds of checks vermas runs for it.
    pub fn kinds(self) -> Kinds {
        Kinds {
            verify: self != Mode::Judge,
            judge: self != Mode::Verify,
        }
    }

    /// True when a link of `kind` (`verify`, `verify:NAME`, `judge`) runs in this mode.
    pub fn includes(self, kind: &crate::spec::AnnotationKind) -> bool {
        if kind.is_verify() {
            self != Mode::Judge
        } else {
            self != Mode::Verify
        }
    }
}

/// ralph's three verdicts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Verdict {
    /// `[PASS]`.
    Pass,
    /// `[FAIL]`: failed, could not run (ERROR) or judged both ways (UNSTABLE).
    Fail,
    /// `[SKIP]`.
    Skip,
}

impl Verdict {
    /// The verdict ralph shows for a vermas outcome: only a PASS is a pass.
    pub fn of(outcome: Outcome) -> Verdict {
        match outcome {
            Outcome::Pass => Verdict::Pass,
            Outcome::Skip => Verdict::Skip,
            Outcome::Fail | Outcome::Error | Outcome::Unstable => Verdict::Fail,
        }
    }

    /// `PASS`, `FAIL` or `SKIP`.
    pub fn word(self) -> &'static str {
        match self {
            Verdict::Pass => "PASS",
            Verdict::Fail => "FAIL",
            Verdict::Skip => "SKIP",
        }
    }
}

/// Which command a report is for: they differ in what they show of criteria not run.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Listing {
    /// `ralph spec`: criteria with links of other kinds only are left out; one without
    /// links is `(no annotation)`.
    Spec,
    /// `ralph status`: every criterion, as the live-spec document prints them.
    Status,
}

/// One line of a group: a criterion, or a problem with the spec file.
#[derive(Debug, Clone)]
pub enum Item {
    /// A criterion without an annotation: `[SKIP] TEXT (no annotation)`.
    Unannotated {
        /// The criterion text.
        text: String,
    },
    /// (`ralph status`) a criterion whose links are all of the kind not run:
    /// `[SKIP] TEXT (verify only)` or `(judge only)`.
    OtherKind {
        /// The criterion text.
        text: String,
        /// `verify only` or `judge only`.
        only: &'static str,
    },
    /// A criterion with links of the kinds run.
    Checked {
        /// The criterion text.
        text: String,
        /// What ralph shows.
        verdict: Verdict,
        /// The links that ran (or were settled without running), in file order.
        checks: Vec<AnnotationRun>,
    },
    /// Something wrong with the spec file itself (`path:line:col: message`): a FAIL.
    Problem(String),
}

impl Item {
    /// The verdict this line counts as.
    pub fn verdict(&self) -> Verdict {
        match self {
            Item::Unannotated { .. } | Item::OtherKind { .. } => Verdict::Skip,
            Item::Checked { verdict, .. } => *verdict,
            Item::Problem(_) => Verdict::Fail,
        }
    }
}

/// One spec's part of the report.
#[derive(Debug, Clone)]
pub struct Group {
    /// The spec's name (the header's label).
    pub label: String,
    /// Its molecule, shown in the header when known.
    pub molecule: Option<String>,
    /// Its lines, in file order.
    pub items: Vec<Item>,
}

impl Group {
    /// `Ralph <Mode>: <label> (<molecule>)`.
    pub fn header(&self, mode: Mode) -> String {
        match &self.molecule {
            Some(m) => format!("Ralph {}: {} ({m})", mode.label(), self.label),
            None => format!("Ralph {}: {}", mode.label(), self.label),
        }
    }
}

/// Counts of ralph's verdicts.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Tally {
    /// `[PASS]` lines.
    pub passed: usize,
    /// `[FAIL]` lines.
    pub failed: usize,
    /// `[SKIP]` lines.
    pub skipped: usize,
}

impl Tally {
    /// `X passed, Y failed, Z skipped`.
    pub fn line(self) -> String {
        format!(
            "{} passed, {} failed, {} skipped",
            self.passed, self.failed, self.skipped
        )
    }
}

/// A whole run in ralph's terms.
#[derive(Debug, Clone)]
pub struct Report {
    /// The mode it ran in.
    pub mode: Mode,
    /// One group per spec with criteria (or a problem), in path order.
    pub groups: Vec<Group>,
    /// Verdicts over every group.
    pub tally: Tally,
    /// One spec was asked for by name: the tally line has no `Summary:` prefix.
    pub single: bool,
    /// The command it is for.
    pub listing: Listing,
}

impl Report {
    /// The closing line: `X passed, Y failed, Z skipped` for one named spec, else
    /// `Summary: X passed, Y failed, Z skipped (N specs)`.
    pub fn summary(&self) -> String {
        if self.single {
            self.tally.line()
        } else {
            format!(
                "Summary: {} ({} specs)",
                self.tally.line(),
                self.groups.len()
            )
        }
    }

    /// The exit code: 1 when any line is a FAIL (a check failed or could not run), else 0.
    pub fn exit_code(&self) -> i32 {
        i32::from(self.tally.failed > 0)
    }
}

/// Regroups `runs` for `mode`: criteria with links only of kinds not run are left out
/// (`Listing::Spec`) or a SKIP line each (`Listing::Status`); specs with no criterion and
/// no problem are left out. `molecule` names each spec's molecule.
pub fn group(
    runs: &[SpecRun],
    mode: Mode,
    single: bool,
    listing: Listing,
    molecule: impl Fn(&SpecRun) -> Option<String>,
) -> Report {
    let mut tally = Tally::default();
    let mut groups = Vec::new();
    for run in runs {
        if run.criteria.is_empty() && run.problems.is_empty() {
            continue;
        }
        let mut items: Vec<Item> = run.problems.iter().cloned().map(Item::Problem).collect();
        for c in &run.criteria {
            if c.checks.is_empty() {
                items.push(Item::Unannotated {
                    text: c.text.clone(),
                });
                continue;
            }
            let checks: Vec<AnnotationRun> = c
                .checks
                .iter()
                .filter(|a| mode.includes(&a.kind))
                .cloned()
                .collect();
            if checks.is_empty() {
                if listing == Listing::Status {
                    let only = if mode == Mode::Judge {
                        "verify only"
                    } else {
                        "judge only"
                    };
                    items.push(Item::OtherKind {
                        text: c.text.clone(),
                        only,
                    });
                }
                continue;
            }
            items.push(Item::Checked {
                text: c.text.clone(),
                verdict: Verdict::of(c.outcome),
                checks,
            });
        }
        for item in &items {
            match item.verdict() {
                Verdict::Pass => tally.passed += 1,
                Verdict::Fail => tally.failed += 1,
                Verdict::Skip => tally.skipped += 1,
            }
        }
        groups.push(Group {
            label: run.name.clone(),
            molecule: molecule(run),
            items,
        });
    }
    Report {
        mode,
        groups,
        tally,
        single,
        listing,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn modes_follow_ralphs_flags_and_words() {
        let k = |text: &str| crate::spec::AnnotationKind::parse(text).expect("a kind");
        assert_eq!(Mode::from_flags(false, false), None);
        let both = Mode::from_flags(true, true).expect("mode");
        assert_eq!(both.label(), "Verify+Judge");
        assert!(both.includes(&k("judge")) && both.includes(&k("verify:wrapix")));
        let verify = Mode::from_flags(true, false).expect("mode");
        assert_eq!(verify.label(), "Verify");
        assert!(verify.includes(&k("verify")) && !verify.includes(&k("judge")));
        let judge = Mode::from_flags(false, true).expect("mode");
        assert!(judge.includes(&k("judge")) && !judge.includes(&k("verify:lint")));
        assert_eq!((judge.kinds().verify, judge.kinds().judge), (false, true));
    }

    #[test]
    fn only_a_pass_is_a_pass() {
        assert_eq!(Verdict::of(Outcome::Pass), Verdict::Pass);
        assert_eq!(Verdict::of(Outcome::Skip), Verdict::Skip);
        for o in [Outcome::Fail, Outcome::Error, Outcome::Unstable] {
            assert_eq!(Verdict::of(o), Verdict::Fail);
        }
    }

    #[test]
    fn the_summary_line_depends_on_how_specs_were_chosen() {
        let tally = Tally {
            passed: 2,
            failed: 1,
            skipped: 3,
        };
        let mut r = Report {
            mode: Mode::Verify,
            groups: Vec::new(),
            tally,
            single: true,
            listing: Listing::Spec,
        };
        assert_eq!(r.summary(), "2 passed, 1 failed, 3 skipped");
        assert_eq!(r.exit_code(), 1);
        r.single = false;
        assert_eq!(
            r.summary(),
            "Summary: 2 passed, 1 failed, 3 skipped (0 specs)"
        );
        r.tally.failed = 0;
        assert_eq!(r.exit_code(), 0);
        let g = Group {
            label: "notify".into(),
            molecule: Some("wx-q6x".into()),
            items: Vec::new(),
        };
        assert_eq!(g.header(Mode::Judge), "Ralph Judge: notify (wx-q6x)");
    }
}
