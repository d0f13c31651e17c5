"""HTML helpers shared by the report pages: one skeleton, escaping, figures, tables, sections.

A page is a single self-contained file: figures are PNGs embedded as base64, so
it opens anywhere without network access. A figure that cannot be drawn
becomes a note on the page (:func:`figure`): a plotting failure never loses a
verdict. Nothing here knows about pairs or verdicts; the report modules
(:mod:`mcmc_pairs.comparisons.report`, :mod:`mcmc_pairs.comparisons.validation_report`) do.
Matplotlib is imported when a figure is drawn (:func:`pyplot`), not with this module.

``MCMC_PAIRS_FIGURES=off`` in the environment writes every page without its
figures (:func:`figures_off`): the verdict, the sentences and the tables stay,
each figure becomes a one-line note. Drawing is a fifth of an end-to-end test
suite's time; a suite that checks verdicts, not pictures, sets it.
"""

from __future__ import annotations

import base64
import io
import os
import warnings
from collections.abc import Callable, Mapping, Sequence
from html import escape
from types import ModuleType
from typing import TYPE_CHECKING, Any, Protocol

import numpy as np

if TYPE_CHECKING:
    import pandas as pd
    from arviz_plots import PlotCollection
    from matplotlib.figure import Figure

__all__ = [
    "AMBER",
    "BLUE",
    "GREEN",
    "GREY",
    "PURPLE",
    "RED",
    "Section",
    "escape",
    "figure",
    "figures_off",
    "fixed_layout",
    "image_grid",
    "img",
    "page",
    "pyplot",
    "section",
    "table",
    "verdict_banner",
]

GREEN, RED, AMBER, GREY = "#1a7f37", "#cf222e", "#9a6700", "#57606a"
"""Verdict colours: good, bad, in between (not converged, stopped), unknown."""
BLUE, PURPLE = "#0969da", "#8250df"
"""Figure colours: the reference side, the sides under test. ``BLUE`` is also the colour of
the verdict ``reference failed``: the reference's fault, not the side's."""

CSS = """
body{font-family:system-ui,-apple-system,Segoe UI,Roboto,sans-serif;margin:0 auto;
max-width:60rem;padding:1rem;line-height:1.45;color:#1f2328}
h1{font-size:1.5rem}h2{font-size:1.2rem;margin-top:2rem}
.verdict{padding:.8rem 1rem;border-radius:.4rem;color:#fff;font-weight:600}
table{border-collapse:collapse;font-size:.85rem;display:block;overflow-x:auto}
th,td{border-bottom:1px solid #d0d7de;padding:.25rem .5rem;text-align:right;white-space:nowrap}
th:first-child,td:first-child,.text{text-align:left}
td.text{white-space:normal}
td.fail{color:#cf222e;font-weight:600}
img{max-width:100%;height:auto}
details{margin:1rem 0}
"""


def page(title: str, body: Sequence[str]) -> str:
    """Return a whole HTML document: ``title`` (escaped here) and ``body`` (markup, in order)."""
    return (
        '<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">'
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        f"<title>{escape(title)}</title><style>{CSS}</style></head><body>\n"
        + "\n".join(body)
        + "\n</body></html>\n"
    )


FIGURES_ENV = "MCMC_PAIRS_FIGURES"
"""The environment variable that turns the pages' figures ``off`` (default ``on``)."""


def figures_off() -> bool:
    """Return True when ``$MCMC_PAIRS_FIGURES`` is ``off``: pages are written without figures.

    Raises
    ------
    ValueError
        If it is set to anything but ``on``, ``off`` or the empty string.
    """
    value = os.environ.get(FIGURES_ENV, "").strip().lower()
    if value not in ("", "on", "off"):
        raise ValueError(f"${FIGURES_ENV}={value!r}: expected 'on' or 'off'")
    return value == "off"


def verdict_banner(text: str, colour: str) -> str:
    """Return the page's verdict: a coloured paragraph of class ``verdict``, ``text`` escaped."""
    return f'<p class="verdict" style="background:{colour}">{escape(text)}</p>'


def pyplot() -> ModuleType:
    """Return :mod:`matplotlib.pyplot` on the Agg backend: figures are drawn to PNGs only."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


def fixed_layout(
    fig: Any,
    *,
    left: float = 0.8,
    right: float = 0.15,
    bottom: float = 0.45,
    top: float = 0.3,
    hspace: float = 0.45,
    wspace: float = 0.15,
) -> None:
    """Place a grid of axes by margins and gaps in inches, where ``tight_layout`` would measure.

    ``tight_layout`` lays every tick label and title out once more before the
    figure is drawn: a third of a grid figure's cost. A grid whose labels are
    short (numbers, quantity names) fits fixed margins: ``left`` holds the
    y tick labels and the rotated y label, ``bottom`` the x tick labels,
    ``top`` the titles, ``hspace`` the x tick labels between rows.
    """
    width, height = fig.get_size_inches()
    rows, cols = fig.axes[0].get_subplotspec().get_gridspec().get_geometry()
    inner_w = width - left - right
    inner_h = height - bottom - top
    fig.subplots_adjust(
        left=left / width,
        right=1 - right / width,
        bottom=bottom / height,
        top=1 - top / height,
        wspace=wspace * cols / max(inner_w - wspace * (cols - 1), 1e-3),
        hspace=hspace * rows / max(inner_h - hspace * (rows - 1), 1e-3),
    )


def img(fig: Figure | PlotCollection, alt: str = "figure") -> str:
    """Embed a matplotlib figure (or an arviz-plots PlotCollection) as a base64 PNG; close it."""
    from matplotlib.figure import Figure

    if not isinstance(fig, Figure):  # an arviz-plots PlotCollection
        fig = fig.viz["figure"].item()
    buffer = io.BytesIO()
    fig.savefig(buffer, format="png", dpi=90)
    pyplot().close(fig)
    encoded = base64.b64encode(buffer.getvalue()).decode("ascii")
    return f'<img alt="{escape(alt)}" src="data:image/png;base64,{encoded}">'


def figure(make: Callable[..., Figure | PlotCollection], *args: Any, alt: str) -> str:
    """Draw ``make(*args)`` and embed it (:func:`img`); a figure that fails becomes a note.

    A report must never lose its verdict to a plotting failure (odd draws,
    a plotting library's bug), so any exception is caught and named. With
    :func:`figures_off`, nothing is drawn and the note says so.
    """
    if figures_off():
        return f"<p><em>The figure ({escape(alt)}) was not drawn: ${FIGURES_ENV}=off.</em></p>"
    try:
        with warnings.catch_warnings():  # odd draws (NaN, inf, constant) warn in every library
            warnings.simplefilter("ignore", RuntimeWarning)
            return img(make(*args), alt)
    except Exception as exc:  # any plotting failure
        reason = escape(type(exc).__name__)
        return f"<p><em>The figure ({escape(alt)}) could not be drawn: {reason}.</em></p>"


def table(frame: pd.DataFrame) -> str:
    """Return a table of ``frame``'s rows (a pandas DataFrame), numbers to 4 digits.

    A cell of a column ``passed`` that is false gets the class ``fail``.
    """
    head = "".join(f"<th>{escape(str(c))}</th>" for c in frame.columns)
    rows = []
    for row in frame.itertuples(index=False):
        cells = []
        for col, value in zip(frame.columns, row, strict=True):
            text = f"{value:.4g}" if isinstance(value, float) else escape(str(value))
            cls = ' class="fail"' if col == "passed" and not value else ""
            cells.append(f"<td{cls}>{text}</td>")
        rows.append("<tr>" + "".join(cells) + "</tr>")
    return f"<table><tr>{head}</tr>{''.join(rows)}</table>"


class Section(Protocol):
    """A report section given as data (:class:`mcmc_pairs.comparisons.pair.Section`)."""

    @property
    def heading(self) -> str:
        """Its heading, plain text."""
        ...

    @property
    def text(self) -> str:
        """What it shows and how to read it, plain text."""
        ...

    @property
    def table(self) -> pd.DataFrame | None:
        """A table, with its index."""
        ...

    @property
    def images(self) -> Mapping[str, np.ndarray] | None:
        """Label to an array of grey images (n, height, width)."""
        ...


def section(sec: Section) -> list[str]:
    """Render a report section given as data: heading, text, images, table.

    Parameters
    ----------
    sec : mcmc_pairs.comparisons.pair.Section
        ``heading`` and ``text`` (plain text), ``images`` (label to an array
        (n, height, width), drawn by :func:`image_grid`) and ``table`` (a
        DataFrame, with its index), each optional but the heading.

    Returns
    -------
    list of str
        The section's markup, in order.
    """
    parts = [f"<h2>{escape(sec.heading)}</h2>"]
    if sec.text:
        parts.append(f"<p>{escape(sec.text)}</p>")
    if sec.images:
        parts.append(figure(image_grid, sec.images, alt=sec.heading))
    if sec.table is not None:
        # the index as the first column, so its name heads that column
        parts.append(sec.table.reset_index().to_html(border=0, index=False))
    return parts


def image_grid(images: Mapping[str, np.ndarray]) -> Figure:
    """One row of grey images per label; ``images[label]`` has shape (n, height, width)."""
    labels = list(images)
    n = max(len(images[label]) for label in labels)
    plt = pyplot()
    fig, axes = plt.subplots(len(labels), n, figsize=(0.9 * n, 1.0 * len(labels)), squeeze=False)
    for i, label in enumerate(labels):
        for k in range(n):
            ax = axes[i, k]
            ax.set_xticks([])
            ax.set_yticks([])
            if k < len(images[label]):
                image = np.asarray(images[label][k])
                square = image.shape[0] == image.shape[1]
                ax.imshow(image, cmap="Greys", vmin=0, aspect="equal" if square else "auto")
            if k == 0:
                ax.set_ylabel(label, fontsize=7, rotation=0, ha="right", va="center")
    fig.tight_layout()
    return fig
