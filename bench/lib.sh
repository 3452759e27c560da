# Shared set-up of the bench scripts. Sourced, never run: sets ROOT, VM (the vermas binary)
# and log(); make sure hyperfine is there with need_hyperfine.

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
log() { printf '==> %s\n' "$*" >&2; }

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
# vermas workspace (prefix vm), acting as `bench`.
init_bench_repo() {
    git init -q -b main
    git config user.name "Bench User"
    git config user.email bench@example.com
    git config commit.gpgsign false
    export VERMAS_ACTOR=bench
    "$VM" init --prefix vm >/dev/null
}
