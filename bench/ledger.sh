#!/usr/bin/env bash
# The shared ledger's costs, each against its floor in one run (hyperfine, medians):
#   1. `vermas merge-file` of a bead with 200 notes (both sides added notes)   goal < 5 ms
#   2. `vermas sync` with nothing to do, against `git fetch && git push`       goal <= 1.2x
#   3. a write (`update --notes`) from a linked worktree, against the same
#      write in the main worktree                                               goal <= 1.1x
# Env: VERMAS_BIN (else a release build), RUNS.
set -euo pipefail
if [[ "${QUICK:-0}" == 1 ]]; then RUNS=${RUNS:-1} NOTES=${NOTES:-10}; fi
RUNS=${RUNS:-30}
NOTES=${NOTES:-200}
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
need_hyperfine
WORK=$(mktemp -d "${TMPDIR:-/tmp}/vermas-ledger.XXXXXX")
trap 'rm -rf "$WORK"' EXIT
export PATH="$(dirname "$VM"):$PATH"

median() { # hyperfine JSON, result index -> median ms
    python3 -c "import json,statistics,sys; r=json.load(open(sys.argv[1]))['results'][int(sys.argv[2])]; print(f'{statistics.median(r[\"times\"])*1000:.1f}')" "$1" "$2"
}

log "1. merge-file on a bead with $NOTES notes"
mkdir "$WORK/m" && cd "$WORK/m" && init_bench_repo
id=$("$VM" q "Many notes")
for i in $(seq 1 "$NOTES"); do "$VM" update "$id" --notes "note $i" >/dev/null; done
cp ".beads/issues/$id.md" "$WORK/base.md"
"$VM" update "$id" --notes "ours" >/dev/null && cp ".beads/issues/$id.md" "$WORK/ours.md"
cp "$WORK/base.md" ".beads/issues/$id.md"
"$VM" update "$id" --notes "theirs" >/dev/null && cp ".beads/issues/$id.md" "$WORK/theirs.md"
hyperfine -N -w "$WARM" -r "$RUNS" --export-json "$WORK/1.json" \
    --prepare "cp $WORK/ours.md $WORK/o.md" \
    "$VM merge-file $WORK/base.md $WORK/o.md $WORK/theirs.md .beads/issues/$id.md" >/dev/null
echo "merge-file, $NOTES notes: $(median "$WORK/1.json" 0) ms (goal < 5 ms)"

log "2. sync with nothing to do"
cd "$WORK" && git init -q --bare -b main remote.git
cd "$WORK/m" && git remote add origin "$WORK/remote.git" && git push -q -u origin main
hyperfine -N -w "$WARM" -r "$RUNS" --export-json "$WORK/2.json" \
    "$VM sync" "bash -c 'git fetch -q && git push -q'" >/dev/null
a=$(median "$WORK/2.json" 0); b=$(median "$WORK/2.json" 1)
echo "sync (nothing to do): $a ms; git fetch && git push: $b ms; ratio $(python3 -c "print(f'{$a/$b:.2f}')")x (goal <= 1.2x)"

log "3. a write from a linked worktree"
git worktree add -q "$WORK/wt" -b polecat/a
hyperfine -N -w "$WARM" -r "$RUNS" --export-json "$WORK/3.json" \
    "$VM update $id --notes main" \
    "bash -c 'cd $WORK/wt && exec $VM update $id --notes worktree'" >/dev/null
a=$(median "$WORK/3.json" 1); b=$(median "$WORK/3.json" 0)
echo "write from a linked worktree: $a ms; from the main worktree: $b ms; ratio $(python3 -c "print(f'{$a/$b:.2f}')")x (goal <= 1.1x)"
