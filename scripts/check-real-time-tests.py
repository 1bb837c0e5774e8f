#!/usr/bin/env python3
"""Checks that every test whose verdict depends on wall-clock time says so (docs/developing/testing.md).

    scripts/check-real-time-tests.py          # lists the tests that measure elapsed time without the tag; exit 1
    scripts/check-real-time-tests.py --fix    # adds `.tags(.realTime)` to them

A test measures elapsed time when its body subtracts instants (`clock.now - started`), reads `.elapsed`, or
bounds a duration with `TestTime.bound`. Such a test carries the `realTime` tag (TestSupport), so the real-time
checks that remain are one named set, seen in every report: everything else runs on clocks the tests set
(`VirtualFetchClock`, `UpgradedConnection`'s explicit instants) or waits for events. Offline, a second.
"""

import pathlib
import re
import sys

ROOT = pathlib.Path(__file__).resolve().parent.parent
MEASURES = re.compile(r"\bnow\s*-\s*\w|\w\s*-\s*started\b|\.elapsed\b|TestTime\.bound\(")
TEST = re.compile(r"@Test\b")


def matching(text, start, opening, closing):
    """The index just past the bracket that closes the one at `start`."""
    depth = 0
    index = start
    in_string = False
    while index < len(text):
        char = text[index]
        if char == '"' and text[index - 1] != "\\":
            in_string = not in_string
        elif not in_string:
            if char == opening:
                depth += 1
            elif char == closing:
                depth -= 1
                if depth == 0:
                    return index + 1
        index += 1
    return len(text)


def tests(text):
    """(attribute start, attribute end, body) of each @Test in `text`."""
    for match in TEST.finditer(text):
        start = match.start()
        end = match.end()
        if end < len(text) and text[end] == "(":
            end = matching(text, end, "(", ")")
        func = text.find("func ", end)
        brace = text.find("{", func)
        if func < 0 or brace < 0:
            continue
        body = text[brace:matching(text, brace, "{", "}")]
        yield start, end, body


def main():
    fix = "--fix" in sys.argv[1:]
    missing = []
    for path in sorted((ROOT / "Tests").rglob("*.swift")):
        if "TestSupport" in path.parts:
            continue
        text = path.read_text(encoding="utf-8")
        edits = []
        for start, end, body in tests(text):
            attribute = text[start:end]
            if not MEASURES.search(body) or ".realTime" in attribute:
                continue
            line = text.count("\n", 0, start) + 1
            missing.append(f"{path.relative_to(ROOT)}:{line}: {attribute.splitlines()[0]}")
            if "(" in attribute:
                if ".tags(" in attribute:
                    edits.append((start + attribute.index(".tags(") + len(".tags("), ".realTime, "))
                elif "arguments:" in attribute:
                    # Traits come before the arguments.
                    edits.append((start + attribute.index("arguments:"), ".tags(.realTime), "))
                elif attribute.endswith("()"):
                    edits.append((end - 1, ".tags(.realTime)"))
                else:
                    edits.append((end - 1, ", .tags(.realTime)"))
            else:
                edits.append((end, "(.tags(.realTime))"))
        if fix and edits:
            for index, insertion in sorted(edits, reverse=True):
                text = text[:index] + insertion + text[index:]
            if "import TestSupport" not in text:
                text = re.sub(r"^(import Testing\n)", r"\1import TestSupport\n", text, count=1, flags=re.M)
            path.write_text(text, encoding="utf-8")
    if missing and not fix:
        print("tests that measure elapsed time without .tags(.realTime) (scripts/check-real-time-tests.py --fix):")
        print("\n".join("  " + entry for entry in missing))
        return 1
    if fix:
        print(f"tagged {len(missing)} test(s)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
