#!/usr/bin/env bash
# What running a check costs vermas beyond running it (issue 20): 200 criteria, each a
# `[verify]` link to a bash function that is just `true`, against the floor of calling the
# same 200 functions from bash alone:
#
#   1. `status --verify --jobs 1 --no-cache` vs a bash loop (`bash -c 'source FILE; FN'`
#      each)                                                                     goal <= 1.2x
#   2. `status --verify --jobs 2 --no-cache` vs the same calls through `xargs -P2`  goal <= 1.2x
#
# With BEFORE_BIN (an earlier vermas), its `--jobs 1` run is timed in the same rounds, so a
# change is measured before and after in one run.
#
# Commands are timed interleaved (one run of each in turn, RUNS times), so a change of
# load hits every command alike; medians of wall time are compared, and CPU time (user +
# system, of the whole tree) is shown beside them. Measured, never asserted.
#
#   bench/checks.sh                  # full run
#   RUNS=5 CHECKS=50 bench/checks.sh # quicker
#   QUICK=1 bench/checks.sh          # tiny sizes, as CI runs it: checks it all still works
# Env: VERMAS_BIN (use this binary instead of building), BEFORE_BIN, RUNS (default 15),
# CHECKS (default 200), KEEP=1 (keep the generated repository).
set -euo pipefail

if [[ "${QUICK:-0}" == 1 ]]; then
    RUNS=${RUNS:-2} CHECKS=${CHECKS:-10} WARMUP=${WARMUP:-1}
fi
RUNS=${RUNS:-15}
CHECKS=${CHECKS:-200}
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

WORK=$(mktemp -d "${TMPDIR:-/tmp}/vermas-checkbench.XXXXXX")
cleanup() { if [[ "${KEEP:-0}" == 1 ]]; then log "kept $WORK"; else rm -rf "$WORK"; fi; }
trap cleanup EXIT

# The repository: one spec of CHECKS criteria, each linked to its own `true` function.
R="$WORK/repo"
mkdir -p "$R/specs" "$R/tests"
(cd "$R" && init_bench_repo)
{
    echo "# Trivial checks"; echo; echo "## Success Criteria"; echo
    for i in $(seq 0 $((CHECKS - 1))); do
        echo "- [ ] Check $i holds [verify](../tests/checks.sh#test_c$i)"
    done
} >"$R/specs/checks.md"
for i in $(seq 0 $((CHECKS - 1))); do echo "test_c$i() { true; }"; done >"$R/tests/checks.sh"
seq 0 $((CHECKS - 1)) | sed 's/^/test_c/' >"$WORK/names"
# The floor: each function called in a fresh bash that sources the file, as vermas does.
cat >"$WORK/loop.sh" <<'SH'
while read -r f; do bash -c 'source "$1" && "$2"' _ tests/checks.sh "$f"; done <"$1"
SH
(cd "$R" && git add -A && git commit -qm checks)
(cd "$R" && "$VM" status --verify --jobs 1 --no-cache >/dev/null) || {
    (cd "$R" && "$VM" status --verify --jobs 1 --no-cache | tail -5) >&2
    echo "the checks do not pass" >&2
    exit 1
}


BEFORE=()
if [[ -n "${BEFORE_BIN:-}" ]]; then
    BEFORE=("jobs 1 (before)" "$(readlink -f "$BEFORE_BIN") status --verify --jobs 1 --no-cache")
fi
LOAD_START=$(cut -d' ' -f1-3 /proc/loadavg)
log "$CHECKS checks, $RUNS interleaved runs"
WARMUP=${WARMUP:-2} python3 "$ROOT/bench/interleave.py" "$WORK/times.json" "$R" "$RUNS" \
    "bash loop" "bash $WORK/loop.sh $WORK/names" \
    "jobs 1" "$VM status --verify --jobs 1 --no-cache" \
    "xargs -P2" "xargs -P2 -I{} bash -c 'source \"\$1\" && \"\$2\"' _ tests/checks.sh {} <$WORK/names" \
    "jobs 2" "$VM status --verify --jobs 2 --no-cache" \
    "${BEFORE[@]}"
LOAD_END=$(cut -d' ' -f1-3 /proc/loadavg)

python3 - "$WORK/times.json" "$CHECKS" "$LOAD_START" "$LOAD_END" "$(nproc)" "${QUICK:-0}" <<'PY'
import json, sys
t, n, load_start, load_end, ncpu, quick = json.load(open(sys.argv[1])), sys.argv[2], *sys.argv[3:]
print(f"\n{n} trivial checks; wall-time medians of interleaved runs; {ncpu} CPUs, "
      f"load average {load_start} at start, {load_end} at end\n")
rows = []
pairs = [("jobs 1", "bash loop"), ("jobs 2", "xargs -P2")]
if "jobs 1 (before)" in t:
    pairs.insert(1, ("jobs 1 (before)", "bash loop"))
for cmd, base in pairs:
    r, b = t[cmd], t[base]
    v = r["wall"] / b["wall"]
    rows.append((f"status --verify --{cmd}", f"{r['wall'] * 1000:.0f} ms",
                 f"cpu {r['cpu'] * 1000:.0f} ms", f"{base} {b['wall'] * 1000:.0f} ms",
                 f"cpu {b['cpu'] * 1000:.0f} ms", f"{v:.2f}x", "<= 1.2x",
                 "-" if quick == "1" else "PASS" if v <= 1.2 else "FAIL"))
head = ("measure", "vermas", "", "floor", "", "wall ratio", "goal", "")
widths = [max(len(str(r[i])) for r in rows + [head]) for i in range(len(head))]
line = lambda r: "| " + " | ".join(str(x).ljust(wd) for x, wd in zip(r, widths)) + " |"
print(line(head))
print("|" + "|".join("-" * (wd + 2) for wd in widths) + "|")
for r in rows:
    print(line(r))
PY
