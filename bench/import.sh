#!/usr/bin/env bash
# `vermas import bd` of N generated bd issues (descriptions, labels, a dependency and a
# comment each), against its floor: splitting the same JSONL into one file per record,
# then `git add` and `git commit` (what any importer must at least do). Then `vermas export
# bd` of those N beads against `find .beads/issues -exec cat {} +` (reading every file
# once). Runs are interleaved (vermas, floor, vermas, floor, ...); the table shows medians,
# the ratio of the medians and the median peak RSS (/usr/bin/time's %M: the largest of the
# process and the children it waited for, so a git that vermas runs counts too). Run at
# two sizes, so the ratio of the times says whether import scales linearly. Export's goals
# (issue 20: at most 60 MB peak and 1.2x the floor, at 100,000 beads too) are printed under
# the table with whether each size meets them.
#
# With OLD_BIN set, the same import and export run with that binary too and the bench
# fails unless both leave byte-identical results (the committed .beads tree, the JSONL);
# that binary's export is also timed on the same store, in the same interleaved runs.
#
#   bench/import.sh                       # 5,000 and 10,000 issues, 3 runs each
#   SIZES="10000 50000" RUNS=5 bench/import.sh
#   SIZES=100000 OLD_BIN=/tmp/vermas-before bench/import.sh   # export's memory goal
#   OLD_BIN=/tmp/vermas-before bench/import.sh
# Env: VERMAS_BIN (else a release build), SIZES, RUNS, OLD_BIN.
set -euo pipefail
if [[ "${QUICK:-0}" == 1 ]]; then SIZES=${SIZES:-"50 100"} RUNS=${RUNS:-1}; fi
SIZES=${SIZES:-"5000 10000"}
RUNS=${RUNS:-3}
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
[[ -x /usr/bin/time ]] || { echo "/usr/bin/time is needed for peak memory" >&2; exit 1; }
export VERMAS_ACTOR=bench

WORK=$(mktemp -d "${TMPDIR:-/tmp}/vermas-import.XXXXXX")
trap 'rm -rf "$WORK"' EXIT
LOAD_START=$(cut -d' ' -f1-3 /proc/loadavg)

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

# floor FILE DIR: one file per record + git add + git commit, in a fresh repository (no
# background `gc --auto`, which 50k loose objects would start, slowing the next runs).
floor() {
    (cd "$2" && git init -q -b main && git config user.name b && git config user.email b@x &&
        mkdir -p recs && python3 - "$1" <<'PY'
import json, sys
for line in open(sys.argv[1]):
    rec = json.loads(line)
    with open(f"recs/{rec['id']}.md", "w") as f:
        f.write(line)
PY
        git add recs && git -c gc.auto=0 commit -qm floor)
}

# timed OUT CMD...: runs CMD, appends "seconds KB" to OUT.
timed() {
    local out=$1
    shift
    { /usr/bin/time -f '%e %M' -o "$out.one" "$@" >/dev/null; } 2>/dev/null
    cat "$out.one" >>"$out"
}

# import_once BIN N DIR: a fresh vermas repository in DIR, then BIN's import of N issues.
import_once() {
    rm -rf "$3" && mkdir -p "$3"
    (cd "$3" && init_bench_repo && timed "$WORK/t-import-$1-$2" "$VM" import bd "$WORK/bd-$2.jsonl")
}

: >"$WORK/rows"
for n in $SIZES; do
    gen "$n" "$WORK/bd-$n.jsonl"
    for ((r = 0; r < RUNS; r++)); do
        import_once vm "$n" "$WORK/v$n"
        rm -rf "$WORK/f$n" && mkdir -p "$WORK/f$n"
        timed "$WORK/t-floor-$n" bash -c "$(declare -f floor); floor '$WORK/bd-$n.jsonl' '$WORK/f$n'"
    done
    # Untimed first: the imports' writes reach the disk, the index is brought up to date and
    # the files are in the page cache, for every timed run alike.
    sync
    (cd "$WORK/v$n" && "$VM" export bd >/dev/null && find .beads/issues -name '*.md' -exec cat {} + >/dev/null)
    for ((r = 0; r < RUNS; r++)); do
        (cd "$WORK/v$n" && timed "$WORK/t-export-$n" "$VM" export bd)
        if [[ -n "${OLD_BIN:-}" ]]; then
            (cd "$WORK/v$n" && timed "$WORK/t-export_old-$n" "$(readlink -f "$OLD_BIN")" export bd)
        fi
        (cd "$WORK/v$n" && timed "$WORK/t-cat-$n" find .beads/issues -name '*.md' -exec cat {} +)
    done
    if [[ -n "${OLD_BIN:-}" ]]; then
        (VM=$(readlink -f "$OLD_BIN") && import_once old "$n" "$WORK/o$n" &&
            cd "$WORK/o$n" && "$VM" export bd >"$WORK/old-$n.jsonl")
        (cd "$WORK/v$n" && "$VM" export bd >"$WORK/new-$n.jsonl")
        new_tree=$(git -C "$WORK/v$n" rev-parse HEAD:.beads)
        old_tree=$(git -C "$WORK/o$n" rev-parse HEAD:.beads)
        [[ "$new_tree" == "$old_tree" ]] || { echo "import differs from OLD_BIN's at $n" >&2; exit 1; }
        cmp -s "$WORK/old-$n.jsonl" "$WORK/new-$n.jsonl" ||
            { echo "export differs from OLD_BIN's at $n" >&2; exit 1; }
        echo "$n: import tree and export identical to OLD_BIN's" >&2
    fi
    echo "$n" >>"$WORK/rows"
done

python3 - "$WORK" "$RUNS" "$LOAD_START" "$(cut -d' ' -f1-3 /proc/loadavg)" "$(nproc)" <<'PY'
import os, statistics, sys
work, runs, load_start, load_end, ncpu = sys.argv[1:]
def col(name, i):
    return statistics.median(float(l.split()[i]) for l in open(f"{work}/{name}"))
print(f"\nvermas import/export bd: medians of {runs} interleaved runs; {ncpu} CPUs, "
      f"load average {load_start} at start, {load_end} at end\n")
print(f"| {'command':<34} | {'issues':>6} | {'vermas s':>8} | {'floor s':>7} | {'ratio':>6} | {'RSS MB':>6} |")
print(f"|{'-' * 36}|{'-' * 8}|{'-' * 10}|{'-' * 9}|{'-' * 8}|{'-' * 8}|")
for n in open(f"{work}/rows").read().split():
    for what, floor, label in [("import-vm", "floor", "import bd vs split+git add+commit"),
                               ("export", "cat", "export bd vs find -exec cat"),
                               ("export_old", "cat", "OLD_BIN's export bd, the same")]:
        if not os.path.exists(f"{work}/t-{what}-{n}"):
            continue
        v, f = col(f"t-{what}-{n}", 0), col(f"t-{floor}-{n}", 0)
        rss = col(f"t-{what}-{n}", 1) / 1024
        print(f"| {label:<34} | {n:>6} | {v:8.2f} | {f:7.2f} | {v / max(f, 0.01):5.2f}x | {rss:6.1f} |")
GOAL_MB, GOAL_RATIO = 60, 1.2
print(f"\nexport bd goals (issue 20): peak RSS <= {GOAL_MB} MB, time <= {GOAL_RATIO}x the floor")
for n in open(f"{work}/rows").read().split():
    rss = col(f"t-export-{n}", 1) / 1024
    ratio = col(f"t-export-{n}", 0) / max(col(f"t-cat-{n}", 0), 0.01)
    met = "met" if rss <= GOAL_MB and ratio <= GOAL_RATIO else "MISSED"
    print(f"  {n:>6} beads: {rss:.1f} MB of {GOAL_MB}, {ratio:.2f}x of {GOAL_RATIO}x: {met}")
PY
