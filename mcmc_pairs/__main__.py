"""``python -m mcmc_pairs``: the ``mcmc-pairs`` command line."""

from mcmc_pairs.comparisons import interrupts

interrupts.install()  # before anything else is imported: a signal from here on ends the run cleanly

from mcmc_pairs.comparisons.cli import program  # noqa: E402

program()
