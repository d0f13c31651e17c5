"""The statistics of a comparison, in three layers (each imports only the ones before it).

1. Numeric kernels: :mod:`.quantities` (what is compared), :mod:`.summaries`
   (statistics, MCSEs, ESS, R-hat per quantity), :mod:`.inference` (z-scores,
   p-values, Holm, resolutions, R-hat thresholds, gross differences).
2. Check kinds, one module each, making :class:`.checks.Check` records:
   :mod:`.zchecks`, :mod:`.constants`, :mod:`.gates`, :mod:`.divergences`,
   :mod:`.support`, :mod:`.multivariate`; :func:`.checks.checks_frame` makes the
   checks table of them.
3. The verdict rules: :mod:`.verdicts`.

No module here starts a process or is a process's entry point: the summaries'
child is :mod:`mcmc_pairs.comparisons.split_summaries`, on the execution side.
"""
