#!/usr/bin/env bash
# Many-sources search benchmark (issue #14): `bookrule search 镜中 --sources DIR --replay HAR` over N sources
# (default 300) on N hosts, answered from a HAR recording (no network, no delay): wall time of the whole
# command (loading and checking N source files, N searches at --jobs 16, grouping), best of ROUNDS (3).
# Target: < 5 s for 300 sources.
#   Benchmarks/search_bench.sh
#   SOURCES=1000 Benchmarks/search_bench.sh
#   BOOKRULE_BIN=path Benchmarks/search_bench.sh   # use this binary, skip `swift build`
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
SOURCES="${SOURCES:-300}"
ROUNDS="${ROUNDS:-3}"
OUT=Benchmarks/out/search
mkdir -p "$OUT"
BIN="${BOOKRULE_BIN:-}"
if [[ -z "$BIN" ]]; then
    swift build -c release --product bookrule >&2
    BIN=.build/release/bookrule
fi
python3 Benchmarks/search/generate_search_har.py "$OUT" "$SOURCES"
export XDG_STATE_HOME="$ROOT/$OUT/state" XDG_DATA_HOME="$ROOT/$OUT/data"
best=""
for round in $(seq 1 "$ROUNDS"); do
    start=$(date +%s.%N)
    "$BIN" search 镜中 --sources "$OUT/sources" --replay "$OUT/search.har" --json > "$OUT/result.json" 2> "$OUT/stderr.txt" || true
    end=$(date +%s.%N)
    wall=$(awk -v s="$start" -v e="$end" 'BEGIN { printf "%.2f", e - s }')
    echo "round $round: ${wall} s" >&2
    if [[ -z "$best" ]] || awk -v a="$wall" -v b="$best" 'BEGIN { exit !(a < b) }'; then best="$wall"; fi
done
python3 - "$OUT/result.json" "$SOURCES" "$best" <<'PY'
import json, sys
result = json.load(open(sys.argv[1], encoding="utf-8"))
sources, best = int(sys.argv[2]), float(sys.argv[3])
book = next((b for b in result["books"] if b["name"].startswith("镜中之书")), None)
copies = len(book["copies"]) if book else 0
verdict = "PASS" if best < 5 else "FAIL"
print(f"search sources={result['sources']} books={len(result['books'])} copies_of_the_book={copies} "
      f"(expected {(sources + 2) // 3}) failures={len(result['failures'])} wall_s={best:.2f} (target < 5 s: {verdict})")
PY
