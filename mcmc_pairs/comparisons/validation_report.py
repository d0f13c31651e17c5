"""The report of a validation run: its JSON document and its self-contained HTML page."""

from __future__ import annotations

import math
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd
from scipy import stats

from mcmc_pairs.comparisons import agreement, html, sbc
from mcmc_pairs.comparisons.files import finite_or_none, write_report
from mcmc_pairs.comparisons.sbc import (
    MAX_REFUSED_FRACTION,
    NOT_CONVERGED,
    QUANTITY_DRAWS,
    SBC_RANK_DRAWS,
)
from mcmc_pairs.comparisons.validation import ERROR, FAIL, PASS, ValidationResult

if TYPE_CHECKING:
    from matplotlib.figure import Figure


def to_json(result: ValidationResult) -> dict[str, Any]:
    """Return the JSON document of a validation run (docs/schemas/validate.schema.json)."""
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
    doc: dict[str, Any] = {
        "pair": result.pair,
        "method": result.method,
        "sampler": result.sampler,
        "verdict": result.verdict,
        "checks": checks,
        "settings": result.settings,
        "timings": result.timings,
        "replications": [  # a ranked SBC replication's quantity draws: functions of its draws
            {k: v for k, v in r.items() if k != QUANTITY_DRAWS} for r in result.replications
        ],
    }
    if result.error is not None:
        doc["error"] = result.error
    if result.method == "sbc" and "refused" in result.details:
        d = result.details
        keys = (
            "ranked", "refused", "refused_replications", "max_refused_fraction", "rerun",
            "rerun_replications", "draws_used", "chi2",
        )  # fmt: skip
        doc.update({key: d[key] for key in keys if key in d})
        doc["sbc_message"] = d.get("message", "")
        doc["sensitivity"] = d.get("sensitivity")
        doc["certifies"] = certificate(d.get("sensitivity"))
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
    NOT_CONVERGED: "Not converged: too many replications have too few effective draws even "
    "after their reruns; the sampler mixes too slowly for SBC at these draws (not a "
    "miscalibration).",
    ERROR: "Stopped: a replication failed. The finished replications are in the JSON file.",
}
VERDICT_COLOURS = {PASS: html.GREEN, FAIL: html.RED, NOT_CONVERGED: html.AMBER, ERROR: html.AMBER}


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
        f"runs the sampler and ranks the prior draw among {SBC_RANK_DRAWS} posterior draws "
        "spread evenly over the run. A calibrated sampler gives uniform ranks. Per quantity, "
        "the ECDF of rank / (L + 1) must stay inside its simultaneous band (Säilynoja, Bürkner "
        "and Vehtari 2022; band calibrated by simulating uniform ranks, size measured in "
        "benchmarks/sbc_uniformity.md); Holm's correction over the quantities. A replication "
        f"with fewer than {SBC_RANK_DRAWS} effective draws is rerun from the same seed (same "
        "prior draw, same data) with twice the draws, up to max_draws per chain; one still "
        "short is refused (its ranks would pile up at the ends); more than "
        f"{MAX_REFUSED_FRACTION:.0%} refused makes the run 'not converged', not 'fail', "
        "unless a rank test rejects among the ranked ones. A pass states the smallest "
        "miscalibration the run detects (below).",
    }[result.method]
    settings_text = ", ".join(f"{k} {v}" for k, v in s.items())
    body = [
        f"<h1>{html.escape(result.method.upper())} validation of "
        f"<code>{html.escape(result.sampler)}</code> on "
        f"<code>{html.escape(result.pair)}</code></h1>",
        html.verdict_banner(
            f"Verdict: {result.verdict}. {_verdict_words(result)}",
            VERDICT_COLOURS[result.verdict],
        ),
        f"<p>{html.escape(method_text)}</p>",
        f"<p>Settings: {html.escape(settings_text)}. {len(result.replications)} replications in "
        f"{result.timings.get('total_s', 0):.1f} s.</p>",
    ]
    if result.error:
        body.append(f"<p><strong>Error:</strong> {html.escape(result.error)}</p>")
    if result.method == "sbc" and result.details.get("draws_used"):
        body.append(_draws_paragraph(result.details, s))
        if s.get("auto"):
            body.append(_auto_paragraph(s["auto"]))
    if result.method == "sbc" and result.details.get("refused"):
        d = result.details
        body.append(
            f"<p><strong>Refused replications:</strong> {html.escape(d['message'])} "
            f"Refused: {html.escape(', '.join(map(str, d['refused_replications'])))} "
            f"({d['ranked']} ranked).</p>"
        )
    if len(result.checks):
        body.append("<h2>Tests</h2>")
        if result.method == "sbc":
            body.append(SBC_COLUMNS)
        body.append(html.table(result.checks.rename(columns=SHOWN_COLUMNS[result.method])))
        if result.method == "geweke":
            body += [
                "<h2>Figure</h2>",
                html.figure(geweke_figure, result, alt="z-score of each test"),
            ]
        else:
            body += _sbc_sections(result)
    body.append(f'<p><a href="{result.pair}_{result.method}.json">JSON</a></p>')
    return html.page(f"{result.pair} {result.method}: {result.verdict}", body)


def geweke_figure(result: ValidationResult) -> Figure:
    """z-score of every test function against its Holm threshold."""
    checks = result.checks
    fig, ax = html.pyplot().subplots(figsize=(7, 0.3 * len(checks) + 1.2))
    y = np.arange(len(checks))
    colours = np.where(checks["passed"], html.GREEN, html.RED)
    ax.barh(y, checks["value"].clip(-20, 20), color=colours)
    ax.plot(checks["threshold"], y, "k|")
    ax.plot(-checks["threshold"], y, "k|")
    ax.set_yticks(y, checks["quantity"], fontsize=8)
    ax.set_xlabel("z = (marginal-conditional - successive-conditional) / MCSE (clipped at 20)")
    fig.tight_layout()
    return fig


def sbc_figure(result: ValidationResult) -> Figure:
    """Rank histograms per quantity, with the 99 % band of a uniform bin count."""
    ranks = np.asarray(result.details["ranks"])
    names = result.details["quantities"]
    bins = result.details["bins"]
    width = (SBC_RANK_DRAWS + 1) // bins
    cols = min(4, len(names))
    rows = math.ceil(len(names) / cols)
    fig, axes = html.pyplot().subplots(rows, cols, figsize=(3.2 * cols, 2.3 * rows), squeeze=False)
    n = len(ranks)
    lo, hi = np.asarray(stats.binom.ppf([0.005, 0.995], n, 1 / bins))
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


def _verdict_words(result: ValidationResult) -> str:
    if result.method == "sbc" and result.verdict == NOT_CONVERGED:
        return result.details["message"]
    if result.method == "sbc" and result.verdict == PASS and result.details.get("sensitivity"):
        return f"Passes: no miscalibration detected; {certificate(result.details['sensitivity'])}."
    return VERDICT_WORDS[result.verdict]


def _number(value: float | None) -> str:
    return "not reached on the grid" if value is None else f"{value:g}"


def certificate(sens: dict[str, Any] | None) -> str:
    """Say what an SBC run rules out (:func:`~.sbc.sensitivity`), per quantity and overall.

    "this run rules out, with 80% power at its 200 ranked replications, a shift
    of the posterior mean by >= 0.5 posterior sd in any one quantity (>= 0.3 in
    beta0, beta1; >= 0.5 in sigma2) and an sd ratio outside [0.8, 1.3]; not
    shifts below": the run's statement (its worst quantity's), then each
    quantity's threshold, the quantities that reach none named apart.
    """
    if not sens:
        return ""
    grid = sens["grid"]
    power = f"{sens['power']:.0%}"
    at = f"with {power} power at its {sens['replications']} ranked replications"
    informative = [q for q in sens["quantities"] if q["informative"]]
    reached = [q for q in informative if q["shift"] is not None]
    unreached = [q["quantity"] for q in informative if q["shift"] is None]
    ruled_out = []
    if reached:
        worst = max(q["shift"] for q in reached)
        scope = "any one quantity" + (f" but {_names(unreached)}" if unreached else "")
        shift = f"a shift of the posterior mean by >= {worst:g} posterior sd in {scope}"
        if min(q["shift"] for q in reached) < worst:
            shift += f" ({_shift_groups(reached)})"
        ruled_out.append(shift)
    low, high = sens["sd_ratio"]
    if sens.get("sd_ratio_measured", True):
        if low is not None and high is not None:
            ruled_out.append(f"an sd ratio outside [{low:g}, {high:g}]")
        elif low is not None:
            ruled_out.append(f"an sd ratio <= {low:g}")
        elif high is not None:
            ruled_out.append(f"an sd ratio >= {high:g}")
    if ruled_out:
        text = f"this run rules out, {at}, {' and '.join(ruled_out)}"
        text += "; not shifts below" if reached else "; no shift of a posterior mean"
    else:
        text = f"this run rules out no distortion on the grid {at}"
    if unreached and reached:
        text += (
            f"; not shifts up to {grid['shift'][-1]:g} sd in {_names(unreached)} "
            "(no shift on the grid reaches that power there)"
        )
    if sens.get("sd_ratio_measured", True) and ruled_out:
        if low is None:
            text += f"; not sd ratios down to {grid['sd_ratio_low'][-1]:g}"
        if high is None:
            text += f"; not sd ratios up to {grid['sd_ratio_high'][-1]:g}"
    if not sens.get("sd_ratio_measured", True):
        text += "; sd ratios are not measured (every quantity is discrete)"
    return text


NAMED = 4
"""Quantities :func:`certificate` names per threshold before it counts the rest."""


def _shift_groups(quantities: list[dict[str, Any]]) -> str:
    """``>= 0.3 in beta0, beta1; >= 0.5 in sigma2``: the quantities grouped by their shift."""
    by_shift: dict[float, list[str]] = {}
    for q in sorted(quantities, key=lambda q: q["shift"]):
        by_shift.setdefault(q["shift"], []).append(q["quantity"])
    return "; ".join(f">= {shift:g} in {_names(names)}" for shift, names in by_shift.items())


def _names(names: list[str]) -> str:
    """Return the first :data:`NAMED` names, and how many more."""
    shown = ", ".join(names[:NAMED])
    return shown if len(names) <= NAMED else f"{shown} and {len(names) - NAMED} more"


def _draws_paragraph(d: dict[str, Any], settings: dict[str, Any]) -> str:
    """Say how many replications were rerun with more draws, and the draws each used."""
    used = ", ".join(
        f"{n} at {int(k):,}" for k, n in sorted(d["draws_used"].items(), key=lambda kv: int(kv[0]))
    )
    rerun = d.get("rerun", 0)
    which = ""
    if rerun:
        shown = d["rerun_replications"][:20]
        more = f" and {rerun - len(shown)} more" if rerun > len(shown) else ""
        which = f" (replications {', '.join(map(str, shown))}{more})"
    return (
        f"<p><strong>Draws per chain:</strong> {rerun} of {d['ranked'] + d['refused']} "
        f"replications were rerun with doubled draws{which}, up to max_draws "
        f"{settings.get('max_draws', '?')}; replications by the draws their ranks come from: "
        f"{html.escape(used)} (each replication's <code>draws_used</code> and "
        "<code>reruns</code> are in the JSON).</p>"
    )


def _auto_paragraph(auto: dict[str, Any]) -> str:
    """Say how ``--replications auto`` chose the run's size: its stages and why it stopped."""
    stages = "; ".join(
        f"{st['replications']} replications: "
        + ("no shift on the grid" if st["shift"] is None else f"{st['shift']:g} sd")
        for st in auto["stages"]
    )
    why = (
        f"resolved: the last stage rules out shifts of {auto['resolution']:g} sd in every quantity"
        if auto["resolved"]
        else f"not resolved: the budget of {auto['max_replications']} replications was reached "
        f"before shifts of {auto['resolution']:g} sd were ruled out in every quantity"
    )
    return (
        f"<p><strong>Replications chosen automatically</strong> (from {auto['start']}, "
        f"doubling until the run rules out shifts of {auto['resolution']:g} posterior sd in "
        f"every quantity, or {auto['max_replications']}): {html.escape(stages)}; {why}. The "
        "rule reads only the shapes of the kept draws, never the ranks, so the one test at "
        "the end keeps its level.</p>"
    )


SHOWN_COLUMNS: dict[str, dict[str, str]] = {
    "sbc": {
        "value": "smallest tail probability",
        "threshold": "pointwise level",
        "p": "band p-value",
    },
    "geweke": {"value": "z", "threshold": "|z| limit", "p": "p-value"},
}
"""The tests table's columns as the page and the terminal name them, per method: the JSON keeps
``value``, ``threshold`` and ``p``, which in SBC's table are three different probabilities."""

SBC_COLUMNS = (
    "<p><em>The table's columns:</em> <code>quantity</code>, the test quantity; "
    "<code>statistic</code>, the ECDF band test (or the fraction of refused "
    "replications); <code>smallest tail probability</code>, the smallest two-sided "
    "binomial tail probability of the ECDF of rank / (L + 1) over its L points (small: the "
    "ranks are far from uniform somewhere; for the refused row, the fraction refused); "
    "<code>pointwise level</code>, the band's pointwise level at the quantity's Holm level "
    "(the test fails when the smallest tail probability is below it; for the refused row, the "
    "largest fraction allowed); <code>band p-value</code>, the band test's p-value (from "
    "simulated uniform ranks); <code>passed</code>, after Holm's correction over the "
    "quantities. The JSON names the three numbers <code>value</code>, <code>threshold</code> "
    "and <code>p</code>.</p>"
)
"""The SBC page's explanation of the columns of its tests table."""


def _sbc_sections(result: ValidationResult) -> list[str]:
    d = result.details
    if not d.get("ranks"):
        return ["<p>No replication was ranked.</p>"]
    alpha = result.settings.get("alpha", agreement.ALPHA)
    parts = [
        *_sensitivity_section(d),
        "<h2>Rank histograms</h2>",
        html.figure(sbc_figure, result, alt="rank histograms"),
        "<h2>ECDF difference of the normalised ranks, with simultaneous bands</h2>",
        f"<p>ECDF(rank / (L + 1)) minus the uniform CDF for each quantity, L = {d['L']}. "
        f"Uniform ranks stay inside the light band with probability {1 - alpha:g} per quantity "
        f"and inside the dark (wider) band with probability {1 - alpha / len(d['quantities']):.4g} "
        "(Bonferroni over the quantities): a curve that leaves the dark band fails the run; "
        "Holm's step-down may also fail a curve that leaves only the light band.</p>",
        html.figure(sbc_ecdf_figure, result, alt="ECDF difference of the ranks with bands"),
    ]
    if d.get("chi2"):
        chi2 = pd.DataFrame(d["chi2"])
        parts += [
            f"<h2>Chi-square of {d['bins']} rank bins (shown, not part of the verdict)</h2>",
            f"<p><code>value</code> is Pearson's chi-square of the rank counts in {d['bins']} "
            f"equal bins against their uniform expectation ({d['bins'] - 1} degrees of "
            "freedom), <code>p</code> its p-value, without correction for the number of "
            "quantities.</p>",
            html.table(chi2),
        ]
    return parts


def _sensitivity_section(d: dict[str, Any]) -> list[str]:
    """Return the section on what the run rules out with its stated power, per quantity."""
    sens = d.get("sensitivity")
    if not sens:
        return []
    rows = pd.DataFrame(
        [
            {
                "quantity": q["quantity"],
                "mean shift (sd)": _number(q["shift"]),
                "too narrow: sd ratio <=": "n/a (discrete)"
                if q.get("lattice")
                else _number(q["sd_ratio_low"]),
                "too wide: sd ratio >=": "n/a (discrete)"
                if q.get("lattice")
                else _number(q["sd_ratio_high"]),
            }
            for q in sens["quantities"]
        ]
    )
    constant = [q["quantity"] for q in sens["quantities"] if not q["informative"]]
    left_out = (
        f" Left out of the statement: {', '.join(constant)} (constant in every replication)."
        if constant
        else ""
    )
    return [
        "<h2>What this run rules out</h2>",
        f"<p>{html.escape(certificate(sens)[0].upper() + certificate(sens)[1:])}. "
        "Measured by planting each distortion into one quantity at a time of every ranked "
        "replication's own kept draws (standardised by that replication's posterior mean "
        "and sd) and simulating "
        f"{sens['resamples']} SBC runs of {sens['replications']} replications: a fresh "
        "true value drawn from each replication's kept draws, ranked among draws of the "
        "distorted posterior, judged by the same band test at the quantity's first Holm "
        f"level ({sens['level']:.2g}). A row gives the smallest distortion on the grid "
        f"detected in at least {sens['power']:.0%} of the simulated runs: a shift of the "
        "posterior mean by that many posterior sds (either direction), and sd ratios "
        "(the sampler's posterior sd over the true one) at or beyond the bounds. A discrete "
        "quantity (fewer distinct kept values than half of L) has its mean moved by "
        "exponential tilting of its kept draws' weights, not by moving them off their "
        "lattice, and no sd ratio (a lattice's spread is tied to its mean). Smaller "
        "distortions may pass unseen; more replications resolve smaller ones (about as "
        f"1 / sqrt(replications)).{left_out}</p>",
        html.table(rows),
    ]


def sbc_ecdf_figure(result: ValidationResult) -> Figure:
    """ECDF(rank / (L + 1)) - uniform CDF per quantity, with 1 - alpha and Bonferroni bands."""
    ranks = np.asarray(result.details["ranks"])
    names = result.details["quantities"]
    L = result.details["L"]
    alpha = result.settings.get("alpha", agreement.ALPHA)
    n = len(ranks)
    failed = set(result.checks.loc[~result.checks["passed"].astype(bool), "quantity"])
    z, lo, hi = sbc.ecdf_band(n, alpha, L)
    _, lo_all, hi_all = sbc.ecdf_band(n, alpha / len(names), L)
    cols = min(4, len(names))
    rows = math.ceil(len(names) / cols)
    fig, axes = html.pyplot().subplots(
        rows, cols, figsize=(3.2 * cols, 2.3 * rows), squeeze=False, sharey=True
    )
    for ax, k in zip(axes.flat, range(len(names)), strict=False):
        ax.fill_between(z, lo_all, hi_all, step="mid", color="0.75", linewidth=0)
        ax.fill_between(z, lo, hi, step="mid", color="0.88", linewidth=0)
        _, diff = sbc.ecdf_difference(ranks[:, k], L)
        colour = html.RED if names[k] in failed else html.BLUE
        ax.step(z, diff, where="mid", color=colour, linewidth=1.2)
        ax.axhline(0, color="0.4", linewidth=0.5)
        ax.set_title(names[k], fontsize=8)
        ax.tick_params(labelsize=7)
    for ax in axes.flat[len(names) :]:
        ax.set_visible(False)
    fig.supxlabel("rank / (L + 1)", fontsize=8)
    fig.supylabel("ECDF difference", fontsize=8)
    fig.tight_layout()
    return fig
