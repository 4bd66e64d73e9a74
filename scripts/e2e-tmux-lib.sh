# What the tmux end-to-end scripts share: a tmux server of their own (on socket $socket), its
# cleanup, and waiting for text on the screen. Sourced after setting $socket; the session is e2e.
tm() { timeout 10 tmux -L "$socket" -f /dev/null "$@"; }

server_pid=""
cleanup() {
  local pane_pid=""
  pane_pid=$(tm display-message -p -t e2e '#{pane_pid}' 2>/dev/null) || true
  tm kill-server 2>/dev/null || true
  # Only this run's own server and pane, by pid, in case kill-server could not end them.
  for pid in $server_pid $pane_pid; do kill -9 "$pid" 2>/dev/null || true; done
}
trap cleanup EXIT

screen() { tm capture-pane -p -t e2e; }
# Polls the screen for a fixed string; a real process on a real pty has no clock to inject.
wait_for() {
  local pattern=$1 limit=${2:-20} i
  for ((i = 0; i < limit * 10; i++)); do
    if screen | grep -qF -- "$pattern"; then return 0; fi
    sleep 0.1
  done
  echo "e2e: did not see \"$pattern\" within ${limit}s; screen was:" >&2
  screen >&2 || true
  exit 1
}
# Starts `command` in the session e2e, WIDTHxHEIGHT, on a UTF-8 xterm; keeps the server's pid for cleanup.
start_session() {
  tm new-session -d -s e2e -x "$1" -y "$2" -e LANG=C.UTF-8 -e TERM=xterm-256color "$3"
  server_pid=$(tm display-message -p '#{pid}')
}
# Presses one key and waits to see its effect.
press() { tm send-keys -t e2e "$1"; wait_for "$2"; }
