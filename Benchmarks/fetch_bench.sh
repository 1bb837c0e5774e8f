#!/usr/bin/env bash
# Offline fetch benchmark: `bookrule fetch --replay` of a generated book with zero delay, for 1,000 and 5,000
# chapters: wall time, chapters per second and peak RSS (GNU time). The replayed HAR is held in memory, so
# its size is part of the RSS; a baseline run with `--to 1` (load the HAR, read the TOC, save one chapter)
# measures that part, and the difference is what downloading the whole book adds: it must stay flat.
#   Benchmarks/fetch_bench.sh
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
OUT=Benchmarks/out/fetch
mkdir -p "$OUT"
swift build -c release --product bookrule >&2
printf "%-9s %10s %12s %14s %18s %14s\n" chapters wall_s chapters/s peak_RSS_MiB "RSS_with_--to_1" added_MiB
for n in 1000 5000; do
    python3 Benchmarks/fetch/generate_book_har.py "$OUT" "$n"
    rm -f "$OUT"/library-"$n"*.sqlite*
    /usr/bin/time -f "%e %M" -o "$OUT/base-$n" .build/release/bookrule fetch --source "$OUT/source.json" \
        --replay "$OUT/book-$n.har" http://bench.test/book/1/ --library "$OUT/library-$n-base.sqlite" \
        --delay 0 --failure-delay 0 --to 1 > /dev/null 2>&1
    /usr/bin/time -f "%e %M" -o "$OUT/time-$n" .build/release/bookrule fetch --source "$OUT/source.json" \
        --replay "$OUT/book-$n.har" http://bench.test/book/1/ --library "$OUT/library-$n.sqlite" \
        --delay 0 --failure-delay 0 > /dev/null 2>&1
    read -r wall rss < "$OUT/time-$n"
    read -r _ base < "$OUT/base-$n"
    awk -v n="$n" -v w="$wall" -v r="$rss" -v b="$base" \
        'BEGIN { printf "%-9d %10.2f %12.0f %14.1f %18.1f %14.1f\n", n, w, n / w, r / 1024, b / 1024, (r - b) / 1024 }'
done
