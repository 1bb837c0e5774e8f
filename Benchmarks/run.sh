#!/usr/bin/env bash
# TOC extraction benchmark: BookRule vs raw libxml2 (C) vs Python lxml; then regexes: PCRE2 (RegexPattern)
# vs NSRegularExpression; then politeness: elapsed ÷ the time the server asked for (target <= 1.2); then
# JavaScript on a hot field: a TOC whose chapterName ends in @js: vs the same without (target <= 1.5x); then
# Locked vs Synchronization.Mutex (ns per withLock); then `bookrule serve`'s getBookContent of saved chapters
# to 50 keep-alive clients (target p99 < 10 ms).
#
#   Benchmarks/run.sh                 # ITERATIONS=30 by default
#   ITERATIONS=100 Benchmarks/run.sh
#   BENCH_SKIP_SWIFT=1 Benchmarks/run.sh   # don't build/run the Swift side (exits 1)
#   BOOKRULE_BENCH_BIN=path Benchmarks/run.sh  # use this binary, skip `swift build`
#   BENCH_TOC_ONLY=1 Benchmarks/run.sh     # the TOC comparison only (its verdict is the exit status)
#
# Every implementation takes `FILE ENCODING ITERATIONS` and prints one line:
#   <impl> <label> median_ms=<x> min_ms=<y> chapters=<n> checksum=<bytes>
# Target (issue #22): bookrule <= 1.1x libxml2-c, by the median and by the best run.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"

ITERATIONS="${ITERATIONS:-30}"
# Each implementation runs ROUNDS times, interleaved with the others, and its best round counts: on a shared
# 2-core machine the noise between runs is larger than the differences being measured (a neighbour on the
# host doubles a round's median for a second at a time), and five rounds give each side about the same chance
# of a quiet one.
ROUNDS="${ROUNDS:-5}"
CHAPTERS=5000
OUT=Benchmarks/out
BIN=Benchmarks/bin
PY=/usr/bin/python3          # Debian python3 with python3-lxml
CC="${CC:-cc}"
TARGET_RATIO=1.1

mkdir -p "$OUT" "$BIN"

echo "== generating pages" >&2
"$PY" Benchmarks/generate_toc.py "$OUT" "$CHAPTERS" >&2

echo "== compiling C reference" >&2
# shellcheck disable=SC2046
"$CC" -O2 -o "$BIN/toc_libxml2" Benchmarks/c/toc_libxml2.c $(pkg-config --cflags --libs libxml-2.0) -lpthread

SWIFT_BIN=""
if [[ -n "${BOOKRULE_BENCH_BIN:-}" ]]; then
    SWIFT_BIN="$BOOKRULE_BENCH_BIN"
elif [[ "${BENCH_SKIP_SWIFT:-0}" != "1" ]]; then
    echo "== building bookrule-bench (release)" >&2
    if swift build -c release --product bookrule-bench >&2; then
        SWIFT_BIN=.build/release/bookrule-bench
    else
        echo "warning: swift build of bookrule-bench failed" >&2
    fi
fi

RESULTS="$(mktemp)"
SUMMARY="$(mktemp)"
trap 'rm -f "$RESULTS" "$SUMMARY"' EXIT

# run <impl-tag> <cmd...>: keep only the result line that starts with the tag.
run() {
    local tag="$1"; shift
    local out
    out="$("$@" 2>&1)" || echo "warning: $tag exited with status $? ($*)" >&2
    local line
    line="$(printf '%s\n' "$out" | grep -E "^${tag//+/\\+} " | tail -n 1 || true)"
    if [[ -n "$line" ]]; then
        printf '%s\n' "$line" >> "$RESULTS"
        echo "   $line" >&2
    else
        echo "warning: no '$tag' result line from: $*" >&2
        printf '%s\n' "$out" | head -n 5 | sed 's/^/     | /' >&2
    fi
}

for spec in "utf8 UTF-8" "gbk GB18030"; do
    read -r suffix enc <<< "$spec"
    file="$OUT/toc-$CHAPTERS-$suffix.html"
    echo "== $file ($enc), $ROUNDS rounds of $ITERATIONS iterations" >&2
    for _ in $(seq "$ROUNDS"); do
        run libxml2-c "$BIN/toc_libxml2" "$file" "$enc" "$ITERATIONS"
        # The same C with one idle thread beside it: what malloc costs in any process with threads.
        run libxml2-c+thread env TOC_IDLE_THREAD=1 "$BIN/toc_libxml2" "$file" "$enc" "$ITERATIONS"
        run lxml "$PY" Benchmarks/python/toc_lxml.py "$file" "$enc" "$ITERATIONS"
        if [[ -n "$SWIFT_BIN" ]]; then
            run bookrule "$SWIFT_BIN" toc "$file" "$enc" "$ITERATIONS"
        fi
    done
done

echo
awk -v target="$TARGET_RATIO" -v iters="$ITERATIONS" '
    {
        impl = $1; label = $2
        for (i = 3; i <= NF; i++) {
            split($i, kv, "=")
            # Several rounds: keep the best median and the best minimum.
            if (!have[label, impl] || kv[1] !~ /_ms$/ || kv[2] + 0 < v[label, impl, kv[1]] + 0) v[label, impl, kv[1]] = kv[2]
        }
        have[label, impl] = 1
        if (!(label in seen)) { seen[label] = 1; labels[++nl] = label }
    }
    function ratio(label, a, b, key) {
        if (!have[label, a] || !have[label, b] || v[label, b, key] + 0 == 0) return "n/a"
        return sprintf("%.2fx", v[label, a, key] / v[label, b, key])
    }
    END {
        nimpl = split("bookrule libxml2-c libxml2-c+thread lxml", impls, " ")
        printf "TOC benchmark: best of the rounds of %s iterations, median/min of full parse+extract (ms)\n\n", iters
        printf "%-16s %-16s %10s %10s %9s %10s\n", "file", "impl", "median_ms", "min_ms", "chapters", "checksum"
        for (l = 1; l <= nl; l++) {
            label = labels[l]
            for (k = 1; k <= nimpl; k++) {
                impl = impls[k]
                if (have[label, impl])
                    printf "%-16s %-16s %10.3f %10.3f %9s %10s\n", label, impl,
                        v[label, impl, "median_ms"], v[label, impl, "min_ms"],
                        v[label, impl, "chapters"], v[label, impl, "checksum"]
                else
                    printf "%-16s %-16s %10s\n", label, impl, "unavailable"
            }
        }
        print ""
        printf "%-16s %26s %26s %20s\n", "file", "bookrule/libxml2-c median", "bookrule/libxml2-c min", "bookrule/lxml median"
        for (l = 1; l <= nl; l++) {
            label = labels[l]
            r = ratio(label, "bookrule", "libxml2-c", "median_ms")
            rmin = ratio(label, "bookrule", "libxml2-c", "min_ms")
            verdict = ""
            # Both the median and the best run have to be within the target.
            if (r != "n/a") verdict = (r + 0 <= target + 0 && rmin + 0 <= target + 0) ? "  (target <= " target "x: PASS)" : "  (target <= " target "x: FAIL)"
            printf "%-16s %26s %26s %20s%s\n", label, r, rmin,
                ratio(label, "bookrule", "lxml", "median_ms"), verdict
        }
        # For reading the ratios: the C reference in a process with a thread, as bookrule always is.
        print ""
        for (l = 1; l <= nl; l++) {
            label = labels[l]
            if (have[label, "libxml2-c+thread"])
                printf "%-16s libxml2-c+thread/libxml2-c median %s, min %s; bookrule/libxml2-c+thread median %s, min %s\n", label,
                    ratio(label, "libxml2-c+thread", "libxml2-c", "median_ms"), ratio(label, "libxml2-c+thread", "libxml2-c", "min_ms"),
                    ratio(label, "bookrule", "libxml2-c+thread", "median_ms"), ratio(label, "bookrule", "libxml2-c+thread", "min_ms")
        }
        # agreement check on chapter count + checksum
        print ""
        ok = 1
        for (l = 1; l <= nl; l++) {
            label = labels[l]; ref = ""
            for (k = 1; k <= nimpl; k++) {
                impl = impls[k]
                if (!have[label, impl]) continue
                sig = v[label, impl, "chapters"] "/" v[label, impl, "checksum"]
                if (ref == "") { ref = sig; refimpl = impl }
                else if (sig != ref) {
                    printf "WARNING: %s: %s chapters/checksum=%s differs from %s=%s\n", label, impl, sig, refimpl, ref
                    ok = 0
                }
            }
        }
        if (ok) print "all implementations agree on chapters and checksum"
    }
' "$RESULTS" | tee "$SUMMARY"

if ! grep -q '^bookrule ' "$RESULTS"; then
    echo
    echo "Swift benchmark (bookrule-bench) unavailable: no 'bookrule' result line; only libxml2-c and lxml were measured."
    exit 1
fi

if [[ "${BENCH_TOC_ONLY:-0}" == "1" ]]; then
    if grep -q "x: FAIL)" "$SUMMARY"; then exit 1; fi
    exit 0
fi

if [[ -n "$SWIFT_BIN" ]]; then
    echo
    echo "Regex benchmark: PCRE2 through RegexPattern vs NSRegularExpression, same subjects, results checked equal"
    "$SWIFT_BIN" regex "$OUT/toc-$CHAPTERS-utf8.html" "$ITERATIONS"
    echo
    echo "Politeness benchmark: a 1,200-chapter book under 10% random 503 + Retry-After: 2 (virtual clock)"
    "$SWIFT_BIN" politeness 1204
    echo
    echo "JavaScript benchmark: the 5,000-chapter TOC with chapterName '//a/text()@js:…' vs '//a/text()' (target <= 1.5x)"
    "$SWIFT_BIN" script-toc "$OUT/toc-$CHAPTERS-utf8.html" "$ITERATIONS"
    echo
    echo "Lock benchmark: Locked (pthread mutex) vs Synchronization.Mutex, ns per withLock, 1 and 2 threads"
    "$SWIFT_BIN" lock 5000000
    echo
    echo "Studio benchmark: edit to highlight on the 5,000-chapter TOC (server side) vs SourceEngine.toc (target < 100 ms)"
    "$SWIFT_BIN" studio "$OUT/toc-$CHAPTERS-utf8.html" "$ITERATIONS"
    echo
    echo "Serve benchmark: getBookContent of saved chapters, 50 loopback keep-alive clients, 5,000 requests (target p99 < 10 ms)"
    "$SWIFT_BIN" serve-content 50 5000
    echo
    if command -v chromium >/dev/null 2>&1 || [[ -n "${BOOKRULE_CHROMIUM:-}" ]]; then
        echo "webView benchmark: Chromium's start, and a 500-chapter TOC a page script builds vs the same list as plain HTML"
        "$SWIFT_BIN" webview 500 5
    else
        echo "webView benchmark skipped: Chromium is not installed (apt install chromium)"
    fi
fi
