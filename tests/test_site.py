"""The history site (wirebench/site.py): `wirebench site DIR` over a store of several runs,
one of them an A/B run: every run listed and reported, every cell of two runs or more
drawn across them, and the pages load from file:// in headless Chromium."""

import re

import pytest
from click.testing import CliRunner

from wirebench import cli

from .test_html import browser, chrome  # noqa: F401 (the browser fixture)

RUNS = 3


@pytest.fixture(scope="module")
def history(tmp_path_factory):
    from wirebench import drivers

    from .conftest import FAKE_DRIVER, _clear_caches

    tmp = tmp_path_factory.mktemp("site")
    db, out = tmp / "w.db", tmp / "site"
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(drivers, "DRIVERS", {"fake": FAKE_DRIVER})
        _clear_caches()
        args = ["run", "--suite", "rpc", "--lib", "good,null", "--mode", "object,bytes"]
        args += ["--no-pairs", "--iters", "20", "--samples", "2", "--no-report", "--db", str(db)]
        for _ in range(RUNS - 1):
            assert CliRunner().invoke(cli.main, args).exit_code == 0
        r = CliRunner().invoke(cli.main, [*args, "--ab", "build=tuned", "--fail-on", "never"])
        assert r.exit_code == 0, r.output
        r = CliRunner().invoke(cli.main, ["site", str(out), "--db", str(db)])
        assert r.exit_code == 0, r.output
        _clear_caches()
    return out


def test_every_run_is_listed_with_its_report(history):
    index = (history / "index.html").read_text()
    for n in range(1, RUNS + 1):
        assert f'href="run-{n}/index.html"' in index
        assert (history / f"run-{n}" / "index.html").is_file()
        assert (history / f"run-{n}" / "rpc.html").is_file()
    assert index.count("<td>A/B</td>") == 1  # the last run


def test_every_cell_of_two_runs_or_more_has_a_chart_across_them(history):
    page = (history / "history-rpc.html").read_text()
    charts = re.findall(r'<img class="chart" src="([^"]+)"', page)
    assert charts and all((history / c).is_file() for c in charts)
    # The stock cells ran in every run; the tuned side of the A/B run in one only.
    assert not any("build=tuned" in c for c in charts)
    svg = (history / charts[0]).read_text()
    assert svg.count("run 1") and svg.count(f"run {RUNS}")


def test_the_site_fetches_nothing_from_the_network(history):
    for page in [*history.glob("*.html"), *history.glob("run-*/*.html")]:
        refs = re.findall(r'(?:src|href)="([^"]+)"', page.read_text())
        assert all(not re.match(r"[a-z]+://", r) for r in refs), page


@browser
@pytest.mark.parametrize("page", ["index.html", "history-rpc.html", "run-3/index.html"])
def test_the_pages_load_in_chromium_with_their_charts(history, chrome, page):  # noqa: F811
    from selenium.webdriver.common.by import By

    chrome.get((history / page).as_uri())
    assert not [e for e in chrome.get_log("browser") if e["level"] == "SEVERE"]
    for img in chrome.find_elements(By.CSS_SELECTOR, "img.chart"):
        assert chrome.execute_script("return arguments[0].naturalWidth", img) > 0
