#!/usr/bin/env bash
# Checks bookrule's selector translation (CSS and Legado JSoup-segment rules -> XPath 1.0) against jsoup, the
# engine Legado runs:
#   1. scripts/jsoup/JsoupDifferential.java generates HTML pages (every element has a data-id), runs each
#      selector of scripts/jsoup/selectors.txt with jsoup (CSS: Element.select; "jsoup" lines: Legado's
#      AnalyzeByJSoup list-rule logic on jsoup) from the page and from a few elements, and writes the pages,
#      selectors and answers to Tests/BookRuleRulesTests/JSoupDifferentialFixture.swift;
#   2. the Swift test JSoupDifferentialTests compares bookrule's translations with every answer.
# The fixture is committed, so step 2 runs in every `make test` without Java; rerun this script after changing
# the selectors, the generator or the translators. The result is recorded in docs/compatibility.md.
#
# Needs a JDK and jsoup: apt-get install default-jdk-headless libjsoup-java (JSOUP_JAR overrides the jar).
# PAGES sets the number of generated pages (default 16).
set -euo pipefail
cd "$(dirname "$0")/.."

JSOUP_JAR=${JSOUP_JAR:-/usr/share/java/jsoup.jar}
if [ ! -f "$JSOUP_JAR" ] || ! command -v javac >/dev/null; then
    echo "jsoup-differential: needs javac and $JSOUP_JAR (apt-get install default-jdk-headless libjsoup-java)" >&2
    exit 1
fi

OUT=.build/jsoup-diff
mkdir -p "$OUT"
javac -Xlint:all -Werror -d "$OUT" -cp "$JSOUP_JAR" scripts/jsoup/JsoupDifferential.java
java -cp "$JSOUP_JAR:$OUT" JsoupDifferential scripts/jsoup/selectors.txt \
    Tests/BookRuleRulesTests/JSoupDifferentialFixture.swift "${PAGES:-16}"

SWIFT=${SWIFT:-swift}
$SWIFT build --build-tests -Xswiftc -warnings-as-errors
status=0
$SWIFT test --skip-build --filter JSoupDifferentialTests >"$OUT/test.log" 2>&1 || status=$?
grep -E '^jsoup differential|^  [a-zA-Z]+: ' "$OUT/test.log" || true
if [ "$status" -ne 0 ]; then
    grep -E 'jsoup:|bookrule:|\| page|parses differently' "$OUT/test.log" | head -60 || true
    echo "jsoup-differential: disagreements (full log: $OUT/test.log)" >&2
fi
exit "$status"
