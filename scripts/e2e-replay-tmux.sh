#!/usr/bin/env bash
# Records a dashboard session in tmux (--record), then replays it as a person would: the header
# says replay, the recorded ID switch and fault show, End and Home jump, ← seeks back, a live-only
# key is refused with a reason, q leaves with the shell back; and --to-watch prints its events.
# Usage: scripts/e2e-replay-tmux.sh [path/to/tokendash]. Prints "e2e-replay: ok" on success.
# Run with signals unblocked, as scripts/e2e-tmux.sh explains.
set -euo pipefail
bin=$(realpath "${1:-.build/debug/tokendash}")
socket="tokendash-e2e-replay-$$"
recording=$(mktemp --suffix=.jsonl)
tm() { timeout 10 tmux -L "$socket" -f /dev/null "$@"; }

server_pid=""
cleanup() {
  local pane_pid=""
  pane_pid=$(tm display-message -p -t e2e '#{pane_pid}' 2>/dev/null) || true
  tm kill-server 2>/dev/null || true
  for pid in $server_pid $pane_pid; do kill -9 "$pid" 2>/dev/null || true; done
  rm -f "$recording"
}
trap cleanup EXIT

screen() { tm capture-pane -p -t e2e; }
# Polls the screen for a fixed string: a real process on a real pty has no clock to inject.
wait_for() {
  local pattern=$1 limit=${2:-20} i
  for ((i = 0; i < limit * 10; i++)); do
    if screen | grep -qF -- "$pattern"; then return 0; fi
    sleep 0.1
  done
  echo "e2e-replay: did not see \"$pattern\" within ${limit}s; screen was:" >&2
  screen >&2 || true
  exit 1
}
run_in_tmux() {
  tm kill-server 2>/dev/null || true
  tm new-session -d -s e2e -x 160 -y 48 -e LANG=C.UTF-8 -e TERM=xterm-256color "$1; echo TOKENDASH-EXITED-\$?; exec sleep 60"
  server_pid=$(tm display-message -p '#{pid}')
}

# Live, recorded: a new trip ID, an HTTP 500 on the driver, then quit.
run_in_tmux "'$bin' --record '$recording' --update-interval 1 --timeout 1 --lifetime 600"
wait_for "Trip ID    trip-0001  ● ok"
tm send-keys -t e2e t
wait_for "Trip ID    trip-0002  ● ok"
tm send-keys -t e2e Tab f 2
wait_for "⚠ FAULT driver=HTTP 500"
tm send-keys -t e2e R
wait_for "backend answered HTTP 500"
sleep 1
tm send-keys -t e2e q
wait_for "TOKENDASH-EXITED-0"

# Replayed: everything happened again, from the file alone.
run_in_tmux "'$bin' replay '$recording' --speed 4"
wait_for "replay "
wait_for "▶ ×4"
wait_for "trip-0001 → trip-0002"
wait_for "⚠ FAULT driver=HTTP 500"
wait_for "backend answered HTTP 500"
tm send-keys -t e2e End
wait_for "‖ paused ×4"
tm send-keys -t e2e Home
wait_for "Trip ID    trip-0001"
wait_for "0:00/"
tm send-keys -t e2e End Left
wait_for "‖ paused ×4"
tm send-keys -t e2e r
wait_for "r acts on the live providers: not in a replay"
tm send-keys -t e2e q
wait_for "TOKENDASH-EXITED-0"
if screen | grep -qF "replay "; then echo "e2e-replay: the replay's screen was left behind" >&2; exit 1; fi

"$bin" replay "$recording" --to-watch | grep -q '"event":"fetch_failed"' || { echo "e2e-replay: --to-watch printed no failure" >&2; exit 1; }
echo "e2e-replay: ok"
