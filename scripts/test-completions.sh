#!/usr/bin/env bash
# Tests the bash completion made by scripts/make-completions.py (docs/packaging.md): makes it from the built
# binary's command table (bookrule help --json), sources it and checks COMPREPLY for a few command lines, as
# bash would on TAB. Where zsh or fish is installed, its file is made too and checked for syntax. Offline, a
# few seconds.
#   scripts/test-completions.sh [BOOKRULE]     # BOOKRULE: $BOOKRULE_BIN or .build/release/bookrule
set -euo pipefail
cd "$(dirname "$0")/.."
binary=${1:-${BOOKRULE_BIN:-.build/release/bookrule}}
[[ -x "$binary" ]] || { echo "error: no bookrule binary at $binary (swift build -c release first)" >&2; exit 2; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

scripts/make-completions.py bash "$binary" > "$work/bash"
# shellcheck source=/dev/null
source "$work/bash"

failures=0
# complete LINE: COMPREPLY for the cursor at the end of LINE (a trailing space starts an empty word).
complete_line() {
    local line=$1
    read -r -a COMP_WORDS <<< "$line"
    [[ "$line" == *" " ]] && COMP_WORDS+=("")
    COMP_CWORD=$((${#COMP_WORDS[@]} - 1))
    COMP_LINE=$line
    COMP_POINT=${#line}
    COMPREPLY=()
    # As bash runs it on TAB: without errexit (an empty compgen fails).
    set +e
    _bookrule bookrule "${COMP_WORDS[COMP_CWORD]}" "${COMP_WORDS[COMP_CWORD-1]}"
    set -e
}
# expect LINE WORD...: every WORD is offered; expect_not LINE WORD...: none is.
expect() {
    local line=$1; shift
    complete_line "$line"
    local got=" ${COMPREPLY[*]} " word
    for word in "$@"; do
        if [[ "$got" != *" $word "* ]]; then
            echo "FAIL: '$line<TAB>' offers [${COMPREPLY[*]}], not $word" >&2
            failures=$((failures + 1))
        fi
    done
}
expect_not() {
    local line=$1; shift
    complete_line "$line"
    local got=" ${COMPREPLY[*]} " word
    for word in "$@"; do
        if [[ "$got" == *" $word "* ]]; then
            echo "FAIL: '$line<TAB>' offers $word: [${COMPREPLY[*]}]" >&2
            failures=$((failures + 1))
        fi
    done
}

expect "bookrule se" search serve
expect_not "bookrule se" sources lint
expect "bookrule s" search serve sources switch studio
expect "bookrule " fetch lint report --version
expect "bookrule fetch --li" --library
expect "bookrule fetch --" --source --mirrors --epub --delay --no-font-decoding
expect_not "bookrule lint --" --library
expect "bookrule rules " import list test remove
expect "bookrule export 长夜灯火 --convert " t2s s2t
# Paths: --source lists *.json files and folders, not other files; --library any file; lint's FILE... files.
cd Sources-json
expect "bookrule lint --source " example-utf8.json example-gbk.json
expect "bookrule search --source ex" example-utf8.json
cd ..
expect "bookrule lint --source Sources-json/" Sources-json/example-utf8.json
expect "bookrule search --source " Sources-json Fixtures
expect_not "bookrule search --source " Makefile README.md
expect_not "bookrule lint --source " Makefile README.md
expect "bookrule fetch --library " Makefile
expect "bookrule lint Sources-json/example-u" Sources-json/example-utf8.json
expect "bookrule serve --web " Sources
expect_not "bookrule serve --web " Makefile
expect_not "bookrule fetch --pick " Makefile

for shell in zsh fish; do
    command -v "$shell" >/dev/null || continue
    scripts/make-completions.py "$shell" "$binary" > "$work/$shell"
    if [[ $shell == zsh ]]; then zsh -n "$work/zsh"; else fish --no-execute "$work/fish"; fi || failures=$((failures + 1))
done
bash -n "$work/bash" || failures=$((failures + 1))

if ((failures)); then
    echo "test-completions: $failures failed" >&2
    exit 1
fi
echo "test-completions: bash completion passed (zsh, fish: syntax checked where installed)"
