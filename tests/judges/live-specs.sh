# Judge rubrics for specs/live-specs.md (run with `vermas status --judge`).

test_report_readable() {
  judge_files "crates/vermas-core/src/verify/report/mod.rs" "README.md"
  judge_criterion "The human verification report names each criterion with its outcome in brackets, shows where it lives as path:line so an editor can jump there, shows the failing output or the judge's reasoning under a failure, and ends with a plain 'N passed, N failed, N skipped' line."
}
