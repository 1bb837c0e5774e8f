#!/usr/bin/env python3
"""Differential check of bookrule's JavaScript (JavaScriptCore) against Rhino, Legado's engine.

Takes the pure-JavaScript snippets of real community sources (those that touch nothing but `result`: string and
regex work, template literals, JSON), runs each on two given inputs in Rhino, records Rhino's answers in
Tests/BookRuleScriptTests/RhinoDifferential.json, then runs the same cases through bookrule's runtime (the
RhinoDifferentialTests test, which also asserts the answers agree) and writes the comparison to
docs/compatibility.md (section "JavaScript: Rhino differential").

    scripts/rhino-differential.py [--corpus ../shared/corpus/legado] [--limit 120]

Needs Debian's `rhino` (apt-get install rhino) and a built test bundle (swift build --build-tests).
"""
import argparse
import hashlib
import json
import os
import re
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
FIXTURE = os.path.join(ROOT, "Tests/BookRuleScriptTests/RhinoDifferential.json")
DOC = os.path.join(ROOT, "docs/compatibility.md")
SECTION = "## JavaScript: Rhino differential"

# The inputs every snippet runs on: page-like text and a JSON answer, as `result`.
INPUTS = [
    "  第12章 重逢（1/3）\n作者：某人&nbsp;&nbsp;http://www.example.com/book/123_456.html?id=5&page=2\n"
    "<br>更新时间：2023-01-02 12:30 <p>正文内容，第一段。</p><p>第二段 &amp; more</p>  最新章节：第99章 终章 ",
    '{"code":0,"msg":"ok","data":{"list":[{"name":"斗破苍穹","id":1,"author":"天蚕土豆","url":"/b/1"},'
    '{"name":"Book Two","id":22,"author":"A","url":"/b/22"}],"total":2,"page":1}}',
]

# Names whose presence makes a snippet impure (it reaches bookrule's helpers or state).
IMPURE = re.compile(r"(?<![\w$.])(java|source|cookie|cache|book|chapter|baseUrl|src|key|page|title|nextChapterUrl|"
                    r"org|Packages|JavaImporter|importClass|importPackage|eval|Date|random|setTimeout|this|"
                    r"while|for|function\s*\*)(?![\w$])")

DRIVER = r"""
function __describe(v) {
    if (v === undefined) return 'undefined';
    if (v === null) return 'null';
    var t = typeof v;
    if (t === 'string') return 'string:' + v;
    if (t === 'number') return 'number:' + String(v);
    if (t === 'boolean') return 'boolean:' + v;
    if (t === 'function') return 'function';
    if (Array.isArray(v)) { try { return 'array:' + JSON.stringify(v); } catch (e) { return 'array'; } }
    try { return 'object:' + JSON.stringify(v); } catch (e) { return 'object'; }
}
function __run(code, input) {
    result = input;
    try { return __describe((function () { return eval(code); })()); }
    catch (e) { return 'error:' + (e && e.name || 'Error'); }
}
"""


def snippets(corpus):
    seen = {}
    for name in sorted(os.listdir(corpus)):
        if not name.endswith(".json"):
            continue
        with open(os.path.join(corpus, name), encoding="utf-8") as handle:
            try:
                sources = json.load(handle)
            except ValueError:
                continue
        if isinstance(sources, dict):
            sources = [sources]
        for source in sources:
            if not isinstance(source, dict):
                continue
            for group, rules in source.items():
                if not group.startswith("rule") or not isinstance(rules, dict):
                    continue
                for field, rule in rules.items():
                    if not isinstance(rule, str):
                        continue
                    bodies = re.findall(r"<js>(.*?)</js>", rule, re.S | re.I)
                    at = re.search(r"@js:(.*)$", rule, re.S | re.I)
                    if at:
                        bodies.append(at.group(1))
                    for body in bodies:
                        code = body.strip()
                        if not code or len(code) > 400 or "result" not in code or IMPURE.search(code):
                            continue
                        seen.setdefault(code, "%s.%s" % (group, field))
    return seen


def run_rhino(cases):
    with tempfile.TemporaryDirectory() as directory:
        data = os.path.join(directory, "cases.json")
        with open(data, "w", encoding="utf-8") as handle:
            json.dump([[c["code"], c["input"]] for c in cases], handle, ensure_ascii=False)
        script = os.path.join(directory, "run.js")
        with open(script, "w", encoding="utf-8") as handle:
            handle.write(DRIVER + """
var __cases = JSON.parse(readFile(%s, 'UTF-8'));
var __out = [];
for (var __i = 0; __i < __cases.length; __i++) __out.push(__run(__cases[__i][0], __cases[__i][1]));
print(JSON.stringify(__out));
""" % json.dumps(data))
        answer = subprocess.run(["rhino", "-version", "200", "-encoding", "UTF-8", script], capture_output=True,
                                text=True, timeout=300, check=True)
        return json.loads(answer.stdout.strip().splitlines()[-1])


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--corpus", default=os.path.join(ROOT, "../shared/corpus/legado"))
    parser.add_argument("--limit", type=int, default=120)
    arguments = parser.parse_args()
    found = snippets(arguments.corpus)
    # A stable sample: ordered by the hash of the code.
    chosen = sorted(found, key=lambda code: hashlib.sha1(code.encode()).hexdigest())[:arguments.limit]
    cases = []
    for code in chosen:
        for index, value in enumerate(INPUTS):
            cases.append({"id": "%s-%d" % (hashlib.sha1(code.encode()).hexdigest()[:8], index), "field": found[code],
                          "code": code, "input": value})
    for case, answer in zip(cases, run_rhino(cases)):
        case["rhino"] = answer
    version = subprocess.run(["dpkg-query", "-W", "-f=${Version}", "rhino"], capture_output=True, text=True).stdout
    with open(FIXTURE, "w", encoding="utf-8") as handle:
        json.dump({"rhino": version, "driver": DRIVER, "pure_snippets_in_corpus": len(found), "cases": cases},
                  handle, ensure_ascii=False, indent=1)
        handle.write("\n")
    print("%d pure snippets in the corpus, %d sampled, %d cases" % (len(found), len(chosen), len(cases)))

    with tempfile.TemporaryDirectory() as directory:
        ours = os.path.join(directory, "ours.json")
        environment = dict(os.environ, BOOKRULE_DIFFERENTIAL_OUT=ours)
        subprocess.run(["swift", "test", "--skip-build", "--filter", "RhinoDifferentialTests"], cwd=ROOT,
                       env=environment, capture_output=True, text=True)
        with open(ours, encoding="utf-8") as handle:
            jsc = json.load(handle)
    write_doc(cases, jsc, version, len(found))


def write_doc(cases, jsc, version, pure):
    def cell(text):
        text = text.replace("|", "\\|").replace("\n", "\\n")
        return "`%s`" % (text[:70] + ("…" if len(text) > 70 else "")) if text else ""
    same = [c for c in cases if jsc[c["id"]]["value"] == c["rhino"]]
    lines = [SECTION, "",
             "`scripts/rhino-differential.py` takes the pure-JavaScript snippets of the shared corpus (%d distinct "
             "`@js:`/`<js>` bodies that read nothing but `result`: string and regex work, template literals, JSON), "
             "runs a stable sample of them on two inputs (chapter-page text and a JSON answer) in Rhino %s "
             "(`rhino -version 200`, Legado's engine) and in bookrule's runtime, and compares the completion values "
             "(type and value). The cases and Rhino's answers are in `Tests/BookRuleScriptTests/RhinoDifferential.json`; "
             "`RhinoDifferentialTests` fails if a case differs that is not listed as a known difference."
             % (pure, version), "",
             "Result: **%d of %d cases agree**." % (len(same), len(cases)), "",
             "Known differences between the engines that the sample avoids (snippets with loops are left out of it): "
             "Rhino scopes `const`/`let` to the function, so closures made in a loop keep the first iteration's value "
             "(`for (var i…) { const c = i; fs.push(() => c) }` gives 0,0,0 in Rhino 1.7.14 — Legado's docs tell "
             "source authors to use `var` in loops — and 0,1,2 in JavaScriptCore); error messages differ "
             "(`ReferenceError: Can't find variable: x` here), so only the error's type is compared; Rhino exposes "
             "Java methods on strings returned by Java helpers (`.equals`, `.length()`), of which bookrule adds "
             "`equals`, `contains`, `isEmpty`, `matches` and `getBytes` to every string.", ""]
    differing = [c for c in cases if c not in same]
    if differing:
        lines += ["Differences (each explained in the test's `knownDifferences`):", "",
                  "| case | field | snippet | Rhino | bookrule | why |", "|---|---|---|---|---|---|"]
        for c in differing:
            lines.append("| %s | %s | %s | %s | %s | %s |" % (c["id"], c["field"], cell(c["code"]), cell(c["rhino"]),
                                                             cell(jsc[c["id"]]["value"]), jsc[c["id"]].get("why", "")))
        lines.append("")
    lines += ["All cases:", "", "| case | field | snippet | answer (both engines unless marked) |", "|---|---|---|---|"]
    for c in cases:
        ours = jsc[c["id"]]["value"]
        answer = cell(c["rhino"]) if ours == c["rhino"] else "Rhino %s, bookrule %s" % (cell(c["rhino"]), cell(ours))
        lines.append("| %s | %s | %s | %s |" % (c["id"], c["field"], cell(c["code"]), answer))
    lines.append("")
    text = open(DOC, encoding="utf-8").read() if os.path.exists(DOC) else "# Compatibility\n"
    if SECTION in text:
        start = text.index(SECTION)
        end = text.find("\n## ", start + len(SECTION))
        text = text[:start] + "\n".join(lines) + (text[end + 1:] if end >= 0 else "")
    else:
        text = text.rstrip("\n") + "\n\n" + "\n".join(lines)
    with open(DOC, "w", encoding="utf-8") as handle:
        handle.write(text)
    print("%d of %d cases agree; docs/compatibility.md updated" % (len(same), len(cases)))


if __name__ == "__main__":
    sys.exit(main())
