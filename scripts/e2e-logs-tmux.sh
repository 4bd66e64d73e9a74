#!/usr/bin/env bash
# The logs screen as a support engineer opens it: an export (one vehicle silent five minutes, one
# refused once) read at 80x24 and at 160x48, the table's troubled row first, Enter following it
# (its calls across the span, its silence), / finding an ID by part of it, v the version table,
# Esc back, [ Space ] playing it, q leaving the shell as it was; then the same export recorded
# (--record) and replayed. Usage: scripts/e2e-logs-tmux.sh [path/to/tokendash]. Prints "e2e-logs: ok" on success.
set -euo pipefail
bin=$(realpath "${1:-.build/debug/tokendash}")
export_file=$(mktemp --suffix=.jsonl)
e2e_name=e2e-logs
e2e_cleanup() { rm -f "$export_file" "$export_file.rec"; }
# tm, cleanup on exit, screen, wait_for, press.
source "$(dirname "$0")/tmux-e2e-lib.sh"

entry() { # n seconds vehicle [error code]
  local t=$2 severity="" response=""
  if [[ -n ${4:-} ]]; then
    severity=',"severity":"ERROR"'
    response=',"errorResponse":{"code":"'$4'","httpStatusCode":403}'
  fi
  printf '{"insertId":"e%s","logName":"projects/p/logs/fleetengine.googleapis.com%%2Fupdate_vehicle","labels":{"vehicle_id":"%s"},"timestamp":"2024-05-01T10:%02d:%02d.000Z"%s,"jsonPayload":{"@type":"type.googleapis.com/maps.fleetengine.v1.UpdateVehicleLog","request":{"header":{"sdkVersion":"5.0.0","platform":"PLATFORM_LOG_ANDROID","sdkType":"SDK_TYPE_LOG_DRIVER","osVersion":"14"}}%s}}\n' \
    "$1" "$3" $((t / 60)) $((t % 60)) "$severity" "$response"
}
n=0
for t in $(seq 0 5 115) $(seq 420 5 540); do entry $((n++)) "$t" silent-1; done >>"$export_file"
for t in $(seq 0 10 540); do entry $((n++)) "$t" steady-2; done >>"$export_file"
entry $((n++)) 300 steady-2 PERMISSION_DENIED >>"$export_file"

for size in "80 24" "160 48"; do
  read -r width height <<<"$size"
  tm kill-server 2>/dev/null || true
  tm new-session -d -s e2e -x "$width" -y "$height" -e LANG=C.UTF-8 -e TERM=xterm-256color \
    "'$bin' logs '$export_file'; echo TOKENDASH-EXITED-\$?; exec sleep 60"
  server_pid=$(tm display-message -p '#{pid}')
  wait_for "entries 105 · devices 2"
  wait_for "silent-1"
  # The silent vehicle is the first row, above the one that erred.
  text=$(screen)
  [[ ${text%%silent-1*} != *steady-2* ]] || fail "the silent vehicle is not the first row"
  tm send-keys -t e2e Enter
  wait_for "Silences"
  wait_for "10:01:55  5 min"
  wait_for "░░░"
  tm send-keys -t e2e Escape
  wait_for "LONGEST"
  tm send-keys -t e2e / s t e a d y Enter
  wait_for "IDs holding \"steady\": 1 of 2"
  tm send-keys -t e2e Escape
  wait_for "/ find"
  tm send-keys -t e2e v
  wait_for "ANDROID"
  wait_for "1 of 2"
  tm send-keys -t e2e v
  # Played as a recording plays: [ the start, Space plays, ] the end (waited for, never timed).
  tm send-keys -t e2e '['
  wait_for "entries 2 of 105"
  tm send-keys -t e2e Space
  wait_for "▶ ×60"
  tm send-keys -t e2e ']'
  wait_for "entries 105 ·"
  tm send-keys -t e2e q
  wait_for "TOKENDASH-EXITED-0"
  if on_screen "entries 105"; then fail "the logs screen was left behind at ${width}x$height"; fi
done

# The same export recorded, and the recording replayed on the logs screen from its start.
"$bin" logs "$export_file" --summary --record "$export_file.rec" >/dev/null
tm kill-server 2>/dev/null || true
tm new-session -d -s e2e -x 160 -y 48 -e LANG=C.UTF-8 -e TERM=xterm-256color \
  "'$bin' replay '$export_file.rec' --paused; echo TOKENDASH-EXITED-\$?; exec sleep 60"
wait_for "entries 2 of 105"
wait_for "‖ paused ×60 0:00/9:00"
tm send-keys -t e2e ']'
wait_for "entries 105 ·"
tm send-keys -t e2e q
wait_for "TOKENDASH-EXITED-0"
rm -f "$export_file.rec"
echo "e2e-logs: ok"
