#!/usr/bin/env python3
"""The flame graph SVG in a real browser (issue 28).

xtap writes a flame graph from a folded file whose shares are known
(--from-stacks, no VM), then headless Chromium, driven through Debian's
python3-selenium and chromium-driver, opens it and does what a person
does: hover a frame, click to zoom, search with a regular expression,
clear the search, reset the zoom, and open a link with ?s= and ?zoom=.
After each step it checks the DOM as the browser laid it out (rendered
widths from getBoundingClientRect, visibility, the texts at the bottom)
and takes a screenshot: a PNG of the window's size that differs from the
one before when the picture changed.

    python3 tests/flamegraph/browser_test.py [--xtap build/cli/xtap]

Ends with "browser: N passed, N failed" (scripts/test.sh counts it).
"""

import argparse
import hashlib
import os
import shutil
import struct
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "pylib"))
from checks import Checks  # noqa: E402

# Samples per stack: vfs_read has 50 of 100, ext4 frames 70 in all.
FOLDED = """\
main;do_syscall_64;vfs_read;ext4_file_read_iter 40
main;do_syscall_64;vfs_read;pipe_read 10
main;do_syscall_64;vfs_write;ext4_file_write_iter 30
main;compute 20
"""
WINDOW = (1400, 900)


def png_size(data):
    """Width and height from a PNG's IHDR chunk."""
    if data[:8] != b"\x89PNG\r\n\x1a\n":
        return (0, 0)
    return struct.unpack(">II", data[16:24])


def start_browser():
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    opts = webdriver.ChromeOptions()
    opts.binary_location = shutil.which("chromium") or "/usr/bin/chromium"
    for arg in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                f"--window-size={WINDOW[0]},{WINDOW[1]}", "--force-device-scale-factor=1"):
        opts.add_argument(arg)
    service = Service(shutil.which("chromedriver") or "/usr/bin/chromedriver")
    return webdriver.Chrome(service=service, options=opts)


class Page:
    """The flame graph as the browser shows it."""

    def __init__(self, driver):
        self.d = driver
        self.shots = []

    def frame(self, name):
        return self.d.find_element("css selector", f'g.f[data-n="{name}"]')

    def width(self, name):
        """The frame's rendered width in CSS pixels (0 when hidden)."""
        return self.d.execute_script(
            "var g = document.querySelector('g.f[data-n=\"' + arguments[0] + '\"]');"
            "return g.querySelector('rect').getBoundingClientRect().width;", name)

    def plot_width(self):
        svg = self.d.find_element("css selector", "svg")
        return float(svg.get_attribute("width")) - 2 * float(svg.get_attribute("data-pad"))

    def text(self, element_id):
        return self.d.execute_script("return document.getElementById(arguments[0]).textContent;",
                                     element_id)

    def fill(self, name):
        return self.frame(name).find_element("css selector", "rect").get_attribute("fill")

    def shot(self):
        data = self.d.get_screenshot_as_png()
        self.shots.append(hashlib.sha256(data).hexdigest())
        return data


def near(a, b, tol=1.5):
    return abs(a - b) <= tol


def run(xtap, work, c):
    from selenium.webdriver.common.action_chains import ActionChains
    from selenium.webdriver.common.keys import Keys

    folded = os.path.join(work, "cpu.folded")
    svg = os.path.join(work, "cpu.svg")
    with open(folded, "w") as f:
        f.write(FOLDED)
    r = subprocess.run([xtap, "--from-stacks", folded, "--flamegraph", svg],
                       capture_output=True, text=True, timeout=60)
    if not c.check(r.returncode == 0 and os.path.exists(svg), "xtap --from-stacks wrote cpu.svg",
                   r.stderr):
        return

    driver = start_browser()
    try:
        page = Page(driver)
        url = "file://" + svg
        driver.get(url)
        names = driver.execute_script(
            "return [].map.call(document.querySelectorAll('g.f'), function (g) {"
            " return g.getAttribute('data-n'); });")
        c.check(sorted(names) == sorted(["all", "main", "do_syscall_64", "vfs_read", "vfs_write",
                                         "ext4_file_read_iter", "pipe_read",
                                         "ext4_file_write_iter", "compute"]),
                "loaded: one frame per node of the call tree", str(names))
        full = page.plot_width()
        c.check(near(page.width("all"), full) and near(page.width("vfs_read"), full * 0.5) and
                near(page.width("compute"), full * 0.2),
                "rendered widths are the samples' shares (all 100%, vfs_read 50%, compute 20%)",
                f"all={page.width('all')} vfs_read={page.width('vfs_read')} full={full}")
        png = page.shot()
        viewport = tuple(driver.execute_script("return [window.innerWidth, window.innerHeight];"))
        c.check(png_size(png) == viewport and viewport[0] >= 1000,
                f"screenshot of the loaded graph is the viewport's size {viewport}",
                str(png_size(png)))

        # Hover: the details line names the frame, its samples and share.
        ActionChains(driver).move_to_element(
            page.frame("vfs_read").find_element("css selector", "rect")).perform()
        details = page.text("details")
        c.check("vfs_read" in details and "50" in details and "50.00%" in details,
                "hover shows the frame's name, samples and share", repr(details))
        page.shot()
        c.check(page.shots[-1] != page.shots[-2], "hover changes the picture (outline, details)")

        # Click: vfs_read fills the width, its callee keeps its share of it,
        # its caller stays (faded), a sibling subtree is hidden.
        page.frame("vfs_read").find_element("css selector", "rect").click()
        c.check(near(page.width("vfs_read"), full) and
                near(page.width("ext4_file_read_iter"), full * 0.8) and
                near(page.width("pipe_read"), full * 0.2),
                "click zooms: vfs_read fills the width, ext4_file_read_iter 80% of it",
                f"vfs_read={page.width('vfs_read')} ext4={page.width('ext4_file_read_iter')}")
        c.check(page.width("vfs_write") == 0 and page.width("compute") == 0 and
                "anc" in page.frame("do_syscall_64").get_attribute("class"),
                "click zooms: other subtrees hidden, callers kept and faded")
        reset = driver.find_element("id", "reset")
        c.check(reset.is_displayed(), "Reset Zoom appears after a zoom")
        page.shot()
        c.check(page.shots[-1] != page.shots[-2], "zoom changes the picture")

        # Search with a regular expression, typed into the search box.
        box = driver.find_element("id", "search")
        box.click()
        box.send_keys("ext4_.*_iter$")
        purple = "rgb(230,0,230)"
        c.check(page.fill("ext4_file_read_iter") == purple and
                page.fill("ext4_file_write_iter") == purple and page.fill("pipe_read") != purple,
                "search paints the frames that match the regex")
        matched = page.text("matched")
        c.check("70.00%" in matched and "70 of 100" in matched,
                "search shows the share of matching samples", repr(matched))
        page.shot()
        c.check(page.shots[-1] != page.shots[-2], "search changes the picture")

        # Escape clears the search; Reset Zoom goes back to the whole graph.
        box.send_keys(Keys.ESCAPE)
        c.check(page.fill("ext4_file_read_iter") != purple and page.text("matched").strip() == "",
                "Escape clears the search", repr(page.text("matched")))
        reset.click()
        c.check(near(page.width("all"), full) and near(page.width("vfs_write"), full * 0.3) and
                not reset.is_displayed(),
                "Reset Zoom restores the whole graph and hides itself",
                f"vfs_write={page.width('vfs_write')}")
        page.shot()
        c.check(page.shots[-1] != page.shots[-2], "clearing and reset change the picture back")

        # A link with ?s= and ?zoom= does the same on load.
        driver.get(url + "?s=compute&zoom=main")
        c.check(near(page.width("main"), full) and page.fill("compute") == purple and
                "20.00%" in page.text("matched"),
                "?s=compute&zoom=main searches and zooms on load",
                f"main={page.width('main')} matched={page.text('matched')!r}")
        errors = [e for e in driver.get_log("browser") if e.get("level") == "SEVERE"]
        c.check(not errors, "no script errors in the browser's console", str(errors))
    finally:
        driver.quit()


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--xtap", default=os.path.join(os.path.dirname(__file__), "../../build/cli/xtap"))
    args = ap.parse_args()
    c = Checks()
    try:
        import selenium  # noqa: F401
    except ImportError:
        # Debian's python3-selenium is for Debian's python3; another python3
        # first on PATH (pyenv, a venv) does not see it.
        if sys.executable != "/usr/bin/python3" and os.path.exists("/usr/bin/python3"):
            os.execv("/usr/bin/python3", ["/usr/bin/python3"] + sys.argv)
        c.check(False, "python3-selenium is not installed (scripts/bootstrap.sh installs it)")
    else:
        with tempfile.TemporaryDirectory(prefix="xtap-browser.") as work:
            try:
                run(os.path.abspath(args.xtap), work, c)
            except Exception as e:  # a browser that does not start is a failure, not a crash
                c.check(False, "the browser session", f"{type(e).__name__}: {e}")
    print(f"browser: {c.passed} passed, {c.failed} failed")
    return 0 if c.failed == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
