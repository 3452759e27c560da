//! Handler of `tasks verify`: run [VERIFY] task items; exit 0 pass, 1 fail, 3 (`--strict`)
//! could not be checked.

pub(super) mod args;

use super::CmdResult;
use super::output::versioned;
use super::tasks::args::TasksCmd;
use super::ui::{Ui, out};
use vermas_core::config::Config;
use vermas_core::error::Error;
use vermas_core::sys::contain::absolute;
use vermas_core::tasks::{self, Request, Settings};
use vermas_core::workspace::Workspace;

/// `tasks verify FILE`.
pub fn tasks(ui: &mut Ui, cmd: TasksCmd) -> CmdResult {
    let TasksCmd::Verify {
        file,
        mark,
        requirements,
        strict,
    } = cmd;
    // Commands run in the root of the git work tree holding the tasks file, else here.
    let cwd = std::env::current_dir().map_err(|e| Error::io(".", e))?;
    let folder = absolute(&file)
        .parent()
        .map_or_else(|| cwd.clone(), std::path::Path::to_path_buf);
    let root = vermas_core::workspace::git_root(&folder).unwrap_or(cwd);
    let (config, cache_dir) = match vermas_core::workspace::locate(&root) {
        Some(dir) => {
            let ws = Workspace::open(dir)?;
            let cache = ws.cache_dir();
            (ws.config, Some(cache))
        }
        None => (Config::default(), None),
    };
    let settings = Settings::from_config(root, &config, cache_dir);
    let req = Request {
        file,
        requirements,
        mark,
        strict,
    };
    let v = tasks::verify(&req, &settings)?;
    for w in &v.warnings {
        eprintln!("warning: {w}");
    }
    if ui.json {
        ui.json(&versioned(&v));
    } else {
        out!(ui, "{}", tasks::render::human(&v));
    }
    Ok(v.exit_code())
}
