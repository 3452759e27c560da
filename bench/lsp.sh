#!/usr/bin/env bash
# `vermas lsp`: the time from a didChange to the publishDiagnostics of that version, on a
# spec with many links into one large script (as wrapix's ralph-harness.md has 48 links
# into a ~600 KB harness), against the same spec whose script is cut to 15 KB (the floor:
# the same work without the big file). Also a burst of 20 edits sent at once: the time
# until the diagnostics of the last one.
#
#   bench/lsp.sh                     # 48 links, 600 KB, 40 edits each
#   LINKS=200 KB=2000 EDITS=100 bench/lsp.sh
# Env: VERMAS_BIN (else a release build), LINKS, KB, EDITS. Goal: median <= 10 ms.
set -euo pipefail
if [[ "${QUICK:-0}" == 1 ]]; then LINKS=${LINKS:-4} KB=${KB:-20} EDITS=${EDITS:-2}; fi
LINKS=${LINKS:-48}
KB=${KB:-600}
EDITS=${EDITS:-40}
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

WORK=$(mktemp -d "${TMPDIR:-/tmp}/vermas-lsp.XXXXXX")
trap 'rm -rf "$WORK"' EXIT

# repo DIR KB: a repository with specs/harness.md linking LINKS functions of a KB-sized script.
repo() {
    mkdir -p "$1" && (cd "$1" && harness_repo "$LINKS" "$2")
}
repo "$WORK/big" "$KB"
repo "$WORK/small" 15

log "lsp: didChange -> publishDiagnostics, $LINKS links into ${KB} KB vs 15 KB, $EDITS edits each (load: $(cut -d' ' -f1-3 /proc/loadavg))"
python3 - "$VM" "$WORK/big" "$WORK/small" "$EDITS" <<'PY'
import json, os, statistics, subprocess, sys, time

vm, big, small, edits = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])

class Server:
    def __init__(self, root):
        self.p = subprocess.Popen([vm, "lsp"], cwd=root, stdin=subprocess.PIPE,
                                  stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
        self.next_id = 1
        self.request("initialize", {"processId": os.getpid(), "rootUri": "file://" + root,
                                    "capabilities": {}})
        self.notify("initialized", {})

    def send(self, msg):
        body = json.dumps(msg).encode()
        self.p.stdin.write(b"Content-Length: %d\r\n\r\n" % len(body) + body)
        self.p.stdin.flush()

    def read(self):
        length = 0
        while True:
            line = self.p.stdout.readline()
            if line in (b"\r\n", b"\n"):
                break
            if line.lower().startswith(b"content-length:"):
                length = int(line.split(b":")[1])
        return json.loads(self.p.stdout.read(length))

    def request(self, method, params):
        i = self.next_id
        self.next_id += 1
        self.send({"jsonrpc": "2.0", "id": i, "method": method, "params": params})
        while True:
            m = self.read()
            if m.get("id") == i:
                return m

    def notify(self, method, params):
        self.send({"jsonrpc": "2.0", "method": method, "params": params})

    def diagnostics_for(self, version):
        while True:
            m = self.read()
            if m.get("method") == "textDocument/publishDiagnostics" and \
                    m["params"].get("version") == version:
                return m

    def close(self):
        self.request("shutdown", None)
        self.notify("exit", None)
        self.p.wait(timeout=10)

def measure(root):
    s = Server(root)
    uri = "file://" + os.path.join(root, "specs/harness.md")
    text = open(os.path.join(root, "specs/harness.md")).read()
    s.notify("textDocument/didOpen", {"textDocument": {"uri": uri, "languageId": "markdown",
                                                       "version": 1, "text": text}})
    s.diagnostics_for(1)
    times = []
    version = 1
    for n in range(edits):
        version += 1
        text += f"\nnote {n}\n"
        t = time.perf_counter()
        s.notify("textDocument/didChange", {"textDocument": {"uri": uri, "version": version},
                                            "contentChanges": [{"text": text}]})
        s.diagnostics_for(version)
        times.append(time.perf_counter() - t)
    # A burst: 20 edits sent at once, then the wait for the last one's diagnostics.
    t = time.perf_counter()
    for n in range(20):
        version += 1
        text += f"\nburst {n}\n"
        s.notify("textDocument/didChange", {"textDocument": {"uri": uri, "version": version},
                                            "contentChanges": [{"text": text}]})
    s.diagnostics_for(version)
    burst = time.perf_counter() - t
    s.close()
    return times, burst

(bt, bb), (st, sb) = measure(big), measure(small)
mb, ms = statistics.median(bt), statistics.median(st)
q = lambda xs: f"min {min(xs)*1000:.1f}, max {max(xs)*1000:.1f}"
print(f"didChange -> diagnostics, big script:   median {mb*1000:6.1f} ms ({q(bt)})")
print(f"didChange -> diagnostics, 15 KB script: median {ms*1000:6.1f} ms ({q(st)})")
print(f"ratio {mb/ms:.2f}x   goal: big median <= 10 ms")
print(f"burst of 20 edits -> last diagnostics: big {bb*1000:.1f} ms, 15 KB {sb*1000:.1f} ms")
PY
