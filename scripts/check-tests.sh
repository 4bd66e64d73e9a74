#!/usr/bin/env bash
# The test suite's own rules, checked on its text (issue 30): every suite has a time limit, so a
# hang fails with the test's name instead of running to CI's limit; and no test sleeps except the
# allowed places (clock implementations, test servers' scripted delays, the one poll).
set -euo pipefail
cd "$(dirname "$0")/.."
status=0
# Every @Suite names a .timeLimit. The formatter may break an @Suite's traits over lines, so each
# attribute is read up to the declaration it marks.
missing=$(find Tests -name '*.swift' -print0 | xargs -0 perl -0777 -ne '
    while (/^(\@Suite\b.*?)^(?:public |final |private )*(?:struct|class|enum|actor|extension)\b/msg) {
        my $attr = $1; next if $attr =~ /timeLimit/;
        my $line = 1 + (() = substr($_, 0, $-[0]) =~ /\n/g);
        print "$ARGV:$line: \@Suite\n";
    }')
# Fifteen minutes: a limit names a hang, it is no stopwatch. It runs from a test's start, and beside
# four CPU hogs pure unit tests waited over 3 minutes for a thread of the cooperative pool.
short=$(grep -rnE --include='*.swift' 'timeLimit\(\.minutes\(([1-9]|1[0-4])\)\)' Tests || true)
if [[ -n $short ]]; then
    echo "$short" >&2; echo "check-tests: the limits above are under 15 minutes (TESTING.md says why)" >&2; status=1
fi
if [[ -n $missing ]]; then
    echo "$missing" >&2; echo "check-tests: the suites above have no .timeLimit" >&2; status=1
fi
# Every file with @Test has an @Suite (a bare struct of tests would have no time limit).
for file in $(grep -rl --include='*.swift' '@Test' Tests); do
    grep -q '^@Suite' "$file" || { echo "check-tests: $file has tests but no @Suite with a time limit" >&2; status=1; }
done
# Sleeps in Tests/: only where this list allows them. Each line: file, and why.
allowed=(
  Tests/TestSupport/EventRecorder.swift             # eventually, the one poll: actor state no event announces, squid's log, Prometheus's scrapes
  Tests/ScenariosTests/ScenarioHarness.swift        # DrivenClock: a clock implementation (its wall tick while the server holds an answer back)
  Tests/ProviderTests/IDSwitchPropertyTests.swift  # a property test's drawn delays of a fake transport (scripted)
)
found=$(grep -rln --include='*.swift' -E 'Thread\.sleep|usleep\(|Task\.sleep' Tests || true)
for file in $found; do
    [[ " ${allowed[*]} " == *" $file "* ]] || { echo "check-tests: $file sleeps; wait for the fact instead" >&2; status=1; }
done
# The list stays as short as the sleeps: an entry whose file no longer sleeps goes.
for file in "${allowed[@]}"; do
    [[ $'\n'"$found"$'\n' == *$'\n'"$file"$'\n'* ]] || { echo "check-tests: $file no longer sleeps; take it off the list" >&2; status=1; }
done
# An unstructured task is awaited through cancellingValue (TestSupport): the time limit cancels the
# test, not the tasks it made, and a bare `.value` on one that waits forever outlives the limit.
if grep -rnE --include='*.swift' 'await [^/]*\b[A-Za-z_][A-Za-z0-9_]*(\[[^]]*\])?\??\)?\.value\b([^.]|$)' Tests \
        | grep -v 'withTaskCancellationHandler' | grep -v '^Tests/TestSupport/CancellingValue.swift'; then
    echo "check-tests: the awaits above wait on .value; use .cancellingValue so the time limit reaches the task" >&2; status=1
fi
# Sleeps in scripts/: each is a poll (a loop that ends on the fact it waits for) or says on its
# line why it waits for no fact (`# sleep: why`: a pace, a window being measured, a drawn delay).
# A pane kept open by `exec sleep` waits for nothing. Waiting to see that nothing happened is
# neither: wait for a later thing that happens only after it.
unexplained=$(grep -rnE --include='*.sh' '(^|[;&|({]|\bthen|\bdo|\belse)[[:space:]]*sleep\b' scripts \
    | grep -vE '# (sleep|poll):|exec sleep|&& break; sleep|; do sleep [^;]*; done' || true)
if [[ -n $unexplained ]]; then
    echo "$unexplained" >&2
    echo "check-tests: the sleeps above in scripts/ neither poll nor say why (# poll: what / # sleep: why)" >&2; status=1
fi
exit $status
