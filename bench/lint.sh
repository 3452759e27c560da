#!/usr/bin/env bash
# `spec check` on a spec with many links into one large script, against `spec list
# --json` on the same spec (which parses the spec but reads no linked file): the cost of
# checking the links. The goal is that a linked file is read and scanned once per run,
# however many links point into it (before: once per link).
#
#   bench/lint.sh                   # 48 links into a ~600 KB script, 20 runs each
#   LINKS=200 KB=2000 bench/lint.sh
# Env: VERMAS_BIN (else a release build), LINKS, KB (script size), RUNS.
set -euo pipefail
if [[ "${QUICK:-0}" == 1 ]]; then LINKS=${LINKS:-4} KB=${KB:-10} RUNS=${RUNS:-1}; fi
LINKS=${LINKS:-48}
KB=${KB:-600}
RUNS=${RUNS:-20}
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
need_hyperfine

WORK=$(mktemp -d "${TMPDIR:-/tmp}/vermas-lint.XXXXXX")
trap 'rm -rf "$WORK"' EXIT
cd "$WORK"
harness_repo "$LINKS" "$KB"

log "spec check ($LINKS links into $(du -k tests/harness.sh | cut -f1) KB) vs spec list --json"
hyperfine -N -w "$WARM" -r "$RUNS" --export-json "$WORK/h.json" \
    "$VM spec check" "$VM spec list --json" >/dev/null 2>&1
python3 - "$WORK/h.json" <<'PY'
import json, statistics, sys
r = json.load(open(sys.argv[1]))["results"]
med = [statistics.median(x["times"]) for x in r]
print(f"spec check      median {med[0]*1000:7.1f} ms")
print(f"spec list --json median {med[1]*1000:7.1f} ms")
print(f"ratio {med[0]/med[1]:.2f}x")
PY
