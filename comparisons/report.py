"""Reports: one self-contained HTML page and one JSON file per pair, and an index.

Figures are PNGs embedded as base64, so a page is a single file that opens
anywhere without network access. Every file is written atomically (a temporary
file in the same directory, then a rename), so a failed run leaves nothing
half-written.
"""

from __future__ import annotations

import base64
import html
import io
import json
import math
import os
import tempfile
from collections.abc import Mapping, Sequence
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402

from comparisons.agreement import AGREE, DISAGREE, NOT_CONVERGED  # noqa: E402
from comparisons.run import PYMC, PairResult  # noqa: E402

VERDICT_WORDS = {
    AGREE: "The two samplers agree: every statistic matches within its Monte Carlo error, "
    "and both sides converged.",
    DISAGREE: "The two samplers disagree: at least one statistic differs by more than its "
    "Monte Carlo error can explain. One of them samples the wrong distribution.",
    NOT_CONVERGED: "Not converged: a side failed the R-hat or effective-sample-size gates, "
    "so its estimates cannot be trusted yet. Run longer (more draws or tune) and compare again.",
}
VERDICT_COLOURS = {AGREE: "#1a7f37", DISAGREE: "#cf222e", NOT_CONVERGED: "#9a6700"}

CSS = """
body{font-family:system-ui,-apple-system,Segoe UI,Roboto,sans-serif;margin:0 auto;
max-width:60rem;padding:1rem;line-height:1.45;color:#1f2328}
h1{font-size:1.5rem}h2{font-size:1.2rem;margin-top:2rem}
.verdict{padding:.8rem 1rem;border-radius:.4rem;color:#fff;font-weight:600}
table{border-collapse:collapse;font-size:.85rem;display:block;overflow-x:auto}
th,td{border-bottom:1px solid #d0d7de;padding:.25rem .5rem;text-align:right;white-space:nowrap}
th:first-child,td:first-child{text-align:left}
td.fail{color:#cf222e;font-weight:600}
img{max-width:100%;height:auto}
details{margin:1rem 0}
"""


def write_atomic(path: Path, text: str) -> None:
    """Write ``text`` to ``path`` through a temporary file and a rename."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            handle.write(text)
        umask = os.umask(0)
        os.umask(umask)
        os.chmod(tmp, 0o666 & ~umask)  # mkstemp creates 0600; a report is for reading
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def to_json(result: PairResult) -> dict:
    """Return the JSON document of DESIGN.md for one pair run."""
    checks = [
        {
            "comparison": row.comparison,
            "kind": row.kind,
            "quantity": row.quantity,
            "statistic": row.statistic,
            "value": _finite_or_none(row.value),
            "threshold": _finite_or_none(row.threshold),
            "passed": bool(row.passed),
        }
        for row in result.checks.itertuples()
    ]
    sides = {}
    for label, side in result.sides.items():
        sides[label] = {
            "sampler": side.sampler,
            "timings": side.timings,
            "ess_bulk_per_second": result.ess_per_second(label),
            "summary": json.loads(result.summaries[label].to_json(orient="index")),
        }
        if label != PYMC:
            sides[label]["verdict"] = result.verdicts[label]
        if side.acceptance_rate is not None:
            sides[label]["acceptance_rate"] = side.acceptance_rate
    return {
        "pair": result.pair.name,
        "title": result.pair.title,
        "verdict": result.verdict,
        "checks": checks,
        "settings": result.settings,
        "timings": result.timings,
        "sides": sides,
    }


def _finite_or_none(value) -> float | None:
    value = float(value)
    return value if math.isfinite(value) else None


def write_pair_report(result: PairResult, out: Path) -> tuple[Path, Path]:
    """Write ``out/<pair>.json`` and ``out/<pair>.html``; return both paths."""
    out = Path(out)
    name = result.pair.name
    document = json.dumps(to_json(result), indent=2)
    page = render_pair(result)
    json_path, html_path = out / f"{name}.json", out / f"{name}.html"
    write_atomic(json_path, document)
    write_atomic(html_path, page)
    return html_path, json_path


def render_pair(result: PairResult) -> str:
    """Return the self-contained HTML page of one pair run."""
    pair = result.pair
    s = result.settings
    colour = VERDICT_COLOURS[result.verdict]
    rows = []
    for label, side in result.sides.items():
        verdict = result.verdicts.get(label, "reference")
        accept = side.acceptance_rate
        rows.append(
            f"<tr><td>{html.escape(label)}</td><td>{html.escape(side.sampler)}</td>"
            f"<td>{html.escape(verdict)}</td><td>{side.timings['compile_s']:.2f}</td>"
            f"<td>{side.timings['sampling_s']:.3f}</td>"
            f"<td>{result.ess_per_second(label):,.0f}</td>"
            f"<td>{'' if accept is None else f'{accept:.2f}'}</td></tr>"
        )
    extras = []
    if pair.report_extra is not None:
        for heading, fragment in pair.report_extra(result.data):
            extras += [f"<h2>{html.escape(heading)}</h2>", fragment]
    failed = result.checks[~result.checks["passed"]]
    body = [
        f"<h1>{html.escape(pair.title)} <small>(<code>{pair.name}</code>)</small></h1>",
        f'<p class="verdict" style="background:{colour}">Verdict: {result.verdict}. '
        f"{html.escape(VERDICT_WORDS[result.verdict])}</p>",
        f"<p>Seed document <code>{html.escape(pair.seed)}</code>. Settings: {s['chains']} chains, "
        f"{s['draws']} draws after {s['tune']} tuning steps, seed {s['seed']}, on both sides.</p>",
        "<h2>Sides</h2>",
        "<table><tr><th>side</th><th>sampler</th><th>verdict</th><th>compile (s)</th>"
        "<th>sampling (s)</th><th>min ESS bulk / s</th><th>acceptance</th></tr>"
        + "".join(rows)
        + "</table>",
        "<p>Each hand-rolled side is judged against NUTS (<code>pymc</code>) and the exact "
        "answer; further PyMC samplers are shown as second references. Acceptance is the mean "
        "acceptance of Metropolis-type samplers (the seeds advise about 0.15 to 0.5 for a "
        "random walk).</p>",
        *extras,
        f"<h2>Checks that failed ({len(failed)} of {len(result.checks)})</h2>",
        _checks_table(failed) if len(failed) else "<p>None.</p>",
        "<h2>Summaries</h2>",
        *(
            f"<h3>{html.escape(label)}</h3>" + summary.to_html(float_format="%.4g", border=0)
            for label, summary in result.summaries.items()
        ),
        "<h2>Traces</h2>",
        _img(trace_figure(result)),
        "<h2>Densities</h2>",
        "<p>Histograms of both sides; the black line is the exact density where it is known.</p>",
        _img(density_figure(result)),
        f"<details><summary>All {len(result.checks)} checks</summary>"
        + _checks_table(result.checks)
        + "</details>",
        f'<p><a href="index.html">All pairs</a> · <a href="{pair.name}.json">JSON</a></p>',
    ]
    return _page(f"{pair.name}: {result.verdict}", body)


def _checks_table(checks) -> str:
    head = "".join(f"<th>{c}</th>" for c in checks.columns)
    rows = []
    for row in checks.itertuples(index=False):
        cells = []
        for col, value in zip(checks.columns, row, strict=True):
            text = f"{value:.4g}" if isinstance(value, float) else html.escape(str(value))
            cls = ' class="fail"' if col == "passed" and not value else ""
            cells.append(f"<td{cls}>{text}</td>")
        rows.append("<tr>" + "".join(cells) + "</tr>")
    return f"<table><tr>{head}</tr>{''.join(rows)}</table>"


def _compared_names(result: PairResult, limit: int = 8) -> list[str]:
    names = list(result.sides[PYMC].quantities["quantity"].values)
    return [str(n) for n in names[:limit]]


def trace_figure(result: PairResult):
    """Trace plots: one row per quantity, one column per side, a line per chain."""
    names = _compared_names(result)
    labels = list(result.sides)
    fig, axes = plt.subplots(
        len(names),
        len(labels),
        figsize=(4 * len(labels), 1.8 * len(names)),
        squeeze=False,
        sharey="row",
    )
    for j, label in enumerate(labels):
        q = result.sides[label].quantities
        for i, name in enumerate(names):
            ax = axes[i, j]
            values = q.sel(quantity=name).values
            for chain in values:
                ax.plot(chain, lw=0.4, alpha=0.7)
            if i == 0:
                ax.set_title(label, fontsize=9)
            if j == 0:
                ax.set_ylabel(name, fontsize=8)
            ax.tick_params(labelsize=7)
    fig.tight_layout()
    return fig


def density_figure(result: PairResult):
    """Histograms of every side per quantity, with the exact density where known."""
    names = _compared_names(result)
    cols = min(3, len(names))
    rows = math.ceil(len(names) / cols)
    fig, axes = plt.subplots(rows, cols, figsize=(4 * cols, 2.8 * rows), squeeze=False)
    for ax, name in zip(axes.flat, names, strict=False):
        for label, side in result.sides.items():
            values = side.quantities.sel(quantity=name).values.ravel()
            ax.hist(values, bins=60, density=True, histtype="step", label=label)
        exact = result.reference.get(name)
        if exact is not None and exact.pdf is not None:
            lo, hi = ax.get_xlim()
            grid = np.linspace(lo, hi, 400)
            ax.plot(grid, exact.pdf(grid), color="black", lw=1, label="exact")
        ax.set_title(name, fontsize=9)
        ax.tick_params(labelsize=7)
    for ax in axes.flat[len(names) :]:
        ax.set_visible(False)
    axes.flat[0].legend(fontsize=7)
    fig.tight_layout()
    return fig


def _img(fig) -> str:
    buffer = io.BytesIO()
    fig.savefig(buffer, format="png", dpi=90)
    plt.close(fig)
    encoded = base64.b64encode(buffer.getvalue()).decode("ascii")
    return f'<img alt="figure" src="data:image/png;base64,{encoded}">'


def _page(title: str, body: Sequence[str]) -> str:
    return (
        '<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">'
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        f"<title>{html.escape(title)}</title><style>{CSS}</style></head><body>\n"
        + "\n".join(body)
        + "\n</body></html>\n"
    )


def write_index(entries: Sequence[Mapping], out: Path) -> Path:
    """Write ``out/index.html`` listing every pair with its verdict and timings.

    Parameters
    ----------
    entries : sequence of mapping
        Per pair: ``name``, ``title``, ``verdict`` and ``seconds`` (wall time),
        and ``error`` when the run failed.
    out : Path
        Report directory.
    """
    rows = []
    for e in entries:
        colour = VERDICT_COLOURS.get(e["verdict"], "#57606a")
        rows.append(
            f'<tr><td><a href="{e["name"]}.html">{html.escape(e["name"])}</a></td>'
            f"<td>{html.escape(e['title'])}</td>"
            f'<td style="color:{colour};font-weight:600">{html.escape(e["verdict"])}</td>'
            f"<td>{e['seconds']:.1f}</td></tr>"
        )
    body = [
        "<h1>mcmc-pairs: every example sampled twice</h1>",
        "<p>Each pair runs a hand-written sampler and its PyMC twin with the same settings and "
        "checks that they agree (MCSE-scaled z-tests, Holm-corrected, plus R-hat and ESS "
        "gates).</p>",
        "<table><tr><th>pair</th><th>example</th><th>verdict</th><th>wall time (s)</th></tr>"
        + "".join(rows)
        + "</table>",
    ]
    path = Path(out) / "index.html"
    write_atomic(path, _page("mcmc-pairs report", body))
    return path
