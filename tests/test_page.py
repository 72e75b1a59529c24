"""The page for people, end to end in a real headless Chromium (Debian's package)."""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
# As this workplace's machines need them: no sandbox as root, no background traffic.
FLAGS = ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking",
         "--disable-component-update", "--disable-sync"]  # fmt: skip


def shots(default: Path) -> Path:
    """Where screenshots go: LDIDS_SCREENSHOTS if set (to look at them), else the test's folder."""
    folder = Path(os.environ.get("LDIDS_SCREENSHOTS", default))
    folder.mkdir(parents=True, exist_ok=True)
    return folder


@pytest.fixture(scope="module")
def page(server: str) -> Iterator[object]:
    if CHROMIUM is None:
        if os.environ.get("CI"):
            pytest.fail("chromium is not installed; .ci/run installs Debian's chromium")
        pytest.skip("Debian's chromium is not installed here (CI installs it)")
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        # Playwright starts each browser with a new, empty profile of its own.
        browser = playwright.chromium.launch(executable_path=CHROMIUM, headless=True, args=FLAGS)
        opened = browser.new_page(viewport={"width": 1200, "height": 900})
        opened.goto(server + "/")
        yield opened
        browser.close()


def test_identifiers_are_checked(page: object, tmp_path: Path) -> None:
    from playwright.sync_api import Page, expect

    assert isinstance(page, Page)
    page.click("#check")
    rows = page.locator("tbody tr")
    expect(rows).to_have_count(4)
    expect(rows.nth(0).locator(".canonical")).to_have_text("info:fedora/demo:1")
    expect(rows.nth(1).locator(".canonical")).to_have_text("http://purl.org/poi/arXiv.org/hep-th/9901001")
    expect(rows.nth(2).locator(".canonical")).to_have_text("hdl:100.102/F58FB49EB1F848F0A606E84CEF294BE5")
    expect(rows.nth(2)).to_contain_text("cordra")
    invalid = rows.nth(3)
    expect(invalid).to_have_attribute("data-valid", "false")
    expect(invalid.locator("mark")).to_have_text("%3c")  # the offending characters, marked
    expect(invalid).to_contain_text("oai.lowercase-hex")
    page.screenshot(path=str(shots(tmp_path) / "page-identifiers.png"), full_page=True)


def test_turtle_is_normalized_and_validated(page: object, tmp_path: Path) -> None:
    from playwright.sync_api import Page, expect

    assert isinstance(page, Page)
    page.fill("#input", (ROOT / "examples" / "fedora-export.ttl").read_text())
    page.click("#check")
    expect(page.locator("#mode")).to_have_text("read as Turtle")
    verdicts = page.locator(".verdict")
    expect(verdicts).to_have_count(2)
    expect(verdicts.nth(0)).to_have_attribute("data-conforms", "false")
    expect(verdicts.nth(1)).to_have_attribute("data-conforms", "true")
    expect(page.locator("#normalized")).to_contain_text("<info:fedora/demo:1>")
    page.screenshot(path=str(shots(tmp_path) / "page-turtle.png"), full_page=True)


@pytest.mark.parametrize(("path", "ready"), [("/docs", ".opblock"), ("/redoc", "[data-section-id]"), ("/", "#check")])
def test_docs_and_page_work_with_the_network_blocked(page: object, server: str, path: str, ready: str) -> None:
    """Every request the page makes goes to the service itself: any other is blocked (and
    recorded), and the page still renders its content."""
    from playwright.sync_api import Page, Route

    assert isinstance(page, Page)
    elsewhere: list[str] = []

    def only_the_service(route: Route) -> None:
        if route.request.url.startswith(server):
            route.continue_()
        else:
            elsewhere.append(route.request.url)
            route.abort()

    browser = page.context.browser
    assert browser is not None
    context = browser.new_context()  # the same browser, a context of its own
    context.route("**/*", only_the_service)
    offline = context.new_page()
    offline.goto(server + path)
    offline.wait_for_selector(ready, timeout=20_000)
    context.close()
    assert elsewhere == []
