# Shared helpers for the shell checks linked from specs/*.md. Sourced, never run.
# Each check makes a throwaway git repository and runs the real vermas binary in it.

# The vermas under test is the one running these checks: vermas puts its own path in
# VERMAS_BIN for every check it runs. Never a guess (an old build in target/, another
# vermas on PATH): without it, every check fails saying so.
VERMAS_ROOT=$(pwd)
VM=${VERMAS_BIN:-}

# need_vermas: fails, saying why, unless VERMAS_BIN names a runnable vermas.
need_vermas() {
  [ -n "$VM" ] && [ -x "$VM" ] && return 0
  echo "VERMAS_BIN is ${VM:-not set}${VM:+, which is not an executable}: run these checks through the vermas to verify (\`cargo run -- status --verify\` sets it to its own path), or set VERMAS_BIN=path/to/vermas"
  return 1
}

# fresh_repo: cd into a new git repository with vermas initialised (prefix vm).
fresh_repo() {
  need_vermas || return 1
  REPO=$(mktemp -d "${TMPDIR:-/tmp}/vermas-check.XXXXXX")
  trap 'rm -rf "$REPO"' EXIT
  cd "$REPO" || return 1
  git init -q -b main
  git config user.name "Spec Check"
  git config user.email check@example.com
  "$VM" init --prefix vm >/dev/null 2>&1 || { echo "vermas init failed"; return 1; }
  # These checks are about beads alone: no test spec with each new task.
  "$VM" config set specs.auto_create false >/dev/null 2>&1 || { echo "config set failed"; return 1; }
}

# expect DESCRIPTION COMMAND...: runs the command, fails loudly when it fails.
expect() {
  local what=$1; shift
  if ! "$@"; then echo "FAILED: $what"; return 1; fi
}
