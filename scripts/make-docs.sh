#!/usr/bin/env bash
# Builds the API documentation of the BookRule library with the toolchain's own docc (CONTRIBUTING.md, "make docs").
#   scripts/make-docs.sh [OUT]      # OUT: .build/docs
#
# 1. `swift build --build-tests` with make test's flags (a tree make test built is reused), then `swift package
#    dump-symbol-graph` writes each module's symbol graph (public symbols) under .build/<triple>/symbolgraph.
# 2. For each module the `BookRule` umbrella re-exports (read from Package.swift through `swift package
#    dump-package`, so the list follows the manifest), `docc convert` turns that module's graphs into a static
#    site, OUT/<Module>/, hosted under /<Module>/.
# 3. OUT/index.html links the modules. docc's diagnostics (warnings about unresolved links in doc comments) go
#    to OUT/docc.log; a module docc cannot convert fails the run.
# No docc plugin package: the swift-docc-plugin cannot be fetched here, and the toolchain's docc needs none.
set -euo pipefail
cd "$(dirname "$0")/.."
out=${1:-.build/docs}
swift=${SWIFT:-swift}
docc=${DOCC:-$(command -v docc || echo /opt/swift/usr/bin/docc)}
[[ -x "$docc" ]] || { echo "error: no docc at $docc (it ships with the Swift toolchain; set DOCC=path)" >&2; exit 2; }

# The build make test's first step makes, tests included: dump-symbol-graph (SwiftPM 6.3) builds without the
# tests but then asks for every module's graph, the test bundle's too, and fails on a tree whose tests were never
# built ("Failed to emit symbol graph for 'bookrulePackageTests'"). After this it builds nothing more.
flags=(-Xswiftc -warnings-as-errors --explicit-target-dependency-import-check error)
echo "building (swift build --build-tests, as make test does)" >&2
"$swift" build --build-tests "${flags[@]}" >&2 || { echo "error: the build failed (its output is above)" >&2; exit 1; }
echo "extracting symbol graphs (swift package dump-symbol-graph)" >&2
dump_log=$(mktemp)
trap 'rm -f "$dump_log"' EXIT
# Its output goes to standard error as it comes; the log is kept for the line that says where the graphs are.
if ! "$swift" package "${flags[@]}" \
        dump-symbol-graph --minimum-access-level public --skip-inherited-docs 2>&1 | tee "$dump_log" >&2; then
    echo "error: swift package dump-symbol-graph failed (its output is above)" >&2
    exit 1
fi
graphs=$(sed -n 's/^Files written to //p' "$dump_log" | tail -n 1)
[[ -n "$graphs" && -d "$graphs" ]] || graphs=$(find .build -maxdepth 3 -type d -name symbolgraph | head -n 1)
[[ -n "$graphs" && -d "$graphs" ]] || { cat "$dump_log" >&2; echo "error: no symbol graphs found under .build" >&2; exit 1; }

modules=$("$swift" package dump-package | python3 -c '
import json, sys
package = json.load(sys.stdin)
umbrella = next(t for t in package["targets"] if t["name"] == "BookRule")
for dependency in umbrella["dependencies"]:
    print(dependency.get("byName", [None])[0])
')

rm -rf "$out"
mkdir -p "$out"
work=$(mktemp -d)
trap 'rm -f "$dump_log"; rm -rf "$work"' EXIT
: >"$out/docc.log"
links=""
for module in $modules; do
    [[ -f "$graphs/$module.symbols.json" ]] || { echo "error: no symbol graph for $module in $graphs" >&2; exit 1; }
    rm -rf "$work/graphs"
    mkdir -p "$work/graphs"
    # The module's own graph and its extensions of other modules' types (Module@Other.symbols.json).
    cp "$graphs/$module.symbols.json" "$work/graphs/"
    find "$graphs" -maxdepth 1 -name "$module@*.symbols.json" -exec cp {} "$work/graphs/" \;
    echo "docc convert $module" >&2
    if ! "$docc" convert --additional-symbol-graph-dir "$work/graphs" --output-path "$out/$module" \
            --fallback-display-name "$module" --fallback-bundle-identifier "bookrule.$module" \
            --transform-for-static-hosting --hosting-base-path "$module" >>"$out/docc.log" 2>&1; then
        tail -n 20 "$out/docc.log" >&2
        echo "error: docc could not convert $module (all of its output: $out/docc.log)" >&2
        exit 1
    fi
    lower=$(echo "$module" | tr '[:upper:]' '[:lower:]')
    links+="    <li><a href=\"$module/documentation/$lower/\">$module</a></li>"$'\n'
done

cat >"$out/index.html" <<EOF
<!DOCTYPE html>
<html lang="en">
<head><meta charset="utf-8"><title>BookRule API documentation</title></head>
<body>
  <h1>BookRule API documentation</h1>
  <p>The public API of the layers the <code>BookRule</code> product re-exports (<code>import BookRule</code>),
  as Package.swift lists them (the map: docs/architecture.md). Built by <code>make docs</code> with the
  Swift toolchain's docc.</p>
  <ul>
$links  </ul>
</body>
</html>
EOF
warnings=$(grep -c "warning:" "$out/docc.log" || true)
echo "API documentation: $out/index.html ($(echo "$modules" | wc -w) modules; $warnings docc warnings in $out/docc.log)"
echo "view it through a web server: python3 -m http.server -d $out 8000, then http://127.0.0.1:8000/"
