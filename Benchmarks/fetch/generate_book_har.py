#!/usr/bin/env python3
"""Writes a HAR recording of a generated N-chapter book and a source for it, for the offline fetch benchmark.

    generate_book_har.py OUTDIR CHAPTERS

OUTDIR/book-N.har holds the book page (which is also its TOC, listing N chapters) and one page per chapter of
about 3 KB of text; OUTDIR/source.json reads it. Deterministic; stdlib only.
"""
import json
import random
import sys

BASE = "http://bench.test"
WORDS = ["星河", "旅人", "山海", "长夜", "灯火", "青石", "归途", "远方", "少年", "古城", "风雪", "剑鸣"]


def entry(url, html):
    return {
        "startedDateTime": "2026-01-01T00:00:00.000Z", "time": 1,
        "request": {"method": "GET", "url": url, "httpVersion": "HTTP/1.1", "headers": [], "queryString": [],
                    "cookies": [], "headersSize": -1, "bodySize": 0},
        "response": {"status": 200, "statusText": "OK", "httpVersion": "HTTP/1.1",
                     "headers": [{"name": "Content-Type", "value": "text/html; charset=utf-8"}], "cookies": [],
                     "content": {"size": len(html.encode()), "mimeType": "text/html; charset=utf-8", "text": html},
                     "redirectURL": "", "headersSize": -1, "bodySize": len(html.encode())},
        "cache": {}, "timings": {"send": 0, "wait": 1, "receive": 0},
    }


def main():
    out, count = sys.argv[1], int(sys.argv[2])
    rng = random.Random(count)
    items = "".join(f'<dd><a href="/book/1/{n}.html">第{n}章 {rng.choice(WORDS)}{rng.choice(WORDS)}</a></dd>'
                    for n in range(1, count + 1))
    entries = [entry(f"{BASE}/book/1/", f"<html><body><h1>基准之书</h1><dl id='list'>{items}</dl></body></html>")]
    for n in range(1, count + 1):
        paragraphs = "<br><br>".join("　　" + "".join(rng.choice(WORDS) for _ in range(40)) + "。" for _ in range(12))
        entries.append(entry(f"{BASE}/book/1/{n}.html", f"<html><body><h1>第{n}章</h1><div id='content'>{paragraphs}</div></body></html>"))
    with open(f"{out}/book-{count}.har", "w", encoding="utf-8") as f:
        json.dump({"log": {"version": "1.2", "creator": {"name": "generate_book_har.py", "version": "1"},
                           "entries": entries}}, f, ensure_ascii=False)
    source = {"bookSourceUrl": BASE, "bookSourceName": "benchmark book",
              "ruleBookInfo": {"name": "//h1/text()"},
              "ruleToc": {"chapterList": "//dl[@id='list']/dd/a", "chapterName": "/text()", "chapterUrl": "/@href"},
              "ruleContent": {"content": "//div[@id='content']"}}
    with open(f"{out}/source.json", "w", encoding="utf-8") as f:
        json.dump(source, f, ensure_ascii=False)


if __name__ == "__main__":
    main()
