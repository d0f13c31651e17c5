"""What a pair is: its data, its two sides, what is compared and the exact answer.

A pair module (``comparisons/pairs/<name>.py``) builds one :class:`Pair`. The
registry (:mod:`mcmc_pairs.comparisons.registry`) lists them explicitly. Samplers and
models are named by import strings (``"mcmc_pairs.handrolled.regression:sample_blocked"``)
and imported only when a pair runs, so ``mcmc-pairs list`` stays instant.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np

PROBS = (0.05, 0.5, 0.95)
"""Quantile levels compared for every quantity."""


@dataclass(frozen=True)
class ExactMarginal:
    """The exact distribution of one scalar quantity, as far as it is known.

    Any field may be ``None``: a check is made only for what is known.

    Parameters
    ----------
    mean, sd : float or None
        Exact posterior mean and standard deviation.
    quantiles : mapping of float to float
        Exact quantiles, keyed by probability (compare :data:`PROBS`).
    pdf : callable or None
        Exact density, ``pdf(grid) -> density`` on a 1-D grid, drawn in reports.
    """

    mean: float | None = None
    sd: float | None = None
    quantiles: Mapping[float, float] = field(default_factory=dict)
    pdf: Callable[[np.ndarray], np.ndarray] | None = None

    @classmethod
    def from_scipy(cls, dist: Any) -> ExactMarginal:
        """Build from a frozen ``scipy.stats`` distribution (mean, sd, quantiles, pdf)."""
        return cls(
            mean=float(dist.mean()),
            sd=float(dist.std()),
            quantiles={p: float(dist.ppf(p)) for p in PROBS},
            pdf=dist.pdf,
        )

    def statistic(self, name: str) -> float | None:
        """Return the exact value of a compared statistic (``mean``, ``sd``, ``q5`` ...)."""
        if name == "mean":
            return self.mean
        if name == "sd":
            return self.sd
        for p, value in self.quantiles.items():
            if name == quantile_label(p):
                return value
        return None


def quantile_label(p: float) -> str:
    """Name of the statistic for quantile level ``p``: 0.05 -> ``"q5"``."""
    return f"q{round(100 * p):d}"


@dataclass(frozen=True)
class Section:
    """A pair-specific section of the compare report, as data (the report renders it).

    Parameters
    ----------
    heading : str
        The section's title.
    text : str
        Plain text (no markup): what the section shows and how to read it.
    table : pandas.DataFrame or None
        A table, shown with its column names and index.
    images : mapping of str to ndarray, or None
        Rows of grey images, label to an array of shape (n_images, height,
        width) of non-negative intensities; drawn as one grid, a row per label.
    """

    heading: str
    text: str = ""
    table: Any = None
    images: Mapping[str, np.ndarray] | None = None


Quantities = Callable[[Any, Mapping[str, Any], Mapping[str, float]], Mapping[str, Any]]
"""``quantities(posterior, data, centers) -> {name: DataArray(chain, draw)}``."""


@dataclass(frozen=True)
class PlantedShifts:
    """How ``make power`` plants shifts of a known size in a pair's correct draws.

    ``scripts/planted.py`` wraps a correct sampler and moves its draws by ``s``
    posterior sds (mean), scales them by ``1 + s`` (sd) or mixes two components
    (correlation), to measure what ``compare`` detects; this record says where
    and how, for the pair's own variables.

    Parameters
    ----------
    first, second : (variable, index)
        The first and second scalar components: variable name and index into its
        event shape (``()`` for a scalar variable); ``second`` ``None`` when the
        pair has one component.
    mean, sd, corr : str or None
        The method of each kind (``None``: not applicable): ``"add"``,
        ``"reflect0"`` (shift down, reflect at 0), ``"flip"`` (0/1 draws),
        ``"simplex"`` (move mass between two simplex components); ``"scale"``,
        ``"shrink"`` (by ``1 - s``), ``"simplex_shrink"`` (by ``1 - s``, the
        difference given to the second component, clipped so both stay in the
        simplex); ``"mix"``, ``"copy"`` (0/1 draws).
    aligned : bool
        Relabel every chain's exchangeable components (LDA's topics) to chain 0's with
        the pair's own ``align`` before planting, so that the shift lands on the same
        component of every chain whatever labels each chain happened to take.
    """

    first: tuple[str, tuple[int, ...]]
    second: tuple[str, tuple[int, ...]] | None
    mean: str | None = "add"
    sd: str | None = "scale"
    corr: str | None = "mix"
    aligned: bool = False


@dataclass(frozen=True)
class Pair:
    """One example written twice, and how to compare the two.

    Parameters
    ----------
    name : str
        Pair name, equal to the module names ``models/<name>.py`` and
        ``handrolled/<name>.py``.
    title : str
        One line for people, shown in reports and ``mcmc-pairs list``.
    seed : str
        The seed document the example comes from.
    load_data : callable
        ``load_data() -> dict``, the default data (keys as in docs/contracts.md).
    model : str or callable
        The PyMC twin's ``build_model(data) -> pm.Model``, or its import string.
        From it the harness derives PyMC's ``log_prior`` and ``log_likelihood``
        of every draw and, for a pair without ``prior`` and ``simulate``, the
        simulations of Geweke's test and SBC (:mod:`mcmc_pairs.comparisons.witness`).
    handrolled : mapping of str to str or callable
        Variant name to a sampler with the contract's signature (or its import
        string). The first variant is the default.
    variables : tuple of str
        Posterior variables compared (free variables of the model); both sides
        must return them and nothing else. A user's pair
        (:func:`mcmc_pairs.comparisons.byom.model_pair`) takes all the model's free variables.
    derived : callable or None
        Extra per-draw quantities that probe joint structure,
        ``derived(posterior, data, centers) -> {name: DataArray(chain, draw)}``;
        ``centers`` holds a fixed centre for each scalar component.
    reference : callable or None
        ``reference(data) -> {quantity: ExactMarginal}`` where an exact answer is known.
    align : callable or None
        For exchangeable labels (LDA topics): ``align(posterior, target) ->
        posterior`` relabels every chain of ``posterior`` to match ``target``
        (an ``xarray.Dataset`` of posterior means). The harness aligns both
        sides to the PyMC side's first chain before any statistic.
    statistics : tuple of str
        Statistics compared for every quantity (default mean, sd and the
        quantiles of :data:`PROBS`; ``bayes_net``'s 0/1 variables compare ``mean`` and ``sd``).
    pymc_kwargs : mapping
        Extra keyword arguments for ``pm.sample`` (for example discrete step methods).
    pymc_steps : mapping of str to str
        Further PyMC runs shown as second references, label to the name of a
        step method in ``pymc`` (``{"metropolis": "Metropolis"}``). They are
        checked against the exact answer and NUTS, but do not decide the verdict.
    report_extra : callable or None
        ``report_extra(result) -> [Section, ...]`` with the run's
        :class:`mcmc_pairs.comparisons.run.PairResult`: pair-specific sections of the report
        (for example a table of acceptance fractions, or aligned topics), as data;
        the report renders them (:class:`Section`).
    settings : mapping
        Default ``draws``, ``tune`` and ``chains`` for this pair.
    validation_data, prior, simulate : str, callable or None
        For pairs that condition on data: ``validation_data() -> dict`` (design
        and hyperparameters to validate under), ``prior(data, rng) -> {variable:
        ndarray}`` (one prior draw) and ``simulate(data, params, rng) -> dict``
        (``data`` with its observed part drawn given ``params``), used by
        Geweke's test and SBC (:mod:`mcmc_pairs.comparisons.validation`). ``None`` for a
        fixed target, which has no data to simulate, or for a pair simulated
        from its model's prior predictive (:mod:`mcmc_pairs.comparisons.witness`).
    test_params : str, callable or None
        For pairs whose raw variables are not identifiable (exchangeable
        labels): ``test_params(params, data) -> {name: ndarray}``, each
        (chain, draw, *event_shape). Geweke's test and SBC take their
        components from it instead of the pair's variables; ``derived`` is kept.
    wrong : mapping of str to str or callable
        The pair's catalogue of deliberately wrong samplers (contract
        signature), name to sampler: what the harness must catch. Tests and
        ``make power`` run every one of them; the notebooks plant them.
    planted : PlantedShifts or None
        Where ``make power`` plants shifts of known size in the correct draws
        (``scripts/planted.py``); ``None``: the pair is left out of that table.
    log_likelihood : str, callable or None
        For pairs that declare ``simulate``: ``log_likelihood(posterior, data)
        -> DataArray(chain, draw)``, the log density of ``data``'s simulated
        part given each draw (``posterior`` as in ``derived``); SBC ranks it as
        the test quantity ``log_likelihood``. A pair simulated from its model
        gets PyMC's instead.
    """

    name: str
    title: str
    seed: str
    load_data: Callable[[], dict]
    model: str | Callable
    handrolled: Mapping[str, str | Callable]
    variables: tuple[str, ...]
    derived: Quantities | None = None
    reference: Callable[[Mapping[str, Any]], Mapping[str, ExactMarginal]] | None = None
    align: Callable[[Any, Any], Any] | None = None
    statistics: tuple[str, ...] = ("mean", "sd", "q5", "q50", "q95")
    pymc_kwargs: Mapping[str, Any] = field(default_factory=dict)
    pymc_steps: Mapping[str, str] = field(default_factory=dict)
    report_extra: Callable[[Any], list[Section]] | None = None
    settings: Mapping[str, int] = field(default_factory=dict)
    validation_data: str | Callable | None = None
    prior: str | Callable | None = None
    simulate: str | Callable | None = None
    test_params: str | Callable | None = None
    wrong: Mapping[str, str | Callable] = field(default_factory=dict)
    log_likelihood: str | Callable | None = None
    planted: PlantedShifts | None = None
