"""Execute the teaching notebooks and publish them: executed .ipynb and offline HTML.

For each ``notebooks/<name>.py`` (the jupytext source of truth) this script

1. executes the notebook with nbclient at the settings of its ``parameters``
   cell (or at tiny settings with ``--small``, for a quick look while editing);
2. recompresses every PNG figure (a 256-colour palette, ``optimize``), which
   keeps the repository light;
3. stores the SHA-256 of the source's cells in the notebook's metadata
   (``mcmc_pairs.source_sha256``) and writes ``notebooks/<name>.ipynb`` with
   its outputs, so that a forge or a browser shows the figures and verdicts;
4. renders ``notebooks/html/<name>.html``: one self-contained page, figures
   embedded, formulas converted to MathML on this machine (latex2mathml;
   browsers render MathML natively), no script and no network request.

``tests/notebooks/test_published.py`` fails when a published notebook or page is
stale against its source (the hash differs) and ``scripts/check_report.py
notebooks/html`` opens the pages in headless Chromium with the network cut.

Usage::

    python scripts/publish_notebooks.py [NAME ...] [--small] [--html-only]

``--html-only`` re-renders the HTML from the committed ``.ipynb`` without
executing anything. Exit status 0 on success, 1 when a notebook fails.
"""

from __future__ import annotations

import argparse
import ast
import base64
import hashlib
import html
import io
import json
import os
import re
import sys
import time
from pathlib import Path

import jupytext
import nbformat
from latex2mathml.converter import convert as latex_to_mathml
from nbclient import NotebookClient
from nbconvert import HTMLExporter
from PIL import Image
from pygments.formatters import HtmlFormatter

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from mcmc_pairs.comparisons.files import write_atomic  # noqa: E402

NOTEBOOK_DIR = ROOT / "notebooks"
HTML_DIR = NOTEBOOK_DIR / "html"
SMALL = {"draws": 200, "tune": 200, "chains": 2, "max_draws": 200}
METADATA_KEY = "mcmc_pairs"
SELFTEST = "MCMC_PAIRS_EXERCISE_SELFTEST"
"""Set while a notebook runs: each exercise checker checks that it refuses its `wrong` answer."""


def cells_of(nb) -> list[tuple[str, str, tuple[str, ...]]]:
    """Return the cells as the sync test compares them: type, stripped source, tags."""
    return [(c.cell_type, c.source.strip(), tuple(c.metadata.get("tags", []))) for c in nb.cells]


def source_hash(nb) -> str:
    """SHA-256 of a notebook's cells (type, source, tags), independent of outputs."""
    blob = json.dumps(cells_of(nb), ensure_ascii=False).encode()
    return hashlib.sha256(blob).hexdigest()


def compress_png(data: str) -> str:
    """Re-encode a base64 PNG with a 256-colour palette (figures are line art)."""
    image = Image.open(io.BytesIO(base64.b64decode(data)))
    image = image.convert("RGB").quantize(colors=256, method=Image.Quantize.MEDIANCUT)
    out = io.BytesIO()
    image.save(out, format="PNG", optimize=True)
    smaller = out.getvalue()
    return base64.b64encode(smaller).decode() if len(smaller) < len(data) * 3 // 4 else data


def tidy_outputs(nb) -> None:
    """Compress figures and drop per-run noise (timestamps) from the executed notebook."""
    for cell in nb.cells:
        cell.metadata.pop("execution", None)
        for output in cell.get("outputs", []):
            if "image/png" in output.get("data", {}):
                output["data"]["image/png"] = compress_png(output["data"]["image/png"])


def inject_small_settings(nb) -> int:
    """Insert :data:`SMALL` after the ``parameters`` cell (papermill's way); return its index.

    Only the names that the parameters cell assigns are set, in a cell tagged
    ``injected-parameters``.
    """
    cell = next(c for c in nb.cells if "parameters" in c.metadata.get("tags", []))
    tree = ast.parse(cell.source)
    names = {t.id for node in tree.body if isinstance(node, ast.Assign) for t in node.targets}
    injected = "\n".join(f"{k} = {v!r}" for k, v in SMALL.items() if k in names)
    position = nb.cells.index(cell) + 1
    metadata = {"tags": ["injected-parameters"]}
    nb.cells.insert(position, nbformat.v4.new_code_cell(injected, metadata=metadata))
    return position


def execute(path: Path, small: bool) -> nbformat.NotebookNode:
    """Run one notebook from its .py source; return the executed notebook."""
    nb = jupytext.read(path)
    digest = source_hash(nb)
    position = inject_small_settings(nb) if small else None
    client = NotebookClient(
        nb, timeout=7200, kernel_name="python3", resources={"metadata": {"path": str(NOTEBOOK_DIR)}}
    )
    os.environ[SELFTEST] = "1"  # every exercise's checker checks itself (notebooks/_exercises.py)
    client.execute()
    if position is not None:
        del nb.cells[position]
    tidy_outputs(nb)
    # as `jupytext --sync` writes it, so that a later sync leaves the file alone
    nb.metadata.get("jupytext", {}).pop("text_representation", None)
    nb.metadata[METADATA_KEY] = {
        "source_sha256": digest,
        "settings": "small" if small else "parameters cell",
    }
    return nb


MATH = re.compile(r"(`+)(?:.|\n)*?\1|\$\$((?:.|\n)+?)\$\$|\$((?:[^$\\\n]|\\.|\n(?!\n))+?)\$")
"""A code span (left alone), display math ``$$...$$``, or inline ``$...$`` (within a paragraph)."""


def math_to_mathml(source: str, store: dict[str, str]) -> str:
    """Replace $...$ and $$...$$ (outside code spans) by placeholders; keep their MathML."""

    def replace(match: re.Match) -> str:
        if match.group(1):  # a code span: leave it alone
            return match.group(0)
        block = match.group(2) is not None
        tex = (match.group(2) if block else match.group(3)).strip()
        key = f"MATHPLACEHOLDER{len(store)}X"
        mathml = latex_to_mathml(tex, display="block" if block else "inline")
        mathml = mathml.replace("<math ", f'<math alttext="{html.escape(tex)}" ', 1)
        store[key] = f'<div class="display-math">{mathml}</div>' if block else mathml
        return f"\n\n{key}\n\n" if block else key

    return MATH.sub(replace, source)


CSS = """
body { font: 16px/1.55 system-ui, -apple-system, "Segoe UI", "Noto Sans", "Noto Sans CJK SC",
       "PingFang SC", "Microsoft YaHei", sans-serif; margin: 0; color: #1d1d1f; }
main { max-width: 56rem; margin: 0 auto; padding: 1rem; }
h1, h2, h3 { overflow-wrap: anywhere; }
h1 { font-size: 1.6rem; } h2 { font-size: 1.3rem; margin-top: 2rem; } h3 { font-size: 1.1rem; }
a { color: #0b57d0; }
pre, code { font: 13px/1.4 ui-monospace, "SFMono-Regular", Menlo, Consolas, monospace; }
pre { overflow-x: auto; padding: .5rem; margin: .3rem 0; }
.prompt { display: none; }
.cell, .inner_cell, .input_area, .output_subarea, .text_cell_render {
  max-width: 100%; min-width: 0; }
.input_area { background: #f5f6f8; border-left: 3px solid #9aa7b8; margin: .8rem 0 0;
              overflow-x: auto; }
.output_subarea { overflow-x: auto; margin: .2rem 0; }
.output_subarea pre { background: none; }
.output_stderr pre { color: #8a6d00; }
.output_stderr { max-height: 12rem; overflow-y: auto; }
img { max-width: 100%; height: auto; }
table { border-collapse: collapse; font-size: 13px; margin: .4rem 0; }
th, td { padding: .15rem .5rem; border-bottom: 1px solid #ddd; text-align: right; }
.text_cell_render table { display: block; overflow-x: auto; }
.text_cell_render th, .text_cell_render td { text-align: left; }
.display-math { overflow-x: auto; overflow-y: hidden; padding: .2rem 0; }
math[display="block"] { font-size: 1.1em; }
.published { color: #555; font-size: 13px; border-bottom: 1px solid #ddd; padding-bottom: .5rem; }
"""


def render_html(nb, name: str, source: str | None = None) -> str:
    """One self-contained page: basic nbconvert body, MathML formulas, inline CSS."""
    nb = nbformat.from_dict(json.loads(json.dumps(nb)))  # a copy
    store: dict[str, str] = {}
    for cell in nb.cells:
        if "checker" in cell.metadata.get("tags", []):
            cell.metadata["transient"] = {"remove_source": True}  # the verdict, not the solution
        if cell.cell_type == "markdown":
            cell.source = math_to_mathml(cell.source, store)
            # links between notebooks point at their rendered pages
            cell.source = re.sub(
                r"\]\((\w+)\.(?:ipynb|py)(#[\w-]+)?\)", r"](\1.html\2)", cell.source
            )
            cell.source = re.sub(r"\]\(GLOSSARY\.md", "](glossary.html", cell.source)
    exporter = HTMLExporter(
        template_name="basic", exclude_input_prompt=True, exclude_anchor_links=True
    )
    body, _ = exporter.from_notebook_node(nb)
    for key, mathml in store.items():
        body = body.replace(f"<p>{key}</p>", mathml).replace(key, mathml)
    digest = nb.metadata.get(METADATA_KEY, {}).get("source_sha256", "")
    title = next((c.source.splitlines()[0].lstrip("# ") for c in nb.cells
                  if c.cell_type == "markdown"), name)  # fmt: skip
    title = re.sub(r"<[^>]+>|MATHPLACEHOLDER\d+X", "", title)
    pygments = HtmlFormatter(style="default").get_style_defs(".highlight")
    if source is None:
        source = (
            f"mcmc-pairs teaching notebook <code>notebooks/{name}.py</code>, executed and "
            "rendered by <code>make notebooks</code>."
        )
    return f"""<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="source-sha256" content="{digest}">
<title>{html.escape(title)}</title>
<style>{CSS}
{pygments}</style>
</head>
<body><main>
<p class="published">{source}
<a href="index.html">All notebooks</a> ·
<a href="glossary.html">Glossary 术语表</a></p>
{body}
</main></body>
</html>
"""


def render_markdown_page(path: Path, title: str) -> str:
    """Render a Markdown file of the notebooks folder (glossary, README) as a page."""
    nb = nbformat.v4.new_notebook()
    text = path.read_text()
    text = re.sub(r"\]\((\w+)\.(?:ipynb|py)\)", r"](\1.html)", text)
    text = re.sub(r"\]\(html/(\w+)\.html\)", r"](\1.html)", text)
    text = re.sub(r"\]\(GLOSSARY\.md", "](glossary.html", text)
    nb.cells = [nbformat.v4.new_markdown_cell(text, id=path.stem.lower())]
    page = render_html(nb, path.stem, f"mcmc-pairs <code>notebooks/{path.name}</code>.")
    return re.sub(r"<title>.*?</title>", f"<title>{html.escape(title)}</title>", page)


def main(argv: list[str]) -> int:
    """Execute and publish the named notebooks (all by default)."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("names", nargs="*")
    parser.add_argument("--small", action="store_true", help="tiny settings (a draft)")
    parser.add_argument("--html-only", action="store_true", help="render the committed .ipynb")
    args = parser.parse_args(argv)
    paths = [NOTEBOOK_DIR / f"{n}.py" for n in args.names] or sorted(NOTEBOOK_DIR.glob("[a-z]*.py"))
    HTML_DIR.mkdir(exist_ok=True)
    failed = 0
    for path in paths:
        start = time.perf_counter()
        try:
            if args.html_only:
                nb = nbformat.read(path.with_suffix(".ipynb"), as_version=4)
            else:
                nb = execute(path, args.small)
                text = nbformat.writes(nb)
                text += "" if text.endswith("\n") else "\n"  # as nbformat.write ends it
                write_atomic(path.with_suffix(".ipynb"), text)
        except Exception as error:  # report and go on with the next notebook
            print(f"{path.stem}: FAILED: {str(error)[:2000]}", file=sys.stderr)
            failed += 1
            continue
        write_atomic(HTML_DIR / f"{path.stem}.html", render_html(nb, path.stem))
        seconds = time.perf_counter() - start
        size = path.with_suffix(".ipynb").stat().st_size / 1024
        print(f"{path.stem}: {seconds:.0f} s, ipynb {size:.0f} kB", flush=True)
    write_atomic(
        HTML_DIR / "glossary.html",
        render_markdown_page(NOTEBOOK_DIR / "GLOSSARY.md", "Glossary 术语表"),
    )
    write_atomic(
        HTML_DIR / "index.html",
        render_markdown_page(NOTEBOOK_DIR / "README.md", "mcmc-pairs teaching notebooks"),
    )
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
