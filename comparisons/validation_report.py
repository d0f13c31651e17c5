"""The report of a validation run: its JSON document and its self-contained HTML page."""

from __future__ import annotations

import math
from pathlib import Path

import matplotlib.pyplot as plt
import numpy as np
import xarray as xr
from scipy import stats

from comparisons import html
from comparisons.files import finite_or_none, write_report
from comparisons.sbc import SBC_RANK_DRAWS
from comparisons.validation import ERROR, FAIL, PASS, ValidationResult


def to_json(result: ValidationResult) -> dict:
    """Return the JSON document of a validation run (DESIGN.md's keys plus details)."""
    checks = [
        {
            "quantity": row.quantity,
            "statistic": row.statistic,
            "value": finite_or_none(row.value),
            "threshold": finite_or_none(row.threshold),
            "p": finite_or_none(row.p),
            "passed": bool(row.passed),
        }
        for row in result.checks.itertuples()
    ]
    doc = {
        "pair": result.pair,
        "method": result.method,
        "sampler": result.sampler,
        "verdict": result.verdict,
        "checks": checks,
        "settings": result.settings,
        "timings": result.timings,
        "replications": result.replications,
    }
    if result.error is not None:
        doc["error"] = result.error
    if result.method == "sbc" and "under_thinned" in result.details:
        doc["under_thinned"] = result.details["under_thinned"]
    return doc


def write_validation_report(result: ValidationResult, out: Path) -> tuple[Path, Path]:
    """Write ``out/<pair>_<method>.json`` and ``.html`` atomically; return (html, json) paths."""
    page = render_validation(result)
    return write_report(out, f"{result.pair}_{result.method}", to_json(result), page)


VERDICT_WORDS = {
    PASS: "Passes: no test function shows a difference its Monte Carlo error cannot explain.",
    FAIL: "Fails: at least one test rejects at the Holm-corrected level. The sampler does not "
    "sample the posterior it is meant to (or, for Geweke without an initial-state argument, "
    "has not converged within tune transitions).",
    ERROR: "Stopped: a replication failed. The finished replications are in the JSON file.",
}
VERDICT_COLOURS = {PASS: html.GREEN, FAIL: html.RED, ERROR: html.AMBER}


def render_validation(result: ValidationResult) -> str:
    """Return the self-contained HTML page of a validation run."""
    s = result.settings
    method_text = {
        "geweke": "Geweke's joint-distribution test compares the marginal-conditional simulator "
        "(parameters from the prior, data from the likelihood) with the successive-conditional "
        "simulator (data given parameters, then the sampler's draw given the data). Each test "
        "function's means must agree within their Monte Carlo errors (the successive chain's "
        "from arviz_stats over its replications); Holm's correction over the test functions.",
        "sbc": "Simulation-based calibration draws parameters from the prior, simulates data, "
        "runs the sampler and ranks the prior draw among posterior draws thinned by ESS. A "
        "calibrated sampler gives uniform ranks: chi-square test per quantity, Holm-corrected, "
        "and the Δ-ECDF of the normalised ranks should stay near zero.",
    }[result.method]
    settings_text = ", ".join(f"{k} {v}" for k, v in s.items())
    body = [
        f"<h1>{html.escape(result.method.upper())} validation of "
        f"<code>{html.escape(result.sampler)}</code> on "
        f"<code>{html.escape(result.pair)}</code></h1>",
        html.verdict_banner(
            f"Verdict: {result.verdict}. {VERDICT_WORDS[result.verdict]}",
            VERDICT_COLOURS[result.verdict],
        ),
        f"<p>{html.escape(method_text)}</p>",
        f"<p>Settings: {html.escape(settings_text)}. {len(result.replications)} replications in "
        f"{result.timings.get('total_s', 0):.1f} s.</p>",
    ]
    if result.error:
        body.append(f"<p><strong>Error:</strong> {html.escape(result.error)}</p>")
    if len(result.checks):
        body += ["<h2>Tests</h2>", html.table(result.checks), "<h2>Figure</h2>"]
        if result.method == "geweke":
            body.append(html.figure(geweke_figure, result, alt="z-score of each test"))
        else:
            body += [
                html.figure(sbc_figure, result, alt="rank histograms"),
                "<h2>Δ-ECDF of the normalised ranks (arviz_plots, pot_c test)</h2>",
                html.figure(sbc_ecdf_figure, result, alt="Δ-ECDF of the ranks"),
            ]
    body.append(f'<p><a href="{result.pair}_{result.method}.json">JSON</a></p>')
    return html.page(f"{result.pair} {result.method}: {result.verdict}", body)


def geweke_figure(result: ValidationResult):
    """z-score of every test function against its Holm threshold."""
    checks = result.checks
    fig, ax = plt.subplots(figsize=(7, 0.3 * len(checks) + 1.2))
    y = np.arange(len(checks))
    colours = np.where(checks["passed"], html.GREEN, html.RED)
    ax.barh(y, checks["value"].clip(-20, 20), color=colours)
    ax.plot(checks["threshold"], y, "k|")
    ax.plot(-checks["threshold"], y, "k|")
    ax.set_yticks(y, checks["quantity"], fontsize=8)
    ax.set_xlabel("z = (marginal-conditional - successive-conditional) / MCSE (clipped at 20)")
    fig.tight_layout()
    return fig


def sbc_figure(result: ValidationResult):
    """Rank histograms per quantity, with the 99 % band of a uniform bin count."""
    ranks = np.asarray(result.details["ranks"])
    names = result.details["quantities"]
    bins = result.details["bins"]
    width = (SBC_RANK_DRAWS + 1) // bins
    cols = min(4, len(names))
    rows = math.ceil(len(names) / cols)
    fig, axes = plt.subplots(rows, cols, figsize=(3.2 * cols, 2.3 * rows), squeeze=False)
    n = len(ranks)
    lo, hi = stats.binom.ppf([0.005, 0.995], n, 1 / bins)
    for ax, k in zip(axes.flat, range(len(names)), strict=False):
        counts = np.bincount(ranks[:, k] // width, minlength=bins)
        ax.axhspan(lo, hi, color="0.85")
        ax.bar(np.arange(bins), counts, width=1.0, color=html.BLUE)
        ax.set_title(names[k], fontsize=8)
        ax.tick_params(labelsize=7)
    for ax in axes.flat[len(names) :]:
        ax.set_visible(False)
    fig.tight_layout()
    return fig


def sbc_ecdf_figure(result: ValidationResult):
    """Δ-ECDF of the PIT values (ranks), by ``arviz_plots.plot_ecdf_pit`` with ``pot_c``."""
    import arviz_plots as azp

    ranks = np.asarray(result.details["ranks"], dtype=float)
    names = result.details["quantities"]
    pit = (ranks + 0.5) / (SBC_RANK_DRAWS + 1)
    ds = xr.Dataset(
        {_safe(name): (("chain", "draw"), pit[None, :, k]) for k, name in enumerate(names[:8])}
    )
    tree = xr.DataTree.from_dict({"prior_sbc": ds})
    # "pot_c" (arviz_plots' recommended test; suspicious points highlighted): the
    # legacy "envelope" bands raise a TypeError in arviz_plots 1.3.2.
    return azp.plot_ecdf_pit(tree, method="pot_c", backend="matplotlib")


def _safe(name: str) -> str:
    return name.replace("*", " x ").replace("+", " plus ").replace("^", " pow ")
