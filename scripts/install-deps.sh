#!/usr/bin/env bash
# Installs the Debian packages bookrule builds against, if any is missing. Safe to run repeatedly.
#   scripts/install-deps.sh            # build and test dependencies
#   scripts/install-deps.sh --bench    # also what Benchmarks/run.sh compares against (python3-lxml, gcc)
#   scripts/install-deps.sh --fuzz     # also what `make fuzz` needs (the libFuzzer runtime is the toolchain's)
set -euo pipefail

packages=(pkg-config libxml2-dev libpcre2-dev libcurl4-openssl-dev libpsl-dev libzip-dev libsqlite3-dev libssl-dev
    libuchardet-dev libjavascriptcoregtk-4.1-dev libopencc-dev epubcheck python3
    # bookrule studio: its HTTP server and editor; headless Chromium and Selenium for its browser test (and a
    # CJK font so its screenshots show the example site's text).
    libmicrohttpd-dev libjs-codemirror chromium chromium-driver python3-selenium fonts-wqy-zenhei
    # Web fonts (docs/fonts.md): FreeType reads them, Noto CJK is what their glyphs are recognised against; the
    # tests make obfuscated fonts with fontTools (Debian's, for /usr/bin/python3) from a Ming face (AR PL UMing)
    # and a Hei face (WenQuanYi Zen Hei, above), neither of them a reference.
    libfreetype-dev fonts-noto-cjk python3-fonttools python3-brotli fonts-arphic-uming
    # bookrule serve answers covers and pictures as PNGs, as Legado does: libpng decodes and writes PNG,
    # libjpeg(-turbo) decodes JPEG (docs/architecture.md).
    libpng-dev libjpeg-dev
    # bookrule serve's OPDS catalog: its feeds are validated against RFC 4287's RELAX NG schema with jing.
    jing)
if [[ "${1:-}" == "--bench" ]]; then
    packages+=(gcc python3-lxml)
fi
if [[ "${1:-}" == "--fuzz" ]]; then
    # -sanitize=fuzzer links libclang_rt.fuzzer from the Swift toolchain (no Debian libFuzzer or clang needed);
    # SwiftPM links with gold (binutils), and AddressSanitizer reports symbolize with the toolchain's llvm-symbolizer.
    swiftc=$(command -v swiftc || true)
    runtime=$(find "$(dirname "$(dirname "${swiftc:-/opt/swift/usr/bin/swiftc}")")/lib" -name 'libclang_rt.fuzzer-*.a' 2>/dev/null | head -n 1)
    [[ -n "$runtime" ]] || { echo "error: this Swift toolchain has no libclang_rt.fuzzer; use a swift.org toolchain" >&2; exit 2; }
    packages+=(binutils)
fi

missing=()
for package in "${packages[@]}"; do
    dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed" || missing+=("$package")
done
[[ ${#missing[@]} -eq 0 ]] && exit 0

echo "installing: ${missing[*]}" >&2
sudo=""
if [[ $(id -u) -ne 0 ]]; then
    command -v sudo >/dev/null || { echo "error: run as root or install sudo to install ${missing[*]}" >&2; exit 2; }
    sudo=sudo
fi
$sudo apt-get update -qq
DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq "${missing[@]}" >/dev/null
