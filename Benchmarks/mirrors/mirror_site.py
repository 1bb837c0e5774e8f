#!/usr/bin/env python3
"""One mirror of a generated book for the --mirrors benchmark: the same book, chapters and text on every
mirror, chapter titles in the mirror's style (arabic 第12章, chinese 第十二章, spaced 第 12 章), the layout of
Tests/TestSupport/MirrorSite.swift.

    mirror_site.py HOST PORT STYLE CHAPTERS SOURCE_OUT

Writes the mirror's source JSON to SOURCE_OUT, then serves until killed:
    /search?q=KEY   the book when KEY is part of its name
    /book/1/        book page and TOC
    /book/1/N.html  chapter N (about 3 KB of text)
stdlib only.
"""
import json
import sys
import urllib.parse
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

NAME, AUTHOR = "镜中之书", "佚名"
WORDS = ["星河", "旅人", "山海", "长夜", "灯火", "青石", "归途", "远方", "少年", "古城", "风雪"]
DIGITS = "零一二三四五六七八九"


def chinese(number):
    units = ["", "十", "百", "千", "万"]
    decimal = [int(c) for c in str(number)]
    text, zero = "", False
    for offset, digit in enumerate(decimal):
        place = len(decimal) - 1 - offset
        if digit == 0:
            zero = bool(text)
            continue
        if zero:
            text += "零"
        zero = False
        if digit == 1 and place == 1 and not text:
            text += "十"
        else:
            text += DIGITS[digit] + units[place]
    return text


def words(n):
    return WORDS[n % len(WORDS)] + WORDS[(n // len(WORDS)) % len(WORDS)]


def title(n, style):
    if style == "chinese":
        return f"第{chinese(n)}章\u3000{words(n)}"
    if style == "spaced":
        return f"第 {n} 章{words(n)}"
    return f"第{n}章 {words(n)}"


def main():
    host, port, style, count, source_out = sys.argv[1], int(sys.argv[2]), sys.argv[3], int(sys.argv[4]), sys.argv[5]

    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, *args):
            pass

        def do_GET(self):
            url = urllib.parse.urlsplit(self.path)
            body, status = None, 200
            if url.path == "/search":
                key = urllib.parse.parse_qs(url.query).get("q", [""])[0]
                item = (f"<div class='book'><a class='name' href='/book/1/'>{NAME}</a><span class='author'>{AUTHOR}"
                        f"</span><span class='last'>{title(count, style)}</span></div>") if key and key in NAME else ""
                body = f"<html><body><div id='results'>{item}</div></body></html>"
            elif url.path == "/book/1/":
                items = "".join(f'<dd><a href="/book/1/{n}.html">{title(n, style)}</a></dd>' for n in range(1, count + 1))
                body = f"<html><body><h1>{NAME}</h1><p id='author'>{AUTHOR}</p><dl id='list'>{items}</dl></body></html>"
            elif url.path.startswith("/book/1/") and url.path.endswith(".html"):
                try:
                    n = int(url.path[8:-5])
                except ValueError:
                    n = 0
                if 1 <= n <= count:
                    paragraphs = "<br><br>".join(
                        "　　" + "".join(WORDS[(n * 7 + p * 3 + k) % len(WORDS)] for k in range(60)) + "。"
                        for p in range(12))
                    body = f"<html><body><h1>{title(n, style)}</h1><div id='content'>{paragraphs}</div></body></html>"
            if body is None:
                status, body = 404, "<html><body>not found</body></html>"
            data = body.encode()
            self.send_response(status)
            self.send_header("Content-Type", "text/html; charset=utf-8")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

    base = f"http://{host}:{port}"
    source = {"bookSourceUrl": base, "bookSourceName": f"mirror {host}", "searchUrl": "/search?q={{key}}",
              "ruleSearch": {"bookList": "//div[@class='book']", "name": "//a/text()",
                             "author": "//span[@class='author']/text()", "lastChapter": "//span[@class='last']/text()",
                             "bookUrl": "//a/@href"},
              "ruleBookInfo": {"name": "//h1/text()", "author": "//p[@id='author']/text()"},
              "ruleToc": {"chapterList": "//dl[@id='list']/dd/a", "chapterName": "/text()", "chapterUrl": "/@href"},
              "ruleContent": {"content": "//div[@id='content']"}}
    server = ThreadingHTTPServer((host, port), Handler)
    with open(source_out, "w", encoding="utf-8") as f:
        json.dump(source, f, ensure_ascii=False)
    server.serve_forever()


if __name__ == "__main__":
    main()
