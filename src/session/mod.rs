//! The two-pane session of `vermas start`: a tmux window with the mayor's pane on the
//! left and the inspector's on the right (config `layout`), a status line counting what
//! waits for them, found again by a second `start` and closed by `stop`.
//!
//! Each pane starts in its role's workspace (`.beads/roles/<role>/`, made by `init --roles
//! --workspaces`) when the role has one, else in the repository's root.
//!
//! Outside tmux the window lives in its own session, `vermas-<repo>`; inside tmux it is a
//! new window of the current session. Either way the window carries the repository's root
//! in its tmux option `@vermas-root`, which is how vermas finds it again.

pub mod changes;
pub mod status_line;
mod tmux;

use std::path::{Path, PathBuf};
use tmux::Answer;
use vermas_core::config::{Config, PaneConfig};
use vermas_core::error::{Error, Result};
use vermas_core::text::shell;
use vermas_core::workspace::Workspace;

pub use tmux::check_installed;

/// The tmux option (on the window) that names the repository a session window serves.
const ROOT_OPTION: &str = "@vermas-root";
/// The tmux option (on each pane) that names the pane's role.
const ROLE_OPTION: &str = "@vermas-role";
/// Seconds between two refreshes of the status line.
const STATUS_INTERVAL: &str = "5";

/// One pane: whose it is and what it runs.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct Pane {
    /// The role (`mayor`, `inspector`, ...).
    pub role: String,
    /// The start-up command, a shell line.
    pub command: String,
    /// Where it starts: the role's workspace, else the repository root.
    pub dir: PathBuf,
}

/// Everything `start` sets up for one repository.
#[derive(Debug, Clone, serde::Serialize)]
pub struct Plan {
    /// The session's name outside tmux (`vermas-<repo>`), also the window's name.
    pub name: String,
    /// The repository root: a pane without a workspace starts there.
    pub root: PathBuf,
    /// Width of the left pane in percent of the window.
    pub ratio: u32,
    /// The left pane.
    pub left: Pane,
    /// The right pane.
    pub right: Pane,
    /// The shell line that prints the status line.
    pub status_command: String,
}

/// The plan for `ws`, its panes running `exe` (this vermas binary).
pub fn plan(ws: &Workspace, exe: &Path) -> Plan {
    let exe = shell::word(&exe.to_string_lossy());
    let root = ws.root.clone();
    Plan {
        name: session_name(&root),
        ratio: ws.config.layout.ratio,
        left: pane(ws, &ws.config.layout.left, &exe),
        right: pane(ws, &ws.config.layout.right, &exe),
        status_command: format!(
            "cd {} && {exe} status-line",
            shell::word(&root.to_string_lossy())
        ),
        root,
    }
}

/// `vermas-<folder name of root>`, in the characters tmux accepts in a session name.
pub fn session_name(root: &Path) -> String {
    let folder = root
        .file_name()
        .map_or_else(|| "root".to_string(), |n| n.to_string_lossy().into_owned());
    let clean: String = folder
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '-' || c == '_' {
                c
            } else {
                '_'
            }
        })
        .collect();
    format!("vermas-{clean}")
}

/// The pane of `cfg`, in the role's workspace when it has one, else in the root.
fn pane(ws: &Workspace, cfg: &PaneConfig, exe: &str) -> Pane {
    let dir = if vermas_core::roles::workspace::exists(ws, &cfg.role) {
        vermas_core::roles::workspace::dir(ws, &cfg.role)
    } else {
        ws.root.clone()
    };
    Pane {
        role: cfg.role.clone(),
        command: pane_command(&ws.config, cfg, exe),
        dir,
    }
}

/// The command of pane `cfg`: its own, else its role's watch followed by the role's agent
/// (`agents.<role>`) once the watch ends (Ctrl-C ends the watch, not the pane).
fn pane_command(config: &Config, cfg: &PaneConfig, exe: &str) -> String {
    match &cfg.command {
        // tmux would read a trailing `;` as the end of its own command.
        Some(own) => own.trim_end_matches([';', ' ', '\t', '\n']).to_string(),
        None => {
            let watch = role_watch(&cfg.role, exe);
            match config.agents.get(&cfg.role) {
                Some(agent) => format!(
                    "trap : INT; {watch}; {}",
                    agent.trim_end_matches([';', ' ', '\t', '\n'])
                ),
                None => watch,
            }
        }
    }
}

/// What a role's pane shows by default: the inspector the test specs waiting for
/// approval, the mayor its inbox, an inspector role (critic, judge, ...) its own inbox.
fn role_watch(role: &str, exe: &str) -> String {
    match role {
        "inspector" => format!("{exe} inspect pending --watch"),
        "mayor" => format!("{exe} mail inbox mayor/ --watch"),
        other => format!("{exe} mail inbox inspector/{other} --watch"),
    }
}

/// True when this process runs inside tmux (`$TMUX` is set).
pub fn inside_tmux() -> bool {
    std::env::var_os("TMUX").is_some_and(|v| !v.is_empty())
}

/// A session window that is running.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct Opened {
    /// The tmux session it is in.
    pub session: String,
    /// tmux's id of the window (`@N`).
    pub window: String,
    /// True when this `start` made it; false when it was running already.
    pub created: bool,
    /// True when it is a window of the session vermas was started from (inside tmux).
    pub inside: bool,
}

/// Opens the session of `plan`, or finds the one running already. Inside tmux (`inside`)
/// it is a new window of the current session; outside, the session `plan.name`, sized
/// `size` (columns, rows) when known. Whatever fails half-way is closed again.
pub fn open(plan: &Plan, inside: bool, size: Option<(u16, u16)>) -> Result<Opened> {
    if let Some(found) = find(plan, inside)? {
        return Ok(found);
    }
    let mut args = window_args(plan, inside, size);
    if !inside {
        // In the same tmux command list, so the new window cannot be gone before it
        // splits. (A window made with -d is not the list's current one: inside tmux the
        // split names its pane instead.)
        args.push(";".into());
        args.extend(split_args(plan, None));
    }
    let out = tmux::run(&args.iter().map(String::as_str).collect::<Vec<_>>())?;
    let mut lines = out.lines();
    let first: Vec<&str> = lines.next().unwrap_or_default().split('\t').collect();
    let [session, window, left] = first[..] else {
        return Err(Error::Invalid(format!(
            "tmux did not say which window it opened: {out:?}"
        )));
    };
    let opened = Opened {
        session: session.to_string(),
        window: window.to_string(),
        created: true,
        inside,
    };
    let right = match lines.next() {
        Some(right) => Ok(right.trim().to_string()),
        None => {
            let split = split_args(plan, Some(left));
            tmux::run(&split.iter().map(String::as_str).collect::<Vec<_>>())
                .map(|out| out.trim().to_string())
        }
    };
    if let Err(e) = right.and_then(|right| decorate(plan, &opened, left, &right)) {
        close(&opened, &plan.name);
        return Err(e);
    }
    Ok(opened)
}

/// The tmux command that makes the window with the left pane, printing
/// `session<TAB>window id<TAB>pane id`: inside tmux a window of the current session, left
/// in the background (`attach` selects it); outside a detached session `plan.name`.
fn window_args(plan: &Plan, inside: bool, size: Option<(u16, u16)>) -> Vec<String> {
    let mut args: Vec<String> = if inside {
        ["new-window", "-d", "-n", &plan.name]
            .map(String::from)
            .into()
    } else {
        ["new-session", "-d", "-s", &plan.name, "-n", &plan.name]
            .map(String::from)
            .into()
    };
    if let Some((cols, rows)) = size.filter(|_| !inside) {
        args.extend(["-x".into(), cols.to_string(), "-y".into(), rows.to_string()]);
    }
    args.extend(["-c".into(), plan.left.dir.to_string_lossy().into_owned()]);
    args.extend(["-P".into(), "-F".into()]);
    args.push("#{session_name}\t#{window_id}\t#{pane_id}".into());
    args.push(plan.left.command.clone());
    args
}

/// The tmux command that splits the right pane off `left` (none: the current pane),
/// `100 - ratio` percent wide, printing its pane id.
fn split_args(plan: &Plan, left: Option<&str>) -> Vec<String> {
    let mut args: Vec<String> = ["split-window", "-h", "-d"].map(String::from).into();
    if let Some(pane) = left {
        args.extend(["-t".into(), pane.to_string()]);
    }
    args.extend(["-l".into(), format!("{}%", 100 - plan.ratio)]);
    args.extend(["-c".into(), plan.right.dir.to_string_lossy().into_owned()]);
    args.extend(["-P".into(), "-F".into(), "#{pane_id}".into()]);
    args.push(plan.right.command.clone());
    args
}

/// Marks the new window as this repository's, names each pane's role, keeps the ratio
/// when the window is resized, and sets up the status line: the session's own status
/// line, or (inside tmux, where the status line is the user's) the panes' top borders.
fn decorate(plan: &Plan, opened: &Opened, left: &str, right: &str) -> Result<()> {
    let win = opened.window.as_str();
    let root = plan.root.to_string_lossy();
    let status = format!("#({})", plan.status_command.replace('#', "##"));
    let border = if opened.inside {
        format!(" #{{{ROLE_OPTION}}} | {status} ")
    } else {
        format!(" #{{{ROLE_OPTION}}} ")
    };
    let resize = format!("resize-pane -t {left} -x {}%", plan.ratio);
    let mut steps: Vec<Vec<&str>> = vec![
        vec!["set-option", "-w", "-t", win, ROOT_OPTION, &root],
        vec!["set-option", "-p", "-t", left, ROLE_OPTION, &plan.left.role],
        vec![
            "set-option",
            "-p",
            "-t",
            right,
            ROLE_OPTION,
            &plan.right.role,
        ],
        vec!["set-hook", "-w", "-t", win, "window-resized", &resize],
        vec!["set-option", "-w", "-t", win, "pane-border-status", "top"],
        vec!["set-option", "-w", "-t", win, "pane-border-format", &border],
    ];
    if !opened.inside {
        // Session options, set on the session holding the window.
        steps.extend([
            vec!["set-option", "-t", win, "status-interval", STATUS_INTERVAL],
            vec!["set-option", "-t", win, "status-right-length", "120"],
            vec!["set-option", "-t", win, "status-right", &status],
        ]);
    }
    // One tmux command list: one process; tmux stops at the first step that fails.
    let list: Vec<&str> = steps.join(&";");
    tmux::run(&list).map(drop)
}

/// The running window of `plan`'s repository: inside tmux any window marked with its
/// root, outside the session named `plan.name` (refused when it serves another folder).
fn find(plan: &Plan, inside: bool) -> Result<Option<Opened>> {
    let ours = windows_of(&plan.root)?;
    if inside {
        return Ok(ours.into_iter().next().map(|(session, window)| Opened {
            inside: session != plan.name,
            session,
            window,
            created: false,
        }));
    }
    let target = format!("={}", plan.name);
    match tmux::ask(&["has-session", "-t", &target])? {
        Answer::Refused(_) => Ok(None),
        Answer::Done(_) => match ours.into_iter().find(|(s, _)| *s == plan.name) {
            Some((session, window)) => Ok(Some(Opened {
                session,
                window,
                created: false,
                inside: false,
            })),
            None => Err(Error::conflict(format!(
                "a tmux session named {} is running, but not for {}",
                plan.name,
                plan.root.display()
            ))
            .with_help(format!(
                "close it (`tmux kill-session -t {}`) or run `vermas start` inside tmux",
                plan.name
            ))),
        },
    }
}

/// `(session, window id)` of every window marked as serving `root`, on the server the
/// environment names; none when no server runs.
fn windows_of(root: &Path) -> Result<Vec<(String, String)>> {
    let format = format!("#{{session_name}}\t#{{window_id}}\t#{{{ROOT_OPTION}}}");
    let out = match tmux::ask(&["list-windows", "-a", "-F", &format])? {
        Answer::Done(out) => out,
        Answer::Refused(msg) if tmux::no_server(&msg) => return Ok(Vec::new()),
        Answer::Refused(msg) => {
            return Err(Error::Invalid(format!("tmux list-windows failed: {msg}")));
        }
    };
    let root = root.to_string_lossy();
    Ok(out
        .lines()
        .filter_map(|l| {
            let mut parts = l.splitn(3, '\t');
            let (session, window, marked) = (parts.next()?, parts.next()?, parts.next()?);
            (marked == root).then(|| (session.to_string(), window.to_string()))
        })
        .collect())
}

/// Closes what `open` made: the whole session when it is vermas's own, else the window.
fn close(opened: &Opened, name: &str) {
    // Best effort: what is gone already needs no closing.
    let _ = if opened.session == name && !opened.inside {
        tmux::ask(&["kill-session", "-t", &format!("={name}")])
    } else {
        tmux::ask(&["kill-window", "-t", &opened.window])
    };
}

/// The command a person types to attach to session `name`.
pub fn attach_command(name: &str) -> String {
    format!("tmux attach -t {}", shell::word(name))
}

/// Shows `opened` on this terminal: outside tmux attaches to its session (returning
/// tmux's exit code when the client detaches); inside, switches to its window.
pub fn attach(opened: &Opened) -> Result<i32> {
    if inside_tmux() {
        // Without a client (a script in a pane) there is nothing to switch: not an error.
        let _ = tmux::ask(&["switch-client", "-t", &format!("={}", opened.session)]);
        let _ = tmux::ask(&["select-window", "-t", &opened.window]);
        return Ok(0);
    }
    tmux::interactive(&["attach-session", "-t", &format!("={}", opened.session)])
}

/// Something `stop` closed.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct Stopped {
    /// `session` (vermas's own session) or `window` (a window in another session).
    pub kind: &'static str,
    /// The session.
    pub session: String,
    /// The window's id (`@N`).
    pub window: String,
}

/// Closes every running session window of the repository at `root`: vermas's own
/// session `name` entirely, windows in other sessions one by one. Empty when nothing ran.
pub fn stop(root: &Path, name: &str) -> Result<Vec<Stopped>> {
    let mut stopped: Vec<Stopped> = Vec::new();
    for (session, window) in windows_of(root)? {
        if session == name {
            if stopped
                .iter()
                .any(|s| s.session == session && s.kind == "session")
            {
                continue;
            }
            tmux::run(&["kill-session", "-t", &format!("={session}")])?;
            stopped.push(Stopped {
                kind: "session",
                session,
                window,
            });
        } else {
            tmux::run(&["kill-window", "-t", &window])?;
            stopped.push(Stopped {
                kind: "window",
                session,
                window,
            });
        }
    }
    Ok(stopped)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_keep_only_what_tmux_accepts() {
        assert_eq!(session_name(Path::new("/src/my.repo")), "vermas-my_repo");
        assert_eq!(
            session_name(Path::new("/src/web-app_2")),
            "vermas-web-app_2"
        );
    }

    #[test]
    fn panes_run_the_role_watch_then_the_agent() {
        let mut config = Config::default();
        let exe = "/bin/vermas";
        let mayor = pane_command(&config, &config.layout.left, exe);
        assert_eq!(mayor, "/bin/vermas mail inbox mayor/ --watch");
        let inspector = pane_command(&config, &config.layout.right, exe);
        assert_eq!(inspector, "/bin/vermas inspect pending --watch");
        config
            .agents
            .insert("mayor".into(), "claude --resume;".into());
        let mayor = pane_command(&config, &config.layout.left, exe);
        assert_eq!(
            mayor,
            "trap : INT; /bin/vermas mail inbox mayor/ --watch; claude --resume"
        );
        let critic = PaneConfig {
            role: "critic".into(),
            command: None,
        };
        assert_eq!(
            pane_command(&config, &critic, exe),
            "/bin/vermas mail inbox inspector/critic --watch"
        );
        let own = PaneConfig {
            role: "mayor".into(),
            command: Some("htop ;".into()),
        };
        assert_eq!(pane_command(&config, &own, exe), "htop");
    }
}
