"""The HTML helpers: one escaped skeleton, embedded figures that never raise, tables, sections."""

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
import pytest

from mcmc_pairs.comparisons import html
from mcmc_pairs.comparisons.pair import Section


def test_page_is_self_contained_and_escapes_its_title():
    page = html.page("a < b", ["<p>body</p>"])
    assert page.startswith("<!DOCTYPE html>") and "<title>a &lt; b</title>" in page
    assert "<p>body</p>" in page and "http" not in page


def test_verdict_banner_escapes_its_text():
    banner = html.verdict_banner("Verdict: <b>", html.RED)
    assert banner == f'<p class="verdict" style="background:{html.RED}">Verdict: &lt;b&gt;</p>'


def test_figures_are_embedded_and_closed():
    fig, ax = plt.subplots()
    ax.plot([0, 1])
    out = html.img(fig, alt="line")
    assert out.startswith('<img alt="line" src="data:image/png;base64,')
    assert not plt.fignum_exists(fig.number)


def test_a_figure_that_fails_becomes_a_note():
    def broken(values):
        raise TypeError(f"cannot plot {values}")

    note = html.figure(broken, [1, 2], alt="the <trace>")
    assert note == ("<p><em>The figure (the &lt;trace&gt;) could not be drawn: TypeError.</em></p>")
    assert html.figure(plt.figure, alt="empty").startswith("<img")


def test_table_marks_failed_checks():
    frame = pd.DataFrame(
        {"quantity": ["x<1>", "y"], "value": [1.23456, 2.0], "passed": [True, False]}
    )
    table = html.table(frame)
    assert "<td>x&lt;1&gt;</td><td>1.235</td><td>True</td>" in table
    assert '<td class="fail">False</td>' in table


def test_a_section_is_rendered_from_data():
    section = Section(
        heading="Topics",
        text="Rows & columns",
        table=pd.DataFrame({"d": [0.1]}),
        images={"pymc": np.ones((2, 3, 3))},
    )
    parts = html.section(section)
    assert parts[:2] == ["<h2>Topics</h2>", "<p>Rows &amp; columns</p>"]
    assert parts[2].startswith('<img alt="Topics"') and "<table" in parts[3]
    assert html.section(Section(heading="Only")) == ["<h2>Only</h2>"]


def test_figures_off_writes_a_note_and_draws_nothing(monkeypatch):
    drawn = []

    def make():
        drawn.append(1)
        return plt.figure()

    monkeypatch.setenv("MCMC_PAIRS_FIGURES", "off")
    note = html.figure(make, alt="the <trace>")
    assert (
        note
        == "<p><em>The figure (the &lt;trace&gt;) was not drawn: $MCMC_PAIRS_FIGURES=off.</em></p>"
    )
    assert drawn == []
    monkeypatch.setenv("MCMC_PAIRS_FIGURES", "On")
    assert html.figure(make, alt="line").startswith("<img") and drawn == [1]


def test_a_bad_figures_switch_is_an_error_naming_it(monkeypatch):
    monkeypatch.setenv("MCMC_PAIRS_FIGURES", "0")
    with pytest.raises(ValueError, match=r"\$MCMC_PAIRS_FIGURES='0': expected 'on' or 'off'"):
        html.figures_off()
