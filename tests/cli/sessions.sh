# Checks for specs/sessions.md. Sourced by vermas's bash runner, one function per criterion.
source tests/cli/lib.sh

# own_tmux: a tmux server of this check's own, killed with the repository at exit.
own_tmux() {
  unset TMUX TMUX_PANE
  TMUX_TMPDIR=$(mktemp -d "${TMPDIR:-/tmp}/vermas-check-tmux.XXXXXX")
  export TMUX_TMPDIR
  trap 'tmux kill-server >/dev/null 2>&1; rm -rf "$REPO" "$TMUX_TMPDIR"' EXIT
  command -v tmux >/dev/null || { echo "tmux is not installed"; return 1; }
}

test_start_reuses_and_stop_removes() {
  fresh_repo || return 1
  own_tmux || return 1
  name="vermas-$(basename "$REPO" | tr -c 'A-Za-z0-9_\n-' '_')"
  out=$("$VM" start </dev/null) || return 1
  expect "started: $out" grep -q "Started session $name" <<<"$out" || return 1
  expect "attach command: $out" grep -q "Attach with: tmux attach -t $name" <<<"$out" || return 1
  panes=$(tmux list-panes -t "=$name:" -F '#{pane_start_command}')
  expect "two panes: $panes" [ "$(wc -l <<<"$panes")" -eq 2 ] || return 1
  expect "mayor's inbox: $panes" grep -q "mail inbox mayor/ --watch" <<<"$panes" || return 1
  expect "pending test specs: $panes" grep -q "inspect pending --watch" <<<"$panes" || return 1
  again=$("$VM" start </dev/null) || return 1
  expect "reused: $again" grep -q "running already" <<<"$again" || return 1
  expect "one session" [ "$(tmux list-sessions | wc -l)" -eq 1 ] || return 1
  stopped=$("$VM" stop) || return 1
  expect "stopped: $stopped" grep -q "Stopped session $name" <<<"$stopped" || return 1
  if tmux has-session -t "=$name" 2>/dev/null; then echo "FAILED: the session is still there"; return 1; fi
  none=$("$VM" stop) || return 1
  expect "nothing to stop: $none" grep -q "nothing to stop" <<<"$none"
}

test_status_line_counts() {
  fresh_repo || return 1
  "$VM" mail send mayor/ -s "one" -m x --from alice/ >/dev/null || return 1
  "$VM" mail send mayor/ -s "two" -m x --from alice/ >/dev/null || return 1
  "$VM" config set specs.auto_create true >/dev/null || return 1
  "$VM" q "Ship it" >/dev/null || return 1
  line=$("$VM" status-line) || return 1
  expect "counts: $line" [ "$line" = "mayor: 2 unread | inspector: 1 unread | pending test specs: 1 | refinery queue: 0" ]
}

test_inbox_watch_redraws() {
  fresh_repo || return 1
  "$VM" mail inbox mayor/ --watch >frames.txt 2>&1 &
  watch=$!
  for _ in $(seq 50); do grep -q "No messages for mayor/" frames.txt && break; sleep 0.1; done
  "$VM" mail send mayor/ -s "Arrived while watching" -m x --from alice/ >/dev/null || { kill "$watch"; return 1; }
  for _ in $(seq 50); do grep -q "Arrived while watching" frames.txt && break; sleep 0.1; done
  kill -INT "$watch"; wait "$watch" 2>/dev/null
  expect "redrawn with the new message: $(cat frames.txt)" grep -q "Arrived while watching" frames.txt || return 1
  expect "as a second frame" grep -qx -- "---" frames.txt
}
