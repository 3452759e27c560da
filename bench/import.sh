#!/usr/bin/env bash
# `vermas import bd` of N generated bd issues (descriptions, labels, a dependency and a
# comment each), against its floor in the same run: splitting the same JSONL into one file
# per record, then `git add` and `git commit` (what any importer must at least do). Run at
# two sizes, so the ratio of the times says whether import scales linearly (2x the issues,
# about 2x the time) or worse; peak memory from /usr/bin/time.
#
#   bench/import.sh                  # 5,000 and 10,000 issues
#   SIZES="10000 50000" bench/import.sh
# Env: VERMAS_BIN (else a release build), SIZES.
set -euo pipefail
SIZES=${SIZES:-"5000 10000"}
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
[[ -x /usr/bin/time ]] || { echo "/usr/bin/time is needed for peak memory" >&2; exit 1; }

WORK=$(mktemp -d "${TMPDIR:-/tmp}/vermas-import.XXXXXX")
trap 'rm -rf "$WORK"' EXIT

# gen N FILE: N bd issues as bd exports them.
gen() {
    python3 - "$1" "$2" <<'PY'
import json, sys
n, out = int(sys.argv[1]), sys.argv[2]
with open(out, "w") as f:
    for i in range(n):
        issue = {
            "id": f"bd-{i:05x}", "title": f"Issue number {i}",
            "description": f"What issue {i} is about.\n\nSome detail, line two.",
            "status": ["open", "in_progress", "closed"][i % 3], "priority": i % 5,
            "issue_type": ["task", "bug", "feature"][i % 3],
            "created_at": "2025-10-10T12:00:00Z", "updated_at": "2025-10-11T12:00:00Z",
            "labels": [f"area{i % 7}"],
        }
        if i % 3 == 2:
            issue["closed_at"] = "2025-10-12T12:00:00Z"
        if i:
            issue["dependencies"] = [{"issue_id": issue["id"], "depends_on_id": f"bd-{i - 1:05x}",
                                      "type": "blocks", "created_at": "2025-10-10T12:00:00Z",
                                      "created_by": "bench"}]
        issue["comments"] = [{"id": i, "issue_id": issue["id"], "author": "bench",
                              "text": f"comment on {i}", "created_at": "2025-10-10T12:00:00Z"}]
        f.write(json.dumps(issue, separators=(",", ":")) + "\n")
PY
}

# floor FILE DIR: one file per record + git add + git commit, in a fresh repository.
floor() {
    (cd "$2" && git init -q -b main && git config user.name b && git config user.email b@x &&
        mkdir -p recs && python3 - "$1" <<'PY'
import json, sys
for line in open(sys.argv[1]):
    rec = json.loads(line)
    with open(f"recs/{rec['id']}.md", "w") as f:
        f.write(line)
PY
        git add recs && git commit -qm floor)
}

printf '%8s %12s %12s %8s %10s\n' issues "import (s)" "floor (s)" ratio "RSS (MB)"
for n in $SIZES; do
    gen "$n" "$WORK/bd-$n.jsonl"
    mkdir -p "$WORK/v$n" "$WORK/f$n"
    (cd "$WORK/v$n" && init_bench_repo)
    v=$( { cd "$WORK/v$n" && /usr/bin/time -f '%e %M' "$VM" import bd "$WORK/bd-$n.jsonl" >/dev/null; } 2>&1 | tail -1)
    f=$( { /usr/bin/time -f '%e' bash -c "$(declare -f floor); floor '$WORK/bd-$n.jsonl' '$WORK/f$n'"; } 2>&1 | tail -1)
    set -- $v
    python3 -c "print(f'{$n:8d} {$1:12.2f} {$f:12.2f} {$1/max($f,0.01):7.2f}x {$2/1024:10.1f}')"
done
