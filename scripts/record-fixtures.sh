#!/usr/bin/env bash
# Re-records the HAR fixtures of the example sources against the generated sites served on loopback.
# Needs no network. Run after changing Fixtures/sites/example_site.py or an example source:
#   scripts/record-fixtures.sh
set -euo pipefail
cd "$(dirname "$0")/.."

swift build --product bookrule >&2
BOOKRULE=.build/debug/bookrule
ready=$(mktemp)
server=""
trap 'if [ -n "$server" ]; then kill "$server" 2>/dev/null || true; fi; rm -f "$ready"' EXIT

# Starts the generated site $1 on loopback port $2 and waits until it listens.
start_site() {
    rm -f "$ready"
    python3 Fixtures/sites/example_site.py "$1" --port "$2" --ready-file "$ready" --lifetime 120 &
    server=$!
    for _ in $(seq 50); do [ -s "$ready" ] && break; sleep 0.1; done
    [ -s "$ready" ] || { echo "the example site $1 did not start" >&2; exit 1; }
}

stop_site() {
    kill "$server"
    wait "$server" 2>/dev/null || true
    server=""
}

record_gbk() {
    local har=Fixtures/example-gbk/site.har src=Sources-json/example-gbk.json base=http://127.0.0.1:8791
    mkdir -p "$(dirname "$har")"
    rm -f "$har"
    start_site gbk 8791
    "$BOOKRULE" search --source "$src" --record "$har" 星河 >/dev/null
    "$BOOKRULE" toc --source "$src" --record "$har" "$base/book/101/" >/dev/null
    "$BOOKRULE" chapter --source "$src" --record "$har" "$base/book/101/1.html" --next "$base/book/101/2.html" >/dev/null
    "$BOOKRULE" chapter --source "$src" --record "$har" "$base/book/101/60.html" >/dev/null
    # A whole (short) book for the offline fetch demo and test.
    local library
    library=$(mktemp -d)
    rm -f Fixtures/example-gbk/book.har
    "$BOOKRULE" fetch --source "$src" --record Fixtures/example-gbk/book.har "$base/book/102/" \
        --library "$library/library.sqlite" --delay 0 --failure-delay 0 >/dev/null
    rm -rf "$library"
    stop_site
}

record_utf8() {
    local har=Fixtures/example-utf8/site.har src=Sources-json/example-utf8.json base=http://127.0.0.1:8792
    mkdir -p "$(dirname "$har")"
    rm -f "$har"
    start_site utf8 8792
    "$BOOKRULE" search --source "$src" --record "$har" 雾港 >/dev/null
    "$BOOKRULE" toc --source "$src" --record "$har" "$base/novel/5/" >/dev/null
    "$BOOKRULE" chapter --source "$src" --record "$har" "$base/read/5/1.html" --next "$base/read/5/2.html" >/dev/null
    "$BOOKRULE" chapter --source "$src" --record "$har" "$base/read/5/24.html" >/dev/null
    stop_site
}

record_allinone() {
    local har=Fixtures/example-allinone/site.har src=Sources-json/example-allinone.json base=http://127.0.0.1:8793
    mkdir -p "$(dirname "$har")"
    rm -f "$har"
    start_site allinone 8793
    "$BOOKRULE" search --source "$src" --record "$har" 夜航 >/dev/null
    "$BOOKRULE" toc --source "$src" --record "$har" "$base/book/shuangxing.html" >/dev/null
    "$BOOKRULE" chapter --source "$src" --record "$har" "$base/txt/7/1.html" --next "$base/txt/7/2.html" >/dev/null
    "$BOOKRULE" chapter --source "$src" --record "$har" "$base/txt/7/20.html" >/dev/null
    stop_site
}

record_gbk
record_utf8
record_allinone
echo "fixtures recorded" >&2
