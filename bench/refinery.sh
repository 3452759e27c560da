#!/usr/bin/env bash
# Speed benchmark for the Refinery (`vermas refinery run --once`): landing one branch on a
# repository of 1,000 files, with one instant check (`true`) and an instant stand-in for
# every LLM role, against doing the same by hand on the same repository:
#
#   git worktree add --detach DIR release && git -C DIR merge --no-ff feature
#     && git worktree remove --force DIR
#
#   bench/refinery.sh               # FILES=1000, 5 rounds of 6 runs each
#   FILES=5000 bench/refinery.sh
#   TMPDIR=/dev/shm bench/refinery.sh   # on tmpfs: without the disk's noise
#
# Env: VERMAS_BIN (else a release build), FILES, ROUNDS, PER_ROUND, KEEP=1 (keep the
# work folder).
#
# Prints hyperfine medians for:
#   by hand            worktree add + merge + worktree remove
#   refinery run       the whole request: the verifying commit, the merge built with
#                      merge-tree/commit-tree, the worktree, the Inspector's pipeline (the
#                      check and 4 stand-in role calls), the compare-and-swap, the record
#                      commit, the worktree removed
#   inspect run        the same pipeline alone in the checkout (check, roles, record)
# and the ratios: refinery / by hand, and (refinery - inspect run) / by hand, i.e.
# vermas's own refinery work (worktree, merge, bookkeeping) without the checks and roles.
# Goal: vermas's own time at most 2x the hand-made merge.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
need_hyperfine

FILES=${FILES:-1000}
ROUNDS=${ROUNDS:-5}
PER_ROUND=${PER_ROUND:-6}
WORK=$(mktemp -d "${TMPDIR:-/tmp}/vermas-bench-refinery.XXXXXX")
cleanup() { if [[ "${KEEP:-0}" == 1 ]]; then log "kept $WORK"; else rm -rf "$WORK"; fi; }
trap cleanup EXIT
REPO="$WORK/repo"
mkdir -p "$REPO" "$WORK/tmp"
cd "$REPO"
init_bench_repo

# One reply fits every role: the judge reads the verdict, the others only need a reply.
cat > "$WORK/llm" <<'SH'
#!/bin/sh
cat >/dev/null
echo '{"verdict": "PASS", "confidence": 0.95, "reasons": ["instant stand-in"]}'
SH
chmod +x "$WORK/llm"
sed -i "s|^  command: .*|  command: $WORK/llm|" .beads/vermas.yaml

log "generating $FILES files"
python3 - "$FILES" <<'PY'
import os, sys
n = int(sys.argv[1])
for i in range(n):
    d = f"src/m{i % 20:02d}"
    os.makedirs(d, exist_ok=True)
    with open(f"{d}/f{i:05d}.txt", "w") as f:
        f.write(f"file {i}\n" * 20)
PY
printf -- '---\nid: vm-work\ntitle: Benchmark work\nstatus: in_progress\nissue_type: task\n---\n' \
    > .beads/issues/vm-work.md
printf -- '---\nid: vm-spec-work\ntitle: spec\nstatus: closed\nissue_type: test-spec\nparent: vm-work\nacceptance_criteria:\n  - {id: ac-1, description: "instant", verify_command: "true"}\n---\n' \
    > .beads/issues/vm-spec-work.md
git add -A && git commit -qm setup
git branch release
git switch -q -c feature
echo "changed" >> src/m00/f00000.txt
echo "new" > src/m01/added.txt
git add -A && git commit -qm "the feature"
git switch -q main
BASE=$(git rev-parse release)

export TMPDIR="$WORK/tmp"
HAND="$WORK/hand"
# The three are measured in alternating rounds (each a short hyperfine run), so load that
# comes and goes on the machine weighs on all of them alike; the medians are taken over
# every run of every round.
for round in $(seq 1 "$ROUNDS"); do
    log "round $round of $ROUNDS"
    hyperfine --style none --warmup 1 --runs "$PER_ROUND" --export-json "$WORK/hand-$round.json" \
        --prepare "rm -rf '$HAND'; git worktree prune" \
        -n "by hand" \
        "git worktree add -q --detach '$HAND' release && git -C '$HAND' merge -q --no-ff -m merge feature && git worktree remove --force '$HAND'"
    hyperfine --style none --warmup 1 --runs "$PER_ROUND" --export-json "$WORK/refinery-$round.json" \
        --prepare "git update-ref refs/heads/release $BASE && '$VM' refinery submit feature --bead vm-work --into release >/dev/null" \
        -n "refinery run --once" "'$VM' refinery run --once --no-cache >/dev/null"
    hyperfine --style none --warmup 1 --runs "$PER_ROUND" --export-json "$WORK/inspect-$round.json" \
        -n "inspect run" "'$VM' inspect run vm-work --no-cache >/dev/null"
done

left=$(git worktree list | wc -l)
[[ "$left" == 1 ]] || { echo "worktrees left: $(git worktree list)" >&2; exit 1; }

python3 - "$WORK" "$ROUNDS" "$FILES" <<'PY'
import json, statistics, sys
work, rounds, files = sys.argv[1], int(sys.argv[2]), sys.argv[3]
def times(name):
    out = []
    for r in range(1, rounds + 1):
        out += json.load(open(f"{work}/{name}-{r}.json"))["results"][0]["times"]
    return out
hand, ref, ins = (statistics.median(times(n)) for n in ("hand", "refinery", "inspect"))
n = len(times("hand"))
print(f"| what ({files} files, {n} runs each, median) | time |")
print("|---|---|")
print(f"| by hand: worktree add + merge --no-ff + worktree remove | {hand * 1000:.1f} ms |")
print(f"| refinery run --once (everything) | {ref * 1000:.1f} ms |")
print(f"| inspect run (the pipeline alone, in place) | {ins * 1000:.1f} ms |")
print(f"| ratio refinery / by hand | {ref / hand:.2f}x |")
print(f"| ratio (refinery - inspect run) / by hand: vermas's own | {(ref - ins) / hand:.2f}x (goal <= 2x) |")
PY
