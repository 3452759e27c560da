#!/usr/bin/env bash
# Speed benchmark for vermas mail (record formats: docs/FORMATS.md).
#
#   bench/mail.sh                 # full run: 10,000 messages in mayor/
#   MESSAGES=2000 bench/mail.sh   # quick run
#
# Env:
#   VERMAS_BIN  use this binary instead of `cargo build --release` + target/release/vermas
#   MESSAGES    number of message files to generate (default 10000)
#   RUNS        hyperfine runs (default 30)
#   KEEP=1      keep the generated repository (its path is printed)
#
# Goal (measured, not asserted): `mail inbox mayor/ --json` over 10k messages, median <= 50 ms
# (warm index: the files are committed and older than the 2 s racy window).
set -euo pipefail

if [[ "${QUICK:-0}" == 1 ]]; then MESSAGES=${MESSAGES:-100} RUNS=${RUNS:-1}; fi
MESSAGES=${MESSAGES:-10000}
RUNS=${RUNS:-30}
GOAL_MS=50

source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
need_hyperfine

WORK=$(mktemp -d "${TMPDIR:-/tmp}/vermas-mail-bench.XXXXXX")
REPO="$WORK/repo"
mkdir -p "$REPO"
cleanup() { if [[ "${KEEP:-0}" == 1 ]]; then log "kept $WORK"; else rm -rf "$WORK"; fi; }
trap cleanup EXIT

log "generating $MESSAGES messages in $REPO/.beads/mail/mayor/"
cd "$REPO"
init_bench_repo

python3 - "$MESSAGES" <<'PY'
import os, random, sys, datetime as dt
n = int(sys.argv[1])
rng = random.Random(20261122)
B36 = "0123456789abcdefghijklmnopqrstuvwxyz"
W = ("parser cache sync notify login export import search index render layout retry "
     "timeout queue worker schema migrate config review deploy metrics backup upload").split()
senders = ["inspector/", "inspector/judge", "inspector/critic", "gastown/refinery",
           "gastown/polecat-1", "gastown/polecat-2", "beads/witness"]
types = ["task", "notification", "notification", "escalation", "reply"]
prios = ["urgent", "high", "normal", "normal", "normal", "low"]
base = dt.datetime(2025, 11, 22, tzinfo=dt.timezone.utc)
def q(s): return '"' + s.replace("\\", "\\\\").replace('"', '\\"') + '"'
box = ".beads/mail/mayor"
os.makedirs(box, exist_ok=True)
ids, seen = [], set()
while len(ids) < n:
    i = "msg-" + "".join(rng.choice(B36) for _ in range(6))
    if i not in seen:
        seen.add(i); ids.append(i)
for k, mid in enumerate(ids):
    reply_to = ids[rng.randrange(k)] if k and rng.random() < 0.2 else None
    created = base + dt.timedelta(minutes=k * 3 + rng.randint(0, 2))
    subject = rng.choice(["NEEDS_CLARIFICATION", "SPEC APPROVED", "VERIFICATION COMPLETE",
                          "MERGED", "REJECTED"]) + ": vm-" + "".join(rng.choice(B36) for _ in range(4))
    body = " ".join(rng.choice(W) for _ in range(rng.randint(5, 60)))
    text = "\n".join([
        "---",
        f"id: {mid}",
        f"from: {rng.choice(senders)}",
        "to: mayor/",
        "cc: []",
        f"subject: {q(subject)}",
        f"msg_type: {rng.choice(types)}",
        f"priority: {rng.choice(prios)}",
        f"thread: {reply_to or mid}",
        f"reply_to: {reply_to or 'null'}",
        f"created_at: {created.strftime('%Y-%m-%dT%H:%M:%SZ')}",
        f"read: {'true' if rng.random() < 0.6 else 'false'}",
        "---",
        body,
        "",
    ])
    with open(f"{box}/{mid}.md", "w") as f:
        f.write(text)
PY
git add -A && git commit -q -m "bench: $MESSAGES messages"
log "waiting 2.5 s so the index may cache the files"
sleep 2.5
count=$("$VM" mail inbox mayor/ --json | python3 -c 'import json,sys; print(len(json.load(sys.stdin)))')
[[ "$count" == "$MESSAGES" ]] || { echo "inbox listed $count of $MESSAGES messages" >&2; exit 1; }

hyperfine -N -w "$WARM" -r "$RUNS" --export-json "$WORK/inbox.json" "$VM mail inbox mayor/ --json" >&2
python3 - "$WORK/inbox.json" "$GOAL_MS" "$MESSAGES" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))["results"][0]
goal, n = float(sys.argv[2]), sys.argv[3]
med = r["median"] * 1000
verdict = "PASS" if med <= goal else "FAIL"
print(f"mail inbox mayor/ --json over {n} messages: median {med:.1f} ms "
      f"(mean {r['mean']*1000:.1f}, min {r['min']*1000:.1f}, max {r['max']*1000:.1f}) "
      f"vs goal {goal:.0f} ms: {verdict}")
PY
