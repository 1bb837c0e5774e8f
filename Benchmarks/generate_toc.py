#!/usr/bin/env python3
"""Deterministic generator for the bookrule TOC benchmark pages.

Usage: generate_toc.py OUTDIR [CHAPTERS]

Writes OUTDIR/toc-<N>-utf8.html (UTF-8 bytes, <meta charset="utf-8">) and
OUTDIR/toc-<N>-gbk.html (GBK bytes, http-equiv charset=gbk). Both pages have
identical content; only the encoding/meta differ. All text is made up from a
fixed word list with a seeded PRNG (no real site's text). Pure stdlib, any
Python 3.

Page URL to resolve hrefs against: https://www.example-novel.test/book/1234/
Chapter rule: //div[@class='listmain']/dl/dt[2]/following-sibling::dd/a
"""
import os
import random
import sys

PAGE_URL = "https://www.example-novel.test/book/1234/"
BOOK_PATH = "/book/1234/"
SEED = 20240501

WORDS = [
    "青云", "剑气", "长生", "天道", "山门", "少年", "宗门", "秘境", "丹炉", "雷劫",
    "星河", "古城", "风雪", "血脉", "灵根", "妖兽", "阵法", "神识", "破境", "归来",
    "夜雨", "故人", "帝君", "魔尊", "符箓", "飞升", "太虚", "玄冰", "烈焰", "龙吟",
    "残卷", "禁地", "试炼", "师尊", "弟子", "江湖", "落日", "孤峰", "天机", "轮回",
    "问心", "斩妖", "春秋", "万古", "苍穹", "大荒", "仙路", "剑心", "棋局", "棋子",
    "暗流", "风云", "对决", "重逢", "离别", "真相", "埋伏", "突围", "交易", "拍卖会",
]
# Separators / decorations: full-width punctuation, ASCII '&' (written as &amp;).
JOINERS = ["", "", "", "，", "与", "之", "·", "&"]
SUFFIXES = ["", "", "", "", "", "（上）", "（下）", "！", "？", "……", "：终章前夜", "（求月票）"]

NAV = [("首页", "/"), ("玄幻小说", "/xuanhuan/"), ("修真小说", "/xiuzhen/"),
       ("都市小说", "/dushi/"), ("历史小说", "/lishi/"), ("网游小说", "/wangyou/"),
       ("科幻小说", "/kehuan/"), ("排行榜单", "/paihangbang/"), ("完本小说", "/wanben/"),
       ("阅读记录", "/history.html")]


def esc(s):
    return s.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def make_title(rng):
    n = rng.choice((1, 2, 2, 2, 3))
    parts = [rng.choice(WORDS) for _ in range(n)]
    out = parts[0]
    for p in parts[1:]:
        out += rng.choice(JOINERS) + p
    return out + rng.choice(SUFFIXES)


def build(n_chapters):
    rng = random.Random(SEED)
    chapters = []  # (id, name)
    cid = 1000000
    for n in range(1, n_chapters + 1):
        cid += rng.randint(1, 3)
        chapters.append((cid, "第%d章 %s" % (n, make_title(rng))))
    book = "%s%s" % (rng.choice(WORDS), rng.choice(WORDS))
    author = "%s%s" % (rng.choice(WORDS), "居士")
    intro = "，".join(rng.choice(WORDS) for _ in range(40)) + "。"

    L = []
    a = L.append
    a("<!DOCTYPE html>")
    a('<html lang="zh-CN">')
    a("<head>")
    a("@@META@@")
    a('<meta name="viewport" content="width=device-width, initial-scale=1.0">')
    a("<title>%s最新章节_%s全文免费阅读_示例小说网</title>" % (book, book))
    a('<meta name="keywords" content="%s,%s,%s最新章节">' % (book, author, book))
    a('<meta name="description" content="%s">' % intro[:60])
    a('<link rel="stylesheet" href="/css/style.css">')
    a("<script>var bookid = 1234; var preview_page = \"/book/1234/\"; "
      "function addBookCase(id){ var x = new XMLHttpRequest(); x.open('GET', '/addcase?id=' + id); x.send(); "
      "if (id < 0 && id > -1) { document.write('<a href=\"/x\">x</a>'); } }</script>")
    a("</head>")
    a("<body>")
    a('<div class="header"><div class="wrap">')
    a('<div class="logo"><a href="/" title="示例小说网">示例小说网</a></div>')
    a('<form class="search" action="/search.php" method="get"><input type="text" name="q" placeholder="可搜书名和作者">'
      '<button type="submit">搜 索</button></form>')
    a('<div class="userpanel"><a href="/login.php">登录</a> | <a href="/register.php">注册</a></div>')
    a("</div></div>")
    a('<div class="nav"><ul>')
    for name, href in NAV:
        a('<li><a href="%s">%s</a></li>' % (href, name))
    a("</ul></div>")
    a('<div class="book">')
    a('<div class="path"><a href="/">示例小说网</a> &gt; <a href="/xuanhuan/">玄幻小说</a> &gt; %s</div>' % book)
    a('<div class="info">')
    a('<div class="cover"><img src="/files/article/image/1/1234/1234s.jpg" alt="%s" width="120" height="150"></div>' % book)
    a("<h2>%s</h2>" % book)
    a('<div class="small">')
    a("<span>作者：%s</span><span>分类：玄幻小说</span><span>状态：连载</span>" % author)
    a("<span>字数：%d</span><span>更新时间：2024-05-01 12:00:00</span>" % (n_chapters * 3172))
    a('<span class="last">最新章节：<a href="%s%d.html">%s</a></span>' % (BOOK_PATH, chapters[-1][0], esc(chapters[-1][1])))
    a("</div>")
    a('<div class="intro"><span>简介：</span>%s<br/>各位书友要是觉得《%s》还不错的话请不要忘记向您QQ群和微博里的朋友推荐哦！</div>' % (intro, book))
    a('<div class="link"><a href="javascript:addBookCase(1234);">加入书架</a> <a href="/vote.php?id=1234">推荐本书</a> '
      '<a href="#footer">直达底部</a></div>')
    a("</div>")
    a("</div>")
    a('<script>if (typeof(window.ad_top) === "function") { ad_top(); }</script>')
    a('<div class="listmain">')
    a("<dl>")
    a("<dt>《%s》最新章节（提示：已启用缓存技术，最新章节可能会延时显示，登录书架即可实时查看。）</dt>" % book)
    for cid, name in reversed(chapters[-12:]):
        a('<dd><a href="%s%d.html">%s</a></dd>' % (BOOK_PATH, cid, esc(name)))
    a("<dt>《%s》正文</dt>" % book)
    for cid, name in chapters:
        a('<dd><a href="%s%d.html">%s</a></dd>' % (BOOK_PATH, cid, esc(name)))
    a("</dl>")
    a("</div>")
    a('<script>if (typeof(window.ad_bottom) === "function") { ad_bottom(); } '
      'document.getElementsByClassName("listmain")[0].setAttribute("data-ready", "1");</script>')
    a('<div class="footer" id="footer"><div class="wrap">')
    a("<p>《%s》情节跌宕起伏、扣人心弦，是一本情节与文笔俱佳的玄幻小说，示例小说网转载收集%s最新章节。</p>" % (book, book))
    a("<p>Copyright &copy; 2024 示例小说网 All Rights Reserved. 本页面为基准测试自动生成，内容纯属虚构。</p>")
    a("</div></div>")
    a("<script>(function(){ var s = document.createElement('script'); s.src = '/js/tj.js'; "
      "document.body.appendChild(s); })();</script>")
    a("</body>")
    a("</html>")
    return "\n".join(L) + "\n"


def main():
    if len(sys.argv) < 2:
        sys.stderr.write("usage: generate_toc.py OUTDIR [CHAPTERS]\n")
        return 2
    outdir = sys.argv[1]
    n = int(sys.argv[2]) if len(sys.argv) > 2 else 5000
    os.makedirs(outdir, exist_ok=True)
    page = build(n)
    utf8 = page.replace("@@META@@", '<meta charset="utf-8">')
    gbk = page.replace("@@META@@", '<meta http-equiv="Content-Type" content="text/html; charset=gbk">')
    for suffix, text, enc in (("utf8", utf8, "utf-8"), ("gbk", gbk, "gbk")):
        path = os.path.join(outdir, "toc-%d-%s.html" % (n, suffix))
        data = text.encode(enc)  # strict: fails loudly on any non-GBK character
        with open(path, "wb") as f:
            f.write(data)
        print("wrote %s (%d bytes)" % (path, len(data)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
