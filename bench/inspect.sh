#!/usr/bin/env bash
# Speed benchmark for the Inspector (`vermas inspect`): a bead with 10 criteria whose
# checks are instant (`true`), and the role stand-in fixtures/llm-roles as every LLM role.
#
#   bench/inspect.sh
#
# Prints hyperfine medians for:
#   inspect verify   the verifier alone (10 checks, no LLM): vermas's own time + 10 spawns
#   inspect run      the whole pipeline with instant roles (4 LLM calls), recorded and routed
#   inspect review   with advocate and critic each taking 1 s: wall time (goal <= 1.2 s)
set -euo pipefail
if [[ "${QUICK:-0}" == 1 ]]; then RUNS=${RUNS:-1} REVIEW_RUNS=${REVIEW_RUNS:-1}; fi
RUNS=${RUNS:-20}
REVIEW_RUNS=${REVIEW_RUNS:-5}
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
need_hyperfine

WORK=$(mktemp -d "${TMPDIR:-/tmp}/vermas-bench-inspect.XXXXXX")
trap 'rm -rf "$WORK"' EXIT
cd "$WORK"
init_bench_repo
sed -i "s|^  command: .*|  command: $ROOT/fixtures/llm-roles|" .beads/vermas.yaml
{
    printf -- '---\nid: vm-work\ntitle: Benchmark work\nstatus: in_progress\nissue_type: task\n---\n'
} > .beads/issues/vm-work.md
{
    printf -- '---\nid: vm-spec-work\ntitle: spec\nstatus: open\nissue_type: test-spec\nparent: vm-work\nacceptance_criteria:\n'
    for i in $(seq 1 10); do
        printf '  - {id: ac-%d, description: "criterion %d", verify_command: "true"}\n' "$i" "$i"
    done
    printf -- '---\n'
} > .beads/issues/vm-spec-work.md
git add -A && git commit -qm setup
# Approving stamps the criteria (a closed spec without the stamp is pending again).
"$VM" inspect approve vm-spec-work >/dev/null

hyperfine --style basic --warmup "$WARM" --runs "$RUNS" --export-json "$WORK/fast.json" \
    -n "inspect verify (10 criteria, no LLM)" "$VM inspect verify vm-work" \
    -n "inspect run (10 criteria, instant roles)" "$VM inspect run vm-work --no-cache" >&2 || true
FAKE_SLEEP_ADVOCATE=1 FAKE_SLEEP_CRITIC=1 hyperfine --style basic --warmup "$(( WARM ? 1 : 0 ))" --runs "$REVIEW_RUNS" \
    --export-json "$WORK/review.json" \
    -n "inspect review (advocate, critic 1 s each)" "$VM inspect review vm-work --no-cache" >&2 || true

python3 - "$WORK/fast.json" "$WORK/review.json" <<'PY'
import json, sys
print("| what | median |")
print("|---|---|")
for f in sys.argv[1:]:
    for r in json.load(open(f))["results"]:
        print(f"| {r['command']} | {r['median'] * 1000:.1f} ms |")
PY
