#!/usr/bin/env bash
# Speed at scale for the commands that read beads (list / ready / status), as ratios to
# what git and find take on the same repository in the same run (absolute times drift with
# the machine's load; ratios much less):
#
#   1. `list --json -n 0`, `ready --json -n 0`, plain `status` on 10,000 beads in a 20,000-file
#      repository, each against `git status --porcelain`               goal <= 1.0x
#   2. `ready --json -n 0` on 100,000 beads against
#      `find .beads/issues -printf '%T@\n'`                              goal <= 1.2x
#      and its peak memory (max RSS, /usr/bin/time -v)                   goal <= 60 MB
#   3. the first `ready --json -n 0` after `rm -rf .beads/.cache`, 100,000 beads  goal < 1 s
#
# Commands are timed interleaved (one run of each in turn, RUNS times), so a change of
# load hits every command alike; medians of wall time are compared, and CPU time (user +
# system) is shown beside them. Measured, never asserted.
#
#   bench/scale.sh                            # full run (generates both repositories)
#   BIG=20000 RUNS=10 bench/scale.sh          # quicker
# Env:
#   VERMAS_BIN   use this binary instead of `cargo build --release` + target/release/vermas
#   BEADS FILES  size of the first repository (default 10000 beads + 10000 other files)
#   BIG          beads of the second repository (default 100000)
#   RUNS         timed runs of each command (default 20); COLD_RUNS (default 5)
#   SMALL_REPO BIG_REPO  reuse repositories made before (e.g. kept with KEEP=1)
#   KEEP=1       keep the generated repositories (their paths are printed)
set -euo pipefail

if [[ "${QUICK:-0}" == 1 ]]; then
    BEADS=${BEADS:-100} FILES=${FILES:-100} BIG=${BIG:-300} RUNS=${RUNS:-1}
    COLD_RUNS=${COLD_RUNS:-1}
    export WARMUP=${WARMUP:-0}
fi
BEADS=${BEADS:-10000}
FILES=${FILES:-10000}
BIG=${BIG:-100000}
RUNS=${RUNS:-20}
COLD_RUNS=${COLD_RUNS:-5}
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
[[ -x /usr/bin/time ]] || { echo "/usr/bin/time is needed for peak memory" >&2; exit 1; }

WORK=$(mktemp -d "${TMPDIR:-/tmp}/vermas-scale.XXXXXX")
cleanup() { if [[ "${KEEP:-0}" == 1 ]]; then log "kept $WORK"; else rm -rf "$WORK"; fi; }
trap cleanup EXIT

# generate BEADS FILES: a repository made by bench/beads.sh; prints its path.
generate() {
    local out
    out=$(TMPDIR="$WORK" BEADS=$1 FILES=$2 GEN_ONLY=1 KEEP=1 VERMAS_BIN="$VM" \
        "$ROOT/bench/beads.sh" 2>&1) || { echo "$out" >&2; exit 1; }
    sed -n 's/.*GEN_ONLY: repository left at //p' <<<"$out"
}

SMALL=${SMALL_REPO:-}
if [[ -z "$SMALL" ]]; then
    log "generating $BEADS beads + $FILES other files"
    SMALL=$(generate "$BEADS" "$FILES")
fi
BIGR=${BIG_REPO:-}
if [[ -z "$BIGR" ]]; then
    log "generating $BIG beads"
    BIGR=$(generate "$BIG" 0)
fi
log "repositories: $SMALL ($(git -C "$SMALL" ls-files | wc -l) files), $BIGR"


LOAD_START=$(cut -d' ' -f1-3 /proc/loadavg)
# A warm index first (the generated files are older than the 2 s racy window).
(cd "$SMALL" && "$VM" ready --json >/dev/null && "$VM" status >/dev/null)

log "1. list / ready / status vs git status, $RUNS interleaved runs"
python3 "$ROOT/bench/interleave.py" "$WORK/small.json" "$SMALL" "$RUNS" \
    "git status --porcelain" "git status --porcelain" \
    "list --json -n 0" "$VM list --json -n 0" \
    "ready --json -n 0" "$VM ready --json -n 0" \
    "status" "$VM status"

log "2. ready --json vs find, $BIG beads"
(cd "$BIGR" && "$VM" ready --json -n 0 >/dev/null)
python3 "$ROOT/bench/interleave.py" "$WORK/big.json" "$BIGR" "$RUNS" \
    "find" "find .beads/issues -printf '%T@\n'" \
    "ready --json -n 0" "$VM ready --json -n 0"

# peak RSS in kB of CMD... (the largest of three runs)
peak() {
    local best=0 kb
    for _ in 1 2 3; do
        kb=$( (cd "$BIGR" && /usr/bin/time -v "$@" 2>&1 >/dev/null) |
            sed -n 's/.*Maximum resident set size (kbytes): //p')
        (( kb > best )) && best=$kb
    done
    echo "$best"
}
RSS_READY=$(peak "$VM" ready --json -n 0)
RSS_FIND=$(peak find .beads/issues -printf '%T@\n')

log "3. first read after rm -rf .beads/.cache, $BIG beads ($COLD_RUNS runs)"
# The bead files in the page cache, as after any recent use: what is measured is vermas
# parsing them, not the disk.
find "$BIGR/.beads/issues" -name '*.md' -exec cat {} + >/dev/null
COLD=()
for _ in $(seq "$COLD_RUNS"); do
    rm -rf "$BIGR/.beads/.cache"
    t0=$(date +%s.%N)
    (cd "$BIGR" && "$VM" ready --json -n 0 >/dev/null)
    t1=$(date +%s.%N)
    COLD+=("$(python3 -c "print($t1 - $t0)")")
done
LOAD_END=$(cut -d' ' -f1-3 /proc/loadavg)

python3 - "$WORK" "$BEADS" "$FILES" "$BIG" "$RSS_READY" "$RSS_FIND" "$LOAD_START" "$LOAD_END" \
    "$(nproc)" "${COLD[@]}" <<'PY'
import json, statistics, sys
w, nb, nf, big = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
rss_ready, rss_find = int(sys.argv[5]) / 1024, int(sys.argv[6]) / 1024
load_start, load_end, ncpu = sys.argv[7], sys.argv[8], sys.argv[9]
cold = [float(x) for x in sys.argv[10:]]
small, bigj = json.load(open(f"{w}/small.json")), json.load(open(f"{w}/big.json"))
rows = []
# The goals are set for the default sizes; other sizes are shown for information.
goal_sizes = (nb, nf, big) == (10000, 10000, 100000)
verdict = lambda ok: ("PASS" if ok else "FAIL") if goal_sizes else "-"
def ratio(name, r, base, bname, goal):
    v = r["wall"] / base["wall"]
    rows.append((name, f"{r['wall'] * 1000:.1f} ms", f"{bname} {base['wall'] * 1000:.1f} ms",
                 f"{v:.2f}x", f"{r['cpu'] / base['cpu']:.2f}x", f"<= {goal}x", verdict(v <= goal)))
git = small["git status --porcelain"]
for cmd in ("list --json -n 0", "ready --json -n 0", "status"):
    ratio(f"{cmd} ({nb} beads, {nb + nf} files)", small[cmd], git, "git status", 1.0)
ratio(f"ready --json -n 0 ({big} beads)", bigj["ready --json -n 0"], bigj["find"], "find", 1.2)
rows.append((f"ready --json -n 0 peak memory ({big} beads)", f"{rss_ready:.1f} MB",
             f"find {rss_find:.1f} MB", "", "", "<= 60 MB", verdict(rss_ready <= 60)))
c = statistics.median(cold)
rows.append((f"first ready -n 0 after rm -rf .beads/.cache ({big} beads)", f"{c:.2f} s",
             f"min {min(cold):.2f} s, max {max(cold):.2f} s", "", "", "< 1 s",
             verdict(c < 1)))
print(f"\nvermas read speed at scale; wall-time medians of interleaved runs; "
      f"{ncpu} CPUs, load average {load_start} at start, {load_end} at end\n")
head = ("measure", "vermas", "baseline", "wall ratio", "cpu ratio", "goal", "")
widths = [max(len(str(r[i])) for r in rows + [head]) for i in range(len(head))]
line = lambda r: "| " + " | ".join(str(x).ljust(wd) for x, wd in zip(r, widths)) + " |"
print(line(head))
print("|" + "|".join("-" * (wd + 2) for wd in widths) + "|")
for r in rows:
    print(line(r))
PY
