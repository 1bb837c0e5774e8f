#!/usr/bin/python3
"""Python lxml reference for the bookrule TOC benchmark. Run with /usr/bin/python3
(Debian's python3-lxml).

    toc_lxml.py FILE ENCODING ITERATIONS

The file is read into memory once (not timed). Each timed iteration: parse the
bytes with lxml.html.HTMLParser(encoding=ENCODING) -> pre-compiled XPath ->
for every chapter <a>: text_content() (unmodified) + urljoin(PAGE_URL, href).
One untimed warm-up first.

Output: lxml <label> median_ms=<x> min_ms=<y> chapters=<n> checksum=<bytes>
  label    = basename of FILE without ".html"
  checksum = sum over chapters of UTF-8 byte length of name + resolved url
"""
import os
import statistics
import sys
import time
from urllib.parse import urljoin

import lxml.html
from lxml import etree

PAGE_URL = "https://www.example-novel.test/book/1234/"
CHAPTER_XPATH = etree.XPath("//div[@class='listmain']/dl/dt[2]/following-sibling::dd/a")


def run_once(data, parser):
    root = lxml.html.document_fromstring(data, parser=parser, base_url=PAGE_URL)
    chapters = []
    for a in CHAPTER_XPATH(root):
        name = a.text_content()
        href = a.get("href")
        url = urljoin(PAGE_URL, href) if href is not None else ""
        chapters.append((name, url))
    checksum = sum(len(n.encode("utf-8")) + len(u.encode("utf-8")) for n, u in chapters)
    return chapters, checksum


def main():
    if len(sys.argv) != 4:
        sys.stderr.write("usage: toc_lxml.py FILE ENCODING ITERATIONS\n")
        return 2
    path, encoding, iters = sys.argv[1], sys.argv[2], max(1, int(sys.argv[3]))
    with open(path, "rb") as f:
        data = f.read()
    parser = lxml.html.HTMLParser(encoding=encoding, recover=True, no_network=True)

    chapters, checksum = run_once(data, parser)  # warm-up
    times = []
    for i in range(iters):
        t0 = time.perf_counter_ns()
        ch, cs = run_once(data, parser)
        times.append((time.perf_counter_ns() - t0) / 1e6)
        if len(ch) != len(chapters) or cs != checksum:
            sys.stderr.write("inconsistent result in iteration %d\n" % i)
            return 1
    label = os.path.basename(path)
    if label.endswith(".html"):
        label = label[:-5]
    print("lxml %s median_ms=%.3f min_ms=%.3f chapters=%d checksum=%d"
          % (label, statistics.median(times), min(times), len(chapters), checksum))
    dump = int(os.environ.get("TOC_DUMP", "0") or 0)
    for name, url in chapters[:dump]:
        print("%s\t%s" % (name, url))
    return 0


if __name__ == "__main__":
    sys.exit(main())
