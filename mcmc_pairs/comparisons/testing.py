"""Compare your sampler with your PyMC model from Python, and assert agreement in your tests.

In the manner of :mod:`numpy.testing`::

    from mcmc_pairs import assert_agree

    def test_my_gibbs_sampler():
        assert_agree(build_model, my_gibbs, data, draws=1000, seed=1)

:func:`compare` runs the same comparison as ``mcmc-pairs compare --model ...
--data ... --sampler ...`` and returns the result; :func:`assert_agree` raises
``AssertionError`` listing the failed checks unless the verdict is ``agree``.
Both read and write the command line's reference cache by default
(:func:`cache_directory`) and reuse, within the process, the compiles of an
unchanged model (:mod:`mcmc_pairs.comparisons.reuse`): calling them again after
changing only the sampler runs only the sampler, with the same numbers.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from mcmc_pairs.comparisons.kinds import CheckKind, Verdict

if TYPE_CHECKING:
    from mcmc_pairs.comparisons.result import PairResult
    from mcmc_pairs.comparisons.run import RunEvent


def compare(
    build_model: str | Callable,
    sampler: str | Callable,
    data: Mapping | str | Path,
    *,
    name: str | None = None,
    draws: int | None = None,
    tune: int | None = None,
    chains: int | None = None,
    seed: int | None = None,
    tolerance: float | None = None,
    max_draws: int | None = None,
    max_seconds: float | None = None,
    timeout: float | None = None,
    out: str | Path | None = None,
    progress: Callable[[RunEvent], None] | None = None,
    reference: str | Path | None = None,
    rename: Mapping[str, str | None] | None = None,
    cache: bool | str | Path = True,
    alpha: float | None = None,
    **extras: Any,
) -> PairResult:
    """Run a user's sampler against a user's PyMC model and compare them.

    Parameters
    ----------
    build_model : callable or str
        ``build_model(data) -> pm.Model``, or its import string.
    sampler : callable or str
        ``sample(data, *, draws, tune, chains, random_seed)``, or its import string;
        ``"pymc-step:FILE.py:NAME"`` (a PyMC step method) or stored draws (a file,
        :mod:`mcmc_pairs.comparisons.stored`).
    data : mapping, str or Path
        The data, or a file (:func:`mcmc_pairs.comparisons.datafile.read_data`).
    name : str, optional
        The reports' name; default the model's folder, module and function.
    draws, tune, chains, seed, tolerance, max_draws, max_seconds, timeout : optional
        Both sides' :class:`~.settings.Settings` (:data:`~.settings.FIELDS` documents each);
        default the model module's ``SETTINGS``, then FIELDS' (1000, 1000, 4, a fixed seed...).
    out : str or Path, optional
        When given, write ``out/NAME.html`` and ``out/NAME.json`` as the CLI does.
    progress : callable, optional
        Receives every :class:`~.run.RunEvent` (``str(event)``: its line; default: print to stderr).
    reference, rename : optional
        Stored draws instead of PyMC's reference run, and renamings of stored
        variables (``{stored: model's, or None}``; :mod:`mcmc_pairs.comparisons.stored`).
    cache, alpha : optional
        The reference cache, as on the command line (:func:`cache_directory`; default
        True); the run's false-alarm rate in (0, 1) (:func:`~.budget.levels`; None: default).
    **extras
        ``exact``, ``align``, ``derived``, ``settings``, ``pymc_kwargs``
        (override the model module's optional pieces, :mod:`mcmc_pairs.comparisons.byom`).

    Returns
    -------
    mcmc_pairs.comparisons.result.PairResult
        ``verdict`` (:class:`~.kinds.Verdict`), ``checks`` (a DataFrame, a row per check) and
        ``summaries`` (per side: statistics, MCSEs, ESS and R-hat per quantity).

    Raises
    ------
    ValueError
        Bad input: a model that raises or is not a ``pm.Model``, unreadable data or stored draws,
        bad settings or ``alpha``, a sampler that raises or returns the wrong names or shapes.
    """
    from mcmc_pairs.comparisons.byom import model_pair
    from mcmc_pairs.comparisons.datafile import read_data
    from mcmc_pairs.comparisons.run import resolve_settings, run_pair

    data = read_data(data, argument="data") if isinstance(data, str | Path) else data
    pair = model_pair(build_model, data, sampler, name=name, **extras)
    _refuse_bad_output(pair.name, out)  # before the run: nothing sampled if it cannot be saved
    overrides = dict(draws=draws, tune=tune, chains=chains, seed=seed, tolerance=tolerance)
    overrides |= dict(max_draws=max_draws, max_seconds=max_seconds, timeout=timeout)
    directory, settings = cache_directory(cache), resolve_settings(pair, **overrides)
    result = run_pair(
        pair, settings, sampler=sampler, data=data, progress=progress, rename=rename,
        reference=None if reference is None else str(reference), cache=directory, alpha=alpha,
    )  # fmt: skip
    return _written(result, out)


def cache_directory(cache: bool | str | Path | None) -> Path | None:
    """Return the reference cache's directory for ``compare``'s ``cache`` argument, or None.

    ``compare`` and ``assert_agree`` read and write the same cache as the command
    line (:mod:`~mcmc_pairs.comparisons.reference_cache`): PyMC's reference runs
    and its log densities of the draws, so a repeated call samples only the
    sampler under test. ``True``:
    :func:`~mcmc_pairs.comparisons.reference_cache.default_cache_dir`
    (``$MCMC_PAIRS_CACHE`` first, read at each call); ``False`` or None: no cache;
    a path: that directory. Within one process, compiles of an unchanged model
    are reused whatever ``cache`` says (:mod:`~mcmc_pairs.comparisons.reuse`).
    None of it changes a number of the result.
    """
    if cache is True:
        from mcmc_pairs.comparisons.reference_cache import default_cache_dir

        return default_cache_dir()
    if cache is False or cache is None:
        return None
    if not isinstance(cache, str | Path):
        raise ValueError(f"cache must be True, False or a directory, got {cache!r}")
    return Path(cache)


def _written(result: PairResult, out: str | Path | None) -> PairResult:
    """Write ``result``'s report in ``out`` when given; return ``result``."""
    if out is not None:
        from mcmc_pairs.comparisons.report import write_pair_report

        write_pair_report(result, Path(out))
    return result


def _refuse_bad_output(name: str, out: str | Path | None) -> None:
    """Refuse an ``out`` that cannot be written, or a name taken or too long there."""
    if out is not None:
        from mcmc_pairs.comparisons.preflight import refuse_bad_report_output

        refuse_bad_report_output(name, Path(out))


def assert_agree(
    build_model: str | Callable, sampler: str | Callable, data: Mapping | str | Path, **kwargs: Any
) -> PairResult:
    """Assert that a sampler agrees with the PyMC model; return the result when it does.

    Parameters
    ----------
    build_model, sampler, data, **kwargs
        As for :func:`compare`.

    Returns
    -------
    mcmc_pairs.comparisons.result.PairResult

    Raises
    ------
    AssertionError
        When the verdict is not ``agree``: the message gives the verdict and
        lists the failed checks (worst first, at most 20).
    """
    result = compare(build_model, sampler, data, **kwargs)
    if result.verdict != Verdict.AGREE:
        raise AssertionError(failure_message(result))
    return result


def failure_message(result: PairResult, limit: int = 20) -> str:
    """Return the verdict and the failed checks of ``result`` as lines of text.

    Support failures come first, then the z-checks (largest ``|z|`` first), then
    the convergence gates, then the checks whose resolution is not within its
    tolerance (what leaves a run ``inconclusive``).
    """
    from mcmc_pairs.comparisons.report import check_records, describe_check

    checks = result.checks
    failed = checks[~checks["passed"].astype(bool)]
    lines = [
        f"{result.pair.name}: verdict {result.verdict!r}, "
        f"{len(failed)} of {len(checks)} checks failed"
    ]
    order = {CheckKind.SUPPORT: 0, CheckKind.AGREEMENT: 1, CheckKind.EXACT: 2}
    rank = failed["kind"].map(order).fillna(3)
    size = -failed["value"].abs().fillna(float("inf"))  # the largest |z| first within a kind
    failed = failed.assign(_rank=rank, _size=size).sort_values(["_rank", "_size"])
    for row in check_records(failed.head(limit)):
        lines.append(f"  {describe_check(row)}")
    if len(failed) > limit:
        lines.append(f"  ... and {len(failed) - limit} more")
    if "equivalent" in checks:
        open_ = checks[checks["equivalent"].eq(False)]  # None: no tolerance applies
        open_ = open_.assign(_excess=open_["resolution"] / open_["tolerance"])
        open_ = open_.sort_values("_excess", ascending=False)
        if len(open_):
            lines.append(f"  {len(open_)} checks have not reached their tolerance:")
        for check in check_records(open_.head(limit)):
            lines.append(
                f"  {check.comparison} {check.quantity} {check.statistic}: resolution "
                f"{check.resolution:.3g} sd (tolerance {check.tolerance:.3g})"
            )
    return "\n".join(lines)
