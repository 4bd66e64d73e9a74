#!/usr/bin/env bash
# Soak: `tokendash watch` with a 20,000-provider fleet (10,000 trips + 10,000 vehicles) against the
# embedded server for DURATION seconds (default 600), sampling the process's RSS every 5 s.
# Passes when RSS at the end is within 5 % of RSS after warm-up and no fetch failed.
# Usage: scripts/soak.sh [duration-seconds] [path/to/tokendash]   (default: a release build)
# Prints one line per minute and a final verdict line "soak: ok ..." or "soak: FAILED ...".
set -euo pipefail
cd "$(dirname "$0")/.."
duration=${1:-600}
bin=${2:-}
if [ -z "$bin" ]; then
  swift build -c release --product tokendash 2>&1 | tail -n 1
  bin=.build/release/tokendash
fi
# Warm-up: every provider fetched its first token and went through one refresh (300 s tokens are
# refreshed at half their lifetime), so caches, event buffers and connection pools are at size.
warmup=$(( duration < 300 ? duration / 3 : 180 ))
work=$(mktemp -d)
trap 'kill "$pid" 2>/dev/null || true; rm -rf "$work"' EXIT

"$bin" watch --trips 10000 --vehicles 10000 --lifetime 300 --update-interval 5 --duration "$duration" \
  --events fetch_failed --summary >"$work/out.jsonl" 2>"$work/err.log" &
pid=$!
start=$(date +%s)
echo "t_s,rss_kib" >"$work/rss.csv"
while kill -0 "$pid" 2>/dev/null; do
  rss=$(awk '/^VmRSS:/ {print $2}' "/proc/$pid/status" 2>/dev/null || true)
  t=$(( $(date +%s) - start ))
  [ -n "$rss" ] && echo "$t,$rss" >>"$work/rss.csv"
  if [ -n "$rss" ] && (( t % 60 < 5 )); then echo "soak: t=${t}s rss=$((rss / 1024)) MiB failures=$(grep -c fetch_failed "$work/out.jsonl" || true)"; fi
  sleep 5 # sleep: a sample every 5 s
done
wait "$pid" || { echo "soak: FAILED: tokendash exited with $?"; cat "$work/err.log"; exit 1; }

failures=$(grep -c '"event":"fetch_failed"' "$work/out.jsonl" || true)
summary=$(grep '"event":"summary"' "$work/out.jsonl" || echo "{}")
# Mean RSS over the minute after warm-up against the mean over the last minute.
read -r base end peak < <(awk -F, -v w="$warmup" -v d="$duration" 'NR > 1 {
    if ($1 >= w && $1 < w + 60) { bs += $2; bn++ }
    if ($1 >= d - 60) { es += $2; en++ }
    if ($2 > p) p = $2 }
  END { printf "%d %d %d\n", bn ? bs / bn : 0, en ? es / en : 0, p }' "$work/rss.csv")
growth=$(awk -v b="$base" -v e="$end" 'BEGIN { printf "%.2f", b ? (e - b) * 100 / b : 999 }')
cp "$work/rss.csv" "${SOAK_CSV:-/tmp/tokendash-soak-rss.csv}"
echo "soak: summary $summary"
verdict="rss after warm-up $((base / 1024)) MiB, at the end $((end / 1024)) MiB (growth ${growth} %), peak $((peak / 1024)) MiB, fetch failures $failures, ${duration} s"
if awk -v g="$growth" 'BEGIN { exit !(g < 5) }' && [ "$failures" -eq 0 ]; then
  echo "soak: ok: $verdict"
else
  echo "soak: FAILED: $verdict"
  head -n 5 "$work/out.jsonl"
  exit 1
fi
