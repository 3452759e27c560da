# Checks for specs/beads.md. Sourced by vermas's bash runner, one function per criterion.
source tests/cli/lib.sh

test_create_commits_one_file() {
  fresh_repo || return 1
  local before after files
  before=$(git rev-list --count HEAD)
  id=$("$VM" q "First bead") || return 1
  after=$(git rev-list --count HEAD)
  expect "one new commit" [ "$after" -eq $((before + 1)) ] || return 1
  files=$(git show --name-only --format= HEAD)
  expect "commit holds only the bead file (got: $files)" [ "$files" = ".beads/issues/$id.md" ] || return 1
  expect "subject names verb, id and title" [ "$(git log -1 --format=%s)" = "vermas create: $id First bead" ] || return 1
  expect "status clean" [ -z "$(git status --porcelain .beads)" ] || return 1
  git fsck --strict --no-progress >/dev/null 2>&1 || { echo "fsck failed"; return 1; }
}

test_user_work_untouched() {
  fresh_repo || return 1
  echo one > tracked.txt && git add tracked.txt && git commit -qm base
  echo staged > staged.txt && git add staged.txt
  echo dirty >> tracked.txt
  local status_before; status_before=$(git status --porcelain -- ':!.beads')
  "$VM" q "Bead" >/dev/null || return 1
  expect "user's files unchanged in status" [ "$(git status --porcelain -- ':!.beads')" = "$status_before" ] || return 1
  expect "staged file not committed" [ -z "$(git show --name-only --format= HEAD | grep -v '^.beads/')" ] || return 1
  expect "staged file still staged" grep -qx staged.txt <<<"$(git diff --cached --name-only)"
}

test_ready_excludes_blocked_and_awaiting() {
  fresh_repo || return 1
  a=$("$VM" q "Blocker") && b=$("$VM" q "Blocked") && c=$("$VM" q "Question") || return 1
  "$VM" dep add "$b" "$a" >/dev/null && "$VM" clarify "$c" "Which one?" >/dev/null || return 1
  ready=$("$VM" ready --json) || return 1
  expect "blocker ready" grep -q "\"$a\"" <<<"$ready" || return 1
  expect "blocked bead not ready" bash -c "! grep -q '\"$b\"' <<<'$ready'" || return 1
  expect "awaiting bead not ready" bash -c "! grep -q '\"$c\"' <<<'$ready'" || return 1
  "$VM" close "$a" >/dev/null || return 1
  expect "closing the blocker frees it" bash -c "'$VM' ready --json | grep -q '\"$b\"'"
}

test_cycle_refused() {
  fresh_repo || return 1
  a=$("$VM" q "A") && b=$("$VM" q "B") || return 1
  "$VM" dep add "$a" "$b" >/dev/null || return 1
  local n; n=$(git rev-list --count HEAD)
  out=$("$VM" dep add "$b" "$a" 2>&1); code=$?
  expect "exit 2 on a cycle (got $code)" [ "$code" -eq 2 ] || return 1
  expect "the cycle is printed: $out" grep -q "$b -> $a -> $b" <<<"$out" || return 1
  expect "no commit made" [ "$(git rev-list --count HEAD)" -eq "$n" ]
}

test_malformed_bead_reported() {
  fresh_repo || return 1
  good=$("$VM" q "Good") || return 1
  printf -- '---\nid: vm-bad1\ntitle: Broken\nstatus: wip\n---\n' > .beads/issues/vm-bad1.md
  out=$("$VM" show vm-bad1 2>&1); code=$?
  expect "show fails with 2 (got $code)" [ "$code" -eq 2 ] || return 1
  expect "points at file:line:col: $out" grep -q 'issues/vm-bad1.md:4:9' <<<"$out" || return 1
  list=$("$VM" list 2>/dev/null) || return 1
  expect "list still shows the good bead" grep -q "$good" <<<"$list"
}

test_history_field_diff() {
  fresh_repo || return 1
  id=$("$VM" q "Track me") || return 1
  "$VM" close "$id" -r done >/dev/null || return 1
  out=$("$VM" history "$id") || return 1
  expect "newest first: $out" [ "$(head -1 <<<"$out" | grep -c 'vermas close')" -eq 1 ] || return 1
  expect "old status shown" grep -q -- '- status: open' <<<"$out" || return 1
  expect "new status shown" grep -q -- '+ status: closed' <<<"$out"
}

test_tree_cache_kept() {
  fresh_repo || return 1
  echo a > other.txt && git add other.txt && git commit -qm base && git status >/dev/null
  id=$("$VM" q "Kept") || return 1
  echo b >> other.txt && git add other.txt && git commit -qm "user commit"
  expect "bead still in HEAD after a plain git commit" grep -qx ".beads/issues/$id.md" <<<"$(git ls-tree -r --name-only HEAD)" || return 1
  expect "worktree clean" [ -z "$(git status --porcelain)" ]
}
