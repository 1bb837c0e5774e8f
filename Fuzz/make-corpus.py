#!/usr/bin/env python3
"""Writes the seed corpora Fuzz/Corpus/<target>/ from the shared Legado corpus, the saved real pages, Fixtures/ and
Sources-json/, deterministically and bounded (about 2 MB in all), so seeds are regenerated rather than kept by hand.

    Fuzz/make-corpus.py [--shared /work/shared/corpus]

Each file is one input in the layout the target's entry point reads (Sources/FuzzEntryPoints/FuzzTarget.swift):
selector bytes first where the target takes them. Missing inputs (no shared corpus) just give fewer seeds.
"""
import argparse, hashlib, json, os, random, re, shutil, sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
OUT = os.path.join(ROOT, "Fuzz", "Corpus")
# Per-target caps: how many seeds, and how large each may be (larger inputs are cut; the fuzzer's -max_len is
# the same or smaller, so nothing above it would be read anyway).
CAPS = {"json": (80, 16384), "source": (80, 16384), "rule": (600, 2048), "css": (400, 1024),
        "jsonpath": (200, 2048), "url": (300, 1024), "html": (40, 32768), "har": (6, 65536),
        "headers": (80, 512), "script": (300, 4096),
        "fixture": (40, 16384), "studio": (120, 8192), "font": (12, 65536),
        "webdav": (40, 16384), "rss": (20, 16384)}
RULE_FIELDS = ("ruleSearch", "ruleExplore", "ruleBookInfo", "ruleToc", "ruleContent")
LIST_KEYS = ("bookList", "chapterList")


def load_sources(shared):
    sources = []
    folder = os.path.join(shared, "legado")
    for name in sorted(os.listdir(folder)) if os.path.isdir(folder) else []:
        if not name.endswith(".json"):
            continue
        try:
            data = json.load(open(os.path.join(folder, name), encoding="utf-8", errors="replace"))
        except ValueError:
            continue
        sources += [s for s in (data if isinstance(data, list) else [data]) if isinstance(s, dict)]
    local = os.path.join(ROOT, "Sources-json")
    for dirpath, _, names in os.walk(local):
        for name in sorted(names):
            if name.endswith(".json"):
                try:
                    data = json.load(open(os.path.join(dirpath, name), encoding="utf-8"))
                except ValueError:
                    continue
                sources += [s for s in (data if isinstance(data, list) else [data]) if isinstance(s, dict)]
    return sources


def rules_of(source):
    """(key, rule text) for every rule field of a source."""
    for field in RULE_FIELDS:
        section = source.get(field)
        if isinstance(section, str):
            try:
                section = json.loads(section)
            except ValueError:
                continue
        if isinstance(section, dict):
            for key, value in section.items():
                if isinstance(value, str) and value.strip():
                    yield key, value


def scripts_of(text):
    pieces = re.findall(r"<js>(.*?)</js>", text, re.S) + re.findall(r"\{\{(.*?)\}\}", text, re.S)
    if "@js:" in text:
        pieces.append(text.split("@js:", 1)[1])
    return [p for p in pieces if p.strip()]


def fixture_seeds(hars, pages):
    """Fixture directories (FuzzTarget+Fixture.swift): pages.json, site.har and saved files, NUL-separated. The
    indexes name the files written, the planted links out and the FIFO, and paths that climb out."""
    names = ["f0.html", "f1.html", "sub/f3.html", "out.html", "abs.html", "fifo.html", "up/outside/secret.txt",
             "../outside/secret.txt", "/etc/passwd", "/dev/zero", "sub", "pages.json", "site.har", "sub/../f0.html",
             "./f2.html", "up/fixture/f0.html", "missing.html", ""]
    bodies = [open(path, "rb").read()[:3000] for path in pages] or [b"<p>page</p>"]
    har = min(hars, key=len)[:4000] if hars else b'{"log": {"entries": []}}'
    seeds = []
    for index, name in enumerate(names):
        index_json = {"https://x.test/book/1/": "f0.html", "https://x.test/page/%d" % index: name}
        if index % 3 == 1:
            index_json["https://x.test/search"] = [{"file": name, "method": "POST", "body": "q=1",
                                                   "contentType": "text/html; charset=gbk", "status": 200}]
        parts = [json.dumps(index_json).encode(), har if index % 4 == 0 else b""]
        parts += [bodies[(index + k) % len(bodies)] for k in range(4)]
        seeds.append(b"\0".join(parts))
    return seeds


# Mutation-XSS shapes for the studio's page writer (Tests/BookRuleStudioTests/SanitizedPageTests.swift has more).
MXSS = [b"<svg><style><img src=x onerror=alert(1)></style></svg>", b"<math><mtext><table><mglyph><style><img src=x>",
        b"<noscript><p title=\"</noscript><img src=x onerror=alert(1)>\">", b"<textarea><b>x</b></textarea>",
        b"<!--><img src=x>-->", b"<a title=\"</a><img src=x>\">l</a>", b"<template><img src=x></template>",
        b"<p>long<wbr>word</p><embed src=x>after", b"<form><form action=javascript:x><input formaction=x></form>",
        b"<select><style></select><img src=x></style>", b"<xmp><img src=x></xmp><plaintext><b>"]


def studio_seeds(pages):
    """Requests (selector 1) for every route, with and without the gate's token and Host, and pages (selector 0)."""
    host = b"Host: 127.0.0.1:8790\n"
    token = b"X-Studio-Token: fuzz-token\n"
    source = json.dumps({"bookSourceUrl": "https://www.example.com", "ruleToc": {
        "chapterList": "//ul[@class='list']/li", "chapterName": "a@text", "chapterUrl": "a@href"}})
    evaluate = json.dumps({"source": source, "step": "toc", "field": "chapterName"}).encode()
    requests = [b"GET /?token=fuzz-token\n" + host, b"GET /api/state\n" + host + token,
                b"GET /api/state\n" + host + b"Cookie: bookrule_studio=fuzz-token; a=b\n",
                b"GET /api/state\nHost: evil.example\n" + token, b"GET /api/state\n" + host + host + token,
                b"GET /api/state\n" + host + token + b"Origin: http://evil.example\n",
                b"POST /api/page\n" + host + token + b"\n" + json.dumps(
                    {"step": "toc", "file": "toc.html", "url": "https://www.example.com/book/1/"}).encode(),
                b"POST /api/page\n" + host + token + b"\n" + b'{"step": "toc", "file": "../../etc/passwd", "url": "https://x/"}',
                b"POST /api/evaluate\n" + host + token + b"\n" + evaluate,
                b"GET /api/evaluate\n" + host + token, b"GET /frame/toc\n" + host + token,
                b"GET /api/propose?step=toc&node=12\n" + host + token, b"GET /assets/frame.css\n" + host + token,
                b"GET /codemirror/../../etc/passwd\n" + host + token,
                b"POST /api/save\n" + host + token + b"\n" + json.dumps({"source": source}).encode(),
                b"POST /api/step\n" + host + token + b"\n" + json.dumps(
                    {"step": "toc", "source": source, "url": "https://www.example.com/book/1/"}).encode()]
    seeds = [bytes([1]) + request for request in requests]
    seeds += [bytes([0]) + b"<html><body>" + shape + b"</body></html>" for shape in MXSS]
    seeds += [bytes([0]) + open(path, "rb").read() for path in pages[:8]]
    return seeds


def rss_seeds():
    """Feeds of every kind bookrule reads (RSS 0.91, 1.0, 2.0, Atom), broken and hostile ones, and source files
    mixing both kinds of source."""
    item = ("<item><title>标题 &amp; more</title><link>/a/1</link><pubDate>Mon, 07 Dec 2026 08:00:00 +0800</pubDate>"
            "<description><![CDATA[<p>摘要<img src=\"/i.jpg\"></p>]]></description>"
            "<enclosure url=\"/e.jpg\" type=\"image/jpeg\"/><media:thumbnail url=\"/t.jpg\"/></item>")
    laughs = "".join('<!ENTITY l%d "%s">' % (n, ("&l%d;" % (n - 1)) * 10) for n in range(1, 6))
    feeds = [
        '<?xml version="1.0"?><rss version="2.0" xmlns:media="http://search.yahoo.com/mrss/"><channel><title>c</title>'
        + item * 3 + "</channel></rss>",
        '<rss version="0.91"><channel><item><title>old</title><link>http://x.test/</link></item></channel></rss>',
        '<rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#" xmlns="http://purl.org/rss/1.0/" '
        'xmlns:dc="http://purl.org/dc/elements/1.1/"><item rdf:about="x"><title>r</title><link>x</link>'
        "<dc:date>2026-12-01</dc:date></item></rdf:RDF>",
        '<feed xmlns="http://www.w3.org/2005/Atom"><entry><title type="html">a</title><link rel="alternate" href="/1"/>'
        '<published>2026-12-01T00:00:00Z</published><content type="xhtml"><div xmlns="http://www.w3.org/1999/xhtml">'
        '<p>b<img src="/c.png"/></p></div></content></entry></feed>',
        "<RSS><CHANNEL><ITEM><TITLE>a & b</TITLE><LINK>/x?a=1&b=2;c</LINK><description>&lt;p&gt;x&nbsp;y</description>",
        '<?xml version="1.0"?><!DOCTYPE rss [<!ENTITY l0 "lol">' + laughs
        + '<!ENTITY f SYSTEM "file:///etc/passwd">]><rss><item><title>&l5;&f;</title></item></rss>',
        "<html><body><p>not a feed</p></body></html>",
        '[{"bookSourceUrl": "https://b.test/", "bookSourceName": "b"}, {"sourceUrl": "https://r.test/", '
        '"sourceName": "r", "sortUrl": "a::/1&&b::{{page}}\\nc::", "ruleArticles": "-//li", "ruleNextPage": "PAGE", '
        '"enabled": "true", "articleStyle": "2"}]',
    ]
    return [feed.encode() for feed in feeds]


def font_seeds():
    """Small web fonts made by scripts/make-test-font.py (Debian's Python with fontTools) in every format and
    scheme, and a few damaged ones; none when fontTools or the faces are missing."""
    maker = os.path.join(ROOT, "scripts", "make-test-font.py")
    faces = ["/usr/share/fonts/truetype/wqy/wqy-zenhei.ttc", "/usr/share/fonts/truetype/arphic/uming.ttc"]
    out = []
    import subprocess, tempfile
    with tempfile.TemporaryDirectory() as folder:
        for number, (face, scheme, form) in enumerate([(faces[0], "pua", "woff2"), (faces[0], "shuffle", "ttf"),
                                                      (faces[1], "identity", "woff"), (faces[1], "pua", "ttf")]):
            font, answers = os.path.join(folder, f"f.{form}"), os.path.join(folder, "map.json")
            done = subprocess.run(["/usr/bin/python3", maker, "--source", face, "--chars", "的一了是，。AB1",
                                   "--scheme", scheme, "--format", form, "--seed", str(number),
                                   "--out", font, "--map", answers], capture_output=True)
            if done.returncode == 0:
                data = open(font, "rb").read()
                out += [data, data[: len(data) // 2], data[:12] + bytes(len(data) - 12)]
    return out + [b"wOF2" + bytes(64), b"\x00\x01\x00\x00" + bytes(200), b"OTTO"]


def webdav_seeds():
    """Legado backup zips (byte 0 even) as the app writes them, odd ones (paths, folders, a truncated zip), and
    PROPFIND answers and progress files (byte 0 odd) as servers and the app write them."""
    import io, zipfile

    def zipped(files):
        buffer = io.BytesIO()
        with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
            for name, data in files:
                archive.writestr(name, data)
        return buffer.getvalue()

    shelf = ('[{"bookUrl":"https://s.test/b/1/","tocUrl":"https://s.test/b/1/","origin":"https://s.test",'
             '"originName":"站","name":"书","author":"某","durChapterIndex":2,"durChapterPos":5,'
             '"durChapterTime":1700000000000,"durChapterTitle":"三","variable":"{\\"k\\":\\"v\\"}","canUpdate":true}]')
    source = '[{"bookSourceUrl":"https://s.test","bookSourceName":"站","ruleContent":{"content":"//p"}}]'
    rule = '[{"id":1,"name":"r","pattern":"广告","replacement":"","isRegex":false}]'
    backups = [
        zipped([("bookshelf.json", shelf), ("bookSource.json", source), ("replaceRule.json", rule),
                ("bookmark.json", "[]"), ("readRecord.json", "[]"), ("config.xml", "<map/>")]),
        zipped([("backup/bookshelf.json", shelf), ("../bookSource.json", source), ("dir/", "")]),
        zipped([("bookshelf.json", "{}"), ("replaceRule.json", "[{\"pattern\":\"(\"}]")]),
        zipped([("bookSource.json", "[" * 300)]),
    ]
    seeds = [bytes([0]) + data for data in backups] + [bytes([2]) + backups[0][:200]]
    answers = [
        b'<?xml version="1.0"?><D:multistatus xmlns:D="DAV:"><D:response><D:href>/dav/legado/</D:href><D:propstat>'
        b'<D:prop><D:resourcetype><D:collection/></D:resourcetype></D:prop><D:status>HTTP/1.1 200 OK</D:status>'
        b'</D:propstat></D:response><D:response><D:href>/dav/legado/backup2026-01-01.zip</D:href><D:propstat><D:prop>'
        b'<D:getcontentlength>10</D:getcontentlength><D:getlastmodified>Thu, 01 Jan 2026 00:00:00 GMT'
        b'</D:getlastmodified></D:prop><D:status>HTTP/1.1 200 OK</D:status></D:propstat></D:response></D:multistatus>',
        b'<multistatus xmlns="DAV:"><response><href>a%20b.json</href></response></multistatus>',
        b'<!DOCTYPE x [<!ENTITY a "aaaa"><!ENTITY b "&a;&a;&a;">]><x>&b;</x>',
        '{"name":"书","author":"某","durChapterIndex":3,"durChapterPos":0,"durChapterTime":1,"durChapterTitle":"四"}'.encode(),
    ]
    return seeds + [bytes([1]) + data for data in answers]


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--shared", default="/work/shared/corpus")
    args = parser.parse_args()
    rng = random.Random(16)
    seeds = {target: [] for target in CAPS}

    sources = load_sources(args.shared)
    rng.shuffle(sources)
    for source in sources[:CAPS["source"][0]]:
        blob = json.dumps([source], ensure_ascii=False).encode()
        seeds["source"].append(blob)
    for source in sources[:CAPS["json"][0] // 2]:
        seeds["json"].append(json.dumps(source, ensure_ascii=False, indent=1).encode())

    rules, scripts, templates = [], [], []
    for source in sources:
        for key, rule in rules_of(source):
            rules.append((key, rule))
            scripts += scripts_of(rule)
        url = source.get("searchUrl")
        if isinstance(url, str) and url.strip():
            templates.append(url)
            scripts += scripts_of(url)
        if isinstance(source.get("jsLib"), str):
            scripts.append(source["jsLib"])
    rules = sorted(set(rules))
    rng.shuffle(rules)
    for key, rule in rules:
        kind = 1 if key in LIST_KEYS else 0
        text = rule.strip()
        context = 2 if text.startswith("$") or text.startswith("@json:") else 0
        seeds["rule"].append(bytes([context * 3 + kind]) + rule.encode())
        if text.lower().startswith("@css:"):
            seeds["css"].append(bytes([0]) + text[5:].split("##")[0].encode())
        elif not re.match(r"^(\$|/|@json|@xpath|@js|<js>|:|\{\{)", text, re.I):
            seeds["css"].append(bytes([1 if kind else 2]) + text.split("##")[0].split("&&")[0].encode())
        elif text.startswith("$"):
            seeds["jsonpath"].append(text.split("##")[0].split("&&")[0].encode() + b"\n")
    for template in sorted(set(templates)):
        seeds["url"].append(bytes([0]) + template.encode() + b"\nhttps://www.example.com/")
    seeds["script"] += [bytes([i % 4]) + s.encode() for i, s in enumerate(sorted(set(scripts)))]

    pages = []
    folder = os.path.join(args.shared, "pages")
    for dirpath, _, names in os.walk(folder):
        for name in sorted(names):
            if name.endswith((".html", ".htm")):
                pages.append(os.path.join(dirpath, name))
    pages.sort()
    for index, path in enumerate(pages[:CAPS["html"][0] - 4]):
        body = open(path, "rb").read()
        seeds["html"].append(bytes([index % 12, index % 8]) + body)
        for href in sorted(set(re.findall(rb'href="([^"]{1,200})"', body)))[:6]:
            seeds["url"].append(bytes([1]) + href + b"\nhttps://www.example.com/book/1/index.html")

    for dirpath, _, names in os.walk(os.path.join(ROOT, "Fixtures")):
        for name in sorted(names):
            path = os.path.join(dirpath, name)
            data = open(path, "rb").read()
            if name.endswith(".har"):
                seeds["har"].append(data)
                seeds["json"].append(data)
                try:
                    for entry in json.loads(data)["log"]["entries"][:3]:
                        text = entry["response"]["content"].get("text", "")
                        seeds["html"].append(bytes([0, 1]) + text.encode())
                        for header in entry["response"]["headers"]:
                            if header["name"].lower() == "set-cookie":
                                seeds["headers"].append(bytes([2]) + header["value"].encode())
                except (KeyError, ValueError, TypeError):
                    pass
            elif name.endswith(".json"):
                seeds["json"].append(data)

    seeds["jsonpath"] += [b"$.data.list[*].name\n", b"$..url\n", b"$.data.list[?(@.n > 1)].author\n",
                          b"$['data']['list'][-1:]\n", b'$.a[*]\n{"a":[1,2,{"b":3}]}']
    seeds["headers"] += [bytes([0]) + v for v in (b"120", b"Wed, 21 Oct 2015 07:28:00 GMT", b"-1", b"1e9", b"")]
    seeds["headers"] += [bytes([1]) + v for v in (b"bytes 0-99/200", b"bytes */200", b"bytes 5-4/10", b"bytes 0-0/*")]
    seeds["headers"] += [bytes([2]) + v for v in (b"sid=1; Path=/; Domain=example.com; Max-Age=60",
                                                    b"a=b; Expires=Wed, 21 Oct 2015 07:28:00 GMT; Secure; HttpOnly",
                                                    b"x=1; Domain=com\ny=2; Path=/book")]
    seeds["json"] += [b'{"a":[1,2.5e10,-0,true,null,"\\u4e2d\\ud83d\\ude00"]}', b"[[[[]]]]", b"{'lenient': 1,}"]
    seeds["script"] += [bytes([0]) + c for c in (b"result + 1", b"java.ajax('http://x')", b"JSON.stringify({a:baseUrl})",
                                                 b"java.md5Encode('a')", b"while(true){}")]

    seeds["fixture"] += fixture_seeds(seeds["har"], pages[:8])
    seeds["studio"] += studio_seeds(pages)
    seeds["font"] = font_seeds()
    seeds["webdav"] = webdav_seeds()
    seeds["rss"] = rss_seeds()

    shutil.rmtree(OUT, ignore_errors=True)
    total = 0
    for target, items in seeds.items():
        count, size = CAPS[target]
        os.makedirs(os.path.join(OUT, target))
        unique = {}
        for item in items:
            cut = item[:size]
            unique.setdefault(hashlib.sha1(cut).hexdigest(), cut)
        for digest, item in sorted(unique.items())[:count]:
            open(os.path.join(OUT, target, digest[:16]), "wb").write(item)
            total += len(item)
        print(f"{target}: {min(len(unique), count)} seeds", file=sys.stderr)
    print(f"total {total // 1024} KiB in {OUT}", file=sys.stderr)


if __name__ == "__main__":
    main()
