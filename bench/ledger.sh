#!/usr/bin/env bash
# The shared ledger's costs, each against its floor in one run (hyperfine, medians):
#   1. `vermas merge-file` of a bead with 200 notes (both sides added notes)   goal < 5 ms
#   2. `vermas sync` with nothing to do, against `git fetch && git push`       goal <= 1.0x
#   3. a write (`update --notes`) from a linked worktree, against the same
#      write in the main worktree                                               goal <= 1.1x
#   4. `vermas sync` merging one bead another clone changed (and pushing a local
#      change), against `git pull --no-rebase && git push` doing the same      goal <= 1.5x
#   5. contention: CLONES clones each making ROUNDS notes and syncing after each, all
#      at once without pause: how many syncs gave up (the remote kept moving through
#      every retry) and the slowest sync; afterwards every clone equal, each note once
# 2 and 4 run their two commands in turn (interleaved), each set up untimed before it.
# Env: VERMAS_BIN (else a release build), RUNS, CLONES (8), ROUNDS (15).
set -euo pipefail
if [[ "${QUICK:-0}" == 1 ]]; then RUNS=${RUNS:-1} NOTES=${NOTES:-10} CLONES=${CLONES:-2} ROUNDS=${ROUNDS:-2}; fi
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
git reset -q --hard HEAD~1
"$VM" update "$id" --notes "theirs" >/dev/null && cp ".beads/issues/$id.md" "$WORK/theirs.md"
hyperfine -N -w "$WARM" -r "$RUNS" --export-json "$WORK/1.json" \
    --prepare "cp $WORK/ours.md $WORK/o.md" \
    "$VM merge-file $WORK/base.md $WORK/o.md $WORK/theirs.md .beads/issues/$id.md" >/dev/null
echo "merge-file, $NOTES notes: $(median "$WORK/1.json" 0) ms (goal < 5 ms)"

log "2. sync with nothing to do"
cd "$WORK" && git init -q --bare -b main remote.git
cd "$WORK/m" && git remote add origin "$WORK/remote.git" && git push -q -u origin main
git clone -q "$WORK/remote.git" "$WORK/peer"
(cd "$WORK/peer" && git config user.name Peer && git config user.email peer@example.com \
    && git config gc.auto 0 && "$VM" list >/dev/null)
peer_id=$("$VM" q "Changed by the peer")
"$VM" sync >/dev/null && (cd "$WORK/peer" && "$VM" sync >/dev/null)

# interleaved OUT.json RUNS NAME PREPARE CMD [...]: each round runs every PREPARE (untimed)
# then its CMD (timed) in $WORK/m, in turn; medians of wall time written to OUT.json.
interleaved() {
    WARM=$(( WARM ? 2 : 0 )) python3 - "$@" <<'PY'
import json, os, statistics, subprocess, sys, time
out, runs, rest = sys.argv[1], int(sys.argv[2]), sys.argv[3:]
triples = [rest[i:i + 3] for i in range(0, len(rest), 3)]
times = {n: [] for n, _, _ in triples}
def sh(cmd):
    subprocess.run(["sh", "-c", cmd], check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
warm = int(os.environ["WARM"])
for r in range(runs + warm):
    for name, prep, cmd in triples:
        sh(prep.replace("ROUND", str(r)))
        t = time.perf_counter()
        sh(cmd)
        if r >= warm:
            times[name].append(time.perf_counter() - t)
json.dump({n: statistics.median(v) * 1000 for n, v in times.items()}, open(out, "w"))
PY
}
ratio() { python3 -c "import json,sys; d=json.load(open(sys.argv[1])); a,b=d[sys.argv[2]],d[sys.argv[3]]; print(f'{a:.1f} ms; {sys.argv[3]}: {b:.1f} ms; ratio {a/b:.2f}x')" "$@"; }
interleaved "$WORK/2.json" "$RUNS" \
    sync true "$VM sync" \
    git true "git fetch -q && git push -q"
echo "sync (nothing to do): $(ratio "$WORK/2.json" sync git) (goal <= 1.0x)"

log "3. a write from a linked worktree"
git worktree add -q "$WORK/wt" -b polecat/a
hyperfine -N -w "$WARM" -r "$RUNS" --export-json "$WORK/3.json" \
    "$VM update $id --notes main" \
    "bash -c 'cd $WORK/wt && exec $VM update $id --notes worktree'" >/dev/null
a=$(median "$WORK/3.json" 1); b=$(median "$WORK/3.json" 0)
echo "write from a linked worktree: $a ms; from the main worktree: $b ms; ratio $(python3 -c "print(f'{$a/$b:.2f}')")x (goal <= 1.1x)"

log "4. sync merging one bead the peer changed"
cd "$WORK/m"
prep="(cd $WORK/peer && $VM update $peer_id --notes peer-ROUND && $VM sync) && $VM update $id --notes local-ROUND"
interleaved "$WORK/4.json" "$RUNS" \
    sync "$prep" "$VM sync" \
    git "$prep-git" "git pull -q --no-rebase --no-edit && git push -q"
echo "sync merging one changed bead: $(ratio "$WORK/4.json" sync git) (goal <= 1.5x)"

log "5. contention: ${CLONES:=8} clones syncing ${ROUNDS:=15} times each without pause"
for c in $(seq 1 "$CLONES"); do
    git clone -q "$WORK/remote.git" "$WORK/c$c"
    (cd "$WORK/c$c" && git config user.name "C$c" && git config user.email c@example.com \
        && git config gc.auto 0 && "$VM" list >/dev/null)
done
for c in $(seq 1 "$CLONES"); do
    (
        cd "$WORK/c$c"
        for r in $(seq 1 "$ROUNDS"); do
            "$VM" update "$peer_id" --notes "contention-c$c-r$r-end" >/dev/null
            start=$(date +%s.%N)
            if "$VM" sync >/dev/null 2>"$WORK/c$c.err"; then ok=1; else ok=0; fi
            echo "$ok $(python3 -c "import sys; print(f'{float(sys.argv[2])-float(sys.argv[1]):.2f}')" "$start" "$(date +%s.%N)")"
        done >"$WORK/c$c.log"
    ) &
done
wait
for c in $(seq 1 "$CLONES"); do (cd "$WORK/c$c" && "$VM" sync >/dev/null); done
for c in $(seq 1 "$CLONES"); do (cd "$WORK/c$c" && "$VM" sync >/dev/null); done
cat "$WORK"/c*.log | python3 -c "
import sys
rows = [l.split() for l in sys.stdin if l.strip()]
failed = [float(t) for ok, t in rows if ok == '0']
slowest = max(float(t) for _, t in rows)
print(f'contention: {len(rows)} syncs, {len(failed)} gave up' + (f' (after {max(failed):.1f} s at most)' if failed else '') + f'; slowest sync {slowest:.1f} s')
"
cd "$WORK/c1"
tree=$(git rev-parse HEAD^{tree})
for c in $(seq 2 "$CLONES"); do
    [[ $(git -C "$WORK/c$c" rev-parse HEAD^{tree}) == "$tree" ]] || { echo "clone c$c differs" >&2; exit 1; }
done
n=$(grep -o 'contention-c[0-9]*-r[0-9]*-end' ".beads/issues/$peer_id.md" | sort | uniq -d | wc -l)
all=$(grep -o 'contention-c[0-9]*-r[0-9]*-end' ".beads/issues/$peer_id.md" | wc -l)
echo "contention: every clone equal; $all notes, $n written twice (goal: $((CLONES * ROUNDS)), 0)"
