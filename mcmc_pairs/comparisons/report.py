"""The compare report: one self-contained HTML page and one JSON file per pair, and an index.

Pages are built from the shared helpers of :mod:`mcmc_pairs.comparisons.html` and written
atomically (:mod:`mcmc_pairs.comparisons.files`), so a failed run leaves nothing
half-written. Matplotlib and arviz-plots are imported when a figure is drawn: describing
checks (:func:`describe_check`) loads neither.
"""

from __future__ import annotations

import json
import math
import re
import warnings
from collections.abc import Callable, Sequence
from pathlib import Path
from types import ModuleType
from typing import (
    TYPE_CHECKING,
    Any,
    Literal,
    NotRequired,
    Protocol,
    TypedDict,
    TypeVar,
    overload,
)

import arviz_base as azb
import numpy as np
import pandas as pd

from mcmc_pairs.comparisons import energy, honesty, html, reuse
from mcmc_pairs.comparisons.agreement import (
    AGREE,
    ALPHA_EQUIVALENCE,
    DISAGREE,
    INCONCLUSIVE,
    LEAD,
    NOT_CONVERGED,
    REFERENCE_FAILED,
    STATISTICS,
    diverged,
    tolerances,
)
from mcmc_pairs.comparisons.files import finite_or_none, write_atomic, write_report
from mcmc_pairs.comparisons.kinds import (
    ESS_GATES,
    HONESTY_KINDS,
    Z_KINDS,
    CheckKind,
    Gate,
    Role,
    Statistic,
)
from mcmc_pairs.comparisons.pair import Pair
from mcmc_pairs.comparisons.result import PairResult
from mcmc_pairs.comparisons.run import HANDROLLED, PYMC, UNDER_TEST
from mcmc_pairs.comparisons.sides import Side
from mcmc_pairs.comparisons.stats.checks import FRAME_COLUMNS, Check

if TYPE_CHECKING:
    import xarray as xr
    from arviz_plots import PlotCollection
    from matplotlib.axes import Axes
    from matplotlib.figure import Figure

_T = TypeVar("_T")

VERDICT_COLOURS: dict[str, str] = {
    AGREE: html.GREEN,
    DISAGREE: html.RED,
    NOT_CONVERGED: html.AMBER,
    INCONCLUSIVE: html.AMBER,
    REFERENCE_FAILED: html.BLUE,
}


def check_records(checks: pd.DataFrame) -> list[Check]:
    """Return the rows of a checks table (:func:`~.stats.checks.checks_frame`) as records."""
    table = checks[list(FRAME_COLUMNS)]
    return [Check(*row) for row in table.itertuples(index=False, name=None)]


def to_json(result: PairResult) -> dict[str, Any]:
    """Return the JSON document of one pair run (docs/schemas/compare.schema.json)."""
    checks = [
        {
            "comparison": row.comparison,
            "side": row.side,
            "kind": row.kind,
            "quantity": row.quantity,
            "statistic": row.statistic,
            "value": finite_or_none(row.value),
            "threshold": finite_or_none(row.threshold),
            "passed": bool(row.passed),
            "gross": bool(row.gross),
            "difference": finite_or_none(row.difference),
            "resolution": _resolution_or_none(row.resolution),
            "tolerance": finite_or_none(row.tolerance),
            "equivalent": None if pd.isna(row.equivalent) else bool(row.equivalent),
            "p": finite_or_none(row.p),
            "level": finite_or_none(row.level),
            "note": row.note if isinstance(row.note, str) else "",
        }
        for row in check_records(result.checks)
    ]
    sides: dict[str, dict[str, Any]] = {}
    for label, side in result.sides.items():
        sides[label] = {
            "role": side.role,
            "sampler": side.sampler,
            "timings": side.timings,
            "ess_bulk_per_second": finite_or_none(result.ess_per_second(label)),
            "summary": json.loads(result.summaries[label].to_json(orient="index")),
        }
        if label in result.verdicts:
            sides[label]["verdict"] = result.verdicts[label]
        if side.acceptance_rate is not None:
            sides[label]["acceptance_rate"] = side.acceptance_rate
        if side.role in (Role.PYMC, Role.PYMC_STEP) and not side.stored:
            sides[label]["from_cache"] = side.from_cache
    return {
        "pair": result.pair.name,
        "title": result.pair.title,
        "verdict": result.verdict,
        "checks": checks,
        "settings": result.settings.as_json(),
        "resolution": {
            "tolerance": dict(tolerances(result.settings.tolerance)),
            "reached": _reached(result),
            "alpha_equivalence": ALPHA_EQUIVALENCE,
        },
        "looks": result.looks,
        "discrete": list(result.discrete),
        "timings": result.timings,
        "sides": sides,
    } | ({"cannot_grow": list(result.cannot_grow)} if result.cannot_grow else {})


WORST = 10
"""Checks the terminal shows, worst first (:func:`worst_checks`); the JSON has them all."""


def severity(checks: pd.DataFrame) -> pd.Series:
    """Return how close each check is to failing, as a ratio: above 1 fails.

    ``|z| / threshold`` for z-checks, ``value / critical value`` for the energy
    check, ``R-hat - 1`` over ``threshold - 1`` and ``threshold / ESS`` for the
    gates, infinity for draws outside the support.
    """
    value = checks["value"].astype(float).abs()
    threshold = checks["threshold"].astype(float)
    stat = checks["statistic"].astype(str)
    with np.errstate(divide="ignore", invalid="ignore"):
        ratio = value / threshold
        ratio = ratio.where(stat != Gate.R_HAT, (value - 1) / (threshold - 1))
        ratio = ratio.where(~stat.isin(list(ESS_GATES)), threshold / value)
    outside = pd.Series(np.where(value > 0, np.inf, 0.0), index=checks.index)
    ratio = ratio.where(checks["kind"] != CheckKind.SUPPORT, outside)
    undefined = pd.Series(np.where(checks["passed"], 0.0, np.inf), index=checks.index)
    ratio = ratio.where(~ratio.isna(), undefined)
    return ratio.where(checks["passed"] | (ratio > 1), np.inf)


def worst_checks(checks: pd.DataFrame, n: int = WORST) -> pd.DataFrame:
    """Return the ``n`` checks nearest to failing (failed ones first), worst first."""
    order = severity(checks).sort_values(ascending=False, kind="stable").index
    return checks.loc[order[:n]]


def describe_check(row: Check) -> str:
    """Return one check in words: what was tested, its numbers, and whether it passed."""
    outcome = "passed" if row.passed else "FAILED"
    note = f"; {row.note}" if isinstance(row.note, str) and row.note else ""
    p, level = row.p, row.level
    if row.kind in Z_KINDS:
        return (
            f"{outcome}: {row.comparison}, {row.statistic} of {row.quantity}: z = "
            f"{row.value:.3g} against its Holm threshold {row.threshold:.3g} (p = {p:.2g}, "
            f"level {level:.2g}){note}"
        )
    if row.kind == CheckKind.MULTIVARIATE:
        return (
            f"{outcome}: {row.comparison}, energy distance of all quantities {row.value:.4g} "
            f"against its permutation critical value {row.threshold:.4g} (p = {p:.2g}, "
            f"level {level:.2g}){note}"
        )
    if row.kind == CheckKind.DIAGNOSTIC and row.statistic == Gate.DIVERGENCES:
        return f"{outcome}: {row.side}, {row.value:.0f} divergent transitions (gate: none)"
    if row.kind == CheckKind.DIAGNOSTIC:
        gate = "below" if row.statistic == Gate.R_HAT else "at least"
        return (
            f"{outcome}: {row.side}, {row.statistic} of {row.quantity} = {row.value:.4g} "
            f"(gate: {gate} {row.threshold:.4g})"
        )
    if row.kind in HONESTY_KINDS:
        return _describe_honesty(row, outcome)
    small = 0 < row.value < 0.001  # 1 draw in 4,000 is not "0.0 %"
    share = f"{100 * row.value:.2g}%" if small else f"{row.value:.1%}"
    return f"{outcome}: {row.side}, {share} of the draws of {row.quantity} are not finite"


def _describe_honesty(row: Check, outcome: str) -> str:
    """Return an honesty check (:mod:`~.honesty`) in words, for :func:`describe_check`."""
    if row.kind == CheckKind.INDEPENDENCE:
        if pd.isna(row.value) or row.statistic == honesty.SHARED:
            return f"{outcome}: {row.side}, independence of its chains: {row.note}"
        return (
            f"{outcome}: {row.side}, independence of its chains: largest chain correlation "
            f"{row.value:.3g} of {row.quantity} against {row.threshold:.3g} ({row.note})"
        )
    if row.kind == CheckKind.COPY:
        return f"{outcome}: {row.side}, draws not copied from the reference: {row.note}"
    return f"{outcome}: {row.side}, reproducibility: {row.note}"


def _resolution_or_none(value: float | None) -> float | str | None:
    """Return a resolution for JSON: a number, ``"inf"`` (no finite bound) or None (no z-check)."""
    if value is None or pd.isna(value):
        return None
    return "inf" if math.isinf(value) else float(value)


def deciding_checks(result: PairResult) -> pd.DataFrame:
    """Return the checks the pair's verdict rests on: its sides under test's and PyMC's own.

    A second PyMC reference (``pymc_step``) is shown in the report but decides nothing.
    """
    labels = [label for label, side in result.sides.items() if side.role in UNDER_TEST]
    return result.checks[result.checks["side"].isin([*labels, PYMC])]


def resolution_table(result: PairResult) -> pd.DataFrame:
    """Per quantity, the resolution reached for each statistic: the largest over its checks.

    In posterior sds: the side(s) under test and PyMC differ by less than this
    at the run's confidence (``agreement.resolutions``), over the checks the
    verdict rests on (:func:`deciding_checks`). ``NaN`` where no tolerance
    applies (the spread of a centred product). Rows sorted from the worst
    (largest resolution over tolerance) down.
    """
    checks = deciding_checks(result)
    z = checks[checks["kind"].isin(Z_KINDS)]
    z = z[z["tolerance"].notna()]
    if z.empty:
        return pd.DataFrame()
    stat = z["statistic"].map(Statistic.of_check)
    z = z.assign(stat=stat, excess=z["resolution"] / z["tolerance"])
    table = z.pivot_table(index="quantity", columns="stat", values="resolution", aggfunc="max")
    order = z.groupby("quantity")["excess"].max().sort_values(ascending=False).index
    return table.loc[order, [c for c in STATISTICS if c in table.columns]]


def _reached(result: PairResult) -> dict[str, float | str | None]:
    """Return the largest resolution of each statistic over every certified check."""
    table = resolution_table(result)
    return {stat: _resolution_or_none(table[stat].max()) for stat in table.columns}


def _origin(pair: Pair) -> str:
    """Where the pair comes from: its seed document, or the user's model."""
    if pair.seed:
        return f"Seed document <code>{html.escape(pair.seed)}</code>"
    model = pair.model if isinstance(pair.model, str) else getattr(pair.model, "__qualname__", "")
    return f"Your model <code>{html.escape(str(model))}</code> against your sampler"


def write_pair_report(result: PairResult, out: Path) -> tuple[Path, Path]:
    """Write ``out/<pair>.json`` and ``out/<pair>.html`` atomically; return (html, json) paths."""
    return write_report(out, result.pair.name, to_json(result), render_pair(result))


HONESTY_WORDS = {
    CheckKind.INDEPENDENCE: (
        "its chains are not independent of each other: chains {pair} of <code>{quantity}"
        "</code> correlate at r = {value:.3f} at equal iterations, far beyond what independent "
        "chains give (flagged above {threshold:.2f}). Copies of one chain make R-hat and every "
        "Monte Carlo standard error look better than they are"
    ),
    CheckKind.COPY: (
        "its draws are copied from the reference: {value:.0%} of the draws of <code>{quantity}"
        "</code> equal the reference's bit for bit, so the comparison compares the reference "
        "with itself"
    ),
    honesty.SHARED: (
        "its chains are copies of one chain, shifted, reversed or shuffled: chains {pair} "
        "share {value:.0%} of the draws of <code>{quantity}</code>, bit for bit, which "
        "independent chains never do. They make R-hat and every Monte Carlo standard error "
        "look better than they are"
    ),
    honesty.NEAR_COPY: (
        "its draws follow the reference's draw by draw: chains {pair} of <code>{quantity}"
        "</code> correlate with the reference's at r = {value:.3f} at equal draws (flagged "
        "above {threshold:.2f}): the reference's draws changed a little (noise, rounding, a "
        "shift), so the comparison compares the reference with itself"
    ),
    CheckKind.REPRODUCIBILITY: (
        "it is not reproducible: two more calls with the same seed gave different draws "
        "({value:.0%} of the values differ), though the sampler contract asks for the same "
        "draws bit for bit (draw every random number from <code>random_seed</code>)"
    ),
}
"""What a failed honesty check means, in a student's words (:func:`honesty_sentence`)."""


def honesty_sentence(result: PairResult) -> str:
    """Say in words what the honesty checks (:mod:`~.honesty`) found for the sides under test.

    Each failure is named with its numbers; when none failed, what was checked.
    A failed honesty check makes its side ``disagree`` whatever else it passed.
    """
    checks = deciding_checks(result)
    honest = checks[checks["kind"].isin(HONESTY_KINDS)]
    if honest.empty:
        return ""
    failed = honest[~honest["passed"].astype(bool)]
    if failed.empty:
        kinds = ", ".join(str(k) for k in dict.fromkeys(honest["kind"]))
        return (
            f"Honesty checks passed ({kinds}): the chains of each side under test are "
            "independent of each other, its draws are not the reference's, and a sampler "
            "called again with the same seed gave the same draws."
        )
    said = []
    for row in check_records(failed):
        chains = re.match(r"chains (\d+ and \d+)", row.note or "")
        pair = chains.group(1) if chains else "of two"
        words = HONESTY_WORDS.get(row.statistic, HONESTY_WORDS[row.kind]).format(
            pair=html.escape(pair),
            quantity=html.escape(str(row.quantity)),
            value=row.value,
            threshold=row.threshold,
        )
        said.append(f"{html.escape(str(row.side))}: {words}.")
    return (
        "Honesty checks failed, so the verdict is disagree whatever the comparisons say: "
        + " ".join(said)
    )


DISHONEST = (
    "The sampler under test cannot be trusted: it fails an honesty check (below), "
    "which ends in disagree whatever its comparisons with the reference say."
)
"""The verdict sentence of a side that fails an honesty check (:func:`honesty_sentence`)."""


def _honesty_failed(checks: pd.DataFrame) -> bool:
    """Return True when one of ``checks``' honesty checks failed."""
    return not checks.loc[checks["kind"].isin(HONESTY_KINDS), "passed"].astype(bool).all()


def verdict_sentence(result: PairResult) -> str:
    """Return the verdict in words a student understands, with the numbers behind it."""
    checks = deciding_checks(result)
    if result.verdict == DISAGREE and _honesty_failed(checks):
        return DISHONEST
    z = checks[checks["kind"].isin(Z_KINDS)]
    gates = checks[checks["kind"] == CheckKind.DIAGNOSTIC]
    variants = ", ".join(s.variant for s in result.sides.values() if s.role in UNDER_TEST)
    variables = ", ".join(f"<code>{html.escape(v)}</code>" for v in result.pair.variables)
    side = result.sides[PYMC]
    reference = html.escape(side.sampler) if side.stored else f"PyMC's {html.escape(side.sampler)}"
    limits = tolerances(result.settings.tolerance)
    confidence = f"{1 - ALPHA_EQUIVALENCE:.0%}"
    if result.verdict == AGREE:
        reached = resolution_table(result).max()
        worst = " and ".join(
            f"{reached[stat]:.2f} for {stat}" for stat in reached.index[reached.notna()][:2]
        )
        return (
            f"The hand-written sampler ({html.escape(variants)}) and {reference} draw "
            f"from the same distribution of {variables} to within the stated resolution: at "
            f"{confidence} confidence, every one of the {len(z)} compared statistics differs by "
            f"less than {limits['mean']:g} posterior sd (means, sds and medians; "
            f"{limits['q5']:g} for the 5 % and 95 % quantiles), no test detected a difference, "
            f"and every side passed its {len(gates)} convergence gates. The largest resolution "
            f"reached: {worst} (table below)."
        )
    if result.verdict == INCONCLUSIVE:
        table = resolution_table(result)
        excess = (table / pd.Series(limits)).max(axis=1)
        open_ = int((excess >= 1).sum())
        draws = result.looks[-1]["draws"] if result.looks else result.settings.draws
        opening = (
            f"Inconclusive: no test detected a difference, but {open_} quantities have not "
            f"reached the resolution (their difference is not yet known to lie within "
            f"{limits['mean']:g} posterior sd)"
        )
        if result.cannot_grow:
            stored = ", ".join(html.escape(label) for label in result.cannot_grow)
            return (
                f"{opening}, and the stored draws ({stored}) cannot grow: their own Monte "
                "Carlo error limits the resolution. Store more draws or accept a coarser "
                "<code>--tolerance</code>."
            )
        return (
            f"{opening} after {draws} draws per chain, the run's budget. "
            "Run longer (raise <code>--max-draws</code>) or accept a coarser "
            "<code>--tolerance</code>."
        )
    if result.verdict == REFERENCE_FAILED:
        return html.escape(reference_advice(result))
    if result.verdict == DISAGREE:
        bad = z[~z["passed"]]
        largest = check_records(bad.loc[[bad["value"].abs().idxmax()]])[0] if len(bad) else None
        energy = checks[(checks["kind"] == CheckKind.MULTIVARIATE) & ~checks["passed"]]
        detail = (
            f" The largest gap: {html.escape(str(largest.statistic))} of "
            f"<code>{html.escape(str(largest.quantity))}</code> in "
            f"{html.escape(str(largest.comparison))}, {abs(largest.value):.1f} Monte Carlo "
            "standard errors apart."
            if largest is not None
            else _energy_sentence(energy)
            if not energy.empty
            else " Some draws lie outside the support of the target."
        )
        return (
            f"The samplers disagree: {len(bad)} of {len(z)} comparisons differ by more than "
            f"their Monte Carlo error can explain, so one side samples the wrong distribution."
            + detail
        )
    bad = gates[~gates["passed"]]
    return (
        f"Not converged: {len(bad)} convergence gates failed (R-hat above its threshold, 1.01 "
        "or more for many quantities, or fewer than 100 effective draws per chain), so the "
        "estimates are not yet trustworthy and "
        "the comparison means little. Run longer (more draws or tune) and compare again."
    )


REFERENCE_ADVICE = (
    "Nothing can be said about the side under test until PyMC's run is fixed: change its "
    "step methods (a pair's pymc_kwargs or pymc_steps; PYMC_KWARGS in your model's module, "
    "e.g. another step for a discrete variable, or more chains from other initial points) "
    "or run longer (--draws, --tune)."
)
"""What to do about a ``reference failed`` verdict, on the page and the terminal."""
DIVERGENCE_ADVICE = (
    "Nothing can be said about the side under test until PyMC's run is fixed. Its divergent "
    "transitions mean NUTS could not follow the posterior's curvature (a funnel, a scale "
    "that changes by orders of magnitude): its draws are biased there, and a longer run "
    "diverges again. Raise target_accept (PYMC_KWARGS = {'target_accept': 0.99} in your "
    "model's module, a pair's pymc_kwargs) or reparametrise the model (non-centred: "
    "theta = mu + tau * z with z ~ N(0, 1))."
)
"""What to do instead of :data:`REFERENCE_ADVICE` when the reference's divergence gate failed."""
STORED_ADVICE = (
    "Nothing can be said about the side under test until the reference is fixed: store "
    "draws of a sampler that mixes (other step methods, more or longer chains), or leave "
    "out --reference to run PyMC."
)
"""The same for a reference of stored draws (``--reference FILE``)."""
REFERENCE_ADVICE_INDEX = (
    "PyMC's own run failed its checks (gates, support or exact answer) while the sampler "
    "under test passed its own; the pair's page names the failed checks. " + REFERENCE_ADVICE
)
"""The suite page's sentence under its table when a pair's reference failed."""


def reference_advice(result: PairResult) -> str:
    """Return, in plain words, why the reference failed and what to change.

    Names how many of PyMC's own checks (its gates, support and exact checks)
    failed and the worst, and advises :data:`REFERENCE_ADVICE`.
    """
    checks = result.checks
    own = checks[(checks["side"] == PYMC) & ~checks["passed"]]
    worst = worst_checks(own, 1)
    example = f" (worst: {describe_check(check_records(worst)[0])})" if len(worst) else ""
    stored = getattr(result.sides.get(PYMC), "stored", False)
    whose = "The stored reference draws" if stored else "PyMC's own run"
    advice = STORED_ADVICE if stored else REFERENCE_ADVICE
    if diverged(own) and not stored:
        advice = DIVERGENCE_ADVICE
    return (
        f"Reference failed: {whose} failed {len(own)} of its own checks{example}, while "
        f"every side under test passed its own; the difference from the reference is not "
        f"blamed on the side. {advice}"
    )


def _energy_sentence(failed: pd.DataFrame) -> str:
    """Say why a failed energy check means the joint distribution differs, with its numbers."""
    row = failed.iloc[0]
    p = row.get("p", float("nan"))
    note = row.get("note", "")
    return (
        " The joint distribution differs: the energy distance of all quantities at once, "
        f"{row['value']:.4g}, exceeds its permutation critical value {row['threshold']:.4g} "
        f"(p = {p:.2g} at a level of {row.get('level', float('nan')):.2g}), though every "
        "marginal comparison passed, so the dependence between the quantities is wrong"
        + (f" ({html.escape(note)})." if isinstance(note, str) and note else ".")
    )


def render_pair(result: PairResult) -> str:
    """Return the self-contained HTML page of one pair run."""
    pair = result.pair
    s = result.settings
    colour = VERDICT_COLOURS[result.verdict]
    extras = []
    if pair.report_extra is not None:
        for section in pair.report_extra(result):
            extras += html.section(section)
    failed = result.checks[~result.checks["passed"]]
    body = [
        f"<h1>{html.escape(pair.title)} <small>(<code>{pair.name}</code>)</small></h1>",
        html.verdict_banner(f"Verdict: {result.verdict}", colour),
        f"<p>{verdict_sentence(result)}</p>",
        f"<p>{honesty_sentence(result)}</p>",
        f"<p>{_origin(pair)}. Settings: {s.chains} chains, {_draws_sentence(result)} after "
        f"{s.tune} tuning steps, seed {s.seed}, on both sides."
        f"{_held_sentence(result)}{_stopped_sentence(result)}</p>",
        *_sides_section(result),
        *extras,
        "<h2>Resolution reached</h2>",
        _resolution_section(result),
        f"<h2>Checks that failed ({len(failed)} of {len(result.checks)})</h2>",
        html.table(failed) if len(failed) else "<p>None.</p>",
        "<h2>Summaries</h2>",
        *(
            f"<h3>{html.escape(label)}</h3>" + _to_html(_summary_head(summary, TABLE_ROWS), "%.4g")
            for label, summary in result.summaries.items()
        ),
        _more(len(next(iter(result.summaries.values()))), TABLE_ROWS, "quantities"),
        *_diagnostic_figures(result),
        f"<details><summary>All {len(result.checks)} checks</summary>"
        + html.table(_head(result.checks, 50 * TABLE_ROWS))
        + _more(len(result.checks), 50 * TABLE_ROWS, "checks")
        + "</details>",
        f'<p><a href="index.html">All pairs</a> · <a href="{pair.name}.json">JSON</a></p>',
    ]
    return html.page(f"{pair.name}: {result.verdict}", body)


def _sides_section(result: PairResult) -> list[str]:
    """Return the page's "Sides" table (sampler, verdict, timings, ESS per second), figures."""
    rows = []
    for label, side in result.sides.items():
        verdict = result.verdicts.get(label, "reference")
        accept = side.acceptance_rate
        cached = " (read from the reference cache)" if side.from_cache else ""
        rows.append(
            f"<tr><td>{html.escape(label)}</td><td>{html.escape(side.sampler)}{cached}</td>"
            f"<td>{html.escape(verdict)}</td><td>{side.timings['compile_s']:.2f}</td>"
            f"<td>{side.timings['sampling_s']:.4g}</td>"
            f"<td>{result.ess_per_second(label):,.0f}</td>"
            f"<td>{'' if accept is None else f'{accept:.2f}'}</td></tr>"
        )
    has_acceptance = any(side.acceptance_rate is not None for side in result.sides.values())
    return [
        "<h2>Sides</h2>",
        "<table><tr><th>side</th><th>sampler</th><th>verdict</th><th>compile (s)</th>"
        "<th>sampling (s)</th><th>min ESS bulk / s</th><th>acceptance</th></tr>"
        + "".join(rows)
        + "</table>",
        "<p>Each hand-rolled side is judged against PyMC's sampler (<code>pymc</code>) and "
        "the exact answer; further PyMC samplers are shown as second references. "
        "Acceptance is the mean acceptance of Metropolis-type samplers (the seeds advise "
        "about 0.15 to 0.5 for a random walk).</p>",
        *(
            [
                "<p>A run read from the reference cache is the one an earlier "
                "<code>compare</code> made with the same model files, data, settings, seed and "
                "library versions; its times are that run's. <code>--no-cache</code> runs "
                "PyMC again.</p>"
            ]
            if any(side.from_cache for side in result.sides.values())
            else []
        ),
        html.figure(speed_figure, result, alt="effective draws per second of each side"),
        *(
            [html.figure(acceptance_figure, result, alt="acceptance rate of each side")]
            if has_acceptance
            else []
        ),
    ]


def _diagnostic_figures(result: PairResult) -> list[str]:
    """Return the page's traces, running means, densities, rank plots, autocorrelations."""
    drawn = _figures_of(result)
    exact = bool(result.reference)  # exact means and densities are drawn too: not from draws alone
    everyone = list(result.sides)
    return [
        "<h2>Traces</h2>",
        "<p>Every chain of every side, one colour per chain (seed 001 §7.1's multi-chain "
        "trace): well-mixed chains overlap like fuzzy caterpillars.</p>",
        drawn(trace_figure, result, alt="trace plots", sides=everyone),
        "<h2>Running means</h2>",
        "<p>The ergodic mean of each chain as draws accumulate; they should settle on the same "
        "value (the black line is the exact mean where it is known).</p>",
        drawn(running_mean_figure, result, alt="running means", sides=None if exact else everyone),
        "<h2>Densities</h2>",
        "<p>Histograms of both sides; the black line is the exact density where it is known.</p>",
        drawn(density_figure, result, alt="density overlays", sides=None if exact else everyone),
        "<h2>Rank plots</h2>",
        "<p>Rank ECDF differences per chain (arviz-plots): chains that sample the same "
        "distribution wander close to zero. The band and the p-value on each panel "
        "(arviz-stats' multi-chain uniformity test; small: the chains differ) assume "
        "independent draws, which MCMC draws are not: a slowly mixing chain would leave the "
        "band however right it is. So each chain is first thinned to about one draw per "
        f"{energy.THIN_FACTOR} effective draws (the chains' pooled within-chain ESS, smallest "
        f"over the plotted quantities), and to at most {RANK_MAX_DRAWS}; each title gives the "
        "thinning. A discrete quantity's ties are broken at random (a uniform jitter below "
        "its lattice's spacing), as the test wants distinct draws. The verdict does not read "
        "these panels.</p>",
        *(
            f"<h3>{html.escape(label)}</h3>"
            + drawn(rank_figure, side, alt=f"rank plot of {label}", sides=[label])
            for label, side in result.sides.items()
        ),
        "<h2>Autocorrelation</h2>",
        "<p>How fast each chain forgets where it was: the quicker the drop, the more "
        "effective draws per draw.</p>",
        *(
            f"<h3>{html.escape(label)}</h3>"
            + drawn(autocorr_figure, side, alt=f"autocorrelation of {label}", sides=[label])
            for label, side in result.sides.items()
        ),
    ]


class _Drawn(Protocol):
    """What :func:`_figures_of` returns: ``drawn(make, arg, alt=, sides=)``."""

    def __call__(
        self,
        make: Callable[[_T], Figure | PlotCollection],
        arg: _T,
        /,
        *,
        alt: str,
        sides: list[str] | None,
    ) -> str:
        """Return :func:`html.figure` of ``make(arg)``, kept when drawn from ``sides`` alone."""
        ...


def _figures_of(result: PairResult) -> _Drawn:
    """Return ``drawn(make, arg, alt=, sides=)``: :func:`html.figure` of ``make(arg)``.

    With a reference cache (``result.memo_directory``) a figure drawn from the
    draws of ``sides`` alone (a list of labels; None: something else goes into
    it) is kept beside it (:class:`~.reuse.FigureMemo`), so an unchanged side is
    never drawn twice.
    """
    memo = None
    if result.memo_directory is not None:
        memo = reuse.FigureMemo(result.memo_directory, __file__, html.__file__)
    keys: dict[str, tuple[object, ...]] = {}

    def drawn(
        make: Callable[[_T], Figure | PlotCollection], arg: _T, *, alt: str, sides: list[str] | None
    ) -> str:
        def draw() -> str:
            return html.figure(make, arg, alt=alt)

        if memo is None or sides is None or html.figures_off():  # a note is never kept
            return draw()
        for label in sides:
            if label not in keys:
                keys[label] = reuse.array_key(_quantities(result.sides[label]))
        return memo.get(f"{make.__name__}: {alt}", [(lb, keys[lb]) for lb in sides], draw)

    return drawn


SHIPPED_PAGE = "shipped.html"
"""The catalogue's page (``shipped/``), linked from the index when the directory has it."""
TABLE_ROWS = 20
"""Rows of a summary table shown on a page (LDA has hundreds; the JSON has them all)."""


def _draws_sentence(result: PairResult) -> str:
    """``"1000 draws"``, or the looks of a run that grew: ``"1000 → 2000 → 4000 draws"``."""
    draws = [look["draws"] for look in result.looks] or [result.settings.draws]
    grown = " → ".join(str(d) for d in draws)
    budget = result.settings.max_draws
    text = f"{grown} draws (up to {budget})" if budget else f"{grown} draws"
    held = {
        label: side.tree["posterior"].sizes["draw"]
        for label, side in result.sides.items()
        if side.tree["posterior"].sizes["draw"] != draws[-1]
    }
    if held:
        text += " (" + ", ".join(f"{label} kept {n}" for label, n in held.items()) + ")"
    return text


def _held_sentence(result: PairResult) -> str:
    """Say which looks held an ``agree`` for its lead (``agreement.LEAD``) and grew on."""
    said = [
        f"{label} at look {look['look']} ({value:.2f})"
        for look in result.looks[:-1]
        for label, value in look.get("held", {}).items()
    ]
    text = (
        " Held for a lead, an agree that grew on because its checks' mean squared "
        f"z-score was {LEAD:g} or more: {html.escape(', '.join(said))}."
        if said
        else ""
    )
    if result.looks and result.looks[-1].get("held"):  # the time budget ended the run
        text += " The last look's agree was held for a lead, but --max-seconds left no time."
    return text


def _stopped_sentence(result: PairResult) -> str:
    """Say why a run stopped growing before its last look, undecided (``run.FUTILITY``)."""
    stopped = result.looks[-1].get("stopped") if result.looks else None
    return f" The run stopped growing early: {html.escape(stopped)}." if stopped else ""


def _discrete_sentence(result: PairResult) -> str:
    """Say which quantities were compared as discrete, and how."""
    if not result.discrete:
        return ""
    names = ", ".join(f"<code>{html.escape(q)}</code>" for q in result.discrete[:TABLE_ROWS])
    more = (
        f" and {len(result.discrete) - TABLE_ROWS} more"
        if len(result.discrete) > TABLE_ROWS
        else ""
    )
    return (
        f"<p>Treated as discrete (whole-number draws, or few distinct values): {names}{more}. "
        "A quantile of a lattice has no Monte Carlo error to estimate (it jumps between atoms "
        "while the spacing of its order statistics is 0), so these are compared by their mean, "
        "their sd and the probabilities <code>P(X &lt;= k)</code> at the pooled draws' 5, 50 "
        "and 95 % quantiles k, each the mean of an indicator with its own MCSE, and resolved "
        "in the indicator's sd.</p>"
    )


def _resolution_section(result: PairResult) -> str:
    """Return the resolution table with the sentence that says how to read it."""
    table = resolution_table(result)
    if table.empty:
        return "<p>No statistic was compared.</p>"
    limits = tolerances(result.settings.tolerance)
    header = ", ".join(f"{k} {v:g}" for k, v in limits.items())
    return (
        f"<p>Per quantity, the largest difference between the sides (and between each side "
        f"and the exact answer) that is still compatible with the draws at "
        f"{1 - ALPHA_EQUIVALENCE:.0%} confidence, in posterior sds: the upper end of the "
        f"difference's confidence interval (two one-sided tests). <code>agree</code> needs "
        f"every entry below its tolerance ({header}); the spread of a centred product is "
        f"tested for differences but not certified. Worst first.</p>"
        + _discrete_sentence(result)
        + _to_html(_head(table, TABLE_ROWS), "%.3f", na_rep="")
        + _more(len(table), TABLE_ROWS, "quantities")
    )


def _to_html(frame: pd.DataFrame, float_format: str, na_rep: str = "NaN") -> str:
    """Return ``frame`` as an HTML table, its numbers in the printf-style ``float_format``."""
    # pandas takes a printf-style string, which its stubs leave out (a callable only)
    return frame.to_html(float_format=float_format, border=0, na_rep=na_rep)  # type: ignore[call-overload]


def _head(table: pd.DataFrame, rows: int) -> pd.DataFrame:
    """Return the first ``rows`` rows of a table."""
    return table.iloc[:rows]


def _summary_head(summary: pd.DataFrame, rows: int) -> pd.DataFrame:
    """Return the first ``rows`` quantities and every derived one (names without brackets)."""
    rest = summary.iloc[rows:]
    return pd.concat([summary.iloc[:rows], rest[~rest.index.str.contains("[", regex=False)]])


def _more(total: int, shown: int, what: str) -> str:
    if total <= shown:
        return ""
    return f"<p>The first {shown} of {total} {what} are shown; the JSON file has them all.</p>"


MAX_PLOTTED = 6
"""Quantities drawn per figure (LDA has hundreds; the first ones are shown)."""


def _quantities(side: Side) -> xr.DataArray:
    """Return a side's compared quantities, (chain, draw, quantity): attached by the run."""
    if side.quantities is None:
        raise ValueError(f"side {side.label} has no quantities attached")
    return side.quantities


def _plotted_names(result: PairResult) -> list[str]:
    names = list(_quantities(result.sides[PYMC])["quantity"].values)
    return [str(n) for n in names[:MAX_PLOTTED]]


def _side_tree(side: Side, names: Sequence[str]) -> xr.DataTree:
    """Return the plotted quantities of one side as a DataTree, one variable each."""
    q = _quantities(side).sel(quantity=list(names))
    return azb.from_dict({"posterior": {str(n): q.sel(quantity=n).values for n in names}})


def _grid_figure(
    result: PairResult, draw_cell: Callable[[Axes, np.ndarray, str], None], *, logx: bool = False
) -> Figure:
    """One row per plotted quantity, one column per side; ``draw_cell(ax, values, name)``.

    ``values`` is the quantity's draws, shape (chain, draw).
    """
    from matplotlib.ticker import NullLocator

    names = _plotted_names(result)
    labels = list(result.sides)
    fig, axes = html.pyplot().subplots(
        len(names),
        len(labels),
        figsize=(3.6 * len(labels), 1.7 * len(names)),
        squeeze=False,
        sharey="row",
    )
    for j, label in enumerate(labels):
        q = _quantities(result.sides[label])
        for i, name in enumerate(names):
            ax = axes[i, j]
            draw_cell(ax, q.sel(quantity=name).values, name)
            if i == 0:
                ax.set_title(label, fontsize=9)
            if j == 0:
                ax.set_ylabel(name, fontsize=8)
            if logx:  # minor ticks off: a log axis's many minor ticks triple the figure's cost
                ax.set_xscale("log")
                ax.xaxis.set_minor_locator(NullLocator())
            ax.tick_params(labelsize=7)
    html.fixed_layout(fig, hspace=0.3, wspace=0.1)
    return fig


def trace_figure(result: PairResult) -> Figure:
    """Trace plots: one row per quantity, one column per side, a line per chain."""

    def draw(ax: Axes, values: np.ndarray, name: str) -> None:
        for chain in values:
            ax.plot(chain, lw=0.4, alpha=0.7)

    return _grid_figure(result, draw)


def running_mean_figure(result: PairResult) -> Figure:
    """Plot the running (ergodic) mean of every chain, per quantity and side."""

    def draw(ax: Axes, values: np.ndarray, name: str) -> None:
        running = np.cumsum(values, axis=1) / np.arange(1, values.shape[1] + 1)
        for chain in running:
            ax.plot(chain, lw=0.8)
        exact = result.reference.get(name)
        if exact is not None and exact.mean is not None:
            ax.axhline(exact.mean, color="black", lw=0.8)

    return _grid_figure(result, draw, logx=True)


def density_figure(result: PairResult) -> Figure:
    """Histograms of every side per quantity, with the exact density where known."""
    names = _plotted_names(result)
    cols = min(3, len(names))
    rows = math.ceil(len(names) / cols)
    fig, axes = html.pyplot().subplots(rows, cols, figsize=(4 * cols, 2.8 * rows), squeeze=False)
    for ax, name in zip(axes.flat, names, strict=False):
        for label, side in result.sides.items():
            values = _quantities(side).sel(quantity=name).values.ravel()
            values = values[np.isfinite(values)]
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
    html.fixed_layout(fig, left=0.45, hspace=0.55, wspace=0.45)
    return fig


RANK_MAX_DRAWS = 500
"""Rank plots thin each chain to this many draws: arviz-stats' multi-chain
uniformity test behind them costs time that grows fast with the draws (0.7 s a
side at 1,000, 0.3 s at 500, 12 s for 4 x 10,000); 500 ranks a chain still show
a drift or a stuck stretch."""


def _arviz_plots() -> ModuleType:
    """Return :mod:`arviz_plots`, pyplot on the Agg backend first (:func:`html.pyplot`)."""
    html.pyplot()
    import arviz_plots

    return arviz_plots


def rank_figure(side: Side) -> PlotCollection:
    """Rank plot of one side's plotted quantities, by ``arviz_plots.plot_rank``.

    The band and p-value of ``plot_rank`` hold for independent, untied draws:
    the side's draws go through :func:`near_independent` first.
    """
    names = [str(n) for n in _quantities(side)["quantity"].values[:MAX_PLOTTED]]
    tree, step = near_independent(_side_tree(side, names), with_step=True)
    plot = _arviz_plots().plot_rank(tree, backend="matplotlib")
    kept = tree["posterior"].sizes["draw"]
    for ax in plot.viz["figure"].item().axes:
        if ax.get_title():
            ax.set_title(f"{ax.get_title()}: 1 in {step} draws, {kept} a chain", fontsize=9)
    return plot


TIE_SEED = 20261128
"""Seed of the uniform jitter that breaks a discrete quantity's ties (:func:`near_independent`)."""


@overload
def near_independent(
    tree: xr.DataTree | xr.Dataset, *, with_step: Literal[False] = False
) -> xr.DataTree: ...
@overload
def near_independent(
    tree: xr.DataTree | xr.Dataset, *, with_step: Literal[True]
) -> tuple[xr.DataTree, int]: ...
def near_independent(
    tree: xr.DataTree | xr.Dataset, *, with_step: bool = False
) -> xr.DataTree | tuple[xr.DataTree, int]:
    """Return ``tree``'s posterior as a rank plot's test needs it: near-independent, untied.

    arviz-stats' multi-chain uniformity test (the p-value and dots of
    ``arviz_plots.plot_rank``) assumes the draws are exchangeable: independent,
    and distinct. MCMC draws are neither, always or often:

    * each chain is thinned to about one draw per :data:`~.energy.THIN_FACTOR`
      effective draws (:func:`rank_step`: the chains' pooled within-chain ESS,
      smallest over every variable and element); an AR(1) chain with
      rho = 0.99 keeps a lag-1 correlation above 0.8 at 500 draws a chain, and
      below 0.1 thinned so;
    * a variable whose draws are all integers (a 0/1 node, a count) gets a
      uniform jitter in [0, 1) on every draw (seeded, :data:`TIE_SEED`): it
      keeps the order of distinct values and breaks ties at random, so a
      correct sampler's ranks are uniform again (randomised ranks, as SBC breaks
      its ties); tied, a correct 0/1 chain got p = 0.00.

    Parameters
    ----------
    tree : xarray.DataTree or xarray.Dataset
        With a ``posterior`` group (a Dataset is the posterior itself), variables
        with dims ``chain`` and ``draw`` first.
    with_step : bool
        Also return the thinning step.

    Returns
    -------
    xarray.DataTree (and int)
        A ``posterior`` group only.
    """
    import xarray as xr

    posterior = tree if isinstance(tree, xr.Dataset) else tree["posterior"].to_dataset()
    stacked = [
        posterior[v]
        .transpose("chain", "draw", ...)
        .values.reshape(posterior.sizes["chain"], posterior.sizes["draw"], -1)
        for v in posterior.data_vars
    ]
    step = rank_step(
        xr.DataArray(np.concatenate(stacked, axis=-1), dims=("chain", "draw", "quantity"))
    )
    thinned = posterior.isel(draw=slice(None, None, step))
    rng = np.random.default_rng(TIE_SEED)
    for v in thinned.data_vars:
        values = thinned[v].values
        if np.issubdtype(values.dtype, np.integer) or np.array_equal(values, np.round(values)):
            thinned[v] = thinned[v].astype(float) + rng.random(values.shape)
    out = xr.DataTree.from_dict({"posterior": thinned})
    return (out, step) if with_step else out


def rank_step(quantities: xr.DataArray) -> int:
    """Return the thinning that leaves a chain's ranks near-independent: one per 2 ESS.

    ``quantities`` is (chain, draw, quantity). The step is :data:`~.energy.THIN_FACTOR`
    draws per effective draw, as the energy check thins (there, measured on AR(1)
    chains: one per effective draw still rejected 9 % at 5 %, one per two 5.5 %),
    and at least what keeps :data:`RANK_MAX_DRAWS` a chain. The ESS is the
    within-chain one: arviz-stats' ``ess(method="mean")`` of every chain centred
    on its own mean (the chains' autocorrelations pooled), smallest over the
    quantities. The ordinary multi-chain ESS shrinks when the chains disagree,
    and thinning by it would hide the very difference the plot shows; each
    chain's ESS alone is too noisy on a slow chain (4 x 4,000 draws with rho =
    0.99: steps from 245 to 2,967 over 40 seeds).
    """
    import arviz_stats as azs  # loaded when a page is drawn, not when a run starts

    chains, draws = quantities.sizes["chain"], quantities.sizes["draw"]
    values = quantities.transpose("chain", "draw", "quantity").values
    centred = values - values.mean(axis=1, keepdims=True)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # a constant quantity's ESS is NaN: left out
        ess = np.asarray(azs.ess(centred, method="mean"), dtype=float)
    smallest = float(np.nanmin(ess)) if np.isfinite(ess).any() else chains * draws
    return energy.thin_step(chains * draws, smallest, chains * RANK_MAX_DRAWS)


def autocorr_figure(side: Side) -> PlotCollection:
    """Autocorrelation of one side's plotted quantities, by ``arviz_plots.plot_autocorr``."""
    names = [str(n) for n in _quantities(side)["quantity"].values[:MAX_PLOTTED]]
    return _arviz_plots().plot_autocorr(_side_tree(side, names), backend="matplotlib")


def speed_figure(result: PairResult) -> Figure:
    """Bar chart: minimum bulk ESS per second of sampling, per side (log scale)."""
    labels = list(result.sides)
    values = [result.ess_per_second(label) for label in labels]
    fig, ax = html.pyplot().subplots(figsize=(6, 0.5 + 0.45 * len(labels)))
    colours = [html.BLUE if result.sides[lb].role == PYMC else html.PURPLE for lb in labels]
    ax.barh(labels, values, color=colours)
    ax.set_xscale("log")
    ax.set_xlabel("effective draws per second (minimum bulk ESS)")
    for y, v in enumerate(values):
        ax.text(v, y, f" {v:,.0f}", va="center", fontsize=8)
    ax.invert_yaxis()
    fig.tight_layout()
    return fig


def acceptance_figure(result: PairResult) -> Figure:
    """Mean acceptance rate per Metropolis-type side, against the seeds' 0.15 to 0.5 advice."""
    pairs = [(lb, s.acceptance_rate) for lb, s in result.sides.items() if s.acceptance_rate]
    fig, ax = html.pyplot().subplots(figsize=(6, 0.5 + 0.45 * len(pairs)))
    ax.axvspan(0.15, 0.5, color="#d0f0d0", label="seed's advice for a random walk")
    ax.barh([p[0] for p in pairs], [p[1] for p in pairs], color=html.PURPLE)
    ax.set_xlim(0, 1)
    ax.set_xlabel("mean acceptance rate")
    ax.legend(fontsize=7, loc="lower right")
    ax.invert_yaxis()
    fig.tight_layout()
    return fig


class SideEntry(TypedDict):
    """One side of an :class:`IndexEntry`: its minimum bulk ESS per second of sampling."""

    variant: str
    role: Role
    ess_per_second: float


class IndexEntry(TypedDict):
    """The suite page's row of one pair run (:func:`index_entry`, :func:`write_index`).

    A run that failed has ``verdict`` ``"error"`` and an ``error`` message instead of ``sides``.
    """

    name: str
    title: str
    verdict: str
    seconds: float
    sides: NotRequired[list[SideEntry]]
    error: NotRequired[str]


def index_entry(result: PairResult, seconds: float) -> IndexEntry:
    """Return the suite page's row for one pair run (see :func:`write_index`)."""
    return {
        "name": result.pair.name,
        "title": result.pair.title,
        "verdict": result.verdict,
        "seconds": seconds,
        "sides": [
            {
                "variant": side.variant,
                "role": side.role,
                "ess_per_second": result.ess_per_second(label),
            }
            for label, side in result.sides.items()
        ],
    }


def _ratio(value: float) -> str:
    """Return a speed ratio for people: ``353x``, ``4.2x``, ``0.47x``."""
    return f"{value:,.0f}x" if value >= 10 else f"{value:.2g}x"


def _rate(value: float) -> str:
    for scale, suffix in ((1e6, "M"), (1e3, "k")):
        if value >= scale:
            return f"{value / scale:.3g}{suffix}"
    return f"{value:.3g}"


def write_index(entries: Sequence[IndexEntry], out: Path) -> Path:
    """Write ``out/index.html`` listing every pair with its verdict, wall time and speeds.

    Parameters
    ----------
    entries : sequence of IndexEntry
        Per pair, from :func:`index_entry`: ``name``, ``title``, ``verdict``,
        ``seconds`` (wall time) and ``sides`` (per side its ``variant``,
        ``role`` and ``ess_per_second``, the minimum bulk ESS per second); a
        failed run has ``verdict`` ``"error"`` and an ``error`` message instead
        of sides.
    out : Path
        Report directory.
    """
    rows = []
    for e in entries:
        colour = VERDICT_COLOURS.get(e["verdict"], html.GREY)
        sides = e.get("sides", [])
        nuts = next((s["ess_per_second"] for s in sides if s["role"] == PYMC), None)
        cells = []
        for side in sides:
            value = side["ess_per_second"]
            ratio = f" ({_ratio(value / nuts)} PyMC)" if nuts and side["role"] == HANDROLLED else ""
            cells.append(f"{html.escape(side['variant'])}: {_rate(value)}/s{ratio}")
        detail = "<br>".join(cells) or html.escape(e.get("error", ""))
        link = (
            f'<a href="{e["name"]}.html">{html.escape(e["name"])}</a>'
            if e["verdict"] != "error"
            else html.escape(e["name"])
        )
        rows.append(
            f'<tr><td class="text">{link}<br><small>{html.escape(e["title"])}</small></td>'
            f'<td class="pair-verdict" style="color:{colour};font-weight:600">'
            f"{html.escape(e['verdict'])}</td>"
            f'<td>{e["seconds"]:.1f}</td><td class="text">{detail}</td></tr>'
        )
    body = [
        "<h1>mcmc-pairs: every example sampled twice</h1>",
        "<p>Each pair runs a hand-written sampler and its PyMC twin with the same settings and "
        "checks that they agree: means, sds and quantiles of every component, of their "
        "products and of the log density, within their Monte Carlo error (Holm-corrected "
        "z-tests, about 1 % false alarms per pair), and R-hat and effective-sample-size gates "
        "on each side. Speeds are effective draws per second of sampling (minimum bulk ESS "
        "over the compared quantities), compilation excluded.</p>",
        "<table><tr><th>pair</th><th>verdict</th><th>wall time (s)</th>"
        '<th class="text">effective draws per second</th></tr>' + "".join(rows) + "</table>",
    ]
    if any(e["verdict"] == REFERENCE_FAILED for e in entries):
        body.append(f"<p>{REFERENCE_FAILED}: {html.escape(REFERENCE_ADVICE_INDEX)}</p>")
    if (Path(out) / SHIPPED_PAGE).exists():  # written by scripts/shipped.py (make report)
        body.append(
            f'<p><a href="{SHIPPED_PAGE}">Bugs that shipped</a>: sampler bugs that reached '
            "users of PyMC, NumPyro, Stan, BlackJAX and emcee, re-created, and what the "
            "suite and the checks users make by hand say about each.</p>"
        )
    path = Path(out) / "index.html"
    write_atomic(path, html.page("mcmc-pairs report", body))
    return path
