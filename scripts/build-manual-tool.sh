#!/usr/bin/env bash
# Builds swift-argument-parser's manual generator (Tools/generate-manual, the tool its generate-manual
# plugin runs) from the checkout this package resolved, in its own scratch folder, and prints its path.
# The plugin itself would first build every product of this package in release without
# --static-swift-stdlib (tokendash-bench included) and relink tokendash; the tool alone takes seconds.
set -euo pipefail
cd "$(dirname "$0")/.."
[ -d .build/checkouts/swift-argument-parser ] || swift package resolve >&2
scratch=.build-release/argument-parser
# CI's packaging check (RELEASE_FROM_DEBUG_BUILD) builds it unoptimized: the same page, in a
# fraction of the 2-4 minutes the optimizer takes over ArgumentParser here.
configuration=release
[[ ${RELEASE_FROM_DEBUG_BUILD:-} != 1 ]] || configuration=debug
swift build -c "$configuration" --package-path .build/checkouts/swift-argument-parser --scratch-path "$scratch" \
  --product generate-manual >&2
echo "$scratch/$configuration/generate-manual"
