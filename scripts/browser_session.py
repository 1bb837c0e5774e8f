"""What the browser tests share (scripts/studio-browser-test.py, scripts/serve-browser-test.py): finding
Chromium, chromedriver and Selenium (or skipping, with the reason), and starting headless Chromium."""
import os
import shutil
import sys

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
CHROMEDRIVER = shutil.which("chromedriver")


def skip(name, reason):
    print(f"{name}: skipped: {reason}")
    sys.exit(0)


def require_selenium(name):
    """Selenium's module, after checking Chromium and chromedriver are there; skips (exit 0) when one is not."""
    if not CHROMIUM:
        skip(name, "Chromium is not installed (apt install chromium; scripts/install-deps.sh does)")
    if not CHROMEDRIVER:
        skip(name, "chromedriver is not installed (apt install chromium-driver)")
    try:
        import selenium.webdriver
        return selenium.webdriver
    except ImportError:
        # Debian's python3-selenium is installed for the system interpreter; a python3 earlier on PATH
        # (pyenv, a venv) does not see it.
        system = "/usr/bin/python3"
        if os.path.exists(system) and os.path.realpath(sys.executable) != os.path.realpath(system):
            os.execv(system, [system] + sys.argv)
        skip(name, "Selenium is not installed (apt install python3-selenium)")


def start_chrome(webdriver, window="1600,1000", lang="en-US", console=False):
    """Headless Chromium through chromedriver, reaching loopback directly (no proxy); `console` keeps the
    page's console log for `driver.get_log("browser")`."""
    from selenium.webdriver.chrome.service import Service
    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    for argument in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                     f"--window-size={window}", f"--lang={lang}", "--no-proxy-server"):
        options.add_argument(argument)
    if console:
        options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    return webdriver.Chrome(service=Service(CHROMEDRIVER), options=options)
