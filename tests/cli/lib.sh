# Shared helpers for the shell checks linked from specs/*.md. Sourced, never run.
# Each check makes a throwaway git repository and runs the real vermas binary in it.

vermas_bin() {
  if [ -n "${VERMAS_BIN:-}" ]; then echo "$VERMAS_BIN"
  elif [ -x "$VERMAS_ROOT/target/debug/vermas" ]; then echo "$VERMAS_ROOT/target/debug/vermas"
  elif [ -x "$VERMAS_ROOT/target/release/vermas" ]; then echo "$VERMAS_ROOT/target/release/vermas"
  else command -v vermas
  fi
}

VERMAS_ROOT=$(pwd)
VM=$(vermas_bin)

# fresh_repo: cd into a new git repository with vermas initialised (prefix vm).
fresh_repo() {
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
