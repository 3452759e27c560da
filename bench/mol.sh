#!/usr/bin/env bash
# Speed benchmark for formulas and molecules (issue goal: a generated 1,000-step formula
# cooks and pours in well under one second; measured, never asserted):
#   1. `mol cook big --json`          (parse, validate, order, substitute; writes nothing)
#   2. `mol pour big --bead ID`       (cook + write .beads/mols/ + one git commit)
#
#   bench/mol.sh                 # full run
#   STEPS=5000 bench/mol.sh      # a bigger formula
# Env: VERMAS_BIN (use this binary instead of building), STEPS (default 1000),
#      RUNS (default 30), KEEP=1 (keep the generated repository).
set -euo pipefail

if [[ "${QUICK:-0}" == 1 ]]; then STEPS=${STEPS:-20} RUNS=${RUNS:-1}; fi
STEPS=${STEPS:-1000}
RUNS=${RUNS:-30}
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
need_hyperfine

WORK=$(mktemp -d "${TMPDIR:-/tmp}/vermas-molbench.XXXXXX")
[[ "${KEEP:-0}" == 1 ]] && log "repository kept at $WORK/repo" || trap 'rm -rf "$WORK"' EXIT
R="$WORK/repo"
mkdir -p "$R" && cd "$R"
git init -q -b main
git config user.name Bench && git config user.email bench@example.com
git config commit.gpgsign false
"$VM" init --prefix vm >/dev/null

# A formula written the way Gas Town writes them: multi-line descriptions with {{vars}},
# [vars.x] tables, unknown keys, children every 50 steps, and a DAG of needs (a chain with
# fan-in every 10 steps).
python3 - "$R/.beads/formulas" "$STEPS" <<'PY'
import os, sys
out, n = sys.argv[1], int(sys.argv[2])
os.makedirs(out, exist_ok=True)
lines = ['description = """', "A generated workflow of {{component}}.", '"""',
         "formula = 'big'", "version = 1", "",
         "[vars.component]", "description = 'What is built'", "default = 'core'",
         "[vars.bead_id]", "description = 'The work item'", "required = true", ""]
count = 0
i = 0
while count < n:
    needs = []
    if i > 0:
        needs.append(f"s{i - 1}")
    if i >= 10 and i % 10 == 0:
        needs.append(f"s{i - 10}")
    lines += ["[[steps]]", f"id = 's{i}'", f"title = 'Step {i} of {{{{component}}}}'",
              "tier = 'haiku'",
              'description = """', f"Do part {i} of {{{{bead_id}}}}.", "",
              "1. Read the notes", "2. Change the code", "3. Run the tests", '"""']
    if needs:
        lines.append("needs = [" + ", ".join(f"'{x}'" for x in needs) + "]")
    count += 1
    if i % 50 == 49 and count + 2 <= n:
        for c in ("a", "b"):
            lines += ["[[steps.children]]", f"id = '{c}'", f"title = 'Part {c} of step {i}'"]
            count += 1
    lines.append("")
    i += 1
with open(f"{out}/big.formula.toml", "w") as f:
    f.write("\n".join(lines))
PY
git add .beads && git commit -q -m "big formula"
BEAD=$("$VM" q "Benchmark bead")
steps=$("$VM" mol cook big --var bead_id="$BEAD" --json | python3 -c 'import json,sys; print(len(json.load(sys.stdin)["steps"]))')
log "formula big: $steps steps, $(wc -c <"$R/.beads/formulas/big.formula.toml") bytes"

hyperfine -N -w "$WARM" -r "$RUNS" --export-json "$WORK/cook.json" \
    "$VM mol cook big --var bead_id=$BEAD --json" >/dev/null
pour=0
if "$VM" mol pour big --bead "$BEAD" --var bead_id="$BEAD" >/dev/null 2>&1; then
    pour=1
    hyperfine -N -w "$(( WARM ? 2 : 0 ))" -r "$RUNS" --export-json "$WORK/pour.json" \
        "$VM mol pour big --bead $BEAD --var bead_id=$BEAD" >/dev/null
else
    log "mol pour is not available in this build: skipped"
fi

python3 - "$WORK" "$steps" "$pour" <<'PY'
import json, sys
w, steps, pour = sys.argv[1], sys.argv[2], sys.argv[3] == "1"
rows = [(f"mol cook big --json ({steps} steps)", "cook.json")]
if pour:
    rows.append((f"mol pour big --bead ID ({steps} steps)", "pour.json"))
print(f"{'command':<44} {'median ms':>10} {'goal ms':>8} {'ratio':>7}")
for name, f in rows:
    r = json.load(open(f"{w}/{f}"))["results"][0]
    med = r["median"] * 1000
    print(f"{name:<44} {med:>10.1f} {1000:>8} {med / 1000:>6.3f}x")
PY
