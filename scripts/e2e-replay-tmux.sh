#!/usr/bin/env bash
# Records a dashboard session in tmux (--record), then replays it as a person would: the header
# says replay, the recorded ID switch and fault show, End and Home jump, ← seeks back, a live-only
# key is refused with a reason, q leaves with the shell back; and --to-watch prints its events.
# Usage: scripts/e2e-replay-tmux.sh [path/to/tokendash]. Prints "e2e-replay: ok" on success.
# Run with signals unblocked, as scripts/e2e-tmux.sh explains.
set -euo pipefail
bin=$(realpath "${1:-.build/debug/tokendash}")
recording=$(mktemp --suffix=.jsonl)
e2e_name=e2e-replay
e2e_cleanup() { rm -f "$recording"; }
# tm, cleanup on exit, screen, wait_for, press.
source "$(dirname "$0")/tmux-e2e-lib.sh"
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
# A few seconds more, so the replay below is seen playing before it reaches the end.
sleep 4 # sleep: recorded time for the replay to play
tm send-keys -t e2e q
wait_for "TOKENDASH-EXITED-0"

# Replayed: everything happened again, from the file alone.
run_in_tmux "'$bin' replay '$recording'"
wait_for "replay "
wait_for "▶ ×1"
tm send-keys -t e2e '>'
wait_for "×4"
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
if on_screen "replay "; then echo "e2e-replay: the replay's screen was left behind" >&2; exit 1; fi

"$bin" replay "$recording" --to-watch | grep -q '"event":"fetch_failed"' || { echo "e2e-replay: --to-watch printed no failure" >&2; exit 1; }
echo "e2e-replay: ok"
