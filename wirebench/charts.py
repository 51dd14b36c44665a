"""What every suite's charts share: matplotlib without a display, one colour per language,
and a figure as SVG bytes (the reports' charts; docs/methodology.md, "Reports").

matplotlib is imported by the first figure, not with this module: the suites import it,
and a command that draws nothing should not pay matplotlib's half second."""

from __future__ import annotations

import io
from functools import cache

COLOURS = {
    "cpp": "#1f77b4",
    "d": "#d62728",
    "java": "#ff7f0e",
    "rust": "#8c564b",
    "go": "#17becf",
}


def colour(lang: str) -> str:
    return COLOURS.get(lang, "grey")


def whiskers(values: list[float], lows: list[float], highs: list[float]) -> list[list[float]]:
    """matplotlib's error bars (below, above) for values and their intervals; none (0)
    where a value has no interval (NaN: too few processes, stats.NO_INTERVAL)."""
    below = [max(0.0, v - lo) if lo == lo else 0.0 for v, lo in zip(values, lows, strict=True)]
    above = [max(0.0, hi - v) if hi == hi else 0.0 for v, hi in zip(values, highs, strict=True)]
    return [below, above]


@cache
def _pyplot():
    import matplotlib

    matplotlib.use("Agg")  # files only: no display, and the same output everywhere
    import matplotlib.pyplot as plt

    return plt


def figure(width: float, height: float, ncols: int = 1):
    return _pyplot().subplots(1, ncols, figsize=(width, height), squeeze=False)


def svg(fig) -> bytes:
    """The figure as SVG, closed. Text stays text (svg.fonttype none): smaller files that
    a browser renders with its own fonts and a reader can search."""
    out = io.StringIO()
    plt = _pyplot()
    with plt.rc_context({"svg.fonttype": "none", "svg.hashsalt": "wirebench"}):
        fig.savefig(out, format="svg", bbox_inches="tight", metadata={"Date": None})
    plt.close(fig)
    return out.getvalue().encode()
