#!/usr/bin/env bash
# Builds what a user installs without Swift: one release binary with Swift's runtime and Foundation
# linked in (--static-swift-stdlib), its man page and bash/zsh/fish completions, and from them
#   dist/tokendash-VERSION-linux-x86_64.tar.gz (+ .sha256)   binary, man page, completions, README, docs/
#   dist/tokendash_VERSION_amd64.deb                          Depends: what the binary links, from dpkg-shlibdeps
# The binary says which commit it came from: this script writes it into Sources/BuildInfo/BuildStamp.swift
# for the build and puts the file back afterwards (an ordinary `swift build` says "dev build").
# Needs: Swift 6.3, dpkg-dev (dpkg-shlibdeps); lintian is run when installed. scripts/test-install.sh
# installs the .deb in a bare Debian and runs it there.
# RELEASE_FROM_DEBUG_BUILD=1 (CI) packages the debug build instead of compiling an optimized one.
set -euo pipefail
cd "$(dirname "$0")/.."

work=.build-release            # git-ignored (.build*/): staging, the stamp's backup, dpkg-shlibdeps' scratch
dist=dist
stamp=Sources/BuildInfo/BuildStamp.swift
mkdir -p "$work" "$dist"

# --- the commit, stamped into the binary for this build only -------------------------------------
if commit=$(git rev-parse --short=12 HEAD 2>/dev/null); then
  # Tracked files changed since the commit: the binary is not that commit, say so.
  [ -z "$(git status --porcelain --untracked-files=no 2>/dev/null)" ] || commit="$commit-dirty"
else
  commit=unknown
fi
cp -p "$stamp" "$work/BuildStamp.swift.orig"
# cp -p puts back the content and the modification time, so a debug build does not recompile for it.
# Packaged from the debug build, the stamp's module (BuildInfo, one small file with no imports, so
# nothing else recompiles) was compiled into .build/debug with the commit and for a static link:
# touched, it is compiled again by the next build (25 s with the relinks), which says "dev build".
restore_stamp() {
  cp -p "$work/BuildStamp.swift.orig" "$stamp"
  [[ ${RELEASE_FROM_DEBUG_BUILD:-} != 1 ]] || touch Sources/BuildInfo/*.swift
}
trap restore_stamp EXIT
cat > "$stamp" <<EOF
// Written by scripts/release.sh for a release build; the committed file says nil.
enum BuildStamp {
    static let commit: String? = "$commit"
}
EOF

# --- the binary ----------------------------------------------------------------------------------
# ncurses stays a shared library from the system (see docs/install.md): Debian's security
# updates reach it, and its terminfo paths are the system's own.
# --disable-local-rpath: no $ORIGIN search path in an installed binary. (Foundation's link line also
# names libz, which dpkg-shlibdeps calls a useless dependency; -Xlinker --as-needed did not drop it.)
build=(swift build -c release --static-swift-stdlib --disable-local-rpath)
if [[ ${RELEASE_FROM_DEBUG_BUILD:-} == 1 ]]; then
  # CI's packaging check: the debug build's objects linked the release's way, so CI proves the
  # tarball, the .deb, lintian and the bare-Debian install without compiling everything a third
  # time with the optimizer (1,974 s of a 3,549 s CI run here, December 2026). A debug build
  # reaches parts of Foundation that the release's optimizer leaves out, and they need archives
  # (ICU's among them) that gold, reading each archive once in order, would have passed already:
  # so Foundation's archives are one group, searched until nothing more resolves. A user's
  # release is always the optimized build above; tokendash-bench builds that one every session.
  build=(swift build --static-swift-stdlib --disable-local-rpath -Xlinker --start-group)
  for lib in Foundation FoundationEssentials FoundationInternationalization _FoundationICU \
    _FoundationCollections _FoundationCShims CoreFoundation; do build+=(-Xlinker "-l$lib"); done
  build+=(-Xlinker --end-group)
fi
"${build[@]}" --product tokendash
bin="$("${build[@]}" --show-bin-path)/tokendash"
restore_stamp; trap - EXIT

# Nothing of the toolchain may be needed at run time.
if ldd "$bin" | grep -E 'libswift|libFoundation|lib_Foundation|libdispatch|libBlocksRuntime|/opt/swift'; then
  echo "release.sh: the binary still needs the Swift toolchain's libraries (above)" >&2; exit 1
fi

stage="$work/stage"; rm -rf "$stage"; mkdir -p "$stage"
# Stripped as Debian strips (debug symbols out; Swift's metadata sections stay, they are allocated).
strip --remove-section=.comment --remove-section=.note --strip-unneeded -o "$stage/tokendash" "$bin"
chmod 0755 "$stage/tokendash"
printed=$("$stage/tokendash" --version)
version=$(awk '{print $2}' <<<"$printed")
[ "$printed" = "tokendash $version (commit $commit)" ] || { echo "release.sh: --version printed '$printed', expected commit $commit" >&2; exit 1; }

# --- completions and the man page, from swift-argument-parser ------------------------------------
for shell in bash zsh fish; do "$stage/tokendash" --generate-completion-script "$shell" > "$stage/completion.$shell"; done
# bash sources a completion file, never runs it (lintian: bash-completion-with-hashbang).
sed -i '1{/^#!/d}' "$stage/completion.bash"
# The manual generator (Tools/generate-manual of swift-argument-parser, what its generate-manual plugin
# runs after building every product) reads `tokendash --experimental-dump-help`: one page, each
# subcommand an entry of DESCRIPTION with its own options.
manual_tool=$(bash scripts/build-manual-tool.sh)
date=$(git log -1 --format=%cs 2>/dev/null || date -u +%F)
"$manual_tool" "$stage/tokendash" --date "$date" --section 1 --output-directory "$stage"
[ -s "$stage/tokendash.1" ]

# --- the tarball ---------------------------------------------------------------------------------
epoch=$(git log -1 --format=%ct 2>/dev/null || date +%s)   # same commit, same archive bytes
name="tokendash-$version-linux-x86_64"
tree="$work/$name"; rm -rf "$tree"; mkdir -p "$tree/completions"
cp "$stage/tokendash" "$stage/tokendash.1" README.md "$tree/"
# The pages the README links to, so its links work in the unpacked tarball.
cp -r docs "$tree/docs"
cp "$stage/completion.bash" "$tree/completions/tokendash.bash"
cp "$stage/completion.zsh" "$tree/completions/_tokendash"
cp "$stage/completion.fish" "$tree/completions/tokendash.fish"
bash scripts/third-party-licenses.sh > "$tree/THIRD-PARTY-LICENSES"
tar --sort=name --owner=0 --group=0 --numeric-owner --mtime="@$epoch" -C "$work" -cf - "$name" | gzip -9n > "$dist/$name.tar.gz"
(cd "$dist" && sha256sum "$name.tar.gz" > "$name.tar.gz.sha256")

# --- the .deb --------------------------------------------------------------------------------------
root="$work/deb"; rm -rf "$root"
install -D -m 0755 "$stage/tokendash" "$root/usr/bin/tokendash"
install -d -m 0755 "$root/usr/share/man/man1"
gzip -9n < "$stage/tokendash.1" > "$root/usr/share/man/man1/tokendash.1.gz"
# Where each shell looks without configuration on Debian.
install -D -m 0644 "$stage/completion.bash" "$root/usr/share/bash-completion/completions/tokendash"
install -D -m 0644 "$stage/completion.zsh" "$root/usr/share/zsh/vendor-completions/_tokendash"
install -D -m 0644 "$stage/completion.fish" "$root/usr/share/fish/vendor_completions.d/tokendash.fish"
doc="$root/usr/share/doc/tokendash"; install -d -m 0755 "$doc"
{
  echo "tokendash"
  echo
  echo "Copyright: the tokendash maintainers. The repository declares no licence of its own yet."
  echo
  echo "The binary links in the Swift runtime, Foundation and these Swift packages, under"
  echo "their licences, reproduced below."
  echo
  bash scripts/third-party-licenses.sh --debian
} > "$doc/copyright"
# The two tags lintian leaves, each with its reason; it reports them as overridden, not as errors.
install -D -m 0644 /dev/stdin "$root/usr/share/lintian/overrides/tokendash" <<'EOF'
# swift-nio-extras compiles its own copy of zlib (CNIOExtrasZlib, symbols renamed) into
# AsyncHTTPClient's gzip support; the package offers no way to use the system's zlib.
tokendash: embedded-library zlib [usr/bin/tokendash]
# Yams compiles its own copy of libyaml (CYaml); it has no option to link the system's libyaml.
tokendash: embedded-library libyaml [usr/bin/tokendash]
EOF
gzip -9n < README.md > "$doc/README.md.gz"
maintainer=${TOKENDASH_MAINTAINER:-$(git log -1 --format='%an <%ae>' 2>/dev/null || echo "tokendash maintainers <root@localhost>")}
{
  echo "tokendash ($version) unstable; urgency=medium"
  echo
  echo "  * Release built from commit $commit."
  echo
  echo " -- $maintainer  $(date -u -R -d "@$epoch")"
} | gzip -9n > "$doc/changelog.gz"

# Depends: what the binary links (its DT_NEEDED, the libraries ldd lists first), each mapped to its
# Debian package and minimum version by dpkg-shlibdeps, which needs a debian/control to read.
mkdir -p "$work/shlibdeps/debian"
printf 'Source: tokendash\n\nPackage: tokendash\nArchitecture: amd64\n' > "$work/shlibdeps/debian/control"
depends=$(cd "$work/shlibdeps" && dpkg-shlibdeps -O "$OLDPWD/$root/usr/bin/tokendash" | sed -n 's/^shlibs:Depends=//p')
[ -n "$depends" ] || { echo "release.sh: dpkg-shlibdeps found no dependencies" >&2; exit 1; }
install -d -m 0755 "$root/DEBIAN"
cat > "$root/DEBIAN/control" <<EOF
Package: tokendash
Version: $version
Architecture: amd64
Maintainer: $maintainer
Installed-Size: $(du -sk --exclude=DEBIAN "$root" | cut -f1)
Depends: $depends
Section: utils
Priority: optional
Description: terminal dashboard for Fleet Engine authorization tokens
 tokendash runs a Consumer SDK token provider and a Driver SDK token provider
 side by side, the way Google's mobile SDKs call them, and shows each cached
 token (redacted), its decoded claims, the time to expiry and a log of every
 fetch. An embedded server mints RS256 Fleet-Engine-shaped JWTs, so it works
 without a cloud account; flags point it at a real token backend instead.
 .
 Also: watch (events as JSON lines), serve, decode, replay and scenarios.
EOF
(cd "$root" && find usr -type f -print0 | sort -z | xargs -0 md5sum) > "$root/DEBIAN/md5sums"
chmod 0644 "$root/DEBIAN/control" "$root/DEBIAN/md5sums"
deb="$dist/tokendash_${version}_amd64.deb"
SOURCE_DATE_EPOCH=$epoch dpkg-deb --root-owner-group -Zxz --build "$root" "$deb" >/dev/null

if command -v lintian >/dev/null; then
  lintian --fail-on error,warning --info "$deb"
fi
echo "binary: $(stat -c %s "$stage/tokendash") bytes stripped, $(stat -c %s "$bin") unstripped; needs: $depends"
ls -l "$dist/$name.tar.gz" "$dist/$name.tar.gz.sha256" "$deb"
