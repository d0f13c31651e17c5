"""The published notebooks are current: executed .ipynb and offline HTML match their sources.

``make notebooks`` (``scripts/publish_notebooks.py``) executes every notebook at
the settings of its parameters cell, keeps the outputs in ``notebooks/<name>.ipynb``
and renders ``notebooks/html/<name>.html``; both carry the SHA-256 of the
source's cells. These tests fail when a ``.py`` source changed after its last
publication (run ``make notebooks``), when a page would need the network, or
when a formula was left for a script to typeset. They read files only: cheap.
"""

from __future__ import annotations

import re
from pathlib import Path

import jupytext
import nbformat
import pytest

from tests.notebooks import PUBLISH

ROOT = Path(__file__).resolve().parents[2]
NOTEBOOK_DIR = ROOT / "notebooks"
HTML_DIR = NOTEBOOK_DIR / "html"
NOTEBOOKS = sorted(p for p in NOTEBOOK_DIR.glob("*.py") if not p.name.startswith("_"))
MAX_TOTAL_BYTES = 8_000_000
"""Budget for everything published (executed .ipynb and HTML), to keep the repository light."""


STALE = "is stale against {}: run `make notebooks`"


@pytest.mark.parametrize("path", NOTEBOOKS, ids=[p.stem for p in NOTEBOOKS])
def test_executed_notebook_is_current(path):
    nb = nbformat.read(path.with_suffix(".ipynb"), as_version=4)
    published = nb.metadata.get(PUBLISH.METADATA_KEY, {})
    digest = PUBLISH.source_hash(jupytext.read(path))
    assert published.get("source_sha256") == digest, STALE.format(path.name)
    assert published.get("settings") == "parameters cell", "published at draft (--small) settings"
    code = [c for c in nb.cells if c.cell_type == "code"]
    assert all(c.execution_count is not None for c in code), "some cells were not executed"
    assert [c.execution_count for c in code] == list(range(1, len(code) + 1)), "not one clean run"
    errors = [o for c in code for o in c.outputs if o.output_type == "error"]
    assert not errors
    assert any("image/png" in o.get("data", {}) for c in code for o in c.outputs)


@pytest.mark.parametrize("path", NOTEBOOKS, ids=[p.stem for p in NOTEBOOKS])
def test_html_is_current_and_offline(path):
    page = (HTML_DIR / f"{path.stem}.html").read_text()
    digest = PUBLISH.source_hash(jupytext.read(path))
    assert f'<meta name="source-sha256" content="{digest}">' in page, STALE.format(path.name)
    # nothing is fetched: no script at all, no remote stylesheet, image or font
    assert "<script" not in page
    assert not re.search(r"""(src|href)=["']?(https?:)?//""", page.replace("<a href", "<a x"))
    assert "@import" not in page and "url(http" not in page
    # the exercises' checking cells show their verdict, not their code (it holds the answer)
    assert "check_number" not in page and "check_choice" not in page
    # formulas are MathML, rendered by the browser; none is left as TeX for MathJax
    assert "<math" in page and "MATHPLACEHOLDER" not in page
    prose = re.sub(r"<pre.*?</pre>|<code.*?</code>|<style.*?</style>", "", page, flags=re.S)
    prose = re.sub(r"<[^>]*>", "", prose)  # tags and their attributes (MathML's alttext)
    left = re.findall(r"\$\$|\\[A-Za-z]+", prose)
    assert not left, f"TeX left for a script to typeset: {left[:5]}"


def test_local_links_resolve():
    for page in HTML_DIR.glob("*.html"):
        targets = re.findall(r'href="([^"#:]+)(?:#[^"]*)?"', page.read_text())
        missing = sorted({t for t in targets if not (HTML_DIR / t).exists()})
        assert not missing, f"{page.name} links to missing pages {missing}"


def test_index_and_glossary_pages_exist():
    for name in ("index.html", "glossary.html"):
        assert (HTML_DIR / name).exists(), f"notebooks/html/{name} missing: run `make notebooks`"


def test_published_outputs_stay_light():
    files = [*NOTEBOOK_DIR.glob("*.ipynb"), *HTML_DIR.glob("*.html")]
    total = sum(f.stat().st_size for f in files)
    assert total < MAX_TOTAL_BYTES, f"published notebooks take {total / 1e6:.1f} MB"
