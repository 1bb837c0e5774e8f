#!/usr/bin/env python3
"""Generated novel sites for bookrule's example sources, served on loopback.

Nothing here is copied from a real site: titles and text are assembled from a fixed word list with a seeded
random generator, so every run serves byte-identical pages.

    python3 Fixtures/sites/example_site.py gbk --port 8791      # serve until killed
    python3 Fixtures/sites/example_site.py gbk --port 0 --ready-file F   # write the chosen port to F
    python3 Fixtures/sites/example_site.py utf8 --port 8792   # the other sites: utf8 (8792), allinone (8793)

Site "gbk" (a biquge-style site, every page GBK-encoded):
  POST /modules/article/search.php  searchkey=<GBK percent-encoded key>  -> results table
  GET  /book/<id>/                  book page with og:novel meta tags and the first TOC page
  GET  /book/<id>/index_<n>.html    TOC pages 2 and 3; every TOC page starts with a "latest chapters" block
                                     repeating the newest chapters, which rules must skip
  GET  /book/<id>/<chapter>.html    chapter page 1 of 2; /book/<id>/<chapter>_2.html is page 2
  Chapter pages carry ad lines ("本站域名…", "最新章节请访问…") that the source's replaceRegex removes.

Site "utf8" (UTF-8, relative URLs everywhere, book and TOC pages carry <base href="/read/<id>/">):
  GET /search?q=<UTF-8 percent-encoded key>  -> results linking "../novel/5/" and "./novel/6/"
  GET /novel/<id>/                  book page; its links resolve against the <base>: cover "../../img/<id>.jpg",
                                     latest chapters "<n>.html", full TOC "../../novel/<id>/all.html"
  GET /novel/<id>/all.html          the whole TOC, newest chapter first, with volume headings (<li class="volume">)
                                     after their chapters; chapter links "<n>.html" resolve to /read/<id>/<n>.html
  GET /read/<id>/<n>.html           chapter page: <p> paragraphs, &nbsp; indents, &amp;, an inline <script>
                                     inside the text block, an empty <p>&nbsp;</p>

Site "allinone" (UTF-8 declared only in the Content-Type header, plain text-only markup):
  GET /search.php?keyword=<key>     -> results list (<li><span class="s2">…)
  GET /book/<slug>.html             book page; the book id appears only as "书号：<b>7</b>" and in a script that
                                     opens the TOC at /toc.php?bid=<id>
  GET /toc.php?bid=<id>             a "latest" block, then one <li><a href="<n>.html">title</a></li> per chapter;
                                     the bare "<n>.html" links only work through the page's script, which
                                     prefixes /txt/<id>/ (so a source rebuilds them from the book id)
  GET /txt/<id>/<n>.html            chapter page 1 of 2 ("下一页" -> <n>_2.html); page 2 links "下一章".
                                     Both pages carry a watermark line and page 1 a "（本章未完…）" line.
"""
import argparse
import html
import random
import re
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
    content_type = "text/html"

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


CN_NUMBERS = "一二三四五六七八九十"


class GeneratedBook(Book):
    """A book of the newer example sites: every fifth chapter title holds an "&", chapters come in volumes."""

    def __init__(self, book_id, title, author, chapters, seed, slug="", per_volume=10):
        super().__init__(book_id, title, author, chapters, seed)
        self.slug = slug
        self.titles = [f"第{n}章 {self.word()}&{self.word()}" if n % 5 == 0 else t
                       for n, t in enumerate(self.titles, 1)]
        self.per_volume = per_volume
        volumes = -(-chapters // per_volume)
        self.volumes = [f"第{CN_NUMBERS[v]}卷 {self.word()}{self.word()}" for v in range(volumes)]

    def fixed_word(self, salt):
        """A word that depends only on the book and `salt`, so pages read the same however often they are served."""
        return random.Random(self.id * 1000 + salt).choice(WORDS)

    def volume_of(self, chapter):
        return (chapter - 1) // self.per_volume


def esc(text):
    return html.escape(text, quote=False)


def utf8_page(title, body, base=None):
    base_tag = f'<base href="{base}">' if base else ""
    return (f'<!DOCTYPE html><html lang="zh-CN"><head><meta charset="utf-8">{base_tag}<title>{esc(title)}</title>'
            '<link rel="stylesheet" href="/static/site.css"></head><body>'
            '<nav class="top"><a href="/">首页</a> <a href="/search">搜索</a></nav>\n'
            f'{body}\n<footer>示例站点，文字均由程序生成。</footer></body></html>')


class UTF8Site:
    charset = "utf-8"
    content_type = "text/html"
    books = [GeneratedBook(5, "雾港来信", "林间鹿", 24, 21), GeneratedBook(6, "雾港旧事", "山月", 9, 23)]

    def find(self, book_id):
        return next((b for b in self.books if str(b.id) == book_id), None)

    def search(self, key):
        items = []
        for index, b in enumerate(b for b in self.books if key and (key in b.title or key in b.author)):
            # Relative links in two styles, both resolved against /search.
            prefix = "../" if index % 2 == 0 else "./"
            items.append(
                f'<div class="result-item"><h3><a href="{prefix}novel/{b.id}/">{esc(b.title)}</a></h3>'
                f'<p>作者：<span class="author">{esc(b.author)}</span> <span class="kind">悬疑</span></p>'
                f'<p class="desc">{esc(b.title)}：一本{b.fixed_word(1)}与{b.fixed_word(2)}的示例小说。</p>'
                f'<p>最新：<a class="latest" href="{prefix}read/{b.id}/{b.chapters}.html">{esc(b.titles[-1])}</a></p>'
                '</div>')
        body = (f'<h2>“{esc(key)}”的搜索结果</h2><div class="search-list">'
                + ("\n".join(items) or '<p class="empty">没有找到相关书籍</p>') + '</div>')
        return utf8_page("搜索结果", body)

    def book(self, book):
        latest = "".join(f'<li><a href="{n}.html">{esc(book.titles[n - 1])}</a></li>'
                         for n in range(book.chapters, max(0, book.chapters - 3), -1))
        body = (f'<div class="book"><img class="cover" src="../../img/{book.id}.jpg" alt="封面">'
                f'<h1>{esc(book.title)}</h1>'
                f'<p class="author">作者：<a href="../../author/{book.id}/">{esc(book.author)}</a></p>'
                '<p class="tags">标签：<a href="../../tag/1/">悬疑</a> <a href="../../tag/2/">都市</a></p>'
                f'<p class="update">更新：2024-03-{book.chapters:02d}</p>'
                f'<div class="intro"><p>{esc(book.title)}是一本示例小说。</p>'
                f'<p>{book.fixed_word(3)}之中，{book.fixed_word(4)}&amp;{book.fixed_word(5)}。</p></div>'
                f'<div class="latest"><h2>最新章节</h2><ul>{latest}</ul></div>'
                f'<p><a id="all-chapters" href="../../novel/{book.id}/all.html">查看全部章节</a></p></div>')
        return utf8_page(f"{book.title}_{book.author}", body, base=f"/read/{book.id}/")

    def toc(self, book):
        # Reading order is volume heading, then its chapters; the site prints all of it newest first.
        entries = []
        for n in range(1, book.chapters + 1):
            if (n - 1) % book.per_volume == 0:
                entries.append(f'<li class="volume">{esc(book.volumes[book.volume_of(n)])}</li>')
            entries.append(f'<li><a href="{n}.html">{esc(book.titles[n - 1])}</a></li>')
        body = (f'<h1>{esc(book.title)} 全部章节</h1><p class="order">倒序排列</p>'
                '<ul id="chapter-list">\n' + "\n".join(reversed(entries)) + '\n</ul>'
                f'<p><a href="../../novel/{book.id}/">返回书页</a></p>')
        return utf8_page(f"{book.title} 全部章节", body, base=f"/read/{book.id}/")

    def chapter(self, book, number):
        text = book.paragraphs(number, 1)
        paragraphs = [f"<p>&nbsp;&nbsp;&nbsp;&nbsp;{text[0]}</p>",
                      f"<p>　　“{book.fixed_word(100 + number)}&amp;{book.fixed_word(200 + number)}”，{text[1]}</p>",
                      "<p>&nbsp;</p>",
                      f"<p>　　{text[2]}</p>",
                      "<script>document.write('<p class=\"ad\">下载客户端，阅读更流畅</p>');</script>",
                      f"<p>　　{text[3]}</p><p>　　{text[4]}</p><p>　　{text[5]}</p>"]
        prev_link = f'{number - 1}.html' if number > 1 else f'../../novel/{book.id}/all.html'
        next_link = f'{number + 1}.html' if number < book.chapters else f'../../novel/{book.id}/all.html'
        body = (f'<div class="reader"><h1 class="title">{esc(book.titles[number - 1])}</h1>'
                f'<div id="chaptercontent">\n' + "\n".join(paragraphs) + '\n</div>'
                f'<div class="nav"><a href="{prev_link}">上一章</a> <a href="../../novel/{book.id}/all.html">目录</a> '
                f'<a href="{next_link}">下一章</a></div></div>')
        return utf8_page(book.titles[number - 1], body)

    def route(self, method, path, body):
        parts = urllib.parse.urlsplit(path)
        segments = [s for s in parts.path.split("/") if s]
        if method != "GET":
            return 404, None
        if parts.path == "/search":
            return 200, self.search(urllib.parse.parse_qs(parts.query).get("q", [""])[0])
        if len(segments) < 2 or segments[0] not in ("novel", "read"):
            return 404, None
        book = self.find(segments[1])
        if book is None:
            return 404, None
        if segments[0] == "novel" and parts.path.endswith("/") and len(segments) == 2:
            return 200, self.book(book)
        if segments[0] == "novel" and segments[2:] == ["all.html"]:
            return 200, self.toc(book)
        if segments[0] == "read" and len(segments) == 3 and segments[2].endswith(".html"):
            stem = segments[2][:-5]
            if stem.isdigit() and 1 <= int(stem) <= book.chapters:
                return 200, self.chapter(book, int(stem))
        return 404, None


def plain_page(title, body):
    return (f'<html><head><title>{esc(title)}</title></head><body>\n'
            f'<div class="top"><a href="/">示例文学网</a></div>\n{body}\n'
            '<div class="foot">示例站点，文字均由程序生成。</div>\n</body></html>')


class AllInOneSite:
    charset = "utf-8"
    content_type = "text/html; charset=utf-8"
    books = [GeneratedBook(7, "霜星夜航", "北岸", 20, 31, slug="shuangxing"),
             GeneratedBook(8, "流云小记", "南窗", 8, 33, slug="liuyun")]
    watermark = "【示例文学网 记住本站网址 allinone.example】"

    def search(self, key):
        rows = "\n".join(
            f'<li><span class="s1">[示例]</span><span class="s2"><a href="/book/{b.slug}.html">{esc(b.title)}</a></span>'
            f'<span class="s3"><a href="/txt/{b.id}/{b.chapters}.html">{esc(b.titles[-1])}</a></span>'
            f'<span class="s4">{esc(b.author)}</span><span class="s5">连载</span></li>'
            for b in self.books if key and (key in b.title or key in b.author))
        body = ('<div class="result"><h2>搜索结果</h2><ul>\n'
                '<li class="head"><span class="s1">类别</span><span class="s2">书名</span><span class="s3">最新章节</span>'
                f'<span class="s4">作者</span><span class="s5">状态</span></li>\n{rows}\n</ul></div>')
        return plain_page("搜索结果", body)

    def book(self, book):
        body = (f'<div class="bookinfo"><h1>{esc(book.title)}</h1><p>作者：{esc(book.author)}</p>'
                f'<p class="bookid">书号：<b>{book.id}</b></p><p>状态：连载</p>'
                f'<p>最新章节：<a href="/txt/{book.id}/{book.chapters}.html">{esc(book.titles[-1])}</a></p>\n'
                f'<div class="desc">{esc(book.title)}是一本示例小说。<br>故事从{book.fixed_word(8)}开始。</div>\n'
                '<p><a href="javascript:void(0)" onclick="openToc()">章节目录</a></p></div>\n'
                f'<script>var BOOK_ID={book.id};function openToc(){{location.href="/toc.php?bid="+BOOK_ID;}}</script>')
        return plain_page(f"{book.title}最新章节", body)

    def toc(self, book):
        latest = "\n".join(f'<li class="new"><a href="{n}.html">{esc(book.titles[n - 1])}</a></li>'
                           for n in range(book.chapters, max(0, book.chapters - 3), -1))
        chapters = "\n".join(f'<li><a href="{n}.html">{esc(book.titles[n - 1])}</a></li>'
                             for n in range(1, book.chapters + 1))
        body = (f'<h2>{esc(book.title)} 最新章节</h2><ul class="latest">\n{latest}\n</ul>\n'
                f'<h2>{esc(book.title)} 章节列表</h2><ul class="chapters">\n{chapters}\n</ul>\n'
                f'<script>var BOOK_ID={book.id};document.querySelectorAll("ul a").forEach(function(a)'
                '{a.href="/txt/"+BOOK_ID+"/"+a.getAttribute("href");});</script>')
        return plain_page(f"{book.title}章节目录", body)

    def chapter(self, book, number, part):
        text = book.paragraphs(number, part)
        lines = [f"　　{t}" for t in text[:3]] + [self.watermark] + [f"　　{t}" for t in text[3:]]
        if part == 1:
            lines.append("（本章未完，请点击下一页继续阅读）")
            nav = (f'<a href="/toc.php?bid={book.id}">目录</a> '
                   f'<a href="{number}_2.html">下一页</a>')
        else:
            after = f'{number + 1}.html' if number < book.chapters else f'/toc.php?bid={book.id}'
            nav = f'<a href="/toc.php?bid={book.id}">目录</a> <a href="{after}">下一章</a>'
        body = (f'<h1>{esc(book.titles[number - 1])}</h1>\n<div id="txt">' + "<br>\n".join(lines) + '</div>\n'
                f'<div class="page">{nav}</div>')
        return plain_page(book.titles[number - 1], body)

    def route(self, method, path, body):
        parts = urllib.parse.urlsplit(path)
        segments = [s for s in parts.path.split("/") if s]
        query = urllib.parse.parse_qs(parts.query)
        if method != "GET":
            return 404, None
        if parts.path == "/search.php":
            return 200, self.search(query.get("keyword", [""])[0])
        if parts.path == "/toc.php":
            book = next((b for b in self.books if str(b.id) == query.get("bid", [""])[0]), None)
            return (200, self.toc(book)) if book else (404, None)
        if len(segments) == 2 and segments[0] == "book":
            book = next((b for b in self.books if f"{b.slug}.html" == segments[1]), None)
            return (200, self.book(book)) if book else (404, None)
        if len(segments) == 3 and segments[0] == "txt" and segments[2].endswith(".html"):
            book = next((b for b in self.books if str(b.id) == segments[1]), None)
            number, _, part = segments[2][:-5].partition("_")
            if book and number.isdigit() and 1 <= int(number) <= book.chapters and part in ("", "2"):
                return 200, self.chapter(book, int(number), 2 if part else 1)
        return 404, None


SITES = {"gbk": GBKSite(), "utf8": UTF8Site(), "allinone": AllInOneSite()}


def cover_png(seed):
    """A 60x80 one-colour PNG standing for a book's cover (its colour from the book id), built with zlib."""
    import struct
    import zlib
    width, height = 60, 80
    colour = bytes(((seed * 67) % 256, (seed * 131) % 256, (seed * 199) % 256))
    rows = b"".join(b"\x00" + colour * width for _ in range(height))

    def chunk(kind, data):
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0))
            + chunk(b"IDAT", zlib.compress(rows)) + chunk(b"IEND", b""))


def make_handler(site):
    class Handler(BaseHTTPRequestHandler):
        def handle_any(self, method):
            length = int(self.headers.get("Content-Length") or 0)
            body = self.rfile.read(length) if length else b""
            cover = re.fullmatch(r"/(?:img|cover)/(\d+)\.jpg", self.path)
            if method == "GET" and cover:
                # Every site's covers (the pages link /img/<id>.jpg or /cover/<id>.jpg): a picture, so readers
                # and `bookrule serve`'s shelf show one.
                data = cover_png(int(cover.group(1)))
                self.send_response(200)
                self.send_header("Content-Type", "image/png")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)
                return
            status, html = site.route(method, self.path, body)
            data = (html or "<html><body>not found</body></html>").encode(site.charset)
            self.send_response(status)
            self.send_header("Content-Type", site.content_type)
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
