#!/usr/bin/env bash
# Prints the licences of what a release binary of tokendash carries besides its own code: the Swift
# runtime and Foundation (linked in by --static-swift-stdlib) and every Swift package the build
# resolved (FlyingFox serves only the tests and the benchmarks, so it is left out). scripts/release.sh
# puts this in the tarball and the .deb's copyright file. Run after a build (needs .build/checkouts).
set -euo pipefail
cd "$(dirname "$0")/.."
toolchain=$(cd "$(dirname "$(readlink -f "$(command -v swift)")")/../.." && pwd)
section() { printf '%s\n%s\n\n' "------------------------------------------------------------------------" "$1"; }
section "Swift runtime, standard library and Foundation ($toolchain/usr/share/swift/LICENSE.txt)"
cat "$toolchain/usr/share/swift/LICENSE.txt"; echo
section "ICU, inside Foundation as _FoundationICU (swift-foundation-icu)"
echo "Unicode License v3, https://github.com/swiftlang/swift-foundation-icu/blob/main/LICENSE"
echo "(the toolchain ships no copy of this text)."; echo
for dir in .build/checkouts/*/; do
  package=$(basename "$dir")
  [ "$package" = FlyingFox ] && continue
  for file in "$dir"LICENSE "$dir"LICENSE.txt "$dir"LICENSE.md "$dir"NOTICE "$dir"NOTICE.txt "$dir"NOTICES.txt; do
    [ -f "$file" ] || continue
    section "$package: $(basename "$file")"
    cat "$file"; echo
  done
done
