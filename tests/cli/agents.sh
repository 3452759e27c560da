# Checks for specs/agents.md. Sourced by vermas's bash runner, one function per criterion.
source tests/cli/lib.sh

test_mail_send_read_commits() {
  fresh_repo || return 1
  before=$(git rev-list --count HEAD)
  out=$("$VM" mail send mayor/ -s "Need a decision" -m "Which CI?" --from gastown/polecat-1 --json) || return 1
  id=$(python3 -c 'import json,sys; print(json.loads(sys.argv[1])["id"])' "$out") || return 1
  expect "message file written" [ -f ".beads/mail/mayor/$id.md" ] || return 1
  expect "one commit for the send" [ "$(git rev-list --count HEAD)" -eq $((before + 1)) ] || return 1
  inbox=$("$VM" mail inbox mayor/) || return 1
  expect "inbox lists it: $inbox" grep -q "Need a decision" <<<"$inbox" || return 1
  "$VM" mail read "$id" >/dev/null || return 1
  expect "read is recorded" grep -q '^read: true' ".beads/mail/mayor/$id.md" || return 1
  expect "one commit for the read" [ "$(git rev-list --count HEAD)" -eq $((before + 2)) ]
}

test_mail_wait_returns_the_reply() {
  fresh_repo || return 1
  out=$("$VM" mail send mayor/ -s "Question" -m "A or B?" --from gastown/polecat-1 --json) || return 1
  id=$(python3 -c 'import json,sys; print(json.loads(sys.argv[1])["id"])' "$out") || return 1
  ( sleep 0.5; "$VM" mail reply "$id" -m "B" --from mayor/ >/dev/null ) &
  got=$("$VM" mail wait "$id" --timeout 10s); code=$?
  wait
  expect "wait exits 0 (got $code)" [ "$code" -eq 0 ] || return 1
  expect "the reply is printed: $got" grep -q "B" <<<"$got" || return 1
  "$VM" mail wait "$id-nope" --timeout 1s >/dev/null 2>&1
  expect "an unknown message is refused" [ $? -eq 2 ]
}

test_molecule_steps_follow_needs() {
  fresh_repo || return 1
  mkdir -p .beads/formulas
  cat > .beads/formulas/flow.formula.toml <<'TOML'
formula = "flow"
description = "Two steps"
version = 1

[[steps]]
id = "build"
title = "Build it"

[[steps]]
id = "ship"
title = "Ship it"
needs = ["build"]
TOML
  bead=$("$VM" q "Work") || return 1
  mol=$("$VM" mol pour flow --bead "$bead" --json | python3 -c 'import json,sys; print(json.load(sys.stdin)["id"])') || return 1
  "$VM" mol done "$mol" ship >/dev/null 2>&1
  expect "done refuses a step whose needs are incomplete" [ $? -eq 2 ] || return 1
  "$VM" mol done "$mol" build --output built >/dev/null || return 1
  "$VM" mol done "$mol" ship >/dev/null || return 1
  expect "both steps complete: $("$VM" mol show "$mol")" grep -q "2/2" <<<"$("$VM" mol show "$mol")"
}

test_mol_run_executes_ready_steps() {
  fresh_repo || return 1
  mkdir -p .beads/formulas
  printf 'formula = "pair"\n\n[[steps]]\nid = "a"\ntitle = "A"\n\n[[steps]]\nid = "b"\ntitle = "B"\nneeds = ["a"]\n' > .beads/formulas/pair.formula.toml
  git add .beads/formulas && git commit -qm "a formula"
  bead=$("$VM" q "Work") || return 1
  mol=$("$VM" mol pour pair --bead "$bead" --json | python3 -c 'import json,sys; print(json.load(sys.stdin)["id"])') || return 1
  out=$("$VM" mol run "$mol" --handler 'cat > /dev/null; echo ok') ; code=$?
  expect "all steps complete (exit $code): $out" [ "$code" -eq 0 ] || return 1
  expect "clean" [ -z "$(git status --porcelain .beads)" ]
}

test_pre_push_gate_blocks_a_failing_spec() {
  fresh_repo || return 1
  remote=$(mktemp -d) && git init -q --bare "$remote" && git remote add origin "$remote"
  mkdir -p specs tests
  printf 'check_bad() { return 1; }\n' > tests/t.sh
  printf '# S\n\n## Success Criteria\n\n- [ ] Works [verify](../tests/t.sh#check_bad)\n' > specs/s.md
  git add -A && git commit -qm work
  "$VM" hooks install >/dev/null || return 1
  PATH="$(dirname "$VM"):$PATH" git push -q origin main >/dev/null 2>&1
  expect "push refused" [ -z "$(git --git-dir="$remote" rev-parse --verify -q refs/heads/main)" ] || return 1
  PATH="$(dirname "$VM"):$PATH" VERMAS_SKIP=1 git push -q origin main >/dev/null 2>&1
  expect "VERMAS_SKIP lets it through" [ -n "$(git --git-dir="$remote" rev-parse --verify -q refs/heads/main)" ]
  rm -rf "$remote"
}
