# Checks for specs/inspector.md. Sourced by vermas's bash runner, one function per criterion.
source tests/cli/lib.sh

# inspector_repo: a fresh repository whose new tasks get test specs, with the role
# stand-in as every LLM role.
inspector_repo() {
  fresh_repo || return 1
  "$VM" config set specs.auto_create true >/dev/null || return 1
  local llm="$VERMAS_ROOT/fixtures/llm-roles"
  sed -i "s|^  command: .*|  command: $llm|" .beads/vermas.yaml && git commit -qam "stand-in LLM"
}

test_sling_waits_for_an_approved_spec() {
  inspector_repo || return 1
  work=$("$VM" q "Implement FizzBuzz") || return 1
  spec=${work/vm-/vm-spec-}
  expect "the spec exists" [ -f ".beads/issues/$spec.md" ] || return 1
  if "$VM" sling "$work" polecat >/dev/null 2>&1; then echo "FAILED: sling went through"; return 1; fi
  "$VM" inspect add-criteria "$spec" -d "15 prints FizzBuzz" --cmd "test \"\$(./fb 15)\" = FizzBuzz" >/dev/null || return 1
  "$VM" inspect approve "$spec" >/dev/null || return 1
  "$VM" sling "$work" polecat >/dev/null || { echo "FAILED: sling after approval"; return 1; }
}

test_a_failing_check_overrules_the_judge() {
  inspector_repo || return 1
  work=$("$VM" q "Implement FizzBuzz") || return 1
  spec=${work/vm-/vm-spec-}
  "$VM" inspect add-criteria "$spec" -d "15 prints FizzBuzz" --cmd "test \"\$(./fb 15)\" = FizzBuzz" >/dev/null || return 1
  "$VM" inspect approve "$spec" >/dev/null || return 1
  printf '#!/bin/sh\necho Fizz\n' > fb && chmod +x fb && git add fb && git commit -qm fb
  before=$(git rev-list --count HEAD)
  out=$(FAKE_VERDICT=PASS "$VM" inspect run "$work"); code=$?
  expect "exit 1 (got $code): $out" [ "$code" -eq 1 ] || return 1
  expect "overruled: $out" grep -q "judge said PASS; overruled by ac-1 failing" <<<"$out" || return 1
  expect "one commit" [ "$(git rev-list --count HEAD)" -eq $((before + 1)) ] || return 1
  expect "work rejected" grep -q "^status: rejected" ".beads/issues/$work.md"
}
