#!/usr/bin/env bash
# Every bench script at QUICK=1 (its tiny sizes, one timed run, goals not judged), one
# after another, as .ci/run runs them, so a change that breaks a benchmark fails CI. Prints
# each script's time; on the first that fails, the end of its output, and exits 1.
#
#   VERMAS_BIN=target/debug/vermas bench/quick.sh
# Env: VERMAS_BIN (else a release build, as every script), ONLY (a space-separated list of
# script names to run, e.g. "beads.sh mail.sh").
set -euo pipefail
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
if [[ -n "${VERMAS_BIN:-}" ]]; then VERMAS_BIN=$(readlink -f "$VERMAS_BIN"); export VERMAS_BIN; fi
export QUICK=1
total_start=$(date +%s%N)
for script in "$HERE"/*.sh; do
    name=$(basename "$script")
    [[ "$name" == lib.sh || "$name" == quick.sh ]] && continue
    [[ -n "${ONLY:-}" && " $ONLY " != *" $name "* ]] && continue
    start=$(date +%s%N)
    if ! out=$("$script" 2>&1 </dev/null); then
        printf '%s\n' "$out" | tail -40 >&2
        echo "bench/$name failed at QUICK=1" >&2
        exit 1
    fi
    printf 'bench/%-12s ran to its end in %5.1f s\n' "$name" "$(( ($(date +%s%N) - start) / 1000000 ))e-3"
done
printf 'every bench at QUICK=1: %.1f s\n' "$(( ($(date +%s%N) - total_start) / 1000000 ))e-3"
