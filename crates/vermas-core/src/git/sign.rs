//! Signing commits the way git does when `commit.gpgsign` is true: the commit object without
//! its signature goes to `gpg`, `gpgsm` or `ssh-keygen -Y sign` (per `gpg.format` and
//! `user.signingkey`), and the signature becomes its `gpgsig` header.

use super::GitRepo;
use crate::error::{Error, Result};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

/// How vermas signs its commits, read from git's configuration.
#[derive(Debug, Clone)]
pub(crate) enum Signer {
    /// OpenPGP or X.509: `PROGRAM --status-fd=2 -bsau KEY`, the payload on stdin, the
    /// armoured signature on stdout.
    Gpg {
        /// `gpg.<format>.program`, else `gpg.program` (openpgp), else `gpg` or `gpgsm`.
        program: String,
        /// `user.signingkey`, else the committer's `Name <email>`.
        key: String,
    },
    /// SSH: `PROGRAM -Y sign -n git -f KEYFILE [-U] FILE`, the signature in `FILE.sig`.
    Ssh {
        /// `gpg.ssh.program`, else `ssh-keygen`.
        program: String,
        /// `user.signingkey`: a key file, or a literal public key (`key::...` or
        /// `ssh-...`) whose private half is in the ssh agent.
        key: String,
    },
}

/// How to go on when vermas cannot sign as asked.
const WAYS_OUT: &str = "fix the signing setup, or commit unsigned in this repository \
     (`git config commit.gpgsign false`), or stop vermas committing \
     (`git: {commit: false}` in .beads/vermas.yaml) and commit .beads yourself";

impl GitRepo {
    /// The signer every commit needs: `None` unless `commit.gpgsign` is true. Refused
    /// (before anything is written) when signing is asked for but cannot be done as git
    /// would: an unknown `gpg.format`, no ssh key, or a signing program that is not found.
    pub(crate) fn signer(&self) -> Result<Option<Signer>> {
        let config = self.repo.config_snapshot();
        if !config.boolean("commit.gpgsign").unwrap_or(false) {
            return Ok(None);
        }
        let get = |key: &str| {
            config
                .string(key)
                .map(|v| v.to_string())
                .filter(|v| !v.trim().is_empty())
        };
        let refuse = |why: String| Err(Error::invalid_with_help(why, WAYS_OUT));
        let format = get("gpg.format").unwrap_or_else(|| "openpgp".to_string());
        let signer = match format.as_str() {
            "openpgp" | "x509" => {
                let default = if format == "x509" { "gpgsm" } else { "gpg" };
                let program = get(&format!("gpg.{format}.program"))
                    .or_else(|| (format == "openpgp").then(|| get("gpg.program")).flatten())
                    .unwrap_or_else(|| default.to_string());
                let key = match get("user.signingkey") {
                    Some(k) => k,
                    None => match self.repo.committer() {
                        Some(Ok(c)) => format!("{} <{}>", c.name, c.email),
                        _ => {
                            return refuse(
                                "commit.gpgsign is true but there is no user.signingkey and no \
                                 committer identity to pick a key by"
                                    .into(),
                            );
                        }
                    },
                };
                Signer::Gpg { program, key }
            }
            "ssh" => {
                let program = get("gpg.ssh.program").unwrap_or_else(|| "ssh-keygen".to_string());
                let Some(key) = get("user.signingkey") else {
                    return refuse(
                        "commit.gpgsign is true with gpg.format ssh but user.signingkey is not \
                         set (vermas does not run gpg.ssh.defaultKeyCommand)"
                            .into(),
                    );
                };
                if literal_key(&key).is_none() && !expand_home(&key).is_file() {
                    return refuse(format!(
                        "commit.gpgsign is true but the ssh signing key {key} (user.signingkey) \
                         does not exist"
                    ));
                }
                Signer::Ssh { program, key }
            }
            other => {
                return refuse(format!(
                    "commit.gpgsign is true but gpg.format '{other}' is unknown: vermas signs \
                     with openpgp, x509 or ssh"
                ));
            }
        };
        let program = match &signer {
            Signer::Gpg { program, .. } | Signer::Ssh { program, .. } => program,
        };
        if !crate::config::program_exists(program, &self.workdir) {
            return refuse(format!(
                "commit.gpgsign is true but the signing program '{program}' is not found"
            ));
        }
        Ok(Some(signer))
    }
}

impl Signer {
    /// The signature of `payload` (a commit object without `gpgsig`), as git stores it.
    pub(crate) fn sign(&self, payload: &[u8]) -> Result<String> {
        let sig = match self {
            Signer::Gpg { program, key } => {
                let out = run(
                    Command::new(program).args(["--status-fd=2", "-bsau", key]),
                    payload,
                    program,
                )?;
                let status = String::from_utf8_lossy(&out.stderr);
                if !out.status.success() || !status.contains("[GNUPG:] SIG_CREATED ") {
                    return Err(failed(program, &status));
                }
                out.stdout
            }
            Signer::Ssh { program, key } => sign_ssh(program, key, payload)?,
        };
        let text =
            String::from_utf8(sig).map_err(|_| Error::git("the commit signature is not text"))?;
        if text.trim().is_empty() {
            return Err(Error::git("signing produced an empty signature"));
        }
        Ok(text)
    }
}

/// `ssh-keygen -Y sign` on a temporary copy of the payload.
fn sign_ssh(program: &str, key: &str, payload: &[u8]) -> Result<Vec<u8>> {
    let buffer = TempFile::new("payload", payload)?;
    let key_file = match literal_key(key) {
        Some(public) => Some(TempFile::new("key", format!("{public}\n").as_bytes())?),
        None => None,
    };
    let key_path = match &key_file {
        Some(f) => f.0.clone(),
        None => expand_home(key),
    };
    let mut cmd = Command::new(program);
    cmd.args(["-Y", "sign", "-n", "git", "-f"]).arg(&key_path);
    if key_file.is_some() {
        cmd.arg("-U");
    }
    cmd.arg(&buffer.0);
    let out = run(&mut cmd, &[], program)?;
    let sig_path = PathBuf::from(format!("{}.sig", buffer.0.display()));
    let _sig_file = TempFile(sig_path.clone());
    if !out.status.success() {
        return Err(failed(program, &String::from_utf8_lossy(&out.stderr)));
    }
    std::fs::read(&sig_path).map_err(|e| Error::io(&sig_path, e))
}

/// Runs `cmd` with `input` on stdin and collects its output.
fn run(cmd: &mut Command, input: &[u8], program: &str) -> Result<std::process::Output> {
    let mut child = cmd
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|e| {
            Error::git_with(
                format!("cannot run the signing program '{program}': {e}"),
                e,
            )
        })?;
    let mut stdin = child.stdin.take();
    let input = input.to_vec();
    // Written from a thread so a chatty signer cannot block on a full pipe meanwhile.
    let writer = std::thread::spawn(move || {
        if let Some(s) = stdin.as_mut() {
            // A signer may exit without reading everything: its exit status says what happened.
            let _ = s.write_all(&input);
        }
    });
    let out = child
        .wait_with_output()
        .map_err(|e| Error::git_with(format!("the signing program '{program}' failed: {e}"), e))?;
    // The writer only fed stdin; the signer's own result decides.
    let _ = writer.join();
    Ok(out)
}

/// The error for a signer that did not sign; nothing is committed unsigned.
fn failed(program: &str, stderr: &str) -> Error {
    let said: Vec<&str> = stderr
        .lines()
        .filter(|l| !l.starts_with("[GNUPG:]") && !l.trim().is_empty())
        .collect();
    Error::git(format!(
        "{program} did not sign the commit, so nothing was committed: {}",
        if said.is_empty() {
            "no reason given".to_string()
        } else {
            said.join("; ")
        }
    ))
}

/// The public key written in `user.signingkey` itself (`key::...` or `ssh-...`), whose
/// private half the ssh agent holds; `None` for a key file.
fn literal_key(key: &str) -> Option<&str> {
    key.strip_prefix("key::")
        .or_else(|| key.starts_with("ssh-").then_some(key))
}

/// `~/x` made absolute against `$HOME`, as git expands `user.signingkey`.
fn expand_home(path: &str) -> PathBuf {
    match (path.strip_prefix("~/"), std::env::var_os("HOME")) {
        (Some(rest), Some(home)) => Path::new(&home).join(rest),
        _ => PathBuf::from(path),
    }
}

/// A file in the system's temporary folder, removed when dropped.
struct TempFile(PathBuf);

impl TempFile {
    /// A new file holding `bytes`, readable only by the user.
    fn new(what: &str, bytes: &[u8]) -> Result<TempFile> {
        use std::os::unix::fs::OpenOptionsExt;
        let nanos = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.subsec_nanos());
        let path =
            std::env::temp_dir().join(format!("vermas-sign-{what}-{}-{nanos}", std::process::id()));
        let mut f = std::fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .mode(0o600)
            .open(&path)
            .map_err(|e| Error::io(&path, e))?;
        let file = TempFile(path);
        f.write_all(bytes).map_err(|e| Error::io(&file.0, e))?;
        Ok(file)
    }
}

impl Drop for TempFile {
    fn drop(&mut self) {
        // Best effort: a temporary file left behind is harmless.
        let _ = std::fs::remove_file(&self.0);
    }
}
