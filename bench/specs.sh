#!/usr/bin/env bash
# Speed benchmark for live specs (issue goals; measured, never asserted):
#   1. parse a corpus of 20 specs with ~550 criteria (`spec list --json`):  goal <= 10 ms
#   2. `status` with no flags on 100 specs and 10,000 beads:                 goal <= 30 ms
#   3. 16 checks that each sleep 1 s, `status --verify --jobs 16`:          goal wall <= 1.3 s
#
#   bench/specs.sh                   # full run
#   BEADS=2000 bench/specs.sh        # quicker
# Env: VERMAS_BIN (use this binary instead of building), RUNS (default 30), KEEP=1.
set -euo pipefail

if [[ "${QUICK:-0}" == 1 ]]; then
    RUNS=${RUNS:-1} BEADS=${BEADS:-100} SPECS=${SPECS:-3} SLEEPERS=${SLEEPERS:-2}
fi
RUNS=${RUNS:-30}
BEADS=${BEADS:-10000}
SPECS=${SPECS:-100}
SLEEPERS=${SLEEPERS:-16}
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
need_hyperfine

WORK=$(mktemp -d "${TMPDIR:-/tmp}/vermas-specbench.XXXXXX")
[[ "${KEEP:-0}" == 1 ]] || trap 'rm -rf "$WORK"' EXIT

# gen_specs DIR COUNT PER_SPEC: COUNT specs of PER_SPEC criteria each, with verify, judge and
# unannotated criteria, prose, code blocks and nested lists in between.
gen_specs() {
    python3 - "$1" "$2" "$3" <<'PY'
import os, sys
root, count, per = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
os.makedirs(f"{root}/specs", exist_ok=True)
os.makedirs(f"{root}/tests/judges", exist_ok=True)
for s in range(count):
    lines = ["---", f"bead: vm-s{s:04d}", "---", f"# Feature {s}", "",
             "Some prose about the feature, with `inline [verify](x.sh#no)` code.", "",
             "```sh", "[verify](tests/in-code.sh#never)", "```", "", "## Success Criteria", ""]
    for c in range(per):
        kind = c % 3
        lines.append(f"- [{'x' if c % 4 == 0 else ' '}] Criterion {c} of feature {s} holds *exactly* as written")
        if kind == 0:
            lines.append(f"  [verify](../tests/f{s}.sh#test_c{c})")
        elif kind == 1:
            lines.append(f"  [judge](../tests/judges/f{s}.sh#test_j{c} \"timeout=30s\")")
        if c % 10 == 9:
            lines += ["  - a nested note, not a criterion", ""]
    lines += ["", "## Notes", "", "- [ ] not a criterion [verify](x.sh#nope)", ""]
    with open(f"{root}/specs/feature-{s:03d}.md", "w") as f:
        f.write("\n".join(lines))
PY
}

# 1. Parsing: 20 specs x 28 criteria = 560.
P="$WORK/parse"
mkdir -p "$P" && (cd "$P" && git init -q)
gen_specs "$P" 20 28
total=$(cd "$P" && "$VM" spec list --json | python3 -c 'import json,sys; print(sum(len(s["criteria"]) for s in json.load(sys.stdin)))')
log "parse corpus: 20 specs, $total criteria"
(cd "$P" && hyperfine -N -w "$WARM" -r "$RUNS" --export-json "$WORK/parse.json" "$VM spec list --json" >/dev/null)

# 2. Plain status on $SPECS specs and $BEADS beads (the bead generator of bench/beads.sh).
log "generating $BEADS beads"
BEADS=$BEADS FILES=0 GEN_ONLY=1 KEEP=1 VERMAS_BIN="$VM" "$ROOT/bench/beads.sh" >"$WORK/gen.log" 2>&1
S=$(sed -n 's/.*GEN_ONLY: repository left at //p' "$WORK/gen.log")
[[ -d "$S" ]] || { cat "$WORK/gen.log" >&2; exit 1; }
gen_specs "$S" "$SPECS" 6
(cd "$S" && "$VM" status >/dev/null && sleep 2.5 && "$VM" status >/dev/null)
(cd "$S" && hyperfine -N -w "$WARM" -r "$RUNS" --export-json "$WORK/status.json" "$VM status" >/dev/null)
rm -rf "$(dirname "$S")"

# 3. Sixteen one-second checks in parallel.
J="$WORK/jobs"
mkdir -p "$J/specs" "$J/tests" && (cd "$J" && git init -q)
{
    echo "# Sleepers"; echo; echo "## Success Criteria"; echo
    for i in $(seq 1 "$SLEEPERS"); do echo "- [ ] Sleeper $i [verify](../tests/sleep.sh#test_sleep)"; done
} >"$J/specs/sleep.md"
printf 'test_sleep() { sleep 1; }\n' >"$J/tests/sleep.sh"
(cd "$J" && hyperfine -N -w "$(( WARM ? 1 : 0 ))" -r "$(( QUICK ? 1 : 5 ))" --export-json "$WORK/jobs.json" "$VM status --verify --jobs $SLEEPERS" >/dev/null)

python3 - "$WORK" "$SPECS" "$SLEEPERS" "$QUICK" <<'PY'
import json, sys
w, specs, sleepers, quick = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4] == "1"
rows = [("spec list --json (20 specs, 560 criteria)", "parse.json", 10),
        (f"status, no flags ({specs} specs, beads)", "status.json", 30),
        (f"status --verify --jobs {sleepers} ({sleepers} x sleep 1)", "jobs.json", 1300)]
if quick:
    print("(QUICK=1: tiny sizes, goals not judged)")
print(f"{'command':<46} {'median ms':>10} {'goal ms':>8} {'ratio':>7}")
for name, f, goal in rows:
    r = json.load(open(f"{w}/{f}"))["results"][0]
    med = r["median"] * 1000
    print(f"{name:<46} {med:>10.1f} {goal:>8} {med / goal:>6.2f}x")
PY
