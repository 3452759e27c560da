#!/usr/bin/env bash
# Speed benchmark for the Refinery, on repositories of FILES files with an instant check
# for every work and an instant stand-in for every LLM role:
#
# 1. One request (`refinery run --once`) landing one branch, against doing the same by hand:
#      git worktree add --detach DIR release && git -C DIR merge --no-ff feature
#        && git worktree remove --force DIR
#    and `inspect run` (the pipeline alone, in place). Goal: vermas's own time (refinery
#    minus inspect run) at most 2x the hand-made merge.
# 2. Batches: BRANCHES queued branches that all pass, `refinery run --batch 1` against
#    `--batch BRANCHES` (goal: at most 2 verifications, at most 0.3x the wall time), and the
#    same with one failing branch in the middle, `--batch BRANCHES` (goal: the others land,
#    the culprit is rejected, in at most 1 + 2*ceil(log2 BRANCHES) verifications). Each run
#    starts from the same queue (the ledger reset to the commit that queued it, the target
#    to its tip); the three are timed in turn, ROUNDS times, and medians compared.
#
#   bench/refinery.sh                  # FILES=1000, BRANCHES=16, ROUNDS=5
#   QUICK=1 bench/refinery.sh          # tiny sizes, one round, goals not judged (as CI runs it)
#   TMPDIR=/dev/shm bench/refinery.sh  # on tmpfs: without the disk's noise
#
# Env: VERMAS_BIN (else a release build), FILES, BRANCHES, ROUNDS, PER_ROUND (runs per
# round of part 1), KEEP=1 (keep the work folder).
set -euo pipefail

if [[ "${QUICK:-0}" == 1 ]]; then
    FILES=${FILES:-50} BRANCHES=${BRANCHES:-4} ROUNDS=${ROUNDS:-1} PER_ROUND=${PER_ROUND:-1}
fi
FILES=${FILES:-1000}
BRANCHES=${BRANCHES:-16}
ROUNDS=${ROUNDS:-5}
PER_ROUND=${PER_ROUND:-6}
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
need_hyperfine

WORK=$(mktemp -d "${TMPDIR:-/tmp}/vermas-bench-refinery.XXXXXX")
cleanup() { if [[ "${KEEP:-0}" == 1 ]]; then log "kept $WORK"; else rm -rf "$WORK"; fi; }
trap cleanup EXIT
mkdir -p "$WORK/tmp"

# One reply fits every role: the judge reads the verdict, the others only need a reply.
cat > "$WORK/llm" <<'SH'
#!/bin/sh
cat >/dev/null
echo '{"verdict": "PASS", "confidence": 0.95, "reasons": ["instant stand-in"]}'
SH
chmod +x "$WORK/llm"

# bench_repo DIR: a repository of FILES files whose LLM is the stand-in, with branch
# `release` at its first commit; left checked out on `main` in DIR.
bench_repo() {
    mkdir -p "$1" && cd "$1"
    init_bench_repo
    sed -i "s|^  command: .*|  command: $WORK/llm|" .beads/vermas.yaml
    python3 - "$FILES" <<'PY'
import os, sys
n = int(sys.argv[1])
for i in range(n):
    d = f"src/m{i % 20:02d}"
    os.makedirs(d, exist_ok=True)
    with open(f"{d}/f{i:05d}.txt", "w") as f:
        f.write(f"file {i}\n" * 20)
PY
    git add -A && git commit -qm setup
    git branch release
}

# work TITLE CHECK [BRANCH]: a work whose test spec has the one criterion CHECK (a shell
# command), approved through the CLI (the check, if a file, is committed first), slung on
# BRANCH when given; prints its id.
work() {
    local id
    id=$("$VM" q "$1")
    "$VM" inspect add-criteria "$id" -d "instant" --cmd "$2" >/dev/null
    "$VM" inspect approve "$id" >/dev/null
    if [[ -n "${3:-}" ]]; then "$VM" sling "$id" agent --branch "$3" >/dev/null; fi
    echo "$id"
}

# queue DIR BAD: a repository with BRANCHES works, each slung on its branch b<i> (made from
# release) that writes w<i>.txt, which the work's check reads: `ok`, or `bad` for branch
# number BAD (0: none); every branch submitted into release. Sets SNAP (the ledger commit
# holding the queue) and BASE (release's tip).
queue() {
    local dir=$1 bad=$2 i text
    bench_repo "$dir"
    for i in $(seq 1 "$BRANCHES"); do work "work $i" "grep -qx ok w$i.txt" "b$i" >/dev/null; done
    for i in $(seq 1 "$BRANCHES"); do
        text=ok; [[ "$i" == "$bad" ]] && text=bad
        git switch -q -c "b$i" release
        echo "$text" > "w$i.txt"
        git add "w$i.txt" && git commit -qm "work $i"
        git switch -q main
    done
    for i in $(seq 1 "$BRANCHES"); do "$VM" refinery submit "b$i" --into release >/dev/null; done
    SNAP=$(git rev-parse main)
    BASE=$(git rev-parse release)
}

export TMPDIR="$WORK/tmp"

# --- 1. One request -------------------------------------------------------------------
log "part 1: one request on $FILES files"
bench_repo "$WORK/one"
REPO="$WORK/one"
WORK_ID=$(work "Benchmark work" true)
git switch -q -c feature release
echo "changed" >> src/m00/f00000.txt
echo "new" > src/m01/added.txt
git add -A && git commit -qm "the feature"
git switch -q main
ONE_BASE=$(git rev-parse release)
HAND="$WORK/hand"
# The three are measured in alternating rounds (each a short hyperfine run), so load that
# comes and goes on the machine weighs on all of them alike; the medians are taken over
# every run of every round.
for round in $(seq 1 "$ROUNDS"); do
    log "round $round of $ROUNDS"
    hyperfine --style none --warmup "$(( WARM ? 1 : 0 ))" --runs "$PER_ROUND" --export-json "$WORK/hand-$round.json" \
        --prepare "rm -rf '$HAND'; git worktree prune" \
        -n "by hand" \
        "git worktree add -q --detach '$HAND' release && git -C '$HAND' merge -q --no-ff -m merge feature && git worktree remove --force '$HAND'"
    hyperfine --style none --warmup "$(( WARM ? 1 : 0 ))" --runs "$PER_ROUND" --export-json "$WORK/refinery-$round.json" \
        --prepare "git update-ref refs/heads/release $ONE_BASE && '$VM' refinery submit feature --bead $WORK_ID --into release >/dev/null" \
        -n "refinery run --once" "'$VM' refinery run --once --no-cache >/dev/null"
    hyperfine --style none --warmup "$(( WARM ? 1 : 0 ))" --runs "$PER_ROUND" --export-json "$WORK/inspect-$round.json" \
        -n "inspect run" "'$VM' inspect run $WORK_ID --no-cache >/dev/null"
done
left=$(git worktree list | wc -l)
[[ "$left" == 1 ]] || { echo "worktrees left: $(git worktree list)" >&2; exit 1; }

# --- 2. Batches -----------------------------------------------------------------------
log "part 2: $BRANCHES queued branches on $FILES files"
queue "$WORK/pass" 0
PASS_SNAP=$SNAP PASS_BASE=$BASE
BAD=$(( (BRANCHES + 1) / 2 + 1 ))
queue "$WORK/bad" "$BAD"
BAD_SNAP=$SNAP BAD_BASE=$BASE
cd "$WORK"

python3 - "$WORK" "$VM" "$BRANCHES" "$ROUNDS" "$PASS_SNAP" "$PASS_BASE" "$BAD_SNAP" "$BAD_BASE" "$BAD" "$QUICK" <<'PY'
import json, os, statistics, subprocess, sys, time
work, vm, n, rounds = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
pass_snap, pass_base, bad_snap, bad_base, bad = sys.argv[5:10]
quick = sys.argv[10] == "1"
repos = {"pass": (f"{work}/pass", pass_snap, pass_base), "bad": (f"{work}/bad", bad_snap, bad_base)}
runs = {"batch 1": ("pass", 1), f"batch {n}": ("pass", n), f"batch {n}, one failing": ("bad", n)}

def reset(repo):
    d, snap, base = repos[repo]
    for args in (["reset", "-q", "--hard", snap], ["update-ref", "refs/heads/release", base],
                 ["worktree", "prune"]):
        subprocess.run(["git", *args], cwd=d, check=True)

def run(name, check):
    repo, size = runs[name]
    reset(repo)
    cmd = [vm, "refinery", "run", "--no-cache", "--json", "--batch", str(size)]
    t = time.perf_counter()
    p = subprocess.run(cmd, cwd=repos[repo][0], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    took = time.perf_counter() - t
    if check:
        out = json.loads(p.stdout)
        states = [t["request"]["state"] for t in out["taken"]]
        want = ["merged"] * n
        if repo == "bad":
            want[int(bad) - 1] = "rejected"
        if states != want or p.returncode != (1 if repo == "bad" else 0):
            sys.exit(f"{name}: exit {p.returncode}, states {states}")
        verifications[name] = len(out["verifications"])
    return took

verifications = {}
times = {name: [] for name in runs}
for name in runs:  # a checked run of each first (a warm-up, and with QUICK=1 the one timed)
    took = run(name, True)
    if quick:
        times[name].append(took)
for r in range(0 if quick else rounds):
    print(f"==> round {r + 1} of {rounds}", file=sys.stderr)
    for name in runs:
        times[name].append(run(name, False))
json.dump({"verifications": verifications, "times": times}, open(f"{work}/batches.json", "w"))
PY

python3 - "$WORK" "$ROUNDS" "$FILES" "$BRANCHES" "${QUICK:-0}" <<'PY'
import json, math, statistics, sys
work, rounds, files, n, quick = sys.argv[1], int(sys.argv[2]), sys.argv[3], int(sys.argv[4]), sys.argv[5] == "1"
def times(name):
    out = []
    for r in range(1, rounds + 1):
        out += json.load(open(f"{work}/{name}-{r}.json"))["results"][0]["times"]
    return out
hand, ref, ins = (statistics.median(times(k)) for k in ("hand", "refinery", "inspect"))
runs = len(times("hand"))
print(f"| one request ({files} files, {runs} runs each, median) | time |")
print("|---|---|")
print(f"| by hand: worktree add + merge --no-ff + worktree remove | {hand * 1000:.1f} ms |")
print(f"| refinery run --once (everything) | {ref * 1000:.1f} ms |")
print(f"| inspect run (the pipeline alone, in place) | {ins * 1000:.1f} ms |")
print(f"| ratio refinery / by hand | {ref / hand:.2f}x |")
own = (ref - ins) / hand
print(f"| ratio (refinery - inspect run) / by hand: vermas's own | {own:.2f}x (goal <= 2x) |")
b = json.load(open(f"{work}/batches.json"))
med = {k: statistics.median(v) for k, v in b["times"].items()}
ver = b["verifications"]
one, many, bad = "batch 1", f"batch {n}", f"batch {n}, one failing"
most = 1 + 2 * math.ceil(math.log2(n))
print()
print(f"| {n} queued branches ({files} files, {rounds} runs each, interleaved, median) | time | verifications |")
print("|---|---|---|")
print(f"| all pass, --batch 1 | {med[one] * 1000:.0f} ms | {ver[one]} |")
print(f"| all pass, --batch {n} | {med[many] * 1000:.0f} ms | {ver[many]} (goal <= 2) |")
print(f"| one failing in the middle, --batch {n}: {n - 1} land, 1 rejected | {med[bad] * 1000:.0f} ms | {ver[bad]} (goal <= {most}) |")
ratio = med[many] / med[one]
print(f"| ratio --batch {n} / --batch 1 | {ratio:.2f}x (goal <= 0.3x) |")
if quick:
    print("(QUICK=1: tiny sizes, goals not judged)")
else:
    missed = []
    if own > 2: missed.append("vermas's own time for one request")
    if ver[many] > 2: missed.append("verifications of a passing batch")
    if ratio > 0.3: missed.append("batch wall time")
    if ver[bad] > most: missed.append("verifications with one failing")
    if missed:
        sys.exit("goals missed: " + ", ".join(missed))
PY
