#!/usr/bin/env python3
"""Generated novel sites for bookrule's example sources, served on loopback.

Nothing here is copied from a real site: titles and text are assembled from a fixed word list with a seeded
random generator, so every run serves byte-identical pages.

    python3 Fixtures/sites/example_site.py gbk --port 8791      # serve until killed
    python3 Fixtures/sites/example_site.py gbk --port 0 --ready-file F   # write the chosen port to F

Site "gbk" (a biquge-style site, every page GBK-encoded):
  POST /modules/article/search.php  searchkey=<GBK percent-encoded key>  -> results table
  GET  /book/<id>/                  book page with og:novel meta tags and the first TOC page
  GET  /book/<id>/index_<n>.html    TOC pages 2 and 3; every TOC page starts with a "latest chapters" block
                                     repeating the newest chapters, which rules must skip
  GET  /book/<id>/<chapter>.html    chapter page 1 of 2; /book/<id>/<chapter>_2.html is page 2
  Chapter pages carry ad lines ("本站域名…", "最新章节请访问…") that the source's replaceRegex removes.
"""
import argparse
import random
import sys
import urllib.parse
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

WORDS = ["星河", "旅人", "山海", "长夜", "灯火", "青石", "归途", "远方", "少年", "古城", "风雪", "剑鸣",
         "潮汐", "微光", "回声", "黎明", "群星", "渡口", "云海", "孤舟", "暮色", "铁塔", "琴声", "晨钟"]
SENTENCE_ENDS = ["。", "！", "？", "……"]


class Book:
    def __init__(self, book_id, title, author, chapters, seed):
        self.id = book_id
        self.title = title
        self.author = author
        self.chapters = chapters
        self.rng = random.Random(seed)
        self.titles = [f"第{n}章 {self.word()}{self.word()}" for n in range(1, chapters + 1)]

    def word(self):
        return self.rng.choice(WORDS)

    def paragraphs(self, chapter, page):
        rng = random.Random(self.id * 100000 + chapter * 10 + page)
        result = []
        for _ in range(6):
            sentence = "".join(rng.choice(WORDS) for _ in range(rng.randint(4, 9)))
            result.append(sentence + rng.choice(SENTENCE_ENDS))
        return result


BOOKS = [Book(101, "星河旅人", "青石居士", 60, 7), Book(102, "长夜灯火", "归途客", 12, 9)]
PER_TOC_PAGE = 20
LATEST = 6


def page(title, body, charset):
    return (f'<!DOCTYPE html><html><head><meta http-equiv="Content-Type" content="text/html; charset={charset}">'
            f'<title>{title}</title></head><body><div class="header"><a href="/">首页</a> '
            f'<a href="/top.html">排行榜</a></div>{body}'
            '<div class="footer">本站所有小说均为示例生成，仅供测试。</div>'
            '<script>var _ads = "ad-slot";</script></body></html>')


class GBKSite:
    charset = "gbk"

    def toc_pages(self, book):
        return max(1, -(-book.chapters // PER_TOC_PAGE))

    def search(self, key):
        rows = "".join(
            f'<tr><td class="odd"><a href="/book/{b.id}/">{b.title}</a></td>'
            f'<td class="even"><a href="/book/{b.id}/{b.chapters}.html">{b.titles[-1]}</a></td>'
            f'<td class="odd">{b.author}</td><td class="even">连载</td></tr>'
            for b in BOOKS if key and (key in b.title or key in b.author))
        body = ('<table class="grid"><caption>搜索结果</caption><tr><th>书名</th><th>最新章节</th><th>作者</th>'
                f'<th>状态</th></tr>{rows}</table>')
        return page("搜索结果", body, self.charset)

    def book(self, book, toc_page):
        pages = self.toc_pages(book)
        latest = "".join(f'<dd><a href="/book/{book.id}/{n}.html">{book.titles[n - 1]}</a></dd>'
                         for n in range(book.chapters, book.chapters - LATEST, -1))
        first = (toc_page - 1) * PER_TOC_PAGE + 1
        last = min(book.chapters, toc_page * PER_TOC_PAGE)
        chapters = "".join(f'<dd><a href="/book/{book.id}/{n}.html">{book.titles[n - 1]}</a></dd>'
                           for n in range(first, last + 1))
        nav = ""
        if toc_page < pages:
            nav = f'<div class="page"><a class="next" href="/book/{book.id}/index_{toc_page + 1}.html">下一页</a></div>'
        info = ""
        meta = ""
        if toc_page == 1:
            info = (f'<div id="info"><h1>{book.title}</h1><p>作&nbsp;&nbsp;者：{book.author}</p>'
                    f'<p>最新章节：<a href="/book/{book.id}/{book.chapters}.html">{book.titles[-1]}</a></p></div>'
                    f'<div id="intro">　　这是一本示例小说。<br/>　　{book.title}讲述了一段{book.word()}的故事。</div>')
            meta = (f'<meta property="og:novel:book_name" content="{book.title}">'
                    f'<meta property="og:novel:author" content="{book.author}">'
                    f'<meta property="og:image" content="/cover/{book.id}.jpg">')
        body = (f'{info}<div class="listmain"><dl><dt>《{book.title}》最新章节</dt>{latest}'
                f'<dt>《{book.title}》正文</dt>{chapters}</dl></div>{nav}')
        return page(book.title, body, self.charset).replace("</title>", "</title>" + meta, 1)

    def chapter(self, book, number, part):
        text = book.paragraphs(number, part)
        ads = ["本站域名：www.example-gbk.test，最快更新！", "最新章节请访问本站"]
        lines = [f"&nbsp;&nbsp;&nbsp;&nbsp;{text[0]}", ads[0]] + [f"　　{t}" for t in text[1:4]] + [ads[1]] \
            + [f"　　{t}" for t in text[4:]]
        content = "<br/><br/>".join(lines)
        if part == 1:
            next_link = f'/book/{book.id}/{number}_2.html'
            label = "下一页"
        else:
            next_link = f'/book/{book.id}/{number + 1}.html' if number < book.chapters else f'/book/{book.id}/'
            label = "下一章"
        suffix = "（1/2）" if part == 1 else "（2/2）"
        body = (f'<div class="bookname"><h1>{book.titles[number - 1]}{suffix}</h1></div>'
                f'<div id="content">{content}</div>'
                f'<div class="bottem"><a id="pager_next" href="{next_link}">{label}</a></div>')
        return page(book.titles[number - 1], body, self.charset)

    def route(self, method, path, body):
        parts = urllib.parse.urlsplit(path)
        segments = [s for s in parts.path.split("/") if s]
        if method == "POST" and parts.path == "/modules/article/search.php":
            form = urllib.parse.parse_qs(body.decode("ascii"), encoding="gbk")
            return 200, self.search(form.get("searchkey", [""])[0])
        if method != "GET" or len(segments) < 2 or segments[0] != "book":
            return 404, None
        book = next((b for b in BOOKS if str(b.id) == segments[1]), None)
        if book is None:
            return 404, None
        if len(segments) == 2:
            return 200, self.book(book, 1)
        name = segments[2]
        if name.startswith("index_") and name.endswith(".html"):
            n = int(name[6:-5]) if name[6:-5].isdigit() else 0
            return (200, self.book(book, n)) if 2 <= n <= self.toc_pages(book) else (404, None)
        stem = name[:-5] if name.endswith(".html") else ""
        number, _, part = stem.partition("_")
        if number.isdigit() and 1 <= int(number) <= book.chapters and part in ("", "2"):
            return 200, self.chapter(book, int(number), 2 if part else 1)
        return 404, None


SITES = {"gbk": GBKSite()}


def make_handler(site):
    class Handler(BaseHTTPRequestHandler):
        def handle_any(self, method):
            length = int(self.headers.get("Content-Length") or 0)
            body = self.rfile.read(length) if length else b""
            status, html = site.route(method, self.path, body)
            data = (html or "<html><body>not found</body></html>").encode(site.charset)
            self.send_response(status)
            self.send_header("Content-Type", "text/html")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def do_GET(self):
            self.handle_any("GET")

        def do_POST(self):
            self.handle_any("POST")

        def log_message(self, *args):
            pass

    return Handler


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("site", choices=sorted(SITES))
    parser.add_argument("--port", type=int, default=0)
    parser.add_argument("--ready-file", help="write the port here once listening")
    parser.add_argument("--lifetime", type=float, default=600, help="stop after this many seconds")
    args = parser.parse_args()
    server = ThreadingHTTPServer(("127.0.0.1", args.port), make_handler(SITES[args.site]))
    server.timeout = 0.5
    if args.ready_file:
        with open(args.ready_file, "w") as f:
            f.write(str(server.server_address[1]))
    import time
    deadline = time.monotonic() + args.lifetime
    while time.monotonic() < deadline:
        server.handle_request()
    return 0


if __name__ == "__main__":
    sys.exit(main())
