#!/usr/bin/env bash
# A sharded fleet across real network hosts, on one machine: four network namespaces joined by
# veth pairs (iproute2), `tokendash serve` in one, `tokendash watch --shard K/3` (3,000 trips +
# 3,000 vehicles in all) in the other three, and Debian's Prometheus scraping the three over their
# namespace addresses with the shipped deploy/prometheus/ config (targets substituted) and rules
# (used as they are). Asserts through Prometheus' query API:
#   1. sum(tokendash_providers) == 6000;
#   2. the refresh-rate recording rule (provider:tokendash_requests:rate1m, summed) equals the rate
#      of the shards' own tokendash_requests_total, read from each shard's /metrics, within 10 %;
#   3. killing one shard fires TokendashDown within its `for:` (plus a scrape and two evaluations).
# Only addresses inside the namespaces (10.77.0.0/24) are used; every process runs under `timeout`;
# a trap deletes the namespaces (and with them the veths) and stops everything, even on failure.
# Needs root (ip netns), prometheus and promtool, curl, python3. About 5 minutes.
# Usage: scripts/e2e-netns-shards.sh [path/to/tokendash]   (default: .build/debug/tokendash)
# Prints each command it runs ("+ ...") and ends with "netns-shards: ok ..." or "netns-shards: FAILED ...".
set -euo pipefail
cd "$(dirname "$0")/.."
repo=$(pwd)
bin=$(readlink -f "${1:-.build/debug/tokendash}")
[ -x "$bin" ] || { echo "netns-shards: FAILED: no tokendash binary at $bin (swift build first)"; exit 1; }
for tool in ip prometheus promtool curl python3 timeout; do
  command -v "$tool" >/dev/null || { echo "netns-shards: FAILED: $tool is not installed (scripts/setup.sh)"; exit 1; }
done

limit=600                  # no process outlives this many seconds
tag="td$$"
srv="$tag-srv"
shards=("$tag-s1" "$tag-s2" "$tag-s3")
server_ip=10.77.0.1
shard_ips=(10.77.0.11 10.77.0.12 10.77.0.13)
work=$(mktemp -d)
pids=()
started=$(date +%s)

cleanup() {
  local status=$?
  for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
  for pid in "${pids[@]}"; do wait "$pid" 2>/dev/null || true; done
  for ns in "$srv" "${shards[@]}"; do ip netns del "$ns" 2>/dev/null || true; done
  if [ "$status" -ne 0 ]; then
    for log in "$work"/*.log "$work"/*.jsonl; do [ -f "$log" ] && { echo "--- $(basename "$log") (last 5 lines)"; tail -n 5 "$log" | cut -c1-300; }; done
  fi
  rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

run() { echo "+ $*"; "$@"; }
# run_logged LOG COMMAND...: prints the command, runs it in the background with its output in LOG.
run_logged() { local log=$1; shift; echo "+ $* >$(basename "$log") &"; "$@" >"$log" 2>&1 & pids+=($!); }
fail() { echo "netns-shards: FAILED: $*"; exit 1; }
# Runs in the server's namespace, where Prometheus listens.
query() {
  ip netns exec "$srv" curl -sf --max-time 5 "http://$server_ip:9090/api/v1/query" --data-urlencode "query=$1" \
    | python3 -c 'import json,sys; r=json.load(sys.stdin)["data"]["result"]; print(sum(float(s["value"][1]) for s in r) if r else "none")'
}
# Every tokendash_requests_total sample a shard serves itself, summed over its providers and results.
shard_requests() {
  local total=0 n
  for i in 0 1 2; do
    n=$(ip netns exec "${shards[$i]}" curl -sf --max-time 5 "http://${shard_ips[$i]}:9464/metrics" \
      | awk '/^tokendash_requests_total[{ ]/ { s += $NF } END { printf "%d", s }')
    total=$((total + n))
  done
  echo "$total"
}
wait_for() {  # wait_for SECONDS DESCRIPTION COMMAND...: polls every second
  local deadline=$(( $(date +%s) + $1 )) what=$2; shift 2
  until "$@" >/dev/null 2>&1; do
    [ "$(date +%s)" -lt "$deadline" ] || fail "$what: not within the time allowed"
    sleep 1 # poll: the command succeeds
  done
}

# The network: a bridge in the server's namespace, a veth pair from it to each shard's.
run ip netns add "$srv"
run ip -n "$srv" link add br0 type bridge
run ip -n "$srv" addr add "$server_ip/24" dev br0
run ip -n "$srv" link set br0 up
run ip -n "$srv" link set lo up
for i in 0 1 2; do
  ns=${shards[$i]}
  run ip netns add "$ns"
  run ip -n "$srv" link add "veth$i" type veth peer name eth0 netns "$ns"
  run ip -n "$srv" link set "veth$i" master br0 up
  run ip -n "$ns" addr add "${shard_ips[$i]}/24" dev eth0
  run ip -n "$ns" link set eth0 up
  run ip -n "$ns" link set lo up
done

# The token server, then the three shards against it (its JWKS checks their signatures).
run_logged "$work/serve.log" timeout "$limit" ip netns exec "$srv" "$bin" serve --host "$server_ip" --port 8080 --allow-remote --lifetime 240
wait_for 30 "the token server answering" ip netns exec "${shards[0]}" curl -sf --max-time 2 "http://$server_ip:8080/.well-known/jwks.json"
for i in 0 1 2; do
  # 240 s tokens are refreshed about every 120 s (the margin is capped at half the lifetime); a
  # 120 s ramp spreads the first calls, and so the refreshes, evenly over that period, which keeps
  # the refresh rate steady (about 50 a second in all) for the comparison below, and within what
  # a debug build's server signs on a busy machine.
  run_logged "$work/shard$((i + 1)).jsonl" timeout "$limit" ip netns exec "${shards[$i]}" "$bin" watch \
    --trips 3000 --vehicles 3000 --shard "$((i + 1))/3" --metrics 0.0.0.0:9464 --allow-remote --ramp 120 \
    --duration "$((limit - 30))" --consumer-url "http://$server_ip:8080/token/consumer/{tripId}" \
    --driver-url "http://$server_ip:8080/token/driver/{vehicleId}" \
    --jwks "http://$server_ip:8080/.well-known/jwks.json" --events fetch_failed
done
kill_pid=${pids[3]}        # shard 3's

# Prometheus with the shipped config: its targets swapped for the namespace addresses, the shipped
# rules file by its path, evaluated every 5 s instead of 15 s so the alert's timing is measured finely.
python3 - "$repo/deploy/prometheus/prometheus.yml" "$work/prometheus.yml" "$repo/deploy/prometheus/tokendash.rules.yml" \
  "${shard_ips[@]/%/:9464}" "$server_ip:8080" <<'EOF'
import re, sys
source, target, rules, s1, s2, s3, server = sys.argv[1:]
text = open(source).read()
shards = '["%s", "%s", "%s"]' % (s1, s2, s3)
text, n = re.subn(r'\["shard-1[^\]]*\]', shards, text)
assert n == 1, "the shipped config's shard targets moved"
text, n = re.subn(r'"tokens\.example\.internal:8080"', '"%s"' % server, text)
assert n == 1, "the shipped config's server target moved"
text, n = re.subn(r'(?m)^(\s*)- tokendash\.rules\.yml$', r'\1- ' + rules, text)
assert n == 1, "the shipped config's rule file moved"
text, n = re.subn(r'evaluation_interval: \S+', 'evaluation_interval: 5s', text)
assert n == 1
open(target, "w").write(text)
EOF
echo "+ (generated $work/prometheus.yml from deploy/prometheus/prometheus.yml:)"
grep -E '^ *(- targets|evaluation_interval|- \/)' "$work/prometheus.yml" | sed 's/^/    /'
run promtool check config "$work/prometheus.yml"
run_logged "$work/prometheus.log" timeout "$limit" ip netns exec "$srv" prometheus --config.file="$work/prometheus.yml" \
  --storage.tsdb.path="$work/tsdb" --web.listen-address="$server_ip:9090"
wait_for 60 "Prometheus ready" ip netns exec "$srv" curl -sf --max-time 2 "http://$server_ip:9090/-/ready"

# 1. Every SDK of every shard is counted once.
echo "+ query: sum(tokendash_providers)"
providers_are() { [ "$(query 'sum(tokendash_providers)')" = "$1" ]; }
wait_for 90 "sum(tokendash_providers) == 6000 (last: $(query 'sum(tokendash_providers)' || true))" providers_are 6000.0
[ "$(query 'count(up{job="tokendash"} == 1)')" = "3.0" ] || fail "not all three shards are up"
echo "netns-shards: sum(tokendash_providers) = 6000 over 3 shards"

# 2. The recording rule against the shards' own counters over the same minute, once the ramp is over.
sleep_until() { local t=$(( $1 - $(date +%s) )); [ "$t" -le 0 ] || sleep "$t"; } # sleep: the ramp is over
sleep_until $((started + 40))
t1=$(date +%s); c1=$(shard_requests)
sleep 60 # sleep: the minute whose requests are counted
t2=$(date +%s); c2=$(shard_requests)
sleep 8 # sleep: a scrape and an evaluation past t2
rule=$(query 'sum(provider:tokendash_requests:rate1m)')
echo "+ query: sum(provider:tokendash_requests:rate1m) -> $rule"
python3 - "$c1" "$c2" "$t1" "$t2" "$rule" <<'EOF' || fail "the recording rule does not match the shards' counters"
import sys
c1, c2, t1, t2 = map(int, sys.argv[1:5]); rule = float(sys.argv[5])
own = (c2 - c1) / (t2 - t1)
print(f"netns-shards: refresh rate: recording rule {rule:.1f}/s, shards' own counters {own:.1f}/s ({c2 - c1} requests in {t2 - t1} s), ratio {rule / own:.3f}")
sys.exit(0 if own > 0 and abs(rule / own - 1) <= 0.10 else 1)
EOF
failures=$(cat "$work"/shard*.jsonl | grep -c '"event":"fetch_failed"' || true)
# Reported, not judged: a server that cannot keep up (a debug build, a busy machine) times some
# fetches out, which says nothing about the sharding.
echo "netns-shards: $failures fetches failed"
{ cat "$work"/shard*.jsonl | grep -o '"error":"[^"]*' | sed 's/[0-9][0-9]*/N/g' | sort | uniq -c | sort -rn | head -n 3; } || true

# 3. Kill shard 3: TokendashDown must fire within its `for:` plus a scrape and two evaluations.
for_s=$(awk '/alert: TokendashDown/ { f = 1 } f && /for:/ { v = $2; sub(/m$/, "*60", v); sub(/s$/, "", v); print v; exit }' \
  deploy/prometheus/tokendash.rules.yml)
for_s=$(( for_s ))
bound=$(( for_s + 5 + 2 * 5 + 5 ))
echo "+ kill shard 3 (pid $kill_pid); TokendashDown's for: is ${for_s} s, allowed ${bound} s"
kill "$kill_pid"
killed=$(date +%s)
firing() {
  ip netns exec "$srv" curl -sf --max-time 5 "http://$server_ip:9090/api/v1/alerts" | python3 -c '
import json, sys
alerts = json.load(sys.stdin)["data"]["alerts"]
sys.exit(0 if any(a["labels"].get("alertname") == "TokendashDown" and a["state"] == "firing"
                  and a["labels"].get("instance") == sys.argv[1] for a in alerts) else 1)' "${shard_ips[2]}:9464"
}
wait_for "$((bound + 5))" "TokendashDown firing for ${shard_ips[2]}:9464" firing
took=$(( $(date +%s) - killed ))
[ "$took" -le "$bound" ] || fail "TokendashDown fired after $took s, over $bound s"
[ "$took" -ge "$for_s" ] || fail "TokendashDown fired after $took s, before its for: of $for_s s"
echo "netns-shards: TokendashDown fired $took s after the kill (for: $for_s s)"
echo "netns-shards: ok in $(( $(date +%s) - started )) s"
