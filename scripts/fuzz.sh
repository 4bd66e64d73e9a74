#!/usr/bin/env bash
# Fuzzes the response decoder and the JWT decoder with libFuzzer for a bounded time each.
#
#   bash scripts/fuzz.sh [seconds-per-target]      (default 60)
#
# Builds into .build-fuzz/, starts each target from a temporary copy of Tests/Fuzz/corpus/<target>
# (so CI never writes into the repo), prints one line per target and exits 1 if any input crashed,
# hung or ran out of memory; those inputs stay in .build-fuzz/crashes/<target>/. Inputs that crashed
# before, kept in Tests/Fuzz/crashes/<target>/, are replayed first: each is a regression test.
# FUZZ_SOURCES=DIR fuzzes another copy of the FleetAuth sources (e.g. a patched one in /tmp).
set -euo pipefail
cd "$(dirname "$0")/.."

seconds=${1:-60}
[[ $seconds =~ ^[0-9]+$ ]] || { echo "usage: $0 [seconds-per-target]" >&2; exit 2; }
sources=${FUZZ_SOURCES:-Sources/FleetAuth}
out=.build-fuzz
targets=(response:ResponseDecoderFuzzer jwt:JWTDecoderFuzzer)

# -O because it runs about 1.5 times as many inputs a second as -Onone; -g keeps file:line and the
# "Swift runtime failure: ..." reason in the stack of a trap. lld because gold prints a warning per
# ASan helper symbol. ASan works with Foundation here (only our code is instrumented).
flags=(-parse-as-library -swift-version 6 -sanitize=fuzzer,address -O -g -use-ld=lld)

mkdir -p "$out/lib" "$out/crashes"
echo "fuzz: building FleetAuth from $sources and ${#targets[@]} targets into $out/"
# The library and each target compile separately so that the targets use FleetAuth's public API only.
swiftc "${flags[@]}" -emit-library -static -module-name FleetAuth \
    -emit-module -emit-module-path "$out/lib/FleetAuth.swiftmodule" \
    "$sources"/*.swift -o "$out/lib/libFleetAuth.a"
for entry in "${targets[@]}"; do
    name=${entry%%:*} file=${entry#*:}
    swiftc "${flags[@]}" -module-name "$file" -I "$out/lib" "Tests/Fuzz/$file.swift" "$out/lib/libFleetAuth.a" -o "$out/$name-fuzzer"
done

# The sanitizer's verdict, the trap reason and the frames in Swift sources are what a regression
# test needs; libFuzzer's and libc's own frames are noise.
print_trap() {
    sed -n '/ERROR: /p; /runtime failure/p; /^    #[0-9]* .*\.swift:[0-9]/p' "$1" | head -n 12 |
        swift demangle --simplified | sed 's/^ */    /'
}

# SWIFT_BACKTRACE=enable=no: the Swift runtime's own crash handler would take the SIGILL of a trap
# first, and its memory reader then trips ASan instead of libFuzzer reporting (and saving) the input.
export SWIFT_BACKTRACE=enable=no
# libFuzzer reports leaks as failures; the file lists the few Foundation makes once by design.
export LSAN_OPTIONS=suppressions=$PWD/Tests/Fuzz/lsan.supp
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
failed=0
for entry in "${targets[@]}"; do
    name=${entry%%:*}
    for f in Tests/Fuzz/crashes/"$name"/*; do
        [[ -f $f ]] || continue
        if ! "$out/$name-fuzzer" -timeout=5 -rss_limit_mb=2048 "$f" >"$work/replay.log" 2>&1; then
            failed=1
            echo "fuzz $name: regression $f fails again"
            print_trap "$work/replay.log"
        fi
    done
    corpus="$work/$name" artifacts="$out/crashes/$name" log="$out/$name.log"
    cp -R "Tests/Fuzz/corpus/$name" "$corpus"
    rm -rf "$artifacts" && mkdir -p "$artifacts"
    # The outer timeout only matters if libFuzzer itself wedges; -max_total_time normally ends it.
    status=0
    timeout -k 10 $((seconds + 120)) "$out/$name-fuzzer" \
        -max_total_time="$seconds" -timeout=5 -rss_limit_mb=2048 -print_final_stats=1 \
        -dict=Tests/Fuzz/fleet-engine.dict \
        -artifact_prefix="$artifacts/" "$corpus" >"$log" 2>&1 || status=$?

    runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log")
    speed=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log")
    last=$(grep -E '^#[0-9]+' "$log" | tail -n 1 || true)
    cov=$(sed -nE 's/.* cov: ([0-9]+) ft: ([0-9]+).*/\1 edges, \2 features/p' <<<"$last")
    corp=$(sed -nE 's/.* corp: ([0-9]+)\/([0-9]+[a-zA-Z]+).*/\1 inputs (\2)/p' <<<"$last")
    found=$(find "$artifacts" -type f | sort)
    if [[ $status -eq 0 && -z $found ]]; then
        echo "fuzz $name: ok, ${runs:-?} runs in ${seconds} s, ${speed:-?} exec/s, corpus ${corp:-?}, coverage ${cov:-?}"
        continue
    fi
    failed=1
    echo "fuzz $name: FAILED (exit $status) after ${runs:-?} runs, ${speed:-?} exec/s, corpus ${corp:-?}, coverage ${cov:-?}; log $log"
    print_trap "$log"
    for f in $found; do
        echo "  input $f ($(wc -c <"$f") bytes), base64:"
        echo "    $(base64 -w0 "$f")"
    done
    [[ -n $found ]] || tail -n 20 "$log" | sed 's/^/    /'
done
exit "$failed"
