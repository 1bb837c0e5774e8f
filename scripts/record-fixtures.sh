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

# Records Fixtures/example-$1/site.har from site $1 on port $2: a search for $3, the TOC at path $4, the chapter
# at path $5 (paging up to path $6, the next chapter) and the last chapter at path $7.
record_site() {
    local name=$1 port=$2 key=$3 toc=$4 chapter=$5 next=$6 last=$7
    local har=Fixtures/example-$name/site.har src=Sources-json/example-$name.json base=http://127.0.0.1:$port
    mkdir -p "$(dirname "$har")"
    rm -f "$har"
    start_site "$name" "$port"
    "$BOOKRULE" search --source "$src" --record "$har" "$key" >/dev/null
    "$BOOKRULE" toc --source "$src" --record "$har" "$base$toc" >/dev/null
    "$BOOKRULE" chapter --source "$src" --record "$har" "$base$chapter" --next "$base$next" >/dev/null
    "$BOOKRULE" chapter --source "$src" --record "$har" "$base$last" >/dev/null
    if [ "$name" = gbk ]; then
        # A whole (short) book for the offline fetch demo and test.
        local library
        library=$(mktemp -d)
        rm -f Fixtures/example-gbk/book.har
        "$BOOKRULE" fetch --source "$src" --record Fixtures/example-gbk/book.har "$base/book/102/" \
            --library "$library/library.sqlite" --delay 0 --failure-delay 0 >/dev/null
        rm -rf "$library"
    fi
    stop_site
}

record_site gbk 8791 星河 /book/101/ /book/101/1.html /book/101/2.html /book/101/60.html
record_site utf8 8792 雾港 /novel/5/ /read/5/1.html /read/5/2.html /read/5/24.html
record_site allinone 8793 夜航 /book/shuangxing.html /txt/7/1.html /txt/7/2.html /txt/7/20.html
echo "fixtures recorded" >&2
