#!/usr/bin/env bash
# Drives the real dashboard in tmux as a person would: waits for both panes to show a token,
# presses t and v and sees the new IDs, presses x and sees a whole token, presses q and sees
# the shell back with the screen restored; then a fleet: a burst of ], the table's / filter and
# Enter, and n to the member in trouble; and the evidence keys m, z, s; then the tap's demo (the
# port it bound in the header, n following a churning trip). Usage: scripts/e2e-tmux.sh [path/to/tokendash]
# Exits 0 and prints "e2e: ok" on success; non-zero with the last screen on stderr otherwise.
#
# Run it with signals unblocked: tmux inherits the caller's signal mask, and a tmux server with
# SIGCHLD/SIGHUP blocked never notices its pane exit nor stops on kill-server. A Swift
# `Process` child inherits a Dispatch thread's mask (nearly all blocked), so the Swift test
# spawns this script with posix_spawn and an empty mask. The cleanup (tmux-e2e-lib.sh) is bounded anyway.
set -euo pipefail
bin=$(realpath "${1:-.build/debug/tokendash}")
# tm, cleanup on exit, screen, wait_for, press.
source "$(dirname "$0")/tmux-e2e-lib.sh"

# `exec sleep` keeps the pane (and the shell's view after quitting) on screen; kill-server ends it.
start_session 160 48 "'$bin' --update-interval 1 --timeout 1 --lifetime 600; echo TOKENDASH-EXITED-\$?; exec sleep 60"
wait_for "Trip ID    trip-0001  ● ok"
wait_for "Vehicle ID vehicle-0001  ● ok"
# A left click (X10 mouse report: ESC [ M, button, column+33, row+33) in the right pane focuses
# it, and one in the left pane focuses that again.
tm send-keys -t e2e -l $'\e[M v+' $'\e[M#v+'
wait_for "┌─ ▶ Driver (vehicle token)"
tm send-keys -t e2e -l $'\e[M %+' $'\e[M#%+'
wait_for "┌─ ▶ Consumer (trip token)"
# The embedded server's tokens are verified against its own JWKS, fetched over HTTP.
wait_for "Checks     ✓ ok  signature ✓, 600 s lifetime, tripid trip-0001"
tm send-keys -t e2e t
wait_for "Trip ID    trip-0002  ● ok"
wait_for "trip-0001 → trip-0002"
tm send-keys -t e2e v
wait_for "Vehicle ID vehicle-0002  ● ok"
tm send-keys -t e2e x
wait_for "│            "
if on_screen "(x reveals)"; then echo "e2e: x did not reveal the tokens" >&2; screen >&2; exit 1; fi
# A stalled backend: the embedded server answers the focused driver 3 s late and the client gives
# up after 1 s (--timeout 1). While the request hangs the screen keeps answering keys.
tm send-keys -t e2e f
wait_for "Faults of the embedded server"
tm send-keys -t e2e 1
wait_for "⚠ FAULT driver=latency (3 s per request; < > adjust)"
tm send-keys -t e2e r
wait_for "refresh requested"
tm send-keys -t e2e '?'
started=$(date +%s%N)
wait_for "this help" 2
echo "e2e: help drawn $(( ($(date +%s%N) - started) / 1000000 )) ms after the key, with a fetch hanging"
tm send-keys -t e2e Escape
wait_for "backend did not answer within 1 s"
# The wrong-ID fault: the provider refuses the token, and the SDK's call to the embedded Fleet
# Engine with it comes back 403 with the mismatch named, in the pane and the fetch log.
tm send-keys -t e2e f
wait_for "Faults of the embedded server"
tm send-keys -t e2e 6
wait_for "⚠ FAULT driver=token for the wrong ID"
tm send-keys -t e2e r
wait_for "Fleet Eng. ✗ UpdateVehicle 403 PERMISSION_DENIED"
wait_for "Fleet Engine    "
tm send-keys -t e2e f
wait_for "Faults of the embedded server"
tm send-keys -t e2e 0
tm send-keys -t e2e q
wait_for "TOKENDASH-EXITED-0"
if on_screen "Tab Focus"; then echo "e2e: the dashboard is still on screen after quitting" >&2; screen >&2; exit 1; fi
# Paused with 3-second tokens: no SDK call comes, the token's exp passes, and the dot says so
# (it used to stay a green "● ok").
tm kill-session -t e2e
tm new-session -d -s e2e -x 160 -y 48 -e LANG=C.UTF-8 -e TERM=xterm-256color \
  "'$bin' --update-interval 1 --lifetime 3; echo TOKENDASH-EXITED-\$?; exec sleep 60"
wait_for "Trip ID    trip-0001  ● ok"
tm send-keys -t e2e p
wait_for "Trip ID    trip-0001  ● expired"
wait_for "paused: no SDK call fetches a new one"
tm send-keys -t e2e p
wait_for "Trip ID    trip-0001  ● ok"
tm send-keys -t e2e q
wait_for "TOKENDASH-EXITED-0"
# A config file's profile and key remaps reach the screen: its trip ID, the footer's keys, and the
# remapped key works while the old one does nothing.
mkdir -p "$XDG_CONFIG_HOME/tokendash"
printf 'profiles:\n  demo:\n    trip-id: trip-from-config\nkeys:\n  help: h\n  quit: Q\n' > "$XDG_CONFIG_HOME/tokendash/config.yaml"
# The pane is respawned, not its session killed: a new session would race the exiting server.
tm respawn-pane -k -t e2e "'$bin' --profile demo --update-interval 1 --lifetime 600; echo CONFIG-RUN-EXITED-\$?; exec sleep 60"
wait_for "Trip ID    trip-from-config  ● ok"
wait_for "h Help Q Quit"
press h "any key closes this help"
tm send-keys -t e2e q
wait_for "Trip ID    trip-from-config  ● ok"
tm send-keys -t e2e q
# Keys are read in order: the help opens only if the q before it did not quit.
press h "any key closes this help"
if on_screen "CONFIG-RUN-EXITED"; then echo "e2e: q still quits after quit was remapped to Q" >&2; screen >&2; exit 1; fi
tm send-keys -t e2e Escape
wait_gone "any key closes this help"
tm send-keys -t e2e Q
wait_for "CONFIG-RUN-EXITED-0"
rm "$XDG_CONFIG_HOME/tokendash/config.yaml"
# An 8-colour terminal (TERM=xterm) showing a healthy dashboard has no warning colour on it
# (greys once mapped to yellow there): no yellow foreground or background in any cell.
tm kill-session -t e2e
tm new-session -d -s e2e -x 160 -y 48 -e LANG=C.UTF-8 -e TERM=xterm \
  "'$bin' --update-interval 1 --lifetime 600; echo TOKENDASH-EXITED-\$?; exec sleep 60"
wait_for "Trip ID    trip-0001  ● ok"
wait_for "Vehicle ID vehicle-0001  ● ok"
# Read whole before grep looks (see on_screen).
colours=$(tm capture-pane -e -p -t e2e)
if grep -qE $'\e\\[([0-9;]*;)?(33|43|93|103|38;5;(3|11)|48;5;(3|11))(;[0-9;]*)?m' <<<"$colours"; then
  echo "e2e: yellow on a healthy TERM=xterm screen:" >&2
  grep -nE $'\e\\[([0-9;]*;)?(33|43|93|103)m' <<<"$colours" | cat -v >&2
  exit 1
fi
tm send-keys -t e2e q
wait_for "TOKENDASH-EXITED-0"
# Evidence: m marks a moment with a note, z freezes the picture, s writes a snapshot file into
# the current folder (no recording), z unfreezes and says how many events came meanwhile.
tm kill-session -t e2e
evidence=$(mktemp -d)
tm new-session -d -s e2e -x 160 -y 48 -c "$evidence" -e LANG=C.UTF-8 -e TERM=xterm-256color \
  "'$bin' --update-interval 1 --lifetime 600; echo TOKENDASH-EXITED-\$?; exec sleep 60"
wait_for "Trip ID    trip-0001  ● ok"
press m "note: █"
tm send-keys -t e2e -l 'customer called'
press Enter ": customer called"
wait_for "marks ▲"
press z "❄ FROZEN at"
wait_for "events since (z resumes)"
press s "snapshot written to $evidence/tokendash-snapshot-"
snapshot=$(ls "$evidence"/tokendash-snapshot-*.txt)
grep -qF "❄ FROZEN at" "$snapshot" || { echo "e2e: the snapshot is not the frozen screen" >&2; cat "$snapshot" >&2; exit 1; }
grep -q '^{"time":.*"event":"fetched"' "$snapshot" || { echo "e2e: the snapshot has no events" >&2; cat "$snapshot" >&2; exit 1; }
press z "unfrozen: "
tm send-keys -t e2e q
wait_for "TOKENDASH-EXITED-0"
rm -rf "$evidence"
# A fleet of 30 trips with 600 s tokens (no fetch comes on its own while this runs).
tm kill-session -t e2e
tm new-session -d -s e2e -x 160 -y 48 -e LANG=C.UTF-8 -e TERM=xterm-256color \
  "'$bin' --trips 30 --vehicles 2 --update-interval 1 --lifetime 600; echo TOKENDASH-EXITED-\$?; exec sleep 60"
wait_for "Trips (30): 30 ok"
# 20 presses of ] in one burst land 20 members on, and that member's cached token shows at once.
tm send-keys -t e2e -l ']]]]]]]]]]]]]]]]]]]]'
wait_for "Trip ID    trip-0021  (21 of 30)  ● ok"
# / filters the table by ID (over every member, in the aggregate); Enter follows the selected row.
tm send-keys -t e2e -l '/0017'
press Enter 'Trips containing "0017" (1 of 30)'
press Enter "Trip ID    trip-0017  (17 of 30)  ● ok"
press / "ID contains: 0017"
press Escape "Trips (30): 30 ok"
# n: a forced refresh against an HTTP 500 leaves the followed trip alone in trouble (stale);
# three members on, n comes back to it.
press f "Faults of the embedded server"
press 2 "⚠ FAULT consumer=HTTP 500"
press r "Trip ID    trip-0017  (17 of 30)  ● stale"
wait_for "Trips (30): 1 stale · 29 ok"
tm send-keys -t e2e -l ']]]'
wait_for "Trip ID    trip-0020  (20 of 30)  ● ok"
press n "Trip ID    trip-0017  (17 of 30)  ● stale"
tm send-keys -t e2e q
wait_for "TOKENDASH-EXITED-0"
# The tap's demo on a port the system picks: the header names the port bound, not ":0"; the
# table first, then n follows a churning trip with its last hour.
tm kill-session -t e2e
tm new-session -d -s e2e -x 160 -y 48 -e LANG=C.UTF-8 -e TERM=xterm-256color \
  "'$bin' tap --listen 127.0.0.1:0; echo TOKENDASH-EXITED-\$?; exec sleep 60"
wait_for "Enter follows an ID: its token, checks and last hour of fetches"
# The header is cut from the whole capture: `screen | head -1` killed tm with SIGPIPE (see on_screen).
shown=$(screen)
grep -qE "│ tap 127\.0\.0\.1:[1-9][0-9]* → " <<<"${shown%%$'\n'*}" || fail "the tap's header does not name the port bound"
wait_for " churning, "
press n "● fetches "
wait_for "── Fetch log"
tm send-keys -t e2e q
wait_for "TOKENDASH-EXITED-0"
echo "e2e: ok"
