#!/usr/bin/env python3
"""Writes N book sources on N hosts and a HAR recording of each host's answer to one search, for the
many-sources search benchmark.

    generate_search_har.py OUTDIR N

OUTDIR/sources/sNNN.json: source NNN on http://sNNN.bench.test (XPath rules). OUTDIR/search.har: each host's
answer to /search?q=镜中: a third list the book (with a varied name suffix such as （精校版）, so grouping works),
a third list 20 other books, a third nothing. Deterministic; stdlib only.
"""
import json
import os
import sys
import urllib.parse

KEY = "镜中"
BOOK = "镜中之书"
AUTHOR = "佚名"
NOTES = ["", "（精校版）", "【完结】", "[全本]"]


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


def item(name, author, href, last):
    return (f"<div class='book'><a class='name' href='{href}'>{name}</a><span class='author'>{author}</span>"
            f"<span class='last'>{last}</span></div>")


def main():
    out, count = sys.argv[1], int(sys.argv[2])
    os.makedirs(f"{out}/sources", exist_ok=True)
    for name in os.listdir(f"{out}/sources"):
        os.remove(f"{out}/sources/{name}")
    entries = []
    for n in range(1, count + 1):
        base = f"http://s{n:03d}.bench.test"
        if n % 3 == 1:
            items = item(BOOK + NOTES[n % len(NOTES)], AUTHOR, "/book/1/", f"第{1000 + n}章 终")
        elif n % 3 == 2:
            items = "".join(item(f"{KEY}别传{k}", f"作者{k}", f"/book/{k}/", f"第{k}章") for k in range(2, 22))
        else:
            items = ""
        url = f"{base}/search?q={urllib.parse.quote(KEY)}"
        entries.append(entry(url, f"<html><body><div id='results'>{items}</div></body></html>"))
        source = {"bookSourceUrl": base, "bookSourceName": f"source {n:03d}", "searchUrl": "/search?q={{key}}",
                  "ruleSearch": {"bookList": "//div[@class='book']", "name": "//a/text()",
                                 "author": "//span[@class='author']/text()",
                                 "lastChapter": "//span[@class='last']/text()", "bookUrl": "//a/@href"}}
        with open(f"{out}/sources/s{n:03d}.json", "w", encoding="utf-8") as f:
            json.dump(source, f, ensure_ascii=False)
    with open(f"{out}/search.har", "w", encoding="utf-8") as f:
        json.dump({"log": {"version": "1.2", "creator": {"name": "generate_search_har.py", "version": "1"},
                           "entries": entries}}, f, ensure_ascii=False)


if __name__ == "__main__":
    main()
