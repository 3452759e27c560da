//! `vermas report`: the page built from a scripted repository's committed ledger, read as
//! text and in headless Chromium (tests/browser/page.py), hostile text, `--since`, `--out`,
//! and the job summary `status --verify` appends under GITHUB_STEP_SUMMARY.

mod browser;
mod job_summary;
mod page;
mod scripted;
