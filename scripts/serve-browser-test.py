#!/usr/bin/env python3
"""`bookrule serve`'s browser test (docs/serve.md): Legado's own web client, unmodified, in headless Chromium.

Serves the generated utf8 example site (Fixtures/sites/example_site.py) on a loopback port, downloads one of its
books into a temporary library with `bookrule fetch`, starts `bookrule serve` on that library and source with
`--web` pointing at the client (../shared/clients/legado-web/vue, or $LEGADO_WEB), and drives the client:
  1. the shelf lists the library's book, with its cover and its progress;
  2. opening it shows the chapter saved in the library, paragraph for paragraph;
  3. the next chapter's button saves the progress (getBookshelf says so);
  4. a search from the shelf finds the site's other book over the WebSocket, and opening it puts it on the shelf;
  5. the source editor (#/bookSource) pulls the sources, saves an edited rule (read back through getBookSource),
     and its debug panel streams the chain's log down to the content;
  6. the RSS source editor (#/rssSource) lists an RSS source saved through saveRssSource, and its debug panel
     streams the rssSourceDebug log to the end.
Screenshots go to docs/images/ with --screenshots (serve-shelf, serve-chapter, serve-search, serve-source).

Exit status 0 when it passed or was skipped (the reason is printed: no Chromium, chromedriver, Selenium or the
client), 1 when it failed. Run after `swift build`: it uses .build/debug/bookrule.
"""
import json
import os
import shutil
import socket
import sqlite3
import subprocess
import sys
import tempfile
import time
import urllib.parse
import urllib.request

from browser_session import require_selenium, skip, start_chrome

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BOOKRULE = os.path.join(ROOT, ".build", "debug", "bookrule")
CLIENT = os.environ.get("LEGADO_WEB") or os.path.join(os.path.dirname(ROOT), "shared", "clients", "legado-web", "vue")
NAME = "serve browser test"


def free_port_pair():
    """A port P with P and P + 1 both free: the client finds the WebSocket server on the next port."""
    for _ in range(50):
        with socket.socket() as probe:
            probe.bind(("127.0.0.1", 0))
            port = probe.getsockname()[1]
        if port >= 65535:
            continue
        try:
            with socket.socket() as first, socket.socket() as second:
                first.bind(("127.0.0.1", port))
                second.bind(("127.0.0.1", port + 1))
            return port
        except OSError:
            continue
    raise RuntimeError("no two adjacent free ports on 127.0.0.1")


def wait_for_file(path, process, seconds):
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if os.path.exists(path) and os.path.getsize(path) > 0:
            with open(path) as f:
                return f.read().strip()
        if process.poll() is not None:
            raise RuntimeError(f"the site server exited with {process.returncode}")
        time.sleep(0.05)
    raise RuntimeError(f"{path} did not appear in {seconds} s")


def api(port, path, body=None):
    """One call of the server's API, as the client makes it; returns the envelope's data, failing otherwise."""
    request = urllib.request.Request(f"http://127.0.0.1:{port}/{path}",
                                     data=None if body is None else json.dumps(body).encode())
    with urllib.request.urlopen(request, timeout=20) as response:
        envelope = json.load(response)
    if envelope.get("isSuccess") is not True:
        raise AssertionError(f"{path}: {envelope}")
    return envelope["data"]


def eventually(description, probe, seconds=20):
    """Waits for probe() to return a true value (the client's requests are asynchronous)."""
    deadline = time.monotonic() + seconds
    last = None
    while time.monotonic() < deadline:
        try:
            last = probe()
            if last:
                return last
        except Exception as error:  # a probe may race the page's rendering; the last error is reported
            last = error
        time.sleep(0.1)
    raise AssertionError(f"{description} (last: {last!r})")


def normalized_lines(text):
    return [line.strip() for line in text.splitlines() if line.strip()]


def main():
    screenshots = "--screenshots" in sys.argv
    webdriver = require_selenium(NAME)
    from selenium.webdriver.common.by import By
    from selenium.webdriver.common.keys import Keys
    if not os.path.isfile(os.path.join(CLIENT, "index.html")):
        skip(NAME, f"Legado's web client is not at {CLIENT} (set LEGADO_WEB to a built client's folder)")
    if not os.path.exists(BOOKRULE):
        print(f"{NAME}: failed: {BOOKRULE} is missing (run swift build first)")
        return 1

    work = tempfile.mkdtemp(prefix="serve-browser-")
    processes = []
    driver = None
    try:
        ready = os.path.join(work, "site-port")
        site = subprocess.Popen([sys.executable, os.path.join(ROOT, "Fixtures", "sites", "example_site.py"), "utf8",
                                 "--port", "0", "--ready-file", ready, "--lifetime", "300"],
                                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        processes.append(site)
        site_port = int(wait_for_file(ready, site, 20))
        site_url = f"http://127.0.0.1:{site_port}"

        with open(os.path.join(ROOT, "Sources-json", "example-utf8.json"), encoding="utf-8") as f:
            source = json.load(f)
        source["bookSourceUrl"] = site_url
        source_file = os.path.join(work, "source.json")
        with open(source_file, "w", encoding="utf-8") as f:
            json.dump(source, f, ensure_ascii=False, indent=2)
        library = os.path.join(work, "library.sqlite")
        fetched = subprocess.run([BOOKRULE, "fetch", "--source", source_file, f"{site_url}/novel/5/",
                                  "--library", library, "--delay", "0.02"], capture_output=True, text=True, timeout=120)
        if fetched.returncode != 0:
            raise AssertionError(f"bookrule fetch failed ({fetched.returncode}): {fetched.stderr}")

        port = free_port_pair()
        serve = subprocess.Popen([BOOKRULE, "serve", "--library", library, "--sources", source_file,
                                  "--port", str(port), "--web", CLIENT],
                                 stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        processes.append(serve)
        eventually("bookrule serve answers getBookshelf", lambda: serve.poll() is None and api(port, "getBookshelf") is not None)
        shelf = api(port, "getBookshelf")
        if [book["name"] for book in shelf] != ["雾港来信"]:
            raise AssertionError(f"the shelf should hold the fetched book: {shelf}")
        book_url = shelf[0]["bookUrl"]

        driver = start_chrome(webdriver, window="1400,900", lang="zh-CN", console=True)
        driver.set_page_load_timeout(30)
        client = f"http://127.0.0.1:{port}/vue/index.html"

        def shot(name):
            if screenshots:
                driver.save_screenshot(os.path.join(ROOT, "docs", "images", f"{name}.png"))

        # 1. The shelf: the book, its cover (loaded: a broken image has no natural width), its progress.
        driver.get(client)
        eventually("the shelf shows 雾港来信",
                   lambda: [e.text for e in driver.find_elements(By.CSS_SELECTOR, ".books-wrapper .book .name")] == ["雾港来信"])
        eventually("the cover is shown", lambda: driver.execute_script(
            "const i = document.querySelector('.books-wrapper .book img.cover'); return i && i.complete && i.naturalWidth > 0"))
        progress = driver.find_element(By.CSS_SELECTOR, ".books-wrapper .book .dur-chapter").text
        if shelf[0].get("durChapterTitle", "") not in progress:
            raise AssertionError(f"the shelf's progress {progress!r} is not the book's {shelf[0].get('durChapterTitle')!r}")

        # 2. Opening the book shows the chapter the library saved (a volume heading first is passed with the next
        #    chapter's button, as a reader does).
        chapters = api(port, "getChapterList?url=" + urllib.parse.quote(book_url, safe=""))
        driver.find_element(By.CSS_SELECTOR, ".books-wrapper .book").click()
        index = shelf[0].get("durChapterIndex", 0)

        def shown_titles():
            return [e.text for e in driver.find_elements(By.CSS_SELECTOR, ".chapter .content .title")]

        def next_chapter():
            button = driver.find_elements(By.CSS_SELECTOR, ".read-bar .tools .tool-icon")[1]
            driver.execute_script("arguments[0].click()", button)

        eventually(f"the reader shows {chapters[index]['title']}", lambda: chapters[index]["title"] in shown_titles())
        while chapters[index].get("isVolume"):
            next_chapter()
            index += 1
            eventually(f"the reader shows {chapters[index]['title']}", lambda: chapters[index]["title"] in shown_titles())
        title = chapters[index]["title"]
        shown = eventually("the chapter's paragraphs", lambda: driver.execute_script("""
            const title = [...document.querySelectorAll('.chapter .content .title')].find(t => t.textContent.trim() === arguments[0]);
            if (!title) return null;
            const lines = [];
            for (let node = title.nextElementSibling; node && !node.classList.contains('title'); node = node.nextElementSibling)
                if (node.textContent.trim()) lines.push(node.textContent);
            return lines.length ? lines : null;""", title))
        with sqlite3.connect(library) as db:
            saved = db.execute("""SELECT t.text FROM chapter_texts t JOIN chapters c ON c.id = t.chapter_id
                                  WHERE c.title = ? AND c.state = 'done'""", (title,)).fetchone()
        if saved is None:
            raise AssertionError(f"{title} is not saved in the library")
        if normalized_lines("\n".join(shown)) != normalized_lines(saved[0]):
            raise AssertionError(f"the reader's text differs from the library's:\n{shown[:3]}\n{normalized_lines(saved[0])[:3]}")
        shot("serve-chapter")

        # 3. The next chapter: the progress is saved, and getBookshelf says so.
        next_title = chapters[index + 1]["title"]
        next_chapter()
        eventually(f"the reader shows {next_title}", lambda: next_title in shown_titles())
        eventually("getBookshelf has the new progress",
                   lambda: next(b for b in api(port, "getBookshelf") if b["bookUrl"] == book_url)["durChapterIndex"] == index + 1)

        # 4. Back on the shelf, the book shows where the reader is; then a search from the shelf, over the
        #    WebSocket, and opening a result adds it to the shelf.
        driver.get(client)
        eventually(f"the shelf shows the progress {next_title}", lambda: next_title in driver.find_element(
            By.CSS_SELECTOR, ".books-wrapper .book .dur-chapter").text)
        shot("serve-shelf")
        search = eventually("the search box", lambda: driver.find_element(By.CSS_SELECTOR, ".search-wrapper input"))
        search.send_keys("雾港")
        search.send_keys(Keys.ENTER)
        eventually("the search finds 雾港旧事",
                   lambda: "雾港旧事" in [e.text for e in driver.find_elements(By.CSS_SELECTOR, ".books-wrapper .book .name")])
        shot("serve-search")
        result = next(e for e in driver.find_elements(By.CSS_SELECTOR, ".books-wrapper .book")
                      if e.find_element(By.CSS_SELECTOR, ".name").text == "雾港旧事")
        result.click()
        eventually("雾港旧事 is on the shelf", lambda: "雾港旧事" in [b["name"] for b in api(port, "getBookshelf")])

        # 5. The source editor: pull, edit a rule, save, read it back; then debug.
        driver.get(f"http://127.0.0.1:{port}/vue/index.html#/bookSource")
        driver.refresh()  # the hash route is read at start
        eventually("the editor's toolbar", lambda: driver.find_elements(By.XPATH, "//button[contains(., '拉取源')]"))
        # The key-binding dialog opens with the page; Escape closes it.
        driver.find_element(By.TAG_NAME, "body").send_keys(Keys.ESCAPE)
        eventually("the hotkeys dialog closes", lambda: not any(e.is_displayed() for e in driver.find_elements(By.CSS_SELECTOR, ".el-dialog")))
        driver.find_element(By.XPATH, "//button[contains(., '拉取源')]").click()
        item = eventually("the source list shows the source", lambda: next(
            (e for e in driver.find_elements(By.CSS_SELECTOR, "#source-list .el-checkbox") if source["bookSourceName"] in e.text), None))
        item.find_element(By.CSS_SELECTOR, "button").click()
        toc_tab = eventually("the form's TOC tab", lambda: next(
            e for e in driver.find_elements(By.CSS_SELECTOR, "#source-edit .el-tabs__item") if "目录" in e.text))
        toc_tab.click()
        field = eventually("the chapterList field", lambda: next(
            f.find_element(By.TAG_NAME, "textarea") for f in driver.find_elements(By.CSS_SELECTOR, "#source-edit .el-form-item")
            if f.is_displayed() and f.find_element(By.CSS_SELECTOR, ".el-form-item__label").text.strip() == "列表规则"))
        edited = source["ruleToc"]["chapterList"].replace("'", '"')
        field.send_keys(Keys.CONTROL, "a")
        field.send_keys(Keys.DELETE)
        field.send_keys(edited)
        driver.find_element(By.XPATH, "//button[contains(., '保存源')]").click()
        eventually("getBookSource has the edited rule", lambda: api(
            port, "getBookSource?url=" + urllib.parse.quote(site_url, safe=""))["ruleToc"]["chapterList"] == edited)
        shot("serve-source")
        driver.find_element(By.XPATH, "//button[contains(., '调试源')]").click()
        log = eventually("the debug panel streams down to the content", lambda: (
            lambda text: text if "︽正文页解析完成" in text else None)(driver.find_element(By.ID, "debug-text").get_attribute("value")), 60)
        for marker in ("︾开始解析搜索页", "︾开始解析目录页", "︾开始解析正文页"):
            if marker not in log:
                raise AssertionError(f"the debug log lacks {marker}:\n{log}")
        shot("serve-debug")

        # 6. The RSS source editor (#/rssSource, the same editor): an RSS source saved through Legado's API is
        # pulled and listed, and its debug panel streams Legado's lines over rssSourceDebug to the end.
        rss = {"sourceUrl": f"{site_url}/rss", "sourceName": "浏览器订阅源", "sortUrl": f"书页::{site_url}/novel/5/",
               "ruleArticles": "//a", "ruleTitle": "//text()", "ruleLink": "//@href"}
        api(port, "saveRssSource", rss)
        driver.get(f"http://127.0.0.1:{port}/vue/index.html#/rssSource")
        driver.refresh()
        eventually("the RSS editor's toolbar", lambda: driver.find_elements(By.XPATH, "//button[contains(., '拉取源')]"))
        driver.find_element(By.TAG_NAME, "body").send_keys(Keys.ESCAPE)
        eventually("the hotkeys dialog closes", lambda: not any(e.is_displayed() for e in driver.find_elements(By.CSS_SELECTOR, ".el-dialog")))
        driver.find_element(By.XPATH, "//button[contains(., '拉取源')]").click()
        item = eventually("the RSS source list shows the source", lambda: next(
            (e for e in driver.find_elements(By.CSS_SELECTOR, "#source-list .el-checkbox") if rss["sourceName"] in e.text), None))
        item.find_element(By.CSS_SELECTOR, "button").click()
        driver.find_element(By.XPATH, "//button[contains(., '调试源')]").click()
        log = eventually("the RSS debug panel streams to the end", lambda: (
            lambda text: text if "⇒内容规则为空" in text else None)(driver.find_element(By.ID, "debug-text").get_attribute("value")), 60)
        for marker in ("︾开始解析", "┌获取列表", "┌获取文章链接", "︽列表页解析完成"):
            if marker not in log:
                raise AssertionError(f"the RSS debug log lacks {marker}:\n{log}")
        shot("serve-rss-debug")
        print(f"{NAME}: passed (shelf, cover, chapter text, progress, WebSocket search and add, source save, debug, "
              "RSS source list and debug)")
        return 0
    except Exception as error:
        print(f"{NAME}: failed: {type(error).__name__}: {error}")
        if driver is not None:
            try:
                for entry in driver.get_log("browser")[-20:]:
                    print(f"  console: {entry.get('level')}: {entry.get('message')}")
            except Exception:
                pass
        for process in processes[1:]:
            if process.poll() is not None and process.stderr is not None:
                print(f"  bookrule serve exited {process.returncode}: {process.stderr.read()[-2000:]}")
        return 1
    finally:
        if driver is not None:
            driver.quit()
        for process in processes:
            if process.poll() is None:
                process.terminate()
                try:
                    process.wait(timeout=10)
                except subprocess.TimeoutExpired:
                    process.kill()
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
