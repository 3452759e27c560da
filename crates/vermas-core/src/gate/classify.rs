//! Classifying a gate run from its exit code and output: no judgement, only patterns.

use serde::Serialize;

/// The gate phases.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Phase {
    /// The new test must fail, for the right reason.
    Red,
    /// The tests must pass, every time.
    Green,
    /// The tests must still pass.
    Refactor,
    /// The work must build and check clean.
    Implement,
}

/// Every phase's name, in order.
pub const PHASES: &[&str] = &["red", "green", "refactor", "implement"];

impl std::str::FromStr for Phase {
    type Err = crate::error::Error;

    /// Parses a phase name (any case), naming the phases on failure.
    fn from_str(text: &str) -> Result<Phase, Self::Err> {
        Phase::parse(text).ok_or_else(|| {
            crate::error::Error::invalid_with_help(
                format!("unknown gate phase '{text}'"),
                format!("phases: {}", PHASES.join(", ")),
            )
        })
    }
}

impl Phase {
    /// Parses `red`, `green`, `refactor` or `implement` (any case).
    pub fn parse(text: &str) -> Option<Phase> {
        match text.to_ascii_lowercase().as_str() {
            "red" => Some(Phase::Red),
            "green" => Some(Phase::Green),
            "refactor" => Some(Phase::Refactor),
            "implement" => Some(Phase::Implement),
            _ => None,
        }
    }

    /// The lowercase name, as in config keys.
    pub fn name(self) -> &'static str {
        match self {
            Phase::Red => "red",
            Phase::Green => "green",
            Phase::Refactor => "refactor",
            Phase::Implement => "implement",
        }
    }
}

/// What a gate decided.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Classification {
    /// The phase's condition holds.
    Accept,
    /// RED: the test passed before any implementation.
    RejectVanity,
    /// The code did not compile, parse or import.
    RejectSyntax,
    /// It failed, and not in the way the phase needs.
    RejectFailure,
    /// GREEN: repeated runs disagreed.
    RejectFlaky,
}

impl std::fmt::Display for Classification {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Classification::Accept => "accept",
            Classification::RejectVanity => "reject_vanity",
            Classification::RejectSyntax => "reject_syntax",
            Classification::RejectFailure => "reject_failure",
            Classification::RejectFlaky => "reject_flaky",
        })
    }
}

/// Output that means a test ran and failed: go test, cargo test, pytest, jest and vitest,
/// node --test, bats and TAP, plain shell assertions.
pub(crate) const FAILURE_PATTERNS: &[&str] = &[
    "--- FAIL",
    "FAIL\t",
    "test result: FAILED",
    "panicked at",
    "failures:",
    "= FAILURES =",
    "FAILED ",
    "AssertionError",
    "assert ",
    " failed",
    "✕",
    "×",
    "FAIL ",
    "# fail ",
    "not ok ",
    "expected",
    "Expected",
];

/// Output that means the code did not compile, parse or import.
pub(crate) const SYNTAX_PATTERNS: &[&str] = &[
    "syntax error",
    "Syntax error",
    "SyntaxError",
    "IndentationError",
    "ImportError",
    "ModuleNotFoundError",
    "Cannot find module",
    "ERR_MODULE_NOT_FOUND",
    "error[E",
    "error: could not compile",
    "expected one of",
    "undefined: ",
    "cannot find package",
    "imported and not used",
    "error TS",
    "unexpected token",
    "unexpected EOF",
];

/// The patterns in force: built-ins plus config's extras.
#[derive(Debug, Clone, Default)]
pub struct Patterns {
    /// Extra failure substrings.
    pub failure: Vec<String>,
    /// Extra syntax substrings.
    pub syntax: Vec<String>,
}

impl Patterns {
    /// True when `output` shows a compile, parse or import error.
    pub fn is_syntax(&self, output: &str) -> bool {
        SYNTAX_PATTERNS.iter().any(|p| output.contains(p))
            || self.syntax.iter().any(|p| output.contains(p.as_str()))
    }

    /// True when `output` shows a test that ran and failed (`test result: ok. 0 failed` does
    /// not count: a zero failure count is no failure).
    pub fn is_test_failure(&self, output: &str) -> bool {
        let builtin = output
            .lines()
            .any(|l| FAILURE_PATTERNS.iter().any(|p| l.contains(p)) && !reports_zero_failures(l));
        builtin || self.failure.iter().any(|p| output.contains(p.as_str()))
    }

    /// The first line worth showing for a failed run.
    pub fn first_failure_line<'a>(&self, output: &'a str) -> Option<&'a str> {
        output
            .lines()
            .find(|l| self.is_syntax(l) || self.is_test_failure(l))
    }
}

/// True for summary lines such as `Tests: 0 failed` or `# fail 0`.
fn reports_zero_failures(line: &str) -> bool {
    let l = line.to_ascii_lowercase();
    l.contains("# fail 0") || l.contains(" 0 failed") || l.contains("failed: 0")
}

/// Classifies one run of `phase` that exited with `exit_code` (`None`: killed or timed out).
pub(crate) fn classify(
    phase: Phase,
    exit_code: Option<i32>,
    output: &str,
    p: &Patterns,
) -> Classification {
    let syntax = p.is_syntax(output);
    match (phase, exit_code) {
        (Phase::Red, Some(0)) if syntax => Classification::RejectSyntax,
        (Phase::Red, Some(0)) => Classification::RejectVanity,
        (Phase::Red, _) if syntax => Classification::RejectSyntax,
        (Phase::Red, Some(_)) if p.is_test_failure(output) => Classification::Accept,
        (Phase::Red, _) => Classification::RejectFailure,
        (_, Some(0)) => Classification::Accept,
        (_, _) if syntax => Classification::RejectSyntax,
        _ => Classification::RejectFailure,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn red_needs_a_real_failure() {
        let p = Patterns::default();
        assert_eq!(
            classify(Phase::Red, Some(0), "ok", &p),
            Classification::RejectVanity
        );
        assert_eq!(
            classify(Phase::Red, Some(1), "--- FAIL: TestX (0.00s)", &p),
            Classification::Accept
        );
        assert_eq!(
            classify(
                Phase::Red,
                Some(101),
                "test result: FAILED. 0 passed; 1 failed",
                &p
            ),
            Classification::Accept
        );
        assert_eq!(
            classify(Phase::Red, Some(1), "error[E0425]: cannot find value", &p),
            Classification::RejectSyntax
        );
        assert_eq!(
            classify(
                Phase::Red,
                Some(2),
                "E   ModuleNotFoundError: No module named 'x'",
                &p
            ),
            Classification::RejectSyntax
        );
        assert_eq!(
            classify(Phase::Red, Some(127), "sh: 1: nope: not found", &p),
            Classification::RejectFailure
        );
        assert_eq!(
            classify(Phase::Red, None, "", &p),
            Classification::RejectFailure
        );
    }

    #[test]
    fn green_and_friends() {
        let p = Patterns {
            failure: vec!["BOOM".into()],
            syntax: vec!["PARSE!".into()],
        };
        assert_eq!(
            classify(Phase::Green, Some(0), "all good", &p),
            Classification::Accept
        );
        assert_eq!(
            classify(Phase::Green, Some(1), "PARSE! at 3", &p),
            Classification::RejectSyntax
        );
        assert_eq!(
            classify(Phase::Refactor, Some(1), "x", &p),
            Classification::RejectFailure
        );
        assert_eq!(
            classify(Phase::Implement, Some(0), "", &p),
            Classification::Accept
        );
        assert!(p.is_test_failure("BOOM"));
        assert!(!p.is_test_failure("Tests: 0 failed, 3 passed"));
        assert_eq!(Phase::parse("GREEN"), Some(Phase::Green));
        assert_eq!(Phase::parse("blue"), None);
    }
}
