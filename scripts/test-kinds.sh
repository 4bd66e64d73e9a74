#!/usr/bin/env bash
# Runs the unit tests (no socket, no process) in a network namespace with no network, so a unit
# test that opens a socket fails here instead of passing quietly; then says how long they took.
# Needs the tests built (swift build --build-tests) and root for unshare; without root it runs
# them in the ordinary namespace. The integration targets run in the README's `swift test`.
set -euo pipefail
cd "$(dirname "$0")/.."
# The one list of unit targets (comments and blank lines aside), as a filter on Suite.test names.
unit="^($(grep -v -e '^#' -e '^$' Tests/unit-targets.txt | paste -sd'|'))\\."
isolate=()
[ "$(id -u)" -eq 0 ] && command -v unshare >/dev/null && isolate=(unshare -n)
start=$(date +%s)
# The package's test binary itself, as `swift test --skip-build` runs it, without SwiftPM's lock on
# .build: CI runs this beside a `swift build`.
"${isolate[@]}" .build/debug/tokendashPackageTests.xctest --testing-library swift-testing --filter "$unit" \
  > /tmp/tokendash-unit-tests.log 2>&1 || { tail -n 40 /tmp/tokendash-unit-tests.log; exit 1; }
grep -E "Test run with" /tmp/tokendash-unit-tests.log | tail -n 1
echo "unit tests${isolate:+ (no network)}: $(( $(date +%s) - start )) s"
