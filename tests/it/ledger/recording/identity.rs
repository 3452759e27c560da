//! The git identity and commit signing (SSH and OpenPGP), and refusing when either cannot be had.

use super::*;

/// Runs vermas with `envs` set and `EMAIL` (a git identity fallback) removed.
fn run_with(repo: &Repo, args: &[&str], envs: &[(&str, &str)]) -> Output {
    let mut c = repo.cmd(args);
    c.env_remove("EMAIL");
    for (k, v) in envs {
        c.env(k, v);
    }
    c.output().expect("run vermas")
}

/// Asserts `args` exit 2 with nothing committed or written, and returns stderr.
fn refused_before_writing(repo: &Repo, args: &[&str]) -> String {
    let head_before = head(repo);
    let files = issue_files(repo);
    let out = run_with(repo, args, &[]);
    assert_eq!(out.status.code(), Some(2), "{args:?}: {}", stderr(&out));
    assert_eq!(head(repo), head_before, "{args:?} committed");
    assert_eq!(issue_files(repo), files, "{args:?} wrote a bead");
    assert_eq!(repo.git(&["status", "--porcelain"]), "", "{args:?} wrote");
    assert!(!repo.join(".beads/.cache/pending").exists());
    stderr(&out)
}

#[test]
fn without_a_git_identity_nothing_is_committed_or_written() {
    let repo = Repo::initialised();
    let id = repo.create("exists", &[]);
    repo.git(&["config", "--unset", "user.name"]);
    repo.git(&["config", "--unset", "user.email"]);
    for args in [
        &["q", "no identity"][..],
        &["close", &id],
        &["config", "set", "judge.samples", "3"],
        &["mail", "send", "mayor/", "-s", "hi", "-m", "x"],
    ] {
        let err = refused_before_writing(&repo, args);
        assert!(
            err.contains("identity unknown")
                && err.contains("git config --global user.name")
                && err.contains("git config --global user.email")
                && err.contains("git.author"),
            "{args:?}: {err}"
        );
    }
    assert!(
        !repo
            .git(&["log", "--format=%ae"])
            .contains("vermas@localhost"),
        "no made-up identity"
    );
    // git's environment variables are an identity, as for git itself.
    let out = run_with(
        &repo,
        &["q", "from the environment"],
        &[
            ("GIT_AUTHOR_NAME", "Env Author"),
            ("GIT_AUTHOR_EMAIL", "env@example.com"),
            ("GIT_COMMITTER_NAME", "Env Committer"),
            ("GIT_COMMITTER_EMAIL", "envc@example.com"),
        ],
    );
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(
        repo.git(&["log", "-1", "--format=%an <%ae>|%cn <%ce>"])
            .trim(),
        "Env Author <env@example.com>|Env Committer <envc@example.com>"
    );
    // git.author can be set without an identity, and then signs every commit.
    let out = run_with(
        &repo,
        &["config", "set", "git.author", "Bot <bot@example.com>"],
        &[],
    );
    assert!(out.status.success(), "{}", stderr(&out));
    let out = run_with(&repo, &["q", "by the bot"], &[]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(
        repo.git(&["log", "-2", "--format=%an <%ae>|%cn <%ce>"]),
        "Bot <bot@example.com>|Bot <bot@example.com>\n".repeat(2)
    );
    assert_eq!(repo.git(&["status", "--porcelain"]), "");
}

#[test]
fn init_without_a_git_identity_creates_nothing() {
    let repo = Repo::new();
    repo.git(&["config", "--unset", "user.name"]);
    let out = run_with(&repo, &["init", "--prefix", "vm"], &[]);
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert!(stderr(&out).contains("git config --global user.name"));
    assert!(!repo.join(".beads").exists(), ".beads was created");
    assert!(git_raw(&repo, &["rev-parse", "HEAD"]).status.code() != Some(0));
}

/// A throwaway ssh key pair in its own folder: (folder, private key path).
fn ssh_key() -> (tempfile::TempDir, std::path::PathBuf) {
    let dir = tempfile::tempdir().expect("tempdir");
    let key = dir.path().join("id_ed25519");
    let out = std::process::Command::new("ssh-keygen")
        .args(["-q", "-t", "ed25519", "-N", "", "-C", "vermas-test", "-f"])
        .arg(&key)
        .output()
        .expect("ssh-keygen is needed for this test");
    assert!(out.status.success(), "{}", stderr(&out));
    (dir, key)
}

#[test]
fn with_commit_gpgsign_and_an_ssh_key_every_commit_is_signed() {
    let repo = Repo::initialised();
    let (dir, key) = ssh_key();
    let public = std::fs::read_to_string(key.with_extension("pub")).expect("public key");
    let allowed = dir.path().join("allowed_signers");
    std::fs::write(&allowed, format!("test@example.com {public}")).expect("write");
    repo.git(&["config", "gpg.format", "ssh"]);
    repo.git(&["config", "user.signingkey", key.to_str().expect("utf-8")]);
    repo.git(&[
        "config",
        "gpg.ssh.allowedSignersFile",
        allowed.to_str().expect("utf-8"),
    ]);
    repo.git(&["config", "commit.gpgsign", "true"]);
    let before = repo.commit_count();
    let id = repo.create("Signed", &[]);
    repo.ok(&["close", &id, "-r", "signed too"]);
    repo.ok(&["config", "set", "judge.samples", "3"]);
    assert_eq!(repo.commit_count(), before + 3);
    for rev in ["HEAD", "HEAD~1", "HEAD~2"] {
        let out = git_raw(&repo, &["verify-commit", rev]);
        assert!(
            out.status.success(),
            "{rev} does not verify: {}",
            stderr(&out)
        );
    }
    assert_eq!(repo.git(&["log", "-3", "--format=%G?"]), "G\nG\nG\n");
    assert_eq!(repo.git(&["status", "--porcelain"]), "");
    repo.assert_fsck();
}

/// Ends the gpg agent a test started for its own GNUPGHOME.
struct GpgHome(tempfile::TempDir);

impl Drop for GpgHome {
    fn drop(&mut self) {
        let _ = std::process::Command::new("gpgconf")
            .args(["--kill", "gpg-agent"])
            .env("GNUPGHOME", self.0.path())
            .output();
    }
}

#[test]
fn with_commit_gpgsign_and_openpgp_every_commit_is_signed_by_gpg() {
    let repo = Repo::initialised();
    let home = GpgHome(tempfile::tempdir().expect("tempdir"));
    let gnupg = home.0.path().to_str().expect("utf-8").to_string();
    let out = std::process::Command::new("gpg")
        .args(["--batch", "--passphrase", "", "--quick-gen-key"])
        .args(["Test User <test@example.com>", "ed25519", "sign", "never"])
        .env("GNUPGHOME", &gnupg)
        .output()
        .expect("gpg is needed for this test");
    assert!(out.status.success(), "{}", stderr(&out));
    repo.git(&["config", "commit.gpgsign", "true"]);
    // No user.signingkey: the key is chosen by the committer's identity, as git does.
    let out = repo
        .cmd(&["q", "Signed by gpg"])
        .env("GNUPGHOME", &gnupg)
        .output()
        .expect("run");
    assert!(out.status.success(), "{}", stderr(&out));
    let verify = std::process::Command::new("git")
        .current_dir(repo.path())
        .args(["verify-commit", "HEAD"])
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("HOME", repo.path())
        .env("GNUPGHOME", &gnupg)
        .output()
        .expect("git verify-commit");
    assert!(verify.status.success(), "{}", stderr(&verify));
    assert!(
        stderr(&verify).contains("Good signature"),
        "{}",
        stderr(&verify)
    );
    repo.assert_fsck();
}

#[test]
fn signing_that_cannot_be_done_is_refused_and_nothing_is_committed_unsigned() {
    let repo = Repo::initialised();
    let id = repo.create("exists", &[]);
    repo.git(&["config", "commit.gpgsign", "true"]);
    repo.git(&["config", "gpg.format", "ssh"]);
    // No key at all, or a key file that is not there: refused before anything is written.
    let err = refused_before_writing(&repo, &["q", "unsigned"]);
    assert!(err.contains("user.signingkey"), "{err}");
    assert!(err.contains("git config commit.gpgsign false"), "{err}");
    assert!(err.contains("commit: false"), "{err}");
    repo.git(&["config", "user.signingkey", "/nonexistent/key"]);
    let err = refused_before_writing(&repo, &["close", &id]);
    assert!(err.contains("/nonexistent/key"), "{err}");
    // A signing program that is not found.
    repo.git(&["config", "gpg.format", "openpgp"]);
    repo.git(&["config", "gpg.program", "vermas-no-such-gpg"]);
    let err = refused_before_writing(&repo, &["label", "add", &id, "x"]);
    assert!(err.contains("vermas-no-such-gpg"), "{err}");
    // A key that fails when used: the commit is not made, signed or not.
    let (_dir, key) = ssh_key();
    std::fs::write(&key, "not a key\n").expect("spoil key");
    repo.git(&["config", "gpg.format", "ssh"]);
    repo.git(&["config", "user.signingkey", key.to_str().expect("utf-8")]);
    let before = head(&repo);
    let out = run_with(&repo, &["q", "bad key"], &[]);
    assert!(!out.status.success());
    assert!(stderr(&out).contains("did not sign"), "{}", stderr(&out));
    assert_eq!(head(&repo), before, "an unsigned commit was made");
    // Turning signing off for the repository lets the change through.
    repo.git(&["config", "commit.gpgsign", "false"]);
    repo.ok(&["close", &id]);
    assert_eq!(
        repo.git(&["log", "--format=%G?"]).trim().lines().next(),
        Some("N")
    );
}

#[test]
fn a_commit_carries_the_local_offset_git_would_give_it() {
    let repo = Repo::initialised();
    for (tz, offset) in [("ABC-5:30", "+0530"), ("XYZ+3", "-0300"), ("UTC0", "+0000")] {
        let out = run_with(&repo, &["q", &format!("made in {tz}")], &[("TZ", tz)]);
        assert!(out.status.success(), "{tz}: {}", stderr(&out));
        let vermas = repo.git(&["log", "-1", "--format=%ai"]);
        assert!(
            vermas.trim().ends_with(offset),
            "TZ={tz}: vermas committed at {vermas}, want {offset}"
        );
    }
}
