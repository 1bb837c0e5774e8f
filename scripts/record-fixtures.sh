#!/usr/bin/env bash
# Re-records the HAR fixtures of the example sources against the generated sites served on loopback.
# Needs no network. Run after changing Fixtures/sites/example_site.py or an example source:
#   scripts/record-fixtures.sh
set -euo pipefail
cd "$(dirname "$0")/.."

swift build --product bookrule >&2
BOOKRULE=.build/debug/bookrule
ready=$(mktemp)
trap 'kill "$server" 2>/dev/null || true; rm -f "$ready"' EXIT

record_gbk() {
    local har=Fixtures/example-gbk/site.har src=Sources-json/example-gbk.json base=http://127.0.0.1:8791
    mkdir -p "$(dirname "$har")"
    rm -f "$har" "$ready"
    python3 Fixtures/sites/example_site.py gbk --port 8791 --ready-file "$ready" --lifetime 120 &
    server=$!
    for _ in $(seq 50); do [ -s "$ready" ] && break; sleep 0.1; done
    [ -s "$ready" ] || { echo "the example site did not start" >&2; exit 1; }
    "$BOOKRULE" search --source "$src" --record "$har" 星河 >/dev/null
    "$BOOKRULE" toc --source "$src" --record "$har" "$base/book/101/" >/dev/null
    "$BOOKRULE" chapter --source "$src" --record "$har" "$base/book/101/1.html" --next "$base/book/101/2.html" >/dev/null
    "$BOOKRULE" chapter --source "$src" --record "$har" "$base/book/101/60.html" >/dev/null
    kill "$server"
}

record_gbk
echo "fixtures recorded" >&2
