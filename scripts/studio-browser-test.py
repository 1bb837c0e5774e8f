#!/usr/bin/env python3
"""The studio's browser test (docs/studio.md): headless Chromium, driven by Selenium, on the example fixture.

Starts `bookrule studio` on a copy of Sources-json/example-utf8.json and Fixtures/example-utf8/ in a temporary
directory, runs the chain to the TOC, changes ruleToc.chapterList in the form and sees the highlight count
change, runs the TOC step again, saves, and checks that the file changed and its backup exists. Screenshots of
the main screen go to docs/images/ with --screenshots (studio-main, studio-proposal, studio-json).

Exit status 0 when it passed or was skipped (the reason is printed: no Chromium, chromedriver or Selenium),
1 when it failed. Run after `swift build`: it uses .build/debug/bookrule.
"""
import json
import re
import os
import shutil
import subprocess
import sys
import tempfile
import time

from browser_session import require_selenium, start_chrome

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BOOKRULE = os.path.join(ROOT, ".build", "debug", "bookrule")


# Markup that parsers disagree on (foreign content, raw text, comments, attributes holding tags).
MUTATION_SHAPES = [
    "<svg><style><img src=x onerror=alert(1)></style></svg>", "<math><mtext><table><mglyph><style><img src=x onerror=alert(1)>",
    "<form><math><mtext></form><form><mglyph><style></math><img src onerror=alert(1)>",
    '<noscript><p title="</noscript><img src=x onerror=alert(1)>"></noscript>', "<textarea><img src=x onerror=alert(1)></textarea>",
    "<title><img src=x onerror=alert(1)></title>", "<!--><img src=x onerror=alert(1)>-->", "<!-- --!><img src=x onerror=alert(1)> -->",
    '<a title="</a><img src=x onerror=alert(1)>">l</a>', "<template><img src=x onerror=alert(1)></template>",
    "<xmp><img src=x onerror=alert(1)></xmp>", "<select><style></select><img src=x onerror=alert(1)></style></select>",
    '<svg><a xlink:href="javascript:alert(1)"><text>x</text></a></svg>', "<p>long<wbr>word</p><embed src=x>after",
]


def main():
    screenshots = "--screenshots" in sys.argv
    webdriver = require_selenium("studio browser test")
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import WebDriverWait
    if not os.path.exists(BOOKRULE):
        print(f"studio browser test: failed: {BOOKRULE} is missing (run swift build first)")
        return 1

    work = tempfile.mkdtemp(prefix="studio-browser-")
    source = os.path.join(work, "example-utf8.json")
    fixture = os.path.join(work, "fixture")
    shutil.copy(os.path.join(ROOT, "Sources-json", "example-utf8.json"), source)
    shutil.copytree(os.path.join(ROOT, "Fixtures", "example-utf8"), fixture)
    with open(source, encoding="utf-8") as f:
        original = f.read()

    studio = subprocess.Popen([BOOKRULE, "studio", source, "--fixtures", fixture, "--port", "0"],
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    driver = None
    try:
        url = studio.stdout.readline().strip()
        if not url.startswith("http://127.0.0.1:"):
            print(f"studio browser test: failed: bookrule studio printed {url!r}; stderr: {studio.stderr.read()}")
            return 1
        driver = start_chrome(webdriver)
        wait = WebDriverWait(driver, 30)
        driver.get(url)
        # With a fixture, the first screen runs the search step by itself (issue #32): it ends done, with marks.
        wait.until(lambda d: d.find_element(By.ID, "status").text.startswith("search "))
        opening = driver.find_element(By.ID, "status").text
        if opening != "search done":
            raise AssertionError(f"the studio opened with {opening!r}: {driver.find_element(By.ID, 'step-result').text}")
        wait.until(lambda d: (d.find_element(By.ID, "highlight-count").get_attribute("data-count") or "") not in ("", "0"))

        def run_step(step):
            driver.find_element(By.ID, f"run-{step}").click()
            wait.until(lambda d: d.find_element(By.ID, "status").text.startswith(step + " "))
            status = driver.find_element(By.ID, "status").text
            if status != f"{step} done":
                raise AssertionError(f"the {step} step said {status!r}: {driver.find_element(By.ID, 'step-result').text}")

        def highlight_count():
            return driver.find_element(By.ID, "highlight-count").get_attribute("data-count") or ""

        run_step("search")
        run_step("book")
        run_step("toc")
        wait.until(lambda d: highlight_count() not in ("", "0"))
        before = int(highlight_count())
        marked = int(driver.find_element(By.ID, "highlight-count").get_attribute("data-marked") or "0")
        if marked != before:
            raise AssertionError(f"{before} nodes matched but {marked} marked in the frame")
        # The marks are in the frame, where the studio's stylesheet draws them.
        driver.switch_to.frame(driver.find_element(By.ID, "frame"))
        in_frame = len(driver.find_elements(By.CSS_SELECTOR, "[data-br-match]"))
        scripts = len(driver.find_elements(By.TAG_NAME, "script"))
        driver.switch_to.default_content()
        if in_frame != before or scripts != 0:
            raise AssertionError(f"frame: {in_frame} marked (wanted {before}), {scripts} script elements")
        if screenshots:
            driver.save_screenshot(os.path.join(ROOT, "docs", "images", "studio-main.png"))

        # Change the list rule in the form: the count follows at once.
        field = driver.find_element(By.ID, "field-chapterList")
        field.click()
        field.clear()
        field.send_keys("-//ul[@id='chapter-list']/li[position() <= 3]")
        wait.until(lambda d: highlight_count() == "3")

        run_step("toc")
        wait.until(lambda d: d.find_element(By.CSS_SELECTOR, "#step-result .toc-count").text.startswith("3 chapter"))

        # Click a chapter link in the frame: the side panel proposes rules for it.
        driver.switch_to.frame(driver.find_element(By.ID, "frame"))
        driver.find_element(By.CSS_SELECTOR, "#chapter-list li a").click()
        driver.switch_to.default_content()
        wait.until(lambda d: len(d.find_elements(By.CSS_SELECTOR, "#proposal .candidate")) >= 2)
        if screenshots:
            driver.save_screenshot(os.path.join(ROOT, "docs", "images", "studio-proposal.png"))
        # The JSON editor does not show in the Form tab (`hidden` beats #json-view's display: flex).
        if driver.find_element(By.ID, "json-view").is_displayed():
            raise AssertionError("the JSON editor shows in the Form tab")
        # For chapterName (read inside each list element) the proposal is relative to the list element, and
        # using it gives a name in each of the 3 elements.
        driver.find_element(By.ID, "field-chapterName").click()
        driver.switch_to.frame(driver.find_element(By.ID, "frame"))
        driver.find_element(By.CSS_SELECTOR, "#chapter-list li a").click()
        driver.switch_to.default_content()
        wait.until(lambda d: "relative to the list element" in d.find_element(By.ID, "proposal").text)
        rule = driver.find_elements(By.CSS_SELECTOR, "#proposal .candidate code")[0].text
        if not rule.startswith("//li"):
            raise AssertionError(f"the proposal for chapterName is {rule!r}, not relative to the list element")
        driver.find_elements(By.CSS_SELECTOR, "#proposal .candidate button")[0].click()
        wait.until(lambda d: d.find_element(By.CSS_SELECTOR, "#box-chapterName .count").text == "3 value(s)")
        # The clicked node was on the page before: running the step again clears the panel.
        run_step("toc")
        wait.until(lambda d: not d.find_elements(By.CSS_SELECTOR, "#proposal .candidate"))
        # Broken JSON says where once; the form's "fix the JSON first" goes once it parses again.
        good = driver.execute_script("return sourceText();")
        driver.execute_script("setSourceText(arguments[0]); scheduleEvaluation(0);", good.replace("{", '{\n"x": ,', 1))
        wait.until(lambda d: d.find_element(By.ID, "syntax-error").get_attribute("textContent"))
        said = driver.find_element(By.ID, "syntax-error").get_attribute("textContent")
        if said.count("line ") != 1:
            raise AssertionError(f"the JSON error reads {said!r}")
        driver.find_element(By.ID, "field-chapterUrl").send_keys("x")
        wait.until(lambda d: d.find_element(By.ID, "status").text.startswith("fix the JSON first"))
        driver.execute_script("setSourceText(arguments[0]); scheduleEvaluation(0);", good)
        wait.until(lambda d: not d.find_element(By.ID, "status").text.startswith("fix the JSON first"))

        # The JSON tab is CodeMirror where Debian's libjs-codemirror is installed, a text box otherwise.
        driver.find_element(By.CSS_SELECTOR, ".tab[data-view=json]").click()
        editor = driver.find_element(By.ID, "editor-kind").text
        if os.path.exists("/usr/share/javascript/codemirror/lib/codemirror.js") != bool(driver.find_elements(By.CSS_SELECTOR, ".CodeMirror")):
            raise AssertionError(f"the editor is {editor!r}, which does not match whether CodeMirror is installed")
        if screenshots:
            driver.save_screenshot(os.path.join(ROOT, "docs", "images", "studio-json.png"))
        driver.find_element(By.CSS_SELECTOR, ".tab[data-view=form]").click()

        driver.find_element(By.ID, "save").click()
        wait.until(lambda d: d.find_element(By.ID, "status").text.startswith("saved "))
        with open(source, encoding="utf-8") as f:
            saved = f.read()
        if "position() <= 3" not in json.loads(saved)["ruleToc"]["chapterList"]:
            raise AssertionError("the saved file does not hold the edited rule")
        with open(source + ".bak", encoding="utf-8") as f:
            if f.read() != original:
                raise AssertionError("the backup is not the file as it was")
        # Known mutation-XSS shapes, read by Chromium's own parser in the frame's copy: only allow-listed
        # elements, no handlers, no live URLs.
        allowed = set(re.findall(r'"([a-z0-9]+)"', re.search(r"package static let elements: Set<String> = \[(.*?)\]",
                      open(os.path.join(ROOT, "Sources", "Studio", "SanitizedPage.swift"), encoding="utf-8").read(), re.S).group(1)))
        with open(os.path.join(fixture, "mxss.html"), "w", encoding="utf-8") as f:
            f.write("<html><body>" + "".join(MUTATION_SHAPES) + "<p>end</p></body></html>")
        opened = driver.execute_async_script("""
            const done = arguments[arguments.length - 1];
            fetch('/api/page', {method: 'POST', headers: {'X-Studio-Token': token, 'Content-Type': 'application/json'},
                   body: JSON.stringify({step: 'book', file: 'mxss.html', url: 'https://www.example.com/x'})})
              .then((r) => done(r.status), (e) => done(String(e)));""")
        if opened != 200:
            raise AssertionError(f"opening the mXSS page answered {opened}")
        driver.get(url.split("/?")[0] + "/frame/book")
        found = driver.execute_script("""
            return Array.from(document.querySelectorAll('*')).map((e) => [e.localName, e.namespaceURI,
                Array.from(e.attributes).map((a) => a.name + '=' + a.value)]);""")
        for name, namespace, attributes in found:
            if name not in allowed | {"meta", "link"} or namespace != "http://www.w3.org/1999/xhtml":
                raise AssertionError(f"the frame holds <{name}> ({namespace})")
            for attribute in attributes:
                if attribute.startswith("on") or "javascript:" in attribute.lower() or attribute.startswith(("src=", "href=")) \
                        and not attribute.startswith("href=/assets/"):
                    raise AssertionError(f"the frame's <{name}> has {attribute}")
        print(f"studio browser test: passed ({before} chapters marked, then 3; saved with a backup; "
              f"{len(MUTATION_SHAPES)} mXSS shapes inert)")
        shutil.rmtree(work, ignore_errors=True)
        return 0
    except Exception as error:  # a failed wait or assertion: say what and where
        print(f"studio browser test: failed: {type(error).__name__}: {error}")
        if driver is not None:
            path = os.path.join(work, "failure.png")
            driver.save_screenshot(path)
            print(f"  screenshot: {path}; status: {driver.find_element(By.ID, 'status').text!r}")
        return 1
    finally:
        if driver is not None:
            driver.quit()
        studio.terminate()
        try:
            studio.wait(timeout=10)
        except subprocess.TimeoutExpired:
            studio.kill()


if __name__ == "__main__":
    sys.exit(main())
