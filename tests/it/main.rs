//! The integration tests: one test binary (one link, one process) with a folder per
//! feature, named as the domain's modules are (beads, specs, checks, gates, inspect,
//! refinery, ledger, mol, mail, lsp, session, ralph, interop, report, cli). Each test drives
//! the real `vermas` binary on real temporary git repositories; `common` and a folder's
//! `support` module hold the shared set-up.

mod beads;
mod checks;
mod cli;
mod common;
mod docs;
mod gates;
mod inspect;
mod interop;
mod ledger;
mod lsp;
mod mail;
mod mol;
mod ralph;
mod refinery;
mod report;
mod session;
mod specs;
