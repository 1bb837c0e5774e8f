#!/usr/bin/env bash
# Builds bookrule_VERSION_ARCH.deb with dpkg-deb from a tree `make install PREFIX=/usr DESTDIR=STAGE` made
# (docs/packaging.md). Depends: the packages that own the libraries the binary links (its NEEDED entries,
# found where ldd resolves them, then `dpkg -S`), deduplicated. Version: CHANGELOG.md's newest released
# version, else the one `bookrule --version` prints.
#   scripts/make-deb.sh STAGE OUTDIR
set -euo pipefail
cd "$(dirname "$0")/.."
stage=${1:?usage: scripts/make-deb.sh STAGE OUTDIR}
outdir=${2:?usage: scripts/make-deb.sh STAGE OUTDIR}
binary=$stage/usr/bin/bookrule
[[ -x "$binary" ]] || { echo "error: no $binary (make install PREFIX=/usr DESTDIR=$stage first)" >&2; exit 2; }

version=$(sed -n 's/^## \[\([0-9][^]]*\)\].*/\1/p' CHANGELOG.md | head -n 1)
[[ -n "$version" ]] || version=$("$binary" --version | awk '{print $2}')
arch=$(dpkg --print-architecture)

# The libraries the binary itself names (not what they pull in: their own packages depend on that), each at
# the path ldd resolves it to, and the package that owns it. A library no package owns (a toolchain's
# libswiftCore.so in /opt/swift) would make a package that cannot run elsewhere: refused.
needed=$(readelf -d "$binary" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p')
resolved=$(ldd "$binary")
packages=()
unowned=()
for library in $needed; do
    # "libc.so.6 => /lib/…/libc.so.6 (0x…)", or the loader by its path: "/lib64/ld-linux-x86-64.so.2 (0x…)".
    path=$(awk -v lib="$library" '$1 == lib && $3 ~ /^\// {print $3} $1 ~ "/" lib "$" {print $1}' <<< "$resolved" | head -n 1)
    [[ -n "$path" ]] || { unowned+=("$library (not found by ldd)"); continue; }
    owner=""
    # dpkg knows a file by the path its package ships it at: /lib or /usr/lib (merged /usr), or the link's target.
    for candidate in "$path" "${path#/usr}" "/usr$path" "$(readlink -f "$path")"; do
        owner=$(dpkg -S "$candidate" 2>/dev/null | head -n 1 | cut -d: -f1) && [[ -n "$owner" ]] && break
    done
    if [[ -n "$owner" ]]; then packages+=("$owner"); else unowned+=("$library ($path)"); fi
done
if [[ ${#unowned[@]} -gt 0 ]]; then
    printf 'error: no Debian package owns: %s\n' "${unowned[@]}" >&2
    echo "(the Swift runtime is linked statically by make install's --static-swift-stdlib)" >&2
    exit 1
fi
depends=$(printf '%s\n' "${packages[@]}" | sort -u | paste -sd, - | sed 's/,/, /g')

mkdir -p "$stage/DEBIAN" "$outdir"
cat > "$stage/DEBIAN/control" <<CONTROL
Package: bookrule
Version: $version
Architecture: $arch
Maintainer: bookrule maintainers <bookrule@localhost>
Installed-Size: $(du -sk --exclude=DEBIAN "$stage" | cut -f1)
Depends: $depends
Section: utils
Priority: optional
Description: scrape novel sites with Legado book sources
 bookrule searches, reads and downloads books from web novel sites with Legado
 book sources (XPath, CSS, JSONPath, regex and JavaScript rules), keeps them in
 an offline library, exports EPUB and TXT, and serves the library with Legado's
 web API (bookrule serve, with a systemd user unit). Also: a rule-authoring
 studio, source checks against recorded fixtures, and shell completions.
CONTROL
deb=$outdir/bookrule_${version}_${arch}.deb
dpkg-deb --root-owner-group -Zxz --build "$stage" "$deb" >/dev/null
echo "$deb"
