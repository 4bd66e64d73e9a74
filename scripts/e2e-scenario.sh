#!/usr/bin/env bash
# Runs `tokendash --scenario backend-outage` in tmux to its end, as a demo would: the banner
# counts the steps, the header shows the injected HTTP 500s, the banner waits for the valid
# token's expiry, and at the end says what was shown with the fault gone; S then offers a
# restart, and q quits cleanly. Tokens live 20 s here so the whole outage takes under a minute.
# Usage: scripts/e2e-scenario.sh [path/to/tokendash]; prints "e2e: ok" on success.
set -euo pipefail
bin=$(realpath "${1:-.build/debug/tokendash}")
e2e_name=e2e-scenario
# tm, cleanup (on EXIT), screen, wait_for, start_session, press.
source "$(dirname "$0")/tmux-e2e-lib.sh"

# `exec sleep` keeps the pane (and the shell's view after quitting) on screen; kill-server ends it.
start_session 160 48 "'$bin' --scenario backend-outage --update-interval 1 --timeout 1 --lifetime 20; echo TOKENDASH-EXITED-\$?; exec sleep 60"
wait_for "▶ backend-outage │ step"
wait_for "⚠ FAULT consumer=HTTP 500, driver=HTTP 500" 30
wait_for "waiting for expired driver" 30
wait_for "✔ backend-outage done: Shown: while the backend failed, the providers backed off" 90
if on_screen "⚠ FAULT"; then echo "e2e: the fault is still on after the scenario ended" >&2; screen >&2; exit 1; fi
wait_for "Vehicle ID vehicle-0001  ● ok"
press S "restart backend-outage"
tm send-keys -t e2e Escape
press q "TOKENDASH-EXITED-0"
echo "e2e: ok"
