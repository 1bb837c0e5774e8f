#!/usr/bin/env bash
# Runs the built test suite (`swift test --skip-build`) and returns its verdict.
#
# Why not `swift test` alone: a runaway thread once kept the test process alive after the last test had
# reported (docs/developing/testing.md; the cause is fixed, the guard is kept). The verdict is printed by then, so this
# waits for the closing line, gives the process 60 s to exit, and then ends it and exits with that verdict. A run that never prints the line is still bounded
# (TEST_TIMEOUT seconds, default 1800) and fails.
set -uo pipefail
cd "$(dirname "$0")/.."
# The suite runs its ~1,100 tests at once on the machine's cores (two here), so every test shares the CPU and
# Swift's cooperative pool with hundreds of others: in a quiet-machine run, tests whose own work takes
# milliseconds reported 40-70 s, and upper bounds written for one test alone (a refusal "at once" in 2 s, a
# handshake deadline in 10 s, a loopback server's 10 s lifetime) failed a run in three. So the tests' upper time
# bounds and loopback servers' lifetimes stretch three times here (TestTime.scale; lower bounds are never
# scaled), and six times on a machine already busy with other work when the run starts (as many other runnable
# processes as processors, at each of five looks over half a second; a build that has just ended does not count,
# as the load average would). They are there to catch a hang, not to time anything: speed is measured in
# Benchmarks/ (docs/developing/testing.md). BOOKRULE_TEST_TIME_SCALE, when set, wins; the sanitizer targets set it.
if [[ -z "${BOOKRULE_TEST_TIME_SCALE:-}" ]]; then
    export BOOKRULE_TEST_TIME_SCALE=3
    if [[ -r /proc/loadavg ]]; then
        others=1000
        for _ in 1 2 3 4 5; do
            # The fourth field is running/total; the reader itself is one of the running.
            running="$(cut -d' ' -f4 /proc/loadavg | cut -d/ -f1)"
            (( running - 1 < others )) && others=$((running - 1))
            sleep 0.1
        done
        if (( others >= $(nproc) )); then
            echo "note: $others other processes running on $(nproc) processors: test time bounds x6 (BOOKRULE_TEST_TIME_SCALE)" >&2
            export BOOKRULE_TEST_TIME_SCALE=6
        fi
    fi
fi
# Caches the tests may fill (the web-font reference index, built once: docs/fonts.md) live in the build
# directory, not in the account's ~/.cache.
export XDG_CACHE_HOME="$PWD/.build/test-cache"
log="$(mktemp)"
trap 'rm -f "$log"' EXIT
swift test --skip-build "$@" > >(tee "$log") 2>&1 &
pid=$!
deadline=$((SECONDS + ${TEST_TIMEOUT:-1800}))
verdict=""
while kill -0 "$pid" 2>/dev/null; do
    if [[ -z "$verdict" ]] && grep -qE 'Test run with [0-9]+ tests? in [0-9]+ suites? (passed|failed)' "$log"; then
        verdict="$(grep -E 'Test run with [0-9]+ tests? in [0-9]+ suites? (passed|failed)' "$log" | tail -n 1)"
        exit_deadline=$((SECONDS + 60))
    fi
    if [[ -n "$verdict" && $SECONDS -ge $exit_deadline ]]; then
        echo "note: the test process did not exit 60 s after its last result; ended it (docs/developing/testing.md)" >&2
        pkill -KILL -P "$pid" 2>/dev/null; kill -KILL "$pid" 2>/dev/null
        wait "$pid" 2>/dev/null
        [[ "$verdict" == *" passed after "* && "$verdict" != *"failed"* ]] && exit 0 || exit 1
    fi
    if [[ $SECONDS -ge $deadline ]]; then
        echo "error: the test run did not finish in ${TEST_TIMEOUT:-1800} s" >&2
        pkill -KILL -P "$pid" 2>/dev/null; kill -KILL "$pid" 2>/dev/null
        exit 1
    fi
    sleep 1
done
wait "$pid"
