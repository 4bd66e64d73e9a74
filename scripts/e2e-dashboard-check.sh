#!/usr/bin/env bash
# Runs the real dashboard in tmux (160x48) with the given arguments and judges what a person would
# see: each line of $E2E_EXPECT must appear on the screen, then `s` writes a snapshot, and no line
# of $E2E_FORBID may appear on the screen or in the snapshot. `q` must then exit 0.
# Usage: E2E_EXPECT=$'a\nb' E2E_FORBID=$'x' scripts/e2e-dashboard-check.sh BIN ARGS...
# Prints "e2e-dashboard-check: ok" on success. Run with signals unblocked, as scripts/e2e-tmux.sh explains.
set -euo pipefail
bin=$(realpath "$1")
shift
workdir=$(mktemp -d)
e2e_name=e2e-dashboard-check
e2e_cleanup() { rm -rf "$workdir"; }
# tm, cleanup on exit, screen, wait_for, start_session.
source "$(dirname "$0")/tmux-e2e-lib.sh"

# The snapshot lands in the current folder: the pane starts in this run's own.
command="cd '$workdir' && '$bin'"
for argument in "$@"; do command+=" '${argument//\'/\'\\\'\'}'"; done
start_session 160 48 "$command; echo TOKENDASH-EXITED-\$?; exec sleep 60"

while IFS= read -r line; do
  [[ -n $line ]] && wait_for "$line" 30
done <<< "${E2E_EXPECT:-}"
tm send-keys -t e2e s
wait_for "snapshot written to" 10
snapshot=$(ls "$workdir"/tokendash-snapshot-*.txt)
shown=$(screen)
while IFS= read -r line; do
  [[ -z $line ]] && continue
  if grep -qF -- "$line" <<< "$shown"; then
    echo "$e2e_name: the screen shows \"$line\":" >&2
    printf '%s\n' "$shown" >&2
    exit 1
  fi
  if grep -qF -- "$line" "$snapshot"; then
    echo "$e2e_name: the snapshot holds \"$line\":" >&2
    grep -F -- "$line" "$snapshot" | head -5 >&2
    exit 1
  fi
done <<< "${E2E_FORBID:-}"
tm send-keys -t e2e q
wait_for "TOKENDASH-EXITED-0" 10
echo "e2e-dashboard-check: ok"
