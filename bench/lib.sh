# Shared set-up of the bench scripts. Sourced, never run: sets ROOT, VM (the vermas binary)
# and log(); make sure hyperfine is there with need_hyperfine.

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
log() { printf '==> %s\n' "$*" >&2; }

# QUICK=1, as .ci/run runs every bench: each script's tiny sizes and one timed run, no
# warm-up (WARM: hyperfine's warm-up runs, else 3); the goals are not judged. It shows only
# that the bench still runs to its end.
QUICK=${QUICK:-0}
if [[ "$QUICK" == 1 ]]; then WARM=${WARM:-0}; else WARM=${WARM:-3}; fi

# VERMAS_BIN when set, else a fresh release build.
if [[ -n "${VERMAS_BIN:-}" ]]; then
    VM=$(readlink -f "$VERMAS_BIN")
else
    log "cargo build --release"
    (cd "$ROOT" && cargo build --release -q)
    VM="$ROOT/target/release/vermas"
fi
[[ -x "$VM" ]] || { echo "no vermas binary at $VM" >&2; exit 1; }

# need_hyperfine: installs hyperfine with apt when missing; fails when it cannot be had.
need_hyperfine() {
    if ! command -v hyperfine >/dev/null 2>&1; then
        log "installing hyperfine"
        apt-get update -qq >/dev/null 2>&1 && apt-get install -y -qq hyperfine >/dev/null 2>&1
    fi
    command -v hyperfine >/dev/null 2>&1 || { echo "hyperfine is needed" >&2; exit 1; }
}

# init_bench_repo: makes the current folder a git repository with a fixed identity and a
# vermas workspace (prefix vm), acting as `bench`. No automatic gc: a commit of thousands
# of generated files would start `git gc --auto` in the background, and its packing and
# pruning would run through whatever is measured next (vermas and its floor alike).
init_bench_repo() {
    git init -q -b main
    git config user.name "Bench User"
    git config user.email bench@example.com
    git config commit.gpgsign false
    git config gc.auto 0
    export VERMAS_ACTOR=bench
    "$VM" init --prefix vm >/dev/null
}

# harness_repo LINKS KB: in the current folder (a fresh repository), specs/harness.md with
# LINKS criteria, each linking one function of tests/harness.sh, a script padded to KB
# kilobytes with comment lines (as a long generated harness is); committed.
harness_repo() {
    local links=$1 kb=$2
    init_bench_repo
    mkdir -p specs tests
    {
        echo '#!/usr/bin/env bash'
        for i in $(seq 1 "$links"); do printf 'test_%d() {\n  true\n}\n' "$i"; done
        python3 -c "import sys; line = '# a long harness line that no check reads, padding it\n'; sys.stdout.write(line * ($kb * 1024 // len(line)))"
        echo '"$@"'
    } >tests/harness.sh
    chmod +x tests/harness.sh
    {
        echo '# Harness'
        echo
        echo '## Success Criteria'
        echo
        for i in $(seq 1 "$links"); do
            echo "- [ ] check $i [verify](../tests/harness.sh#test_$i)"
        done
    } >specs/harness.md
    git add -A >/dev/null && git commit -qm bench
}
