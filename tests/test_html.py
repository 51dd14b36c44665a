"""The HTML report: a run of every suite with the fake drivers (failed cells included)
written as a site, checked as files, then opened page by page in headless Chromium:
no console errors, every chart loaded, every table there, sorting and filtering work,
failed rows marked, and a screenshot that is neither empty nor blank."""

import re
import shutil

import numpy as np
import pytest
from click.testing import CliRunner

from wirebench import cli, readbytes_data, registry

from .conftest import REQUIRE_DRIVERS

CHROMIUM, CHROMEDRIVER = shutil.which("chromium"), shutil.which("chromedriver")
SUITES = tuple(registry.SUITES)


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    """One run of every suite by two fake languages, reported as HTML against one of them
    (so the rpc charts have a baseline)."""
    from .conftest import FAKE_DRIVER, _clear_caches, builds_at

    tmp = tmp_path_factory.mktemp("html")
    link = tmp / "fake2_driver.py"
    link.symlink_to(FAKE_DRIVER.builds["stock"].executable)
    import dataclasses

    from wirebench import drivers

    second = dataclasses.replace(FAKE_DRIVER, lang="fake2", builds=builds_at(link))
    db, out = tmp / "w.db", tmp / "site"
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(drivers, "DRIVERS", {"fake": FAKE_DRIVER, "fake2": second})
        mp.setattr(readbytes_data, "DATA_DIR", tmp)
        readbytes_data.write(tmp / readbytes_data.FILE_NAME)
        _clear_caches()

        def invoke(*args):
            return CliRunner().invoke(cli.main, [*args, "--db", str(db)])

        r = invoke(
            "run",
            "--lib",
            "good,garbage,null,jackson,wbq,stdio,memcpy",
            "--mode",
            "object",
            "--cache",
            "warm",
            "--storage",
            "disk",
            "--iters",
            "20",
            "--samples",
            "3",
            "--repeat",
            "2",  # two rounds: every table and chart has its numbers, at two thirds the cost
            "--no-report",
        )
        assert r.exit_code == 1 and "cells failed" in r.output  # the garbage ones
        r = invoke("report", "--against", "fake", "--html", str(out))
        assert r.exit_code == 0, r.output
        assert f"{out / 'index.html'}" in r.output
        _clear_caches()
    return out


def test_the_site_has_an_overview_and_a_page_per_suite(site):
    pages = sorted(p.name for p in site.glob("*.html"))
    assert pages == sorted(["index.html", *(f"{s}.html" for s in SUITES)])
    index = (site / "index.html").read_text()
    assert "Provenance" in index and "<dt>command</dt>" in index
    assert all(f'href="{s}.html"' in index for s in SUITES)
    rpc = (site / "rpc.html").read_text()
    assert 'class="failed"' in rpc and "ERROR" in rpc
    assert "rpc-carsales-none-reuse-stock.svg" in rpc
    for name, charts in (
        ("codec", ("codec-logs-throughput.svg", "codec-logs-size.svg")),
        ("queue", ("queue-single.svg",)),
        ("readbytes", ("readbytes-sum-warm-stock.svg",)),
    ):
        page = (site / f"{name}.html").read_text()
        assert all(c in page and (site / c).is_file() for c in charts), name


def test_the_site_fetches_nothing_from_the_network(site):
    for page in site.glob("*.html"):
        text = page.read_text()
        refs = re.findall(r'(?:src|href)="([^"]+)"', text)
        assert refs and all(not re.match(r"[a-z]+://", r) for r in refs), page.name
        assert "<link" not in text and "@import" not in text


browser = pytest.mark.skipif(
    not (CHROMIUM and CHROMEDRIVER) and not REQUIRE_DRIVERS,
    reason="Debian's chromium and chromium-driver are not installed (scripts/setup.sh)",
)


@pytest.fixture(scope="module")
def chrome():
    assert CHROMIUM and CHROMEDRIVER, "chromium and chromium-driver: run scripts/setup.sh"
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    for arg in ("--headless=new", "--no-sandbox", "--disable-gpu", "--window-size=1400,1000"):
        options.add_argument(arg)
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    driver = webdriver.Chrome(service=Service(CHROMEDRIVER), options=options)
    yield driver
    driver.quit()


@browser
@pytest.mark.parametrize("page", ["index", *SUITES])
def test_every_page_loads_in_chromium_with_its_charts_and_tables(site, chrome, page, tmp_path):
    from matplotlib.image import imread
    from selenium.webdriver.common.by import By

    chrome.get((site / f"{page}.html").as_uri())
    errors = [e for e in chrome.get_log("browser") if e["level"] == "SEVERE"]
    assert not errors, errors
    html = (site / f"{page}.html").read_text()
    charts = chrome.find_elements(By.CSS_SELECTOR, "img.chart")
    assert len(charts) == html.count('<img class="chart"')
    if page in ("rpc", "codec", "queue", "readbytes"):
        assert charts, f"{page} has no chart"
    for img in charts:
        loaded = chrome.execute_script(
            "return arguments[0].complete && arguments[0].naturalWidth", img
        )
        assert loaded > 0, img.get_attribute("src")
    tables = chrome.find_elements(By.CSS_SELECTOR, "table.data")
    assert len(tables) == html.count('<table class="data">') > 0
    shot = tmp_path / f"{page}.png"
    assert chrome.save_screenshot(str(shot))
    pixels = imread(shot)
    # The window's size less the browser's own bars.
    assert pixels.shape[1] == 1400 and pixels.shape[0] > 600 and shot.stat().st_size > 10_000
    assert len(np.unique(pixels.reshape(-1, pixels.shape[-1]), axis=0)) > 50  # not blank


def _column(chrome, table, col):
    from selenium.webdriver.common.by import By

    rows = table.find_elements(By.CSS_SELECTOR, "tbody tr")
    return [r.find_elements(By.TAG_NAME, "td")[col].text for r in rows if r.is_displayed()]


@browser
def test_tables_sort_and_filter_in_the_browser(site, chrome):
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import Select

    chrome.get((site / "rpc.html").as_uri())
    table = chrome.find_elements(By.CSS_SELECTOR, "table.data")[0]
    head = table.find_elements(By.TAG_NAME, "th")
    median = next(i for i, h in enumerate(head) if h.text == "median")
    head[median].click()
    times = _column(chrome, table, median)
    scale = {"ns": 1, "µs": 1e3, "ms": 1e6, "s": 1e9}

    def ns(text):
        number, unit = text.split()
        return float(number) * scale[unit]

    numbers = [ns(t) for t in times if t != "ERROR"]  # a failed cell's status: last
    assert numbers == sorted(numbers) and len(numbers) > 1 and times[-1] == "ERROR"
    head[median].click()  # again: descending
    numbers = [ns(t) for t in _column(chrome, table, median) if t != "ERROR"]
    assert numbers == sorted(numbers, reverse=True)
    # The failed rows are marked as such.
    failed = table.find_elements(By.CSS_SELECTOR, "tr.failed")
    assert failed and all("garbage" in r.text for r in failed)
    # A menu on the implementation column keeps only its rows; the text box all tables'.
    Select(chrome.find_elements(By.CSS_SELECTOR, "select.colfilter")[0]).select_by_visible_text(
        "fake2/good"
    )
    assert set(_column(chrome, table, 0)) == {"fake2/good"}
    box = chrome.find_element(By.ID, "filter")
    box.send_keys("no-such-cell")
    assert _column(chrome, table, 0) == []
