#!/usr/bin/env bash
# Fuzzes the response decoder, the JWT decoder and the five file readers (config, scenario, theme,
# recording, Cloud Logging exports) with libFuzzer for a bounded time each.
#
#   bash scripts/fuzz.sh [seconds-per-target] [target...]      (default 60, all targets)
#
# Builds into .build-fuzz/, starts each target from a temporary copy of Tests/Fuzz/corpus/<target>
# (so CI never writes into the repo), prints one line per target and exits 1 if any input crashed,
# took more than 1 s (the file readers; 5 s the decoders) or ran out of memory; those inputs stay
# in .build-fuzz/crashes/<target>/. Inputs that failed before, kept in Tests/Fuzz/crashes/<target>/,
# are replayed first: each is a regression test.
# FUZZ_SOURCES=DIR fuzzes another copy of the ProviderVocabulary sources (e.g. a patched one in /tmp);
# the decoders themselves are TokenReading's and TokenJudging's, built from the package as the
# other modules are.
# FUZZ_PREBUILT=1 runs the targets already in .build-fuzz/ without building (to rerun by hand);
# FUZZ_BUILD_ONLY=1 builds them and stops (CI builds them beside the package's own build).
set -euo pipefail
cd "$(dirname "$0")/.."

seconds=${1:-60}
[[ $seconds =~ ^[0-9]+$ ]] || { echo "usage: $0 [seconds-per-target] [target...]" >&2; exit 2; }
shift $(( $# > 0 ? 1 : 0 ))
sources=${FUZZ_SOURCES:-Sources/ProviderVocabulary}
out=.build-fuzz
# name:file:per-input time limit (s):dictionary. The readers get 1 s: a file that takes longer is
# a hang to a user.
all=(response:ResponseDecoderFuzzer:5:fleet-engine jwt:JWTDecoderFuzzer:5:fleet-engine
     config:ConfigReaderFuzzer:1:yaml scenario:ScenarioParserFuzzer:1:yaml theme:ThemeLoaderFuzzer:1:yaml
     recording:RecordingReaderFuzzer:1:recording logs:LogReaderFuzzer:1:logs)
targets=()
for entry in "${all[@]}"; do
    if [[ $# -eq 0 ]] || [[ " $* " == *" ${entry%%:*} "* ]]; then targets+=("$entry"); fi
done
[[ ${#targets[@]} -gt 0 ]] || { echo "fuzz: no target among: ${all[*]%%:*}" >&2; exit 2; }

# -O because it runs about 1.5 times as many inputs a second as -Onone; -g keeps file:line and the
# "Swift runtime failure: ..." reason in the stack of a trap. lld because gold prints a warning per
# ASan helper symbol. ASan works with Foundation here (only our code is instrumented).
# -package-name as SwiftPM passes it: the modules share `package` declarations across their seams.
flags=(-parse-as-library -swift-version 6 -package-name tokendash -sanitize=fuzzer,address -O -g -use-ld=lld)

mkdir -p "$out/lib" "$out/crashes"
started=$SECONDS
if [[ ${FUZZ_PREBUILT:-} != 1 ]]; then
# One static library per module, so that the targets use each module's public API only.
# A module's `.embedInCode` resources are not compiled: SwiftPM makes `PackageResources` of them,
# and the graph below writes that file the same way into $out/gen/NAME/ (listing the resources in
# resources.txt, so a resource that is Swift is left out of the sources).
module() {
    local name=$1 dir=$2; shift 2
    local files=()
    mapfile -t files < <(find "$dir" -name '*.swift' | sort | grep -vxF -f <(cat "$out/gen/$name/resources.txt" 2>/dev/null || true) || true)
    [[ -f $out/gen/$name/embedded_resources.swift ]] && files+=("$out/gen/$name/embedded_resources.swift")
    swiftc "${flags[@]}" "$@" -emit-library -static -module-name "$name" -I "$out/lib" \
        -emit-module -emit-module-path "$out/lib/$name.swiftmodule" "${files[@]}" -o "$out/lib/lib$name.a"
}
# The modules the chosen targets import and everything they depend on, in waves (a wave's modules
# need only those of earlier waves), read from the package itself so that a new dependency in
# Package.swift reaches the fuzz build without anyone repeating it here. Product dependencies are
# left out (TokenReading's swift-crypto has a fallback under bare swiftc), except Yams, built below.
files=()
for entry in "${targets[@]}"; do IFS=: read -r _ file _ <<<"$entry"; files+=("Tests/Fuzz/$file.swift"); done
graph=$(swift package describe --type json | GEN="$out/gen" python3 -c '
import json, os, re, sys
targets = {t["name"]: t for t in json.load(sys.stdin)["targets"]}
wanted, todo = {}, []
for path in sys.argv[1:]:
    todo += [m for m in re.findall(r"^import (\w+)", open(path).read(), re.M) if m in targets]
while todo:
    name = todo.pop()
    if name in wanted: continue
    deps = [d for d in targets[name].get("target_dependencies") or [] if d in targets]
    todo += deps
    if "Yams" in (targets[name].get("product_dependencies") or []):
        wanted.setdefault("Yams", [])
        deps.append("Yams")
    wanted[name] = deps
wave = {}
def depth(name):
    if name not in wave: wave[name] = 1 + max((depth(d) for d in wanted[name]), default=-1)
    return wave[name]
for name in sorted(wanted, key=lambda n: (depth(n), n)):
    print(wave[name], name, targets[name]["path"] if name in targets else "")
    embedded = [r["path"] for r in (targets.get(name) or {}).get("resources") or [] if "embed_in_code" in r["rule"]]
    if embedded:
        gen = os.path.join(os.environ["GEN"], name)
        os.makedirs(gen, exist_ok=True)
        # As SwiftPM writes it: one [UInt8] per file, named for the file as a C99 identifier.
        lines = ["struct PackageResources {"]
        for path in sorted(embedded):
            ident = re.sub(r"[^A-Za-z0-9_]", "_", os.path.basename(path))
            ident = "_" + ident if ident[0].isdigit() else ident
            lines.append("static let %s: [UInt8] = [%s]" % (ident, ",".join(map(str, open(path, "rb").read()))))
        open(os.path.join(gen, "embedded_resources.swift"), "w").write("\n".join(lines + ["}", ""]))
        open(os.path.join(gen, "resources.txt"), "w").write("".join(os.path.relpath(p) + "\n" for p in embedded))
' "${files[@]}")
yamsflags=()
if grep -q ' Yams ' <<<"$graph"; then
    # Yams as SwiftPM builds it (its C part, libyaml, instrumented too: the parser is what a hostile
    # file reaches first). Its sources come from the package checkout `swift build` uses.
    yams=.build/checkouts/Yams
    [[ -d $yams/Sources/CYaml ]] || swift package resolve >/dev/null
    cyaml=$yams/Sources/CYaml
    mkdir -p "$out/cyaml"
    for c in "$cyaml"/src/*.c; do
        clang -c -O1 -g -fsanitize=fuzzer-no-link,address -DYAML_DECLARE_STATIC -I "$cyaml/include" "$c" -o "$out/cyaml/$(basename "$c" .c).o"
    done
    rm -f "$out/lib/libCYaml.a" && ar rcs "$out/lib/libCYaml.a" "$out"/cyaml/*.o
    yamsflags=(-I "$cyaml/include" -Xcc -DYAML_DECLARE_STATIC)
fi
echo "fuzz: building $(awk '{print $2}' <<<"$graph" | paste -sd' ') (ProviderVocabulary from $sources) and ${#targets[@]} targets into $out/"
libs=()
current=0 pids=()
while read -r level name dir; do
    # Two at a time (CI has two cores) within a wave; `wait PID` passes a failed compile on to `set -e`.
    if [[ $level != "$current" || ${#pids[@]} -ge 2 ]]; then
        for pid in "${pids[@]}"; do wait "$pid"; done
        pids=() current=$level
    fi
    case $name in
    # Yams is Swift 5 code (its manifest's tools version), as SwiftPM compiles it.
    Yams) module Yams "$yams/Sources/Yams" -swift-version 5 -DSWIFT_PACKAGE "${yamsflags[@]}" & ;;
    ProviderVocabulary) module ProviderVocabulary "$sources" & ;;
    *) module "$name" "$dir" ${yamsflags[@]+"${yamsflags[@]}"} & ;;
    esac
    pids+=($!)
    # Dependents first, so each archive's undefined symbols are met by one later on the line.
    libs=("$out/lib/lib$name.a" ${libs[@]+"${libs[@]}"})
done <<<"$graph"
for pid in "${pids[@]}"; do wait "$pid"; done
[[ ${#yamsflags[@]} -eq 0 ]] || libs+=("$out/lib/libCYaml.a")
pids=()
for entry in "${targets[@]}"; do
    IFS=: read -r name file _ <<<"$entry"
    swiftc "${flags[@]}" ${yamsflags[@]+"${yamsflags[@]}"} -module-name "$file" -I "$out/lib" "Tests/Fuzz/$file.swift" "${libs[@]}" -o "$out/$name-fuzzer" &
    pids+=($!)
done
for pid in "${pids[@]}"; do wait "$pid"; done
echo "fuzz: built in $((SECONDS - started)) s"
fi
[[ ${FUZZ_BUILD_ONLY:-} != 1 ]] || exit 0

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
# One target: replays its old crashes, fuzzes it, and writes its lines to $work/<name>.report;
# a nonzero exit means it failed.
fuzz_one() {
    local name=$1 limit=$2 dict=$3 failed=0 f
    local report="$work/$name.report"
    : >"$report"
    for f in Tests/Fuzz/crashes/"$name"/*; do
        [[ -f $f ]] || continue
        if ! "$out/$name-fuzzer" -timeout="$limit" -rss_limit_mb=2048 "$f" >"$work/$name.replay.log" 2>&1; then
            failed=1
            echo "fuzz $name: regression $f fails again" >>"$report"
            print_trap "$work/$name.replay.log" >>"$report"
        fi
    done
    local corpus="$work/$name" artifacts="$out/crashes/$name" log="$out/$name.log"
    cp -R "Tests/Fuzz/corpus/$name" "$corpus"
    rm -rf "$artifacts" && mkdir -p "$artifacts"
    # The outer timeout only matters if libFuzzer itself wedges; -max_total_time normally ends it.
    local status=0
    timeout -k 10 $((seconds + 120)) "$out/$name-fuzzer" \
        -max_total_time="$seconds" -timeout="$limit" -rss_limit_mb=2048 -print_final_stats=1 \
        -dict="Tests/Fuzz/$dict.dict" \
        -artifact_prefix="$artifacts/" "$corpus" >"$log" 2>&1 || status=$?

    local runs speed last cov corp found
    runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log")
    speed=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log")
    last=$(grep -E '^#[0-9]+' "$log" | tail -n 1 || true)
    cov=$(sed -nE 's/.* cov: ([0-9]+) ft: ([0-9]+).*/\1 edges, \2 features/p' <<<"$last")
    corp=$(sed -nE 's/.* corp: ([0-9]+)\/([0-9]+[a-zA-Z]+).*/\1 inputs (\2)/p' <<<"$last")
    found=$(find "$artifacts" -type f | sort)
    if [[ $status -eq 0 && -z $found ]]; then
        echo "fuzz $name: ok, ${runs:-?} runs in ${seconds} s, ${speed:-?} exec/s, corpus ${corp:-?}, coverage ${cov:-?}" >>"$report"
        return "$failed"
    fi
    {
        echo "fuzz $name: FAILED (exit $status) after ${runs:-?} runs, ${speed:-?} exec/s, corpus ${corp:-?}, coverage ${cov:-?}; log $log"
        print_trap "$log"
        for f in $found; do
            echo "  input $f ($(wc -c <"$f") bytes), base64:"
            echo "    $(base64 -w0 "$f")"
        done
        [[ -n $found ]] || tail -n 20 "$log" | sed 's/^/    /'
    } >>"$report"
    return 1
}

# Two targets at a time: each fuzzer is one single-threaded process and CI has two cores, so every
# target still gets its full time on a core of its own while the step takes half as long.
failed=0
names=() pids=()
for entry in "${targets[@]}"; do
    IFS=: read -r name _ limit dict <<<"$entry"
    fuzz_one "$name" "$limit" "$dict" &
    names+=("$name") pids+=($!)
    if [[ ${#pids[@]} -ge 2 ]]; then
        wait "${pids[0]}" || failed=1
        cat "$work/${names[0]}.report"
        names=("${names[@]:1}") pids=("${pids[@]:1}")
    fi
done
for i in "${!pids[@]}"; do
    wait "${pids[$i]}" || failed=1
    cat "$work/${names[$i]}.report"
done
exit "$failed"
