# Shared by the tmux end-to-end scripts (sourced, not run): a tmux server of this run's own, its
# cleanup on exit, and polling the screen. Set `e2e_name` (messages) and optionally define
# `e2e_cleanup` (more to remove on exit) before sourcing.
#
# The helpers act on the session named by `e2e_session` (e2e unless set; a script with a session
# per run sets it before each). A script may redefine `fail` to say more about a failure, and set
# `e2e_guard` to a function that `wait_for` calls at every poll with the awaited text: it ends a
# wait that can no longer succeed (e.g. the program under test has exited) by calling fail.
e2e_name=${e2e_name:-e2e}
e2e_session=${e2e_session:-e2e}
e2e_guard=${e2e_guard:-}
socket="tokendash-$e2e_name-$$"
# A command sent just as the server exits (its last session was killed a moment before) fails
# with "server exited unexpectedly"; it is sent again to a new server.
tm() {
  local out status attempt
  for attempt in 1 2 3; do
    status=0
    out=$(timeout 10 tmux -L "$socket" -f /dev/null "$@" 2>&1) || status=$?
    if ((status != 0)) && [[ $out == *"server exited unexpectedly"* ]]; then sleep 0.3; continue; fi # poll: tmux server restarted
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
  pane_pid=$(tm display-message -p -t "$e2e_session" '#{pane_pid}' 2>/dev/null) || true
  tm kill-server 2>/dev/null || true
  # Only this run's own server and pane, by pid, in case kill-server could not end them.
  for pid in $server_pid $pane_pid; do kill -9 "$pid" 2>/dev/null || true; done
  # tmux leaves its socket file behind; this one is this run's alone (named by its pid).
  rm -f "${TMUX_TMPDIR:-/tmp}/tmux-$(id -u)/$socket"
  if declare -F e2e_cleanup >/dev/null; then e2e_cleanup; fi
  rm -rf "$e2e_config_home"
}
trap cleanup EXIT

screen() { tm capture-pane -p -t "$e2e_session"; }
# Whether the screen shows a fixed string: 0 it does, 1 it does not, 2 no capture. The capture
# is read whole before it is searched, never piped to a reader that may leave early (grep -q at
# its match, head -1): a 160x48 screen is over 4 KB, which tm's printf writes in pieces, so a
# reader gone before the last piece kills it with SIGPIPE and, under pipefail, the pipeline
# fails with the string on screen (the tap's header check failed so in 1 run of 10).
on_screen() {
  local text
  text=$(screen) || return 2
  [[ $text == *"$1"* ]]
}
# Ends the run: the message and the last screen to stderr, exit status 1.
fail() {
  echo "$e2e_name: $*; screen was:" >&2
  screen >&2 || true
  exit 1
}
# Polls the screen for a fixed string, for up to `seconds` (20 unless given); a real process on a
# real pty has no clock to inject.
wait_for() {
  local pattern=$1 limit=${2:-20} i
  for ((i = 0; i < limit * 20; i++)); do
    if on_screen "$pattern"; then return 0; fi
    if [[ -n $e2e_guard ]]; then "$e2e_guard" "$pattern"; fi
    sleep 0.05 # poll: the pattern
  done
  fail "did not see \"$pattern\" within ${limit}s"
}
# Polls until a fixed string has left the screen, for up to `seconds` (10 unless given). Gone
# means gone from two captures in a row: a capture taken while the program is part-way through
# writing a frame can miss a line that is still there (a loaded CI run saw the help "gone", then
# on screen again at the next capture, and failed).
wait_gone() {
  local pattern=$1 limit=${2:-10} i absent=0
  for ((i = 0; i < limit * 20; i++)); do
    # A failed capture is no sign that the string is gone.
    if on_screen "$pattern"; then absent=0; elif (($? == 1)); then absent=$((absent + 1)); fi
    if ((absent >= 2)); then return 0; fi
    sleep 0.05 # poll: the pattern
  done
  fail "\"$pattern\" still on screen after ${limit}s"
}
# Starts `command` in the session $e2e_session, WIDTHxHEIGHT, on a UTF-8 xterm, in `folder` when
# given; keeps the server's pid for cleanup.
start_session() {
  local folder=()
  [[ -n ${4:-} ]] && folder=(-c "$4")
  tm new-session -d -s "$e2e_session" -x "$1" -y "$2" "${folder[@]}" -e LANG=C.UTF-8 -e TERM=xterm-256color "$3"
  server_pid=$(tm display-message -p '#{pid}')
}
# Sends keys (tmux send-keys arguments) to the session.
keys() { tm send-keys -t "$e2e_session" "$@"; }
# Presses one key and waits to see its effect.
press() { keys "$1"; wait_for "$2"; }
