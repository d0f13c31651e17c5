"""A NumPyro model as a side: ``--sampler numpyro:FILE.py:MODEL`` (issue 29).

A user who ports a PyMC model to NumPyro (or the other way) checks the port by
comparing NumPyro's NUTS on it with PyMC's on the original. :class:`NumpyroSampler`
is the port as a sampler with the contract's signature: it runs NumPyro's
``MCMC(NUTS(model))`` with the run's draws, tune, chains and seed and returns
the sample sites named after the PyMC model's free variables, so ``compare``
and ``validate --method sbc`` take it like any sampler.

The model is ``model(data)``, ``data`` the mapping that ``--data`` reads; its
sample sites carry the PyMC model's names, its observed sites ``obs=data[...]``.
JAX runs in double precision (``jax_enable_x64``), the chains one after the
other (``chain_method="sequential"``) from ``jax.random.PRNGKey(random_seed)``:
the same seed gives the same draws. NumPyro is an optional extra:
``pip install "mcmc-pairs[numpyro]"``.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from mcmc_pairs.comparisons.sides import HandwrittenSource, SideUnderTest

if TYPE_CHECKING:
    from mcmc_pairs.comparisons.pair import Pair

PREFIX = "numpyro:"
"""``--sampler numpyro:FILE.py:MODEL`` runs a NumPyro model (:class:`NumpyroSampler`)."""


@dataclass(frozen=True)
class NumpyroSampler:
    """A NumPyro model sampled by NumPyro's NUTS, with the contract's signature.

    Parameters
    ----------
    spec : str
        What follows :data:`PREFIX`: ``path/to/file.py:MODEL`` or ``package.module:MODEL``.
    variables : tuple of str
        The PyMC model's free variables: the sample sites returned.
    """

    spec: str
    variables: tuple[str, ...]

    @classmethod
    def parse(cls, sampler: object, pair: Pair) -> NumpyroSampler | None:
        """Return the sampler ``sampler`` names (``"numpyro:..."``) for ``pair``'s model, else None.

        NumPyro and the model are imported here, to fail fast with one line
        naming ``--sampler`` (NumPyro not installed, a model that does not import).
        """
        if isinstance(sampler, NumpyroSampler):
            return sampler
        if not (isinstance(sampler, str) and sampler.startswith(PREFIX)):
            return None
        found = cls(sampler.removeprefix(PREFIX), tuple(pair.variables))
        found.load()
        return found

    def __str__(self) -> str:
        return PREFIX + self.spec

    def load(self) -> Any:
        """Import NumPyro and the model; a ValueError naming ``--sampler`` if either fails."""
        try:
            import numpyro  # noqa: F401
        except ImportError:
            raise ValueError(
                f"--sampler {self}: NumPyro is not installed (pip install 'mcmc-pairs[numpyro]')"
            ) from None
        from mcmc_pairs.comparisons.loading import load_callable

        return load_callable(self.spec, argument=f"--sampler {PREFIX}")

    def __call__(
        self, data: Mapping[str, Any], *, draws: int, tune: int, chains: int, random_seed: int
    ) -> dict[str, np.ndarray]:
        """Run NumPyro's NUTS on the model given ``data``.

        Returns
        -------
        dict of str to ndarray
            :attr:`variables`, each (chains, draws, *event_shape), float64.
        """
        import jax
        from numpyro.infer import MCMC, NUTS

        jax.config.update("jax_enable_x64", True)
        model = self.load()
        mcmc = MCMC(
            NUTS(model),
            num_warmup=tune,
            num_samples=draws,
            num_chains=chains,
            chain_method="sequential",
            progress_bar=False,
        )
        try:
            mcmc.run(jax.random.PRNGKey(int(random_seed)), _as_arrays(data))
        except Exception as exc:  # the user's model: any failure is bad input
            raise ValueError(f"--sampler {self} raised {type(exc).__name__}: {exc}") from None
        samples = mcmc.get_samples(group_by_chain=True)
        missing = [v for v in self.variables if v not in samples]
        if missing:
            raise ValueError(
                f"--sampler {self}: the model has no sample site(s) {missing} (the PyMC "
                f"model's free variables: {list(self.variables)}; its sites: {sorted(samples)})"
            )
        return {v: np.asarray(samples[v], dtype=np.float64) for v in self.variables}


def numpyro_under_test(port: NumpyroSampler, side: SideUnderTest) -> HandwrittenSource:
    """Return the port as the side under test: a sampler like a hand-written one, named ``port``."""
    return HandwrittenSource(
        side.pair.name,
        side.role,
        side.variant,
        port,
        side.data,
        side.settings,
        side.shapes,
        name=str(port),
    )


def _as_arrays(data: Mapping) -> dict[str, Any]:
    """Return ``data`` with lists as NumPy arrays (JAX takes arrays, not lists)."""
    return {k: np.asarray(v) if isinstance(v, list | tuple) else v for k, v in data.items()}
