"""What "agree" means: MCSE-scaled z-tests, a Holm correction, and diagnostics gates.

Everything here works on *quantities*: a ``DataArray`` with dims
``(chain, draw, quantity)`` holding, per draw, each scalar component of the
compared variables and the derived quantities that probe joint structure.
Summaries and diagnostics come from :mod:`arviz_stats`; it and SciPy are imported in
the functions that use them, so a run loads neither before it has sampled.

The rules (docs/contracts.md, "What 'agree' means"):

* for each quantity and statistic (mean, sd, 5/50/95 % quantiles),
  ``z = (a - b) / sqrt(mcse_a**2 + mcse_b**2)`` between two sides, and
  ``z = (a - exact) / mcse_a`` against an exact answer where one is known;
* a z-score's p-value comes from a Student-t with :data:`Z_DF` degrees of
  freedom per statistic (the MCSE is estimated, which fattens the tails);
* all z-checks of one run form one family, corrected by Holm's step-down
  procedure so that a correct pair raises a false alarm in about ``alpha`` of
  runs (1 % by default);
* each side must pass the gates R-hat below its threshold and bulk and tail
  ESS >= 100 per chain; a side that fails them is ``"not converged"``, its own
  verdict, unless it differs from the other side far beyond any plausible
  Monte Carlo error (|z| above :data:`GROSS_FACTOR` times its Holm threshold),
  which is ``"disagree"``;
* a side that passes its own gates, support and exact checks while the
  reference fails its own is ``"reference failed"`` (:func:`verdict`): the
  reference's failure is not blamed on the side, however large the difference;
* a quantity constant in every draw on both sides of a comparison is compared
  exactly (:func:`compare_constants_exactly`) and its gates do not apply
  (:func:`constant_gates`); constant on one side only, it fails that side's
  R-hat gate (a stuck sampler);
* the R-hat threshold scales with the number of quantities
  (:func:`rhat_threshold`): 1.01, or the R-hat that correct chains of the same
  bulk ESS exceed with probability ``alpha / (2 m)`` for ``m`` quantities,
  whichever is larger, so that a side of correct chains fails the R-hat gate in
  at most ``alpha`` of runs however many quantities it has;
* the two sides' draws of all quantities at once must not differ by more than
  their energy distance's block-permutation test allows at ``energy.ALPHA``
  (:func:`energy_checks`, :mod:`mcmc_pairs.comparisons.energy`): joint structure that
  marginal checks miss;
* a *discrete* quantity (:func:`discrete_quantities`: integer-valued draws on
  every side, or few distinct values) is compared by its mean, its sd and the
  probabilities ``P(X <= k)`` at the pooled draws' 5/50/95 % quantiles
  (:func:`lattice_indicators`), each the mean of an indicator whose MCSE comes
  from the indicator's ESS: a quantile of a lattice has no Monte Carlo error
  to estimate (its MCSE is 0 whenever the order statistics tie);
* every quantity must be finite in every draw: a draw whose log density is
  ``-inf`` lies outside the support, and that is ``"disagree"`` whatever the
  gates say.
"""

from __future__ import annotations

import itertools
import warnings
from collections.abc import Collection, Mapping, Sequence

import numpy as np
import pandas as pd
import xarray as xr

from mcmc_pairs.comparisons import energy
from mcmc_pairs.comparisons.execution import ChildInterpreter
from mcmc_pairs.comparisons.kinds import (
    HONESTY_KINDS,
    SEVERITY,
    Z_KINDS,
    CheckKind,
    Statistic,
    Verdict,
)
from mcmc_pairs.comparisons.pair import PROBS, ExactMarginal, quantile_label
from mcmc_pairs.comparisons.settings import TOLERANCE

ALPHA = 0.01
"""Family-wise false-alarm rate of the z-checks of one run."""
ALPHA_EQUIVALENCE = 0.05
"""Error rate of ``agree``: the probability of certifying a resolution that a difference exceeds.

Each check's resolution is the upper end of the (1 - 2 alpha) confidence
interval of its absolute difference, and ``agree`` needs every resolution
within its tolerance: an intersection-union test (Berger 1982), whose level is
alpha with no multiplicity correction, however many checks there are."""
TAIL_FACTOR = 2.0
"""The 5 % and 95 % quantiles' tolerance is this many times ``delta``: their MCSE is about
2.1 times the mean's for the same ESS (normal theory: sqrt(p (1 - p)) / phi(z_p))."""
Z_DF = {
    Statistic.MEAN: 30,
    Statistic.SD: 30,
    Statistic.Q5: 20,
    Statistic.Q50: 30,
    Statistic.Q95: 20,
}
"""Degrees of freedom of the Student-t that turns a z-score into a p-value, per statistic.

The MCSE in the denominator is itself estimated, so z has heavier tails than a
normal, and how much heavier depends on how the MCSE is estimated: a tail
quantile's rests on the ESS of an indicator and the spacing of a few order
statistics. Measured by ``scripts/z_calibration.py`` (``benchmarks/z_calibration.md``)
on 2,000 runs of each of five correct samplers against exact answers (16,000
z-scores per statistic): means, sds and medians follow t(30) or lighter
(|z| > 4.5: 0, 3 and 0 times, t(30) predicts 1.5), the 5 % and 95 % quantiles
t(20) (|z| > 4, 4.5, 5: 23, 10 and 2 of 32,000; t(20) predicts 22.5, 7.0 and
2.2, t(30) 12.2, 3.0 and 0.7). With t(30) for every statistic, ``regression``
raised 2 % false alarms, all from tail quantiles just over their Holm
thresholds (``benchmarks/power.md``)."""
CHECK_LABELS = frozenset(statistic.check for statistic in Statistic)
"""The ``statistic`` words of z-checks in a checks table: ``"z(mean)"`` ..."""


def z_df(statistic: str) -> int:
    """Return the degrees of freedom of a statistic's z-scores (:data:`Z_DF`; else the mean's).

    ``statistic`` may be a z-check's label (:attr:`Statistic.check`): ``"q95"`` and
    ``"z(q95)"`` alike, as a report's JSON has them.
    """
    if statistic not in Z_DF and statistic in CHECK_LABELS:
        statistic = Statistic.of_check(statistic)
    return Z_DF.get(statistic, Z_DF["mean"])


RHAT_MAX = 1.01
"""The R-hat gate of a side with few quantities and a large ESS (Vehtari et al. 2021)."""
ESS_PER_CHAIN_MIN = 100
GROSS_FACTOR = 4.0
"""A side that fails its gates is still ``disagree`` when a z-check exceeds this many
times its Holm threshold: its MCSE would have to be underestimated fourfold (its
ESS sixteenfold) for Monte Carlo error to explain the difference."""
MAX_COMPONENTS_FOR_PRODUCTS = 6
"""Geweke's test and SBC add pairwise products (and sums) only up to this many components."""
ALL_PAIRS_UP_TO = 12
"""``compare`` multiplies every pair of components up to this many (at most 66 products)."""
MAX_PRODUCTS = 64
"""Beyond :data:`ALL_PAIRS_UP_TO` components, at most this many neighbour products."""

MAX_ATOMS = 100
"""A quantity whose draws (all sides pooled) take at most this many distinct values is
treated as discrete, as is one whose draws are integers on every side."""
DISCRETE_STATISTICS = ("mean", "sd")
"""What a discrete quantity is compared by itself; its quantiles become indicators."""


def discrete_quantities(sides: Mapping[str, xr.DataArray]) -> list[str]:
    """Return the quantities that lie on a lattice on every side: compared as discrete.

    A quantity is discrete when its draws are whole numbers on every side (a
    PyMC discrete variable, a count, a 0/1 node, an index) or when all sides'
    draws together take at most :data:`MAX_ATOMS` distinct values (the log
    density of a model whose variables are all discrete). Its quantiles then
    sit on atoms: two sides' 95 % quantiles may differ by a step of the lattice
    while their MCSEs, from the spacing of order statistics, are 0.

    Parameters
    ----------
    sides : mapping of str to DataArray
        Quantities of each side, shape (chain, draw, quantity), the same quantities.

    Returns
    -------
    list of str
        In the order of the first side's quantities.
    """
    if not sides:
        return []
    names = [str(q) for q in next(iter(sides.values()))["quantity"].values]
    names = [q for q in names if all(q in da.indexes["quantity"] for da in sides.values())]
    if not names:
        return []
    columns = {label: _draw_columns(da, names) for label, da in sides.items()}
    found = []
    for i, name in enumerate(names):
        # a continuous quantity shows many values (or a fraction) in its first draws
        head = next(iter(columns.values()))[: 4 * MAX_ATOMS, i]
        head = head[np.isfinite(head)]
        if np.any(head != np.round(head)) and np.unique(head).size > MAX_ATOMS:
            continue
        pooled = np.concatenate([values[:, i] for values in columns.values()])
        pooled = pooled[np.isfinite(pooled)]
        if pooled.size and (
            np.all(pooled == np.round(pooled)) or np.unique(pooled).size <= MAX_ATOMS
        ):
            found.append(name)
    return _with_lattice_products(names, found)


def _with_lattice_products(names: Sequence[str], found: list[str]) -> list[str]:
    """Add the centred products ``"a*b"`` (:func:`centred_products`) of two discrete factors.

    ``(a - c_a) (b - c_b)`` of two lattice quantities lies on a lattice too, but a
    shifted one (not whole numbers) with many atoms: two counts of means 4 and 100
    give hundreds. Independent chains share such values bit for bit, so a product
    left continuous is a false alarm of the copy and independence checks
    (``shipped/pymc_metropolis_elemwise``, PyMC's Metropolis on Poisson counts),
    and its quantiles' MCSE, from the spacing of order statistics, is wrong.
    """
    discrete = set(found)
    for name in names:
        a, star, b = name.partition("*")
        if star and name not in discrete and a in discrete and b in discrete:
            discrete.add(name)
    return [name for name in names if name in discrete]


def _draw_columns(da: xr.DataArray, names: Sequence[str]) -> np.ndarray:
    """Return the draws of ``names`` as a (chains * draws, quantity) array."""
    values = da.sel(quantity=list(names)).transpose("chain", "draw", "quantity").values
    return np.asarray(values, dtype=float).reshape(-1, len(names))


def indicator_name(quantity: str, cut: float) -> str:
    """Name the indicator quantity of ``quantity <= cut``: ``P(quantity <= cut)``."""
    return f"P({quantity} <= {cut:.6g})"


def lattice_indicators(
    sides: Mapping[str, xr.DataArray], discrete: Sequence[str], probs: Sequence[float] = PROBS
) -> dict[str, xr.DataArray]:
    """Return each side's indicators ``1[X <= k]`` of the discrete quantities, as quantities.

    For a discrete quantity ``X``, the cuts ``k`` are the pooled draws' (all
    sides together) 5, 50 and 95 % quantiles; a cut that every draw lies
    at or below moves down to the next atom below it, so that ``P(X <= k) < 1``;
    repeated cuts are kept once, and a quantity with at most two distinct
    values gets none (its mean already determines its distribution). Taken
    from the pooled draws, the cuts depend on the sides' sum, not on their
    difference, which is what a z-check tests.

    The mean of an indicator is ``P(X <= k)``; its MCSE (from the indicator's
    ESS) is well defined on a lattice, and its z-check, resolution and gates
    are a mean's: the resolution is measured in the indicator's sd,
    ``sqrt(P (1 - P))``, so the tolerance ``delta`` of ``P(X <= k95)`` is
    ``0.2 * 0.22 = 0.044`` in probability (a continuous quantity's 95 %
    quantile off by ``2 delta = 0.4`` sd moves its CDF there by about 0.041).

    Parameters
    ----------
    sides : mapping of str to DataArray
        Quantities of each side, shape (chain, draw, quantity).
    discrete : sequence of str
        The quantities to cut (:func:`discrete_quantities`).
    probs : sequence of float
        The quantiles to cut at: those a continuous quantity would be compared by.

    Returns
    -------
    dict of str to DataArray
        Per side, shape (chain, draw, indicator), values 0.0 or 1.0; quantity
        names from :func:`indicator_name`. Empty arrays when there is nothing to cut.
    """
    cuts: list[tuple[str, float]] = []
    for name in discrete:
        pooled = np.concatenate(
            [np.asarray(da.sel(quantity=name).values, dtype=float).ravel() for da in sides.values()]
        )
        pooled = np.sort(pooled[np.isfinite(pooled)])
        atoms = np.unique(pooled)
        if atoms.size <= 2:
            continue
        chosen: list[float] = []
        for p in probs:
            cut = float(np.quantile(pooled, p, method="inverted_cdf"))
            if cut >= atoms[-1]:
                cut = float(atoms[-2])  # P(X <= max) = 1 says nothing: the atom below
            if cut not in chosen:
                chosen.append(cut)
        cuts += [(name, cut) for cut in chosen]
    out = {}
    for label, da in sides.items():
        columns = [
            (da.sel(quantity=name) <= cut).astype(float).drop_vars("quantity", errors="ignore")
            for name, cut in cuts
        ]
        names = [indicator_name(name, cut) for name, cut in cuts]
        if columns:
            out[label] = xr.concat(columns, dim="quantity").assign_coords(quantity=names)
            out[label] = out[label].transpose("chain", "draw", "quantity")
        else:
            out[label] = da.isel(quantity=slice(0, 0))
    return out


STATISTICS = tuple(Statistic)
"""Every statistic compared by default: mean, sd and the quantiles of :data:`PROBS`."""
AGREE, DISAGREE, NOT_CONVERGED = Verdict.AGREE, Verdict.DISAGREE, Verdict.NOT_CONVERGED
INCONCLUSIVE, REFERENCE_FAILED = Verdict.INCONCLUSIVE, Verdict.REFERENCE_FAILED
VERDICTS = SEVERITY
"""Every verdict, from best to worst."""
SAMPLE_DIMS = ("chain", "draw")
CHECK_COLUMNS = (
    "comparison", "side", "kind", "quantity", "statistic", "value", "threshold", "passed",
)  # fmt: skip
"""Columns of a run's checks; ``side`` is the side a check judges, ``kind`` one of
``"agreement"``, ``"exact"``, ``"multivariate"``, ``"diagnostic"``, ``"support"``."""


def scalar_components(posterior: xr.Dataset, variables: Sequence[str]) -> xr.DataArray:
    """Flatten the compared variables into scalar components.

    Parameters
    ----------
    posterior : xarray.Dataset
        Draws with dims ``(chain, draw, ...)``.
    variables : sequence of str
        Names of the variables to flatten.

    Returns
    -------
    xarray.DataArray
        Shape (chain, draw, quantity), ``quantity`` labelled like ArviZ:
        ``"beta0"``, ``"x[1]"``, ``"theta[2, 0]"``.
    """
    blocks, labels = [], []
    for var in variables:
        da = posterior[var].transpose(*SAMPLE_DIMS, ...)
        event_shape = da.shape[2:]
        blocks.append(da.values.reshape(da.shape[0], da.shape[1], -1))
        if not event_shape:
            labels.append(var)
        else:
            labels.extend(f"{var}[{', '.join(map(str, idx))}]" for idx in np.ndindex(*event_shape))
    values = np.concatenate(blocks, axis=2)
    return xr.DataArray(values, dims=(*SAMPLE_DIMS, "quantity"), coords={"quantity": labels})


def product_pairs(n: int) -> list[tuple[int, int]]:
    """Return the pairs of component indices whose centred products ``compare`` checks.

    The rule, bounded for high-dimensional variables: every pair when there are
    at most :data:`ALL_PAIRS_UP_TO` components; otherwise the neighbours
    ``(i, i + 1)`` in the flattened order (each component of a vector with the
    next, the last of one variable with the first of the next), thinned evenly
    to at most :data:`MAX_PRODUCTS`. So a 10-dimensional posterior gets all 45
    products and LDA's 650 components get 64, not 210,925.

    Parameters
    ----------
    n : int
        Number of scalar components.

    Returns
    -------
    list of (int, int)
    """
    if n <= ALL_PAIRS_UP_TO:
        return list(itertools.combinations(range(n), 2))
    neighbours = [(i, i + 1) for i in range(n - 1)]
    if len(neighbours) <= MAX_PRODUCTS:
        return neighbours
    keep = np.linspace(0, len(neighbours) - 1, MAX_PRODUCTS).round().astype(int)
    return [neighbours[k] for k in keep]


def centred_products(components: xr.DataArray, centers: Mapping[str, float]) -> xr.DataArray:
    """Return ``(a - c_a) * (b - c_b)`` for the pairs of :func:`product_pairs`, named ``"a*b"``.

    The centres are fixed numbers shared by both sides, so the mean of a
    product is comparable across sides (it is the covariance when the centres
    are the exact means).
    """
    names = list(components["quantity"].values)
    pairs = [(names[i], names[j]) for i, j in product_pairs(len(names))]
    if not pairs:
        return components.isel(quantity=slice(0, 0))
    centred = components.values - np.array([centers[n] for n in names])
    index = {name: k for k, name in enumerate(names)}
    values = np.stack([centred[..., index[a]] * centred[..., index[b]] for a, b in pairs], axis=-1)
    return xr.DataArray(
        values,
        dims=(*SAMPLE_DIMS, "quantity"),
        coords={"quantity": [f"{a}*{b}" for a, b in pairs]},
    )


def summarize(quantities: xr.DataArray) -> pd.DataFrame:
    """Per quantity: statistics, their MCSEs, bulk and tail ESS, and R-hat.

    Parameters
    ----------
    quantities : xarray.DataArray
        Shape (chain, draw, quantity).

    Returns
    -------
    pandas.DataFrame
        Indexed by quantity; columns ``mean``, ``sd``, ``q5``, ``q50``,
        ``q95``, ``mcse_<statistic>`` for each, ``batch_<statistic>`` for each
        (the standard error of the statistic with the chains as batches: the
        sd of its per-chain values over sqrt(chains), large when chains
        disagree), ``ess_bulk``, ``ess_tail``, ``ess_within`` (the sum of
        every chain's own bulk ESS: what the chains would give if they mixed
        with each other), ``r_hat``.
    """
    import arviz_stats as azs

    ds = xr.Dataset({"q": quantities})
    columns = {
        "mean": quantities.mean(SAMPLE_DIMS),
        "sd": quantities.std(SAMPLE_DIMS, ddof=1),
        "mcse_mean": azs.mcse(ds, method="mean")["q"],
        "mcse_sd": azs.mcse(ds, method="sd")["q"],
    }
    # every quantile from one partition of the draws (numpy's, for all of PROBS at once):
    # the same values as one call per quantile, at a third of the time
    pooled = quantities.quantile(list(PROBS), dim=SAMPLE_DIMS)
    within = quantities.quantile(list(PROBS), dim="draw")
    for p in PROBS:
        label = quantile_label(p)
        columns[label] = pooled.sel(quantile=p, drop=True)
        columns[f"mcse_{label}"] = azs.mcse(ds, method="quantile", prob=p)["q"]
    per_chain = {
        "mean": quantities.mean("draw"),
        "sd": quantities.std("draw", ddof=1),
        **{quantile_label(p): within.sel(quantile=p, drop=True) for p in PROBS},
    }
    root_chains = np.sqrt(quantities.sizes["chain"])
    for label, values in per_chain.items():
        columns[f"batch_{label}"] = values.std("chain", ddof=1) / root_chains
    columns["ess_bulk"] = azs.ess(ds, method="bulk")["q"]
    each_chain = ds.rename(chain="batch").expand_dims(chain=1)  # every chain on its own
    columns["ess_within"] = azs.ess(each_chain, method="bulk")["q"].sum("batch")
    columns["ess_tail"] = azs.ess(ds, method="tail")["q"]
    columns["r_hat"] = azs.rhat(ds)["q"]
    index = pd.Index(quantities["quantity"].values, name="quantity")
    return pd.DataFrame(
        {k: np.asarray(v.values, dtype=float) for k, v in columns.items()}, index=index
    )


PARALLEL_MIN_VALUES = 4_000_000
"""Values (draws x quantities, all sides) from which :func:`summarize_sides` uses two processes."""


def summarize_sides(
    sides: Mapping[str, xr.DataArray], cores: int | None = None
) -> dict[str, pd.DataFrame]:
    """Return :func:`summarize` of every side, in a second process too when the draws are many.

    ArviZ's diagnostics loop over quantities in Python, so a large posterior
    (LDA: four sides of 718 quantities x 8,000 draws, about 5 s each) holds one
    core. From :data:`PARALLEL_MIN_VALUES` values on, and with two cores or
    more, every side's quantities are split: a child interpreter (``python -m
    mcmc_pairs.comparisons.agreement``, so a caller's unguarded script is never re-run)
    summarises the last ones while this process summarises the first
    :data:`HERE_SHARE` (a little more than half: the child first starts up).
    Every statistic of a quantity is computed from that quantity's draws
    alone, so the joined frames are those of one :func:`summarize`, bit for
    bit (tested); if the child fails, its part is summarised here. A side whose
    quantities this process summarised before (the same bytes, :func:`~.reuse.array_key`)
    gets that summary back (:data:`~.reuse.SUMMARIES`), and within
    :func:`~.reuse.summaries_on_disk` (``compare`` with a reference cache) one
    kept on disk by an earlier process.

    Parameters
    ----------
    sides : mapping of str to DataArray
        Quantities of each side, shape (chain, draw, quantity).
    cores : int or None
        Cores to use (default: every core this process may run on); 1 never
        starts a child.

    Returns
    -------
    dict of str to DataFrame
        :func:`summarize` per side, in the order of ``sides``.
    """
    from mcmc_pairs.comparisons import reuse

    keys = {label: reuse.array_key(da) for label, da in sides.items()}
    disk = reuse.summary_memo(__file__)
    kept = {label: _kept_summary(key, disk) for label, key in keys.items()}
    missing = {label: da for label, da in sides.items() if kept[label] is None}
    made = _summarize_each(missing, cores) if missing else {}
    for label, frame in made.items():
        reuse.SUMMARIES.store(keys[label], frame.copy())
        if disk is not None:
            disk.save(keys[label], frame)
    return {label: (made[label] if kept[label] is None else kept[label].copy()) for label in sides}


def _kept_summary(key: tuple, disk) -> pd.DataFrame | None:
    """Return a summary kept in this process, else on disk (then kept here too), else None."""
    from mcmc_pairs.comparisons import reuse

    found = reuse.SUMMARIES.lookup(key)
    if found is None and disk is not None and (found := disk.load(key)) is not None:
        reuse.SUMMARIES.store(key, found)
    return found


def _summarize_each(
    sides: Mapping[str, xr.DataArray], cores: int | None = None
) -> dict[str, pd.DataFrame]:
    """Return :func:`summarize` of every side (:func:`summarize_sides`, without its memo)."""
    from mcmc_pairs.handrolled._common import available_cores

    cores = available_cores() if cores is None else cores
    size = sum(da.size for da in sides.values())
    if cores < 2 or size < PARALLEL_MIN_VALUES:
        return {label: _summarize_quietly(da) for label, da in sides.items()}
    cut = {
        label: min(max(round(HERE_SHARE * da.sizes["quantity"]), 1), da.sizes["quantity"])
        for label, da in sides.items()
    }
    away = {
        label: da.isel(quantity=slice(cut[label], None))
        for label, da in sides.items()
        if cut[label] < da.sizes["quantity"]
    }
    if not away:  # one quantity a side: nothing to split
        return {label: _summarize_quietly(da) for label, da in sides.items()}
    with ChildInterpreter("mcmc_pairs.comparisons.agreement", away) as child:
        here = {
            label: _summarize_quietly(da.isel(quantity=slice(None, cut[label])))
            for label, da in sides.items()
        }
        there = child.result(
            instead=lambda: {label: _summarize_quietly(da) for label, da in away.items()}
        )
    return {
        label: pd.concat([here[label], there[label]]) if label in there else here[label]
        for label in sides
    }


HERE_SHARE = 0.55
"""Share of every side's quantities :func:`summarize_sides` keeps in this process."""


def _summarize_quietly(quantities: xr.DataArray) -> pd.DataFrame:
    """:func:`summarize`, quiet: non-finite draws warn, and the support checks report them."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        return summarize(quantities)


def z_checks(
    summaries: Mapping[str, pd.DataFrame],
    pairs: Sequence[tuple[str, str]],
    reference: Mapping[str, ExactMarginal] | None = None,
    statistics: Sequence[str] = STATISTICS,
    statistics_of: Mapping[str, Sequence[str]] | None = None,
) -> pd.DataFrame:
    """Return the uncorrected z-checks between sides and against the exact answer.

    Parameters
    ----------
    summaries : mapping of str to DataFrame
        :func:`summarize` output per side label.
    pairs : sequence of (str, str)
        Side labels to compare, ``(candidate, reference_side)``.
    reference : mapping of str to ExactMarginal, optional
        Exact marginals per quantity; every side is checked against them.
    statistics : sequence of str
        Statistics to compare (default: mean, sd, 5/50/95 % quantiles).
    statistics_of : mapping of str to sequence of str, optional
        Quantities compared by other statistics than ``statistics`` (a discrete
        quantity by its mean and sd, its indicators by their mean).

    Returns
    -------
    pandas.DataFrame
        One row per check: ``comparison`` (``"a vs b"``, ``"a vs exact"``),
        ``side`` (the side it judges: the candidate, or the side checked
        against the exact answer), ``kind`` (``"agreement"`` or ``"exact"``),
        ``quantity``, ``statistic``, ``a``, ``b``, ``z`` (the value), ``p``
        (two-sided), ``se`` (the difference's standard error from the MCSEs),
        ``se_batch`` (its standard error with the chains as batches, see
        :func:`summarize`), ``scale`` (the posterior sd that :func:`resolutions`
        measures the difference in: the root mean square of the two sides' sds,
        or the exact sd where it is known).
    """
    of = statistics_of or {}
    rows = [
        *_agreement_rows(summaries, pairs, lambda q: of.get(q, statistics)),
        *_exact_rows(summaries, reference or {}, lambda q: of.get(q, statistics)),
    ]
    columns = ["comparison", "side", "kind", "quantity", "statistic", "a", "b", "z", "p", "se"]
    columns += ["se_batch", "scale"]
    table = pd.DataFrame(rows, columns=columns)
    table["p"] = z_p_values(table["z"].to_numpy(dtype=float), table["statistic"])
    return table


def _agreement_rows(summaries, pairs, statistics_of) -> list[dict]:
    """Return the z-checks of each ``(a, b)`` in ``pairs``: every shared quantity and statistic.

    ``statistics_of(quantity)`` gives the statistics compared for a quantity.
    """
    rows = []
    for a_label, b_label in pairs:
        a, b = summaries[a_label], summaries[b_label]
        common = a.index.intersection(b.index, sort=False)
        a, b = _columns(a.loc[common]), _columns(b.loc[common])  # arrays: no per-cell lookup
        scale = np.hypot(a["sd"], b["sd"]) / np.sqrt(2)
        for i, quantity in enumerate(common):
            for stat in statistics_of(quantity):
                se = np.hypot(a[f"mcse_{stat}"][i], b[f"mcse_{stat}"][i])
                batch = np.hypot(a[f"batch_{stat}"][i], b[f"batch_{stat}"][i])
                row = _z_row(f"{a_label} vs {b_label}", quantity, stat, a[stat][i], b[stat][i], se)
                rows.append(
                    {
                        **row,
                        "side": a_label,
                        "kind": CheckKind.AGREEMENT,
                        "se_batch": batch,
                        "scale": scale[i],
                    }
                )
    return rows


def _exact_rows(summaries, reference: Mapping[str, ExactMarginal], statistics_of) -> list[dict]:
    """Return the z-checks of every side against the exact answer, where it is known."""
    rows = []
    for label, summary in summaries.items():
        for quantity, exact in reference.items():
            if quantity not in summary.index:
                continue
            for stat in statistics_of(quantity):
                truth = exact.statistic(stat)
                if truth is None:
                    continue
                se = summary.at[quantity, f"mcse_{stat}"]
                row = _z_row(
                    f"{label} vs exact", quantity, stat, summary.at[quantity, stat], truth, se
                )
                batch = summary.at[quantity, f"batch_{stat}"]
                scale = exact.sd if exact.sd is not None else summary.at[quantity, "sd"]
                rows.append(
                    {
                        **row,
                        "side": label,
                        "kind": CheckKind.EXACT,
                        "se_batch": batch,
                        "scale": scale,
                    }
                )
    return rows


def _columns(frame: pd.DataFrame) -> dict[str, np.ndarray]:
    return {str(name): frame[name].to_numpy() for name in frame.columns}


def z_p_values(z: np.ndarray, statistics: Sequence[str]) -> np.ndarray:
    """Return two-sided p-values of z-scores, each under its statistic's Student-t (:func:`z_df`).

    One call for the whole table: scipy's per-call overhead would otherwise
    dominate a large run (LDA: 22,000 checks).
    """
    from scipy import stats

    df = np.array([z_df(statistic) for statistic in statistics], dtype=float)
    return 2 * stats.t.sf(np.abs(np.asarray(z, dtype=float)), df)


def _z_row(comparison, quantity, statistic, a, b, se) -> dict:
    """One z-check without its p-value (:func:`z_p_values` adds them all at once)."""
    diff = float(a) - float(b)
    if diff == 0.0:
        z = 0.0  # identical (e.g. a degenerate quantile of a discrete quantity)
    elif np.isnan(se):
        z = np.nan  # no MCSE (a draw or two per chain): no test; the gates say not converged
    elif np.isfinite(se) and se > 0:
        z = diff / se
    else:
        z = np.inf  # a difference with no Monte Carlo error to explain it
    return {
        "comparison": comparison,
        "quantity": quantity,
        "statistic": statistic,
        "a": float(a),
        "b": float(b),
        "z": z,
        "se": float(se),
    }


def holm(checks: pd.DataFrame, alpha: float = ALPHA) -> pd.DataFrame:
    """Apply Holm's step-down correction to a family of z-checks.

    Adds ``threshold`` (the |z| a check must not exceed at its rank, under the
    Student-t of its ``statistic``, :func:`z_df`), ``level`` (the p-value it
    must not reach at its rank, ``alpha / (m - rank)``) and ``passed``. Controls the
    family-wise error rate at ``alpha`` under any dependence between the checks.
    """
    from scipy import stats

    checks = checks.copy()
    m = len(checks)
    if m == 0:
        empty = pd.Series(dtype=float)
        return checks.assign(threshold=empty, level=empty, passed=pd.Series(dtype=bool))
    order = np.argsort(checks["p"].to_numpy(), kind="stable")
    level = alpha / (m - np.arange(m))  # alpha/m, alpha/(m-1), ..., alpha
    rejected_sorted = np.cumprod(checks["p"].to_numpy()[order] <= level).astype(bool)
    threshold = np.empty(m)
    passed = np.empty(m, dtype=bool)
    if "statistic" in checks:
        df = checks["statistic"].map(z_df).to_numpy(dtype=float)[order]
    else:
        df = z_df("mean")
    threshold[order] = stats.t.isf(level / 2, df)
    passed[order] = ~rejected_sorted
    levels = np.empty(m)
    levels[order] = level
    return checks.assign(threshold=threshold, level=levels, passed=passed)


def tolerances(delta: float = TOLERANCE) -> dict[str, float]:
    """Return the tolerance of every statistic, in posterior sd units, for a given ``delta``.

    ``delta`` for the mean, the sd (a relative error of the sd) and the median;
    :data:`TAIL_FACTOR` times ``delta`` for the 5 % and 95 % quantiles.
    """
    if not (isinstance(delta, (int, float)) and np.isfinite(delta) and delta > 0):
        raise ValueError(f"tolerance must be a positive number (posterior sds), got {delta!r}")
    tails = {quantile_label(p): TAIL_FACTOR * delta for p in PROBS if p != 0.5}
    return {"mean": delta, "sd": delta, quantile_label(0.5): delta, **tails}


def resolutions(
    z_table: pd.DataFrame,
    delta: float = TOLERANCE,
    alpha: float = ALPHA_EQUIVALENCE,
    means_only: Collection[str] = (),
) -> pd.DataFrame:
    """Add each check's resolution and whether it lies within its tolerance (two one-sided tests).

    The difference ``(a - b) / scale`` is in posterior sd units, and so is its
    standard error ``se / scale``. The check's *resolution* is
    ``|difference| + t(1 - alpha, z_df(statistic)) * se / scale``: the smallest tolerance
    whose two one-sided tests (Schuirmann 1987) both reject at level ``alpha``,
    i.e. the upper end of the difference's (1 - 2 alpha) confidence interval in
    absolute value. A check is ``equivalent`` when its resolution is below its
    tolerance (:func:`tolerances`). ``agree`` needs every check equivalent: by
    the intersection-union principle the claim "every difference is within
    its tolerance" then errs with probability at most ``alpha``.

    Parameters
    ----------
    z_table : pandas.DataFrame
        From :func:`z_checks` (columns ``a``, ``b``, ``se``, ``scale``, ``statistic``).
    delta : float
        The tolerance of means, sds and medians (:func:`tolerances`).
    alpha : float
        Level of each one-sided test.
    means_only : collection of str
        Quantities whose mean alone is certified: the centred products, whose
        mean is a covariance but whose sd and tail quantiles are fourth-moment
        statistics of heavy-tailed draws (a product of two normals has kurtosis
        9; with an inverse-gamma factor, far more). Their other statistics
        keep their z-checks (a difference is still detected) but get no
        tolerance (``NaN``, ``equivalent`` missing).

    Returns
    -------
    pandas.DataFrame
        ``z_table`` with ``difference`` (sd units, signed), ``resolution``,
        ``tolerance`` and ``equivalent``. Identical statistics (a degenerate
        quantile of a discrete quantity) have resolution 0; a difference with
        no finite standard error or scale has an infinite one.
    """
    from scipy import stats

    limits = tolerances(delta)
    critical = stats.t.isf(alpha, z_table["statistic"].map(z_df).to_numpy(dtype=float))
    diff = (z_table["a"] - z_table["b"]).to_numpy(dtype=float)
    se = z_table["se"].to_numpy(dtype=float)
    scale = z_table["scale"].to_numpy(dtype=float)
    with np.errstate(divide="ignore", invalid="ignore"):
        resolution = (np.abs(diff) + critical * se) / scale
    usable = np.isfinite(resolution) & (scale > 0)
    resolution = np.where(usable, resolution, np.where(diff == 0, 0.0, np.inf))
    with np.errstate(divide="ignore", invalid="ignore"):
        difference = np.where(scale > 0, diff / scale, np.where(diff == 0, 0.0, np.inf))
    tolerance = z_table["statistic"].map(limits).to_numpy(dtype=float, copy=True)
    spread = z_table["quantity"].isin(list(means_only)) & (z_table["statistic"] != "mean")
    tolerance[spread.to_numpy()] = np.nan
    equivalent = pd.Series(resolution < tolerance, index=z_table.index, dtype=object)
    equivalent[np.isnan(tolerance)] = None
    return z_table.assign(
        difference=difference,
        resolution=resolution,
        tolerance=tolerance,
        equivalent=equivalent,
    )


def rhat_threshold(
    ess: np.ndarray | float, chains: int, draws: int, quantities: int, alpha: float = ALPHA
) -> np.ndarray:
    """Return the R-hat above which a side is not converged, for one of ``quantities``.

    For ``M = 2 chains`` split chains of ``N = draws / 2`` stationary draws with
    ``n = ess / M`` effective draws each, the variance of the chain means is
    about ``F sigma**2 / n`` with ``F ~ chi2(M - 1) / (M - 1)``, and R-hat's
    ``(N - 1) / N + B / (N W)`` (Vehtari et al. 2021) is about
    ``1 - 1 / N + F / n``. The threshold is the R-hat that ``F``'s
    upper ``alpha / (2 quantities)`` quantile gives (two R-hats per quantity:
    arviz-stats takes the larger of the bulk and the folded one), Bonferroni
    over the side's quantities, and never below :data:`RHAT_MAX`. Measured on
    AR(1) chains (``scripts/rhat_gate.py``, ``benchmarks/rhat_gate.md``).

    Parameters
    ----------
    ess : float or ndarray
        ESS of each quantity from within the chains (``ess_within`` of
        :func:`summarize`): chains that disagree with each other, which R-hat
        is there to detect, do not lower it. It is taken at least at the ESS
        gate (:data:`ESS_PER_CHAIN_MIN` per chain), below which a side is not
        converged anyway, so the threshold never exceeds its value there.
    chains, draws : int
        Number of chains, and of draws per chain.
    quantities : int
        Number of quantities the side is judged on.
    alpha : float
        Family-wise false-alarm rate of the side's R-hat gates.

    Returns
    -------
    ndarray
        Shape of ``ess``; :data:`RHAT_MAX` where the ESS is not a number.
    """
    from scipy import stats

    splits = 2 * chains
    f = stats.chi2.isf(alpha / (2 * max(quantities, 1)), splits - 1) / (splits - 1)
    ess = np.maximum(np.asarray(ess, dtype=float), ESS_PER_CHAIN_MIN * chains)
    with np.errstate(divide="ignore", invalid="ignore"):
        null = np.sqrt(1.0 - 2.0 / draws + f * splits / ess)
    return np.where(np.isfinite(null) & (ess > 0), np.maximum(RHAT_MAX, null), RHAT_MAX)


def diagnostic_checks(
    summaries: Mapping[str, pd.DataFrame], chains: int, draws: int | Mapping[str, int]
) -> pd.DataFrame:
    """Return the convergence gates of every side: R-hat, bulk and tail ESS, per quantity.

    Columns :data:`CHECK_COLUMNS`, ``kind`` ``"diagnostic"``, ``side`` the side's label.
    The R-hat threshold of each quantity is :func:`rhat_threshold` of its
    within-chain ESS and the side's number of quantities; ``draws`` is the
    draws per chain, one number or one per side.
    """
    ess_min = ESS_PER_CHAIN_MIN * chains
    rows = []
    for label, summary in summaries.items():
        ess = summary["ess_within"].to_numpy()
        n = draws[label] if isinstance(draws, Mapping) else draws
        rhat_max = rhat_threshold(ess, chains, n, len(summary))
        for (quantity, row), r_max in zip(summary.iterrows(), rhat_max, strict=True):
            for stat, value, threshold, ok in (
                ("r_hat", row["r_hat"], r_max, row["r_hat"] < r_max),
                ("ess_bulk", row["ess_bulk"], ess_min, row["ess_bulk"] >= ess_min),
                ("ess_tail", row["ess_tail"], ess_min, row["ess_tail"] >= ess_min),
            ):
                rows.append(
                    {
                        "comparison": label,
                        "side": label,
                        "kind": CheckKind.DIAGNOSTIC,
                        "quantity": quantity,
                        "statistic": stat,
                        "value": float(value),
                        "threshold": float(threshold),
                        "passed": bool(ok),
                    }
                )
    return pd.DataFrame(rows, columns=list(CHECK_COLUMNS))


DIVERGENCES = "divergences"
"""The statistic of the divergence gate (:func:`divergence_checks`)."""
ALL_QUANTITIES = "all"
"""The ``quantity`` of a check of a side's whole run rather than one quantity."""


def divergence_checks(label: str, tree: xr.DataTree) -> pd.DataFrame:
    """Return the divergence gate of a side: none of its transitions may diverge.

    NUTS and HMC (PyMC's, nutpie's, NumPyro's) mark a transition whose energy
    error blew up as ``sample_stats.diverging``: the trajectory met curvature
    its step size cannot follow (a funnel's neck), and the chain under-visits
    that region however long it runs, so its draws are biased while R-hat and
    ESS may look fine. One row (kind ``"diagnostic"``, quantity ``"all"``):
    ``value`` the number of divergent draws in all chains, threshold 0. No row
    for a side that records no divergences (a Gibbs sampler, Metropolis).

    Parameters
    ----------
    label : str
        The side's label.
    tree : xarray.DataTree
        The side's draws; ``sample_stats.diverging`` of shape (chain, draw) if any.

    Returns
    -------
    pandas.DataFrame
        Columns :data:`CHECK_COLUMNS`; zero or one row.
    """
    stats = tree.children.get("sample_stats")
    if stats is None or "diverging" not in stats.data_vars:
        return pd.DataFrame(columns=list(CHECK_COLUMNS))
    count = int(np.count_nonzero(np.asarray(stats["diverging"].values, dtype=bool)))
    row = {
        "comparison": label,
        "side": label,
        "kind": CheckKind.DIAGNOSTIC,
        "quantity": ALL_QUANTITIES,
        "statistic": DIVERGENCES,
        "value": float(count),
        "threshold": 0.0,
        "passed": count == 0,
    }
    return pd.DataFrame([row], columns=list(CHECK_COLUMNS))


def diverged(checks: pd.DataFrame | None) -> bool:
    """Return True when a divergence gate among ``checks`` failed (:func:`divergence_checks`)."""
    rows = _of_kind(checks, CheckKind.DIAGNOSTIC)
    return _any_failed(rows[rows["statistic"] == DIVERGENCES]) if len(rows) else False


def support_checks(sides: Mapping[str, xr.DataArray]) -> pd.DataFrame:
    """Return one check per side and quantity: the fraction of non-finite draws must be 0.

    Columns :data:`CHECK_COLUMNS`, ``kind`` ``"support"``, ``side`` the side's label.
    """
    rows = []
    for label, da in sides.items():
        bad = (~np.isfinite(da)).mean(SAMPLE_DIMS)
        for quantity, fraction in zip(da["quantity"].values, bad.values, strict=True):
            rows.append(
                {
                    "comparison": label,
                    "side": label,
                    "kind": CheckKind.SUPPORT,
                    "quantity": str(quantity),
                    "statistic": "non-finite draws",
                    "value": float(fraction),
                    "threshold": 0.0,
                    "passed": bool(fraction == 0),
                }
            )
    return pd.DataFrame(rows, columns=list(CHECK_COLUMNS))


def verdict(checks: pd.DataFrame, reference: pd.DataFrame | None = None) -> str:
    """Return a side's verdict from its own checks and, optionally, the reference's own checks.

    The rules, in this order (the first that applies decides), the side's own
    failures first:

    1. draws outside the support (:func:`support_failed`), or a failed honesty
       check (:func:`honesty_failed`: chains not independent, draws copied from the
       reference, a sampler not reproducible): ``disagree``;
    2. a failed gate (:func:`gates_failed`): ``not converged``, unless a z-check
       of the side is gross (:func:`gross_difference`: a difference no
       plausible Monte Carlo error explains), which is ``disagree``;
    3. a failed exact check (:func:`exact_failed`): ``disagree``;
    4. the reference failed its own gates, support or exact checks
       (:func:`reference_at_fault`): ``reference failed``; no comparison with
       it can be attributed to the side, however large;
    5. a failed z-check or multivariate check against the reference
       (:func:`difference_detected`): ``disagree``;
    6. every z-check ``equivalent`` (:func:`all_equivalent`): ``agree``;
    7. otherwise ``inconclusive`` (nothing detected, resolution not reached: run longer).

    Parameters
    ----------
    checks : pandas.DataFrame
        The side's own checks, every kind (columns ``kind``, ``passed``, and
        ``gross``/``equivalent`` for z-checks); without ``reference``, the checks
        of every side taken together.
    reference : pandas.DataFrame, optional
        The reference's own checks (rows whose ``side`` is the reference).

    Returns
    -------
    str
        A :class:`~mcmc_pairs.comparisons.kinds.Verdict`.
    """
    blamed = reference_at_fault(reference)
    if support_failed(checks):
        return DISAGREE
    if honesty_failed(checks):  # issue 31 part 3: a sampler that only looks right
        return DISAGREE
    if gates_failed(checks):
        return DISAGREE if gross_difference(checks, reference_failed=blamed) else NOT_CONVERGED
    if exact_failed(checks):
        return DISAGREE
    if blamed:
        return REFERENCE_FAILED
    if difference_detected(checks):
        return DISAGREE
    return AGREE if all_equivalent(checks) else INCONCLUSIVE


def _of_kind(checks: pd.DataFrame | None, *kinds: str) -> pd.DataFrame:
    """Return the rows of ``checks`` of the given kinds (none when ``checks`` is None)."""
    if checks is None or not len(checks):
        return pd.DataFrame(columns=["kind", "passed"])
    return checks[checks["kind"].isin(kinds)]


def _any_failed(rows: pd.DataFrame) -> bool:
    return bool(len(rows)) and not rows["passed"].astype(bool).all()


def support_failed(checks: pd.DataFrame) -> bool:
    """Return True when a draw of the side is not finite: outside the target's support."""
    return _any_failed(_of_kind(checks, CheckKind.SUPPORT))


def honesty_failed(checks: pd.DataFrame) -> bool:
    """Return True when an honesty check of the side failed (:data:`~.kinds.HONESTY_KINDS`)."""
    return _any_failed(_of_kind(checks, *HONESTY_KINDS))


def gates_failed(checks: pd.DataFrame) -> bool:
    """Return True when a gate of the side (R-hat, bulk or tail ESS) failed: not converged."""
    return _any_failed(_of_kind(checks, CheckKind.DIAGNOSTIC))


def exact_failed(checks: pd.DataFrame) -> bool:
    """Return True when a z-check of the side against the exact answer failed."""
    return _any_failed(_of_kind(checks, CheckKind.EXACT))


def difference_detected(checks: pd.DataFrame) -> bool:
    """Return True when a z-check or energy check of the side against the reference failed."""
    return _any_failed(_of_kind(checks, CheckKind.AGREEMENT, CheckKind.MULTIVARIATE))


def gross_difference(checks: pd.DataFrame, reference_failed: bool = False) -> bool:
    """Return True when a z-check of the side is gross (:func:`gross_differences`).

    A gross difference from the exact answer always counts; one from the
    reference counts only when the reference did not fail its own checks.
    """
    kinds = (CheckKind.EXACT,) if reference_failed else Z_KINDS
    z = _of_kind(checks, *kinds)
    return "gross" in z and bool(z["gross"].fillna(False).astype(bool).any())


REFERENCE_KINDS = (CheckKind.DIAGNOSTIC, CheckKind.SUPPORT, CheckKind.EXACT)
"""The reference's own checks whose failure is :data:`REFERENCE_FAILED` for a healthy side."""


def reference_at_fault(reference: pd.DataFrame | None) -> bool:
    """Return True when the reference failed its own gates, support or exact checks."""
    return _any_failed(_of_kind(reference, *REFERENCE_KINDS))


def all_equivalent(checks: pd.DataFrame) -> bool:
    """Every z-check with a tolerance is ``equivalent``: the resolution is reached."""
    if "equivalent" not in checks:
        return True
    return bool(checks["equivalent"].dropna().astype(bool).all())


CHECK_RESOLUTION_COLUMNS = ("difference", "resolution", "tolerance", "equivalent")
"""Columns a z-check adds to :data:`CHECK_COLUMNS` (:func:`resolutions`), with ``gross``."""
CHECK_TEST_COLUMNS = ("p", "level", "note")
"""Columns of the tests behind a check: its p-value, the level it is judged at (Holm's, at
its rank, for a z-check; ``energy.ALPHA`` for the energy check) and a note in words where
the numbers need one (:func:`check_notes`): ``NaN``, ``NaN`` and ``""`` for the gates."""


def check_notes(z_table: pd.DataFrame) -> pd.Series:
    """Say in words what a z-check's bare numbers hide: a zero or missing MCSE.

    A difference over a standard error of 0 is a z of infinity: no Monte
    Carlo error can explain it, and the reason (a side constant in every draw,
    a chain stuck, or a lattice quantile; discrete quantities are compared by
    indicators instead, :func:`lattice_indicators`) is named.
    """
    se = z_table["se"].to_numpy(dtype=float)
    same = (z_table["a"] == z_table["b"]).to_numpy()
    notes = np.full(len(z_table), "", dtype=object)
    notes[np.isnan(se)] = "no MCSE (too few draws per chain to estimate one): not tested"
    zero = se == 0
    notes[zero & same] = "MCSE 0 on both sides and the same value: nothing to test"
    notes[zero & ~same] = (
        "MCSE 0 on both sides but different values: no Monte Carlo error explains the "
        "difference (a side constant in every draw, or stuck)"
    )
    return pd.Series(notes, index=z_table.index)


def compare_draws(
    sides: Mapping[str, xr.DataArray],
    pairs: Sequence[tuple[str, str]],
    reference: Mapping[str, ExactMarginal] | None = None,
    *,
    statistics: Sequence[str] = STATISTICS,
    alpha: float = ALPHA,
    tolerance: float = TOLERANCE,
    alpha_equivalence: float = ALPHA_EQUIVALENCE,
    means_only: Collection[str] = (),
    multivariate: bool = True,
) -> tuple[str, pd.DataFrame, dict[str, pd.DataFrame]]:
    """Compare sides given as quantities arrays: the whole agreement procedure.

    Parameters
    ----------
    sides : mapping of str to DataArray
        Quantities of each side, shape (chain, draw, quantity).
    pairs : sequence of (str, str)
        Which sides to compare with which.
    reference : mapping, optional
        Exact marginals per quantity.
    statistics : sequence of str
        Statistics to compare.
    alpha : float
        Family-wise false-alarm rate of the z-checks (Holm).
    tolerance : float
        ``delta`` of :func:`tolerances`: the resolution ``agree`` certifies.
    alpha_equivalence : float
        Level of the two one-sided tests behind ``agree`` (:func:`resolutions`).
    means_only : collection of str
        Quantities whose mean alone ``agree`` certifies (:func:`resolutions`).
    multivariate : bool
        Add the energy checks (:func:`energy_checks`); a sequential run adds
        them once, at its last look (:func:`with_energy_checks`).

    Returns
    -------
    verdict : str
    checks : pandas.DataFrame
        The z-checks (with ``kind="agreement"`` or ``"exact"``), the
        multivariate checks, the gates (``kind="diagnostic"``) and the support
        checks (``kind="support"``); columns :data:`CHECK_COLUMNS`, ``gross``
        (:func:`gross_differences`, false but for z-checks) and
        :data:`CHECK_RESOLUTION_COLUMNS` (empty but for z-checks); ``side``
        names the side each check judges (:func:`side_verdicts`).
    summaries : dict of str to DataFrame
    """
    for name, value in (("alpha", alpha), ("alpha_equivalence", alpha_equivalence)):
        if not (isinstance(value, (int, float)) and 0 < value < 1):
            raise ValueError(f"{name} must lie in (0, 1), got {value!r}")
    tolerances(tolerance)  # checks it
    chains = {da.sizes["chain"] for da in sides.values()}
    original = sides
    sides, statistics_of = _with_lattice_indicators(sides, statistics)
    summaries = summarize_sides(sides)
    z_table = holm(z_checks(summaries, pairs, reference, statistics, statistics_of), alpha)
    z_table = resolutions(z_table, tolerance, alpha_equivalence, means_only)
    draws = {label: da.sizes["draw"] for label, da in sides.items()}
    gates = diagnostic_checks(summaries, max(chains), draws)
    support = support_checks(sides)
    labels = [Statistic(statistic).check for statistic in z_table["statistic"]]
    z_table = z_table.assign(value=z_table["z"], statistic=labels)
    z_table["gross"] = gross_differences(z_table)
    z_table["note"] = check_notes(z_table)
    constant = constant_quantities(sides)
    z_table = compare_constants_exactly(z_table, constant, pairs)
    gates = constant_gates(gates, constant, pairs)
    columns = [*CHECK_COLUMNS, "gross", *CHECK_RESOLUTION_COLUMNS, *CHECK_TEST_COLUMNS]
    checks = pd.concat(
        [z_table[columns], gates.assign(gross=False), support.assign(gross=False, note="")],
        ignore_index=True,
    )
    if multivariate:
        checks = with_energy_checks(checks, original, pairs, summaries)
    return verdict_of(checks), checks, summaries


def constant_quantities(sides: Mapping[str, xr.DataArray]) -> dict[str, set[str]]:
    """Return, per side, the quantities with one value in every draw of every chain.

    Parameters
    ----------
    sides : mapping of str to DataArray
        Quantities of each side, shape (chain, draw, quantity).

    Returns
    -------
    dict of str to set of str
        Side label to its constant quantities (a non-finite draw is never constant).
    """
    out = {}
    for label, da in sides.items():
        values = np.asarray(da.transpose("chain", "draw", "quantity").values, dtype=float)
        flat = values.reshape(-1, values.shape[-1])
        same = np.all(flat == flat[:1], axis=0) if len(flat) else np.zeros(flat.shape[-1], bool)
        out[label] = {str(q) for q, c in zip(da["quantity"].values, same, strict=True) if c}
    return out


def _partners(pairs: Sequence[tuple[str, str]]) -> dict[str, set[str]]:
    """Return, per side, the sides it is compared with (in either place of a pair)."""
    out: dict[str, set[str]] = {}
    for a, b in pairs:
        out.setdefault(a, set()).add(b)
        out.setdefault(b, set()).add(a)
    return out


CONSTANT_EQUAL = "constant in every draw on both sides and equal: compared exactly, passed"
CONSTANT_UNEQUAL = "constant in every draw on both sides but different values: compared exactly"


def compare_constants_exactly(
    z_table: pd.DataFrame, constant: Mapping[str, set[str]], pairs: Sequence[tuple[str, str]]
) -> pd.DataFrame:
    """Compare a quantity constant on both sides of a pair exactly: equal passes, unequal fails.

    There is no Monte Carlo error to test against: the z-check of every statistic
    of such a quantity passes, with z 0, resolution 0 and ``equivalent``, when
    the two values are equal, and fails, with z infinite, ``gross`` and not
    ``equivalent``, when they differ.

    Parameters
    ----------
    z_table : pandas.DataFrame
        The z-checks with :func:`resolutions`, ``gross`` and ``note``.
    constant : mapping of str to set of str
        :func:`constant_quantities`.
    pairs : sequence of (str, str)
        The compared sides.
    """
    z_table = z_table.copy()
    for a, b in pairs:
        both = constant.get(a, set()) & constant.get(b, set())
        rows = (z_table["comparison"] == f"{a} vs {b}") & z_table["quantity"].isin(both)
        if not rows.any():
            continue
        equal = (z_table.loc[rows, "a"] == z_table.loc[rows, "b"]).astype(bool)
        z_table.loc[rows, "value"] = np.where(equal, 0.0, np.inf)
        z_table.loc[rows, "p"] = np.where(equal, 1.0, 0.0)
        z_table.loc[rows, "passed"] = equal
        z_table.loc[rows, "gross"] = ~equal
        z_table.loc[rows, "resolution"] = np.where(equal, 0.0, np.inf)
        z_table.loc[rows, "note"] = np.where(equal, CONSTANT_EQUAL, CONSTANT_UNEQUAL)
        certified = rows & z_table["tolerance"].notna()
        z_table.loc[certified, "equivalent"] = equal[certified[rows].to_numpy()]
    return z_table


NOT_APPLICABLE = (
    "not applicable: constant in every draw here and on every side it is compared with "
    "(R-hat undefined); compared exactly instead"
)
STUCK = (
    "constant in every draw here but not on a side it is compared with: a stuck sampler "
    "(R-hat undefined)"
)


def constant_gates(
    gates: pd.DataFrame, constant: Mapping[str, set[str]], pairs: Sequence[tuple[str, str]]
) -> pd.DataFrame:
    """Mark the gates of constant quantities: not applicable when constant on both sides.

    A quantity constant on a side and on every side it is compared with has an
    undefined (NaN) R-hat and says nothing about mixing: its R-hat and ESS gates
    pass, with the note :data:`NOT_APPLICABLE` (the z-checks compare it
    exactly, :func:`compare_constants_exactly`). A quantity constant on a side
    but varying on a side it is compared with is a stuck sampler there: its
    R-hat gate fails, with the note :data:`STUCK` (the reference's gate, when
    the reference is the stuck one).

    Parameters
    ----------
    gates : pandas.DataFrame
        :func:`diagnostic_checks`, with a ``note`` column or without.
    constant : mapping of str to set of str
        :func:`constant_quantities`.
    pairs : sequence of (str, str)
        The compared sides.
    """
    gates = gates.copy()
    if "note" not in gates:
        gates["note"] = ""
    partners = _partners(pairs)
    for label, mine in constant.items():
        others = partners.get(label, set())
        if not mine or not others:
            continue
        everywhere = set.intersection(mine, *(constant.get(o, set()) for o in others))
        here = gates["side"] == label
        shared = here & gates["quantity"].isin(everywhere)
        gates.loc[shared, ["passed", "note"]] = [True, NOT_APPLICABLE]
        stuck = here & gates["quantity"].isin(mine - everywhere) & (gates["statistic"] == "r_hat")
        gates.loc[stuck, ["passed", "note"]] = [False, STUCK]
    return gates


def _with_lattice_indicators(
    sides: Mapping[str, xr.DataArray], statistics: Sequence[str]
) -> tuple[dict[str, xr.DataArray], dict[str, list[str]]]:
    """Return the sides with their discrete quantities' indicators added, and what each compares.

    A discrete quantity (:func:`discrete_quantities`) is compared by its mean and
    sd only (:data:`DISCRETE_STATISTICS`), and its indicators ``P(X <= k)`` at the
    pooled quantiles (:func:`lattice_indicators`) by their mean; the second value
    maps each such quantity to its statistics (every other quantity: ``statistics``).
    """
    discrete = discrete_quantities(sides)
    probs = [p for p in PROBS if quantile_label(p) in statistics]
    indicators = lattice_indicators(sides, discrete, probs)
    statistics_of = {q: [s for s in statistics if s in DISCRETE_STATISTICS] for q in discrete}
    cut = [str(q) for q in next(iter(indicators.values()))["quantity"].values] if sides else []
    statistics_of.update({q: [s for s in statistics if s == "mean"] for q in cut})
    if cut:
        sides = {
            label: xr.concat([da, indicators[label]], "quantity") for label, da in sides.items()
        }
    return dict(sides), statistics_of


def verdict_of(checks: pd.DataFrame) -> str:
    """Return the :func:`verdict` of a table of checks of every kind and side, taken together."""
    return verdict(checks)


def with_energy_checks(
    checks: pd.DataFrame,
    sides: Mapping[str, xr.DataArray],
    pairs: Sequence[tuple[str, str]],
    summaries: Mapping[str, pd.DataFrame],
    level: float = energy.ALPHA,
) -> pd.DataFrame:
    """Return ``checks`` with :func:`energy_checks`' multivariate checks after the z-checks.

    ``level`` is each energy check's false-alarm rate (:func:`energy_checks`).
    """
    energy_rows = energy_checks(sides, pairs, summaries, level)
    is_z = checks["kind"].isin(Z_KINDS)
    parts = [checks[is_z], energy_rows, checks[~is_z]]
    return pd.concat([p for p in parts if len(p)], ignore_index=True)


def energy_checks(
    sides: Mapping[str, xr.DataArray],
    pairs: Sequence[tuple[str, str]],
    summaries: Mapping[str, pd.DataFrame],
    level: float = energy.ALPHA,
) -> pd.DataFrame:
    """Return the multivariate check (:mod:`mcmc_pairs.comparisons.energy`) of every pair of sides.

    One row per pair, ``kind`` ``"multivariate"``, quantity ``"all"``, statistic
    ``"energy"``: the energy distance of the two sides' thinned, standardised
    draws of every quantity, against the ``1 - level`` quantile (``level``
    :data:`~.energy.ALPHA` unless a run's rate says otherwise) of its
    block-permutation distribution, with its p-value and a note naming the
    quantities that drive the distance (:func:`mcmc_pairs.comparisons.energy.drivers`).
    Pairs with non-finite draws are left out
    (their support checks fail). The permutations are seeded, so a run's
    checks are the same every time.
    """
    rows = []
    for a_label, b_label in pairs:
        a, b = sides[a_label], sides[b_label]
        in_b = set(b["quantity"].values)
        common = [q for q in a["quantity"].values if q in in_b]
        a, b = a.sel(quantity=common), b.sel(quantity=common)
        if not (np.isfinite(a.values).all() and np.isfinite(b.values).all()):
            continue
        min_ess = tuple(
            float(summaries[label].loc[common, "ess_bulk"].min()) for label in (a_label, b_label)
        )
        rng = np.random.default_rng(0)
        statistic, p, critical = energy.energy_test(a, b, min_ess, rng, level)
        drivers = energy.drivers(a, b, min_ess)
        rows.append(
            {
                "comparison": f"{a_label} vs {b_label}",
                "side": a_label,
                "kind": CheckKind.MULTIVARIATE,
                "quantity": "all",
                "statistic": "energy",
                "value": statistic,
                "threshold": critical,
                "passed": p > level,
                "gross": False,
                "p": p,
                "level": level,
                "note": "largest one-dimensional energy distances: "
                + ", ".join(f"{q} {d:.3g}" for q, d in drivers),
            }
        )
    return pd.DataFrame(rows, columns=[*CHECK_COLUMNS, "gross", *CHECK_TEST_COLUMNS])


def gross_differences(z_table: pd.DataFrame) -> pd.Series:
    """Flag the z-checks whose difference no plausible Monte Carlo error explains.

    A check is gross when its difference exceeds :data:`GROSS_FACTOR` times its
    Holm threshold both in units of its MCSE (``|z|``) and in units of its
    standard error with the chains as batches (``se_batch``), which stays
    honest when chains disagree with each other: a chain stuck far away makes
    ``se_batch`` large, so a side that is merely not converged is not called
    ``disagree``; chains that agree with each other on a wrong answer are.

    Parameters
    ----------
    z_table : pandas.DataFrame
        Holm-corrected z-checks with columns ``a``, ``b``, ``z``, ``threshold``
        and ``se_batch``.

    Returns
    -------
    pandas.Series of bool
    """
    bound = GROSS_FACTOR * z_table["threshold"]
    with np.errstate(divide="ignore", invalid="ignore"):
        z_batch = (z_table["a"] - z_table["b"]).abs() / z_table["se_batch"]
    return (z_table["z"].abs() > bound) & (z_batch > bound)


LEAD = 1.5
"""A side that agrees before the last look, but whose z-checks' mean squared normal
score (:func:`lead`) is at least this, is held: the run grows on (:mod:`~.run`).

Agreement gives a mean of about 1 (a check's squared z averages 1); a small
difference shared by many checks, too small for any one of them to pass its
Holm threshold, raises them all. Stan's NUTS bug of 2.10-2.13 (sds 4 % too small,
``shipped/stan_nuts_subtree``) gives 3.1 at its first look at seed 1, where no
check is past its threshold and every one is within its tolerance; it is caught
at seeds 1-7 of 8 (the eighth agrees at its first look with 0.56). The correct
samplers of the zoo, the seed pairs and the catalogue's fixes gave 1.5 or more in
15 of 217 first looks that agreed (one look each, seeds 1-12; 2 or more in 5):
those runs take another look. Holding a side spends nothing of either error
rate: each look's tests keep their own share (:func:`~.run.spent`), whatever made
the run take it."""


def lead(checks: pd.DataFrame, side: str) -> float:
    """Return the mean squared normal score of ``side``'s z-checks (NaN: none).

    Each check's two-sided p-value (:func:`z_p_values`) becomes the normal
    score with the same p, so a Student-t's heavier tails do not count as a
    lead; a p of 0 counts as 1e-300.
    """
    from scipy import stats

    rows = checks[(checks["side"] == side) & checks["kind"].isin(Z_KINDS)]
    p = rows["p"].to_numpy(dtype=float) if "p" in rows else np.array([])
    p = p[np.isfinite(p)]
    if not len(p):
        return float("nan")
    return float(np.mean(stats.norm.isf(np.clip(p, 1e-300, 1.0) / 2) ** 2))


def held_sides(checks: pd.DataFrame, verdicts: Mapping[str, str], labels: Sequence[str]) -> dict:
    """Return the sides among ``labels`` that agree with a :func:`lead` of :data:`LEAD` or more.

    Returns
    -------
    dict of str to float
        Side label to its lead, for the held sides only.
    """
    leads = {label: lead(checks, label) for label in labels if verdicts[label] == AGREE}
    return {label: value for label, value in leads.items() if value >= LEAD}


def side_verdicts(checks: pd.DataFrame, sides: Sequence[str], reference: str) -> dict[str, str]:
    """Return the verdict of every side but ``reference``, from the checks that bear on it.

    A side's own checks are the rows whose ``side`` is that side (its
    comparison with the reference, its exact checks, its gates, its support);
    the reference's own checks (its exact checks, gates and support) are the
    rows whose ``side`` is ``reference``. :func:`verdict` counts the side's own
    failures first; a side that passes them while the reference fails its own
    is ``"reference failed"``.

    Parameters
    ----------
    checks : pandas.DataFrame
        From :func:`compare_draws`, with columns ``side``, ``kind`` and ``passed``.
    sides : sequence of str
        Side labels.
    reference : str
        The reference side's label.

    Returns
    -------
    dict of str to str
        Side label to :func:`verdict`, in the order of ``sides``.
    """
    own = checks[checks["side"] == reference]
    return {
        label: verdict(checks[checks["side"] == label], own)
        for label in sides
        if label != reference
    }


def _child_main(path: str) -> None:
    """Summarise the sides pickled at ``path``; write the summaries pickled to stdout."""
    import pickle
    import sys

    with open(path, "rb") as f:
        sides = pickle.load(f)
    summaries = {label: _summarize_quietly(da) for label, da in sides.items()}
    sys.stdout.buffer.write(pickle.dumps(summaries, protocol=pickle.HIGHEST_PROTOCOL))


if __name__ == "__main__":  # the child of summarize_sides
    import sys

    _child_main(sys.argv[1])
