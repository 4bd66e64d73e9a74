#!/usr/bin/env bash
# Proves the .deb on a Debian that has never seen Swift: debootstraps a minimal Debian (the host's
# release, from the mirror apt uses) into .build-install/ once and reuses it, copies it afresh, installs
# dist/tokendash_*_amd64.deb there with dpkg -i and apt-get -f install, and runs tokendash inside a
# chroot in its own mount namespace: --version (the commit of this checkout), decode of a token the
# installed server minted (signature checked against its JWKS), watch --duration 5, the built-in
# scenarios and themes, man -w, bash completion of `tokendash wa<TAB>`, and the dashboard in tmux
# for 5 s, quit with q. Needs root (debootstrap, chroot, unshare -m). Run scripts/release.sh first.
# Usage: bash scripts/test-install.sh [DEB]
set -euo pipefail
cd "$(dirname "$0")/.."

deb=${1:-$(ls dist/tokendash_*_amd64.deb 2>/dev/null | sort -V | tail -n 1)}
[ -f "$deb" ] || { echo "test-install.sh: no .deb (run scripts/release.sh first)" >&2; exit 2; }
[ "$(id -u)" -eq 0 ] || { echo "test-install.sh: needs root (debootstrap, chroot, unshare -m)" >&2; exit 2; }
if ! command -v debootstrap >/dev/null; then
  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq debootstrap >/dev/null
fi

# What --version must print: the release number in the package, and this checkout's commit.
version=$(dpkg-deb -f "$deb" Version)
commit=$(git rev-parse --short=12 HEAD)
[ -z "$(git status --porcelain --untracked-files=no)" ] || commit="$commit-dirty"
expected="tokendash $version (commit $commit)"

cache=.build-install           # git-ignored (.build*/)
mkdir -p "$cache"              # a clean clone has none yet
suite=$(. /etc/os-release && echo "${VERSION_CODENAME:-bookworm}")
mirror=$(sed -n 's/^URIs: *//p' /etc/apt/sources.list.d/debian.sources 2>/dev/null | grep -v security | head -n 1)
mirror=${mirror:-http://deb.debian.org/debian}
base="$cache/base-$suite"
started=$(date +%s)
if [ ! -d "$base" ]; then
  # minbase plus what the checks drive: man-db for man -w, bash-completion, tmux. No libncursesw6:
  # apt-get -f install must bring what the .deb declares.
  rm -rf "$base.partial"
  debootstrap --variant=minbase --include=man-db,bash-completion,tmux "$suite" "$base.partial" "$mirror" \
    > "$cache/debootstrap.log" 2>&1 || { tail -n 20 "$cache/debootstrap.log" >&2; exit 1; }
  mv "$base.partial" "$base"
  echo "test-install: debootstrapped $suite in $(( $(date +%s) - started )) s"
fi
root="$cache/run"
rm -rf "$root"; cp -a "$base" "$root"
cp "$deb" "$root/tmp/tokendash.deb"
cp /etc/resolv.conf "$root/etc/resolv.conf"

cat > "$root/tmp/checks.sh" <<'CHECKS'
set -euo pipefail
fail() { echo "test-install: FAILED: $*" >&2; exit 1; }
step() { echo "test-install: $*"; }
# Nothing started here outlives the checks, passed or failed.
trap 'tmux kill-server 2>/dev/null || true; [ -z "${SERVER_PID:-}" ] || kill "$SERVER_PID" 2>/dev/null || true' EXIT

step "no Swift here: not on PATH, not in the library path, not on disk"
! command -v swift >/dev/null || fail "swift is on PATH"
[ -z "${LD_LIBRARY_PATH:-}" ] || fail "LD_LIBRARY_PATH is set"
! ldconfig -p | grep -i swift || fail "the loader knows a Swift library"
[ -z "$(find / -xdev \( -name 'libswift*' -o -name 'libFoundation*' -o -name 'swift*' -type d \) -print -quit)" ] || fail "Swift files on disk"

step "dpkg -i, then apt-get -f install for what it declares"
dpkg -i /tmp/tokendash.deb >/tmp/dpkg.log 2>&1 || grep -q "dependency problems" /tmp/dpkg.log || { cat /tmp/dpkg.log; fail "dpkg -i"; }
grep "depends on" /tmp/dpkg.log || true
apt-get update -qq
DEBIAN_FRONTEND=noninteractive apt-get -f install -y -qq >/tmp/apt.log 2>&1 || { cat /tmp/apt.log; fail "apt-get -f install"; }
[ "$(dpkg-query -W -f='${Status}' tokendash)" = "install ok installed" ] || fail "tokendash is not installed"
! dpkg -L tokendash | grep -E '\.ya?ml$' || fail "the package ships YAML files; themes and scenarios belong in the binary"
cd /    # no Themes/ here nor above /usr/bin: the themes used are the binary's own

step "tokendash --version"
printed=$(tokendash --version)
echo "  $printed"
[ "$printed" = "$EXPECTED_VERSION" ] || fail "--version printed '$printed', expected '$EXPECTED_VERSION'"

step "tokendash decode of a token the installed server minted, signature checked against its JWKS"
coproc SERVER { exec tokendash serve; }
read -r -t 20 first <&"${SERVER[0]}" || fail "serve printed nothing"
url=${first#listening on }; url=${url%/}; hostport=${url#http://}
exec 3<>"/dev/tcp/${hostport%:*}/${hostport##*:}"
printf 'GET /token/consumer/trip-install HTTP/1.0\r\nHost: %s\r\n\r\n' "$hostport" >&3
answer=$(cat <&3); exec 3<&-
token=$(grep -o 'eyJ[A-Za-z0-9_-]*\.[A-Za-z0-9_-]*\.[A-Za-z0-9_-]*' <<<"$answer" | head -n 1)
[ -n "$token" ] || fail "no token from $url: $answer"
tokendash decode --jwks "$url/.well-known/jwks.json" --trip-id trip-install "$token" > /tmp/decode.txt || { cat /tmp/decode.txt; fail "decode exited $?"; }
grep -q '"tripid" : "trip-install"\|"tripid": "trip-install"' /tmp/decode.txt || { cat /tmp/decode.txt; fail "decode did not show the trip claim"; }
grep -i "signature" /tmp/decode.txt | grep -q "✓" || { cat /tmp/decode.txt; fail "signature not verified"; }
kill "$SERVER_PID"; wait "$SERVER_PID" || true; SERVER_PID=

step "tokendash watch --duration 5"
status=0; tokendash watch --duration 5 > /tmp/watch.jsonl 2>/tmp/watch.err || status=$?
[ "$status" -eq 0 ] || { cat /tmp/watch.err; fail "watch exited $status"; }
grep -q '"event":"fetched"' /tmp/watch.jsonl || { head /tmp/watch.jsonl; fail "watch printed no fetch"; }
echo "  $(wc -l < /tmp/watch.jsonl) lines"

step "a source provider without a Swift toolchain: one line, exit 2"
printf 'import GoogleRidesharingDriver\nclass P: NSObject, GMTDAuthorization {}\n' > /tmp/P.swift
status=0; tokendash watch --driver-source /tmp/P.swift --only driver --duration 1 > /tmp/source.out 2>/tmp/source.err || status=$?
[ "$status" -eq 2 ] || { cat /tmp/source.err; fail "watch --driver-source without swiftc exited $status, not 2"; }
grep -q "a source provider is built with a Swift toolchain, and there is none here" /tmp/source.err || { cat /tmp/source.err; fail "no toolchain, and no line saying so"; }

step "built-in scenarios"
tokendash scenario list | grep -q refresh-ahead || fail "scenario list lacks refresh-ahead"
tokendash scenario show refresh-ahead | grep -q '^name: refresh-ahead' || fail "scenario show"

step "man -w tokendash, and the page names each subcommand"
page=$(man -w tokendash) || fail "man -w found no page"
echo "  $page"
rendered=$(MANWIDTH=100 man -P cat tokendash 2>/dev/null)
for sub in watch serve decode config replay scenario; do
  grep -q "^ *$sub\b" <<<"$rendered" || fail "man tokendash has no entry for $sub"
done

step "bash completion of 'tokendash wa<TAB>', in a login shell in tmux"
tmux new-session -d -s completion -x 100 -y 10 "bash --login"
# The prompt is drawn once the login scripts (completion among them) have run.
for _ in $(seq 100); do tmux capture-pane -p -t completion | grep -qE '[#$] *$' && break; sleep 0.1; done
tmux send-keys -t completion "tokendash wa" Tab
for _ in $(seq 50); do tmux capture-pane -p -t completion | grep -q "tokendash watch" && break; sleep 0.1; done
tmux capture-pane -p -t completion | grep -q "tokendash watch" || { tmux capture-pane -p -t completion; fail "no completion to watch"; }
tmux kill-session -t completion

step "the dashboard in tmux for 5 s (built-in theme high-contrast), then q"
rm -f /tmp/dashboard.status
tmux new-session -d -s dash -x 120 -y 40 "tokendash --theme high-contrast; echo \$? > /tmp/dashboard.status"
for _ in $(seq 300); do
  screen=$(tmux capture-pane -p -t dash)
  grep -qi "consumer" <<<"$screen" && grep -qi "driver" <<<"$screen" && break
  sleep 0.1 # poll: both panes drawn
done
grep -qi "consumer" <<<"$screen" && grep -qi "driver" <<<"$screen" || { echo "$screen"; fail "the dashboard did not draw both panes"; }
tmux send-keys -t dash q
for _ in $(seq 50); do [ -s /tmp/dashboard.status ] && break; sleep 0.1; done
[ "$(cat /tmp/dashboard.status 2>/dev/null)" = 0 ] || { echo "$screen"; fail "q exited '$(cat /tmp/dashboard.status 2>/dev/null)'"; }
step "all passed"
CHECKS

# A mount namespace of its own: /proc, /sys and /dev exist for the chroot only and vanish with it.
unshare --mount --fork bash -c '
  set -e
  mount --make-rprivate /
  mount -t proc proc "$1/proc"; mount -t sysfs sys "$1/sys"; mount --rbind /dev "$1/dev"
  exec chroot "$1" /usr/bin/env -i PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
    HOME=/root TERM=xterm-256color LANG=C.UTF-8 EXPECTED_VERSION="$2" /bin/bash /tmp/checks.sh
' _ "$(cd "$root" && pwd)" "$expected"
echo "test-install: passed in $(( $(date +%s) - started )) s"
