#!/usr/bin/env bash
# Installs the Debian packages tokendash needs when they are missing (ncurses headers; tmux for the end-to-end test).
set -euo pipefail
missing=()
dpkg -s libncurses-dev >/dev/null 2>&1 || missing+=(libncurses-dev)
command -v tmux >/dev/null 2>&1 || missing+=(tmux)
command -v openssl >/dev/null 2>&1 || missing+=(openssl)
if [ ${#missing[@]} -gt 0 ]; then
  sudo=""; [ "$(id -u)" -ne 0 ] && sudo="sudo"
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq "${missing[@]}" >/dev/null
fi
