//! The two-pane session (issue 11 item 3): `start` and `stop` against a real tmux server
//! of each test's own (`TMUX_TMPDIR` in a temporary folder, killed at the end even when
//! the test fails), outside tmux (a session `vermas-<repo>`) and inside it (`$TMUX`
//! pointing at the test's server: a new window); the status line the session shows; and
//! the `mail inbox --watch` / `inspect pending --watch` views its panes run, driven in
//! plain mode through a pipe.

use crate::common::*;
use crate::session::support::*;
use std::process::{Command, Output};
use std::time::{Duration, Instant};

mod panes;
mod start_stop;
pub mod support;
mod watch;
mod watch_plain;
mod watch_tmux;
