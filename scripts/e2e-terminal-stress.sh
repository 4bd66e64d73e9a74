#!/usr/bin/env bash
# Stresses the real dashboard on a real pty (tmux, private socket) and checks after every run
# that the terminal was given back exactly as it was: the wrapper shell in the pane records
# `stty -g` before tokendash starts and after it exits, and tmux reports the alternate screen,
# cursor and keypad modes. Scenarios (each a separate tokendash run, or several):
#   storm    100 resize-window calls in about a second between sizes down to 1x1; redraws at 160x48
#   tiny     1x1, 2x1, 1xN, 10x3, 30x1, 40x10...: exactly the too-small screen (no stray cell), then
#            160x48 redrawn whole; and a start at 1x1 quitting from the too-small screen
#   paste    300 printable keys in one send-keys (overlays, Tab, Enter, digits...), still answers
#   garbage  F1-F12, arrows, alt-keys, unknown escape sequences, invalid UTF-8, wide characters:
#            ignored (no command runs from the bytes of an unknown sequence)
#   signals  SIGTERM/SIGINT during startup, with an overlay open, during a resize storm, twice,
#            at seeded random moments; Ctrl-C as a key
#   noalt    no alternate screen (tmux alternate-screen off): q and SIGTERM leave no dashboard text
#   crash    a crash on purpose (hidden --debug-crash-on-usr1: SIGSEGV, SIGBUS, SIGILL, SIGTRAP,
#            SIGABRT) with the dashboard up: the terminal is restored and the status names the signal
# Usage: scripts/e2e-terminal-stress.sh [path/to/tokendash] [scenario...]   (default: all)
# Prints "terminal-stress: ok" on success; on failure the scenario, the last screen and the stty
# difference go to stderr and the exit status is 1.
#
# Exit status of tokendash on a signal: 0. SIGINT and SIGTERM are a request to stop, carried out
# cleanly (the UI loop ends, ncurses restores the terminal), as q and Ctrl-C-the-key do, and as
# `watch` and `serve` do. Only a signal in the first milliseconds, before the process has
# installed its watcher, kills it by the default action (status 128+n); it has not touched the
# terminal by then, so the stty check below still holds. The signal runs accept either there.
#
# Run it with signals unblocked (see scripts/e2e-tmux.sh): the Swift test spawns it with
# posix_spawn and an empty mask. Every wait is a bounded poll, so a hang fails instead of blocking.
set -euo pipefail
export LANG=C.UTF-8 TERM=xterm-256color
unset TMUX
bin=$(realpath "${1:-.build/debug/tokendash}")
shift || true
scenarios=("$@")
[[ ${#scenarios[@]} -gt 0 ]] || scenarios=(storm tiny paste garbage signals noalt crash)
work=$(mktemp -d "${TMPDIR:-/tmp}/tokendash-stress.XXXXXX")
now_ms() { echo $(($(date +%s%N) / 1000000)); }
# Seeded, so a failure can be replayed; printed with every failure.
seed=${TERMINAL_STRESS_SEED:-$$}
RANDOM=$seed

keeper_pid=""
run_pids=() # the current run's pane and tokendash, cleared once they are gone (pids get reused)
e2e_name=terminal-stress
# After the library's own cleanup (kill-server, its server's pid): only this script's own
# processes, by pid, in case kill-server could not end them.
e2e_cleanup() {
  for pid in $keeper_pid "${run_pids[@]}"; do kill -9 "$pid" 2>/dev/null || true; done
  rm -rf "$work"
}
# tm, cleanup on exit (an empty config folder: the user's config file must not change the run),
# screen, wait_for, wait_gone, start_session, keys. Each run has its own session: e2e_session.
source "$(dirname "$0")/tmux-e2e-lib.sh"

# The pane runs this: it records the terminal before and after tokendash, which runs in the
# foreground (so it owns the tty) under a `bash -c` that writes its pid and then execs it.
cat >"$work/wrapper.sh" <<'EOF'
dir=$1; shift
stty -g >"$dir/stty-before"; stty -a >"$dir/stty-a-before"
echo "BEFORE-TOKENDASH-MARKER"
bash -c 'echo $$ >"$1"; shift; exec "$@"' _ "$dir/pid" "$@"
status=$?
date +%s%3N >"$dir/exited-at"
stty -g >"$dir/stty-after"; stty -a >"$dir/stty-a-after"
# Renamed into place: a reader polling for the file must never see it empty.
echo "$status" >"$dir/status.tmp" && mv "$dir/status.tmp" "$dir/status"
echo "TOKENDASH-EXITED-$status"
exec sleep 600
EOF

scenario="" run="" run_dir="" pid="" alternate_screen=on
extra_args=() # more arguments for tokendash in the next launches

fail() {
  {
    echo "terminal-stress: FAILED in $scenario ($run): $*"
    echo "seed $seed (TERMINAL_STRESS_SEED=$seed replays the random keys and sizes)"
    echo "--- last screen:"
    screen 2>/dev/null || true
    echo "--- pane modes: $(tm display-message -p -t "$e2e_session" 'alternate_on=#{alternate_on} cursor_flag=#{cursor_flag} keypad_cursor_flag=#{keypad_cursor_flag} keypad_flag=#{keypad_flag}' 2>/dev/null || true)"
    if [[ -f $run_dir/stty-before && -f $run_dir/stty-after ]]; then
      echo "--- stty -g before: $(cat "$run_dir/stty-before")"
      echo "--- stty -g after:  $(cat "$run_dir/stty-after")"
      diff "$run_dir/stty-a-before" "$run_dir/stty-a-after" || true
    else
      echo "--- stty after: not recorded (tokendash did not exit)"
    fi
  } >&2
  exit 1
}

# Starts tokendash in a fresh session of this run's tmux server; sets run_dir, e2e_session and pid.
launch() {
  local name=$1 width=${2:-160} height=${3:-48} i
  run=$name
  run_dir="$work/$name"
  # tmux reads "." and ":" in a target as window and pane separators.
  e2e_session="s-${name//[.:]/_}"
  mkdir -p "$run_dir"
  # In the run's own folder: a pasted s writes a snapshot into the current one.
  start_session "$width" "$height" \
    "bash $(printf %q "$work/wrapper.sh") $(printf %q "$run_dir") $(printf %q "$bin") --update-interval 1 ${extra_args[*]:-}" "$run_dir"
  run_pids=("$(tm display-message -p -t "$e2e_session" '#{pane_pid}')")
  # Until the exec has happened, so a signal reaches tokendash and not the `bash -c` before it.
  pid=""
  for ((i = 0; i < 2000; i++)); do
    if [[ -s $run_dir/pid ]]; then
      pid=$(cat "$run_dir/pid")
      [[ $(readlink "/proc/$pid/exe" 2>/dev/null) == "$bin" ]] && break
    fi
    sleep 0.005 # poll: the exec has happened
  done
  [[ -n $pid && $(readlink "/proc/$pid/exe" 2>/dev/null) == "$bin" ]] || fail "tokendash did not start"
  run_pids+=("$pid")
}

alive() { [[ ! -f $run_dir/status ]] && kill -0 "$pid" 2>/dev/null; }

# While tokendash should be running, its exit ends a wait for the screen at once.
exit_ends_wait() {
  alive || fail "tokendash exited while waiting for \"$1\" (status $(cat "$run_dir/status" 2>/dev/null || echo unknown))"
}
e2e_guard=exit_ends_wait

wait_dashboard() {
  wait_for "Trip ID    trip-0001  ● ok"
  wait_for "Vehicle ID vehicle-0001  ● ok"
}

# The dashboard still reads keys and redraws: ? opens the help, a key closes it. Escape closes
# whatever overlay is open (the pauses let ncurses see each Escape alone, past its 25 ms ESCDELAY).
answers() {
  keys Escape
  sleep 0.1 # sleep: past ESCDELAY, so ncurses reads this Escape alone
  keys Escape
  sleep 0.1 # sleep: past ESCDELAY, so ncurses reads this Escape alone
  wait_gone "any key closes this help"
  keys '?'
  wait_for "any key closes this help" 5
  keys Escape
  wait_gone "any key closes this help" 5
}

# `t` and a typed ID switch the consumer's trip, and the pane shows it. (`t` alone from a long
# pasted ID would change only the truncated end of the line.)
switches_trip() {
  keys t
  sleep 0.1 # sleep: two keys apart, as typed, not one burst
  keys i
  wait_for "new trip ID: █" 5
  keys -l -- "probe-0007"
  keys Enter
  wait_for "Trip ID    probe-0007 " 5
  keys t
  wait_for "Trip ID    probe-0008 " 5
}

# Waits for tokendash to exit and checks that the terminal is exactly as before it started.
# Arguments: the accepted exit statuses.
expect_restored() {
  local i s status modes text leftover ok=""
  for ((i = 0; i < 1500; i++)); do
    [[ -f $run_dir/status ]] && break
    sleep 0.01 # poll: the exit status written
  done
  [[ -f $run_dir/status ]] || fail "tokendash did not exit within 15 s"
  status=$(cat "$run_dir/status")
  for s in "$@"; do [[ $status == "$s" ]] && ok=1; done
  [[ -n $ok ]] || fail "exit status $status, expected one of: $*"
  [[ $(cat "$run_dir/stty-before") == "$(cat "$run_dir/stty-after")" ]] || fail "the terminal settings (stty -g) were not restored"
  # tokendash has exited: no guard for this wait.
  local e2e_guard=""
  wait_for "TOKENDASH-EXITED-$status" 5
  text=$(screen 2>/dev/null) || true
  # The shell's own lines are back: ncurses left the alternate screen and nothing of it remains.
  # (Without an alternate screen the dashboard covered them; it must still be gone itself.)
  if [[ $alternate_screen == on ]]; then
    grep -qF "BEFORE-TOKENDASH-MARKER" <<<"$text" || fail "the shell's screen was not restored"
  fi
  for leftover in "Tab Focus" "tokendash │" "Terminal too small" "Trip ID" "any key closes"; do
    if grep -qF -- "$leftover" <<<"$text"; then fail "the dashboard is still on screen after exit (\"$leftover\")"; fi
  done
  modes=$(tm display-message -p -t "$e2e_session" '#{alternate_on} #{cursor_flag} #{keypad_cursor_flag} #{keypad_flag}')
  [[ $modes == "0 1 0 0" ]] || fail "pane modes after exit are '$modes' (alternate screen, cursor visible, cursor keys, keypad); expected '0 1 0 0'"
  last_status=$status
  tm kill-session -t "$e2e_session" 2>/dev/null || true
  run_pids=()
}

# Sizes for the storms, tiny ones included.
sizes=(1x1 2x1 1x2 10x3 3x10 30x1 40x10 79x23 80x24 81x25 100x30 119x40 120x40 160x48 200x60 250x80 60x50 160x20)

# `count` resize-window calls spread over about `millis` ms, ending at 160x48; returns the ms taken.
resize_storm() {
  local count=$1 millis=$2 start i size
  start=$(now_ms)
  for ((i = 1; i < count; i++)); do
    size=${sizes[RANDOM % ${#sizes[@]}]}
    tm resize-window -t "$e2e_session" -x "${size%x*}" -y "${size#*x}" || return 1
    # Pace by the clock: tmux calls take a few ms each on their own.
    while (($(now_ms) - start < i * millis / count)); do sleep 0.002; done
  done
  tm resize-window -t "$e2e_session" -x 160 -y 48 || return 1
  storm_ms=$(($(now_ms) - start))
}

report() { echo "terminal-stress: $scenario/$run: $*"; }

scenario_storm() {
  launch storm
  wait_dashboard
  resize_storm 100 1000 || fail "resize-window failed"
  alive || fail "tokendash died in the resize storm"
  wait_for "Trip ID    trip-0001  ● ok"
  wait_for "Vehicle ID vehicle-0001  ● ok"
  local text i
  # Drawn whole at the final size: no remnant of a tiny size, header and footer in place. Up to
  # 5 s for the last frame to be out: on a loaded machine the capture can catch one half-written
  # (seen in a full test run: the bottom rows not yet drawn, so fewer than 48 lines).
  for ((i = 0; i < 50; i++)); do
    text=$(screen 2>/dev/null) || true
    [[ $(wc -l <<<"$text") -eq 48 && $(sed -n 48p <<<"$text") == "Tab Focus"* ]] && break
    sleep 0.1 # poll: the full screen redrawn
  done
  [[ $(wc -l <<<"$text") -eq 48 ]] || fail "the screen is not 48 lines"
  if grep -qF "Terminal too small" <<<"$text"; then fail "a too-small screen remnant after growing back"; fi
  [[ $(sed -n 1p <<<"$text") == " tokendash │"* ]] || fail "the header is not on the first line"
  [[ $(sed -n 48p <<<"$text") == "Tab Focus"* ]] || fail "the footer is not on the last line"
  grep -qF "● ok                                                   ││ Vehicle ID vehicle-0001  ● ok" <<<"$text" ||
    fail "the panes do not stand side by side at 160 columns"
  keys t
  wait_for "Trip ID    trip-0002  ● ok"
  keys q
  expect_restored 0
  report "100 resizes in $storm_ms ms, redrew at 160x48, t answered, q: status $last_status, terminal restored"
}

# The too-small screen at WxH as the renderer draws it (the hidden `tokendash render-too-small`
# prints its frame, trailing spaces trimmed as capture-pane does), as the terminal must show it:
# one column wide the bottom cell stays blank (see TerminalScreen.draw: ncurses cannot fill that
# cell safely).
too_small_screen() {
  local width=$1 height=$2 frame rows=()
  frame=$("$bin" render-too-small --width "$width" --height "$height") || fail "render-too-small failed at ${width}x${height}"
  # The frame is the too-small screen, not some other one (or an empty one) the check would
  # accept as well: its first line is on it as far as the width allows.
  grep -qF -- "Terminal too small" <<<"$frame" || [[ $width -lt 18 ]] || fail "render-too-small drew no too-small screen at ${width}x${height}"
  mapfile -t rows <<<"$frame"
  # Empty rows at the bottom are not printed; when the bottom row is, blank it one column wide.
  if ((width == 1 && ${#rows[@]} == height)); then rows[height - 1]=""; fi
  printf '%s\n' "${rows[@]}"
}

# Resizes and waits until the screen is exactly the too-small screen: nothing stray anywhere.
# One column wide, the bytes sent are checked too: ncurses fills a bottom-right cell in column 0
# by inserting a character read from outside its line (insert-char, `\e[N@` or `\e[4h`), which
# shows a stray letter only when that memory happens to hold one.
resize_to_too_small() {
  local width=$1 height=$2 expected i raw="$run_dir/output-${1}x${2}"
  if ((width == 1)); then tm pipe-pane -t "$e2e_session" "cat >>$(printf %q "$raw")"; fi
  tm resize-window -t "$e2e_session" -x "$width" -y "$height"
  expected=$(too_small_screen "$width" "$height")
  for ((i = 0; i < 60; i++)); do
    if [[ $(screen) == "$expected" ]]; then
      ((width == 1)) || return 0
      sleep 0.2 # sleep: the redraw is on screen; the pipe catches up before it closes
      tm pipe-pane -t "$e2e_session"
      if LC_ALL=C grep -qaE $'\e\\[[0-9]*@|\e\\[4h' "$raw" 2>/dev/null; then
        fail "at ${width}x${height} ncurses was made to insert a character into the bottom-right cell"
      fi
      return 0
    fi
    alive || fail "tokendash died at ${width}x${height}"
    sleep 0.05 # poll: the too-small screen
  done
  fail "the screen at ${width}x${height} is not the too-small screen; expected:
$expected"
}

scenario_tiny() {
  launch tiny
  wait_dashboard
  local size
  # One-column sizes in between: each redraw there is where a stray character showed.
  for size in 1x1 2x1 1x1 1x3 1x1 3x1 1x2 1x5 1x1 10x3 1x4 1x1 30x1 1x7 1x6 40x10 1x1 1x2 1x9 59x15 1x1; do
    resize_to_too_small "${size%x*}" "${size#*x}"
  done
  # Between 60x16 and 80x24 the focused pane alone fills the screen.
  tm resize-window -t "$e2e_session" -x 70 -y 20
  wait_for "Trip ID    trip-0001  ● ok"
  if grep -qF "Vehicle ID" <<<"$(screen)"; then fail "70x20 shows both panes, not the focused one"; fi
  tm resize-window -t "$e2e_session" -x 160 -y 48
  wait_for "Trip ID    trip-0001  ● ok"
  wait_for "Tab Focus"
  if grep -qF "Terminal too small" <<<"$(screen)"; then fail "a too-small screen remnant at 160x48"; fi
  answers
  keys q
  expect_restored 0
  report "1x1, 2x1, 1x3, 10x3, 30x1, 40x10, 59x15... exactly the too-small screen, 70x20 one pane, then 160x48 redrawn, answered, q: status $last_status"

  # Started at 1x1, resized to 40x10, q quits from the too-small screen.
  launch tiny-start 1 1
  resize_to_too_small 1 1
  resize_to_too_small 40 10
  keys q
  expect_restored 0
  report "started at 1x1, q from the too-small screen: status $last_status"
}

scenario_paste() {
  launch paste
  wait_dashboard
  # Printable ASCII without q and Q, plus Tab, Enter and DEL; overlays (? f i m), digits, j/k, T, p,
  # x, s... Not z: a freeze would hold the very picture the checks after the paste read.
  local charset="" c paste="" i
  for ((c = 32; c < 127; c++)); do
    [[ $c -eq 81 || $c -eq 113 || $c -eq 122 ]] && continue
    charset+=$(printf "\\$(printf %03o "$c")")
  done
  charset+=$'\t\r\x7f?fi'
  for ((i = 0; i < 300; i++)); do paste+=${charset:RANDOM % ${#charset}:1}; done
  local pasted
  pasted=$(now_ms)
  keys -l -- "$paste"
  alive || fail "tokendash died on the pasted keys"
  # Escape and ? queue behind the paste: the help shows once all 300 keys are handled.
  answers
  local caught_up=$(($(now_ms) - pasted))
  switches_trip
  keys q
  expect_restored 0
  report "300 keys in one send-keys; Escape, ? answered ${caught_up} ms after the paste; t and a typed ID answered; q: status $last_status"
}

scenario_garbage() {
  launch garbage
  wait_dashboard
  keys F1 F2 F3 F4 F5 F6 F7 F8 F9 F10 F11 F12
  keys Up Down Left Right Home End PPage NPage IC DC BTab S-Up C-Left M-Right
  keys C-z 'C-\' C-s C-q C-@ C-d C-a
  # Alt-keys arrive as ESC and the key, and read as Escape then the key (as ncurses reads them,
  # and as Escape then a key typed while the dashboard lags): those of unbound keys do nothing.
  keys M-a M-b M-c M-g M-1 M-9 M-/ M-Enter
  # Unknown sequences are dropped whole: read one by one their bytes would be commands (the q of
  # the DCS quits, t of the window report switches the trip, x reveals, p pauses).
  local sequence
  for sequence in $'\e[999~' $'\e[?1;2c' $'\eO' $'\e' $'\e[' $'\e[1;5' $'\e[200~' $'\e[201~' $'\e]0;title\a' \
    $'\eP+q544e\e\\' $'\e[<0;10;10M' $'\e[I' $'\e[O' $'\e[2;2R' $'\e[8;48;160t' $'\e[0x' $'\e[!p' $'\e[1;999;999;999;999;999H' \
    $'\e\e[t' $'\eOq'; do
    keys -l -- "$sequence"
  done
  keys -H 80 81 9b 9f a0 c0 c1 ff fe
  keys -H c3 28 e2 82 28 f0 90 28 bc ed a0 80 f8 88 80 80 80
  keys -l -- '漢字😀é👩‍👩‍👧ä̈'
  # Keys are read in order: the help opens once everything before it was read (and did not quit).
  keys '?'
  wait_for "any key closes this help" 10
  alive || fail "tokendash quit on unknown keys or escape sequences"
  keys Escape
  wait_gone "any key closes this help" 5
  local text
  text=$(screen)
  for expected in "Trip ID    trip-0001  ● ok" "(x reveals)" "● live"; do
    grep -qF -- "$expected" <<<"$text" || fail "unknown keys acted as commands: \"$expected\" is gone"
  done
  for unexpected in "faults:" "any key closes this help" "Faults of the embedded server" "Switch trip ID"; do
    if grep -qF -- "$unexpected" <<<"$text"; then fail "unknown keys acted as commands: \"$unexpected\" is on screen"; fi
  done
  # Inside the ID prompt, where characters are kept: wide characters are text (Fleet Engine IDs
  # take any script), the rest is not typed, and the prompt stays open.
  keys i
  wait_for "Enter switches, Esc cancels" 5
  keys -l -- '漢字'
  wait_gone "new trip ID: █" 5
  # As this terminal shows them (a locale without wide characters draws each as ?).
  local typed
  typed=$(screen | grep -o "new trip ID: [^ ]*█")
  keys -H 80 ff c3 28
  keys F5
  keys -l -- $'\e[2;2R'
  keys -l -- $'\eP+q544e\e\\'
  # A character typed after them shows once they were read: the prompt holds it, and nothing of theirs.
  keys -l -- 'Z'
  wait_for "${typed%█}Z█" 10
  grep -qF "${typed%█}Z█" <<<"$(screen)" || fail "the ID prompt took unknown input or closed"
  keys Escape
  wait_gone "Enter switches, Esc cancels" 5
  # In the fault menu, where a digit chooses a fault: digits inside sequences choose nothing.
  keys f
  wait_for "Faults of the embedded server" 5
  keys -l -- $'\e[?1;2c'
  keys -l -- $'\e]11;rgb:1111/2222/3333\e\\'
  keys -l -- $'\e[3;4R'
  keys -l -- $'\e[1;2;3;4;5~'
  sleep 0.5 # sleep: no key in the menu shows it was read without closing it or choosing a fault
  text=$(screen)
  grep -qF "Faults of the embedded server" <<<"$text" || fail "the fault menu closed on unknown input"
  grep -qF "active: none" <<<"$text" || fail "unknown input chose a fault"
  keys Escape
  wait_gone "Faults of the embedded server" 5
  # Escape and a key arriving together (a lagging loop, Alt-x) are still Escape, then the key;
  # and an unfinished string introducer goes back to be read as keys: Escape, ], t.
  keys i
  wait_for "new trip ID: █" 5
  keys -l -- $'\ex'
  wait_gone "new trip ID: █" 5
  wait_gone "(x reveals)" 5
  keys x
  wait_for "(x reveals)" 5
  keys -l -- $'\e]t'
  wait_for "Trip ID    trip-0002 " 5
  alive || fail "tokendash died on unknown keys"
  answers
  switches_trip
  keys q
  expect_restored 0
  report "function keys, alt-keys, unknown sequences, invalid UTF-8, wide characters: ignored, answered, q: status $last_status"
}

send_signal() {
  signal_sent_at=$(now_ms)
  kill -s "$1" "$pid" 2>/dev/null || true
}

# After `send_signal`: checks the process ended and the terminal is restored.
check_signalled() {
  local sig=$1
  shift
  expect_restored "$@"
  report "SIG$sig: status $last_status, exited $(($(cat "$run_dir/exited-at") - signal_sent_at)) ms after the signal, terminal restored"
}

signal_and_check() {
  send_signal "$1"
  check_signalled "$@"
}

scenario_signals() {
  local sig delay overlay i
  # During startup: straight after exec, and later, while the server and ncurses come up.
  for sig in TERM INT; do
    for delay in 0 50 200; do
      launch "startup-$sig-${delay}ms"
      ((delay == 0)) || sleep "$(printf '0.%03d' "$delay")" # sleep: the signal at a chosen moment of the startup
      signal_and_check "$sig" 0 $((128 + $(kill -l "$sig")))
    done
  done
  # With an overlay open.
  for overlay in '?:any key closes this help:TERM' '?:any key closes this help:INT' 'f:Faults of the embedded server:INT' \
    'f:Faults of the embedded server:TERM' 'i:Enter switches, Esc cancels:TERM' 'i:Enter switches, Esc cancels:INT'; do
    IFS=: read -r key text sig <<<"$overlay"
    launch "overlay-$key-$sig"
    wait_dashboard
    keys "$key"
    wait_for "$text" 5
    signal_and_check "$sig" 0
  done
  # During a resize storm (the signal lands while ncurses redraws).
  for sig in TERM INT; do
    launch "storm-$sig"
    wait_dashboard
    resize_storm 100 1000 &
    sleep 0.4 # sleep: the signal in the storm's middle
    send_signal "$sig"
    wait $! || true
    check_signalled "$sig" 0
  done
  # Two signals back to back.
  launch "twice"
  wait_dashboard
  kill -s INT "$pid"
  signal_and_check TERM 0
  # A hangup (the terminal window closed, the ssh session dropped): the same clean exit.
  launch hup
  wait_dashboard
  signal_and_check HUP 0
  # At seeded random moments from launch to a settled dashboard.
  for ((i = 0; i < 8; i++)); do
    sig=$([[ $((RANDOM % 2)) == 0 ]] && echo TERM || echo INT)
    delay=$((RANDOM % 800))
    launch "random-$i-$sig-${delay}ms"
    sleep "$(printf '0.%03d' "$delay")" # sleep: the signal at a random moment
    signal_and_check "$sig" 0 $((128 + $(kill -l "$sig")))
  done
  # Ctrl-C is a key in raw mode: a clean quit.
  launch ctrl-c
  wait_dashboard
  keys C-c
  expect_restored 0
  report "Ctrl-C as a key: status $last_status"
}

# A session that outlives the runs: killing a run's session must not end the server, or the
# next run's new-session races the exiting server ("server exited unexpectedly").
tm new-session -d -s keeper -x 80 -y 24 "exec sleep 3600"
server_pid=$(tm display-message -p -t keeper '#{pid}')
keeper_pid=$(tm display-message -p -t keeper '#{pane_pid}')
# A terminal without an alternate screen (tmux's alternate-screen off, like a terminal whose
# terminfo has no smcup): the dashboard draws over the shell's screen and must wipe it on exit.
scenario_noalt() {
  tm set-option -gw alternate-screen off
  alternate_screen=off
  launch noalt
  wait_dashboard
  keys q
  expect_restored 0
  report "no alternate screen, q: status $last_status, nothing of the dashboard left"
  launch noalt-term
  wait_dashboard
  signal_and_check TERM 0
  tm set-option -gw alternate-screen on
  alternate_screen=on
}

scenario_crash() {
  local kind sig
  # Without the backtracer, which would hold the crashed process for seconds (and ask for a key
  # on a terminal): the signal's default action ends it, and the status says which signal.
  export SWIFT_BACKTRACE=enable=no
  tm set-environment -g SWIFT_BACKTRACE enable=no
  for kind in segv:SEGV bus:BUS ill:ILL trap:TRAP abrt:ABRT; do
    IFS=: read -r kind sig <<<"$kind"
    extra_args=(--debug-crash-on-usr1 "$kind")
    launch "crash-$kind"
    wait_dashboard
    kill -USR1 "$pid"
    expect_restored $((128 + $(kill -l "$sig")))
    report "SIG$sig with the dashboard up: status $last_status, terminal restored"
  done
  extra_args=()
}

started=$(now_ms)
for scenario in "${scenarios[@]}"; do
  declare -F "scenario_$scenario" >/dev/null || { echo "terminal-stress: unknown scenario $scenario" >&2; exit 2; }
  "scenario_$scenario"
done
echo "terminal-stress: all runs in $(($(now_ms) - started)) ms (seed $seed)"
echo "terminal-stress: ok"
