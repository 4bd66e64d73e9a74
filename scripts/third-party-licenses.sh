#!/usr/bin/env bash
# Prints the licences of what a release binary of tokendash carries besides its own code: the Swift
# runtime and Foundation (linked in by --static-swift-stdlib) and every Swift package the build
# resolved (FlyingFox serves only the tests and the benchmarks, so it is left out), with the licence
# files of code they vendor (BoringSSL, libyaml, zlib). scripts/release.sh puts this in the tarball
# and, with --debian, in the .deb's copyright file, where Apache-2.0 is named, not copied: Debian
# keeps that text in /usr/share/common-licenses (lintian: copyright-file-contains-full-apache-2-license).
# Run after a build (needs .build/checkouts).
set -euo pipefail
cd "$(dirname "$0")/.."
debian=false; [ "${1:-}" = --debian ] && debian=true
toolchain=$(cd "$(dirname "$(readlink -f "$(command -v swift)")")/../.." && pwd)
section() { printf '%s\n%s\n\n' "------------------------------------------------------------------------" "$1"; }
apache() { grep -q "Apache License" "$1" && grep -q "Version 2.0" "$1"; }
show() {   # FILE: the licence text, or under --debian for Apache-2.0 its name and what follows the terms
  if $debian && apache "$1"; then
    echo "Apache-2.0: see /usr/share/common-licenses/Apache-2.0"
    sed -n '/END OF TERMS AND CONDITIONS/,$p' "$1" | sed -n '/Runtime Library Exception/,$p'
  else
    cat "$1"
  fi
  echo
}
section "Swift runtime, standard library and Foundation"
show "$toolchain/usr/share/swift/LICENSE.txt"
section "ICU, inside Foundation as _FoundationICU (swift-foundation-icu)"
echo "Unicode License v3, https://github.com/swiftlang/swift-foundation-icu/blob/main/LICENSE"
echo "(the toolchain ships no copy of this text)."; echo
for dir in .build/checkouts/*/; do
  package=$(basename "$dir")
  [ "$package" = FlyingFox ] && continue
  while IFS= read -r file; do
    section "$package: ${file#"$dir"}"
    show "$file"
  done < <(find "$dir" -maxdepth 3 -type f \( -name 'LICENSE*' -o -name 'NOTICE*' -o -name 'COPYING*' \) \
             -not -path '*/.git/*' -not -path '*/Tests/*' | sort)
done
