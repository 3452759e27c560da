# Checks for specs/live-specs.md. Sourced by vermas's bash runner, one function per criterion.
source tests/cli/lib.sh

# spec_repo: a fresh repository with a spec whose criteria exercise each outcome.
spec_repo() {
  fresh_repo || return 1
  mkdir -p specs tests
  cat > tests/t.sh <<'SH'
check_ok() { echo fine; }
check_bad() { echo "expected 2, got 3"; return 1; }
check_skip() { exit 77; }
check_hang() { (sleep 60; echo late) & echo $! > hang.pid; sleep 60; }
check_marker() { touch ran.marker; }
SH
  cat > specs/demo.md <<'MD'
# Demo

## Success Criteria

- [ ] Works [verify](../tests/t.sh#check_ok)
- [ ] Broken [verify](../tests/t.sh#check_bad)
- [ ] Skipped by the test [verify](../tests/t.sh#check_skip)
- [ ] Nothing linked
- [ ] Shown in code only `[verify](tests/t.sh#check_marker)`
MD
}

test_report_outcomes_and_exit_code() {
  spec_repo || return 1
  out=$("$VM" status --verify); code=$?
  expect "exit 1 when a check fails (got $code)" [ "$code" -eq 1 ] || return 1
  expect "PASS line: $out" grep -q '\[PASS\] Works' <<<"$out" || return 1
  expect "FAIL with its output" grep -q 'expected 2, got 3' <<<"$out" || return 1
  expect "SKIP from exit 77" grep -q '\[SKIP\] Skipped by the test' <<<"$out" || return 1
  expect "no check defined" grep -q 'Nothing linked (no check defined)' <<<"$out" || return 1
  expect "inline code is not an annotation" [ ! -e ran.marker ] || return 1
  expect "criterion named as path:line" grep -q 'specs/demo.md:5' <<<"$out" || return 1
  expect "closing line" [ "$(tail -1 <<<"$out")" = "1 passed, 1 failed, 3 skipped" ]
}

test_timeout_kills_process_group() {
  spec_repo || return 1
  printf -- '- [ ] Hangs [verify](../tests/t.sh#check_hang "timeout=1s")\n' >> specs/demo.md
  out=$("$VM" status --verify --spec demo); code=$?
  expect "exit 1 (a FAIL is there too; got $code)" [ "$code" -eq 1 ] || return 1
  expect "timeout is an ERROR: $out" grep -q '\[ERROR\] Hangs' <<<"$out" || return 1
  pid=$(cat hang.pid)
  sleep 0.2
  # Killed means gone, or a zombie waiting for init to reap it.
  state=$(awk '/^State:/ {print $2}' "/proc/$pid/status" 2>/dev/null)
  expect "background grandchild $pid killed (state ${state:-gone})" [ -z "$state" ] || [ "$state" = Z ]
}

test_invalid_targets_never_run() {
  fresh_repo || return 1
  mkdir -p specs tests
  printf '#!/bin/sh\ntouch "ran-$1"\n' > tests/x.sh && chmod +x tests/x.sh
  cat > specs/bad.md <<'MD'
# Bad

## Success Criteria

- [ ] Dash [verify](../tests/x.sh#-rf)
- [ ] Shell [verify](../tests/x.sh#a;touch)
- [ ] Escape [verify](../../../x.sh#f)
MD
  out=$("$VM" status --verify); code=$?
  expect "exit 3: errors only (got $code)" [ "$code" -eq 3 ] || return 1
  expect "three errors: $out" [ "$(grep -c '\[ERROR\]' <<<"$out")" -eq 3 ] || return 1
  expect "nothing ran" [ -z "$(ls ran-* 2>/dev/null)" ]
}

test_judge_verdict_and_cache() {
  fresh_repo || return 1
  mkdir -p specs tests/judges
  echo "The answer is 42." > answer.txt
  cat > llm.sh <<'SH'
#!/bin/sh
prompt=$(cat)
echo call >> llm.log
case "$prompt" in *"The answer is 42"*) printf 'PASS\nThe file states the answer.\n' ;; *) printf 'FAIL\nNo answer.\n' ;; esac
SH
  chmod +x llm.sh
  "$VM" config set llm.command "$REPO/llm.sh" >/dev/null || return 1
  printf 'test_answer() {\n  judge_files answer.txt\n  judge_criterion "The file gives the answer"\n}\n' > tests/judges/a.sh
  printf '# J\n\n## Success Criteria\n\n- [ ] Answer given [judge](../tests/judges/a.sh#test_answer)\n' > specs/j.md
  out=$("$VM" status --judge) || { echo "judge run failed: $out"; return 1; }
  expect "PASS with reasoning: $out" grep -q 'The file states the answer' <<<"$out" || return 1
  "$VM" status --judge >/dev/null || return 1
  expect "unchanged second run asks the LLM nothing" [ "$(wc -l < llm.log)" -eq 1 ] || return 1
  echo "No answer here." > answer.txt
  out=$("$VM" status --judge); code=$?
  expect "changed file: FAIL, exit 1 (got $code)" [ "$code" -eq 1 ] || return 1
  expect "second call made" [ "$(wc -l < llm.log)" -eq 2 ]
}

test_judge_without_llm_is_error() {
  fresh_repo || return 1
  mkdir -p specs tests/judges
  # By hand: `config set` refuses a command whose program is not found.
  sed -i 's/^  command: .*/  command: "no-such-llm-command -p"/' .beads/vermas.yaml || return 1
  printf 'test_x() {\n  judge_files README.md\n  judge_criterion "x"\n}\n' > tests/judges/x.sh
  : > README.md
  printf '# J\n\n## Success Criteria\n\n- [ ] X [judge](../tests/judges/x.sh#test_x)\n' > specs/j.md
  out=$("$VM" status --judge); code=$?
  expect "exit 3 (got $code)" [ "$code" -eq 3 ] || return 1
  expect "tells how to configure: $out" grep -q 'llm.command' <<<"$out"
}

test_spec_check_finds_missing_function() {
  spec_repo || return 1
  printf -- '- [ ] Gone [verify](../tests/t.sh#test_gone)\n' >> specs/demo.md
  out=$("$VM" spec check 2>&1); code=$?
  expect "exit 1 (got $code)" [ "$code" -eq 1 ] || return 1
  expect "names the spot: $out" grep -q 'specs/demo.md:10:.*test_gone is not defined' <<<"$out" || return 1
  printf 'test_orphan() { :; }\n' >> tests/t.sh
  out=$("$VM" spec check 2>&1)
  expect "unreferenced test warned: $out" grep -q 'test_orphan is not referenced' <<<"$out"
}

test_spec_list_json_shape() {
  spec_repo || return 1
  out=$("$VM" spec list --json) || return 1
  python3 - "$out" <<'PY' || return 1
import json, sys
specs = json.loads(sys.argv[1])
c = specs[0]["criteria"][1]
assert specs[0]["path"] == "specs/demo.md", specs[0]
assert c["text"] == "Broken", c
a = c["annotations"][0]
assert (a["kind"], a["file"], a["function"], a["line"]) == ("verify", "tests/t.sh", "check_bad", 6), a
PY
}
