# Checks for specs/gates.md. Sourced by vermas's bash runner, one function per criterion.
source tests/cli/lib.sh

test_red_rejects_a_vanity_test() {
  fresh_repo || return 1
  id=$("$VM" q "Feature") || return 1
  out=$("$VM" gate red "$id" --cmd 'echo all tests passed'); code=$?
  expect "exit 1 (got $code)" [ "$code" -eq 1 ] || return 1
  expect "reject_vanity: $out" grep -q 'classification: reject_vanity' <<<"$out" || return 1
  out=$("$VM" gate red "$id" --cmd 'echo "--- FAIL: TestFeature (0.00s)"; exit 1'); code=$?
  expect "a real failure is accepted (got $code): $out" [ "$code" -eq 0 ]
}

test_green_rejects_flaky_runs() {
  fresh_repo || return 1
  id=$("$VM" q "Feature") || return 1
  out=$("$VM" gate green "$id" --cmd 'n=$(cat n 2>/dev/null || echo 0); echo $((n+1)) > n; [ $((n % 2)) -eq 0 ]'); code=$?
  expect "exit 1 (got $code)" [ "$code" -eq 1 ] || return 1
  expect "reject_flaky: $out" grep -q 'classification: reject_flaky' <<<"$out" || return 1
  expect "ran three times" [ "$(cat n)" -eq 3 ]
}

test_gate_evidence_is_committed() {
  fresh_repo || return 1
  id=$("$VM" q "Feature") || return 1
  before=$(git rev-list --count HEAD)
  "$VM" gate implement "$id" --cmd 'echo built' >/dev/null || return 1
  "$VM" gate implement "$id" --cmd 'echo built' >/dev/null || return 1
  expect "one commit per gate" [ "$(git rev-list --count HEAD)" -eq $((before + 2)) ] || return 1
  files=$(git show --name-only --format= HEAD | sort | tr '\n' ' ')
  expect "evidence and bead in the commit: $files" [ "$files" = ".beads/issues/$id.md .beads/results/$id.yaml " ] || return 1
  expect "attempt 2 recorded" grep -q 'attempt: 2' ".beads/results/$id.yaml" || return 1
  expect "noted on the bead" grep -q 'Gate implement: accept' ".beads/issues/$id.md" || return 1
  expect "clean" [ -z "$(git status --porcelain .beads)" ]
}

test_baseline_flags_checks_that_passed_before() {
  fresh_repo || return 1
  mkdir -p specs tests
  printf 'check_old() { true; }\ncheck_new() { test -f feature.txt; }\n' > tests/t.sh
  printf '# F\n\n## Success Criteria\n\n- [ ] Old [verify](../tests/t.sh#check_old)\n- [ ] New [verify](../tests/t.sh#check_new)\n' > specs/f.md
  git add -A && git commit -qm base && base=$(git rev-parse HEAD)
  echo done > feature.txt && git add -A && git commit -qm change
  out=$("$VM" status --verify --baseline "$base") || { echo "$out"; return 1; }
  expect "one vanity flag: $out" [ "$(grep -c 'passed before the change' <<<"$out")" -eq 1 ] || return 1
  expect "temporary worktree removed" [ "$(git worktree list | wc -l)" -eq 1 ]
}
