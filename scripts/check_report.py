"""Open the HTML report in a real headless browser and check what a reader would see.

Every page under the report directory is loaded in Chromium (Debian's
``chromium``; ``make check-report`` installs it) at a phone and a laptop width.
A page fails when the browser logs a console error, when an image does not
decode, when the page needs the network, or when it scrolls sideways on a phone
(tables scroll inside their own box instead). Screenshots of the suite page and
of one pair page are written next to the report for people to look at.

Usage: ``python scripts/check_report.py [REPORT_DIR]`` (default ``reports``).
Exit status 0 when every page passes, 1 otherwise, 2 when there is nothing to check.
"""

from __future__ import annotations

import shutil
import sys
from pathlib import Path

from playwright.sync_api import sync_playwright

CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
VIEWPORTS = {"phone": {"width": 390, "height": 844}, "laptop": {"width": 1280, "height": 800}}


def check_page(browser, path: Path, viewport: dict, screenshot: Path | None) -> list[str]:
    """Return the problems a reader would meet on one page at one viewport."""
    problems: list[str] = []
    page = browser.new_page(viewport=viewport)
    page.on(
        "console",
        lambda m: problems.append(f"console {m.type}: {m.text}") if m.type == "error" else None,
    )
    page.on("pageerror", lambda e: problems.append(f"page error: {e}"))
    page.on(
        "request",
        lambda r: (
            problems.append(f"network request: {r.url}")
            if not r.url.startswith(("file:", "data:"))
            else None
        ),
    )
    page.goto(path.resolve().as_uri(), wait_until="load")
    broken = page.evaluate(
        "Array.from(document.images).filter(i => !i.complete || i.naturalWidth === 0)"
        ".map(i => i.alt || i.src.slice(0, 40))"
    )
    problems += [f"broken image: {alt}" for alt in broken]
    overflow = page.evaluate("document.documentElement.scrollWidth - window.innerWidth")
    if overflow > 1:
        problems.append(f"page scrolls sideways by {overflow}px at width {viewport['width']}")
    if screenshot is not None:
        page.screenshot(path=str(screenshot), full_page=False)
    page.close()
    return problems


def main(argv: list[str]) -> int:
    """Check every HTML page of a report directory; print one line per problem."""
    out = Path(argv[1] if len(argv) > 1 else "reports")
    pages = sorted(out.glob("*.html"))
    if not pages:
        print(f"check_report: no HTML pages in {out}", file=sys.stderr)
        return 2
    executable = shutil.which("chromium") or shutil.which("chromium-browser")
    if executable is None:
        print("check_report: chromium not found (apt-get install chromium)", file=sys.stderr)
        return 2
    shots = out / "screenshots"
    shots.mkdir(exist_ok=True)
    pair_page = next((p for p in pages if p.name != "index.html"), None)
    failures = 0
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=executable, args=CHROMIUM_ARGS)
        for path in pages:
            for name, viewport in VIEWPORTS.items():
                shot = None
                if path.name == "index.html" or path == pair_page:
                    shot = shots / f"{path.stem}-{name}.png"
                problems = check_page(browser, path, viewport, shot)
                for problem in problems:
                    print(f"{path.name} ({name}): {problem}")
                failures += bool(problems)
        browser.close()
    checked = len(pages) * len(VIEWPORTS)
    print(f"check_report: {checked - failures} passed, {failures} failed")
    print(f"screenshots in {shots}")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
