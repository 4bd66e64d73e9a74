# Shared by the tmux end-to-end scripts (sourced, not run): a tmux server of this run's own, its
# cleanup on exit, and polling the screen. Set `e2e_name` (messages) and optionally define
# `e2e_cleanup` (more to remove on exit) before sourcing.
e2e_name=${e2e_name:-e2e}
socket="tokendash-$e2e_name-$$"
tm() { timeout 10 tmux -L "$socket" -f /dev/null "$@"; }

server_pid=""
cleanup() {
  local pane_pid=""
  pane_pid=$(tm display-message -p -t e2e '#{pane_pid}' 2>/dev/null) || true
  tm kill-server 2>/dev/null || true
  # Only this run's own server and pane, by pid, in case kill-server could not end them.
  for pid in $server_pid $pane_pid; do kill -9 "$pid" 2>/dev/null || true; done
  if declare -F e2e_cleanup >/dev/null; then e2e_cleanup; fi
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
  echo "$e2e_name: did not see \"$pattern\" within ${limit}s; screen was:" >&2
  screen >&2 || true
  exit 1
}
# Presses one key and waits to see its effect.
press() { tm send-keys -t e2e "$1"; wait_for "$2"; }
