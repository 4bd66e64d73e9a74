#!/usr/bin/env bash
# Installs what tokendash's build and tests need when missing: ncurses headers, tmux, openssl and
# prometheus (promtool, and the real Prometheus the metrics end-to-end test scrapes with), iproute2,
# curl and squid (the stock forward proxy SquidEndToEndTests runs on loopback), nginx (in front of
# `tokendash tap` in TapNginxEndToEndTests), wrk (the tap bench), asciinema and chromium
# (EvidenceEndToEndTests read a cast and open a report with them) and cmark-gfm (DocsRenderTests
# render the Markdown pages), a JDK and Gson (the Android provider tests) from Debian, Python's
# cryptography and pyte (PyPI).
set -euo pipefail
missing=()
dpkg -s libncurses-dev >/dev/null 2>&1 || missing+=(libncurses-dev)
command -v tmux >/dev/null 2>&1 || missing+=(tmux)
command -v openssl >/dev/null 2>&1 || missing+=(openssl)
{ command -v prometheus && command -v promtool; } >/dev/null 2>&1 || missing+=(prometheus)
# ip netns and veth pairs, and curl, for scripts/e2e-netns-shards.sh (a sharded fleet across namespaces).
command -v ip >/dev/null 2>&1 || missing+=(iproute2)
command -v curl >/dev/null 2>&1 || missing+=(curl)
# A real squid with Debian's stock config, for SquidEndToEndTests (absolute form for http, CONNECT for https).
{ command -v squid || test -x /usr/sbin/squid; } >/dev/null 2>&1 || missing+=(squid)
# A real nginx in front of `tokendash tap` (TapNginxEndToEndTests), and wrk for the tap bench.
{ command -v nginx || test -x /usr/sbin/nginx; } >/dev/null 2>&1 || missing+=(nginx)
command -v wrk >/dev/null 2>&1 || missing+=(wrk)
# Python's cryptography mints the foreign tokens of ForeignTokenEndToEndTests (scripts/mint-foreign-token.py).
python3 -c 'import cryptography' 2>/dev/null || python3 -m pip install -q cryptography
# A real asciicast reader and a real browser for the evidence tests; pyte is the terminal emulator
# a cast is played into (scripts/cast-screens.py).
command -v asciinema >/dev/null 2>&1 || missing+=(asciinema)
command -v chromium >/dev/null 2>&1 || missing+=(chromium)
python3 -c 'import pyte' 2>/dev/null || python3 -m pip install -q pyte
# GitHub's Markdown renderer as Debian packages it: DocsRenderTests render every page with it.
command -v cmark-gfm >/dev/null 2>&1 || missing+=(cmark-gfm)
# A JDK, Gson and kotlinc from Debian: the Android provider tests compile customers' AuthTokenFactory
# classes with javac against Gson, as Google's Android skeletons parse with it, and run them on a JVM.
command -v javac >/dev/null 2>&1 || missing+=(openjdk-17-jdk-headless)
command -v kotlinc >/dev/null 2>&1 || missing+=(kotlin)
test -r /usr/share/java/gson.jar || missing+=(libgoogle-gson-java)
# What `tokendash setup objc` builds libobjc2 and GNUstep's Foundation with (CI runs it before the
# tests, from ../shared/vendor/objc): the Objective-C provider tests build and run the seeds' .m files.
for package in cmake ninja-build make robin-map-dev libcurl4-gnutls-dev libffi-dev libxml2-dev libgnutls28-dev libicu-dev; do
  dpkg -s "$package" >/dev/null 2>&1 || missing+=("$package")
done
if [ ${#missing[@]} -gt 0 ]; then
  sudo=""; [ "$(id -u)" -ne 0 ] && sudo="sudo"
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq "${missing[@]}" >/dev/null
fi
