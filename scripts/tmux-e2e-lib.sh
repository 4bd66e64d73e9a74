# Shared by the tmux end-to-end scripts (sourced, not run): a tmux server of this run's own, its
# cleanup on exit, and polling the screen. Set `e2e_name` (messages) and optionally define
# `e2e_cleanup` (more to remove on exit) before sourcing.
e2e_name=${e2e_name:-e2e}
socket="tokendash-$e2e_name-$$"
# A command sent just as the server exits (its last session was killed a moment before) fails
# with "server exited unexpectedly"; it is sent again to a new server.
tm() {
  local out status attempt
  for attempt in 1 2 3; do
    status=0
    out=$(timeout 10 tmux -L "$socket" -f /dev/null "$@" 2>&1) || status=$?
    if ((status != 0)) && [[ $out == *"server exited unexpectedly"* ]]; then sleep 0.3; continue; fi
    if ((status != 0)); then
      [[ -n $out ]] && printf '%s\n' "$out" >&2
    elif [[ -n $out ]]; then
      printf '%s\n' "$out"
    fi
    return "$status"
  done
  printf '%s\n' "$out" >&2
  return "$status"
}

# The user's own config file must not change what is tested: tmux passes this to its panes.
e2e_config_home=$(mktemp -d)
export XDG_CONFIG_HOME=$e2e_config_home

server_pid=""
cleanup() {
  local pane_pid=""
  pane_pid=$(tm display-message -p -t e2e '#{pane_pid}' 2>/dev/null) || true
  tm kill-server 2>/dev/null || true
  # Only this run's own server and pane, by pid, in case kill-server could not end them.
  for pid in $server_pid $pane_pid; do kill -9 "$pid" 2>/dev/null || true; done
  if declare -F e2e_cleanup >/dev/null; then e2e_cleanup; fi
  rm -rf "$e2e_config_home"
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
# Starts `command` in the session e2e, WIDTHxHEIGHT, on a UTF-8 xterm; keeps the server's pid for cleanup.
start_session() {
  tm new-session -d -s e2e -x "$1" -y "$2" -e LANG=C.UTF-8 -e TERM=xterm-256color "$3"
  server_pid=$(tm display-message -p '#{pid}')
}
# Presses one key and waits to see its effect.
press() { tm send-keys -t e2e "$1"; wait_for "$2"; }
