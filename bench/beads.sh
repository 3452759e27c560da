#!/usr/bin/env bash
# Speed benchmark for vermas beads (record formats: docs/FORMATS.md).
#
#   bench/beads.sh                  # full run: 10,000 beads + 10,000 other files
#   BEADS=2000 FILES=2000 bench/beads.sh   # quick run
#
# Env:
#   VERMAS_BIN  use this binary instead of `cargo build --release` + target/release/vermas
#   BEADS       number of bead files to generate (default 10000)
#   FILES       number of non-bead files to generate (default 10000)
#   RUNS        hyperfine runs for list/ready (default 30, min 20)
#   CREATE_RUNS hyperfine runs per create command (default 30)
#   KEEP=1      keep the generated repository (its path is printed)
#   GEN_ONLY=1  only generate the repository (kept), measure nothing
#   NO_HYPERFINE=1  use the python timing loop even if hyperfine is there
#   QUICK=1     tiny sizes, one run each, as CI runs it: checks it all still works
#
# Goals (measured, not asserted):
#   list --json, ready --json on 10k beads / 20k files: median <= 30 ms (warm cache)
#   create end to end: vermas median / (write file + git add .beads && git commit) <= 0.3
set -euo pipefail

if [[ "${QUICK:-0}" == 1 ]]; then
    BEADS=${BEADS:-200} FILES=${FILES:-200} RUNS=${RUNS:-1} CREATE_RUNS=${CREATE_RUNS:-1}
    COLD_RUNS=${COLD_RUNS:-1}
fi
BEADS=${BEADS:-10000}
FILES=${FILES:-10000}
RUNS=${RUNS:-30}
CREATE_RUNS=${CREATE_RUNS:-30}
COLD_RUNS=${COLD_RUNS:-10}
if [[ "${QUICK:-0}" != 1 ]] && (( RUNS < 20 )); then RUNS=20; fi

# ---------------------------------------------------------------- 1. binary, hyperfine
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

HAVE_HF=1
if [[ "${NO_HYPERFINE:-0}" == 1 ]]; then
    HAVE_HF=0
elif ! command -v hyperfine >/dev/null 2>&1; then
    log "hyperfine not found; trying apt-get"
    SUDO=""; [[ $(id -u) -ne 0 ]] && command -v sudo >/dev/null 2>&1 && SUDO="sudo -n"
    if command -v apt-get >/dev/null 2>&1 \
        && $SUDO apt-get update -qq >/dev/null 2>&1 \
        && $SUDO env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq hyperfine >/dev/null 2>&1 \
        && command -v hyperfine >/dev/null 2>&1; then
        log "installed $(hyperfine --version)"
    else
        log "hyperfine unavailable; using the python timing loop (no shell-spawn correction)"
        HAVE_HF=0
    fi
fi

WORK=$(mktemp -d "${TMPDIR:-/tmp}/vermas-bench.XXXXXX")
REPO="$WORK/repo"
OUT="$WORK/out"
mkdir -p "$REPO" "$OUT"
cleanup() { if [[ "${KEEP:-0}" == 1 ]]; then log "kept $WORK"; else rm -rf "$WORK"; fi; }
trap cleanup EXIT

# Fallback timer writing hyperfine-shaped JSON: results[].{command,median,mean,stddev,min,max,times}.
cat > "$WORK/timeloop.py" <<'PY'
import json, statistics, subprocess, sys, time
# usage: timeloop.py OUT.json WARMUP RUNS PREPARE_OR_EMPTY NAME CMD [NAME CMD ...]
out, warmup, runs, prepare = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4]
pairs = sys.argv[5:]
results = []
for name, cmd in zip(pairs[0::2], pairs[1::2]):
    def once():
        if prepare:
            subprocess.run(prepare, shell=True, check=True)
        t = time.perf_counter()
        subprocess.run(cmd, shell=True, check=True, stdout=subprocess.DEVNULL)
        return time.perf_counter() - t
    for _ in range(warmup):
        once()
    ts = [once() for _ in range(runs)]
    results.append({"command": name, "median": statistics.median(ts), "mean": statistics.mean(ts),
                    "stddev": statistics.stdev(ts) if len(ts) > 1 else 0.0,
                    "min": min(ts), "max": max(ts), "times": ts})
json.dump({"results": results}, open(out, "w"), indent=1)
PY

# bench OUT.json WARMUP RUNS PREPARE NAME CMD [NAME CMD ...]
bench() {
    local json=$1 warmup=$2 runs=$3 prepare=$4; shift 4
    if (( HAVE_HF )); then
        local args=(--style basic --warmup "$warmup" --runs "$runs" --export-json "$json")
        [[ -n "$prepare" ]] && args+=(--prepare "$prepare")
        while (( $# )); do args+=(-n "$1" "$2"); shift 2; done
        hyperfine "${args[@]}" >&2
    else
        python3 "$WORK/timeloop.py" "$json" "$warmup" "$runs" "$prepare" "$@"
    fi
}

# ---------------------------------------------------------------- 2. repository
LOAD_START=$(cut -d' ' -f1-3 /proc/loadavg)
log "generating $BEADS beads + $FILES other files in $REPO"
t0=$(date +%s.%N)
cd "$REPO"
init_bench_repo

python3 - "$BEADS" "$FILES" <<'PY'
import os, random, sys, datetime as dt
nbeads, nfiles = int(sys.argv[1]), int(sys.argv[2])
rng = random.Random(20261122)

# Non-bead files: src/dNN/fNNNN.txt, 100 per folder.
for i in range(nfiles):
    d = f"src/d{i // 100:03d}"
    if i % 100 == 0:
        os.makedirs(d, exist_ok=True)
    with open(f"{d}/f{i:05d}.txt", "w") as f:
        f.write(f"file {i}\n" + "lorem ipsum dolor sit amet " * rng.randint(1, 6) + "\n")

B36 = "0123456789abcdefghijklmnopqrstuvwxyz"
ids, seen = [], set()
while len(ids) < nbeads:
    i = "vm-" + "".join(rng.choice(B36) for _ in range(6))
    if i not in seen:
        seen.add(i); ids.append(i)

W = ("parser cache sync notify login export import search index render layout retry "
     "timeout queue worker schema migrate config review deploy metrics backup upload "
     "session token billing invoice report widget dashboard tooltip keyboard mobile").split()
people = ["alice", "bob", "carol", "dave", "erin", "mallory", "trent"]
areas = ["area:notify", "area:auth", "area:ui", "area:api", "area:db", "area:cli", "area:infra"]
extra = ["good-first-issue", "perf", "security", "tech-debt", "ux", "docs", "regression"]
types = ["task"] * 45 + ["feature"] * 22 + ["bug"] * 20 + ["chore"] * 8 + ["epic"] * 5
base = dt.datetime(2025, 11, 22, tzinfo=dt.timezone.utc)
def ts(t): return t.strftime("%Y-%m-%dT%H:%M:%SZ")
def q(s): return '"' + s.replace("\\", "\\\\").replace('"', '\\"') + '"'

epics = []
os.makedirs(".beads/issues", exist_ok=True)
for n, bid in enumerate(ids):
    r = rng.random()
    status = ("closed" if r < 0.20 else "in_progress" if r < 0.30 else "blocked" if r < 0.34
              else "deferred" if r < 0.37 else "open")
    itype = rng.choice(types)
    created = base + dt.timedelta(minutes=n * 50 + rng.randint(0, 40))
    updated = created + dt.timedelta(hours=rng.randint(0, 300))
    labels = [rng.choice(areas)] + rng.sample(extra, rng.choice([0, 0, 1, 1, 2]))
    if status == "open" and rng.random() < 0.03:
        labels.append("awaiting:input")
    title = " ".join(rng.choice(W) for _ in range(rng.randint(3, 8))).capitalize()
    deps, parent = [], None
    if n > 10 and rng.random() < 0.30:
        for tgt in rng.sample(ids[max(0, n - 500):n], rng.choice([1, 1, 1, 2, 3])):
            deps.append((tgt, "blocks"))
    if itype != "epic" and epics and rng.random() < 0.15:
        parent = rng.choice(epics[-20:])
        deps.append((parent, "parent-child"))
    if rng.random() < 0.05 and n > 0:
        deps.append((ids[rng.randrange(n)], rng.choice(["related", "discovered-from"])))
    if itype == "epic":
        epics.append(bid)
    notes = []
    for k in range(rng.choice([0, 0, 0, 1, 2])):
        notes.append((ts(created + dt.timedelta(hours=k + 1)), rng.choice(people),
                      "Question: " + " ".join(rng.choice(W) for _ in range(6)) + "?"))
    closed = status == "closed"
    lines = [
        "---",
        f"id: {bid}",
        f"title: {q(title)}",
        f"status: {status}",
        f"priority: {rng.choice([0, 1, 1, 2, 2, 2, 2, 3, 3, 4])}",
        f"issue_type: {itype}",
        "labels: [" + ", ".join(labels) + "]",
        f"assignee: {rng.choice(people) if status == 'in_progress' or rng.random() < 0.3 else 'null'}",
        f"created_at: {ts(created)}",
        f"created_by: {rng.choice(people)}",
        f"updated_at: {ts(updated)}",
        f"closed_at: {ts(updated) if closed else 'null'}",
        f"close_reason: {q('Done in ' + rng.choice(W)) if closed else 'null'}",
        f"parent: {parent or 'null'}",
        f"spec: {'specs/' + rng.choice(W) + '.md' if rng.random() < 0.1 else 'null'}",
    ]
    if deps:
        lines.append("dependencies:")
        lines += [f"  - {{depends_on_id: {t}, type: {k}}}" for t, k in deps]
    else:
        lines.append("dependencies: []")
    if notes:
        lines.append("notes:")
        lines += [f"  - {{at: {a}, by: {b}, text: {q(t)}}}" for a, b, t in notes]
    else:
        lines.append("notes: []")
    lines.append("---")
    for _ in range(rng.randint(1, 5)):
        lines.append(" ".join(rng.choice(W) for _ in range(rng.randint(6, 16))).capitalize() + ".")
    if rng.random() < 0.3:
        lines += ["", "- [ ] " + " ".join(rng.choice(W) for _ in range(4)),
                  "- [ ] " + " ".join(rng.choice(W) for _ in range(5))]
    with open(f".beads/issues/{bid}.md", "w") as f:
        f.write("\n".join(lines) + "\n")
PY
git add -A
git commit -q -m "bench: generated beads"
# Its objects stay loose, as after any one big commit: no gc (bench/lib.sh turns the
# automatic one off). A gc here would prune 20,000 loose objects, and on an ext4 without
# a journal every file created in the next minutes (vermas's objects and git's alike)
# skips past each inode "recently deleted": a millisecond per new file.
sleep 2.5
t1=$(date +%s.%N)
log "generated and committed in $(python3 -c "print(f'{$t1-$t0:.1f}')") s ($(git ls-files | wc -l) tracked files)"
# Files younger than 2 s are never cached (racy timestamps): the sleep above let them age.

# Sanity: everything parses, and the commands work.
NLIST=$("$VM" list --json --all -n 0 | python3 -c 'import json,sys; print(len(json.load(sys.stdin)))')
NREADY=$("$VM" ready --json | python3 -c 'import json,sys; print(len(json.load(sys.stdin)))')
log "list --all: $NLIST beads, ready: $NREADY beads"
[[ "$NLIST" == "$BEADS" ]] || log "WARNING: expected $BEADS beads from list --all, got $NLIST"
rm -rf .beads/.cache
if [[ "${GEN_ONLY:-0}" == 1 ]]; then KEEP=1; log "GEN_ONLY: repository left at $REPO"; exit 0; fi

# ---------------------------------------------------------------- 3. list / ready
log "list/ready, warm cache ($RUNS runs, warmup $WARM)"
bench "$OUT/warm.json" "$WARM" "$RUNS" "" \
    "list --json" "$VM list --json >/dev/null" \
    "ready --json" "$VM ready --json >/dev/null"
log "list/ready, cold cache (rm -rf .beads/.cache before each run)"
bench "$OUT/cold.json" "$(( WARM ? 1 : 0 ))" "$COLD_RUNS" "rm -rf .beads/.cache" \
    "list --json (cold cache)" "$VM list --json >/dev/null" \
    "ready --json (cold cache)" "$VM ready --json >/dev/null"
"$VM" list --json >/dev/null   # leave a warm cache behind

# ---------------------------------------------------------------- 4. create
# Interleaved (vermas, git, vermas, git, ...: bench/interleave.py), so a change of the
# machine's load hits both alike. Each run is one `sh -c` for both: vermas is exec'd by
# it, and the git baseline is a script it runs, which writes one realistic bead file
# (printf is a shell builtin) and commits. $$ is that shell's pid: unique per run.
cat > "$WORK/floor.sh" <<'SH'
printf -- '---\nid: vm-g%s\ntitle: Bench title %s\nstatus: open\npriority: 2\nissue_type: task\nlabels: []\nassignee: null\ncreated_at: 2026-11-22T10:00:00Z\ncreated_by: bench\nupdated_at: 2026-11-22T10:00:00Z\nclosed_at: null\nclose_reason: null\nparent: null\nspec: null\ndependencies: []\nnotes: []\n---\nBench description.\n' $$ $$ > .beads/issues/vm-g$$.md && git add .beads && git commit -q -m x
SH
log "create vs git add+commit ($CREATE_RUNS interleaved runs each)"
WARMUP=$(( WARM ? 2 : 0 )) python3 "$ROOT/bench/interleave.py" "$OUT/create.json" "$REPO" "$CREATE_RUNS" \
    "vermas create" "$VM create \"Bench title \$\$\"" \
    "git add .beads && git commit" "sh $WORK/floor.sh"
git status --porcelain | head -5 | sed 's/^/    dirty after create bench: /' >&2 || true

# ---------------------------------------------------------------- 5. summary
LOAD_END=$(cut -d' ' -f1-3 /proc/loadavg)
python3 - "$OUT" "$BEADS" "$FILES" "$HAVE_HF" "$LOAD_START" "$LOAD_END" "$(nproc)" <<'PY'
import json, sys
out, nb, nf = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
tool = "hyperfine" if sys.argv[4] == "1" else "python timing loop"
load_start, load_end, ncpu = sys.argv[5], sys.argv[6], sys.argv[7]
def load(n): return {r["command"]: r for r in json.load(open(f"{out}/{n}.json"))["results"]}
warm, cold = load("warm"), load("cold")
# interleave.py's medians: wall and CPU seconds per command.
create = {n: {"median": r["wall"], "cpu": r["cpu"]} for n, r in json.load(open(f"{out}/create.json")).items()}
ms = lambda r: r["median"] * 1000
rows = []
for name, r in list(warm.items()) + list(cold.items()):
    goal = "30 ms" if "cold" not in name else "-"
    ratio = f"{ms(r) / 30:.2f}x goal" if "cold" not in name else f"{ms(r) / 30:.2f}x goal (info)"
    rows.append((f"vermas {name}", ms(r), goal, ratio))
git = ms(create["git add .beads && git commit"])
for name, r in create.items():
    if name.startswith("vermas"):
        goal = "<= 0.3x git" if name == "vermas create" else "(info)"
        rows.append((name, ms(r), goal, f"{ms(r) / git:.2f}x git"))
rows.append(("write file + git add .beads && git commit", git, "baseline", "1.00x"))
cpu = {n: r["cpu"] * 1000 for n, r in create.items()}
print(f"\nvermas beads benchmark: {nb} beads, {nf + nb} files; list/ready medians by {tool}, "
      f"create medians of interleaved runs (CPU {cpu['vermas create']:.1f} vs "
      f"{cpu['git add .beads && git commit']:.1f} ms); "
      f"{ncpu} CPUs, load average {load_start} at start, {load_end} at end\n")
w = max(len(r[0]) for r in rows)
print(f"| {'command':<{w}} | median ms | goal        | ratio              |")
print(f"|{'-' * (w + 2)}|-----------|-------------|--------------------|")
for name, m, goal, ratio in rows:
    print(f"| {name:<{w}} | {m:9.1f} | {goal:<11} | {ratio:<18} |")
PY
